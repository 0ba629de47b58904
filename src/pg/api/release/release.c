/*
 * release.c - jl_private_release, jl_release_info and jl_project.
 *
 * Since 0.5.0 the first two take their options as the aggregate does:
 * (x or d, epsilon, bound, neighbor jl_neighbor, mechanism jl_mechanism
 * built by jl_sketch, key); the symbols jl_private_release and
 * jl_release_info keep 0.4's ten arguments of option words for an install
 * script older than 0.5.0, and the _mechanism symbols take the new ones.
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
#include "miscadmin.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "nodes/primnodes.h"
#include "nodes/pg_list.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "math/projection/grid.h"
#include "math/noise/laplace.h"
#include "math/projection/release.h"

#include "pg/common/arrays.h"
#include "pg/common/calibration_json.h"
#include "pg/keys/keystore.h"
#include "pg/common/options.h"
#include "pg/keys/projection_cache.h"
#include "pg/keys/strong_random.h"
#include "pg/catalog/owner.h"
#include "pg/pipeline/mechanism.h"

PG_FUNCTION_INFO_V1(jl_private_release);
PG_FUNCTION_INFO_V1(jl_release_info);
PG_FUNCTION_INFO_V1(jl_private_release_mechanism);
PG_FUNCTION_INFO_V1(jl_project_mechanism);
PG_FUNCTION_INFO_V1(jl_release_info_mechanism);
PG_FUNCTION_INFO_V1(jl_project);

/* argument number of noise in 0.4's jl_private_release and jl_release_info */
#define NOISE_ARG 9
/* ... and of key, the last option, in the mechanism forms */
#define MECHANISM_KEY_ARG 5

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
	bool		k_is_d;			/* jl_sketch(k => NULL): k = d (identity) */
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
	Oid			key_user;		/* the role it was looked up for */
	uint64		key_generation; /* jl_key_generation before the lookup */
	CalSlot		cal[JL_CAL_SLOTS];	/* recent calibrations */
	int			cal_next;		/* slot to replace next */
	int			cal_last;		/* slot used last */
	MemoryContext mcxt;			/* fn_mcxt */
	bool		mechanism_form; /* (epsilon, bound, neighbor, mechanism, key) */
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
		st->key_generation != jl_key_generation || st->key_user != GetUserId() ||
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
		st->key_user = GetUserId();
	}
	return &st->key;
}

/*
 * Arguments 1..MECHANISM_KEY_ARG of the mechanism forms: epsilon, bound,
 * neighbor, mechanism (a jl_sketch, checked again here), key.
 */
static void
read_mechanism_options(FunctionCallInfo fcinfo, ReleaseOptions *o)
{
	JlMechanismSpec spec;

	jl_require_arg(fcinfo, 1, "epsilon");
	jl_require_arg(fcinfo, 2, "bound");
	jl_require_arg(fcinfo, 3, "neighbor");
	jl_require_arg(fcinfo, 4, "mechanism");
	jl_require_arg(fcinfo, MECHANISM_KEY_ARG, "key");
	jl_mechanism_read(PG_GETARG_DATUM(4), &spec);
	if (spec.kind != JL_MECHANISM_SKETCH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("jl_private_release releases sketches: its mechanism is a jl_sketch(...)"),
				 errhint("jl_sketch(k => 20), for example; the other mechanisms are released by jl_release over a protected table.")));
	memset(o, 0, sizeof(*o));
	o->noise = spec.sketch.noise;
	o->k_is_d = spec.sketch.k == 0;
	o->k = spec.sketch.k;
	o->epsilon = PG_GETARG_FLOAT8(1);
	o->bound = PG_GETARG_FLOAT8(2);
	o->neighbor = strcmp(DatumGetCString(DirectFunctionCall1(enum_out, PG_GETARG_DATUM(3))),
						 "row") == 0 ? JL_NEIGHBOR_ROW : JL_NEIGHBOR_ELEMENT;
	o->calibration = spec.sketch.calibration;
	o->delta = spec.sketch.delta;
	o->keyname = PG_GETARG_TEXT_PP(MECHANISM_KEY_ARG);
	o->kind = spec.sketch.kind;
}

