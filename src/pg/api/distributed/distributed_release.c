/*
 * distributed_release.c - the coordinator's steps of a release over the
 * shards of a sharded protected table (jl_release_distributed,
 * docs/design/scaleout.md): before any shard reads, check what the coordinator's
 * charge would refuse and begin the release (a global transaction id only
 * this session may decide); once every shard has checked its part, charge
 * the coordinator durably (jl_distributed_charge_declared); after the
 * shards' parts are prepared, record the release in the registry for the
 * partitioned table of the shards' sketch tables and the decision (the
 * global transaction id whose prepared parts the shards hold).  The parts
 * are committed only after the decision commits (after a crash between the
 * two, jl_distributed_resolve finishes what the decision says).
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "common/md5.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"

#include "pg/budget/budget.h"
#include "pg/common/messages.h"
#include "pg/common/options.h"
#include "pg/catalog/owner.h"
#include "pg/catalog/registry.h"
#include "pg/catalog/source_relation.h"
#include "pg/pipeline/declaration.h"

PG_FUNCTION_INFO_V1(jl_distributed_committed);

/*
 * The release this backend began (jl_distributed_begin) and may decide:
 * its global transaction id, made here from the secure source, and the
 * (epsilon, delta) it is charged.  Only a decision of this id is
 * accepted, once, so a role cannot decide another session's release (whose
 * prepared parts any role sees in pg_prepared_xacts).
 */
static char begun_gid[96];
static double begun_epsilon;
static double begun_delta;
static bool begun_gaussian;
static Oid	begun_role;
static Oid	begun_source;
static int64 begun_ledger;		/* a sharded protected table's charge, made
								 * before its parts read (0: not yet) */
static bool begun_callback;

/* a release whose transaction aborted is over: its id is never decided */
static void
forget_on_abort(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		begun_gid[0] = '\0';
}

/*
 * The coordinator's identity in every transaction id it prepares on the
 * shards: the first 16 hex digits of md5('<system identifier>/<database
 * OID>'), as jl_distributed_resolve computes it, so that a resolver of
 * another coordinator (another database or cluster using the same shards)
 * leaves these parts alone.
 */
static const char *
coordinator_id(void)
{
	static char id[17];
	char		hex[33];
	const char *err = NULL;
	/* signed, as pg_control_system() shows it to SQL */
	char	   *text = psprintf(INT64_FORMAT "/%u", (int64) GetSystemIdentifier(), MyDatabaseId);

	if (!pg_md5_hash(text, strlen(text), hex, &err))
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("could not compute the coordinator's identity: %s", err ? err : "md5 failed")));
	memcpy(id, hex, 16);
	id[16] = '\0';
	return id;
}

/*
 * A CALL inside BEGIN ... COMMIT is refused.  The release checks again
 * after its first COMMIT (another release of the source may have spent
 * meanwhile), where a procedure's transaction counts as a block: the
 * session's own release of this source, begun in a transaction that
 * committed, is that check.
 */
static void
refuse_transaction_block(Oid source)
{
	if (IsTransactionBlock() &&
		!(begun_gid[0] != '\0' && begun_role == GetUserId() && begun_source == source))
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("jl_release_distributed cannot run inside a transaction block"),
				 errdetail("It commits its decision before the shards commit their parts."),
				 errhint("CALL it on its own, outside BEGIN ... COMMIT.")));
}

/*
 * Every refusal the coordinator's charge would make, made now: the charge
 * in a subtransaction, rolled back; then a new global transaction id,
 * which only this backend may decide, for this source and calibration.
 */
static text *
begin_release(const JlChargeRequest *req, Oid source, double epsilon, double delta, bool gaussian)
{
	uint8		bytes[16];
	StringInfoData gid;

	jl_budget_trial_charge(req);

	if (!pg_strong_random(bytes, sizeof(bytes)))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate random bytes")));
	initStringInfo(&gid);
	appendStringInfo(&gid, "jldp_%s_", coordinator_id());
	for (int i = 0; i < 16; i++)
		appendStringInfo(&gid, "%02x", bytes[i]);
	if (!begun_callback)
	{
		RegisterXactCallback(forget_on_abort, NULL);
		begun_callback = true;
	}
	strlcpy(begun_gid, gid.data, sizeof(begun_gid));
	begun_epsilon = epsilon;
	begun_delta = delta;
	begun_gaussian = gaussian;
	begun_role = GetUserId();
	begun_source = source;
	begun_ledger = 0;
	return cstring_to_text(gid.data);
}

