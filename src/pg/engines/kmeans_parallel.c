/*
 * kmeans_parallel.c - k-means with its assignment steps in parallel
 * workers (PostgreSQL's parallel contexts, as parallel index builds use
 * them), for jl_kmeans(release, ...) and the jl_kmeans aggregate.
 *
 * The sketches and jl_kmeans_run's workspace go into the context's dynamic
 * shared memory.  In each Lloyd iteration the leader publishes the blocked
 * centroids and opens a phase of a barrier; the leader and every worker
 * then take chunks of points from a shared counter and assign them
 * (jl_kmeans_assign_range: each point's distances and label are the same
 * bits whoever computes them), and a second phase closes the step.  The
 * update (the sums of each cluster's points, in point order) stays in the
 * leader, so the result is the serial one exactly: the same centroids,
 * inertia and iterations with any number of workers.  Workers that start
 * late join at the next phase; a worker's error reaches the leader at its
 * next interrupt check (inside every barrier wait), and an error or a
 * cancel in the leader ends the workers with the transaction.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "access/xact.h"
#include "optimizer/cost.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/barrier.h"
#include "storage/shm_toc.h"
#include "utils/memutils.h"

#include "math/analytics/kmeans.h"

#include "pg/engines/kmeans_parallel.h"

#define KM_SHARED_KEY UINT64CONST(0x6A6C6B6D00000001)
#define KM_POINTS_KEY UINT64CONST(0x6A6C6B6D00000002)
#define KM_WORK_KEY UINT64CONST(0x6A6C6B6D00000003)

/* points taken at a time (a multiple of the assignment's tile of 4) */
#define KM_CHUNK 4096

/*
 * Parallel only when an assignment step has at least this many distance
 * terms (n x c x k): a few milliseconds of work, against the workers'
 * start (their load of the library is tens of milliseconds, once).
 */
#define KM_PARALLEL_MIN_TERMS (INT64CONST(1) << 24)

typedef enum KmCommand
{
	KM_ASSIGN,
	KM_STOP
} KmCommand;

typedef struct KmShared
{
	int64		n;
	int32		k;
	int32		c;
	KmCommand	command;		/* written by the leader before a phase opens */
	pg_atomic_uint64 next;		/* the next chunk to assign */
	pg_atomic_uint64 changed;	/* labels changed in this step */
	Barrier		barrier;		/* even phases: waiting; odd: assigning */
} KmShared;

typedef struct KmParallel
{
	KmShared   *sh;
	const double *X;
	int		   *label;
	double	   *dist;
	double	   *blocked;
	double	   *tile;
} KmParallel;

/* take chunks until none is left; adds the labels changed */
static void
km_assign_chunks(KmParallel *kp)
{
	KmShared   *sh = kp->sh;
	uint64		changed = 0;

	for (;;)
	{
		int64		from = (int64) pg_atomic_fetch_add_u64(&sh->next, 1) * KM_CHUNK;

		if (from >= sh->n)
			break;
		changed += jl_kmeans_assign_range(kp->X, from, Min(from + KM_CHUNK, sh->n), sh->k,
										  kp->blocked, sh->c, kp->label, kp->dist, kp->tile,
										  jl_kmeans_tick);
		CHECK_FOR_INTERRUPTS();
	}
	pg_atomic_fetch_add_u64(&sh->changed, changed);
}

/* the leader's assignment step (JlKmeansAssigner) */
static int64_t
km_parallel_assign(void *arg)
{
	KmParallel *kp = arg;
	KmShared   *sh = kp->sh;

	pg_atomic_write_u64(&sh->next, 0);
	pg_atomic_write_u64(&sh->changed, 0);
	sh->command = KM_ASSIGN;
	BarrierArriveAndWait(&sh->barrier, PG_WAIT_EXTENSION);	/* open */
	km_assign_chunks(kp);
	BarrierArriveAndWait(&sh->barrier, PG_WAIT_EXTENSION);	/* closed */
	return (int64_t) pg_atomic_read_u64(&sh->changed);
}

static void
km_map(shm_toc *toc, KmParallel *kp)
{
	void	   *work;

	kp->sh = shm_toc_lookup(toc, KM_SHARED_KEY, false);
	kp->X = shm_toc_lookup(toc, KM_POINTS_KEY, false);
	work = shm_toc_lookup(toc, KM_WORK_KEY, false);
	jl_kmeans_work_layout(work, kp->sh->n, kp->sh->k, kp->sh->c, &kp->label, &kp->dist,
						  &kp->blocked);
	kp->tile = palloc(sizeof(double) * jl_kmeans_tile_doubles(kp->sh->k));
}

/* a worker: assign in every phase the leader opens, until it says stop */
PGDLLEXPORT void jl_kmeans_parallel_main(dsm_segment *seg, shm_toc *toc);
void
jl_kmeans_parallel_main(dsm_segment *seg, shm_toc *toc)
{
	KmParallel	kp;
	int			phase;

	km_map(toc, &kp);
	phase = BarrierAttach(&kp.sh->barrier);
	for (;;)
	{
		if (phase % 2 == 0)
		{
			BarrierArriveAndWait(&kp.sh->barrier, PG_WAIT_EXTENSION);
			phase++;
		}
		if (kp.sh->command == KM_STOP)
			break;
		km_assign_chunks(&kp);
		BarrierArriveAndWait(&kp.sh->barrier, PG_WAIT_EXTENSION);
		phase++;
	}
	BarrierDetach(&kp.sh->barrier);
}

