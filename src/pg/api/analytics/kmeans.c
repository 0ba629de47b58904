/*
 * kmeans.c - SQL entry points of analytics over sketches: the jl_kmeans
 * aggregate and jl_nearest_centroid.  No key is involved, so analysts may
 * execute them.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "math/analytics/kmeans.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "math/projection/projection.h"
#include "pg/common/arrays.h"
#include "pg/api/analytics/kmeans.h"
#include "pg/common/options.h"

PG_FUNCTION_INFO_V1(jl_kmeans_trans);
PG_FUNCTION_INFO_V1(jl_kmeans_options_trans);
PG_FUNCTION_INFO_V1(jl_kmeans_options_checked);
PG_FUNCTION_INFO_V1(jl_kmeans_combine);
PG_FUNCTION_INFO_V1(jl_kmeans_serialize);
PG_FUNCTION_INFO_V1(jl_kmeans_deserialize);
PG_FUNCTION_INFO_V1(jl_kmeans_final);
PG_FUNCTION_INFO_V1(jl_nearest_centroid);

#define KM_MAGIC 0x6a6c6b6dU	/* "jlkm" */
/* 2: n_init in the header, where version 1 had padding */
#define KM_VERSION 2
#define KM_MAX_CLUSTERS 10000
#define KM_MAX_INIT 1000
#define KM_DEFAULT_INIT 1
#define KM_DEFAULT_TOL JL_KMEANS_DEFAULT_TOL
#define KM_INITIAL_POINTS 1024

/* parameters, identical in every row of a group */
typedef struct KmParams
{
	int32		c;				/* n_clusters */
	int32		max_iter;
	int32		n_init;			/* k-means++ runs, the best one kept */
	int64		seed;
} KmParams;

/* the points of a group, n x k, row-major */
typedef struct KmState
{
	KmParams	p;
	int32		k;
	int64		n;
	int64		cap;
	double	   *X;
	/* the options value p was read from (jl_kmeans_options), or NULL */
	char	   *opt;
	Size		optlen;
} KmState;

/* the serialized state: this header, then n x k doubles */
typedef struct KmHeader
{
	uint32		magic;
	int32		version;
	int32		k;
	int32		c;
	int32		max_iter;
	int32		n_init;
	int64		seed;
	int64		n;
} KmHeader;

/* the bound of the points leaves room for this header */
StaticAssertDecl(sizeof(KmHeader) <= 64, "the k-means header fits JL_KMEANS_MAX_BYTES's margin");

/* the points must fit in one serialized state (below 1 GB) */
#define KM_MAX_BYTES JL_KMEANS_MAX_BYTES

static MemoryContext
km_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return aggcxt;
}

void
jl_kmeans_too_large(int64 n, int32 k)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("jl_kmeans cannot hold more than %lld sketches of %d dimensions",
					(long long) (KM_MAX_BYTES / (sizeof(double) * k)), k),
			 errdetail("The group has at least %lld sketches.", (long long) n),
			 errhint("Cluster a sample (TABLESAMPLE) and label every row with jl_nearest_centroid, or run Lloyd iterations over the whole table from a sample's centroids with jl_kmeans_lloyd(table, sketch_column, centroids), which holds only the centroids.")));
}

void
jl_kmeans_check_params(int c, int max_iter, int n_init)
{
	if (c < 1 || c > KM_MAX_CLUSTERS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n_clusters must be between 1 and %d, not %d",
						KM_MAX_CLUSTERS, c)));
	if (max_iter < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_iter must be at least 1, not %d", max_iter)));
	if (n_init < 1 || n_init > KM_MAX_INIT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n_init must be between 1 and %d, not %d",
						KM_MAX_INIT, n_init),
				 errhint("n_init is the number of k-means++ seedings, each followed by Lloyd iterations; the run with the lowest inertia is kept. The time grows with it; 10 is scikit-learn's usual choice.")));
}