/*
 * The charge request of a sharded protected table: its declaration
 * (loaded, locked and checked as every release's), its dataset, the
 * spender checked.
 */
static void
declared_request(JlChargeRequest *req, Oid nsp, Oid source, JlDeclaration *decl,
				 double epsilon, double delta, const char *what)
{
	jl_declaration_load(nsp, source, decl);
	if (!decl->sharded)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s is not a sharded table", decl->relation_q),
				 errhint("Release a table on one server with jl_release.")));
	jl_budget_check_spender(nsp, decl->dataset);
	jl_budget_request(req, nsp, decl->dataset, decl->relid, decl->unit, epsilon, delta, what);
}

/*
 * jl_distributed_begin_declared(source regclass, epsilon float8,
 *                               delta float8, noise jl_noise) RETURNS text
 *
 * jl_distributed_begin for a sharded protected table (delta: NULL for
 * Laplace noise).
 */
PG_FUNCTION_INFO_V1(jl_distributed_begin_declared);
Datum
jl_distributed_begin_declared(PG_FUNCTION_ARGS)
{
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	JlChargeRequest req;
	JlDeclaration decl;
	bool		gaussian;
	double		delta;

	for (int i = 0; i < 4; i++)
		if (i != 2)
			jl_require_arg(fcinfo, i, psprintf("jl_distributed_begin_declared's argument %d", i + 1));
	gaussian = strcmp(DatumGetCString(DirectFunctionCall1(enum_out, PG_GETARG_DATUM(3))), "gaussian") == 0;
	if (gaussian)
		jl_require_arg_hint(fcinfo, 2, "delta", "Gaussian noise needs delta.", NULL);
	delta = gaussian ? PG_GETARG_FLOAT8(2) : 0.0;
	refuse_transaction_block(PG_GETARG_OID(0));
	jl_budget_check_epsilon_delta(PG_GETARG_FLOAT8(1), delta);
	declared_request(&req, nsp, PG_GETARG_OID(0), &decl, PG_GETARG_FLOAT8(1), delta,
					 "jl_release_distributed (check)");
	PG_RETURN_TEXT_P(begin_release(&req, PG_GETARG_OID(0), PG_GETARG_FLOAT8(1), delta, gaussian));
}

/* the calibration's epsilon, delta and noise, as the shards recorded them */
static void
read_calibration(const char *info, double *epsilon, double *delta, bool *gaussian)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(info)};
	bool		isnull[3];
	HeapTuple	t;

	if (SPI_execute_with_args("SELECT (i OPERATOR(pg_catalog.->>) 'epsilon')::pg_catalog.float8, "
							  "(i OPERATOR(pg_catalog.->>) 'delta')::pg_catalog.float8, "
							  "(i OPERATOR(pg_catalog.->>) 'noise') OPERATOR(pg_catalog.=) 'gaussian' "
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
				 errmsg("the shards' registry record has no valid epsilon, delta and noise")));
}

/*
 * The gid this session began for source, once; the target a partitioned
 * table owned by the caller.
 */
static void
check_decision(Oid source, Oid target, const char *gid)
{
	if (begun_gid[0] == '\0' || strcmp(gid, begun_gid) != 0 || begun_role != GetUserId() ||
		begun_source != source)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("distributed release \"%s\" was not begun by this session", jl_msg_str(gid)),
				 errhint("jl_release_distributed decides only the release it began.")));
	begun_gid[0] = '\0';
	if (get_rel_relkind(target) != RELKIND_PARTITIONED_TABLE || !pg_class_ownercheck(target, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("the target of a distributed release must be a partitioned table owned by the caller")));
}

/* the shards' (epsilon, delta, noise) are what the release began with */
static void
check_calibration(const char *info, double *epsilon, double *delta, bool *gaussian)
{
	SPI_connect();
	read_calibration(info, epsilon, delta, gaussian);
	SPI_finish();
	if (*epsilon != begun_epsilon || *gaussian != begun_gaussian || (*gaussian ? *delta : 0.0) != begun_delta)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the shards released %s noise at (epsilon, delta) = (%g, %g), not %s noise at the (%g, %g) the release began with",
						*gaussian ? "Gaussian" : "Laplace", *epsilon, *gaussian ? *delta : 0.0,
						begun_gaussian ? "Gaussian" : "Laplace", begun_epsilon, begun_delta)));
	if (!*gaussian)
		*delta = 0.0;
}

