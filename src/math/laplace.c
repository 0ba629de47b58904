/*
 * laplace.c - exact discrete Laplace sampler.
 *
 * Algorithms 1 and 2 of Canonne, Kamath and Steinke, "The Discrete Gaussian
 * for Differential Privacy" (2020), specialised to an integer scale t.
 */
#include "math/laplace.h"
#include "math/exp_alias.h"

#include <math.h>
#include <string.h>

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

/* ---- multi-precision fixed point, 32-bit limbs, least significant first */

/* a = a * m (m < 2^32), w + 1 limbs; the integer limb must not overflow */
static void
fx_mul_small(uint32_t *a, int n, uint64_t m)
{
	unsigned __int128 carry = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		unsigned __int128 p = (unsigned __int128) a[i] * m + carry;

		a[i] = (uint32_t) p;
		carry = p >> 32;
	}
}

/* a = floor(a / m), m >= 1 */
static void
fx_div_small(uint32_t *a, int n, uint64_t m)
{
	unsigned __int128 rem = 0;
	int			i;

	for (i = n - 1; i >= 0; i--)
	{
		unsigned __int128 cur = (rem << 32) | a[i];

		a[i] = (uint32_t) (cur / m);
		rem = cur % m;
	}
}

static void
fx_add(uint32_t *a, const uint32_t *b, int n)
{
	uint64_t	carry = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		uint64_t	s = (uint64_t) a[i] + b[i] + carry;

		a[i] = (uint32_t) s;
		carry = s >> 32;
	}
}

/* a = a - b, requires a >= b */
static void
fx_sub(uint32_t *a, const uint32_t *b, int n)
{
	int64_t		borrow = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		int64_t		s = (int64_t) a[i] - b[i] - borrow;

		borrow = s < 0;
		a[i] = (uint32_t) (s + (borrow << 32));
	}
}

/* a += v, v in units of the last limb */
static void
fx_add_ulps(uint32_t *a, int n, uint64_t v)
{
	unsigned __int128 carry = v;
	int			i;

	for (i = 0; i < n && carry != 0; i++)
	{
		unsigned __int128 s = (unsigned __int128) a[i] + carry;

		a[i] = (uint32_t) s;
		carry = s >> 32;
	}
}

/* a -= v, v in units of the last limb, requires a >= v */
static void
fx_sub_ulps(uint32_t *a, int n, uint64_t v)
{
	uint64_t	borrow = v;
	int			i;

	for (i = 0; i < n && borrow != 0; i++)
	{
		uint64_t	lowv = borrow & 0xffffffffu;
		uint64_t	cur = a[i];

		borrow >>= 32;
		if (cur < lowv)
		{
			cur += UINT64_C(1) << 32;
			borrow++;
		}
		a[i] = (uint32_t) (cur - lowv);
	}
}

/* sign of a - v, v in units of the last limb */
static int
fx_cmp_ulps(const uint32_t *a, int n, uint64_t v)
{
	int			i;

	for (i = n - 1; i >= 2; i--)
		if (a[i] != 0)
			return 1;
	{
		uint64_t	low = a[0] | (n > 1 ? (uint64_t) a[1] << 32 : 0);

		return low < v ? -1 : (low > v ? 1 : 0);
	}
}

