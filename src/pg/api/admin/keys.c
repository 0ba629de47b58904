/*
 * keys.c - the key functions (jl_key_create, jl_key_import,
 * jl_key_import_wrapped, jl_key_export, jl_key_grant, jl_key_revoke,
 * jl_key_drop, jl_key_rewrap, jl_master_key_id) and the key table's
 * statement trigger.  Each reads its arguments and calls the key store
 * (pg/keys/keystore.c), which checks the caller and holds the secrets.
 */
#include "postgres.h"

#include "commands/trigger.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "pg/catalog/owner.h"
#include "pg/common/args.h"
#include "pg/keys/keystore.h"

PG_FUNCTION_INFO_V1(jl_key_create);
PG_FUNCTION_INFO_V1(jl_key_import);
PG_FUNCTION_INFO_V1(jl_key_import_wrapped);
PG_FUNCTION_INFO_V1(jl_key_export);
PG_FUNCTION_INFO_V1(jl_key_grant);
PG_FUNCTION_INFO_V1(jl_key_revoke);
PG_FUNCTION_INFO_V1(jl_key_drop);
PG_FUNCTION_INFO_V1(jl_key_rewrap);
PG_FUNCTION_INFO_V1(jl_master_key_id);
PG_FUNCTION_INFO_V1(jl_key_table_changed);

/* jl_key_create(name): a new random key; returns its fingerprint */
Datum
jl_key_create(PG_FUNCTION_ARGS)
{
	jl_require_args(fcinfo, 1, "key name");
	PG_RETURN_TEXT_P(jl_key_store_create(JL_CATALOG_NSP(fcinfo),
										 text_to_cstring(PG_GETARG_TEXT_PP(0))));
}

/* jl_key_import(name, secret bytea): a key of 32 given bytes (superuser) */
Datum
jl_key_import(PG_FUNCTION_ARGS)
{
	bytea	   *b;

	jl_require_args(fcinfo, 2, "key name and secret");
	b = PG_GETARG_BYTEA_PP(1);
	PG_RETURN_TEXT_P(jl_key_store_import(JL_CATALOG_NSP(fcinfo),
										 text_to_cstring(PG_GETARG_TEXT_PP(0)),
										 (const uint8 *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b)));
}

/*
 * jl_key_import_wrapped(name, wrapped): create key name from what
 * jl_key_export(name) returned on a server with the same master key;
 * returns the fingerprint, to compare with the exporting server's.
 * Superuser only, as jl_key_import.
 */
Datum
jl_key_import_wrapped(PG_FUNCTION_ARGS)
{
	bytea	   *w;

	jl_require_args(fcinfo, 2, "key name and wrapped secret");
	w = PG_GETARG_BYTEA_PP(1);
	PG_RETURN_TEXT_P(jl_key_store_import_wrapped(JL_CATALOG_NSP(fcinfo),
												 text_to_cstring(PG_GETARG_TEXT_PP(0)),
												 (const uint8 *) VARDATA_ANY(w), VARSIZE_ANY_EXHDR(w)));
}

/*
 * jl_key_export(name): the key's secret wrapped under the master key for
 * carrying to a server with the same master key (jl_key_import_wrapped).
 * The bytes reveal nothing without the master key, so they may pass
 * through query text and logs.  The key's creator or a superuser.
 */
Datum
jl_key_export(PG_FUNCTION_ARGS)
{
	jl_require_args(fcinfo, 1, "key name");
	PG_RETURN_BYTEA_P(jl_key_store_export(JL_CATALOG_NSP(fcinfo),
										  text_to_cstring(PG_GETARG_TEXT_PP(0))));
}

/*
 * jl_key_grant(name, role regrole) / jl_key_revoke(name, role name): let a
 * role (and its members) use a key, or no longer; the revoke by the role's
 * name, so that a grantee dropped since is revoked before a new role takes
 * its name.  Its creator (or a member of the creator's role) or a superuser.
 */
Datum
jl_key_grant(PG_FUNCTION_ARGS)
{
	jl_require_args(fcinfo, 2, "key name and role");
	jl_key_store_grant(JL_CATALOG_NSP(fcinfo), text_to_cstring(PG_GETARG_TEXT_PP(0)),
					   PG_GETARG_OID(1));
	PG_RETURN_VOID();
}

Datum
jl_key_revoke(PG_FUNCTION_ARGS)
{
	jl_require_args(fcinfo, 2, "key name and role");
	jl_key_store_revoke(JL_CATALOG_NSP(fcinfo), text_to_cstring(PG_GETARG_TEXT_PP(0)),
						NameStr(*PG_GETARG_NAME(1)));
	PG_RETURN_VOID();
}

/* jl_key_drop(name): its creator (or a member of its role) or a superuser */
Datum
jl_key_drop(PG_FUNCTION_ARGS)
{
	jl_require_args(fcinfo, 1, "key name");
	jl_key_store_drop(JL_CATALOG_NSP(fcinfo), text_to_cstring(PG_GETARG_TEXT_PP(0)));
	PG_RETURN_VOID();
}

/*
 * jl_key_rewrap(): encrypt every key under the configured master key: plain
 * secrets (stored before a master key was configured) and secrets wrapped
 * under jldp.previous_master_key_* (rotation).  Returns how many rows
 * changed.  Superuser only.
 */
Datum
jl_key_rewrap(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(jl_key_store_rewrap(JL_CATALOG_NSP(fcinfo)));
}

/* jl_master_key_id(): the configured master key's id (hex), NULL if none */
Datum
jl_master_key_id(PG_FUNCTION_ARGS)
{
	char	   *hex = jl_key_master_id_hex();

	if (hex == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(hex));
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
