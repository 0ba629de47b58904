/*
 * gaussian_profile.h - the privacy profile of the continuous Gaussian
 * shift, N(mu, 1) against N(0, 1) (mu-GDP, Dong, Roth and Su 2022):
 *   delta_mu(c) = Phibar(c/mu - mu/2) - e^c Phibar(c/mu + mu/2)
 * for every real c (docs/design/accounting.md).  It is the profile that a
 * Gaussian release's dominating pair has (math/noise/gaussian_dominance.h),
 * and Gaussian pairs compose exactly: mu_1, ..., mu_n compose to
 * sqrt(mu_1^2 + ... + mu_n^2).
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_GAUSSIAN_PROFILE_H
#define JLDP_MATH_GAUSSIAN_PROFILE_H

/* The upper tail of N(0, 1) at x, rounded up (dir > 0) or down (dir < 0). */
double		jl_normal_tail(double x, int dir);

/*
 * delta_mu(c), mu > 0, rounded up (dir > 0: at most 1) or down (dir < 0: at
 * least 0).  NaN for mu not positive and finite or c NaN.
 */
double		jl_gdp_delta(double mu, double c, int dir);

/*
 * The least epsilon >= 0 (to bisection's precision, on the valid side)
 * with jl_gdp_delta(mu, epsilon, +1) <= delta; INFINITY if none is found
 * (delta below 1e-290, or mu not finite).
 */
double		jl_gdp_epsilon(double mu, double delta);

#endif
