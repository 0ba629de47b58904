/*
 * agg.c - the release of long-format data as an aggregate:
 *
 *   jl_private_release_agg(attr, value, d, k, epsilon, dataset
 *                          [, neighbor, bound [, calibration, delta [, key
 *                          [, noise]]]])
 *   jl_project_agg(attr, value, k, key)        (noise-free, for the curator)
 *
 * over (row, attribute, value) rows grouped by row.  Attribute i (1-based,
 * like an array subscript) uses row i - 1 of the same P as the dense path, so
 * a group releases what jl_private_release releases for the dense vector
 * with x[attr] = value: the same calibration, clamping, compensated
 * projection for rows past the floating-point allowance, grid and noise.
 * Values of the same attribute in a group are summed (in floating point, in
 * no fixed order); rows whose value is NULL are skipped.
 *
 * The state is the list of (attr, value) pairs seen, kept sorted and summed
 * by attribute when it fills up, so its memory is bounded by the number of
 * distinct attributes of the group, never by d.  P is never materialized for
 * large d: the final function generates the rows of the attributes it needs,
 * and the sensitivities of P (a maximum over all d rows, or P^T P) are
 * streamed over the rows once per backend and cached.  For small d the dense
 * P of the per-backend cache is used instead (same rows, same statistics).
 *
 * Noise is drawn once per group, in the final function, which never changes
 * the state.  All groups of one scan of the aggregate share their parameters
 * and one charge (the groups hold disjoint rows): the first group consumes a
 * budget reservation (jl_budget_reserve) for the dataset before anything is
 * output; the final function may run in parallel mode, where the budget
 * tables cannot be written.  What would release the same rows twice under
 * one charge is refused or charged again: a rescan of the aggregate's plan
 * node (a correlated subquery, a nested loop) needs a reservation of its own
 * (see final_charge); grouping sets and window use are refused.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "access/parallel.h"
#include "executor/executor.h"
#include "executor/nodeAgg.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/plannodes.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "pg/budget.h"
#include "math/grid.h"
#include "math/laplace.h"
#include "math/release.h"
#include "math/sparse.h"

#include "pg/arrays.h"
#include "pg/keystore.h"
#include "pg/options.h"
#include "pg/projection_cache.h"
#include "pg/strong_random.h"

PG_FUNCTION_INFO_V1(jl_private_release_agg_trans);
PG_FUNCTION_INFO_V1(jl_project_agg_trans);
PG_FUNCTION_INFO_V1(jl_agg_combine);
PG_FUNCTION_INFO_V1(jl_agg_serialize);
PG_FUNCTION_INFO_V1(jl_agg_deserialize);
PG_FUNCTION_INFO_V1(jl_private_release_agg_final);
PG_FUNCTION_INFO_V1(jl_project_agg_final);

/* dense P from the per-backend cache up to this size, rows on demand above */
#define JL_AGG_DENSE_MAX_BYTES ((double) 16 * 1024 * 1024)
#define JL_AGG_INITIAL_PAIRS 16

#define JL_AGG_MAGIC 0x4a4c4147	/* "JLAG" */
#define JL_AGG_VERSION 3

/* argument number of noise in the transition function */
#define NOISE_ARG 13

typedef enum AggKind
{
	AGG_RELEASE = 1,
	AGG_PROJECT = 2
} AggKind;

typedef struct AggParams
{
	int32		kind;			/* AggKind */
	int32		d;				/* attribute domain (0 for project) */
	int32		k;
	int32		neighbor;		/* JlNeighbor */
	int32		calibration;	/* JlCalibration */
	uint32		proj;			/* JlKind, sparse density resolved */
	int32		noise;			/* JlNoise */
	double		epsilon;
	double		bound;
	double		delta;			/* NaN when NULL */
	char	   *key;
	char	   *dataset;		/* NULL for project */
} AggParams;

typedef struct JlAggState
{
	AggParams	p;
	JlSparsePair *pairs;
	int64		n;				/* pairs used */
	int64		ncompact;		/* pairs[0..ncompact-1]: sorted, distinct */
	int64		cap;
} JlAggState;

/* ------------------------------------------------------------------------
 * parameters
 */

static bool
same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static bool
text_is_cstr(text *t, const char *s)
{
	size_t		n = strlen(s);

	return VARSIZE_ANY_EXHDR(t) == n && memcmp(VARDATA_ANY(t), s, n) == 0;
}

