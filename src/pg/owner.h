/*
 * owner.h - running SPI as the extension's owner, who owns its tables.
 */
#ifndef JLDP_PG_OWNER_H
#define JLDP_PG_OWNER_H

#include "postgres.h"

typedef struct JlOwnerScope
{
	Oid			save_user;
	int			save_sec;
	int			guc_level;		/* search_path pinned to pg_catalog, pg_temp */
} JlOwnerScope;

/*
 * Act as the owner of the extension in schema nsp, with search_path
 * pinned to pg_catalog, pg_temp, until jl_restore_user(scope).
 */
extern void jl_become_owner(Oid nsp, JlOwnerScope *scope);
extern void jl_restore_user(const JlOwnerScope *scope);

/* the owner of a relation */
extern Oid	jl_relation_owner(Oid relid);

/* pg_class.relrowsecurity of relid: row level security enabled */
extern bool jl_relation_row_security(Oid relid);

/*
 * Role columns of the extension's tables hold role names since 0.2.0;
 * 0.1.0's tables, until ALTER EXTENSION jldp UPDATE, hold OIDs.  True if
 * column of table (in schema nsp) is still an OID.
 */
extern bool jl_role_column_is_oid(Oid nsp, const char *table, const char *column);

/* SQL that stores the role named by parameter $n in that column */
extern char *jl_role_store_sql(Oid nsp, const char *table, const char *column, int n);

/* SQL that reads that column as a role name (an OID with no role: 'unknown (OID=n)') */
extern char *jl_role_read_sql(Oid nsp, const char *table, const char *column);

/*
 * jldp's two schemas: the API (jldp) and the catalog with everything no
 * user calls (jldp_internal), each a member of the extension.  Until
 * ALTER EXTENSION jldp UPDATE moves an installation older than 0.5.0
 * there, both are the schema of the calling function, fn_nsp.
 */
extern Oid	jl_catalog_nsp(Oid fn_nsp);
extern Oid	jl_api_nsp(Oid fn_nsp);

/* the catalog's schema for a C function called through fmgr */
#define JL_CATALOG_NSP(fcinfo) jl_catalog_nsp(get_func_namespace((fcinfo)->flinfo->fn_oid))

/* name qualified with the schema nsp and quoted, for SPI query text */
extern char *jl_qualified(Oid nsp, const char *name);

#endif
