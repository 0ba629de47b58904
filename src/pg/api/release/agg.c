/*
 * agg.c - the release of long-format data as an aggregate, an unbudgeted
 * primitive (a protected table's long-format release is jl_release over a
 * jl_long declaration; the cost of this one is booked with jl_budget_book):
 *
 *   jl_private_release_agg(attr, value, d, epsilon, bound, neighbor,
 *                          mechanism, key)
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
 * The state (agg_state.c) holds the (attr, value) pairs of a group, bounded
 * by its distinct attributes, never by d.  P is never materialized for
 * large d: the final function generates the rows of the attributes it needs,
 * and the sensitivities of P (a maximum over all d rows, or P^T P) are
 * streamed over the rows once per backend and cached.  For small d the dense
 * P of the per-backend cache is used instead (same rows, same statistics).
 *
 * Noise is drawn once per group, in the final function, which never changes
 * the state.  All groups of one call share their parameters and one
 * calibration.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"

#include <math.h>

#include "nodes/execnodes.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "math/projection/grid.h"
#include "math/noise/laplace.h"
#include "math/projection/release.h"
#include "math/projection/sparse.h"

#include "pg/engines/agg_state.h"
#include "pg/pipeline/mechanism.h"
#include "pg/common/arrays.h"
#include "pg/keys/keystore.h"
#include "pg/common/messages.h"
#include "pg/common/options.h"
#include "pg/keys/projection_cache.h"
#include "pg/keys/strong_random.h"
#include "pg/catalog/owner.h"

PG_FUNCTION_INFO_V1(jl_project_agg_trans);
PG_FUNCTION_INFO_V1(jl_private_release_agg_final);
PG_FUNCTION_INFO_V1(jl_project_agg_final);

/* dense P from the per-backend cache up to this size, rows on demand above */
#define JL_AGG_DENSE_MAX_BYTES ((double) 16 * 1024 * 1024)

/* ------------------------------------------------------------------------
 * transition functions
 */

/* ---- the arguments of a row ---- */

/*
 * The unbudgeted aggregate's arguments: 3 d, 4 epsilon, 5 bound,
 * 6 neighbor (jl_neighbor), 7 mechanism (a jl_sketch), 8 key.  The
 * mechanism is read once per call site and again only when its bytes
 * change.
 */
typedef struct MechanismCache
{
	Size		len;
	char	   *bytes;
	JlSketchSpec spec;
} MechanismCache;

static const JlSketchSpec *
cached_sketch(FunctionCallInfo fcinfo, Datum composite)
{
	MechanismCache *mc = fcinfo->flinfo->fn_extra;
	struct varlena *v = PG_DETOAST_DATUM_PACKED(composite);
	Size		len = VARSIZE_ANY(v);
	JlMechanismSpec spec;

	if (mc != NULL && mc->len == len && memcmp(mc->bytes, v, len) == 0)
		return &mc->spec;
	jl_mechanism_read(composite, &spec);
	if (spec.kind != JL_MECHANISM_SKETCH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("jl_private_release_agg releases sketches: its mechanism is a jl_sketch(...)"),
				 errhint("jl_sketch(k => 20), for example; the other mechanisms are released by jl_release over a protected table.")));
	if (mc == NULL)
		mc = fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(MechanismCache));
	else if (mc->bytes != NULL)
		pfree(mc->bytes);
	mc->bytes = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, len);
	memcpy(mc->bytes, v, len);
	mc->len = len;
	mc->spec = spec.sketch;
	return &mc->spec;
}

static void
read_unbudgeted_params(FunctionCallInfo fcinfo, JlAggParams *p, text **key)
{
	const JlSketchSpec *spec;

	jl_require_named(fcinfo, "- - - d epsilon bound neighbor mechanism key");
	memset(p, 0, sizeof(*p));
	p->kind = JL_AGG_RELEASE;
	p->d = PG_GETARG_INT32(3);
	p->epsilon = PG_GETARG_FLOAT8(4);
	p->bound = PG_GETARG_FLOAT8(5);
	p->neighbor = strcmp(DatumGetCString(DirectFunctionCall1(enum_out, PG_GETARG_DATUM(6))),
						 "row") == 0 ? JL_NEIGHBOR_ROW : JL_NEIGHBOR_ELEMENT;
	spec = cached_sketch(fcinfo, PG_GETARG_DATUM(7));
	p->k = spec->k > 0 ? spec->k : p->d;
	p->noise = spec->noise;
	p->calibration = spec->calibration;
	p->delta = spec->delta;
	p->proj = p->d >= 1 ? jl_kind_resolve(spec->kind, p->d) : spec->kind;
	*key = PG_GETARG_TEXT_PP(8);
}