static int
fx_cmp(const uint32_t *a, const uint32_t *b, int n)
{
	int			i;

	for (i = n - 1; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static bool
fx_is_zero(const uint32_t *a, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		if (a[i] != 0)
			return false;
	return true;
}

/*
 * a = floor(a * b) for fixed-point a, b of n = w + 1 limbs (w fractional):
 * the exact product has 2w fractional limbs, of which the top w are kept.
 * Both must be at most 2 (so the integer limb of the product fits).
 */
static void
fx_mul(uint32_t *a, const uint32_t *b, int n)
{
	uint32_t	prod[2 * (JL_EXP_MAX_LIMBS + 1)];
	int			i,
				j,
				w = n - 1;

	memset(prod, 0, sizeof(uint32_t) * 2 * n);
	for (i = 0; i < n; i++)
	{
		uint64_t	carry = 0;

		for (j = 0; j < n; j++)
		{
			uint64_t	t = (uint64_t) a[i] * b[j] + prod[i + j] + carry;

			prod[i + j] = (uint32_t) t;
			carry = t >> 32;
		}
		prod[i + n] = (uint32_t) carry;
	}
	memcpy(a, prod + w, sizeof(uint32_t) * n);
}

bool
jl_exp_fixed(uint64_t num, uint64_t den, int w, uint32_t *val, uint64_t *err)
{
	uint32_t	term[JL_EXP_MAX_LIMBS + 1];
	uint32_t	neg[JL_EXP_MAX_LIMBS + 1];
	int			n = w + 1;
	uint64_t	k;

	if (w < 1 || w > JL_EXP_MAX_LIMBS || den == 0 || num > den ||
		den >= (UINT64_C(1) << 32))
		return false;

	/*
	 * exp(-g) = sum_k (-g)^k / k!, g = num/den in [0, 1].  term_k is
	 * computed as floor(term_{k-1} num / (den k)): the multiplication is
	 * exact, the division loses less than one unit, and since g/k <= 1 the
	 * error of term_k is at most k units.  The series stops at the first
	 * term computed as 0, whose true value is then at most k units; the
	 * alternating tail after it is at most twice that.  So the sum is
	 * within K(K+1)/2 + 2K + 2 units for K terms.
	 */
	memset(term, 0, sizeof(uint32_t) * n);
	memset(val, 0, sizeof(uint32_t) * n);
	memset(neg, 0, sizeof(uint32_t) * n);
	term[w] = 1;
	val[w] = 1;
	for (k = 1;; k++)
	{
		fx_mul_small(term, n, num);
		fx_div_small(term, n, den * k);
		if (fx_is_zero(term, n))
			break;
		fx_add((k & 1) ? neg : val, term, n);
	}
	fx_sub(val, neg, n);		/* exp(-g) > 0, and val >= neg */
	*err = k * (k + 1) / 2 + 2 * k + 2;
	return true;
}

bool
jl_bernoulli_exp_resolve(JlRandom *r, uint64_t num, uint64_t den, uint32_t R)
{
	uint32_t	drawn[JL_EXP_MAX_LIMBS];	/* u's limbs, most significant first */
	uint32_t	u[JL_EXP_MAX_LIMBS + 1];
	uint32_t	e[JL_EXP_MAX_LIMBS + 1];
	uint32_t	lo[JL_EXP_MAX_LIMBS + 1];
	int			have = 1;
	int			w;

	if (num == 0)
		return true;			/* exp(0) = 1 > u */
	drawn[0] = R;

	/* compare u with exp(-g) to 128, 256, ... bits until the bound decides */
	for (w = 4; w <= JL_EXP_MAX_LIMBS; w *= 2)
	{
		uint64_t	err;
		int			i;

		while (have < w)
			drawn[have++] = (uint32_t) jl_rand_bits(r, 32);
		u[w] = 0;
		for (i = 0; i < w; i++)
			u[w - 1 - i] = drawn[i];
		if (!jl_exp_fixed(num, den, w, e, &err))
			break;

		/* u + 1 unit <= exp(-g) - err: u < exp(-g) whatever u's later bits */
		memcpy(lo, e, sizeof(uint32_t) * (w + 1));
		fx_sub_ulps(lo, w + 1, err);	/* exp(-g) >= e^-1 >> err */
		fx_add_ulps(u, w + 1, 1);
		if (fx_cmp(u, lo, w + 1) <= 0)
			return true;
		fx_sub_ulps(u, w + 1, 1);
		/* u >= exp(-g) + err: u >= exp(-g) */
		fx_add_ulps(e, w + 1, err);
		if (fx_cmp(u, e, w + 1) >= 0)
			return false;
	}

	/*
	 * Undecided after JL_EXP_MAX_LIMBS * 32 bits of u, which happens with
	 * probability below 2^-16000: never.
	 */
	return false;
}

bool
jl_exp_fixed_any(uint64_t num, uint64_t den, int w, uint32_t *val,
				 uint64_t *err)
{
	uint32_t	e1[JL_EXP_MAX_LIMBS + 1];
	uint64_t	n,
				rem,
				E1,
				E2,
				k;

	if (den == 0 || den >= (UINT64_C(1) << 32))
		return false;
	if (num <= den)
		return jl_exp_fixed(num, den, w, val, err);

	/*
	 * exp(-g) = exp(-1)^n exp(-rem/den), n = floor(g), rem < den.  A
	 * product of p (within e_p units, p < 2) by a factor f <= 1 (within e_f)
	 * is within 2 e_f + e_p units before truncation, which loses at most one
	 * more: each factor adds at most 2 E + 1, E the larger of the factors'
	 * errors.
	 */
	n = num / den;
	rem = num - n * den;
	if (n > 64 || !jl_exp_fixed(1, 1, w, e1, &E1) ||
		!jl_exp_fixed(rem, den, w, val, &E2))
		return false;
	for (k = 0; k < n; k++)
		fx_mul(val, e1, w + 1);
	*err = E2 + n * (2 * (E1 > E2 ? E1 : E2) + 1);
	return true;
}

bool
jl_exp_scaled_below(JlRandom *r, uint64_t num, uint64_t den, uint32_t K,
					uint32_t j)
{
	uint32_t	drawn[JL_EXP_MAX_LIMBS];	/* W's limbs, most significant first */
	uint32_t	y[JL_EXP_MAX_LIMBS + 1];
	uint32_t	e[JL_EXP_MAX_LIMBS + 1];
	uint32_t	lo[JL_EXP_MAX_LIMBS + 1];
	int			have = 0;
	int			w;

	/* compare j + W with K exp(-g) to 128, 256, ... bits until the bound decides */
	for (w = 4; w <= JL_EXP_MAX_LIMBS; w *= 2)
	{
		uint64_t	err;
		int			i;

		while (have < w)
			drawn[have++] = (uint32_t) jl_rand_bits(r, 32);
		y[w] = j;
		for (i = 0; i < w; i++)
			y[w - 1 - i] = drawn[i];
		if (!jl_exp_fixed_any(num, den, w, e, &err))
			break;
		/* K exp(-g) < 2^32: the integer limb holds it; the error scales by K */
		fx_mul_small(e, w + 1, K);
		err *= K;

		/* y + 1 unit <= K exp(-g) - err: y < K exp(-g) whatever W's later bits */
		memcpy(lo, e, sizeof(uint32_t) * (w + 1));
		if (fx_cmp_ulps(lo, w + 1, err) < 0)
			memset(lo, 0, sizeof(uint32_t) * (w + 1));	/* below the error: 0 */
		else
			fx_sub_ulps(lo, w + 1, err);
		fx_add_ulps(y, w + 1, 1);
		if (fx_cmp(y, lo, w + 1) <= 0)
			return true;
		fx_sub_ulps(y, w + 1, 1);
		/* y >= K exp(-g) + err: y >= K exp(-g) */
		fx_add_ulps(e, w + 1, err);
		if (fx_cmp(y, e, w + 1) >= 0)
			return false;
	}
	/* undecided after 16384 bits of W: probability below 2^-16000, never */
	return false;
}

void
jl_exp_bounds(uint64_t num, uint64_t den, int bits, uint64_t *lo,
			  uint64_t *hi)
{
	/*
	 * fl(num/den) and libm's exp (correctly rounded or within 1 ulp) put e
	 * within 3 2^-53 of exp(-num/den) relatively; 2^-40 is a wide margin.
	 */
	double		one = ldexp(1.0, bits);
	double		e = exp(-(double) num / (double) den) * one;
	double		l = floor(e * (1.0 - 0x1p-40));
	double		h = ceil(e * (1.0 + 0x1p-40));

	*lo = (l < 0.0) ? 0 : (uint64_t) l;
	*hi = (h > one) ? (UINT64_C(1) << bits) : (uint64_t) h;
	if (*hi == 0)
		*hi = 1;				/* exp underflowed; the true value is > 0 */
}

void
jl_exp_bounds32(uint64_t num, uint64_t den, uint64_t *lo, uint64_t *hi)
{
	jl_exp_bounds(num, den, 32, lo, hi);
}

bool
jl_bernoulli_exp_bounded(JlRandom *r, uint64_t num, uint64_t den,
						 uint64_t lo, uint64_t hi)
{
	uint64_t	R = jl_rand_bits(r, 32);

	if (R + 1 <= lo)
		return true;			/* u < (R+1)/2^32 <= lo/2^32 <= exp(-g) */
	if (R >= hi)
		return false;			/* u >= R/2^32 >= hi/2^32 >= exp(-g) */
	return jl_bernoulli_exp_resolve(r, num, den, (uint32_t) R);
}

/* table header (words): magic, levels, a, offset of v's table, offset of
 * w's (or U's) table, t (64 bits), words of the whole table */
#define LT_MAGIC UINT32_C(0x4a4c4c32)	/* "JLL2" */
#define LT_HEADER 8

/* the split of a scale t: a = 2^ceil(log2(t) / 2) (1 for a single table) */
static uint64_t
table_split(uint64_t t)
{
	int			bits = 0;

	if (t <= JL_LAPLACE_SINGLE_MAX_T)
		return 1;
	while ((UINT64_C(1) << bits) < t)
		bits++;
	return UINT64_C(1) << ((bits + 1) / 2);
}

uint64_t
jl_laplace_table_entries(uint64_t t)
{
	uint64_t	a;

	if (t < 1 || t > JL_LAPLACE_TABLE_MAX_T)
		return 0;
	a = table_split(t);
	if (a == 1)
		return LT_HEADER + jl_exp_alias_words(t);
	return LT_HEADER + jl_exp_alias_words(a) + jl_exp_alias_words((t + a - 1) / a);
}

bool
jl_laplace_table_fill(uint64_t t, uint32_t *table)
{
	uint64_t	a;
	bool		ok;

	if (jl_laplace_table_entries(t) == 0)
		return false;
	a = table_split(t);
	table[0] = 0;				/* not a table until both parts are filled */
	table[2] = (uint32_t) a;
	table[5] = (uint32_t) t;
	table[6] = (uint32_t) (t >> 32);
	table[7] = (uint32_t) jl_laplace_table_entries(t);
	if (a == 1)
	{
		table[1] = 1;
		table[3] = 0;
		table[4] = LT_HEADER;
		ok = jl_exp_alias_fill(table + LT_HEADER, t, 1, t);
	}
	else
	{
		table[1] = 2;
		table[4] = LT_HEADER;	/* w on {0..a-1}: weights exp(-w/t) */
		table[3] = (uint32_t) (LT_HEADER + jl_exp_alias_words(a));
		/* v on {0..ceil(t/a)-1}: weights exp(-a v/t), a (ceil(t/a) - 1) < t */
		ok = jl_exp_alias_fill(table + table[4], a, 1, t) &&
			jl_exp_alias_fill(table + table[3], (t + a - 1) / a, a, t);
	}
	/*
	 * Only a complete table carries the magic word: a failed fill (out of
	 * memory) leaves one that the samplers refuse, falling back to the exact
	 * sampler without a table.
	 */
	if (ok)
		table[0] = LT_MAGIC;
	return ok;
}

uint64_t
jl_laplace_table_words(const uint32_t *table)
{
	return table[7];
}

uint64_t
jl_laplace_table_scale(const uint32_t *table)
{
	if (table == NULL || table[0] != LT_MAGIC)
		return 0;
	return table[5] | ((uint64_t) table[6] << 32);
}

/* 2^8 exp(-1) = 94.18: a first byte below 94 decides true, above 94 false */
#define JL_EXP1_BYTE 94

/*
 * The number of successes before the first failure of independent
 * Bernoulli(exp(-1)) trials (geometric), four trials per 32 random bits:
 * byte i of the word is the first 8 bits of trial i's uniform, and a byte
 * below 94 is a success, above 94 a failure, both decided exactly
 * (94/256 < exp(-1) < 95/256).  A byte equal to 94 leaves its trial to
 * jl_bernoulli_exp_packed's continuation with further bits.  Bytes after the
 * first failure are independent of everything and are dropped.  The same
 * distribution as a loop of jl_bernoulli_exp_packed(r, 1, 1, .), with one
 * well-predicted branch instead of one unpredictable branch per trial.
 */
static inline uint64_t
geometric_exp1(JlRandom *r)
{
	uint64_t	v = 0;

	for (;;)
	{
		uint32_t	x = (uint32_t) jl_rand_bits(r, 32);
		/* high bit of byte i set iff byte i >= 94 (no borrow between bytes) */
		uint32_t	ge = (((x | UINT32_C(0x80808080)) - UINT32_C(0x5E5E5E5E)) | x) &
			UINT32_C(0x80808080);
		int			i;
		uint32_t	b;

		if (ge == 0)
		{
			v += 4;				/* four successes, probability 1.9% */
			continue;
		}
		i = __builtin_ctz(ge) >> 3;
		v += (uint64_t) i;
		b = (x >> (8 * i)) & 0xff;
		if (b != JL_EXP1_BYTE)
			return v;			/* a failure */
		/* undecided (probability 1/256): the trial's next bits decide */
		{
			uint64_t	R = ((uint64_t) b << 8) | jl_rand_bits(r, 8);
			bool		success;

			if (R + 1 <= 24109)
				success = true;
			else if (R >= 24110)
				success = false;
			else
				success = jl_bernoulli_exp_resolve(r, 1, 1,
												   (uint32_t) ((R << 16) | jl_rand_bits(r, 16)));
			if (!success)
				return v;
			v++;
		}
	}
}

/*
 * Geometric_exp1 continued from the bytes of x (nbytes <= 8 of them, lowest
 * first): each byte is the first 8 bits of one trial's uniform, as in
 * geometric_exp1, and the trials go on with fresh bits when the bytes run
 * out before the first failure.
 */
static inline uint64_t
geometric_exp1_from(JlRandom *r, uint64_t x, int nbytes)
{
	uint64_t	mask,
				ge;
	int			i;
	uint64_t	b;

	if (nbytes == 0)
		return geometric_exp1(r);
	mask = nbytes >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * nbytes)) - 1;
	/* high bit of byte i set iff byte i >= 94 (no borrow between bytes) */
	ge = (((x | UINT64_C(0x8080808080808080)) - UINT64_C(0x5E5E5E5E5E5E5E5E)) | x) &
		UINT64_C(0x8080808080808080) & mask;
	if (ge == 0)
		return (uint64_t) nbytes + geometric_exp1(r);	/* all successes */
	i = __builtin_ctzll(ge) >> 3;
	b = (x >> (8 * i)) & 0xff;
	if (__builtin_expect(b != JL_EXP1_BYTE, 1))
		return (uint64_t) i;	/* i successes, then a failure */
	/* undecided (probability 1/256): the trial's next bits decide */
	{
		uint64_t	R = (b << 8) | jl_rand_bits(r, 8);
		bool		success;

		if (R + 1 <= 24109)
			success = true;
		else if (R >= 24110)
			success = false;
		else
			success = jl_bernoulli_exp_resolve(r, 1, 1,
											   (uint32_t) ((R << 16) | jl_rand_bits(r, 16)));
		if (!success)
			return (uint64_t) i;
		return (uint64_t) i + 1 + geometric_exp1(r);
	}
}

