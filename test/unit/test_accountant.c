/*
 * test_accountant.c - the composition of a dataset's releases
 * (math/accounting/accountant.c) against independent computations:
 *   - randomized response's Renyi divergence against Mironov's sinh form;
 *   - 100 Laplace releases at epsilon 0.1 (the example), and a
 *     mixed sequence of pure releases, against their exact privacy loss
 *     distribution computed here (binomials in long double): every
 *     method's epsilon at delta is at least the exact one (else it would
 *     under-report), the PLD within 1% of it, all below basic's;
 *   - 12 Gaussian releases at (1, 1e-6) (Balle-Wang's sigma) as rho-zCDP:
 *     at least the exact epsilon of 12 continuous Gaussians (which are
 *     rho-zCDP themselves, so no valid conversion may go below it), and
 *     within 1% of the 3.77 the zCDP conversion gives;
 *   - never worse than basic composition, never decreasing as releases are
 *     added, basic only at delta 0;
 *   - negative controls: the zCDP rho read as epsilon, and a PLD over
 *     epsilons rounded down by 0.1%, both under-report, and are flagged.
 * Deterministic: no sampling.
 */
#include "unit.h"
#include "math/accounting/accountant.h"

/* the exact delta(eps) of randomized responses: n1 at e1 and n2 at e2 */
static long double
exact_rr_delta(int n1, double e1, int n2, double e2, double eps)
{
	long double p1 = 1.0L / (1.0L + expl(-(long double) e1)),
				p2 = 1.0L / (1.0L + expl(-(long double) e2)),
				d = 0.0L;

	for (int a = 0; a <= n1; a++)
	{
		long double la = lgammal(n1 + 1) - lgammal(a + 1) - lgammal(n1 - a + 1) +
			a * logl(p1) + (n1 - a) * logl(1 - p1);

		for (int b = 0; b <= n2; b++)
		{
			long double lb = lgammal(n2 + 1) - lgammal(b + 1) - lgammal(n2 - b + 1) +
				b * logl(p2) + (n2 - b) * logl(1 - p2);
			long double loss = (long double) e1 * (2 * a - n1) + (long double) e2 * (2 * b - n2);

			if (loss > eps)
				d += expl(la + lb) * (1.0L - expl((long double) eps - loss));
		}
	}
	return d;
}