/*
 * jl_project_agg(attr, value, mechanism, key) since 0.5.0: k and the kind
 * (with its density) of a jl_sketch mechanism, whose noise is not used
 */
static void
read_project_mechanism_params(FunctionCallInfo fcinfo, JlAggParams *p, text **key)
{
	const JlSketchSpec *spec;

	jl_require_arg(fcinfo, 3, "mechanism");
	jl_require_arg(fcinfo, 4, "key");
	memset(p, 0, sizeof(*p));
	p->kind = JL_AGG_PROJECT;
	spec = cached_sketch(fcinfo, PG_GETARG_DATUM(3));
	if (spec->k == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("jl_project_agg needs k"),
				 errdetail("Without k the identity's k is d, which jl_project_agg is not given."),
				 errhint("jl_sketch(k => 20), say.")));
	p->k = spec->k;
	p->delta = NAN;
	p->proj = spec->kind;
	*key = PG_GETARG_TEXT_PP(4);
}

static void
read_project_params(FunctionCallInfo fcinfo, JlAggParams *p, text **key)
{
	jl_require_arg(fcinfo, 3, "k");
	jl_require_arg(fcinfo, 4, "key");
	memset(p, 0, sizeof(*p));
	p->kind = JL_AGG_PROJECT;
	p->k = PG_GETARG_INT32(3);
	p->delta = NAN;
	p->proj = JL_KIND_RADEMACHER;
	*key = PG_GETARG_TEXT_PP(4);
	if (PG_NARGS() > 5)
	{
		jl_require_arg(fcinfo, 5, "kind");
		p->proj = jl_parse_kind(PG_GETARG_TEXT_PP(5));
	}
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

/* the row's (attr, value) added to the group's state, which is returned */
static Datum
trans_add_row(FunctionCallInfo fcinfo, JlAggState *st)
{
	int32		attr;
	double		v;

	if (read_attr_value(fcinfo, &attr, &v))
		jl_agg_state_add(st, attr, v);
	PG_RETURN_POINTER(st);
}

/*
 * jl_private_release_agg(attr, value, d, epsilon, bound, neighbor,
 * mechanism, key): the same release, unbudgeted (no dataset, no
 * reservation, no charge), as jl_private_release is per row.
 */
PG_FUNCTION_INFO_V1(jl_release_agg_trans);
Datum
jl_release_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = jl_agg_context(fcinfo, "jl_release_agg_trans");
	JlAggState *st = PG_ARGISNULL(0) ? NULL : (JlAggState *) PG_GETARG_POINTER(0);
	JlAggParams p;
	text	   *key;

	read_unbudgeted_params(fcinfo, &p, &key);
	if (st == NULL)
	{
		jl_agg_check_release_params(&p);
		st = jl_agg_state_create(aggcxt, &p, key);
	}
	else
		jl_agg_state_check_params(st, &p, key);
	return trans_add_row(fcinfo, st);
}

static Datum
project_agg_trans(FunctionCallInfo fcinfo, bool mechanism_form)
{
	MemoryContext aggcxt = jl_agg_context(fcinfo, "jl_project_agg_trans");
	JlAggState *st = PG_ARGISNULL(0) ? NULL : (JlAggState *) PG_GETARG_POINTER(0);
	JlAggParams p;
	text	   *key;

	if (mechanism_form)
		read_project_mechanism_params(fcinfo, &p, &key);
	else
		read_project_params(fcinfo, &p, &key);
	if (st == NULL)
	{
		jl_check_k(p.k);
		if (!jl_kind_ready(p.proj))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("kind 'sparse' needs a density here"),
					 errdetail("Its default density 1/sqrt(d) needs d, which jl_project_agg is not given."),
					 errhint("Give the density, e.g. jl_sketch(k => 20, kind => 'sparse', density => 0.01); "
							 "jl_release_info reports the density a release of dimension d uses.")));
		st = jl_agg_state_create(aggcxt, &p, key);
	}
	else
		jl_agg_state_check_params(st, &p, key);
	return trans_add_row(fcinfo, st);
}

/* 0.4's jl_project_agg(attr, value, k, key [, kind text]) */
Datum
jl_project_agg_trans(PG_FUNCTION_ARGS)
{
	return project_agg_trans(fcinfo, false);
}

/* jl_project_agg(attr, value, mechanism, key) */
PG_FUNCTION_INFO_V1(jl_project_agg_mechanism_trans);
Datum
jl_project_agg_mechanism_trans(PG_FUNCTION_ARGS)
{
	return project_agg_trans(fcinfo, true);
}

