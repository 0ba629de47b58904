/*
 * release.c - jl_release: a protected table released through the one
 * pipeline (docs/design-1.0.md), in this order, for every mechanism:
 *
 *   1. check every argument (the mechanism as its constructor does);
 *   2. resolve and lock the declared relation, and check the declaration
 *      against the catalog (declaration.c);
 *   3. the mechanism's calibration, from the declaration and public inputs
 *      only: no row is read, not even to learn d;
 *   4. reserve the target's name, then charge the protected table's
 *      ledger, durably, before any row is read;
 *   5. the mechanism's arithmetic on the rows the one reader gives
 *      (declaration.c's query, every attribute clamped and encoded by
 *      encode.c), read with a snapshot taken now and names resolved in
 *      pg_catalog;
 *   6. record the release, with the guarantee that holds and what it does
 *      not protect.
 *
 * A mechanism (pipeline.h: sketch.c, covariance.c, graph.c, dist2.c) supplies its checks
 * (mechanism.c), its calibration, its arithmetic and its record; nothing
 * else of a release is written twice.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "funcapi.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "pg/budget.h"
#include "pg/messages.h"
#include "pg/options.h"
#include "pg/pipeline/pipeline.h"
#include "pg/release_names.h"
#include "pg/source_relation.h"
#include "pg/owner.h"

#define PROTECTED_ARG 0
#define TARGET_ARG 1
#define EPSILON_ARG 2
#define MECHANISM_ARG 3
#define KEY_ARG 4

char *
jl_pipeline_rows_sql(const JlPipeline *pl)
{
	return jl_declaration_row_sql(pl->nsp, &pl->decl);
}

void
jl_pipeline_not_protected(StringInfo b, const JlPipeline *pl)
{
	appendStringInfo(b, "; charged to dataset %s. Not protected: which units exist and how many (%lld, each read once%s), released as they are.",
					 pl->decl.dataset, (long long) pl->nrows,
					 pl->part ? ", only those within this shard's partition bounds" : "");
}

static const JlMechanismOps *
ops_of(const JlPipeline *pl)
{
	switch (pl->spec.kind)
	{
		case JL_MECHANISM_COVARIANCE:
			return &jl_covariance_ops;
		case JL_MECHANISM_GRAPH:
			return &jl_graph_ops;
		case JL_MECHANISM_ADVISED:
			return &jl_advised_ops;
		default:
			return &jl_sketch_ops;
	}
}

/*
 * A unit's value as the part reads it: parsed by its type's input function
 * and written again by its output function, both under
 * jl_fixed_text_settings (the caller has set them): the canonical text,
 * which the part records and the coordinator compares with its bounds.
 */
static char *
unit_canonical(const JlPipeline *pl, const char *value)
{
	Oid			typinput,
				typioparam,
				typoutput;
	bool		varlena;
	Datum		d;

	getTypeInputInfo(pl->decl.unit_type, &typinput, &typioparam);
	getTypeOutputInfo(pl->decl.unit_type, &typoutput, &varlena);
	d = OidInputFunctionCall(typinput, (char *) value, typioparam, -1);
	return OidOutputFunctionCall(typoutput, d);
}

static char *
unit_literal(const JlPipeline *pl, const char *canonical)
{
	return psprintf("%s::%s", quote_literal_cstr(canonical), format_type_be_qualified(pl->decl.unit_type));
}

/*
 * A shard's part reads only the units within its partition's bounds: a
 * unit held by two shards is read by the one whose partition holds it.
 * The units are public (what a release does not protect), so the
 * condition tells nothing.  Checked before the charge.  The unit's type
 * is one whose text is read alike in every session (jl_shard_unit_type;
 * dates are written ISO, which every DateStyle reads).
 */
