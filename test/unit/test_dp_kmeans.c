/*
 * test_dp_kmeans.c - differentially private k-means (math/analytics/
 * dp_kmeans.c): its calibration's guarantee recomputed independently, the
 * noise of a step against its stated variance (with a negative control),
 * an empirical privacy audit of one step on worst-case neighbours (with a
 * negative control), bad specifications refused, and the clusters found.
 *
 * Statistical checks reject at UNIT_ALPHA = 1e-7 (unit.h).
 */
#include "unit.h"
#include "gaussian_exact.h"

#include "math/accounting/accountant.h"
#include "math/analytics/dp_kmeans.h"

static JlRandom rng;

/* the unit box [0, 1]^d about its centre */
static double box_lo[8],
			box_hi[8],
			box_c[8];

static JlDpKmeansSpec
box_spec(int k, int d, int T, double eps, double delta)
{
	for (int i = 0; i < d; i++)
	{
		box_lo[i] = 0.0;
		box_hi[i] = 1.0;
		box_c[i] = 0.5;
	}
	return (JlDpKmeansSpec)
	{
		.k = k,.d = d,.iterations = T,.epsilon = eps,.delta = delta,.lo = box_lo,
			.hi = box_hi,.centre = box_c,.radius = 0.5 * sqrt((double) d),.diameter = sqrt((double) d)
	};
}

static void
test_calibration(void)
{
	static const double eps[] = {0.1, 1.0, 4.0, 8.0};
	static const double deltas[] = {1e-8, 1e-5};
	static const int Ts[] = {1, 5, 10};
	int			cases = 0,
				bad = 0;
	double		worst = 0.0;

	for (size_t a = 0; a < 4; a++)
		for (size_t b = 0; b < 2; b++)
			for (size_t t = 0; t < 3; t++)
			{
				JlDpKmeansSpec sp = box_spec(4, 3, Ts[t], eps[a], deltas[b]);
				JlDpKmeansCalibration c;
				long double got;

				cases++;
				if (jl_dp_kmeans_calibrate(&sp, &c) != JL_OK)
				{
					bad++;
					continue;
				}
				/* independently: sqrt(T) mu_step, the atoms delta / 1024 */
				got = gdp_ld(sqrtl((long double) Ts[t]) * c.mu_step, eps[a]) + deltas[b] / 1024.0L;
				if (!(got <= deltas[b]) || !(c.mu_step >= c.Dg / (double) c.s) || c.s < 1024 ||
					!(c.epsilon_effective <= eps[a]))
					bad++;
				/* tightness: the noise against the continuous Gaussian's */
				if (c.mu_step * c.s / c.Dg > worst)
					worst = c.mu_step * c.s / c.Dg;
			}
	check(bad == 0, "calibration: (epsilon, delta) recomputed in long double holds in %d of %d "
		  "(epsilon 0.1..8, delta 1e-8 and 1e-5, 1, 5 and 10 iterations); s >= 1024 grid steps", cases - bad, cases);
	check(worst < 1.01, "the dominating shift within 1%% of the continuous Dg / s (at most %.5f times)", worst);
}

/*
 * The charge (one profile: rho and mu = sqrt(T) mu_step, at (epsilon,
 * delta)) composes on the budget exactly as the T iterations would, each
 * charged on its own (rho / T, mu_step, delta / T: the same atoms).
 */
static void
test_charge_is_the_iterations(void)
{
	JlDpKmeansSpec sp = box_spec(4, 3, 5, 1.0, 1e-6);
	JlDpKmeansCalibration c;
	JlProfile	one,
				each[5];
	JlComposition a,
				b;
	JlStatus	sa,
				sb;

	jl_dp_kmeans_calibrate(&sp, &c);
	one = (JlProfile)
	{
		.kind = JL_PROFILE_ZCDP,.epsilon = 1.0,.delta = 1e-6,.rho = c.rho,.mu = c.mu
	};
	for (int i = 0; i < 5; i++)
		each[i] = (JlProfile)
	{
		.kind = JL_PROFILE_ZCDP,.epsilon = 1.0,.delta = 1e-6 / 5,.rho = c.rho / 5,.mu = c.mu_step
	};
	sa = jl_compose(&one, 1, 1e-5, &a);
	sb = jl_compose(each, 5, 1e-5, &b);
	check(sa == JL_OK && sb == JL_OK && fabs(a.epsilon - b.epsilon) <= 1e-8 * b.epsilon &&
		  strcmp(a.method, "pld") == 0,
		  "the charge composes as its 5 iterations would: %.9f at 1e-5 (each iteration charged: %.9f)",
		  a.epsilon, b.epsilon);
}

