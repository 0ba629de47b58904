/*
 * table_releaser.c - the rows of a query released into a table.
 *
 * Rows come from an SPI query into a DestReceiver, so the source is never
 * materialised.  They are collected in batches of BATCH_ROWS, projected
 * together with one BLAS level-3 product (X P for the batch), noised on the
 * grid as jl_private_release does, and inserted straight into the target's
 * heap with one WAL record per page.
 */
#include "postgres.h"

#include <cblas.h>
#include <math.h>

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "math/projection/grid.h"
#include "math/noise/laplace.h"
#include "math/projection/release.h"

#include "pg/common/arrays.h"
#include "pg/common/options.h"
#include "pg/keys/projection_cache.h"
#include "pg/keys/strong_random.h"
#include "pg/engines/table_releaser.h"
#include "pg/common/messages.h"

#define BATCH_ROWS 512
/* the batch of vectors stays far below palloc's 1 GB limit for any d */
#define BATCH_BYTES ((Size) 64 * 1024 * 1024)
#define PROGRESS_SECONDS 5.0

typedef struct Releaser
{
	DestReceiver pub;
	JlRowRelease *r;
	int16		id_len;
	bool		id_byval;
	/* set up at the first row */
	JlProjection *proj;
	int			batch_rows;		/* BATCH_ROWS, fewer for long vectors */
	double	   *X;				/* batch_rows x d */
	double	   *Y;				/* batch_rows x k */
	bool	   *compensated;	/* per row of the batch */
	Datum	   *ids;
	/* output */
	Relation	target;
	BulkInsertState bistate;
	TupleTableSlot **slots;
	MemoryContext batch_cxt;	/* reset after each batch */
	MemoryContext setup_cxt;	/* lives for the whole release */
	int			n;				/* rows in the current batch */
	int64		nrows;
	instr_time	start,
				last_report;
} Releaser;

/* Clamp or scale x in place. */
static void
clip_row(double *x, int d, const JlClip *clip)
{
	int			i;

	if (clip->kind == JL_CLIP_ELEMENT)
	{
		for (i = 0; i < d; i++)
			x[i] = x[i] < clip->lo ? clip->lo : (x[i] > clip->hi ? clip->hi : x[i]);
	}
	else if (clip->kind == JL_CLIP_NORM)
	{
		double		n2 = 0.0;

		for (i = 0; i < d; i++)
			n2 += x[i] * x[i];
		if (n2 > clip->c * clip->c)
		{
			/* a hair inside, so rounding cannot leave the norm above c */
			double		s = clip->c / sqrt(n2) * (1.0 - 1e-12);

			for (i = 0; i < d; i++)
				x[i] *= s;
		}
	}
}

static void
releaser_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
releaser_shutdown(DestReceiver *self)
{
}

static void
releaser_destroy(DestReceiver *self)
{
}

/* Calibrate to the realized P once the vector length is known. */
static void
releaser_setup(Releaser *rl)
{
	MemoryContext old = MemoryContextSwitchTo(rl->setup_cxt);
	JlRowRelease *r = rl->r;
	JlMechanism *m = &r->m;

	jl_check_identity_k(r->kind, r->k, r->d, "the length of the vector");
	rl->proj = jl_projection_get(r->key->secret, r->kind, r->k, r->d);
	if (!r->precalibrated)
	{
		jl_calibrate_on(m, rl->proj);
		jl_refuse_invalid(m);
		jl_warn_saturation(m, JL_KIND_IS_IDENTITY(rl->proj->kind));
	}
	if (jl_noise_table_entries(m) > 0)
	{
		uint32	   *table = MemoryContextAllocHuge(rl->setup_cxt,
												   sizeof(uint32) * jl_noise_table_entries(m));

		jl_noise_table_fill(m, table);
		m->noise_table = table;
		m->noise_table_full = true;
	}
	rl->batch_rows = Min(BATCH_ROWS,
						 Max(1, BATCH_BYTES / (sizeof(double) * (Size) Max(r->d, r->k))));
	rl->X = palloc(sizeof(double) * rl->batch_rows * (Size) r->d);
	rl->Y = palloc(sizeof(double) * rl->batch_rows * (Size) r->k);
	rl->ids = palloc(sizeof(Datum) * BATCH_ROWS);
	rl->compensated = palloc(sizeof(bool) * BATCH_ROWS);
	MemoryContextSwitchTo(old);
}

/*
 * Y = X P for the batch: one BLAS level-3 product, over P's nonzeros, or a
 * copy (identity).
 */
static void
project_batch(Releaser *rl)
{
	int			d = rl->r->d,
				k = rl->r->k;
	int			i;

	jl_projection_apply(rl->proj, rl->X, rl->n, rl->Y);
	for (i = 0; i < rl->n; i++)
	{
		/* rows whose BLAS error bound is too wide: compensated instead */
		if (rl->compensated[i])
			jl_project_vec_compensated(rl->proj->P, d, k, rl->X + i * (Size) d,
									   rl->Y + i * (Size) k);
	}
}

/* A NOTICE every PROGRESS_SECONDS, so a long release shows it is alive. */
static void
report_progress(Releaser *rl)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, rl->last_report);
	if (INSTR_TIME_GET_DOUBLE(now) >= PROGRESS_SECONDS)
	{
		INSTR_TIME_SET_CURRENT(rl->last_report);
		now = rl->last_report;
		INSTR_TIME_SUBTRACT(now, rl->start);
		ereport(NOTICE,
				(errmsg("jl_release_table: %lld rows released in %.1f s",
						(long long) rl->nrows, INSTR_TIME_GET_DOUBLE(now))));
	}
}

