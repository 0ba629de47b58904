/*
 * kmeans.h - what the k-means glue shares with the distributed Lloyd steps.
 */
#ifndef JLDP_PG_KMEANS_H
#define JLDP_PG_KMEANS_H

#include "postgres.h"

#include "utils/array.h"

#include "pg/engines/kmeans_parallel.h"

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

/* an m x k float8[][] with lower bounds 1 */
extern ArrayType *jl_kmeans_matrix(const double *v, int m, int k);

#endif
