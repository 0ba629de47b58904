-- kind => 'identity': no projection (P = I, k = d), noise on every
-- attribute, through every path, under the pinned key from keys.sql.
-- Values are checked where the noise can be made negligible (epsilon 1e9:
-- noise of scale 1e-9, compared after rounding to 6 digits) or
-- structurally (on the grid, length d, registry fields).

-- jl_project: x itself, exactly (no key stream, no rounding)
SELECT jl_project('{0.5,-2,3.25,1e-300,1e300}', 5, 'pinned', 'identity') AS x_itself;
SELECT jl_project('{0.1,0.2}', 2, 'pinned', 'identity') = '{0.1,0.2}'::float8[] AS exact_copy;

-- jl_release_info: the sensitivity is the bound itself (element; row with
-- Gaussian noise) or sqrt(d) bound (row with Laplace noise); the mechanism
-- is raw noise
SELECT i->>'mechanism' AS mechanism, i->>'projection' AS projection, i->>'kind' AS kind,
       (i->>'d')::int AS d, (i->>'k')::int AS k, round((i->>'projection_sensitivity')::numeric, 12) AS sens,
       i->>'sensitivity_method' AS method, (i->>'valid')::bool AS valid, (i->>'density')::float8 AS density
  FROM (SELECT jl_release_info(10, 10, 1.0, key => 'pinned', kind => 'identity') AS i) s;
SELECT n, neighbor, round((i->>'projection_sensitivity')::numeric, 12) AS sens, i->>'sensitivity_method' AS method
  FROM (VALUES ('laplace', 'element'), ('laplace', 'row'), ('gaussian', 'element'), ('gaussian', 'row')) v(n, neighbor),
       LATERAL jl_release_info(16, 16, 1.0, neighbor, 2.0, delta => CASE n WHEN 'gaussian' THEN 1e-6 END,
                               key => 'pinned', kind => 'identity', noise => n) i;
-- a projection keeps its mechanism name
SELECT jl_release_info(10, 4, 1.0, key => 'pinned')->>'mechanism' AS projection_mechanism;
-- the identity's noise against a Rademacher projection's at the same
-- epsilon: per coordinate, the identity's Laplace scale is 1/sqrt(k) of it
SELECT round(((jl_release_info(10, 4, 1.0, key => 'pinned', kind => 'rademacher')->>'scale')::float8
            / (jl_release_info(10, 10, 1.0, key => 'pinned', kind => 'identity')->>'scale')::float8)::numeric, 2)
       AS rademacher_scale_over_identity;
-- the key does not matter to P = I
SELECT jl_release_info(10, 10, 1.0, key => 'pinned', kind => 'identity') - 'key_fingerprint'
     = jl_release_info(10, 10, 1.0, key => 'pinned2', kind => 'identity') - 'key_fingerprint' AS key_irrelevant;

-- jl_private_release: x plus negligible noise, on the grid, length d
SELECT array_length(z, 1) AS len,
       (SELECT array_agg(round(v::numeric, 6)) FROM unnest(z) v) AS z_rounded,
       (SELECT bool_and(v / g = round(v / g)) FROM unnest(z) v) AS on_grid
  FROM (SELECT jl_private_release('{0.5,-2,3.25,7}', 4, 1e9, key => 'pinned', kind => 'identity') AS z,
               (jl_release_info(4, 4, 1e9, key => 'pinned', kind => 'identity')->>'grid')::float8 AS g) s;
-- Gaussian noise and row neighbours too (sigma about 1e-5 at this epsilon)
SELECT (SELECT array_agg(round(v::numeric, 3)) FROM unnest(
          jl_private_release('{0.5,-2,3.25}', 3, 1e9, 'row', 1, NULL, 1e-6, 'pinned', 'identity', 'gaussian')) v)
       AS gaussian_row;
-- with real noise: two releases differ
SELECT jl_private_release('{1,2,3}', 3, 1.0, key => 'pinned', kind => 'identity')
    <> jl_private_release('{1,2,3}', 3, 1.0, key => 'pinned', kind => 'identity') AS fresh_noise;

