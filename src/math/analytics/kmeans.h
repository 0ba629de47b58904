/*
 * kmeans.h - k-means over sketches: k-means++ seeding from a seeded
 * deterministic generator, then Lloyd iterations.
 *
 * Plain C (no postgres.h): the caller owns every buffer, so the PostgreSQL
 * glue can account for memory and the unit tests can run without a server.
 */
#ifndef JLDP_MATH_KMEANS_H
#define JLDP_MATH_KMEANS_H

#include <stddef.h>
#include <stdint.h>

/*
 * An assignment step done by the caller (parallel workers): assign(arg)
 * assigns every point to the centroids jl_kmeans_run has just put, blocked,
 * in the work's blocked array, writing the work's labels and distances
 * (jl_kmeans_work_layout) as jl_kmeans_assign_range does for each range of
 * points, and returns how many labels changed.
 */
typedef struct JlKmeansAssigner
{
	int64_t		(*assign) (void *arg);
	void	   *arg;
} JlKmeansAssigner;

/* workspace of jl_kmeans_run, in bytes (n points, c clusters, k dimensions) */
size_t		jl_kmeans_work_bytes(int64_t n, int k, int c);

/*
 * Sort n points of k coordinates (row-major) lexicographically, -0.0 made
 * 0.0 first (so that equal points are the same bits).  The result of
 * jl_kmeans_run on sorted points does not depend on the order the points
 * arrived in, which makes the aggregate the same in serial and parallel
 * plans.  A merge sort of the row numbers in scratch
 * (jl_kmeans_sort_bytes(n, k), which jl_kmeans_work_bytes(n, k, c)
 * exceeds), then the rows moved; tick, if not NULL, is called within.
 * n < 2^31.
 */
size_t		jl_kmeans_sort_bytes(int64_t n, int k);
void		jl_kmeans_sort(double *X, int64_t n, int k, void *scratch, void (*tick) (void));

/*
 * The magnitudes k-means computes with: every squared distance and sum of
 * squares between points of at most JL_KMEANS_MAX_MAGNITUDE stays finite,
 * and the largest at least JL_KMEANS_MIN_MAGNITUDE keeps them from
 * underflowing.  jl_kmeans_check_range: 1 if a coordinate is larger, -1 if
 * the largest is smaller (and not 0), else 0.
 */
#define JL_KMEANS_MAX_MAGNITUDE 1e150
#define JL_KMEANS_MIN_MAGNITUDE 1e-150
int			jl_kmeans_check_range(const double *X, int64_t n, int k);

/* number of distinct points among n sorted points; tick as above */
int64_t		jl_kmeans_distinct(const double *X, int64_t n, int k, void (*tick) (void));

/*
 * k-means of n >= 1 sorted points X (n x k) into at most c clusters.
 *
 * If the points have at most c distinct values, the centroids are those
 * values in sorted order (every point is its own centroid) and the result
 * has fewer than c rows when there are fewer than c of them.  Otherwise
 * n_init >= 1 runs, each a k-means++ seeding driven by ChaCha20 then Lloyd
 * iterations (jl_kmeans_lloyd_from: until no assignment changes, the
 * centroids move less than tol allows, or max_iter iterations), and the run
 * with the lowest inertia (sum of squared distances to the nearest
 * centroid) wins, the earliest on ties.  The first run is seeded by seed,
 * so n_init = 1 is that run alone; the seeds of the others are the words of
 * a ChaCha20 stream keyed by seed in a domain of its own.  A cluster left
 * empty by an assignment is re-seeded with the point farthest from its
 * centroid (taken from a cluster of two or more points).  Ties go to the
 * lowest index.
 *
 * centroids: c x k output; work: jl_kmeans_work_bytes(n, k, c) bytes.
 * Returns the number of centroids written; *iterations gets the number of
 * Lloyd iterations of the winning run and *inertia its inertia (0 when the
 * centroids are the distinct points).  tick, if not NULL, is called once per
 * pass over the points and within long passes (the caller's interrupt
 * check).
 */
int			jl_kmeans_run(const double *X, int64_t n, int k, int c,
						  uint64_t seed, int max_iter, double tol, int n_init,
						  double *centroids, void *work, int *iterations,
						  double *inertia, void (*tick) (void),
						  const JlKmeansAssigner *par);

/*
 * Where jl_kmeans_run keeps the labels (n), the squared distances (n) and
 * the blocked centroids in work (the same layout in every process that maps
 * it, wherever it is mapped).
 */
void		jl_kmeans_work_layout(void *work, int64_t n, int k, int c, int **label,
								  double **dist, double **blocked);

/*
 * The assignment of points from..to-1 of X to the c blocked centroids:
 * label[i] and dist[i] written (the lowest centroid on ties, each distance
 * summed in order); returns how many labels changed.  tile: KM_TILE x k
 * doubles of scratch (jl_kmeans_tile_doubles).  Ranges starting at
 * multiples of 4 give the same bits as one range over all points.
 */
int64_t		jl_kmeans_assign_range(const double *X, int64_t from, int64_t to, int k,
								   const double *blocked, int c, int *label,
								   double *dist, double *tile, void (*tick) (void));

/* the doubles of jl_kmeans_assign_range's scratch */
#define jl_kmeans_tile_doubles(k) ((size_t) 4 * (k))

/*
 * Lloyd iterations of n > c points X (n x k) from the c centroids given in
 * centroids, as scikit-learn's KMeans(algorithm='lloyd') runs them from
 * the same start: each iteration assigns every point to its nearest
 * centroid (squared L2, summed over the coordinates in order; the lowest
 * centroid on ties) and moves each centroid to the mean of its points (an
 * empty cluster re-seeded with the point farthest from its centroid);
 * stopping when no assignment changed, when the centroids' squared shifts
 * sum to at most tol times the mean variance of the coordinates
 * (scikit-learn's tol; 0: only the first), or after max_iter iterations.
 * Returns the inertia (the squared distances of the points to the final
 * centroids); *iterations as scikit-learn's n_iter_.  work as above.
 */
double		jl_kmeans_lloyd_from(const double *X, int64_t n, int k, int c,
								 int max_iter, double tol, double *centroids,
								 void *work, int *iterations,
								 void (*tick) (void));

/* index (0-based) of the centroid nearest to x (squared L2), lowest on ties */
int			jl_kmeans_nearest(const double *x, const double *centroids,
							  int m, int k, double *dist2);

#endif
