/*
 * recover_inner.c - recovery of inner products and squared norms.
 *
 * Inner product: <z_a, z_b> = <y_a, y_b> + <y_a, n_b> + <n_a, y_b> +
 * <n_a, n_b>; the three noise terms have mean 0, variances s2 ||y_a||^2,
 * s2 ||y_b||^2 and k s2^2 (E (n_aj n_bj)^2 = s2^2), and are uncorrelated
 * (every cross moment contains one noise value to the first power).
 *
 * Squared norm: ||z||^2 = ||y||^2 + 2 <y, n> + ||n||^2, E ||n||^2 = k s2;
 * Var(2 <y, n>) = 4 s2 ||y||^2, Var(||n||^2) = k (kappa - 1) s2^2, and
 * Cov(<y, n>, ||n||^2) = sum_j y_j E n_j^3 = 0 for symmetric noise.
 *
 * Over a Gaussian P: the columns p_j are i.i.d. N(0, I/k), so (u, v) =
 * (x_a . p_j, x_b . p_j) is bivariate normal and Var(u v) = (||x_a||^2
 * ||x_b||^2 + <x_a, x_b>^2) / k^2, summed over k columns; E ||y||^2 =
 * ||x||^2 and Var ||y||^2 = 2 ||x||^4 / k.
 */
#include "math/estimate/recover_inner.h"

#include <math.h>

double
jl_inner(const double *a, const double *b, int k)
{
	double		s = 0.0;
	int			j;

	for (j = 0; j < k; j++)
		s += a[j] * b[j];
	return s;
}

double
jl_norm2_recover(const double *a, int k, double noise_variance)
{
	return jl_norm2_from_sq(jl_inner(a, a, k), k, noise_variance);
}

double
jl_inner_variance(double n2a, double n2b, double ip, int k,
						  double noise_variance, int conditional)
{
	double		v = noise_variance * (n2a + n2b) +
		k * noise_variance * noise_variance;

	if (!conditional)
		v += (n2a * n2b + ip * ip) / k;
	return v;
}

double
jl_norm2_variance(double n2, int k, double noise_variance,
						  double kurtosis, int conditional)
{
	double		v = 4.0 * noise_variance * n2 +
		(kurtosis - 1.0) * k * noise_variance * noise_variance;

	if (!conditional)
		v += 2.0 * n2 * n2 / k;
	return v;
}

double
jl_inner_stddev(const double *a, const double *b, int k,
				double noise_variance, int identity)
{
	double		n2a = fmax(jl_norm2_recover(a, k, noise_variance), 0.0);
	double		n2b = fmax(jl_norm2_recover(b, k, noise_variance), 0.0);

	return sqrt(jl_inner_variance(n2a, n2b, jl_inner(a, b, k), k,
								  noise_variance, identity));
}

double
jl_norm2_stddev(const double *a, int k, double noise_variance,
				double kurtosis, int identity)
{
	return jl_norm2_stddev_sq(jl_inner(a, a, k), k, noise_variance, kurtosis,
							  identity);
}

double
jl_norm2_stddev_sq(double norm2, int k, double noise_variance,
				   double kurtosis, int identity)
{
	double		n2 = fmax(jl_norm2_from_sq(norm2, k, noise_variance), 0.0);

	return sqrt(jl_norm2_variance(n2, k, noise_variance, kurtosis, identity));
}
