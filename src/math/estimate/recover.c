/*
 * recover.c - recovery of squared distances.
 *
 * Per coordinate, w = n_i - n_j is a difference of two independent Laplace
 * variables of variance s2: E w^2 = 2 s2, E w^4 = 18 s2^2, so
 * Var(w^2) = 14 s2^2 and Var(2 a w) = 8 s2 a^2.  Summing over k coordinates
 * gives 8 s2 r2 + 14 k s2^2 given P; over P, ||(x_i - x_j) P||^2 has variance
 * 2 r2^2 / k.  (Dhaliwal et al.'s Claim 7 has 4 s2 r2 and 2k(7 s2^2 - s2).)
 * Gaussian noise: E w^4 = 3 (2 s2)^2, so Var(w^2) = 8 s2^2 and the last term
 * is 8 k s2^2 (Kenthapadi et al., Theorem 2).
 * P = I (no projection, k = d): y = x, so the variance given P is the whole
 * variance, with r2 = ||x_i - x_j||^2 exactly.
 */
#include "math/estimate/recover.h"

#include <math.h>

/*
 * Four partial sums (coordinates j mod 4), added pairwise at the end: one
 * running sum made each addition wait for the one before (a chain of k
 * additions, the cost of a nearest-neighbour scan's distance), four chains
 * of k/4 overlap.  The order of the additions is fixed, so the result is
 * the same on every call; it may differ from the sequential sum in the
 * last bits, and within an ulp of overflow one may be infinite where the
 * other is not.  It is finite only if every term is (the terms are not
 * negative), which read_sqdist relies on.
 */
double
jl_sqdist(const double *a, const double *b, int k)
{
	double		s0 = 0.0,
				s1 = 0.0,
				s2 = 0.0,
				s3 = 0.0;
	int			j;

	for (j = 0; j + 4 <= k; j += 4)
	{
		double		t0 = a[j] - b[j],
					t1 = a[j + 1] - b[j + 1],
					t2 = a[j + 2] - b[j + 2],
					t3 = a[j + 3] - b[j + 3];

		s0 += t0 * t0;
		s1 += t1 * t1;
		s2 += t2 * t2;
		s3 += t3 * t3;
	}
	for (; j < k; j++)
	{
		double		t = a[j] - b[j];

		s0 += t * t;
	}
	return (s0 + s1) + (s2 + s3);
}

double
jl_recover_sqdist(const double *a, const double *b, int k,
				  double noise_variance)
{
	return jl_recover_from_sqdist(jl_sqdist(a, b, k), k, noise_variance);
}

/* 2 r2^2 / k (unless conditional) + 8 s2 r2 + c k s2^2, c = Var(w^2) / s2^2 */
static double
recover_variance(double r2, int k, double noise_variance, double c,
				 int conditional)
{
	double		v = 8.0 * noise_variance * r2 +
		c * k * noise_variance * noise_variance;

	if (!conditional)
		v += 2.0 * r2 * r2 / k;
	return v;
}

double
jl_recover_variance_laplace(double r2, int k, double noise_variance,
							int conditional)
{
	return recover_variance(r2, k, noise_variance, 14.0, conditional);
}

double
jl_recover_variance_gaussian(double r2, int k, double noise_variance,
							 int conditional)
{
	return recover_variance(r2, k, noise_variance, 8.0, conditional);
}

double
jl_recover_stddev_noise(const double *a, const double *b, int k,
						double noise_variance, int gaussian, int identity)
{
	return jl_recover_stddev_sqdist(jl_sqdist(a, b, k), k, noise_variance,
									gaussian, identity);
}

double
jl_recover_stddev_sqdist(double sqdist, int k, double noise_variance,
						 int gaussian, int identity)
{
	double		r2 = jl_recover_from_sqdist(sqdist, k, noise_variance);

	if (r2 < 0.0)
		r2 = 0.0;
	return sqrt(gaussian ?
				jl_recover_variance_gaussian(r2, k, noise_variance, identity) :
				jl_recover_variance_laplace(r2, k, noise_variance, identity));
}

double
jl_recover_stddev(const double *a, const double *b, int k,
				  double noise_variance)
{
	return jl_recover_stddev_noise(a, b, k, noise_variance, 0, 0);
}
