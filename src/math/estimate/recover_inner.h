/*
 * recover_inner.h - unbiased recovery of inner products and squared norms of the
 * original rows from private sketches, and their variances.
 *
 * A sketch is z = x P + n, P d x k with N(0, 1/k) entries, n k independent
 * noise values of variance s2 and fourth moment kappa s2^2 (Laplace: kappa
 * = 6; Gaussian: kappa = 3).  Two different rows have independent noise.
 *
 * Inner product of two different rows: <z_a, z_b>, no correction.
 *   given P (y = x P):  s2 (||y_a||^2 + ||y_b||^2) + k s2^2
 *   over P:             s2 (||x_a||^2 + ||x_b||^2) + k s2^2
 *                       + (||x_a||^2 ||x_b||^2 + <x_a, x_b>^2) / k
 *   (the same for every noise: only second moments enter).
 * Squared norm of one row: ||z||^2 - k s2.
 *   given P:  4 s2 ||y||^2 + (kappa - 1) k s2^2
 *   over P:   2 ||x||^4 / k + 4 s2 ||x||^2 + (kappa - 1) k s2^2
 * The over-P terms are those of a Gaussian P; a Rademacher P has less
 * (by 2 sum_i x_i^4 / k for the norm), an Achlioptas P the same.
 * P = I (k = d): y = x, and the given-P variances are the whole variances.
 */
#ifndef JLDP_MATH_RECOVER_INNER_H
#define JLDP_MATH_RECOVER_INNER_H

#define JL_KURTOSIS_LAPLACE 6.0
#define JL_KURTOSIS_GAUSSIAN 3.0

/* <a, b> */
double		jl_inner(const double *a, const double *b, int k);

/* ||a||^2 - k s2 */
double		jl_norm2_recover(const double *a, int k, double noise_variance);

/* The same from norm2 = ||a||^2 already computed. */
static inline double
jl_norm2_from_sq(double norm2, int k, double noise_variance)
{
	return norm2 - k * noise_variance;
}

/*
 * Variance of the recovered inner product.  Given P (conditional = 1),
 * n2a, n2b are ||y_a||^2, ||y_b||^2 and ip is unused; over P, they are
 * ||x_a||^2, ||x_b||^2 and ip = <x_a, x_b>.
 */
double		jl_inner_variance(double n2a, double n2b, double ip, int k,
									  double noise_variance, int conditional);

/* Variance of the recovered squared norm n2 (||y||^2 given P, else ||x||^2). */
double		jl_norm2_variance(double n2, int k, double noise_variance,
									  double kurtosis, int conditional);

/*
 * Plug-in standard errors over P and the noise: the variances above at the
 * recovered values, squared norms clamped at 0.  With identity != 0 the
 * release had P = I (k = d, y = x): the variances given P, which are then
 * the whole variances.
 */
double		jl_inner_stddev(const double *a, const double *b, int k,
							double noise_variance, int identity);
double		jl_norm2_stddev(const double *a, int k, double noise_variance,
							double kurtosis, int identity);
/* The same from norm2 = ||a||^2 already computed. */
double		jl_norm2_stddev_sq(double norm2, int k, double noise_variance,
							   double kurtosis, int identity);

#endif