/* Project the batch, noise it, insert it. */
static void
releaser_flush(Releaser *rl)
{
	int			k = rl->r->k;
	int			i;
	MemoryContext old;

	if (rl->n == 0)
		return;
	old = MemoryContextSwitchTo(rl->batch_cxt);
	project_batch(rl);
	for (i = 0; i < rl->n; i++)
	{
		TupleTableSlot *slot = rl->slots[i];
		double	   *y = rl->Y + i * (Size) k;

		jl_report_status(jl_noise_on_grid(&rl->r->m, y, jl_strong_random()));
		ExecClearTuple(slot);
		slot->tts_values[0] = rl->ids[i];
		slot->tts_values[1] = PointerGetDatum(jl_vector_array(y, k));
		slot->tts_isnull[0] = slot->tts_isnull[1] = false;
		ExecStoreVirtualTuple(slot);
	}
	/* one WAL record per page, not per row */
	table_multi_insert(rl->target, rl->slots, rl->n, GetCurrentCommandId(true),
					   0, rl->bistate);
	MemoryContextSwitchTo(old);
	MemoryContextReset(rl->batch_cxt);
	rl->nrows += rl->n;
	rl->n = 0;

	CHECK_FOR_INTERRUPTS();
	report_progress(rl);
}

/* Append the vector x to the batch, clipped and checked against the grid. */
static void
batch_vector(Releaser *rl, const double *x)
{
	JlRowRelease *r = rl->r;
	double	   *row = rl->X + rl->n * (Size) r->d;
	int			cls;

	memcpy(row, x, sizeof(double) * r->d);
	clip_row(row, r->d, &r->clip);
	cls = jl_row_class(&r->m, row);
	if (cls & JL_ROW_CLAMP)
		jl_row_clamp(&r->m, row);
	rl->compensated[rl->n] = (cls & JL_ROW_COMPENSATED) != 0;
}

static bool
releaser_receive(TupleTableSlot *slot, DestReceiver *self)
{
	Releaser   *rl = (Releaser *) self;
	JlRowRelease *r = rl->r;
	bool		isnull;
	Datum		idv,
				v;
	double	   *x;
	int			len;
	MemoryContext old;

	idv = slot_getattr(slot, 1, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("id column \"%s\" must not be NULL", jl_msg_str(r->id_col))));
	v = slot_getattr(slot, 2, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("vector of row %lld must not be NULL", (long long) (rl->nrows + rl->n + 1)),
				 errhint("Filter NULLs out of the source, e.g. with a view.")));
	old = MemoryContextSwitchTo(rl->batch_cxt);
	x = jl_array_vector(DatumGetArrayTypeP(v), "vector", &len);
	if (r->d < 0)
		r->d = len;
	if (rl->proj == NULL)
		releaser_setup(rl);
	if (len != r->d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("row %lld has %d elements, earlier rows %d",
						(long long) (rl->nrows + rl->n + 1), len, r->d)));
	batch_vector(rl, x);
	rl->ids[rl->n] = datumCopy(idv, rl->id_byval, rl->id_len);
	MemoryContextSwitchTo(old);
	if (++rl->n == rl->batch_rows)
		releaser_flush(rl);
	return true;
}

/* The receiver, writing into the open target. */
static void
releaser_open(Releaser *rl, JlRowRelease *r, Oid target)
{
	int			i;

	memset(rl, 0, sizeof(*rl));
	rl->pub.receiveSlot = releaser_receive;
	rl->pub.rStartup = releaser_startup;
	rl->pub.rShutdown = releaser_shutdown;
	rl->pub.rDestroy = releaser_destroy;
	rl->pub.mydest = DestNone;
	rl->r = r;
	get_typlenbyval(r->id_type, &rl->id_len, &rl->id_byval);
	rl->target = table_open(target, RowExclusiveLock);
	if (RelationGetDescr(rl->target)->natts != 2 ||
		TupleDescAttr(RelationGetDescr(rl->target), 1)->atttypid != FLOAT8ARRAYOID)
		elog(ERROR, "created table %s has an unexpected shape",
			 RelationGetRelationName(rl->target));
	rl->bistate = GetBulkInsertState();
	rl->slots = palloc(sizeof(TupleTableSlot *) * BATCH_ROWS);
	for (i = 0; i < BATCH_ROWS; i++)
		rl->slots[i] = table_slot_create(rl->target, NULL);
	rl->batch_cxt = AllocSetContextCreate(CurrentMemoryContext, "jldp release batch",
										  ALLOCSET_DEFAULT_SIZES);
	rl->setup_cxt = CurrentMemoryContext;
	INSTR_TIME_SET_CURRENT(rl->start);
	rl->last_report = rl->start;
}

static void
releaser_close(Releaser *rl)
{
	int			i;

	table_finish_bulk_insert(rl->target, 0);
	FreeBulkInsertState(rl->bistate);
	for (i = 0; i < BATCH_ROWS; i++)
		ExecDropSingleTupleTableSlot(rl->slots[i]);
	table_close(rl->target, NoLock);
}

int64
jl_release_rows(JlRowRelease *r, const char *sql, Oid target)
{
	Releaser	rl;
	SPIExecuteOptions opts;

	releaser_open(&rl, r, target);
	memset(&opts, 0, sizeof(opts));
	/* read-write SPI takes a new snapshot (read committed) for the query */
	opts.read_only = !r->fresh_snapshot;
	opts.dest = &rl.pub;
	if (SPI_execute_extended(sql, &opts) < 0)
		elog(ERROR, "could not read the source");
	releaser_flush(&rl);
	releaser_close(&rl);
	return rl.nrows;
}
