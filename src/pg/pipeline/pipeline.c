/*
 * pipeline.c - the steps of every release of a protected table (jl_release
 * and its variants in api/release/protected.c), through the one pipeline (docs/design/api-1.0.md), in this order, for every mechanism:
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

#include "pg/budget/budget.h"
#include "pg/common/messages.h"
#include "pg/common/options.h"
#include "pg/pipeline/pipeline.h"
#include "pg/catalog/release_names.h"
#include "pg/catalog/source_relation.h"
#include "pg/catalog/owner.h"

const JlMechanismOps *
jl_pipeline_ops(const JlPipeline *pl)
{
	switch (pl->spec.kind)
	{
		case JL_MECHANISM_COVARIANCE:
			return &jl_covariance_ops;
		case JL_MECHANISM_GRAPH:
			return &jl_graph_ops;
		case JL_MECHANISM_ADVISED:
			return &jl_advised_ops;
		case JL_MECHANISM_KMEANS:
			return &jl_kmeans_ops;
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
void
jl_pipeline_require_read_committed(const char *who)
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
											  psprintf("jl_release_dist2 (declared) of %s", pl->decl.relation_q),
											  pl->profile.kind ? &pl->profile : NULL);
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
void
jl_pipeline_prepare(JlPipeline *pl, const JlMechanismOps *ops)
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

char *
jl_pipeline_run(JlPipeline *pl, const JlMechanismOps *ops, int64 *release_id)
{
	MemoryContext caller = CurrentMemoryContext;
	char	   *g;

	jl_pipeline_prepare(pl, ops);
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
