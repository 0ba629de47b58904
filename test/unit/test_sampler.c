/*
 * test_sampler.c - exact integer samplers (randbits.c, laplace.c).
 *
 * Deterministic part (fixed-seed byte stream): jl_rand_bits returns the byte
 * stream's bits in order, low-order first, for any mix of widths; used bytes
 * are wiped; jl_random_reset discards what was buffered; edge cases.
 *
 * Statistical part (getrandom): chi-square goodness of fit of jl_rand_below,
 * jl_rand_bernoulli, jl_bernoulli_exp and jl_discrete_laplace against their
 * exact distributions, and of the empirical variance of jl_discrete_laplace.
 * Every check rejects at nominal level UNIT_ALPHA = 1e-7 (p-values from the
 * incomplete gamma function; cells pooled so that expected counts are >= 100),
 * so its false-failure rate is <= 1e-6 with a factor 10 to spare for the
 * chi-square and normal approximations.  Each check is also run on a wrong
 * sampler (a negative control) and the test fails if the check does NOT
 * reject it, so a check that cannot fail is caught.
 */
#include "unit.h"
#include "math/noise/laplace.h"
#include "math/random/randbits.h"
#include "laplace_cells.h"

static JlRandom rng;			/* getrandom-backed */

/* ---------- stat helper self-test ---------- */

static void
test_stat_helpers(void)
{
	double		a = unit_chi2_sf(23.928, 1.0),
				b = unit_chi2_sf(29.588, 10.0),
				c = unit_chi2_crit(100.0, 0.05),
				e = unit_chi2_cdf(0.0158, 1.0);

	/* table values: chi2_1 upper 1e-6 point 23.928; chi2_10 upper 0.001
	 * point 29.588; chi2_100 upper 0.05 point 124.342; chi2_1 lower 0.1
	 * point 0.0158 */
	check(unit_rel(a, 1e-6) < 2e-3 && unit_rel(b, 1e-3) < 2e-3 &&
		  unit_rel(c, 124.342) < 1e-4 && unit_rel(e, 0.1) < 1e-2,
		  "stat helpers: chi2 sf(23.928;1) = %.4g, sf(29.588;10) = %.4g, "
		  "crit(100;0.05) = %.3f, cdf(0.0158;1) = %.4g", a, b, c, e);
}

/* ---------- randbits: deterministic ---------- */

#define STREAM_BYTES (6 * JL_RAND_BUFSIZE)

