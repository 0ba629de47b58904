/*
 * keystore.h - the secret keys P is derived from, read from the
 * extension's key table (never returned to SQL).
 */
#ifndef JLDP_PG_KEYSTORE_H
#define JLDP_PG_KEYSTORE_H

#include "postgres.h"

#include "math/projection.h"

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

#endif