static void
test_refusals(void)
{
	JlDpKmeansSpec sp = box_spec(3, 2, 5, 1.0, 1e-6);
	JlDpKmeansCalibration c;
	int			ok = 1;

	sp.k = 0;
	ok &= jl_dp_kmeans_calibrate(&sp, &c) == JL_ERR_STATS;
	sp.k = JL_DP_KMEANS_MAX_K + 1;
	ok &= jl_dp_kmeans_calibrate(&sp, &c) == JL_ERR_STATS;
	sp = box_spec(3, 2, 0, 1.0, 1e-6);
	ok &= jl_dp_kmeans_calibrate(&sp, &c) == JL_ERR_STATS;
	sp = box_spec(3, 2, 5, NAN, 1e-6);
	ok &= jl_dp_kmeans_calibrate(&sp, &c) == JL_ERR_EPSILON;
	sp = box_spec(3, 2, 5, 1.0, 0.0);
	ok &= jl_dp_kmeans_calibrate(&sp, &c) == JL_ERR_DELTA;
	sp = box_spec(3, 2, 5, 1.0, 1e-6);
	sp.radius = NAN;
	ok &= jl_dp_kmeans_calibrate(&sp, &c) == JL_ERR_STATS;
	sp = box_spec(3, 2, 5, 1.0, 1e-6);
	box_lo[1] = 2.0;
	ok &= jl_dp_kmeans_calibrate(&sp, &c) == JL_ERR_STATS;
	check(ok, "refused: k 0 and past the limit, no iterations, epsilon NaN, delta 0, radius NaN, lo > hi");
}

/*
 * One step on rows whose exact release is known: the released vector minus
 * the exact one is the noise; its coordinates' variance against s^2, by
 * the chi-square of their sum of squares (df = draws), and the same
 * against (s / 2)^2 as the negative control.
 */
static void
test_noise(void)
{
	JlDpKmeansSpec sp = box_spec(2, 2, 1, 1.0, 1e-5);
	JlDpKmeansCalibration c;
	double		rows[200 * 2],
				cent[4],
				counts[2],
				rel[6],
				ex[6],
				work[16];
	double		ss = 0.0;
	long		draws = 0;
	double		z,
				zc;

	jl_dp_kmeans_calibrate(&sp, &c);
	for (int p = 0; p < 200; p++)
	{
		rows[2 * p] = p % 2 ? 0.9 : 0.1;
		rows[2 * p + 1] = 0.3;
	}
	for (int rep = 0; rep < 3000; rep++)
	{
		cent[0] = 0.1;
		cent[1] = 0.3;
		cent[2] = 0.9;
		cent[3] = 0.3;
		jl_dp_kmeans_step(&sp, &c, rows, 200, &rng, cent, counts, rel, ex, work);
		for (int q = 0; q < 6; q++)
		{
			double		e = rel[q] - ex[q];

			ss += e * e;
			draws++;
		}
	}
	/* normal approximation of the chi-square: (ss/s^2 - n) / sqrt(2 n) */
	z = (ss / ((double) c.s * c.s) - draws) / sqrt(2.0 * draws);
	zc = (ss / (0.25 * (double) c.s * c.s) - draws) / sqrt(2.0 * draws);
	check(fabs(z) < UNIT_Z, "step noise: %ld draws, variance %.4g against s^2 = %.4g (z = %.2f)",
		  draws, ss / draws, (double) c.s * c.s, z);
	check(fabs(zc) >= UNIT_Z, "negative control: against (s/2)^2 the test rejects (z = %.1f)", zc);
}

/*
 * Audit of one step: neighbours D (a row at 0.05) and D' (that row at
 * 0.95, which moves it between the two clusters): the shift v of the
 * exact release; the loss of an output y = exact(D) + N is
 * L = (|v|^2 + 2 <N, v>) / (2 s^2) for the discrete Gaussian, and
 * E[(1 - e^(eps - L))_+] estimates the hockey-stick divergence at eps.
 * Calibrated for (0.5, 0.05) in one step: the estimate must stay within
 * 0.05 + 5.33 standard errors; with half the noise (the control) it must
 * exceed it.
 */
