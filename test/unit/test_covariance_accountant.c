/*
 * test_covariance_accountant.c - the covariance release's accountant: the
 * chi-square tail, delta(eps) of neighbouring pairs against a Monte Carlo
 * of the privacy loss computed from the two Gaussian densities directly
 * (not from the chi-square decomposition), the worst case over the
 * admissible set, the smallest lift (a lift 10% below it is shown to
 * violate delta, by the accountant and by Monte Carlo), the paper-style
 * lift beside it, the sigma_min plan and the N(0,1) sampler's moments.
 *
 * Statistical checks reject at UNIT_ALPHA = 1e-7 (false-failure rate below
 * 1e-6 per check, see unit.h).
 */
#include "unit.h"

#include "math/covariance/covariance_accountant.h"
#include "math/covariance/covariance_normal.h"
#include "math/covariance/covariance.h"
#include "math/graph/graph_accountant.h"
#include "math/base/interrupt.h"

static JlRandom rng;

/* ---- the chi-square tail against unit.h's independent implementation */
static void
test_chi2(void)
{
	static const double cases[][2] = {
		{1, 0.5}, {1, 30}, {2, 3}, {10, 2}, {10, 40}, {200, 150}, {200, 260},
		{200, 400}, {5000, 5200}, {100000, 101000},
	};
	int			i;
	double		worst = 0.0;

	for (i = 0; i < (int) (sizeof(cases) / sizeof(cases[0])); i++)
	{
		double		mine = exp(jl_chi2_logsf(cases[i][0], cases[i][1])),
					ref = unit_chi2_sf(cases[i][1], cases[i][0]);

		worst = fmax(worst, unit_rel(mine, ref));
	}
	check(worst < 1e-10, "chi-square tail agrees with unit.h's to %.2g relative", worst);
	check(jl_chi2_logsf(200, 0.0) == 0.0, "chi-square tail at 0 is 1");
	check(jl_chi2_logsf(10, 4000.0) < -1900.0 && isfinite(jl_chi2_logsf(10, 4000.0)),
		  "chi-square tail far out stays finite in logs: %g", jl_chi2_logsf(10, 4000.0));
}

/*
 * log density of N(0, S) at z (2-D), S = I + v v^T, from the 2x2 matrix
 * itself (determinant and inverse), not from the rank-one formulas
 */
static double
logdens(const double v[2], const double z[2])
{
	double		s00 = 1.0 + v[0] * v[0],
				s01 = v[0] * v[1],
				s11 = 1.0 + v[1] * v[1],
				det = s00 * s11 - s01 * s01,
				q = (s11 * z[0] * z[0] - 2.0 * s01 * z[0] * z[1] + s00 * z[1] * z[1]) / det;

	return -0.5 * log(det) - 0.5 * q - log(2.0 * M_PI);
}

/*
 * Monte Carlo of delta(eps) = E_P[(1 - e^(eps - L))_+]: r rows drawn from
 * P = N(0, I + u u^T), L the sum of log p/q; mean and its standard error.
 */
static void
mc_delta(int r, const double u[2], const double u2[2], double eps, long n,
		 double *mean, double *se)
{
	double		s = 0.0,
				s2 = 0.0;
	long		i;
	int			j;

	for (i = 0; i < n; i++)
	{
		double		L = 0.0,
					v;

		for (j = 0; j < r; j++)
		{
			double		h = unit_normal(&rng),
						z[2];

			/* N(0, I + u u^T) = N(0, I) + u N(0, 1) */
			z[0] = unit_normal(&rng) + u[0] * h;
			z[1] = unit_normal(&rng) + u[1] * h;
			L += logdens(u, z) - logdens(u2, z);
		}
		v = L > eps ? -expm1(eps - L) : 0.0;
		s += v;
		s2 += v * v;
	}
	*mean = s / n;
	*se = sqrt(fmax(0.0, s2 / n - *mean * *mean) / n);
}

