/*
 * dist2.c - the dist2 mechanism of the pipeline: the mean squared distance
 * between two encoded rows of a protected table, released with exact
 * discrete Laplace noise (math/estimate/pair_distance.h), for jl_advise's dist2.
 * A value, not a table: jl_release_dist2(protected, epsilon) returns it.
 *
 * The grid follows the declaration.  Row neighbours: each encoded row
 * scaled to L2 norm at most C (the row clip, or the largest norm the
 * declaration allows), norm clipping.  Attribute neighbours: element
 * clipping to [0, the largest weight], every coordinate within it; one
 * attribute moves one coordinate, or two for a category of two or more
 * values (the pair terms' bound doubles: changes = 2).
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "executor/spi.h"
#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "utils/memutils.h"

#include "math/estimate/pair_distance.h"
#include "math/noise/value_noise.h"

#include "pg/common/arrays.h"
#include "pg/common/options.h"
#include "pg/catalog/owner.h"
#include "catalog/pg_type.h"
#include "pg/pipeline/pipeline.h"
#include "pg/keys/strong_random.h"

#define BATCH_ROWS 1000
/* the rows of one fetch stay below this (a row is d doubles) */
#define BATCH_BYTES ((Size) 64 * 1024 * 1024)

typedef struct Dist2State
{
	bool		rows;
	double		hi,
				c;
	int			changes;
	JlDist2Value value;
} Dist2State;

static void
dist2_calibrate(JlPipeline *pl)
{
	JlDeclaration *decl = &pl->decl;
	Dist2State *st = palloc0(sizeof(Dist2State));
	uint64_t	t;
	int			i;

	pl->state = st;
	if (decl->long_format)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dist2 reads wide rows, and %s is declared in long format", decl->relation_q),
				 errhint("Release long-format tables with jl_sketch.")));
	if (decl->d > JL_PD_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("rows of %lld coordinates exceed dist2's limit of %d", (long long) decl->d, JL_PD_MAX_D)));
	st->rows = decl->row;
	st->changes = 1;
	if (st->rows)
	{
		double		norm = jl_declaration_largest_norm(decl);

		st->c = isnan(decl->row_clip) ? norm : fmin(decl->row_clip, norm);
		if (!(st->c >= JL_PD_MIN_RANGE && st->c <= JL_PD_MAX_RANGE))
			jl_report_status(JL_ERR_BOUND_RANGE);
	}
	else
	{
		for (i = 0; i < decl->nattrs; i++)
		{
			st->hi = fmax(st->hi, decl->spans[i].weight);
			if (decl->spans[i].encoding == JL_ENCODING_CATEGORY && decl->spans[i].width > 1)
				st->changes = 2;
		}
	}
	/* the sampler serves the largest sensitivity of any table, before the charge */
	if (jl_laplace_steps(JL_PD_MAX_STEPS + 1, pl->epsilon, &t) != JL_OK)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("epsilon %g is too small for the noise sampler", pl->epsilon)));
	pl->delta_charged = 0.0;
	pl->noise_variance = NAN;
}

