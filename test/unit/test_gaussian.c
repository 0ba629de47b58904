/*
 * test_gaussian.c - Gaussian noise: analytic sigma against reference
 * values, the classic and paper calibrations, the zCDP-to-(epsilon, delta)
 * conversion, the discrete Gaussian samplers' distributions (the plain
 * rejection sampler, the direct alias-table sampler with its tail, the
 * rejection sampler with tables; with negative controls that must be
 * rejected), and the delta that a calibrated release
 * actually satisfies (recomputed independently; never above the request),
 * and extreme epsilon, delta and bound (sound figures or a documented error).
 *
 * Statistical checks reject at UNIT_ALPHA = 1e-7 (false-failure rate below
 * 1e-6 per check, see unit.h).
 */
#include "unit.h"
#include "gaussian_exact.h"

#include "math/noise/gaussian.h"
#include "math/noise/laplace.h"
#include "math/projection/mechanism.h"
#include "math/projection/calibrate.h"

/* ---- analytic sigma: DESIGN.md's reference values, to 1e-6 relative */
static void
test_analytic_reference(void)
{
	static const double ref[][3] = {
		{1.0, 1e-5, 3.7306316},
		{0.1, 1e-5, 30.7495661},
		{1.0, 1e-6, 4.2246789},
		{10.0, 1e-6, 0.5410868},
	};
	int			i;

	for (i = 0; i < 4; i++)
	{
		double		eps = ref[i][0],
					delta = ref[i][1],
					s = jl_analytic_sigma(eps, delta, 1.0),
					s3 = jl_analytic_sigma(eps, delta, 3.0);

		/* the references carry 8 significant digits: 1e-6 is generous */
		check(unit_rel(s, ref[i][2]) <= 1e-6,
			  "analytic sigma (eps %g, delta %g) = %.9f, reference %.7f", eps, delta, s, ref[i][2]);
		check(jl_analytic_delta(s, eps, 1.0) <= delta,
			  "analytic sigma (eps %g, delta %g): its delta %.6g <= delta (upper end)",
			  eps, delta, jl_analytic_delta(s, eps, 1.0));
		check(jl_analytic_delta(s * (1.0 - 1e-9), eps, 1.0) > delta,
			  "analytic sigma (eps %g, delta %g) is the smallest: sigma (1 - 1e-9) has delta > delta",
			  eps, delta);
		check(unit_rel(s3, 3.0 * s) <= 1e-12,
			  "analytic sigma scales with the sensitivity (D = 3: %.9f)", s3);
	}
	/* the Dwork-Roth formula is not what 'classic' uses; it fails at eps 10 */
	{
		double		dr = sqrt(2.0 * log(1.25 / 1e-6)) / 10.0;

		check(fabs(dr - 0.5299) < 1e-4 && jl_analytic_delta(dr, 10.0, 1.0) > 1e-6,
			  "sqrt(2 ln(1.25/delta))/eps = %.4f at eps 10 gives delta %.3g > 1e-6 (not used)",
			  dr, jl_analytic_delta(dr, 10.0, 1.0));
	}
}

/*
 * Kenthapadi's Theorem 1 (with its + epsilon inside the root) holds for
 * every epsilon when delta < 1/2: its sigma is never below the analytic one.
 */
static void
test_classic_valid(void)
{
	static const double eps[] = {0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 20, 50, 100};
	static const double del[] = {1e-15, 1e-10, 1e-6, 1e-3, 0.01, 0.1, 0.3, 0.49};
	int			i,
				j,
				bad = 0;
	double		worst = INFINITY;

	for (i = 0; i < 11; i++)
		for (j = 0; j < 8; j++)
		{
			double		c = jl_classic_sigma(eps[i], del[j], 1.0);
			double		a = jl_analytic_sigma(eps[i], del[j], 1.0);

			if (!(c >= a) || jl_analytic_delta(c, eps[i], 1.0) > del[j])
				bad++;
			worst = fmin(worst, c / a);
		}
	check(bad == 0, "classic sigma >= analytic sigma for eps 0.001..100, delta 1e-15..0.49 "
		  "(smallest ratio %.4f)", worst);
	check(isnan(jl_classic_sigma(1.0, 0.5, 1.0)), "classic sigma refuses delta >= 1/2");
	check(unit_rel(jl_classic_sigma(10.0, 1e-6, 1.0), 0.68003475) < 1e-7,
		  "classic sigma at eps 10, delta 1e-6 = %.8f", jl_classic_sigma(10.0, 1e-6, 1.0));
	check(unit_rel(jl_paper_sigma(1.0, 1e-5, 1.0), 4.0 * sqrt(log(1e5))) < 1e-15 &&
		  jl_paper_k_ok(1000, 50, 1e-5) && !jl_paper_k_ok(1000, 36, 1e-5) &&
		  jl_paper_epsilon_ok(11.0, 1e-5) && !jl_paper_epsilon_ok(11.6, 1e-5),
		  "paper sigma and Lemma 2's conditions (k > 2 (ln d + ln(2/delta)) = %.2f, eps < %.2f)",
		  2.0 * (log(1000.0) + log(2e5)), log(1e5));
}

/* ---- the zCDP conversion */

/* CKS Corollary 13 at alpha, in long double, independently of gaussian.c */
static long double
cks_delta_at(long double alpha, long double rho, long double eps)
{
	return expl((alpha - 1.0L) * (alpha * rho - eps)) / (alpha - 1.0L) *
		powl(1.0L - 1.0L / alpha, alpha);
}

/* min over a dense grid of alpha (then refined): an independent optimum */
static long double
cks_delta_min(long double rho, long double eps)
{
	long double best = 1.0L,
				best_u = 0.0L,
				u;

	for (u = -25.0L; u <= 25.0L; u += 0.0025L)
	{
		long double v = cks_delta_at(1.0L + expl(u), rho, eps);

		if (v < best)
		{
			best = v;
			best_u = u;
		}
	}
	for (u = best_u - 0.0025L; u <= best_u + 0.0025L; u += 0.000005L)
	{
		long double v = cks_delta_at(1.0L + expl(u), rho, eps);

		if (v < best)
			best = v;
	}
	return best;
}

