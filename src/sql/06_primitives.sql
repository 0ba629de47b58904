-- unbudgeted primitives: one vector released or projected, and their aggregates

-- Aggregate release of long-format data -------------------------------------
-- (row, attribute, value) rows, GROUP BY row: attribute i (1-based) uses row
-- i - 1 of the same P as the dense path.  The state holds the distinct
-- attributes seen (never d values), P is never materialized for large d.
CREATE FUNCTION jldp_internal.jl_agg_combine(internal, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_agg_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION jldp_internal.jl_agg_serialize(internal)
RETURNS bytea AS 'MODULE_PATHNAME', 'jl_agg_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION jldp_internal.jl_agg_deserialize(bytea, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_agg_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- noise: VOLATILE, never folded or reused
CREATE FUNCTION jldp_internal.jl_private_release_agg_final(internal)
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_private_release_agg_final'
LANGUAGE C VOLATILE PARALLEL SAFE;

CREATE FUNCTION jldp_internal.jl_project_agg_final(internal)
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_project_agg_final'
LANGUAGE C STABLE PARALLEL SAFE;

-- one vector released, unbudgeted: the aggregate's options (0.5.0)
CREATE FUNCTION jldp.jl_private_release(x float8[], epsilon float8, bound float8,
    neighbor jldp.jl_neighbor, mechanism jldp.jl_mechanism, key text DEFAULT 'default')
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_private_release_mechanism'
LANGUAGE C VOLATILE PARALLEL SAFE COST 100;

COMMENT ON FUNCTION jldp.jl_private_release(float8[], float8, float8, jldp.jl_neighbor, jldp.jl_mechanism, text) IS
  'Unbudgeted primitive: a private sketch of x with a jl_sketch mechanism: x P (the key''s secret JL projection of the mechanism''s kind and k; kind ''identity'': P = I, k = d) rounded to a power-of-two grid plus exact discrete noise (Laplace: pure epsilon, to the L1 sensitivity of the realized P; Gaussian: (epsilon, delta), to its L2 sensitivity), for neighbours that change one element by at most bound (''attribute'') or a whole row by at most bound in L2 norm (''row''). Charges nothing and records nothing: book its cost with jl_budget_book. jl_release_info gives the guarantee.';

CREATE FUNCTION jldp.jl_release_info(d int, epsilon float8, bound float8,
    neighbor jldp.jl_neighbor, mechanism jldp.jl_mechanism, key text DEFAULT 'default')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'jl_release_info_mechanism'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_release_info(int, float8, float8, jldp.jl_neighbor, jldp.jl_mechanism, text) IS
  'What jl_private_release of d-dimensional rows with these options guarantees (epsilon, delta that hold; for Gaussian noise also delta_requested and the smaller delta_holding) and uses (noise, sensitivity, scale or sigma, grid, noise_variance), and the projection (kind, density). Contains no secret.';

-- the projection alone, of a jl_sketch mechanism's k, kind and density (0.5.0)
CREATE FUNCTION jldp.jl_project(x float8[], mechanism jldp.jl_mechanism, key text DEFAULT 'default')
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_project_mechanism'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 50;

COMMENT ON FUNCTION jldp.jl_project(float8[], jldp.jl_mechanism, text) IS
  'Noise-free x P, P of the jl_sketch mechanism''s k, kind and density (its noise is not used; kind ''identity'' with k NULL: x itself), for the curator''s own verification. Reveals P: never grant it to analysts.';

CREATE FUNCTION jldp_internal.jl_project_agg_mechanism_trans(internal, int, float8, jldp.jl_mechanism, text)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_project_agg_mechanism_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE jldp.jl_project_agg(attr int, value float8, mechanism jldp.jl_mechanism, key text) (
  SFUNC = jldp_internal.jl_project_agg_mechanism_trans, STYPE = internal, SSPACE = 512,
  FINALFUNC = jldp_internal.jl_project_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = jldp_internal.jl_agg_combine,
  SERIALFUNC = jldp_internal.jl_agg_serialize, DESERIALFUNC = jldp_internal.jl_agg_deserialize,
  PARALLEL = SAFE);

COMMENT ON AGGREGATE jldp.jl_project_agg(int, float8, jldp.jl_mechanism, text) IS
  'Noise-free x P of each group of (attr, value) rows (attr >= 1 uses row attr - 1 of P; duplicates summed, NULL values skipped), P of the jl_sketch mechanism''s k (required), kind and density (kind ''sparse'' needs its density here, as there is no d): equals jl_project of the dense vector up to summation order. Reveals P: never grant it to analysts.';

-- the release aggregate as an unbudgeted primitive (0.4.2)
CREATE FUNCTION jldp_internal.jl_release_agg_trans(internal, int, float8, int, float8, float8,
    jldp.jl_neighbor, jldp.jl_mechanism, text)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_release_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE jldp.jl_private_release_agg(attr int, value float8, d int, epsilon float8,
    bound float8, neighbor jldp.jl_neighbor, mechanism jldp.jl_mechanism, key text) (
  SFUNC = jldp_internal.jl_release_agg_trans, STYPE = internal, SSPACE = 512,
  FINALFUNC = jldp_internal.jl_private_release_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = jldp_internal.jl_agg_combine,
  SERIALFUNC = jldp_internal.jl_agg_serialize, DESERIALFUNC = jldp_internal.jl_agg_deserialize,
  PARALLEL = SAFE);

COMMENT ON AGGREGATE jldp.jl_private_release_agg(int, float8, int, float8, float8, jldp.jl_neighbor, jldp.jl_mechanism, text) IS
  'Unbudgeted primitive: a private sketch of each group of (attr, value) rows, e.g. SELECT user_id, jl_private_release_agg(attr, val, 1000, 1.0, 1.0, ''attribute'', jl_sketch(k => 20), ''default'') FROM facts GROUP BY user_id: what jl_private_release releases for the dense vector with x[attr] = value (attr 1..d, else an error; repeated attributes summed, NULL values skipped), each element within bound (neighbor ''attribute'') or each row within L2 norm bound / 2 (''row''), with the jl_sketch mechanism''s projection and noise and the key''s P.  It charges nothing and records nothing: which rows it reads is the query''s, not a declaration''s; book its cost with jl_budget_book(protected, epsilon, delta).  jl_release over a protected table (jl_long) is the budgeted release of long-format data.';