static void
part_filter(JlPipeline *pl)
{
	const char *u = quote_identifier(pl->decl.unit);
	StringInfoData b;
	int			level;

	if (!jl_shard_unit_type(pl->decl.unit_type))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the unit \"%s\" of %s is of type %s: a shard's unit is smallint, integer, bigint, numeric, uuid or date",
						jl_msg_str(pl->decl.unit), pl->decl.relation_q, format_type_be(pl->decl.unit_type))));
	level = jl_fixed_text_settings();
	if (pl->part_lower)
		pl->part_lower = unit_canonical(pl, pl->part_lower);
	if (pl->part_upper)
		pl->part_upper = unit_canonical(pl, pl->part_upper);
	for (int i = 0; i < pl->part_nmembers; i++)
		pl->part_members[i] = unit_canonical(pl, pl->part_members[i]);
	jl_restore_settings(level);

	initStringInfo(&b);
	if (pl->part_nmembers >= 0)
	{
		appendStringInfo(&b, "%s OPERATOR(pg_catalog.=) ANY (ARRAY[", u);
		for (int i = 0; i < pl->part_nmembers; i++)
			appendStringInfo(&b, "%s%s", i ? ", " : "", unit_literal(pl, pl->part_members[i]));
		appendStringInfoString(&b, "])");
	}
	else
	{
		appendStringInfo(&b, "%s IS NOT NULL", u);
		if (pl->part_lower)
			appendStringInfo(&b, " AND %s OPERATOR(pg_catalog.>=) %s", u, unit_literal(pl, pl->part_lower));
		if (pl->part_upper)
			appendStringInfo(&b, " AND %s OPERATOR(pg_catalog.<) %s", u, unit_literal(pl, pl->part_upper));
	}
	pl->decl.unit_filter = b.data;
}

char *
jl_pipeline_part_json(const JlPipeline *pl)
{
	StringInfoData b;

	if (!pl->part)
		return NULL;
	initStringInfo(&b);
	appendStringInfoString(&b, "\"part\": {\"lower\": ");
	if (pl->part_lower)
		escape_json(&b, pl->part_lower);
	else
		appendStringInfoString(&b, "null");
	appendStringInfoString(&b, ", \"upper\": ");
	if (pl->part_upper)
		escape_json(&b, pl->part_upper);
	else
		appendStringInfoString(&b, "null");
	appendStringInfoString(&b, ", \"in\": ");
	if (pl->part_nmembers < 0)
		appendStringInfoString(&b, "null");
	else
	{
		appendStringInfoChar(&b, '[');
		for (int i = 0; i < pl->part_nmembers; i++)
		{
			if (i)
				appendStringInfoString(&b, ", ");
			escape_json(&b, pl->part_members[i]);
		}
		appendStringInfoChar(&b, ']');
	}
	appendStringInfoChar(&b, '}');
	return b.data;
}

/* an edge table is released with jl_graph, and jl_graph releases only one */
static void
check_shape(const JlPipeline *pl, const JlMechanismOps *ops)
{
	if (pl->decl.edges && ops != &jl_graph_ops)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s is declared as edges (jl_edge): it is released with jl_graph",
						pl->decl.relation_q),
				 errhint("mechanism => jl_graph(r => 100, delta => 1e-6).")));
	if (pl->decl.sharded)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s is sharded: its rows are released where they live", pl->decl.relation_q),
				 errhint("CALL jl_release_distributed(%s, target, epsilon, jl_sketch(...)).",
						 quote_literal_cstr(pl->decl.relation_q))));
	if (pl->part && (ops != &jl_sketch_ops || pl->decl.long_format))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a distributed release is made with jl_sketch over wide rows"),
				 errdetail("Its shards release disjoint units, each a sketch of its own: the parts compose in parallel.")));
	if (!pl->decl.edges && ops == &jl_graph_ops)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("jl_graph releases a table declared as edges, and %s is not",
						pl->decl.relation_q),
				 errhint("Declare the edge table with attributes => ARRAY[jl_edge('u', 'v', vertices => <n>)].")));
}