static void
test_zcdp(void)
{
	static const double eps[] = {0.1, 1.0, 3.0, 10.0};
	static const double sig[] = {0.5, 1.0, 4.0, 40.0};
	int			i,
				j,
				bad_cont = 0,
				bad_ind = 0;
	double		worst = 0.0;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
		{
			double		rho = 1.0 / (2.0 * sig[j] * sig[j]);
			double		dz = jl_zcdp_delta(rho, eps[i]);
			double		dc = jl_analytic_delta(sig[j], eps[i], 1.0);
			long double di = cks_delta_min(rho, eps[i]);

			/* a bound for every Gaussian-like mechanism: never below the exact */
			if (dz < dc * (1.0 - 1e-9))
				bad_cont++;
			/* as good as an independent minimisation, up to its grid */
			if (di < 1.0L && (double) (dz / di) > 1.0 + 1e-6)
				bad_ind++;
			if (di < 1.0L && dz > 0.0)
				worst = fmax(worst, fabs((double) (dz / di) - 1.0));
		}
	check(bad_cont == 0, "zCDP delta >= the exact continuous Gaussian delta (16 cases)");
	check(bad_ind == 0, "zCDP delta within 1e-6 of an independent minimisation over alpha (worst %.2g)", worst);
	{
		double		rho = 0.03,
					e = jl_zcdp_epsilon(rho, 1e-5);

		check(jl_zcdp_delta(rho, e) <= 1e-5 && jl_zcdp_delta(rho, e * (1.0 - 1e-9)) > 1e-5,
			  "zCDP epsilon at rho 0.03, delta 1e-5 = %.6f (smallest with delta <= 1e-5)", e);
	}
}

/* ---- the sampler */

typedef int64_t (*GaussFn) (JlRandom *r, uint64_t s, const uint32_t *table);

static int64_t
sampler(JlRandom *r, uint64_t s, const uint32_t *table)
{
	return jl_discrete_gaussian(r, s, table);
}

static int64_t
table_sampler(JlRandom *r, uint64_t s, const uint32_t *table)
{
	return jl_discrete_gaussian_table(r, s, table);
}

/* negative control: the right sampler at the wrong sigma, s + 1 */
static int64_t
wrong_sigma(JlRandom *r, uint64_t s, const uint32_t *table)
{
	return jl_discrete_gaussian(r, s + 1, NULL);
}

/* negative control: a continuous Gaussian (Box-Muller in double) rounded */
static int64_t
naive_rounded(JlRandom *r, uint64_t s, const uint32_t *table)
{
	return (int64_t) llround((double) s * unit_normal(r));
}

#define MAXC 2048

/*
 * Pearson fit of N draws to N_Z(0, s^2): cells are runs of integers with
 * expected count >= max(100, N/120), the tails pooled.  Also the variance
 * (mean of y^2) against s^2.  Returns the p-value.
 */
static double
fit(GaussFn fn, uint64_t s, const uint32_t *table, uint64_t N, double *zvar,
	int *ncells)
{
	int64_t		L = (int64_t) (12.0 * s) + 2,
				y;
	long double norm = 0.0L,
				target = fmaxl(100.0L, (long double) N / 120.0L),
				acc = 0.0L,
				sumsq = 0.0L;
	int64_t    *cell_of = malloc(sizeof(int64_t) * (2 * L + 1));
	double		prob[MAXC];
	uint64_t	obs[MAXC];
	int			n = 0,
				i,
				df;
	double		x2,
				emin,
				p;
	JlRandom	r;

	for (y = -L; y <= L; y++)
		norm += expl(-(long double) y * y / (2.0L * s * s));
	/* runs from -L: y beyond +-L have probability < e^-72, pooled with the ends */
	for (y = -L; y <= L; y++)
	{
		acc += expl(-(long double) y * y / (2.0L * s * s)) / norm;
		cell_of[y + L] = n;
		if (N * acc >= target && n < MAXC - 1)
		{
			prob[n++] = (double) acc;
			acc = 0.0L;
		}
	}
	if (acc > 0.0L)
	{
		/* the last, too small run joins the previous cell */
		for (y = -L; y <= L; y++)
			if (cell_of[y + L] == n)
				cell_of[y + L] = n - 1;
		prob[n - 1] += (double) acc;
	}
	memset(obs, 0, sizeof(obs));
	jl_random_init(&r, unit_getrandom_fill, NULL);
	for (i = 0; i < (int64_t) N; i++)
	{
		int64_t		z = fn(&r, s, table);

		sumsq += (long double) z * z;
		if (z < -L)
			z = -L;
		if (z > L)
			z = L;
		obs[cell_of[z + L]]++;
	}
	free(cell_of);
	p = unit_pearson(obs, prob, n, &x2, &df, &emin);
	/* Var y^2 = 2 s^4 for a Gaussian */
	*zvar = (double) ((sumsq / N - (long double) s * s) /
					  sqrtl(2.0L * (long double) s * s * s * s / N));
	*ncells = n;
	return p;
}

