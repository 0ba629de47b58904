/*
 * laplace.c - exact discrete Laplace sampler.
 *
 * Algorithms 1 and 2 of Canonne, Kamath and Steinke, "The Discrete Gaussian
 * for Differential Privacy" (2020), specialised to an integer scale t.
 */
#include "math/laplace.h"

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

void
jl_laplace_table_fill(uint64_t t, uint32_t *bounds)
{
	uint64_t	u;

	bounds[0] = 0;				/* u = 0 always accepts */
	for (u = 1; u < t; u++)
	{
		uint64_t	lo,
					hi;

		/* exp(-u/t) < 1 for u >= 1: lo < 2^16, and hi - lo <= 2 */
		jl_exp_bounds(u, t, 16, &lo, &hi);
		bounds[u] = (uint32_t) (lo | ((hi - lo) << 16));
	}
}

/*
 * Uniform on {0, ..., t-1} (2 <= t <= 2^24) from bitlen(t-1) + 8 random
 * bits: Lemire's multiply-shift with exact rejection on a 2^L range; the
 * rejection threshold (a division) is computed only in the rare case
 * (probability below 2^-8) that the low part falls below t.
 */
static inline uint64_t
rand_below_short(JlRandom *r, uint64_t t)
{
	int			L = 64 - __builtin_clzll(t - 1) + 8;
	uint64_t	mask = (UINT64_C(1) << L) - 1;
	uint64_t	m = jl_rand_bits(r, L) * t;

	if ((m & mask) < t)
	{
		uint64_t	threshold = ((UINT64_C(1) << L) - t) % t;

		while ((m & mask) < threshold)
			m = jl_rand_bits(r, L) * t;
	}
	return m >> L;
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

/* one sample of the table sampler: 2 <= t <= JL_LAPLACE_TABLE_MAX_T */
static inline int64_t
laplace_table_one(JlRandom *r, uint64_t t, const uint32_t *bounds)
{
	for (;;)
	{
		uint64_t	u = rand_below_short(r, t);
		uint64_t	v;
		int64_t		x;
		int64_t		negative;

		if (u != 0 && !jl_bernoulli_exp_packed(r, u, t, bounds[u]))
			continue;
		v = geometric_exp1(r);
		x = (int64_t) (u + t * v);
		negative = (int64_t) jl_rand_bits(r, 1);
		if (negative && x == 0)
			continue;			/* rare: keeps Pr[0] right */
		/* branch-free sign: the sign bit is a coin flip, hard to predict */
		return x - 2 * negative * x;
	}
}

int64_t
jl_discrete_laplace_table(JlRandom *r, uint64_t t, const uint32_t *bounds)
{
	if (bounds == NULL || t > JL_LAPLACE_TABLE_MAX_T || t == 1)
		return jl_discrete_laplace(r, t);
	return laplace_table_one(r, t, bounds);
}

void
jl_discrete_laplace_table_n(JlRandom *r, uint64_t t, const uint32_t *bounds,
							int64_t *out, int n)
{
	int			i;

	if (bounds == NULL || t > JL_LAPLACE_TABLE_MAX_T || t == 1)
		for (i = 0; i < n; i++)
			out[i] = jl_discrete_laplace(r, t);
	else
		for (i = 0; i < n; i++)
			out[i] = laplace_table_one(r, t, bounds);
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
