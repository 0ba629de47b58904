-- jldp 0.5.0 -> 1.0.0: one aggregate per job (jl_kmeans takes its options
-- as one jl_kmeans_options value, an integer n_clusters casting to it;
-- jl_linear_fit and jl_linear_fit_intercept take jl_linear_options), the
-- advisor's goal 'neighbors', and budgets managed by their protected table
-- only (the dataset-named functions retired).  Keys, declarations, ledger, registry
-- and released tables are not touched.

\echo Use "ALTER EXTENSION jldp UPDATE TO '1.0.0'" to load this file. \quit

-- a value added to an enum is usable once this transaction commits; the
-- script only names it in comments
ALTER TYPE jldp.jl_goal ADD VALUE IF NOT EXISTS 'neighbors';

COMMENT ON TYPE jldp.jl_goal IS
  'What sketches are for, as the advisor predicts their error: recovered squared distances (distance), a nearest-centre clustering (clustering) or a nearest-neighbour search that must rank a neighbour at dist2 before a non-neighbour at dist2_hi (neighbors).';

COMMENT ON FUNCTION jldp.jl_advise(int, float8, float8, float8, jldp.jl_neighbor, float8, jldp.jl_noise, float8, jldp.jl_goal, float8, bigint, text) IS
  'Ranks the releases of d-dimensional rows: no projection (kind identity, k = d) and each projection kind at its best k, with Laplace noise and, where delta is given, Gaussian noise, each calibrated as jl_release_info would (to the realized projection of the key). predicted_error: for goal distance the stddev of a recovered squared distance at dist2, sqrt(2 r^4/k + 8 s2 r^2 + c k s2^2) (no 2 r^4/k term without a projection); for goal clustering the misclassification probability of the nearest-centre rule between two clusters whose centres are dist2 apart, each attribute with variance cluster_var around its centre (n rows: centres estimated); for goal neighbors the probability that a non-neighbour at squared distance dist2_hi (required, > dist2) is ranked before a neighbour at dist2, Phi(-(dist2_hi - dist2) / sqrt(v(dist2) + v(dist2_hi))) with v the variance of a recovered squared distance. relative_error: to the best option (for a range [dist2, dist2_hi], the worst ratio to the best at each distance). Refused options are shown, never ranked. The note of rank 1 says first when even it does not serve the goal (distance: a stddev not below dist2; clustering: a misclassification of 0.25 or more; neighbors: a misordering of 0.25 or more) and the epsilon at which it would, then whether the projection pays. Uses the key.';

COMMENT ON FUNCTION jldp.jl_advised(jldp.jl_goal, float8, float8, float8, jldp.jl_noise, float8, boolean) IS
  'The sketch mechanism the advisor ranks first for the goal (jl_advise: no projection or a kind at its best k; Laplace noise, and Gaussian when delta is given), every option calibrated to the declaration as jl_sketch would be; dist2 (required) is the squared distance of interest between encoded rows, or between two clusters'' centres with cluster_var for goal clustering, or a nearest neighbour''s with dist2_hi a non-neighbour''s for goal neighbors.  A release refuses before its charge, with the epsilon that would serve the goal, when the best option would not (distance: the recovered squared distance''s standard deviation not below dist2; clustering: a misclassification of 0.25 or more; neighbors: a non-neighbour at dist2_hi ranked before a neighbour at dist2 with probability 0.25 or more), unless force => true.';

-- k-means: the four overloads standing in for named arguments become one
DROP AGGREGATE jldp.jl_kmeans(float8[], int);
DROP AGGREGATE jldp.jl_kmeans(float8[], int, bigint);
DROP AGGREGATE jldp.jl_kmeans(float8[], int, bigint, int);
DROP AGGREGATE jldp.jl_kmeans(float8[], int, bigint, int, int);
DROP FUNCTION jldp_internal.jl_kmeans_trans(internal, float8[], int);
DROP FUNCTION jldp_internal.jl_kmeans_trans(internal, float8[], int, bigint);
DROP FUNCTION jldp_internal.jl_kmeans_trans(internal, float8[], int, bigint, int);
DROP FUNCTION jldp_internal.jl_kmeans_trans(internal, float8[], int, bigint, int, int);

