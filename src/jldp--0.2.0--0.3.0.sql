-- jldp 0.2.0 -> 0.3.0.  Each section below adds what the same section at
-- the end of jldp--0.3.0.sql adds to a fresh install.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.3.0'" to load this file. \quit

-- Null-space cleaning ---------------------------------------------------------
-- Least squares of label vectors on feature vectors, and cleaning of feature
-- vectors for a known linear predictor (docs/nullspace.md).  No key, no
-- noise, no budget: deterministic functions of their arguments.
CREATE FUNCTION @extschema@.jl_linear_fit_trans(internal, float8[], float8[])
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.jl_linear_fit_trans(internal, float8[], float8[], float8)
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.jl_linear_fit_trans(internal, float8[], float8[], float8, boolean)
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.jl_linear_fit_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.jl_linear_fit_serialize(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'jl_linear_fit_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.jl_linear_fit_deserialize(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.jl_linear_fit_final(internal)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_linear_fit_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.jl_linear_fit_intercept_final(internal)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_linear_fit_intercept_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_linear_fit_trans(internal, float8[], float8[]) IS
  'Transition function of jl_linear_fit and jl_linear_fit_intercept.';
COMMENT ON FUNCTION @extschema@.jl_linear_fit_trans(internal, float8[], float8[], float8) IS
  'Transition function of jl_linear_fit and jl_linear_fit_intercept with a ridge.';
COMMENT ON FUNCTION @extschema@.jl_linear_fit_trans(internal, float8[], float8[], float8, boolean) IS
  'Transition function of jl_linear_fit and jl_linear_fit_intercept with a ridge and the intercept choice.';
COMMENT ON FUNCTION @extschema@.jl_linear_fit_combine(internal, internal) IS
  'Combine function of jl_linear_fit: merges the counts, means and centred co-moments of two partial states.';
COMMENT ON FUNCTION @extschema@.jl_linear_fit_serialize(internal) IS
  'Serial function of jl_linear_fit: the state as one flat bytea.';
COMMENT ON FUNCTION @extschema@.jl_linear_fit_deserialize(bytea, internal) IS
  'Deserial function of jl_linear_fit: the state back from its bytea, every field checked.';
COMMENT ON FUNCTION @extschema@.jl_linear_fit_final(internal) IS
  'Final function of jl_linear_fit: the d x m coefficients.';
COMMENT ON FUNCTION @extschema@.jl_linear_fit_intercept_final(internal) IS
  'Final function of jl_linear_fit_intercept: the m intercepts.';

CREATE AGGREGATE @extschema@.jl_linear_fit(x float8[], y float8[]) (
  SFUNC = @extschema@.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = @extschema@.jl_linear_fit_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = @extschema@.jl_linear_fit_combine,
  SERIALFUNC = @extschema@.jl_linear_fit_serialize,
  DESERIALFUNC = @extschema@.jl_linear_fit_deserialize,
  PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.jl_linear_fit(x float8[], y float8[], ridge float8) (
  SFUNC = @extschema@.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = @extschema@.jl_linear_fit_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = @extschema@.jl_linear_fit_combine,
  SERIALFUNC = @extschema@.jl_linear_fit_serialize,
  DESERIALFUNC = @extschema@.jl_linear_fit_deserialize,
  PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.jl_linear_fit(x float8[], y float8[], ridge float8, intercept boolean) (
  SFUNC = @extschema@.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = @extschema@.jl_linear_fit_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = @extschema@.jl_linear_fit_combine,
  SERIALFUNC = @extschema@.jl_linear_fit_serialize,
  DESERIALFUNC = @extschema@.jl_linear_fit_deserialize,
  PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.jl_linear_fit_intercept(x float8[], y float8[]) (
  SFUNC = @extschema@.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = @extschema@.jl_linear_fit_intercept_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = @extschema@.jl_linear_fit_combine,
  SERIALFUNC = @extschema@.jl_linear_fit_serialize,
  DESERIALFUNC = @extschema@.jl_linear_fit_deserialize,
  PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.jl_linear_fit_intercept(x float8[], y float8[], ridge float8) (
  SFUNC = @extschema@.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = @extschema@.jl_linear_fit_intercept_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = @extschema@.jl_linear_fit_combine,
  SERIALFUNC = @extschema@.jl_linear_fit_serialize,
  DESERIALFUNC = @extschema@.jl_linear_fit_deserialize,
  PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.jl_linear_fit(float8[], float8[]) IS
  'Least squares of label vectors y (m values) on feature vectors x (d values) with an intercept: the d x m coefficients W minimising ||Y - X W - 1 b^T||^2 (b from jl_linear_fit_intercept; the prediction is jl_linear_predict(x, W, b)). Rows with a NULL x or y are skipped; NULL over no rows. Minimum-norm W when X is rank-deficient.';
COMMENT ON AGGREGATE @extschema@.jl_linear_fit(float8[], float8[], float8) IS
  'Ridge regression: as jl_linear_fit(x, y), minimising ||Y - X W - 1 b^T||^2 + ridge ||W||^2 (the intercept is not penalised).';
COMMENT ON AGGREGATE @extschema@.jl_linear_fit(float8[], float8[], float8, boolean) IS
  'As jl_linear_fit(x, y, ridge); intercept => false fits Y = X W through the origin.';
COMMENT ON AGGREGATE @extschema@.jl_linear_fit_intercept(float8[], float8[]) IS
  'The m intercepts b of jl_linear_fit(x, y): mean(y) - W^T mean(x).';
COMMENT ON AGGREGATE @extschema@.jl_linear_fit_intercept(float8[], float8[], float8) IS
  'The m intercepts b of jl_linear_fit(x, y, ridge).';

CREATE FUNCTION @extschema@.jl_linear_predict(x float8[], coef float8[], intercept float8[] DEFAULT NULL)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_linear_predict'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_linear_predict(float8[], float8[], float8[]) IS
  'coef^T x + intercept: the prediction of a linear model (coef d x m, as jl_linear_fit returns it; intercept m values or NULL for none). NULL if x or coef is NULL.';

CREATE FUNCTION @extschema@.jl_nullspace_clean(x float8[], a_desired float8[], utility_error float8,
    method text DEFAULT 'waterfill')
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_nullspace_clean'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_nullspace_clean(float8[], float8[], float8, text) IS
  'Null-space cleaning, Algorithm 1: x with the components that the linear predictor a_desired (d x m, e.g. jl_linear_fit) barely sees removed, such that ||a_desired^T (x - result)||^2 <= utility_error, certified in floating point. The exact null space is always removed; the budget goes over the eigencomponents of a_desired a_desired^T by method => ''waterfill'' (the exact maximiser of the paper''s Theorem 2) or ''knapsack'' (the paper''s published Algorithm 1). The decomposition is cached per backend.';

CREATE FUNCTION @extschema@.jl_nullspace_clean(x float8[], a_desired float8[], a_confidential float8[],
    utility_error float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_nullspace_clean_confidential'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_nullspace_clean(float8[], float8[], float8[], float8) IS
  'Null-space cleaning, Algorithm 2: as jl_nullspace_clean(x, a_desired, utility_error) with the budget spent where the confidential predictor a_confidential (d x m_c, fitted on the cleaner''s own data) sees most per unit of utility: generalised eigenvectors of the pencil (a_d a_d^T, a_c a_c^T) on the span of both models, coordinates in the dual basis; the common null space is removed whole. ||a_desired^T (x - result)||^2 <= utility_error, certified.';

-- Keys at rest -------------------------------------------------------------
-- jldp_key holds plain or wrapped secrets; jl_keys shows the master key id.

ALTER TABLE @extschema@.jldp_key DROP CONSTRAINT jldp_key_secret_check;
ALTER TABLE @extschema@.jldp_key ADD CONSTRAINT jldp_key_secret_check
  CHECK (length(secret) IN (32, 77));
CREATE OR REPLACE VIEW @extschema@.jl_keys AS
  SELECT name, fingerprint, owner, created,
         CASE WHEN length(secret) = 77
              THEN encode(substr(secret, 2, 16), 'hex') END AS master_key_id
  FROM @extschema@.jldp_key;
COMMENT ON VIEW @extschema@.jl_keys IS
  'Keys by name with their non-secret fingerprints and the id of the master key that encrypts each (NULL: stored unencrypted); grant SELECT to curators.';

CREATE FUNCTION @extschema@.jl_key_export(name text)
RETURNS bytea
AS 'MODULE_PATHNAME', 'jl_key_export'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_key_export(text) IS
  'The key''s secret encrypted under the master key, for jl_key_import_wrapped on a server with the same master key (a shard); reveals nothing without the master key. The key''s creator or a superuser.';

CREATE FUNCTION @extschema@.jl_key_import_wrapped(name text, wrapped bytea)
RETURNS text
AS 'MODULE_PATHNAME', 'jl_key_import_wrapped'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_key_import_wrapped(text, bytea) IS
  'Create the key name from what jl_key_export(name) returned on a server with the same master key; returns its fingerprint, to compare with the exporting server''s jl_keys. Superuser only.';

CREATE FUNCTION @extschema@.jl_key_rewrap()
RETURNS int
AS 'MODULE_PATHNAME', 'jl_key_rewrap'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_key_rewrap() IS
  'Encrypt every key under the configured master key: unencrypted keys, and keys encrypted under jldp.previous_master_key_file or _command (rotation). Returns the number of keys changed. Superuser only.';

CREATE FUNCTION @extschema@.jl_master_key_id()
RETURNS text
AS 'MODULE_PATHNAME', 'jl_master_key_id'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_master_key_id() IS
  'The non-secret id of the configured master key (compare across servers), NULL when none is configured.';

REVOKE ALL ON FUNCTION @extschema@.jl_key_export(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.jl_key_import_wrapped(text, bytea) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.jl_key_rewrap() FROM PUBLIC;

-- Keys stored before 0.3.0 are plain.  With a master key configured when
-- this update runs they are encrypted now; without one they stay plain
-- until SELECT jl_key_rewrap() after one is configured.
SELECT @extschema@.jl_key_rewrap() WHERE @extschema@.jl_master_key_id() IS NOT NULL;
