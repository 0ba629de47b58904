/*
 * bench_kmeans.c - accuracy and time of jl_kmeans_run against n_init on
 * noisy sketches (not a test: it prints figures and always succeeds).
 *
 *   make -C test/unit bench_kmeans && test/bench/c/bench_kmeans [reps]
 *
 * Data as in test/paper/reproduction.md: isotropic unit-variance Gaussian blobs in
 * R^d, projected by a Gaussian P (entries N(0, 1/k)), plus continuous
 * Laplace noise of the stated variance per coordinate.  Two settings: two
 * blobs whose centres are 4 apart (the paper's, 1000 points each), and five
 * blobs at 4 e_j / sqrt(2) (distance 4 between any two, 400 points each).
 * Each repetition draws new data, P and noise (splitmix64, fixed seed); the
 * k-means seed is the repetition.  Gain: the mean of the accuracy minus
 * that of n_init = 1 on the same sketches.  Accuracy: the share of points whose
 * cluster is their blob under the best matching of the labels.
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

static uint64_t det = 20261123;

static double
laplace(double variance)
{
	double		b = sqrt(variance / 2.0),
				u = unit_det_u01(&det) - 0.5;

	return -b * copysign(log(1.0 - 2.0 * fabs(u)), u);
}

/* best matching of c <= 5 labels: the largest sum over permutations */
static int64_t
best_matching(const int64_t *conf, int c, int *perm, int depth, int used)
{
	int64_t		best = 0;
	int			j;

	if (depth == c)
		return 0;
	for (j = 0; j < c; j++)
		if (!(used & (1 << j)))
		{
			int64_t		v;

			perm[depth] = j;
			v = conf[depth * c + j] + best_matching(conf, c, perm, depth + 1, used | (1 << j));
			if (v > best)
				best = v;
		}
	return best;
}

/* one setting: mean accuracy, mean inertia ratio and time for each n_init */
static void
setting(const char *name, int d, int k, int c, int per, double nv, int reps)
{
	static const int inits[] = {1, 3, 10};
	int			n = c * per,
				r,
				q,
				i,
				j,
				t;
	double	   *x = malloc(sizeof(double) * d);
	double	   *P = malloc(sizeof(double) * d * k);
	double	   *S = malloc(sizeof(double) * n * k);
	double	   *C = malloc(sizeof(double) * c * k);
	int		   *label = malloc(sizeof(int) * n);
	void	   *work = malloc(jl_kmeans_work_bytes(n, k, c));
	double		acc[3] = {0},
				acc2[3] = {0},
				secs[3] = {0},
				worse[3] = {0},
				gain[3] = {0},
				gain2[3] = {0};

	for (r = 0; r < reps; r++)
	{
		double		in1 = 0.0,
					a1 = 0.0;

		for (i = 0; i < d * k; i++)
			P[i] = unit_det_normal(&det) / sqrt((double) k);
		for (i = 0; i < n; i++)
		{
			label[i] = i % c;
			for (j = 0; j < d; j++)
			{
				double		mu = c == 2 ? (label[i] ? 2.0 : -2.0) / sqrt((double) d)
				: (j == label[i] ? 4.0 / sqrt(2.0) : 0.0);

				x[j] = mu + unit_det_normal(&det);
			}
			for (t = 0; t < k; t++)
			{
				double		s = 0.0;

				for (j = 0; j < d; j++)
					s += x[j] * P[j * k + t];
				S[i * k + t] = s + (nv > 0 ? laplace(nv) : 0.0);
			}
		}
		/* sort points and labels together: sort (label, point) rows */
		{
			double	   *R = malloc(sizeof(double) * n * (k + 1));

			for (i = 0; i < n; i++)
			{
				memcpy(R + i * (k + 1), S + i * k, sizeof(double) * k);
				R[i * (k + 1) + k] = label[i];
			}
			sort_points(R, n, k + 1);
			for (i = 0; i < n; i++)
			{
				memcpy(S + i * k, R + i * (k + 1), sizeof(double) * k);
				label[i] = (int) R[i * (k + 1) + k];
			}
			free(R);
		}
		for (q = 0; q < 3; q++)
		{
			int64_t		conf[25] = {0};
			int			perm[5],
						it;
			double		inertia,
						t0 = unit_seconds(),
						a;

			jl_kmeans_run(S, n, k, c, (uint64_t) r, 300, 1e-4, inits[q], C, work,
						  &it, &inertia, NULL, NULL);
			secs[q] += unit_seconds() - t0;
			for (i = 0; i < n; i++)
				conf[label[i] * c + jl_kmeans_nearest(S + i * k, C, c, k, NULL)]++;
			a = (double) best_matching(conf, c, perm, 0, 0) / n;
			acc[q] += a;
			acc2[q] += a * a;
			if (q == 0)
			{
				in1 = inertia;
				a1 = a;
			}
			gain[q] += a - a1;
			gain2[q] += (a - a1) * (a - a1);
			worse[q] += inertia > in1;
		}
	}
	for (q = 0; q < 3; q++)
	{
		double		m = acc[q] / reps,
					sd = sqrt(fmax(0.0, acc2[q] / reps - m * m)),
					g = gain[q] / reps,
					gsd = sqrt(fmax(0.0, gain2[q] / reps - g * g));

		printf("%-23s d=%d k=%d nv=%-5g n_init=%-2d accuracy %.4f (se %.4f), gain %+.4f (se %.4f), %.2f ms/run%s\n",
			   name, d, k, nv, inits[q], m, sd / sqrt((double) reps),
			   g, gsd / sqrt((double) reps),
			   1e3 * secs[q] / reps, worse[q] > 0 ? "  INERTIA WORSE THAN n_init=1" : "");
	}
	free(x);
	free(P);
	free(S);
	free(C);
	free(label);
	free(work);
}

int
main(int argc, char **argv)
{
	int			reps = argc > 1 ? atoi(argv[1]) : 40;

	printf("# %d repetitions per setting; max_iter 300; seed = repetition\n", reps);
	setting("2 blobs, no noise", 100, 20, 2, 1000, 0.0, reps);
	setting("2 blobs, element exact", 100, 20, 2, 1000, 3.27, reps);
	setting("2 blobs, element paper", 100, 20, 2, 1000, 10.0, reps);
	setting("2 blobs, row exact", 100, 20, 2, 1000, 21.22, reps);
	setting("2 blobs, element exact", 50, 10, 2, 1000, 2.02, reps);
	setting("5 blobs, element exact", 100, 20, 5, 400, 3.27, reps);
	setting("5 blobs, element paper", 100, 20, 5, 400, 10.0, reps);
	return 0;
}