-- the aggregate's options as one typed value (aggregates take no named
-- arguments): jl_kmeans(sketch, jl_kmeans_options(4, n_init => 10)), or
-- jl_kmeans(sketch, 4) through the implicit cast of n_clusters (1.0.0)
CREATE TYPE jldp.jl_kmeans_options AS (n_clusters int, seed bigint, max_iter int, n_init int);

COMMENT ON TYPE jldp.jl_kmeans_options IS
  'The options of the jl_kmeans aggregate, built by jl_kmeans_options(n_clusters, seed, max_iter, n_init); an integer n_clusters casts to it with the other options at their defaults.';

CREATE FUNCTION jldp_internal.jl_kmeans_options_checked(options jldp.jl_kmeans_options)
RETURNS jldp.jl_kmeans_options AS 'MODULE_PATHNAME', 'jl_kmeans_options_checked'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_kmeans_options_checked(jldp.jl_kmeans_options) IS
  'The options unchanged if every field is in range (n_clusters 1..10000, max_iter >= 1, n_init 1..1000, none NULL), else an ERROR: the check of jl_kmeans_options.';

CREATE FUNCTION jldp.jl_kmeans_options(n_clusters int, seed bigint DEFAULT 0,
    max_iter int DEFAULT 300, n_init int DEFAULT 1)
RETURNS jldp.jl_kmeans_options
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_kmeans_options_checked(ROW(n_clusters, seed, max_iter, n_init)::jldp.jl_kmeans_options);

COMMENT ON FUNCTION jldp.jl_kmeans_options(int, bigint, int, int) IS
  'The options of the jl_kmeans aggregate: n_clusters (1..10000), the seed of the k-means++ seeding (any bigint), the maximum number of Lloyd iterations (>= 1) and n_init, the number of seedings whose run with the lowest inertia is kept (1..1000): jl_kmeans(sketch, jl_kmeans_options(4, n_init => 10)).';

CREATE FUNCTION jldp_internal.jl_kmeans_options_of(n_clusters int)
RETURNS jldp.jl_kmeans_options
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp.jl_kmeans_options(n_clusters);

COMMENT ON FUNCTION jldp_internal.jl_kmeans_options_of(int) IS
  'The implicit cast of an integer n_clusters to jl_kmeans_options, the other options at their defaults: jl_kmeans(sketch, 4).';

CREATE CAST (int AS jldp.jl_kmeans_options)
  WITH FUNCTION jldp_internal.jl_kmeans_options_of(int) AS IMPLICIT;

COMMENT ON CAST (int AS jldp.jl_kmeans_options) IS
  'n_clusters as the options of the jl_kmeans aggregate, the others at their defaults.';

CREATE FUNCTION jldp_internal.jl_kmeans_trans(internal, float8[], jldp.jl_kmeans_options)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_kmeans_options_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE jldp.jl_kmeans(sketch float8[], options jldp.jl_kmeans_options) (
  SFUNC = jldp_internal.jl_kmeans_trans, STYPE = internal, SSPACE = 8192,
  FINALFUNC = jldp_internal.jl_kmeans_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = jldp_internal.jl_kmeans_combine,
  SERIALFUNC = jldp_internal.jl_kmeans_serialize, DESERIALFUNC = jldp_internal.jl_kmeans_deserialize,
  PARALLEL = SAFE);

COMMENT ON AGGREGATE jldp.jl_kmeans(float8[], jldp.jl_kmeans_options) IS
  'k-means centroids of the sketches as an n_clusters x k float8[][]: jl_kmeans(sketch, 4), or jl_kmeans(sketch, jl_kmeans_options(4, seed => 7, max_iter => 50, n_init => 10)). Each of n_init runs (default 1) is a k-means++ seeding followed by Lloyd iterations until no assignment changes (at most max_iter, default 300); the run with the lowest inertia is kept (the earliest on ties), as scikit-learn''s KMeans(n_init=...). The first run is seeded by seed (default 0), the others by seeds drawn from a ChaCha20 stream keyed by it. The result depends only on the multiset of sketches (the same in serial and parallel plans). NULL sketches are skipped; no sketches gives NULL; with at most n_clusters distinct sketches the centroids are those sketches (fewer rows, with a NOTICE). An empty cluster is re-seeded with the point farthest from its centroid. The sketches are held in memory (below 1 GB). jl_kmeans(release, n_clusters, ...) gives the sizes and inertia too.';

