/*
 * distributed_kmeans.c - the two halves of a Lloyd step.  Each shard sums
 * its own points (jl_lloyd_accumulate); the coordinator adds the shards'
 * sums in a fixed order and divides (jl_lloyd_update), moving m (k + 1)
 * numbers per shard instead of the points.
 */
#include "math/analytics/distributed_kmeans.h"

#include <string.h>

#include "math/analytics/kmeans.h"

void
jl_lloyd_accumulate(const double *x, const double *centroids, int m, int k,
					double *acc)
{
	int			j = jl_kmeans_nearest(x, centroids, m, k, NULL);
	double	   *row = acc + (size_t) j * (k + 1);

	jl_vector_add(row, x, (size_t) k);
	row[k] += 1.0;
}

void
jl_vector_add(double *acc, const double *x, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		acc[i] += x[i];
}

int
jl_lloyd_update(const double *acc, const double *old, int m, int k, double *out)
{
	int			j,
				i,
				changed = 0;

	for (j = 0; j < m; j++)
	{
		const double *row = acc + (size_t) j * (k + 1);
		double		count = row[k];
		double	   *o = out + (size_t) j * k;

		for (i = 0; i < k; i++)
			o[i] = count > 0 ? row[i] / count : old[(size_t) j * k + i];
		if (memcmp(o, old + (size_t) j * k, sizeof(double) * k) != 0)
			changed++;
	}
	return changed;
}
