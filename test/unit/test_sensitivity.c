/*
 * test_sensitivity.c - sensitivities of the realized projection
 * (sensitivity.c), against brute force in long double.
 *
 * Not statistical: matrices come from pinned keys (jl_projection_matrix) or a
 * fixed-seed stream, so every run checks the same cases.  The library values
 * carry an upward rounding margin: each must be >= the brute-force truth and
 * within a small relative distance of it.
 */
#include "unit.h"
#include "math/projection/projection.h"
#include "math/projection/sensitivity.h"

static uint64_t seed = 20240601;

static double *
key_matrix(uint8_t tag, int64_t d, int k)
{
	uint8_t		key[JL_KEY_BYTES];
	double	   *P = malloc(sizeof(double) * d * k);
	int			i;

	for (i = 0; i < JL_KEY_BYTES; i++)
		key[i] = (uint8_t) (tag * 31 + i * 7);
	jl_projection_matrix(key, JL_KIND_GAUSSIAN, k, d, P);
	return P;
}

static double *
uniform_matrix(int64_t d, int k, double lo, double hi)
{
	double	   *P = malloc(sizeof(double) * d * k);
	int64_t		i;

	for (i = 0; i < d * k; i++)
		P[i] = lo + (hi - lo) * unit_det_u01(&seed);
	return P;
}

/* G = P^T P in long double */
static long double *
gram_ld(const double *P, int64_t d, int k)
{
	long double *G = calloc((size_t) k * k, sizeof(long double));
	int64_t		i;
	int			a,
				b;

	for (i = 0; i < d; i++)
		for (a = 0; a < k; a++)
			for (b = 0; b < k; b++)
				G[a * k + b] += (long double) P[i * k + a] * P[i * k + b];
	return G;
}

/* max over all s in {+-1}^k of ||P s||_2, directly from P */
static long double
brute_row_l1(const double *P, int64_t d, int k)
{
	long double best = 0.0L;
	uint64_t	mask;

	for (mask = 0; mask < (UINT64_C(1) << k); mask++)
	{
		long double sq = 0.0L;
		int64_t		i;

		for (i = 0; i < d; i++)
		{
			long double y = 0.0L;
			int			j;

			for (j = 0; j < k; j++)
				y += (mask >> j & 1) ? -(long double) P[i * k + j] : (long double) P[i * k + j];
			sq += y * y;
		}
		if (sq > best)
			best = sq;
	}
	return sqrtl(best);
}

/* s^T G s */
static long double
quad(const long double *G, int k, const int *s)
{
	long double q = 0.0L;
	int			a,
				b;

	for (a = 0; a < k; a++)
		for (b = 0; b < k; b++)
			q += s[a] * G[a * k + b] * s[b];
	return q;
}

/*
 * Lower bound on max_s ||P s||_2: random sign vectors improved by 1-flip
 * local search (flip s_j when it raises s^T G s: gain -4 s_j (G s)_j + 4 G_jj).
 */
static long double
local_search_row_l1(const long double *G, int k, int starts)
{
	int		   *s = malloc(sizeof(int) * k);
	long double best = 0.0L;
	int			st;

	for (st = 0; st < starts; st++)
	{
		int			j,
					improved = 1;

		for (j = 0; j < k; j++)
			s[j] = (unit_splitmix64(&seed) & 1) ? 1 : -1;
		while (improved)
		{
			improved = 0;
			for (j = 0; j < k; j++)
			{
				long double gs = 0.0L;
				int			b;

				for (b = 0; b < k; b++)
					gs += G[j * k + b] * s[b];
				if (-4.0L * s[j] * gs + 4.0L * G[j * k + j] > 0.0L)
				{
					s[j] = -s[j];
					improved = 1;
				}
			}
		}
		{
			long double q = quad(G, k, s);

			if (q > best)
				best = q;
		}
	}
	free(s);
	return sqrtl(best);
}

