/*
 * projection_cache.h - per-backend caches of projection matrices P and of
 * the statistics of P that calibrations read, and the calibration of a
 * release to them.
 */
#ifndef JLDP_PG_PROJECTION_CACHE_H
#define JLDP_PG_PROJECTION_CACHE_H

#include "postgres.h"

#include "math/projection/csr.h"
#include "math/projection/mechanism.h"
#include "math/projection/projection.h"
#include "math/projection/sensitivity.h"

typedef struct JlProjection
{
	bool		used;			/* the slot holds a projection */
	uint8		secret[JL_KEY_BYTES];
	JlKind		kind;			/* a sparse kind's density resolved */
	int			k;
	int64		d;
	double	   *P;				/* d x k, row-major; NULL for the identity
								 * (k = d, never materialised: the products
								 * of math/projection/release.h copy) */
	JlCsr		csr;			/* its nonzeros, for sparse kinds */
	bool		has_csr;
	Size		csr_bytes;
	JlProjStats stats;			/* the row ones computed when first needed */
	uint64		last_used;
	Size		bytes;
} JlProjection;

/*
 * The dense P of (secret, kind, k, d), generated once per backend; for the
 * identity kind an entry without a matrix (P NULL), k = d required.
 */
extern JlProjection *jl_projection_get(const uint8 *secret, JlKind kind, int k,
									   int64 d);

/*
 * ERROR (invalid_parameter_value) unless k = d for the identity kind, which
 * releases every attribute; what names the caller's d ("the length of x").
 */
extern void jl_check_identity_k(JlKind kind, int k, int64 d, const char *what);

/*
 * Y = X P for n rows of X (n x d, row-major) into Y (n x k): a copy for the
 * identity, the nonzeros of a sparse kind's P, or one BLAS product.
 */
extern void jl_projection_apply(const JlProjection *p, const double *X, int64 n,
								double *Y);

/*
 * Calibrate m (its options set by the caller) to the projection p: d, k and
 * the statistic of P its noise and neighbour notion need.  Bad options are
 * reported as errors.
 */
extern void jl_calibrate_on(JlMechanism *m, JlProjection *p);

/*
 * The same, returning the calibration's status instead of reporting it.
 * The statistic of P is still computed here, and its failures reported:
 * for row neighbours the caller checks jl_row_stats_affordable(d, k) first.
 */
extern JlStatus jl_calibrate_status(JlMechanism *m, JlProjection *p);

/*
 * The same for the P of (secret, kind, k, d) without holding it: its
 * statistics are streamed over rows of P generated a block at a time, in
 * O(k^2) memory, and cached per backend.
 */
extern void jl_calibrate_streamed(JlMechanism *m, const uint8 *secret,
								  JlKind kind, int k, int64 d);

#endif
