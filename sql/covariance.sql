-- Covariance release (Blocki et al.): the release, the registry, the budget,
-- the analyst's functions and every bad input.  Noisy values are checked
-- against bounds that fail with probability below 1e-12 (8 standard
-- deviations of a chi-square(r)/r, r >= 400).
CREATE TABLE cv_src AS
  SELECT i AS pid,
         ARRAY[3.0 * sin(i), 2.0 * cos(i), 1.0 * sin(3 * i)]::float8[] AS x,
         sin(i) AS a, cos(i) AS b
  FROM generate_series(1, 2000) i;
ALTER TABLE cv_src ADD PRIMARY KEY (pid);

-- a float8[] column, rows scaled to norm <= 1
SELECT jl_release_covariance('cv_src', '{x}', 'cv_rel', 400, 1.0, 1e-6) > 0 AS released;
SELECT count(*) AS r, min(array_length(y, 1)) AS d, min(i) AS first, max(i) AS last FROM cv_rel;
-- the registry: what was done and what holds; w is deterministic (public inputs)
SELECT source, id_column, vector, d, k, projection, neighbor, bound, clipping, calibration,
       epsilon, delta, key_fingerprint, dataset, info->>'lift' AS lift, info->'rows' AS rows,
       round((info->>'w')::numeric, 4) AS w, round((info->>'w_paper')::numeric, 0) AS w_paper,
       (info->>'l')::float8 = (info->>'w')::float8 AS lifted_by_w,
       noise_variance = ((info->>'l')::float8)^2 AS variance_is_l2,
       (info->>'w_delta_computed')::float8 <= delta AS accountant_meets_delta
  FROM jl_releases WHERE target = 'cv_rel'::regclass;
-- every entry on the release's grid
SELECT bool_and(v / r.grid = round(v / r.grid)) AS on_grid
  FROM cv_rel, unnest(y) v, jl_releases r WHERE r.target = 'cv_rel'::regclass;
-- the default dataset of the source is charged (epsilon, delta)
SELECT name, epsilon_spent, delta_spent FROM jl_budgets WHERE name = 'public.cv_src';
SELECT event, epsilon, delta, what FROM jl_ledger WHERE dataset = 'public.cv_src' ORDER BY id;

-- directional variance along e1: the truth (clipped rows) within 8 standard deviations
CREATE FUNCTION cv_truth(e float8[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT sum(((x[1] * e[1] + x[2] * e[2] + x[3] * e[3]) *
              least(1, 1 / sqrt(x[1]^2 + x[2]^2 + x[3]^2)))^2)
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
-- jl_pca: unit directions, variances in decreasing order, the first along attribute 1
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
SELECT jl_release_covariance('cv_src', '{x}', 'cv_prod', 400, 1.0, 1e-6, method => 'product') > 0 AS released;
SELECT p.info->>'method' AS method, g.info->>'method' AS default_method,
       p.noise_variance = g.noise_variance AS same_lift
  FROM jl_releases p, jl_releases g
 WHERE p.target = 'cv_prod'::regclass AND g.target = 'cv_rel'::regclass;
SELECT abs(jl_directional_variance('cv_prod', e) - cv_truth(e))
         <= 8 * (jl_directional_variance_stddev('cv_prod', e)) AS within_8_sd
  FROM (VALUES ('{1,0,0}'::float8[]), ('{0,1,1}')) v(e);

-- numeric columns as the vector, clip_norm 2, named dataset with a cap,
-- bound to the relation released
CREATE TABLE cv_ab AS SELECT pid, a, b FROM cv_src;
SELECT jl_dataset_declare('cv_data', 1.5, 1e-5, source => 'cv_ab');
SELECT jl_release_covariance('cv_ab', '{a,b}', 'cv_rel2', 50, 1.0, 1e-6, clip_norm => 2,
                             dataset => 'cv_data') > 0 AS released;
SELECT d, k, bound, clipping, dataset, vector FROM jl_releases WHERE target = 'cv_rel2'::regclass;
-- a release of a view over the table is charged to the table's dataset
CREATE VIEW cv_ab_view AS SELECT a, b FROM cv_ab WHERE pid % 2 = 0;
SELECT jl_release_covariance('cv_ab_view', '{a,b}', 'cv_rel_view', 50, 0.25, 1e-6) > 0 AS released;
SELECT source, dataset FROM jl_releases WHERE target = 'cv_rel_view'::regclass;
SELECT count(*) AS datasets_of_view FROM jl_budgets WHERE name LIKE '%cv_ab_view%';
-- a dataset not bound to the relation read is refused, uncharged: one bound
-- to another relation, one bound to none
SELECT error($$SELECT jl_release_covariance('cv_src', '{a,b}', 'cv_rel3', 50, 0.1, 1e-6, dataset => 'cv_data')$$);
SELECT jl_dataset_declare('cv_loose', 100) IS NOT NULL AS declared;
SELECT error($$SELECT jl_release_covariance('cv_ab', '{a,b}', 'cv_rel3', 50, 0.1, 1e-6, dataset => 'cv_loose')$$);
-- past the cap: refused, nothing written
SELECT error($$SELECT jl_release_covariance('cv_ab', '{a,b}', 'cv_rel3', 50, 1.0, 1e-6, dataset => 'cv_data')$$);
SELECT error($$SELECT jl_release_covariance('cv_ab_view', '{a,b}', 'cv_rel3', 50, 1.0, 1e-6)$$);
SELECT to_regclass('cv_rel3') IS NULL AS no_target,
       (SELECT count(*) FROM jl_releases WHERE dataset = 'cv_data') AS registry_rows,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'cv_data') AS spent,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'cv_loose') AS loose_spent,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.cv_src') AS src_spent;

