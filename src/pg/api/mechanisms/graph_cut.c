/*
 * graph_cut.c - the analyst's side of a graph release, post-processing of
 * the sketches (no budget): the size of the cut (S, V \ S) and its
 * standard deviation for a set given as an array, and the same as
 * aggregates over rows of the release chosen in SQL (docs/design/graph_cuts.md,
 * "Cut estimates").
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "math/covariance/covariance.h"
#include "math/covariance/covariance_accountant.h"
#include "math/graph/graph_cut.h"

#include "pg/common/arrays.h"
#include "pg/common/options.h"
#include "pg/catalog/owner.h"
#include "pg/catalog/registry.h"

PG_FUNCTION_INFO_V1(jl_cut_size);
PG_FUNCTION_INFO_V1(jl_cut_size_stddev);
PG_FUNCTION_INFO_V1(jl_cut_trans);
PG_FUNCTION_INFO_V1(jl_cut_estimate_final);
PG_FUNCTION_INFO_V1(jl_cut_estimate_stddev_final);

/* a graph release's record: r, n and the overlay weight */
typedef struct GraphRecord
{
	Oid			target;
	int			r,
				n;
	double		w;
} GraphRecord;

/* from the registry, as the extension's owner; the caller is connected to SPI */
static void
read_record(Oid nsp, Oid target, GraphRecord *g)
{
	HeapTuple	row = jl_registry_latest(nsp, target,
										 "info->>'mechanism', (info->>'r')::pg_catalog.int4, "
										 "(info->>'n')::pg_catalog.int4, (info->>'w')::pg_catalog.float8",
										 NULL);

	jl_registry_require_mechanism(row, 1, target, "graph", "Use a table written by jl_release_graph.");
	g->target = target;
	g->r = jl_registry_int(row, 2, 0);
	g->n = jl_registry_int(row, 3, 0);
	g->w = jl_registry_float(row, 4, NAN);
	/* the record as a release writes it (a forged one is refused, not read) */
	if (!(g->r >= 1 && g->r <= JL_COV_MAX_R && g->n >= 2 &&
		  (double) g->n * g->r <= (double) JL_COV_MAX_ENTRIES &&
		  isfinite(g->w) && g->w > 0.0 && g->w < g->n))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the registry record of graph release %s is not one a release writes",
						get_rel_name(target)),
				 errdetail("r = %d, n = %d, w = %g.", g->r, g->n, g->w)));
}

static void
corrupted(Oid target, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("graph release %s has been altered: %s", get_rel_name(target), what)));
}

static int
cmp_int32(const void *a, const void *b)
{
	int32		x = *(const int32 *) a,
				y = *(const int32 *) b;

	return (x > y) - (x < y);
}

/* vertices in 1..n and distinct (sorts them) */
static void
check_set(int32 *s, int m, int n)
{
	int			i;

	qsort(s, m, sizeof(int32), cmp_int32);
	for (i = 0; i < m; i++)
	{
		if (s[i] < 1 || s[i] > n)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("vertex %d is outside the vertices 1..%d of the release", s[i], n)));
		if (i > 0 && s[i] == s[i - 1])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("vertex %d appears more than once in the set", s[i]),
					 errhint("A cut is of a set of vertices: list each once.")));
	}
}

/* a sketch of length r added to x */
static void
add_sketch(Oid target, Datum d, int r, double *x)
{
	int			len,
				k;
	double	   *v = jl_array_vector(DatumGetArrayTypeP(d), "sketch", &len);

	if (len != r)
		corrupted(target, "a sketch's length is not r");
	for (k = 0; k < r; k++)
		x[k] += v[k];

}