/* 0.5's overloads: (state, sketch, n_clusters [, seed [, max_iter [, n_init]]]) */
static void
km_read_params(FunctionCallInfo fcinfo, KmParams *p)
{
	int			nargs = PG_NARGS();

	jl_require_arg(fcinfo, 2, "n_clusters");
	p->c = PG_GETARG_INT32(2);
	p->seed = 0;
	p->max_iter = 300;
	p->n_init = KM_DEFAULT_INIT;
	if (nargs > 3)
	{
		jl_require_arg(fcinfo, 3, "seed");
		p->seed = PG_GETARG_INT64(3);
	}
	if (nargs > 4)
	{
		jl_require_arg(fcinfo, 4, "max_iter");
		p->max_iter = PG_GETARG_INT32(4);
	}
	if (nargs > 5)
	{
		jl_require_arg(fcinfo, 5, "n_init");
		p->n_init = PG_GETARG_INT32(5);
	}
	jl_kmeans_check_params(p->c, p->max_iter, p->n_init);
}

/* a jl_kmeans_options value: (n_clusters, seed, max_iter, n_init) */
static void
km_read_options(Datum options, KmParams *p)
{
	static const char *const names[] = {"n_clusters", "seed", "max_iter", "n_init"};
	Datum		v[4];

	jl_option_fields(options, "jl_kmeans_options", names, 4, v);
	p->c = DatumGetInt32(v[0]);
	p->seed = DatumGetInt64(v[1]);
	p->max_iter = DatumGetInt32(v[2]);
	p->n_init = DatumGetInt32(v[3]);
	jl_kmeans_check_params(p->c, p->max_iter, p->n_init);
}

/*
 * The parameters of this row from its jl_kmeans_options value opt: the
 * state's when the value has the same bytes as the one they were read from
 * (a constant: read once per group), else read and checked.
 */
static void
km_row_options(struct varlena *opt, const KmState *st, KmParams *p)
{
	if (st != NULL && st->opt != NULL && VARSIZE(opt) == st->optlen &&
		memcmp(opt, st->opt, st->optlen) == 0)
	{
		*p = st->p;
		return;
	}
	km_read_options(PointerGetDatum(opt), p);
}

Datum
jl_kmeans_options_checked(PG_FUNCTION_ARGS)
{
	KmParams	p;

	jl_require_arg(fcinfo, 0, "options");
	km_read_options(PG_GETARG_DATUM(0), &p);
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

static void
km_check_same(const KmParams *a, const KmParams *b)
{
	if (a->c != b->c || a->seed != b->seed || a->max_iter != b->max_iter ||
		a->n_init != b->n_init)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("jl_kmeans parameters must be the same for every row of a group"),
				 errdetail("n_clusters %d, seed %lld, max_iter %d, n_init %d against n_clusters %d, seed %lld, max_iter %d, n_init %d.",
						   a->c, (long long) a->seed, a->max_iter, a->n_init,
						   b->c, (long long) b->seed, b->max_iter, b->n_init)));
}

static void
km_check_dim(int32 have, int32 got)
{
	if (have != got)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have different dimensions %d and %d", have, got)));
}

/* room for at least want points, growing geometrically up to the limit */
static void
km_reserve(MemoryContext mcxt, KmState *st, int64 want)
{
	int64		limit = KM_MAX_BYTES / (sizeof(double) * st->k);
	int64		cap;

	if (want <= st->cap)
		return;
	if (want > limit)
		jl_kmeans_too_large(want, st->k);
	cap = Max(st->cap, KM_INITIAL_POINTS);
	while (cap < want)
		cap *= 2;
	cap = Min(cap, limit);
	if (st->X == NULL)
		st->X = MemoryContextAllocHuge(mcxt, sizeof(double) * st->k * cap);
	else
		st->X = repalloc_huge(st->X, sizeof(double) * st->k * cap);
	st->cap = cap;
}

static KmState *
km_create(MemoryContext mcxt, const KmParams *p, int32 k)
{
	KmState    *st = MemoryContextAllocZero(mcxt, sizeof(KmState));

	st->p = *p;
	st->k = k;
	return st;
}

/* add this row's sketch (argument 1) to the group's points under p */
static Datum
km_trans(FunctionCallInfo fcinfo, KmState *st, const KmParams *p)
{
	MemoryContext aggcxt = km_context(fcinfo, "jl_kmeans_trans");
	double	   *x;
	int			k;

	if (st != NULL)
		km_check_same(&st->p, p);
	if (PG_ARGISNULL(1))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	x = jl_array_vector(PG_GETARG_ARRAYTYPE_P(1), "sketch", &k);
	if (k > JL_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("sketch has %d dimensions, more than %d", k, JL_MAX_K)));
	if (st == NULL)
		st = km_create(aggcxt, p, k);
	else
		km_check_dim(st->k, k);
	km_reserve(aggcxt, st, st->n + 1);
	memcpy(st->X + st->n * st->k, x, sizeof(double) * k);
	st->n++;
	PG_RETURN_POINTER(st);
}

