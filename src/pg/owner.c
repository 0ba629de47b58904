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

#include "pg/owner.h"

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

bool
jl_role_column_is_oid(Oid nsp, const char *table, const char *column)
{
	Oid			relid = get_relname_relid(table, nsp);

	return get_atttype(relid, get_attnum(relid, column)) == OIDOID;
}

char *
jl_role_store_sql(Oid nsp, const char *table, const char *column, int n)
{
	if (jl_role_column_is_oid(nsp, table, column))
		return psprintf("(SELECT oid FROM pg_catalog.pg_roles WHERE rolname = $%d::pg_catalog.name)", n);
	return psprintf("$%d::pg_catalog.name", n);
}

char *
jl_role_read_sql(Oid nsp, const char *table, const char *column)
{
	if (jl_role_column_is_oid(nsp, table, column))
		return psprintf("pg_catalog.pg_get_userbyid(%s)", quote_identifier(column));
	return psprintf("%s", quote_identifier(column));
}