/* jl_cut_size and its standard deviation, for the array s */
static double
cut_of_array(FunctionCallInfo fcinfo, double *stddev)
{
	Oid			target = PG_GETARG_OID(0);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	GraphRecord g;
	int32	   *s;
	int			m;
	double	   *x,
				est;
	uint64		k;
	Datum		values[1];
	Oid			types[1] = {INT4ARRAYOID};

	if (ARR_ELEMTYPE(arr) != INT4OID || ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("s must be a one-dimensional integer array")));
	if (array_contains_nulls(arr))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("s must not contain NULL")));
	m = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	s = palloc(sizeof(int32) * Max(m, 1));
	memcpy(s, ARR_DATA_PTR(arr), sizeof(int32) * m);

	SPI_connect();
	read_record(nsp, target, &g);
	check_set(s, m, g.n);
	x = palloc0(sizeof(double) * g.r);
	values[0] = PointerGetDatum(arr);
	if (SPI_execute_with_args(psprintf("SELECT sketch FROM %s WHERE vertex OPERATOR(pg_catalog.=) ANY ($1)",
									   quote_qualified_identifier(get_namespace_name(get_rel_namespace(target)),
																  get_rel_name(target))),
							  1, types, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read %s", get_rel_name(target));
	jl_check_column_type(SPI_tuptable->tupdesc, 1, FLOAT8ARRAYOID, target);
	if (SPI_processed != (uint64) m)
		corrupted(target, "a vertex's sketch is missing or repeated");
	for (k = 0; k < SPI_processed; k++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[k], SPI_tuptable->tupdesc, 1, &isnull);

		if (isnull)
			corrupted(target, "a sketch is NULL");
		add_sketch(target, d, g.r, x);
	}
	est = jl_graph_cut(x, g.r, g.n, g.w, m, stddev);
	SPI_finish();
	return est;
}

/* jl_cut_size(release regclass, s int[]) RETURNS float8 */
Datum
jl_cut_size(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(cut_of_array(fcinfo, NULL));
}

/* jl_cut_size_stddev(release regclass, s int[]) RETURNS float8 */
Datum
jl_cut_size_stddev(PG_FUNCTION_ARGS)
{
	double		sd;

	cut_of_array(fcinfo, &sd);
	PG_RETURN_FLOAT8(sd);
}

/* ---------- the aggregates ---------- */

typedef struct CutState
{
	Oid			target;
	int			r;				/* the first sketch's length */
	double	   *x;				/* the sum of the sketches */
	int32	   *vertices;
	int			m,
				cap;
} CutState;

/* jl_cut_trans(state internal, release regclass, vertex int, sketch float8[]) */
Datum
jl_cut_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt,
				old;
	CutState   *st;
	int			len,
				k;
	double	   *v;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "jl_cut_trans called in non-aggregate context");
	jl_require_arg(fcinfo, 1, "release");
	jl_require_arg(fcinfo, 2, "vertex and sketch");
	jl_require_arg(fcinfo, 3, "vertex and sketch");
	v = jl_array_vector(PG_GETARG_ARRAYTYPE_P(3), "sketch", &len);
	if (PG_ARGISNULL(0))
	{
		old = MemoryContextSwitchTo(aggcxt);
		st = palloc0(sizeof(CutState));
		st->target = PG_GETARG_OID(1);
		st->r = len;
		st->x = palloc0(sizeof(double) * len);
		st->cap = 64;
		st->vertices = palloc(sizeof(int32) * st->cap);
		MemoryContextSwitchTo(old);
	}
	else
		st = (CutState *) PG_GETARG_POINTER(0);
	if (PG_GETARG_OID(1) != st->target)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("all rows of a cut estimate must name the same release")));
	if (len != st->r)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketch has %d entries, earlier sketches %d", len, st->r)));
	if (st->m == st->cap)
	{
		if (st->cap >= (int) (MaxAllocSize / sizeof(int32) / 2))
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many vertices in one cut estimate")));
		st->cap *= 2;
		st->vertices = repalloc(st->vertices, sizeof(int32) * st->cap);
	}
	st->vertices[st->m++] = PG_GETARG_INT32(2);
	for (k = 0; k < len; k++)
		st->x[k] += v[k];

	PG_RETURN_POINTER(st);
}

static double
cut_of_state(FunctionCallInfo fcinfo, CutState *st, double *stddev)
{
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	GraphRecord g;
	int32	   *s = palloc(sizeof(int32) * Max(st->m, 1));

	SPI_connect();
	read_record(nsp, st->target, &g);
	SPI_finish();
	if (st->r != g.r)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have %d entries, the release %d", st->r, g.r)));
	memcpy(s, st->vertices, sizeof(int32) * st->m);
	check_set(s, st->m, g.n);
	pfree(s);
	return jl_graph_cut(st->x, g.r, g.n, g.w, st->m, stddev);
}

/* final: the cut estimate, NULL over no rows */
Datum
jl_cut_estimate_final(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(cut_of_state(fcinfo, (CutState *) PG_GETARG_POINTER(0), NULL));
}

/* final: its standard deviation, NULL over no rows */
Datum
jl_cut_estimate_stddev_final(PG_FUNCTION_ARGS)
{
	double		sd;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	cut_of_state(fcinfo, (CutState *) PG_GETARG_POINTER(0), &sd);
	PG_RETURN_FLOAT8(sd);
}