Datum
jl_kmeans_trans(PG_FUNCTION_ARGS)
{
	KmParams	p;

	km_read_params(fcinfo, &p);
	return km_trans(fcinfo, PG_ARGISNULL(0) ? NULL : (KmState *) PG_GETARG_POINTER(0), &p);
}

/* (state, sketch, jl_kmeans_options) */
Datum
jl_kmeans_options_trans(PG_FUNCTION_ARGS)
{
	KmState    *st = PG_ARGISNULL(0) ? NULL : (KmState *) PG_GETARG_POINTER(0);
	KmParams	p;
	Datum		result;
	struct varlena *opt;

	jl_require_arg(fcinfo, 2, "options");
	opt = PG_DETOAST_DATUM(PG_GETARG_DATUM(2));
	km_row_options(opt, st, &p);
	result = km_trans(fcinfo, st, &p);
	st = (KmState *) DatumGetPointer(result);
	if (st != NULL && st->opt == NULL)
	{
		st->optlen = VARSIZE(opt);
		st->opt = MemoryContextAlloc(km_context(fcinfo, "jl_kmeans_trans"), st->optlen);
		memcpy(st->opt, opt, st->optlen);
	}
	return result;
}

Datum
jl_kmeans_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = km_context(fcinfo, "jl_kmeans_combine");
	KmState    *s1 = PG_ARGISNULL(0) ? NULL : (KmState *) PG_GETARG_POINTER(0);
	KmState    *s2 = PG_ARGISNULL(1) ? NULL : (KmState *) PG_GETARG_POINTER(1);
	KmState    *st;

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
	{
		st = km_create(aggcxt, &s2->p, s2->k);
		km_reserve(aggcxt, st, s2->n);
		memcpy(st->X, s2->X, sizeof(double) * st->k * s2->n);
		st->n = s2->n;
		PG_RETURN_POINTER(st);
	}
	km_check_same(&s1->p, &s2->p);
	km_check_dim(s1->k, s2->k);
	km_reserve(aggcxt, s1, s1->n + s2->n);
	memcpy(s1->X + s1->n * s1->k, s2->X, sizeof(double) * s2->k * s2->n);
	s1->n += s2->n;
	PG_RETURN_POINTER(s1);
}

Datum
jl_kmeans_serialize(PG_FUNCTION_ARGS)
{
	KmState    *st;
	KmHeader	h;
	bytea	   *out;
	Size		bytes,
				size;

	km_context(fcinfo, "jl_kmeans_serialize");
	st = (KmState *) PG_GETARG_POINTER(0);
	memset(&h, 0, sizeof(h));
	h.magic = KM_MAGIC;
	h.version = KM_VERSION;
	h.k = st->k;
	h.c = st->p.c;
	h.max_iter = st->p.max_iter;
	h.n_init = st->p.n_init;
	h.seed = st->p.seed;
	h.n = st->n;
	bytes = sizeof(double) * st->k * st->n;	/* <= KM_MAX_BYTES */
	size = VARHDRSZ + sizeof(h) + bytes;
	out = palloc(size);
	SET_VARSIZE(out, size);
	memcpy(VARDATA(out), &h, sizeof(h));
	if (bytes > 0)
		memcpy(VARDATA(out) + sizeof(h), st->X, bytes);
	PG_RETURN_BYTEA_P(out);
}

static void
km_malformed(const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("malformed jl_kmeans state"),
			 errdetail("%s", why)));
}

