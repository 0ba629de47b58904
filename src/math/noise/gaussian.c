/*
 * gaussian.c - the mathematics of Gaussian noise: continuous calibrations
 * of sigma (Balle & Wang's analytic one, Kenthapadi et al.'s Theorem 1 and
 * Lemma 2), the conversion of rho-zCDP to (epsilon, delta) (Canonne,
 * Kamath, Steinke 2020, Corollary 13), and the exact discrete Gaussian
 * sampler.  How a release uses them is in calibrate.c.
 */
#include "math/noise/gaussian.h"
#include "math/accounting/gaussian_profile.h"
#include "math/noise/exp_alias.h"
#include "math/noise/laplace.h"

#include <float.h>
#include <math.h>

double
jl_normal_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

double
jl_analytic_delta(double sigma, double epsilon, double D)
{
	double		a = D / (2.0 * sigma);
	double		b = epsilon * sigma / D;
	double		second = exp(epsilon) * jl_normal_cdf(-a - b);

	if (!isfinite(second))
		second = 0.0;			/* Phi(-a-b) underflowed to 0 first */
	return jl_normal_cdf(a - b) - second;
}

double
jl_analytic_sigma(double epsilon, double delta, double D)
{
	double		lo,
				hi = D;
	int			i;

	/* delta(sigma) decreases in sigma: bracket, then bisect */
	for (i = 0; i < 2000 && jl_analytic_delta(hi, epsilon, D) > delta; i++)
		hi *= 2.0;
	lo = hi / 2.0;
	for (i = 0; i < 2000 && jl_analytic_delta(lo, epsilon, D) <= delta; i++)
	{
		hi = lo;
		lo /= 2.0;
	}
	for (i = 0; i < 200 && hi - lo > hi * 4.0 * DBL_EPSILON; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (jl_analytic_delta(mid, epsilon, D) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

double
jl_classic_sigma(double epsilon, double delta, double D)
{
	if (!(delta < 0.5))
		return NAN;
	return D * sqrt(2.0 * (log(1.0 / (2.0 * delta)) + epsilon)) / epsilon;
}

double
jl_paper_sigma(double epsilon, double delta, double B)
{
	return B * (4.0 / epsilon) * sqrt(log(1.0 / delta));
}

bool
jl_paper_k_ok(int64_t d, int k, double delta)
{
	return (double) k > 2.0 * (log((double) d) + log(2.0 / delta));
}

bool
jl_paper_epsilon_ok(double epsilon, double delta)
{
	return epsilon < log(1.0 / delta);
}

/*
 * ln of CKS's bound at alpha = 1 + x:
 *   x (alpha rho - eps) + alpha ln(1 - 1/alpha) - ln(alpha - 1)
 *   = x ((1 + x) rho - eps) + x ln x - (1 + x) ln(1 + x),
 * and the magnitude of its terms, for the rounding margin.
 */
static double
zcdp_log_delta(double x, double rho, double epsilon, double *mag)
{
	double		t1 = x * ((1.0 + x) * rho - epsilon);
	double		t2 = x * log(x);
	double		t3 = (1.0 + x) * log1p(x);

	*mag = fabs(x * (1.0 + x) * rho) + fabs(x * epsilon) + fabs(t2) + fabs(t3);
	return t1 + t2 - t3;
}

double
jl_zcdp_delta(double rho, double epsilon)
{
	double		best_u = 0.0,
				best = INFINITY,
				mag,
				lo,
				hi,
				v;
	int			i;

	if (!(rho > 0.0))
		return 0.0;
	/* coarse scan of u = ln(alpha - 1), then golden section around the best */
	for (i = 0; i <= 400; i++)
	{
		double		u = -30.0 + i * 0.15;

		v = zcdp_log_delta(exp(u), rho, epsilon, &mag);
		if (v < best)
		{
			best = v;
			best_u = u;
		}
	}
	lo = best_u - 0.15;
	hi = best_u + 0.15;
	for (i = 0; i < 100; i++)
	{
		double		m1 = hi - 0.6180339887498949 * (hi - lo);
		double		m2 = lo + 0.6180339887498949 * (hi - lo);
		double		mg;

		if (zcdp_log_delta(exp(m1), rho, epsilon, &mg) <
			zcdp_log_delta(exp(m2), rho, epsilon, &mg))
			hi = m2;
		else
			lo = m1;
	}
	v = zcdp_log_delta(exp(0.5 * (lo + hi)), rho, epsilon, &mag);
	if (v > best)
		v = zcdp_log_delta(exp(best_u), rho, epsilon, &mag);
	/* every alpha gives a valid bound; round the evaluation upward */
	v += 64.0 * DBL_EPSILON * (mag + 1.0);
	if (v >= 0.0)
		return 1.0;
	return fmin(1.0, exp(v) * (1.0 + 1e-12));
}

double
jl_zcdp_epsilon(double rho, double delta)
{
	double		lo = 0.0,
				hi = rho + 2.0 * sqrt(rho * log(1.0 / delta)) + 1e-300;
	int			i;

	for (i = 0; i < 2000 && jl_zcdp_delta(rho, hi) > delta; i++)
		hi *= 2.0;
	for (i = 0; i < 200 && hi - lo > hi * 4.0 * DBL_EPSILON; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (jl_zcdp_delta(rho, mid) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/*
 * eta(x) >= |sum_{m != 0} exp(-2 pi^2 x^2 m^2) e^{2 pi i m a}| for every a:
 * the relative error of Poisson summation for a Gaussian sum of width x.
 */
static double
poisson_eta(double x2)
{
	double		q = exp(-2.0 * M_PI * M_PI * x2);

	/* 2 sum_{m >= 1} q^(m^2) <= 2 q / (1 - q), widened for rounding */
	return 2.0 * q / (1.0 - q) * (1.0 + 1e-12) + 1e-300;
}

double
jl_discrete_gaussian_delta_at(double Dg, double s, int k, double epsilon,
							  double r, double kappa)
{
	/*
	 * Z = <w, N>, N ~ N_Z(0, s^2)^k, ||w|| = Dg; the noise smoothed by
	 * E ~ N(0, r^2)^k has a density within [A, B] times the N(0, s^2 + r^2)
	 * density per coordinate, and <w, E> ~ N(0, (r Dg)^2).  With
	 * c = kappa r Dg and s2 = sqrt(s^2 + r^2) Dg:
	 *   P(Z > a) <= B^k Phibar((a - c) / s2) / Phi(kappa)
	 *   P(Z > b) >= A^k Phibar((b + c) / s2) - Phibar(kappa)
	 * and delta <= P(Z > a) - e^eps P(Z > b), a, b = eps s^2 -+ Dg^2 / 2.
	 */
	double		s2 = s * s,
				r2 = r * r,
				t2 = s2 * r2 / (s2 + r2),
				eta_t,
				eta_s = poisson_eta(s2),
				Ak,
				Bk,
				sd,
				c,
				a,
				b,
				upper,
				lower,
				tail_kappa,
				d;

	if (!(Dg > 0.0 && s > 0.0 && r > 0.0 && kappa > 0.0 && epsilon >= 0.0 && k >= 1))
		return 1.0;
	/* t2 < r2 rounds either way; use the smaller width, which is worse */
	eta_t = poisson_eta(t2 * (1.0 - 1e-15));
	Bk = exp((double) k * log1p(eta_t)) * (1.0 + 1e-13);
	Ak = exp((double) k * (log1p(-eta_t) - log1p(eta_s))) * (1.0 - 1e-13);
	sd = sqrt(s2 + r2) * Dg;
	c = kappa * r * Dg;
	a = epsilon * s2 - 0.5 * Dg * Dg;
	b = epsilon * s2 + 0.5 * Dg * Dg;
	tail_kappa = jl_normal_tail(kappa, 1);
	upper = Bk * jl_normal_tail((a - c) / sd, 1) / (1.0 - tail_kappa) * (1.0 + 1e-13);
	lower = Ak * jl_normal_tail((b + c) / sd, -1) - tail_kappa;
	if (lower < 0.0)
		lower = 0.0;
	d = upper - exp(epsilon) * (1.0 - 1e-13) * lower;
	if (!isfinite(d) || d >= 1.0)
		return 1.0;
	/* the subtraction's rounding; never below 1e-300 (underflow) */
	d += 4.0 * DBL_EPSILON * upper;
	return d < 1e-300 ? 1e-300 : d;
}

double
jl_discrete_gaussian_delta(double Dg, double s, int k, double epsilon)
{
	static const double rs[] = {1.0, 1.25, 1.5, 2.0};
	double		best = 1.0;
	int			i,
				j;

	for (i = 0; i < (int) (sizeof(rs) / sizeof(rs[0])); i++)
		for (j = 3; j <= 14; j++)
		{
			double		d = jl_discrete_gaussian_delta_at(Dg, s, k, epsilon,
														  rs[i], (double) j);

			if (d < best)
				best = d;
		}
	return best;
}

/* Bernoulli(exp(-num/den)) for a 128-bit num and den < 2^63. */
static bool
bernoulli_exp_wide(JlRandom *r, unsigned __int128 num, uint64_t den)
{
	unsigned __int128 q = num / den;
	uint64_t	rem = (uint64_t) (num % den);
	uint64_t	lo,
				hi;

	/* exp(-num/den) = exp(-1)^q exp(-rem/den) */
	for (; q > 0; q--)
	{
		jl_exp_bounds32(1, 1, &lo, &hi);
		if (!jl_bernoulli_exp_bounded(r, 1, 1, lo, hi))
			return false;
	}
	if (den < (UINT64_C(1) << 32))
	{
		jl_exp_bounds32(rem, den, &lo, &hi);
		return jl_bernoulli_exp_bounded(r, rem, den, lo, hi);
	}
	return jl_bernoulli_exp(r, rem, den);
}

int64_t
jl_discrete_gaussian(JlRandom *r, uint64_t s, const uint32_t *laplace_table)
{
	uint64_t	den = 2 * s * s;	/* < 2^63 for s <= 2^31 */

	for (;;)
	{
		int64_t		y = jl_discrete_laplace_table(r, s, laplace_table);
		int64_t		a = (y < 0 ? -y : y) - (int64_t) s;
		unsigned __int128 num = (unsigned __int128) ((__int128) a * a);

		if (bernoulli_exp_wide(r, num, den))
			return y;
	}
}

/*
 * The table's acceptance part, after the discrete Laplace's table (L words),
 * covers a = ||Y| - s| <= 4 s (|Y| <= 5 s, all but e^-5 of the discrete
 * Laplace's draws): word L holds that limit, and word L + a packs
 * q = floor(a^2 / (2 s^2)) (bits 24..31, q <= 8) with 16-bit bounds on
 * 2^16 exp(-rem / (2 s^2)), rem = a^2 - q 2 s^2 (bits 0..17, lo | (hi - lo)
 * << 16).  Acceptance is then q Bernoulli(exp(-1)) trials and one
 * Bernoulli(exp(-rem / (2 s^2))), all independent: probability
 * exp(-a^2 / (2 s^2)) exactly, as in bernoulli_exp_wide, without evaluating
 * exp per draw.
 */
#define ACCEPT_SPAN 4

/*
 * The direct sampler for s <= JL_GAUSSIAN_ALIAS_MAX_S (gaussian.h): |Y|
 * from one alias table over |y| < CORE_SPAN s with weights
 * exp(-y^2 / (2 s^2)) (math/noise/exp_alias.h), plus a tail outcome for
 * |y| >= CORE_SPAN s, and a sign.  Table: GT_HEADER words (magic, s), then
 * the alias table.
 */
#define GT_MAGIC UINT32_C(0x4a4c4732)	/* "JLG2" */
#define GT_HEADER 4
#define CORE_SPAN 4
#define TAIL_SHIFT 8			/* floor(CORE_SPAN^2 / 2) */

/* the tail's block width: B >= s / CORE_SPAN (see gaussian_tail) */
static inline uint64_t
tail_block(uint64_t s)
{
	return (s + CORE_SPAN - 1) / CORE_SPAN;
}

/*
 * Bernoulli(2/e): U < 2/e iff U/2 < 1/e, and the first 32 bits of U/2 are a
 * zero and U's first 31 bits.
 */
static bool
bernoulli_two_over_e(JlRandom *r)
{
	uint64_t	R = jl_rand_bits(r, 31),
				lo,
				hi;

	jl_exp_bounds32(1, 1, &lo, &hi);
	if (R + 1 <= lo)
		return true;
	if (R >= hi)
		return false;
	return jl_bernoulli_exp_resolve(r, 1, 1, (uint32_t) R);
}

/*
 * A tail cell of the table was drawn (tail_cells of them, each of area 1 in
 * the table's units, where outcome y has area K exp(-y^2 / (2 s^2))).  The
 * tail y >= 4 s lies under the envelope of height K 2^-(8 + j) on block j
 * (4 s + j B <= y < 4 s + (j + 1) B, B = ceil(s/4)): there
 * y^2 >= 16 s^2 + 8 s j B >= (16 + 2 j) s^2, so g = y^2 / (2 s^2) >= 8 + j
 * and K exp(-g) <= K e^-(8 + j) < K 2^-(8 + j).  The envelope's area,
 * sum_j B K 2^-(8 + j) = 2 B K / 2^8, fits in the tail cells (the table
 * reserved ceil(2 B K / 2^8)); a uniform point of the tail cells is in the
 * envelope with probability 2 B K / (2^8 tail_cells), then in block j with
 * probability 2^-(j + 1), at a uniform y of the block, and under the curve
 * with probability K exp(-g) / (K 2^-(8 + j)) = (2/e)^(8 + j)
 * exp(-(g - 8 - j)): 8 + j Bernoulli(2/e) trials and one
 * Bernoulli(exp(-(y^2 - 2 (8 + j) s^2) / (2 s^2))), all exact.  Returns y
 * (a point under the curve: rejection sampling's acceptance) or -1.
 */
static int64_t
gaussian_tail(JlRandom *r, uint64_t s, uint64_t K, uint64_t tail_cells)
{
	uint64_t	B = tail_block(s),
				den = 2 * s * s,
				j = 0,
				n,
				y;
	unsigned __int128 y2;

	if (jl_rand_below(r, tail_cells << TAIL_SHIFT) >= 2 * B * K)
		return -1;				/* outside the envelope */
	while (jl_rand_bits(r, 1) == 0)
		j++;
	y = CORE_SPAN * s + j * B + jl_rand_below(r, B);
	for (n = 0; n < TAIL_SHIFT + j; n++)
		if (!bernoulli_two_over_e(r))
			return -1;
	y2 = (unsigned __int128) y * y;
	if (!bernoulli_exp_wide(r, y2 - (unsigned __int128) 2 * (TAIL_SHIFT + j) * s * s, den))
		return -1;
	return (int64_t) y;
}

/* |Y| from the direct table, or -1 to restart; x supplies the table bits */
static inline int64_t
gaussian_abs(JlRandom *r, uint64_t s, const uint32_t *tab, uint64_t *x)
{
	uint64_t	o = jl_exp_alias_pick(tab, x);
	int64_t		i;

	if (__builtin_expect(o < tab[0], 1))
		return (int64_t) o;
	i = jl_exp_alias_other(r, tab);
	if (i == JL_EXP_ALIAS_TAIL)
		i = gaussian_tail(r, s, tab[2], tab[10] | ((uint64_t) tab[11] << 32));
	return i;
}

static inline bool
direct_table(uint64_t s, const uint32_t *table)
{
	return table != NULL && table[0] == GT_MAGIC &&
		(table[1] | ((uint64_t) table[2] << 32)) == s;
}

uint64_t
jl_gaussian_table_entries(uint64_t s)
{
	if (s < 1 || s > JL_GAUSSIAN_TABLE_MAX_S)
		return 0;
	if (s <= JL_GAUSSIAN_ALIAS_MAX_S)
		return GT_HEADER + jl_exp_alias_words(CORE_SPAN * s);
	return jl_laplace_table_entries(s) + ACCEPT_SPAN * s + 1;
}

void
jl_gaussian_table_fill(uint64_t s, uint32_t *table)
{
	uint64_t	amax = ACCEPT_SPAN * s,
				den = 2 * s * s,
				L,
				a;

	if (s >= 1 && s <= JL_GAUSSIAN_ALIAS_MAX_S)
	{
		table[0] = GT_MAGIC;
		table[1] = (uint32_t) s;
		table[2] = 0;
		table[3] = 0;
		if (!jl_exp_alias_fill_k(table + GT_HEADER, CORE_SPAN * s, 0, den, 0,
								 2 * tail_block(s), TAIL_SHIFT))
			table[0] = 0;		/* not usable: the sampler falls back */
		return;
	}
	L = jl_laplace_table_entries(s);
	jl_laplace_table_fill(s, table);
	table += L;
	table[0] = (uint32_t) amax;
	for (a = 1; a <= amax; a++)
	{
		uint64_t	q = a * a / den,
					rem = a * a - q * den,
					lo,
					hi;

		/* exp(-rem/den) in (1/e, 1]: lo <= 2^16, hi - lo <= 2 */
		jl_exp_bounds(rem, den, 16, &lo, &hi);
		if (lo >= (UINT64_C(1) << 16))
			lo = (UINT64_C(1) << 16) - 1;	/* rem = 0: 1 - 2^-16 is a valid lower bound */
		table[a] = (uint32_t) (lo | ((hi - lo) << 16) | (q << 24));
	}
}

int64_t
jl_discrete_gaussian_table(JlRandom *r, uint64_t s, const uint32_t *table)
{
	uint64_t	amax,
				den = 2 * s * s;
	const uint32_t *accept;

	if (direct_table(s, table))
	{
		for (;;)
		{
			uint64_t	x = jl_rand_word(r);
			int64_t		z = gaussian_abs(r, s, table + GT_HEADER, &x),
						negative = (int64_t) (x & 1);

			if (z < 0 || (negative && z == 0))
				continue;		/* a restart; -0 keeps Pr[0] right */
			return z - 2 * negative * z;
		}
	}
	if (table == NULL || s > JL_GAUSSIAN_TABLE_MAX_S ||
		jl_laplace_table_scale(table) != s)
		return jl_discrete_gaussian(r, s, NULL);
	accept = table + jl_laplace_table_words(table);
	amax = accept[0];
	for (;;)
	{
		int64_t		y = jl_discrete_laplace_table(r, s, table);
		int64_t		d = (y < 0 ? -y : y) - (int64_t) s;
		uint64_t	a = (uint64_t) (d < 0 ? -d : d);

		if (a == 0)
			return y;
		if (a <= amax)
		{
			uint32_t	e = accept[a];
			uint64_t	q = e >> 24,
						rem = a * a - q * den;
			bool		accept = jl_bernoulli_exp_packed(r, rem, den, e & 0xffffff);

			while (accept && q-- > 0)
				accept = jl_bernoulli_exp_packed(r, 1, 1, JL_EXP1_PACKED);
			if (accept)
				return y;
		}
		else if (bernoulli_exp_wide(r, (unsigned __int128) a * a, den))
			return y;
	}
}

void
jl_discrete_gaussian_table_n(JlRandom *r, uint64_t s, const uint32_t *table,
							 int64_t *out, int n)
{
	const uint32_t *tab;
	int			need,
				i = 0;

	if (!direct_table(s, table))
	{
		for (i = 0; i < n; i++)
			out[i] = jl_discrete_gaussian_table(r, s, table);
		return;
	}
	tab = table + GT_HEADER;
	need = (int) tab[1] + JL_EXP_ALIAS_HEIGHT_BITS + 1;
	/*
	 * As many samples from each 64-bit word as its bits allow (two for
	 * tables of up to 2^15 columns): each uses bits of its own, and a
	 * restart only discards them.
	 */
	while (i < n)
	{
		uint64_t	x = jl_rand_word(r);
		int			left = 64;

		for (; i < n && left >= need; left -= need)
		{
			int64_t		z = gaussian_abs(r, s, tab, &x),
						negative = (int64_t) (x & 1);

			x >>= 1;
			if (z < 0 || (negative && z == 0))
				continue;
			out[i++] = z - 2 * negative * z;
		}
	}
}
