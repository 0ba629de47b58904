/*
 * release.c - jl_private_release, jl_release_info and jl_project.
 *
 * Per call site (fn_extra) the key is looked up once per statement, the
 * options are parsed once when they are constants, and the last few
 * calibrations are kept with their sampler tables; P comes from the
 * per-backend cache.  Per row there is only the array check, one BLAS
 * matrix-vector product (for sparse kinds a product over the nonzeros of
 * P, for the identity a copy) and the noise.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "nodes/primnodes.h"
#include "nodes/pg_list.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "math/grid.h"
#include "math/laplace.h"
#include "math/release.h"

#include "pg/arrays.h"
#include "pg/calibration_json.h"
#include "pg/keystore.h"
#include "pg/options.h"
#include "pg/projection_cache.h"
#include "pg/strong_random.h"
#include "pg/owner.h"

PG_FUNCTION_INFO_V1(jl_private_release);
PG_FUNCTION_INFO_V1(jl_release_info);
PG_FUNCTION_INFO_V1(jl_project);

/* argument number of noise in jl_private_release and jl_release_info */
#define NOISE_ARG 9

typedef struct ReleaseOptions
{
	JlNoise		noise;
	int32		k;
	double		epsilon;
	JlNeighbor	neighbor;
	double		bound;
	JlCalibration calibration;
	double		delta;			/* NaN when NULL */
	text	   *keyname;
	JlKind		kind;			/* as parsed: 'sparse' resolved with d later */
} ReleaseOptions;

/* a calibration and its sampler table */
typedef struct CalSlot
{
	bool		used;
	JlMechanism	m;
	uint8		secret[JL_KEY_BYTES];
	JlKind		kind;			/* of the P it was calibrated on */
	uint32	   *noise_table;	/* or NULL */
} CalSlot;

#define JL_CAL_SLOTS 4

typedef struct CallState
{
	Oid			nsp;			/* schema of the extension */
	char	   *keyname;		/* key cached below, or NULL */
	JlKey		key;
	LocalTransactionId key_lxid;	/* transaction that looked it up */
	uint64		key_generation; /* jl_key_generation before the lookup */
	CalSlot		cal[JL_CAL_SLOTS];	/* recent calibrations */
	int			cal_next;		/* slot to replace next */
	int			cal_last;		/* slot used last */
	MemoryContext mcxt;			/* fn_mcxt */
	bool		opts_checked;	/* opts_stable has been determined */
	bool		opts_stable;	/* options are constants or parameters */
	bool		have_opts;
	ReleaseOptions opts;		/* parsed once when opts_stable */
	bool		saturation_checked; /* jl_warn_saturation once per call site */
} CallState;

/* when the call site's memory goes, the key copied into it goes first */
static void
wipe_call_state(void *arg)
{
	CallState  *st = (CallState *) arg;
	int			i;

	explicit_bzero(&st->key, sizeof(st->key));
	for (i = 0; i < JL_CAL_SLOTS; i++)
		explicit_bzero(st->cal[i].secret, JL_KEY_BYTES);
}

static CallState *
call_state(FunctionCallInfo fcinfo)
{
	CallState  *st = (CallState *) fcinfo->flinfo->fn_extra;

	if (st == NULL)
	{
		MemoryContextCallback *cb;

		st = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CallState));
		st->nsp = JL_CATALOG_NSP(fcinfo);
		st->mcxt = fcinfo->flinfo->fn_mcxt;
		cb = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(*cb));
		cb->func = wipe_call_state;
		cb->arg = st;
		MemoryContextRegisterResetCallback(fcinfo->flinfo->fn_mcxt, cb);
		fcinfo->flinfo->fn_extra = st;
	}
	return st;
}

/*
 * The key of this name, looked up once per call site and transaction, and
 * again whenever the key table may have changed (a call site can outlive a
 * statement, e.g. in PL/pgSQL; a key dropped and recreated meanwhile must
 * not be used stale).  Per row: two integer compares.
 */
static const JlKey *
call_key(FunctionCallInfo fcinfo, CallState *st, text *name)
{
	size_t		n = VARSIZE_ANY_EXHDR(name);

	if (st->keyname == NULL || st->key_lxid != MyProc->lxid ||
		st->key_generation != jl_key_generation ||
		strlen(st->keyname) != n ||
		memcmp(st->keyname, VARDATA_ANY(name), n) != 0)
	{
		char	   *s = text_to_cstring(name);

		if (st->keyname != NULL)
			pfree(st->keyname);
		st->keyname = NULL;
		st->key_generation = jl_key_generation;
		jl_key_lookup(st->nsp, s, &st->key);
		st->keyname = MemoryContextStrdup(fcinfo->flinfo->fn_mcxt, s);
		st->key_lxid = MyProc->lxid;
	}
	return &st->key;
}

