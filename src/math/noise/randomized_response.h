/*
 * randomized_response.h - randomized response for 0/1 data (Kenthapadi et
 * al., Algorithms 5 and 6): each bit is flipped independently with
 * probability p = 1/(1 + e^epsilon), and squared distances are recovered
 * without bias from the flipped vectors.
 *
 * Privacy: for two inputs differing in one bit, the probability of any
 * output changes by at most the factor (1-p)/p = e^epsilon, so a release is
 * epsilon-DP for one bit (one element of one row) changing; a row differing
 * in h bits is protected at h epsilon (group privacy).
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_RANDOMIZED_RESPONSE_H
#define JLDP_MATH_RANDOMIZED_RESPONSE_H

#include "math/random/randbits.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * The sampler uses epsilon' = epsilon rounded down to a multiple of
 * 2^-JL_RR_EPS_BITS (a change below 5e-10, and only towards more privacy:
 * a larger p) and capped at JL_RR_EPS_MAX (p below e^-32768, 0 in double).
 */
#define JL_RR_EPS_BITS 31
#define JL_RR_EPS_MAX 32768.0

typedef struct JlRR
{
	uint64_t	num;			/* epsilon' = num / den, den <= 2^31 */
	uint64_t	den;
	uint64_t	whole;			/* floor(epsilon') */
	uint64_t	frac;			/* epsilon' - whole = frac / den */
	uint64_t	lo1,
				hi1;			/* lo1 <= 2^32 e^-1 <= hi1 */
	uint64_t	lof,
				hif;			/* lof <= 2^32 e^-(frac/den) <= hif */
	double		epsilon;		/* epsilon' as a double (exact) */
	double		p;				/* 1/(1 + e^epsilon') rounded to double */
} JlRR;

/* Fill rr for epsilon; false if epsilon is not finite and > 0. */
bool		jl_rr_setup(JlRR *rr, double epsilon);

/*
 * The flip probability the sampler uses for epsilon (that of epsilon'),
 * rounded to double; NaN if epsilon is not finite and > 0.
 */
double		jl_rr_flip_probability(double epsilon);

/*
 * One exact Bernoulli(1/(1 + e^epsilon')) trial: true means flip.
 * With a = e^-epsilon', repeat { a fair bit 0 returns false; otherwise a
 * Bernoulli(a) success returns true }: each round ends false with
 * probability 1/2 and true with probability a/2, so the result is true
 * with probability a / (1 + a) = 1/(1 + e^epsilon') exactly.
 * Bernoulli(a) = Bernoulli(e^-1)^whole AND Bernoulli(e^-(frac/den)), each
 * decided by 32 uniform bits against precomputed bounds and, when the
 * bounds cannot decide, exactly by multi-precision evaluation of the
 * exponential (jl_bernoulli_exp_bounded, laplace.h): integer arithmetic on
 * uniform bits only.  At most 2 rounds on average.
 */
bool		jl_rr_flip(JlRandom *r, const JlRR *rr);

/* Flip each of v[0..n-1] (0 or 1) in place; the outputs are 0.0 or 1.0. */
void		jl_rr_flip_doubles(JlRandom *r, const JlRR *rr, double *v, int64_t n);
void		jl_rr_flip_bytes(JlRandom *r, const JlRR *rr, uint8_t *v, int64_t n);

/*
 * Flip each of the first nbits bits of v in place (bits beyond stay as
 * they are).
 */
void		jl_rr_flip_bitstring(JlRandom *r, const JlRR *rr, uint8_t *v,
								 int64_t nbits);

/* Number of bits set in a XOR b over nbytes bytes. */
uint64_t	jl_hamming_bytes(const uint8_t *a, const uint8_t *b, int64_t nbytes);

/*
 * The unbiased estimate of the squared distance between the original 0/1
 * vectors from the Hamming distance h between their flipped versions of
 * length d (Algorithm 6):  (h - 2 d p (1-p)) / (1 - 2p)^2,  0 <= p < 1/2.
 */
double		jl_rr_recover_sqdist(double h, double d, double p);

/*
 * Its variance, whatever the true distance: each coordinate's observed
 * difference is Bernoulli(1 - s) where the rows differ and Bernoulli(s)
 * where they agree, s = 2p(1-p) (exactly one of the two bits flipped), both
 * of variance s(1 - s), independent across coordinates, so
 *   Var = d s (1 - s) / (1 - 2p)^4.
 */
double		jl_rr_variance(double d, double p);

#endif
