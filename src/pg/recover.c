/*
 * recover.c - SQL entry points of distance recovery (no key involved, so
 * executable by analysts).
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "math/recover.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"

#include "pg/budget.h"
#include "pg/arrays.h"
#include "pg/options.h"
#include "pg/registry.h"

PG_FUNCTION_INFO_V1(jl_recover_dist);
PG_FUNCTION_INFO_V1(jl_recover_dist_stddev);
PG_FUNCTION_INFO_V1(jl_recover_dist_release);
PG_FUNCTION_INFO_V1(jl_recover_dist_stddev_release);

static void
read_sketches(FunctionCallInfo fcinfo, double **a, double **b, int *k)
{
	int			ka,
				kb;

	*a = jl_array_vector(PG_GETARG_ARRAYTYPE_P(0), "a", &ka);
	*b = jl_array_vector(PG_GETARG_ARRAYTYPE_P(1), "b", &kb);
	if (ka != kb)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have different dimensions %d and %d", ka, kb)));
	*k = ka;
}

static void
read_release_pair(FunctionCallInfo fcinfo, double **a, double **b, int *k, double *nv,
				  bool *gaussian, bool *identity)
{
	const JlReleaseNoise *rn;

	read_sketches(fcinfo, a, b, k);
	rn = jl_release_noise(fcinfo, PG_GETARG_OID(2));
	if (rn->k != *k)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have %d dimensions, the release has k = %d", *k, rn->k)));
	*nv = rn->noise_variance;
	*gaussian = strcmp(rn->noise, "gaussian") == 0;
	*identity = rn->identity;
}

Datum
jl_recover_dist_release(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b,
				nv;
	int			k;
	bool		gaussian,
				identity;

	read_release_pair(fcinfo, &a, &b, &k, &nv, &gaussian, &identity);
	PG_RETURN_FLOAT8(jl_recover_sqdist(a, b, k, nv));
}

Datum
jl_recover_dist_stddev_release(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b,
				nv;
	int			k;
	bool		gaussian,
				identity;

	read_release_pair(fcinfo, &a, &b, &k, &nv, &gaussian, &identity);
	PG_RETURN_FLOAT8(jl_recover_stddev_noise(a, b, k, nv, gaussian, identity));
}

static void
read_pair(FunctionCallInfo fcinfo, double **a, double **b, int *k, double *nv)
{
	read_sketches(fcinfo, a, b, k);
	*nv = PG_GETARG_FLOAT8(2);
	if (!(isfinite(*nv) && *nv >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("noise_variance must be a finite number >= 0")));
}

Datum
jl_recover_dist(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b,
				nv;
	int			k;

	read_pair(fcinfo, &a, &b, &k, &nv);
	PG_RETURN_FLOAT8(jl_recover_sqdist(a, b, k, nv));
}

Datum
jl_recover_dist_stddev(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b,
				nv;
	int			k;
	JlNoise		noise = JL_NOISE_LAPLACE;
	JlKind		kind = JL_KIND_RADEMACHER;

	read_pair(fcinfo, &a, &b, &k, &nv);
	if (PG_NARGS() > 3)
		noise = jl_parse_noise(PG_GETARG_TEXT_PP(3));
	if (PG_NARGS() > 4)
		kind = jl_parse_kind(PG_GETARG_TEXT_PP(4));
	PG_RETURN_FLOAT8(jl_recover_stddev_noise(a, b, k, nv, noise == JL_NOISE_GAUSSIAN,
											 JL_KIND_IS_IDENTITY(kind)));
}