static void
test_randbits_stream(void)
{
	static uint8_t stream[STREAM_BYTES];
	JlRandom	r;
	uint64_t	seed = 12345,
				wseed = 999;
	size_t		bitpos = 0;
	int			ok = 1,
				ndraws = 0;

	unit_det_fill(&seed, stream, STREAM_BYTES);
	seed = 12345;
	jl_random_init(&r, unit_det_fill, &seed);

	/* widths 0..64 at random, until 5 buffers are used */
	while (bitpos + 64 <= 5 * JL_RAND_BUFSIZE * 8 && ok)
	{
		int			w = (int) (unit_splitmix64(&wseed) % 65);
		uint64_t	v = jl_rand_bits(&r, w),
					want = 0;
		int			b;

		for (b = 0; b < w; b++)
		{
			size_t		p = bitpos + (size_t) b;

			want |= (uint64_t) ((stream[p / 8] >> (p % 8)) & 1) << b;
		}
		if (w < 64 && (v >> w) != 0)
			ok = 0;
		ok &= v == want;
		bitpos += (size_t) w;
		ndraws++;
	}
	check(ok, "jl_rand_bits returns the source's bits in order, low-order first, "
		  "over %d draws of widths 0..64 and %zu bits (5 buffer refills)", ndraws, bitpos);

	/* used randomness is wiped from the buffer */
	seed = 777;
	jl_random_init(&r, unit_det_fill, &seed);
	(void) jl_rand_bits(&r, 3);
	{
		int			zero = 1,
					nonzero = 0,
					i;

		for (i = 0; i < 8; i++)
			zero &= r.buf[i] == 0;
		for (i = 8; i < 16; i++)
			nonzero |= r.buf[i] != 0;
		check(zero && nonzero, "the 8 bytes taken into the bit accumulator are wiped from the buffer");
	}

	/* reset discards the buffered bytes: the next word is from a fresh fill */
	seed = 4242;
	unit_det_fill(&seed, stream, 2 * JL_RAND_BUFSIZE);
	seed = 4242;
	jl_random_init(&r, unit_det_fill, &seed);
	(void) jl_rand_bits(&r, 5);
	jl_random_reset(&r);
	{
		int			i,
					allzero = 1;
		uint64_t	v,
					want;

		for (i = 0; i < JL_RAND_BUFSIZE; i++)
			allzero &= r.buf[i] == 0;
		check(allzero && r.pos == 0 && r.len == 0 && r.nacc == 0 && r.acc == 0,
			  "jl_random_reset wipes the buffer and the accumulator");
		v = jl_rand_bits(&r, 64);
		memcpy(&want, stream + JL_RAND_BUFSIZE, 8);
		check(v == want, "after reset the next 64 bits come from a new fill");
	}

	/* edge cases */
	seed = 1;
	jl_random_init(&r, unit_det_fill, &seed);
	{
		int			ok0 = 1,
					okb = 1,
					i;
		static const uint64_t ns[] = {2, 3, 5, 1000, UINT64_C(1) << 32,
			(UINT64_C(1) << 63) + 1, UINT64_MAX - 1, UINT64_MAX};

		ok0 &= jl_rand_bits(&r, 0) == 0 && r.nacc == 0 && r.len == 0;
		ok0 &= jl_rand_below(&r, 1) == 0 && jl_rand_below(&r, 0) == 0;
		check(ok0, "jl_rand_bits(0) = 0 and consumes nothing; jl_rand_below(1) = 0");
		for (i = 0; i < 8; i++)
		{
			int			rep;

			for (rep = 0; rep < 1000; rep++)
				okb &= jl_rand_below(&r, ns[i]) < ns[i];
		}
		check(okb, "jl_rand_below(n) < n for n up to UINT64_MAX");
		okb = 1;
		for (i = 0; i < 1000; i++)
		{
			okb &= !jl_rand_bernoulli(&r, 0, 7);
			okb &= jl_rand_bernoulli(&r, 7, 7);
			okb &= jl_rand_bernoulli(&r, 8, 7);
			okb &= jl_rand_bernoulli(&r, UINT64_MAX, UINT64_MAX);
			okb &= jl_bernoulli_exp(&r, 0, 5);	/* exp(0) = 1 */
		}
		check(okb, "Bernoulli(0/7) never, Bernoulli(7/7), (8/7) always, Bernoulli(exp(0)) always");
	}
}

/* ---------- uniform integers ---------- */

typedef uint64_t (*BelowFn) (JlRandom *r, uint64_t n);

static uint64_t
below_modulo(JlRandom *r, uint64_t n)
{
	/* negative control: modulo reduction of the same number of bits */
	int			nbits = 64 - __builtin_clzll(n - 1);

	return jl_rand_bits(r, nbits) % n;
}

/* Chi-square of fn(n) over nb cells (cell of v: floor(v nb / n)). */
static double
uniform_gof(BelowFn fn, uint64_t n, int nb, uint64_t N, double *x2, int *df)
{
	uint64_t   *cnt = calloc(nb, sizeof(uint64_t));
	double	   *prob = malloc(nb * sizeof(double));
	double		p,
				emin;
	uint64_t	i;
	int			b;

	for (b = 0; b < nb; b++)
	{
		/* number of v with floor(v nb / n) = b is ceil((b+1)n/nb) - ceil(b n/nb) */
		unsigned __int128 lo = ((unsigned __int128) b * n + nb - 1) / nb;
		unsigned __int128 hi = ((unsigned __int128) (b + 1) * n + nb - 1) / nb;

		prob[b] = (double) (hi - lo) / (double) n;
	}
	for (i = 0; i < N; i++)
	{
		uint64_t	v = fn(&rng, n);

		if (v >= n)
			v = n - 1;			/* out of range: counted in the last cell */
		cnt[(int) (((unsigned __int128) v * nb) / n)]++;
	}
	p = unit_pearson(cnt, prob, nb, x2, df, &emin);
	free(cnt);
	free(prob);
	return p;
}

