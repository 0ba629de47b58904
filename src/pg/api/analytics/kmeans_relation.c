/*
 * kmeans_relation.c - jl_kmeans(release, n_clusters, ...): the analyst's
 * one call, k-means of a table's sketches returning the centroids, the
 * clusters' sizes, the inertia and the number of iterations; the labels
 * follow in the same statement from jl_nearest_centroid with the
 * centroids.  The same result as the jl_kmeans aggregate over the same
 * sketches with the same parameters (the points are sorted first, so the
 * order of the rows does not matter).  No key is involved: analysts may
 * call it on any table they may read.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"

#include "math/analytics/kmeans.h"
#include "math/projection/projection.h"

#include "pg/common/arrays.h"
#include "pg/api/analytics/kmeans.h"
#include "pg/common/options.h"
#include "pg/common/messages.h"

#define RELEASE_ARG 0
#define CLUSTERS_ARG 1
#define SEED_ARG 2
#define MAX_ITER_ARG 3
#define N_INIT_ARG 4
#define TOL_ARG 5
#define COLUMN_ARG 6

/* rows fetched at a time */
#define KR_BATCH 10000

typedef struct KmPoints
{
	double	   *X;
	int64		n,
				cap;
	int			k;
} KmPoints;

/* the sketch column: float8[], readable by the caller; checked before reading */
static void
check_column(Oid relid, const char *column)
{
	AttrNumber	att = get_attnum(relid, column);

	if (att == InvalidAttrNumber || att < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation %s does not exist", jl_msg_str(column),
						jl_msg_str(get_rel_name(relid))),
				 errhint("sketch_column names the float8[] column of the sketches (default 'sketch').")));
	if (get_atttype(relid, att) != FLOAT8ARRAYOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of %s is %s, not float8[]", jl_msg_str(column),
						jl_msg_str(get_rel_name(relid)), format_type_be(get_atttype(relid, att)))));
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
		pg_attribute_aclcheck(relid, att, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for column \"%s\" of %s", jl_msg_str(column),
						jl_msg_str(get_rel_name(relid)))));
}

static void
append_point(MemoryContext mcxt, KmPoints *p, const double *x, int k)
{
	int64		limit;

	if (p->k == 0)
	{
		if (k > JL_MAX_K)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("sketch has %d dimensions, more than %d", k, JL_MAX_K)));
		p->k = k;
	}
	else if (k != p->k)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have different dimensions %d and %d", p->k, k)));
	if (p->n == p->cap)
	{
		limit = JL_KMEANS_MAX_BYTES / (sizeof(double) * p->k);
		if (p->n + 1 > limit)
			jl_kmeans_too_large(p->n + 1, p->k);
		p->cap = Min(Max(p->cap * 2, 1024), limit);
		p->X = p->X == NULL ? MemoryContextAllocHuge(mcxt, sizeof(double) * p->k * p->cap) :
			repalloc_huge(p->X, sizeof(double) * p->k * p->cap);
	}
	memcpy(p->X + p->n * p->k, x, sizeof(double) * k);
	p->n++;
}

/* every non-NULL sketch of the column, each checked as the aggregate checks it */
static void
read_points(Oid relid, const char *column, KmPoints *p)
{
	MemoryContext caller = CurrentMemoryContext;
	/* each batch's detoasted sketches, freed once copied */
	MemoryContext batch = AllocSetContextCreate(caller, "jl_kmeans batch", ALLOCSET_DEFAULT_SIZES);
	Portal		cur;

	SPI_connect();
	cur = SPI_cursor_open_with_args(NULL, psprintf("SELECT %s FROM %s", quote_identifier(column),
												   quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
																			  get_rel_name(relid))),
									0, NULL, NULL, NULL, true, 0);
	for (;;)
	{
		MemoryContext spi;

		SPI_cursor_fetch(cur, true, KR_BATCH);
		if (SPI_processed == 0)
			break;
		spi = MemoryContextSwitchTo(batch);
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
			double	   *x;
			int			k;

			if (isnull)
				continue;
			/* the column's type was checked; each array is checked here */
			x = jl_array_vector(DatumGetArrayTypeP(d), "sketch", &k);
			append_point(caller, p, x, k);
		}
		MemoryContextSwitchTo(spi);
		MemoryContextReset(batch);
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(cur);
	SPI_finish();
	MemoryContextDelete(batch);
}