static void
test_sampler(void)
{
	static const uint64_t ss[] = {1, 3, 20, 1500};
	uint64_t	N = 400000;
	int			i;

	for (i = 0; i < 4; i++)
	{
		uint64_t	s = ss[i];
		uint32_t   *table = NULL;
		double		p,
					zv;
		int			nc;
		double		t0 = unit_seconds();

		if (s <= JL_LAPLACE_TABLE_MAX_T)
		{
			table = malloc(sizeof(uint32_t) * jl_laplace_table_entries(s));
			jl_laplace_table_fill(s, table);
		}
		p = fit(sampler, s, table, N, &zv, &nc);
		check(p >= UNIT_ALPHA, "discrete Gaussian s=%llu: fit over %d cells, N=%llu, p = %.3g (%.0f ns/draw)",
			  (unsigned long long) s, nc, (unsigned long long) N, p,
			  (unit_seconds() - t0) * 1e9 / N);
		check(fabs(zv) < UNIT_Z, "discrete Gaussian s=%llu: mean of y^2 vs s^2, z = %.2f",
			  (unsigned long long) s, zv);
		if (s <= 20)
		{
			p = fit(wrong_sigma, s, table, N, &zv, &nc);
			check(p < UNIT_ALPHA, "negative control s=%llu: fit rejects sigma s+1 (p = %.3g)",
				  (unsigned long long) s, p);
		}
		/* at s >= 3 the two differ by less than this test resolves */
		if (s == 1)
		{
			p = fit(naive_rounded, s, table, N, &zv, &nc);
			check(p < UNIT_ALPHA, "negative control s=%llu: fit rejects a rounded continuous Gaussian (p = %.3g)",
				  (unsigned long long) s, p);
		}
		free(table);

		/* the table sampler: the same distribution */
		table = malloc(sizeof(uint32_t) * (jl_gaussian_table_entries(s) + 1));
		jl_gaussian_table_fill(s, table);
		t0 = unit_seconds();
		p = fit(table_sampler, s, table, N, &zv, &nc);
		check(p >= UNIT_ALPHA && fabs(zv) < UNIT_Z,
			  "table sampler s=%llu: fit over %d cells p = %.3g, mean of y^2 z = %.2f (%.0f ns/draw)",
			  (unsigned long long) s, nc, p, zv, (unit_seconds() - t0) * 1e9 / N);
		free(table);
	}
}

/* ---- calibrated releases: the delta that holds, recomputed independently */

/* an L2 sensitivity for a JlMechanism's inputs */
static void
setup(JlMechanism *m, JlCalibration cal, double eps, double delta, double ps,
	  int k, int64_t d, double bound)
{
	memset(m, 0, sizeof(*m));
	m->noise = JL_NOISE_GAUSSIAN;
	m->calibration = cal;
	m->epsilon = eps;
	m->delta = delta;
	m->proj_sensitivity = ps;
	m->k = k;
	m->d = d;
	m->bound = bound;
	m->neighbor = JL_NEIGHBOR_ELEMENT;
	m->max_abs = ps;
}

/*
 * Independent recomputation of the delta a calibrated release satisfies:
 * integer-grid sensitivity from the data sensitivity, the rounding and the
 * floating-point allowance; zCDP of the discrete Gaussian; CKS's conversion
 * minimised independently in long double.
 */
/*
 * The direct bound of docs/design/gaussian_certificate.md, written again in long
 * double from the formula (not from gaussian.c), minimised over the same
 * smoothing widths and cut-offs.
 */
static long double
direct_delta_ld(long double Dg, long double s, int k, long double eps)
{
	static const long double rs[] = {1.0L, 1.25L, 1.5L, 2.0L};
	long double best = 1.0L;
	int			i,
				kap;

	for (i = 0; i < 4; i++)
		for (kap = 3; kap <= 14; kap++)
		{
			long double r = rs[i],
						t2 = s * s * r * r / (s * s + r * r),
						qt = expl(-2.0L * M_PI * M_PI * t2),
						qs = expl(-2.0L * M_PI * M_PI * s * s),
						eta_t = 2.0L * qt / (1.0L - qt),
						eta_s = 2.0L * qs / (1.0L - qs),
						B = powl(1.0L + eta_t, k),
						A = powl((1.0L - eta_t) / (1.0L + eta_s), k),
						sd = sqrtl(s * s + r * r) * Dg,
						c = kap * r * Dg,
						a = eps * s * s - Dg * Dg / 2.0L,
						b = eps * s * s + Dg * Dg / 2.0L,
						tk = 0.5L * erfcl(kap / sqrtl(2.0L)),
						up = B * 0.5L * erfcl((a - c) / sd / sqrtl(2.0L)) / (1.0L - tk),
						lo = A * 0.5L * erfcl((b + c) / sd / sqrtl(2.0L)) - tk,
						d;

			if (lo < 0.0L)
				lo = 0.0L;
			d = up - expl(eps) * lo;
			if (d < best)
				best = d;
		}
	return best;
}

static long double
implied_delta(const JlMechanism *m)
{
	long double D2 = (long double) m->bound * m->proj_sensitivity;
	long double Dg = (D2 + 1.5L * sqrtl((long double) m->k) * m->grid) / m->grid;
	long double rho = Dg * Dg / (2.0L * (long double) m->t * m->t);
	long double z = cks_delta_min(rho, m->epsilon),
				d = direct_delta_ld(Dg, (long double) m->t, m->k, m->epsilon);

	return d < z ? d : z;
}

/*
 * The direct certificate of the discrete Gaussian:
 * - sound: never below the exact delta of the discrete noise, in one
 *   dimension (s from 1 to 1024, shifts up to 3 s) and in two;
 * - agrees with its long-double rewriting;
 * - negative control: the continuous analytic sigma used as the discrete
 *   Gaussian's s does not give the requested delta in many small-s cases
 *   (the exact sum exceeds delta): each of those must be flagged.
 */
