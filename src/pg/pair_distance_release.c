/*
 * pair_distance_release.c - jl_release_dist2: the mean squared distance
 * between two rows of a table, released with exact discrete Laplace noise
 * (math/pair_distance.h), for jl_advise's dist2.
 *
 * The steps: read and check the arguments (clipping is required: it makes
 * the sensitivity true), check the source in the catalog (a whole table:
 * n, released exactly, is the same for neighbours only there) and build
 * the query of the vector, charge epsilon to the table's dataset, then
 * stream the rows (d from the named columns, or from the first row read)
 * and release.  No row is read before the charge.  Every row is one
 * privacy unit; a dataset whose unit column is not unique refuses the
 * charge (pg/budget.c).  Neighbours change one row (row neighbours) or one
 * element of one row (element neighbours).
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "math/pair_distance.h"
#include "math/value_noise.h"

#include "pg/arrays.h"
#include "pg/budget.h"
#include "pg/messages.h"
#include "pg/owner.h"
#include "pg/release_names.h"
#include "pg/source_relation.h"
#include "pg/strong_random.h"

PG_FUNCTION_INFO_V1(jl_release_dist2);

#define SOURCE_ARG 0
#define VECTOR_ARG 1
#define EPSILON_ARG 2
#define CLIP_LO_ARG 3
#define CLIP_HI_ARG 4
#define CLIP_NORM_ARG 5
#define DATASET_ARG 6

#define BATCH_ROWS 1000

typedef struct Dist2Release
{
	Oid			nsp;
	Oid			source;
	char	   *source_q;
	char	   *dataset;
	double		epsilon;
	bool		rows;			/* clip_norm: row neighbours */
	double		lo,
				hi,
				c;
	int			d;
	StringInfoData sql;			/* SELECT vector FROM source */
	JlPairDist	acc;
	double	   *row;			/* d: a copy of each row, clipped in place */
	MemoryContext cxt;			/* the function's */
} Dist2Release;

static void
require(FunctionCallInfo fcinfo, int n, const char *what)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", what)));
}

/* epsilon and the clipping, which sets the neighbour notion and the bound */
static void
read_arguments(FunctionCallInfo fcinfo, Dist2Release *dr)
{
	uint64_t	t;

	require(fcinfo, SOURCE_ARG, "source");
	dr->source = PG_GETARG_OID(SOURCE_ARG);
	require(fcinfo, VECTOR_ARG, "vector");
	require(fcinfo, EPSILON_ARG, "epsilon");
	dr->epsilon = PG_GETARG_FLOAT8(EPSILON_ARG);
	if (!(isfinite(dr->epsilon) && dr->epsilon > 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a finite number greater than 0")));
	if (!PG_ARGISNULL(CLIP_NORM_ARG))
	{
		if (!PG_ARGISNULL(CLIP_LO_ARG) || !PG_ARGISNULL(CLIP_HI_ARG))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("use either clip_lo/clip_hi or clip_norm, not both")));
		dr->rows = true;
		dr->c = PG_GETARG_FLOAT8(CLIP_NORM_ARG);
		if (!(isfinite(dr->c) && dr->c > 0.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("clip_norm must be a finite number greater than 0")));
		if (!(dr->c >= JL_PD_MIN_RANGE && dr->c <= JL_PD_MAX_RANGE))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("clip_norm must be between %g and %g", JL_PD_MIN_RANGE, JL_PD_MAX_RANGE),
					 errhint("Rescale the data.")));
	}
	else
	{
		if (PG_ARGISNULL(CLIP_LO_ARG) || PG_ARGISNULL(CLIP_HI_ARG))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("jl_release_dist2 needs clipping: clip_lo and clip_hi (element neighbours) or clip_norm (row neighbours)"),
					 errhint("Clipping makes the sensitivity true; it is not assumed.")));
		dr->rows = false;
		dr->lo = PG_GETARG_FLOAT8(CLIP_LO_ARG);
		dr->hi = PG_GETARG_FLOAT8(CLIP_HI_ARG);
		if (!(isfinite(dr->lo) && isfinite(dr->hi) && dr->lo < dr->hi && isfinite(dr->hi - dr->lo)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("clip_lo and clip_hi must be finite with clip_lo < clip_hi")));
		if (!(dr->hi - dr->lo >= JL_PD_MIN_RANGE && dr->hi - dr->lo <= JL_PD_MAX_RANGE))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("clip_hi - clip_lo must be between %g and %g", JL_PD_MIN_RANGE, JL_PD_MAX_RANGE),
					 errhint("Rescale the data.")));
	}
	dr->dataset = PG_ARGISNULL(DATASET_ARG) ? NULL :
		text_to_cstring(PG_GETARG_TEXT_PP(DATASET_ARG));

	/* the sampler serves the largest sensitivity of any table, before any charge */
	if (jl_laplace_steps(JL_PD_MAX_STEPS + 1, dr->epsilon, &t) != JL_OK)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("epsilon %g is too small for the noise sampler", dr->epsilon)));
}

