/*
 * pcache.c - per-backend cache of projection matrices.
 *
 * Generating P costs d k normal draws; a release of many rows must not pay
 * it per row.  Entries are keyed by (secret, kind, k, d), the kind with its
 * density (a sparse kind asked for without one gets 1/sqrt(d) here), so a key that is
 * dropped and recreated under the same name never reuses a stale P.  The
 * cache is bounded in entries and bytes; the least recently used entry goes
 * first, and its memory (secret included) is wiped.
 */
#include "jldp.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#define JL_CACHE_ENTRIES 8
#define JL_CACHE_BYTES ((Size) 1024 * 1024 * 1024)
#define JL_ROW_MAX_K 2048
#define JL_ROW_MAX_WORK 4e10
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
		if (cache[i].P != NULL)
			total += cache[i].bytes;
	return total;
}

JlProjection *
jl_projection_get(const uint8 *secret, JlKind kind, int k, int64 d)
{
	JlProjection *slot = NULL;
	double	   *P;
	Size		bytes;
	int64		i;
	int			n;

	kind = jl_kind_resolve(kind, d);
	if (!jl_kind_ready(kind))
		elog(ERROR, "projection kind code 0x%x cannot generate rows", kind);

	for (n = 0; n < JL_CACHE_ENTRIES; n++)
	{
		JlProjection *e = &cache[n];

		if (e->P != NULL && e->k == k && e->d == d && e->kind == kind &&
			memcmp(e->secret, secret, JL_KEY_BYTES) == 0)
		{
			e->last_used = ++cache_clock;
			return e;
		}
	}

	if ((double) d * (double) k * sizeof(double) > (double) JL_CACHE_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("projection matrix of %lld x %d is too large",
						(long long) d, k),
				 errdetail("It would need %.0f MB; the limit is %zu MB.",
						   (double) d * k * sizeof(double) / 1048576.0,
						   JL_CACHE_BYTES / 1048576)));
	bytes = mul_size(mul_size((Size) d, (Size) k), sizeof(double));

	/* make room: evict least recently used entries */
	for (;;)
	{
		JlProjection *lru = NULL;
		int			free_slot = -1;

		for (n = 0; n < JL_CACHE_ENTRIES; n++)
		{
			if (cache[n].P == NULL)
			{
				if (free_slot < 0)
					free_slot = n;
			}
			else if (lru == NULL || cache[n].last_used < lru->last_used)
				lru = &cache[n];
		}
		if (free_slot >= 0 && cache_bytes() + bytes <= JL_CACHE_BYTES)
		{
			slot = &cache[free_slot];
			break;
		}
		Assert(lru != NULL);
		evict(lru);
	}

	P = MemoryContextAllocExtended(TopMemoryContext, bytes,
								   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	if (P == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory for a %lld x %d projection matrix",
						(long long) d, k)));
	PG_TRY();
	{
		for (i = 0; i < d; i++)
		{
			if ((i & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
			jl_projection_row(secret, kind, k, (uint32) i, P + i * (int64) k);
		}
	}
	PG_CATCH();
	{
		explicit_bzero(P, bytes);
		pfree(P);
		PG_RE_THROW();
	}
	PG_END_TRY();

	memcpy(slot->secret, secret, JL_KEY_BYTES);
	slot->kind = kind;
	slot->k = k;
	slot->d = d;
	slot->bytes = bytes;
	slot->max_abs = jl_max_abs(P, d * (int64) k);
	slot->max_row_l1 = jl_max_row_l1(P, d, k);
	slot->max_row_l2 = jl_max_row_l2(P, d, k);
	slot->row_done = false;
	slot->spectral_done = false;
	slot->last_used = ++cache_clock;
	slot->P = P;
	build_csr(slot, cache_bytes() - bytes);
	return slot;
}

/*
 * P^T P costs d k^2 and its eigenvalues k^3, in BLAS/LAPACK calls that cannot
 * be interrupted: keep them to seconds.
 */
static void
check_row_work(const JlProjection *p)
{
	if (p->k > JL_ROW_MAX_K || (double) p->d * p->k * p->k > JL_ROW_MAX_WORK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row neighbours with d = %lld and k = %d are too expensive to calibrate",
						(long long) p->d, p->k),
				 errdetail("The row sensitivity needs P^T P and its spectral norm; "
						   "the limits are k <= %d and d k^2 <= %.0e.",
						   JL_ROW_MAX_K, JL_ROW_MAX_WORK),
				 errhint("Use a smaller k, or element neighbours.")));
}

double
jl_projection_row_sensitivity(JlProjection *p)
{
	if (!p->row_done)
	{
		double		r;

		check_row_work(p);
		r = jl_row_l1_sensitivity(p->P, p->d, p->k, &p->row_method);

		if (r < 0.0)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not compute the row sensitivity of the projection"),
					 errdetail("LAPACK or memory allocation failed.")));
		p->row_sensitivity = r;
		p->row_done = true;
	}
	return p->row_sensitivity;
}

/* sigma_max(P): the L2 sensitivity per unit L2 change of a row. */
double
jl_projection_spectral_norm(JlProjection *p)
{
	if (!p->spectral_done)
	{
		double		r;

		check_row_work(p);
		r = jl_spectral_norm(p->P, p->d, p->k);
		if (r < 0.0)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not compute the spectral norm of the projection"),
					 errdetail("LAPACK or memory allocation failed.")));
		p->spectral_norm = r;
		p->spectral_done = true;
	}
	return p->spectral_norm;
}

/*
 * Calibrate m (its options set by the caller) to the cached projection p:
 * d, k and the statistics of P its neighbour notion needs.  Bad options
 * are reported as errors.
 */
void
jl_calibrate_on(JlLaplace *m, JlProjection *p)
{
	m->d = p->d;
	m->k = p->k;
	m->max_abs = p->max_abs;
	if (m->noise == JL_NOISE_GAUSSIAN)
		m->proj_sensitivity = (m->neighbor == JL_NEIGHBOR_ELEMENT) ?
			p->max_row_l2 : jl_projection_spectral_norm(p);
	else
		m->proj_sensitivity = (m->neighbor == JL_NEIGHBOR_ELEMENT) ?
			p->max_row_l1 : jl_projection_row_sensitivity(p);
	jl_report_status(jl_laplace_calibrate(m));

	/*
	 * Dhaliwal's constants bound the sensitivity of a Gaussian P with a
	 * probability over P.  For the other kinds that probability is not
	 * derived, so it is not reported; the release stays valid exactly when
	 * the realized P meets the constant (m->valid, checked on P as for
	 * Gaussian), which is all the guarantee rests on.
	 */
	if (JL_KIND_BASE(p->kind) != JL_KIND_GAUSSIAN)
		m->paper_delta = NAN;
}
