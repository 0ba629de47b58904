/*
 * suggest_k.h - choosing the projection dimension k: scikit-learn's
 * distortion-only bound and the variance-minimizing k of Kenthapadi et al.
 * (section 3.3) for noise calibrated to the realized projection.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_SUGGEST_K_H
#define JLDP_MATH_SUGGEST_K_H

#include <stdbool.h>
#include <stdint.h>

/*
 * scikit-learn's johnson_lindenstrauss_min_dim(n, eps=eps), computed as it
 * does: (4 log(n) / (eps^2/2 - eps^3/3)) truncated towards zero (numpy's
 * astype(int64)), eps**2 as eps*eps and eps**3 by pow.  The caller checks
 * n >= 1 and 0 < eps < 1.
 */
double		jl_min_dim(int64_t n, double eps);

/*
 * The distortion eps in (0, 1) at which jl_min_dim(n, eps) is about k: the
 * root of eps^2/2 - eps^3/3 = 4 log(n) / k; NaN when there is none (k below
 * 24 log n, where even eps -> 1 needs a larger k).  n >= 2, k >= 1.
 */
double		jl_distortion_at(int64_t n, int k);

/*
 * Variance of a recovered squared distance with per-coordinate noise
 * variance s2 at true squared distance r2, over the projection and the
 * noise (DESIGN.md): 2 r2^2/k + 8 s2 r2 + c k s2^2 with c = 14 (Laplace)
 * or 8 (Gaussian).
 */
double		jl_dist_variance(double r2, int k, double s2, bool gaussian);

/*
 * Its square root, computed on (r2, s2) scaled by their maximum (the
 * variance is homogeneous of degree 2 in them), so that it is finite
 * whenever the result is: huge distances or noise do not overflow.
 */
double		jl_dist_stddev(double r2, int k, double s2, bool gaussian);

/*
 * The per-coordinate noise variance of a release with dimension k, from
 * the calibration to the realized projection; NaN if no release with this
 * k is possible (e.g. a paper calibration that does not cover P).
 */
typedef double (*JlNoiseVarianceFn) (void *ctx, int k);

typedef struct JlSuggest
{
	int			k;				/* the suggestion */
	double		noise_variance; /* at k */
	double		objective;		/* what k minimizes (see below) */
	int			evaluations;	/* calibrations computed */
	bool		at_limit;		/* k = kmax: a larger k might be better */
	int			k_lo_best;		/* best evaluated k for r2 = lo alone */
	int			k_hi_best;		/* best evaluated k for r2 = hi alone */
} JlSuggest;

#define JL_SUGGEST_GRID 9		/* squared distances probed in a range */
#define JL_SUGGEST_MAX_EVALS 200

/*
 * The k in 1..kmax that minimizes, for lo == hi, the variance of recovered
 * squared distances at r2 = lo; for lo < hi, the largest over r2 in [lo,
 * hi] (JL_SUGGEST_GRID log-spaced points) of the ratio of the stddev at k to
 * the smallest stddev any evaluated k gives at that r2 (the k that loses
 * least, at worst, against choosing k for each distance separately).  The
 * relative stddev itself always is worst at lo, so minimizing it would
 * ignore hi.
 *
 * Search: k on a geometric grid (ratio 1.25) from 1 upwards until the noise
 * term alone, c k s2^2, exceeds 4 times the best variance at hi (the
 * variance grows with k beyond its minimum, as s2 does not fall with k);
 * then a ternary search between the grid neighbours of the best grid k and
 * a scan of the last few integers.  The variance is about convex in k but
 * s2 comes from a different realized P for each k, so the result is the
 * best k evaluated, not a certified optimum.  Returns false if no k was
 * feasible.
 */
bool		jl_suggest_k_search(double lo, double hi, bool gaussian, int kmax,
								JlNoiseVarianceFn fn, void *ctx,
								JlSuggest *out);

#endif