static void
test_direct_certificate(void)
{
	static const double eps[] = {0.05, 0.5, 1.0, 2.0, 5.0, 10.0};
	static const double del[] = {1e-3, 1e-5, 1e-9, 1e-12};
	static const double ss[] = {1.0, 2.0, 3.5, 8.0, 30.0, 100.0, 1024.0};
	int			i,
				j,
				a,
				D,
				n = 0,
				unsound = 0,
				viol = 0,
				flagged = 0,
				disagree = 0;

	for (a = 0; a < 7; a++)
		for (D = 1; D <= 3 * ss[a] + 1 && D <= 400; D = D * 2 + 1)
			for (i = 0; i < 6; i++)
			{
				int			v[1] = {D};
				long double e = exact_discrete_delta(ss[a], 1, v, eps[i]);
				double		b = jl_discrete_gaussian_delta(D, ss[a], 1, eps[i]);
				long double l = direct_delta_ld(D, ss[a], 1, eps[i]);

				n++;
				if ((long double) b < e)
					unsound++;
				if (l > 1e-250L && l < 0.5L && fabsl((long double) b / l - 1.0L) > 1e-9L)
					disagree++;
			}
	{
		static const int vs[][2] = {{1, 1}, {3, 4}, {7, 2}, {12, 5}};
		static const double s2[] = {2.0, 6.0, 10.0};

		for (a = 0; a < 3; a++)
			for (j = 0; j < 4; j++)
				for (i = 0; i < 6; i += 2)
				{
					long double e = exact_discrete_delta(s2[a], 2, vs[j], eps[i]);
					double		Dg = sqrt((double) (vs[j][0] * vs[j][0] + vs[j][1] * vs[j][1]));

					n++;
					if ((long double) jl_discrete_gaussian_delta(Dg, s2[a], 2, eps[i]) < e)
						unsound++;
				}
	}
	check(unsound == 0, "direct certificate >= the exact delta of the discrete Gaussian (%d cases, k = 1 and 2)", n);
	check(disagree == 0, "direct certificate = its long-double rewriting to 1e-9 (%d differ)", disagree);

	for (i = 1; i < 6; i++)
		for (j = 0; j < 4; j++)
			for (D = 1; D <= 3; D++)
			{
				double		sbw = jl_analytic_sigma(eps[i], del[j], D);
				int			v[1] = {D};
				long double e = exact_discrete_delta(sbw, 1, v, eps[i]);

				if (e > del[j])
				{
					viol++;
					if (jl_discrete_gaussian_delta(D, sbw, 1, eps[i]) > del[j])
						flagged++;
				}
			}
	check(viol >= 10 && flagged == viol,
		  "negative control: the continuous sigma fails for the discrete noise in %d cases, all %d flagged",
		  viol, flagged);
}

/*
 * For a real shift w (k = 1 or 2, norm Dg, direction u = w / Dg), three
 * lattice sums over n in Z^k with p(n) = e^(-|n|^2 / (2 s^2)) / Theta^k:
 * - h:   E[h_Dg(<N, u>)] = sum p(n) (1 - e^(eps - L(n)))_+,
 *        L(n) = (Dg^2 + 2 <n, w>) / (2 s^2), the quantity section 2 of
 *        docs/design/gaussian_certificate.md bounds;
 * - sh:  Pr[<N, w> > a] - e^eps mu_w(<m, w> > b), mu_w the weights
 *        e^(-|m|^2 / (2 s^2)) / Theta^k on the shifted lattice Z^k + w
 *        (the identity of section 2);
 * - uns: the same with mu_w replaced by the law of N on Z^k, which equals
 *        h only where w is a lattice vector.
 */
static void
real_shift_sums(double s, int k, const double *w, double eps,
				long double *h, long double *sh, long double *uns)
{
	long		N = (long) (40.0 * s) + 10,
				n1,
				n2;
	long double ss = 2.0L * s * s,
				w0 = w[0],
				w1 = (k == 2 ? w[1] : 0.0L),
				ww = w0 * w0 + w1 * w1,
				a = eps * s * s - ww / 2.0L,
				b = eps * s * s + ww / 2.0L,
				z = 0.0L,
				acc = 0.0L,
				pa = 0.0L,
				pb = 0.0L,
				mb = 0.0L,
				e = expl((long double) eps),
				zk;

	for (n1 = -N; n1 <= N; n1++)
		z += expl(-(long double) n1 * n1 / ss);
	zk = (k == 2 ? z * z : z);
	for (n1 = -N; n1 <= N; n1++)
		for (n2 = (k == 2 ? -N : 0); n2 <= (k == 2 ? N : 0); n2++)
		{
			long double x1 = n1,
						x2 = n2,
						dot = x1 * w0 + x2 * w1,
						p = expl(-(x1 * x1 + x2 * x2) / ss),
						L = (ww + 2.0L * dot) / ss,
						m1 = x1 + w0,
						m2 = x2 + w1;

			if (L > eps)
				acc += p * (1.0L - expl(eps - L));
			if (dot > a)
				pa += p;
			if (dot > b)
				pb += p;
			if (m1 * w0 + m2 * w1 > b)
				mb += expl(-(m1 * m1 + m2 * m2) / ss);
		}
	*h = acc / zk;
	*sh = (pa - e * mb) / zk;
	*uns = (pa - e * pb) / zk;
}

/*
 * The certificate at a norm bound Dg that is not itself a lattice norm:
 * - the identity of section 2 (shifted lattice) holds for real shifts, and
 *   the unshifted form it replaces does not (control: it differs by more
 *   than 0.05 at s = 1, Dg = 1.3, eps = 1);
 * - the certificate at Dg bounds E[h_Dg(<N, u>)] for real w of norm Dg, and
 *   the exact delta of every integer shift v with |v| < Dg (s from 1 to 30,
 *   k = 1 and 2, Dg = |v| + 0.3 and 1.37 |v|).
 */
static void
test_certificate_real_norm(void)
{
	static const double eps[] = {0.05, 0.5, 1.0, 2.0, 5.0};
	static const double ss[] = {1.0, 1.5, 3.5, 8.0, 30.0};
	static const int vs[][2] = {{1, 0}, {2, 0}, {5, 0}, {1, 1}, {3, 4}, {7, 2}};
	long double h,
				sh,
				uns;
	double		w1[1] = {1.3};
	int			a,
				i,
				j,
				f,
				n = 0,
				ident = 0,
				unsound = 0;

	real_shift_sums(1.0, 1, w1, 1.0, &h, &sh, &uns);
	check(fabsl(uns - h) > 0.05L,
		  "control: on the unshifted lattice the identity fails for w = 1.3, s = 1, eps = 1 (%.4Lf vs %.4Lf)",
		  uns, h);
	for (a = 0; a < 5; a++)
		for (j = 0; j < 6; j++)
		{
			int			k = vs[j][1] == 0 ? 1 : 2;
			double		nv = sqrt((double) (vs[j][0] * vs[j][0] + vs[j][1] * vs[j][1]));

			if (k == 2 && ss[a] > 8.0)
				continue;		/* the 2-D sums grow as s^2 */
			for (f = 0; f < 2; f++)
			{
				double		Dg = f == 0 ? nv + 0.3 : 1.37 * nv;
				double		w[2] = {vs[j][0] * Dg / nv, vs[j][1] * Dg / nv};

				for (i = 0; i < 5; i++)
				{
					long double e = exact_discrete_delta(ss[a], k, vs[j], eps[i]);
					double		c = jl_discrete_gaussian_delta(Dg, ss[a], k, eps[i]);

					real_shift_sums(ss[a], k, w, eps[i], &h, &sh, &uns);
					n++;
					if (fabsl(sh - h) > 1e-12L * (1.0L + fabsl(h)))
						ident++;
					if ((long double) c < h || (long double) c < e)
						unsound++;
				}
			}
		}
	check(ident == 0, "E[h] = the shifted-lattice form of section 2 for real w (%d cases, %d differ)", n, ident);
	check(unsound == 0,
		  "certificate at a non-integer Dg >= E[h_Dg] and >= the exact delta of |v| < Dg (%d cases, %d below)",
		  n, unsound);
}

