/*
 * test_choose_k.c - jl_min_dim against scikit-learn's documented outputs,
 * and the k search of jl_suggest_k against brute force over every k with
 * synthetic noise variances (deterministic; no randomness).
 */
#include "unit.h"
#include "math/estimate/suggest_k.h"

/* s2(k) = a k^e (1 + w u_k), u_k a fixed pseudo-random wiggle in [-1, 1] */
typedef struct Model
{
	double		a;
	double		e;
	double		w;
	int			calls;
	int			kmin;			/* k below this is infeasible (NaN) */
} Model;

static double
wiggle(int k)
{
	uint64_t	s = (uint64_t) k * 7919;

	return 2.0 * ((double) (unit_splitmix64(&s) >> 11) / 9007199254740992.0) - 1.0;
}

static double
model_s2(void *ctx, int k)
{
	Model	   *m = ctx;

	m->calls++;
	if (k < m->kmin)
		return NAN;
	return m->a * pow(k, m->e) * (1.0 + m->w * wiggle(k));
}

/* brute force: every k in 1..kmax, the same objective with exact references */
static int
brute(double lo, double hi, bool gaussian, int kmax, Model *m, double *best_obj)
{
	double		r2[JL_SUGGEST_GRID],
				vstar[JL_SUGGEST_GRID];
	int			ng = (lo == hi) ? 1 : JL_SUGGEST_GRID;
	int			g,
				k,
				bk = 0;

	for (g = 0; g < ng; g++)
	{
		r2[g] = ng == 1 ? lo : lo * pow(hi / lo, (double) g / (ng - 1));
		vstar[g] = INFINITY;
		for (k = 1; k <= kmax; k++)
			vstar[g] = fmin(vstar[g], jl_dist_variance(r2[g], k, model_s2(m, k), gaussian));
	}
	*best_obj = INFINITY;
	for (k = 1; k <= kmax; k++)
	{
		double		s2 = model_s2(m, k),
					o = 0;

		if (isnan(s2))
			continue;
		for (g = 0; g < ng; g++)
		{
			double		v = jl_dist_variance(r2[g], k, s2, gaussian);

			o = fmax(o, ng == 1 ? sqrt(v) / lo : sqrt(v / vstar[g]));
		}
		if (o < *best_obj)
		{
			*best_obj = o;
			bk = k;
		}
	}
	return bk;
}

/* the brute-force objective of a given k */
static double
objective_of(int kk, double lo, double hi, bool gaussian, int kmax, Model *m)
{
	double		best;
	double		r2[JL_SUGGEST_GRID],
				vstar[JL_SUGGEST_GRID],
				o = 0;
	int			ng = (lo == hi) ? 1 : JL_SUGGEST_GRID;
	int			g,
				k;

	(void) brute;
	for (g = 0; g < ng; g++)
	{
		r2[g] = ng == 1 ? lo : lo * pow(hi / lo, (double) g / (ng - 1));
		vstar[g] = INFINITY;
		for (k = 1; k <= kmax; k++)
			vstar[g] = fmin(vstar[g], jl_dist_variance(r2[g], k, model_s2(m, k), gaussian));
	}
	for (g = 0; g < ng; g++)
	{
		double		v = jl_dist_variance(r2[g], kk, model_s2(m, kk), gaussian);

		o = fmax(o, ng == 1 ? sqrt(v) / lo : sqrt(v / vstar[g]));
	}
	best = o;
	return best;
}

static void
case_search(const char *name, double lo, double hi, bool gaussian, int kmax,
			double a, double e, double w, double tol)
{
	Model		m = {a, e, w, 0, 0};
	JlSuggest	s;
	double		best,
				got;
	int			bk;
	bool		ok;

	ok = jl_suggest_k_search(lo, hi, gaussian, kmax, model_s2, &m, &s);
	bk = brute(lo, hi, gaussian, kmax, &m, &best);
	got = objective_of(s.k, lo, hi, gaussian, kmax, &m);
	check(ok && got <= best * (1.0 + tol),
		  "%s: k = %d (objective %.6g, %d evaluations), brute force k = %d (%.6g)",
		  name, s.k, got, s.evaluations, bk, best);
	check(s.evaluations <= 120, "%s: %d evaluations (<= 120)", name, s.evaluations);
}

static void
test_min_dim(void)
{
	/* scikit-learn's docstring of johnson_lindenstrauss_min_dim */
	check(jl_min_dim(1000000, 0.5) == 663, "min_dim(1e6, 0.5) = %.0f (663)", jl_min_dim(1000000, 0.5));
	check(jl_min_dim(1000000, 0.1) == 11841, "min_dim(1e6, 0.1) = %.0f (11841)", jl_min_dim(1000000, 0.1));
	check(jl_min_dim(1000000, 0.01) == 1112658, "min_dim(1e6, 0.01) = %.0f (1112658)", jl_min_dim(1000000, 0.01));
	check(jl_min_dim(10000, 0.1) == 7894, "min_dim(1e4, 0.1) = %.0f (7894)", jl_min_dim(10000, 0.1));
	check(jl_min_dim(100000, 0.1) == 9868, "min_dim(1e5, 0.1) = %.0f (9868)", jl_min_dim(100000, 0.1));
	check(jl_min_dim(1, 0.5) == 0, "min_dim(1, 0.5) = 0 (log 1 = 0)");
	/* truncation, not rounding: 4 ln(100) / (1/8 - 1/24) = 221.04 */
	check(jl_min_dim(100, 0.5) == 221, "min_dim(100, 0.5) = %.0f (221.04 truncated)", jl_min_dim(100, 0.5));

	/* the inverse: the distortion at k = min_dim(n, eps) is eps */
	check(fabs(jl_distortion_at(1000000, 11841) - 0.1) < 1e-4,
		  "distortion at k = 11841 for n = 1e6: %.6f (0.1)", jl_distortion_at(1000000, 11841));
	check(isnan(jl_distortion_at(1000, 100)), "no distortion bound for k = 100 < 24 ln(1000)");
}

