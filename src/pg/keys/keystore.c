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
 *
 * With a master key configured (pg/keys/keywrap_master.c) a secret is stored
 * encrypted and authenticated (math/crypto/keywrap.c: ChaCha20-Poly1305, bound to
 * the key's name), so the table, its WAL, a backup or a dump reveal nothing
 * without the master key; without one it is stored as 32 plain bytes, as
 * before 0.3.0 (docs/design/keys_at_rest.md).
 */
#include "postgres.h"

#include "fmgr.h"


#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_authid.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "commands/trigger.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "pg/keys/keystore.h"
#include "pg/keys/keywrap_master.h"
#include "pg/catalog/owner.h"
#include "pg/common/messages.h"


#define ATTNUM_NAME 1
#define ATTNUM_SECRET 2
#define ATTNUM_FINGERPRINT 3
#define ATTNUM_OWNER 4
#define ATTNUM_USERS 6			/* since 0.5.0 */

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

/* the master key (current or previous) whose id is id; false if neither */
static bool
master_for(const uint8 *id, uint8 mk[JL_MASTER_KEY_BYTES])
{
	uint8		have[JL_MASTER_ID_BYTES];

	if (jl_master_key(mk, have) && memcmp(have, id, JL_MASTER_ID_BYTES) == 0)
		return true;
	if (jl_previous_master_key(mk, have) && memcmp(have, id, JL_MASTER_ID_BYTES) == 0)
		return true;
	explicit_bzero(mk, JL_MASTER_KEY_BYTES);
	return false;
}

/* open a wrapped secret of key name (at rest or exported), or ERROR */
static void
unwrap_or_error(const char *name, JlWrapPurpose purpose, const uint8 *w, size_t n,
				uint8 secret[JL_KEY_BYTES])
{
	uint8		mk[JL_MASTER_KEY_BYTES];
	JlUnwrapResult r;

	if (n != JL_WRAP_BYTES || w[0] != (uint8) purpose)
		ereport(ERROR,
				(errcode(purpose == JL_WRAP_EXPORT ? ERRCODE_INVALID_PARAMETER_VALUE : ERRCODE_DATA_CORRUPTED),
				 errmsg("the %s secret of key \"%s\" is malformed",
						purpose == JL_WRAP_EXPORT ? "exported" : "stored", jl_msg_str(name)),
				 purpose == JL_WRAP_EXPORT ? errhint("Pass the bytes jl_key_export returned.") : 0));
	if (!master_for(jl_keywrap_master_id(w), mk))
	{
		char		hex[2 * JL_MASTER_ID_BYTES + 1];

		jl_hex(jl_keywrap_master_id(w), JL_MASTER_ID_BYTES, hex);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the %s secret of key \"%s\" is encrypted under master key %s, which is not configured here",
						purpose == JL_WRAP_EXPORT ? "exported" : "stored", jl_msg_str(name), hex),
				 errhint("Set jldp.master_key_file or jldp.master_key_command in postgresql.conf to that master key (compare jl_master_key_id()).")));
	}
	r = jl_keyunwrap(mk, purpose, name, strlen(name), w, n, secret);
	explicit_bzero(mk, sizeof(mk));
	if (r != JL_UNWRAP_OK)
		ereport(ERROR,
				(errcode(purpose == JL_WRAP_EXPORT ? ERRCODE_INVALID_PARAMETER_VALUE : ERRCODE_DATA_CORRUPTED),
				 errmsg("the %s secret of key \"%s\" does not authenticate",
						purpose == JL_WRAP_EXPORT ? "exported" : "stored", jl_msg_str(name)),
				 errdetail("It was altered, or wrapped for a key of another name.")));
}

/*
 * The 32 secret bytes of a stored secret: wrapped, or plain when no master
 * key is configured.  With a master key a
 * plain row is refused: a role that can write the table could otherwise
 * plant a secret it knows.  Only jl_key_rewrap (allow_plain) opens one, to
 * encrypt it.
 */