-- k must equal d: 22023 with a hint, in every path
SELECT error($$SELECT jl_private_release('{1,2,3}', 2, 1.0, key => 'pinned', kind => 'identity')$$);
SELECT error($$SELECT jl_release_info(10, 4, 1.0, key => 'pinned', kind => 'identity')$$);
SELECT error($$SELECT jl_project('{1,2,3}', 4, 'pinned', 'identity')$$);
SELECT error($$SELECT jl_suggest_k(10, 100, 1.0, 5.0, key => 'pinned', kind => 'identity')$$);
-- its detail and hint
SELECT jl_release_info(10, 4, 1.0, key => 'pinned', kind => 'identity');

-- jl_release_table: clipping, budget and registry
CREATE TABLE id_src AS
  SELECT i AS pid, ARRAY[(i % 7) / 7.0, (i % 5) / 5.0, (i % 3) / 3.0, 2.0]::float8[] AS x,
         (i % 11)::float8 AS a, (i % 13)::int AS b
  FROM generate_series(1, 500) i;
ALTER TABLE id_src ADD PRIMARY KEY (pid);
SELECT jl_dataset_declare('id_data', 2e9, source => 'id_src') IS NOT NULL AS declared;
SELECT jl_release_table('id_src', 'pid', '{x}', 'id_elem', 4, 1e9, key => 'pinned',
                        dataset => 'id_data', clip_lo => 0, clip_hi => 1, kind => 'identity') > 0 AS released;
-- clipped to [0, 1] (the constant 2.0 becomes 1), otherwise x itself
SELECT count(*) AS rows,
       bool_and((SELECT array_agg(round(v::numeric, 6)) FROM unnest(e.sketch) v)
                = (SELECT array_agg(round(least(greatest(v, 0), 1)::numeric, 6)) FROM unnest(s.x) v)) AS clipped_x
  FROM id_elem e JOIN id_src s ON s.pid = e.id;
SELECT d, k, projection, neighbor, bound, clipping, info->>'mechanism' AS mechanism, info->>'kind' AS kind_word,
       info - 'rows' = jl_release_info(4, 4, 1e9, 'element', 1, key => 'pinned', kind => 'identity') AS info_as_release_info
  FROM jl_releases WHERE target = 'id_elem'::regclass;
-- numeric columns, row neighbours (clip_norm 2, bound 4): every sketch on the grid
SELECT jl_release_table('id_src', 'pid', '{a,b}', 'id_row', 2, 1.0, 'row', key => 'pinned',
                        dataset => 'id_data', clip_norm => 2, kind => 'identity') > 0 AS released;
SELECT d, k, projection, bound, clipping,
       (SELECT bool_and(v / r.grid = round(v / r.grid)) FROM id_row, unnest(sketch) v) AS on_grid
  FROM jl_releases r WHERE target = 'id_row'::regclass;
-- k <> d: refused before anything is charged (named columns), or at the
-- first row (an array column), after the charge, which stands
SELECT epsilon_spent FROM jl_budgets WHERE name = 'id_data';
SELECT error($$SELECT jl_release_table('id_src', 'pid', '{a,b}', 'id_bad', 3, 0.1, key => 'pinned',
                                        dataset => 'id_data', kind => 'identity')$$);
SELECT error($$SELECT jl_release_table('id_src', 'pid', '{x}', 'id_bad', 3, 0.1, key => 'pinned',
                                        dataset => 'id_data', clip_lo => 0, clip_hi => 1, kind => 'identity')$$);
SELECT epsilon_spent FROM jl_budgets WHERE name = 'id_data';

-- recovery by release: the identity form (no variance over P), here with
-- tiny noise, so the over-P term 2 r^4/k would dominate
SELECT jl_recover_dist_stddev(a.sketch, b.sketch, 'id_elem'::regclass)
     = jl_recover_dist_stddev(a.sketch, b.sketch, r.noise_variance, 'laplace', 'identity')
       AS dist_stddev_identity,
       jl_recover_dist_stddev(a.sketch, b.sketch, r.noise_variance, 'laplace', 'identity')
     < jl_recover_dist_stddev(a.sketch, b.sketch, r.noise_variance) AS smaller_than_over_p,
       jl_recover_norm2_stddev(a.sketch, 'id_elem'::regclass)
     = jl_recover_norm2_stddev(a.sketch, r.noise_variance, 'laplace', 'identity')
       AS norm2_stddev_identity,
       jl_recover_inner_stddev(a.sketch, b.sketch, 'id_elem'::regclass)
     = jl_recover_inner_stddev(a.sketch, b.sketch, r.noise_variance, 'laplace', 'identity')
       AS inner_stddev_identity
  FROM id_elem a, id_elem b, jl_releases r
 WHERE a.id = 1 AND b.id = 2 AND r.target = 'id_elem'::regclass;