/* sigma_max(P) by power iteration on G in long double */
static long double
power_sigma(const long double *G, int k)
{
	long double *v = malloc(sizeof(long double) * k),
			   *w = malloc(sizeof(long double) * k),
				lambda = 0.0L;
	int			it,
				a,
				b;

	for (a = 0; a < k; a++)
		v[a] = 1.0L + 0.1L * unit_det_u01(&seed);
	for (it = 0; it < 20000; it++)
	{
		long double nrm = 0.0L,
					rq = 0.0L;

		for (a = 0; a < k; a++)
		{
			w[a] = 0.0L;
			for (b = 0; b < k; b++)
				w[a] += G[a * k + b] * v[b];
		}
		for (a = 0; a < k; a++)
		{
			rq += v[a] * w[a];
			nrm += w[a] * w[a];
		}
		nrm = sqrtl(nrm);
		for (a = 0; a < k; a++)
			v[a] = w[a] / nrm;
		if (it > 100 && fabsl(rq - lambda) <= 1e-18L * rq)
		{
			lambda = rq;
			break;
		}
		lambda = rq;
	}
	free(v);
	free(w);
	return sqrtl(lambda);
}

static void
test_max_abs_row_l1(void)
{
	static const int64_t ds[] = {1, 10, 1000, 300};
	static const int ks[] = {1, 5, 50, 300};
	int			c;

	for (c = 0; c < 4; c++)
	{
		int64_t		d = ds[c],
					i;
		int			k = ks[c],
					j;
		double	   *P = key_matrix((uint8_t) c, d, k);
		long double best = 0.0L;
		double		mx = 0.0,
					got;

		for (i = 0; i < d; i++)
		{
			long double s = 0.0L;

			for (j = 0; j < k; j++)
			{
				s += fabsl((long double) P[i * k + j]);
				mx = fmax(mx, fabs(P[i * k + j]));
			}
			if (s > best)
				best = s;
		}
		got = jl_max_row_l1(P, d, k);
		check((long double) got >= best && (got - best) / best < 1e-9L,
			  "jl_max_row_l1 d=%ld k=%d: %.17g >= true %.17Lg, rel excess %.2Lg",
			  (long) d, k, got, best, (got - best) / best);
		check(jl_max_abs(P, d * k) == mx, "jl_max_abs d=%ld k=%d = %.17g", (long) d, k, mx);
		free(P);
	}

	/* wide dynamic range: summation error matters, the margin must cover it */
	{
		int64_t		d = 3;
		int			k = 2000,
					j;
		double	   *P = malloc(sizeof(double) * d * k);
		long double best = 0.0L;
		double		got;
		int64_t		i;

		for (i = 0; i < d * k; i++)
			P[i] = ((i % 3) == 0 ? 1e8 : 1.0 + 1e-3 * unit_det_u01(&seed)) *
				((i & 1) ? -1.0 : 1.0) / 3.0;
		for (i = 0; i < d; i++)
		{
			long double s = 0.0L;

			for (j = 0; j < k; j++)
				s += fabsl((long double) P[i * k + j]);
			if (s > best)
				best = s;
		}
		got = jl_max_row_l1(P, d, k);
		check((long double) got >= best && (got - best) / best < 1e-9L,
			  "jl_max_row_l1 with entries 1e8/3 and ~1/3 mixed: %.17g >= true %.17Lg",
			  got, best);
		free(P);
	}
}

static void
check_row_exact(const char *what, const double *P, int64_t d, int k)
{
	JlRowMethod m = 0;
	double		got = jl_row_l1_sensitivity(P, d, k, &m);
	long double want = brute_row_l1(P, d, k);
	long double rel = (got - want) / want;

	check(m == JL_ROW_EXACT_ENUMERATION && (long double) got >= want && rel < 1e-9L,
		  "jl_row_l1_sensitivity %s d=%ld k=%d: %.17g >= brute force %.17Lg, rel %.2Lg, exact method",
		  what, (long) d, k, got, want, rel);
}

