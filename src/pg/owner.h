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

/* name qualified with the schema nsp and quoted, for SPI query text */
extern char *jl_qualified(Oid nsp, const char *name);

#endif
