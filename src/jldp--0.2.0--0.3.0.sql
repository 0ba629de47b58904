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
-- Covariance release (Blocki et al.) ----------------------------------------
-- R = Y [A; l I]: r rows of N(0, A^T A + l^2 I), Y fresh iid N(0,1) from the
-- secure random source; l from an exact accountant (docs/covariance.md).
CREATE FUNCTION @extschema@.jl_release_covariance(
    source regclass, vector text[], target text, r int,
    epsilon float8, delta float8, clip_norm float8 DEFAULT 1,
    lift text DEFAULT 'always', dataset text DEFAULT NULL, method text DEFAULT 'gram')
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_release_covariance'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_release_covariance(regclass, text[], text, int, float8, float8, float8, text, text, text) IS
  'Release R = Y [A; l I] of source (rows A: one float8[] column or several numeric columns, each row scaled to L2 norm <= clip_norm) into a new table target (i int, y float8[]) of r rows, Y an r x (n + d) matrix of iid N(0,1) drawn fresh from the secure random source and never stored. (epsilon, delta)-DP for one row replaced by another (change of norm <= 2 clip_norm), with the lift l the smallest the exact accountant allows (lift ''always''), or with lift ''auto'' (epsilon/10 and delta/2 spent on sigma_min(A) with Laplace noise, and l only what its lower confidence bound leaves missing). Streams the source once; method ''gram'' (default) draws R = Z F with F^T F = A^T A + l^2 I and Z r x d iid N(0,1), the same distribution as ''product'', which multiplies each batch of rows by fresh columns of Y (dgemm); charges (epsilon, delta) to dataset (default: the source relation); recorded in jl_releases (info: l, w, the paper-style w, sigma_min when ''auto''). Returns the registry id.';
REVOKE ALL ON FUNCTION @extschema@.jl_release_covariance(regclass, text[], text, int, float8, float8, float8, text, text, text) FROM PUBLIC;