static void
open_stored(const char *name, const uint8 *b, size_t n, bool allow_plain,
			uint8 secret[JL_KEY_BYTES])
{
	if (n == JL_KEY_BYTES)
	{
		uint8		mk[JL_MASTER_KEY_BYTES],
					id[JL_MASTER_ID_BYTES];

		if (!allow_plain && jl_master_key(mk, id))
		{
			explicit_bzero(mk, sizeof(mk));
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the secret of key \"%s\" is stored unencrypted, and a master key is configured",
							jl_msg_str(name)),
					 errhint("If the key was stored before the master key was configured, a superuser encrypts it with SELECT jl_key_rewrap(); a plain secret written to %s since then is not to be trusted: drop the key.",
							 JLDP_KEY_TABLE)));
		}
		explicit_bzero(mk, sizeof(mk));
		memcpy(secret, b, JL_KEY_BYTES);
	}
	else
		unwrap_or_error(name, JL_WRAP_AT_REST, b, n, secret);
}

/* the fingerprint stored beside the secret must be the secret's, or ERROR */
static void
check_fingerprint(const char *name, text *stored, const uint8 secret[JL_KEY_BYTES])
{
	char		fp[33];

	jl_key_fingerprint(secret, fp);
	if (stored == NULL || VARSIZE_ANY_EXHDR(stored) != strlen(fp) ||
		memcmp(VARDATA_ANY(stored), fp, strlen(fp)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the stored fingerprint of key \"%s\" is not its secret's", jl_msg_str(name)),
				 errdetail("The row of %s was altered.", JLDP_KEY_TABLE)));
}

static void
random_nonce(uint8 nonce[JL_AEAD_NONCE_BYTES])
{
	if (!pg_strong_random(nonce, JL_AEAD_NONCE_BYTES))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random nonce")));
}

/* the stored form of a secret: wrapped when a master key is configured */
static bytea *
stored_form(const char *name, const uint8 *secret)
{
	uint8		mk[JL_MASTER_KEY_BYTES],
				id[JL_MASTER_ID_BYTES],
				nonce[JL_AEAD_NONCE_BYTES];
	bytea	   *b;

	if (!jl_master_key(mk, id))
	{
		b = palloc(VARHDRSZ + JL_KEY_BYTES);
		SET_VARSIZE(b, VARHDRSZ + JL_KEY_BYTES);
		memcpy(VARDATA(b), secret, JL_KEY_BYTES);
		return b;
	}
	random_nonce(nonce);
	b = palloc(VARHDRSZ + JL_WRAP_BYTES);
	SET_VARSIZE(b, VARHDRSZ + JL_WRAP_BYTES);
	jl_keywrap(mk, JL_WRAP_AT_REST, name, strlen(name), secret, nonce,
			   (uint8 *) VARDATA(b));
	explicit_bzero(mk, sizeof(mk));
	return b;
}

/*
 * Whether the current role may use the key of this row: a superuser, its
 * creator (or a member of the creator's role), or a role it was granted to
 * with jl_key_grant (or a member of one).  An owner that no longer exists
 * grants nothing.
 */
