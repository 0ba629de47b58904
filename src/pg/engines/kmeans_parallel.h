/*
 * kmeans_parallel.h - k-means of points held in memory, its assignment
 * steps in parallel workers when the work is large enough: for jl_kmeans
 * and jl_kmeans_relation (api/analytics).
 */
#ifndef JLDP_PG_KMEANS_PARALLEL_H
#define JLDP_PG_KMEANS_PARALLEL_H

#include "postgres.h"

/* the interrupt check the plain-C k-means calls */
extern void jl_kmeans_tick(void);

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
