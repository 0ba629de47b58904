/*
 * release.c - jl_release: a protected table released through the one
 * pipeline (docs/design-1.0.md), in this order:
 *
 *   1. check every argument (the mechanism as its constructor does);
 *   2. resolve and lock the declared relation, and check the declaration
 *      against the catalog (declaration.c);
 *   3. calibrate from the declaration and the realized projection: the
 *      sensitivity follows the declared attributes (or the row bound), no
 *      row is read, not even to learn d;
 *   4. reserve the target's name, then charge the protected table's
 *      ledger, durably, before any row is read;
 *   5. read the rows through the declaration (every attribute clamped and
 *      encoded by encode.c), project, noise and write them
 *      (table_releaser.c);
 *   6. record the release, with the guarantee that holds and what it does
 *      not protect.
 *
 * A mechanism supplies its checks (mechanism.c), its calibration and its
 * row arithmetic; nothing else of a release is written twice.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "math/attribute_sensitivity.h"
#include "math/calibrate.h"

#include "pg/budget.h"
#include "pg/calibration_json.h"
#include "pg/keystore.h"
#include "pg/messages.h"
#include "pg/options.h"
#include "pg/pipeline/declaration.h"
#include "pg/pipeline/mechanism.h"
#include "pg/projection_cache.h"
#include "pg/registry.h"
#include "pg/release_names.h"
#include "pg/source_relation.h"
#include "pg/table_releaser.h"

#define PROTECTED_ARG 0
#define TARGET_ARG 1
#define EPSILON_ARG 2
#define MECHANISM_ARG 3
#define KEY_ARG 4

typedef struct Pipeline
{
	Oid			nsp;
	char	   *target_name;
	double		epsilon;
	char	   *keyname;
	JlSketchSpec spec;
	JlDeclaration decl;
	JlKey		key;
	JlRowRelease rows;
	double		bound;			/* row neighbours: the L2 distance of two rows */
	Oid			target_nsp;
	char	   *target_rel;
	char	   *target_q;
	Oid			target;
	double		delta_charged;
	int64		ledger_id;
	int64		nrows;
} Pipeline;

/* 1. the arguments */
static void
read_arguments(FunctionCallInfo fcinfo, Pipeline *pl)
{
	/*
	 * The rows are read with a snapshot taken after the table is locked and
	 * its declaration checked: a transaction's older snapshot could hold
	 * rows that the checked constraints no longer allow (duplicates of a
	 * unit whose primary key came later).
	 */
	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("jl_release runs only at isolation level read committed"),
				 errdetail("It reads the rows with a snapshot taken after the table is locked and its declaration checked."),
				 errhint("SET TRANSACTION ISOLATION LEVEL READ COMMITTED, or call it outside a repeatable read transaction.")));
	pl->decl.relid = jl_regclass_arg(fcinfo, PROTECTED_ARG, "protected");
	jl_require_arg(fcinfo, TARGET_ARG, "target");
	pl->target_name = text_to_cstring(PG_GETARG_TEXT_PP(TARGET_ARG));
	jl_require_arg(fcinfo, EPSILON_ARG, "epsilon");
	pl->epsilon = PG_GETARG_FLOAT8(EPSILON_ARG);
	if (!(isfinite(pl->epsilon) && pl->epsilon > 0.0))
		jl_report_status(JL_ERR_EPSILON);
	if (PG_ARGISNULL(MECHANISM_ARG))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mechanism must not be NULL"),
				 errhint("mechanism => jl_sketch(k => 20), for example.")));
	jl_mechanism_read(PG_GETARG_DATUM(MECHANISM_ARG), &pl->spec);
	jl_require_arg(fcinfo, KEY_ARG, "key");
	pl->keyname = text_to_cstring(PG_GETARG_TEXT_PP(KEY_ARG));
}

/*
 * 3. The calibration.  Row neighbours: the L2 distance of two encoded rows
 * is at most the row clip's 2C and the declared box's diameter, times the
 * projection's statistic for rows.  Attribute neighbours: the largest move
 * of x P when one declared attribute changes within its encoding
 * (math/attribute_sensitivity.h), per unit bound.
 */