/*
 * Charged in this transaction, not by the worker: nothing of the release
 * is visible before this transaction commits (the shards hold their
 * parts prepared), so a rollback here undoes a charge of nothing seen,
 * and a commit is the decision to publish.  Then the registry row and the
 * decision.  Returns the registry id.
 */
static int64
decide_release(Oid nsp, const JlChargeRequest *req, int64 charged, JlRegistryRecord *rec,
			   const char *gid, Datum servers, Datum shard_release_ids)
{
	JlOwnerScope scope;
	int64		release_id;
	Oid			types[5] = {TEXTOID, INT8OID, OIDOID, TEXTARRAYOID, INT8ARRAYOID};
	Datum		values[5];

	/* charged once its checks passed, before its parts read */
	if (charged <= 0)
		elog(ERROR, "the distributed release was not charged before its parts");
	rec->ledger_id = charged;
	rec->dataset = req->dataset;
	SPI_connect();
	release_id = jl_registry_write(nsp, rec);

	values[0] = CStringGetTextDatum(gid);
	values[1] = Int64GetDatum(release_id);
	values[2] = ObjectIdGetDatum(rec->target);
	values[3] = servers;
	values[4] = shard_release_ids;
	jl_become_owner(nsp, &scope);
	if (SPI_execute_with_args(psprintf("INSERT INTO %s (gid, release_id, target, servers, shard_release_ids, released_by) "
									   "VALUES ($1, $2, $3, $4, $5, %s)",
									   jl_qualified(nsp, "jldp_distributed_release"),
									   quote_literal_cstr(GetUserNameFromId(req->actor.role, false))),
							  5, types, values, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record the distributed release");
	jl_restore_user(&scope);
	SPI_finish();
	return release_id;
}

/*
 * jl_distributed_charge_declared(gid text) RETURNS bigint
 *
 * The coordinator's charge of a sharded protected table's release, made
 * once its checks have passed and before any shard reads a row: durable
 * (committed by the charge worker), as every release's charge is, so that
 * no change of the budget while the parts run (a booking, a lower cap)
 * can refuse the release after the shards were charged.  A failure after
 * it leaves it standing, marked as not released.  The ledger id.
 */
PG_FUNCTION_INFO_V1(jl_distributed_charge_declared);
Datum
jl_distributed_charge_declared(PG_FUNCTION_ARGS)
{
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	char	   *gid;
	JlDeclaration decl;

	gid = jl_text_arg(fcinfo, 0, "gid");
	if (begun_gid[0] == '\0' || strcmp(gid, begun_gid) != 0 || begun_role != GetUserId() ||
		begun_ledger != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("distributed release \"%s\" was not begun by this session, or is charged already", jl_msg_str(gid))));
	jl_declaration_load(nsp, begun_source, &decl);
	if (!decl.sharded)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s is not a sharded table", decl.relation_q)));
	jl_budget_check_spender(nsp, decl.dataset);
	begun_ledger = jl_budget_charge_declared(nsp, decl.dataset, decl.relid, decl.unit, begun_epsilon,
											 begun_delta, psprintf("jl_release_distributed (%s)", gid), NULL);
	PG_RETURN_INT64(begun_ledger);
}

/*
 * The target the caller made: one foreign partition per partition of
 * source, on the same server with the same bounds, and the servers the
 * decision records are those.
 */
static void
check_target_partitions(Oid source, Oid target, Datum servers)
{
	Oid			types[3] = {OIDOID, OIDOID, TEXTARRAYOID};
	Datum		values[3] = {ObjectIdGetDatum(source), ObjectIdGetDatum(target), servers};
	const char *parts =
		"SELECT s.srvname::pg_catalog.text AS server, pg_catalog.pg_get_expr(c.relpartbound, c.oid) AS bound, "
		"c.relkind OPERATOR(pg_catalog.=) 'f' AS foreign_table "
		"FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) i.inhrelid "
		"LEFT JOIN pg_catalog.pg_foreign_table ft ON ft.ftrelid OPERATOR(pg_catalog.=) c.oid "
		"LEFT JOIN pg_catalog.pg_foreign_server s ON s.oid OPERATOR(pg_catalog.=) ft.ftserver "
		"WHERE i.inhparent OPERATOR(pg_catalog.=) ";
	bool		isnull;
	bool		ok;

	SPI_connect();
	if (SPI_execute_with_args(psprintf("SELECT (SELECT pg_catalog.count(*) FROM (%s$1) a) OPERATOR(pg_catalog.=) (SELECT pg_catalog.count(*) FROM (%s$2) b) "
									   "AND NOT EXISTS ((%s$1) EXCEPT (%s$2)) AND NOT EXISTS ((%s$2) EXCEPT (%s$1)) "
									   "AND (SELECT pg_catalog.bool_and(foreign_table) FROM (%s$2) c) "
									   "AND (SELECT pg_catalog.array_agg(x ORDER BY x) FROM pg_catalog.unnest($3) x) "
									   "IS NOT DISTINCT FROM (SELECT pg_catalog.array_agg(server ORDER BY server) FROM (%s$1) d)",
									   parts, parts, parts, parts, parts, parts, parts, parts),
							  3, types, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not compare the target's partitions with the source's");
	ok = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	if (isnull || !ok)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the target of the distributed release is not partitioned like %s over the shards' sketch tables",
						jl_msg_str(get_rel_name(source))),
				 errdetail("Each of its partitions is a foreign table on the server of the source's partition with the same bounds, and the decision's servers are those.")));
}

