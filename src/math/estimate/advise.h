/*
 * advise.h - which release to use: no projection (P = I_d, k = d) or one of
 * the projection kinds at its best k, with Laplace or Gaussian noise, ranked
 * by the predicted error of what the sketches are for.
 *
 * Each candidate's error is predicted from its per-coordinate noise variance
 * s2 (the calibration to the realized P, computed by the caller) and k:
 *
 *   distance:   the stddev of a recovered squared distance at r2,
 *               sqrt(f r2^2 + 8 s2 r2 + c k s2^2), c = 14 (Laplace) or 8
 *               (Gaussian), f r2^2 the mean squared distortion of the
 *               realized P over directions of the difference (f = 0 without a
 *               projection; f = 2/k, its average over keys, where P's Gram
 *               matrix is not computed).
 *   clustering: the misclassification probability of the nearest-centre rule
 *               between two isotropic clusters whose centres are r2 apart
 *               (squared), each attribute varying by cluster_var around its
 *               centre: P(T_k > c) for a projection (T_k Student's t with k
 *               degrees of freedom: the chi-square law of |(mu2 - mu1) P|^2),
 *               Phi(-c) without one, where
 *               c = r / (2 sigma) / sqrt(2 + 3 k sigma^2 / r2),
 *               sigma^2 = cluster_var rho + s2, rho the spread along the
 *               projected centre difference of the realized P (JlPShape;
 *               its mean over keys (d + k + m4 - 2)/k, m4 =
 *               E[(sqrt(k) P_ij)^4]; 1 without a projection), r2 scaled by
 *               the realized P's mean squared length |x P|^2/|x|^2 (the
 *               signal the noise was calibrated against), and the last factor
 *               the cost of centres that k-means must find from single rows
 *               (its seeds; the factor is 1 when n is not given, centres
 *               known).
 *   neighbors:  the probability that a search ranks a non-neighbour at
 *               squared distance hi before a neighbour at lo: Phi(-(hi - lo)
 *               / sqrt(v(lo) + v(hi))), v the variance of a recovered
 *               squared distance as for goal distance, the two recoveries
 *               taken as independent and normal.
 * docs/design/internals.md derives them.
 *
 * Errors are compared as scores, the natural logarithm of the error, so that
 * a misclassification probability below the smallest double still ranks.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_ADVISE_H
#define JLDP_MATH_ADVISE_H

#include <stdbool.h>
#include <stdint.h>


typedef enum JlAdviseGoal
{
	JL_GOAL_DISTANCE = 0,
	JL_GOAL_CLUSTERING = 1,
	JL_GOAL_NEIGHBORS = 2
} JlAdviseGoal;

/* What the sketches are for, shared by every candidate. */
typedef struct JlAdviseProblem
{
	int64_t		d;
	double		lo,
				hi;				/* squared distances: dist2, dist2_hi (for
								 * neighbors: a neighbour's, a non-neighbour's) */
	JlAdviseGoal goal;
	double		cluster_var;	/* clustering: per-attribute variance */
	double		n;				/* clustering: rows; INFINITY: centres known */
} JlAdviseProblem;

#define JL_ADVISE_GRID 9		/* squared distances probed in a range */
#define JL_ADVISE_MAX_EVALS 200

/* One release option: a projection kind (or none) with one noise. */
/*
 * What the advisor knows of a realized P (d x k), from its Gram matrix
 * G = P^T P; a field NaN where G was not computed (its mean over keys is
 * used then):
 *   f       the distortion factor (jl_p_shape; mean 2/k),
 *   scale   tr(G)/d, the mean of |x P|^2/|x|^2 over directions x (mean 1;
 *           exactly 1 for Rademacher and P = I),
 *   spread  tr(G^2)/tr(G), the ratio of means over directions of
 *           |P^T w|^2/|w|^2 for w = x P, the spread of isotropic clusters
 *           along a projected centre difference (mean (d + k + m4 - 2)/k).
 */
typedef struct JlPShape
{
	double		f;
	double		scale;
	double		spread;
} JlPShape;

typedef struct JlAdviseCandidate
{
	/* set by the caller */
	bool		identity;		/* P = I_d: k = d, no distortion */
	bool		gaussian;		/* noise */
	double		m4;				/* E[(sqrt(k) P_ij)^4]: 3 Gaussian and
								 * Achlioptas, 1 Rademacher, 1/s sparse */

	/* the (k, s2) evaluated: s2 NaN where the calibration refused */
	int			n;
	int			ks[JL_ADVISE_MAX_EVALS];
	double		s2s[JL_ADVISE_MAX_EVALS];
	JlPShape	shapes[JL_ADVISE_MAX_EVALS];	/* of each P evaluated */
	bool		at_limit;		/* the search reached its largest k */

	/* results of jl_advise_rank */
	bool		found;			/* some k was feasible */
	int			k;
	double		noise_variance;
	double		distortion;		/* f at k (0 without a projection) */
	JlPShape	shape;			/* of the P at k */
	double		score;			/* log of the error at lo */
	double		score_hi;		/* log of the error at hi */
	double		objective;		/* lo == hi: score; else the largest log
								 * ratio over [lo, hi] to the best error */
	double		relative;		/* error over the best candidate's; for a
								 * range, the worst ratio to the best */
	int			rank;			/* 1 = best; 0 when not found */
} JlAdviseCandidate;

