/*
 * kmeans.h - what the k-means glue shares with the distributed Lloyd steps.
 */
#ifndef JLDP_PG_KMEANS_H
#define JLDP_PG_KMEANS_H

#include "postgres.h"

#include "utils/array.h"

/* m x k centroids: a two-dimensional float8[] of finite values, or ERROR */
extern double *jl_read_centroids(ArrayType *a, int *m, int *k);

#endif
