/*
 * kmeans.c - k-means++ seeding and Lloyd iterations over sketches.
 *
 * The generator only chooses seeds among public sketches: it is keyed by the
 * user's seed so that results are reproducible, and is never used for noise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* qsort_r */
#endif
#include "math/kmeans.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math/chacha20.h"
#include "math/recover.h"

/* a ChaCha20 keystream keyed by (domain, seed): uniform doubles in [0, 1) */
typedef struct KmRandom
{
	uint8_t		key[JL_CHACHA_KEY_BYTES];
	uint32_t	counter;
	uint32_t	block[16];
	int			used;			/* 64-bit words used of the block (8 each) */
} KmRandom;

/* the seeding of one run */
static const char km_domain_seed[] = "jldp k-means++ seed";

/* the seeds of the restarts after the first */
static const char km_domain_restarts[] = "jldp k-means restarts";

/* domain: a string of at most 24 bytes */
static void
km_random_init(KmRandom *r, const char *domain, uint64_t seed)
{
	int			i;

	memset(r, 0, sizeof(*r));
	memcpy(r->key, domain, strlen(domain));
	for (i = 0; i < 8; i++)
		r->key[24 + i] = (uint8_t) (seed >> (8 * i));
	r->used = 8;
}

static uint64_t
km_word(KmRandom *r)
{
	static const uint8_t nonce[12] = {0};
	uint64_t	w;

	if (r->used == 8)
	{
		jl_chacha20_block(r->key, r->counter++, nonce, r->block);
		r->used = 0;
	}
	w = ((uint64_t) r->block[2 * r->used + 1] << 32) | r->block[2 * r->used];
	r->used++;
	return w;
}

static double
km_uniform(KmRandom *r)
{
	return (double) (km_word(r) >> 11) * (1.0 / 9007199254740992.0);
}

static int
km_compare(const void *a, const void *b, void *arg)
{
	const double *x = a;
	const double *y = b;
	int			k = *(const int *) arg;
	int			j;

	for (j = 0; j < k; j++)
	{
		if (x[j] < y[j])
			return -1;
		if (x[j] > y[j])
			return 1;
	}
	return 0;
}

void
jl_kmeans_sort(double *X, int64_t n, int k)
{
	qsort_r(X, (size_t) n, sizeof(double) * k, km_compare, &k);
}

int64_t
jl_kmeans_distinct(const double *X, int64_t n, int k)
{
	int64_t		m = n > 0 ? 1 : 0;
	int64_t		i;

	for (i = 1; i < n; i++)
		if (km_compare(X + (i - 1) * k, X + i * k, &k) != 0)
			m++;
	return m;
}

/* ||x - c||^2 / scale^2, for distances whose square overflows */
static double
km_sqdist_scaled(const double *x, const double *c, int k, double inv)
{
	double		s = 0.0;
	int			j;

	for (j = 0; j < k; j++)
	{
		double		d = x[j] * inv - c[j] * inv;

		s += d * d;
	}
	return s;
}

/* the centroid of the smallest distance by dist(c), the first on ties */
static int
km_argmin(const double *x, const double *centroids, int m, int k,
		  double inv, double *best)
{
	int			arg = 0;
	int			c;

	*best = inv > 0.0 ? km_sqdist_scaled(x, centroids, k, inv) :
		jl_sqdist(x, centroids, k);
	for (c = 1; c < m; c++)
	{
		const double *cc = centroids + (size_t) c * k;
		double		d = inv > 0.0 ? km_sqdist_scaled(x, cc, k, inv) :
			jl_sqdist(x, cc, k);

		if (d < *best)
		{
			*best = d;
			arg = c;
		}
	}
	return arg;
}

