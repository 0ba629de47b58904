/*
 * owner.c - running SPI as the extension's owner, who owns its tables
 * (keys, budget, registry), as PostgreSQL's referential-integrity triggers
 * do: callers reach those tables only through jldp's functions.
 */
#include "postgres.h"

#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "commands/extension.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg/catalog/owner.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"

/* schema name if it exists and is one of jldp's members, else fn_nsp */
static Oid
member_schema(const char *name, Oid fn_nsp)
{
	Oid			nsp = get_namespace_oid(name, true);

	if (OidIsValid(nsp) &&
		getExtensionOfObject(NamespaceRelationId, nsp) == get_extension_oid("jldp", true))
		return nsp;
	return fn_nsp;
}

Oid
jl_catalog_nsp(Oid fn_nsp)
{
	return member_schema("jldp_internal", fn_nsp);
}

Oid
jl_api_nsp(Oid fn_nsp)
{
	return member_schema("jldp", fn_nsp);
}

/* extversion of extension jldp in this database, or NULL */
static char *
installed_version(void)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	char	   *version = NULL;

	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
				CStringGetDatum("jldp"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, Anum_pg_extension_extversion,
									 RelationGetDescr(rel), &isnull);

		if (!isnull)
			version = text_to_cstring(DatumGetTextPP(d));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return version;
}

void
jl_require_sql_version(void)
{
	char	   *version;

	if (creating_extension)
		return;
	version = installed_version();
	if (version == NULL || strcmp(version, JLDP_VERSION) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("jldp's library is version %s, and its SQL in this database is version %s",
						JLDP_VERSION, version ? version : "(none)"),
				 errdetail("The library reads and writes its catalog (keys, budgets, ledger, registry) only as its own version lays it out."),
				 errhint("Run ALTER EXTENSION jldp UPDATE in this database.")));
}

Oid
jl_catalog_nsp_checked(Oid fn_nsp)
{
	jl_require_sql_version();
	return jl_catalog_nsp(fn_nsp);
}

char *
jl_qualified(Oid nsp, const char *name)
{
	return quote_qualified_identifier(get_namespace_name(nsp), name);
}

Oid
jl_relation_owner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

bool
jl_relation_row_security(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		rls;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	rls = ((Form_pg_class) GETSTRUCT(tup))->relrowsecurity;
	ReleaseSysCache(tup);
	return rls;
}

void
jl_become_owner(Oid nsp, JlOwnerScope *scope)
{
	Oid			relid = get_relname_relid("jldp_dataset", nsp);
	Oid			owner;

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table jldp_dataset is missing"),
				 errhint("Recreate the extension jldp.")));
	owner = jl_relation_owner(relid);

	GetUserIdAndSecContext(&scope->save_user, &scope->save_sec);
	SetUserIdAndSecContext(owner, scope->save_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);

	/*
	 * As a SECURITY DEFINER function would: the queries run with the owner's
	 * rights must not resolve operators or functions through the caller's
	 * search_path.
	 */
	scope->guc_level = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
							 true, 0, false);
}

void
jl_restore_user(const JlOwnerScope *scope)
{
	AtEOXact_GUC(true, scope->guc_level);
	SetUserIdAndSecContext(scope->save_user, scope->save_sec);
}