static bool
may_use_key(TupleTableSlot *slot)
{
	Oid			me = GetUserId();
	bool		isnull;
	Datum		d;

	if (superuser_arg(me))
		return true;
	d = slot_getattr(slot, ATTNUM_OWNER, &isnull);
	if (!isnull && TupleDescAttr(slot->tts_tupleDescriptor, ATTNUM_OWNER - 1)->atttypid == NAMEOID)
	{
		Oid			owner = get_role_oid(NameStr(*DatumGetName(d)), true);

		if (OidIsValid(owner) && has_privs_of_role(me, owner))
			return true;
	}
	if (slot->tts_tupleDescriptor->natts < ATTNUM_USERS)
		return false;
	d = slot_getattr(slot, ATTNUM_USERS, &isnull);
	if (!isnull)
	{
		ArrayType  *a = DatumGetArrayTypeP(d);
		Datum	   *users;
		bool	   *nulls;
		int			n,
					i;

		deconstruct_array(a, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR, &users, &nulls, &n);
		for (i = 0; i < n; i++)
		{
			Oid			r;

			if (nulls[i])
				continue;
			r = get_role_oid(NameStr(*DatumGetName(users[i])), true);
			if (OidIsValid(r) && has_privs_of_role(me, r))
				return true;
		}
	}
	return false;
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
			Datum		f;

			if (!may_use_key(slot))
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("key \"%s\" is not yours to use", jl_msg_str(name)),
						 errdetail("A key is used by its creator (or a member of the creator's role), by roles it was granted to, and by superusers."),
						 errhint("Its creator can allow it: jl_key_grant('%s', role).", jl_msg_str(name))));
			d = slot_getattr(slot, ATTNUM_SECRET, &isnull);
			if (isnull)
				continue;
			b = DatumGetByteaPP(d);
			f = slot_getattr(slot, ATTNUM_FINGERPRINT, &isnull);
			open_stored(name, (const uint8 *) VARDATA_ANY(b),
						VARSIZE_ANY_EXHDR(b), false, key->secret);
			check_fingerprint(name, isnull ? NULL : DatumGetTextPP(f), key->secret);
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
	bytea	   *b;
	Oid			types[4] = {TEXTOID, BYTEAOID, TEXTOID, TEXTOID};
	Datum		values[4];
	JlOwnerScope scope;
	int			rc;

	check_key_name(name);
	b = stored_form(name, secret);
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
	rc = SPI_execute_with_args(psprintf("INSERT INTO %s (name, secret, fingerprint, owner) VALUES ($1, $2, $3, $4::pg_catalog.name)",
										tbl),
							   4, types, values, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "SPI_execute_with_args failed: %d", rc);
	jl_restore_user(&scope);
	SPI_finish();

	explicit_bzero(VARDATA(b), VARSIZE(b) - VARHDRSZ);
	return cstring_to_text(fp);
}

/*
 * Lock the row of key name (FOR UPDATE) and check that the caller created
 * it, is a member of its creator's role, or is a superuser; what names the
 * action in the message.  Call connected to SPI, as the extension's owner.
 */
static void
lock_own_key(const char *tbl, const char *name, Oid caller, Oid nsp, const char *what,
			 uint8 *secret)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	Oid			owner;
	char	   *owner_name;
	bool		isnull;
	int			rc;

	values[0] = CStringGetTextDatum(name);
	rc = SPI_execute_with_args(psprintf("SELECT owner, secret, fingerprint FROM %s WHERE name = $1 FOR UPDATE",
										tbl),
							   1, types, values, NULL, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed: %d", rc);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("key \"%s\" does not exist", jl_msg_str(name))));
	owner_name = NameStr(*DatumGetName(SPI_getbinval(SPI_tuptable->vals[0],
													 SPI_tuptable->tupdesc, 1, &isnull)));
	/* an owner that no longer exists: a superuser's key (fail closed) */
	owner = get_role_oid(owner_name, true);
	if (!superuser_arg(caller) &&
		(!OidIsValid(owner) || !has_privs_of_role(caller, owner)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only the creator of key \"%s\" (or a member of its role) or a superuser may %s it",
						jl_msg_str(name), what)));
	if (secret)
	{
		/* from the row whose owner was checked, not from another snapshot */
		bytea	   *b = DatumGetByteaPP(SPI_getbinval(SPI_tuptable->vals[0],
													  SPI_tuptable->tupdesc, 2, &isnull));
		Datum		f = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull);

		open_stored(name, (const uint8 *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), false, secret);
		check_fingerprint(name, isnull ? NULL : DatumGetTextPP(f), secret);
	}
}

