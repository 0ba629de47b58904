/*
 * agg_state.c - the state of the aggregate releases: their parameters, read
 * from the transition function's arguments and checked, and the (attr,
 * value) pairs of a group, with the combine function and the serialized
 * form that carries a state between processes.
 *
 * The state is the list of (attr, value) pairs seen, kept sorted and summed
 * by attribute when it fills up, so its memory is bounded by the number of
 * distinct attributes of the group, never by d.  A serialized state comes
 * from another process: every field is checked on the way back in.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "utils/builtins.h"
#include "utils/memutils.h"

#include "math/projection/agg_wire.h"
#include "math/projection/mechanism.h"
#include "math/projection/sparse.h"

#include "pg/engines/agg_state.h"
#include "pg/common/arrays.h"
#include "pg/common/options.h"
#include "pg/keys/projection_cache.h"

#define JL_AGG_INITIAL_PAIRS 16

/* argument number of noise in the transition function */

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

const char *
jl_agg_params_differ(const JlAggParams *a, const JlAggParams *b)
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
		return "projection kind (or its density)";
	if (!same_double(a->epsilon, b->epsilon))
		return "epsilon";
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
void
jl_agg_check_release_params(const JlAggParams *p)
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
	jl_check_identity_k(p->proj, p->k, p->d, "the argument d");
	if (p->noise == JL_NOISE_GAUSSIAN && isnan(p->delta))
		jl_report_status(JL_ERR_GAUSSIAN_DELTA_REQUIRED);
	if (p->noise == JL_NOISE_LAPLACE && p->calibration == JL_CALIBRATION_PAPER &&
		p->neighbor == JL_NEIGHBOR_ROW && isnan(p->delta))
		jl_report_status(JL_ERR_DELTA_REQUIRED);
}

/* ------------------------------------------------------------------------
 * the state
 */

MemoryContext
jl_agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return aggcxt;
}

/* a state in mcxt with parameters p, the strings copied, room for cap pairs */
static JlAggState *
state_alloc(MemoryContext mcxt, const JlAggParams *p, const char *key,
			int64 cap)
{
	JlAggState *st = MemoryContextAllocZero(mcxt, sizeof(JlAggState));

	st->p = *p;
	st->p.key = MemoryContextStrdup(mcxt, key);
	st->cap = Max(cap, JL_AGG_INITIAL_PAIRS);
	st->pairs = MemoryContextAllocHuge(mcxt, mul_size(sizeof(JlSparsePair), (Size) st->cap));
	return st;
}

JlAggState *
jl_agg_state_create(MemoryContext mcxt, const JlAggParams *p, text *key)
{
	return state_alloc(mcxt, p, key ? text_to_cstring(key) : "default", 0);
}

static JlAggState *
state_copy(MemoryContext mcxt, const JlAggState *src)
{
	JlAggState *st = state_alloc(mcxt, &src->p, src->p.key, src->n);

	memcpy(st->pairs, src->pairs, sizeof(JlSparsePair) * src->n);
	st->n = src->n;
	st->ncompact = src->ncompact;
	return st;
}

/* The state's row has these parameters (strings from the arguments). */
void
jl_agg_state_check_params(const JlAggState *st, const JlAggParams *p,
						  text *key)
{
	const char *what = NULL;
	JlAggParams q = *p;

	/* compare the strings without copying them */
	q.key = st->p.key;
	if (!(key ? text_is_cstr(key, st->p.key) : strcmp(st->p.key, "default") == 0))
		what = "key";
	else
		what = jl_agg_params_differ(&st->p, &q);
	if (what != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the parameters of an aggregate release must be the same in every row of a group"),
				 errdetail("The %s differs between rows.", what)));
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
	state_compact(st);
	if (st->n + more > st->cap - st->cap / 4)
	{
		int64		cap = st->cap;

		while (st->n + more > cap - cap / 4)
			cap *= 2;
		st->pairs = repalloc_huge(st->pairs, mul_size(sizeof(JlSparsePair), (Size) cap));
		st->cap = cap;
	}
}