int
jl_kmeans_nearest(const double *x, const double *centroids, int m, int k,
				  double *dist2)
{
	double		best;
	int			arg = km_argmin(x, centroids, m, k, 0.0, &best);

	if (isinf(best))
	{
		/*
		 * A distance overflowed, so all the large ones compare equal:
		 * compare them again scaled by the largest magnitude (the order of
		 * the distances is kept; the reported distance stays infinite).
		 */
		double		mx = 0.0;
		double		scaled;
		size_t		i;

		for (i = 0; i < (size_t) k; i++)
			mx = fmax(mx, fabs(x[i]));
		for (i = 0; i < (size_t) m * k; i++)
			mx = fmax(mx, fabs(centroids[i]));
		if (isfinite(mx) && mx > 0.0)
			arg = km_argmin(x, centroids, m, k, 1.0 / mx, &scaled);
	}
	if (dist2)
		*dist2 = best;
	return arg;
}

/* centroids per block of the assignment step */
#define KM_BLOCK 4

/* distance terms (points x c x k) between two calls of tick in a pass */
#define KM_TICK_WORK (INT64_C(1) << 24)

/*
 * workspace layout: distances, sums, a restart's centroids, blocked
 * centroids, counts, labels
 */
typedef struct KmWork
{
	int		   *label;			/* n */
	double	   *dist;			/* n */
	int64_t    *count;			/* c */
	double	   *sum;			/* c x k */
	double	   *trial;			/* c x k */
	double	   *blocked;		/* ceil(c / KM_BLOCK) x k x KM_BLOCK */
} KmWork;

static size_t
km_blocked_doubles(int k, int c)
{
	return (size_t) ((c + KM_BLOCK - 1) / KM_BLOCK) * k * KM_BLOCK;
}

size_t
jl_kmeans_work_bytes(int64_t n, int k, int c)
{
	return (size_t) n * (sizeof(int) + sizeof(double)) +
		(size_t) c * sizeof(int64_t) + 2 * (size_t) c * k * sizeof(double) +
		km_blocked_doubles(k, c) * sizeof(double) + 4 * sizeof(double);
}

static void
km_work(void *work, int64_t n, int k, int c, KmWork *w)
{
	char	   *p = work;

	w->dist = (double *) p;
	p += (size_t) n * sizeof(double);
	w->sum = (double *) p;
	p += (size_t) c * k * sizeof(double);
	w->trial = (double *) p;
	p += (size_t) c * k * sizeof(double);
	w->blocked = (double *) p;
	p += km_blocked_doubles(k, c) * sizeof(double);
	w->count = (int64_t *) p;
	p += (size_t) c * sizeof(int64_t);
	w->label = (int *) p;
}

/* the first of the n points that differs from each of the m seeds C */
static int64_t
km_first_new(const double *X, int64_t n, int k, const double *C, int m)
{
	int64_t		i;
	int			l;

	for (i = 0; i < n; i++)
	{
		for (l = 0; l < m; l++)
			if (km_compare(X + i * k, C + (size_t) l * k, &k) == 0)
				break;
		if (l == m)
			return i;
	}
	return n - 1;				/* not reached: more than m distinct points */
}

/* k-means++: the first seed uniform, each next one with probability ~ D^2 */
static void
km_seed(const double *X, int64_t n, int k, int c, uint64_t seed,
		double *C, double *dist, void (*tick) (void))
{
	KmRandom	r;
	int64_t		i,
				pick;
	int			j;

	km_random_init(&r, km_domain_seed, seed);
	pick = (int64_t) (km_uniform(&r) * n);
	if (pick >= n)
		pick = n - 1;
	memcpy(C, X + pick * k, sizeof(double) * k);
	for (i = 0; i < n; i++)
		dist[i] = jl_sqdist(X + i * k, C, k);

	for (j = 1; j < c; j++)
	{
		double		total = 0.0,
					target,
					cum = 0.0;
		int64_t		last = -1;
		double	   *cj = C + (size_t) j * k;

		if (tick)
			tick();
		for (i = 0; i < n; i++)
			total += dist[i];
		target = km_uniform(&r) * total;
		pick = -1;
		for (i = 0; i < n; i++)
		{
			if (dist[i] <= 0.0)
				continue;
			last = i;
			cum += dist[i];
			if (cum > target)
			{
				pick = i;
				break;
			}
		}
		/* rounding can leave target beyond the last partial sum */
		if (pick < 0)
			pick = last;

		/*
		 * There are more distinct points than c, but their squared distances
		 * to the seeds can all underflow to 0 (points 1e-200 apart): then
		 * take the first point that is none of the seeds.
		 */
		if (pick < 0)
			pick = km_first_new(X, n, k, C, j);
		memcpy(cj, X + pick * k, sizeof(double) * k);
		for (i = 0; i < n; i++)
		{
			double		d = jl_sqdist(X + i * k, cj, k);

			if (d < dist[i])
				dist[i] = d;
		}
	}
}

