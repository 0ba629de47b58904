-- jldp 0.4.1 -> 0.4.2.  The advised mechanism (jl_advised): the sketch the
-- advisor ranks first for a goal, refused when it would not serve it; as
-- jldp--0.4.2.sql defines it.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.4.2'" to load this file. \quit

CREATE TYPE @extschema@.jl_origin AS ENUM ('lo', 'zero');
COMMENT ON TYPE @extschema@.jl_origin IS
  'Where the covariance mechanism puts a number''s zero: at lo (the declared encoding, (x - lo) weight / (hi - lo)) or at zero (x weight / (hi - lo): second moments about the data''s origin).';
CREATE TYPE @extschema@.jl_goal AS ENUM ('distance', 'clustering');
COMMENT ON TYPE @extschema@.jl_goal IS
  'What sketches are for, as the advisor predicts their error: recovered squared distances (distance) or a nearest-centre clustering (clustering).';
ALTER TYPE @extschema@.jl_mechanism
  ADD ATTRIBUTE goal @extschema@.jl_goal,
  ADD ATTRIBUTE dist2 float8,
  ADD ATTRIBUTE dist2_hi float8,
  ADD ATTRIBUTE cluster_var float8,
  ADD ATTRIBUTE force boolean,
  ADD ATTRIBUTE origin @extschema@.jl_origin;
COMMENT ON TYPE @extschema@.jl_mechanism IS
  'What jl_release releases with, built by a mechanism''s constructor (jl_sketch, jl_advised, jl_covariance_mechanism, jl_graph).';

-- the constructors build the wider value
CREATE OR REPLACE FUNCTION @extschema@.jl_sketch(k int DEFAULT NULL, kind @extschema@.jl_kind DEFAULT 'rademacher',
    noise @extschema@.jl_noise DEFAULT 'laplace', delta float8 DEFAULT NULL,
    calibration @extschema@.jl_calibration DEFAULT NULL)