Datum
jl_kmeans_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = km_context(fcinfo, "jl_kmeans_deserialize");
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	Size		len = VARSIZE_ANY_EXHDR(in);
	KmHeader	h;
	KmState    *st;

	if (len < sizeof(h))
		km_malformed("It is shorter than its header.");
	memcpy(&h, VARDATA_ANY(in), sizeof(h));
	if (h.magic != KM_MAGIC)
		km_malformed("Its magic number is wrong.");
	if (h.version != KM_VERSION)
		km_malformed("It comes from another version of jldp.");
	if (h.k < 1 || h.k > JL_MAX_K || h.c < 1 || h.c > KM_MAX_CLUSTERS ||
		h.max_iter < 1 || h.n_init < 1 || h.n_init > KM_MAX_INIT || h.n < 0 ||
		h.n > (int64) (KM_MAX_BYTES / (sizeof(double) * h.k)))
		km_malformed("Its header is inconsistent.");
	if (len - sizeof(h) != sizeof(double) * h.k * (Size) h.n)	/* h.n >= 0, checked above */
		km_malformed("Its size does not match its header.");
	st = MemoryContextAllocZero(aggcxt, sizeof(KmState));
	st->p.c = h.c;
	st->p.max_iter = h.max_iter;
	st->p.n_init = h.n_init;
	st->p.seed = h.seed;
	st->k = h.k;
	km_reserve(aggcxt, st, h.n);
	if (h.n > 0)
		memcpy(st->X, VARDATA_ANY(in) + sizeof(h), sizeof(double) * h.k * h.n);
	st->n = h.n;
	PG_RETURN_POINTER(st);
}

ArrayType *
jl_kmeans_matrix(const double *v, int m, int k)
{
	Size		nbytes = add_size(ARR_OVERHEAD_NONULLS(2),
								  mul_size(sizeof(double), mul_size(m, k)));
	ArrayType  *a = (ArrayType *) palloc(nbytes);

	SET_VARSIZE(a, nbytes);
	a->ndim = 2;
	a->dataoffset = 0;
	a->elemtype = FLOAT8OID;
	ARR_DIMS(a)[0] = m;
	ARR_DIMS(a)[1] = k;
	ARR_LBOUND(a)[0] = 1;
	ARR_LBOUND(a)[1] = 1;
	memcpy(ARR_DATA_PTR(a), v, sizeof(double) * m * k);
	return a;
}

/*
 * Sorts the points in place: the state keeps the same multiset of points,
 * which is all the result depends on.
 */
Datum
jl_kmeans_final(PG_FUNCTION_ARGS)
{
	KmState    *st;
	double	   *centroids;
	int			m,
				iterations,
				workers;
	double		inertia;

	km_context(fcinfo, "jl_kmeans_final");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (KmState *) PG_GETARG_POINTER(0);
	if (st->n == 0)
		PG_RETURN_NULL();

	jl_kmeans_prepare(st->X, st->n, st->k);
	centroids = palloc_extended(mul_size(mul_size(sizeof(double), st->p.c), st->k),
								MCXT_ALLOC_HUGE);
	/* in parallel workers when the plan is not parallel itself */
	m = jl_kmeans_run_parallel(st->X, st->n, st->k, st->p.c, (uint64) st->p.seed,
							   st->p.max_iter, KM_DEFAULT_TOL, st->p.n_init, centroids,
							   &iterations, &inertia, &workers, NULL, false);
	if (m < st->p.c)
		ereport(NOTICE,
				(errmsg("jl_kmeans: only %d distinct sketches for %d clusters, so the result has %d rows, one per distinct sketch",
						m, st->p.c, m)));
	PG_RETURN_ARRAYTYPE_P(jl_kmeans_matrix(centroids, m, st->k));
}

/* the centroids of jl_kmeans: a two-dimensional m x k float8[] */
double *
jl_read_centroids(ArrayType *a, int *m, int *k)
{
	double	   *v;
	int			n,
				i;

	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("centroids must be an array of double precision")));
	if (ARR_NDIM(a) != 2)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("centroids must be a two-dimensional array (one row per centroid), not %d-dimensional",
						ARR_NDIM(a))));
	if (array_contains_nulls(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("centroids must not contain NULL elements")));
	*m = ARR_DIMS(a)[0];
	*k = ARR_DIMS(a)[1];
	n = *m * *k;
	v = (double *) ARR_DATA_PTR(a);
	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("centroids must contain only finite numbers")));
	return v;
}

Datum
jl_nearest_centroid(PG_FUNCTION_ARGS)
{
	double	   *x,
			   *c;
	int			k,
				m,
				ck;

	x = jl_array_vector(PG_GETARG_ARRAYTYPE_P(0), "sketch", &k);
	c = jl_read_centroids(PG_GETARG_ARRAYTYPE_P(1), &m, &ck);
	if (ck != k)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketch has %d dimensions, the centroids have %d", k, ck)));
	PG_RETURN_INT32(jl_kmeans_nearest(x, c, m, k, NULL) + 1);
}
