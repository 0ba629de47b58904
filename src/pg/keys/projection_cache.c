/*
 * projection_cache.c - per-backend cache of projection matrices.
 *
 * Generating P costs d k normal draws; a release of many rows must not pay
 * it per row.  Entries are keyed by (secret, kind, k, d), the kind with its
 * density (a sparse kind asked for without one gets 1/sqrt(d) here), so a key that is
 * dropped and recreated under the same name never reuses a stale P.  The
 * cache is bounded in entries and bytes; the least recently used entry goes
 * first, and its memory (secret included) is wiped.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "math/projection/calibrate.h"
#include "math/projection/release.h"
#include "math/projection/sparse.h"
#include "pg/common/options.h"
#include "pg/keys/projection_cache.h"

#define JL_CACHE_ENTRIES 8
#define JL_CACHE_BYTES ((Size) 1024 * 1024 * 1024)
/* streamed statistics cached per backend */
#define JL_STATS_ENTRIES 8
/* rows of P generated per streaming step (CHECK_FOR_INTERRUPTS between) */
#define JL_STREAM_DOUBLES 65536
/* kinds at most this dense also keep their nonzeros (csr.h) */
#define JL_CSR_MAX_DENSITY 0.1

static JlProjection cache[JL_CACHE_ENTRIES];
static uint64 cache_clock = 0;

static void
evict(JlProjection *e)
{
	if (e->P != NULL)
	{
		explicit_bzero(e->P, e->bytes - e->csr_bytes);
		pfree(e->P);
	}
	if (e->has_csr)
	{
		explicit_bzero(e->csr.val, sizeof(double) * e->csr.nnz);
		explicit_bzero(e->csr.col, sizeof(int32) * e->csr.nnz);
		explicit_bzero(e->csr.cval, sizeof(double) * e->csr.nnz);
		explicit_bzero(e->csr.row, sizeof(int32) * e->csr.nnz);
		explicit_bzero(e->csr.rowptr, sizeof(int64) * (e->csr.d + 1));
		explicit_bzero(e->csr.colptr, sizeof(int64) * (e->csr.k + 1));
		pfree(e->csr.val);
		pfree(e->csr.col);
		pfree(e->csr.cval);
		pfree(e->csr.row);
		pfree(e->csr.rowptr);
		pfree(e->csr.colptr);
	}
	explicit_bzero(e, sizeof(*e));
}

/*
 * The nonzeros of a sparse kind's P, when they fit in the cache's budget
 * (otherwise the dense products serve, only slower).
 */