static void
pair(double a, double b, double c, double u[2], double u2[2])
{
	u[0] = a;
	u[1] = 0.0;
	u2[0] = b * c;
	u2[1] = b * sqrt(fmax(0.0, 1.0 - c * c));
}

/* ---- delta of a pair: quadrature against Monte Carlo, several shapes */
static void
test_pair_vs_mc(void)
{
	static const double cases[][5] = {
		/* r, a, b, cos, eps */
		{10, 0.4, 0.4, 0.0, 0.5},	/* orthogonal, equal norms: the worst case */
		{10, 0.4, 0.0, 0.0, 0.3},	/* add a row */
		{10, 0.0, 0.4, 0.0, 0.3},	/* remove a row (the closed-form branch) */
		{10, 0.4, 0.25, 0.6, 0.2},	/* general */
		{3, 0.8, 0.8, 0.3, 1.0},
		{50, 0.2, 0.2, 0.0, 0.4},
	};
	int			i;

	for (i = 0; i < (int) (sizeof(cases) / sizeof(cases[0])); i++)
	{
		int			r = (int) cases[i][0];
		double		u[2],
					u2[2],
					err,
					num,
					mc,
					se;

		pair(cases[i][1], cases[i][2], cases[i][3], u, u2);
		num = jl_cov_pair_delta(r, cases[i][1], cases[i][2], cases[i][3], cases[i][4], &err);
		mc_delta(r, u, u2, cases[i][4], 200000, &mc, &se);
		check(fabs(num - mc) <= UNIT_Z * se + err + 1e-12,
			  "pair r %d |u| %g |u'| %g cos %g eps %g: delta %.6g (quadrature error %.2g), Monte Carlo %.6g +- %.2g",
			  r, cases[i][1], cases[i][2], cases[i][3], cases[i][4], num, err, mc, se);
	}
}

/*
 * Negative control of the comparison itself: whitening by the neighbour's
 * full covariance instead of the shared part (|p| = rho / sqrt(1 + rho^2)
 * for |u| = rho) gives a smaller delta that the Monte Carlo must reject.
 */
static void
test_pair_negative_control(void)
{
	double		rho = 0.4,
				wrong = rho / sqrt(1.0 + rho * rho),
				u[2],
				u2[2],
				num,
				mc,
				se;

	pair(rho, rho, 0.0, u, u2);
	num = jl_cov_pair_delta(10, wrong, wrong, 0.0, 0.5, NULL);
	mc_delta(10, u, u2, 0.5, 200000, &mc, &se);
	check(fabs(num - mc) > UNIT_Z * se,
		  "negative control: mis-whitened delta %.6g is rejected by Monte Carlo %.6g +- %.2g",
		  num, mc, se);
}

/*
 * The worst case over the admissible set (|u|, |u'| <= rho, any angle; both
 * directions, as the grid holds (a, b) and (b, a)) is the orthogonal pair
 * of norm rho: no point of a grid exceeds it.
 */
static void
test_worst_case(void)
{
	static const double rhos[] = {0.05, 0.3, 1.0};
	static const int rs[] = {1, 20, 200};
	int			ir,
				irho;

	for (ir = 0; ir < 3; ir++)
		for (irho = 0; irho < 3; irho++)
		{
			int			r = rs[ir];
			double		rho = rhos[irho],
						eps = 0.5,
						worst = jl_cov_pair_delta(r, rho, rho, 0.0, eps, NULL),
						bound = jl_cov_delta(r, rho, eps),
						maxgrid = 0.0,
						arg[3] = {0, 0, 0};
			int			i,
						j,
						k;

			for (i = 0; i <= 8; i++)
				for (j = 0; j <= 8; j++)
					for (k = 0; k <= 8; k++)
					{
						double		a = rho * i / 8.0,
									b = rho * j / 8.0,
									c = k / 8.0,
									d = jl_cov_pair_delta(r, a, b, c, eps, NULL);

						if (d > maxgrid)
						{
							maxgrid = d;
							arg[0] = a;
							arg[1] = b;
							arg[2] = c;
						}
					}
			check(maxgrid <= worst * (1.0 + 1e-9) + 1e-300 && worst <= bound,
				  "r %d rho %g: grid maximum %.6g at (%g, %g, cos %g) <= orthogonal pair %.6g <= bound %.6g",
				  r, rho, maxgrid, arg[0], arg[1], arg[2], worst, bound);
		}
}