/* The first parameter in which a and b differ, or NULL. */
static const char *
params_differ(const AggParams *a, const AggParams *b)
{
	if (a->kind != b->kind)
		return "aggregate";
	if (a->noise != b->noise)
		return "noise";
	if (a->d != b->d)
		return "d";
	if (a->k != b->k)
		return "k";
	if (a->proj != b->proj)
		return "projection kind";
	if (!same_double(a->epsilon, b->epsilon))
		return "epsilon";
	if ((a->dataset == NULL) != (b->dataset == NULL) ||
		(a->dataset != NULL && strcmp(a->dataset, b->dataset) != 0))
		return "dataset";
	if (a->neighbor != b->neighbor)
		return "neighbor";
	if (!same_double(a->bound, b->bound))
		return "bound";
	if (a->calibration != b->calibration)
		return "calibration";
	if (!same_double(a->delta, b->delta))
		return "delta";
	if (strcmp(a->key, b->key) != 0)
		return "key";
	return NULL;
}

/* the same checks, in the same words, as the dense release */
static void
check_release_params(const AggParams *p)
{
	if (p->d < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("d must be at least 1, not %d", p->d)));
	jl_check_k(p->k);
	if (!(isfinite(p->epsilon) && p->epsilon > 0.0))
		jl_report_status(JL_ERR_EPSILON);
	if (!(isfinite(p->bound) && p->bound > 0.0))
		jl_report_status(JL_ERR_BOUND);
	if (!isnan(p->delta) && !(p->delta > 0.0 && p->delta < 1.0))
		jl_report_status(JL_ERR_DELTA);
	if (p->noise == JL_NOISE_GAUSSIAN && isnan(p->delta))
		jl_report_status(JL_ERR_GAUSSIAN_DELTA_REQUIRED);
	if (p->noise == JL_NOISE_LAPLACE && p->calibration == JL_CALIBRATION_PAPER &&
		p->neighbor == JL_NEIGHBOR_ROW && isnan(p->delta))
		jl_report_status(JL_ERR_DELTA_REQUIRED);
}

/*
 * The parameters of a jl_private_release_agg row: arguments 3.. of the
 * transition function, defaults for the ones this overload lacks.  Strings
 * point into the arguments.
 */
static void
read_release_params(FunctionCallInfo fcinfo, AggParams *p, text **key,
					text **dataset)
{
	int			nargs = PG_NARGS();

	jl_require_arg(fcinfo, 3, "d");
	jl_require_arg(fcinfo, 4, "k");
	jl_require_arg(fcinfo, 5, "epsilon");
	jl_require_arg(fcinfo, 6, "dataset");
	memset(p, 0, sizeof(*p));
	p->kind = AGG_RELEASE;
	p->d = PG_GETARG_INT32(3);
	p->k = PG_GETARG_INT32(4);
	p->epsilon = PG_GETARG_FLOAT8(5);
	*dataset = PG_GETARG_TEXT_PP(6);
	p->neighbor = JL_NEIGHBOR_ELEMENT;
	p->bound = 1.0;
	p->noise = JL_NOISE_LAPLACE;
	p->calibration = JL_CALIBRATION_EXACT;
	p->delta = NAN;
	p->proj = JL_KIND_GAUSSIAN;
	*key = NULL;
	if (nargs > NOISE_ARG)
	{
		jl_require_arg(fcinfo, NOISE_ARG, "noise");
		p->noise = jl_parse_noise(PG_GETARG_TEXT_PP(NOISE_ARG));
		p->calibration = jl_parse_calibration(NULL, p->noise);
	}
	if (nargs > 8)
	{
		jl_require_arg(fcinfo, 7, "neighbor");
		jl_require_arg(fcinfo, 8, "bound");
		p->neighbor = jl_parse_neighbor(PG_GETARG_TEXT_PP(7));
		p->bound = PG_GETARG_FLOAT8(8);
	}
	if (nargs > 10)
	{
		/* NULL: the noise's default calibration */
		p->calibration = jl_parse_calibration(PG_ARGISNULL(9) ? NULL : PG_GETARG_TEXT_PP(9),
											  p->noise);
		if (!PG_ARGISNULL(10))
		{
			p->delta = PG_GETARG_FLOAT8(10);
			if (isnan(p->delta))
				jl_report_status(JL_ERR_DELTA); /* NaN would read as "not given" */
		}
	}
	if (nargs > 11)
	{
		jl_require_arg(fcinfo, 11, "key");
		*key = PG_GETARG_TEXT_PP(11);
	}
	if (nargs > 12)
	{
		jl_require_arg(fcinfo, 12, "kind");
		p->proj = jl_parse_kind(PG_GETARG_TEXT_PP(12));
	}
	/* 'sparse': density 1/sqrt(d), so that the rows are those of the dense release */
	if (p->d >= 1)
		p->proj = jl_kind_resolve(p->proj, p->d);
}

/* ------------------------------------------------------------------------
 * the state
 */