/* an alias table's outcome from the low bits of *x (consumed, counted) */
static inline uint32_t
alias_pick(const uint32_t *tab, uint64_t *x, int *used)
{
	*used += (int) tab[1] + JL_EXP_ALIAS_HEIGHT_BITS;
	return jl_exp_alias_pick(tab, x);
}

/*
 * One sample of the table sampler, table built for t.  One 64-bit word
 * usually decides everything: U's table column and height (and v's, when U
 * is split), the sign, and the first trials of the geometric V.  Whenever a
 * part needs a restart (U's table drew a straddling cell that was rejected
 * or a padding cell, the split U overshot t, or -0) the whole sample is
 * drawn again: each restart event depends only on the bits of its own part,
 * independent of the other parts, so the parts accepted keep their laws and
 * stay independent.
 */
static inline int64_t
laplace_table_one(JlRandom *r, uint64_t t, const uint32_t *table)
{
	for (;;)
	{
		uint64_t	x = jl_rand_word(r);
		int			used = 0;
		const uint32_t *tw = table + table[4];
		uint64_t	u = alias_pick(tw, &x, &used);
		uint64_t	v;
		int64_t		z;
		int64_t		negative;

		if (__builtin_expect(u >= tw[0], 0))
		{
			int64_t		i = jl_exp_alias_other(r, tw);

			if (i < 0)
				continue;
			u = (uint64_t) i;
		}
		if (table[1] == 2)
		{
			const uint32_t *tv = table + table[3];
			uint64_t	hv = alias_pick(tv, &x, &used);

			if (__builtin_expect(hv >= tv[0], 0))
			{
				int64_t		i = jl_exp_alias_other(r, tv);

				if (i < 0)
					continue;
				hv = (uint64_t) i;
			}
			u += table[2] * hv;
			if (u >= t)
				continue;		/* only the last v can overshoot */
		}
		negative = (int64_t) (x & 1);
		x >>= 1;
		used++;
		v = geometric_exp1_from(r, x, (64 - used) / 8);
		z = (int64_t) (u + t * v);
		if (negative && z == 0)
			continue;			/* rare: keeps Pr[0] right */
		/* branch-free sign: the sign bit is a coin flip, hard to predict */
		return z - 2 * negative * z;
	}
}

/* the table is used only when it was built for this t */
static inline bool
table_usable(uint64_t t, const uint32_t *table)
{
	return table != NULL && table[0] == LT_MAGIC &&
		(table[5] | ((uint64_t) table[6] << 32)) == t;
}

int64_t
jl_discrete_laplace_table(JlRandom *r, uint64_t t, const uint32_t *table)
{
	if (!table_usable(t, table))
		return jl_discrete_laplace(r, t);
	return laplace_table_one(r, t, table);
}

void
jl_discrete_laplace_table_n(JlRandom *r, uint64_t t, const uint32_t *table,
							int64_t *out, int n)
{
	int			i;

	if (!table_usable(t, table))
		for (i = 0; i < n; i++)
			out[i] = jl_discrete_laplace(r, t);
	else
		for (i = 0; i < n; i++)
			out[i] = laplace_table_one(r, t, table);
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