/* ---- the smallest lift, and a lift below it violating delta */
static void
test_lift(void)
{
	static const double cases[][3] = {
		{200, 1.0, 1e-6}, {200, 0.1, 1e-6}, {1000, 1.0, 1e-6}, {50, 1.0, 1e-5},
		{200, 1.0, 1e-10}, {1, 1.0, 1e-6}, {20000, 0.5, 1e-8},
	};
	int			i;

	for (i = 0; i < (int) (sizeof(cases) / sizeof(cases[0])); i++)
	{
		int			r = (int) cases[i][0];
		double		eps = cases[i][1],
					delta = cases[i][2],
					t0 = unit_seconds(),
					w = jl_cov_lift(r, eps, delta, 1.0),
					secs = unit_seconds() - t0,
					at = jl_cov_delta(r, 1.0 / w, eps),
					below = jl_cov_delta(r, 1.0 / (w * (1.0 - 1e-7)), eps),
					plain90 = jl_cov_pair_delta(r, 1.0 / (0.9 * w), 1.0 / (0.9 * w), 0.0, eps, NULL);

		check(at <= delta && below > delta && plain90 > delta,
			  "r %d eps %g delta %g: w %.6g (paper-style %.6g, %.1fx) in %.2f s; delta(w) %.4g, delta(0.9 w) %.4g > delta",
			  r, eps, delta, w, jl_cov_lift_paper(r, eps, delta, 1.0),
			  jl_cov_lift_paper(r, eps, delta, 1.0) / w, secs, at, plain90);
	}
	check(isnan(jl_cov_lift(0, 1.0, 1e-6, 1.0)) && isnan(jl_cov_lift(10, 0.0, 1e-6, 1.0)) &&
		  isnan(jl_cov_lift(10, 1.0, 0.0, 1.0)) && isnan(jl_cov_lift(10, 1.0, 1.0, 1.0)) &&
		  isnan(jl_cov_lift(10, 1.0, 1e-6, 0.0)) && isnan(jl_cov_lift(JL_COV_MAX_R + 1, 1.0, 1e-6, 1.0)),
		  "lift refuses r, eps, delta and C out of range");
	/* the lift scales with C */
	check(unit_rel(jl_cov_lift(100, 1.0, 1e-6, 3.0), 3.0 * jl_cov_lift(100, 1.0, 1e-6, 1.0)) < 1e-8,
		  "lift is proportional to C");
}

/*
 * Negative control by Monte Carlo: for r 10, eps 0.5, delta 0.01, a lift
 * 20% below the computed one gives a release whose worst pair has a delta
 * the Monte Carlo shows above 0.01; the computed lift's is not.
 */
static void
test_lift_mc(void)
{
	int			r = 10;
	double		eps = 0.5,
				delta = 0.01,
				w = jl_cov_lift(r, eps, delta, 1.0),
				u[2],
				u2[2],
				mc,
				se;

	pair(1.0 / w, 1.0 / w, 0.0, u, u2);
	mc_delta(r, u, u2, eps, 200000, &mc, &se);
	check(mc - UNIT_Z * se <= delta,
		  "r %d eps %g: at w %.5g the Monte Carlo delta %.5g +- %.2g is within %g", r, eps, w, mc, se, delta);
	pair(1.0 / (0.8 * w), 1.0 / (0.8 * w), 0.0, u, u2);
	mc_delta(r, u, u2, eps, 200000, &mc, &se);
	check(mc - UNIT_Z * se > delta,
		  "negative control: at 0.8 w the Monte Carlo delta %.5g +- %.2g exceeds %g", mc, se, delta);
}

