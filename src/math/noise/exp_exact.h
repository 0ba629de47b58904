/*
 * exp_exact.h - exact comparisons with exp(-num/den) on uniformly random
 * bits: Bernoulli(exp(-g)) by Canonne, Kamath and Steinke's Algorithm 1,
 * its fast form with precomputed bounds, and the multi-precision fixed
 * point (32-bit limbs) that resolves a comparison the bounds leave open.
 * The samplers of laplace.h and exp_alias.h rest on it.
 */
#ifndef JLDP_MATH_EXP_EXACT_H
#define JLDP_MATH_EXP_EXACT_H

#include "math/random/randbits.h"

#include <stdbool.h>
#include <stdint.h>

/* Bernoulli(exp(-num/den)), num >= 0, den >= 1. */
bool		jl_bernoulli_exp(JlRandom *r, uint64_t num, uint64_t den);

/*
 * [u < exp(-num/den)] for a uniform u in [0,1) whose first 32 bits are R;
 * further bits are drawn as needed.  Exact.  (0 <= num <= den < 2^32)
 */
bool		jl_bernoulli_exp_resolve(JlRandom *r, uint64_t num, uint64_t den,
									 uint32_t R);

/*
 * [j + W < K exp(-num/den)] for a uniform W in [0, 1) drawn here: exact
 * (1 <= den < 2^32, num / den < 65, 1 <= K < 2^32, j < 2^32).
 */
bool		jl_exp_scaled_below(JlRandom *r, uint64_t num, uint64_t den,
								uint32_t K, uint32_t j);

/* 2^16 exp(-1) = 24109.3...: lo 24109, hi 24110, packed */
#define JL_EXP1_PACKED (UINT32_C(24109) | (UINT32_C(1) << 16))

/*
 * Bernoulli(exp(-num/den)) (0 <= num <= den < 2^32) with 16-bit bounds
 * packed as in the table: lo <= 2^16 exp(-num/den) <= lo + (packed >> 16).
 * Exact; about 8.1 random bits per trial.
 */
static inline bool
jl_bernoulli_exp_packed(JlRandom *r, uint64_t num, uint64_t den,
						uint32_t packed)
{
	uint64_t	lo = packed & 0xffff;
	uint64_t	hi = lo + (packed >> 16);
	uint64_t	R = jl_rand_bits(r, 8);

	/*
	 * u's first 8 bits decide unless [R/2^8, (R+1)/2^8) straddles the
	 * bounds (probability below 2^-6); then its next 8, then the resolver
	 */
	if (((R + 1) << 8) <= lo)
		return true;
	if ((R << 8) >= hi)
		return false;
	R = (R << 8) | jl_rand_bits(r, 8);
	if (R + 1 <= lo)
		return true;
	if (R >= hi)
		return false;
	return jl_bernoulli_exp_resolve(r, num, den,
									(uint32_t) ((R << 16) | jl_rand_bits(r, 16)));
}

/*
 * lo <= 2^bits exp(-num/den) <= hi (1 <= bits <= 32), from libm with a
 * safety margin; jl_exp_bounds32 is bits = 32.
 */
void		jl_exp_bounds(uint64_t num, uint64_t den, int bits, uint64_t *lo,
						  uint64_t *hi);
void		jl_exp_bounds32(uint64_t num, uint64_t den, uint64_t *lo,
							uint64_t *hi);

/*
 * Bernoulli(exp(-num/den)) (0 <= num <= den < 2^32) with 32-bit bounds
 * lo <= 2^32 exp(-num/den) <= hi: exact whatever the bounds' width.
 */
bool		jl_bernoulli_exp_bounded(JlRandom *r, uint64_t num, uint64_t den,
									 uint64_t lo, uint64_t hi);


/*
 * exp(-num/den) in fixed point with w 32-bit fractional limbs (value =
 * sum val[i] 2^(32 (i - w)), i = 0..w): the true value lies within err
 * units of the last limb of val.  Returns false if w is out of range.
 */
bool		jl_exp_fixed(uint64_t num, uint64_t den, int w, uint32_t *val,
						 uint64_t *err);

/*
 * The same for any g = num/den < 65 (den < 2^32): exp(-1)^floor(g) times
 * exp(-(g - floor(g))); false when out of range.
 */
bool		jl_exp_fixed_any(uint64_t num, uint64_t den, int w, uint32_t *val,
							 uint64_t *err);

#define JL_EXP_MAX_LIMBS 512

#endif
