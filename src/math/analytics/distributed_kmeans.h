/*
 * distributed_kmeans.h - one Lloyd step split into a per-shard part (the
 * sums and counts of the points nearest each centroid) and a coordinator
 * part (the new centroids from the summed parts).
 *
 * Plain C (no postgres.h), unit-tested in test/unit/test_distributed_kmeans.c.
 */
#ifndef JLDP_MATH_DISTRIBUTED_KMEANS_H
#define JLDP_MATH_DISTRIBUTED_KMEANS_H

#include <stddef.h>

/*
 * Add point x (k values) to acc, m x (k + 1) row-major: row j holds the sum
 * of the points whose nearest centroid (squared L2, lowest row on ties, as
 * jl_kmeans_nearest) is row j of centroids (m x k), then their count.
 */
void		jl_lloyd_accumulate(const double *x, const double *centroids,
								int m, int k, double *acc);

/* acc[i] += x[i] for n values */
void		jl_vector_add(double *acc, const double *x, size_t n);

/*
 * The centroids after the step: row j of out is the mean of its points
 * (sum / count), or row j of old when no point is nearest it.  Returns how
 * many rows differ from old in any bit (0: converged).
 */
int			jl_lloyd_update(const double *acc, const double *old, int m, int k,
							double *out);

#endif