COMMENT ON FUNCTION jldp.jl_kmeans(regclass, int, bigint, int, int, float8, name) IS
  'k-means of the sketches of a table (its float8[] column sketch_column) in one call: the centroids (n_clusters x k), each cluster''s size, the inertia, the iterations (scikit-learn''s n_iter_ and tol) and the parallel workers its assignment steps used (max_parallel_workers_per_gather; the result is the serial one); the labels in the same statement: SELECT s.id, jl_nearest_centroid(s.sketch, k.centroids) FROM t s, jl_kmeans(''t'', 4) k. The same centroids as the aggregate jl_kmeans(sketch, jl_kmeans_options(n_clusters, seed, max_iter, n_init)) over the table (at tol 1e-4, the aggregate''s).';

-- linear fits: the ridge and intercept overloads become one options value
DROP AGGREGATE jldp.jl_linear_fit(float8[], float8[], float8);
DROP AGGREGATE jldp.jl_linear_fit(float8[], float8[], float8, boolean);
DROP AGGREGATE jldp.jl_linear_fit_intercept(float8[], float8[], float8);
DROP FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[], float8);
DROP FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[], float8, boolean);

-- the fit's options as one typed value (aggregates take no named arguments):
-- jl_linear_fit(x, y, jl_linear_options(ridge => 10)) (1.0.0)
CREATE TYPE jldp.jl_linear_options AS (ridge float8, intercept boolean);

COMMENT ON TYPE jldp.jl_linear_options IS
  'The options of jl_linear_fit and jl_linear_fit_intercept, built by jl_linear_options(ridge, intercept).';

CREATE FUNCTION jldp_internal.jl_linear_options_checked(options jldp.jl_linear_options)
RETURNS jldp.jl_linear_options AS 'MODULE_PATHNAME', 'jl_linear_options_checked'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_linear_options_checked(jldp.jl_linear_options) IS
  'The options unchanged if ridge is a finite number >= 0 and neither field is NULL, else an ERROR: the check of jl_linear_options.';

CREATE FUNCTION jldp.jl_linear_options(ridge float8 DEFAULT 0, intercept boolean DEFAULT true)
RETURNS jldp.jl_linear_options
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_linear_options_checked(ROW(ridge, intercept)::jldp.jl_linear_options);

COMMENT ON FUNCTION jldp.jl_linear_options(float8, boolean) IS
  'The options of jl_linear_fit and jl_linear_fit_intercept: the ridge penalty (>= 0; the intercept is not penalised) and whether the model has an intercept (without one, the fit is through the origin and the intercept 0): jl_linear_fit(x, y, jl_linear_options(ridge => 10)).';

CREATE FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[], jldp.jl_linear_options)
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_options_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE jldp.jl_linear_fit(x float8[], y float8[], options jldp.jl_linear_options) (
  SFUNC = jldp_internal.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = jldp_internal.jl_linear_fit_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = jldp_internal.jl_linear_fit_combine,
  SERIALFUNC = jldp_internal.jl_linear_fit_serialize,
  DESERIALFUNC = jldp_internal.jl_linear_fit_deserialize,
  PARALLEL = SAFE);

CREATE AGGREGATE jldp.jl_linear_fit_intercept(x float8[], y float8[], options jldp.jl_linear_options) (
  SFUNC = jldp_internal.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = jldp_internal.jl_linear_fit_intercept_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = jldp_internal.jl_linear_fit_combine,
  SERIALFUNC = jldp_internal.jl_linear_fit_serialize,
  DESERIALFUNC = jldp_internal.jl_linear_fit_deserialize,
  PARALLEL = SAFE);

COMMENT ON FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[], jldp.jl_linear_options) IS
  'Transition function of jl_linear_fit and jl_linear_fit_intercept with their options.';

COMMENT ON AGGREGATE jldp.jl_linear_fit(float8[], float8[], jldp.jl_linear_options) IS
  'jl_linear_fit(x, y) with its options: jl_linear_options(ridge => r) minimises ||Y - X W - 1 b^T||^2 + r ||W||^2 (ridge regression; the intercept is not penalised), jl_linear_options(intercept => false) fits Y = X W through the origin.';