static void
calibrate(Pipeline *pl)
{
	JlDeclaration *decl = &pl->decl;
	JlMechanism *m = &pl->rows.m;
	JlProjection *p;

	pl->rows.kind = pl->spec.kind;
	pl->rows.k = pl->spec.k > 0 ? pl->spec.k : (int) decl->d;
	pl->rows.d = (int) decl->d;
	jl_check_identity_k(pl->spec.kind, pl->rows.k, decl->d, "the declared width d");
	memset(m, 0, sizeof(*m));
	m->noise = pl->spec.noise;
	m->calibration = pl->spec.calibration;
	m->delta = pl->spec.delta;
	m->epsilon = pl->epsilon;
	p = jl_projection_get(pl->key.secret, pl->rows.kind, pl->rows.k, decl->d);
	if (decl->row)
	{
		double		diam = jl_attribute_diameter(decl->spans, decl->nattrs, decl->d);

		if (diam < 0.0)
			elog(ERROR, "the declaration of %s has an invalid attribute span", decl->relation_q);
		pl->bound = isnan(decl->row_clip) ? diam : fmin(2.0 * decl->row_clip, diam);
		jl_require_scales(pl->epsilon, pl->bound);
		m->neighbor = JL_NEIGHBOR_ROW;
		m->bound = pl->bound;
		jl_calibrate_on(m, p);
	}
	else
	{
		JlProjStats st = p->stats;
		double		s = jl_attribute_sensitivity(p->P, decl->d, pl->rows.k, decl->spans,
												 decl->nattrs, m->noise == JL_NOISE_LAPLACE ? 1 : 2);

		CHECK_FOR_INTERRUPTS();
		if (s < 0.0)
			elog(ERROR, "the declaration of %s has an invalid attribute span", decl->relation_q);
		jl_require_scales(pl->epsilon, s);
		if (m->noise == JL_NOISE_LAPLACE)
			st.max_row_l1 = s;
		else
			st.max_row_l2 = s;
		m->neighbor = JL_NEIGHBOR_ELEMENT;
		m->bound = 1.0;
		pl->bound = NAN;
		jl_report_status(jl_calibrate_to(m, &st));
	}
	jl_refuse_invalid(m);
	jl_warn_saturation(m, JL_KIND_IS_IDENTITY(jl_kind_resolve(pl->rows.kind, decl->d)));
	pl->rows.precalibrated = true;
}

/* 4. the charge: the protected table's own ledger, before any row is read */
static void
charge_ledger(Pipeline *pl)
{
	pl->delta_charged = pl->spec.noise == JL_NOISE_GAUSSIAN ? pl->spec.delta : 0.0;
	pl->ledger_id = jl_budget_charge_declared(pl->nsp, pl->decl.dataset, pl->decl.relid,
											  pl->decl.unit, pl->epsilon, pl->delta_charged,
											  psprintf("jl_release into %s", pl->target_name));
}