/* ---- the sigma_min plan of lift 'auto' */
static void
test_sigma_plan(void)
{
	JlCovSigmaPlan p;
	double		tail;
	int			rc = jl_cov_sigma_plan(1.0, 1e6, 100, 0.1, 5e-7, &p);

	check(rc == 0 && p.eps <= 0.1 &&
		  p.eps > 0.0999 && p.sensitivity > 1.0 && p.sensitivity < 1.05,
		  "sigma plan: grid %.3g, scale %llu steps, margin %lld steps (%.4g), eps %.6g, sensitivity %.6g",
		  p.g, (unsigned long long) p.t, (long long) p.m, p.m * p.g, p.eps, p.sensitivity);
	/* Pr[Z >= m] = e^(-m/t) / (1 + e^(-1/t)) */
	tail = exp(-(double) p.m / p.t) / (1.0 + exp(-1.0 / p.t));
	check(tail <= 5e-7, "sigma plan: Pr[noise >= margin] = %.3g <= beta", tail);
	check(jl_cov_sigma_plan(1.0, 10, 3, 0.0, 0.1, &p) != 0 &&
		  jl_cov_sigma_plan(1.0, 10, 3, 1.0, 0.0, &p) != 0 &&
		  jl_cov_sigma_plan(1.0, 10, 3, 1e-12, 0.1, &p) != 0,
		  "sigma plan refuses eps1 0, beta 0 and a scale beyond the sampler");
	check(jl_cov_partial_lift(10.0, 1.0, 20.0) == 0.0 &&
		  unit_rel(jl_cov_partial_lift(10.0, 1.0, 5.0), sqrt(76.0)) < 1e-15 &&
		  unit_rel(jl_cov_partial_lift(10.0, 1.0, -3.0), sqrt(101.0)) < 1e-15,
		  "partial lift: none when the bound clears w, sqrt(w^2 + C^2 - lcb^2) otherwise");
}

/*
 * ---- the N(0,1) sampler: mean, variance and fourth moment of 4e6 draws
 * within UNIT_Z standard errors; a sampler scaled by 1.01 must be rejected
 */
static void
test_normals(void)
{
	size_t		n = 4000000,
				i;
	double	   *v = malloc(sizeof(double) * n),
				m1 = 0,
				m2 = 0,
				m4 = 0,
				bad2 = 0;

	jl_cov_normals(&rng, v, n);
	for (i = 0; i < n; i++)
	{
		double		x2 = v[i] * v[i];

		m1 += v[i];
		m2 += x2;
		m4 += x2 * x2;
		bad2 += 1.0201 * x2;
	}
	m1 /= n;
	m2 /= n;
	m4 /= n;
	bad2 /= n;
	/* Var(x) = 1, Var(x^2) = 2, Var(x^4) = 96 */
	check(fabs(m1) <= UNIT_Z * sqrt(1.0 / n) && fabs(m2 - 1.0) <= UNIT_Z * sqrt(2.0 / n) &&
		  fabs(m4 - 3.0) <= UNIT_Z * sqrt(96.0 / n),
		  "normals: mean %.5f, variance %.5f, fourth moment %.4f", m1, m2, m4);
	check(fabs(bad2 - 1.0) > UNIT_Z * sqrt(2.0 / n),
		  "negative control: sampler scaled by 1.01 has variance %.5f, rejected", bad2);
	/* an odd count fills the last entry too */
	v[2] = NAN;
	jl_cov_normals(&rng, v, 3);
	check(isfinite(v[2]), "normals: an odd count fills every entry");
	free(v);
}

/*
 * The 'gram' method: rows of Z F with F^T F = G + l2 I must have covariance
 * G + l2 I, positive definite (Cholesky) and singular (l2 = 0, rank one:
 * the eigen square root).  Every entry of R^T R / r within UNIT_Z standard
 * errors sqrt((S_jj S_kk + S_jk^2) / r); negative control: the same check
 * against G without the lift must fail.
 */
