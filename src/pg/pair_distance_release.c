/*
 * pair_distance_release.c - jl_release_dist2: the mean squared distance
 * between two rows of a table, released with exact discrete Laplace noise
 * (math/pair_distance.h), for jl_advise's dist2.
 *
 * The steps, as jl_release_covariance's: read and check the arguments
 * (clipping is required: it makes the sensitivity true), build the query
 * of the vector from the catalog, learn d (the named columns, or the length
 * of the first row's array: schema, not data), charge epsilon to the
 * dataset of the relation the source reads, stream the source once and
 * release.  Every row of the source is one privacy unit, as for the
 * covariance release; neighbours change one row (row neighbours) or one
 * element of one row (element neighbours), so n is the same for both and
 * is returned.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "math/pair_distance.h"

#include "pg/arrays.h"
#include "pg/budget.h"
#include "pg/messages.h"
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
} Dist2Release;

typedef struct Dist2Receiver
{
	DestReceiver pub;
	Dist2Release *dr;
	MemoryContext row_cxt;
} Dist2Receiver;

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
	JlPairDistRelease probe;
	JlPairDist	worst;

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
	}
	dr->dataset = PG_ARGISNULL(DATASET_ARG) ? NULL :
		text_to_cstring(PG_GETARG_TEXT_PP(DATASET_ARG));

	/* the sampler's range for the largest table, before any charge */
	if (!jl_pd_init(&worst, dr->rows, dr->lo, dr->hi, dr->c, 1))
		elog(ERROR, "out of memory");
	worst.n = JL_PD_MAX_ROWS;
	if (jl_pd_plan(&worst, dr->epsilon, &probe) != JL_OK)
	{
		jl_pd_free(&worst);
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("epsilon %g is too small for the noise sampler", dr->epsilon)));
	}
	jl_pd_free(&worst);
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

/* d from the first row's array length (schema, not data); 0 rows: d stays -1 */
static void
learn_dimension(Dist2Release *dr)
{
	bool		isnull;

	if (dr->d > 0)
		return;
	SPI_connect();
	if (SPI_execute(psprintf("SELECT pg_catalog.array_length(v, 1) FROM (%s) AS s (v) LIMIT 1",
							 dr->sql.data), true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the vector length of %s", dr->source_q);
	if (SPI_processed == 1)
	{
		Datum		v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("vector of row 1 must not be NULL or empty"),
					 errhint("Filter NULLs out of the source, e.g. with a view.")));
		dr->d = DatumGetInt32(v);
	}
	SPI_finish();
	if (dr->d > JL_PD_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("vectors of %d elements exceed the limit of %d", dr->d, JL_PD_MAX_D)));
}

/* the dataset of the relation the source reads pays, before anything is read */
static void
charge_budget(Dist2Release *dr)
{
	Oid			base = jl_source_base_relation(dr->source, NULL, NULL);
	bool		declare = false;

	if (dr->dataset == NULL)
		dr->dataset = jl_budget_dataset_for(dr->nsp, base);
	if (dr->dataset == NULL)
	{
		dr->dataset = quote_qualified_identifier(get_namespace_name(get_rel_namespace(base)),
												 get_rel_name(base));
		declare = true;
	}
	(void) jl_budget_charge(dr->nsp, dr->dataset, base, declare, NULL, dr->epsilon, 0.0,
							psprintf("jl_release_dist2 of %s", dr->source_q));
}

static void
rcv_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
rcv_shutdown(DestReceiver *self)
{
}

static void
rcv_destroy(DestReceiver *self)
{
}

static bool
rcv_receive(TupleTableSlot *slot, DestReceiver *self)
{
	Dist2Receiver *rc = (Dist2Receiver *) self;
	Dist2Release *dr = rc->dr;
	bool		isnull;
	Datum		v = slot_getattr(slot, 1, &isnull);
	MemoryContext old;
	double	   *x;
	int			len;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("vector of row %lld must not be NULL", (long long) (dr->acc.n + 1)),
				 errhint("Filter NULLs out of the source, e.g. with a view.")));
	old = MemoryContextSwitchTo(rc->row_cxt);
	x = jl_array_vector(DatumGetArrayTypeP(v), "vector", &len);
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
	MemoryContextSwitchTo(old);
	MemoryContextReset(rc->row_cxt);
	return true;
}

static void
stream_source(Dist2Release *dr)
{
	Dist2Receiver rc;
	SPIExecuteOptions opts;

	memset(&rc, 0, sizeof(rc));
	rc.pub.receiveSlot = rcv_receive;
	rc.pub.rStartup = rcv_startup;
	rc.pub.rShutdown = rcv_shutdown;
	rc.pub.rDestroy = rcv_destroy;
	rc.pub.mydest = DestNone;
	rc.dr = dr;
	rc.row_cxt = AllocSetContextCreate(CurrentMemoryContext, "jldp dist2 row",
									   ALLOCSET_DEFAULT_SIZES);
	memset(&opts, 0, sizeof(opts));
	opts.read_only = true;
	opts.dest = &rc.pub;
	SPI_connect();
	if (SPI_execute_extended(dr->sql.data, &opts) < 0)
		elog(ERROR, "could not read the source");
	SPI_finish();
	MemoryContextDelete(rc.row_cxt);
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
	jl_budget_require_current(dr.nsp);
	read_arguments(fcinfo, &dr);
	build_source_query(fcinfo, &dr);
	learn_dimension(&dr);
	charge_budget(&dr);

	if (dr.d > 0)
	{
		if (!jl_pd_init(&dr.acc, dr.rows, dr.lo, dr.hi, dr.c, dr.d))
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory")));
		dr.row = palloc(sizeof(double) * dr.d);
		/* the sums live in malloc'd memory: freed on error too */
		PG_TRY();
		{
			stream_source(&dr);
			if (jl_pd_release(&dr.acc, dr.epsilon, jl_strong_random(), &out) != JL_OK)
				elog(ERROR, "the noise plan of jl_release_dist2 failed after its check");
		}
		PG_FINALLY();
		{
			jl_pd_free(&dr.acc);
		}
		PG_END_TRY();
		n = dr.acc.n;
	}
	else
	{
		n = 0;
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
