/*
 * recover.c - SQL entry points of distance recovery (no key involved, so
 * executable by analysts).
 */
#include "jldp.h"

#include <math.h>

#include "distance.h"

PG_FUNCTION_INFO_V1(jl_recover_dist);
PG_FUNCTION_INFO_V1(jl_recover_dist_stddev);

static void
read_pair(FunctionCallInfo fcinfo, double **a, double **b, int *k, double *nv)
{
	int			ka,
				kb;

	*a = jl_array_vector(PG_GETARG_ARRAYTYPE_P(0), "a", &ka);
	*b = jl_array_vector(PG_GETARG_ARRAYTYPE_P(1), "b", &kb);
	if (ka != kb)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have different dimensions %d and %d", ka, kb)));
	*nv = PG_GETARG_FLOAT8(2);
	if (!(isfinite(*nv) && *nv >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("noise_variance must be a finite number >= 0")));
	*k = ka;
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

	read_pair(fcinfo, &a, &b, &k, &nv);
	PG_RETURN_FLOAT8(jl_recover_stddev(a, b, k, nv));
}
