-- kind => 'identity': no projection (P = I, k = d), noise on every
-- attribute, through every path, under the pinned key from keys.sql.
-- Values are checked where the noise can be made negligible (epsilon 1e9:
-- noise of scale 1e-9, compared after rounding to 6 digits) or
-- structurally (on the grid, length d, registry fields).

-- jl_project: x itself, exactly (no key stream, no rounding)
SELECT jl_project('{0.5,-2,3.25,1e-300,1e300}', jl_sketch(k => 5, kind => 'identity'), 'pinned') AS x_itself;
SELECT jl_project('{0.1,0.2}', jl_sketch(k => 2, kind => 'identity'), 'pinned') = '{0.1,0.2}'::float8[] AS exact_copy;

-- jl_release_info: the sensitivity is the bound itself (attribute; row with
-- Gaussian noise) or sqrt(d) bound (row with Laplace noise); the mechanism
-- is raw noise
SELECT i->>'mechanism' AS mechanism, i->>'projection' AS projection, i->>'kind' AS kind,
       (i->>'d')::int AS d, (i->>'k')::int AS k, round((i->>'projection_sensitivity')::numeric, 12) AS sens,
       i->>'sensitivity_method' AS method, (i->>'valid')::bool AS valid, (i->>'density')::float8 AS density
  FROM (SELECT jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 10, kind => 'identity'), key => 'pinned') AS i) s;
SELECT n, neighbor, round((i->>'projection_sensitivity')::numeric, 12) AS sens, i->>'sensitivity_method' AS method
  FROM (VALUES ('laplace'::jl_noise, 'attribute'::jl_neighbor), ('laplace', 'row'), ('gaussian', 'attribute'), ('gaussian', 'row')) v(n, neighbor),
       LATERAL jl_release_info(16, 1.0, 2.0, neighbor, jl_sketch(k => 16, kind => 'identity', noise => n, delta => CASE n WHEN 'gaussian' THEN 1e-6 END), key => 'pinned') i;
-- a projection keeps its mechanism name
SELECT jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')->>'mechanism' AS projection_mechanism;
-- the identity's noise against a Rademacher projection's at the same
-- epsilon: per coordinate, the identity's Laplace scale is 1/sqrt(k) of it
SELECT round(((jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'rademacher'), key => 'pinned')->>'scale')::float8
            / (jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 10, kind => 'identity'), key => 'pinned')->>'scale')::float8)::numeric, 2)
       AS rademacher_scale_over_identity;
-- the key does not matter to P = I
SELECT jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 10, kind => 'identity'), key => 'pinned') - 'key_fingerprint'
     = jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 10, kind => 'identity'), key => 'pinned2') - 'key_fingerprint' AS key_irrelevant;
-- k => NULL (jl_sketch's default) is k = d where d is known; jl_project_agg,
-- given no d, needs k
SELECT jl_project('{0.5,-2,3.25}', jl_sketch(kind => 'identity'), 'pinned') AS project_k_null,
       jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(kind => 'identity'), key => 'pinned')
     = jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 10, kind => 'identity'), key => 'pinned') AS info_k_null,
       array_length(jl_private_release('{1,2,3}', 1.0, 1, 'attribute', jl_sketch(kind => 'identity'), key => 'pinned'), 1) AS release_k_null;
SELECT error($$SELECT jl_project_agg(a, v, jl_sketch(kind => 'identity'), 'pinned') FROM (VALUES (1, 1.0::float8)) t(a, v)$$);

-- jl_private_release: x plus negligible noise, on the grid, length d
SELECT array_length(z, 1) AS len,
       (SELECT array_agg(round(v::numeric, 6)) FROM unnest(z) v) AS z_rounded,
       (SELECT bool_and(v / g = round(v / g)) FROM unnest(z) v) AS on_grid
  FROM (SELECT jl_private_release('{0.5,-2,3.25,7}', 1e9, 1, 'attribute', jl_sketch(k => 4, kind => 'identity'), key => 'pinned') AS z,
               (jl_release_info(4, 1e9, 1, 'attribute', jl_sketch(k => 4, kind => 'identity'), key => 'pinned')->>'grid')::float8 AS g) s;
-- Gaussian noise and row neighbours too (sigma about 1e-5 at this epsilon)
SELECT (SELECT array_agg(round(v::numeric, 3)) FROM unnest(
          jl_private_release('{0.5,-2,3.25}', 1e9, 1, 'row', jl_sketch(k => 3, kind => 'identity', noise => 'gaussian', delta => 1e-6), key => 'pinned')) v)
       AS gaussian_row;