/* ------------------------------------------------------------------------
 * what a call site of a final function keeps between groups
 */

typedef struct FinalCache
{
	Oid			nsp;
	MemoryContext mcxt;
	bool		have_first;
	JlAggParams first;			/* parameters of the first group */
	char	   *keyname;		/* key cached below, or NULL */
	JlKey		key;
	uint64		key_generation; /* jl_key_generation before the lookup */
	Oid			key_user;		/* the role it was looked up for */
	bool		dense;			/* P from the per-backend cache */
	JlMechanism m;
	uint32	   *noise_table;
	int64		groups;
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
		fc->nsp = JL_CATALOG_NSP(fcinfo);
		fc->mcxt = fcinfo->flinfo->fn_mcxt;
		cb = MemoryContextAlloc(fc->mcxt, sizeof(*cb));
		cb->func = wipe_final_cache;
		cb->arg = fc;
		MemoryContextRegisterResetCallback(fc->mcxt, cb);
		fcinfo->flinfo->fn_extra = fc;
	}
	return fc;
}

/*
 * The key, looked up again whenever the key table may have changed.  The
 * groups after the first are calibrated on the first group's P: a key that
 * changed under a running release is refused, not mixed.
 */
static const JlKey *
final_key(FinalCache *fc, const char *name)
{
	if (fc->keyname == NULL || fc->key_generation != jl_key_generation ||
		fc->key_user != GetUserId() || strcmp(fc->keyname, name) != 0)
	{
		JlKey		fresh;

		if (fc->keyname != NULL)
			pfree(fc->keyname);
		fc->keyname = NULL;
		fc->key_generation = jl_key_generation;
		jl_key_lookup(fc->nsp, name, &fresh);
		if (fc->have_first &&
			memcmp(fresh.secret, fc->key.secret, JL_KEY_BYTES) != 0)
		{
			explicit_bzero(&fresh, sizeof(fresh));
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("key \"%s\" changed while an aggregate release was using it",
							jl_msg_str(name)),
					 errhint("Run the release again.")));
		}
		fc->key = fresh;
		explicit_bzero(&fresh, sizeof(fresh));
		fc->keyname = MemoryContextStrdup(fc->mcxt, name);
		fc->key_user = GetUserId();
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

static bool
use_dense(int64 d, int k)
{
	return (double) d * k * sizeof(double) <= JL_AGG_DENSE_MAX_BYTES;
}

/* ------------------------------------------------------------------------
 * one group's projection, shared by both final functions
 */

/*
 * fc->y = the pairs times the P of (key, p), values clamped to limit: with
 * compensated sums when asked, else through the nonzeros of proj (a cached
 * P of a sparse kind), else row by row (from proj's dense P, or generated
 * when proj is NULL).
 */
static void
project_pairs(FinalCache *fc, const JlKey *key, const JlAggParams *p,
			  JlProjection *proj, const JlSparsePair *pairs, int64 n,
			  double limit, bool compensated)
{
	const double *P = proj != NULL ? proj->P : NULL;

	if (compensated)
		jl_sparse_project_compensated(pairs, n, key->secret, p->proj, p->k, P,
									  fc->rowbuf, limit, fc->cbuf, fc->y);
	else if (proj != NULL && proj->has_csr)
		jl_csr_project_pairs(&proj->csr, pairs, n, limit, fc->y);
	else
		jl_sparse_project(pairs, n, key->secret, p->proj, p->k, P,
						  fc->rowbuf, limit, fc->y);
}

/* fc->y as the group's result; the pairs of jl_agg_state_pairs freed */
static ArrayType *
group_result(FinalCache *fc, const JlAggState *st, const JlSparsePair *pairs)
{
	ArrayType  *result = jl_vector_array(fc->y, st->p.k);

	jl_agg_state_pairs_free(st, pairs);
	return result;
}

/* ------------------------------------------------------------------------
 * final functions
 */

/*
 * The first group of a call: key, sensitivities and calibration, once per
 * call site.
 */
static void
final_first(FinalCache *fc, const JlAggState *st)
{
	const JlAggParams *p = &st->p;
	const JlKey *key;
	JlMechanism *m = &fc->m;

	fc->first = *p;
	fc->first.key = MemoryContextStrdup(fc->mcxt, p->key);
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
	jl_warn_saturation(m, JL_KIND_IS_IDENTITY(p->proj));
	fc->have_first = true;
}