/* 1. the arguments */
/*
 * The rows are read with a snapshot taken after the table is locked and its
 * declaration checked: a transaction's older snapshot could hold rows that
 * the checked constraints no longer allow (duplicates of a unit whose
 * primary key came later).  Checked first, by every entry point.
 */
static void
require_read_committed(const char *who)
{
	/* a release writes its ledger mark, its target and its record */
	if (XactReadOnly)
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("%s cannot run in a read-only transaction", who),
				 errdetail("Its charge is committed at once, and what it writes afterwards would fail."),
				 errhint("Call it in a read-write transaction (on a primary, not a standby).")));
	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("%s runs only at isolation level read committed", who),
				 errdetail("It reads the rows with a snapshot taken after the table is locked and its declaration checked."),
				 errhint("SET TRANSACTION ISOLATION LEVEL READ COMMITTED, or call it outside a repeatable read transaction.")));
}

static void
read_arguments(FunctionCallInfo fcinfo, JlPipeline *pl)
{
	require_read_committed("jl_release");
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

/* 4. the target's name (if the mechanism writes one) and the charge: before any row is read */
static void
charge_once(JlPipeline *pl, const JlMechanismOps *ops)
{
	if (ops->writes_target)
	{
		jl_resolve_target(pl->target_name, &pl->target_nsp, &pl->target_rel, &pl->target_q);
		if (ops->target_has_unit &&
			pg_type_aclcheck(pl->decl.unit_type, GetUserId(), ACL_USAGE) != ACLCHECK_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for type %s, the type of unit \"%s\"",
							format_type_be(pl->decl.unit_type), jl_msg_str(pl->decl.unit)),
					 errdetail("The target's id column has the unit's type; checked before anything is charged.")));
		jl_check_target_creatable(pl->target_nsp, pl->target_rel);
	}
	pl->ledger_id = jl_budget_charge_declared(pl->nsp, pl->decl.dataset, pl->decl.relid,
											  pl->decl.unit, pl->epsilon, pl->delta_charged,
											  ops->writes_target ?
											  psprintf("jl_release into %s", pl->target_name) :
											  psprintf("jl_release_dist2 (declared) of %s", pl->decl.relation_q));
}

/* 5. the rows, with names resolved in pg_catalog only */
static void
write_rows(JlPipeline *pl, const JlMechanismOps *ops)
{
	int			level = NewGUCNestLevel();

	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	ops->write(pl);
	AtEOXact_GUC(true, level);
}

/*
 * Steps 2 to 6 for the arguments read into pl; returns the guarantee (in
 * the caller's memory) and sets *release_id.
 */
/* steps 2 and 3: everything before the charge */
static void
prepare_pipeline(JlPipeline *pl, const JlMechanismOps *ops)
{
	jl_declaration_load(pl->nsp, pl->decl.relid, &pl->decl);
	/* before the calibration, whose refusals would tell d to anyone */
	jl_budget_check_spender(pl->nsp, pl->decl.dataset);
	check_shape(pl, ops);
	if (pl->part)
		part_filter(pl);
	if (ops->needs_key)
		jl_key_lookup(pl->nsp, pl->keyname, &pl->key);
	ops->calibrate(pl);
}

