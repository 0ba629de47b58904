/*
 * test_gaussian_dominance.c - the continuous Gaussian shift that dominates
 * the discrete Gaussian noise (math/noise/gaussian_dominance.c), and the
 * composition of Gaussian releases through it (math/accounting).
 *
 * - Sound: for small s, where the lattice shows, the exact privacy profile
 *   of N_Z(0, s^2)^k against integer shifts (summed over the lattice in long
 *   double, at negative and positive epsilon) is never above
 *   delta0 + (1 - delta0) delta_mu(epsilon), delta_mu evaluated
 *   independently in long double.
 * - Negative control: mu = Dg / s, the continuous Gaussian's, is exceeded by
 *   the exact profile in some of those cases.
 * - Tight: at the s a release samples (>= 1024 grid steps), mu is within
 *   0.5% of Balle and Wang's for the same (epsilon, delta), and twelve such
 *   releases at (1, 1e-6) compose at 1e-5 to within 1% of the exact
 *   composition of twelve continuous Gaussians at Balle and Wang's sigma.
 */
#include "unit.h"
#include "gaussian_exact.h"

#include "math/accounting/accountant.h"
#include "math/accounting/gaussian_profile.h"
#include "math/noise/gaussian.h"
#include "math/noise/gaussian_dominance.h"

static void
test_sound(void)
{
	static const double ss[] = {0.8, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0, 13.0};
	static const int v1[][2] = {{1, 0}, {2, 0}, {3, 0}};
	static const int v2[][2] = {{1, 1}, {2, 1}};
	static const double d0s[] = {1e-9, 1e-3};
	int			cases = 0,
				bad = 0,
				nan = 0,
				control = 0;
	double		worst = 0.0;

	for (size_t a = 0; a < sizeof(ss) / sizeof(ss[0]); a++)
		for (int k = 1; k <= 2; k++)
			for (int j = 0; j < (k == 1 ? 3 : 2); j++)
				for (size_t b = 0; b < sizeof(d0s) / sizeof(d0s[0]); b++)
				{
					const int  *v = k == 1 ? v1[j] : v2[j];
					double		Dg = sqrt((double) (v[0] * v[0] + v[1] * v[1])),
								d0 = d0s[b],
								mu,
								mu0 = Dg / ss[a];
					bool		flagged = false;

					if (k == 2 && ss[a] > 5.0)
						continue;
					mu = jl_discrete_gaussian_mu(Dg, ss[a], k, d0);
					if (!isfinite(mu))
					{
						nan++;
						continue;
					}
					if (mu / mu0 > worst)
						worst = mu / mu0;
					for (double e = -6.0; e <= 6.0; e += 0.1)
					{
						long double x = exact_discrete_delta(ss[a], k, v, e),
									g = d0 + (1.0L - d0) * gdp_ld(mu, e),
									g0 = d0 + (1.0L - d0) * gdp_ld(mu0, e);

						cases++;
						if (x > g + 1e-15L)
							bad++;
						if (x > g0 + 1e-15L)
							flagged = true;
					}
					control += flagged;
				}
	check(bad == 0 && nan == 0 && cases > 5000,
		  "dominance: the exact profile of the discrete Gaussian <= delta0 + (1 - delta0) delta_mu "
		  "at every epsilon in [-6, 6] (%d points, %d above, %d without mu; mu / (Dg/s) at most %.4f)",
		  cases, bad, nan, worst);
	check(control > 0,
		  "negative control: mu = Dg/s (the continuous Gaussian's) is exceeded by the exact profile "
		  "in %d of the configurations", control);
}