RETURNS @extschema@.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN @extschema@.jl_mechanism_checked(ROW('sketch', k, kind, noise, delta, calibration, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::@extschema@.jl_mechanism);
COMMENT ON FUNCTION @extschema@.jl_sketch(int, @extschema@.jl_kind, @extschema@.jl_noise, float8, @extschema@.jl_calibration) IS
  'The sketch mechanism for jl_release: each unit''s encoded row projected to k dimensions by the key''s P (kind ''identity'': not projected, k = d) plus noise calibrated to the declaration and the realized P (Laplace: pure epsilon; Gaussian: give delta).';

DROP FUNCTION @extschema@.jl_covariance_mechanism(int, float8, @extschema@.jl_lift, @extschema@.jl_covariance_method);
CREATE FUNCTION @extschema@.jl_covariance_mechanism(r int, delta float8,
    lift @extschema@.jl_lift DEFAULT 'always', method @extschema@.jl_covariance_method DEFAULT 'gram',
    origin @extschema@.jl_origin DEFAULT 'lo')
RETURNS @extschema@.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN @extschema@.jl_mechanism_checked(ROW('covariance', NULL, NULL, NULL, delta, NULL, r, lift, method, NULL, NULL, NULL, NULL, NULL, origin)::@extschema@.jl_mechanism);
COMMENT ON FUNCTION @extschema@.jl_covariance_mechanism(int, float8, @extschema@.jl_lift, @extschema@.jl_covariance_method, @extschema@.jl_origin) IS
  'The covariance mechanism for jl_release (Blocki et al.): r rows of R = Y [A; l I], A the encoded rows (each of L2 norm at most the row clip, or the largest the declaration allows), Y fresh Gaussian, the lift l from an exact accountant for (epsilon, delta); jl_covariance and jl_directional_variance read it.  origin => ''zero'' releases the second moments of the numbers about their zero (x weight / (hi - lo), signed) instead of about lo, the norm bound then the largest norm of such a row.';

CREATE OR REPLACE FUNCTION @extschema@.jl_graph(r int, delta float8)
RETURNS @extschema@.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN @extschema@.jl_mechanism_checked(ROW('graph', NULL, NULL, NULL, delta, NULL, r, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::@extschema@.jl_mechanism);
COMMENT ON FUNCTION @extschema@.jl_graph(int, float8) IS
  'The graph mechanism for jl_release over a table declared with jl_edge (Blocki et al.): one sketch of r entries per vertex, R = Y E with E the edges overlaid with a weighted complete graph, the weight from an exact accountant for (epsilon, delta) against one edge row replaced; jl_cut_size estimates cuts from it.';

CREATE FUNCTION @extschema@.jl_advised(goal @extschema@.jl_goal DEFAULT 'distance', dist2 float8 DEFAULT NULL,
    dist2_hi float8 DEFAULT NULL, cluster_var float8 DEFAULT NULL,
    noise @extschema@.jl_noise DEFAULT NULL, delta float8 DEFAULT NULL, force boolean DEFAULT false)
RETURNS @extschema@.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN @extschema@.jl_mechanism_checked(ROW('advised', NULL, NULL, noise, delta, NULL, NULL, NULL, NULL, goal, dist2, dist2_hi, cluster_var, force, NULL)::@extschema@.jl_mechanism);
COMMENT ON FUNCTION @extschema@.jl_advised(@extschema@.jl_goal, float8, float8, float8, @extschema@.jl_noise, float8, boolean) IS
  'The sketch mechanism the advisor ranks first for the goal (jl_advise: no projection or a kind at its best k; Laplace noise, and Gaussian when delta is given), every option calibrated to the declaration as jl_sketch would be; dist2 (required) is the squared distance of interest between encoded rows, or between two clusters'' centres with cluster_var for goal clustering.  A release refuses before its charge, with the epsilon that would serve the goal, when the best option would not (distance: the recovered squared distance''s standard deviation not below dist2; clustering: a misclassification of 0.25 or more), unless force => true.';

-- the release aggregate as an unbudgeted primitive (0.4.2)
CREATE FUNCTION @extschema@.jl_release_agg_trans(internal, int, float8, int, float8, float8,
    @extschema@.jl_neighbor, @extschema@.jl_mechanism, text)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_release_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.jl_private_release_agg(attr int, value float8, d int, epsilon float8,
    bound float8, neighbor @extschema@.jl_neighbor, mechanism @extschema@.jl_mechanism, key text) (
  SFUNC = @extschema@.jl_release_agg_trans, STYPE = internal, SSPACE = 512,
  FINALFUNC = @extschema@.jl_private_release_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = @extschema@.jl_agg_combine,
  SERIALFUNC = @extschema@.jl_agg_serialize, DESERIALFUNC = @extschema@.jl_agg_deserialize,
  PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.jl_private_release_agg(int, float8, int, float8, float8, @extschema@.jl_neighbor, @extschema@.jl_mechanism, text) IS
  'Unbudgeted primitive: a private sketch of each group of (attr, value) rows, e.g. SELECT user_id, jl_private_release_agg(attr, val, 1000, 1.0, 1.0, ''attribute'', jl_sketch(k => 20), ''default'') FROM facts GROUP BY user_id: what jl_private_release releases for the dense vector with x[attr] = value (attr 1..d, else an error; repeated attributes summed, NULL values skipped), each element within bound (neighbor ''attribute'') or each row within L2 norm bound / 2 (''row''), with the jl_sketch mechanism''s projection and noise and the key''s P.  It charges nothing and records nothing: which rows it reads is the query''s, not a declaration''s; book its cost with jl_budget_book(protected, epsilon, delta).  jl_release over a protected table (jl_long) is the budgeted release of long-format data.';
REVOKE ALL ON FUNCTION @extschema@.jl_private_release_agg(int, float8, int, float8, float8, @extschema@.jl_neighbor, @extschema@.jl_mechanism, text) FROM PUBLIC;