static void
require_master_key(uint8 mk[JL_MASTER_KEY_BYTES], uint8 id[JL_MASTER_ID_BYTES], const char *what)
{
	if (!jl_master_key(mk, id))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s needs a master key, and none is configured", what),
				 errhint("Set jldp.master_key_file or jldp.master_key_command in postgresql.conf and reload.")));
}

text *
jl_key_store_create(Oid nsp, const char *name)
{
	uint8		secret[JL_KEY_BYTES];
	text	   *fp;

	if (!pg_strong_random(secret, sizeof(secret)))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random key")));
	fp = insert_key(nsp, name, secret);
	explicit_bzero(secret, sizeof(secret));
	return fp;
}

static void
require_superuser(const char *what)
{
	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only a superuser may %s", what)));
}

text *
jl_key_store_import(Oid nsp, const char *name, const uint8 *secret, size_t n)
{
	require_superuser("import a key");
	if (n != JL_KEY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a key secret must be exactly %d bytes, not %d",
						JL_KEY_BYTES, (int) n)));
	return insert_key(nsp, name, secret);
}

static void
grant_or_revoke(Oid nsp, const char *name, const char *role, bool grant)
{
	char	   *tbl = key_table_qualified(nsp);
	Oid			types[2] = {TEXTOID, NAMEOID};
	Datum		values[2];
	Oid			caller = GetUserId();
	JlOwnerScope scope;
	int			rc;

	values[0] = CStringGetTextDatum(name);
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(role));

	SPI_connect();
	jl_become_owner(nsp, &scope);
	lock_own_key(tbl, name, caller, nsp, grant ? "grant" : "revoke", NULL);
	rc = SPI_execute_with_args(psprintf(grant ?
										"UPDATE %s SET users = CASE WHEN $2 = ANY (users) THEN users "
										"ELSE pg_catalog.array_append(users, $2) END WHERE name = $1" :
										"UPDATE %s SET users = pg_catalog.array_remove(users, $2) WHERE name = $1",
										tbl),
							   2, types, values, NULL, false, 0);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "SPI_execute_with_args failed: %d", rc);
	jl_restore_user(&scope);
	SPI_finish();
}

void
jl_key_store_grant(Oid nsp, const char *name, Oid role)
{
	grant_or_revoke(nsp, name, GetUserNameFromId(role, false), true);
}

void
jl_key_store_revoke(Oid nsp, const char *name, const char *role)
{
	grant_or_revoke(nsp, name, role, false);
}

void
jl_key_store_drop(Oid nsp, const char *name)
{
	char	   *tbl = key_table_qualified(nsp);
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	Oid			caller = GetUserId();
	JlOwnerScope scope;
	int			rc;

	values[0] = CStringGetTextDatum(name);
	SPI_connect();
	jl_become_owner(nsp, &scope);
	lock_own_key(tbl, name, caller, nsp, "drop", NULL);
	rc = SPI_execute_with_args(psprintf("DELETE FROM %s WHERE name = $1", tbl),
							   1, types, values, NULL, false, 0);
	if (rc != SPI_OK_DELETE)
		elog(ERROR, "SPI_execute_with_args failed: %d", rc);
	jl_restore_user(&scope);
	SPI_finish();
}

bytea *
jl_key_store_export(Oid nsp, const char *name)
{
	uint8		mk[JL_MASTER_KEY_BYTES],
				id[JL_MASTER_ID_BYTES],
				nonce[JL_AEAD_NONCE_BYTES];
	JlKey		key;
	JlOwnerScope scope;
	bytea	   *out;

	require_master_key(mk, id, "jl_key_export");

	SPI_connect();
	jl_become_owner(nsp, &scope);
	lock_own_key(key_table_qualified(nsp), name, GetUserId(), nsp, "export", key.secret);
	jl_restore_user(&scope);
	SPI_finish();

	random_nonce(nonce);
	out = palloc(VARHDRSZ + JL_WRAP_BYTES);
	SET_VARSIZE(out, VARHDRSZ + JL_WRAP_BYTES);
	jl_keywrap(mk, JL_WRAP_EXPORT, name, strlen(name), key.secret, nonce,
			   (uint8 *) VARDATA(out));
	explicit_bzero(mk, sizeof(mk));
	explicit_bzero(key.secret, sizeof(key.secret));
	return out;
}

