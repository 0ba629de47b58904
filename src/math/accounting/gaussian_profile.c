/*
 * gaussian_profile.c - the continuous Gaussian shift's privacy profile,
 * rounded either way (gaussian_profile.h).
 *
 * Every evaluation is directed: the arguments of the tails moved by a
 * relative 1e-14 (erfc's error is a few ulps, and its relative sensitivity
 * to its argument x is about x^2), the tails scaled by 1 -+ 1e-12, e^c by
 * 1 -+ 1e-13, and the subtraction's rounding added or taken off.
 */
#include "math/accounting/gaussian_profile.h"

#include <float.h>
#include <math.h>

double
jl_normal_tail(double x, int dir)
{
	double		xa = x - (double) dir * (fabs(x) * 1e-14 + 1e-300);

	return 0.5 * erfc(xa / M_SQRT2) * (1.0 + (double) dir * 1e-12);
}

double
jl_gdp_delta(double mu, double c, int dir)
{
	double		a,
				b,
				ta,
				tb,
				d;

	if (!(isfinite(mu) && mu > 0.0) || isnan(c))
		return NAN;
	if (c == -INFINITY)
		return 1.0;
	if (c == INFINITY)
		return 0.0;
	a = c / mu - 0.5 * mu;
	b = c / mu + 0.5 * mu;
	if (dir > 0)
	{
		ta = jl_normal_tail(a, 1);
		tb = jl_normal_tail(b, -1);
		/* e^c overflows only where the tails are 0: the term dropped is up */
		d = ta - (tb > 0.0 && c < 709.0 ? exp(c) * (1.0 - 1e-13) * tb : 0.0);
		d += 4.0 * DBL_EPSILON * ta;
		return fmin(fmax(d, 0.0), 1.0);
	}
	if (c >= 709.0)
		return 0.0;
	ta = jl_normal_tail(a, -1);
	tb = jl_normal_tail(b, 1);
	d = ta - exp(c) * (1.0 + 1e-13) * tb - 4.0 * DBL_EPSILON * ta;
	return fmax(d, 0.0);
}

double
jl_gdp_epsilon(double mu, double delta)
{
	double		lo = 0.0,
				hi;

	if (!(isfinite(mu) && mu > 0.0 && delta >= 1e-290))
		return INFINITY;
	if (jl_gdp_delta(mu, 0.0, 1) <= delta)
		return 0.0;
	/* beyond c = mu (mu/2 + 40) the positive tail is below 1e-300 */
	hi = mu * (0.5 * mu + 40.0);
	if (!(isfinite(hi) && jl_gdp_delta(mu, hi, 1) <= delta))
		return INFINITY;
	for (int i = 0; i < 200 && hi - lo > hi * 4.0 * DBL_EPSILON; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (jl_gdp_delta(mu, mid, 1) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}
