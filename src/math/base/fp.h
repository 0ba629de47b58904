/*
 * fp.h - the floating-point error bounds every certified computation in
 * jldp rests on (Higham, Accuracy and Stability of Numerical Algorithms,
 * ch. 3): the unit roundoff, gamma_n, error-free sums, and the allowance
 * test of a projected row.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_FP_H
#define JLDP_MATH_FP_H

#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* unit roundoff of IEEE double, round to nearest */
#define JL_U_ROUND (DBL_EPSILON / 2.0)

/* absolute error of a product that underflows: at most 2^-1074 */
#define JL_UNDERFLOW_UNIT 4.9406564584124654e-324

/* gamma_n = n u / (1 - n u), the classical bound for an n-term sum */
static inline double
jl_gamma(double n)
{
	return n * JL_U_ROUND / (1.0 - n * JL_U_ROUND);
}

/* a + b = s + e exactly (Knuth's two-sum) */
static inline void
jl_two_sum(double a, double b, double *s, double *e)
{
	double		z;

	*s = a + b;
	z = *s - a;
	*e = (a - (*s - z)) + (b - z);
}

/*
 * Whether the floating-point error of a d-term dot product of a row with
 * computed L1 norm l1 (any summation order) against entries of magnitude
 * at most max_abs stays within allowance: gamma_(d+2) covers the product
 * and the error of l1 itself, and each product may underflow once.
 */
static inline bool
jl_fp_within_allowance(double l1, int64_t d, double max_abs, double allowance)
{
	double		gd = jl_gamma((double) d + 2);

	return gd * l1 * (1.0 + 2.0 * gd) * max_abs +
		(double) d * JL_UNDERFLOW_UNIT <= allowance;
}

/*
 * Whether every one of the n doubles is finite.  v - v is +0 for a finite
 * v and NaN for an infinite or NaN one, and a NaN stays in a sum: plain
 * arithmetic, two lanes at a time with two sums in flight (SSE2 has no
 * 64-bit integer vector compare for a test of the exponent bits).
 */
static inline bool
jl_all_finite(const double *v, size_t n)
{
	typedef double jl_f64x2 __attribute__((vector_size(16)));
	jl_f64x2	a0 = {0.0, 0.0},
				a1 = a0,
				v0,
				v1;
	double		t;
	size_t		i;

	for (i = 0; i + 4 <= n; i += 4)
	{
		memcpy(&v0, v + i, sizeof(v0));
		memcpy(&v1, v + i + 2, sizeof(v1));
		a0 += v0 - v0;
		a1 += v1 - v1;
	}
	a0 += a1;
	t = a0[0] + a0[1];
	for (; i < n; i++)
		t += v[i] - v[i];
	return t == 0.0;
}

#endif
