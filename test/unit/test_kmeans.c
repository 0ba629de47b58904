/*
 * test_kmeans.c - k-means over sketches (kmeans.c).
 *
 * Deterministic checks on fixed-seed data (splitmix64): separated blobs are
 * found exactly and each centroid is its blob's mean; the result depends
 * only on the seed and the multiset of points; at most c distinct points
 * give those points; no run leaves an empty or non-finite centroid, over
 * many small inputs with many clusters (where Lloyd steps empty clusters).
 */
#include "unit.h"
#include "math/analytics/kmeans.h"

/* jl_kmeans_sort with its scratch */
static void
sort_points(double *X, int64_t n, int k)
{
	void	   *scratch = malloc(jl_kmeans_sort_bytes(n, k));

	jl_kmeans_sort(X, n, k, scratch, NULL);
	free(scratch);
}

#include <sys/mman.h>
#include <unistd.h>

static uint64_t det = 12345;

/* uniform in [-1, 1) */
static double
u11(void)
{
	return (double) (unit_splitmix64(&det) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* n points of k coordinates: point i in blob i % b at 20 * e_(blob) */
static void
blobs(double *X, int n, int k, int b)
{
	int			i,
				j;

	for (i = 0; i < n; i++)
		for (j = 0; j < k; j++)
			X[i * k + j] = (j == i % b ? 20.0 : 0.0) + u11();
}

static void
shuffle(double *X, int n, int k)
{
	double		t[64];
	int			i;

	for (i = n - 1; i > 0; i--)
	{
		int			r = (int) (unit_splitmix64(&det) % (uint64_t) (i + 1));

		memcpy(t, X + i * k, sizeof(double) * k);
		memcpy(X + i * k, X + r * k, sizeof(double) * k);
		memcpy(X + r * k, t, sizeof(double) * k);
	}
}

/* sorts X, then n_init runs; inertia may be NULL */
static int
run_init(double *X, int n, int k, int c, uint64_t seed, int max_iter,
		 int n_init, double *C, int *iterations, double *inertia)
{
	void	   *work = malloc(jl_kmeans_work_bytes(n, k, c));
	double		v;
	int			m;

	sort_points(X, n, k);
	m = jl_kmeans_run(X, n, k, c, seed, max_iter, 1e-4, n_init, C, work, iterations,
					  &v, NULL, NULL);
	if (inertia)
		*inertia = v;
	free(work);
	return m;
}

static int
run(double *X, int n, int k, int c, uint64_t seed, int max_iter, double *C,
	int *iterations)
{
	return run_init(X, n, k, c, seed, max_iter, 1, C, iterations, NULL);
}

static void
test_blobs(void)
{
	enum
	{
		N = 3000, K = 5, B = 4
	};
	static double X[N * K],
				Y[N * K],
				C[B * K],
				D[B * K],
				mean[B * K];
	int			count[B] = {0};
	int			label_of_blob[B];
	int			i,
				j,
				m,
				it,
				exact = 1;
	double		err = 0.0;

	blobs(X, N, K, B);
	memset(mean, 0, sizeof(mean));
	for (i = 0; i < N; i++)
	{
		count[i % B]++;
		for (j = 0; j < K; j++)
			mean[(i % B) * K + j] += X[i * K + j];
	}
	for (i = 0; i < B * K; i++)
		mean[i] /= count[i / K];
	memcpy(Y, X, sizeof(X));
	m = run(X, N, K, B, 1, 300, C, &it);
	check(m == B, "%d blobs give %d centroids after %d iterations", B, m, it);
	/* blob b is every point at 20 e_b: classify by the largest coordinate */
	for (i = 0; i < B; i++)
	{
		int			l = jl_kmeans_nearest(mean + i * K, C, B, K, NULL);

		label_of_blob[i] = l;
		for (j = 0; j < K; j++)
			err = fmax(err, fabs(C[l * K + j] - mean[i * K + j]));
	}
	for (i = 0; i < N; i++)
	{
		int			b = 0;

		for (j = 1; j < B; j++)
			if (Y[i * K + j] > Y[i * K + b])
				b = j;
		exact &= jl_kmeans_nearest(Y + i * K, C, B, K, NULL) == label_of_blob[b];
	}
	for (i = 0; i < B; i++)
		for (j = i + 1; j < B; j++)
			exact &= label_of_blob[i] != label_of_blob[j];
	check(exact, "every point labelled with its blob's own centroid");
	check(err < 1e-12, "centroids are the blobs' means (max error %.3g)", err);

	/* the same multiset in another order, the same seed: the same bits */
	shuffle(Y, N, K);
	run(Y, N, K, B, 1, 300, D, &it);
	check(memcmp(C, D, sizeof(C)) == 0, "input order does not change the centroids");
	memcpy(Y, X, sizeof(X));
	run(Y, N, K, B, 1, 300, D, &it);
	check(memcmp(C, D, sizeof(C)) == 0, "the same seed gives the same centroids");
}

static void
test_seeds(void)
{
	enum
	{
		N = 400, K = 2, C = 9
	};
	static double X[N * K],
				A[C * K],
				B[C * K];
	int			i,
				it,
				differ = 0,
				it0;

	for (i = 0; i < N * K; i++)
		X[i] = u11();
	run(X, N, K, C, 0, 300, A, &it0);
	for (i = 1; i <= 10; i++)
	{
		run(X, N, K, C, (uint64_t) i, 300, B, &it);
		differ += memcmp(A, B, sizeof(A)) != 0;
	}
	check(differ > 0, "uniform points: %d of 10 other seeds give other centroids", differ);
	/*
	 * converged, so each centroid is the mean of the points jl_kmeans_nearest
	 * gives it, bit for bit (the sums in the same order): the blocked
	 * assignment inside and jl_kmeans_nearest agree on every point
	 */
	{
		double		S[C * K] = {0};
		int64_t		cnt[C] = {0};
		int			same = 1,
					j;

		for (i = 0; i < N; i++)
		{
			int			l = jl_kmeans_nearest(X + i * K, A, C, K, NULL);

			cnt[l]++;
			for (j = 0; j < K; j++)
				S[l * K + j] += X[i * K + j];
		}
		for (i = 0; i < C * K; i++)
			same &= S[i] / (double) cnt[i / K] == A[i];
		check(it0 < 300 && same, "%d clusters (blocks of 4 and a padded one), converged after %d iterations: "
			  "every centroid is exactly the mean of its points by jl_kmeans_nearest", C, it0);
	}
	run(X, N, K, C, 0, 1, B, &it);
	check(it == 1 && memcmp(A, B, sizeof(A)) != 0,
		  "max_iter 1 stops after %d update", it);
}

static void
test_distinct(void)
{
	double		X[] = {3, 1, 1, 2, 1, 1, 3, 1, 1, 1};
	double		C[4 * 2];
	double		want[] = {1, 1, 1, 2, 3, 1};
	int			it,
				m;

	m = run(X, 5, 2, 4, 0, 300, C, &it);
	check(m == 3 && memcmp(C, want, sizeof(want)) == 0,
		  "3 distinct points for 4 clusters: the 3 sorted points (%d rows)", m);
	m = run(X, 5, 2, 3, 0, 300, C, &it);
	check(m == 3 && memcmp(C, want, sizeof(want)) == 0,
		  "3 distinct points for 3 clusters: the 3 sorted points (%d rows)", m);
	check(jl_kmeans_distinct(X, 5, 2, NULL) == 3, "distinct count of sorted points");
}

/* many clusters for few, clumped points: no centroid is left empty */
static void
test_no_empty(void)
{
	enum
	{
		K = 3
	};
	double		X[40 * K],
				C[30 * K];
	int			label_used[30];
	int			trial,
				bad = 0,
				runs = 0;

	for (trial = 0; trial < 2000; trial++)
	{
		int			n = 5 + (int) (unit_splitmix64(&det) % 36);
		int			c = 2 + (int) (unit_splitmix64(&det) % (uint64_t) (n - 2));
		int			i,
					j,
					m,
					it;

		if (c > 30)
			c = 30;
		for (i = 0; i < n * K; i++)
			/* few values, so duplicates and ties are common */
			X[i] = (double) (unit_splitmix64(&det) % 4) + (i % K == 0 ? u11() * 0.01 : 0);
		m = run(X, n, K, c, (uint64_t) trial, 1000, C, &it);
		memset(label_used, 0, sizeof(label_used));
		for (i = 0; i < n; i++)
			label_used[jl_kmeans_nearest(X + i * K, C, m, K, NULL)] = 1;
		for (j = 0; j < m; j++)
		{
			bad += !label_used[j];
			for (i = 0; i < K; i++)
				bad += !isfinite(C[j * K + i]);
		}
		runs++;
	}
	check(bad == 0, "%d runs with up to 30 clusters of up to 40 clumped points: %d empty or non-finite centroids",
		  runs, bad);
}

/*
 * An input and seed whose Lloyd step empties a cluster (found by a search
 * over small inputs): the cluster is re-seeded with the point farthest from
 * its centroid, so all four centroids stay in use.
 */
static void
test_reseed(void)
{
	double		X[] = {1, 13, 12, 5, 14, 2, 16, 16, 18, 9, 19, 9};
	double		C[4 * 2];
	int			used[4] = {0};
	int			i,
				m,
				it,
				ok = 1;

	m = run(X, 6, 2, 4, 130308, 300, C, &it);
	for (i = 0; i < 6; i++)
		used[jl_kmeans_nearest(X + 2 * i, C, m, 2, NULL)] = 1;
	for (i = 0; i < 4; i++)
		ok &= used[i] && isfinite(C[2 * i]) && isfinite(C[2 * i + 1]);
	note("centroids (%g,%g) (%g,%g) (%g,%g) (%g,%g) after %d iterations",
		 C[0], C[1], C[2], C[3], C[4], C[5], C[6], C[7], it);
	check(m == 4 && ok, "an emptied cluster is re-seeded: 4 centroids in use");
}

/*
 * Distinct points whose squared distances underflow to 0 (1e-200 apart):
 * every k-means++ weight is 0, and the next seed must still be a point of
 * the input, not the word before it.  The points sit right after a page
 * that cannot be read, so a read before them faults.
 */
static void
test_underflow_seeds(void)
{
	long		page = sysconf(_SC_PAGESIZE);
	char	   *mem = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
						   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double	   *X;
	double		C[3];
	int			c,
				m,
				it,
				j,
				ok = 1;

	if (mem == MAP_FAILED || mprotect(mem, page, PROT_NONE) != 0)
	{
		check(0, "guard page for the underflow test");
		return;
	}
	X = (double *) (mem + page);
	for (c = 2; c <= 3; c++)
	{
		for (j = 0; j <= c; j++)
			X[j] = 1e-200 * j;
		m = run(X, c + 1, 1, c, 7, 300, C, &it);
		ok &= m == c;
		for (j = 0; j < m; j++)
			ok &= isfinite(C[j]) && C[j] >= 0.0 && C[j] <= 1e-200 * c;
		for (j = 1; j < m; j++)
			ok &= C[j] != C[j - 1];
	}
	munmap(mem, 2 * page);
	check(ok, "points 1e-200 apart (squared distances 0): c distinct centroids among the points");
}

/*
 * Points whose first coordinate is near DBL_MAX (distances stay finite, as
 * it is the same in every point): the sum of a cluster overflows, its mean
 * does not.
 */
static void
test_huge_means(void)
{
	double		X[] = {1.5e308, 0, 1.5e308, 1, 1.5e308, 2, 1.5e308, 100,
	1.5e308, 101};
	double		C[4];
	int			m,
				it;

	m = run(X, 5, 2, 2, 0, 300, C, &it);
	note("centroids (%g,%g) (%g,%g)", C[0], C[1], C[2], C[3]);
	check(m == 2 && C[0] == 1.5e308 && C[1] == 1.0 &&
		  C[2] == 1.5e308 && C[3] == 100.5,
		  "clusters of points (1.5e308, y) have the finite means (1.5e308, 1) and (1.5e308, 100.5)");
}

/* four tight blobs at the corners of a 10 x 5 rectangle, 40 points each */
static void
corner_blobs(double *X, int n, double *mean)
{
	static const double cx[4] = {0, 0, 10, 10},
				cy[4] = {0, 5, 0, 5};
	uint64_t	saved = det;
	int			i;

	/* a stream of their own, so the data do not depend on the tests before */
	det = 777;
	memset(mean, 0, sizeof(double) * 8);
	for (i = 0; i < n; i++)
	{
		X[2 * i] = cx[i % 4] + u11();
		X[2 * i + 1] = cy[i % 4] + u11();
		mean[2 * (i % 4)] += X[2 * i] / (n / 4);
		mean[2 * (i % 4) + 1] += X[2 * i + 1] / (n / 4);
	}	det = saved;
}

/* every blob mean has a centroid of its own within 0.5 */
static int
blobs_found(const double *C, const double *mean)
{
	int			seen = 0,
				b;

	for (b = 0; b < 4; b++)
	{
		double		d2;
		int			l = jl_kmeans_nearest(mean + 2 * b, C, 4, 2, &d2);

		if (d2 > 0.25 || (seen & (1 << l)))
			return 0;
		seen |= 1 << l;
	}
	return 1;
}

/*
 * Restarts: with seed 6 the single k-means++ seeding of the corner blobs
 * puts two seeds in one blob and one between two others, and Lloyd stays in
 * that local optimum (inertia about 5.6 times the best; 13 of the
 * seeds 0..199 do so); ten runs from the
 * same seed find the four blobs.  Over 200 seeds, 3 and 10 runs are never
 * worse in inertia than the first run alone, which they include, and
 * sometimes better.
 */
static void
test_restarts(void)
{
	enum
	{
		N = 160, K = 2, C = 4
	};
	static double X[N * K],
				A[C * K],
				B[C * K];
	double		mean[8],
				in1,
				in3,
				in10;
	int			it,
				s,
				worse = 0,
				better = 0;

	corner_blobs(X, N, mean);
	run_init(X, N, K, C, 6, 300, 1, A, &it, &in1);
	run_init(X, N, K, C, 6, 300, 10, B, &it, &in10);
	check(!blobs_found(A, mean) && blobs_found(B, mean) && in1 > 2 * in10,
		  "seed 6: one run stays in a local optimum (inertia %.1f), ten find the 4 blobs (inertia %.1f)",
		  in1, in10);
	run(X, N, K, C, 6, 300, B, &it);
	check(memcmp(A, B, sizeof(A)) == 0, "n_init 1 is the run of the seed alone");

	for (s = 0; s < 200; s++)
	{
		run_init(X, N, K, C, (uint64_t) s, 300, 1, A, &it, &in1);
		run_init(X, N, K, C, (uint64_t) s, 300, 3, A, &it, &in3);
		run_init(X, N, K, C, (uint64_t) s, 300, 10, B, &it, &in10);
		worse += in3 > in1 || in10 > in3;
		better += in10 < in1;
	}
	check(worse == 0 && better > 0,
		  "200 seeds: inertia of 10 runs <= 3 runs <= 1 run (%d exceptions), 10 better than 1 for %d seeds",
		  worse, better);
}

/*
 * Restarts are deterministic: the same seed and n_init give the same bits
 * whatever the input order.  Well-separated blobs: every seeding reaches
 * the same partition with the same inertia, but not with the centroids in
 * the same order; ties keep the earliest run, so n_init 10 returns the
 * centroids of the seed's own run.
 */
static void
test_restarts_deterministic(void)
{
	enum
	{
		N = 2000, K = 5, B = 4
	};
	static double X[N * K],
				Y[N * K],
				C1[B * K],
				C10[B * K],
				D[B * K];
	double		in1,
				in10,
				v;
	int			it,
				s,
				orders = 0;

	blobs(X, N, K, B);
	memcpy(Y, X, sizeof(X));
	run_init(X, N, K, B, 5, 300, 10, C10, &it, &in10);
	shuffle(Y, N, K);
	run_init(Y, N, K, B, 5, 300, 10, D, &it, &v);
	check(memcmp(C10, D, sizeof(D)) == 0 && v == in10,
		  "n_init 10: the same seed gives the same centroids and inertia in any input order");
	run_init(X, N, K, B, 5, 300, 1, C1, &it, &in1);
	for (s = 0; s < 10; s++)
	{
		run_init(X, N, K, B, (uint64_t) s, 300, 1, D, &it, &v);
		orders += v == in1 && memcmp(C1, D, sizeof(D)) != 0;
	}
	check(in10 == in1 && memcmp(C1, C10, sizeof(D)) == 0 && orders > 0,
		  "equal inertia: the first run wins (%d of 10 other seeds give the same partition in another order)",
		  orders);
}

static int ticks;

static void
count_tick(void)
{
	ticks++;
}

/*
 * The interrupt check runs within a long assignment pass, not only between
 * passes: 1100 points against 64 centroids of 512 coordinates are 2^25
 * distance terms, two calls at one per 2^24.  One Lloyd step makes 63
 * calls for the seeds and one for the pass.
 */
static void
test_ticks(void)
{
	int			n = 1100,
				k = 512,
				c = 64,
				i,
				it;
	double	   *X = malloc(sizeof(double) * n * k);
	double	   *C = malloc(sizeof(double) * c * k);
	void	   *work = malloc(jl_kmeans_work_bytes(n, k, c));

	for (i = 0; i < n * k; i++)
		X[i] = u11();
	sort_points(X, n, k);
	ticks = 0;
	{
		double		inertia;

		jl_kmeans_run(X, n, k, c, 1, 1, 0.0, 1, C, work, &it, &inertia, count_tick, NULL);
	}
	check(ticks >= 63 + 1 + 2, "a pass of 2^25 distance terms checks for interrupts within: %d calls",
		  ticks);
	free(X);
	free(C);
	free(work);
}

/* distances whose squares overflow still order the centroids */
static void
test_nearest_overflow(void)
{
	double		x[2] = {1e200, 0.0};
	double		C[6] = {-1e200, 0.0, 3e200, 0.0, 1.5e200, 0.0};
	double		d2;

	check(jl_kmeans_nearest(x, C, 3, 2, &d2) == 2 && isinf(d2),
		  "nearest of overflowing distances: centroid 3 (0.5e200 away), not the first tie");
	x[0] = 1.0;
	C[4] = 2.0;
	check(jl_kmeans_nearest(x, C, 3, 2, &d2) == 2 && d2 == 1.0,
		  "nearest of ordinary distances unchanged");
}

static int
cmp_rows3(const void *a, const void *b)
{
	const double *x = a,
			   *y = b;

	for (int j = 0; j < 3; j++)
		if (x[j] != y[j])
			return x[j] < y[j] ? -1 : 1;
	return 0;
}

/* the merge sort orders as qsort does; -0.0 sorts (and is) 0.0; any input order */
static void
test_sort(void)
{
	enum
	{
		N = 10007
	};
	static double X[N * 3],
				Y[N * 3],
				Z[N * 3];
	uint64_t	r = 20261128;
	int			i,
				negzero = 0;

	for (i = 0; i < N * 3; i++)
	{
		/* few values, so that many rows are equal; some -0.0 */
		int			v = (int) (unit_det_u01(&r) * 5.0);

		X[i] = v == 0 ? (unit_det_u01(&r) < 0.5 ? -0.0 : 0.0) : (double) v;
	}
	memcpy(Y, X, sizeof(X));
	for (i = 0; i < N * 3; i++)
		if (Y[i] == 0.0)
			Y[i] = 0.0;
	qsort(Y, N, 3 * sizeof(double), cmp_rows3);
	memcpy(Z, X, sizeof(X));
	/* the same multiset of rows in reverse order */
	for (i = 0; i < N; i++)
		memcpy(Z + 3 * i, X + 3 * (N - 1 - i), 3 * sizeof(double));
	sort_points(X, N, 3);
	sort_points(Z, N, 3);
	for (i = 0; i < N * 3; i++)
		negzero += signbit(X[i]) != 0;
	check(memcmp(X, Y, sizeof(X)) == 0 && memcmp(Z, Y, sizeof(Z)) == 0 && negzero == 0,
		  "merge sort of %d rows: qsort's order, the same bits from reversed input, no -0.0 left", N);
	check(jl_kmeans_check_range(X, N, 3) == 0, "the range check passes 0..4");
	X[7] = 2e150;
	check(jl_kmeans_check_range(X, N, 3) == 1, "a coordinate of 2e150 is beyond the range");
	for (i = 0; i < N * 3; i++)
		X[i] = 1e-200;
	check(jl_kmeans_check_range(X, N, 3) == -1, "coordinates all 1e-200 are below it");
	for (i = 0; i < N * 3; i++)
		X[i] = 0.0;
	check(jl_kmeans_check_range(X, N, 3) == 0, "all zero points pass");
}

int
main(void)
{
	test_sort();
	test_nearest_overflow();
	test_blobs();
	test_seeds();
	test_distinct();
	test_no_empty();
	test_reseed();
	test_underflow_seeds();
	test_huge_means();
	test_ticks();
	test_restarts();
	test_restarts_deterministic();
	return unit_done("test_kmeans");
}
