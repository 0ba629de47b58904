/*
 * recover_inner.c - SQL entry points of inner-product and squared-norm
 * recovery (no key involved, so executable by analysts).
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "math/estimate/recover_inner.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pg/common/arrays.h"
#include "pg/common/options.h"
#include "pg/catalog/registry.h"

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

/*
 * Plain arrays are read in place and a sum of products checks their
 * finiteness: <a, b> is finite only if every a_j b_j, hence every element
 * of both, is (a product with an infinite or NaN factor is infinite or NaN,
 * and a sum with such a term stays so).  Any other case (a toasted or short
 * datum, a NULL bitmap, different lengths, a sum that is not finite) goes
 * through the full checks, which raise their errors in their order or find
 * the same sketches and the same sum.
 */

/* ||a||^2 of the sketch a (argument arg), k its length */
static double
read_norm2(FunctionCallInfo fcinfo, int arg, const char *what, int *k)
{
	const double *a = jl_array_plain_float8(PG_GETARG_DATUM(arg), k);

	if (a != NULL)
	{
		double		n2;

		jl_prefetch_next_row(PG_GETARG_DATUM(arg));
		n2 = jl_inner(a, a, *k);
		if (isfinite(n2))
			return n2;
	}
	a = jl_array_vector(PG_GETARG_ARRAYTYPE_P(arg), what, k);
	return jl_inner(a, a, *k);
}

/* the sketches a and b (arguments 0 and 1) and <a, b> */
static double
read_two(FunctionCallInfo fcinfo, const double **a, const double **b, int *k)
{
	int			ka,
				kb;

	*a = jl_array_plain_float8(PG_GETARG_DATUM(0), &ka);
	*b = jl_array_plain_float8(PG_GETARG_DATUM(1), &kb);
	if (*a != NULL && *b != NULL && ka == kb)
	{
		double		ip;

		jl_prefetch_next_row(PG_GETARG_DATUM(0));
		jl_prefetch_next_row(PG_GETARG_DATUM(1));
		ip = jl_inner(*a, *b, ka);
		if (isfinite(ip))
		{
			*k = ka;
			return ip;
		}
	}
	*a = jl_array_vector(PG_GETARG_ARRAYTYPE_P(0), "a", &ka);
	*b = jl_array_vector(PG_GETARG_ARRAYTYPE_P(1), "b", &kb);
	if (ka != kb)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have different dimensions %d and %d", ka, kb)));
	*k = ka;
	return jl_inner(*a, *b, ka);
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
	text	   *t = jl_option_arg(fcinfo, arg);

	return noise_kurtosis(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

/* the kind argument arg, if given: true for 'identity' (P = I) */
static bool
read_identity(FunctionCallInfo fcinfo, int arg)
{
	return PG_NARGS() > arg && JL_KIND_IS_IDENTITY(jl_parse_kind(jl_option_arg(fcinfo, arg)));
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
	const double *a,
			   *b;
	int			k;
	double		ip = read_two(fcinfo, &a, &b, &k);

	read_variance(fcinfo, 2);
	PG_RETURN_FLOAT8(ip);
}

Datum
jl_recover_inner_stddev(PG_FUNCTION_ARGS)
{
	const double *a,
			   *b;
	double		nv;
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
	double		n2 = read_norm2(fcinfo, 0, "a", &k);

	PG_RETURN_FLOAT8(jl_norm2_from_sq(n2, k, read_variance(fcinfo, 1)));
}

Datum
jl_recover_norm2_stddev(PG_FUNCTION_ARGS)
{
	int			k;
	double		n2 = read_norm2(fcinfo, 0, "a", &k);
	double		nv = read_variance(fcinfo, 1);

	PG_RETURN_FLOAT8(jl_norm2_stddev_sq(n2, k, nv, read_kurtosis(fcinfo, 2),
										read_identity(fcinfo, 3)));
}

Datum
jl_recover_inner_release(PG_FUNCTION_ARGS)
{
	const double *a,
			   *b;
	int			k;
	double		ip = read_two(fcinfo, &a, &b, &k);

	read_release(fcinfo, 2, k);
	PG_RETURN_FLOAT8(ip);
}

Datum
jl_recover_inner_stddev_release(PG_FUNCTION_ARGS)
{
	const double *a,
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
	double		n2 = read_norm2(fcinfo, 0, "a", &k);
	const JlReleaseNoise *rn = read_release(fcinfo, 1, k);

	PG_RETURN_FLOAT8(jl_norm2_from_sq(n2, k, rn->noise_variance));
}

Datum
jl_recover_norm2_stddev_release(PG_FUNCTION_ARGS)
{
	int			k;
	double		n2 = read_norm2(fcinfo, 0, "a", &k);
	const JlReleaseNoise *rn = read_release(fcinfo, 1, k);

	if (strcmp(rn->noise, "laplace") != 0 && strcmp(rn->noise, "gaussian") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the release of table %s used noise \"%s\", which has no variance formula here",
						get_rel_name(rn->target), rn->noise)));
	PG_RETURN_FLOAT8(jl_norm2_stddev_sq(n2, k, rn->noise_variance,
										noise_kurtosis(rn->noise, strlen(rn->noise)),
										rn->identity));
}
