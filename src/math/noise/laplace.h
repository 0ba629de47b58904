/*
 * laplace.h - exact discrete Laplace sampling (Canonne, Kamath, Steinke 2020).
 *
 * Pr[L = z] = (1 - p) / (1 + p) * p^|z| with p = exp(-1/t), t a positive
 * integer (the scale in grid steps).  Only integer arithmetic on uniformly
 * random bits: the distribution is exact, not a floating-point approximation.
 */
#ifndef JLDP_MATH_LAPLACE_H
#define JLDP_MATH_LAPLACE_H

#include "math/noise/exp_exact.h"
#include "math/random/randbits.h"

#include <stdint.h>

/* Largest scale (in grid steps) the sampler accepts. */
#define JL_LAPLACE_MAX_T (UINT64_C(1) << 44)

/* Discrete Laplace with scale t (1 <= t <= JL_LAPLACE_MAX_T). */
int64_t		jl_discrete_laplace(JlRandom *r, uint64_t t);

/*
 * A faster exact sampler for scales up to JL_LAPLACE_TABLE_MAX_T.  A sample
 * is sign (t V + U) with V ~ Geometric(exp(-1)) (successes before the first
 * failure) and U on {0, ..., t-1} with Pr[U = u] proportional to exp(-u/t),
 * as in Canonne, Kamath and Steinke's Algorithm 2, whose U is drawn by
 * rejection (a uniform u accepted with probability exp(-u/t), 1.6 proposals
 * a sample).  Here U comes from one lookup in an alias table
 * (math/noise/exp_alias.h), exact by the same rejection argument; for t above
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

/* Discrete Laplace with scale t using the table (bounds NULL: as above). */
int64_t		jl_discrete_laplace_table(JlRandom *r, uint64_t t,
									  const uint32_t *bounds);

/* n independent samples of the same into out (one call for a row's noise). */
void		jl_discrete_laplace_table_n(JlRandom *r, uint64_t t,
										const uint32_t *bounds, int64_t *out,
										int n);

/* Its variance, 2p / (1-p)^2 with p = exp(-1/t). */
double		jl_discrete_laplace_variance(uint64_t t);

/* Its fourth moment, 2p(1 + 10p + p^2) / (1-p)^4. */
double		jl_discrete_laplace_moment4(uint64_t t);

#endif