-- with real noise: two releases differ
SELECT jl_private_release('{1,2,3}', 1.0, 1, 'attribute', jl_sketch(k => 3, kind => 'identity'), key => 'pinned')
    <> jl_private_release('{1,2,3}', 1.0, 1, 'attribute', jl_sketch(k => 3, kind => 'identity'), key => 'pinned') AS fresh_noise;

-- k must equal d: 22023 with a hint, in every path
SELECT error($$SELECT jl_private_release('{1,2,3}', 1.0, 1, 'attribute', jl_sketch(k => 2, kind => 'identity'), key => 'pinned')$$);
SELECT error($$SELECT jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'identity'), key => 'pinned')$$);
SELECT error($$SELECT jl_project('{1,2,3}', jl_sketch(k => 4, kind => 'identity'), 'pinned')$$);
SELECT error($$SELECT jl_suggest_k(10, 100, 1.0, 5.0, key => 'pinned', kind => 'identity')$$);
-- its detail and hint
SELECT jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'identity'), key => 'pinned');

-- jl_release (jl_sketch(kind => 'identity')) of a protected table:
-- clamping, budget and registry
CREATE TABLE id_src AS
  SELECT i AS pid, ARRAY[(i % 7) / 7.0, (i % 5) / 5.0, (i % 3) / 3.0, 2.0]::float8[] AS x,
         (i % 11)::float8 AS a, (i % 13)::int AS b
  FROM generate_series(1, 500) i;
ALTER TABLE id_src ADD PRIMARY KEY (pid);
-- x's four elements in [0, 1] (weight 1 = hi - lo: the encoding is x
-- clamped), attribute neighbours: one element moves by at most 1
SELECT d FROM jl_protect('id_src', 'pid', ARRAY[jl_vector('x', 4, 0, 1)],
                         neighbor => 'attribute', epsilon_cap => 2e9);
SELECT released FROM jl_release('id_src', 'id_elem', 1e9, jl_sketch(kind => 'identity'), key => 'pinned');
-- clamped to [0, 1] (the constant 2.0 becomes 1), otherwise x itself
SELECT count(*) AS rows,
       bool_and((SELECT array_agg(round(v::numeric, 6)) FROM unnest(e.sketch) v)
                = (SELECT array_agg(round(least(greatest(v, 0), 1)::numeric, 6)) FROM unnest(s.x) v)) AS clipped_x
  FROM id_elem e JOIN id_src s ON s.pid = e.id;
-- the calibration is jl_release_info's for attribute bound 1, field for
-- field, except the sensitivities, which the pipeline computes over the
-- declared attributes and rounds up by a few ulps more (so epsilon
-- effective differs in the same digits): equal within 1e-12
SELECT d, k, projection, neighbor, bound, clipping, info->>'mechanism' AS mechanism, info->>'kind' AS kind_word,
       (SELECT array_agg(e.key ORDER BY e.key) FROM jsonb_each(jl_release_info(4, 1e9, 1, 'attribute', jl_sketch(k => 4, kind => 'identity'), key => 'pinned')) e
         WHERE e.value IS DISTINCT FROM info->e.key) AS differ_from_info,
       (SELECT bool_and(abs((info->>f)::float8 / (jl_release_info(4, 1e9, 1, 'attribute', jl_sketch(k => 4, kind => 'identity'), key => 'pinned')->>f)::float8 - 1) < 1e-12)
          FROM unnest(ARRAY['sensitivity', 'projection_sensitivity', 'epsilon_effective']) f) AS within_1e_12
  FROM jl_releases WHERE target = 'id_elem'::regclass;
-- numeric columns, row neighbours: a in [0, 10], b in [0, 12] with
-- weights 10 and 12 (their own scale), encoded rows scaled to norm 2, so
-- bound min(2 x 2, sqrt(10^2 + 12^2)) = 4; every sketch on the grid.  A
-- table of its own: rows cannot be declared where attribute neighbours spent
CREATE TABLE id_src_rows AS SELECT * FROM id_src;
ALTER TABLE id_src_rows ADD PRIMARY KEY (pid);
SELECT d FROM jl_protect('id_src_rows', 'pid', ARRAY[jl_numeric('a', 0, 10, 10), jl_numeric('b', 0, 12, 12)],
                         neighbor => 'row', row_clip => 2, epsilon_cap => 2);
SELECT released FROM jl_release('id_src_rows', 'id_row', 1.0, jl_sketch(kind => 'identity'), key => 'pinned');
SELECT d, k, projection, bound, clipping,
       (SELECT bool_and(v / r.grid = round(v / r.grid)) FROM id_row, unnest(sketch) v) AS on_grid
  FROM jl_releases r WHERE target = 'id_row'::regclass;