static char *
run_pipeline(JlPipeline *pl, const JlMechanismOps *ops, int64 *release_id)
{
	MemoryContext caller = CurrentMemoryContext;
	char	   *g;

	prepare_pipeline(pl, ops);
	charge_once(pl, ops);

	SPI_connect();
	write_rows(pl, ops);
	g = ops->guarantee(pl);
	*release_id = ops->record(pl, g);
	g = MemoryContextStrdup(caller, g);
	SPI_finish();
	explicit_bzero(&pl->key, sizeof(pl->key));
	return g;
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
	JlPipeline	pl;
	TupleDesc	td;
	Datum		out[6];
	bool		outnull[6] = {false, false, false, false, false, false};
	char	   *g;
	int64		release_id;

	memset(&pl, 0, sizeof(pl));
	pl.nsp = JL_CATALOG_NSP(fcinfo);
	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "jl_release must return a record");
	read_arguments(fcinfo, &pl);
	g = run_pipeline(&pl, ops_of(&pl), &release_id);

	td = BlessTupleDesc(td);
	out[0] = Int64GetDatum(release_id);
	out[1] = ObjectIdGetDatum(pl.target);
	out[2] = Float8GetDatum(pl.epsilon);
	out[3] = Float8GetDatum(pl.delta_charged);
	out[4] = Float8GetDatum(pl.noise_variance);
	outnull[4] = isnan(pl.noise_variance);
	out[5] = CStringGetTextDatum(g);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, out, outnull)));
}

/* jl_release_part's and jl_release_part_check's arguments */
static void
read_part_arguments(FunctionCallInfo fcinfo, JlPipeline *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->nsp = JL_CATALOG_NSP(fcinfo);
	read_arguments(fcinfo, pl);
	pl->part = true;
	pl->part_lower = PG_ARGISNULL(5) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(5));
	pl->part_upper = PG_ARGISNULL(6) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(6));
	pl->part_nmembers = -1;
	if (!PG_ARGISNULL(7))
	{
		ArrayType  *a = PG_GETARG_ARRAYTYPE_P(7);
		Datum	   *elems;
		bool	   *nulls;

		if (ARR_NDIM(a) > 1)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("unit_in must be a one-dimensional array")));
		deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &pl->part_nmembers);
		pl->part_members = palloc(sizeof(char *) * Max(pl->part_nmembers, 1));
		for (int i = 0; i < pl->part_nmembers; i++)
		{
			if (nulls[i])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("unit_in must not hold NULLs")));
			pl->part_members[i] = TextDatumGetCString(elems[i]);
		}
	}
	if ((pl->part_nmembers >= 0) == (pl->part_lower != NULL || pl->part_upper != NULL) ||
		pl->part_nmembers == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a part reads a range of units (unit_lower, unit_upper) or a list (unit_in), one of them")));
}

/*
 * jl_release_part(protected regclass, target text, epsilon float8,
 *                 mechanism jl_mechanism, key text, unit_lower text,
 *                 unit_upper text, unit_in text[]) RETURNS bigint: a
 * shard's part of a distributed release (jl_release_distributed runs it
 * on each shard, in a transaction it then prepares): jl_release of the
 * units within the coordinator's partition bounds (a range, either end
 * NULL for unbounded, or a list).  The registry id.
 */
PG_FUNCTION_INFO_V1(jl_release_part);
Datum
jl_release_part(PG_FUNCTION_ARGS)
{
	JlPipeline	pl;
	int64		release_id;

	read_part_arguments(fcinfo, &pl);
	(void) run_pipeline(&pl, ops_of(&pl), &release_id);
	PG_RETURN_INT64(release_id);
}

/*
 * jl_release_part_check(the arguments of jl_release_part) RETURNS void:
 * every refusal jl_release_part would make before reading a row (the
 * arguments, the declaration, the spender, the bounds, the key, the
 * calibration, and the charge: its cap, made in a subtransaction and
 * rolled back), made without charging.  jl_release_distributed asks every
 * shard before the coordinator is charged, in the transaction its part
 * then runs in.
 */
PG_FUNCTION_INFO_V1(jl_release_part_check);
Datum
jl_release_part_check(PG_FUNCTION_ARGS)
{
	JlPipeline	pl;
	const JlMechanismOps *ops;

	read_part_arguments(fcinfo, &pl);
	ops = ops_of(&pl);
	prepare_pipeline(&pl, ops);
	jl_budget_trial_charge_declared(pl.nsp, pl.decl.dataset, pl.decl.relid, pl.decl.unit,
									pl.epsilon, pl.delta_charged);
	explicit_bzero(&pl.key, sizeof(pl.key));
	PG_RETURN_VOID();
}

