-- Randomized response, output perturbation and choosing k.

-- flip probability 1/(1 + e^epsilon)
SELECT jl_rr_flip_probability(1.0), 1 / (1 + exp(1.0::float8)) AS expected;
SELECT jl_rr_flip_probability(0.5) > 0.377 AND jl_rr_flip_probability(0.5) < 0.378 AS p_half;
SELECT jl_rr_flip_probability(1e9) AS capped;

-- recovery on fixed inputs: h = 3, d = 5, p = 1/4: (3 - 2*5*3/16) / (1/2)^2 = 4.5
SELECT jl_recover_dist_rr('{1,0,1,1,0}'::float8[], '{0,0,1,0,1}'::float8[], 0.25);
SELECT jl_recover_dist_rr('{t,f,t,t,f}'::boolean[], '{f,f,t,f,t}'::boolean[], 0.25);
SELECT jl_recover_dist_rr(B'10110', B'00101', 0.25);
SELECT jl_recover_dist_rr(B'10110'::bit(5), B'00101'::bit(5), 0.25);
-- p = 0: the Hamming distance
SELECT jl_recover_dist_rr('{1,0,1,1,0}'::float8[], '{0,0,1,0,1}'::float8[], 0);
-- a longer bit string (several bytes and pad bits): h = 2
SELECT jl_recover_dist_rr(B'1011000011110000111', B'1011000011110000100', 0);
-- stddev sqrt(d s (1-s)) / (1-2p)^2, s = 2p(1-p) = 3/8: sqrt(5 * 15/64 * 16) = sqrt(18.75)
SELECT jl_recover_dist_rr_stddev('{1,0,1,1,0}'::float8[], '{0,0,1,0,1}'::float8[], 0.25), sqrt(18.75::float8) AS expected;
SELECT jl_recover_dist_rr_stddev('{t,f,t,t,f}'::boolean[], '{f,f,t,f,t}'::boolean[], 0.25);
SELECT jl_recover_dist_rr_stddev(B'10110', B'00101', 0.25);
-- lower bounds do not matter
SELECT jl_recover_dist_rr('[3:5]={1,0,1}'::float8[], '{0,0,1}'::float8[], 0);

-- release: shapes and values kept; with epsilon 40 (p = 4e-18) nothing flips
SELECT jl_randomized_response('{1,0,1,1,0}'::float8[], 40);
SELECT jl_randomized_response('{t,f,t}'::boolean[], 40);
SELECT jl_randomized_response(B'1011000011110000111', 40);
SELECT jl_randomized_response(B'101'::bit(3), 40);
SELECT array_lower(jl_randomized_response('[3:5]={1,0,1}'::float8[], 40), 1) AS lbound;
-- -0 comes out as 0 (a kept -0 would tell that the element was not flipped)
SELECT jl_randomized_response('{-0,1,-0}'::float8[], 40);
SELECT bool_and(v::text IN ('0', '1')) AS no_negative_zero
  FROM unnest(jl_randomized_response(array_fill('-0'::float8, ARRAY[200]), 0.5)) v;
-- at epsilon 0.5 the output is 0/1 data of the same length
SELECT array_length(r, 1) = 1000 AND bool_and(v IN (0, 1)) AS zero_one
  FROM (SELECT jl_randomized_response(array_fill(1::float8, ARRAY[1000]), 0.5) r) s, unnest(r) v
  GROUP BY r;
SELECT length(jl_randomized_response(repeat('1', 999)::varbit, 0.5)) AS varbit_length;
-- volatile: two calls differ (1000 fair-ish coins: equal with probability ~2^-1000)
SELECT jl_randomized_response(repeat('0', 1000)::varbit, 1e-9) <> jl_randomized_response(repeat('0', 1000)::varbit, 1e-9) AS differs;

-- strict
SELECT jl_randomized_response(NULL::float8[], 1) IS NULL AS strict_bits,
       jl_recover_dist_rr('{1}'::float8[], '{0}'::float8[], NULL) IS NULL AS strict_p;