/*
 * Centroids in blocks of KM_BLOCK, coordinate-major within a block, so the
 * assignment computes KM_BLOCK distances at once as independent sums.  A
 * last partial block is padded with copies of its last centroid, which are
 * computed but never compared.
 */
static void
km_block(const double *C, int c, int k, double *B)
{
	int			b,
				j,
				m;

	for (b = 0; b * KM_BLOCK < c; b++)
		for (j = 0; j < k; j++)
			for (m = 0; m < KM_BLOCK; m++)
			{
				int			cm = b * KM_BLOCK + m < c ? b * KM_BLOCK + m : c - 1;

				B[((size_t) b * k + j) * KM_BLOCK + m] = C[(size_t) cm * k + j];
			}
}

/*
 * Assign every point to its nearest centroid; returns how many changed.
 * Each distance is summed over the coordinates in order, exactly as
 * jl_kmeans_nearest does, so both give the same labels (jl_kmeans_nearest
 * also orders distances whose squares overflow; sketches that large are
 * not clustered here).
 */
static int64_t
km_assign(const double *X, int64_t n, int k, const double *C, int c,
		  KmWork *w, void (*tick) (void))
{
	int64_t		changed = 0;
	int64_t		i;
	int			nb = (c + KM_BLOCK - 1) / KM_BLOCK;
	int64_t		stride = KM_TICK_WORK / ((int64_t) c * k) + 1;

	km_block(C, c, k, w->blocked);
	for (i = 0; i < n; i++)
	{
		const double *x = X + i * k;
		double		best = 0.0;
		int			l = 0,
					b,
					j,
					m;

		if (tick && i % stride == stride - 1)
			tick();

		for (b = 0; b < nb; b++)
		{
			const double *B = w->blocked + (size_t) b * k * KM_BLOCK;
			double		acc[KM_BLOCK] = {0};

			for (j = 0; j < k; j++)
				for (m = 0; m < KM_BLOCK; m++)
				{
					double		t = x[j] - B[j * KM_BLOCK + m];

					acc[m] += t * t;
				}
			for (m = 0; m < KM_BLOCK && b * KM_BLOCK + m < c; m++)
				if ((b == 0 && m == 0) || acc[m] < best)
				{
					best = acc[m];
					l = b * KM_BLOCK + m;
				}
		}
		w->dist[i] = best;
		if (l != w->label[i])
		{
			w->label[i] = l;
			changed++;
		}
	}
	return changed;
}

/*
 * Coordinate t of the mean of cluster j when the plain sum overflowed (points
 * near DBL_MAX): a sum of x / count, whose terms and total stay in range.
 */
static double
km_mean_scaled(const double *X, int64_t n, int k, const int *label, int j,
			   int t, int64_t count)
{
	double		m = 0.0;
	int64_t		i;

	for (i = 0; i < n; i++)
		if (label[i] == j)
			m += X[i * k + t] / (double) count;
	return fmax(-DBL_MAX, fmin(m, DBL_MAX));
}

