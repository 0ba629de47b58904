/*
 * recover_inner.c - SQL entry points of inner-product and squared-norm
 * recovery (no key involved, so executable by analysts).
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "math/recover_inner.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pg/arrays.h"
#include "pg/options.h"
#include "pg/registry.h"

PG_FUNCTION_INFO_V1(jl_recover_inner);
PG_FUNCTION_INFO_V1(jl_recover_inner_stddev);
PG_FUNCTION_INFO_V1(jl_recover_norm2);
PG_FUNCTION_INFO_V1(jl_recover_norm2_stddev);
PG_FUNCTION_INFO_V1(jl_recover_inner_release);
PG_FUNCTION_INFO_V1(jl_recover_inner_stddev_release);
PG_FUNCTION_INFO_V1(jl_recover_norm2_release);
PG_FUNCTION_INFO_V1(jl_recover_norm2_stddev_release);

/* the fourth moment of a noise, in units of its variance squared */
static double
noise_kurtosis(const char *noise, int len)
{
	if (len == 7 && strncmp(noise, "laplace", 7) == 0)
		return JL_KURTOSIS_LAPLACE;
	if (len == 8 && strncmp(noise, "gaussian", 8) == 0)
		return JL_KURTOSIS_GAUSSIAN;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown noise \"%.*s\"", len, noise),
			 errhint("Use 'laplace' or 'gaussian'.")));
	return 0.0;					/* not reached */
}

static double *
read_sketch(FunctionCallInfo fcinfo, int arg, const char *what, int *k)
{
	return jl_array_vector(PG_GETARG_ARRAYTYPE_P(arg), what, k);
}

static void
read_two(FunctionCallInfo fcinfo, double **a, double **b, int *k)
{
	int			kb;

	*a = read_sketch(fcinfo, 0, "a", k);
	*b = read_sketch(fcinfo, 1, "b", &kb);
	if (*k != kb)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have different dimensions %d and %d", *k, kb)));
}

static double
read_variance(FunctionCallInfo fcinfo, int arg)
{
	double		nv = PG_GETARG_FLOAT8(arg);

	if (!(isfinite(nv) && nv >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("noise_variance must be a finite number >= 0")));
	return nv;
}

static double
read_kurtosis(FunctionCallInfo fcinfo, int arg)
{
	text	   *t = PG_GETARG_TEXT_PP(arg);

	return noise_kurtosis(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

/* the kind argument arg, if given: true for 'identity' (P = I) */
static bool
read_identity(FunctionCallInfo fcinfo, int arg)
{
	return PG_NARGS() > arg && JL_KIND_IS_IDENTITY(jl_parse_kind(PG_GETARG_TEXT_PP(arg)));
}

static const JlReleaseNoise *
read_release(FunctionCallInfo fcinfo, int arg, int k)
{
	const JlReleaseNoise *rn = jl_release_noise(fcinfo, PG_GETARG_OID(arg));

	if (rn->k != k)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have %d dimensions, the release has k = %d", k, rn->k)));
	return rn;
}

Datum
jl_recover_inner(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b;
	int			k;

	read_two(fcinfo, &a, &b, &k);
	read_variance(fcinfo, 2);
	PG_RETURN_FLOAT8(jl_inner(a, b, k));
}

Datum
jl_recover_inner_stddev(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b,
				nv;
	int			k;

	read_two(fcinfo, &a, &b, &k);
	nv = read_variance(fcinfo, 2);
	read_kurtosis(fcinfo, 3);	/* checked; the inner product does not use it */
	PG_RETURN_FLOAT8(jl_inner_stddev(a, b, k, nv, read_identity(fcinfo, 4)));
}

Datum
jl_recover_norm2(PG_FUNCTION_ARGS)
{
	int			k;
	double	   *a = read_sketch(fcinfo, 0, "a", &k);

	PG_RETURN_FLOAT8(jl_norm2_recover(a, k, read_variance(fcinfo, 1)));
}

Datum
jl_recover_norm2_stddev(PG_FUNCTION_ARGS)
{
	int			k;
	double	   *a = read_sketch(fcinfo, 0, "a", &k);
	double		nv = read_variance(fcinfo, 1);

	PG_RETURN_FLOAT8(jl_norm2_stddev(a, k, nv, read_kurtosis(fcinfo, 2),
									 read_identity(fcinfo, 3)));
}

Datum
jl_recover_inner_release(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b;
	int			k;

	read_two(fcinfo, &a, &b, &k);
	read_release(fcinfo, 2, k);
	PG_RETURN_FLOAT8(jl_inner(a, b, k));
}

Datum
jl_recover_inner_stddev_release(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b;
	int			k;
	const JlReleaseNoise *rn;

	read_two(fcinfo, &a, &b, &k);
	rn = read_release(fcinfo, 2, k);
	PG_RETURN_FLOAT8(jl_inner_stddev(a, b, k, rn->noise_variance, rn->identity));
}

Datum
jl_recover_norm2_release(PG_FUNCTION_ARGS)
{
	int			k;
	double	   *a = read_sketch(fcinfo, 0, "a", &k);
	const JlReleaseNoise *rn = read_release(fcinfo, 1, k);

	PG_RETURN_FLOAT8(jl_norm2_recover(a, k, rn->noise_variance));
}

Datum
jl_recover_norm2_stddev_release(PG_FUNCTION_ARGS)
{
	int			k;
	double	   *a = read_sketch(fcinfo, 0, "a", &k);
	const JlReleaseNoise *rn = read_release(fcinfo, 1, k);

	if (strcmp(rn->noise, "laplace") != 0 && strcmp(rn->noise, "gaussian") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the release of table %s used noise \"%s\", which has no variance formula here",
						get_rel_name(rn->target), rn->noise)));
	PG_RETURN_FLOAT8(jl_norm2_stddev(a, k, rn->noise_variance,
									 noise_kurtosis(rn->noise, strlen(rn->noise)),
									 rn->identity));
}
