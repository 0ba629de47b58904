-- jldp 0.1.0: keys, private release with the JL + Laplace mechanism, and
-- distance recovery.

\echo Use "CREATE EXTENSION jldp" to load this file. \quit

-- Keys -------------------------------------------------------------------

CREATE TABLE @extschema@.jldp_key (
    name        text PRIMARY KEY,
    secret      bytea NOT NULL CHECK (length(secret) = 32),
    fingerprint text NOT NULL,
    owner       oid NOT NULL,
    created     timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON @extschema@.jldp_key FROM PUBLIC;
COMMENT ON TABLE @extschema@.jldp_key IS
  'jldp secret keys. Readable by no role but its owner; the release functions read it internally.';
-- keys are part of a backup: sketches released under a key are only
-- reproducible (and shards only consistent) with the same key
SELECT pg_catalog.pg_extension_config_dump('@extschema@.jldp_key', '');

CREATE VIEW @extschema@.jl_keys AS
  SELECT name, fingerprint, owner::regrole AS owner, created
  FROM @extschema@.jldp_key;
REVOKE ALL ON @extschema@.jl_keys FROM PUBLIC;
COMMENT ON VIEW @extschema@.jl_keys IS
  'Keys by name with their non-secret fingerprints; grant SELECT to curators.';

CREATE FUNCTION @extschema@.jl_key_create(name text DEFAULT 'default')
RETURNS text
AS 'MODULE_PATHNAME', 'jl_key_create'
LANGUAGE C VOLATILE SECURITY DEFINER PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.jl_key_create(text) IS
  'Create a new 256-bit key from pg_strong_random; returns its non-secret fingerprint.';

CREATE FUNCTION @extschema@.jl_key_import(name text, secret bytea)
RETURNS text
AS 'MODULE_PATHNAME', 'jl_key_import'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.jl_key_import(text, bytea) IS
  'Pin a key to 32 known bytes (reproducible tests, the same key on every shard). Superuser only; the bytes appear in the query text.';

CREATE FUNCTION @extschema@.jl_key_drop(name text)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_key_drop'
LANGUAGE C VOLATILE SECURITY DEFINER PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.jl_key_drop(text) IS
  'Drop a key (its creator or a superuser). Sketches released under it can no longer be reproduced.';

-- Release ----------------------------------------------------------------

CREATE FUNCTION @extschema@.jl_private_release(
    x float8[], k int, epsilon float8,
    neighbor text DEFAULT 'element', bound float8 DEFAULT 1,
    calibration text DEFAULT 'exact', delta float8 DEFAULT NULL,
    key text DEFAULT 'default')
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_private_release'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_private_release(float8[], int, float8, text, float8, text, float8, text) IS
  'Private k-dimensional sketch of x: x P (secret Gaussian JL projection from the key) rounded to a power-of-two grid plus exact discrete Laplace noise calibrated to the L1 sensitivity of the realized P. See jl_release_info for the guarantee.';

CREATE FUNCTION @extschema@.jl_release_info(
    d int, k int, epsilon float8,
    neighbor text DEFAULT 'element', bound float8 DEFAULT 1,
    calibration text DEFAULT 'exact', delta float8 DEFAULT NULL,
    key text DEFAULT 'default')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'jl_release_info'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_release_info(int, int, float8, text, float8, text, float8, text) IS
  'What a release of d-dimensional rows with these options guarantees (epsilon, delta that hold) and uses (sensitivity, scale, grid, noise_variance). Contains no secret.';

CREATE FUNCTION @extschema@.jl_project(x float8[], k int, key text DEFAULT 'default')
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_project'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_project(float8[], int, text) IS
  'Noise-free x P, for the curator''s own verification. Reveals P: never grant it to analysts.';

REVOKE ALL ON FUNCTION @extschema@.jl_key_create(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.jl_key_import(text, bytea) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.jl_key_drop(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.jl_private_release(float8[], int, float8, text, float8, text, float8, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.jl_release_info(int, int, float8, text, float8, text, float8, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.jl_project(float8[], int, text) FROM PUBLIC;

-- Recovery (reads sketches only: executable by everyone) -----------------

CREATE FUNCTION @extschema@.jl_recover_dist(a float8[], b float8[], noise_variance float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_recover_dist(float8[], float8[], float8) IS
  'Unbiased estimate of the squared distance between the original rows: ||a - b||^2 - 2 k noise_variance.';

CREATE FUNCTION @extschema@.jl_recover_dist_stddev(a float8[], b float8[], noise_variance float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_stddev'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_recover_dist_stddev(float8[], float8[], float8) IS
  'Plug-in standard error of jl_recover_dist: sqrt(2 r^4/k + 8 s2 r^2 + 14 k s2^2) at r^2 = max(estimate, 0), over the projection and the Laplace noise.';
