/*
 * exp_alias.h - exact sampling of a truncated exponential distribution,
 * Pr[i] proportional to exp(-stride i / den) on i = 0 .. count-1, by one
 * lookup in an alias table of integer weights.
 *
 * The construction (docs/design/randomness.md, "The discrete Laplace by alias
 * table"): rejection sampling with the uniform proposal, viewed as picking a
 * uniform cell (i, j) of a grid of integer cells under the scaled weights
 * K exp(-stride i / den), K a positive integer.  A cell j of column i lies
 * wholly below the curve when j + 1 <= lo_i, straddles it when
 * lo_i <= j < hi_i, and lies above it when j >= hi_i, where
 * lo_i <= K exp(-stride i / den) <= hi_i are certified integer bounds.
 * Rejection sampling outputs i with probability proportional to the area
 * under the curve in column i whatever cells outside that area are
 * proposed, so the cells above the curve are simply left out: the table
 * proposes uniformly among the cells below the curve (lo_i per column, one
 * outcome each), the straddling cells and padding cells that make the total
 * a power of two (together one outcome, "other").  A cell below the curve
 * is output at once; a straddling cell (i, j) is output when
 * j + W < K exp(-stride i / den) for a fresh uniform W in [0, 1), decided
 * exactly in multi-precision (jl_exp_scaled_below); a rejected straddling
 * cell or a padding cell restarts.  The alias table (Walker; Vose's
 * construction in integers) picks an outcome with probability weight/total
 * exactly: 2^col_bits columns of height 2^15, every weight an integer, so
 * a column index and a height from col_bits + 15 uniform bits decide.
 *
 * With K about 2^15 times the number of columns per unit of mass, the
 * straddling and padding cells have probability below 2^-14 together; an
 * accepted draw costs col_bits + 15 random bits and one table read.
 */
#ifndef JLDP_MATH_EXP_ALIAS_H
#define JLDP_MATH_EXP_ALIAS_H

#include "math/random/randbits.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * The height of a column: 2^15.  A column is one 32-bit word, its
 * threshold (0 .. 2^15 - 1) in the low 15 bits and its alias (an outcome
 * number) in the high 17; a full column is threshold 0 with itself as
 * alias.
 */
#define JL_EXP_ALIAS_HEIGHT_BITS 15

/* the largest count: outcome numbers (count + 1 of them) fit 17 bits */
#define JL_EXP_ALIAS_MAX_COUNT 131071

/*
 * Layout of a table (32-bit words):
 *   header: count, col_bits, K, straddling cells (sum of hi - lo), "other"
 *           weight (64 bits: low, high), stride (64 bits; 0: the exponent
 *           of outcome i is i^2 / den), den (64 bits), tail cells (64 bits)
 *   cols[2^col_bits]: threshold | alias << 15; column c yields outcome c
 *           when the height drawn is below the threshold, else the alias;
 *           outcome count is "other", outcomes above it have weight 0
 *   lo[count]: the lower bounds lo_i
 *   prefix[count + 1]: sums of hi - lo over the outcomes before i
 */
#define JL_EXP_ALIAS_HEADER 12

/* jl_exp_alias_other's answer for a cell of the tail outcome */
#define JL_EXP_ALIAS_TAIL (-2)

/* Words of a table for count outcomes (0 when count is out of range). */
uint64_t	jl_exp_alias_words(uint64_t count);

/*
 * Fill tab (jl_exp_alias_words(count) words) for weights
 * exp(-stride i / den), i < count: 1 <= count <= JL_EXP_ALIAS_MAX_COUNT,
 * 1 <= den < 2^32, stride (count - 1) <= 64 den within
 * jl_exp_fixed_any's range, stride < 2^32.  false when the arguments are
 * out of range (tab is then unusable).
 */
bool		jl_exp_alias_fill(uint32_t *tab, uint64_t count, uint64_t stride,
							  uint64_t den);

/*
 * The general form.  stride 0: weights exp(-i^2 / den) (the discrete
 * Gaussian's core); the exponents must stay within jl_exp_fixed_any's range
 * (i^2 / den <= 64 with ceil(i^2 / den) den < 2^32).  K: the scale (0: the
 * largest that fits, as above).  tail_mul > 0 adds ceil(tail_mul K /
 * 2^tail_shift) cells that jl_exp_alias_other reports as
 * JL_EXP_ALIAS_TAIL, for the caller's own treatment of outcomes beyond
 * count (math/noise/gaussian.c).  false when out of range, or when the upper
 * bounds under a given K do not fit the table.
 */
bool		jl_exp_alias_fill_k(uint32_t *tab, uint64_t count, uint64_t stride,
								uint64_t den, uint64_t K, uint64_t tail_mul,
								int tail_shift);

/*
 * Slow path: the "other" outcome was drawn.  An outcome i >= 0, -1:
 * restart, JL_EXP_ALIAS_TAIL: a tail cell.
 */
int64_t		jl_exp_alias_other(JlRandom *r, const uint32_t *tab);

/*
 * The outcome of the column and height in the low col_bits + 15 bits of
 * *x, which are shifted out; a value >= count is the "other" outcome.
 */
static inline uint32_t
jl_exp_alias_pick(const uint32_t *tab, uint64_t *x)
{
	int			cb = (int) tab[1];
	uint32_t	c = (uint32_t) (*x & ((UINT64_C(1) << cb) - 1));
	uint32_t	y = (uint32_t) (*x >> cb) & ((UINT32_C(1) << JL_EXP_ALIAS_HEIGHT_BITS) - 1);
	uint32_t	e = tab[JL_EXP_ALIAS_HEADER + c];

	*x >>= cb + JL_EXP_ALIAS_HEIGHT_BITS;
	/* the comparison is a coin flip for the branch predictor: no branch */
	return y < (e & 0x7fff) ? c : e >> 15;
}

/* One exact draw from a table filled by jl_exp_alias_fill (no tail). */
static inline uint64_t
jl_exp_alias_sample(JlRandom *r, const uint32_t *tab)
{
	uint32_t	count = tab[0];
	int			cb = (int) tab[1];
	const uint32_t *cols = tab + JL_EXP_ALIAS_HEADER;

	for (;;)
	{
		uint64_t	b = jl_rand_bits(r, cb + JL_EXP_ALIAS_HEIGHT_BITS);
		uint32_t	c = (uint32_t) (b >> JL_EXP_ALIAS_HEIGHT_BITS);
		uint32_t	y = (uint32_t) b & ((UINT32_C(1) << JL_EXP_ALIAS_HEIGHT_BITS) - 1);
		uint32_t	e = cols[c];
		/* the comparison is a coin flip for the branch predictor: no branch */
		uint32_t	o = y < (e & 0x7fff) ? c : e >> 15;
		int64_t		i;

		if (__builtin_expect(o < count, 1))
			return o;
		i = jl_exp_alias_other(r, tab);
		if (i >= 0)
			return (uint64_t) i;
	}
}

#endif							/* JLDP_MATH_EXP_ALIAS_H */
