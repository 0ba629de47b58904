/*
 * accountant.h - the composition of a dataset's releases (docs/design/
 * accounting.md): the tightest of several valid bounds on the (epsilon,
 * delta) that the releases together satisfy, never worse than basic
 * composition.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_ACCOUNTANT_H
#define JLDP_MATH_ACCOUNTANT_H

#include <stdbool.h>
#include <stdint.h>

#include "math/base/status.h"

typedef enum JlProfileKind
{
	JL_PROFILE_PURE = 1,		/* epsilon-DP (Laplace noise, randomized
								 * response, the dist2 release) */
	JL_PROFILE_ZCDP = 2,		/* rho-zCDP (the discrete Gaussian sampled),
								 * stated at (epsilon, delta) */
	JL_PROFILE_APPROX = 3		/* only its (epsilon, delta) is known (the
								 * covariance and graph releases): composes
								 * by basic composition */
} JlProfileKind;

typedef struct JlProfile
{
	JlProfileKind kind;
	double		epsilon;		/* as stated by the release */
	double		delta;			/* 0 for pure */
	double		rho;			/* zCDP only */
	double		mu;				/* zCDP only, when known (else 0 or NaN): a
								 * Gaussian shift N(mu, 1) that, with an atom
								 * of delta * JL_GDP_DELTA0_SHARE on one side,
								 * dominates the release
								 * (math/noise/gaussian_dominance.h) */
} JlProfile;

/* the dominating pair's atom, as a share of the release's delta */
#define JL_GDP_DELTA0_SHARE (1.0 / 1024.0)

/* Whether a profile carries a dominating Gaussian shift. */
bool		jl_profile_has_mu(const JlProfile *p);

typedef struct JlComposition
{
	double		basic_epsilon;	/* sum of epsilons */
	double		basic_delta;	/* sum of deltas */
	double		rdp_epsilon;	/* at delta: Renyi DP (INFINITY if none) */
	double		pld_epsilon;	/* at delta: the privacy loss distribution of
								 * the pure releases and the Gaussian ones
								 * with a dominating shift, with the rest
								 * (INFINITY if none) */
	double		epsilon;		/* the least of the valid ones */
	double		delta;			/* at which epsilon holds */
	const char *method;			/* "basic", "rdp" or "pld" */
} JlComposition;

/* Whether a profile is one a release can state (finite, in range). */
bool		jl_profile_valid(const JlProfile *p);

/*
 * Compose n profiles at the target delta (0 <= delta < 1): every method's
 * epsilon at delta, and the least.  With delta 0, or below the sum of the
 * approximate releases' deltas, only basic composition applies (at its own
 * delta).  JL_ERR_EPSILON for an invalid profile.
 */
JlStatus	jl_compose(const JlProfile *p, int n, double delta, JlComposition *out);

/* The Renyi divergence of order alpha > 1 of randomized response with
 * epsilon: the most any epsilon-DP mechanism has (Mironov 2017). */
double		jl_rdp_pure(double epsilon, double alpha);

/* The epsilon at delta of a mechanism with RDP curve rdp (at the orders
 * jl_rdp_order(0 .. JL_RDP_ORDERS - 1)), by Canonne, Kamath and Steinke's
 * conversion. */
#define JL_RDP_ORDERS 160
double		jl_rdp_order(int i);
double		jl_rdp_to_epsilon(const double *rdp, double delta);

/* delta(epsilon) of the composition of randomized responses with these
 * epsilons, each rounded up to the grid h (exact for the rounded ones). */
double		jl_pld_pure_delta(const double *eps, int n, double h, double epsilon);

#endif