CREATE FUNCTION @extschema@.jl_directional_variance(release regclass, x float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_directional_variance'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_directional_variance(regclass, float8[]) IS
  'From a covariance release: ||R x||^2 / r - l^2 ||x||^2, unbiased for x^T A^T A x (the sum of squares of the clipped rows along x). Post-processing: no budget.';

CREATE FUNCTION @extschema@.jl_directional_variance_stddev(release regclass, x float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_directional_variance_stddev'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_directional_variance_stddev(regclass, float8[]) IS
  'The standard deviation of jl_directional_variance(release, x), sqrt(2/r) x^T (A^T A + l^2 I) x, estimated by its plug-in sqrt(2/r) ||R x||^2 / r.';

CREATE FUNCTION @extschema@.jl_covariance(release regclass)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_covariance'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_covariance(regclass) IS
  'From a covariance release: the d x d matrix R^T R / r - l^2 I, unbiased for A^T A (second moments of the clipped rows, not centred; release a column of ones beside the data to get n and the column sums).';

CREATE FUNCTION @extschema@.jl_pca(release regclass, n_components int,
    OUT component int, OUT variance float8, OUT direction float8[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'jl_pca'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 10;
COMMENT ON FUNCTION @extschema@.jl_pca(regclass, int) IS
  'From a covariance release: the n_components leading eigenpairs of R^T R / r - l^2 I, largest first: each direction (unit vector) and its estimated x^T A^T A x.';

CREATE FUNCTION @extschema@.jl_least_squares(release regclass, target_attr int)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_least_squares'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_least_squares(regclass, int) IS
  'From a covariance release: the least-squares coefficients of attribute target_attr (1-based) on the other d - 1 attributes, in their order, from the estimate of A^T A (no intercept unless a column of ones was released). Refused when the estimate of the other attributes'' second moments is not positive definite.';

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
LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_master_key_id() IS
  'The non-secret id of the configured master key (compare across servers), NULL when none is configured.';

REVOKE ALL ON FUNCTION @extschema@.jl_key_export(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.jl_key_import_wrapped(text, bytea) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.jl_key_rewrap() FROM PUBLIC;

-- Keys stored before 0.3.0 are plain.  With a master key configured when
-- this update runs they are encrypted now; without one they stay plain
-- until SELECT jl_key_rewrap() after one is configured.
SELECT @extschema@.jl_key_rewrap() WHERE @extschema@.jl_master_key_id() IS NOT NULL;

-- Scale-out ----------------------------------------------------------------
-- Pieces that postgres_fdw pushes to the shards of a partitioned sketch
-- table whose partitions are foreign tables (docs/scaleout.md): immutable,
-- no text arguments (a constant text argument blocks pushdown).

CREATE FUNCTION @extschema@.jl_lloyd_step_trans(float8[], float8[], float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_lloyd_step_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_lloyd_step_trans(float8[], float8[], float8[]) IS
  'Transition function of jl_lloyd_step.';
CREATE FUNCTION @extschema@.jl_vector_sum_trans(float8[], float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_vector_sum_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_vector_sum_trans(float8[], float8[]) IS
  'Transition and combine function of jl_vector_sum, combine function of jl_lloyd_step.';

CREATE AGGREGATE @extschema@.jl_lloyd_step(sketch float8[], centroids float8[]) (
  SFUNC = @extschema@.jl_lloyd_step_trans, STYPE = float8[],
  COMBINEFUNC = @extschema@.jl_vector_sum_trans, PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.jl_lloyd_step(float8[], float8[]) IS
  'One Lloyd step of k-means over the rows it sees: an m x (k + 1) array whose row j holds the sum of the sketches nearest centroid j (of the m x k centroids, as jl_nearest_centroid) and their count. Pushed to a shard by postgres_fdw; add the shards'' steps with jl_vector_sum and take jl_lloyd_update.';

CREATE AGGREGATE @extschema@.jl_vector_sum(float8[]) (
  SFUNC = @extschema@.jl_vector_sum_trans, STYPE = float8[],
  COMBINEFUNC = @extschema@.jl_vector_sum_trans, PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.jl_vector_sum(float8[]) IS
  'Element-wise sum of float8 arrays of one shape (one- or two-dimensional); use ORDER BY in the call for a result that does not depend on the order rows arrive in.';

CREATE FUNCTION @extschema@.jl_lloyd_update(step float8[], centroids float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_lloyd_update_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_lloyd_update(float8[], float8[]) IS
  'The centroids after a Lloyd step: row j of step (sums, count) divided by its count, or row j of centroids when the count is 0.';

CREATE FUNCTION @extschema@.jl_kmeans_lloyd(sketches regclass, sketch_column name,
    centroids float8[], max_iter int DEFAULT 300)
RETURNS float8[]
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  parts text;
  step float8[];
  c float8[] := centroids;
  nxt float8[];
  i int := 0;
BEGIN
  IF sketches IS NULL OR sketch_column IS NULL OR centroids IS NULL OR max_iter IS NULL THEN
    RAISE EXCEPTION 'jl_kmeans_lloyd: no argument may be NULL' USING ERRCODE = '22004';
  END IF;
  IF max_iter < 1 THEN
    RAISE EXCEPTION 'max_iter must be at least 1, not %', max_iter USING ERRCODE = '22023';
  END IF;
  -- one Lloyd step per leaf partition (on a foreign partition the shard
  -- computes it), added in the partitions' order: the result does not
  -- depend on which shard answers first
  SELECT string_agg(format('SELECT %s AS o, @extschema@.jl_lloyd_step(%I, $1) AS s FROM %s',
                           ord, sketch_column, relid::regclass), ' UNION ALL ' ORDER BY ord)
    INTO parts
    FROM (SELECT relid, row_number() OVER (ORDER BY relid::regclass::text) AS ord
            FROM (SELECT relid FROM pg_partition_tree(sketches) WHERE isleaf
                  UNION ALL
                  SELECT c.oid::regclass FROM pg_class c
                   WHERE c.oid = sketches AND c.relkind IN ('r', 'f', 'm') AND NOT c.relispartition) leaves) l;
  IF parts IS NULL THEN
    RAISE EXCEPTION 'jl_kmeans_lloyd: % is not a table, or a partitioned table with leaf partitions', sketches
      USING ERRCODE = '42809',
            HINT = 'Pass the sketch table itself (a view is not read through); a partitioned table needs at least one partition.';
  END IF;
  LOOP
    i := i + 1;
    EXECUTE format('SELECT @extschema@.jl_vector_sum(s ORDER BY o) FROM (%s) u', parts) INTO step USING c;
    IF step IS NULL THEN
      RAISE EXCEPTION 'jl_kmeans_lloyd: % has no sketches', sketches USING ERRCODE = '2200E';
    END IF;
    nxt := @extschema@.jl_lloyd_update(step, c);
    EXIT WHEN nxt = c OR i >= max_iter;
    c := nxt;
  END LOOP;
  RETURN nxt;
END
$fn$;
COMMENT ON FUNCTION @extschema@.jl_kmeans_lloyd(regclass, name, float8[], int) IS
  'k-means (Lloyd) from the given m x k starting centroids over the sketch column of a table, until no centroid moves or max_iter steps. On a partitioned table each leaf partition computes its own step (a foreign partition on its shard: m (k + 1) numbers move per step), added in partition order; a local table partitioned alike gives the same centroids bit for bit.';

CREATE FUNCTION @extschema@.jl_knn(sketches regclass, id_column name, sketch_column name,
    query float8[], n int, noise_variance float8 DEFAULT 0)
RETURNS TABLE (id bigint, dist float8)
LANGUAGE plpgsql STABLE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  parts text;
BEGIN
  IF sketches IS NULL OR id_column IS NULL OR sketch_column IS NULL OR query IS NULL
     OR n IS NULL OR noise_variance IS NULL THEN
    RAISE EXCEPTION 'jl_knn: no argument may be NULL' USING ERRCODE = '22004';
  END IF;
  IF n < 1 THEN
    RAISE EXCEPTION 'n must be at least 1, not %', n USING ERRCODE = '22023';
  END IF;
  -- the n nearest of each leaf partition (a shard sorts and limits its
  -- own rows), then the n nearest of those
  SELECT string_agg(format('(SELECT %I::bigint AS id, @extschema@.jl_recover_dist(%I, $1, $2) AS dist FROM %s ORDER BY 2, 1 LIMIT $3)',
                           id_column, sketch_column, relid::regclass), ' UNION ALL ')
    INTO parts
    FROM (SELECT relid FROM pg_partition_tree(sketches) WHERE isleaf
                  UNION ALL
                  SELECT c.oid::regclass FROM pg_class c
                   WHERE c.oid = sketches AND c.relkind IN ('r', 'f', 'm') AND NOT c.relispartition) leaves;
  IF parts IS NULL THEN
    RAISE EXCEPTION 'jl_knn: % is not a table, or a partitioned table with leaf partitions', sketches
      USING ERRCODE = '42809',
            HINT = 'Pass the sketch table itself (a view is not read through); a partitioned table needs at least one partition.';
  END IF;
  RETURN QUERY EXECUTE format('SELECT id, dist FROM (%s) u ORDER BY dist, id LIMIT $3', parts)
    USING query, noise_variance, n;
END
$fn$;
COMMENT ON FUNCTION @extschema@.jl_knn(regclass, name, name, float8[], int, float8) IS
  'The n rows of a sketch table nearest to query by jl_recover_dist (ties by id; id_column cast to bigint). On a partitioned table each leaf partition returns its own n nearest (a foreign partition sorts and limits on its shard), so n rows per shard move.';
-- Performance -----------------------------------------------------------------
-- the planner's cost per row (in units of cpu_operator_cost) of a release and
-- of a projection: a release takes about a microsecond a row at d = 100,
-- k = 20 (docs/benchmarks.md), far more than the COST 1 of a plain C
-- function, with which the planner keeps a release serial even over
-- millions of rows; with these, parallel plans are chosen where they pay
ALTER FUNCTION @extschema@.jl_private_release(float8[], int, float8, text, float8, text, float8, text, text, text) COST 100;
ALTER FUNCTION @extschema@.jl_project(float8[], int, text, text) COST 50;
-- Graph cut release (Blocki et al.) -----------------------------------------
-- One sketch per vertex: column i of R = Y E, E the incidence matrix of the
-- graph overlaid with the complete graph, Y fresh iid N(0,1); the overlay
-- weight from an exact accountant on the edge neighbour (docs/graph_cuts.md).
CREATE FUNCTION @extschema@.jl_release_graph(
    edges regclass, u text, v text, n int, target text, r int,
    epsilon float8, delta float8, dataset text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_release_graph'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_release_graph(regclass, text, text, int, text, int, float8, float8, text) IS
  'Release the undirected graph on vertices 1..n whose edges are the rows (u, v) of edges (integer columns; repeats and reversed pairs merged into one edge; NULL endpoints, self-loops and vertices outside 1..n refused) into a new table target (vertex int, sketch float8[]) of n rows: the sketch of vertex i is column i of R = Y E, E the edge-vertex incidence matrix of the graph overlaid with the complete graph (every pair weight w/n, every edge weight 1), Y r x (n choose 2) iid N(0,1) drawn fresh and never stored, computed in O(r (|E| + n)). (epsilon, delta)-DP for graphs differing in one edge, with w the smallest overlay weight the exact accountant allows (refused unless w < n). Charges (epsilon, delta) to dataset (default: the edge relation); recorded in jl_releases (info: n, r, w, the paper-style w). Returns the registry id.';
REVOKE ALL ON FUNCTION @extschema@.jl_release_graph(regclass, text, text, int, text, int, float8, float8, text) FROM PUBLIC;

CREATE FUNCTION @extschema@.jl_cut_size(release regclass, s int[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_size'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_cut_size(regclass, int[]) IS
  'From a graph release: the number of edges between the vertex set s (distinct vertices in 1..n) and the rest, estimated without bias as (||sum of the sketches of s||^2 / r - (w/n) |s| (n - |s|)) / (1 - w/n). Post-processing: no budget.';

CREATE FUNCTION @extschema@.jl_cut_size_stddev(release regclass, s int[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_size_stddev'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_cut_size_stddev(regclass, int[]) IS
  'The standard deviation of jl_cut_size(release, s), sqrt(2/r) ((w/n) |s| (n - |s|) + (1 - w/n) cut) / (1 - w/n), estimated by its unbiased plug-in.';

CREATE FUNCTION @extschema@.jl_cut_trans(internal, regclass, int, float8[])
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_cut_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_cut_trans(internal, regclass, int, float8[]) IS
  'Transition function of jl_cut_estimate and jl_cut_estimate_stddev: sums the sketches and collects the vertices.';

CREATE FUNCTION @extschema@.jl_cut_estimate_final(internal)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_estimate_final'
LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_cut_estimate_final(internal) IS
  'Final function of jl_cut_estimate.';

CREATE FUNCTION @extschema@.jl_cut_estimate_stddev_final(internal)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_estimate_stddev_final'
LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_cut_estimate_stddev_final(internal) IS
  'Final function of jl_cut_estimate_stddev.';

CREATE AGGREGATE @extschema@.jl_cut_estimate(release regclass, vertex int, sketch float8[]) (
    SFUNC = @extschema@.jl_cut_trans,
    STYPE = internal,
    FINALFUNC = @extschema@.jl_cut_estimate_final,
    PARALLEL = RESTRICTED
);
COMMENT ON AGGREGATE @extschema@.jl_cut_estimate(regclass, int, float8[]) IS
  'From the rows (vertex, sketch) of a graph release chosen in SQL (each vertex once), the estimated number of edges between those vertices and the rest, as jl_cut_size; NULL over no rows.';

CREATE AGGREGATE @extschema@.jl_cut_estimate_stddev(release regclass, vertex int, sketch float8[]) (
    SFUNC = @extschema@.jl_cut_trans,
    STYPE = internal,
    FINALFUNC = @extschema@.jl_cut_estimate_stddev_final,
    PARALLEL = RESTRICTED
);
COMMENT ON AGGREGATE @extschema@.jl_cut_estimate_stddev(regclass, int, float8[]) IS
  'The standard deviation of jl_cut_estimate over the same rows, as jl_cut_size_stddev; NULL over no rows.';
-- Budget boundary: charges committed before any output, releases charged to
-- the base relation they read, one contribution per privacy unit
-- (docs/threat_model.md, attacks 10 to 12) --------------------------------

-- a dataset names the column of its relation whose values are the privacy units
ALTER TABLE @extschema@.jldp_dataset ADD COLUMN unit text;
CREATE OR REPLACE VIEW @extschema@.jl_budgets WITH (security_barrier) AS
  SELECT name, epsilon_cap, delta_cap, epsilon_spent, delta_spent,
         epsilon_cap - epsilon_spent AS epsilon_remaining,
         delta_cap - delta_spent AS delta_remaining,
         source, owner, created, spenders, unit
  FROM @extschema@.jldp_dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);

-- jl_dataset_declare takes the unit; the roles allowed to run it keep it
DO $$
DECLARE
  grantees text[];
  g text;
BEGIN
  SELECT pg_catalog.array_agg(a.grantee::regrole::text) INTO grantees
  FROM pg_catalog.pg_proc p, pg_catalog.aclexplode(p.proacl) a
  WHERE p.oid = '@extschema@.jl_dataset_declare(text, float8, float8, regclass)'::regprocedure
    AND a.privilege_type = 'EXECUTE' AND a.grantee <> 0 AND a.grantee <> p.proowner;
  DROP FUNCTION @extschema@.jl_dataset_declare(text, float8, float8, regclass);
  CREATE FUNCTION @extschema@.jl_dataset_declare(name text, epsilon_cap float8,
      delta_cap float8 DEFAULT 0, source regclass DEFAULT NULL, unit text DEFAULT NULL)
  RETURNS void
  AS 'MODULE_PATHNAME', 'jl_dataset_declare'
  LANGUAGE C VOLATILE PARALLEL UNSAFE;
  COMMENT ON FUNCTION @extschema@.jl_dataset_declare(text, float8, float8, regclass, text) IS
    'Declare a protected dataset with a privacy budget cap (epsilon, delta), owned by the calling role. Binding it to a source relation (a table, partitioned table or foreign table; not a view or a partition) takes the relation''s owner, a member of its role, or a superuser; releases of the relation, of its partitions and of simple views of it are charged to it. unit names the column of source whose values are the privacy units: releases must then be by that column.';
  REVOKE ALL ON FUNCTION @extschema@.jl_dataset_declare(text, float8, float8, regclass, text) FROM PUBLIC;
  FOREACH g IN ARRAY coalesce(grantees, '{}') LOOP
    EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION @extschema@.jl_dataset_declare(text, float8, float8, regclass, text) TO %s', g);
  END LOOP;
END $$;

COMMENT ON FUNCTION @extschema@.jl_budget_reserve(text, float8, float8) IS
  'Charge (epsilon, delta) to a dataset now, committed at once (a ROLLBACK leaves it), for one jl_private_release_agg later in the same transaction of the same session; only the dataset''s owner, a member of the owner''s role or a superuser (the aggregate cannot see a privacy unit repeated by its query: granted spenders release with jl_release_table or jl_release_long). Returns the ledger id.';
COMMENT ON FUNCTION @extschema@.jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8, text, text, float8, float8, float8, text, text, float8, float8, text, float8, bigint) IS
  'Release every row of source into a new table target (id, sketch float8[]) owned by the caller: one float8[] column or several numeric columns as the vector, optional clipping (clip_lo/clip_hi for element neighbours, bound = hi - lo; clip_norm C for row neighbours, bound = 2C), projection kind and noise (''laplace'' (NULL) or ''gaussian'' with delta) as jl_private_release, charged (epsilon, delta), committed before anything is read, to the dataset of the relation source reads (a partition''s partitioned table, a simple view''s table; default: the one declared for it, else one named after it; dataset => must be bound to it), with id_column unique by a primary key or unique constraint (one row per privacy unit) and recorded in jl_releases with the projection kind and the noise (info->>''noise''). k and epsilon are required, except that kind ''auto'' (k left out) releases with the kind, k and noise that jl_advise ranks first for d, epsilon, neighbor, bound, noise (NULL: Laplace, and Gaussian when delta is given), delta, goal (NULL: ''distance''), cluster_var, n and dist2 (NULL: d bound^2/6 for element neighbours, bound^2/2 for row neighbours): public inputs only, no value of the data is read before the choice; info records chosen_by and the advice. Returns the registry id.';

-- Budget boundary: long-format releases grouped by their privacy unit -------
-- (docs/threat_model.md, attack 10)
CREATE FUNCTION @extschema@.jl_release_long(
    source regclass, unit_column text, attr_column text, value_column text,
    d int, target text, k int, epsilon float8,
    neighbor text DEFAULT 'element', bound float8 DEFAULT 1,
    calibration text DEFAULT NULL, delta float8 DEFAULT NULL,
    key text DEFAULT 'default', dataset text DEFAULT NULL,
    kind text DEFAULT 'rademacher', noise text DEFAULT 'laplace')
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_release_long'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_release_long(regclass, text, text, text, int, text, int, float8, text, float8, text, float8, text, text, text, text) IS
  'Release long-format rows (unit, attr 1..d, value) of source into a new table target (id, sketch float8[]) owned by the caller: one sketch per value of unit_column, as jl_private_release_agg of GROUP BY unit_column (duplicate attributes summed, NULL values skipped), grouped by this function itself so that each privacy unit contributes one group. source is a table, a partition or a simple view of one; charged (epsilon, delta), committed before anything is read, to the dataset of the relation it reads (dataset => must be bound to it; its declared unit must be unit_column), and recorded in jl_releases. Options as jl_private_release_agg. Returns the registry id.';
REVOKE ALL ON FUNCTION @extschema@.jl_release_long(regclass, text, text, text, int, text, int, float8, text, float8, text, float8, text, text, text, text) FROM PUBLIC;

-- the registry view looks up no dropped target
CREATE OR REPLACE VIEW @extschema@.jl_releases WITH (security_barrier) AS
  SELECT id, target, source, id_column, vector, d, k, projection, neighbor, bound,
         clipping, calibration, epsilon, delta, noise_variance, grid, key_fingerprint,
         dataset, info, version, released_at, released_by
  FROM @extschema@.jldp_release
  -- a dropped target is not looked up (each lookup of a missing OID would
  -- stay in the session's catalog cache)
  WHERE CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = target)
             THEN pg_catalog.has_table_privilege(target, 'SELECT') ELSE false END;

-- Datasets bound to a view or a partition ---------------------------------
-- 0.2.0 let a dataset be bound to a view or a partition; 0.3.0 charges a
-- release to the dataset of the relation it reads (a partition's
-- partitioned table, a simple view's table), so such a cap would no longer
-- apply.  Each is rebound to that relation when the relation has no
-- dataset of its own and no other dataset is rebound to it; otherwise (a
-- conflict, or a view a release refuses) the update is refused, naming the
-- datasets to fix, and nothing changes.
CREATE FUNCTION @extschema@.jl_upgrade_base_relation(regclass) RETURNS regclass
  LANGUAGE C STRICT AS 'MODULE_PATHNAME', 'jl_upgrade_base_relation';
DO $$
DECLARE
  r record;
  b regclass;
  names text[] := '{}';
  bases regclass[] := '{}';
  refused text[] := '{}';
  i int;
BEGIN
  FOR r IN SELECT d.name, d.source FROM @extschema@.jldp_dataset d
             JOIN pg_catalog.pg_class c ON c.oid = d.source
            WHERE c.relkind = 'v' OR c.relispartition ORDER BY d.name LOOP
    BEGIN
      b := @extschema@.jl_upgrade_base_relation(r.source);
    EXCEPTION WHEN OTHERS THEN
      refused := refused || pg_catalog.format('%L (bound to %s: %s)', r.name, r.source, SQLERRM);
      CONTINUE;
    END;
    names := names || r.name;
    bases := bases || b;
  END LOOP;
  FOR i IN 1 .. pg_catalog.cardinality(names) LOOP
    IF EXISTS (SELECT 1 FROM @extschema@.jldp_dataset WHERE source = bases[i])
       OR (SELECT pg_catalog.count(*) FROM pg_catalog.unnest(bases) u WHERE u = bases[i]) > 1 THEN
      refused := refused || pg_catalog.format('%L (bound to %s, read from %s, which has a dataset of its own or another one rebound to it)',
                                              names[i], (SELECT source FROM @extschema@.jldp_dataset WHERE name = names[i]), bases[i]);
    END IF;
  END LOOP;
  IF pg_catalog.cardinality(refused) > 0 THEN
    RAISE EXCEPTION 'cannot update jldp: % dataset(s) bound to a view or a partition cannot be rebound to the relation their releases read',
                    pg_catalog.cardinality(refused)
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = pg_catalog.array_to_string(refused, E'\n'),
            HINT = 'As a superuser, bind each to the relation its releases read (UPDATE jldp_dataset SET source = ... WHERE name = ...; one dataset per relation), or unbind it (SET source = NULL), then update again.';
  END IF;
  FOR i IN 1 .. pg_catalog.cardinality(names) LOOP
    RAISE NOTICE 'dataset % is now bound to %, the relation its releases read (was %)', pg_catalog.quote_literal(names[i]), bases[i],
      (SELECT source FROM @extschema@.jldp_dataset WHERE name = names[i]);
    UPDATE @extschema@.jldp_dataset SET source = bases[i] WHERE name = names[i];
  END LOOP;
END $$;
DROP FUNCTION @extschema@.jl_upgrade_base_relation(regclass);
