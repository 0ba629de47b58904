/*
 * jldp.h - shared declarations of the PostgreSQL glue.
 */
#ifndef JLDP_H
#define JLDP_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"

#include "csr.h"
#include "mechanism.h"
#include "projection.h"
#include "randbits.h"
#include "sensitivity.h"

#define JLDP_VERSION "0.1.0"
#define JLDP_KEY_TABLE "jldp_key"

/* arrays.c */
extern int	jl_array_check(ArrayType *a, Oid elemtype, const char *what);
extern double *jl_array_vector(ArrayType *a, const char *what, int *n);
extern ArrayType *jl_vector_array(const double *v, int n);
extern void jl_check_k(int32 k);

/* recover.c: the release that wrote a table, from the registry */
typedef struct JlReleaseNoise
{
	Oid			target;
	int			k;
	double		noise_variance;
	char		noise[NAMEDATALEN];	/* info->>'noise', "laplace" if absent */
} JlReleaseNoise;
extern const JlReleaseNoise *jl_release_noise(FunctionCallInfo fcinfo, Oid target);

/* options.c */
extern JlNeighbor jl_parse_neighbor(text *t);
extern JlNoise jl_parse_noise(text *t);
extern JlCalibration jl_parse_calibration(text *t, JlNoise noise);
extern JlKind jl_parse_kind(text *t);
extern char *jl_kind_word(JlKind kind);
extern const char *jl_neighbor_name(JlNeighbor n);
extern const char *jl_calibration_name(JlCalibration c);
extern const char *jl_noise_name(JlNoise n);
extern void jl_report_status(JlStatus s);
extern void jl_require_arg(FunctionCallInfo fcinfo, int n, const char *name);
extern void jl_refuse_invalid(const JlLaplace *m);

/* keystore.c */
typedef struct JlKey
{
	uint8		secret[JL_KEY_BYTES];
	char		fingerprint[33];
} JlKey;
extern void jl_key_lookup(Oid nsp, const char *name, JlKey *key);

/* pcache.c */
typedef struct JlProjection
{
	uint8		secret[JL_KEY_BYTES];
	JlKind		kind;
	int			k;
	int64		d;
	double	   *P;				/* d x k, row-major */
	JlCsr		csr;			/* its nonzeros, for sparse kinds */
	bool		has_csr;
	Size		csr_bytes;
	double		max_abs;
	double		max_row_l1;
	double		max_row_l2;
	bool		row_done;
	bool		spectral_done;
	double		spectral_norm;	/* sigma_max(P), rounded up */
	double		row_sensitivity;
	JlRowMethod row_method;
	uint64		last_used;
	Size		bytes;
} JlProjection;
extern JlProjection *jl_projection_get(const uint8 *secret, JlKind kind, int k,
									   int64 d);
extern double jl_projection_row_sensitivity(JlProjection *p);
extern double jl_projection_spectral_norm(JlProjection *p);
extern void jl_calibrate_on(JlLaplace *m, JlProjection *p);

/* strong_random.c */
extern JlRandom *jl_strong_random(void);

#endif
