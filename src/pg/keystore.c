/*
 * keystore.c - the server-side keys.
 *
 * Keys live in the extension's table jldp_key, which PUBLIC cannot read.
 * Releasing functions read it directly through the table access method (no
 * SQL, no privilege check on the table: being allowed to EXECUTE them is the
 * privilege), so a role may use a key without being able to see it.  The
 * secret never leaves this file except as the projection it seeds, and never
 * appears in query text: create generates it here, inserts go through SPI
 * parameters.  The key functions are not SECURITY DEFINER: they check the
 * calling role, then write the table as the extension's owner.
 */
#include "postgres.h"

#include "fmgr.h"

#include "pg/budget.h"

#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_authid.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "commands/trigger.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "pg/keystore.h"
#include "pg/owner.h"
#include "pg/messages.h"

PG_FUNCTION_INFO_V1(jl_key_create);
PG_FUNCTION_INFO_V1(jl_key_import);
PG_FUNCTION_INFO_V1(jl_key_drop);
PG_FUNCTION_INFO_V1(jl_key_table_changed);

#define ATTNUM_NAME 1
#define ATTNUM_SECRET 2

static Oid
key_table(Oid nsp)
{
	Oid			relid = get_relname_relid(JLDP_KEY_TABLE, nsp);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("key table %s is missing", JLDP_KEY_TABLE),
				 errhint("Recreate the extension jldp.")));
	return relid;
}

uint64		jl_key_generation = 1;

/* the key table whose invalidations advance jl_key_generation */
static Oid	watched_key_table = InvalidOid;

static void
key_table_invalidated(Datum arg, Oid relid)
{
	if (!OidIsValid(relid) || relid == watched_key_table)
		jl_key_generation++;
}

/*
 * Before the first lookup: watch the key table.  A change made before it
 * cannot concern a key cached after it.
 */
static void
watch_key_table(Oid relid)
{
	static bool registered = false;

	if (!registered)
	{
		CacheRegisterRelcacheCallback(key_table_invalidated, (Datum) 0);
		registered = true;
	}
	if (watched_key_table != relid)
	{
		if (OidIsValid(watched_key_table))
			jl_key_generation++;	/* the extension was created again */
		watched_key_table = relid;
	}
}

/*
 * The statement trigger on the key table: every INSERT, UPDATE, DELETE or
 * TRUNCATE (through the key functions or directly) sends a relcache
 * invalidation of the table, which this backend processes at its next
 * command and the others when they see this transaction's commit; their
 * cached keys are looked up again.
 */
Datum
jl_key_table_changed(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		elog(ERROR, "jl_key_table_changed: not called as a trigger");
	CacheInvalidateRelcache(td->tg_relation);
	return PointerGetDatum(NULL);
}

void
jl_key_lookup(Oid nsp, const char *name, JlKey *key)
{
	Relation	rel = table_open(key_table(nsp), AccessShareLock);
	Snapshot	snap = ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot();
	TableScanDesc scan = table_beginscan(rel, snap, 0, NULL);
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	bool		found = false;

	watch_key_table(RelationGetRelid(rel));

	while (!found && table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		isnull;
		Datum		d = slot_getattr(slot, ATTNUM_NAME, &isnull);
		text	   *t;

		if (isnull)
			continue;
		t = DatumGetTextPP(d);
		if (VARSIZE_ANY_EXHDR(t) == strlen(name) &&
			memcmp(VARDATA_ANY(t), name, strlen(name)) == 0)
		{
			bytea	   *b;

			d = slot_getattr(slot, ATTNUM_SECRET, &isnull);
			if (isnull)
				continue;
			b = DatumGetByteaPP(d);
			if (VARSIZE_ANY_EXHDR(b) != JL_KEY_BYTES)
				elog(ERROR, "key \"%s\" has a malformed secret", name);
			memcpy(key->secret, VARDATA_ANY(b), JL_KEY_BYTES);
			jl_key_fingerprint(key->secret, key->fingerprint);
			found = true;
		}
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	table_close(rel, AccessShareLock);

	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("key \"%s\" does not exist", jl_msg_str(name)),
				 errhint("Create it with jl_key_create('%s').", jl_msg_str(name))));
}

static char *
key_table_qualified(Oid nsp)
{
	return quote_qualified_identifier(get_namespace_name(nsp), JLDP_KEY_TABLE);
}

static void
check_key_name(const char *name)
{
	if (name[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key name must not be empty")));
	if (strlen(name) >= NAMEDATALEN)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("key name must be shorter than %d bytes", NAMEDATALEN)));
}