-- lift 'auto': a source whose sigma_min is large (two orthogonal directions
-- repeated) skips the lift; a small one lifts fully
CREATE TABLE cv_big AS
  SELECT i, CASE WHEN i % 2 = 0 THEN ARRAY[1.0, 0.0] ELSE ARRAY[0.0, 1.0] END::float8[] AS x
  FROM generate_series(1, 200000) i;
SELECT jl_release_covariance('cv_big', '{x}', 'cv_auto', 400, 2.0, 1e-6, lift => 'auto') > 0 AS released;
-- (its progress NOTICE depends on the machine's speed)
SET client_min_messages = warning;
SELECT jl_release_covariance('cv_big', '{x}', 'cv_auto_p', 400, 2.0, 1e-6, lift => 'auto', method => 'product') > 0 AS released;
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
SELECT jl_release_covariance('cv_src', '{x}', 'cv_auto_small', 100, 1.0, 1e-6, lift => 'auto') > 0 AS released;
SELECT (info->>'l')::float8 >= (info->>'w')::float8 AS lifted_fully
  FROM jl_releases WHERE target = 'cv_auto_small'::regclass;

-- bad input, each with its SQLSTATE; none found before the rows are read
-- charges the budget
SELECT epsilon_spent AS spent_before FROM jl_budgets WHERE name = 'public.cv_src';
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 0, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', -5, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 100001, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 0, 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 'NaN', 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 'Infinity', 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 1.0, 0)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 1.0, 1)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 1.0, 'NaN')$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 1.0, NULL)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', NULL, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_covariance(NULL, '{x}', 'cv_bad', 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', NULL, 'cv_bad', 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', NULL, 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 1.0, 1e-6, clip_norm => 0)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 1.0, 1e-6, clip_norm => 'Infinity')$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 1.0, 1e-6, lift => 'sometimes')$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 1.0, 1e-6, lift => NULL)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 1.0, 1e-6, method => 'svd')$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_bad', 10, 1.0, 1e-6, method => NULL)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{nope}', 'cv_bad', 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{}', 'cv_bad', 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{pid,x}', 'cv_bad', 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'a.b.c', 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_rel', 10, 1.0, 1e-6)$$);
-- r * d beyond the memory bound: refused before allocating or charging
CREATE TABLE cv_wide AS SELECT array_fill(0.5::float8, ARRAY[1000]) AS x;
SELECT error($$SELECT jl_release_covariance('cv_wide', '{x}', 'cv_bad', 40000, 1.0, 1e-6)$$);
CREATE TABLE cv_wider AS SELECT array_fill(0.5::float8, ARRAY[6000]) AS x;
SELECT error($$SELECT jl_release_covariance('cv_wider', '{x}', 'cv_bad', 10, 1.0, 1e-6, lift => 'auto')$$);
SELECT error($$SELECT jl_release_covariance('cv_wider', '{x}', 'cv_bad', 10, 1.0, 1e-6)$$);
-- method 'product' needs no Gram matrix
SELECT jl_release_covariance('cv_wider', '{x}', 'cv_wider_rel', 10, 1.0, 1e-6, method => 'product') > 0 AS wide_product;
-- empty source, NULL, empty, NaN and infinite rows, d mismatch between rows
CREATE TABLE cv_empty (x float8[]);
SELECT error($$SELECT jl_release_covariance('cv_empty', '{x}', 'cv_bad', 10, 1.0, 1e-6)$$);
CREATE TABLE cv_null AS SELECT NULL::float8[] AS x;
SELECT error($$SELECT jl_release_covariance('cv_null', '{x}', 'cv_bad', 10, 1.0, 1e-6)$$);
CREATE TABLE cv_nullrow (x float8[]);
INSERT INTO cv_nullrow VALUES ('{1,2}'), (NULL);
SELECT error($$SELECT jl_release_covariance('cv_nullrow', '{x}', 'cv_bad', 10, 1.0, 1e-6)$$);
CREATE TABLE cv_nan (x float8[]);
INSERT INTO cv_nan VALUES ('{1,2}'), ('{NaN,1}');
SELECT error($$SELECT jl_release_covariance('cv_nan', '{x}', 'cv_bad', 10, 1.0, 1e-6)$$);
CREATE TABLE cv_inf (x float8[]);
INSERT INTO cv_inf VALUES ('{1,2}'), ('{1,-Infinity}');
SELECT error($$SELECT jl_release_covariance('cv_inf', '{x}', 'cv_bad', 10, 1.0, 1e-6)$$);
CREATE TABLE cv_ragged (x float8[]);
INSERT INTO cv_ragged VALUES ('{1,2}'), ('{1,2,3}');
SELECT error($$SELECT jl_release_covariance('cv_ragged', '{x}', 'cv_bad', 10, 1.0, 1e-6)$$);
CREATE TABLE cv_elemnull (a float8, b float8);
INSERT INTO cv_elemnull VALUES (1, 2), (1, NULL);
SELECT error($$SELECT jl_release_covariance('cv_elemnull', '{a,b}', 'cv_bad', 10, 1.0, 1e-6)$$);
SELECT to_regclass('cv_bad') IS NULL AS no_target,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.cv_src') AS spent_after;
-- a source refused while its rows are read is charged (the charge is
-- committed first); one refused before (memory bound, no rows, no first
-- vector) is not
SELECT v.name, coalesce(b.epsilon_spent, 0) AS spent
  FROM (VALUES ('public.cv_wide'), ('public.cv_empty'), ('public.cv_null'), ('public.cv_nullrow'),
               ('public.cv_nan'), ('public.cv_inf'), ('public.cv_ragged'), ('public.cv_elemnull')) v(name)
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
SELECT jl_release_table('cv_src', 'pid', '{x}', 'cv_sketch', 3, 1.0, key => 'pinned') > 0 AS sketch;
SELECT error($$SELECT jl_directional_variance('cv_sketch', '{1,0,0}')$$);
-- the sketch functions refuse a covariance release
SELECT error($$SELECT jl_recover_dist('{1,2,3}', '{1,2,4}', 'cv_rel'::regclass)$$);
SELECT error($$SELECT jl_recover_norm2('{1,2,3}', 'cv_rel'::regclass)$$);
SELECT error($$SELECT jl_pca('cv_rel', 0)$$);
SELECT error($$SELECT jl_pca('cv_rel', 4)$$);
SELECT error($$SELECT jl_least_squares('cv_rel', 0)$$);
SELECT error($$SELECT jl_least_squares('cv_rel', 4)$$);
SELECT jl_release_covariance('cv_src', '{a}', 'cv_one', 20, 1.0, 1e-6) > 0 AS one_attribute;
SELECT error($$SELECT jl_least_squares('cv_one', 1)$$);
-- a release whose lift dominates: the estimate is not positive definite
CREATE TABLE cv_tiny AS SELECT ARRAY[0.01, 0.01, 0.01]::float8[] AS x;
SELECT jl_release_covariance('cv_tiny', '{x}', 'cv_tiny_rel', 5, 0.1, 1e-6) > 0 AS tiny;
SELECT error($$SELECT jl_least_squares('cv_tiny_rel', 1)$$) LIKE '22000%' OR
       array_length(jl_least_squares('cv_tiny_rel', 1), 1) = 2 AS refused_or_solved;
-- an altered release is detected
DELETE FROM cv_one WHERE i = 3;
SELECT error($$SELECT jl_covariance('cv_one')$$);
-- an analyst reads a release only with SELECT on it
CREATE ROLE cv_analyst;
SET ROLE cv_analyst;
SELECT error($$SELECT jl_directional_variance('cv_rel', '{1,0,0}')$$);
SELECT error($$SELECT jl_release_covariance('cv_src', '{x}', 'cv_mine', 10, 1.0, 1e-6)$$);
RESET ROLE;
GRANT SELECT ON cv_rel TO cv_analyst;
SET ROLE cv_analyst;
SELECT jl_directional_variance('cv_rel', '{1,0,0}') IS NOT NULL AS analyst_reads;
SELECT count(*) AS releases_seen FROM jl_releases WHERE target::text LIKE 'cv_%';
RESET ROLE;
REVOKE SELECT ON cv_rel FROM cv_analyst;
DROP ROLE cv_analyst;