/*
 * n is released exactly, which is private only where neighbours have the
 * same n: the whole of a table, whose rows are changed, not added.  A
 * partition, a view (with a condition or not) or a table with row level
 * security could count a data-dependent subset of the rows charged for,
 * so only a table (or partitioned table, or foreign table) read whole is
 * accepted, checked in the catalog before any row is read.
 */
static void
check_whole_table(Dist2Release *dr)
{
	Oid			base = jl_source_base_relation(dr->source, NULL, NULL);
	char		kind = get_rel_relkind(dr->source);

	if (base != dr->source || get_rel_relispartition(dr->source) ||
		!(kind == RELKIND_RELATION || kind == RELKIND_PARTITIONED_TABLE ||
		  kind == RELKIND_FOREIGN_TABLE))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("jl_release_dist2 reads a whole table, not %s", jl_msg_str(dr->source_q)),
				 errdetail("It releases the number of rows exactly, which neighbours share only for a whole table."),
				 errhint("Release the table itself (a partitioned table as a whole).")));
	if (jl_relation_row_security(dr->source))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("jl_release_dist2 reads a whole table, and %s has row level security", jl_msg_str(dr->source_q)),
				 errdetail("Its policies could hide a data-dependent subset of the rows.")));
}

/* SELECT vector FROM source: one float8[] column, or several numeric columns */
static void
build_source_query(FunctionCallInfo fcinfo, Dist2Release *dr)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(VECTOR_ARG);
	Datum	   *names;
	int			n,
				i;
	Oid			t;

	if (get_rel_relkind(dr->source) == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", dr->source)));
	/* locked until the transaction ends: what is checked is what is read */
	jl_source_lock(dr->source);
	dr->source_q = quote_qualified_identifier(get_namespace_name(get_rel_namespace(dr->source)),
											  get_rel_name(dr->source));
	if (ARR_NDIM(arr) != 1 || array_contains_nulls(arr))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("vector must be a non-empty list of column names")));
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &names, NULL, &n);
	if (n > JL_PD_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("vectors of %d elements exceed the limit of %d", n, JL_PD_MAX_D)));
	check_whole_table(dr);
	initStringInfo(&dr->sql);
	appendStringInfoString(&dr->sql, "SELECT ");
	dr->d = -1;
	jl_column_of(dr->source, TextDatumGetCString(names[0]), &t);
	if (n == 1 && t == FLOAT8ARRAYOID)
		appendStringInfoString(&dr->sql, quote_identifier(TextDatumGetCString(names[0])));
	else
	{
		appendStringInfoString(&dr->sql, "ARRAY[");
		for (i = 0; i < n; i++)
		{
			char	   *c = TextDatumGetCString(names[i]);

			jl_column_of(dr->source, c, &t);
			if (!jl_numeric_type(t))
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("column \"%s\" must be float8[] or numeric", jl_msg_str(c))));
			appendStringInfo(&dr->sql, "%s%s::pg_catalog.float8", i ? ", " : "", quote_identifier(c));
		}
		appendStringInfoString(&dr->sql, "]");
		dr->d = n;
	}
	appendStringInfo(&dr->sql, " FROM %s", dr->source_q);
}

/* the dataset of the relation the source reads pays, before anything is read */
static void
charge_budget(Dist2Release *dr)
{
	Oid			base = dr->source;	/* check_whole_table */
	bool		declare = false;

	if (dr->dataset == NULL)
		dr->dataset = jl_budget_dataset_for(dr->nsp, base);
	if (dr->dataset == NULL)
	{
		dr->dataset = quote_qualified_identifier(get_namespace_name(get_rel_namespace(base)),
												 get_rel_name(base));
		declare = true;
	}
	(void) jl_budget_charge(dr->nsp, dr->dataset, base, declare, JL_UNIT_EACH_ROW, dr->epsilon, 0.0,
							psprintf("jl_release_dist2 of %s", dr->source_q));
}

