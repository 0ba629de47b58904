/*
 * kmeans.c - k-means++ seeding and Lloyd iterations over sketches.
 *
 * The generator only chooses seeds among public sketches: it is keyed by the
 * user's seed so that results are reproducible, and is never used for noise.
 *
 * Over 700 lines: seeding, the assignment kernel (tiled, bit-identical
 * serially and in parallel ranges), the update and the restarts work on
 * one workspace layout (jl_kmeans_work_layout) that none of them owns.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* qsort_r */
#endif
#include "math/analytics/kmeans.h"

#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math/crypto/chacha20.h"
#include "math/estimate/recover.h"

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

size_t
jl_kmeans_sort_bytes(int64_t n, int k)
{
	return 2 * (size_t) n * sizeof(int32_t) + (size_t) k * sizeof(double);
}

/* comparisons between two calls of tick */
#define KM_SORT_TICK(k) ((INT64_C(1) << 24) / (k) + 1)

void
jl_kmeans_sort(double *X, int64_t n, int k, void *scratch, void (*tick) (void))
{
	int32_t    *idx = scratch,
			   *tmp = idx + n,
			   *a,
			   *b;
	double	   *row = (void *) (tmp + n);	/* the scratch after the indices */
	int64_t		i,
				width,
				calls = 0,
				every = KM_SORT_TICK(k);

	/* -0.0 as 0.0: equal points are then the same bits, whichever comes first */
	for (i = 0; i < n * k; i++)
		if (X[i] == 0.0)
			X[i] = 0.0;
	for (i = 0; i < n; i++)
		idx[i] = (int32_t) i;
	/* bottom-up merge sort of the row numbers, ticking as it goes */
	a = idx;
	b = tmp;
	for (width = 1; width < n; width *= 2)
	{
		for (i = 0; i < n; i += 2 * width)
		{
			int64_t		lo = i,
						mid = i + width < n ? i + width : n,
						hi = i + 2 * width < n ? i + 2 * width : n,
						l = lo,
						r = mid,
						o = lo;

			while (l < mid && r < hi)
			{
				if (tick && ++calls % every == 0)
					tick();
				if (km_compare(X + (size_t) a[r] * k, X + (size_t) a[l] * k, &k) < 0)
					b[o++] = a[r++];
				else
					b[o++] = a[l++];
			}
			while (l < mid)
				b[o++] = a[l++];
			while (r < hi)
				b[o++] = a[r++];
		}
		{
			int32_t    *t = a;

			a = b;
			b = t;
		}
	}
	/* the rows moved into their places, one cycle of the permutation at a time */
	for (i = 0; i < n; i++)
	{
		int64_t		j = i;

		if (a[i] < 0 || a[i] == i)
			continue;
		if (tick && ++calls % every == 0)
			tick();
		memcpy(row, X + (size_t) i * k, sizeof(double) * k);
		for (;;)
		{
			int64_t		src = a[j];

			a[j] = -1;
			if (src == i)
			{
				memcpy(X + (size_t) j * k, row, sizeof(double) * k);
				break;
			}
			memcpy(X + (size_t) j * k, X + (size_t) src * k, sizeof(double) * k);
			j = src;
		}
	}
}

int64_t
jl_kmeans_distinct(const double *X, int64_t n, int k, void (*tick) (void))
{
	int64_t		m = n > 0 ? 1 : 0;
	int64_t		i,
				every = KM_SORT_TICK(k);

	for (i = 1; i < n; i++)
	{
		if (tick && i % every == 0)
			tick();
		if (km_compare(X + (i - 1) * k, X + i * k, &k) != 0)
			m++;
	}
	return m;
}

int
jl_kmeans_check_range(const double *X, int64_t n, int k)
{
	double		mx = 0.0;
	int64_t		i;

	for (i = 0; i < n * k; i++)
		mx = fmax(mx, fabs(X[i]));
	if (mx > JL_KMEANS_MAX_MAGNITUDE)
		return 1;
	if (mx > 0.0 && mx < JL_KMEANS_MIN_MAGNITUDE)
		return -1;
	return 0;
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

/*
 * The assignment step computes the distances of KM_TILE points to KM_BLOCK
 * centroids at once, the block's centroids one vector (GCC's vector
 * extension: one AVX-512 register, two AVX2 or four SSE2 ones, compiled
 * for each and chosen when the library loads).  Each lane sums its pair's
 * (x[j] - c[j])^2 over j in order, without fused multiply-adds, exactly as
 * jl_sqdist does: the distances, and so the labels, are the same bits on
 * every instruction set and in every order of the points.
 */
#define KM_BLOCK 8
#define KM_TILE 4
typedef double km_vec __attribute__((vector_size(KM_BLOCK * sizeof(double))));

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define KM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KM_CLONES
#endif

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
	double	   *tile;			/* KM_TILE x k: the last points, padded */
	double	   *trial_prev;		/* c x k: the centroids before an update */
	const JlKmeansAssigner *par;	/* the assignment done elsewhere, or NULL */
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
		km_blocked_doubles(k, c) * sizeof(double) + (size_t) KM_TILE * k * sizeof(double) +
		(size_t) c * k * sizeof(double) + 4 * sizeof(double);
}