/*
 * jl_kmeans(release regclass, n_clusters int, seed bigint, max_iter int,
 *           n_init int, tol float8, sketch_column name,
 *           OUT centroids float8[], OUT sizes bigint[], OUT inertia float8,
 *           OUT iterations int, OUT workers int): the assignment steps in
 * parallel workers when max_parallel_workers_per_gather allows and the
 * work is large enough (kmeans_parallel.c), with the serial result
 */
PG_FUNCTION_INFO_V1(jl_kmeans_relation);
Datum
jl_kmeans_relation(PG_FUNCTION_ARGS)
{
	Oid			relid;
	int			c,
				max_iter,
				n_init,
				m,
				iterations;
	int64		seed;
	double		tol,
				inertia;
	char	   *column;
	KmPoints	p = {0};
	double	   *centroids;
	int64	   *sizes;
	Datum	   *sd;
	int			workers;
	TupleDesc	td;
	Datum		out[5];
	bool		outnull[5] = {false, false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "jl_kmeans must return a record");
	jl_require_arg(fcinfo, RELEASE_ARG, "release");
	jl_require_arg(fcinfo, CLUSTERS_ARG, "n_clusters");
	jl_require_arg(fcinfo, SEED_ARG, "seed");
	jl_require_arg(fcinfo, MAX_ITER_ARG, "max_iter");
	jl_require_arg(fcinfo, N_INIT_ARG, "n_init");
	jl_require_arg(fcinfo, TOL_ARG, "tol");
	jl_require_arg(fcinfo, COLUMN_ARG, "sketch_column");
	relid = get_fn_expr_argtype(fcinfo->flinfo, RELEASE_ARG) == REGCLASSOID ?
		PG_GETARG_OID(RELEASE_ARG) :
		DatumGetObjectId(DirectFunctionCall1(regclassin,
											 CStringGetDatum(text_to_cstring(PG_GETARG_TEXT_PP(RELEASE_ARG)))));
	if (get_rel_relkind(relid) == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	c = PG_GETARG_INT32(CLUSTERS_ARG);
	seed = PG_GETARG_INT64(SEED_ARG);
	max_iter = PG_GETARG_INT32(MAX_ITER_ARG);
	n_init = PG_GETARG_INT32(N_INIT_ARG);
	tol = PG_GETARG_FLOAT8(TOL_ARG);
	column = NameStr(*PG_GETARG_NAME(COLUMN_ARG));
	jl_kmeans_check_params(c, max_iter, n_init);
	if (!(isfinite(tol) && tol >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tol must be a finite number >= 0, not %g", tol),
				 errhint("tol = 1e-4 (the default, as scikit-learn's) stops when the centroids move less than 1e-4 of the mean variance of the coordinates; 0 only when no assignment changes.")));
	check_column(relid, column);
	read_points(relid, column, &p);
	if (p.n == 0)
		PG_RETURN_NULL();

	jl_kmeans_prepare(p.X, p.n, p.k);
	centroids = palloc_extended(mul_size(mul_size(sizeof(double), c), p.k), MCXT_ALLOC_HUGE);
	sizes = palloc(sizeof(int64) * c);
	/* p.X is freed by it: the points are held once */
	m = jl_kmeans_run_parallel(p.X, p.n, p.k, c, (uint64) seed, max_iter, tol, n_init, centroids,
							   &iterations, &inertia, &workers, sizes, true);
	sd = palloc(sizeof(Datum) * m);
	for (int j = 0; j < m; j++)
		sd[j] = Int64GetDatum(sizes[j]);

	td = BlessTupleDesc(td);
	out[0] = PointerGetDatum(jl_kmeans_matrix(centroids, m, p.k));
	out[1] = PointerGetDatum(construct_array(sd, m, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	out[2] = Float8GetDatum(inertia);
	out[3] = Int32GetDatum(iterations);
	out[4] = Int32GetDatum(workers);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, out, outnull)));
}