static void
test_uniform(void)
{
	static const uint64_t ns[] = {3, 7, 100, 1000, 3 * (UINT64_C(1) << 40) + 7};
	int			i;

	for (i = 0; i < 5; i++)
	{
		uint64_t	n = ns[i],
					N = 1000000;
		int			nb = n <= 1000 ? (int) n : 64,
					df;
		double		x2,
					p;

		p = uniform_gof(jl_rand_below, n, nb, N, &x2, &df);
		check(p >= UNIT_ALPHA, "jl_rand_below(%llu) uniform: X2 = %.1f, df = %d, p = %.3g, N = %llu",
			  (unsigned long long) n, x2, df, p, (unsigned long long) N);
		p = uniform_gof(below_modulo, n, nb, N, &x2, &df);
		check(p < UNIT_ALPHA, "negative control: same check rejects modulo reduction for n = %llu "
			  "(X2 = %.0f, p = %.3g)", (unsigned long long) n, x2, p);
	}
}

/* ---------- Bernoulli trials ---------- */

/* two-cell Pearson test of k successes in N against probability p */
static double
binomial_p(uint64_t k, uint64_t N, double p, double *x2)
{
	uint64_t	obs[2] = {k, N - k};
	double		prob[2] = {p, 1.0 - p};
	int			df;

	return unit_pearson(obs, prob, 2, x2, &df, NULL);
}

static void
test_bernoulli(void)
{
	/* (num, den) and a wrong (num, den) for the negative control */
	static const uint64_t cases[][4] = {
		{1, 3, 11, 30},
		{2, 7, 22, 70},
		{999, 1000, 998, 1000},
		{1, 1000, 2, 1000},
		{UINT64_C(12345678901), UINT64_C(98765432109),
		UINT64_C(135802467911), UINT64_C(987654321090)},
		/* around den = 2^55, where the 8-bit comparison switches to 128 bits */
		{(UINT64_C(1) << 54) + 3, (UINT64_C(1) << 55) - 1,
		(UINT64_C(1) << 54) + 3 - ((UINT64_C(1) << 55) - 1) / 10, (UINT64_C(1) << 55) - 1},
		{(UINT64_C(1) << 54) + 3, UINT64_C(1) << 55,
		(UINT64_C(1) << 54) + 3 - (UINT64_C(1) << 55) / 10, UINT64_C(1) << 55},
		{UINT64_MAX / 3, UINT64_MAX, UINT64_MAX / 3 - UINT64_MAX / 10, UINT64_MAX},
		{UINT64_C(1) << 62, (UINT64_C(1) << 63) + 12345,
		(UINT64_C(1) << 62) - (UINT64_C(1) << 63) / 10, (UINT64_C(1) << 63) + 12345},
	};
	uint64_t	N = 1000000;
	int			c;

	for (c = 0; c < (int) (sizeof(cases) / sizeof(cases[0])); c++)
	{
		uint64_t	num = cases[c][0],
					den = cases[c][1],
					k = 0,
					i;
		double		p = (double) num / (double) den,
					x2,
					pv;

		for (i = 0; i < N; i++)
			k += jl_rand_bernoulli(&rng, num, den);
		pv = binomial_p(k, N, p, &x2);
		check(pv >= UNIT_ALPHA, "jl_rand_bernoulli(%llu/%llu = %.6f): %llu of %llu, X2 = %.2f, p = %.3g",
			  (unsigned long long) num, (unsigned long long) den, p,
			  (unsigned long long) k, (unsigned long long) N, x2, pv);
		k = 0;
		for (i = 0; i < N; i++)
			k += jl_rand_bernoulli(&rng, cases[c][2], cases[c][3]);
		pv = binomial_p(k, N, p, &x2);
		check(pv < UNIT_ALPHA, "negative control: same check rejects Bernoulli(%llu/%llu) "
			  "(X2 = %.0f, p = %.3g)", (unsigned long long) cases[c][2],
			  (unsigned long long) cases[c][3], x2, pv);
	}
}