/* Arguments 1..NOISE_ARG of jl_private_release and jl_release_info. */
static void
read_options(FunctionCallInfo fcinfo, ReleaseOptions *o)
{
	jl_require_arg(fcinfo, 1, "k");
	jl_require_arg(fcinfo, 2, "epsilon");
	jl_require_arg(fcinfo, 3, "neighbor");
	jl_require_arg(fcinfo, 4, "bound");
	jl_require_arg(fcinfo, 7, "key");
	jl_require_arg(fcinfo, 8, "kind");
	jl_require_arg(fcinfo, NOISE_ARG, "noise");
	o->noise = jl_parse_noise(PG_GETARG_TEXT_PP(NOISE_ARG));
	o->k = PG_GETARG_INT32(1);
	jl_check_k(o->k);
	o->epsilon = PG_GETARG_FLOAT8(2);
	o->neighbor = jl_parse_neighbor(PG_GETARG_TEXT_PP(3));
	o->bound = PG_GETARG_FLOAT8(4);
	jl_read_calibration(fcinfo, 5, 6, o->noise, &o->calibration, &o->delta);
	o->keyname = PG_GETARG_TEXT_PP(7);
	o->kind = jl_parse_kind(PG_GETARG_TEXT_PP(8));
}

/*
 * True if argument argnum of this call is a Const in the call's expression.
 * (Not get_fn_expr_arg_stable: a PARAM_EXTERN is "stable" but PL/pgSQL
 * evaluates one expression with changing parameter values.)
 */
static bool
arg_is_const(FmgrInfo *flinfo, int argnum)
{
	Node	   *expr = flinfo->fn_expr;
	List	   *args;

	if (expr == NULL || !IsA(expr, FuncExpr))
		return false;
	args = ((FuncExpr *) expr)->args;
	return argnum < list_length(args) && IsA(list_nth(args, argnum), Const);
}

/*
 * The options of this call: parsed once per call site when they are all
 * constants in the query (the usual case), otherwise on every call.
 */
static const ReleaseOptions *
call_options(FunctionCallInfo fcinfo, CallState *st)
{
	int			i;

	if (!st->opts_checked)
	{
		st->opts_stable = true;
		for (i = 1; i <= NOISE_ARG; i++)
			if (!arg_is_const(fcinfo->flinfo, i))
				st->opts_stable = false;
		st->opts_checked = true;
	}
	if (st->opts_stable && st->have_opts)
		return &st->opts;
	read_options(fcinfo, &st->opts);
	if (st->opts_stable)
	{
		/* keep the key name beyond this row */
		st->opts.keyname = (text *) MemoryContextAlloc(fcinfo->flinfo->fn_mcxt,
													   VARSIZE_ANY(st->opts.keyname));
		memcpy(st->opts.keyname, PG_GETARG_TEXT_PP(7), VARSIZE_ANY(PG_GETARG_TEXT_PP(7)));
		st->have_opts = true;
	}
	return &st->opts;
}

static bool
same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* The calibration for these options on this P, reusing the last one. */
static bool
same_calibration(const CalSlot *c, const JlProjection *p,
				 const ReleaseOptions *o)
{
	const JlMechanism *m = &c->m;

	return c->used && m->noise == o->noise && m->d == p->d && m->k == o->k &&
		same_double(m->epsilon, o->epsilon) && m->neighbor == o->neighbor &&
		same_double(m->bound, o->bound) && m->calibration == o->calibration &&
		same_double(m->delta, o->delta) && c->kind == p->kind &&
		memcmp(c->secret, p->secret, JL_KEY_BYTES) == 0;
}

/*
 * The calibration for these options on this P.  A call site keeps the last
 * few (options may come from columns and alternate); the sampler's table is
 * built when a calibration is used a second time, so that options changing
 * on every row do not pay for a table per row.
 */
