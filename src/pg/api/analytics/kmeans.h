/*
 * kmeans.h - what the k-means glue shares with the distributed Lloyd steps.
 */
#ifndef JLDP_PG_KMEANS_H
#define JLDP_PG_KMEANS_H

#include "postgres.h"

#include "utils/array.h"

/* m x k centroids: a two-dimensional float8[] of finite values, or ERROR */
extern double *jl_read_centroids(ArrayType *a, int *m, int *k);

/* scikit-learn's relative tolerance of the centroids' shift */
#define JL_KMEANS_DEFAULT_TOL 1e-4

/* the most bytes of points one k-means holds (one serialized state, < 1 GB) */
#define JL_KMEANS_MAX_BYTES (MaxAllocSize - VARHDRSZ - 64)

/* ERROR unless n_clusters, max_iter and n_init are within their ranges */
extern void jl_kmeans_check_params(int c, int max_iter, int n_init);

/* ERROR: more than JL_KMEANS_MAX_BYTES of points (n of k dimensions) */
extern void jl_kmeans_too_large(int64 n, int32 k);

/* the interrupt check the plain-C k-means calls */
extern void jl_kmeans_tick(void);

/* an m x k float8[][] with lower bounds 1 */
extern ArrayType *jl_kmeans_matrix(const double *v, int m, int k);

/*
 * The n points X made ready for jl_kmeans_run_parallel: ERROR (22003)
 * unless their largest coordinate lies within the magnitudes k-means
 * computes with, then sorted (interruptible).
 */
extern void jl_kmeans_prepare(double *X, int64 n, int k);

/*
 * jl_kmeans_run of the n sorted points X (kmeans_parallel.c), its
 * assignment steps in up to max_parallel_workers_per_gather parallel
 * workers when the work is large enough and the caller is not in parallel
 * mode (*workers: how many were launched); the same result as serially.
 * With free_points, X (palloc'd) is freed, after its copy into shared
 * memory when workers run, so that the points are held once.  sizes (m,
 * if not NULL): each centroid's number of points.
 */
extern int	jl_kmeans_run_parallel(double *X, int64 n, int k, int c, uint64 seed,
								   int max_iter, double tol, int n_init, double *centroids,
								   int *iterations, double *inertia, int *workers,
								   int64 *sizes, bool free_points);

#endif
