-- Covariance release (Blocki et al.) through the pipeline: a protected
-- table released by jl_release with jl_covariance_mechanism; the registry,
-- the budget, the analyst's functions and every bad input.  Noisy values
-- are checked against bounds that fail with probability below 1e-12 (8
-- standard deviations of a chi-square(r)/r, r >= 400).  The mechanism's
-- norm bound C is the declaration's row clip, or without one the largest
-- norm an encoded row can have.
CREATE TABLE cv_src AS
  SELECT i AS pid,
         ARRAY[3.0 * sin(i), 2.0 * cos(i), 1.0 * sin(3 * i)]::float8[] AS x,
         sin(i) AS a, cos(i) AS b
  FROM generate_series(1, 2000) i;
ALTER TABLE cv_src ADD PRIMARY KEY (pid);

-- the float8[] column x, each element in [-3, 3] at weight 6: the encoding
-- is x + 3 (every element is within its bounds, so nothing is clamped);
-- rows scaled to L2 norm <= 1 (the row clip), so C = 1
SELECT dataset, d FROM jl_protect('cv_src', 'pid', ARRAY[jl_vector('x', 3, -3, 3, 6)],
                                  neighbor => 'row', row_clip => 1, epsilon_cap => 10, delta_cap => 1e-4);
SELECT released, epsilon_charged, delta_charged, noise_variance > 0 AS lifted
  FROM jl_release('cv_src', 'cv_rel', 1.0, jl_covariance_mechanism(r => 400, delta => 1e-6), key => 'pinned');
