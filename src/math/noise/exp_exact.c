/*
 * exp_exact.c - exact comparisons with exp(-num/den): Algorithm 1 of
 * Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential
 * Privacy" (2020), and a multi-precision fixed-point exp with a proved
 * error bound for the comparisons that bounds from libm leave open.
 */
#include "math/noise/exp_exact.h"

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
			/* drawn[0 .. w-1] is set just above (have reaches w): cppcheck does not follow the loop */
			/* cppcheck-suppress uninitvar */
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
			/* drawn[0 .. w-1] is set just above (have reaches w): cppcheck does not follow the loop */
			/* cppcheck-suppress uninitvar */
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
