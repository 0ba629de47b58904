-- jldp 0.1.0 -> 0.2.0: the registry's version default read from the library
-- (whose version comes from jldp.control), comments on the tables and views,
-- jl_suggest_k and jl_suggest_k_info PARALLEL SAFE.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.2.0'" to load this file. \quit

-- the version of the loaded library, which takes it from jldp.control
CREATE FUNCTION @extschema@.jldp_version()
RETURNS text
AS 'MODULE_PATHNAME', 'jldp_version'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jldp_version() IS
  'The version of the jldp library in use (the control file''s default_version when it was built); recorded with each table release.';

-- releases record the library's version, not a version written here
ALTER TABLE @extschema@.jldp_release
  ALTER COLUMN version SET DEFAULT @extschema@.jldp_version();

-- comments on the tables and views
COMMENT ON TABLE @extschema@.jldp_dataset IS
  'Protected datasets: the privacy budget cap (epsilon, delta) and what has been spent, by name and at most one per source relation. Written only by jldp''s functions; roles read it through jl_budgets.';
COMMENT ON TABLE @extschema@.jldp_ledger IS
  'Privacy budget ledger: every declaration, cap change, reset, charge and reservation of a dataset with the totals after it, the acting role and the transaction. Written only by jldp''s functions; roles read it through jl_ledger.';
COMMENT ON TABLE @extschema@.jldp_release IS
  'Release registry: one row per jl_release_table call with its source, target, options, noise variance, key fingerprint, the full record (info), the jldp version and who released it. Written only by jl_release_table; roles read it through jl_releases.';
COMMENT ON VIEW @extschema@.jl_budgets IS
  'Protected datasets with their caps, spent and remaining (epsilon, delta), for the datasets owned by the current role or a role it inherits (superusers: all).';
COMMENT ON VIEW @extschema@.jl_ledger IS
  'The budget ledger of the datasets jl_budgets shows to the current role: each event with the (epsilon, delta) it asked for and the totals after it.';

-- each candidate k is calibrated in-process, through neither SPI nor a
-- subtransaction
ALTER FUNCTION @extschema@.jl_suggest_k(int, bigint, float8, float8, float8, text, float8, text, float8, text, text, text)
  PARALLEL SAFE;
ALTER FUNCTION @extschema@.jl_suggest_k_info(int, bigint, float8, float8, float8, text, float8, text, float8, text, text, text)
  PARALLEL SAFE;

-- k-means restarts: jl_kmeans with n_init k-means++ seedings, the run with
-- the lowest inertia kept (the other overloads make one)
CREATE FUNCTION @extschema@.jl_kmeans_trans(internal, float8[], int, bigint, int, int)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_kmeans_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.jl_kmeans(sketch float8[], n_clusters int, seed bigint, max_iter int, n_init int) (
  SFUNC = @extschema@.jl_kmeans_trans, STYPE = internal, SSPACE = 8192,
  FINALFUNC = @extschema@.jl_kmeans_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = @extschema@.jl_kmeans_combine,
  SERIALFUNC = @extschema@.jl_kmeans_serialize, DESERIALFUNC = @extschema@.jl_kmeans_deserialize,
  PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.jl_kmeans(float8[], int, bigint, int, int) IS
  'jl_kmeans with n_init runs (1..1000), each a k-means++ seeding followed by at most max_iter Lloyd iterations, keeping the run with the lowest inertia (sum of squared distances to the nearest centroid; the earliest run on ties), as scikit-learn''s KMeans(n_init=...). The first run is seeded by seed, so n_init 1 equals jl_kmeans(sketch, n_clusters, seed, max_iter); the others by seeds drawn from a ChaCha20 stream keyed by seed. Deterministic and the same in serial and parallel plans; the time grows with n_init.';