/* a Gaussian analytic calibration of sensitivity proj at (eps, delta, k) */
static JlMechanism
gaussian_at(double eps, double delta, int k, double proj)
{
	JlMechanism m;

	memset(&m, 0, sizeof(m));
	m.noise = JL_NOISE_GAUSSIAN;
	m.calibration = JL_CALIBRATION_ANALYTIC;
	m.epsilon = eps;
	m.delta = delta;
	m.proj_sensitivity = proj;
	m.max_abs = 0.4;
	m.k = k;
	m.d = 1000;
	m.bound = 2.0;
	m.neighbor = JL_NEIGHBOR_ELEMENT;
	return m;
}

/*
 * The target: the sampled sigma within 1% of Balle and Wang's analytic
 * sigma for the data's sensitivity, for epsilon in [0.05, 10] and delta in
 * [1e-12, 1e-3], and never below it.
 */
static void
test_tight(void)
{
	static const double eps[] = {0.05, 0.07, 0.1, 0.2, 0.5, 1.0, 2.0, 3.0, 5.0, 7.5, 10.0};
	static const double del[] = {1e-12, 1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3};
	static const int ks[] = {1, 5, 20, 100, 1000};
	double		worst = 0.0,
				least = INFINITY;
	int			i,
				j,
				a,
				n = 0,
				bad = 0;
	char		cfg[160] = "";

	for (i = 0; i < 11; i++)
		for (j = 0; j < 7; j++)
			for (a = 0; a < 5; a++)
			{
				JlMechanism m;
				double		bw,
							ratio;

				m = gaussian_at(eps[i], del[j], ks[a], 1.37);
				if (jl_mechanism_calibrate(&m) != JL_OK || !m.valid)
				{
					bad++;
					continue;
				}
				n++;
				bw = jl_analytic_sigma(eps[i], del[j], m.data_sensitivity);
				ratio = m.scale / bw;
				if (ratio > worst)
				{
					worst = ratio;
					snprintf(cfg, sizeof(cfg), "eps %g, delta %g, k %d", eps[i], del[j], ks[a]);
				}
				least = fmin(least, ratio);
			}
	check(bad == 0 && worst <= 1.01, "sampled sigma within 1%% of Balle-Wang's in %d calibrations "
		  "(largest ratio %.5f at %s)", n, worst, cfg);
	check(least >= 1.0, "sampled sigma never below Balle-Wang's (smallest ratio %.5f)", least);
}

