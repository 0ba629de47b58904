/*
 * recover.c - SQL entry points of distance recovery (no key involved, so
 * executable by analysts).
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "math/estimate/recover.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"

#include "pg/budget/budget.h"
#include "pg/common/arrays.h"
#include "pg/common/options.h"
#include "pg/catalog/registry.h"

PG_FUNCTION_INFO_V1(jl_recover_dist);
PG_FUNCTION_INFO_V1(jl_recover_dist_stddev);
PG_FUNCTION_INFO_V1(jl_recover_dist_release);
PG_FUNCTION_INFO_V1(jl_recover_dist_stddev_release);

/*
 * ||a - b||^2 of the sketches a and b (arguments 0 and 1), k their length.
 * Plain arrays are read in place and the sum checks their finiteness: it is
 * finite only if every a_j - b_j, hence every element of both, is.  Any
 * other case (a toasted or short datum, a NULL bitmap, different lengths, a
 * sum that is not finite) goes through the full checks, which raise their
 * errors in their order or find the same sketches and the same sum.
 */
static double
read_sqdist(FunctionCallInfo fcinfo, int *k)
{
	const double *a,
			   *b;
	int			ka,
				kb;

	a = jl_array_plain_float8(PG_GETARG_DATUM(0), &ka);
	b = jl_array_plain_float8(PG_GETARG_DATUM(1), &kb);
	if (a != NULL && b != NULL && ka == kb)
	{
		double		s;

		jl_prefetch_next_row(PG_GETARG_DATUM(0));
		jl_prefetch_next_row(PG_GETARG_DATUM(1));
		s = jl_sqdist(a, b, ka);
		if (isfinite(s))
		{
			*k = ka;
			return s;
		}
	}
	a = jl_array_vector(PG_GETARG_ARRAYTYPE_P(0), "a", &ka);
	b = jl_array_vector(PG_GETARG_ARRAYTYPE_P(1), "b", &kb);
	if (ka != kb)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have different dimensions %d and %d", ka, kb)));
	*k = ka;
	return jl_sqdist(a, b, ka);
}

/* the release (argument 2) of sketches of length k */
static const JlReleaseNoise *
read_release(FunctionCallInfo fcinfo, int k)
{
	const JlReleaseNoise *rn = jl_release_noise(fcinfo, PG_GETARG_OID(2));

	if (rn->k != k)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have %d dimensions, the release has k = %d", k, rn->k)));
	return rn;
}

Datum
jl_recover_dist_release(PG_FUNCTION_ARGS)
{
	int			k;
	double		s = read_sqdist(fcinfo, &k);
	const JlReleaseNoise *rn = read_release(fcinfo, k);

	PG_RETURN_FLOAT8(jl_recover_from_sqdist(s, k, rn->noise_variance));
}

Datum
jl_recover_dist_stddev_release(PG_FUNCTION_ARGS)
{
	int			k;
	double		s = read_sqdist(fcinfo, &k);
	const JlReleaseNoise *rn = read_release(fcinfo, k);

	PG_RETURN_FLOAT8(jl_recover_stddev_sqdist(s, k, rn->noise_variance,
											  strcmp(rn->noise, "gaussian") == 0,
											  rn->identity));
}

/* noise_variance (argument 2) */
static double
read_variance(FunctionCallInfo fcinfo)
{
	double		nv = PG_GETARG_FLOAT8(2);

	if (!(isfinite(nv) && nv >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("noise_variance must be a finite number >= 0")));
	return nv;
}

Datum
jl_recover_dist(PG_FUNCTION_ARGS)
{
	int			k;
	double		s = read_sqdist(fcinfo, &k);

	PG_RETURN_FLOAT8(jl_recover_from_sqdist(s, k, read_variance(fcinfo)));
}

Datum
jl_recover_dist_stddev(PG_FUNCTION_ARGS)
{
	int			k;
	double		s = read_sqdist(fcinfo, &k);
	double		nv = read_variance(fcinfo);
	JlNoise		noise = JL_NOISE_LAPLACE;
	JlKind		kind = JL_KIND_RADEMACHER;

	if (PG_NARGS() > 3)
		noise = jl_parse_noise(jl_option_arg(fcinfo, 3));
	if (PG_NARGS() > 4)
		kind = jl_parse_kind(jl_option_arg(fcinfo, 4));
	PG_RETURN_FLOAT8(jl_recover_stddev_sqdist(s, k, nv, noise == JL_NOISE_GAUSSIAN,
											  JL_KIND_IS_IDENTITY(kind)));
}