static JlAggState *
state_create(MemoryContext mcxt, const AggParams *p, text *key, text *dataset)
{
	JlAggState   *st = MemoryContextAllocZero(mcxt, sizeof(JlAggState));

	st->p = *p;
	st->p.key = key ? MemoryContextStrdup(mcxt, text_to_cstring(key))
		: MemoryContextStrdup(mcxt, "default");
	st->p.dataset = dataset ? MemoryContextStrdup(mcxt, text_to_cstring(dataset)) : NULL;
	st->cap = JL_AGG_INITIAL_PAIRS;
	st->pairs = MemoryContextAlloc(mcxt, sizeof(JlSparsePair) * st->cap);
	return st;
}

/* The state's row has these parameters (strings from the arguments). */
static void
state_check_params(const JlAggState *st, const AggParams *p, text *key,
				   text *dataset)
{
	const char *what = NULL;
	AggParams	q = *p;

	/* compare the strings without copying them */
	q.key = st->p.key;
	q.dataset = st->p.dataset;
	if (!(key ? text_is_cstr(key, st->p.key) : strcmp(st->p.key, "default") == 0))
		what = "key";
	else if ((dataset == NULL) != (st->p.dataset == NULL) ||
			 (dataset != NULL && !text_is_cstr(dataset, st->p.dataset)))
		what = "dataset";
	else
		what = params_differ(&st->p, &q);
	if (what != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the parameters of an aggregate release must be the same in every row of a group"),
				 errdetail("The %s differs between rows.", what)));
}

/*
 * Make room for more pairs: compact, and double while less than a quarter
 * would stay free, so that a compaction (n log n) comes at most every cap/4
 * additions and the capacity stays below 8/3 of the distinct attributes.
 */
static void
state_reserve(JlAggState *st, int64 more)
{
	if (st->n + more <= st->cap)
		return;
	if (st->ncompact < st->n)
	{
		st->n = jl_sparse_compact(st->pairs, st->n);
		st->ncompact = st->n;
	}
	if (st->n + more > st->cap - st->cap / 4)
	{
		int64		cap = st->cap;

		while (st->n + more > cap - cap / 4)
			cap *= 2;
		st->pairs = repalloc_huge(st->pairs, mul_size(sizeof(JlSparsePair), (Size) cap));
		st->cap = cap;
	}
}

static inline void
state_add(JlAggState *st, int32 attr, double v)
{
	if (st->n > 0 && st->ncompact == st->n)
	{
		JlSparsePair *last = &st->pairs[st->n - 1];

		/* input in attribute order stays compact without sorting */
		if (attr == last->attr)
		{
			last->value += v;
			return;
		}
	}
	if (st->n == st->cap)
		state_reserve(st, 1);
	if (st->ncompact == st->n &&
		(st->n == 0 || attr > st->pairs[st->n - 1].attr))
		st->ncompact++;
	st->pairs[st->n].attr = attr;
	st->pairs[st->n].value = v;
	st->n++;
}

static void
state_compact(JlAggState *st)
{
	if (st->ncompact < st->n)
	{
		st->n = jl_sparse_compact(st->pairs, st->n);
		st->ncompact = st->n;
	}
}

static void
check_attr_value(const JlAggState *st, int32 attr, double v)
{
	if (attr < 1 || (st->p.kind == AGG_RELEASE && attr > st->p.d))
	{
		if (st->p.kind == AGG_RELEASE)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("attr must lie between 1 and d = %d, not %d", st->p.d, attr),
					 errhint("Attributes are numbered from 1, like array subscripts.")));
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attr must be at least 1, not %d", attr),
				 errhint("Attributes are numbered from 1, like array subscripts.")));
	}
	if (!isfinite(v))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value must be a finite number"),
				 errdetail("The value of attr %d is %s.", attr,
						   isnan(v) ? "NaN" : (v > 0 ? "Infinity" : "-Infinity"))));
}

/*
 * A row's (attr, value): a NULL value contributes nothing (the row is
 * skipped); a NULL attr with a value is an error.  Returns false to skip.
 */
static bool
read_attr_value(FunctionCallInfo fcinfo, int32 *attr, double *v)
{
	if (PG_ARGISNULL(2))
		return false;
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("attr must not be NULL when value is not NULL")));
	*attr = PG_GETARG_INT32(1);
	*v = PG_GETARG_FLOAT8(2);
	return true;
}

static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return aggcxt;
}

/* ------------------------------------------------------------------------
 * transition and combine
 */

Datum
jl_private_release_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "jl_private_release_agg_trans");
	JlAggState   *st = PG_ARGISNULL(0) ? NULL : (JlAggState *) PG_GETARG_POINTER(0);
	AggParams	p;
	text	   *key,
			   *dataset;
	int32		attr;
	double		v;

	read_release_params(fcinfo, &p, &key, &dataset);
	if (st == NULL)
	{
		/* the first row of the group, even if its value is NULL */
		check_release_params(&p);
		if (VARSIZE_ANY_EXHDR(dataset) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dataset name must not be empty")));
		st = state_create(aggcxt, &p, key, dataset);
	}
	else
		state_check_params(st, &p, key, dataset);

	if (read_attr_value(fcinfo, &attr, &v))
	{
		check_attr_value(st, attr, v);
		state_add(st, attr, v);
	}
	PG_RETURN_POINTER(st);
}