/*
 * jl_distributed_decide_declared(source regclass, target regclass,
 *                                info jsonb, gid text, servers text[],
 *                                shard_release_ids bigint[],
 *                                key_fingerprint text, rows bigint)
 *                                RETURNS bigint
 *
 * jl_distributed_decide for a sharded protected table: the shards'
 * declarations (in info, the first shard's registry record, which the
 * caller compared with the others') must be the coordinator's, checked
 * again under the declaration's lock; the target partitioned like source
 * on the same servers; the charge the one jl_distributed_charge_declared
 * made for this release (nothing is charged here); the guarantee is the
 * coordinator's.  What the shards' records say is the caller's to pass:
 * a role that may spend the table can call this without the shards
 * (docs/design/threat_model.md row 61).
 */
PG_FUNCTION_INFO_V1(jl_distributed_decide_declared);
Datum
jl_distributed_decide_declared(PG_FUNCTION_ARGS)
{
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	Oid			source,
				target;
	char	   *gid,
			   *info,
			   *mine,
			   *theirs;
	double		epsilon,
				delta;
	bool		gaussian;
	int64		rows,
				charged;
	JlChargeRequest req;
	JlRegistryRecord rec;
	JlDeclaration decl;
	StringInfoData g;

	for (int i = 0; i < 8; i++)
		jl_require_arg(fcinfo, i, psprintf("jl_distributed_decide_declared's argument %d", i + 1));
	source = PG_GETARG_OID(0);
	target = PG_GETARG_OID(1);
	gid = text_to_cstring(PG_GETARG_TEXT_PP(3));
	info = DatumGetCString(DirectFunctionCall1(jsonb_out, PG_GETARG_DATUM(2)));
	rows = PG_GETARG_INT64(7);
	/* the record's declaration, before the release this session began is spent */
	{
		Jsonb	   *jb = DatumGetJsonbP(PG_GETARG_DATUM(2));
		JsonbValue	key;
		JsonbValue *v;

		key.type = jbvString;
		key.val.string.val = "declaration";
		key.val.string.len = strlen("declaration");
		v = JB_ROOT_IS_OBJECT(jb) ? findJsonbValueFromContainer(&jb->root, JB_FOBJECT, &key) : NULL;
		if (v == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the shards' record has no declaration")));
		theirs = DatumGetCString(DirectFunctionCall1(jsonb_out, JsonbPGetDatum(JsonbValueToJsonb(v))));
	}
	charged = begun_ledger;
	check_decision(source, target, gid);
	begun_ledger = 0;
	if (charged <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("distributed release \"%s\" was not charged before its parts", jl_msg_str(gid)),
				 errhint("jl_release_distributed charges (jl_distributed_charge_declared) before any shard reads.")));
	check_target_partitions(source, target, PG_GETARG_DATUM(4));
	check_calibration(info, &epsilon, &delta, &gaussian);
	/* not charged here: the request names the dataset and the releasing role */
	declared_request(&req, nsp, source, &decl, epsilon, delta,
					 psprintf("jl_release_distributed into %s (%s)", get_rel_name(target), gid));
	/* the shards' declaration, as their registry recorded it, is this one */
	mine = DatumGetCString(DirectFunctionCall1(jsonb_out,
											   DirectFunctionCall1(jsonb_in, CStringGetDatum(psprintf("{%s}", jl_declaration_json(&decl))))));
	if (strcmp(psprintf("{\"declaration\": %s}", theirs), mine) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the shards' declaration of their tables is not the coordinator's declaration of %s", decl.relation_q),
				 errdetail("Shards: %s; coordinator: %s.", theirs, mine)));

	initStringInfo(&g);
	appendStringInfo(&g, "%s differential privacy for each unit (%s) of %s by parallel composition: each shard released the units within its partition's bounds, read once through its own declaration (the same as this one) and charged to its own budget; charged once to dataset %s. Not protected: which units exist and how many (%lld), released as they are.",
					 gaussian ? psprintf("(epsilon = %g, delta = %g)", epsilon, delta) :
					 psprintf("epsilon = %g", epsilon),
					 decl.unit, decl.relation_q, decl.dataset, (long long) rows);
	/* the shards' guarantee and rows give way to the coordinator's */
	{
		Jsonb	   *j = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(info)));
		StringInfoData extra;

		initStringInfo(&extra);
		appendStringInfo(&extra, "{\"rows\": %lld, \"guarantee\": ", (long long) rows);
		escape_json(&extra, g.data);
		appendStringInfoChar(&extra, '}');
		j = DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(j),
											   DirectFunctionCall1(jsonb_in, CStringGetDatum(extra.data))));
		info = DatumGetCString(DirectFunctionCall1(jsonb_out, JsonbPGetDatum(j)));
	}
	rec.source = decl.relation_q;
	rec.target = target;
	rec.id_column = decl.unit;
	rec.vector = jl_declaration_describe(&decl);
	rec.clipping = "the declaration's bounds, clamped on every read (each shard's)";
	rec.key_fingerprint = text_to_cstring(PG_GETARG_TEXT_PP(6));
	rec.info = info;
	PG_RETURN_INT64(decide_release(nsp, &req, charged, &rec, gid, PG_GETARG_DATUM(4), PG_GETARG_DATUM(5)));
}

