/*
 * distributed_kmeans.c - the SQL pieces of k-means over a sharded sketch
 * table (docs/design/scaleout.md): the aggregate jl_lloyd_step(sketch, centroids),
 * which a shard computes next to its rows (postgres_fdw pushes it: its
 * functions are immutable and its arguments are of non-collatable types),
 * the aggregate jl_vector_sum, which adds the shards' results, and
 * jl_lloyd_update, the new centroids.  The states are plain float8[]
 * (m x (k + 1) sums and counts), so no serialization is needed; inside an
 * aggregate they are updated in place.
 */
#include "postgres.h"

#include "fmgr.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/memutils.h"

#include "math/analytics/distributed_kmeans.h"
#include "pg/common/args.h"
#include "pg/common/arrays.h"
#include "pg/api/analytics/kmeans.h"

PG_FUNCTION_INFO_V1(jl_lloyd_step_trans);
PG_FUNCTION_INFO_V1(jl_vector_sum_trans);
PG_FUNCTION_INFO_V1(jl_lloyd_update_sql);

/* a zeroed rows x cols float8[] (cols = 0: one-dimensional rows) in cxt */
static ArrayType *
zero_array(MemoryContext cxt, int rows, int cols)
{
	int			dims[2] = {rows, cols},
				lbs[2] = {1, 1};
	int			ndim = cols > 0 ? 2 : 1;
	Size		n = (Size) rows * (cols > 0 ? cols : 1);
	Size		bytes = add_size(ARR_OVERHEAD_NONULLS(ndim), mul_size(n, sizeof(double)));
	ArrayType  *a;

	if (bytes > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a state of %zu values is too large", (size_t) n)));
	a = MemoryContextAllocZero(cxt, bytes);
	SET_VARSIZE(a, bytes);
	a->ndim = ndim;
	a->dataoffset = 0;
	a->elemtype = FLOAT8OID;
	memcpy(ARR_DIMS(a), dims, ndim * sizeof(int));
	memcpy(ARR_LBOUND(a), lbs, ndim * sizeof(int));
	return a;
}

/*
 * A state passed in by the aggregate: the aggregate's own state, or an
 * INITCOND a role wrote in its own CREATE AGGREGATE.  It is written in
 * place, so it must be a float8 array without NULLs (a NULL makes the data
 * shorter than its dimensions say) of exactly ndim dimensions dims.
 */
static void
check_state(ArrayType *state, int ndim, const int *dims, const char *fn)
{
	if (ARR_ELEMTYPE(state) != FLOAT8OID || ARR_HASNULL(state) ||
		state->dataoffset != 0 ||
		ARR_NDIM(state) != ndim ||
		memcmp(ARR_DIMS(state), dims, ndim * sizeof(int)) != 0 ||
		VARSIZE(state) < ARR_OVERHEAD_NONULLS(ndim) +
		(Size) ArrayGetNItems(ndim, dims) * sizeof(double))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the state of %s is not a %d-dimensional float8 array of the expected shape without NULLs", fn, ndim),
				 errhint("Use the aggregates jl_lloyd_step and jl_vector_sum; an initial state of your own must match their inputs.")));
}

static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as an aggregate's transition function", fn)));
	return cxt;
}