/* Insert a key through SPI parameters; returns its fingerprint. */
static text *
insert_key(Oid nsp, const char *name, const uint8 *secret)
{
	char	   *tbl = key_table_qualified(nsp);
	char		fp[33];
	bytea	   *b = palloc(VARHDRSZ + JL_KEY_BYTES);
	Oid			types[4] = {TEXTOID, BYTEAOID, TEXTOID, TEXTOID};
	Datum		values[4];
	JlOwnerScope scope;
	int			rc;

	check_key_name(name);
	SET_VARSIZE(b, VARHDRSZ + JL_KEY_BYTES);
	memcpy(VARDATA(b), secret, JL_KEY_BYTES);
	jl_key_fingerprint(secret, fp);

	values[0] = CStringGetTextDatum(name);
	values[1] = PointerGetDatum(b);
	values[2] = CStringGetTextDatum(fp);
	/* by name, as the budget records roles: a restore keeps the right owner */
	values[3] = CStringGetTextDatum(GetUserNameFromId(GetUserId(), false));

	SPI_connect();
	jl_become_owner(nsp, &scope);
	rc = SPI_execute_with_args(psprintf("SELECT 1 FROM %s WHERE name = $1 FOR UPDATE", tbl),
							   1, types, values, NULL, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed: %d", rc);
	if (SPI_processed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("key \"%s\" already exists", jl_msg_str(name)),
				 errhint("Drop it first with jl_key_drop('%s'); sketches released under it can then no longer be reproduced.", jl_msg_str(name))));
	rc = SPI_execute_with_args(psprintf("INSERT INTO %s (name, secret, fingerprint, owner) VALUES ($1, $2, $3, %s)",
										tbl, jl_role_store_sql(nsp, JLDP_KEY_TABLE, "owner", 4)),
							   4, types, values, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "SPI_execute_with_args failed: %d", rc);
	jl_restore_user(&scope);
	SPI_finish();

	memset(VARDATA(b), 0, JL_KEY_BYTES);
	return cstring_to_text(fp);
}

Datum
jl_key_create(PG_FUNCTION_ARGS)
{
	uint8		secret[JL_KEY_BYTES];
	text	   *fp;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("key name must not be NULL")));
	if (!pg_strong_random(secret, sizeof(secret)))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random key")));
	fp = insert_key(get_func_namespace(fcinfo->flinfo->fn_oid),
					text_to_cstring(PG_GETARG_TEXT_PP(0)), secret);
	explicit_bzero(secret, sizeof(secret));
	PG_RETURN_TEXT_P(fp);
}

Datum
jl_key_import(PG_FUNCTION_ARGS)
{
	bytea	   *b;
	text	   *fp;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only a superuser may import a key")));
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("key name and secret must not be NULL")));
	b = PG_GETARG_BYTEA_PP(1);
	if (VARSIZE_ANY_EXHDR(b) != JL_KEY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a key secret must be exactly %d bytes, not %d",
						JL_KEY_BYTES, (int) VARSIZE_ANY_EXHDR(b))));
	fp = insert_key(get_func_namespace(fcinfo->flinfo->fn_oid),
					text_to_cstring(PG_GETARG_TEXT_PP(0)),
					(const uint8 *) VARDATA_ANY(b));
	PG_RETURN_TEXT_P(fp);
}

Datum
jl_key_drop(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	char	   *tbl = key_table_qualified(nsp);
	char	   *name;
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	Oid			owner,
				caller = GetUserId();
	char	   *owner_name;
	JlOwnerScope scope;
	bool		isnull;
	int			rc;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("key name must not be NULL")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	values[0] = CStringGetTextDatum(name);

	SPI_connect();
	jl_become_owner(nsp, &scope);
	rc = SPI_execute_with_args(psprintf("SELECT %s::pg_catalog.name FROM %s WHERE name = $1 FOR UPDATE",
										jl_role_read_sql(nsp, JLDP_KEY_TABLE, "owner"), tbl),
							   1, types, values, NULL, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed: %d", rc);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("key \"%s\" does not exist", jl_msg_str(name))));
	owner_name = NameStr(*DatumGetName(SPI_getbinval(SPI_tuptable->vals[0],
													 SPI_tuptable->tupdesc, 1, &isnull)));
	/* an owner that no longer exists: a superuser's to drop (fail closed) */
	owner = get_role_oid(owner_name, true);
	if (!superuser_arg(caller) &&
		(!OidIsValid(owner) || !has_privs_of_role(caller, owner)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only the creator of key \"%s\" (or a member of its role) or a superuser may drop it", jl_msg_str(name))));
	rc = SPI_execute_with_args(psprintf("DELETE FROM %s WHERE name = $1", tbl),
							   1, types, values, NULL, false, 0);
	if (rc != SPI_OK_DELETE)
		elog(ERROR, "SPI_execute_with_args failed: %d", rc);
	jl_restore_user(&scope);
	SPI_finish();
	PG_RETURN_VOID();
}