Datum
jl_project_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "jl_project_agg_trans");
	JlAggState   *st = PG_ARGISNULL(0) ? NULL : (JlAggState *) PG_GETARG_POINTER(0);
	AggParams	p;
	text	   *key;
	int32		attr;
	double		v;

	jl_require_arg(fcinfo, 3, "k");
	jl_require_arg(fcinfo, 4, "key");
	memset(&p, 0, sizeof(p));
	p.kind = AGG_PROJECT;
	p.k = PG_GETARG_INT32(3);
	p.delta = NAN;
	p.proj = JL_KIND_GAUSSIAN;
	key = PG_GETARG_TEXT_PP(4);
	if (PG_NARGS() > 5)
	{
		jl_require_arg(fcinfo, 5, "kind");
		p.proj = jl_parse_kind(PG_GETARG_TEXT_PP(5));
	}
	if (st == NULL)
	{
		jl_check_k(p.k);
		if (!jl_kind_ready(p.proj))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("kind 'sparse' needs a density here"),
					 errdetail("Its default density 1/sqrt(d) needs d, which jl_project_agg is not given."),
					 errhint("Give the density, e.g. kind => 'sparse(0.01)'; jl_release_info reports "
							 "the density a release of dimension d uses.")));
		st = state_create(aggcxt, &p, key, NULL);
	}
	else
		state_check_params(st, &p, key, NULL);

	if (read_attr_value(fcinfo, &attr, &v))
	{
		check_attr_value(st, attr, v);
		state_add(st, attr, v);
	}
	PG_RETURN_POINTER(st);
}

static JlAggState *
state_copy(MemoryContext mcxt, const JlAggState *src)
{
	JlAggState   *st = MemoryContextAllocZero(mcxt, sizeof(JlAggState));

	st->p = src->p;
	st->p.key = MemoryContextStrdup(mcxt, src->p.key);
	st->p.dataset = src->p.dataset ? MemoryContextStrdup(mcxt, src->p.dataset) : NULL;
	st->cap = Max(src->n, JL_AGG_INITIAL_PAIRS);
	st->pairs = MemoryContextAllocHuge(mcxt, mul_size(sizeof(JlSparsePair), (Size) st->cap));
	memcpy(st->pairs, src->pairs, sizeof(JlSparsePair) * src->n);
	st->n = src->n;
	st->ncompact = src->ncompact;
	return st;
}

Datum
jl_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "jl_agg_combine");
	JlAggState   *s1 = PG_ARGISNULL(0) ? NULL : (JlAggState *) PG_GETARG_POINTER(0);
	JlAggState   *s2 = PG_ARGISNULL(1) ? NULL : (JlAggState *) PG_GETARG_POINTER(1);
	const char *what;

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		PG_RETURN_POINTER(state_copy(aggcxt, s2));	/* s2 may be short-lived */

	what = params_differ(&s1->p, &s2->p);
	if (what != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot combine aggregate release states with different parameters"),
				 errdetail("The %s differs.", what)));

	state_reserve(s1, s2->n);
	if (s1->ncompact == s1->n && s2->ncompact == s2->n &&
		(s1->n == 0 || s2->n == 0 || s2->pairs[0].attr > s1->pairs[s1->n - 1].attr))
		s1->ncompact += s2->n;
	memcpy(s1->pairs + s1->n, s2->pairs, sizeof(JlSparsePair) * s2->n);
	s1->n += s2->n;
	/* keep the bound on memory: distinct attributes, not inputs */
	state_compact(s1);
	PG_RETURN_POINTER(s1);
}

/* ------------------------------------------------------------------------
 * serialization: one flat bytea
 *
 *   header (SerialHeader), key bytes, dataset bytes, then npairs pairs of
 *   (int32 attr, float8 value), sorted by attr and distinct.
 */

typedef struct SerialHeader
{
	uint32		magic;
	uint16		version;
	uint16		kind;
	int32		d;
	int32		k;
	int32		neighbor;
	int32		calibration;
	uint32		proj;
	int32		noise;
	double		epsilon;
	double		bound;
	double		delta;
	int64		npairs;
	int32		keylen;
	int32		datasetlen;		/* -1: none */
} SerialHeader;

#define PAIR_BYTES (sizeof(int32) + sizeof(double))