static void
test_implied_delta(void)
{
	static const double eps[] = {0.05, 0.3, 1.0, 4.0, 12.0};
	static const double del[] = {1e-9, 1e-6, 1e-3, 0.2};
	static const int ks[] = {1, 8, 50, 400};
	static const double ps[] = {0.37, 1.9, 35.0};
	int			i,
				j,
				a,
				b,
				n = 0,
				bad = 0,
				over = 0,
				invalid = 0,
				neg = 0,
				nneg = 0;
	double		worst = 0.0,
				excess = 0.0,
				excess_small = 0.0,
				rounding = 0.0;
	char		worst_cfg[200] = "";

	for (i = 0; i < 5; i++)
		for (j = 0; j < 4; j++)
			for (a = 0; a < 4; a++)
				for (b = 0; b < 3; b++)
				{
					JlMechanism	m;
					long double dl;
					int			st;

					setup(&m, JL_CALIBRATION_ANALYTIC, eps[i], del[j], ps[b], ks[a], 1000, 2.0);
					st = jl_mechanism_calibrate(&m);
					if (st != JL_OK)
					{
						bad++;
						continue;
					}
					n++;
					dl = implied_delta(&m);
					if (!m.valid)
						invalid++;
					if (dl > (long double) del[j] * (1.0L + 1e-9L))
						over++;
					if ((double) (dl / del[j]) > worst)
						worst = (double) (dl / del[j]);
					/* the price of the certificate over the continuous analytic sigma */
					if (m.scale / m.sigma_calibration - 1.0 > excess)
					{
						excess = m.scale / m.sigma_calibration - 1.0;
						snprintf(worst_cfg, sizeof(worst_cfg), "eps %g, delta %g, k %d: sigma %.4g, analytic %.4g",
								 eps[i], del[j], ks[a], m.scale, m.sigma_calibration);
					}
					if (del[j] <= 1e-5)
						excess_small = fmax(excess_small, m.scale / m.sigma_calibration - 1.0);
					rounding = fmax(rounding, (m.sensitivity - m.data_sensitivity) / m.data_sensitivity);

					/*
					 * negative control: sigma = the continuous analytic sigma
					 * (rounded up to the grid) is not certified for the
					 * discrete sampler, and the check must say so
					 */
					{
						JlMechanism	c = m;

						c.t = (uint64_t) ceil(m.sigma_calibration / m.grid);
						if (c.t < m.t)
						{
							nneg++;
							if (implied_delta(&c) > (long double) del[j])
								neg++;
						}
					}
				}
	check(bad == 0 && invalid == 0, "analytic calibration: %d configurations calibrated, all valid", n);
	check(over == 0, "analytic calibration: independently implied delta <= requested delta in all %d "
		  "(largest ratio %.9f)", n, worst);
	check(nneg > 0 && neg == nneg, "negative control: the continuous analytic sigma alone is flagged in %d of %d",
		  neg, nneg);
	check(rounding <= 1.0 / 1024.0 + 1e-12, "grid rounding adds at most 1/1024 to the L2 sensitivity (%.3g)", rounding);
	note("price of certifying the discrete noise: sampled sigma exceeds the continuous analytic sigma "
		 "by at most %.1f%% for delta <= 1e-5, %.1f%% overall (%s)", 100.0 * excess_small,
		 100.0 * excess, worst_cfg);

	/* classic and paper: certified or refused, never over */
	{
		JlMechanism	m;
		int			ok = 0;

		for (i = 0; i < 5; i++)
			for (j = 0; j < 4; j++)
			{
				setup(&m, JL_CALIBRATION_CLASSIC, eps[i], del[j], 1.3, 20, 500, 1.0);
				if (del[j] >= 0.5)
					continue;
				if (jl_mechanism_calibrate(&m) == JL_OK &&
					(!m.valid || implied_delta(&m) <= (long double) del[j] * (1.0L + 1e-9L)) &&
					m.scale >= m.sigma_calibration)
					ok++;
				else
					note("classic eps %g delta %g: valid %d", eps[i], del[j], m.valid);
			}
		check(ok == 20, "classic calibration: 20 configurations certified (or refused as invalid)");
	}
	{
		JlMechanism	m;
		int			st;

		setup(&m, JL_CALIBRATION_PAPER, 1.0, 1e-5, 1.3, 60, 1000, 1.0);
		st = jl_mechanism_calibrate(&m);
		check(st == JL_OK && m.valid &&
			  implied_delta(&m) <= 1e-5L && unit_rel(m.paper_c, 4.0 * sqrt(log(1e5))) < 1e-12,
			  "paper calibration: sigma %.4f = (4/eps) sqrt(ln(1/delta)), certified for ||P_i||_2 <= 1.3",
			  m.scale);
		setup(&m, JL_CALIBRATION_PAPER, 1.0, 1e-5, 9.0, 60, 1000, 1.0);
		st = jl_mechanism_calibrate(&m);
		check(st == JL_OK && !m.valid && m.delta_holding > 1e-5,
			  "paper calibration: a realized P with ||P_i||_2 = 9 is not covered (delta %.3g)",
			  m.delta_holding);
		setup(&m, JL_CALIBRATION_PAPER, 1.0, 1e-5, 1.0, 36, 1000, 1.0);
		check(jl_mechanism_calibrate(&m) == JL_ERR_PAPER_K, "paper calibration refuses k = 36 for d = 1000");
		setup(&m, JL_CALIBRATION_PAPER, 12.0, 1e-5, 1.0, 60, 1000, 1.0);
		check(jl_mechanism_calibrate(&m) == JL_ERR_PAPER_EPSILON, "paper calibration refuses eps >= ln(1/delta)");
		setup(&m, JL_CALIBRATION_PAPER, 1.0, 1e-5, 1.0, 60, 1000, 1.0);
		m.neighbor = JL_NEIGHBOR_ROW;
		check(jl_mechanism_calibrate(&m) == JL_ERR_PAPER_NEIGHBOR, "paper calibration refuses row neighbours");
		setup(&m, JL_CALIBRATION_ANALYTIC, 1.0, NAN, 1.0, 60, 1000, 1.0);
		check(jl_mechanism_calibrate(&m) == JL_ERR_GAUSSIAN_DELTA_REQUIRED, "Gaussian noise without delta is refused");
		setup(&m, JL_CALIBRATION_ANALYTIC, 1.0, 1.0, 1.0, 60, 1000, 1.0);
		check(jl_mechanism_calibrate(&m) == JL_ERR_DELTA, "delta 1 is refused");
		setup(&m, JL_CALIBRATION_CLASSIC, 1.0, 0.5, 1.0, 60, 1000, 1.0);
		check(jl_mechanism_calibrate(&m) == JL_ERR_CLASSIC_DELTA, "classic calibration refuses delta 0.5");
	}
}

/*
 * Extreme parameters: every calibration either succeeds with finite
 * figures, a sigma in grid steps within the sampler's range and (when
 * valid) a certified delta at most the requested one, or fails with one of
 * the documented errors; 'analytic' is always valid when it succeeds.  And
 * the sampler at the largest sigma it accepts returns (its 2 s^2 = 2^63).
 */