static void
test_audit(void)
{
	JlDpKmeansSpec sp = box_spec(2, 1, 1, 0.5, 0.05);
	JlDpKmeansCalibration c,
				half;
	double		rows[100],
				rows2[100],
				cent[2],
				counts[2],
				rel[4],
				ex[4],
				ex2[4],
				work[8];
	double		v[4],
				vv = 0.0;
	double		m[2] = {0.0, 0.0},
				m2[2] = {0.0, 0.0};
	const int	N = 200000;

	jl_dp_kmeans_calibrate(&sp, &c);
	half = c;
	half.s = c.s / 2;
	for (int p = 0; p < 100; p++)
		rows[p] = rows2[p] = p < 50 ? 0.2 : 0.8;
	rows[0] = 0.05;
	rows2[0] = 0.95;
	cent[0] = 0.2;
	cent[1] = 0.8;
	jl_dp_kmeans_step(&sp, &c, rows, 100, &rng, cent, counts, rel, ex, work);
	cent[0] = 0.2;
	cent[1] = 0.8;
	jl_dp_kmeans_step(&sp, &c, rows2, 100, &rng, cent, counts, rel, ex2, work);
	for (int q = 0; q < 4; q++)
	{
		v[q] = ex2[q] - ex[q];
		vv += v[q] * v[q];
	}
	for (int which = 0; which < 2; which++)
	{
		const JlDpKmeansCalibration *cc = which ? &half : &c;

		for (int t = 0; t < N; t++)
		{
			double		dot = 0.0,
						L,
						h;

			cent[0] = 0.2;
			cent[1] = 0.8;
			jl_dp_kmeans_step(&sp, cc, rows, 100, &rng, cent, counts, rel, ex, work);
			for (int q = 0; q < 4; q++)
				dot += (rel[q] - ex[q]) * v[q];
			L = (vv + 2.0 * dot) / (2.0 * (double) cc->s * cc->s);
			h = L > sp.epsilon ? -expm1(sp.epsilon - L) : 0.0;
			m[which] += h;
			m2[which] += h * h;
		}
	}
	{
		double		e = m[0] / N,
					se = sqrt((m2[0] / N - e * e) / N),
					ec = m[1] / N,
					sec = sqrt((m2[1] / N - ec * ec) / N);

		check(vv >= (c.Dg * 0.5) * (c.Dg * 0.5),
			  "the neighbours move a row between clusters: |v| = %.0f grid steps of Dg %.0f", sqrt(vv), c.Dg);
		check(e <= sp.delta + UNIT_Z * se,
			  "audit of one step at epsilon 0.5: delta estimated %.5f +- %.5f <= 0.05", e, se);
		check(ec > sp.delta + UNIT_Z * sec,
			  "negative control: half the noise gives %.5f +- %.5f > 0.05: flagged", ec, sec);
	}
}

/* four separated blobs: the private centroids land near the true ones */
static void
test_clusters(void)
{
	JlDpKmeansSpec sp = box_spec(4, 2, 5, 1.0, 1e-6);
	JlDpKmeansCalibration c;
	static const double mid[4][2] = {{0.2, 0.2}, {0.2, 0.8}, {0.8, 0.2}, {0.8, 0.8}};
	int64_t		n = 40000;
	double	   *rows = malloc(sizeof(double) * n * 2),
				cent[8],
				counts[4],
				work[32];
	double		worst = 0.0;
	uint64_t	x = 12345;

	jl_dp_kmeans_calibrate(&sp, &c);
	for (int64_t p = 0; p < n; p++)
		for (int i = 0; i < 2; i++)
		{
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			rows[2 * p + i] = mid[p % 4][i] + 0.1 * (((x >> 11) * 0x1p-53) - 0.5);
		}
	/* k-means from random starts can merge two blobs: the best of 3 runs */
	for (int run = 0; run < 3; run++)
	{
		double		w = 0.0;

		jl_dp_kmeans_run(&sp, &c, rows, n, &rng, cent, counts, work);
		for (int b = 0; b < 4; b++)
		{
			double		best = INFINITY;

			for (int j = 0; j < 4; j++)
				best = fmin(best, hypot(cent[2 * j] - mid[b][0], cent[2 * j + 1] - mid[b][1]));
			w = fmax(w, best);
		}
		if (run == 0 || w < worst)
			worst = w;
	}
	check(worst < 0.05, "4 blobs of 10,000 rows at (1, 1e-6), 5 iterations: every true centre within "
		  "%.4f of a private centroid (noise sd of a sum %.3g, of a count %.3g)", worst, c.sum_sd, c.count_sd);
	free(rows);
}

int
main(void)
{
	jl_random_init(&rng, unit_getrandom_fill, NULL);
	test_refusals();
	test_calibration();
	test_charge_is_the_iterations();
	test_noise();
	test_audit();
	test_clusters();
	return unit_done("test_dp_kmeans");
}
