/*
 * distributed_release.c - the coordinator's decision of a release over
 * shards (jl_release_distributed, docs/scaleout.md): in the coordinator's
 * own transaction, charge the sharded table's dataset once, record the
 * release in the registry for the partitioned table of the shards' sketch
 * tables, and record the decision (the global transaction id whose
 * prepared parts the shards hold).  The shards' parts are committed only
 * after this transaction commits, so the charge commits exactly when the
 * sketches do (after a crash between the two, jl_distributed_resolve
 * finishes what the decision says).
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "pg/budget.h"
#include "pg/messages.h"
#include "pg/owner.h"
#include "pg/registry.h"
#include "pg/source_relation.h"

PG_FUNCTION_INFO_V1(jl_distributed_decide);

/* the calibration's epsilon, delta and noise, as the shards recorded them */
static void
read_calibration(const char *info, double *epsilon, double *delta, bool *gaussian)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(info)};
	bool		isnull[3];
	HeapTuple	t;

	if (SPI_execute_with_args("SELECT (i->>'epsilon')::pg_catalog.float8, (i->>'delta')::pg_catalog.float8, "
							  "coalesce(i->>'noise', 'laplace') = 'gaussian' "
							  "FROM (SELECT $1::pg_catalog.jsonb AS i) s",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the shards' calibration");
	t = SPI_tuptable->vals[0];
	*epsilon = DatumGetFloat8(SPI_getbinval(t, SPI_tuptable->tupdesc, 1, &isnull[0]));
	*delta = DatumGetFloat8(SPI_getbinval(t, SPI_tuptable->tupdesc, 2, &isnull[1]));
	*gaussian = DatumGetBool(SPI_getbinval(t, SPI_tuptable->tupdesc, 3, &isnull[2]));
	if (isnull[0] || isnull[1] || isnull[2] || !(*epsilon > 0.0) || !(*delta >= 0.0 && *delta < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the shards' registry record has no valid epsilon and delta")));
}

/*
 * jl_distributed_decide(source regclass, target regclass, id_column text,
 *                       vector text, clipping text, key_fingerprint text,
 *                       info jsonb, gid text, servers text[],
 *                       shard_release_ids bigint[]) RETURNS bigint
 *
 * source: the coordinator's partitioned table of the raw rows (its leaf
 * partitions foreign tables on the shards); target: the partitioned table
 * of the shards' sketch tables, created by the caller in this transaction.
 * Returns the coordinator's registry id.
 */
Datum
jl_distributed_decide(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	Oid			source,
				target,
				base;
	char	   *id_column,
			   *gid,
			   *info,
			   *dataset;
	double		epsilon,
				delta;
	bool		gaussian,
				declare = false;
	JlChargeRequest req;
	JlRegistryRecord rec;
	JlOwnerScope scope;
	int64		ledger_id,
				release_id;
	Oid			types[5] = {TEXTOID, INT8OID, OIDOID, TEXTARRAYOID, INT8ARRAYOID};
	Datum		values[5];

	for (int i = 0; i < 10; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("jl_distributed_decide: argument %d is NULL", i + 1)));
	source = PG_GETARG_OID(0);
	target = PG_GETARG_OID(1);
	id_column = text_to_cstring(PG_GETARG_TEXT_PP(2));
	gid = text_to_cstring(PG_GETARG_TEXT_PP(7));
	info = DatumGetCString(DirectFunctionCall1(jsonb_out, PG_GETARG_DATUM(6)));
	if (strncmp(gid, "jldp_", 5) != 0 || strlen(gid) > 150)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a distributed release's transaction id starts with \"jldp_\"")));

	/*
	 * The source is the partitioned table itself (its dataset pays); the
	 * target a partitioned table the caller owns, made for this release.
	 */
	jl_source_lock(source);
	base = jl_source_base_relation(source, NULL, NULL);
	if (base != source || get_rel_relkind(source) != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a partitioned table", jl_msg_str(get_rel_name(source)))));
	if (get_rel_relkind(target) != RELKIND_PARTITIONED_TABLE || !pg_class_ownercheck(target, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("the target of a distributed release must be a partitioned table owned by the caller")));

	SPI_connect();
	read_calibration(info, &epsilon, &delta, &gaussian);
	SPI_finish();

	/* the dataset, as jl_release_table finds it for the relation it reads */
	dataset = jl_budget_dataset_for(nsp, base);
	if (dataset == NULL)
	{
		dataset = quote_qualified_identifier(get_namespace_name(get_rel_namespace(base)),
											 get_rel_name(base));
		declare = true;
	}

	/*
	 * Charged in this transaction, not by the worker: nothing of the release
	 * is visible before this transaction commits (the shards hold their
	 * parts prepared), so a rollback here undoes a charge of nothing seen,
	 * and a commit is the decision to publish.
	 */
	memset(&req, 0, sizeof(req));
	req.actor = jl_budget_actor();
	req.nsp = nsp;
	req.dataset = dataset;
	req.source = base;
	req.declare = declare;
	req.source_q = quote_qualified_identifier(get_namespace_name(get_rel_namespace(base)),
											  get_rel_name(base));
	req.source_owner = GetUserNameFromId(jl_relation_owner(base), false);
	req.epsilon = epsilon;
	req.delta = gaussian ? delta : 0.0;
	req.what = psprintf("jl_release_distributed into %s (%s)", get_rel_name(target), gid);
	req.unit = id_column;
	ledger_id = jl_budget_charge_now(&req);

	rec.source = req.source_q;
	rec.target = target;
	rec.id_column = id_column;
	rec.vector = text_to_cstring(PG_GETARG_TEXT_PP(3));
	rec.clipping = text_to_cstring(PG_GETARG_TEXT_PP(4));
	rec.key_fingerprint = text_to_cstring(PG_GETARG_TEXT_PP(5));
	rec.info = info;
	rec.ledger_id = ledger_id;
	rec.dataset = dataset;
	SPI_connect();
	release_id = jl_registry_write(nsp, &rec);

	values[0] = CStringGetTextDatum(gid);
	values[1] = Int64GetDatum(release_id);
	values[2] = ObjectIdGetDatum(target);
	values[3] = PG_GETARG_DATUM(8);
	values[4] = PG_GETARG_DATUM(9);
	jl_become_owner(nsp, &scope);
	if (SPI_execute_with_args(psprintf("INSERT INTO %s (gid, release_id, target, servers, shard_release_ids, released_by) "
									   "VALUES ($1, $2, $3, $4, $5, %s)",
									   jl_qualified(nsp, "jldp_distributed_release"),
									   quote_literal_cstr(GetUserNameFromId(req.actor.role, false))),
							  5, types, values, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record the distributed release");
	jl_restore_user(&scope);
	SPI_finish();
	PG_RETURN_INT64(release_id);
}