static void
build_csr(JlProjection *slot, Size total_before)
{
	int64		nnz;
	Size		bytes,
				each;
	JlCsr	   *S = &slot->csr;
	void	  **parts[6];
	Size		sizes[6];
	int			i;

	slot->has_csr = false;
	slot->csr_bytes = 0;
	if (jl_kind_density(slot->kind) > JL_CSR_MAX_DENSITY)
		return;
	nnz = jl_csr_count(slot->P, slot->d, slot->k);
	each = (Size) Max(nnz, 1);
	parts[0] = (void **) &S->rowptr;
	sizes[0] = mul_size(sizeof(int64), (Size) slot->d + 1);
	parts[1] = (void **) &S->colptr;
	sizes[1] = mul_size(sizeof(int64), (Size) slot->k + 1);
	parts[2] = (void **) &S->col;
	sizes[2] = mul_size(sizeof(int32), each);
	parts[3] = (void **) &S->row;
	sizes[3] = mul_size(sizeof(int32), each);
	parts[4] = (void **) &S->val;
	sizes[4] = mul_size(sizeof(double), each);
	parts[5] = (void **) &S->cval;
	sizes[5] = mul_size(sizeof(double), each);
	bytes = 0;
	for (i = 0; i < 6; i++)
		bytes = add_size(bytes, sizes[i]);
	if (total_before + slot->bytes + bytes > JL_CACHE_BYTES)
		return;
	memset(S, 0, sizeof(*S));
	for (i = 0; i < 6; i++)
	{
		*parts[i] = MemoryContextAllocExtended(TopMemoryContext, sizes[i],
											   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
		if (*parts[i] == NULL)
		{
			while (--i >= 0)
				pfree(*parts[i]);
			memset(S, 0, sizeof(*S));
			return;
		}
	}
	jl_csr_fill(slot->P, slot->d, slot->k, S);
	slot->csr_bytes = bytes;
	slot->bytes += bytes;
	slot->has_csr = true;
}

static Size
cache_bytes(void)
{
	Size		total = 0;
	int			i;

	for (i = 0; i < JL_CACHE_ENTRIES; i++)
		if (cache[i].used)
			total += cache[i].bytes;
	return total;
}

/* A free slot with room for bytes more, evicting least recently used entries. */
static JlProjection *
make_room(Size bytes)
{
	for (;;)
	{
		JlProjection *lru = NULL;
		int			free_slot = -1;
		int			n;

		for (n = 0; n < JL_CACHE_ENTRIES; n++)
		{
			if (!cache[n].used)
			{
				if (free_slot < 0)
					free_slot = n;
			}
			else if (lru == NULL || cache[n].last_used < lru->last_used)
				lru = &cache[n];
		}
		if (free_slot >= 0 && cache_bytes() + bytes <= JL_CACHE_BYTES)
			return &cache[free_slot];
		Assert(lru != NULL);
		/* every slot in use here, so the loop set lru (cppcheck assumes it may not) */
		/* cppcheck-suppress nullPointerRedundantCheck */
		evict(lru);
	}
}

/*
 * The identity's entry: no matrix (P NULL, no bytes), its statistics known
 * in closed form (jl_identity_stats).  Cached like the others, so that a
 * caller holding it sees it stay put.
 */
static JlProjection *
identity_entry(const uint8 *secret, int k, int64 d)
{
	JlProjection *slot;

	jl_check_identity_k(JL_KIND_IDENTITY, k, d, "the length of the rows");
	slot = make_room(0);
	memcpy(slot->secret, secret, JL_KEY_BYTES);
	slot->kind = JL_KIND_IDENTITY;
	slot->k = k;
	slot->d = d;
	slot->P = NULL;
	slot->has_csr = false;
	slot->csr_bytes = 0;
	slot->bytes = 0;
	jl_identity_stats(d, &slot->stats);
	slot->last_used = ++cache_clock;
	slot->used = true;
	return slot;
}

/*
 * The d rows of P into P (d x k, allocated).  Interrupted, only the rows
 * generated so far hold secret values: those are wiped, not the untouched
 * rest of the allocation (which wiping would page in, up to 1 GB, delaying
 * the cancel by seconds), and P freed.  A function of its own: no caller's
 * variable lives across its longjmp.
 */
static void
generate_rows(const uint8 *secret, JlKind kind, int k, int64 d, double *P)
{
	volatile int64 done = 0;	/* rows written, for the wipe */
	int64		i;

	PG_TRY();
	{
		for (i = 0; i < d; i++)
		{
			if ((i & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
			done = i + 1;
			jl_projection_row(secret, kind, k, (uint32) i, P + i * (int64) k);
		}
	}
	PG_CATCH();
	{
		explicit_bzero(P, (Size) done * k * sizeof(double));
		pfree(P);
		PG_RE_THROW();
	}
	PG_END_TRY();
}

JlProjection *
jl_projection_get(const uint8 *secret, JlKind kind, int k, int64 d)
{
	JlProjection *slot;
	double	   *P;
	Size		bytes;
	int			n;

	kind = jl_kind_resolve(kind, d);
	if (!jl_kind_ready(kind))
		elog(ERROR, "projection kind code 0x%x cannot generate rows", kind);

	for (n = 0; n < JL_CACHE_ENTRIES; n++)
	{
		JlProjection *e = &cache[n];

		if (e->used && e->k == k && e->d == d && e->kind == kind &&
			memcmp(e->secret, secret, JL_KEY_BYTES) == 0)
		{
			e->last_used = ++cache_clock;
			return e;
		}
	}
	if (JL_KIND_IS_IDENTITY(kind))
		return identity_entry(secret, k, d);

	if ((double) d * (double) k * sizeof(double) > (double) JL_CACHE_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("projection matrix of %lld x %d is too large",
						(long long) d, k),
				 errdetail("It would need %.0f MB; the limit is %zu MB.",
						   (double) d * k * sizeof(double) / 1048576.0,
						   JL_CACHE_BYTES / 1048576)));
	bytes = mul_size(mul_size((Size) d, (Size) k), sizeof(double));

	slot = make_room(bytes);

	P = MemoryContextAllocExtended(TopMemoryContext, bytes,
								   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	if (P == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory for a %lld x %d projection matrix",
						(long long) d, k)));
	generate_rows(secret, kind, k, d, P);

	memcpy(slot->secret, secret, JL_KEY_BYTES);
	slot->kind = kind;
	slot->k = k;
	slot->d = d;
	slot->bytes = bytes;
	slot->stats.d = d;
	slot->stats.k = k;
	slot->stats.max_abs = jl_max_abs(P, d * (int64) k);
	slot->stats.max_row_l1 = jl_max_row_l1(P, d, k);
	slot->stats.max_row_l2 = jl_max_row_l2(P, d, k);
	slot->stats.row_l1 = NAN;
	slot->stats.spectral_norm = NAN;
	slot->last_used = ++cache_clock;
	slot->P = P;
	slot->used = true;
	build_csr(slot, cache_bytes() - bytes);
	return slot;
}

void
jl_check_identity_k(JlKind kind, int k, int64 d, const char *what)
{
	if (JL_KIND_IS_IDENTITY(kind) && (int64) k != d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("kind 'identity' needs k = d, here k = %d and d = %lld", k,
						(long long) d),
				 errdetail("The identity releases every attribute: d is %s.", what),
				 errhint("Pass k => %lld, or a projection kind such as 'rademacher' for k < d.",
						 (long long) d)));
}