COMMENT ON AGGREGATE jldp.jl_linear_fit_intercept(float8[], float8[], jldp.jl_linear_options) IS
  'The m intercepts b of jl_linear_fit(x, y, options) (zeros with intercept => false).';

-- budgets by protected table only: the dataset-named functions are
-- retired (their C symbols answer 0A000 with the replacement); the
-- table's functions become the C entry points they called
-- a protected table's budget, managed by the table (1.0.0): who may spend
-- it, its caps and a reset.  The table's owner (or a member of its role)
-- grants spending and may lower a cap; raising a cap and resetting are a
-- budget administrator's (jldp_budget_admin), on any protected table
CREATE OR REPLACE FUNCTION jldp.jl_protect_grant(protected regclass, spender regrole)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_protect_grant_relation'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_protect_grant(regclass, regrole) IS
  'Let role spender (and its members) release a protected table (charge its budget with jl_release, jl_release_dist2 or jl_budget_book): the declaration''s owner (or a member of its role) grants it, a budget administrator as such does not; recorded in the ledger.';

-- a revoke by name: also of a role dropped since
DROP FUNCTION jldp.jl_protect_revoke(regclass, regrole);
CREATE FUNCTION jldp.jl_protect_revoke(protected regclass, spender name)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_protect_revoke_relation'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_protect_revoke(regclass, name) IS
  'Take back what jl_protect_grant granted (by the role''s name: also a role dropped since, whose name a new role could take); recorded in the ledger.';

REVOKE ALL ON FUNCTION jldp.jl_protect_revoke(regclass, name) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION jldp.jl_protect_revoke(regclass, name) TO jldp_curator;

CREATE OR REPLACE FUNCTION jldp.jl_set_cap(protected regclass, epsilon_cap float8, delta_cap float8 DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_set_cap_relation'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_set_cap(regclass, float8, float8) IS
  'Set a protected table''s caps (delta_cap NULL: unchanged): raising takes jldp_budget_admin; the table''s owner may lower them. Recorded in the ledger.';

CREATE OR REPLACE FUNCTION jldp.jl_reset(protected regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_reset_relation'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_reset(regclass) IS
  'Set a protected table''s spent budget back to 0 (jldp_budget_admin); recorded in the ledger.';

DROP FUNCTION jldp.jl_dataset_declare(text, float8, float8, regclass, text);
DROP FUNCTION jldp.jl_dataset_set_cap(text, float8, float8);
DROP FUNCTION jldp.jl_dataset_reset(text);
DROP FUNCTION jldp_internal.jl_dataset_grant(text, regrole);
DROP FUNCTION jldp_internal.jl_dataset_revoke(text, regrole);

-- the new routines' grants, as a fresh install's lists set them
REVOKE ALL ON FUNCTION jldp.jl_kmeans_options(int, bigint, int, int),
  jldp_internal.jl_kmeans_options_checked(jldp.jl_kmeans_options),
  jldp_internal.jl_kmeans_options_of(int),
  jldp_internal.jl_kmeans_trans(internal, float8[], jldp.jl_kmeans_options),
  jldp.jl_linear_options(float8, boolean),
  jldp_internal.jl_linear_options_checked(jldp.jl_linear_options),
  jldp_internal.jl_linear_fit_trans(internal, float8[], float8[], jldp.jl_linear_options)
  FROM PUBLIC;
REVOKE ALL ON FUNCTION jldp.jl_kmeans(float8[], jldp.jl_kmeans_options),
  jldp.jl_linear_fit(float8[], float8[], jldp.jl_linear_options),
  jldp.jl_linear_fit_intercept(float8[], float8[], jldp.jl_linear_options)
  FROM PUBLIC;
GRANT EXECUTE ON FUNCTION jldp.jl_kmeans_options(int, bigint, int, int),
  jldp_internal.jl_kmeans_options_checked(jldp.jl_kmeans_options),
  jldp_internal.jl_kmeans_options_of(int),
  jldp.jl_linear_options(float8, boolean),
  jldp_internal.jl_linear_options_checked(jldp.jl_linear_options),
  jldp.jl_kmeans(float8[], jldp.jl_kmeans_options),
  jldp.jl_linear_fit(float8[], float8[], jldp.jl_linear_options),
  jldp.jl_linear_fit_intercept(float8[], float8[], jldp.jl_linear_options)
  TO jldp_analyst;
