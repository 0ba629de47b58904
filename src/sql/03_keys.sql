-- keys: created, imported, dropped, wrapped at rest

CREATE VIEW jldp.jl_keys WITH (security_barrier) AS
  SELECT name, fingerprint, owner, created,
         CASE WHEN length(secret) = 77
              THEN encode(substr(secret, 2, 16), 'hex') END AS master_key_id,
         users
  FROM jldp_internal.jldp_key
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
     OR EXISTS (SELECT FROM pg_catalog.unnest(users) u
                 WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(u)), 'USAGE'))
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);

COMMENT ON VIEW jldp.jl_keys IS
  'The keys the current role may use (its own, those granted to a role it has, all for superusers) with their non-secret fingerprints, the id of the master key that encrypts each (NULL: stored unencrypted) and the roles granted them.';

CREATE FUNCTION jldp.jl_key_create(name text DEFAULT 'default')
RETURNS text
AS 'MODULE_PATHNAME', 'jl_key_create'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_key_create(text) IS
  'Create a new 256-bit key from pg_strong_random; returns its non-secret fingerprint.';

CREATE FUNCTION jldp.jl_key_import(name text, secret bytea)
RETURNS text
AS 'MODULE_PATHNAME', 'jl_key_import'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_key_import(text, bytea) IS
  'Pin a key to 32 known bytes (reproducible tests, the same key on every shard). Superuser only; the bytes appear in the query text.';

CREATE FUNCTION jldp.jl_key_grant(name text, role regrole)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_key_grant'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_key_grant(text, regrole) IS
  'Let a role (and its members) use a key: release and project with it. Its creator, a member of the creator''s role, or a superuser. A role that may project with a key learns its P.';

CREATE FUNCTION jldp.jl_key_revoke(name text, role name)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_key_revoke'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_key_revoke(text, name) IS
  'Take back what jl_key_grant allowed (by the role''s name: also a role dropped since, whose name a new role could take).';

CREATE FUNCTION jldp.jl_key_drop(name text)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_key_drop'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_key_drop(text) IS
  'Drop a key (its creator, a member of the creator''s role, or a superuser). Sketches released under it can no longer be reproduced.';

-- Keys changed under a cached key, and key owners and releasers by name -----
-- every write to the key table sends a relcache invalidation of it, so
-- that call sites which cached a key look it up again (docs/design/internals.md)
CREATE FUNCTION jldp_internal.jl_key_table_changed()
RETURNS trigger
AS 'MODULE_PATHNAME', 'jl_key_table_changed'
LANGUAGE C;

COMMENT ON FUNCTION jldp_internal.jl_key_table_changed() IS
  'Trigger on jldp_key: tells every backend that cached keys must be looked up again.';

CREATE TRIGGER jldp_key_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON jldp_internal.jldp_key
  FOR EACH STATEMENT EXECUTE FUNCTION jldp_internal.jl_key_table_changed();

-- Keys at rest -------------------------------------------------------------
-- With jldp.master_key_file or jldp.master_key_command set (postgresql.conf),
-- key secrets are stored encrypted (ChaCha20-Poly1305) under that master
-- key; shards receive keys wrapped under it (docs/design/keys_at_rest.md).
CREATE FUNCTION jldp.jl_key_export(name text)
RETURNS bytea
AS 'MODULE_PATHNAME', 'jl_key_export'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_key_export(text) IS
  'The key''s secret encrypted under the master key, for jl_key_import_wrapped on a server with the same master key (a shard); reveals nothing without the master key. The key''s creator or a superuser.';

CREATE FUNCTION jldp.jl_key_import_wrapped(name text, wrapped bytea)
RETURNS text
AS 'MODULE_PATHNAME', 'jl_key_import_wrapped'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_key_import_wrapped(text, bytea) IS
  'Create the key name from what jl_key_export(name) returned on a server with the same master key; returns its fingerprint, to compare with the exporting server''s jl_keys. Superuser only.';

CREATE FUNCTION jldp.jl_key_rewrap()
RETURNS int
AS 'MODULE_PATHNAME', 'jl_key_rewrap'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_key_rewrap() IS
  'Encrypt every key under the configured master key: unencrypted keys, and keys encrypted under jldp.previous_master_key_file or _command (rotation). Returns the number of keys changed. Superuser only.';

CREATE FUNCTION jldp.jl_master_key_id()
RETURNS text
AS 'MODULE_PATHNAME', 'jl_master_key_id'
LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION jldp.jl_master_key_id() IS
  'The non-secret id of the configured master key (compare across servers), NULL when none is configured.';
