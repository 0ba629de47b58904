/*
 * test_distributed_kmeans.c - a Lloyd step split over shards equals the
 * step over all points: points summed in two parts and added give the same
 * centroids bit for bit as one pass when the parts are contiguous runs of
 * the pass's order (the order jl_kmeans_lloyd adds them in) and exact-
 * valued points; an empty cluster keeps its centroid; converged centroids
 * report 0 changes.
 */
#include "unit.h"
#include "math/analytics/distributed_kmeans.h"

#define N 600
#define K 3
#define M 4

int
main(void)
{
	static double X[N * K];
	double		c[M * K] = {0, 0, 0, 10, 10, 10, -10, 5, 0, 1000, 1000, 1000};
	double		one[M * (K + 1)] = {0},
				a[M * (K + 1)] = {0},
				b[M * (K + 1)] = {0},
				c1[M * K],
				c2[M * K];
	int			i,
				ch1,
				ch2;
	uint64_t	s = 42;

	for (i = 0; i < N * K; i++)
		X[i] = (double) ((int) (unit_splitmix64(&s) % 4001) - 2000) / 64.0;
	for (i = 0; i < N; i++)
	{
		jl_lloyd_accumulate(X + i * K, c, M, K, one);
		jl_lloyd_accumulate(X + i * K, c, M, K, i < N / 3 ? a : b);
	}
	jl_vector_add(a, b, M * (K + 1));
	check(memcmp(a, one, sizeof(one)) == 0, "two shards' sums added equal one pass's sums bit for bit");
	ch1 = jl_lloyd_update(one, c, M, K, c1);
	ch2 = jl_lloyd_update(a, c, M, K, c2);
	check(memcmp(c1, c2, sizeof(c1)) == 0, "and the same centroids");
	check(one[3 * (K + 1) + K] == 0 && memcmp(c1 + 3 * K, c + 3 * K, sizeof(double) * K) == 0,
		  "a centroid no point is nearest keeps its place");
	check(ch1 == 3 && ch2 == 3, "3 of 4 centroids moved (%d)", ch1);
	check(one[0 * (K + 1) + K] + one[1 * (K + 1) + K] + one[2 * (K + 1) + K] == N, "counts add up to n");
	for (i = 0; i < 100 && ch1 > 0; i++)
	{
		memset(one, 0, sizeof(one));
		memcpy(c, c1, sizeof(c));
		for (int p = 0; p < N; p++)
			jl_lloyd_accumulate(X + p * K, c, M, K, one);
		ch1 = jl_lloyd_update(one, c, M, K, c1);
	}
	check(ch1 == 0, "Lloyd steps converge (%d steps)", i);
	return unit_done("test_distributed_kmeans");
}