static void
test_tight_and_composed(void)
{
	static const double Ds[] = {6144.0, 20275.2, 20000.0};
	static const int ks[] = {16, 16, 1000};
	double		worst = 0.0,
				mu_bw = 1.0 / jl_analytic_sigma(1.0, 1e-6, 1.0);
	double		sig = jl_analytic_sigma(1.0, 1e-6, 1.0);

	for (size_t t = 0; t < sizeof(Ds) / sizeof(Ds[0]); t++)
	{
		double		Dg = Ds[t],
					s = ceil(jl_analytic_sigma(1.0, 1e-6, Dg)),
					mu;
		JlProfile	p[12];
		JlComposition c;
		double		exact = jl_gdp_epsilon(sqrt(12.0) * mu_bw, 1e-5);

		while (jl_discrete_gaussian_delta(Dg, s, ks[t], 1.0) > 1e-6)
			s += 1.0;
		mu = jl_discrete_gaussian_mu(Dg, s, ks[t], 1e-6 * JL_GDP_DELTA0_SHARE);
		if (mu / mu_bw > worst)
			worst = mu / mu_bw;
		for (int i = 0; i < 12; i++)
			p[i] = (JlProfile)
		{
			.kind = JL_PROFILE_ZCDP,.epsilon = 1.0,.delta = 1e-6,
				.rho = Dg * Dg / (2.0 * s * s),.mu = mu
		};
		JlStatus	st = jl_compose(p, 12, 1e-5, &c);

		check(st == JL_OK && strcmp(c.method, "pld") == 0 &&
			  c.epsilon >= exact * 0.999 && c.epsilon <= exact * 1.01,
			  "12 Gaussian releases at (1, 1e-6), s = %.0f grid steps, k = %d: composed %.4f at 1e-5 "
			  "by %s, the continuous Gaussians at Balle-Wang's sigma %.4f (rdp %.4f, basic %.0f)",
			  s, ks[t], c.epsilon, c.method, exact, c.rdp_epsilon, c.basic_epsilon);
	}
	check(worst >= 1.0 - 1e-3 && worst <= 1.005,
		  "mu of the sampled noise within 0.5%% of Balle-Wang's (sigma %.4f): at most %.5f times",
		  sig, worst);
}

static void
test_composition_rules(void)
{
	JlProfile	p[3] = {
		{.kind = JL_PROFILE_ZCDP,.epsilon = 1.0,.delta = 1e-6,.rho = 0.02,.mu = 0.2},
		{.kind = JL_PROFILE_ZCDP,.epsilon = 1.0,.delta = 1e-6,.rho = 0.045,.mu = 0.3},
		{.kind = JL_PROFILE_ZCDP,.epsilon = 1.0,.delta = 1e-6,.rho = 0.03,.mu = NAN}};
	JlComposition c,
				r;
	double		d0 = 2e-6 * JL_GDP_DELTA0_SHARE,
				want = jl_gdp_epsilon(sqrt(0.2 * 0.2 + 0.3 * 0.3), 1e-5 - d0);

	JlStatus	st = jl_compose(p, 2, 1e-5, &c);

	check(st == JL_OK && c.pld_epsilon >= want &&
		  c.pld_epsilon <= want * (1.0 + 1e-8),
		  "two shifts 0.2 and 0.3 compose as one of sqrt(0.13), delta less the atoms: %.10f (%.10f)",
		  c.pld_epsilon, want);
	/* one without mu: by RDP beside the PLD (split delta), or all by RDP */
	st = jl_compose(p, 3, 1e-5, &r);
	check(st == JL_OK && isfinite(r.pld_epsilon) &&
		  r.pld_epsilon > c.pld_epsilon && r.epsilon == fmin(r.pld_epsilon, r.rdp_epsilon),
		  "a third without mu joins by RDP: pld %.4f, rdp %.4f, the least taken", r.pld_epsilon,
		  r.rdp_epsilon);
	/* invalid mu refused; no delta: no shift used */
	p[0].mu = -1.0;
	check(jl_compose(p, 1, 1e-5, &c) == JL_ERR_EPSILON, "a negative mu is refused");
	p[0].mu = INFINITY;
	check(jl_compose(p, 1, 1e-5, &c) == JL_ERR_EPSILON, "an infinite mu is refused");
	check(isnan(jl_discrete_gaussian_mu(0.0, 1024.0, 4, 1e-9)) &&
		  isnan(jl_discrete_gaussian_mu(1.0, NAN, 4, 1e-9)) &&
		  isnan(jl_discrete_gaussian_mu(1.0, 1024.0, 4, 0.0)),
		  "no mu without a shift, a scale or an atom");
	check(jl_gdp_delta(0.5, -3.0, -1) <= gdp_ld(0.5L, -3.0L) &&
		  jl_gdp_delta(0.5, -3.0, 1) >= gdp_ld(0.5L, -3.0L) &&
		  jl_gdp_delta(0.5, 4.0, -1) <= gdp_ld(0.5L, 4.0L) &&
		  jl_gdp_delta(0.5, 4.0, 1) >= gdp_ld(0.5L, 4.0L),
		  "delta_mu rounded down and up brackets its long-double value");
}

int
main(void)
{
	test_composition_rules();
	test_tight_and_composed();
	test_sound();
	return unit_done("test_gaussian_dominance");
}
