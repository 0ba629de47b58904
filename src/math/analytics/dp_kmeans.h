/*
 * dp_kmeans.h - differentially private k-means over encoded rows (noisy
 * Lloyd iterations: each releases every cluster's sum and count with
 * discrete Gaussian noise; docs/design/dp_kmeans.md).
 *
 * Plain C (no postgres.h): the caller owns every buffer and reads the rows;
 * the calibration is a pure function of the specification.
 */
#ifndef JLDP_MATH_DP_KMEANS_H
#define JLDP_MATH_DP_KMEANS_H

#include <stdbool.h>
#include <stdint.h>

#include "math/base/status.h"
#include "math/random/randbits.h"

#define JL_DP_KMEANS_MAX_K 1000
#define JL_DP_KMEANS_MAX_D 10000
#define JL_DP_KMEANS_MAX_ITERATIONS 50
#define JL_DP_KMEANS_MAX_EPSILON 1000.0

typedef struct JlDpKmeansSpec
{
	int			k;				/* clusters, 1 .. JL_DP_KMEANS_MAX_K */
	int			d;				/* coordinates of a row */
	int			iterations;		/* noisy Lloyd steps, each one released */
	double		epsilon;		/* the guarantee asked for, at delta */
	double		delta;
	/*
	 * The public geometry of the encoded rows: each lies in the box
	 * [lo, hi] and within radius of centre; two neighbouring rows are at
	 * most diameter apart (replaced, or one attribute changed: the row may
	 * change cluster either way)
	 */
	const double *lo,
			   *hi,
			   *centre;
	double		radius;
	double		diameter;
} JlDpKmeansSpec;

typedef struct JlDpKmeansCalibration
{
	double		lambda;			/* a count enters the release times lambda */
	double		sensitivity;	/* L2, per iteration, before the grid */
	double		grid;			/* g, a power of two */
	double		Dg;				/* L2 sensitivity per iteration in grid steps */
	uint64_t	s;				/* the noise: N_Z(0, s^2) grid steps a coordinate */
	double		mu_step;		/* Gaussian shift dominating one iteration, with
								 * an atom of delta / (1024 iterations) */
	double		mu;				/* the iterations composed: sqrt(T) mu_step */
	double		rho;			/* zCDP of the iterations: T Dg^2 / (2 s^2) */
	double		epsilon_effective;	/* the least epsilon certified at delta */
	double		sum_sd;			/* noise sd of a sum's coordinate (row units) */
	double		count_sd;		/* noise sd of a count */
} JlDpKmeansCalibration;

/* Whether k, d and the iterations are in range and the geometry sane. */
bool		jl_dp_kmeans_spec_ok(const JlDpKmeansSpec *spec);

/*
 * The noise that gives (epsilon, delta) for the iterations together:
 * JL_ERR_EPSILON, JL_ERR_DELTA (delta in (0, 1) needed), JL_ERR_BOUND (the
 * geometry), JL_ERR_STATS (k, d or the iterations out of range), JL_ERR_SCALE
 * (the noise past the sampler's range).
 */
JlStatus	jl_dp_kmeans_calibrate(const JlDpKmeansSpec *spec, JlDpKmeansCalibration *cal);

/*
 * The iterations for n rows when none are given: Su et al.'s rule (2016,
 * as diffprivlib applies it), from public numbers only: epsilon over
 * epsilon_m = sqrt(500 k^3 / n^2 (d + cbrt(4 d 0.225^2))^3), within 2..7.
 */
int			jl_dp_kmeans_auto_iterations(int64_t n, int k, int d, double epsilon);

/* doubles of workspace jl_dp_kmeans_run needs */
int64_t		jl_dp_kmeans_work_doubles(int k, int d);

/* The initial centroids (k x d): uniform in the public box, from r. */
void		jl_dp_kmeans_init(const JlDpKmeansSpec *spec, JlRandom *r, double *centroids);

/*
 * One iteration over n rows (row-major, n x d; each is clamped to the box
 * and scaled into the radius about the centre first): assign each row to
 * the nearest centroid, release per cluster the d sums of the rows about
 * the centre and lambda_g times the count, in grid steps, each coordinate
 * of a row rounded to the grid, with N_Z(0, s^2) noise on every
 * coordinate; then (post-processing) a centroid is the noisy sum over the
 * noisy count, clamped to the box; a cluster whose noisy count is below one
 * count's noise sd (empty, as far as the release tells) is seeded again
 * beside the centroid of the largest, a step of a tenth of the box's
 * narrowest side in a direction drawn from r, so that it may split it.  counts (k) gets the noisy counts; released (k (d +
 * 1), or NULL) the released vector, exact (or NULL) the same before the
 * noise (for tests).
 */
void		jl_dp_kmeans_step(const JlDpKmeansSpec *spec, const JlDpKmeansCalibration *cal,
							  const double *rows, int64_t n, JlRandom *r, double *centroids,
							  double *counts, double *released, double *exact, double *work);

/* jl_dp_kmeans_init, then the spec's iterations of jl_dp_kmeans_step. */
void		jl_dp_kmeans_run(const JlDpKmeansSpec *spec, const JlDpKmeansCalibration *cal,
							 const double *rows, int64_t n, JlRandom *r,
							 double *centroids, double *counts, double *work);

#endif
