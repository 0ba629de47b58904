-- randomized response for 0/1 data, and discrete Laplace noise on counts

-- Randomized response for 0/1 data (Kenthapadi et al., Algorithms 5-6) ---
-- Each bit flipped with p = 1/(1 + e^epsilon), sampled exactly from
-- pg_strong_random: epsilon-DP for one bit (one element) changing.  No key:
-- executable by everyone.
CREATE FUNCTION jldp.jl_randomized_response(bits float8[], epsilon float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_randomized_response'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_randomized_response(float8[], float8) IS
  'Randomized response: each 0/1 element flipped independently with probability p = jl_rr_flip_probability(epsilon) = 1/(1 + e^epsilon), exactly, from pg_strong_random. epsilon-DP for one element changing (h elements: h epsilon). Values other than 0 and 1 are an error.';

CREATE FUNCTION jldp.jl_randomized_response(bits boolean[], epsilon float8)
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'jl_randomized_response_bool'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_randomized_response(boolean[], float8) IS
  'Randomized response on a boolean[]: each element negated with probability 1/(1 + e^epsilon).';

CREATE FUNCTION jldp.jl_randomized_response(bits bit varying, epsilon float8)
RETURNS bit varying
AS 'MODULE_PATHNAME', 'jl_randomized_response_bits'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_randomized_response(bit varying, float8) IS
  'Randomized response on a bit string (compact for large d): each bit flipped with probability 1/(1 + e^epsilon).';

CREATE FUNCTION jldp.jl_rr_flip_probability(epsilon float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_rr_flip_probability_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_rr_flip_probability(float8) IS
  'The flip probability jl_randomized_response uses for epsilon: 1/(1 + e^epsilon) (epsilon rounded down to a multiple of 2^-31).';

CREATE FUNCTION jldp.jl_recover_dist_rr(a float8[], b float8[], p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_rr'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_dist_rr(float8[], float8[], float8) IS
  'Unbiased estimate of the squared distance (Hamming distance) between the original 0/1 vectors of two randomized responses with flip probability p: (||a - b||^2 - 2 d p (1-p)) / (1 - 2p)^2.';

CREATE FUNCTION jldp.jl_recover_dist_rr(a boolean[], b boolean[], p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_rr_bool'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_dist_rr(boolean[], boolean[], float8) IS
  'jl_recover_dist_rr of two boolean[] randomized responses.';

CREATE FUNCTION jldp.jl_recover_dist_rr(a bit varying, b bit varying, p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_rr_bits'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_dist_rr(bit varying, bit varying, float8) IS
  'jl_recover_dist_rr of two bit-string randomized responses.';

CREATE FUNCTION jldp.jl_recover_dist_rr_stddev(a float8[], b float8[], p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_rr_stddev'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_dist_rr_stddev(float8[], float8[], float8) IS
  'Standard deviation of jl_recover_dist_rr, the same at every true distance: sqrt(d s (1-s)) / (1-2p)^2 with s = 2p(1-p).';

CREATE FUNCTION jldp.jl_recover_dist_rr_stddev(a boolean[], b boolean[], p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_rr_stddev_bool'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_dist_rr_stddev(boolean[], boolean[], float8) IS
  'jl_recover_dist_rr_stddev of two boolean[] randomized responses.';

CREATE FUNCTION jldp.jl_recover_dist_rr_stddev(a bit varying, b bit varying, p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_rr_stddev_bits'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_dist_rr_stddev(bit varying, bit varying, float8) IS
  'jl_recover_dist_rr_stddev of two bit-string randomized responses.';

-- Exact discrete Laplace noise on one integer value (output perturbation,
-- e.g. Kenthapadi et al.'s Algorithm 3 on a matrix of distances) ----------
CREATE FUNCTION jldp.jl_add_discrete_laplace(value bigint, epsilon float8, sensitivity bigint DEFAULT 1)
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_add_discrete_laplace'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_add_discrete_laplace(bigint, float8, bigint) IS
  'value + exact discrete Laplace noise of scale t = the smallest integer with sensitivity / t <= epsilon, from pg_strong_random: epsilon-DP for values of neighbouring inputs differing by at most sensitivity. Saturates at the bigint range.';

CREATE FUNCTION jldp.jl_discrete_laplace_variance(epsilon float8, sensitivity bigint DEFAULT 1)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_discrete_laplace_variance_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_discrete_laplace_variance(float8, bigint) IS
  'Variance of the noise jl_add_discrete_laplace(value, epsilon, sensitivity) adds: 2 q / (1 - q)^2 with q = exp(-1/t).';