static int
gram_matches(const double *R, int r, const double *S, double *worst)
{
	int			j,
				k,
				i;

	*worst = 0.0;
	for (j = 0; j < 3; j++)
		for (k = 0; k < 3; k++)
		{
			double		m = 0.0,
						se = sqrt((S[j * 3 + j] * S[k * 3 + k] + S[j * 3 + k] * S[j * 3 + k]) / r),
						z;

			for (i = 0; i < r; i++)
				m += R[(size_t) i * 3 + j] * R[(size_t) i * 3 + k];
			m /= r;
			z = se > 0.0 ? fabs(m - S[j * 3 + k]) / se : (m == S[j * 3 + k] ? 0.0 : INFINITY);
			*worst = fmax(*worst, z);
		}
	return *worst <= UNIT_Z;
}

static void
test_from_gram(void)
{
	int			r = 200000;
	double		A[4][3] = {{0.5, 0.1, 0.0}, {0.2, -0.4, 0.3}, {0.0, 0.3, 0.6}, {0.7, 0.0, -0.2}},
				G[9] = {0},
				S[9],
				G1[9] = {0},
			   *Z = malloc(sizeof(double) * r * 3),
			   *R = malloc(sizeof(double) * r * 3),
				worst;
	int			i,
				j,
				k,
				ok;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 3; j++)
			for (k = j; k < 3; k++)
				G[j * 3 + k] += A[i][j] * A[i][k];
	for (j = 0; j < 3; j++)
		for (k = 0; k < 3; k++)
			S[j * 3 + k] = (k >= j ? G[j * 3 + k] : G[k * 3 + j]) + (j == k ? 4.0 : 0.0);
	jl_cov_normals(&rng, Z, (size_t) r * 3);
	ok = jl_cov_from_gram(G, 3, 4.0, Z, r, R) == 0 && gram_matches(R, r, S, &worst);
	check(ok, "gram (Cholesky): R^T R / r matches A^T A + l^2 I, largest |z| %.2f", worst);
	for (j = 0; j < 3; j++)
		S[j * 3 + j] -= 4.0;
	ok = !gram_matches(R, r, S, &worst);
	check(ok, "negative control: the same R against A^T A without the lift, largest |z| %.1f", worst);
	/* rank one, no lift: dpotrf fails, the eigen square root takes over */
	for (j = 0; j < 3; j++)
		for (k = j; k < 3; k++)
			G1[j * 3 + k] = A[0][j] * A[0][k];
	for (j = 0; j < 3; j++)
		for (k = 0; k < 3; k++)
			S[j * 3 + k] = A[0][j] * A[0][k];
	jl_cov_normals(&rng, Z, (size_t) r * 3);
	ok = jl_cov_from_gram(G1, 3, 0.0, Z, r, R) == 0 && gram_matches(R, r, S, &worst);
	check(ok, "gram (singular, eigen square root): R^T R / r matches a a^T, largest |z| %.2f", worst);
	free(Z);
	free(R);
}

/*
 * Clipping a batch (rows side by side) gives the bits of clipping row by
 * row; the finiteness check agrees with isfinite.  Not statistical.
 */
