/*
 * recover.h - unbiased recovery of squared distances from private sketches
 * (Algorithm 2 of Dhaliwal et al. and Kenthapadi et al.) and its variance.
 */
#ifndef JLDP_MATH_RECOVER_H
#define JLDP_MATH_RECOVER_H

/* ||a - b||^2 */
double		jl_sqdist(const double *a, const double *b, int k);

/* ||a - b||^2 - 2 k sigma^2 */
double		jl_recover_sqdist(const double *a, const double *b, int k,
							  double noise_variance);

/* The same from sqdist = ||a - b||^2 already computed. */
static inline double
jl_recover_from_sqdist(double sqdist, int k, double noise_variance)
{
	return sqdist - 2.0 * k * noise_variance;
}

/*
 * Variance of the recovered distance under Laplace noise, true squared
 * distance r2:  2 r2^2 / k + 8 sigma^2 r2 + 14 k sigma^4.
 * With conditional = 1 the projection is held fixed (one key) and r2 is
 * ||(x_i - x_j) P||^2: the first term vanishes.
 */
double		jl_recover_variance_laplace(double r2, int k, double noise_variance,
										int conditional);

/*
 * The same under Gaussian noise (Kenthapadi et al., Theorem 2):
 * 2 r2^2 / k + 8 sigma^2 r2 + 8 k sigma^4.
 */
double		jl_recover_variance_gaussian(double r2, int k, double noise_variance,
										 int conditional);

/*
 * Plug-in standard error: the variance above (over P and the noise) at
 * r2 = max(recovered, 0); Laplace noise, or Gaussian when gaussian != 0.
 * With identity != 0 the release had P = I (no projection, k = d): nothing
 * varies with P, so the variance is the conditional one, with r2 the true
 * squared distance itself: 8 s2 r2 + 14 k s2^2 (Gaussian: 8 k s2^2).
 */
double		jl_recover_stddev(const double *a, const double *b, int k,
							  double noise_variance);
double		jl_recover_stddev_noise(const double *a, const double *b, int k,
									double noise_variance, int gaussian,
									int identity);
/* The same from sqdist = ||a - b||^2 already computed. */
double		jl_recover_stddev_sqdist(double sqdist, int k, double noise_variance,
									 int gaussian, int identity);

#endif