-- k <> d: refused before anything is charged, d being the declaration's
-- (0.3 learnt an array column's d at the first row, after the charge)
SELECT epsilon_spent FROM jl_protected WHERE relation IN ('id_src'::regclass, 'id_src_rows'::regclass) ORDER BY dataset;
SELECT error($$SELECT jl_release('id_src_rows', 'id_bad', 0.1, jl_sketch(k => 3, kind => 'identity'), key => 'pinned')$$);
SELECT error($$SELECT jl_release('id_src', 'id_bad', 0.1, jl_sketch(k => 3, kind => 'identity'), key => 'pinned')$$);
SELECT epsilon_spent FROM jl_protected WHERE relation IN ('id_src'::regclass, 'id_src_rows'::regclass) ORDER BY dataset;

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
SELECT (SELECT array_agg(round(v::numeric, 12)) FROM unnest(jl_project_agg(a, v, jl_sketch(k => 5, kind => 'identity'), 'pinned')) v) AS project_agg
  FROM (VALUES (4, 1.5::float8), (2, -2.0), (4, 0.25)) t(a, v);
SELECT error($$SELECT jl_project_agg(a, v, jl_sketch(k => 3, kind => 'identity'), 'pinned') FROM (VALUES (4, 1.0::float8)) t(a, v)$$);
-- long format (jl_long, one sketch per row_id): a unit's sketch is its
-- encoded vector plus negligible noise, length d, on the grid.  Values in
-- [-1, 3], weight 4 = hi - lo: the encoding is val + 1; attributes a unit
-- has no row for read as lo (encoded 0, not the 1 of a raw 0), as a
-- vector's missing elements do (jl_vector's comment)
CREATE TABLE id_long (row_id int, attr int, val float8, PRIMARY KEY (row_id, attr));
INSERT INTO id_long VALUES (1, 2, 0.5), (1, 6, -1.0), (2, 1, 3.0), (2, 4, 0.25);
SELECT d FROM jl_protect('id_long', 'row_id', ARRAY[jl_long('attr', 'val', 6, -1, 3, 4)],
                         neighbor => 'attribute', epsilon_cap => 2e9);
SELECT released FROM jl_release('id_long', 'id_long_rel', 1e9, jl_sketch(kind => 'identity'), key => 'pinned');
-- expected: row 1 {0, 1.5, 0, 0, 0, 0}, row 2 {4, 0, 0, 1.25, 0, 0}
SELECT s.id AS row_id, array_length(sketch, 1) AS len,
       (SELECT array_agg(round(v::numeric, 6)) FROM unnest(sketch) v) AS z_rounded,
       (SELECT bool_and(v / r.grid = round(v / r.grid)) FROM unnest(sketch) v) AS on_grid,
       r.grid = (jl_release_info(6, 1e9, 4, 'attribute', jl_sketch(k => 6, kind => 'identity'), key => 'pinned')->>'grid')::float8 AS grid_as_info
  FROM id_long_rel s, jl_releases r WHERE r.target = 'id_long_rel'::regclass
 ORDER BY s.id;
-- d = k = 2000: past the dense limit, the statistics of P = I are not
-- streamed but known in closed form; still the encoding itself.  Values
-- in [-5, 5], weight 10: expected z7 = 2 + 5 = 7, z1999 = -4.5 + 5 = 0.5
CREATE TABLE id_wide (row_id int, attr int, val float8, PRIMARY KEY (row_id, attr));
INSERT INTO id_wide VALUES (1, 1999, -4.5), (1, 7, 2.0);
SELECT d FROM jl_protect('id_wide', 'row_id', ARRAY[jl_long('attr', 'val', 2000, -5, 5, 10)],
                         neighbor => 'attribute', epsilon_cap => 2e9);
SELECT released FROM jl_release('id_wide', 'id_wide_rel', 1e9, jl_sketch(kind => 'identity'), key => 'pinned');
SELECT array_length(sketch, 1) AS len, round(sketch[7]::numeric, 6) AS z7, round(sketch[1999]::numeric, 6) AS z1999,
       (SELECT max(abs(v)) FROM unnest(sketch) WITH ORDINALITY u(v, i) WHERE i NOT IN (7, 1999)) < 1e-6 AS others_zero
  FROM id_wide_rel;
SELECT error($$SELECT jl_release('id_long', 'id_bad', 1.0, jl_sketch(k => 4, kind => 'identity'), key => 'pinned')$$);
DROP TABLE id_long, id_long_rel, id_wide, id_wide_rel;