Datum
jl_agg_serialize(PG_FUNCTION_ARGS)
{
	JlAggState   *st;
	SerialHeader h;
	bytea	   *out;
	char	   *w;
	Size		size;
	int64		i;

	agg_context(fcinfo, "jl_agg_serialize");
	st = (JlAggState *) PG_GETARG_POINTER(0);
	/* the state is not used after serialization; its value is unchanged */
	state_compact(st);

	memset(&h, 0, sizeof(h));
	h.magic = JL_AGG_MAGIC;
	h.version = JL_AGG_VERSION;
	h.kind = st->p.kind;
	h.d = st->p.d;
	h.k = st->p.k;
	h.neighbor = st->p.neighbor;
	h.calibration = st->p.calibration;
	h.proj = st->p.proj;
	h.noise = st->p.noise;
	h.epsilon = st->p.epsilon;
	h.bound = st->p.bound;
	h.delta = st->p.delta;
	h.npairs = st->n;
	h.keylen = strlen(st->p.key);
	h.datasetlen = st->p.dataset ? strlen(st->p.dataset) : -1;

	size = add_size(VARHDRSZ + sizeof(h), h.keylen + Max(h.datasetlen, 0));
	size = add_size(size, mul_size(PAIR_BYTES, (Size) st->n));
	if (size > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("aggregate release state with %lld attributes is too large to pass between processes",
						(long long) st->n),
				 errhint("Disable parallel query for this statement (max_parallel_workers_per_gather = 0).")));
	out = palloc(size);
	SET_VARSIZE(out, size);
	w = VARDATA(out);
	memcpy(w, &h, sizeof(h));
	w += sizeof(h);
	memcpy(w, st->p.key, h.keylen);
	w += h.keylen;
	if (h.datasetlen > 0)
	{
		memcpy(w, st->p.dataset, h.datasetlen);
		w += h.datasetlen;
	}
	for (i = 0; i < st->n; i++)
	{
		memcpy(w, &st->pairs[i].attr, sizeof(int32));
		memcpy(w + sizeof(int32), &st->pairs[i].value, sizeof(double));
		w += PAIR_BYTES;
	}
	PG_RETURN_BYTEA_P(out);
}

static void
malformed(const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("malformed aggregate release state"),
			 errdetail("%s", why)));
}

Datum
jl_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *in;
	const char *r;
	Size		len;
	SerialHeader h;
	JlAggState   *st;
	AggParams	p;
	int64		i;

	agg_context(fcinfo, "jl_agg_deserialize");
	in = PG_GETARG_BYTEA_PP(0);
	r = VARDATA_ANY(in);
	len = VARSIZE_ANY_EXHDR(in);
	if (len < sizeof(h))
		malformed("It is shorter than its header.");
	memcpy(&h, r, sizeof(h));
	r += sizeof(h);
	len -= sizeof(h);
	if (h.magic != JL_AGG_MAGIC)
		malformed("Its magic number is wrong.");
	if (h.version != JL_AGG_VERSION)
		malformed("It comes from another version of jldp.");
	if (h.keylen < 0 || h.datasetlen < -1 || h.npairs < 0)
		malformed("Its header is inconsistent.");
	if ((Size) h.keylen + Max(h.datasetlen, 0) > len ||
		(Size) h.npairs != (len - h.keylen - Max(h.datasetlen, 0)) / PAIR_BYTES ||
		(len - h.keylen - Max(h.datasetlen, 0)) % PAIR_BYTES != 0)
		malformed("Its size does not match its header.");

	memset(&p, 0, sizeof(p));
	p.kind = h.kind;
	p.d = h.d;
	p.k = h.k;
	p.neighbor = h.neighbor;
	p.calibration = h.calibration;
	p.proj = h.proj;
	p.noise = h.noise;
	p.epsilon = h.epsilon;
	p.bound = h.bound;
	p.delta = h.delta;
	if (p.kind == AGG_RELEASE)
	{
		if (h.datasetlen < 1 ||
			(p.neighbor != JL_NEIGHBOR_ELEMENT && p.neighbor != JL_NEIGHBOR_ROW) ||
			(p.noise != JL_NOISE_LAPLACE && p.noise != JL_NOISE_GAUSSIAN) ||
			(p.noise == JL_NOISE_LAPLACE && p.calibration != JL_CALIBRATION_EXACT &&
			 p.calibration != JL_CALIBRATION_PAPER) ||
			(p.noise == JL_NOISE_GAUSSIAN && p.calibration != JL_CALIBRATION_ANALYTIC &&
			 p.calibration != JL_CALIBRATION_CLASSIC && p.calibration != JL_CALIBRATION_PAPER))
			malformed("Its parameters are invalid.");
		check_release_params(&p);
	}
	else if (p.kind == AGG_PROJECT)
	{
		if (h.datasetlen != -1 || p.d != 0)
			malformed("Its parameters are invalid.");
		jl_check_k(p.k);
	}
	else
		malformed("Its kind is unknown.");
	if (!jl_kind_ready(p.proj))
		malformed("Its projection kind is invalid.");

	st = palloc0(sizeof(JlAggState));
	st->p = p;
	st->p.key = pnstrdup(r, h.keylen);
	r += h.keylen;
	if (strlen(st->p.key) != (size_t) h.keylen)
		malformed("Its key name contains a NUL byte.");
	if (h.datasetlen >= 0)
	{
		st->p.dataset = pnstrdup(r, h.datasetlen);
		r += h.datasetlen;
		if (strlen(st->p.dataset) != (size_t) h.datasetlen)
			malformed("Its dataset name contains a NUL byte.");
	}
	st->cap = Max(h.npairs, JL_AGG_INITIAL_PAIRS);
	st->pairs = palloc_extended(mul_size(sizeof(JlSparsePair), (Size) st->cap),
								MCXT_ALLOC_HUGE);
	for (i = 0; i < h.npairs; i++)
	{
		JlSparsePair *q = &st->pairs[i];

		memcpy(&q->attr, r, sizeof(int32));
		memcpy(&q->value, r + sizeof(int32), sizeof(double));
		r += PAIR_BYTES;
		/* values may be infinite: sums of duplicates can overflow */
		if (q->attr < 1 || (p.kind == AGG_RELEASE && q->attr > p.d) ||
			(i > 0 && q->attr <= st->pairs[i - 1].attr))
			malformed("Its attributes are out of order or out of range.");
	}
	st->n = st->ncompact = h.npairs;
	PG_RETURN_POINTER(st);
}