-- errors
SELECT error($$SELECT jl_randomized_response('{1,0,2}'::float8[], 1)$$);
SELECT error($$SELECT jl_randomized_response('{1,0.5}'::float8[], 1)$$);
SELECT error($$SELECT jl_randomized_response('{1,NaN}'::float8[], 1)$$);
SELECT error($$SELECT jl_randomized_response('{1,NULL}'::float8[], 1)$$);
SELECT error($$SELECT jl_randomized_response('{t,NULL}'::boolean[], 1)$$);
SELECT error($$SELECT jl_randomized_response('{}'::float8[], 1)$$);
SELECT error($$SELECT jl_randomized_response('{{1,0}}'::float8[], 1)$$);
SELECT error($$SELECT jl_randomized_response(B'', 1)$$);
SELECT error($$SELECT jl_randomized_response('{1,0}'::float8[], 0)$$);
SELECT error($$SELECT jl_randomized_response('{1,0}'::float8[], -1)$$);
SELECT error($$SELECT jl_randomized_response('{1,0}'::float8[], 'NaN')$$);
SELECT error($$SELECT jl_randomized_response('{t}'::boolean[], 'Infinity')$$);
SELECT error($$SELECT jl_rr_flip_probability(0)$$);
SELECT error($$SELECT jl_recover_dist_rr('{1,0}'::float8[], '{1,0}'::float8[], 0.5)$$);
SELECT error($$SELECT jl_recover_dist_rr('{1,0}'::float8[], '{1,0}'::float8[], -0.1)$$);
SELECT error($$SELECT jl_recover_dist_rr('{1,0}'::float8[], '{1,0}'::float8[], 'NaN')$$);
SELECT error($$SELECT jl_recover_dist_rr('{1,0}'::float8[], '{1,0,1}'::float8[], 0.1)$$);
SELECT error($$SELECT jl_recover_dist_rr('{t,f}'::boolean[], '{t}'::boolean[], 0.1)$$);
SELECT error($$SELECT jl_recover_dist_rr(B'10', B'101', 0.1)$$);
SELECT error($$SELECT jl_recover_dist_rr(B'', B'', 0.1)$$);
SELECT error($$SELECT jl_recover_dist_rr('{1,3}'::float8[], '{1,0}'::float8[], 0.1)$$);
SELECT error($$SELECT jl_recover_dist_rr_stddev('{1,0}'::float8[], '{1,0}'::float8[], 0.5)$$);

-- discrete Laplace noise on a value
-- variance 2q/(1-q)^2, q = exp(-1/t): t = 1 (epsilon 1, sensitivity 1), t = 10
SELECT round(jl_discrete_laplace_variance(1.0)::numeric, 10), round((2 * exp(-1.0) / (1 - exp(-1.0))^2)::numeric, 10) AS expected;
SELECT round(jl_discrete_laplace_variance(0.5, 5)::numeric, 10), round((2 * exp(-0.1) / (1 - exp(-0.1))^2)::numeric, 10) AS expected;
-- t is the smallest integer with sensitivity / t <= epsilon: 3 / 0.7 = 4.29 -> t = 5, 3 / 0.75 = 4 -> t = 4
SELECT jl_discrete_laplace_variance(0.7, 3) = jl_discrete_laplace_variance(1, 5) AS t5,
       jl_discrete_laplace_variance(0.75, 3) = jl_discrete_laplace_variance(1, 4) AS t4;
SELECT pg_typeof(jl_add_discrete_laplace(10, 1.0));
-- saturates instead of failing on the value
SELECT jl_add_discrete_laplace(9223372036854775807, 0.001) >= 9223372036854775807 - 1000000 AS saturates;
SELECT error($$SELECT jl_add_discrete_laplace(1, 0)$$);
SELECT error($$SELECT jl_add_discrete_laplace(1, 1, 0)$$);
SELECT error($$SELECT jl_add_discrete_laplace(1, 1e-300)$$);

-- scikit-learn's johnson_lindenstrauss_min_dim
SELECT jl_min_dim(1000000, 0.5) AS "663", jl_min_dim(1000000, 0.1) AS "11841",
       jl_min_dim(1000000, 0.01) AS "1112658", jl_min_dim(10000) AS "7894",
       jl_min_dim(100000, 0.1) AS "9868", jl_min_dim(100, 0.5) AS "221", jl_min_dim(1, 0.5) AS "0";
SELECT error($$SELECT jl_min_dim(1000, 0)$$);
SELECT error($$SELECT jl_min_dim(1000, 1)$$);
SELECT error($$SELECT jl_min_dim(1000, 'NaN')$$);
SELECT error($$SELECT jl_min_dim(0, 0.1)$$);
SELECT error($$SELECT jl_min_dim(1000000, 1e-6)$$);

