/*
 * kmeans_option.c - the k-means mechanism weighed by the advisor for goal
 * clustering (advice.h, math/estimate/advise.h): calibrated as a release
 * would be for the geometry the neighbour notion and bound give, and its
 * misclassification predicted from the noise on the two centroids.
 */
#include "postgres.h"

#include <math.h>

#include "math/analytics/dp_kmeans.h"
#include "math/estimate/advise.h"

#include "pg/advice/advice.h"

#define KM_CLUSTERS 2
#define KM_ITERATIONS 5

void
jl_advise_kmeans_option(const JlAdviseArgs *a, JlAdviseKmeans *o)
{
	JlDpKmeansSpec spec;
	JlDpKmeansCalibration cal;
	int			d = (int) a->p.d;
	double		R,
				D,
				half;
	double	   *lo,
			   *hi,
			   *centre;

	memset(o, 0, sizeof(*o));
	o->clusters = KM_CLUSTERS;
	o->iterations = KM_ITERATIONS;
	o->applies = a->p.goal == JL_GOAL_CLUSTERING && isfinite(a->p.n) && a->p.n >= KM_CLUSTERS &&
		!isnan(a->delta) && a->calibrate == NULL;
	if (!o->applies)
		return;
	if (a->p.d > JL_DP_KMEANS_MAX_D)
	{
		o->refusal = JL_ERR_STATS;
		return;
	}
	if (a->neighbor == JL_NEIGHBOR_ELEMENT)
	{
		/* the box [0, bound]^d about its centre */
		D = a->bound * sqrt((double) d);
		R = D / 2.0;
		half = a->bound / 2.0;
	}
	else
	{
		/* rows at most bound apart: within Jung's radius of some centre */
		D = a->bound;
		R = a->bound * sqrt((double) d / (2.0 * (d + 1.0))) * (1.0 + 1e-12);
		half = R;
	}
	lo = palloc(sizeof(double) * d);
	hi = palloc(sizeof(double) * d);
	centre = palloc(sizeof(double) * d);
	for (int i = 0; i < d; i++)
	{
		lo[i] = -half;
		hi[i] = half;
		centre[i] = 0.0;
	}
	spec.k = KM_CLUSTERS;
	spec.d = d;
	spec.iterations = KM_ITERATIONS;
	spec.epsilon = a->epsilon;
	spec.delta = a->delta;
	spec.lo = lo;
	spec.hi = hi;
	spec.centre = centre;
	spec.radius = R;
	spec.diameter = D;
	o->refusal = jl_dp_kmeans_calibrate(&spec, &cal);
	pfree(lo);
	pfree(hi);
	pfree(centre);
	if (o->refusal != JL_OK)
		return;
	o->found = true;
	o->sum_sd = cal.sum_sd;
	o->count_sd = cal.count_sd;
	/*
	 * a centroid is its noisy sum over its noisy count, n / 2 rows: the
	 * sum's noise, and the count's relative noise times an offset from the
	 * centre of about R / sqrt(d) per coordinate
	 */
	{
		double		m = a->p.n / KM_CLUSTERS;

		o->tau2 = (cal.sum_sd * cal.sum_sd + R * R / d * cal.count_sd * cal.count_sd) / (m * m);
	}
	o->score = jl_advise_kmeans_score(&a->p, a->p.lo, o->tau2);
	o->score_hi = jl_advise_kmeans_score(&a->p, a->p.hi, o->tau2);
}