/* how many workers: max_parallel_workers_per_gather, for enough work */
static int
km_workers(int64 n, int k, int c)
{
	if (max_parallel_workers_per_gather <= 0 || IsInParallelMode() ||
		(double) n * c * k < (double) KM_PARALLEL_MIN_TERMS || n < 2 * KM_CHUNK)
		return 0;
	return max_parallel_workers_per_gather;
}

/* each centroid's number of points, by the labels jl_nearest_centroid gives */
static void
km_sizes(const double *X, int64 n, int k, const double *centroids, int m, int64 *sizes)
{
	int64		every = (INT64CONST(1) << 24) / ((int64) m * k) + 1;

	memset(sizes, 0, sizeof(int64) * m);
	for (int64 i = 0; i < n; i++)
	{
		if (i % every == 0)
			CHECK_FOR_INTERRUPTS();
		sizes[jl_kmeans_nearest(X + i * k, centroids, m, k, NULL)]++;
	}
}

void
jl_kmeans_tick(void)
{
	CHECK_FOR_INTERRUPTS();
}

void
jl_kmeans_prepare(double *X, int64 n, int k)
{
	void	   *scratch;
	int			range = jl_kmeans_check_range(X, n, k);

	if (range != 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("k-means needs sketches whose largest coordinate lies within [%g, %g]",
						JL_KMEANS_MIN_MAGNITUDE, JL_KMEANS_MAX_MAGNITUDE),
				 errdetail("The largest |coordinate| is %s: squared distances would %s.",
						   range > 0 ? "larger" : "smaller",
						   range > 0 ? "overflow" : "underflow"),
				 errhint("Scale the sketches (every coordinate by one factor): the clusters are the same.")));
	scratch = palloc_extended(jl_kmeans_sort_bytes(n, k), MCXT_ALLOC_HUGE);
	jl_kmeans_sort(X, n, k, scratch, jl_kmeans_tick);
	pfree(scratch);
}

int
jl_kmeans_run_parallel(double *X, int64 n, int k, int c, uint64 seed, int max_iter,
					   double tol, int n_init, double *centroids, int *iterations,
					   double *inertia, int *workers, int64 *sizes, bool free_points)
{
	int			nworkers = km_workers(n, k, c);
	Size		xbytes = mul_size(mul_size(sizeof(double), n), k),
				wbytes = jl_kmeans_work_bytes(n, k, c);
	ParallelContext *pcxt;
	KmParallel	kp;
	JlKmeansAssigner assigner;
	double	   *xs;
	void	   *work;
	int			m;

	*workers = 0;
	if (nworkers == 0 || jl_kmeans_distinct(X, n, k, jl_kmeans_tick) <= c)
	{
		work = palloc_extended(wbytes, MCXT_ALLOC_HUGE);
		m = jl_kmeans_run(X, n, k, c, seed, max_iter, tol, n_init, centroids, work,
						  iterations, inertia, jl_kmeans_tick, NULL);
		pfree(work);
		if (sizes)
			km_sizes(X, n, k, centroids, m, sizes);
		if (free_points)
			pfree(X);
		return m;
	}

	EnterParallelMode();
	pcxt = CreateParallelContext("jldp", "jl_kmeans_parallel_main", nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(KmShared));
	shm_toc_estimate_chunk(&pcxt->estimator, xbytes);
	shm_toc_estimate_chunk(&pcxt->estimator, wbytes);
	shm_toc_estimate_keys(&pcxt->estimator, 3);
	InitializeParallelDSM(pcxt);

	kp.sh = shm_toc_allocate(pcxt->toc, sizeof(KmShared));
	kp.sh->n = n;
	kp.sh->k = k;
	kp.sh->c = c;
	kp.sh->command = KM_ASSIGN;
	pg_atomic_init_u64(&kp.sh->next, 0);
	pg_atomic_init_u64(&kp.sh->changed, 0);
	BarrierInit(&kp.sh->barrier, 0);
	shm_toc_insert(pcxt->toc, KM_SHARED_KEY, kp.sh);
	xs = shm_toc_allocate(pcxt->toc, xbytes);
	memcpy(xs, X, xbytes);
	shm_toc_insert(pcxt->toc, KM_POINTS_KEY, xs);
	/* held once from here on */
	if (free_points)
		pfree(X);
	work = shm_toc_allocate(pcxt->toc, wbytes);
	shm_toc_insert(pcxt->toc, KM_WORK_KEY, work);
	km_map(pcxt->toc, &kp);

	(void) BarrierAttach(&kp.sh->barrier);
	LaunchParallelWorkers(pcxt);
	*workers = pcxt->nworkers_launched;
	assigner.assign = km_parallel_assign;
	assigner.arg = &kp;
	m = jl_kmeans_run(xs, n, k, c, seed, max_iter, tol, n_init, centroids, work, iterations,
					  inertia, jl_kmeans_tick, *workers > 0 ? &assigner : NULL);

	/* the workers' last phase: stop */
	kp.sh->command = KM_STOP;
	BarrierArriveAndWait(&kp.sh->barrier, PG_WAIT_EXTENSION);
	BarrierDetach(&kp.sh->barrier);
	WaitForParallelWorkersToFinish(pcxt);
	if (sizes)
		km_sizes(xs, n, k, centroids, m, sizes);
	DestroyParallelContext(pcxt);
	ExitParallelMode();
	return m;
}