text *
jl_key_store_import_wrapped(Oid nsp, const char *name, const uint8 *wrapped, size_t n)
{
	uint8		secret[JL_KEY_BYTES];
	text	   *fp;

	require_superuser("import a key");
	check_key_name(name);
	unwrap_or_error(name, JL_WRAP_EXPORT, wrapped, n, secret);
	fp = insert_key(nsp, name, secret);
	explicit_bzero(secret, sizeof(secret));
	return fp;
}

int32
jl_key_store_rewrap(Oid nsp)
{
	char	   *tbl = key_table_qualified(nsp);
	uint8		mk[JL_MASTER_KEY_BYTES],
				id[JL_MASTER_ID_BYTES];
	JlOwnerScope scope;
	SPITupleTable *rows;
	uint64		nrows,
				i;
	int32		changed = 0;
	int			rc;

	require_superuser("rewrap the keys");
	require_master_key(mk, id, "jl_key_rewrap");
	explicit_bzero(mk, sizeof(mk));
	SPI_connect();
	jl_become_owner(nsp, &scope);
	rc = SPI_execute(psprintf("SELECT name, secret, fingerprint FROM %s ORDER BY name FOR UPDATE", tbl), false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute failed: %d", rc);
	rows = SPI_tuptable;
	nrows = SPI_processed;
	for (i = 0; i < nrows; i++)
	{
		bool		isnull;
		char	   *name = TextDatumGetCString(SPI_getbinval(rows->vals[i], rows->tupdesc, 1, &isnull));
		bytea	   *b = DatumGetByteaPP(SPI_getbinval(rows->vals[i], rows->tupdesc, 2, &isnull));
		const uint8 *p = (const uint8 *) VARDATA_ANY(b);
		size_t		n = VARSIZE_ANY_EXHDR(b);
		uint8		secret[JL_KEY_BYTES];
		Oid			types[2] = {TEXTOID, BYTEAOID};
		Datum		values[2];
		bytea	   *nb;

		if (n == JL_WRAP_BYTES && memcmp(jl_keywrap_master_id(p), id, JL_MASTER_ID_BYTES) == 0)
			continue;			/* already under the current master key */
		open_stored(name, p, n, true, secret);
		{
			Datum		f = SPI_getbinval(rows->vals[i], rows->tupdesc, 3, &isnull);

			check_fingerprint(name, isnull ? NULL : DatumGetTextPP(f), secret);
		}
		nb = stored_form(name, secret);
		explicit_bzero(secret, sizeof(secret));
		values[0] = CStringGetTextDatum(name);
		values[1] = PointerGetDatum(nb);
		rc = SPI_execute_with_args(psprintf("UPDATE %s SET secret = $2 WHERE name = $1", tbl),
								   2, types, values, NULL, false, 0);
		if (rc != SPI_OK_UPDATE)
			elog(ERROR, "SPI_execute_with_args failed: %d", rc);
		changed++;
	}
	jl_restore_user(&scope);
	SPI_finish();
	return changed;
}

char *
jl_key_master_id_hex(void)
{
	uint8		mk[JL_MASTER_KEY_BYTES],
				id[JL_MASTER_ID_BYTES];
	char	   *hex;

	if (!jl_master_key(mk, id))
		return NULL;
	explicit_bzero(mk, sizeof(mk));
	hex = palloc(2 * JL_MASTER_ID_BYTES + 1);
	jl_hex(id, JL_MASTER_ID_BYTES, hex);
	return hex;
}