static const JlMechanism *
calibrate(CallState *st, JlProjection *p, const ReleaseOptions *o,
		  bool sampling)
{
	CalSlot    *c = NULL;
	int			i;

	if (same_calibration(&st->cal[st->cal_last], p, o))
		c = &st->cal[st->cal_last];
	else
		for (i = 0; i < JL_CAL_SLOTS; i++)
			if (same_calibration(&st->cal[i], p, o))
				c = &st->cal[i];

	if (c == NULL)
	{
		JlMechanism  *m;

		c = &st->cal[st->cal_next];
		st->cal_next = (st->cal_next + 1) % JL_CAL_SLOTS;
		st->cal_last = c - st->cal;
		if (c->noise_table != NULL)
			pfree(c->noise_table);
		memset(c, 0, sizeof(*c));
		m = &c->m;
		m->noise = o->noise;
		m->epsilon = o->epsilon;
		m->neighbor = o->neighbor;
		m->bound = o->bound;
		m->calibration = o->calibration;
		m->delta = o->delta;
		jl_calibrate_on(m, p);
		memcpy(c->secret, p->secret, JL_KEY_BYTES);
		c->kind = p->kind;
		c->used = true;
	}
	else if (sampling && c->noise_table == NULL &&
			 jl_noise_table_entries(&c->m) > 0)
	{
		/* second use: the exp(-u/t) bounds for the sampler pay off */
		c->noise_table = MemoryContextAllocHuge(st->mcxt,
												sizeof(uint32) * jl_noise_table_entries(&c->m));
		jl_noise_table_fill(&c->m, c->noise_table);
		c->m.noise_table = c->noise_table;
		c->m.noise_table_full = true;
	}
	st->cal_last = c - st->cal;
	return &c->m;
}

Datum
jl_private_release(PG_FUNCTION_ARGS)
{
	CallState  *st = call_state(fcinfo);
	const ReleaseOptions *o;
	const JlKey *key;
	JlProjection *p;
	const JlMechanism *m;
	ArrayType  *result;
	double	   *x;
	int			d;
	JlStatus	s;

	jl_require_arg(fcinfo, 0, "x");
	jl_prefetch_next_row(PG_GETARG_DATUM(0));
	o = call_options(fcinfo, st);
	x = jl_array_vector(PG_GETARG_ARRAYTYPE_P(0), "x", &d);
	jl_check_identity_k(o->kind, o->k, d, "the length of x");
	key = call_key(fcinfo, st, o->keyname);
	p = jl_projection_get(key->secret, o->kind, o->k, d);
	m = calibrate(st, p, o, true);
	jl_refuse_invalid(m);
	if (!st->saturation_checked)
	{
		st->saturation_checked = true;
		jl_warn_saturation(m, JL_KIND_IS_IDENTITY(p->kind));
	}

	/* release straight into the result array */
	result = jl_vector_array(NULL, o->k);
	if (p->has_csr)
		s = jl_release_row_csr(m, &p->csr, p->P, x,
									   (double *) ARR_DATA_PTR(result),
									   jl_strong_random());
	else
		s = jl_release_row(m, p->P, x, (double *) ARR_DATA_PTR(result),
								   jl_strong_random());
	jl_report_status(s);
	PG_RETURN_ARRAYTYPE_P(result);
}

Datum
jl_release_info(PG_FUNCTION_ARGS)
{
	CallState  *st = call_state(fcinfo);
	ReleaseOptions o;
	const JlKey *key;
	JlProjection *p;
	const JlMechanism *m;
	StringInfoData b;
	int32		d;

	jl_require_arg(fcinfo, 0, "d");
	read_options(fcinfo, &o);
	d = PG_GETARG_INT32(0);
	if (d < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("d must be at least 1, not %d", d)));
	jl_check_identity_k(o.kind, o.k, d, "the argument d");
	key = call_key(fcinfo, st, o.keyname);
	p = jl_projection_get(key->secret, o.kind, o.k, d);
	m = calibrate(st, p, &o, false);

	initStringInfo(&b);
	jl_calibration_json(&b, JL_MECHANISM_PROJECTION, m, p->kind, key->fingerprint);
	appendStringInfoChar(&b, '}');

	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}

Datum
jl_project(PG_FUNCTION_ARGS)
{
	CallState  *st = call_state(fcinfo);
	const JlKey *key;
	JlProjection *p;
	ArrayType  *result;
	double	   *x;
	int32		k = PG_GETARG_INT32(1);
	JlKind		kind;
	int			d;

	/* the kind word is parsed once per call site when it is a constant */
	if (!st->opts_checked)
	{
		st->opts_stable = arg_is_const(fcinfo->flinfo, 3);
		st->opts_checked = true;
	}
	if (st->opts_stable && st->have_opts)
		kind = st->opts.kind;
	else
	{
		kind = jl_parse_kind(PG_GETARG_TEXT_PP(3));
		st->opts.kind = kind;
		st->have_opts = st->opts_stable;
	}
	jl_check_k(k);
	jl_prefetch_next_row(PG_GETARG_DATUM(0));
	x = jl_array_vector(PG_GETARG_ARRAYTYPE_P(0), "x", &d);
	jl_check_identity_k(kind, k, d, "the length of x");
	key = call_key(fcinfo, st, PG_GETARG_TEXT_PP(2));
	p = jl_projection_get(key->secret, kind, k, d);
	result = jl_vector_array(NULL, k);
	jl_projection_apply(p, x, 1, (double *) ARR_DATA_PTR(result));
	PG_RETURN_ARRAYTYPE_P(result);
}