static double
exact_rr_epsilon(int n1, double e1, int n2, double e2, double delta)
{
	double		lo = 0.0,
				hi = n1 * e1 + n2 * e2;

	for (int i = 0; i < 100; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (exact_rr_delta(n1, e1, n2, e2, mid) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/* Phi, and the exact delta(eps) of a Gaussian mechanism with sensitivity / sigma = s */
static double
phi(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

static double
gauss_delta(double s, double eps)
{
	return phi(-eps / s + s / 2) - exp(eps) * phi(-eps / s - s / 2);
}

static double
gauss_epsilon(double s, double delta)
{
	double		lo = 0.0,
				hi = 100.0;

	for (int i = 0; i < 200; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (gauss_delta(s, mid) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

static void
test_rdp_pure(void)
{
	double		worst = 0.0;

	for (double e = 0.01; e < 5.0; e *= 1.7)
		for (double a = 1.01; a < 200.0; a *= 1.9)
		{
			/* Mironov 2017: log((sinh(a e) - sinh((a - 1) e)) / sinh(e)) / (a - 1) */
			long double m = logl((sinhl(a * e) - sinhl((a - 1) * e)) / sinhl(e)) / (a - 1);
			double		r = fabs((double) m - jl_rdp_pure(e, a)) / fmax((double) m, 1e-300);

			if (r > worst)
				worst = r;
		}
	check(worst < 1e-9, "randomized response's RDP = Mironov's sinh form (relative %.2g)", worst);
}

static void
compose_pure(int n1, double e1, int n2, double e2, double delta, JlComposition *c)
{
	JlProfile  *p = calloc(n1 + n2, sizeof(JlProfile));

	for (int i = 0; i < n1 + n2; i++)
	{
		p[i].kind = JL_PROFILE_PURE;
		p[i].epsilon = i < n1 ? e1 : e2;
	}
	if (jl_compose(p, n1 + n2, delta, c) != JL_OK)
		c->epsilon = NAN;
	free(p);
}

static void
test_pure_sequences(void)
{
	JlComposition c;
	double		exact = exact_rr_epsilon(100, 0.1, 0, 0.0, 1e-6);
	double		control_rho = 100 * 0.1 * 0.1 / 2;

	compose_pure(100, 0.1, 0, 0.0, 1e-6, &c);
	note("100 x epsilon 0.1 at delta 1e-6: basic %.4f, rdp %.4f, pld %.4f, exact %.4f",
		 c.basic_epsilon, c.rdp_epsilon, c.pld_epsilon, exact);
	check(fabs(c.basic_epsilon - 10.0) < 1e-9, "basic: 10");
	check(c.rdp_epsilon >= exact && c.pld_epsilon >= exact && c.epsilon >= exact,
		  "no method below the exact composition %.4f", exact);
	check(c.pld_epsilon <= exact * 1.01, "the PLD within 1%% of the exact (%.4f)", c.pld_epsilon);
	check(c.rdp_epsilon <= 5.2215 * 1.001,
		  "RDP at most the zCDP conversion of rho = eps^2/2 (5.2215): %.4f", c.rdp_epsilon);
	check(strcmp(c.method, "pld") == 0 && c.epsilon < 0.5 * c.basic_epsilon,
		  "the tightest is the PLD, below half of basic");
	check(control_rho < exact, "negative control: zCDP's rho read as epsilon (%.2f) is below the exact %.4f: flagged",
		  control_rho, exact);

	/* a mixed sequence: 50 at 0.1 and 50 at 0.07 */
	exact = exact_rr_epsilon(50, 0.1, 50, 0.07, 1e-5);
	compose_pure(50, 0.1, 50, 0.07, 1e-5, &c);
	note("50 x 0.1 + 50 x 0.07 at delta 1e-5: rdp %.4f, pld %.4f, exact %.4f", c.rdp_epsilon,
		 c.pld_epsilon, exact);
	check(c.pld_epsilon >= exact && c.pld_epsilon <= exact * 1.01 && c.rdp_epsilon >= exact,
		  "mixed pure sequence: valid, the PLD within 1%% of exact");
	/*
	 * control: the same PLD without the pessimistic rounding (each epsilon
	 * rounded down to the grid instead of up) under-reports
	 */
	{
		double		h = (50 * 0.1 + 50 * 0.07) / 65536,
					eps[100],
					lo = 0.0,
					hi = 10.0;

		for (int i = 0; i < 100; i++)
			eps[i] = floor((i < 50 ? 0.1 : 0.07) / h) * h;
		for (int it = 0; it < 60; it++)
		{
			double		mid = 0.5 * (lo + hi);

			if (jl_pld_pure_delta(eps, 100, h, mid) <= 1e-5)
				hi = mid;
			else
				lo = mid;
		}
		check(hi < exact, "negative control: the PLD rounded down instead of up gives %.5f < %.5f: flagged",
			  hi, exact);
	}
}

static void
test_gaussian_sequence(void)
{
	double		sigma = 4.224678889326871;	/* Balle-Wang at (1, 1e-6), sensitivity 1 */
	double		s = 1.0 / sigma,
				rho = s * s / 2;
	JlProfile	p[12];
	JlComposition c;
	double		exact = gauss_epsilon(s * sqrt(12.0), 1e-5);

	check(fabs(gauss_delta(s, 1.0) - 1e-6) < 1e-9, "sigma %.6f gives delta 1e-6 at epsilon 1", sigma);
	for (int i = 0; i < 12; i++)
	{
		p[i].kind = JL_PROFILE_ZCDP;
		p[i].epsilon = 1.0;
		p[i].delta = 1e-6;
		p[i].rho = rho;
		p[i].mu = NAN;			/* rho only, as an upgraded ledger's rows */
	}
	jl_compose(p, 12, 1e-5, &c);
	note("12 Gaussian releases at (1, 1e-6) known by rho only, delta 1e-5: basic %.4f (delta %.1e), rdp %.4f, exact (continuous) %.4f",
		 c.basic_epsilon, c.basic_delta, c.rdp_epsilon, exact);
	check(c.rdp_epsilon >= exact, "RDP not below the exact composition of continuous Gaussians");
	check(fabs(c.rdp_epsilon - 3.7698) <= 0.01 * 3.7698, "RDP within 1%% of 3.7698 (zCDP's optimal conversion)");
	check(strcmp(c.method, "rdp") == 0 && c.epsilon < 0.35 * c.basic_epsilon, "the tightest is RDP, about a third of basic");
}

static void
test_properties(void)
{
	uint64_t	x = 0x9e3779b97f4a7c15ULL;
	int			worse = 0,
				decreasing = 0,
				cases = 0;

	for (int trial = 0; trial < 60; trial++)
	{
		JlProfile	p[12];
		JlComposition prev,
					c;
		int			n = 1 + trial % 12;
		double		delta = trial % 3 == 0 ? 1e-6 : 1e-3;

		for (int i = 0; i < n; i++)
		{
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			p[i].kind = (JlProfileKind) (1 + (x >> 33) % 3);
			p[i].epsilon = 0.01 + ((x >> 20) % 1000) / 500.0;
			p[i].delta = p[i].kind == JL_PROFILE_PURE ? 0.0 : 1e-8;
			p[i].rho = p[i].epsilon * p[i].epsilon / 8;
			/* half the zCDP ones with a dominating shift */
			p[i].mu = (x >> 40) % 2 ? sqrt(2.0 * p[i].rho) * 1.001 : NAN;
		}
		for (int m = 1; m <= n; m++)
		{
			jl_compose(p, m, delta, &c);
			cases++;
			if (c.basic_delta <= delta && c.epsilon > c.basic_epsilon)
				worse++;
			if (m > 1 && c.delta == prev.delta && c.epsilon < prev.epsilon)
				decreasing++;
			prev = c;
		}
	}
	check(worse == 0, "never worse than basic composition (%d sequences)", cases);
	check(decreasing == 0, "a release added never lowers the composed epsilon (%d sequences)", cases);
}

static void
test_edges(void)
{
	JlProfile	p[2] = {{JL_PROFILE_PURE, 1.0, 0.0, 0.0}, {JL_PROFILE_ZCDP, 1.0, 1e-6, 0.03}};
	JlProfile	bad = {JL_PROFILE_PURE, NAN, 0.0, 0.0};
	JlComposition c;

	jl_compose(p, 2, 0.0, &c);
	check(strcmp(c.method, "basic") == 0 && c.epsilon == 2.0 && c.delta == 1e-6,
		  "at delta 0 only basic composition applies, at its own delta");
	p[1].kind = JL_PROFILE_APPROX;
	jl_compose(p + 1, 1, 1e-3, &c);
	check(c.epsilon == 1.0 && strcmp(c.method, "basic") == 0, "an approximate release alone composes basically");
	check(jl_compose(&bad, 1, 1e-6, &c) == JL_ERR_EPSILON, "a NaN epsilon refused");
	{
		/* sums past the double range, and below its normal range: no hang, basic */
		JlProfile	big[2] = {{JL_PROFILE_PURE, 1e308, 0.0, 0.0}, {JL_PROFILE_PURE, 1e308, 0.0, 0.0}};
		JlProfile	tiny = {JL_PROFILE_PURE, 1e-320, 0.0, 0.0};

		jl_compose(big, 2, 1e-6, &c);
		check(isinf(c.epsilon) && strcmp(c.method, "basic") == 0,
			  "pure epsilons summing past the double range: basic, infinite (once a hang: a NaN grid)");
		jl_compose(&tiny, 1, 1e-6, &c);
		check(c.epsilon == 1e-320 && isinf(c.pld_epsilon),
			  "a subnormal pure epsilon: no PLD grid (a step of 0), basic");
	}
	check(jl_compose(p, 0, 1e-6, &c) == JL_OK && c.epsilon == 0.0, "no release: nothing spent");
}

int
main(void)
{
	test_rdp_pure();
	test_pure_sequences();
	test_gaussian_sequence();
	test_properties();
	test_edges();
	return unit_done("test_accountant");
}
