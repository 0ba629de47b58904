/*
 * exp_alias.c - the alias table of a truncated exponential distribution and
 * its slow path (exp_alias.h has the construction and the argument).
 */
#include "math/noise/exp_alias.h"
#include "math/noise/exp_exact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HEIGHT (UINT64_C(1) << JL_EXP_ALIAS_HEIGHT_BITS)

uint64_t
jl_exp_alias_words(uint64_t count)
{
	int			cb = 0;

	if (count < 1 || count > JL_EXP_ALIAS_MAX_COUNT)
		return 0;
	while ((UINT64_C(1) << cb) < count + 1)
		cb++;
	return JL_EXP_ALIAS_HEADER + (UINT64_C(1) << cb) + count + (count + 1);
}

/*
 * Integer bounds lo <= K exp(-num/den) <= hi.  fl(num/den) is within
 * 2^-53 of g relatively, which moves exp(-g) by at most g 2^-53 <= 2^-47
 * relatively for g <= 64; libm's exp (within 1 ulp) and the product with K
 * (< 2^32) add a few 2^-53 more: 2^-40 is a wide margin.
 */
static void
scaled_bounds(uint64_t num, uint64_t den, uint64_t K, uint64_t *lo,
			  uint64_t *hi)
{
	double		e;

	if (num == 0)
	{
		*lo = *hi = K;			/* exp(0) = 1 exactly */
		return;
	}
	e = (double) K * exp(-(double) num / (double) den);
	*lo = (uint64_t) floor(e * (1.0 - 0x1p-40));
	*hi = (uint64_t) ceil(e * (1.0 + 0x1p-40));
}

bool
jl_exp_alias_fill(uint32_t *tab, uint64_t count, uint64_t stride,
				  uint64_t den)
{
	return jl_exp_alias_fill_k(tab, count, stride, den, 0, 0, 0);
}

/* the exponent's numerator of outcome i: stride i, or i^2 for stride 0 */
static inline uint64_t
exponent_num(uint64_t stride, uint64_t i)
{
	return stride ? stride * i : i * i;
}

/* the tail outcome's weight: ceil(tail_mul K / 2^tail_shift) */
static inline uint64_t
tail_weight(uint64_t K, uint64_t tail_mul, int tail_shift)
{
	unsigned __int128 v = (unsigned __int128) tail_mul * K;

	return (uint64_t) ((v + (((unsigned __int128) 1 << tail_shift) - 1)) >> tail_shift);
}

