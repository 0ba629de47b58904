/*
 * randomized_response.c - exact randomized response and its distance
 * recovery.
 */
#include "math/noise/randomized_response.h"

#include "math/noise/laplace.h"

#include <math.h>

bool
jl_rr_setup(JlRR *rr, double epsilon)
{
	double		e;

	if (!(isfinite(epsilon) && epsilon > 0.0))
		return false;
	e = epsilon > JL_RR_EPS_MAX ? JL_RR_EPS_MAX : epsilon;
	/* exact: a power-of-two scaling, then floor of a value below 2^63 */
	rr->num = (uint64_t) floor(ldexp(e, JL_RR_EPS_BITS));
	rr->den = UINT64_C(1) << JL_RR_EPS_BITS;
	/* smaller fractions make the Bernoulli trials cheaper */
	while (rr->num != 0 && (rr->num & 1) == 0 && rr->den > 1)
	{
		rr->num >>= 1;
		rr->den >>= 1;
	}
	rr->epsilon = (double) rr->num / (double) rr->den;	/* exact: num < 2^53 */
	rr->whole = rr->num / rr->den;
	rr->frac = rr->num % rr->den;
	jl_exp_bounds32(1, 1, &rr->lo1, &rr->hi1);
	jl_exp_bounds32(rr->frac, rr->den, &rr->lof, &rr->hif);
	/* 1/(1 + e^x) = e^-x / (1 + e^-x): no overflow for large x */
	rr->p = exp(-rr->epsilon) / (1.0 + exp(-rr->epsilon));
	return true;
}

double
jl_rr_flip_probability(double epsilon)
{
	JlRR		rr;

	if (!jl_rr_setup(&rr, epsilon))
		return NAN;
	return rr.p;
}

/* Bernoulli(e^-epsilon'), exact */
static inline bool
bernoulli_exp_eps(JlRandom *r, const JlRR *rr)
{
	uint64_t	i;

	for (i = 0; i < rr->whole; i++)
		if (!jl_bernoulli_exp_bounded(r, 1, 1, rr->lo1, rr->hi1))
			return false;
	return rr->frac == 0 ||
		jl_bernoulli_exp_bounded(r, rr->frac, rr->den, rr->lof, rr->hif);
}

bool
jl_rr_flip(JlRandom *r, const JlRR *rr)
{
	if (rr->num == 0)
		return jl_rand_bits(r, 1) == 1;	/* epsilon' = 0: p = 1/2 */
	for (;;)
	{
		if (jl_rand_bits(r, 1) == 0)
			return false;
		if (bernoulli_exp_eps(r, rr))
			return true;
	}
}

void
jl_rr_flip_doubles(JlRandom *r, const JlRR *rr, double *v, int64_t n)
{
	int64_t		i;

	/*
	 * every output is written as exactly 0.0 or 1.0: an input -0.0 kept as
	 * is would tell that this element was not flipped
	 */
	for (i = 0; i < n; i++)
		v[i] = ((v[i] != 0.0) != jl_rr_flip(r, rr)) ? 1.0 : 0.0;
}

void
jl_rr_flip_bytes(JlRandom *r, const JlRR *rr, uint8_t *v, int64_t n)
{
	int64_t		i;

	for (i = 0; i < n; i++)
		if (jl_rr_flip(r, rr))
			v[i] ^= 1;
}

void
jl_rr_flip_bitstring(JlRandom *r, const JlRR *rr, uint8_t *v, int64_t nbits)
{
	int64_t		i;

	/* most significant bit first, as PostgreSQL's bit strings */
	for (i = 0; i < nbits; i++)
		if (jl_rr_flip(r, rr))
			v[i >> 3] ^= (uint8_t) (0x80 >> (i & 7));
}

uint64_t
jl_hamming_bytes(const uint8_t *a, const uint8_t *b, int64_t nbytes)
{
	uint64_t	h = 0;
	int64_t		i = 0;

	for (; i + 8 <= nbytes; i += 8)
	{
		uint64_t	x,
					y;

		__builtin_memcpy(&x, a + i, 8);
		__builtin_memcpy(&y, b + i, 8);
		h += (uint64_t) __builtin_popcountll(x ^ y);
	}
	for (; i < nbytes; i++)
		h += (uint64_t) __builtin_popcount((unsigned) (a[i] ^ b[i]));
	return h;
}

double
jl_rr_recover_sqdist(double h, double d, double p)
{
	double		c = 1.0 - 2.0 * p;

	return (h - 2.0 * d * p * (1.0 - p)) / (c * c);
}

double
jl_rr_variance(double d, double p)
{
	double		s = 2.0 * p * (1.0 - p);
	double		c = 1.0 - 2.0 * p;
	double		c2 = c * c;

	return d * s * (1.0 - s) / (c2 * c2);
}
