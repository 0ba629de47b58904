/*
 * laplace.c - exact discrete Laplace sampler.
 *
 * Algorithms 1 and 2 of Canonne, Kamath and Steinke, "The Discrete Gaussian
 * for Differential Privacy" (2020), specialised to an integer scale t.
 */
#include "laplace.h"

#include <math.h>

/* Bernoulli(exp(-num/den)) for 0 <= num/den <= 1. */
static inline bool
bernoulli_exp_unit(JlRandom *r, uint64_t num, uint64_t den)
{
	uint64_t	i = 1;

	/*
	 * Draw A_i ~ Bernoulli(gamma / i) until the first failure; the index of
	 * that failure is odd with probability exp(-gamma).
	 */
	for (;;)
	{
		bool		a;

		/* gamma / i = num / (den i); split in two trials if den i overflows */
		if (den <= UINT64_MAX / i)
			a = jl_rand_bernoulli(r, num, den * i);
		else
			a = jl_rand_bernoulli(r, num, den) && jl_rand_bernoulli(r, 1, i);
		if (!a)
			break;
		i++;
	}
	return (i & 1) == 1;
}

bool
jl_bernoulli_exp(JlRandom *r, uint64_t num, uint64_t den)
{
	/* exp(-g) = exp(-1)^floor(g) * exp(-(g - floor(g))) */
	while (num > den)
	{
		if (!bernoulli_exp_unit(r, 1, 1))
			return false;
		num -= den;
	}
	return bernoulli_exp_unit(r, num, den);
}

int64_t
jl_discrete_laplace(JlRandom *r, uint64_t t)
{
	for (;;)
	{
		uint64_t	u = jl_rand_below(r, t);
		uint64_t	v = 0;
		int64_t		x;
		int64_t		negative;

		if (!bernoulli_exp_unit(r, u, t))
			continue;
		while (bernoulli_exp_unit(r, 1, 1))
			v++;
		x = (int64_t) (u + t * v);
		negative = (int64_t) jl_rand_bits(r, 1);
		if (negative && x == 0)
			continue;			/* rare: keeps Pr[0] right */
		/* branch-free sign: the sign bit is a coin flip, hard to predict */
		return x - 2 * negative * x;
	}
}

double
jl_discrete_laplace_variance(uint64_t t)
{
	double		a = -1.0 / (double) t;
	double		p = exp(a);
	double		q = -expm1(a);	/* 1 - p without cancellation */

	return 2.0 * p / (q * q);
}

double
jl_discrete_laplace_moment4(uint64_t t)
{
	double		a = -1.0 / (double) t;
	double		p = exp(a);
	double		q = -expm1(a);

	return 2.0 * p * (1.0 + 10.0 * p + p * p) / (q * q * q * q);
}