/* A later group of the call: the first group's parameters, one charge. */
static void
final_next(FinalCache *fc, const JlAggState *st)
{
	const char *what = jl_agg_params_differ(&fc->first, &st->p);

	if (what != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("every group of one aggregate release must use the same parameters"),
				 errdetail("The %s differs from the first group's.", what),
				 errhint("One call releases every group under one calibration; use a separate statement for other parameters.")));
	if (++fc->groups == 1 && fc->noise_table == NULL &&
		jl_noise_table_entries(&fc->m) > 0)
	{
		/* a second group: the sampler's table pays off */
		fc->noise_table = MemoryContextAllocHuge(fc->mcxt,
												 sizeof(uint32) * jl_noise_table_entries(&fc->m));
		jl_noise_table_fill(&fc->m, fc->noise_table);
		fc->m.noise_table = fc->noise_table;
		fc->m.noise_table_full = true;
	}
}

/* each window frame would be released again, with fresh noise */
static void
refuse_window(FunctionCallInfo fcinfo)
{
	if (AggCheckCallContext(fcinfo, NULL) != AGG_CONTEXT_AGGREGATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("jl_private_release_agg cannot be used as a window function"),
				 errdetail("Each window frame would be released with fresh noise, spending epsilon again.")));
}

/* grouping sets release the same rows once per set */
static void
refuse_grouping_sets(FunctionCallInfo fcinfo)
{
	AggState   *aggstate = (AggState *) fcinfo->context;
	Agg		   *plan = (Agg *) aggstate->ss.ps.plan;

	if (list_length(plan->groupingSets) > 1 || plan->chain != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("jl_private_release_agg cannot be used with GROUPING SETS, ROLLUP or CUBE"),
				 errdetail("Every grouping set would release the same rows again, spending epsilon again."),
				 errhint("Release each grouping in a statement of its own.")));
}

Datum
jl_private_release_agg_final(PG_FUNCTION_ARGS)
{
	FinalCache *fc;
	const JlAggState *st;
	const JlSparsePair *pairs;
	const JlKey *key;
	JlProjection *proj = NULL;
	ArrayType  *result;
	int64		n;
	bool		compensated;

	refuse_window(fcinfo);
	fc = final_cache(fcinfo);
	if (!fc->have_first)
		refuse_grouping_sets(fcinfo);
	if (PG_ARGISNULL(0))
	{
		/* no rows at all: nothing released */
		PG_RETURN_NULL();
	}
	st = (const JlAggState *) PG_GETARG_POINTER(0);

	if (!fc->have_first)
		final_first(fc, st);
	else
		final_next(fc, st);

	/*
	 * As jl_release_row, never refusing a row (which would tell
	 * neighbours apart): values beyond input_limit are clamped, rows beyond
	 * the floating-point allowance are projected with compensated sums, and
	 * jl_noise_on_grid saturates the projection.
	 */
	key = final_key(fc, st->p.key);
	if (fc->dense)
		proj = jl_projection_get(key->secret, st->p.proj, st->p.k, st->p.d);
	pairs = jl_agg_state_pairs(st, &n);
	compensated = (jl_sparse_row_class(&fc->m, pairs, n) & JL_ROW_COMPENSATED) != 0;
	project_pairs(fc, key, &st->p, proj, pairs, n, fc->m.input_limit,
				  compensated);
	jl_report_status(jl_noise_on_grid(&fc->m, fc->y, jl_strong_random()));
	result = group_result(fc, st, pairs);
	PG_RETURN_ARRAYTYPE_P(result);
}

Datum
jl_project_agg_final(PG_FUNCTION_ARGS)
{
	FinalCache *fc;
	const JlAggState *st;
	const JlSparsePair *pairs;
	const JlKey *key;
	JlProjection *proj = NULL;
	int64		n;

	jl_agg_context(fcinfo, "jl_project_agg_final");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (const JlAggState *) PG_GETARG_POINTER(0);
	fc = final_cache(fcinfo);
	key = final_key(fc, st->p.key);
	final_buffers(fc, st->p.k);
	pairs = jl_agg_state_pairs(st, &n);

	/*
	 * Rows of P do not depend on d: when the largest attribute is small, the
	 * cached dense P of a power-of-two d covering it has the same rows.  The
	 * identity needs no P: each value goes to its own coordinate.
	 */
	if (n > 0 && !JL_KIND_IS_IDENTITY(st->p.proj))
	{
		int64		dd = 64;

		while (dd < pairs[n - 1].attr)
			dd *= 2;
		if (use_dense(dd, st->p.k))
			proj = jl_projection_get(key->secret, st->p.proj, st->p.k, dd);
	}
	project_pairs(fc, key, &st->p, proj, pairs, n, INFINITY, false);
	PG_RETURN_ARRAYTYPE_P(group_result(fc, st, pairs));
}