static void
test_bernoulli_exp(void)
{
	/*
	 * gamma = num/den, including gamma = 1, gamma > 1 and a large den (the
	 * header allows any den >= 1); each with a mis-scaled (1.1 gamma) control
	 */
	static const uint64_t cases[][4] = {
		{1, 10, 11, 100}, {1, 2, 11, 20}, {3, 3, 33, 30}, {5, 2, 55, 20}, {37, 10, 407, 100},
		{3 * (UINT64_C(1) << 40), UINT64_C(1) << 42, 33 * (UINT64_C(1) << 40), 10 * (UINT64_C(1) << 42)},
		{UINT64_C(1) << 62, UINT64_C(1) << 63, 11 * (UINT64_C(1) << 58), 10 * (UINT64_C(1) << 59)},
	};
	uint64_t	N = 1000000;
	int			c;

	for (c = 0; c < 7; c++)
	{
		uint64_t	num = cases[c][0],
					den = cases[c][1],
					k = 0,
					i;
		double		p = exp(-(double) num / (double) den),
					x2,
					pv;

		for (i = 0; i < N; i++)
			k += jl_bernoulli_exp(&rng, num, den);
		pv = binomial_p(k, N, p, &x2);
		check(pv >= UNIT_ALPHA, "jl_bernoulli_exp(%llu/%llu = %g): %llu of %llu (want %.5f), X2 = %.2f, p = %.3g",
			  (unsigned long long) num, (unsigned long long) den, (double) num / den,
			  (unsigned long long) k, (unsigned long long) N, p, x2, pv);
		/* negative control: gamma mis-scaled by 1.1 */
		k = 0;
		for (i = 0; i < N; i++)
			k += jl_bernoulli_exp(&rng, cases[c][2], cases[c][3]);
		pv = binomial_p(k, N, p, &x2);
		check(pv < UNIT_ALPHA, "negative control: same check rejects exp(-1.1 gamma) "
			  "(X2 = %.0f, p = %.3g)", x2, pv);
	}
}

/* ---------- discrete Laplace ---------- */

/* negative control: the naive sampler, continuous Laplace rounded */
static int64_t
lap_naive(JlRandom *r, uint64_t t)
{
	double		x = -(double) t * log(unit_u01(r));

	return (int64_t) nearbyint(jl_rand_bits(r, 1) ? -x : x);
}

/* negative control: the CKS sampler without rejecting "-0" (P(0) too large) */
static int64_t
lap_no_zero_reject(JlRandom *r, uint64_t t)
{
	for (;;)
	{
		uint64_t	u = jl_rand_below(r, t),
					v = 0,
					x;

		if (!jl_bernoulli_exp(r, u, t))
			continue;
		while (jl_bernoulli_exp(r, 1, 1))
			v++;
		x = u + t * v;
		return jl_rand_bits(r, 1) ? -(int64_t) x : (int64_t) x;
	}
}

static void
test_discrete_laplace(void)
{
	static const uint64_t ts[] = {1, 2, 7, 1000};
	int			i;

	for (i = 0; i < 4; i++)
	{
		uint64_t	t = ts[i],
					N = 4000000;
		Cells	   *C = malloc(sizeof(Cells));
		LapResult	r;
		double		s2 = jl_discrete_laplace_variance(t);

		build_cells(C, t, (double) N);

		run_laplace(&rng, jl_discrete_laplace, t, N, C, &r);
		check(r.p >= UNIT_ALPHA, "jl_discrete_laplace(t=%llu) fits the exact pmf: X2 = %.1f, df = %d, "
			  "p = %.3g, min expected %.0f, N = %llu (%.2f s)", (unsigned long long) t, r.x2, r.df,
			  r.p, r.emin, (unsigned long long) N, r.seconds);
		check(fabs(r.zvar) < UNIT_Z, "jl_discrete_laplace(t=%llu) mean z^2 = %.6g vs "
			  "jl_discrete_laplace_variance = %.6g: z = %.2f (|z| < %.2f)",
			  (unsigned long long) t, r.var, s2, r.zvar, UNIT_Z);

		run_laplace(&rng, lap_misscaled, t, N, C, &r);
		check(r.p < UNIT_ALPHA, "negative control t=%llu: fit rejects scale 1.1 t (X2 = %.0f, p = %.3g)",
			  (unsigned long long) t, r.x2, r.p);
		check(fabs(r.zvar) >= UNIT_Z, "negative control t=%llu: variance check rejects scale 1.1 t "
			  "(mean z^2 = %.6g, z = %.1f)", (unsigned long long) t, r.var, r.zvar);

		run_laplace(&rng, lap_no_zero_reject, t, N, C, &r);
		check(r.p < UNIT_ALPHA, "negative control t=%llu: fit rejects the sampler that keeps -0 "
			  "(X2 = %.0f, p = %.3g)", (unsigned long long) t, r.x2, r.p);

		if (t < 100)
		{
			run_laplace(&rng, lap_naive, t, N, C, &r);
			check(r.p < UNIT_ALPHA, "negative control t=%llu: fit rejects rounded continuous Laplace "
				  "(X2 = %.0f, p = %.3g)", (unsigned long long) t, r.x2, r.p);
		}
		else
			note("t=%llu: no naive-rounding control; its pmf differs from the exact one by a "
				 "factor cosh(1/2t) = 1 + %.2g, undetectable", (unsigned long long) t,
				 cosh(0.5 / t) - 1.0);
		free(C);
	}
}

