-- linear fits over sketches, and null-space cleaning for a partner's model

-- Null-space cleaning ---------------------------------------------------------
-- Least squares of label vectors on feature vectors, and cleaning of feature
-- vectors for a known linear predictor (docs/design/nullspace.md).  No key, no
-- noise, no budget: deterministic functions of their arguments.
CREATE FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[])
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

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

CREATE FUNCTION jldp_internal.jl_linear_fit_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION jldp_internal.jl_linear_fit_serialize(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'jl_linear_fit_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION jldp_internal.jl_linear_fit_deserialize(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION jldp_internal.jl_linear_fit_final(internal)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_linear_fit_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION jldp_internal.jl_linear_fit_intercept_final(internal)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_linear_fit_intercept_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[]) IS
  'Transition function of jl_linear_fit and jl_linear_fit_intercept.';

COMMENT ON FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[], jldp.jl_linear_options) IS
  'Transition function of jl_linear_fit and jl_linear_fit_intercept with their options.';

COMMENT ON FUNCTION jldp_internal.jl_linear_fit_combine(internal, internal) IS
  'Combine function of jl_linear_fit: merges the counts, means and centred co-moments of two partial states.';

COMMENT ON FUNCTION jldp_internal.jl_linear_fit_serialize(internal) IS
  'Serial function of jl_linear_fit: the state as one flat bytea.';

COMMENT ON FUNCTION jldp_internal.jl_linear_fit_deserialize(bytea, internal) IS
  'Deserial function of jl_linear_fit: the state back from its bytea, every field checked.';

COMMENT ON FUNCTION jldp_internal.jl_linear_fit_final(internal) IS
  'Final function of jl_linear_fit: the d x m coefficients.';

COMMENT ON FUNCTION jldp_internal.jl_linear_fit_intercept_final(internal) IS
  'Final function of jl_linear_fit_intercept: the m intercepts.';

CREATE AGGREGATE jldp.jl_linear_fit(x float8[], y float8[]) (
  SFUNC = jldp_internal.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = jldp_internal.jl_linear_fit_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = jldp_internal.jl_linear_fit_combine,
  SERIALFUNC = jldp_internal.jl_linear_fit_serialize,
  DESERIALFUNC = jldp_internal.jl_linear_fit_deserialize,
  PARALLEL = SAFE);

CREATE AGGREGATE jldp.jl_linear_fit(x float8[], y float8[], options jldp.jl_linear_options) (
  SFUNC = jldp_internal.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = jldp_internal.jl_linear_fit_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = jldp_internal.jl_linear_fit_combine,
  SERIALFUNC = jldp_internal.jl_linear_fit_serialize,
  DESERIALFUNC = jldp_internal.jl_linear_fit_deserialize,
  PARALLEL = SAFE);

CREATE AGGREGATE jldp.jl_linear_fit_intercept(x float8[], y float8[]) (
  SFUNC = jldp_internal.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = jldp_internal.jl_linear_fit_intercept_final, FINALFUNC_MODIFY = SHAREABLE,
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

COMMENT ON AGGREGATE jldp.jl_linear_fit(float8[], float8[]) IS
  'Least squares of label vectors y (m values) on feature vectors x (d values) with an intercept: the d x m coefficients W minimising ||Y - X W - 1 b^T||^2 (b from jl_linear_fit_intercept; the prediction is jl_linear_predict(x, W, b)). Rows with a NULL x or y are skipped; NULL over no rows. Minimum-norm W when X is rank-deficient.';

COMMENT ON AGGREGATE jldp.jl_linear_fit(float8[], float8[], jldp.jl_linear_options) IS
  'jl_linear_fit(x, y) with its options: jl_linear_options(ridge => r) minimises ||Y - X W - 1 b^T||^2 + r ||W||^2 (ridge regression; the intercept is not penalised), jl_linear_options(intercept => false) fits Y = X W through the origin.';

COMMENT ON AGGREGATE jldp.jl_linear_fit_intercept(float8[], float8[]) IS
  'The m intercepts b of jl_linear_fit(x, y): mean(y) - W^T mean(x).';

COMMENT ON AGGREGATE jldp.jl_linear_fit_intercept(float8[], float8[], jldp.jl_linear_options) IS
  'The m intercepts b of jl_linear_fit(x, y, options) (zeros with intercept => false).';

CREATE FUNCTION jldp.jl_linear_predict(x float8[], coef float8[], intercept float8[] DEFAULT NULL)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_linear_predict'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_linear_predict(float8[], float8[], float8[]) IS
  'coef^T x + intercept: the prediction of a linear model (coef d x m, as jl_linear_fit returns it; intercept m values or NULL for none). NULL if x or coef is NULL.';

CREATE FUNCTION jldp.jl_nullspace_clean(x float8[], a_desired float8[], a_confidential float8[],
    utility_error float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_nullspace_clean_confidential'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_nullspace_clean(float8[], float8[], float8[], float8) IS
  'Null-space cleaning, Algorithm 2: as jl_nullspace_clean(x, a_desired, utility_error) with the budget spent where the confidential predictor a_confidential (d x m_c, fitted on the cleaner''s own data) sees most per unit of utility: generalised eigenvectors of the pencil (a_d a_d^T, a_c a_c^T) on the span of both models, coordinates in the dual basis; the common null space is removed whole. ||a_desired^T (x - result)||^2 <= utility_error, certified.';

CREATE FUNCTION jldp.jl_nullspace_clean(x float8[], a_desired float8[], utility_error float8,
    method jldp.jl_nullspace_method DEFAULT 'waterfill')
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_nullspace_clean'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_nullspace_clean(float8[], float8[], float8, jldp.jl_nullspace_method) IS
  'Null-space cleaning, Algorithm 1: x with the components that the linear predictor a_desired (d x m, e.g. jl_linear_fit) barely sees removed, such that ||a_desired^T (x - result)||^2 <= utility_error, certified in floating point. The exact null space is always removed; the budget goes over the eigencomponents of a_desired a_desired^T by method => ''waterfill'' (the exact maximiser of the paper''s Theorem 2) or ''knapsack'' (the paper''s published Algorithm 1). The decomposition is cached per backend.';