/* ------------------------------------------------------------------------
 * final functions
 */

typedef struct FinalCache
{
	Oid			nsp;
	MemoryContext mcxt;
	bool		have_first;
	AggParams	first;			/* parameters of the first group */
	char	   *keyname;		/* key cached below, or NULL */
	JlKey		key;
	bool		dense;			/* P from the per-backend cache */
	JlMechanism	m;
	uint32	   *noise_table;
	int64		groups;
	bool		charged;		/* this scan of the plan node is paid for */
	bool		armed;			/* reset callback registered */
	bool		reset_seen;		/* the node's expression context was reset */
	Datum		last_result;	/* what the last call returned */
	int			bufk;			/* length of rowbuf and y */
	double	   *rowbuf;			/* k: a generated row of P */
	double	   *y;				/* k */
	double	   *cbuf;			/* k: compensation terms */
} FinalCache;

static void
wipe_final_cache(void *arg)
{
	FinalCache *fc = (FinalCache *) arg;

	explicit_bzero(&fc->key, sizeof(fc->key));
	if (fc->rowbuf != NULL)
		explicit_bzero(fc->rowbuf, sizeof(double) * fc->bufk);
}

static FinalCache *
final_cache(FunctionCallInfo fcinfo)
{
	FinalCache *fc = (FinalCache *) fcinfo->flinfo->fn_extra;

	if (fc == NULL)
	{
		MemoryContextCallback *cb;

		fc = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(FinalCache));
		fc->nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
		fc->mcxt = fcinfo->flinfo->fn_mcxt;
		cb = MemoryContextAlloc(fc->mcxt, sizeof(*cb));
		cb->func = wipe_final_cache;
		cb->arg = fc;
		MemoryContextRegisterResetCallback(fc->mcxt, cb);
		fcinfo->flinfo->fn_extra = fc;
	}
	return fc;
}

static const JlKey *
final_key(FinalCache *fc, const char *name)
{
	if (fc->keyname == NULL || strcmp(fc->keyname, name) != 0)
	{
		if (fc->keyname != NULL)
			pfree(fc->keyname);
		fc->keyname = NULL;
		jl_key_lookup(fc->nsp, name, &fc->key);
		fc->keyname = MemoryContextStrdup(fc->mcxt, name);
	}
	return &fc->key;
}

/* buffers for one group, sized for k */
static void
final_buffers(FinalCache *fc, int k)
{
	if (fc->rowbuf == NULL || fc->bufk != k)
	{
		if (fc->rowbuf != NULL)
		{
			explicit_bzero(fc->rowbuf, sizeof(double) * fc->bufk);
			pfree(fc->rowbuf);
			pfree(fc->y);
			pfree(fc->cbuf);
		}
		fc->bufk = k;
		fc->rowbuf = MemoryContextAlloc(fc->mcxt, sizeof(double) * k);
		fc->y = MemoryContextAlloc(fc->mcxt, sizeof(double) * k);
		fc->cbuf = MemoryContextAlloc(fc->mcxt, sizeof(double) * k);
	}
}

/* The state's pairs sorted and distinct, without changing the state. */
static const JlSparsePair *
compact_pairs(const JlAggState *st, int64 *n)
{
	JlSparsePair *copy;

	if (st->ncompact == st->n)
	{
		*n = st->n;
		return st->pairs;
	}
	copy = palloc_extended(mul_size(sizeof(JlSparsePair), (Size) st->n), MCXT_ALLOC_HUGE);
	memcpy(copy, st->pairs, sizeof(JlSparsePair) * st->n);
	*n = jl_sparse_compact(copy, st->n);
	return copy;
}