/* variance and fourth moment formulas against a direct sum of the pmf */
static void
test_moments(void)
{
	static const uint64_t ts[] = {1, 2, 7, 1000, 65536};
	int			i;

	for (i = 0; i < 5; i++)
	{
		uint64_t	t = ts[i];
		long double p = expl(-1.0L / (long double) t),
					c = (-expm1l(-1.0L / (long double) t)) / (1.0L + p),
					pz = p,
					m0 = c,
					m2 = 0.0L,
					m4 = 0.0L;
		int64_t		z;

		for (z = 1; z < (int64_t) (80 * t) + 80; z++)
		{
			long double pr = c * pz,
						zz = (long double) z * z;

			m0 += 2.0L * pr;
			m2 += 2.0L * pr * zz;
			m4 += 2.0L * pr * zz * zz;
			pz *= p;
		}
		check(unit_rel((double) m2, jl_discrete_laplace_variance(t)) < 1e-9 &&
			  unit_rel((double) m4, jl_discrete_laplace_moment4(t)) < 1e-9 &&
			  fabsl(m0 - 1.0L) < 1e-12L,
			  "t=%llu: variance %.12g and fourth moment %.12g equal direct sums %.12Lg, %.12Lg "
			  "(rel %.1g, %.1g; total mass %.15Lg)", (unsigned long long) t,
			  jl_discrete_laplace_variance(t), jl_discrete_laplace_moment4(t), m2, m4,
			  unit_rel((double) m2, jl_discrete_laplace_variance(t)),
			  unit_rel((double) m4, jl_discrete_laplace_moment4(t)), m0);
	}
}

/* huge scales run and have E|Z| ~ t (|Z|/t is about Exp(1)) */
static void
test_large_scale(void)
{
	static const uint64_t ts[] = {UINT64_C(1) << 40, JL_LAPLACE_MAX_T};
	int			i;

	for (i = 0; i < 2; i++)
	{
		uint64_t	t = ts[i];
		long double s = 0.0L;
		int			n = 2000,
					j;
		double		mean;

		for (j = 0; j < n; j++)
		{
			int64_t		z = jl_discrete_laplace(&rng, t);

			s += z < 0 ? -(long double) z : (long double) z;
		}
		mean = (double) (s / n / t);
		/* sd of the mean is 1/sqrt(2000) = 0.022; +-0.25 is > 11 sd */
		check(fabs(mean - 1.0) < 0.25, "t=2^%d: mean |Z|/t = %.4f over %d draws (within 0.25 of 1)",
			  63 - __builtin_clzll(t), mean, n);
	}
}

int
main(void)
{
	double		t0 = unit_seconds();

	jl_random_init(&rng, unit_getrandom_fill, NULL);
	test_stat_helpers();
	test_randbits_stream();
	test_uniform();
	test_bernoulli();
	test_bernoulli_exp();
	test_moments();
	test_discrete_laplace();
	test_large_scale();
	note("test_sampler took %.1f s", unit_seconds() - t0);
	return unit_done("test_sampler");
}
