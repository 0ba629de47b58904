/*
 * lloyd_from.c - Lloyd iterations of jl_kmeans_lloyd_from on points and a
 * start read from files: the driver of the comparison with a numpy Lloyd
 * and with scikit-learn from the same start (test/statistical/kmeans_reference.py)
 * and of the benchmark against scikit-learn (test/bench/bench_kmeans.py).
 *
 *   lloyd_from X.bin C0.bin n k c max_iter tol reps [centroids.bin]
 *
 * X.bin: n x k float64, row-major; C0.bin: c x k.  Prints the fastest of
 * reps runs: "iterations seconds inertia"; writes the final centroids to
 * centroids.bin when given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "math/analytics/kmeans.h"

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void
read_file(const char *path, double *v, size_t count)
{
	FILE	   *f = fopen(path, "rb");

	if (!f || fread(v, sizeof(double), count, f) != count)
	{
		fprintf(stderr, "cannot read %zu doubles from %s\n", count, path);
		exit(2);
	}
	fclose(f);
}

int
main(int argc, char **argv)
{
	int64_t		n;
	int			k,
				c,
				max_iter,
				reps,
				r,
				iterations = 0;
	double		tol,
				best = -1.0,
				inertia = 0.0;
	double	   *X,
			   *C0,
			   *C;
	void	   *work;

	if (argc != 9 && argc != 10)
	{
		fprintf(stderr, "usage: %s X.bin C0.bin n k c max_iter tol reps [centroids.bin]\n", argv[0]);
		return 2;
	}
	n = atoll(argv[3]);
	k = atoi(argv[4]);
	c = atoi(argv[5]);
	max_iter = atoi(argv[6]);
	tol = atof(argv[7]);
	reps = atoi(argv[8]);
	X = malloc(sizeof(double) * n * k);
	C0 = malloc(sizeof(double) * c * k);
	C = malloc(sizeof(double) * c * k);
	work = malloc(jl_kmeans_work_bytes(n, k, c));
	if (!X || !C0 || !C || !work)
		return 2;
	read_file(argv[1], X, (size_t) n * k);
	read_file(argv[2], C0, (size_t) c * k);
	for (r = 0; r < reps; r++)
	{
		double		t;

		memcpy(C, C0, sizeof(double) * c * k);
		t = now();
		inertia = jl_kmeans_lloyd_from(X, n, k, c, max_iter, tol, C, work, &iterations, NULL);
		t = now() - t;
		if (best < 0.0 || t < best)
			best = t;
	}
	printf("%d %.6f %.17g\n", iterations, best, inertia);
	if (argc == 10)
	{
		FILE	   *f = fopen(argv[9], "wb");

		if (!f || fwrite(C, sizeof(double), (size_t) c * k, f) != (size_t) c * k || fclose(f) != 0)
		{
			fprintf(stderr, "cannot write %s\n", argv[9]);
			return 2;
		}
	}
	return 0;
}