static void
test_row_small_k(void)
{
	int			k;

	for (k = 1; k <= 10; k++)
	{
		static const int64_t ds[] = {1, 3, 50, 500};
		int			c;

		for (c = 0; c < 4; c++)
		{
			double	   *P = key_matrix((uint8_t) (10 * k + c), ds[c], k);

			check_row_exact("keyed P", P, ds[c], k);
			free(P);
		}
		{
			double	   *P = uniform_matrix(40, k, -1.0, 1.0);

			check_row_exact("uniform(-1,1)", P, 40, k);
			free(P);
		}
	}

	/* d = 1: max_s |sum_j P_j s_j| is the row's L1 norm */
	{
		double	   *P = key_matrix(77, 1, 9);
		JlRowMethod m;
		double		got = jl_row_l1_sensitivity(P, 1, 9, &m),
					l1 = 0.0;
		int			j;

		for (j = 0; j < 9; j++)
			l1 += fabs(P[j]);
		check(unit_rel(got, l1) < 1e-12 && got >= l1,
			  "d=1: row sensitivity %.17g equals the row's L1 norm %.17g", got, l1);
		free(P);
	}

	/* orthogonal columns: every sign vector gives sqrt(sum of squared column norms) */
	{
		int			k = 6,
					j;
		double		P[6 * 6] = {0};
		double		want,
					got;
		JlRowMethod m;

		for (j = 0; j < k; j++)
			P[j * k + j] = j + 1.0;
		want = sqrt(1 + 4 + 9 + 16 + 25 + 36.0);
		got = jl_row_l1_sensitivity(P, 6, k, &m);
		check(got >= want && unit_rel(got, want) < 1e-12,
			  "diagonal P = diag(1..6): row sensitivity %.17g = sqrt(91) = %.17g", got, want);
	}

	/* one sign pattern dominates: columns c_j = sign_j * (1 + noise) u */
	{
		int			k = 12,
					j;
		int64_t		d = 30,
					i;
		double	   *P = malloc(sizeof(double) * d * k);

		for (i = 0; i < d; i++)
			for (j = 0; j < k; j++)
				P[i * k + j] = ((j * 5 % 7) < 3 ? -1.0 : 1.0) *
					(1.0 + 0.01 * unit_det_u01(&seed)) * (1.0 + i % 4);
		check_row_exact("aligned columns", P, d, k);
		free(P);
	}

	/* k = 16 through the Gray-code walk's resync (every 256 flips) */
	{
		double	   *P = key_matrix(99, 24, 16);

		check_row_exact("keyed P", P, 24, 16);
		free(P);
	}
}

static void
test_row_large_k(void)
{
	int64_t		d = 200,
				i;
	int			k = 30,
				k24 = 24,
				j;
	double	   *P = key_matrix(123, d, k);
	double	   *P24 = malloc(sizeof(double) * d * k24);
	double	   *P25 = malloc(sizeof(double) * d * 25);
	long double *G = gram_ld(P, d, k);
	long double lower = local_search_row_l1(G, k, 3000),
				sig = power_sigma(G, k);
	JlRowMethod m = 0,
				m24 = 0,
				m25 = 0;
	double		got = jl_row_l1_sensitivity(P, d, k, &m),
				got24,
				got25,
				t0;

	check(m == JL_ROW_SPECTRAL_BOUND, "k=30 uses the spectral bound (method %d)", (int) m);
	check((long double) got >= lower,
		  "k=30: bound %.10g >= best of 3000 locally optimized sign vectors %.10Lg (ratio %.4Lf)",
		  got, lower, got / lower);
	check(unit_rel(got, (double) (sqrtl((long double) k) * sig)) < 1e-6 &&
		  (long double) got >= sqrtl((long double) k) * sig,
		  "k=30: bound %.12g = sqrt(k) sigma_max (power iteration %.12Lg)",
		  got, sqrtl((long double) k) * sig);

	/* the first 24 columns: exact enumeration there can only be smaller */
	for (i = 0; i < d; i++)
	{
		for (j = 0; j < k24; j++)
			P24[i * k24 + j] = P[i * k + j];
		for (j = 0; j < 25; j++)
			P25[i * 25 + j] = P[i * k + j];
	}
	t0 = unit_seconds();
	got24 = jl_row_l1_sensitivity(P24, d, k24, &m24);
	note("k=24 exact enumeration took %.2f s", unit_seconds() - t0);
	got25 = jl_row_l1_sensitivity(P25, d, 25, &m25);
	check(m24 == JL_ROW_EXACT_ENUMERATION && m25 == JL_ROW_SPECTRAL_BOUND,
		  "k=24 enumerates, k=25 uses the spectral bound");
	check(got >= got24 && got25 >= got24,
		  "spectral bounds k=30 %.10g and k=25 %.10g >= exact k=24 value on their first 24 columns %.10g",
		  got, got25, got24);
	{
		long double *G24 = gram_ld(P24, d, k24);
		long double lo24 = local_search_row_l1(G24, k24, 3000);

		check((long double) got24 >= lo24 && (got24 - lo24) / lo24 < 1e-9L,
			  "k=24 exact enumeration %.15g >= and ~= best local search %.15Lg (rel %.2Lg)",
			  got24, lo24, (got24 - lo24) / lo24);
		free(G24);
	}
	free(G);
	free(P);
	free(P24);
	free(P25);
}