/*
 * jl_budget_book(protected regclass, epsilon float8, delta float8,
 *                note text) RETURNS bigint: the cost of an unbudgeted
 * primitive's release (jl_private_release, its aggregate, jl_project) of
 * a protected table's rows, charged to its ledger at once, as every
 * release is: durable, within the caps, by a role that may spend.  The
 * ledger row's id.  What the primitive then reads is the curator's to
 * keep to the declaration: nothing here sees it.
 */
PG_FUNCTION_INFO_V1(jl_budget_book);
Datum
jl_budget_book(PG_FUNCTION_ARGS)
{
	JlPipeline	pl;
	double		delta;
	char	   *note;

	memset(&pl, 0, sizeof(pl));
	pl.nsp = JL_CATALOG_NSP(fcinfo);
	pl.decl.relid = jl_regclass_arg(fcinfo, 0, "protected");
	jl_require_arg(fcinfo, 1, "epsilon");
	pl.epsilon = PG_GETARG_FLOAT8(1);
	if (!(isfinite(pl.epsilon) && pl.epsilon > 0.0))
		jl_report_status(JL_ERR_EPSILON);
	jl_require_arg(fcinfo, 2, "delta");
	delta = PG_GETARG_FLOAT8(2);
	if (!(delta >= 0.0 && delta < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must be in [0, 1), not %g", delta),
				 errhint("0 for a pure epsilon release.")));
	note = PG_ARGISNULL(3) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(3));
	jl_declaration_load(pl.nsp, pl.decl.relid, &pl.decl);
	jl_budget_check_spender(pl.nsp, pl.decl.dataset);
	PG_RETURN_INT64(jl_budget_charge_declared(pl.nsp, pl.decl.dataset, pl.decl.relid,
											  pl.decl.unit, pl.epsilon, delta,
											  note ? psprintf("jl_budget_book: %s", note) :
											  "jl_budget_book"));
}

/*
 * jl_release_dist2(protected regclass, epsilon float8, OUT dist2 float8,
 *                  OUT stddev float8, OUT n bigint, OUT epsilon_holding
 *                  float8, OUT delta float8, OUT neighbor text,
 *                  OUT guarantee text): the dist2 mechanism, a value
 */
PG_FUNCTION_INFO_V1(jl_release_dist2_declared);
Datum
jl_release_dist2_declared(PG_FUNCTION_ARGS)
{
	JlPipeline	pl;
	TupleDesc	td;
	Datum		out[7];
	bool		outnull[7] = {false, false, false, false, false, false, false};
	const JlDist2Value *v;
	char	   *g;
	int64		release_id;

	memset(&pl, 0, sizeof(pl));
	pl.nsp = JL_CATALOG_NSP(fcinfo);
	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "jl_release_dist2 must return a record");
	require_read_committed("jl_release_dist2");
	pl.decl.relid = jl_regclass_arg(fcinfo, 0, "protected");
	jl_require_arg(fcinfo, 1, "epsilon");
	pl.epsilon = PG_GETARG_FLOAT8(1);
	if (!(isfinite(pl.epsilon) && pl.epsilon > 0.0))
		jl_report_status(JL_ERR_EPSILON);
	g = run_pipeline(&pl, &jl_dist2_ops, &release_id);
	v = jl_dist2_value(&pl);

	td = BlessTupleDesc(td);
	out[0] = Float8GetDatum(v->dist2);
	out[1] = Float8GetDatum(v->stddev);
	outnull[0] = outnull[1] = v->n < 2;
	out[2] = Int64GetDatum(v->n);
	out[3] = Float8GetDatum(v->epsilon);
	out[4] = Float8GetDatum(0.0);
	out[5] = CStringGetTextDatum(pl.decl.row ? "row" : "attribute");
	out[6] = CStringGetTextDatum(g);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, out, outnull)));
}