void
jl_projection_apply(const JlProjection *p, const double *X, int64 n, double *Y)
{
	if (p->has_csr)
		jl_csr_project_rows(&p->csr, X, n, Y);
	else
		jl_project_rows(p->P, p->d, p->k, X, n, Y);
}

/*
 * The row statistics need P^T P (d k^2) and its eigenvalues (k^3), in BLAS
 * and LAPACK calls that cannot be interrupted: keep them to seconds.
 */
static void
check_row_work(int64 d, int k)
{
	if (!jl_row_stats_affordable(d, k))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row neighbours with d = %lld and k = %d are too expensive to calibrate",
						(long long) d, k),
				 errdetail("The row sensitivity needs P^T P and its spectral norm; "
						   "the limits are k <= %d and d k^2 <= %.0e.",
						   JL_ROW_MAX_K, JL_ROW_MAX_WORK),
				 errhint("Use a smaller k, or element neighbours.")));
}

static void
lapack_failed(const char *what)
{
	/* a computation that stopped for a cancel: the cancel is the error */
	CHECK_FOR_INTERRUPTS();
	ereport(ERROR,
			(errcode(ERRCODE_OUT_OF_MEMORY),
			 errmsg("could not compute the %s of the projection", what),
			 errdetail("LAPACK or memory allocation failed.")));
}

/* The statistic need of the dense P, computed once. */
static void
dense_stat(JlProjection *p, JlProjStat need)
{
	JlProjStats *st = &p->stats;

	if (need == JL_STAT_ROW_L1 && isnan(st->row_l1))
	{
		double		r;

		check_row_work(p->d, p->k);
		r = jl_row_l1_sensitivity(p->P, p->d, p->k, &st->row_method);
		if (r < 0.0)
			lapack_failed("row sensitivity");
		st->row_l1 = r;
	}
	else if (need == JL_STAT_SPECTRAL && isnan(st->spectral_norm))
	{
		double		r;

		check_row_work(p->d, p->k);
		r = jl_spectral_norm(p->P, p->d, p->k);
		if (r < 0.0)
			lapack_failed("spectral norm");
		st->spectral_norm = r;
	}
}

/* ------------------------------------------------------------------------
 * statistics of P for large d, streamed over its rows without holding P
 */

typedef struct StatsEntry
{
	bool		used;
	uint8		secret[JL_KEY_BYTES];
	JlKind		kind;
	JlProjStats stats;			/* the row ones both computed, or both NaN */
	uint64		last_used;
} StatsEntry;

static StatsEntry stats_cache[JL_STATS_ENTRIES];
static uint64 stats_clock = 0;

/* One pass over the d rows of P; the Gram matrix only when need_row. */
static void
stream_stats(StatsEntry *e, bool need_row)
{
	JlProjStats *st = &e->stats;
	int64		block = Max(1, JL_STREAM_DOUBLES / st->k);
	Size		bufbytes = mul_size(sizeof(double), (Size) block * st->k);
	Size		gbytes = need_row ? mul_size(sizeof(double), (Size) st->k * st->k) : 0;
	double	   *buf = palloc(bufbytes);
	double	   *G = need_row ? palloc0(gbytes) : NULL;
	JlStreamStats acc = {0.0, 0.0, 0.0};
	double		r = 0.0,
				spec = 0.0;
	JlRowMethod method = JL_ROW_SPECTRAL_BOUND;

	/* the rows are secret: wipe them even when interrupted */
	PG_TRY();
	{
		int64		i;

		for (i = 0; i < st->d; i += block)
		{
			CHECK_FOR_INTERRUPTS();
			jl_stream_rows(e->secret, e->kind, st->k, i, Min(block, st->d - i),
						   buf, &acc, G);
		}
		if (need_row)
		{
			int			x,
						y;

			/* dsyrk filled the upper triangle: mirror it */
			for (x = 0; x < st->k; x++)
				for (y = 0; y < x; y++)
					G[x * st->k + y] = G[y * st->k + x];
			spec = jl_spectral_norm_from_gram(G, st->d, st->k);
			r = jl_row_l1_sensitivity_gram(G, st->d, st->k, &method);
		}
	}
	PG_FINALLY();
	{
		explicit_bzero(buf, bufbytes);
		pfree(buf);
		if (G != NULL)
		{
			explicit_bzero(G, gbytes);
			pfree(G);
		}
	}
	PG_END_TRY();

	if (need_row && (r < 0.0 || spec < 0.0))
		lapack_failed("row sensitivity and spectral norm");
	st->max_abs = acc.max_abs;
	st->max_row_l1 = acc.max_row_l1;
	st->max_row_l2 = acc.max_row_l2;
	if (need_row)
	{
		st->spectral_norm = spec;
		st->row_l1 = r;
		st->row_method = method;
	}
}