/* centroids := means of their points; empty clusters re-seeded */
static void
km_update(const double *X, int64_t n, int k, double *C, int c, KmWork *w,
		  void (*tick) (void))
{
	int64_t		i;
	int			j,
				t;

	memset(w->sum, 0, sizeof(double) * (size_t) c * k);
	memset(w->count, 0, sizeof(int64_t) * c);
	for (i = 0; i < n; i++)
	{
		const double *x = X + i * k;
		double	   *s = w->sum + (size_t) w->label[i] * k;

		w->count[w->label[i]]++;
		for (t = 0; t < k; t++)
			s[t] += x[t];
	}
	for (j = 0; j < c; j++)
	{
		int64_t		far = -1;
		int			from;

		if (w->count[j] > 0)
			continue;
		if (tick)
			tick();
		/* n > c, so some cluster has two or more points */
		for (i = 0; i < n; i++)
			if (w->count[w->label[i]] > 1 && (far < 0 || w->dist[i] > w->dist[far]))
				far = i;
		from = w->label[far];
		for (t = 0; t < k; t++)
		{
			w->sum[(size_t) from * k + t] -= X[far * k + t];
			w->sum[(size_t) j * k + t] = X[far * k + t];
		}
		w->count[from]--;
		w->count[j] = 1;
		w->label[far] = j;
		w->dist[far] = 0.0;
	}
	for (j = 0; j < c; j++)
		for (t = 0; t < k; t++)
		{
			double		m = w->sum[(size_t) j * k + t] / (double) w->count[j];

			if (!isfinite(m))
				m = km_mean_scaled(X, n, k, w->label, j, t, w->count[j]);
			C[(size_t) j * k + t] = m;
		}
}

/*
 * One k-means++ seeding from seed, then Lloyd iterations, into C.  Returns
 * the inertia (sum of squared distances of the points to their nearest
 * centroid of C, summed in point order) and the number of updates.
 */
static double
km_lloyd(const double *X, int64_t n, int k, int c, uint64_t seed,
		 int max_iter, double *C, KmWork *w, int *iterations,
		 void (*tick) (void))
{
	double		inertia = 0.0;
	int64_t		i;
	int			it;

	km_seed(X, n, k, c, seed, C, w->dist, tick);
	for (i = 0; i < n; i++)
		w->label[i] = -1;
	*iterations = 0;
	for (it = 0; it < max_iter; it++)
	{
		if (tick)
			tick();
		if (km_assign(X, n, k, C, c, w, tick) == 0)
			break;
		km_update(X, n, k, C, c, w, tick);
		(*iterations)++;
	}
	/* stopped by max_iter: the distances are those before the last update */
	if (it == max_iter)
	{
		if (tick)
			tick();
		km_assign(X, n, k, C, c, w, tick);
	}
	for (i = 0; i < n; i++)
		inertia += w->dist[i];
	return inertia;
}

int
jl_kmeans_run(const double *X, int64_t n, int k, int c, uint64_t seed,
			  int max_iter, int n_init, double *centroids, void *work,
			  int *iterations, double *inertia, void (*tick) (void))
{
	KmWork		w;
	KmRandom	restarts;
	double		best;
	int64_t		i;
	int			r;

	*iterations = 0;
	*inertia = 0.0;
	if (jl_kmeans_distinct(X, n, k) <= c)
	{
		int			m = 0;

		for (i = 0; i < n; i++)
			if (i == 0 || km_compare(X + (i - 1) * k, X + i * k, &k) != 0)
				memcpy(centroids + (size_t) (m++) * k, X + i * k, sizeof(double) * k);
		return m;
	}

	km_work(work, n, k, c, &w);
	/* the first run is seeded by seed itself, the others from a stream */
	best = km_lloyd(X, n, k, c, seed, max_iter, centroids, &w, iterations, tick);
	km_random_init(&restarts, km_domain_restarts, seed);
	for (r = 1; r < n_init; r++)
	{
		int			it;
		double		v = km_lloyd(X, n, k, c, km_word(&restarts), max_iter,
								 w.trial, &w, &it, tick);

		/* strictly lower: ties keep the earlier run */
		if (v < best)
		{
			best = v;
			*iterations = it;
			memcpy(centroids, w.trial, sizeof(double) * (size_t) c * k);
		}
	}
	*inertia = best;
	return c;
}