static bool
use_dense(int64 d, int k)
{
	return (double) d * k * sizeof(double) <= JL_AGG_DENSE_MAX_BYTES;
}

/* the aggregate node's output expression context was reset */
static void
agg_context_reset(Datum arg)
{
	FinalCache *fc = (FinalCache *) DatumGetPointer(arg);

	fc->reset_seen = true;
	fc->armed = false;			/* callbacks fire once */
}

/*
 * One reservation per scan of the plan node, consumed before the scan's
 * first group is output.  A rescan (ExecReScan) resets the node's output
 * expression context, which runs our callback; hashed aggregation never
 * resets it otherwise.  Sorted aggregation also resets it before every
 * group, but only a rescan clears the node's aggregate values, where our
 * previous result still sits while a scan goes on.  Plain aggregation has
 * one group per scan.  When unsure, charge: a spurious charge refuses a
 * query, a missed one would release the same rows twice.
 */
static void
final_charge(FunctionCallInfo fcinfo, FinalCache *fc)
{
	AggState   *aggstate = (AggState *) fcinfo->context;
	ExprContext *econtext = aggstate->ss.ps.ps_ExprContext;
	bool		new_scan;

	if (!fc->charged || aggstate->aggstrategy == AGG_PLAIN)
		new_scan = true;
	else if (!fc->reset_seen)
		new_scan = false;
	else if (aggstate->aggstrategy == AGG_HASHED)
		new_scan = true;
	else
	{
		int			slot = aggstate->curperagg - aggstate->peragg;

		new_scan = !(aggstate->curperagg != NULL && slot >= 0 &&
					 slot < aggstate->numaggs &&
					 !econtext->ecxt_aggnulls[slot] &&
					 econtext->ecxt_aggvalues[slot] == fc->last_result);
	}
	if (new_scan)
	{
		fc->charged = false;
		/*
		 * an accepted Laplace release is pure epsilon-DP: charged with
		 * delta 0; a Gaussian one with the requested delta
		 */
		jl_budget_consume_reservation(fc->nsp, fc->first.dataset,
									  fc->first.epsilon,
									  fc->first.noise == JL_NOISE_GAUSSIAN ?
									  fc->first.delta : 0.0);
		fc->charged = true;
	}
	fc->reset_seen = false;
	if (!fc->armed)
	{
		RegisterExprContextCallback(econtext, agg_context_reset,
									PointerGetDatum(fc));
		fc->armed = true;
	}
}

/*
 * Plans whose groups are not disjoint in rows, or where the budget cannot
 * be consumed safely, are refused before anything is released.
 */
static void
check_plan(FunctionCallInfo fcinfo)
{
	AggState   *aggstate = (AggState *) fcinfo->context;
	Agg		   *plan = (Agg *) aggstate->ss.ps.plan;

	/* grouping sets release the same rows once per set */
	if (list_length(plan->groupingSets) > 1 || plan->chain != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("jl_private_release_agg cannot be used with GROUPING SETS, ROLLUP or CUBE"),
				 errdetail("Every grouping set would release the same rows again under one charge."),
				 errhint("Release each grouping in a statement of its own.")));

	/*
	 * The final step runs in a parallel worker only under partitionwise
	 * aggregation; a worker cannot tell which reservations the others used.
	 */
	if (IsParallelWorker())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("jl_private_release_agg cannot finish in a parallel worker"),
				 errhint("SET enable_partitionwise_aggregate = off for the release.")));
}

/*
 * The first group of a call: key, sensitivities and calibration, once per
 * call site.
 */
static void
final_first(FinalCache *fc, const JlAggState *st)
{
	const AggParams *p = &st->p;
	const JlKey *key;
	JlMechanism  *m = &fc->m;

	fc->first = *p;
	fc->first.key = MemoryContextStrdup(fc->mcxt, p->key);
	fc->first.dataset = MemoryContextStrdup(fc->mcxt, p->dataset);
	final_buffers(fc, p->k);

	key = final_key(fc, p->key);
	memset(m, 0, sizeof(*m));
	m->noise = p->noise;
	m->d = p->d;
	m->k = p->k;
	m->epsilon = p->epsilon;
	m->neighbor = p->neighbor;
	m->bound = p->bound;
	m->calibration = p->calibration;
	m->delta = p->delta;
	fc->dense = use_dense(p->d, p->k);
	if (fc->dense)
		jl_calibrate_on(m, jl_projection_get(key->secret, p->proj, p->k, p->d));
	else
		jl_calibrate_streamed(m, key->secret, p->proj, p->k, p->d);
	jl_refuse_invalid(m);
	fc->have_first = true;
}

