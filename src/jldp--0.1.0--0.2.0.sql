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

-- Choosing the release: no projection or a projection kind --------------------

-- PARALLEL SAFE: every candidate is calibrated in-process, through neither
-- SPI nor a subtransaction.
CREATE FUNCTION @extschema@.jl_advise(
    d int, epsilon float8, dist2 float8, dist2_hi float8 DEFAULT NULL,
    neighbor text DEFAULT 'element', bound float8 DEFAULT 1,
    noise text DEFAULT NULL, delta float8 DEFAULT NULL,
    goal text DEFAULT 'distance', cluster_var float8 DEFAULT NULL,
    n bigint DEFAULT NULL, key text DEFAULT 'default')
RETURNS TABLE (rank int, kind text, k int, noise text, calibration text,
               delta float8, noise_variance float8, predicted_error float8,
               predicted_error_hi float8, relative_error float8,
               refused boolean, note text)
AS 'MODULE_PATHNAME', 'jl_advise'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION @extschema@.jl_advise(int, float8, float8, float8, text, float8, text, float8, text, float8, bigint, text) IS
  'Ranks the releases of d-dimensional rows: no projection (kind identity, k = d) and each projection kind at its best k, with Laplace noise and, where delta is given, Gaussian noise, each calibrated as jl_release_info would (to the realized projection of the key). predicted_error: for goal distance the stddev of a recovered squared distance at dist2, sqrt(2 r^4/k + 8 s2 r^2 + c k s2^2) (no 2 r^4/k term without a projection); for goal clustering the misclassification probability of the nearest-centre rule between two clusters whose centres are dist2 apart, each attribute with variance cluster_var around its centre (n rows: centres estimated). relative_error: to the best option (for a range [dist2, dist2_hi], the worst ratio to the best at each distance). Refused options are shown, never ranked. The note of rank 1 says whether the projection pays. Uses the key.';

REVOKE ALL ON FUNCTION
    @extschema@.jl_advise(int, float8, float8, float8, text, float8, text, float8, text, float8, bigint, text)
  FROM PUBLIC;

-- jl_suggest_k_info reports whether no projection would be better
COMMENT ON FUNCTION @extschema@.jl_suggest_k_info(int, bigint, float8, float8, float8, text, float8, text, float8, text, text, text) IS
  'jl_suggest_k with its figures: k, noise_variance, expected stddev and relative stddev at dist2 (and dist2_hi), the best k at each end of the range, Kenthapadi''s rule of thumb dist2 / (2 s2), identity_stddev (no projection: P = I, k = d, with the same options) and projection_pays (stddev < identity_stddev), and for the n rows the distortion of the projection alone at this k (scikit-learn''s bound) and jl_min_dim(n, 0.1).';