static void
test_extremes(void)
{
	static const double eps[] = {1e-6, 1e-3, 0.1, 1.0, 10.0, 100.0, 720.0, 1e6};
	static const double del[] = {1e-300, 1e-100, 1e-10, 1e-5, 0.3, 0.5, 0.999999,
	1.0 - 0x1p-53};
	static const double bnd[] = {1e-300, 1e-100, 1.0, 1e200, 1e300};
	static const JlCalibration cal[] = {JL_CALIBRATION_ANALYTIC,
	JL_CALIBRATION_CLASSIC, JL_CALIBRATION_PAPER};
	int			bad = 0,
				ok = 0,
				refused = 0;
	size_t		c,
				i,
				j,
				b;
	JlRandom	r;
	int64_t		y;

	for (c = 0; c < 3; c++)
		for (i = 0; i < sizeof(eps) / sizeof(eps[0]); i++)
			for (j = 0; j < sizeof(del) / sizeof(del[0]); j++)
				for (b = 0; b < sizeof(bnd) / sizeof(bnd[0]); b++)
				{
					JlMechanism	m;
					int			st;

					setup(&m, cal[c], eps[i], del[j], 1.2, 200, 1000, bnd[b]);
					m.max_abs = 0.3;
					st = jl_mechanism_calibrate(&m);
					if (st == JL_OK)
					{
						if (!(isfinite(m.scale) && m.scale > 0.0 && isfinite(m.rho) &&
							  isfinite(m.delta_holding) && isfinite(m.epsilon_effective) &&
							  isfinite(m.sigma_calibration) && m.input_limit > 0.0 &&
							  m.t >= 1 && m.t <= JL_GAUSSIAN_MAX_S &&
							  (!m.valid || m.delta_holding <= m.delta) &&
							  (m.valid || cal[c] != JL_CALIBRATION_ANALYTIC)))
						{
							note("eps %g delta %g bound %g calibration %d: sigma %g t %llu delta_holding %g valid %d",
								 eps[i], del[j], bnd[b], (int) cal[c], m.scale,
								 (unsigned long long) m.t, m.delta_holding, m.valid);
							bad++;
						}
						else
							ok++;
					}
					else if (st == JL_ERR_SCALE || st == JL_ERR_GRID ||
							 st == JL_ERR_CLASSIC_DELTA || st == JL_ERR_PAPER_K ||
							 st == JL_ERR_PAPER_EPSILON ||
							 ((st == JL_ERR_BOUND_RANGE || st == JL_ERR_NOISE_RANGE) &&
							  (int) jl_check_scales(eps[i], bnd[b]) == (int) st))
						refused++;
					else
					{
						note("eps %g delta %g bound %g calibration %d: status %d",
							 eps[i], del[j], bnd[b], (int) cal[c], st);
						bad++;
					}
				}
	check(bad == 0 && ok > 100,
		  "extreme epsilon, delta and bound: %d calibrated soundly, %d refused with a documented error, %d wrong",
		  ok, refused, bad);

	jl_random_init(&r, unit_getrandom_fill, NULL);
	y = jl_discrete_gaussian(&r, JL_GAUSSIAN_MAX_S, NULL);
	check(y > -(INT64_C(1) << 40) && y < (INT64_C(1) << 40),
		  "discrete Gaussian at s = 2^31 (2 s^2 = 2^63) returns a plausible value (%lld)",
		  (long long) y);
}

/*
 * The table samplers (gaussian.h): the direct one (alias table, s <=
 * JL_GAUSSIAN_ALIAS_MAX_S) at its smallest and largest scales, and the
 * rejection sampler with tables just above; each fits N_Z(0, s^2), and each
 * kind has a negative control that must be rejected: a direct table built
 * for 1.25 s but labelled s, and for the rejection sampler acceptance bounds
 * of 1.25 s.
 */
static void
test_table_samplers(void)
{
	static const uint64_t ss[] = {1, 2, 20, 1500, 9802, JL_GAUSSIAN_ALIAS_MAX_S,
	JL_GAUSSIAN_ALIAS_MAX_S + 1};
	uint64_t	N = 400000;
	int			i;

	for (i = 0; i < (int) (sizeof(ss) / sizeof(ss[0])); i++)
	{
		uint64_t	s = ss[i];
		uint32_t   *table = malloc(sizeof(uint32_t) * jl_gaussian_table_entries(s));
		double		p,
					zv,
					t0 = unit_seconds();
		int			nc;

		jl_gaussian_table_fill(s, table);
		p = fit(table_sampler, s, table, N, &zv, &nc);
		check(p >= UNIT_ALPHA && fabs(zv) < UNIT_Z,
			  "table sampler s=%llu (%s): fit over %d cells p = %.3g, mean of y^2 z = %.2f (%.0f ns/draw)",
			  (unsigned long long) s, s <= JL_GAUSSIAN_ALIAS_MAX_S ? "alias" : "rejection",
			  nc, p, zv, (unit_seconds() - t0) * 1e9 / N);
		if (s == 20)
		{
			uint64_t	s2 = 25;
			uint32_t   *wrong = malloc(sizeof(uint32_t) * jl_gaussian_table_entries(s2));

			jl_gaussian_table_fill(s2, wrong);
			wrong[1] = (uint32_t) s;	/* labelled s */
			p = fit(table_sampler, s, wrong, N, &zv, &nc);
			check(p < UNIT_ALPHA || fabs(zv) >= UNIT_Z,
				  "negative control: a direct table built for s = 25 and labelled 20 is rejected "
				  "(p = %.3g, z = %.1f)", p, zv);
			free(wrong);
		}
		if (s > JL_GAUSSIAN_ALIAS_MAX_S)
		{
			/* negative control: acceptance bounds of sigma 1.25 s */
			uint64_t	L = jl_laplace_table_entries(s),
						A = jl_gaussian_table_entries(s) - L - 1,
						a;

			for (a = 1; a <= A; a++)
			{
				uint64_t	lo,
							hi;

				jl_exp_bounds(a * a * 16, 2 * s * s * 25, 16, &lo, &hi);
				table[L + a] = (uint32_t) (lo | ((hi - lo) << 16));
			}
			p = fit(table_sampler, s, table, N, &zv, &nc);
			check(p < UNIT_ALPHA || fabs(zv) >= UNIT_Z,
				  "negative control: the rejection sampler with acceptance bounds of 1.25 s is "
				  "rejected (p = %.3g, z = %.1f)", p, zv);
		}
		free(table);
	}
}

/*
 * The direct sampler's tail (|y| >= 4 s, drawn by rejection under a
 * geometric envelope from the table's tail cells): its frequency and
 * shape at s = 1, 2, 3 against the exact probabilities, N = 4,000,000 draws
 * each: a Pearson test over the cells |y| < 4 s (pooled), |y| = 4 s,
 * 4 s < |y| <= 5 s and |y| > 5 s.  Negative control: the same table with
 * its tail cells made padding (the tail never drawn), which must be
 * rejected.
 */