/*
 * s2 of a release at k (NaN: refused) and into *shape what is known of its
 * P (fields NaN: not computed, their means over keys are used).
 */
typedef double (*JlAdviseFn) (void *ctx, int k, JlPShape *shape);

/* A shape with every field unknown (NaN). */
JlPShape	jl_p_shape_unknown(void);

/*
 * The log of the error of one option at r2 (see the top of this file);
 * shape NULL or its fields NaN: their means over keys.
 */
double		jl_advise_score(const JlAdviseProblem *p, const JlAdviseCandidate *c,
							double r2, int k, double s2, const JlPShape *shape);

/* The error itself: exp(score), 0 where that underflows. */
double		jl_advise_error(double score);

/*
 * Whether an error at p->lo serves the goal: a recovered squared distance
 * whose standard deviation is below the distance itself (distance), or a
 * misclassification (misordering) probability below
 * JL_ADVISE_USEFUL_MISCLASSIFICATION, half of chance for two clusters
 * (clustering) or for a pair of a neighbour and a non-neighbour (neighbors).
 */
#define JL_ADVISE_USEFUL_MISCLASSIFICATION 0.25
bool		jl_advise_useful(const JlAdviseProblem *p, double error);

/*
 * The clustering error with no noise and no projection (s2 = 0, P = I):
 * what no epsilon can improve on.  0 for goal distance.
 */
double		jl_advise_noise_free_error(const JlAdviseProblem *p);

/* Variance of a recovered squared distance, f as in jl_advise_score. */
double		jl_advise_dist_variance(double r2, int k, double s2, double f,
									bool gaussian, bool identity);

/*
 * Its square root, computed on (r2, s2) scaled by their maximum (the
 * variance is homogeneous of degree 2 in them), so that it is finite
 * whenever the result is: huge distances or noise do not overflow.
 */
double		jl_advise_dist_stddev(double r2, int k, double s2, double f,
								  bool gaussian, bool identity);

/*
 * The shape of the realized P (d x k, row-major), from its Gram matrix:
 * f, the distortion factor, is the mean of (|x P|^2 - |x|^2)^2 / |x|^4
 * over x uniform on the sphere,
 * ((2 tr(A^2) + tr(A)^2) / (d (d + 2)) - 2 tr(A) / d + 1) with A = P P^T,
 * whose average over Gaussian P is 2/k, DESIGN.md's term; scale and spread
 * as in JlPShape.  O(d k^2) with dsyrk and k^2 doubles of memory; fields
 * NaN if those cannot be allocated.
 */
JlPShape	jl_p_shape(const double *P, int64_t d, int k);

/* log Phi(-c), accurate far into the tail */
double		jl_log_normal_tail(double c);

/* log P(T_nu > c) for Student's t with nu >= 1 degrees of freedom */
double		jl_log_t_tail(double c, double nu);

/* The candidate at k = d without a search (P = I): one evaluation. */
void		jl_advise_fixed(JlAdviseCandidate *c, int k, double s2);

/*
 * Evaluate the candidate at the k in 1..kmax worth trying: a geometric grid
 * from k = 1 (ratio 1.25) until the noise alone makes the error at hi twice
 * the best so far, then a ternary search between the grid neighbours of the
 * best grid k.  others[0..nothers-1], already evaluated, set the best error
 * at each squared distance of a range.
 */
void		jl_advise_search(const JlAdviseProblem *p, JlAdviseCandidate *c,
							 int kmax, JlAdviseFn fn, void *ctx,
							 const JlAdviseCandidate *others, int nothers);

/*
 * Pick each candidate's best evaluated k and rank the candidates: by
 * objective, then by their order in cs (earlier first), ties of k by the
 * smaller k.  Returns the index of the best, -1 if none was feasible.
 */
int			jl_advise_rank(const JlAdviseProblem *p, JlAdviseCandidate *cs, int n);

/*
 * The dimension d beyond which a projection with this k, noise variance s2
 * and distortion factor f has a smaller distance error at r2 than no
 * projection with noise variance s2_identity (the same at every d: element
 * neighbours, or Gaussian noise): the two variances set equal, solved for d.
 */
double		jl_advise_d_needed(double r2, int k, double s2, double f,
							   double s2_identity, bool gaussian);

/*
 * The k-means mechanism (math/analytics/dp_kmeans.h) for goal clustering:
 * the log of the misclassification probability of a row between two
 * clusters whose centres are r2 apart (squared), each attribute varying by
 * cluster_var around its centre, labelled by the nearer of the two
 * released centroids, each off its centre by tau2 per coordinate (the
 * release's noise over the cluster's rows): with x = mu1 + e and centroids
 * mu1 + u, mu2 + v, |x - c2|^2 - |x - c1|^2 has mean r2 and variance
 * 4 r2 (s + t) + 4 d t^2 + 8 d s t (s = cluster_var, t = tau2), and the
 * probability is Phi(-r2 / sqrt(that)).  It assumes Lloyd's iterations
 * find the two clusters (their local optima are not modelled).
 */
double		jl_advise_kmeans_score(const JlAdviseProblem *p, double r2, double tau2);

#endif