/* the sums for d elements a row; d from the first row read (after the charge) */
static void
start_sums(Dist2Release *dr, int d)
{
	MemoryContext old = MemoryContextSwitchTo(dr->cxt);

	if (d > JL_PD_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("vectors of %d elements exceed the limit of %d", d, JL_PD_MAX_D)));
	if (!jl_pd_init(&dr->acc, dr->rows, dr->lo, dr->hi, dr->c, d))
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	dr->d = d;
	dr->row = palloc(sizeof(double) * d);
	MemoryContextSwitchTo(old);
}

/* one row of the source into the sums */
static void
add_row(Dist2Release *dr, Datum v, bool isnull)
{
	double	   *x;
	int			len;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("vector of row %lld must not be NULL", (long long) (dr->acc.n + 1)),
				 errhint("Filter NULLs out of the source, e.g. with a view.")));
	x = jl_array_vector(DatumGetArrayTypeP(v), "vector", &len);
	if (dr->d < 0)
		start_sums(dr, len);
	if (len != dr->d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("row %lld has %d elements, earlier rows %d",
						(long long) (dr->acc.n + 1), len, dr->d)));
	/* x may point into the tuple: the row is clipped in a copy */
	memcpy(dr->row, x, sizeof(double) * dr->d);
	if (!jl_pd_add(&dr->acc, dr->row))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("jl_release_dist2 reads at most %lld rows", (long long) JL_PD_MAX_ROWS)));
}

/* The source's rows through a cursor, a batch at a time, each batch's memory freed. */
static void
stream_source(Dist2Release *dr)
{
	MemoryContext batch_cxt = AllocSetContextCreate(CurrentMemoryContext, "jldp dist2 batch",
													ALLOCSET_DEFAULT_SIZES);
	Portal		cur;

	SPI_connect();
	cur = SPI_cursor_open_with_args(NULL, dr->sql.data, 0, NULL, NULL, NULL, true, 0);
	for (;;)
	{
		MemoryContext old;
		uint64		i;

		SPI_cursor_fetch(cur, true, BATCH_ROWS);
		if (SPI_processed == 0)
			break;
		old = MemoryContextSwitchTo(batch_cxt);
		for (i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			Datum		v = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

			add_row(dr, v, isnull);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(batch_cxt);
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(cur);
	SPI_finish();
	MemoryContextDelete(batch_cxt);
}

/*
 * jl_release_dist2(source regclass, vector text[], epsilon float8,
 *                  clip_lo float8, clip_hi float8, clip_norm float8,
 *                  dataset text)
 *   RETURNS TABLE (dist2 float8, stddev float8, n bigint, epsilon float8,
 *                  delta float8, neighbor text)
 */
Datum
jl_release_dist2(PG_FUNCTION_ARGS)
{
	Dist2Release dr;
	JlPairDistRelease out;
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};
	int64		n;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "jl_release_dist2 must return a row");
	memset(&dr, 0, sizeof(dr));
	dr.nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	dr.cxt = CurrentMemoryContext;
	jl_budget_require_current(dr.nsp);
	read_arguments(fcinfo, &dr);
	build_source_query(fcinfo, &dr);	/* checks the source: nothing read */
	charge_budget(&dr);

	/* the sums live in malloc'd memory: freed on error too */
	PG_TRY();
	{
		if (dr.d > 0)
			start_sums(&dr, dr.d);
		else
			dr.d = -1;			/* one array column: d from the first row */
		stream_source(&dr);
		if (dr.d > 0 &&
			jl_pd_release(&dr.acc, dr.epsilon, jl_strong_random(), &out) != JL_OK)
			elog(ERROR, "the noise plan of jl_release_dist2 failed after its check");
	}
	PG_FINALLY();
	{
		jl_pd_free(&dr.acc);
	}
	PG_END_TRY();
	n = dr.d > 0 ? dr.acc.n : 0;
	if (dr.d <= 0)
	{
		out.dist2 = out.stddev = NAN;
		out.epsilon = dr.epsilon;
	}

	/* fewer than two rows: no pair, no estimate (the charge stands) */
	values[0] = Float8GetDatum(out.dist2);
	nulls[0] = nulls[1] = (n < 2);
	values[1] = Float8GetDatum(out.stddev);
	values[2] = Int64GetDatum(n);
	values[3] = Float8GetDatum(n < 2 ? dr.epsilon : out.epsilon);
	values[4] = Float8GetDatum(0.0);
	values[5] = CStringGetTextDatum(dr.rows ? "row" : "element");
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
