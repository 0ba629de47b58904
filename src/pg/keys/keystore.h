/*
 * keystore.h - the secret keys P is derived from, read from the
 * extension's key table (never returned to SQL).
 */
#ifndef JLDP_PG_KEYSTORE_H
#define JLDP_PG_KEYSTORE_H

#include "postgres.h"

#include "math/projection/projection.h"

#define JLDP_KEY_TABLE "jldp_key"

typedef struct JlKey
{
	uint8		secret[JL_KEY_BYTES];
	char		fingerprint[33];
} JlKey;

/* The key called name of the extension in schema nsp, or ERROR. */
extern void jl_key_lookup(Oid nsp, const char *name, JlKey *key);

/*
 * Advanced whenever the key table may have changed as this backend sees it
 * (a relcache invalidation of the table, which a trigger on it sends for
 * every write; or a reset of all caches).  A key cached with the value
 * current at its lookup is still the table's while the value is the same:
 * one integer compare per use.
 */
extern uint64 jl_key_generation;

/*
 * The key functions' work, for their entry points (api/admin/keys.c): each
 * checks the caller (its creator, a member of its creator's role, or a
 * superuser, as the function says) and writes the key table as the
 * extension's owner.  The secret stays in keystore.c: create makes it here,
 * export returns it wrapped, import takes it in.
 */
extern text *jl_key_store_create(Oid nsp, const char *name);
extern text *jl_key_store_import(Oid nsp, const char *name, const uint8 *secret, size_t n);
extern text *jl_key_store_import_wrapped(Oid nsp, const char *name, const uint8 *wrapped, size_t n);
extern void jl_key_store_grant(Oid nsp, const char *name, Oid role);
/* by the role's name: also a role dropped since */
extern void jl_key_store_revoke(Oid nsp, const char *name, const char *role);
extern void jl_key_store_drop(Oid nsp, const char *name);
extern bytea *jl_key_store_export(Oid nsp, const char *name);
extern int32 jl_key_store_rewrap(Oid nsp);

/* The configured master key's id in hex, NULL if none. */
extern char *jl_key_master_id_hex(void);

#endif