static void
test_gaussian_tail(void)
{
	int			si,
				pass;

	for (si = 1; si <= 3; si++)
		for (pass = 0; pass < (si == 1 ? 2 : 1); pass++)
		{
			uint64_t	s = (uint64_t) si,
						N = 4000000,
						obs[4] = {0, 0, 0, 0},
						n;
			uint32_t   *table = malloc(sizeof(uint32_t) * jl_gaussian_table_entries(s));
			long double w[4] = {0, 0, 0, 0},
						tot = 0;
			double		prob[4],
						x2,
						p,
						emin;
			int			df,
						c;
			int64_t		y;
			JlRandom	r;

			jl_gaussian_table_fill(s, table);
			if (pass == 1)
			{
				table[4 + 10] = 0;	/* the alias table's tail cells: none */
				table[4 + 11] = 0;
			}
			for (y = 0; y < 40 * (int64_t) s; y++)
			{
				long double e = expl(-(long double) y * y / (2.0L * s * s)) * (y == 0 ? 1 : 2);

				c = y < 4 * (int64_t) s ? 0 : (y == 4 * (int64_t) s ? 1 : (y <= 5 * (int64_t) s ? 2 : 3));
				w[c] += e;
				tot += e;
			}
			for (c = 0; c < 4; c++)
				prob[c] = (double) (w[c] / tot);
			jl_random_init(&r, unit_getrandom_fill, NULL);
			for (n = 0; n < N; n++)
			{
				int64_t		z = jl_discrete_gaussian_table(&r, s, table);
				int64_t		a = z < 0 ? -z : z;

				obs[a < 4 * (int64_t) s ? 0 : (a == 4 * (int64_t) s ? 1 : (a <= 5 * (int64_t) s ? 2 : 3))]++;
			}
			/* the last cell may expect too little for Pearson: pool it */
			if (N * prob[3] < 100)
			{
				prob[2] += prob[3];
				obs[2] += obs[3];
			}
			p = unit_pearson(obs, prob, N * prob[3] < 100 ? 3 : 4, &x2, &df, &emin);
			if (pass == 0)
				check(p >= UNIT_ALPHA,
					  "direct sampler's tail s=%llu: |y| = 4s %llu (expected %.0f), 4s < |y| <= 5s %llu "
					  "(%.1f), beyond %llu (%.2f): X2 = %.2f, p = %.3g",
					  (unsigned long long) s, (unsigned long long) obs[1], N * prob[1],
					  (unsigned long long) obs[2], N * prob[2], (unsigned long long) obs[3],
					  N * prob[3], x2, p);
			else
				check(p < UNIT_ALPHA,
					  "negative control s=%llu: with the tail cells made padding the tail test "
					  "rejects (|y| >= 4s drawn %llu times, X2 = %.0f, p = %.3g)",
					  (unsigned long long) s, (unsigned long long) (obs[1] + obs[2]), x2, p);
			free(table);
		}
}

static bool
same_calibration(const JlMechanism *a, const JlMechanism *b)
{
	return a->t == b->t && a->scale == b->scale && a->grid == b->grid &&
		a->delta_holding == b->delta_holding &&
		a->epsilon_effective == b->epsilon_effective && a->valid == b->valid;
}

/*
 * The certificates kept per process (calibrate.c) give the numbers the
 * computation gives: a configuration calibrated first (nothing kept), again
 * (kept), and again after enough others to push it out; configurations
 * that differ in one input only get certificates of their own.
 */
static void
test_certificate_cache(void)
{
	JlMechanism first = gaussian_at(1.0, 1e-6, 20, 1.37),
				again = first,
				pushed = first,
				other_delta = gaussian_at(1.0, 1e-7, 20, 1.37),
				other_eps = gaussian_at(1.1, 1e-6, 20, 1.37),
				other_k = gaussian_at(1.0, 1e-6, 21, 1.37),
				cold_delta;
	bool		ok;
	int			i;

	ok = jl_mechanism_calibrate(&first) == JL_OK && first.valid;
	check(ok, "certificate: first calibration (t %llu)", (unsigned long long) first.t);
	ok = jl_mechanism_calibrate(&again) == JL_OK && same_calibration(&first, &again);
	check(ok, "certificate kept: the same t, scale, delta and epsilon (t %llu)",
		  (unsigned long long) again.t);
	for (i = 0; i < 9; i++)
	{
		JlMechanism m = gaussian_at(2.0 + i, 1e-5, 10, 1.0);

		(void) jl_mechanism_calibrate(&m);
	}
	ok = jl_mechanism_calibrate(&pushed) == JL_OK && same_calibration(&first, &pushed);
	check(ok, "certificate computed again after 9 others: the same numbers");
	cold_delta = other_delta;
	ok = jl_mechanism_calibrate(&cold_delta) == JL_OK &&
		jl_mechanism_calibrate(&other_delta) == JL_OK &&
		same_calibration(&cold_delta, &other_delta) && other_delta.t > first.t &&
		other_delta.delta_holding <= 1e-7;
	check(ok, "another delta: a certificate of its own (t %llu > %llu, delta %.3g)",
		  (unsigned long long) other_delta.t, (unsigned long long) first.t,
		  other_delta.delta_holding);
	/*
	 * a delta so close that s starts from the same value on the same grid:
	 * only the key's delta tells the two apart, and the epsilon certified at
	 * it moves with it
	 */
	{
		JlMechanism near = gaussian_at(1.0, 1e-6 * (1.0 + 1e-6), 20, 1.37);

		ok = jl_mechanism_calibrate(&near) == JL_OK && near.grid == first.grid &&
			near.epsilon_effective < first.epsilon_effective;
		check(ok, "a delta 1e-6 higher relatively: a certificate of its own "
			  "(epsilon %.17g < %.17g, t %llu and %llu)", near.epsilon_effective,
			  first.epsilon_effective, (unsigned long long) near.t,
			  (unsigned long long) first.t);
	}
	ok = jl_mechanism_calibrate(&other_eps) == JL_OK && other_eps.t < first.t;
	check(ok, "another epsilon: a certificate of its own (t %llu < %llu)",
		  (unsigned long long) other_eps.t, (unsigned long long) first.t);
	ok = jl_mechanism_calibrate(&other_k) == JL_OK &&
		other_k.epsilon_effective != first.epsilon_effective;
	check(ok, "another k: a certificate of its own (epsilon %.17g against %.17g)",
		  other_k.epsilon_effective, first.epsilon_effective);
}

int
main(void)
{
	test_certificate_cache();
	test_analytic_reference();
	test_classic_valid();
	test_zcdp();
	test_direct_certificate();
	test_certificate_real_norm();
	test_tight();
	test_implied_delta();
	test_sampler();
	test_table_samplers();
	test_gaussian_tail();
	test_extremes();
	return unit_done("test_gaussian");
}
