/*
 * drop_guard.c - DROP EXTENSION jldp (or DROP SCHEMA ... CASCADE of one of
 * its schemas, or DROP OWNED BY its owner) would silently destroy the keys, the
 * release registry and the budget ledger.  An event trigger on
 * ddl_command_start refuses it while keys or ledger rows exist, unless
 * jldp.allow_drop is on (superusers only).
 */
#include "postgres.h"

#include "commands/event_trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "pg/api/admin/drop_guard.h"
#include "pg/catalog/owner.h"

PG_FUNCTION_INFO_V1(jl_drop_guard);

static bool allow_drop = false;

void
jl_drop_guard_init(void)
{
	DefineCustomBoolVariable("jldp.allow_drop",
							 "Lets DROP EXTENSION jldp destroy its keys, registry and budget ledger.",
							 "Off: dropping the extension (or its schema, or its owner's objects) is refused while keys or ledger rows exist.",
							 &allow_drop, false, PGC_SUSET, 0, NULL, NULL, NULL);
}

static bool
names_contain(List *names, const char *name)
{
	ListCell   *lc;

	foreach(lc, names)
	{
		Node	   *n = (Node *) lfirst(lc);

		if (IsA(n, String) && strcmp(strVal(n), name) == 0)
			return true;
	}
	return false;
}

/* the owner of the extension's tables */
static Oid
extension_owner(Oid nsp)
{
	Oid			relid = get_relname_relid("jldp_key", nsp);

	return OidIsValid(relid) ? jl_relation_owner(relid) : InvalidOid;
}

/* the name of the schema CREATE EXTENSION put jldp in (public by default) */
static char *
extension_schema_name(void)
{
	char	   *name = NULL;
	bool		isnull;
	MemoryContext outer = CurrentMemoryContext;

	SPI_connect();
	if (SPI_execute("SELECT n.nspname::pg_catalog.text FROM pg_catalog.pg_extension e "
					"JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace "
					"WHERE e.extname OPERATOR(pg_catalog.=) 'jldp'", true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			name = MemoryContextStrdup(outer, TextDatumGetCString(d));
	}
	SPI_finish();
	return name;
}

/*
 * The statement would drop the extension whose catalog is in nsp: DROP
 * EXTENSION, DROP SCHEMA ... CASCADE of jldp_internal, of jldp or of the
 * extension's own schema (dropping it drops the extension), DROP OWNED BY
 * the owner.
 */
static bool
drops_jldp(Node *stmt, Oid nsp)
{
	if (IsA(stmt, DropStmt))
	{
		DropStmt   *d = (DropStmt *) stmt;

		if (d->removeType == OBJECT_EXTENSION)
			return names_contain(d->objects, "jldp");
		if (d->removeType == OBJECT_SCHEMA && d->behavior == DROP_CASCADE)
		{
			char	   *ext_schema;

			if (names_contain(d->objects, get_namespace_name(nsp)) ||
				names_contain(d->objects, get_namespace_name(jl_api_nsp(nsp))))
				return true;
			ext_schema = extension_schema_name();
			return ext_schema != NULL && names_contain(d->objects, ext_schema);
		}
		return false;
	}
	if (IsA(stmt, DropOwnedStmt))
	{
		Oid			owner = extension_owner(nsp);
		ListCell   *lc;

		foreach(lc, ((DropOwnedStmt *) stmt)->roles)
			if (get_rolespec_oid((RoleSpec *) lfirst(lc), true) == owner)
				return true;
	}
	return false;
}

/* rows in the extension's table name (SPI, as owner) */
static int64
rows_in(Oid nsp, const char *name)
{
	bool		isnull;

	if (SPI_execute(psprintf("SELECT count(*) FROM %s", jl_qualified(nsp, name)), true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not count the rows of %s", name);
	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

Datum
jl_drop_guard(PG_FUNCTION_ARGS)
{
	EventTriggerData *trig;
	Oid			nsp = jl_catalog_nsp(get_func_namespace(fcinfo->flinfo->fn_oid));
	JlOwnerScope scope;
	int64		keys,
				ledger;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		elog(ERROR, "jl_drop_guard: not called by the event trigger manager");
	trig = (EventTriggerData *) fcinfo->context;
	if (allow_drop || !drops_jldp(trig->parsetree, nsp) ||
		!OidIsValid(get_relname_relid("jldp_ledger", nsp)))
		PG_RETURN_VOID();

	SPI_connect();
	jl_become_owner(nsp, &scope);
	keys = rows_in(nsp, "jldp_key");
	ledger = rows_in(nsp, "jldp_ledger");
	jl_restore_user(&scope);
	SPI_finish();
	if (keys > 0 || ledger > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
				 errmsg("dropping extension jldp would destroy its keys (%lld) and its budget ledger (%lld rows)",
						(long long) keys, (long long) ledger),
				 errdetail("Sketches released under a dropped key can no longer be reproduced, and the budget spent on each dataset would be forgotten."),
				 errhint("Keep them with pg_dump first; then SET jldp.allow_drop = on (superuser) and drop again.")));
	PG_RETURN_VOID();
}