/* jl_lloyd_step_trans(state, sketch, centroids): add the sketch to its cluster */
Datum
jl_lloyd_step_trans(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = agg_context(fcinfo, "jl_lloyd_step_trans");
	ArrayType  *state = PG_ARGISNULL(0) ? NULL : PG_GETARG_ARRAYTYPE_P(0);
	int			dims[2];
	double	   *x,
			   *c;
	int			k,
				m,
				ck;

	if (PG_ARGISNULL(1))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_ARRAYTYPE_P(state);
	}
	jl_require_arg(fcinfo, 2, "centroids");
	x = jl_array_vector(PG_GETARG_ARRAYTYPE_P(1), "sketch", &k);
	c = jl_read_centroids(PG_GETARG_ARRAYTYPE_P(2), &m, &ck);
	if (ck != k)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketch has %d dimensions, the centroids have %d", k, ck)));
	dims[0] = m;
	dims[1] = k + 1;
	if (state == NULL)
		state = zero_array(cxt, m, k + 1);
	else if (ARR_NDIM(state) == 2 && ARR_ELEMTYPE(state) == FLOAT8OID && !ARR_HASNULL(state) &&
			 (ARR_DIMS(state)[0] != m || ARR_DIMS(state)[1] != k + 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the centroids must be the same in every row of a Lloyd step")));
	else
		check_state(state, 2, dims, "jl_lloyd_step");
	jl_lloyd_accumulate(x, c, m, k, (double *) ARR_DATA_PTR(state));
	PG_RETURN_ARRAYTYPE_P(state);
}

/*
 * jl_vector_sum_trans(state, x): state + x element by element, arrays of
 * the same shape; the transition and combine function of jl_vector_sum
 * and the combine function of jl_lloyd_step.
 */
Datum
jl_vector_sum_trans(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = agg_context(fcinfo, "jl_vector_sum_trans");
	ArrayType  *state = PG_ARGISNULL(0) ? NULL : PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *x;
	int			n;

	if (PG_ARGISNULL(1))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_ARRAYTYPE_P(state);
	}
	x = PG_GETARG_ARRAYTYPE_P(1);
	if (ARR_ELEMTYPE(x) != FLOAT8OID || array_contains_nulls(x) ||
		ARR_NDIM(x) < 1 || ARR_NDIM(x) > 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("jl_vector_sum adds one- or two-dimensional float8 arrays without NULLs")));
	n = ArrayGetNItems(ARR_NDIM(x), ARR_DIMS(x));
	if (state == NULL)
	{
		state = zero_array(cxt, ARR_DIMS(x)[0], ARR_NDIM(x) == 2 ? ARR_DIMS(x)[1] : 0);
	}
	else if (ARR_ELEMTYPE(state) == FLOAT8OID && !ARR_HASNULL(state) &&
			 (ARR_NDIM(state) != ARR_NDIM(x) ||
			  memcmp(ARR_DIMS(state), ARR_DIMS(x), ARR_NDIM(x) * sizeof(int)) != 0))
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("jl_vector_sum adds arrays of one shape: %d values after %d",
						n, ArrayGetNItems(ARR_NDIM(state), ARR_DIMS(state)))));
	else
		check_state(state, ARR_NDIM(x), ARR_DIMS(x), "jl_vector_sum");
	jl_vector_add((double *) ARR_DATA_PTR(state), (const double *) ARR_DATA_PTR(x), (size_t) n);
	PG_RETURN_ARRAYTYPE_P(state);
}

/* jl_lloyd_update(step, centroids): the centroids after a summed Lloyd step */
Datum
jl_lloyd_update_sql(PG_FUNCTION_ARGS)
{
	ArrayType  *step = PG_GETARG_ARRAYTYPE_P(0);
	double	   *c;
	int			m,
				k;
	ArrayType  *out;

	c = jl_read_centroids(PG_GETARG_ARRAYTYPE_P(1), &m, &k);
	if (ARR_ELEMTYPE(step) != FLOAT8OID || ARR_NDIM(step) != 2 ||
		ARR_DIMS(step)[0] != m || ARR_DIMS(step)[1] != k + 1 || array_contains_nulls(step))
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("a Lloyd step of %d centroids of %d dimensions is a %d x %d float8 array", m, k, m, k + 1)));
	out = zero_array(CurrentMemoryContext, m, k);
	jl_lloyd_update((const double *) ARR_DATA_PTR(step), c, m, k, (double *) ARR_DATA_PTR(out));
	PG_RETURN_ARRAYTYPE_P(out);
}
