/*
 * gaussian.h - the mathematics of Gaussian noise (Kenthapadi et al.): the
 * continuous calibrations of sigma, the zCDP accountant that says which
 * (epsilon, delta) the sampled noise guarantees, and the discrete Gaussian
 * sampler.  calibrate.c puts them together for a release.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_GAUSSIAN_H
#define JLDP_MATH_GAUSSIAN_H

#include "math/random/randbits.h"

#include <stdbool.h>
#include <stdint.h>

/* Largest sigma in grid steps the sampler accepts (2 s^2 < 2^63). */
#define JL_GAUSSIAN_MAX_S (UINT64_C(1) << 31)

/* Standard normal distribution function, Phi(x) = erfc(-x / sqrt 2) / 2. */
double		jl_normal_cdf(double x);

/*
 * delta of the continuous Gaussian mechanism with L2 sensitivity D and noise
 * sigma at epsilon (Balle & Wang 2018, Theorem 8):
 *   Phi(D/(2 sigma) - eps sigma/D) - e^eps Phi(-D/(2 sigma) - eps sigma/D).
 */
double		jl_analytic_delta(double sigma, double epsilon, double D);

/*
 * The smallest sigma with jl_analytic_delta(sigma, epsilon, D) <= delta, by
 * bisection; returns the upper end of the final interval (its delta is
 * <= delta).  epsilon > 0, 0 < delta < 1, D > 0.
 */
double		jl_analytic_sigma(double epsilon, double delta, double D);

/*
 * Kenthapadi et al., Theorem 1: sigma = D sqrt(2 (ln(1/(2 delta)) + eps)) /
 * eps, for delta < 1/2 (its only condition: the proof holds for every
 * epsilon > 0).  NaN if delta >= 1/2.
 */
double		jl_classic_sigma(double epsilon, double delta, double D);

/*
 * Kenthapadi et al., Lemma 2 (P-free, element neighbours with bound B):
 * sigma = B (4 / eps) sqrt(ln(1/delta)).  Its conditions:
 * jl_paper_k_ok: k > 2 (ln d + ln(2/delta)); jl_paper_epsilon_ok:
 * epsilon < ln(1/delta).
 */
double		jl_paper_sigma(double epsilon, double delta, double B);
bool		jl_paper_k_ok(int64_t d, int k, double delta);
bool		jl_paper_epsilon_ok(double epsilon, double delta);

/*
 * delta guaranteed at epsilon by a rho-zCDP mechanism (Canonne, Kamath,
 * Steinke 2020, Corollary 13):
 *   inf over alpha > 1 of exp((alpha-1)(alpha rho - eps)) / (alpha-1)
 *                         * (1 - 1/alpha)^alpha,
 * evaluated at a numerically chosen alpha (every alpha gives a valid bound)
 * and rounded upward.  At most 1.
 */
double		jl_zcdp_delta(double rho, double epsilon);

/* The smallest epsilon with jl_zcdp_delta(rho, epsilon) <= delta (bisection, upper end). */
double		jl_zcdp_epsilon(double rho, double delta);

/*
 * An upper bound on delta(epsilon) of the k-dimensional discrete Gaussian
 * N_Z(0, s^2)^k (s in grid steps) against any shift of L2 norm at most Dg
 * grid steps: the hockey-stick divergence of the noise actually sampled,
 * bounded through the continuous Gaussian that the discrete one is after
 * smoothing by N(0, r^2) (docs/design/gaussian_certificate.md).  Minimised over a
 * few smoothing widths r and tail cut-offs kappa, every one of which gives
 * a valid bound; rounded upward; at most 1.
 */
double		jl_discrete_gaussian_delta(double Dg, double s, int k,
									   double epsilon);

/*
 * The same bound for one smoothing width r and cut-off kappa (exposed for
 * the unit tests).
 */
double		jl_discrete_gaussian_delta_at(double Dg, double s, int k,
										  double epsilon, double r,
										  double kappa);

/*
 * Discrete Gaussian N_Z(0, s^2): Pr[Y = y] proportional to
 * exp(-y^2 / (2 s^2)), 1 <= s <= JL_GAUSSIAN_MAX_S, by rejection from the
 * discrete Laplace of scale s (Canonne, Kamath, Steinke 2020, Algorithm 3
 * with t = s): accept Y with probability exp(-(|Y| - s)^2 / (2 s^2)).  Exact:
 * integer arithmetic on random bits only.  laplace_table: the sampler table
 * of jl_laplace_table_fill(s, .), or NULL.
 */
int64_t		jl_discrete_gaussian(JlRandom *r, uint64_t s,
								 const uint32_t *laplace_table);

/*
 * The faster exact samplers, with a table of jl_gaussian_table_entries(s)
 * words filled by jl_gaussian_table_fill:
 *   - s <= JL_GAUSSIAN_ALIAS_MAX_S: |Y| from one lookup in an alias table
 *     over |y| < 4 s with weights exp(-y^2 / (2 s^2)) (math/noise/exp_alias.h:
 *     rejection sampling in which the cells above the curve are left out),
 *     whose tail outcome (|y| >= 4 s; 1.6e-3 of the draws for large s,
 *     4.4e-3 at s = 1) goes to an exact rejection sampler under a geometric
 *     envelope (gaussian.c), and a sign;
 *   - larger s: the rejection sampler above with the discrete Laplace's
 *     table (jl_laplace_table_fill(s, .)) followed by, for a = ||Y| - s| <=
 *     4 s, the acceptance exp(-a^2 / (2 s^2)) split into whole powers of
 *     exp(-1) and 16-bit bounds on the rest.
 * Either way the distribution is exactly N_Z(0, s^2).  For
 * s > JL_GAUSSIAN_TABLE_MAX_S there is no table (entries 0).
 */
#define JL_GAUSSIAN_TABLE_MAX_S 46340	/* 2 s^2 < 2^32 */
#define JL_GAUSSIAN_ALIAS_MAX_S 32767	/* 4 s outcomes <= 131071, 2 s^2 < 2^32 */
uint64_t	jl_gaussian_table_entries(uint64_t s);
void		jl_gaussian_table_fill(uint64_t s, uint32_t *table);
int64_t		jl_discrete_gaussian_table(JlRandom *r, uint64_t s,
									   const uint32_t *table);
/* n independent samples of the same into out (one call for a row's noise) */
void		jl_discrete_gaussian_table_n(JlRandom *r, uint64_t s,
										 const uint32_t *table, int64_t *out,
										 int n);

#endif