static void
test_clip_rows(void)
{
	uint64_t	seed = 20261127;
	int			t,
				same = 0,
				scaled = 0,
				cases = 0,
				fin = 0,
				fcases = 0;

	for (t = 0; t < 400; t++)
	{
		int			n = t % 37,
					d = 1 + (t * 13) % 120,
					i,
					j;
		double		C = (t % 3 == 0) ? 1.0 : 0.25 + (t % 7),
				   *X = malloc(sizeof(double) * ((size_t) n * d + 1)),
				   *Y = malloc(sizeof(double) * ((size_t) n * d + 1));

		for (i = 0; i < n; i++)
		{
			double		s = (i % 4 == 0) ? 1e-3 : (i % 4 == 1) ? 0.3 : (i % 4 == 2) ? 3.0 : 1e150;

			for (j = 0; j < d; j++)
				X[(size_t) i * d + j] = s * unit_det_normal(&seed);
		}
		memcpy(Y, X, sizeof(double) * (size_t) n * d);
		jl_cov_clip_rows(X, n, d, C);
		for (i = 0; i < n; i++)
			scaled += jl_cov_clip(Y + (size_t) i * d, d, C);
		cases++;
		same += memcmp(X, Y, sizeof(double) * (size_t) n * d) == 0;
		free(X);
		free(Y);
	}
	check(same == cases && scaled > 1000,
		  "jl_cov_clip_rows = jl_cov_clip row by row, bit for bit, in %d of %d batches (0 to 36 rows, d 1 to 120, %d rows scaled)",
		  same, cases, scaled);
	for (t = 1; t <= 41; t++)
	{
		double		v[41],
					w[41];
		static const double bad[3] = {NAN, INFINITY, -INFINITY};
		int			p,
					b;

		for (p = 0; p < t; p++)
			v[p] = (p % 3 == 0) ? DBL_MAX : (p % 3 == 1) ? -4.9e-324 : unit_det_normal(&seed);
		fcases++;
		fin += jl_cov_copy_finite(w, v, t) == 1 && memcmp(w, v, sizeof(double) * t) == 0;
		for (p = 0; p < t; p++)
			for (b = 0; b < 3; b++)
			{
				double		keep = v[p];

				v[p] = bad[b];
				fcases++;
				fin += jl_cov_copy_finite(w, v, t) == 0;
				v[p] = keep;
			}
	}
	check(fin == fcases, "jl_cov_copy_finite copies and agrees with isfinite on %d of %d arrays (NaN, +-Infinity at every position of 1 to 41)", fin, fcases);
}

static long interrupt_calls;

static void
count_interrupt(void)
{
	interrupt_calls++;
}

/*
 * Arguments outside the accountants' range are refused at once (0.3.3 ran
 * for minutes at epsilon 1e308: the continued fraction at x = inf on every
 * call), and their loops call the interrupt hook.  The times are printed,
 * not asserted (test/integration/cancel_latency.sh measures cancels in the server).
 */
static void
test_ranges(void)
{
	double		t0 = unit_seconds(),
				w;
	int			ok;

	ok = isnan(jl_cov_lift(8, 1e308, 1e-6, 1.0)) && isnan(jl_cov_lift(2, 1e200, 1e-6, 1.0)) &&
		isnan(jl_graph_rho(8, 1e308, 1e-3)) && isnan(jl_cov_lift(8, 700.5, 1e-6, 1.0)) &&
		jl_chi2_logsf(4.0, INFINITY) == -INFINITY;
	check(ok,
		  "epsilon above %g: NaN at once (%.3f s), log sf at infinity is -inf",
		  JL_COV_MAX_EPSILON, unit_seconds() - t0);
	jl_interrupt_hook = count_interrupt;
	interrupt_calls = 0;
	t0 = unit_seconds();
	w = jl_cov_lift(JL_COV_MAX_R, JL_COV_MAX_EPSILON, 1e-12, 1.0);
	check(isfinite(w) && interrupt_calls > 10,
		  "the largest r at epsilon %g: lift %.4g in %.2f s, %ld interrupt checks",
		  JL_COV_MAX_EPSILON, w, unit_seconds() - t0, interrupt_calls);
	interrupt_calls = 0;
	t0 = unit_seconds();
	w = jl_graph_rho(JL_COV_MAX_R, 1e-12, 1e-300);
	check(isfinite(w) && interrupt_calls > 10,
		  "the largest r at epsilon 1e-12, delta 1e-300: rho %.4g in %.2f s, %ld interrupt checks",
		  w, unit_seconds() - t0, interrupt_calls);
	jl_interrupt_hook = NULL;
}

int
main(void)
{
	jl_random_init(&rng, unit_getrandom_fill, NULL);
	test_chi2();
	test_pair_vs_mc();
	test_pair_negative_control();
	test_worst_case();
	test_lift();
	test_lift_mc();
	test_sigma_plan();
	test_normals();
	test_from_gram();
	test_clip_rows();
	test_ranges();
	return unit_done("test_covariance_accountant");
}