-- choosing k with the pinned key: the realized projections fix the answer
SELECT jl_suggest_k(100, 1000, 4.0, 500, key => 'pinned') AS k_typical;
SELECT jl_suggest_k(100, 1000, 4.0, 100, 2000, key => 'pinned') AS k_range;
SELECT jl_suggest_k(100, 1000, 1.0, 50, key => 'pinned') AS k_noisy;
SELECT jl_suggest_k(100, 1000, 4.0, 500, neighbor => 'row', bound => 2, key => 'pinned') AS k_row;
-- the projection kind passes through to jl_release_info
SELECT jl_suggest_k(100, 1000, 4.0, 500, kind => 'rademacher', key => 'pinned') AS k_rademacher;
SELECT error($$SELECT jl_suggest_k(100, 1000, 4.0, 500, kind => 'cauchy', key => 'pinned')$$);
-- a k whose sparse P is all zeros (sensitivity 0: no release) is skipped.
-- jl_suggest_k takes no density (0.4's kind 'sparse(0.01)' at d = 10 has no
-- 0.5 form), so a d whose P of the default density 1/sqrt(d) is all zeros
-- at k = 1 under the pinned key: d = 4 (density 0.5)
SELECT error($$SELECT jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 1, kind => 'sparse', density => 0.01), key => 'pinned')$$);
SELECT error($$SELECT jl_release_info(4, 1.0, 1, 'attribute', jl_sketch(k => 1, kind => 'sparse'), key => 'pinned')$$);
SELECT jl_suggest_k(4, 100, 1.0, 4.0, kind => 'sparse', key => 'pinned') > 0 AS k_sparse;
-- a paper calibration that does not cover the projection of a k makes that k
-- infeasible (Laplace: valid false); if none is feasible, the refusal is raised
SELECT jl_suggest_k(100, 1000, 4.0, 500, calibration => 'paper', key => 'pinned') AS k_paper;
SELECT error($$SELECT jl_suggest_k(100, 1000, 4.0, 500, neighbor => 'row', calibration => 'paper', key => 'pinned')$$);
-- Gaussian noise: delta required; the paper's calibration (Lemma 2) refuses
-- k <= 2 (ln d + ln(2/delta)) = 33.6, so the smallest k it allows is best here
SELECT jl_suggest_k(100, 1000, 1.0, 500, noise => 'gaussian', delta => 1e-5, key => 'pinned') AS k_gaussian;
SELECT jl_suggest_k(100, 1000, 1.0, 100, 5000, noise => 'gaussian', delta => 1e-5, key => 'pinned') AS k_gaussian_range;
SELECT jl_suggest_k(100, 1000, 1.0, 500, noise => 'gaussian', delta => 1e-5, calibration => 'paper', key => 'pinned') AS k_gaussian_paper;
SELECT (i->>'noise_variance')::float8 = (jl_release_info(100, 1.0, 1, 'attribute', jl_sketch(k => (i->>'k')::int, noise => 'gaussian', delta => 1e-5), key => 'pinned')->>'noise_variance')::float8 AS same_noise,
       i->>'noise' AS noise
  FROM jl_suggest_k_info(100, 1000, 1.0, 500, noise => 'gaussian', delta => 1e-5, key => 'pinned') i;