static void
stream(JlPipeline *pl, JlPairDist *acc)
{
	MemoryContext batch_cxt = AllocSetContextCreate(CurrentMemoryContext, "jldp dist2 batch",
													ALLOCSET_DEFAULT_SIZES);
	double	   *row = palloc(sizeof(double) * pl->decl.d);
	long		batch = Max(1, Min(BATCH_ROWS, (long) (BATCH_BYTES / (sizeof(double) * (Size) pl->decl.d))));
	Portal		cur;

	/* read-write: a snapshot taken now, after the lock and the checks */
	cur = SPI_cursor_open_with_args(NULL, psprintf("SELECT v FROM (%s) AS s (u, v)", jl_pipeline_rows_sql(pl)),
									0, NULL, NULL, NULL, false, 0);
	for (;;)
	{
		MemoryContext old;
		uint64		i;

		SPI_cursor_fetch(cur, true, batch);
		if (SPI_processed == 0)
			break;
		old = MemoryContextSwitchTo(batch_cxt);
		for (i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			Datum		v = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
			int			len;
			double	   *x;

			/* the reader's encoding never gives NULL, nor another length */
			if (isnull)
				elog(ERROR, "the reader of %s gave a NULL row", pl->decl.relation_q);
			x = jl_array_vector(DatumGetArrayTypeP(v), "encoded row", &len);
			if (len != pl->decl.d)
				elog(ERROR, "the reader of %s gave a row of %d coordinates, not %lld",
					 pl->decl.relation_q, len, (long long) pl->decl.d);
			memcpy(row, x, sizeof(double) * len);
			if (!jl_pd_add(acc, row))
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("jl_release_dist2 reads at most %lld rows", (long long) JL_PD_MAX_ROWS)));
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(batch_cxt);
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(cur);
	MemoryContextDelete(batch_cxt);
}

static void
dist2_write(JlPipeline *pl)
{
	Dist2State *st = pl->state;
	JlPairDist	acc;
	JlPairDistRelease out;

	if (!jl_pd_init(&acc, st->rows, 0.0, st->rows ? 1.0 : st->hi, st->c, (int) pl->decl.d))
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	acc.changes = st->changes;
	/* the sums live in malloc'd memory: freed on error too */
	PG_TRY();
	{
		stream(pl, &acc);
		if (jl_pd_release(&acc, pl->epsilon, jl_strong_random(), &out) != JL_OK)
			elog(ERROR, "the noise plan of jl_release_dist2 failed after its check");
	}
	PG_FINALLY();
	{
		jl_pd_free(&acc);
	}
	PG_END_TRY();
	pl->nrows = acc.n;
	st->value.n = acc.n;
	st->value.dist2 = acc.n < 2 ? NAN : out.dist2;
	st->value.stddev = acc.n < 2 ? NAN : out.stddev;
	st->value.epsilon = acc.n < 2 ? pl->epsilon : out.epsilon;
}

static char *
dist2_guarantee(JlPipeline *pl)
{
	Dist2State *st = pl->state;
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfo(&b, "epsilon = %g differential privacy (discrete Laplace noise on an integer statistic; %.6g holds) for each unit (%s) of %s",
					 pl->epsilon, st->value.epsilon, pl->decl.unit, pl->decl.relation_q);
	if (st->rows)
		appendStringInfo(&b, ", against a unit's row replaced by any other of L2 norm at most %.6g after encoding", st->c);
	else
		appendStringInfoString(&b, ", against one declared attribute of one unit (one element, of a vector or long-format attribute) changed within its bounds");
	jl_pipeline_not_protected(&b, pl);
	return b.data;
}

/*
 * A value, returned: not in the registry.  Its ledger row is marked as
 * returned in this transaction (jl_ledger's released): a failure or a
 * cancel from here on, or a ROLLBACK, leaves it unmarked.
 */
static int64
dist2_record(JlPipeline *pl, const char *guarantee)
{
	JlOwnerScope scope;
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(pl->ledger_id)};

	jl_become_owner(pl->nsp, &scope);
	if (SPI_execute_with_args(psprintf("UPDATE %s SET what = what OPERATOR(pg_catalog.||) ' (returned)' "
									   "WHERE id OPERATOR(pg_catalog.=) $1",
									   jl_qualified(pl->nsp, "jldp_ledger")),
							  1, types, values, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not mark the charge of jl_release_dist2");
	jl_restore_user(&scope);
	return 0;
}

const JlDist2Value *
jl_dist2_value(const JlPipeline *pl)
{
	return &((const Dist2State *) pl->state)->value;
}

const JlMechanismOps jl_dist2_ops = {
	false, false, false, dist2_calibrate, dist2_write, dist2_guarantee, dist2_record
};
