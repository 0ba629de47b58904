/*
 * gaussian_dominance.h - a continuous Gaussian shift that dominates the
 * discrete Gaussian noise a release samples, so that Gaussian releases
 * compose by their privacy loss distributions (docs/design/accounting.md).
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_GAUSSIAN_DOMINANCE_H
#define JLDP_MATH_GAUSSIAN_DOMINANCE_H

/* delta0 = the release's delta times JL_GDP_DELTA0_SHARE (accountant.h) */
#include "math/accounting/accountant.h"

/*
 * A mu such that the k-dimensional discrete Gaussian N_Z(0, s^2)^k (s in
 * grid steps) against any shift of L2 norm at most Dg grid steps has, at
 * every real epsilon, a privacy profile at most
 *     delta0 + (1 - delta0) delta_mu(epsilon)
 * (math/accounting/gaussian_profile.h): the pair "N(mu, 1) with an atom of
 * mass delta0 that only one side has" dominates the release.  The least
 * such mu found on a grid of epsilons, each step covered by monotonicity;
 * NaN when none is found (0 < delta0 < 1, Dg > 0, s > 0, k >= 1 needed).
 */
double		jl_discrete_gaussian_mu(double Dg, double s, int k, double delta0);

#endif
