-- The advised mechanism (jl_advised): the sketch the advisor ranks first
-- for a goal, every option calibrated to the declaration as jl_sketch
-- calibrates it, refused before the charge when even the best would not
-- serve the goal (with the epsilon that would), unless forced.
-- Expected values are checked against independent computations: the
-- predicted error from the released noise variance by the formula of
-- docs/design/internals.md (sqrt(8 s2 r2 + 14 k s2^2) without a projection,
-- Laplace), the same option released with jl_sketch, and the advisor's
-- SQL function jl_advise given the declaration's row bound.
SET client_min_messages = warning;
CREATE FUNCTION adv_error(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
-- the same with the detail and the hint
CREATE FUNCTION adv_refusal(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text; h text;
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT;
  RETURN SQLSTATE || ': ' || SQLERRM || E'\nDETAIL: ' || d || E'\nHINT: ' || h;
END $$;
CREATE VIEW adv_charges AS SELECT count(*) AS n FROM jl_ledger WHERE event = 'charge';

-- the constructor checks what it builds
SELECT jl_advised(dist2 => 0.5);
SELECT jl_advised('clustering', dist2 => 2, cluster_var => 0.1, delta => 1e-6, force => true);
SELECT adv_error($$SELECT jl_advised()$$) AS no_dist2;
SELECT adv_error($$SELECT jl_advised(dist2 => 0)$$) AS dist2_zero;
SELECT adv_error($$SELECT jl_advised(dist2 => 'Infinity')$$) AS dist2_infinite;
SELECT adv_error($$SELECT jl_advised(dist2 => 2, dist2_hi => 1)$$) AS hi_below_lo;
SELECT adv_error($$SELECT jl_advised(dist2 => 1, cluster_var => 1)$$) AS cluster_var_with_distance;
SELECT adv_error($$SELECT jl_advised('clustering', dist2 => 1)$$) AS clustering_without_var;
SELECT adv_error($$SELECT jl_advised('clustering', dist2 => 1, cluster_var => -1)$$) AS negative_var;
SELECT adv_error($$SELECT jl_advised(dist2 => 1, noise => 'laplace', delta => 1e-6)$$) AS delta_with_laplace;
SELECT adv_error($$SELECT jl_advised(dist2 => 1, noise => 'gaussian')$$) AS gaussian_without_delta;
SELECT adv_error($$SELECT jl_advised(dist2 => 1, delta => 2)$$) AS delta_out_of_range;
SELECT adv_error($$SELECT jl_advised(dist2 => 1, force => NULL)$$) AS force_null;
SELECT adv_error($$SELECT jldp_internal.jl_mechanism_checked(ROW('advised', 4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'distance', 1, NULL, NULL, false, NULL, NULL)::jl_mechanism)$$) AS forged_k;
SELECT adv_error($$SELECT jldp_internal.jl_mechanism_checked(ROW('advised', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'distance', 1, NULL, NULL, false, NULL, 0.5)::jl_mechanism)$$) AS forged_density;
SELECT adv_error($$SELECT jldp_internal.jl_mechanism_checked(ROW('sketch', 4, 'rademacher', 'laplace', NULL, NULL, NULL, NULL, NULL, 'distance', 1, NULL, NULL, NULL, NULL, NULL)::jl_mechanism)$$) AS sketch_with_goal;

-- 300 rows of three numeric attributes in [0, 10], encoded with weight
-- 10 (x itself); row neighbours, rows clipped to L2 norm 5: two encoded
-- rows are at most min(2 x 5, sqrt(3) x 10) = 10 apart
CREATE TABLE adv_t AS
  SELECT i AS id, (i % 10)::float8 AS a, (i * 7 % 10)::float8 AS b, (i * 3 % 10)::float8 AS c
  FROM generate_series(1, 300) i;
ALTER TABLE adv_t ADD PRIMARY KEY (id);
SELECT dataset, d FROM jl_protect('adv_t', 'id',
    ARRAY[jl_numeric('a', 0, 10, 10), jl_numeric('b', 0, 10, 10), jl_numeric('c', 0, 10, 10)],
    neighbor => 'row', row_clip => 5, epsilon_cap => 200);

-- at epsilon 1 no option resolves a squared distance of 4: refused before
-- the charge, with the epsilon that would serve
SELECT n AS charges_before FROM adv_charges \gset
SELECT adv_refusal($$SELECT jl_release('adv_t', 'adv_r0', 1, jl_advised(dist2 => 4), key => 'pinned')$$) AS useless;
SELECT n - :charges_before AS charged FROM adv_charges;
SELECT to_regclass('adv_r0') IS NULL AS no_target;

-- the same advice from jl_advise, given the declaration's row bound 10:
-- its best option's error at epsilon 1 is not below 4 (independently of
-- the pipeline's calibration, through jl_advise's own)
SELECT kind, k, noise, predicted_error >= 4 AS not_useful
  FROM jl_advise(3, 1, 4, neighbor => 'row', bound => 10, key => 'pinned') WHERE rank = 1;

-- the hint's epsilon, to 1%: below it jl_advise's best is not useful, at
-- it it is
SELECT substring(adv_refusal($$SELECT jl_release('adv_t', 'adv_r0', 1, jl_advised(dist2 => 4), key => 'pinned')$$)
                 from 'At epsilon ([0-9.]+)')::float8 AS eps_needed \gset
SELECT :eps_needed AS eps_needed,
       (SELECT predicted_error >= 4 FROM jl_advise(3, :eps_needed / 1.02, 4, neighbor => 'row', bound => 10, key => 'pinned') WHERE rank = 1) AS below_not_useful,
       (SELECT predicted_error < 4 FROM jl_advise(3, :eps_needed * 1.001, 4, neighbor => 'row', bound => 10, key => 'pinned') WHERE rank = 1) AS at_useful;

-- released at that epsilon: the option jl_advise ranks first, charged once
SELECT released, epsilon_charged, delta_charged
  FROM jl_release('adv_t', 'adv_r1', :eps_needed * 1.001, jl_advised(dist2 => 4), key => 'pinned');
SELECT n - :charges_before AS charged FROM adv_charges;
SELECT info->'advice'->'chosen'->>'kind' AS kind, (info->'advice'->'chosen'->>'k')::int AS k,
       info->'advice'->>'useful' AS useful, info->>'chosen_by' AS chosen_by,
       info->>'release_mechanism' AS release_mechanism
  FROM jl_releases WHERE target = 'adv_r1'::regclass;
SELECT a.kind = r.info->'advice'->'chosen'->>'kind' AND a.k = (r.info->'advice'->'chosen'->>'k')::int
       AND a.noise = r.info->'advice'->'chosen'->>'noise' AS same_as_jl_advise,
       abs(a.noise_variance / (r.info->>'noise_variance')::float8 - 1) < 1e-12 AS same_noise_variance
  FROM jl_advise(3, :eps_needed * 1.001, 4, neighbor => 'row', bound => 10, key => 'pinned') a,
       jl_releases r
 WHERE a.rank = 1 AND r.target = 'adv_r1'::regclass;
SELECT count(*) AS units, min(array_length(sketch, 1)) = max(array_length(sketch, 1)) AS one_width FROM adv_r1;

-- goal neighbors: a search must rank a neighbour at squared distance 4
-- before a non-neighbour at 16.  At epsilon 1 no option can (refused before
-- the charge, with the epsilon that would serve); jl_advise agrees on both
-- sides of that epsilon
SELECT n AS charges_before FROM adv_charges \gset
SELECT adv_refusal($$SELECT jl_release('adv_t', 'adv_n0', 1, jl_advised('neighbors', dist2 => 4, dist2_hi => 16), key => 'pinned')$$) AS useless_search;
SELECT n - :charges_before AS charged FROM adv_charges;
SELECT substring(adv_refusal($$SELECT jl_release('adv_t', 'adv_n0', 1, jl_advised('neighbors', dist2 => 4, dist2_hi => 16), key => 'pinned')$$)
                 from 'At epsilon ([0-9.]+)')::float8 AS eps_search \gset
SELECT (SELECT predicted_error >= 0.25 FROM jl_advise(3, :eps_search / 1.02, 4, 16, neighbor => 'row', bound => 10, goal => 'neighbors', key => 'pinned') WHERE rank = 1) AS below_not_useful,
       (SELECT predicted_error < 0.25 FROM jl_advise(3, :eps_search * 1.001, 4, 16, neighbor => 'row', bound => 10, goal => 'neighbors', key => 'pinned') WHERE rank = 1) AS at_useful;
SELECT adv_error($$SELECT jl_advised('neighbors', dist2 => 4)$$) AS search_without_hi;
SELECT adv_error($$SELECT jl_advised('neighbors', dist2 => 4, dist2_hi => 4)$$) AS search_hi_not_beyond;
SELECT adv_error($$SELECT jl_advised('neighbors', dist2 => 4, dist2_hi => 16, cluster_var => 1)$$) AS search_with_var;

-- attribute neighbours with a category (one change moves two coordinates
-- by the weight): the advice is calibrated to the declaration, so the
-- chosen option released with jl_sketch has the same noise variance
CREATE TABLE adv_c AS
  SELECT i AS id, (i % 10)::float8 AS a, (ARRAY['x', 'y', 'z', 'w'])[1 + i % 4] AS g
  FROM generate_series(1, 300) i;
ALTER TABLE adv_c ADD PRIMARY KEY (id);
SELECT dataset, d FROM jl_protect('adv_c', 'id',
    ARRAY[jl_numeric('a', 0, 10), jl_category('g', '{x,y,z,w}', 2)],
    neighbor => 'attribute', epsilon_cap => 400, delta_cap => 1e-5);
SELECT released, noise_variance AS advised_variance
  FROM jl_release('adv_c', 'adv_c1', 100, jl_advised(dist2 => 3), key => 'pinned') \gset
SELECT info->'advice'->'chosen'->>'kind' AS kind, (info->'advice'->'chosen'->>'k')::int AS k,
       info->'advice'->'chosen'->>'noise' AS noise
  FROM jl_releases WHERE target = 'adv_c1'::regclass;
-- no projection: Laplace of scale (largest L1 move of one attribute) /
-- epsilon = 2 x 2 / 100 (the category's two coordinates of weight 2),
-- variance 2 (0.04)^2 = 0.0032 (the floating-point allowance and the grid
-- round the scale up, here by 0.02%; an element bound of 2, one
-- coordinate, would give a quarter of it)
SELECT abs(:advised_variance / 0.0032 - 1) < 1e-3 AS variance_is_category_move;
SELECT abs(noise_variance / :advised_variance - 1) < 1e-12 AS same_as_jl_sketch
  FROM jl_release('adv_c', 'adv_c2', 100, jl_sketch(kind => 'identity'), key => 'pinned');
-- its predicted error, from the formula with the released s2:
-- sqrt(8 s2 r2 + 14 d s2^2), d = 5, r2 = 3
SELECT abs((info->'advice'->'chosen'->>'predicted_error')::float8
           / sqrt(8 * :advised_variance * 3 + 14 * 5 * :advised_variance ^ 2) - 1) < 1e-12 AS predicted_error_by_formula
  FROM jl_releases WHERE target = 'adv_c1'::regclass;

-- delta given and no noise named: both noises are ranked, and the charge
-- is for the noise released.  Laplace wins on adv_c (charged delta 0)...
SELECT epsilon_charged, delta_charged
  FROM jl_release('adv_c', 'adv_c3', 100, jl_advised(dist2 => 3, delta => 1e-6), key => 'pinned');
SELECT info->'advice'->>'noises' AS noises, info->'advice'->'chosen'->>'noise' AS chosen
  FROM jl_releases WHERE target = 'adv_c3'::regclass;
-- ... and Gaussian noise without a projection on 50 attributes under row
-- neighbours (charged the delta), as jl_advise ranks it for the row bound
-- min(2 x 2, sqrt(50)) = 4
CREATE TABLE adv_w AS
  SELECT i AS id, ARRAY(SELECT ((i * j) % 13) / 13.0 FROM generate_series(1, 50) j WHERE i > 0)::float8[] AS v
  FROM generate_series(1, 300) i;
ALTER TABLE adv_w ADD PRIMARY KEY (id);
SELECT dataset, d FROM jl_protect('adv_w', 'id', ARRAY[jl_vector('v', 50, 0, 1)],
    neighbor => 'row', row_clip => 2, epsilon_cap => 100, delta_cap => 1e-3);
SELECT epsilon_charged, delta_charged
  FROM jl_release('adv_w', 'adv_w1', 40, jl_advised(dist2 => 20, delta => 1e-6), key => 'pinned');
SELECT r.info->'advice'->'chosen'->>'kind' AS kind, r.info->'advice'->'chosen'->>'noise' AS noise,
       a.kind = r.info->'advice'->'chosen'->>'kind' AND a.noise = r.info->'advice'->'chosen'->>'noise'
       AND a.k = (r.info->'advice'->'chosen'->>'k')::int AS same_as_jl_advise
  FROM jl_releases r,
       jl_advise(50, 40, 20, neighbor => 'row', bound => 4, delta => 1e-6, key => 'pinned') a
 WHERE r.target = 'adv_w1'::regclass AND a.rank = 1;

-- forced: released with a warning, recorded as not useful
SET client_min_messages = warning;
SELECT released, epsilon_charged
  FROM jl_release('adv_t', 'adv_r2', 0.5, jl_advised(dist2 => 4, force => true), key => 'pinned');
SELECT info->'advice'->>'useful' AS useful FROM jl_releases WHERE target = 'adv_r2'::regclass;

-- clustering: clusters that overlap even without noise are refused with no
-- epsilon to offer.  Without noise and projection the nearest-centre rule
-- misclassifies Phi(-z), z = sqrt(dist2) / (2 sigma) / sqrt(2 + 3 d
-- sigma^2 / dist2) with the table's n: sqrt(0.5) / 2 / sqrt(2 + 3 x 3 x 1
-- / 0.5) = 0.0795, Phi(-0.0795) = 0.468
ANALYZE adv_t;
SELECT n AS charges_before FROM adv_charges \gset
SELECT adv_refusal($$SELECT jl_release('adv_t', 'adv_k0', 100, jl_advised('clustering', dist2 => 0.5, cluster_var => 1), key => 'pinned')$$) AS overlapping;
-- well separated clusters at a small epsilon: the epsilon that would serve
SELECT adv_refusal($$SELECT jl_release('adv_t', 'adv_k0', 0.1, jl_advised('clustering', dist2 => 50, cluster_var => 0.5), key => 'pinned')$$) AS too_noisy;
SELECT n - :charges_before AS charged FROM adv_charges;
SELECT released FROM jl_release('adv_t', 'adv_k1', 20, jl_advised('clustering', dist2 => 50, cluster_var => 0.5), key => 'pinned');
SELECT info->'advice'->>'goal' AS goal, (info->'advice'->>'n')::int AS n_from_catalog,
       info->'advice'->>'useful' AS useful,
       (info->'advice'->'chosen'->>'predicted_error')::float8 < 0.25 AS below_quarter
  FROM jl_releases WHERE target = 'adv_k1'::regclass;

-- shapes it does not rank: long format, edges
CREATE TABLE adv_long (u int, attr int, v float8, PRIMARY KEY (u, attr));
INSERT INTO adv_long SELECT i % 20, i, 1 FROM generate_series(1, 100) i;
SELECT dataset FROM jl_protect('adv_long', 'u', ARRAY[jl_long('attr', 'v', 1000, 0, 1)],
                               neighbor => 'attribute', epsilon_cap => 10);
SELECT adv_error($$SELECT jl_release('adv_long', 'adv_l', 1, jl_advised(dist2 => 1), key => 'pinned')$$) AS long_format;
CREATE TABLE adv_edges (id int PRIMARY KEY, u int, v int);
INSERT INTO adv_edges SELECT i, i, i % 10 + 1 FROM generate_series(1, 10) i;
SELECT dataset FROM jl_protect('adv_edges', 'id', ARRAY[jl_edge('u', 'v', 10)], epsilon_cap => 10, delta_cap => 0.1);
SELECT adv_error($$SELECT jl_release('adv_edges', 'adv_e', 1, jl_advised(dist2 => 1), key => 'pinned')$$) AS edges;
SELECT n - :charges_before AS charged FROM adv_charges;
-- what the other tests need not see
DROP VIEW adv_charges;