SELECT error($$SELECT jl_suggest_k(100, 1000, 1.0, 500, noise => 'gaussian', key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(100, 1000, 1.0, 500, noise => 'gaussian', delta => 2, key => 'pinned')$$);

-- the noise variance at the suggested k is jl_release_info's
SELECT (i->>'k')::int AS k,
       (i->>'noise_variance')::float8 = (jl_release_info(100, 4.0, 1, 'attribute', jl_sketch(k => (i->>'k')::int), key => 'pinned')->>'noise_variance')::float8 AS same_noise,
       round((i->>'relative_stddev')::numeric, 4) AS relative_stddev,
       i->>'objective' AS objective, (i->>'at_k_max')::boolean AS at_k_max,
       i ? 'jl_distortion' AS has_distortion, i->>'min_dim_eps_0.1' AS min_dim
  FROM jl_suggest_k_info(100, 1000, 4.0, 500, key => 'pinned') i;
SELECT (i->>'k')::int BETWEEN (i->>'k_best_at_dist2')::int AND (i->>'k_best_at_dist2_hi')::int AS between_ends,
       (i->>'objective_value')::float8 >= 1 AS ratio_at_least_1
  FROM jl_suggest_k_info(100, 1000, 4.0, 100, 2000, key => 'pinned') i;
-- stable: the same answer twice
SELECT jl_suggest_k(100, 1000, 1.0, 50, key => 'pinned') = jl_suggest_k(100, 1000, 1.0, 50, key => 'pinned') AS stable;
-- not strict: NULL optional arguments are defaults, NULL required ones errors
SELECT jl_suggest_k(100, 1000, 1.0, 50, NULL, key => 'pinned') = jl_suggest_k(100, 1000, 1.0, 50, key => 'pinned') AS null_hi;
SELECT error($$SELECT jl_suggest_k(NULL, 1000, 1.0, 50, key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(100, 1000, 1.0, NULL, key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(0, 1000, 1.0, 50, key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(100, 0, 1.0, 50, key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(100, 1000, 0, 50, key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(100, 1000, 1.0, 0, key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(100, 1000, 1.0, 50, 10, key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(100, 1000, 1.0, 'Infinity', key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(100, 1000, 1.0, 50, neighbor => 'column', key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(100, 1000, 1.0, 50, noise => 'cauchy', key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(100, 1000, 1.0, 50, key => 'no such key')$$);
SELECT error($$SELECT jl_suggest_k(100, 1000, 1.0, 50, bound => -1, key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(2000000000, 1000, 1.0, 50, key => 'pinned')$$);

-- privileges: an analyst recovers; a curator also perturbs, adds noise
-- and chooses k (which uses the key); a role without jldp roles does none
CREATE ROLE regress_jldp_rr;
CREATE ROLE regress_jldp_rr_curator;
CREATE ROLE regress_jldp_rr_nobody;
GRANT jldp_analyst TO regress_jldp_rr;
GRANT jldp_curator TO regress_jldp_rr_curator;
SET ROLE regress_jldp_rr;
SELECT jl_recover_dist_rr(B'10', B'01', 0) AS analyst_recovers,
       jl_min_dim(1000, 0.5) AS analyst_min_dim;
SELECT error($$SELECT jl_randomized_response('{1,0}'::float8[], 40)$$);
SELECT error($$SELECT jl_add_discrete_laplace(5, 1e6, 1)$$);
SELECT error($$SELECT jl_suggest_k(100, 1000, 1.0, 50, key => 'pinned')$$);
SELECT error($$SELECT jl_suggest_k_info(100, 1000, 1.0, 50, key => 'pinned')$$);
RESET ROLE;
SET ROLE regress_jldp_rr_curator;
SELECT jl_randomized_response('{1,0}'::float8[], 40) AS curator_releases,
       jl_recover_dist_rr(B'10', B'01', 0) AS curator_recovers,
       jl_add_discrete_laplace(5, 1e6, 1) IS NOT NULL AS curator_noise,
       jl_suggest_k(100, 1000, 1.0, 50, key => 'pinned') AS curator_k,
       (jl_suggest_k_info(100, 1000, 1.0, 50, key => 'pinned')->>'k')::int AS curator_info_k;
RESET ROLE;
SET ROLE regress_jldp_rr_nobody;
SELECT error($$SELECT jl_recover_dist_rr(B'10', B'01', 0)$$);
SELECT error($$SELECT jl_min_dim(1000, 0.5)$$);
SELECT error($$SELECT jl_randomized_response('{1,0}'::float8[], 40)$$);
RESET ROLE;
-- an analyst granted jl_suggest_k alone still needs jl_release_info
GRANT EXECUTE ON FUNCTION jl_suggest_k(int, bigint, float8, float8, float8, jl_neighbor, float8, jl_noise, float8, jl_kind, jl_calibration, text) TO regress_jldp_rr;
SET ROLE regress_jldp_rr;
SELECT error($$SELECT jl_suggest_k(100, 1000, 1.0, 50, key => 'pinned')$$);
RESET ROLE;
REVOKE EXECUTE ON FUNCTION jl_suggest_k(int, bigint, float8, float8, float8, jl_neighbor, float8, jl_noise, float8, jl_kind, jl_calibration, text) FROM regress_jldp_rr;
DROP ROLE regress_jldp_rr;
DROP ROLE regress_jldp_rr_curator;
DROP ROLE regress_jldp_rr_nobody;