/* 5. the target (unit, sketch), typed by the pipeline, owned by the caller */
static void
create_target(Pipeline *pl)
{
	if (SPI_execute(psprintf("CREATE TABLE %s (id %s, sketch pg_catalog.float8[])", pl->target_q,
							 format_type_extended(pl->decl.unit_type, -1, FORMAT_TYPE_FORCE_QUALIFY)),
					false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create the target table");
	pl->target = get_relname_relid(pl->target_rel, pl->target_nsp);
	if (!OidIsValid(pl->target))
		elog(ERROR, "created table %s not found", pl->target_q);
}

static void
read_rows(Pipeline *pl)
{
	JlRowRelease *r = &pl->rows;
	double		wmax = 0.0;
	int			i;

	for (i = 0; i < pl->decl.nattrs; i++)
		wmax = fmax(wmax, pl->decl.attrs[i].weight);
	r->key = &pl->key;
	r->fresh_snapshot = true;
	r->id_col = pl->decl.unit;
	r->id_type = pl->decl.unit_type;
	/* the encoding keeps every coordinate in [0, weight]; kept there again */
	if (pl->decl.row && !isnan(pl->decl.row_clip))
	{
		r->clip.kind = JL_CLIP_NORM;
		r->clip.c = pl->decl.row_clip;
	}
	else
	{
		r->clip.kind = JL_CLIP_ELEMENT;
		r->clip.lo = 0.0;
		r->clip.hi = wmax;
	}
	{
		/* the reader's operators and casts resolve in pg_catalog only */
		int			level = NewGUCNestLevel();

		(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
		pl->nrows = jl_release_rows(r, jl_declaration_row_sql(pl->nsp, &pl->decl), pl->target);
		AtEOXact_GUC(true, level);
	}
}

/* what holds, for whom, and what is not protected */
static char *
guarantee(const Pipeline *pl)
{
	const JlMechanism *m = &pl->rows.m;
	StringInfoData b;

	initStringInfo(&b);
	if (m->noise == JL_NOISE_LAPLACE)
		appendStringInfo(&b, "epsilon = %g differential privacy (Laplace noise; %.6g holds for this projection)",
						 pl->epsilon, m->epsilon_effective);
	else
		appendStringInfo(&b, "(epsilon = %g, delta = %g) differential privacy (Gaussian noise; delta %.3g holds)",
						 pl->epsilon, pl->delta_charged, m->delta_holding);
	appendStringInfo(&b, " for each unit (%s) of %s", pl->decl.unit, pl->decl.relation_q);
	if (pl->decl.row)
		appendStringInfo(&b, ", against a unit's row replaced by any other within the declared bounds (encoded rows at most %.6g apart)",
						 pl->bound);
	else
		appendStringInfoString(&b, ", against one declared attribute of one unit changed within its bounds");
	appendStringInfo(&b, "; charged to dataset %s. Not protected: which units exist and how many (%lld, one sketch each), released as they are.",
					 pl->decl.dataset, (long long) pl->nrows);
	return b.data;
}

/* 6. the registry */
static int64
record(Pipeline *pl, const char *guarantee_text)
{
	StringInfoData info,
				clipping;
	JlRegistryRecord rec;

	initStringInfo(&clipping);
	appendStringInfoString(&clipping, "declared: attributes clamped to their bounds and mapped to [0, weight]");
	if (pl->decl.row && !isnan(pl->decl.row_clip))
		appendStringInfo(&clipping, "; rows scaled to L2 norm <= %.17g", pl->decl.row_clip);
	initStringInfo(&info);
	jl_calibration_json(&info, JL_MECHANISM_PROJECTION, &pl->rows.m,
						jl_kind_resolve(pl->rows.kind, pl->decl.d), pl->key.fingerprint);
	appendStringInfo(&info, ", \"rows\": %lld, \"release\": \"jl_release\", \"mechanism\": \"sketch\", %s, \"guarantee\": ",
					 (long long) pl->nrows, jl_declaration_json(&pl->decl));
	escape_json(&info, guarantee_text);
	appendStringInfoChar(&info, '}');

	rec.source = pl->decl.relation_q;
	rec.target = pl->target;
	rec.id_column = pl->decl.unit;
	rec.vector = jl_declaration_describe(&pl->decl);
	rec.clipping = clipping.data;
	rec.key_fingerprint = pl->key.fingerprint;
	rec.info = info.data;
	rec.ledger_id = pl->ledger_id;
	rec.dataset = pl->decl.dataset;
	return jl_registry_write(pl->nsp, &rec);
}

/*
 * jl_release(protected regclass, target text, epsilon float8,
 *            mechanism jl_mechanism, key text, OUT release_id bigint,
 *            OUT released regclass, OUT epsilon_charged float8,
 *            OUT delta_charged float8, OUT noise_variance float8,
 *            OUT guarantee text)
 */
PG_FUNCTION_INFO_V1(jl_release);
Datum
jl_release(PG_FUNCTION_ARGS)
{
	Pipeline	pl;
	TupleDesc	td;
	Datum		out[6];
	bool		outnull[6] = {false, false, false, false, false, false};
	char	   *g;
	int64		release_id;
	MemoryContext caller = CurrentMemoryContext;

	memset(&pl, 0, sizeof(pl));
	pl.nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "jl_release must return a record");
	read_arguments(fcinfo, &pl);
	jl_declaration_load(pl.nsp, pl.decl.relid, &pl.decl);
	jl_key_lookup(pl.nsp, pl.keyname, &pl.key);
	calibrate(&pl);
	jl_resolve_target(pl.target_name, &pl.target_nsp, &pl.target_rel, &pl.target_q);
	if (pg_type_aclcheck(pl.decl.unit_type, GetUserId(), ACL_USAGE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for type %s, the type of unit \"%s\"",
						format_type_be(pl.decl.unit_type), jl_msg_str(pl.decl.unit)),
				 errdetail("The target's id column has the unit's type; checked before anything is charged.")));
	jl_check_target_creatable(pl.target_nsp, pl.target_rel);
	charge_ledger(&pl);

	SPI_connect();
	create_target(&pl);
	read_rows(&pl);
	g = MemoryContextStrdup(caller, guarantee(&pl));
	release_id = record(&pl, g);
	SPI_finish();
	explicit_bzero(&pl.key, sizeof(pl.key));

	td = BlessTupleDesc(td);
	out[0] = Int64GetDatum(release_id);
	out[1] = ObjectIdGetDatum(pl.target);
	out[2] = Float8GetDatum(pl.epsilon);
	out[3] = Float8GetDatum(pl.delta_charged);
	out[4] = Float8GetDatum(pl.rows.m.noise_variance);
	out[5] = CStringGetTextDatum(g);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, out, outnull)));
}