static void
check_attr_value(const JlAggState *st, int32 attr, double v)
{
	if (st->p.kind == JL_AGG_PROJECT && JL_KIND_IS_IDENTITY(st->p.proj) && attr > st->p.k)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attr must lie between 1 and k = %d for kind 'identity', not %d",
						st->p.k, attr),
				 errhint("With kind 'identity', k is the dimension d: attribute i is coordinate i.")));
	if (attr < 1 || (st->p.kind == JL_AGG_RELEASE && attr > st->p.d))
	{
		if (st->p.kind == JL_AGG_RELEASE)
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

void
jl_agg_state_add(JlAggState *st, int32 attr, double v)
{
	check_attr_value(st, attr, v);
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

const JlSparsePair *
jl_agg_state_pairs(const JlAggState *st, int64 *n)
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

void
jl_agg_state_pairs_free(const JlAggState *st, const JlSparsePair *pairs)
{
	if (pairs != st->pairs)
		pfree((void *) pairs);
}

/* ------------------------------------------------------------------------
 * combine
 */

JlAggState *
jl_agg_state_combine(MemoryContext aggcxt, JlAggState *s1, JlAggState *s2)
{
	const char *what;

	if (s2 == NULL)
		return s1;
	if (s1 == NULL)
		return state_copy(aggcxt, s2);	/* s2 may be short-lived */

	what = jl_agg_params_differ(&s1->p, &s2->p);
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
	return s1;
}

/* ------------------------------------------------------------------------
 * serialization: one flat bytea in the format of math/projection/agg_wire.h
 */

bytea *
jl_agg_state_serialize(JlAggState *st)
{
	JlAggWireHeader h;
	bytea	   *out;
	size_t		size;

	/* the state is not used after serialization; its value is unchanged */
	state_compact(st);

	memset(&h, 0, sizeof(h));
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

	size = jl_agg_wire_size(h.keylen, h.npairs);
	if (size == 0 || size > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("aggregate release state with %lld attributes is too large to pass between processes",
						(long long) st->n),
				 errhint("Disable parallel query for this statement (max_parallel_workers_per_gather = 0).")));
	out = palloc(VARHDRSZ + size);
	SET_VARSIZE(out, VARHDRSZ + size);
	jl_agg_wire_write(&h, st->p.key, st->pairs, (uint8 *) VARDATA(out));
	return out;
}

static void
malformed(const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("malformed aggregate release state"),
			 errdetail("%s", why)));
}

/*
 * The parameters in a serialized header, refused unless they are those of
 * a valid state.
 */
static void
header_params(const JlAggWireHeader *h, JlAggParams *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = h->kind;
	p->d = h->d;
	p->k = h->k;
	p->neighbor = h->neighbor;
	p->calibration = h->calibration;
	p->proj = h->proj;
	p->noise = h->noise;
	p->epsilon = h->epsilon;
	p->bound = h->bound;
	p->delta = h->delta;
	if (p->kind == JL_AGG_RELEASE)
	{
		if ((p->neighbor != JL_NEIGHBOR_ELEMENT && p->neighbor != JL_NEIGHBOR_ROW) ||
			(p->noise != JL_NOISE_LAPLACE && p->noise != JL_NOISE_GAUSSIAN) ||
			(p->noise == JL_NOISE_LAPLACE && p->calibration != JL_CALIBRATION_EXACT &&
			 p->calibration != JL_CALIBRATION_PAPER) ||
			(p->noise == JL_NOISE_GAUSSIAN && p->calibration != JL_CALIBRATION_ANALYTIC &&
			 p->calibration != JL_CALIBRATION_CLASSIC && p->calibration != JL_CALIBRATION_PAPER))
			malformed("Its parameters are invalid.");
		jl_agg_check_release_params(p);
	}
	else if (p->kind == JL_AGG_PROJECT)
	{
		if (p->d != 0)
			malformed("Its parameters are invalid.");
		jl_check_k(p->k);
	}
	else
		malformed("Its kind is unknown.");
	if (!jl_kind_ready(p->proj))
		malformed("Its projection kind is invalid.");
}

JlAggState *
jl_agg_state_deserialize(bytea *in)
{
	JlAggWireHeader h;
	const uint8 *key;
	const uint8 *pairs;
	const char *why;
	JlAggState *st;
	JlAggParams p;
	int32		max_attr = PG_INT32_MAX;

	why = jl_agg_wire_read((const uint8 *) VARDATA_ANY(in), VARSIZE_ANY_EXHDR(in),
						   &h, &key, &pairs);
	if (why != NULL)
		malformed(why);
	header_params(&h, &p);
	if (p.kind == JL_AGG_RELEASE)
		max_attr = Min(max_attr, p.d);
	if (JL_KIND_IS_IDENTITY(p.proj))
		max_attr = Min(max_attr, p.k);

	{
		char	   *name = pnstrdup((const char *) key, h.keylen);

		st = state_alloc(CurrentMemoryContext, &p, name, h.npairs);
		pfree(name);
	}
	why = jl_agg_wire_pairs(pairs, h.npairs, max_attr, st->pairs);
	if (why != NULL)
		malformed(why);
	st->n = st->ncompact = h.npairs;
	return st;
}