/* the next bytes of the workspace, as a pointer of any type */
static void *
km_carve(char **p, size_t bytes)
{
	void	   *at = *p;

	*p += bytes;
	return at;
}

static void
km_work(void *work, int64_t n, int k, int c, KmWork *w)
{
	char	   *p = work;

	w->par = NULL;
	w->dist = km_carve(&p, (size_t) n * sizeof(double));
	w->sum = km_carve(&p, (size_t) c * k * sizeof(double));
	w->trial = km_carve(&p, (size_t) c * k * sizeof(double));
	w->blocked = km_carve(&p, km_blocked_doubles(k, c) * sizeof(double));
	w->tile = km_carve(&p, (size_t) KM_TILE * k * sizeof(double));
	w->trial_prev = km_carve(&p, (size_t) c * k * sizeof(double));
	w->count = km_carve(&p, (size_t) c * sizeof(int64_t));
	w->label = km_carve(&p, (size_t) n * sizeof(int));
}

void
jl_kmeans_work_layout(void *work, int64_t n, int k, int c, int **label, double **dist,
					  double **blocked)
{
	KmWork		w;

	km_work(work, n, k, c, &w);
	*label = w.label;
	*dist = w.dist;
	*blocked = w.blocked;
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
	{
		if (tick && i % (KM_TICK_WORK / k + 1) == 0)
			tick();
		dist[i] = jl_sqdist(X + i * k, C, k);
	}

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

typedef int64_t km_ivec __attribute__((vector_size(KM_BLOCK * sizeof(int64_t))));

/*
 * The nearest of the c centroids (blocked, nb blocks of KM_BLOCK) to each
 * of the KM_TILE points at x (rows of k): best[p], label[p].  Each lane
 * keeps the smallest distance of its centroids (strictly smaller: the
 * earlier block on ties), then the lanes are reduced to the smallest
 * distance and, among equal ones, the lowest centroid: the first centroid
 * on ties, as a scan in order would find it.  No branch depends on the data.
 */
KM_CLONES static void
km_tile_assign(const double *x, int k, const double *blocked, int nb, int c,
			   double *best, int *label)
{
	km_vec		b0 = {0},
				b1 = {0},
				b2 = {0},
				b3 = {0};
	km_ivec		i0 = {0},
				i1 = {0},
				i2 = {0},
				i3 = {0};
	int			b,
				j,
				m;

	for (b = 0; b < nb; b++)
	{
		const double *B = blocked + (size_t) b * k * KM_BLOCK;
		km_vec		a0 = {0},
					a1 = {0},
					a2 = {0},
					a3 = {0};
		km_ivec		idx,
					lt;

		for (j = 0; j < k; j++)
		{
			km_vec		cv,
						t;

			memcpy(&cv, B + (size_t) j * KM_BLOCK, sizeof(cv));
			t = x[j] - cv;
			a0 += t * t;
			t = x[k + j] - cv;
			a1 += t * t;
			t = x[2 * k + j] - cv;
			a2 += t * t;
			t = x[3 * k + j] - cv;
			a3 += t * t;
		}
		/* a padded lane of the last block is a copy of centroid c - 1 */
		for (m = 0; m < KM_BLOCK; m++)
			/* cppcheck reads idx, a vector of 4 lanes, as uninitialised before its lanes are set */
			/* cppcheck-suppress uninitvar */
			idx[m] = b * KM_BLOCK + m < c ? b * KM_BLOCK + m : c - 1;
		if (b == 0)
		{
			b0 = a0, b1 = a1, b2 = a2, b3 = a3;
			i0 = i1 = i2 = i3 = idx;
			continue;
		}
#define KM_KEEP(bv, iv, av) \
		lt = (av) < (bv); \
		bv = (km_vec) (((km_ivec) (av) & lt) | ((km_ivec) (bv) & ~lt)); \
		iv = (idx & lt) | ((iv) & ~lt)
		KM_KEEP(b0, i0, a0);
		KM_KEEP(b1, i1, a1);
		KM_KEEP(b2, i2, a2);
		KM_KEEP(b3, i3, a3);
#undef KM_KEEP
	}
#define KM_REDUCE(p, bv, iv) \
	do { \
		double		d_ = (bv)[0]; \
		int64_t		l_ = INT64_MAX; \
		for (m = 1; m < KM_BLOCK; m++) \
			d_ = (bv)[m] < d_ ? (bv)[m] : d_; \
		for (m = 0; m < KM_BLOCK; m++) \
			l_ = ((bv)[m] == d_ && (iv)[m] < l_) ? (iv)[m] : l_; \
		best[p] = d_; \
		label[p] = (int) (l_ == INT64_MAX ? (iv)[0] : l_); \
	} while (0)
	KM_REDUCE(0, b0, i0);
	KM_REDUCE(1, b1, i1);
	KM_REDUCE(2, b2, i2);
	KM_REDUCE(3, b3, i3);
#undef KM_REDUCE
}

int64_t
jl_kmeans_assign_range(const double *X, int64_t from, int64_t to, int k, const double *blocked,
					   int c, int *label, double *dist, double *tile, void (*tick) (void))
{
	int64_t		changed = 0;
	int64_t		i;
	int			nb = (c + KM_BLOCK - 1) / KM_BLOCK;
	int64_t		stride = KM_TICK_WORK / ((int64_t) c * k * KM_TILE) + 1;
	int64_t		tiles = 0;

	for (i = from; i < to; i += KM_TILE)
	{
		const double *x = X + i * k;
		int			np = to - i < KM_TILE ? (int) (to - i) : KM_TILE;
		double		best[KM_TILE];
		int			l[KM_TILE],
					p;

		if (tick && ++tiles % stride == 0)
			tick();
		if (np < KM_TILE)
		{
			/* the last points, the rest of the tile copies of the last */
			for (p = 0; p < KM_TILE; p++)
				memcpy(tile + (size_t) p * k, X + (i + (p < np ? p : np - 1)) * k,
					   sizeof(double) * k);
			x = tile;
		}
		km_tile_assign(x, k, blocked, nb, c, best, l);
		for (p = 0; p < np; p++)
		{
			dist[i + p] = best[p];
			changed += l[p] != label[i + p];
			label[i + p] = l[p];
		}
	}
	return changed;
}

/*
 * Assign every point to its nearest centroid; returns how many changed.
 * Each distance is summed over the coordinates in order, exactly as
 * jl_kmeans_nearest does, so both give the same labels (jl_kmeans_nearest
 * also orders distances whose squares overflow; sketches that large are
 * not clustered here).  Ties go to the lowest centroid.  With par, the
 * caller's workers assign (the same labels and distances, whoever
 * computes each point).
 */
static int64_t
km_assign(const double *X, int64_t n, int k, const double *C, int c,
		  KmWork *w, void (*tick) (void))
{
	km_block(C, c, k, w->blocked);
	if (w->par)
		return w->par->assign(w->par->arg);
	return jl_kmeans_assign_range(X, 0, n, k, w->blocked, c, w->label, w->dist, w->tile, tick);
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

/*
 * The sums and counts of the clusters, the points added in order (each
 * coordinate's sum the same bits whatever the instruction set).
 */
KM_CLONES static void
km_sums(const double *restrict X, int64_t n, int k, const int *restrict label,
		double *restrict sum, int64_t *restrict count, int c)
{
	int64_t		i;
	int			t;

	memset(sum, 0, sizeof(double) * (size_t) c * k);
	memset(count, 0, sizeof(int64_t) * c);
	for (i = 0; i < n; i++)
	{
		const double *restrict x = X + i * k;
		double	   *restrict s = sum + (size_t) label[i] * k;

		count[label[i]]++;
		for (t = 0; t + KM_BLOCK <= k; t += KM_BLOCK)
		{
			km_vec		sv,
						xv;

			memcpy(&sv, s + t, sizeof(sv));
			memcpy(&xv, x + t, sizeof(xv));
			sv += xv;
			memcpy(s + t, &sv, sizeof(sv));
		}
		for (; t < k; t++)
			s[t] += x[t];
	}
}

/* centroids := means of their points; empty clusters re-seeded */
static void
km_update(const double *X, int64_t n, int k, double *C, int c, KmWork *w,
		  void (*tick) (void))
{
	int64_t		i;
	int			j,
				t;

	km_sums(X, n, k, w->label, w->sum, w->count, c);
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
 * scikit-learn's tolerance: tol times the mean over the coordinates of
 * their variance (population, two passes), the bound of the sum of the
 * centroids' squared shifts in one update below which Lloyd stops.
 */
static double
km_tolerance(const double *X, int64_t n, int k, double tol, double *mean, double *ss,
			 void (*tick) (void))
{
	double		total = 0.0;
	int64_t		i,
				every = KM_TICK_WORK / k + 1;
	int			t;

	if (!(tol > 0.0))
		return 0.0;
	/* row by row, each coordinate's sums still in point order */
	for (t = 0; t < k; t++)
		mean[t] = ss[t] = 0.0;
	for (i = 0; i < n; i++)
	{
		if (tick && i % every == every - 1)
			tick();
		for (t = 0; t < k; t++)
			mean[t] += X[i * k + t];
	}
	for (t = 0; t < k; t++)
		mean[t] /= (double) n;
	for (i = 0; i < n; i++)
	{
		if (tick && i % every == every - 1)
			tick();
		for (t = 0; t < k; t++)
		{
			double		e = X[i * k + t] - mean[t];

			ss[t] += e * e;
		}
	}
	for (t = 0; t < k; t++)
		total += ss[t] / (double) n;
	return tol * total / k;
}

/*
 * Lloyd iterations from the centroids in C, as scikit-learn's lloyd: each
 * iteration assigns the points and updates the centroids; it stops when no
 * assignment changed (the update left the centroids as they were), or when
 * the centroids' squared shifts sum to at most tol_abs, or after max_iter
 * iterations, and then (but after no change) assigns once more.  Returns
 * the inertia (the points' squared distances to their centroid, summed in
 * point order); *iterations as scikit-learn's n_iter_.
 */
static double
km_iterate(const double *X, int64_t n, int k, int c, int max_iter, double tol_abs,
		   double *C, KmWork *w, int *iterations, void (*tick) (void))
{
	double		inertia = 0.0;
	int64_t		i;
	int			it;
	bool		unchanged = false;

	for (i = 0; i < n; i++)
		w->label[i] = -1;
	*iterations = 0;
	for (it = 0; it < max_iter; it++)
	{
		double		shift = 0.0;
		size_t		q;

		if (tick)
			tick();
		(*iterations)++;
		if (km_assign(X, n, k, C, c, w, tick) == 0)
		{
			unchanged = true;
			break;
		}
		memcpy(w->trial_prev, C, sizeof(double) * (size_t) c * k);
		km_update(X, n, k, C, c, w, tick);
		for (q = 0; q < (size_t) c * k; q++)
		{
			double		e = C[q] - w->trial_prev[q];

			shift += e * e;
		}
		if (shift <= tol_abs)
			break;
	}
	/* the distances to the centroids as they are now */
	if (!unchanged)
	{
		if (tick)
			tick();
		km_assign(X, n, k, C, c, w, tick);
	}
	for (i = 0; i < n; i++)
		inertia += w->dist[i];
	return inertia;
}

/* One k-means++ seeding from seed, then Lloyd iterations, into C. */
static double
km_lloyd(const double *X, int64_t n, int k, int c, uint64_t seed,
		 int max_iter, double tol_abs, double *C, KmWork *w, int *iterations,
		 void (*tick) (void))
{
	km_seed(X, n, k, c, seed, C, w->dist, tick);
	return km_iterate(X, n, k, c, max_iter, tol_abs, C, w, iterations, tick);
}

double
jl_kmeans_lloyd_from(const double *X, int64_t n, int k, int c, int max_iter,
					 double tol, double *centroids, void *work, int *iterations,
					 void (*tick) (void))
{
	KmWork		w;

	km_work(work, n, k, c, &w);
	return km_iterate(X, n, k, c, max_iter, km_tolerance(X, n, k, tol, w.sum, w.trial, tick),
					  centroids, &w, iterations, tick);
}

int
jl_kmeans_run(const double *X, int64_t n, int k, int c, uint64_t seed,
			  int max_iter, double tol, int n_init, double *centroids, void *work,
			  int *iterations, double *inertia, void (*tick) (void),
			  const JlKmeansAssigner *par)
{
	KmWork		w;
	KmRandom	restarts;
	double		best,
				tol_abs;
	int64_t		i;
	int			r;

	*iterations = 0;
	*inertia = 0.0;
	if (jl_kmeans_distinct(X, n, k, tick) <= c)
	{
		int			m = 0;

		for (i = 0; i < n; i++)
			if (i == 0 || km_compare(X + (i - 1) * k, X + i * k, &k) != 0)
				memcpy(centroids + (size_t) (m++) * k, X + i * k, sizeof(double) * k);
		return m;
	}

	km_work(work, n, k, c, &w);
	w.par = par;
	tol_abs = km_tolerance(X, n, k, tol, w.sum, w.trial, tick);
	/* the first run is seeded by seed itself, the others from a stream */
	best = km_lloyd(X, n, k, c, seed, max_iter, tol_abs, centroids, &w, iterations, tick);
	km_random_init(&restarts, km_domain_restarts, seed);
	for (r = 1; r < n_init; r++)
	{
		int			it;
		double		v = km_lloyd(X, n, k, c, km_word(&restarts), max_iter, tol_abs,
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