/*
 * jl_distributed_committed(gid text) RETURNS boolean
 *
 * Record that every shard's part of the decided release gid is committed
 * (jl_distributed_resolve checks each shard's registry first).  Only the
 * role that released it (or a member of it) or a superuser; true if the
 * record changed.  The record is bookkeeping: whether a part is committed
 * or rolled back is decided by the existence of the decision alone.
 */
Datum
jl_distributed_committed(PG_FUNCTION_ARGS)
{
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	JlOwnerScope scope;
	Oid			actor = GetUserId();
	char	   *by;
	bool		changed;

	if (PG_ARGISNULL(0))
		PG_RETURN_BOOL(false);
	values[0] = PG_GETARG_DATUM(0);
	SPI_connect();
	jl_become_owner(nsp, &scope);
	if (SPI_execute_with_args(psprintf("SELECT released_by FROM %s WHERE gid = $1 FOR UPDATE",
									   jl_qualified(nsp, "jldp_distributed_release")),
							  1, types, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the distributed release");
	if (SPI_processed == 0)
	{
		jl_restore_user(&scope);
		SPI_finish();
		PG_RETURN_BOOL(false);
	}
	by = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	if (!superuser_arg(actor) &&
		!(OidIsValid(get_role_oid(by, true)) && has_privs_of_role(actor, get_role_oid(by, false))))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only role \"%s\" (or a member of it) or a superuser may record release %s as committed",
						by, jl_msg_str(text_to_cstring(PG_GETARG_TEXT_PP(0))))));
	if (SPI_execute_with_args(psprintf("UPDATE %s SET committed_at = pg_catalog.now() "
									   "WHERE gid = $1 AND committed_at IS NULL",
									   jl_qualified(nsp, "jldp_distributed_release")),
							  1, types, values, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not update the distributed release");
	changed = SPI_processed > 0;
	jl_restore_user(&scope);
	SPI_finish();
	PG_RETURN_BOOL(changed);
}
