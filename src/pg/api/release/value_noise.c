/*
 * value_noise.c - exact discrete Laplace noise on one integer value: the
 * output-perturbation baseline (Kenthapadi et al., Algorithm 3, noise on
 * each entry of a matrix of integer distances) and noisy counts.
 *
 * value + L with Pr[L = z] proportional to exp(-|z| / t), t the smallest
 * integer with sensitivity / t <= epsilon (checked exactly): for values of
 * neighbouring inputs differing by at most sensitivity, the probability of
 * any output changes by at most exp(sensitivity / t) <= e^epsilon.  The
 * noise carries no secret, so this is executable by everyone.
 */
#include "postgres.h"

#include "fmgr.h"

#include "common/int.h"

#include "math/noise/laplace.h"
#include "math/noise/value_noise.h"

#include "pg/keys/strong_random.h"

PG_FUNCTION_INFO_V1(jl_add_discrete_laplace);
PG_FUNCTION_INFO_V1(jl_discrete_laplace_variance_sql);

/*
 * The scale in integer steps (math/noise/value_noise.h), bad input reported with
 * the values that make it bad.
 */
static uint64
laplace_steps(int64 sensitivity, double epsilon)
{
	uint64		t = 0;

	switch (jl_laplace_steps(sensitivity, epsilon, &t))
	{
		case JL_OK:
			break;
		case JL_ERR_EPSILON:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("epsilon must be a finite number > 0")));
			break;
		case JL_ERR_SENSITIVITY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sensitivity must be between 1 and 2^52, not " INT64_FORMAT,
							sensitivity)));
			break;
		case JL_ERR_SCALE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("epsilon %g is too small for sensitivity " INT64_FORMAT,
							epsilon, sensitivity)));
			break;
		default:
			elog(ERROR, "unexpected status of the Laplace scale");
	}
	return t;
}

Datum
jl_add_discrete_laplace(PG_FUNCTION_ARGS)
{
	int64		value = PG_GETARG_INT64(0);
	uint64		t = laplace_steps(PG_GETARG_INT64(2), PG_GETARG_FLOAT8(1));
	int64		noise = jl_discrete_laplace(jl_strong_random(), t);
	int64		out;

	/* saturation is post-processing: no refusal that depends on the value */
	if (pg_add_s64_overflow(value, noise, &out))
		out = noise > 0 ? PG_INT64_MAX : PG_INT64_MIN;
	PG_RETURN_INT64(out);
}

/* The variance of the noise jl_add_discrete_laplace adds. */
Datum
jl_discrete_laplace_variance_sql(PG_FUNCTION_ARGS)
{
	uint64		t = laplace_steps(PG_GETARG_INT64(1), PG_GETARG_FLOAT8(0));

	PG_RETURN_FLOAT8(jl_discrete_laplace_variance(t));
}