bool
jl_exp_alias_fill_k(uint32_t *tab, uint64_t count, uint64_t stride,
					uint64_t den, uint64_t K_given, uint64_t tail_mul,
					int tail_shift)
{
	uint64_t	words = jl_exp_alias_words(count);
	int			cb;
	uint64_t	ncol,
				total,
				tail = 0,
				K,
				i,
				sum_hi,
				straddle,
				other;
	double		mass = 0.0;
	uint32_t   *cols,
			   *lo,
			   *prefix;
	uint64_t   *w;
	uint32_t   *small,
			   *large;
	uint64_t	nsmall = 0,
				nlarge = 0;

	if (words == 0 || den < 1 || den >= (UINT64_C(1) << 32) ||
		stride >= (UINT64_C(1) << 32) || tail_shift < 0 || tail_shift > 32 ||
		tail_mul >= (UINT64_C(1) << 32))
		return false;
	/* the resolver's range: exp(-g) for g <= 64 */
	if (exponent_num(stride, count - 1) > 64 * den)
		return false;
	for (cb = 0; (UINT64_C(1) << cb) < count + 1; cb++)
		;
	ncol = UINT64_C(1) << cb;
	total = ncol * HEIGHT;
	cols = tab + JL_EXP_ALIAS_HEADER;
	lo = cols + ncol;
	prefix = lo + count;

	/*
	 * K: the largest integer whose upper bounds fit the total.  The mass
	 * sum exp(-stride i / den) >= count e^-1; K starts just above the
	 * floating-point estimate and comes down until the exact integer sum of
	 * the upper bounds fits.
	 */
	for (i = 0; i < count; i++)
		mass += exp(-(double) exponent_num(stride, i) / (double) den);
	mass += (double) tail_mul / ldexp(1.0, tail_shift);
	K = K_given > 0 ? K_given :
		(uint64_t) (((double) total / mass) * (1.0 + 0x1p-30)) + 1;
	for (;;)
	{
		sum_hi = 0;
		for (i = 0; i < count; i++)
		{
			uint64_t	l,
						h;

			scaled_bounds(exponent_num(stride, i), den, K, &l, &h);
			sum_hi += h;
		}
		tail = tail_mul > 0 ? tail_weight(K, tail_mul, tail_shift) : 0;
		if (sum_hi + tail <= total)
			break;
		if (K_given > 0 || K <= 1)
			return false;
		K--;
	}
	if (K < 1 || K >= (UINT64_C(1) << 32))
		return false;

	w = malloc(sizeof(uint64_t) * ncol);
	small = malloc(sizeof(uint32_t) * ncol);
	large = malloc(sizeof(uint32_t) * ncol);
	if (w == NULL || small == NULL || large == NULL)
	{
		free(w);
		free(small);
		free(large);
		return false;
	}

	/* the weights: lo_i for outcome i, straddling and padding cells for "other" */
	straddle = 0;
	for (i = 0; i < count; i++)
	{
		uint64_t	l,
					h;

		scaled_bounds(exponent_num(stride, i), den, K, &l, &h);
		lo[i] = (uint32_t) l;
		prefix[i] = (uint32_t) straddle;
		straddle += h - l;
		w[i] = l;
	}
	prefix[count] = (uint32_t) straddle;
	other = total - sum_hi + straddle;	/* straddling, tail and padding cells */
	w[count] = other;
	for (i = count + 1; i < ncol; i++)
		w[i] = 0;

	/*
	 * Vose's alias construction in integers: the weights sum to ncol
	 * columns of HEIGHT exactly, so every column is filled exactly and the
	 * probability of outcome o, (its own threshold plus the remainders of
	 * the columns aliased to it) / total, is w[o] / total.
	 */
	for (i = 0; i < ncol; i++)
	{
		if (w[i] < HEIGHT)
			small[nsmall++] = (uint32_t) i;
		else
			large[nlarge++] = (uint32_t) i;
	}
	while (nsmall > 0 && nlarge > 0)
	{
		uint32_t	s = small[--nsmall],
					g = large[nlarge - 1];

		cols[s] = (uint32_t) w[s] | (g << 15);
		w[g] -= HEIGHT - w[s];
		if (w[g] < HEIGHT)
		{
			nlarge--;
			small[nsmall++] = g;
		}
	}
	/* what is left has weight HEIGHT exactly (the sums are exact) */
	while (nlarge > 0)
	{
		uint32_t	g = large[--nlarge];

		cols[g] = 0 | (g << 15);	/* full: its own outcome whatever the height */
	}
	free(w);
	free(small);
	free(large);
	if (nsmall > 0)
		return false;			/* cannot happen: the total would not be exact */

	tab[0] = (uint32_t) count;
	tab[1] = (uint32_t) cb;
	tab[2] = (uint32_t) K;
	tab[3] = (uint32_t) straddle;
	tab[4] = (uint32_t) other;
	tab[5] = (uint32_t) (other >> 32);
	tab[6] = (uint32_t) stride;
	tab[7] = (uint32_t) (stride >> 32);
	tab[8] = (uint32_t) den;
	tab[9] = (uint32_t) (den >> 32);
	tab[10] = (uint32_t) tail;
	tab[11] = (uint32_t) (tail >> 32);
	return true;
}

int64_t
jl_exp_alias_other(JlRandom *r, const uint32_t *tab)
{
	uint64_t	count = tab[0],
				K = tab[2],
				straddle = tab[3],
				other = tab[4] | ((uint64_t) tab[5] << 32),
				stride = tab[6] | ((uint64_t) tab[7] << 32),
				den = tab[8] | ((uint64_t) tab[9] << 32);
	const uint32_t *lo = tab + JL_EXP_ALIAS_HEADER + (UINT64_C(1) << tab[1]);
	const uint32_t *prefix = lo + count;
	uint64_t	tail = tab[10] | ((uint64_t) tab[11] << 32);
	uint64_t	idx,
				a,
				b;

	/* a uniform cell among the "other" ones: straddling, tail, padding */
	idx = jl_rand_below(r, other);
	if (idx >= straddle)
		return idx - straddle < tail ? JL_EXP_ALIAS_TAIL : -1;
	/* the outcome i whose straddling cells hold idx: prefix[i] <= idx < prefix[i + 1] */
	a = 0;
	b = count;
	while (b - a > 1)
	{
		uint64_t	mid = (a + b) / 2;

		if (prefix[mid] <= idx)
			a = mid;
		else
			b = mid;
	}
	if (jl_exp_scaled_below(r, exponent_num(stride, a), den, (uint32_t) K,
							(uint32_t) (lo[a] + (idx - prefix[a]))))
		return (int64_t) a;
	return -1;
}