static void
test_spectral(void)
{
	static const int64_t ds[] = {50, 200, 1000, 7};
	static const int ks[] = {5, 30, 100, 12};
	int			c;

	for (c = 0; c < 4; c++)
	{
		int64_t		d = ds[c],
					i;
		int			k = ks[c],
					rep,
					j;
		double	   *P = key_matrix((uint8_t) (200 + c), d, k);
		long double *G = gram_ld(P, d, k);
		long double sig = power_sigma(G, k),
					maxpv = 0.0L;
		double		got = jl_spectral_norm(P, d, k);
		double	   *v = malloc(sizeof(double) * k);

		for (rep = 0; rep < 2000; rep++)
		{
			long double nv = 0.0L,
						npv = 0.0L;

			for (j = 0; j < k; j++)
			{
				v[j] = unit_det_normal(&seed);
				nv += (long double) v[j] * v[j];
			}
			for (i = 0; i < d; i++)
			{
				long double y = 0.0L;

				for (j = 0; j < k; j++)
					y += (long double) P[i * k + j] * v[j];
				npv += y * y;
			}
			npv = sqrtl(npv / nv);
			if (npv > maxpv)
				maxpv = npv;
		}
		check((long double) got >= maxpv,
			  "jl_spectral_norm d=%ld k=%d: %.12g >= max ||P v|| over 2000 random unit v (%.12Lg)",
			  (long) d, k, got, maxpv);
		check((long double) got >= sig && unit_rel(got, (double) sig) < 1e-6,
			  "jl_spectral_norm d=%ld k=%d: %.15g >= and ~= power iteration %.15Lg (rel %.2g)",
			  (long) d, k, got, sig, unit_rel(got, (double) sig));
		free(v);
		free(G);
		free(P);
	}

	/* known answer: orthogonal columns of norms 3, 1, 2 (and a row of zeros) */
	{
		double		P[4 * 3] = {
			0, 0, 2,
			3, 0, 0,
			0, 0, 0,
			0, 1, 0
		};
		double		got = jl_spectral_norm(P, 4, 3);
		double		G[9] = {9, 0, 0, 0, 1, 0, 0, 0, 4};
		double		gg = jl_spectral_norm_gram(G, 3, 0.0);

		check(got >= 3.0 && got <= 3.0 * (1.0 + 1e-12),
			  "known answer: sigma_max of columns with norms 3,1,2 is %.17g (>= 3, within 1e-12)", got);
		check(gg >= 3.0 && gg <= 3.0 * (1.0 + 1e-12),
			  "jl_spectral_norm_gram(diag(9,1,4)) = %.17g", gg);
	}

	/* rank one P = u w^T: sigma_max = ||u|| ||w|| */
	{
		int64_t		d = 40,
					i;
		int			k = 8,
					j;
		double	   *P = malloc(sizeof(double) * d * k);
		long double nu = 0.0L,
					nw = 0.0L,
					want;
		double		got;

		for (j = 0; j < k; j++)
			nw += (long double) (j + 1) * (j + 1);
		for (i = 0; i < d; i++)
		{
			double		u = 0.5 + 0.01 * i;

			nu += (long double) u * u;
			for (j = 0; j < k; j++)
				P[i * k + j] = u * (j + 1);
		}
		want = sqrtl(nu * nw);
		got = jl_spectral_norm(P, d, k);
		check((long double) got >= want && unit_rel(got, (double) want) < 1e-12,
			  "rank one P: sigma_max %.17g >= ||u|| ||w|| = %.17Lg", got, want);
		free(P);
	}
}

int
main(void)
{
	test_max_abs_row_l1();
	test_row_small_k();
	test_row_large_k();
	test_spectral();
	return unit_done("test_sensitivity");
}
