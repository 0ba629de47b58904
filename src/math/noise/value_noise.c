/*
 * value_noise.c - the scale of exact discrete Laplace noise on one integer
 * value.
 *
 * The quotient sensitivity / epsilon is rounded, so its ceiling can be one
 * step off either way; t * epsilon is instead compared with the
 * sensitivity exactly: fma gives the rounding error of the product, so
 * hi + lo = t * epsilon holds exactly.
 */
#include <math.h>

#include "math/noise/laplace.h"
#include "math/noise/value_noise.h"

/* t * epsilon >= s, exactly (t, s integers below 2^53) */
static int
covers(double t, double epsilon, double s)
{
	double		hi = t * epsilon;
	double		lo = fma(t, epsilon, -hi);

	return hi > s || (hi == s && lo >= 0.0);
}

JlStatus
jl_laplace_steps(int64_t sensitivity, double epsilon, uint64_t *t_out)
{
	double		s = (double) sensitivity;
	double		t;

	if (!(isfinite(epsilon) && epsilon > 0.0))
		return JL_ERR_EPSILON;
	if (sensitivity < 1 || sensitivity > JL_VALUE_MAX_SENSITIVITY)
		return JL_ERR_SENSITIVITY;
	t = fmax(1.0, ceil(s / epsilon));
	if (!(t <= (double) JL_LAPLACE_MAX_T))
		return JL_ERR_SCALE;
	/* step up while t is too small, down while t - 1 still suffices */
	while (!covers(t, epsilon, s))
		t += 1.0;
	while (t > 1.0 && covers(t - 1.0, epsilon, s))
		t -= 1.0;
	/*
	 * Not reached for sensitivities below 2^53 (s / 2^44 is a double, so
	 * no quotient rounds down onto the limit), but cheap to keep true.
	 */
	if (t > (double) JL_LAPLACE_MAX_T)
		return JL_ERR_SCALE;
	*t_out = (uint64_t) t;
	return JL_OK;
}
