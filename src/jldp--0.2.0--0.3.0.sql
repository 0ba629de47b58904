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
