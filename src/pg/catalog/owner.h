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
 * jldp's two schemas: the API (jldp) and the catalog with everything no
 * user calls (jldp_internal), each a member of the extension.  Until
 * ALTER EXTENSION jldp UPDATE moves an installation older than 0.5.0
 * there, both are the schema of the calling function, fn_nsp.
 */
extern Oid	jl_catalog_nsp(Oid fn_nsp);
extern Oid	jl_api_nsp(Oid fn_nsp);

/*
 * ERROR (55000) unless the extension's SQL in this database is the
 * library's version (JLDP_VERSION): the library lays out and reads its
 * catalog only as its own version does, so between installing a new
 * library and ALTER EXTENSION jldp UPDATE nothing reads or writes it.
 * Within CREATE or ALTER EXTENSION (an update script's steps) it passes.
 */
extern void jl_require_sql_version(void);

/* jl_catalog_nsp after jl_require_sql_version */
extern Oid	jl_catalog_nsp_checked(Oid fn_nsp);

/*
 * The catalog's schema for a C function called through fmgr, refused
 * under SQL of another version (jl_require_sql_version).  The event
 * trigger that guards the catalog's tables uses jl_catalog_nsp itself: it
 * fires on every DDL statement of the database.
 */
#define JL_CATALOG_NSP(fcinfo) jl_catalog_nsp_checked(get_func_namespace((fcinfo)->flinfo->fn_oid))

/* name qualified with the schema nsp and quoted, for SPI query text */
extern char *jl_qualified(Oid nsp, const char *name);

#endif
