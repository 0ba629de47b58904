/*
 * gaussian_dominance.c - the continuous Gaussian shift that dominates a
 * release's discrete Gaussian noise (gaussian_dominance.h).
 *
 * Let H(x) = sup_S P(S) - x Q(S) be the hockey-stick divergence of the
 * release on two neighbours (P, Q), delta(epsilon) = H(e^epsilon), and
 * G_mu(x) that of N(mu, 1) against N(0, 1).  The pair with an extra atom of
 * mass delta0 on one side only has G'(x) = delta0 + (1 - delta0) G_mu(x).
 * It dominates the release (Zhu, Dong and Wang 2022) when H <= G' for
 * every x >= 0, and then the composition of such pairs dominates the
 * composition of the releases.
 *
 *   x >= 1 (epsilon >= 0): H is non-increasing and bounded at epsilon_i by
 *     the certificate (the lesser of jl_discrete_gaussian_delta and the
 *     conversion of its zCDP, gaussian.h, as a release certifies), G' is
 *     non-increasing, so H <= G' on [epsilon_i, epsilon_i+1] when
 *     certificate(epsilon_i) <= G'(epsilon_i+1).  Past the point where the
 *     certificate is at most delta0, H <= delta0 <= G'.
 *   x < 1: H(x) = 1 - x + x H~(1/x) for the pair taken the other way round
 *     (the complement of S), and G' satisfies the same identity; the
 *     certificate bounds both orders (its shifts are every vector of norm
 *     at most Dg, v and -v alike), so the case x >= 1 covers it.
 *
 * G_mu is evaluated rounded down (jl_gdp_delta), the certificate is rounded
 * up; mu only grows during the scan, and G_mu grows with mu, so the points
 * passed stay passed.
 */
#include "math/noise/gaussian_dominance.h"
#include "math/accounting/gaussian_profile.h"
#include "math/base/interrupt.h"
#include "math/noise/gaussian.h"

#include <math.h>

/* grid steps of mu0 / STEPS_PER_MU; at most MAX_POINTS of them */
#define STEPS_PER_MU 512.0
#define MAX_POINTS 200000

/* G' at epsilon, rounded down */
static double
dominating(double mu, double delta0, double epsilon)
{
	return delta0 + (1.0 - delta0) * jl_gdp_delta(mu, epsilon, -1) * (1.0 - 1e-15);
}

double
jl_discrete_gaussian_mu(double Dg, double s, int k, double delta0)
{
	double		mu,
				step,
				rho = Dg * Dg / (2.0 * s * s) * (1.0 + 1e-14);

	if (!(isfinite(Dg) && Dg > 0.0 && isfinite(s) && s > 0.0 && k >= 1 &&
		  delta0 > 0.0 && delta0 < 1.0))
		return NAN;
	mu = Dg / s;
	if (!(isfinite(mu) && mu > 0.0 && mu < 1e6))
		return NAN;
	step = mu / STEPS_PER_MU;
	for (int i = 0;; i++)
	{
		double		e = i * step,
					cert = fmin(jl_discrete_gaussian_delta(Dg, s, k, e), jl_zcdp_delta(rho, e));

		if (i % 1024 == 0)
			jl_interrupt_check();
		if (cert <= delta0)
			return mu * (1.0 + 1e-12);
		if (i >= MAX_POINTS)
			return NAN;
		if (dominating(mu, delta0, e + step) < cert)
		{
			/* raise mu: double until it holds, then bisect */
			double		lo = mu,
						hi = mu;

			for (int j = 0; dominating(hi, delta0, e + step) < cert; j++)
			{
				if (j >= 60)
					return NAN;
				lo = hi;
				hi *= 1.25;
			}
			for (int j = 0; j < 60 && hi - lo > hi * 1e-13; j++)
			{
				double		mid = 0.5 * (lo + hi);

				if (dominating(mid, delta0, e + step) >= cert)
					hi = mid;
				else
					lo = mid;
			}
			mu = hi;
		}
	}
}