Datum
jl_private_release_agg_final(PG_FUNCTION_ARGS)
{
	FinalCache *fc;
	const JlAggState *st;
	const JlSparsePair *pairs;
	const JlKey *key;
	const double *P = NULL;
	JlProjection *proj = NULL;
	const char *what;
	ArrayType  *result;
	int64		n;
	JlStatus	s;

	if (AggCheckCallContext(fcinfo, NULL) != AGG_CONTEXT_AGGREGATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("jl_private_release_agg cannot be used as a window function"),
				 errdetail("Each window frame would be released with fresh noise, spending epsilon again.")));
	fc = final_cache(fcinfo);
	if (!fc->have_first)
		check_plan(fcinfo);
	if (PG_ARGISNULL(0))
	{
		/* no rows at all: nothing released; the next group charges anew */
		fc->charged = false;
		PG_RETURN_NULL();
	}
	st = (const JlAggState *) PG_GETARG_POINTER(0);

	if (!fc->have_first)
		final_first(fc, st);
	else if ((what = params_differ(&fc->first, &st->p)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("every group of one aggregate release must use the same parameters"),
				 errdetail("The %s differs from the first group's.", what),
				 errhint("One call is charged once, for all its groups; use a separate statement for other parameters.")));
	else if (++fc->groups == 1 && fc->noise_table == NULL &&
			 fc->m.t <= JL_LAPLACE_TABLE_MAX_T)
	{
		/* a second group: the sampler's table pays off */
		fc->noise_table = MemoryContextAllocHuge(fc->mcxt, sizeof(uint32) * fc->m.t);
		jl_laplace_table_fill(fc->m.t, fc->noise_table);
		fc->m.noise_table = fc->noise_table;
	}
	final_charge(fcinfo, fc);

	/*
	 * As jl_release_row, never refusing a row (which would tell
	 * neighbours apart): values beyond input_limit are clamped, rows beyond
	 * the floating-point allowance are projected with compensated sums, and
	 * jl_noise_on_grid saturates the projection.
	 */
	key = final_key(fc, st->p.key);
	if (fc->dense)
	{
		proj = jl_projection_get(key->secret, st->p.proj, st->p.k, st->p.d);
		P = proj->P;
	}
	pairs = compact_pairs(st, &n);
	if (jl_sparse_row_class(&fc->m, pairs, n) & JL_ROW_COMPENSATED)
		jl_sparse_project_compensated(pairs, n, key->secret, st->p.proj,
									  st->p.k, P, fc->rowbuf, fc->m.input_limit,
									  fc->cbuf, fc->y);
	else if (proj != NULL && proj->has_csr)
		jl_csr_project_pairs(&proj->csr, pairs, n, fc->m.input_limit, fc->y);
	else
		jl_sparse_project(pairs, n, key->secret, st->p.proj, st->p.k, P,
						  fc->rowbuf, fc->m.input_limit, fc->y);
	s = jl_noise_on_grid(&fc->m, fc->y, jl_strong_random());
	jl_report_status(s);
	result = jl_vector_array(fc->y, st->p.k);
	if (pairs != st->pairs)
		pfree((void *) pairs);
	fc->last_result = PointerGetDatum(result);
	PG_RETURN_ARRAYTYPE_P(result);
}

Datum
jl_project_agg_final(PG_FUNCTION_ARGS)
{
	FinalCache *fc;
	const JlAggState *st;
	const JlSparsePair *pairs;
	const JlKey *key;
	const double *P = NULL;
	JlProjection *proj = NULL;
	ArrayType  *result;
	int64		n;

	agg_context(fcinfo, "jl_project_agg_final");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (const JlAggState *) PG_GETARG_POINTER(0);
	fc = final_cache(fcinfo);
	key = final_key(fc, st->p.key);
	final_buffers(fc, st->p.k);
	pairs = compact_pairs(st, &n);

	/*
	 * Rows of P do not depend on d: when the largest attribute is small, the
	 * cached dense P of a power-of-two d covering it has the same rows.
	 */
	if (n > 0)
	{
		int64		dd = 64;

		while (dd < pairs[n - 1].attr)
			dd *= 2;
		if (use_dense(dd, st->p.k))
		{
			proj = jl_projection_get(key->secret, st->p.proj, st->p.k, dd);
			P = proj->P;
		}
	}
	if (proj != NULL && proj->has_csr)
		jl_csr_project_pairs(&proj->csr, pairs, n, INFINITY, fc->y);
	else
		jl_sparse_project(pairs, n, key->secret, st->p.proj, st->p.k, P,
						  fc->rowbuf, INFINITY, fc->y);
	result = jl_vector_array(fc->y, st->p.k);
	if (pairs != st->pairs)
		pfree((void *) pairs);
	PG_RETURN_ARRAYTYPE_P(result);
}