/* Arguments 1..NOISE_ARG of 0.4's jl_private_release and jl_release_info. */
static void
read_text_options(FunctionCallInfo fcinfo, ReleaseOptions *o)
{
	o->k_is_d = false;
	StaticAssertStmt(NOISE_ARG == 9, "the names below end with noise");
	jl_require_named(fcinfo, "- k epsilon neighbor bound - - key kind noise");
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

	int			last = st->mechanism_form ? MECHANISM_KEY_ARG : NOISE_ARG;
	int			keyarg = st->mechanism_form ? MECHANISM_KEY_ARG : 7;

	if (!st->opts_checked)
	{
		st->opts_stable = true;
		for (i = 1; i <= last; i++)
			if (!arg_is_const(fcinfo->flinfo, i))
				st->opts_stable = false;
		st->opts_checked = true;
	}
	if (st->opts_stable && st->have_opts)
		return &st->opts;
	if (st->mechanism_form)
		read_mechanism_options(fcinfo, &st->opts);
	else
		read_text_options(fcinfo, &st->opts);
	if (st->opts_stable)
	{
		/* keep the key name beyond this row */
		st->opts.keyname = (text *) MemoryContextAlloc(fcinfo->flinfo->fn_mcxt,
													   VARSIZE_ANY(st->opts.keyname));
		memcpy(st->opts.keyname, PG_GETARG_TEXT_PP(keyarg), VARSIZE_ANY(PG_GETARG_TEXT_PP(keyarg)));
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

static Datum
private_release(FunctionCallInfo fcinfo, bool mechanism_form)
{
	CallState  *st = call_state(fcinfo);
	const ReleaseOptions *o;
	ReleaseOptions od;
	const JlKey *key;
	JlProjection *p;
	const JlMechanism *m;
	ArrayType  *result;
	double	   *x;
	int			d;
	JlStatus	s;

	st->mechanism_form = mechanism_form;
	jl_require_arg(fcinfo, 0, "x");
	jl_prefetch_next_row(PG_GETARG_DATUM(0));
	o = call_options(fcinfo, st);
	x = jl_array_vector(PG_GETARG_ARRAYTYPE_P(0), "x", &d);
	if (o->k_is_d)
	{
		od = *o;
		od.k = d;
		o = &od;
	}
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

/* 0.4's jl_private_release(x, k, epsilon, neighbor, bound, calibration, delta, key, kind, noise) */
Datum
jl_private_release(PG_FUNCTION_ARGS)
{
	return private_release(fcinfo, false);
}

/* jl_private_release(x, epsilon, bound, neighbor, mechanism, key) */
Datum
jl_private_release_mechanism(PG_FUNCTION_ARGS)
{
	return private_release(fcinfo, true);
}

static Datum
release_info(FunctionCallInfo fcinfo, bool mechanism_form)
{
	CallState  *st = call_state(fcinfo);
	ReleaseOptions o;
	const JlKey *key;
	JlProjection *p;
	const JlMechanism *m;
	StringInfoData b;
	int32		d;

	st->mechanism_form = mechanism_form;
	jl_require_arg(fcinfo, 0, "d");
	if (mechanism_form)
		read_mechanism_options(fcinfo, &o);
	else
		read_text_options(fcinfo, &o);
	d = PG_GETARG_INT32(0);
	if (d < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("d must be at least 1, not %d", d)));
	if (o.k_is_d)
		o.k = d;
	jl_check_identity_k(o.kind, o.k, d, "the argument d");
	key = call_key(fcinfo, st, o.keyname);
	p = jl_projection_get(key->secret, o.kind, o.k, d);
	m = calibrate(st, p, &o, false);

	initStringInfo(&b);
	jl_calibration_json(&b, JL_MECHANISM_PROJECTION, m, p->kind, key->fingerprint);
	appendStringInfoChar(&b, '}');

	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}

/* 0.4's jl_release_info(d, k, epsilon, neighbor, bound, calibration, delta, key, kind, noise) */
Datum
jl_release_info(PG_FUNCTION_ARGS)
{
	return release_info(fcinfo, false);
}

/* jl_release_info(d, epsilon, bound, neighbor, mechanism, key) */
Datum
jl_release_info_mechanism(PG_FUNCTION_ARGS)
{
	return release_info(fcinfo, true);
}

/* the projection's k and kind from a jl_sketch mechanism (k = 0: d) */
static void
read_projection_mechanism(Datum composite, ReleaseOptions *o)
{
	JlMechanismSpec spec;

	jl_mechanism_read(composite, &spec);
	if (spec.kind != JL_MECHANISM_SKETCH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("jl_project projects as a jl_sketch(...) mechanism would"),
				 errhint("jl_sketch(k => 20, kind => 'gaussian'), for example; its noise is not used.")));
	memset(o, 0, sizeof(*o));
	o->k = spec.sketch.k;
	o->k_is_d = spec.sketch.k == 0;
	o->kind = spec.sketch.kind;
}

/*
 * x P for both forms of jl_project: the mechanism (argument 1) of 0.5.0's
 * (x, mechanism, key), or 0.4's (x, k, key, kind text) k and kind word,
 * read once per call site when they are constants
 */
static Datum
project(FunctionCallInfo fcinfo, bool mechanism_form)
{
	CallState  *st = call_state(fcinfo);
	int			optarg = mechanism_form ? 1 : 3;
	const JlKey *key;
	JlProjection *p;
	ArrayType  *result;
	double	   *x;
	ReleaseOptions o;
	int			d;

	if (mechanism_form)
	{
		jl_require_arg(fcinfo, 0, "x");
		jl_require_arg(fcinfo, 1, "mechanism");
		jl_require_arg(fcinfo, 2, "key");
	}
	if (!st->opts_checked)
	{
		st->opts_stable = arg_is_const(fcinfo->flinfo, optarg);
		st->opts_checked = true;
	}
	if (st->opts_stable && st->have_opts)
		o = st->opts;
	else
	{
		if (mechanism_form)
			read_projection_mechanism(PG_GETARG_DATUM(1), &o);
		else
		{
			memset(&o, 0, sizeof(o));
			o.kind = jl_parse_kind(PG_GETARG_TEXT_PP(3));
		}
		st->opts = o;
		st->have_opts = st->opts_stable;
	}
	if (!mechanism_form)
	{
		o.k = PG_GETARG_INT32(1);
		jl_check_k(o.k);
	}
	jl_prefetch_next_row(PG_GETARG_DATUM(0));
	x = jl_array_vector(PG_GETARG_ARRAYTYPE_P(0), "x", &d);
	if (o.k_is_d)
		o.k = d;
	jl_check_identity_k(o.kind, o.k, d, "the length of x");
	key = call_key(fcinfo, st, PG_GETARG_TEXT_PP(2));
	p = jl_projection_get(key->secret, o.kind, o.k, d);
	result = jl_vector_array(NULL, o.k);
	jl_projection_apply(p, x, 1, (double *) ARR_DATA_PTR(result));
	PG_RETURN_ARRAYTYPE_P(result);
}

/* jl_project(x, mechanism, key): x P, P of the mechanism's k, kind and density */
Datum
jl_project_mechanism(PG_FUNCTION_ARGS)
{
	return project(fcinfo, true);
}

/* 0.4's jl_project(x, k, key, kind text) */
Datum
jl_project(PG_FUNCTION_ARGS)
{
	return project(fcinfo, false);
}