static void
test_search(void)
{
	Model		m = {4.0, 0.0, 0.0, 0, 0};
	JlSuggest	s;

	/* Gaussian, s2 constant: the minimizer of 2 r^4/k + 8 k s2^2 is r^2 / (2 s2) */
	jl_suggest_k_search(400.0, 400.0, true, 10000, model_s2, &m, &s);
	check(s.k == 50 && !s.at_limit, "gaussian, s2 = 4, r2 = 400: k = %d (r2 / (2 s2) = 50)", s.k);

	case_search("gaussian s2 = 4, r2 = 10", 10, 10, true, 10000, 4, 0, 0, 0);
	case_search("gaussian s2 = 0.5, r2 = 3000", 3000, 3000, true, 10000, 0.5, 0, 0, 0);
	case_search("laplace s2 = 2k, r2 = 1000", 1000, 1000, false, 10000, 2, 1, 0, 0);
	case_search("laplace s2 = 0.3k, r2 = 50", 50, 50, false, 10000, 0.3, 1, 0, 0);
	case_search("laplace s2 = 2k +-5%, r2 = 1000", 1000, 1000, false, 10000, 2, 1, 0.05, 0.01);
	case_search("gaussian s2 = 1 +-5%, r2 = 800", 800, 800, true, 10000, 1, 0, 0.05, 0.01);
	case_search("gaussian s2 = 1, range 20..2000", 20, 2000, true, 10000, 1, 0, 0, 0.01);
	case_search("laplace s2 = k, range 100..10000", 100, 10000, false, 10000, 1, 1, 0, 0.01);
	case_search("laplace s2 = k +-5%, range 100..10000", 100, 10000, false, 10000, 1, 1, 0.05, 0.02);

	/* a range: the suggestion lies between the best k of each end */
	m = (Model) {1.0, 0.0, 0.0, 0, 0};
	jl_suggest_k_search(20.0, 2000.0, true, 10000, model_s2, &m, &s);
	check(s.k_lo_best <= s.k && s.k <= s.k_hi_best && s.objective >= 1.0,
		  "range 20..2000: k = %d between %d and %d, worst stddev ratio %.4f >= 1",
		  s.k, s.k_lo_best, s.k_hi_best, s.objective);

	/* capped */
	m = (Model) {1.0, 0.0, 0.0, 0, 0};
	jl_suggest_k_search(1e6, 1e6, true, 300, model_s2, &m, &s);
	check(s.k == 300 && s.at_limit, "optimum beyond kmax = 300: k = %d, at_limit", s.k);

	/* infeasible small k (a paper calibration not covering P) */
	{
		Model		mm = {1.0, 1.0, 0.0, 0, 20};
		double		best;
		bool		ok = jl_suggest_k_search(1000, 1000, false, 10000, model_s2, &mm, &s);

		check(ok && s.k == brute(1000, 1000, false, 10000, &mm, &best) && s.k == 20,
			  "infeasible below k = 20 (optimum 12 otherwise): k = %d", s.k);
		mm.kmin = 100000;
		check(!jl_suggest_k_search(1000, 1000, false, 10000, model_s2, &mm, &s),
			  "no feasible k: refused");
	}
}

/*
 * Distances and noise variances whose squares overflow: the search must
 * still find the k it finds at a moderate scale (the objective is scale
 * invariant), not report that no k is valid.
 */
static void
test_overflow(void)
{
	Model		small = {1.0, 0.5, 0.0, 0, 1},
				huge = {1e200, 0.5, 0.0, 0, 1};
	JlSuggest	a,
				b;
	bool		fa = jl_suggest_k_search(100.0, 100.0, false, 500, model_s2, &small, &a);
	bool		fb = jl_suggest_k_search(1e202, 1e202, false, 500, model_s2, &huge, &b);

	check(fa && fb && a.k == b.k && isfinite(b.objective) &&
		  fabs(a.objective - b.objective) <= 1e-12 * a.objective,
		  "overflowing variances: k %d (objective %.6g) as at a moderate scale, k %d (%.6g)",
		  fb ? b.k : -1, fb ? b.objective : NAN, a.k, a.objective);
	fb = jl_suggest_k_search(1e202, 1e204, true, 500, model_s2, &huge, &b);
	fa = jl_suggest_k_search(100.0, 10000.0, true, 500, model_s2, &small, &a);
	check(fa && fb && a.k == b.k,
		  "overflowing variances over a range: k %d as at a moderate scale, k %d",
		  fb ? b.k : -1, a.k);
	check(isfinite(jl_dist_stddev(1e200, 10, 1e200, false)) &&
		  fabs(jl_dist_stddev(1e200, 10, 1e200, false) / 1e200 -
			   sqrt(jl_dist_variance(1.0, 10, 1.0, false))) < 1e-12,
		  "jl_dist_stddev: finite and exact where the variance overflows");
}

int
main(void)
{
	test_min_dim();
	test_search();
	test_overflow();
	return unit_done("test_choose_k");
}