static const JlProjStats *
streamed_stats(const uint8 *secret, JlKind kind, int k, int64 d, bool need_row)
{
	StatsEntry *e = NULL;
	int			i;

	if (need_row)
		check_row_work(d, k);
	for (i = 0; i < JL_STATS_ENTRIES && e == NULL; i++)
		if (stats_cache[i].used && stats_cache[i].stats.k == k &&
			stats_cache[i].stats.d == d && stats_cache[i].kind == kind &&
			memcmp(stats_cache[i].secret, secret, JL_KEY_BYTES) == 0)
			e = &stats_cache[i];
	if (e == NULL)
	{
		StatsEntry	fresh;

		memset(&fresh, 0, sizeof(fresh));
		memcpy(fresh.secret, secret, JL_KEY_BYTES);
		fresh.kind = kind;
		fresh.stats.k = k;
		fresh.stats.d = d;
		fresh.stats.row_l1 = NAN;
		fresh.stats.spectral_norm = NAN;
		/* fresh holds the secret: wipe it even when interrupted */
		PG_TRY();
		{
			stream_stats(&fresh, need_row);
		}
		PG_CATCH();
		{
			explicit_bzero(&fresh, sizeof(fresh));
			PG_RE_THROW();
		}
		PG_END_TRY();
		fresh.used = true;

		/* a free slot, or the least recently used one, wiped */
		e = &stats_cache[0];
		for (i = 0; i < JL_STATS_ENTRIES; i++)
		{
			if (!stats_cache[i].used)
			{
				e = &stats_cache[i];
				break;
			}
			if (stats_cache[i].last_used < e->last_used)
				e = &stats_cache[i];
		}
		explicit_bzero(e, sizeof(*e));
		*e = fresh;
		explicit_bzero(&fresh, sizeof(fresh));
	}
	else if (need_row && isnan(e->stats.row_l1))
		stream_stats(e, true);
	e->last_used = ++stats_clock;
	return &e->stats;
}

/* ------------------------------------------------------------------------
 * calibration
 */

/*
 * Dhaliwal's constants bound the sensitivity of a Gaussian P with a
 * probability over P.  For the other kinds that probability is not
 * derived, so it is not reported; the release stays valid exactly when the
 * realized P meets the constant (m->valid, checked on P as for Gaussian),
 * which is all the guarantee rests on.
 */
static JlStatus
calibrate_to(JlMechanism *m, const JlProjStats *st, JlKind kind)
{
	JlStatus	s = jl_calibrate_to(m, st);

	if (JL_KIND_BASE(kind) != JL_KIND_GAUSSIAN)
		m->paper_delta = NAN;
	return s;
}

JlStatus
jl_calibrate_status(JlMechanism *m, JlProjection *p)
{
	dense_stat(p, jl_sensitivity_stat(m->noise, m->neighbor));
	return calibrate_to(m, &p->stats, p->kind);
}

void
jl_calibrate_on(JlMechanism *m, JlProjection *p)
{
	jl_report_status(jl_calibrate_status(m, p));
}

void
jl_calibrate_streamed(JlMechanism *m, const uint8 *secret, JlKind kind, int k,
					  int64 d)
{
	kind = jl_kind_resolve(kind, d);
	if (JL_KIND_IS_IDENTITY(kind))
	{
		JlProjStats st;

		/* nothing to stream: the statistics of I_d in closed form */
		jl_check_identity_k(kind, k, d, "the dimension d");
		jl_identity_stats(d, &st);
		jl_report_status(calibrate_to(m, &st, kind));
		return;
	}
	jl_report_status(calibrate_to(m, streamed_stats(secret, kind, k, d,
													m->neighbor == JL_NEIGHBOR_ROW),
								  kind));
}