SELECT count(*) AS r, min(array_length(y, 1)) AS d, min(i) AS first, max(i) AS last FROM cv_rel;
-- the registry: what was done and what holds; w is deterministic (public
-- inputs: r, epsilon, delta and C = 1, as 0.3's default clip_norm 1 gave):
-- w = 9.2126 as a scipy quadrature of the worst-case pair's privacy loss
-- finds it (orthogonal whitened rows of norm 1/w, delta / 1.001 for the
-- accountant's margin), w_paper = 2 C 16 sqrt(r ln(2/delta)) ln(16 r/delta)
-- / epsilon = 55044 by hand
SELECT source, id_column, vector, d, k, projection, neighbor, bound, clipping, calibration,
       epsilon, delta, key_fingerprint, dataset, info->>'lift' AS lift, info->'rows' AS rows,
       round((info->>'w')::numeric, 4) AS w, round((info->>'w_paper')::numeric, 0) AS w_paper,
       (info->>'l')::float8 = (info->>'w')::float8 AS lifted_by_w,
       noise_variance = ((info->>'l')::float8)^2 AS variance_is_l2,
       (info->>'w_delta_computed')::float8 <= delta AS accountant_meets_delta,
       info->>'release_mechanism' AS via
  FROM jl_releases WHERE target = 'cv_rel'::regclass;
-- every entry on the release's grid
SELECT bool_and(v / r.grid = round(v / r.grid)) AS on_grid
  FROM cv_rel, unnest(y) v, jl_releases r WHERE r.target = 'cv_rel'::regclass;
-- the protected table's ledger is charged (epsilon, delta)
SELECT name, epsilon_spent, delta_spent FROM jl_budgets WHERE name = 'public.cv_src';
SELECT event, epsilon, delta, what FROM jl_ledger WHERE dataset = 'public.cv_src' ORDER BY id;

-- directional variance: the truth over the encoded rows (x + 3, each row
-- scaled to norm <= 1) within 8 standard deviations
CREATE FUNCTION cv_truth(e float8[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT sum((((x[1] + 3) * e[1] + (x[2] + 3) * e[2] + (x[3] + 3) * e[3]) *
              least(1, 1 / sqrt((x[1] + 3)^2 + (x[2] + 3)^2 + (x[3] + 3)^2)))^2)
  FROM cv_src $$;
SELECT abs(jl_directional_variance('cv_rel', e) - cv_truth(e))
         <= 8 * (jl_directional_variance_stddev('cv_rel', e)) AS within_8_sd,
       jl_directional_variance_stddev('cv_rel', e) > 0 AS sd_positive
  FROM (VALUES ('{1,0,0}'::float8[]), ('{0,1,0}'), ('{1,1,1}'), ('{0,0,-2}')) v(e);
-- jl_covariance: d x d, symmetric, its quadratic form is the directional variance
SELECT array_dims(c) AS dims,
       c[1][2] = c[2][1] AND c[1][3] = c[3][1] AND c[2][3] = c[3][2] AS symmetric,
       abs(c[1][1] - jl_directional_variance('cv_rel', '{1,0,0}')) < 1e-9 * abs(c[1][1]) + 1e-9 AS diag_is_dirvar
  FROM (SELECT jl_covariance('cv_rel') AS c) s;
-- jl_pca: unit directions, variances in decreasing order
SELECT component, abs(1 - (SELECT sum(v * v) FROM unnest(direction) v)) < 1e-12 AS unit
  FROM jl_pca('cv_rel', 3);
SELECT bool_and(variance >= next) AS decreasing
  FROM (SELECT variance, lead(variance, 1, '-Infinity') OVER (ORDER BY component) AS next
        FROM jl_pca('cv_rel', 3)) s;
SELECT count(*) AS two FROM jl_pca('cv_rel', 2);
-- jl_least_squares: d - 1 coefficients
SELECT array_length(jl_least_squares('cv_rel', 1), 1) AS coefficients;

-- method 'product' (Y [A; l I] multiplied batch by batch) gives the same
-- distribution: the same lift, and the truth within 8 standard deviations
SELECT released FROM jl_release('cv_src', 'cv_prod', 1.0,
                                jl_covariance_mechanism(400, 1e-6, method => 'product'), key => 'pinned');
SELECT p.info->>'method' AS method, g.info->>'method' AS default_method,
       p.noise_variance = g.noise_variance AS same_lift
  FROM jl_releases p, jl_releases g
 WHERE p.target = 'cv_prod'::regclass AND g.target = 'cv_rel'::regclass;
SELECT abs(jl_directional_variance('cv_prod', e) - cv_truth(e))
         <= 8 * (jl_directional_variance_stddev('cv_prod', e)) AS within_8_sd
  FROM (VALUES ('{1,0,0}'::float8[]), ('{0,1,1}')) v(e);

-- origin 'zero': second moments about the data's own zero.  Signed rows
-- (+-0.6, -+0.8), declared in [-1, 1] at weight 2 (x itself), row clip 1:
-- A^T A = {{720, -960}, {-960, 1280}} by hand (2000 rows of norm 1), so
-- the variance along (0.6, -0.8) is 2000 and along (0.8, 0.6) is 0.  The
-- default origin 'lo' releases the moments of x + 1, each row clipped to
-- norm 1 (computed below in SQL), which no reader can take back to A^T A
CREATE TABLE cv_signed (id int PRIMARY KEY, x float8[]);
INSERT INTO cv_signed SELECT i, CASE WHEN i % 2 = 0 THEN '{-0.6,0.8}' ELSE '{0.6,-0.8}' END::float8[]
  FROM generate_series(1, 2000) i;
CREATE FUNCTION cv_signed_truth(e float8[], shift float8) RETURNS float8 LANGUAGE sql AS $$
  SELECT sum(((x[1] + shift) * e[1] + (x[2] + shift) * e[2]) ^ 2
             / greatest(1, (x[1] + shift) ^ 2 + (x[2] + shift) ^ 2))
  FROM cv_signed $$;
SELECT dataset, d FROM jl_protect('cv_signed', 'id', ARRAY[jl_vector('x', 2, -1, 1, 2)],
                                  row_clip => 1, epsilon_cap => 20, delta_cap => 1e-5);
SELECT released FROM jl_release('cv_signed', 'cv_zero', 1.0, jl_covariance_mechanism(400, 1e-6, origin => 'zero'), key => 'pinned');
SELECT released FROM jl_release('cv_signed', 'cv_lo', 1.0, jl_covariance_mechanism(400, 1e-6), key => 'pinned');
SELECT info->>'origin' AS origin, (info->>'clip_norm')::float8 AS c FROM jl_releases
 WHERE target IN ('cv_zero'::regclass, 'cv_lo'::regclass) ORDER BY 1;
SELECT e, round(cv_signed_truth(e, 0)::numeric, 6) AS about_zero, round(cv_signed_truth(e, 1)::numeric, 2) AS about_lo,
       abs(jl_directional_variance('cv_zero', e) - cv_signed_truth(e, 0)) <= 8 * jl_directional_variance_stddev('cv_zero', e) AS zero_within_8_sd,
       abs(jl_directional_variance('cv_lo', e) - cv_signed_truth(e, 1)) <= 8 * jl_directional_variance_stddev('cv_lo', e) AS lo_within_8_sd,
       abs(jl_directional_variance('cv_lo', e) - cv_signed_truth(e, 0)) > 8 * jl_directional_variance_stddev('cv_lo', e) AS lo_is_not_about_zero
  FROM (VALUES ('{0.6,-0.8}'::float8[]), ('{0.8,0.6}')) v(e);
-- without a row clip the norm bound about zero is the box's largest norm,
-- each number at max(|lo|, |hi|) weight / (hi - lo): sqrt(3^2 + 2^2)
CREATE TABLE cv_ab0 (id int PRIMARY KEY, a float8, b float8);
INSERT INTO cv_ab0 SELECT i, -3 + (i % 7), 2 - (i % 5) FROM generate_series(1, 100) i;
SELECT dataset FROM jl_protect('cv_ab0', 'id', ARRAY[jl_numeric('a', -3, 3, 6), jl_numeric('b', -2, 2, 4)],
                               epsilon_cap => 10, delta_cap => 1e-5);
SELECT released FROM jl_release('cv_ab0', 'cv_ab0_zero', 1.0, jl_covariance_mechanism(8, 1e-6, origin => 'zero'), key => 'pinned');
SELECT abs((info->>'clip_norm')::float8 / sqrt(13.0) - 1) < 1e-12 AS c_is_sqrt_13 FROM jl_releases WHERE target = 'cv_ab0_zero'::regclass;
SELECT error($$SELECT jl_covariance_mechanism(8, 1e-6, origin => 'middle')$$) AS unknown_origin;
SELECT error($$SELECT jldp_internal.jl_mechanism_checked(ROW('sketch', 4, 'rademacher', 'laplace', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'zero', NULL)::jl_mechanism)$$) AS origin_with_sketch;

-- numeric columns as the attributes, a row clip of 2 below the box's
-- largest norm sqrt(2^2 + 2^2) (so C = 2, bound 2 C = 4), caps 1.5 and 1e-5
CREATE TABLE cv_ab AS SELECT pid, a, b FROM cv_src;
ALTER TABLE cv_ab ADD PRIMARY KEY (pid);
SELECT dataset, d FROM jl_protect('cv_ab', 'pid', ARRAY[jl_numeric('a', -1, 1, 2), jl_numeric('b', -1, 1, 2)],
                                  row_clip => 2, epsilon_cap => 1.5, delta_cap => 1e-5);
SELECT released FROM jl_release('cv_ab', 'cv_rel2', 1.0, jl_covariance_mechanism(50, 1e-6), key => 'pinned');
SELECT d, k, bound, clipping, dataset, vector FROM jl_releases WHERE target = 'cv_rel2'::regclass;
-- past the cap (1 spent, 1 more against 1.5): refused, nothing written
SELECT error($$SELECT jl_release('cv_ab', 'cv_rel3', 1.0, jl_covariance_mechanism(50, 1e-6), key => 'pinned')$$);
-- (delta past its cap 1e-5, epsilon within: refused too)
SELECT error($$SELECT jl_release('cv_ab', 'cv_rel3', 0.1, jl_covariance_mechanism(50, 1e-4), key => 'pinned')$$);
SELECT to_regclass('cv_rel3') IS NULL AS no_target,
       (SELECT count(*) FROM jl_releases WHERE dataset = 'public.cv_ab') AS registry_rows,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.cv_ab') AS spent,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.cv_src') AS src_spent;

-- lift 'auto': a source whose sigma_min is large (two orthogonal directions
-- repeated) skips the lift; a small one lifts fully.  The rows are unit
-- vectors already (encoding x - 0 at weight 1, row clip 1: C = 1)
CREATE TABLE cv_big AS
  SELECT i, CASE WHEN i % 2 = 0 THEN ARRAY[1.0, 0.0] ELSE ARRAY[0.0, 1.0] END::float8[] AS x
  FROM generate_series(1, 200000) i;
ALTER TABLE cv_big ADD PRIMARY KEY (i);
SELECT dataset, d FROM jl_protect('cv_big', 'i', ARRAY[jl_vector('x', 2, 0, 1)],
                                  row_clip => 1, epsilon_cap => 4, delta_cap => 1e-5);
-- (its progress NOTICE depends on the machine's speed)
SET client_min_messages = warning;
SELECT released FROM jl_release('cv_big', 'cv_auto', 2.0, jl_covariance_mechanism(400, 1e-6, lift => 'auto'), key => 'pinned');
SELECT released FROM jl_release('cv_big', 'cv_auto_p', 2.0,
                                jl_covariance_mechanism(400, 1e-6, lift => 'auto', method => 'product'), key => 'pinned');
RESET client_min_messages;
SELECT info->>'lift' AS lift, (info->>'l')::float8 = 0 AS no_lift,
       (info->>'sigma_min_lcb')::float8 > (info->>'w')::float8 AS lcb_clears_w,
       (info->>'sigma_epsilon')::float8 <= 0.2 AS sigma_eps_le_share,
       round((info->>'w_epsilon')::numeric, 12) AS w_epsilon, (info->>'w_delta')::float8 = 5e-7 AS w_delta,
       epsilon, delta
  FROM jl_releases WHERE target = 'cv_auto'::regclass;
-- purely multiplicative error now: the truth is 100000 along each axis
SELECT abs(jl_directional_variance(rel, '{1,0}') - 100000) <= 8 * 100000 * sqrt(2.0 / 400) AS within_8_sd,
       (SELECT (info->>'l')::float8 FROM jl_releases WHERE target = rel) AS l
  FROM (VALUES ('cv_auto'::regclass), ('cv_auto_p')) v(rel);
-- cv_src's 2000 rows of norm 1 have sigma_min at most sqrt(2000 / 3) = 26,
-- far below the margin the lower bound subtracts (about 10 ln(2e6) = 145
-- at epsilon / 10 = 0.1): lifted fully
SELECT released FROM jl_release('cv_src', 'cv_auto_small', 1.0, jl_covariance_mechanism(100, 1e-6, lift => 'auto'), key => 'pinned');
SELECT (info->>'l')::float8 >= (info->>'w')::float8 AS lifted_fully
  FROM jl_releases WHERE target = 'cv_auto_small'::regclass;

-- bad input, each with its SQLSTATE; none charges the budget
SELECT epsilon_spent AS spent_before FROM jl_budgets WHERE name = 'public.cv_src';
SELECT error($$SELECT jl_covariance_mechanism(0, 1e-6)$$);
SELECT error($$SELECT jl_covariance_mechanism(-5, 1e-6)$$);
SELECT error($$SELECT jl_covariance_mechanism(100001, 1e-6)$$);
SELECT error($$SELECT jl_covariance_mechanism(NULL, 1e-6)$$);
SELECT error($$SELECT jl_covariance_mechanism(10, 0)$$);
SELECT error($$SELECT jl_covariance_mechanism(10, 1)$$);
SELECT error($$SELECT jl_covariance_mechanism(10, 'NaN')$$);
SELECT error($$SELECT jl_covariance_mechanism(10, NULL)$$);
SELECT error($$SELECT jl_covariance_mechanism(10, 1e-6, lift => 'sometimes')$$);
SELECT error($$SELECT jl_covariance_mechanism(10, 1e-6, lift => NULL)$$);
SELECT error($$SELECT jl_covariance_mechanism(10, 1e-6, method => 'svd')$$);
SELECT error($$SELECT jl_covariance_mechanism(10, 1e-6, method => NULL)$$);
SELECT error($$SELECT jl_release('cv_src', 'cv_bad', 0, jl_covariance_mechanism(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release('cv_src', 'cv_bad', 'NaN', jl_covariance_mechanism(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release('cv_src', 'cv_bad', 'Infinity', jl_covariance_mechanism(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release('cv_src', 'cv_bad', NULL, jl_covariance_mechanism(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release(NULL, 'cv_bad', 1.0, jl_covariance_mechanism(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release('cv_src', NULL, 1.0, jl_covariance_mechanism(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release('cv_src', 'cv_bad', 1.0, NULL, key => 'pinned')$$);
SELECT error($$SELECT jl_release('cv_src', 'a.b.c', 1.0, jl_covariance_mechanism(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release('cv_src', 'cv_rel', 1.0, jl_covariance_mechanism(10, 1e-6), key => 'pinned')$$);
-- the columns and the norm bound are the declaration's: a missing column,
-- no attribute, a row clip of 0 or infinity are refused by jl_protect (and
-- the declaration of cv_src is unchanged)
SELECT error($$SELECT jl_protect('cv_src', 'pid', ARRAY[jl_vector('nope', 3, -3, 3, 6)], row_clip => 1, epsilon_cap => 10, delta_cap => 1e-4)$$);
SELECT error($$SELECT jl_protect('cv_src', 'pid', '{}', row_clip => 1, epsilon_cap => 10, delta_cap => 1e-4)$$);
SELECT error($$SELECT jl_protect('cv_src', 'pid', ARRAY[jl_vector('x', 3, -3, 3, 6)], row_clip => 0, epsilon_cap => 10, delta_cap => 1e-4)$$);
SELECT error($$SELECT jl_protect('cv_src', 'pid', ARRAY[jl_vector('x', 3, -3, 3, 6)], row_clip => 'Infinity', epsilon_cap => 10, delta_cap => 1e-4)$$);
SELECT relation, unit, neighbor, row_clip, d FROM jl_protected WHERE relation = 'cv_src'::regclass;
-- r * d beyond the memory bound: refused before allocating or charging
CREATE TABLE cv_wide AS SELECT 1 AS id, array_fill(0.5::float8, ARRAY[1000]) AS x;
ALTER TABLE cv_wide ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('cv_wide', 'id', ARRAY[jl_vector('x', 1000, 0, 1)], row_clip => 1, epsilon_cap => 10, delta_cap => 1e-4);
SELECT error($$SELECT jl_release('cv_wide', 'cv_bad', 1.0, jl_covariance_mechanism(40000, 1e-6), key => 'pinned')$$);
CREATE TABLE cv_wider AS SELECT 1 AS id, array_fill(0.5::float8, ARRAY[6000]) AS x;
ALTER TABLE cv_wider ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('cv_wider', 'id', ARRAY[jl_vector('x', 6000, 0, 1)], row_clip => 1, epsilon_cap => 10, delta_cap => 1e-4);
SELECT error($$SELECT jl_release('cv_wider', 'cv_bad', 1.0, jl_covariance_mechanism(10, 1e-6, lift => 'auto'), key => 'pinned')$$);
SELECT error($$SELECT jl_release('cv_wider', 'cv_bad', 1.0, jl_covariance_mechanism(10, 1e-6), key => 'pinned')$$);
-- method 'product' needs no Gram matrix
SELECT released FROM jl_release('cv_wider', 'cv_wider_rel', 1.0, jl_covariance_mechanism(10, 1e-6, method => 'product'), key => 'pinned');
-- rows 0.3 refused are read through the declaration: an empty table is
-- released (no row is read before the charge: its r rows are l Y, pure
-- noise), and a NULL row, NaN, infinite or NULL elements and a row of
-- another length are encoded as documented (NULL, NaN and missing as lo,
-- beyond the bounds as the bound, extra elements not read: checked
-- coordinate by coordinate in protected_tables); each release is charged
CREATE TABLE cv_empty (id int PRIMARY KEY, x float8[]);
SELECT d FROM jl_protect('cv_empty', 'id', ARRAY[jl_vector('x', 2, 0, 2)], epsilon_cap => 10, delta_cap => 1e-4);
SELECT released FROM jl_release('cv_empty', 'cv_empty_rel', 1.0, jl_covariance_mechanism(10, 1e-6), key => 'pinned');
SELECT count(*) AS r, (SELECT info->'rows' FROM jl_releases WHERE target = 'cv_empty_rel'::regclass) AS rows
  FROM cv_empty_rel;
CREATE TABLE cv_odd (id int PRIMARY KEY, x float8[]);
INSERT INTO cv_odd VALUES (1, '{1,2}'), (2, NULL), (3, '{NaN,1}'), (4, '{1,-Infinity}'), (5, '{1,2,3}'), (6, '{1,NULL}');
SELECT d FROM jl_protect('cv_odd', 'id', ARRAY[jl_vector('x', 2, 0, 2)], epsilon_cap => 10, delta_cap => 1e-4);
SELECT released FROM jl_release('cv_odd', 'cv_odd_rel', 1.0, jl_covariance_mechanism(10, 1e-6), key => 'pinned');
SELECT info->'rows' AS rows FROM jl_releases WHERE target = 'cv_odd_rel'::regclass;
SELECT to_regclass('cv_bad') IS NULL AS no_target,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.cv_src') AS spent_after;
-- charged: each release made; not charged: the one refused by the memory
-- bound (cv_wider's two refusals, before its product release, neither)
SELECT v.name, coalesce(b.epsilon_spent, 0) AS spent
  FROM (VALUES ('public.cv_wide'), ('public.cv_wider'), ('public.cv_empty'), ('public.cv_odd')) v(name)
  LEFT JOIN jl_budgets b ON b.name = v.name ORDER BY v.name;

-- the analyst's functions: bad input
SELECT error($$SELECT jl_directional_variance('cv_rel', '{1,0}')$$);
SELECT error($$SELECT jl_directional_variance('cv_rel', '{0,0,0}')$$);
SELECT error($$SELECT jl_directional_variance('cv_rel', '{1,NaN,0}')$$);
SELECT error($$SELECT jl_directional_variance('cv_rel', '{1,NULL,0}')$$);
SELECT error($$SELECT jl_directional_variance('cv_rel', '{{1,0,0}}')$$);
SELECT error($$SELECT jl_directional_variance_stddev('cv_rel', '{}')$$);
SELECT jl_directional_variance('cv_rel', NULL) IS NULL AS strict;
SELECT error($$SELECT jl_directional_variance('cv_src', '{1,0,0}')$$);
SELECT released FROM jl_release('cv_src', 'cv_sketch', 1.0, jl_sketch(k => 3), key => 'pinned');
SELECT error($$SELECT jl_directional_variance('cv_sketch', '{1,0,0}')$$);
-- the sketch functions refuse a covariance release
SELECT error($$SELECT jl_recover_dist('{1,2,3}', '{1,2,4}', 'cv_rel'::regclass)$$);
SELECT error($$SELECT jl_recover_norm2('{1,2,3}', 'cv_rel'::regclass)$$);
SELECT error($$SELECT jl_pca('cv_rel', 0)$$);
SELECT error($$SELECT jl_pca('cv_rel', 4)$$);
SELECT error($$SELECT jl_least_squares('cv_rel', 0)$$);
SELECT error($$SELECT jl_least_squares('cv_rel', 4)$$);
-- one attribute, declared for attribute neighbours without a row clip: C
-- is the largest encoded norm, the weight 2 (rounded up by the pipeline
-- by a few units in the last place)
CREATE TABLE cv_a AS SELECT pid, a FROM cv_src;
ALTER TABLE cv_a ADD PRIMARY KEY (pid);
SELECT d FROM jl_protect('cv_a', 'pid', ARRAY[jl_numeric('a', -1, 1, 2)], neighbor => 'attribute',
                         epsilon_cap => 10, delta_cap => 1e-4);
SELECT released FROM jl_release('cv_a', 'cv_one', 1.0, jl_covariance_mechanism(20, 1e-6), key => 'pinned');
SELECT d, (info->>'clip_norm')::float8 - 2 BETWEEN 0 AND 1e-14 AS clip_is_2, bound::numeric(10,6) AS bound,
       info->'declaration'->>'neighbor' AS declared
  FROM jl_releases WHERE target = 'cv_one'::regclass;
SELECT error($$SELECT jl_least_squares('cv_one', 1)$$);
-- a release whose lift dominates: the estimate is not positive definite
CREATE TABLE cv_tiny AS SELECT 1 AS id, ARRAY[0.01, 0.01, 0.01]::float8[] AS x;
ALTER TABLE cv_tiny ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('cv_tiny', 'id', ARRAY[jl_vector('x', 3, 0, 1)], row_clip => 1, epsilon_cap => 1, delta_cap => 1e-4);
SELECT released FROM jl_release('cv_tiny', 'cv_tiny_rel', 0.1, jl_covariance_mechanism(5, 1e-6), key => 'pinned');
SELECT error($$SELECT jl_least_squares('cv_tiny_rel', 1)$$) LIKE '22000%' OR
       array_length(jl_least_squares('cv_tiny_rel', 1), 1) = 2 AS refused_or_solved;
-- an altered release is detected
DELETE FROM cv_one WHERE i = 3;
SELECT error($$SELECT jl_covariance('cv_one')$$);
-- an analyst reads a release only with SELECT on it; a role without a
-- jldp role calls nothing
CREATE ROLE cv_analyst;
SET ROLE cv_analyst;
SELECT error($$SELECT jl_directional_variance('cv_rel', '{1,0,0}')$$) AS no_jldp_role;
RESET ROLE;
GRANT jldp_analyst TO cv_analyst;
SET ROLE cv_analyst;
SELECT error($$SELECT jl_directional_variance('cv_rel', '{1,0,0}')$$);
-- releasing is a curator's: the mechanism's constructor (folded first) and
-- jl_release itself
SELECT error($$SELECT jl_release('cv_src', 'cv_mine', 1.0, jl_covariance_mechanism(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release('cv_src', 'cv_mine', 1.0, NULL::jl_mechanism, key => 'pinned')$$);
RESET ROLE;
GRANT SELECT ON cv_rel TO cv_analyst;
SET ROLE cv_analyst;
SELECT jl_directional_variance('cv_rel', '{1,0,0}') IS NOT NULL AS analyst_reads;
SELECT count(*) AS releases_seen FROM jl_releases WHERE target::text LIKE 'cv_%';
RESET ROLE;
REVOKE SELECT ON cv_rel FROM cv_analyst;
DROP ROLE cv_analyst;
