-- choosing k and the release: jl_min_dim, jl_suggest_k, jl_advise

-- Choosing k ---------------------------------------------------------------
CREATE FUNCTION jldp.jl_min_dim(n bigint, eps float8 DEFAULT 0.1)
RETURNS int
AS 'MODULE_PATHNAME', 'jl_min_dim_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_min_dim(bigint, float8) IS
  'scikit-learn''s johnson_lindenstrauss_min_dim(n, eps=eps): int(4 ln(n) / (eps^2/2 - eps^3/3)), the k at which a random projection alone keeps all pairwise squared distances of n points within a factor 1 +- eps with good probability (no noise considered). eps in (0, 1).';

-- the advisor, its options typed (0.5.0)
CREATE FUNCTION jldp.jl_suggest_k(
    d int, n bigint, epsilon float8, dist2 float8, dist2_hi float8 DEFAULT NULL,
    neighbor jldp.jl_neighbor DEFAULT 'attribute', bound float8 DEFAULT 1,
    noise jldp.jl_noise DEFAULT 'laplace', delta float8 DEFAULT NULL,
    kind jldp.jl_kind DEFAULT NULL, calibration jldp.jl_calibration DEFAULT NULL,
    key text DEFAULT 'default')
RETURNS int
AS 'MODULE_PATHNAME', 'jl_suggest_k'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_suggest_k(int, bigint, float8, float8, float8, jldp.jl_neighbor, float8, jldp.jl_noise, float8, jldp.jl_kind, jldp.jl_calibration, text) IS
  'The k minimizing the variance 2 r^4/k + 8 s2 r^2 + c k s2^2 of recovered squared distances at r^2 = dist2 (or, for a range [dist2, dist2_hi], the worst ratio to the best stddev of any k), with s2 the noise variance of jl_release_info(d, k, epsilon, ...) for the realized projection of each candidate k. Uses the key. See jl_suggest_k_info.';

CREATE FUNCTION jldp.jl_suggest_k_info(
    d int, n bigint, epsilon float8, dist2 float8, dist2_hi float8 DEFAULT NULL,
    neighbor jldp.jl_neighbor DEFAULT 'attribute', bound float8 DEFAULT 1,
    noise jldp.jl_noise DEFAULT 'laplace', delta float8 DEFAULT NULL,
    kind jldp.jl_kind DEFAULT NULL, calibration jldp.jl_calibration DEFAULT NULL,
    key text DEFAULT 'default')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'jl_suggest_k_info'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_suggest_k_info(int, bigint, float8, float8, float8, jldp.jl_neighbor, float8, jldp.jl_noise, float8, jldp.jl_kind, jldp.jl_calibration, text) IS
  'jl_suggest_k with its figures: k, noise_variance, expected stddev and relative stddev at dist2 (and dist2_hi), the best k at each end of the range, Kenthapadi''s rule of thumb dist2 / (2 s2), identity_stddev (no projection: P = I, k = d, with the same options) and projection_pays (stddev < identity_stddev), and for the n rows the distortion of the projection alone at this k (scikit-learn''s bound) and jl_min_dim(n, 0.1).';

CREATE FUNCTION jldp.jl_advise(
    d int, epsilon float8, dist2 float8, dist2_hi float8 DEFAULT NULL,
    neighbor jldp.jl_neighbor DEFAULT 'attribute', bound float8 DEFAULT 1,
    noise jldp.jl_noise DEFAULT NULL, delta float8 DEFAULT NULL,
    goal jldp.jl_goal DEFAULT 'distance', cluster_var float8 DEFAULT NULL,
    n bigint DEFAULT NULL, key text DEFAULT 'default')
RETURNS TABLE (rank int, kind text, k int, noise text, calibration text,
               delta float8, noise_variance float8, predicted_error float8,
               predicted_error_hi float8, relative_error float8,
               refused boolean, note text)
AS 'MODULE_PATHNAME', 'jl_advise'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10;

COMMENT ON FUNCTION jldp.jl_advise(int, float8, float8, float8, jldp.jl_neighbor, float8, jldp.jl_noise, float8, jldp.jl_goal, float8, bigint, text) IS
  'Ranks the releases of d-dimensional rows: no projection (kind identity, k = d) and each projection kind at its best k, with Laplace noise and, where delta is given, Gaussian noise, each calibrated as jl_release_info would (to the realized projection of the key). predicted_error: for goal distance the stddev of a recovered squared distance at dist2, sqrt(2 r^4/k + 8 s2 r^2 + c k s2^2) (no 2 r^4/k term without a projection); for goal clustering the misclassification probability of the nearest-centre rule between two clusters whose centres are dist2 apart, each attribute with variance cluster_var around its centre (n rows: centres estimated); for goal neighbors the probability that a non-neighbour at squared distance dist2_hi (required, > dist2) is ranked before a neighbour at dist2, Phi(-(dist2_hi - dist2) / sqrt(v(dist2) + v(dist2_hi))) with v the variance of a recovered squared distance. relative_error: to the best option (for a range [dist2, dist2_hi], the worst ratio to the best at each distance). Refused options are shown, never ranked. The note of rank 1 says first when even it does not serve the goal (distance: a stddev not below dist2; clustering: a misclassification of 0.25 or more; neighbors: a misordering of 0.25 or more) and the epsilon at which it would, then whether the projection pays. Uses the key.';