-- the plain functions: exact values; kind => 'identity' drops the over-P term
-- recovered r^2 = 25 - 2 * 3 * 0.5 = 22: over P 2*22^2/3 + 8*0.5*22 + 14*3*0.25 = 421.17;
-- identity 88 + 10.5 (Laplace), 88 + 6 (Gaussian noise); a Gaussian P as the default
SELECT round((jl_recover_dist_stddev('{1,2,3}', '{4,6,3}', 0.5) ^ 2)::numeric, 9) AS over_p,
       round((jl_recover_dist_stddev('{1,2,3}', '{4,6,3}', 0.5, 'laplace', 'identity') ^ 2)::numeric, 9) AS identity,
       round((jl_recover_dist_stddev('{1,2,3}', '{4,6,3}', 0.5, 'gaussian', 'identity') ^ 2)::numeric, 9) AS identity_gaussian,
       round((jl_recover_dist_stddev('{1,2,3}', '{4,6,3}', 0.5, kind => 'gaussian') ^ 2)::numeric, 9) AS gaussian_p;
SELECT round((jl_recover_norm2_stddev('{1,2,3}', 0.5, 'laplace', 'identity') ^ 2)::numeric, 9) AS norm2_identity, -- 4*0.5*12.5 + 5*3*0.25
       round((jl_recover_inner_stddev('{1,2,3}', '{4,6,3}', 0.5, 'laplace', 'identity') ^ 2)::numeric, 9) AS inner_identity; -- 0.5*(12.5+59.5) + 0.75
SELECT error($$SELECT jl_recover_dist_stddev('{1}', '{2}', 0.5, 'laplace', 'identiti')$$);

-- long format: attribute i is coordinate i
SELECT (SELECT array_agg(round(v::numeric, 12)) FROM unnest(jl_project_agg(a, v, 5, 'pinned', 'identity')) v) AS project_agg
  FROM (VALUES (4, 1.5::float8), (2, -2.0), (4, 0.25)) t(a, v);
SELECT error($$SELECT jl_project_agg(a, v, 3, 'pinned', 'identity') FROM (VALUES (4, 1.0::float8)) t(a, v)$$);
SELECT jl_dataset_declare('id_agg', 2e9) IS NOT NULL AS declared;
BEGIN;
SELECT jl_budget_reserve('id_agg', 1e9) > 0 AS reserved;
-- the aggregate of a group is the dense release of its vector: x plus
-- negligible noise, length d, on the grid
SELECT row_id, array_length(z, 1) AS len,
       (SELECT array_agg(round(v::numeric, 6)) FROM unnest(z) v) AS z_rounded,
       (SELECT bool_and(v / g = round(v / g)) FROM unnest(z) v) AS on_grid
  FROM (SELECT row_id, jl_private_release_agg(attr, val, 6, 6, 1e9, 'id_agg', 'element', 1, 'exact', NULL,
                                              'pinned', 'identity') AS z
          FROM (VALUES (1, 2, 0.5::float8), (1, 6, -1.0), (2, 1, 3.0), (2, 1, 0.25)) f(row_id, attr, val)
         GROUP BY row_id) s,
       (SELECT (jl_release_info(6, 6, 1e9, key => 'pinned', kind => 'identity')->>'grid')::float8 AS g) i
 ORDER BY row_id;
COMMIT;
-- d = k = 2000: past the aggregate's dense limit, the statistics of P = I
-- are not streamed but known in closed form; still x itself
BEGIN;
SELECT jl_budget_reserve('id_agg', 1e9) > 0 AS reserved;
SELECT array_length(z, 1) AS len, round(z[7]::numeric, 6) AS z7, round(z[1999]::numeric, 6) AS z1999,
       (SELECT max(abs(v)) FROM unnest(z) WITH ORDINALITY u(v, i) WHERE i NOT IN (7, 1999)) < 1e-6 AS others_zero
  FROM (SELECT jl_private_release_agg(attr, val, 2000, 2000, 1e9, 'id_agg', 'element', 1, 'exact', NULL,
                                      'pinned', 'identity') AS z
          FROM (VALUES (1999, -4.5::float8), (7, 2.0)) f(attr, val)) s;
COMMIT;
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 6, 4, 1.0, 'id_agg', 'element', 1, 'exact', NULL, 'pinned', 'identity')$$);
