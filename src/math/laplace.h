/*
 * laplace.h - exact discrete Laplace sampling (Canonne, Kamath, Steinke 2020).
 *
 * Pr[L = z] = (1 - p) / (1 + p) * p^|z| with p = exp(-1/t), t a positive
 * integer (the scale in grid steps).  Only integer arithmetic on uniformly
 * random bits: the distribution is exact, not a floating-point approximation.
 */
#ifndef JLDP_MATH_LAPLACE_H
#define JLDP_MATH_LAPLACE_H

#include "math/randbits.h"

#include <stdint.h>

/* Largest scale (in grid steps) the sampler accepts. */
#define JL_LAPLACE_MAX_T (UINT64_C(1) << 44)

/* Bernoulli(exp(-num/den)), num >= 0, den >= 1. */
bool		jl_bernoulli_exp(JlRandom *r, uint64_t num, uint64_t den);

/* Discrete Laplace with scale t (1 <= t <= JL_LAPLACE_MAX_T). */
int64_t		jl_discrete_laplace(JlRandom *r, uint64_t t);

/*
 * A faster exact sampler for scales up to JL_LAPLACE_TABLE_MAX_T.  A sample
 * is sign (t V + U) with V ~ Geometric(exp(-1)) (successes before the first
 * failure) and U on {0, ..., t-1} with Pr[U = u] proportional to exp(-u/t),
 * as in Canonne, Kamath and Steinke's Algorithm 2, whose U is drawn by
 * rejection (a uniform u accepted with probability exp(-u/t), 1.6 proposals
 * a sample).  Here U comes from one lookup in an alias table
 * (math/exp_alias.h), exact by the same rejection argument; for t above
 * JL_LAPLACE_SINGLE_MAX_T, U = a v + w with independent w on {0..a-1}
 * (weights exp(-w/t)) and v on {0..ceil(t/a)-1} (weights exp(-a v/t)), each
 * from its own table, the pair redrawn when a v + w >= t.
 */
#define JL_LAPLACE_TABLE_MAX_T (UINT64_C(1) << 28)
#define JL_LAPLACE_SINGLE_MAX_T 32767

/* Words of the table for scale t (0 when t > JL_LAPLACE_TABLE_MAX_T). */
uint64_t	jl_laplace_table_entries(uint64_t t);

/*
 * Fill the table (jl_laplace_table_entries(t) words) for scale t,
 * 1 <= t <= JL_LAPLACE_TABLE_MAX_T; false if t is out of range.
 */
bool		jl_laplace_table_fill(uint64_t t, uint32_t *table);

/* The scale a filled table was built for (0: not such a table). */
uint64_t	jl_laplace_table_scale(const uint32_t *table);

/* The words a filled table occupies (what follows may be the caller's). */
uint64_t	jl_laplace_table_words(const uint32_t *table);

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

/* Discrete Laplace with scale t using the table (bounds NULL: as above). */
int64_t		jl_discrete_laplace_table(JlRandom *r, uint64_t t,
									  const uint32_t *bounds);

/* n independent samples of the same into out (one call for a row's noise). */
void		jl_discrete_laplace_table_n(JlRandom *r, uint64_t t,
										const uint32_t *bounds, int64_t *out,
										int n);

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

/* Its variance, 2p / (1-p)^2 with p = exp(-1/t). */
double		jl_discrete_laplace_variance(uint64_t t);

/* Its fourth moment, 2p(1 + 10p + p^2) / (1-p)^4. */
double		jl_discrete_laplace_moment4(uint64_t t);

#endif
