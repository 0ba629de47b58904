/*
 * laplace.c - exact discrete Laplace sampler.
 *
 * Algorithms 1 and 2 of Canonne, Kamath and Steinke, "The Discrete Gaussian
 * for Differential Privacy" (2020), specialised to an integer scale t.
 */
#include "math/noise/laplace.h"
#include "math/noise/exp_alias.h"

#include <math.h>
#include <string.h>

int64_t
jl_discrete_laplace(JlRandom *r, uint64_t t)
{
	for (;;)
	{
		uint64_t	u = jl_rand_below(r, t);
		uint64_t	v = 0;
		int64_t		x;
		int64_t		negative;

		if (!jl_bernoulli_exp(r, u, t))
			continue;
		while (jl_bernoulli_exp(r, 1, 1))
			v++;
		x = (int64_t) (u + t * v);
		negative = (int64_t) jl_rand_bits(r, 1);
		if (negative && x == 0)
			continue;			/* rare: keeps Pr[0] right */
		/* branch-free sign: the sign bit is a coin flip, hard to predict */
		return x - 2 * negative * x;
	}
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
