-- Projection kinds under the pinned key from keys.sql (00..1f).

-- exact rows of P; the values come from an independent implementation
-- (OpenSSL's ChaCha20 through Python, the layout documented in projection.c)
SELECT jl_project('{1,0,0}', jl_sketch(k => 4, kind => 'rademacher'), 'pinned') AS rademacher_row0,
       jl_project('{0,1,0}', jl_sketch(k => 4, kind => 'rademacher'), 'pinned') AS rademacher_row1,
       jl_project('{0,0,1}', jl_sketch(k => 4, kind => 'rademacher'), 'pinned') AS rademacher_row2;
-- expected: {0.5,0.5,-0.5,0.5} {-0.5,0.5,-0.5,0.5} {0.5,0.5,-0.5,-0.5}
SELECT jl_project('{1,0,0}', jl_sketch(k => 6, kind => 'achlioptas'), 'pinned') AS achlioptas_row0,
       jl_project('{0,1,0}', jl_sketch(k => 6, kind => 'achlioptas'), 'pinned') AS achlioptas_row1,
       jl_project('{0,0,1}', jl_sketch(k => 6, kind => 'achlioptas'), 'pinned') AS achlioptas_row2;
-- expected: {0,s,-s,0,0,0} {0,0,0,0,-s,0} {0,0,s,0,0,0}, s = sqrt(3/6)
-- d = 16: density 1/sqrt(16) = 1/4, entries +-1/sqrt(8/4)
SELECT r, jl_project(array_fill(0::float8, ARRAY[r - 1]) || 1::float8 || array_fill(0::float8, ARRAY[16 - r]), jl_sketch(k => 8, kind => 'sparse'), 'pinned') AS sparse_row
  FROM generate_series(1, 3) r;
-- expected: zeros; {0,0,-0.7071067811865475,0,...}; {0.7071067811865475,0,...}
-- d = 1000: density 1/sqrt(1000) rounded to 14 bits, 1 nonzero in row 5
SELECT jl_project(array_fill(0::float8, ARRAY[5]) || 1::float8 || array_fill(0::float8, ARRAY[994]), jl_sketch(k => 20, kind => 'sparse'), 'pinned') AS sparse_d1000_row5;
-- expected: -1.2574122813762598 in position 9
SELECT jl_project('{0.5,-2,3.25}', jl_sketch(k => 4, kind => 'rademacher'), 'pinned') AS rademacher_xp,
       jl_project('{0.5,-2,3.25}', jl_sketch(k => 6, kind => 'achlioptas'), 'pinned') AS achlioptas_xp;

-- the default is the Rademacher P (the Gaussian one until 0.2.0): jl_sketch's
SELECT jl_project('{0.5,-2,3.25}', jl_sketch(k => 4), 'pinned') = jl_project('{0.5,-2,3.25}', jl_sketch(k => 4, kind => 'rademacher'), 'pinned') AS rademacher_default,
       jl_project('{0.5,-2,3.25}', jl_sketch(k => 4), 'pinned') <> jl_project('{0.5,-2,3.25}', jl_sketch(k => 4, kind => 'gaussian'), 'pinned') AS not_gaussian;

-- rows do not depend on d ...
SELECT jl_project('{0,1}', jl_sketch(k => 5, kind => 'rademacher'), 'pinned') = jl_project('{0,1,0,0,0,0,0}', jl_sketch(k => 5, kind => 'rademacher'), 'pinned') AS rademacher_row_independent_of_d,
       jl_project('{0,1}', jl_sketch(k => 5, kind => 'achlioptas'), 'pinned') = jl_project('{0,1,0,0,0,0,0}', jl_sketch(k => 5, kind => 'achlioptas'), 'pinned') AS achlioptas_row_independent_of_d,
       jl_project('{0,1}', jl_sketch(k => 5, kind => 'sparse', density => 0.3), 'pinned') = jl_project('{0,1,0,0,0,0,0}', jl_sketch(k => 5, kind => 'sparse', density => 0.3), 'pinned') AS sparse_row_independent_of_d;
-- ... sparse ones only through the density: 'sparse' at d = 16 is density 0.25
SELECT jl_project(array_fill(0::float8, ARRAY[16]) || 0::float8, jl_sketch(k => 8, kind => 'sparse'), 'pinned') IS NOT NULL AS d17_runs,
       (SELECT array_agg(x ORDER BY i) FROM generate_series(1, 16) i,
               LATERAL unnest(jl_project(array_fill(0::float8, ARRAY[i - 1]) || 1::float8 || array_fill(0::float8, ARRAY[16 - i]), jl_sketch(k => 8, kind => 'sparse'), 'pinned')) x)
     = (SELECT array_agg(x ORDER BY i) FROM generate_series(1, 16) i,
               LATERAL unnest(jl_project(array_fill(0::float8, ARRAY[i - 1]) || 1::float8, jl_sketch(k => 8, kind => 'sparse', density => 0.25), 'pinned')) x)
       AS sparse_equals_explicit_density;
-- kinds and densities are separate streams
SELECT jl_project('{1}', jl_sketch(k => 64, kind => 'sparse', density => 0.5), 'pinned') <> jl_project('{1}', jl_sketch(k => 64, kind => 'sparse', density => 0.50006103515625), 'pinned') AS densities_separate,
       (SELECT count(*) FROM unnest(jl_project('{1}', jl_sketch(k => 64, kind => 'rademacher'), 'pinned'), jl_project('{1}', jl_sketch(k => 64, kind => 'gaussian'), 'pinned')) u(r, g)
         WHERE sign(r) = sign(g)) AS rademacher_gaussian_sign_agreements;

-- what a release records and uses, per kind
SELECT kind, given_density, i->>'projection' AS projection, round((i->>'density')::numeric, 9) AS density,
       i->>'kind' AS kind_word, round((i->>'projection_sensitivity')::numeric, 9) AS sens,
       (i->>'valid')::bool AS valid
  FROM (VALUES ('gaussian'::jl_kind, NULL::float8), ('rademacher', NULL), ('achlioptas', NULL),
               ('sparse', NULL), ('sparse', 0.05)) v(kind, given_density),
       LATERAL jl_release_info(100, 1.0, 1, 'attribute', jl_sketch(k => 16, kind => kind, density => given_density), key => 'pinned') i;
-- the projection and density recorded for a sparse release select the same
-- P again (the kind word 'sparse(s)' is no jl_kind: its parts are)
SELECT jl_project('{0,0,1}', jl_sketch(k => 8, kind => (i->>'projection')::jl_kind, density => (i->>'density')::float8), 'pinned')
     = jl_project('{0,0,1}', jl_sketch(k => 8, kind => 'sparse', density => 0.1), 'pinned') AS word_round_trips
  FROM jl_release_info(100, 1.0, 1, 'attribute', jl_sketch(k => 8, kind => 'sparse'), key => 'pinned') i;
-- attribute sensitivity = max row L1 norm of the realized P, tight: Rademacher
-- rows all have L1 norm sqrt(k), the others the largest row's
SELECT kind, bool_and(abs((jl_release_info(d, 1.0, 1, 'attribute', jl_sketch(k => 16, kind => kind), key => 'pinned')->>'projection_sensitivity')::float8
                           - max_l1) <= 1e-12 * max_l1) AS sensitivity_is_max_row_l1,
       round(max_l1::numeric, 9) AS max_row_l1
  FROM (SELECT kind, 100 AS d,
               max((SELECT sum(abs(v)) FROM unnest(jl_project(array_fill(0::float8, ARRAY[i - 1]) || 1::float8 || array_fill(0::float8, ARRAY[100 - i]), jl_sketch(k => 16, kind => kind), 'pinned')) v)) AS max_l1
          FROM unnest(ARRAY['gaussian', 'rademacher', 'achlioptas', 'sparse']::jl_kind[]) kind, generate_series(1, 100) i
         GROUP BY kind) s
 GROUP BY kind, max_l1 ORDER BY kind::text;
-- row neighbours: computed from the realized P as for Gaussian
SELECT kind, i->>'sensitivity_method' AS method, round((i->>'projection_sensitivity')::numeric, 9) AS sens
  FROM unnest(ARRAY['rademacher', 'achlioptas', 'sparse']::jl_kind[]) kind,
       LATERAL jl_release_info(50, 1.0, 1, 'row', jl_sketch(k => 6, kind => kind), key => 'pinned') i;
-- paper calibration (Dhaliwal's constants, derived for Gaussian P): valid
-- exactly when the realized P meets them; no probability over P is claimed
SELECT kind, given_density, round((i->>'paper_c')::numeric, 9) AS c, i->>'paper_delta' AS paper_delta,
       (i->>'valid')::bool AS valid
  FROM (VALUES ('gaussian'::jl_kind, NULL::float8), ('rademacher', NULL), ('achlioptas', NULL),
               ('sparse', 0.01)) v(kind, given_density),
       LATERAL jl_release_info(1000, 1.0, 1, 'attribute', jl_sketch(k => 16, kind => kind, calibration => 'paper', density => given_density), key => 'pinned') i;

-- releases of every kind: k values on the grid of the release
SELECT kind, given_density, array_length(z, 1) AS k,
       (SELECT bool_and(v / (jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 8, kind => kind, density => given_density), key => 'pinned')->>'grid')::float8
                        = round(v / (jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 8, kind => kind, density => given_density), key => 'pinned')->>'grid')::float8))
          FROM unnest(z) v) AS on_grid
  FROM (VALUES ('gaussian'::jl_kind, NULL::float8), ('rademacher', NULL), ('achlioptas', NULL),
               ('sparse', NULL), ('sparse', 0.5)) v(kind, given_density),
       LATERAL jl_private_release('{0.5,-2,3.25}', 1.0, 1, 'attribute', jl_sketch(k => 8, kind => kind, density => given_density), key => 'pinned') z;

-- bad kinds: jl_kind's input error (22P02; 'sparse(s)' is no kind either),
-- a density outside [2^-50, 1]: 22023 from jl_sketch, NULL: 22004
-- (jl_project is strict in the mechanism)
SELECT error($$SELECT jl_project('{1}', jl_sketch(k => 4, kind => 'gauss'), 'pinned')$$);
SELECT error($$SELECT jl_project('{1}', jl_sketch(k => 4, kind => 'Gaussian'), 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1}', 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'sparse', density => 2), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1}', 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'sparse', density => 0), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1}', 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'sparse(0.1'), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1}', 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'sparse', density => 'NaN'), key => 'pinned')$$);
SELECT error($$SELECT jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'sparse()'), key => 'pinned')$$);
SELECT error($$SELECT jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'sparse', density => 2 ^ -51), key => 'pinned')$$);
SELECT (jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'sparse', density => 1), key => 'pinned')->>'density')::float8 AS density_1_allowed;
-- a density with another kind: 22023 (0.4 had no way to write one)
SELECT error($$SELECT jl_project('{1}', jl_sketch(k => 4, kind => 'rademacher', density => 0.5), 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1}', 1.0, 1, 'attribute', jl_sketch(k => 4, kind => NULL), key => 'pinned')$$);
SELECT jl_project('{1}', NULL::jl_mechanism, 'pinned') IS NULL AS strict_project;
SELECT jl_project('{1}', jl_sketch(k => 4, kind => 'dense'), 'pinned');
-- a sparse P with no nonzero entry (density 0.01, d = 10, k = 1): 22023, not a range error
SELECT error($$SELECT jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 1, kind => 'sparse', density => 0.01), key => 'pinned')$$);
SELECT error($$SELECT jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 1, kind => 'sparse', density => 0.01, noise => 'gaussian', delta => 1e-6), key => 'pinned')$$);

-- table release: the kind recorded in the registry, the calibration that of jl_release_info
CREATE TABLE kr_src AS
  SELECT i AS pid, ARRAY[(i % 7) / 7.0, (i % 5) / 5.0, (i % 3) / 3.0, 2.0]::float8[] AS x
  FROM generate_series(1, 300) i;
ALTER TABLE kr_src ADD PRIMARY KEY (pid);
-- declared once: x's four elements in [0, 2] with weight 2 = hi - lo (the
-- encoding is x - 0, x itself), attribute neighbours: one element moves by
-- at most 2, so the calibration is jl_release_info's for attribute bound 2
SELECT d FROM jl_protect('kr_src', 'pid', ARRAY[jl_vector('x', 4, 0, 2, 2)],
                         neighbor => 'attribute', epsilon_cap => 2);
SELECT released FROM jl_release('kr_src', 'kr_sparse', 1.0, jl_sketch(k => 4, kind => 'sparse'), key => 'pinned');
SELECT released FROM jl_release('kr_src', 'kr_rad', 1.0, jl_sketch(k => 4, kind => 'rademacher'), key => 'pinned');
SELECT target, projection, info->>'projection' AS name, info->>'density' AS density, info->>'kind' AS kind,
       noise_variance = (jl_release_info(4, 1.0, 2, 'attribute', jl_sketch(k => 4, kind => (info->>'projection')::jl_kind,
                                                                  density => CASE info->>'projection' WHEN 'sparse' THEN (info->>'density')::float8 END),
                                           key => 'pinned')->>'noise_variance')::float8 AS variance_as_info
  FROM jl_releases WHERE target IN ('kr_sparse'::regclass, 'kr_rad'::regclass) ORDER BY id;
SELECT count(*) AS rows, bool_and(array_length(sketch, 1) = 4) AS k4 FROM kr_sparse;
-- an unknown kind: jl_kind's own input error (nothing charged: 2 of 2 spent)
SELECT error($$SELECT jl_release('kr_src', 'kr_bad', 1.0, jl_sketch(k => 4, kind => 'orthogonal'), key => 'pinned')$$);
SELECT epsilon_spent FROM jldp_internal.jldp_dataset WHERE source = 'kr_src'::regclass;
DROP TABLE kr_src, kr_sparse, kr_rad;

-- aggregates: a sparse kind equals jl_project of the dense vector
CREATE TABLE ka_facts AS
  SELECT r AS row_id, a AS attr, ((r * 7 + a * 3) % 11 - 5) / 4.0 AS val
  FROM generate_series(1, 5) r, generate_series(1, 16) a WHERE (r + a) % 3 <> 0;
SELECT row_id,
       (SELECT bool_and(abs(p - q) <= 1e-12 * (1 + abs(q)))
          FROM unnest(y, jl_project((SELECT array_agg(coalesce(f.val, 0) ORDER BY g)
                                       FROM generate_series(1, 16) g
                                       LEFT JOIN ka_facts f ON f.row_id = s.row_id AND f.attr = g), jl_sketch(k => 8, kind => kind), 'pinned')) u(p, q)) AS agg_equals_dense
  FROM (SELECT row_id, kind, jl_project_agg(attr, val, jl_sketch(k => 8, kind => kind, density => CASE kind WHEN 'sparse' THEN 0.25 END), 'pinned') AS y
          FROM ka_facts, unnest(ARRAY['rademacher', 'achlioptas', 'sparse']::jl_kind[]) kind GROUP BY row_id, kind) s
 ORDER BY row_id, kind::text;
-- jl_sketch's default kind is the Rademacher one here too
SELECT (SELECT jl_project_agg(attr, val, jl_sketch(k => 8), 'pinned') FROM ka_facts WHERE row_id = 1)
     = (SELECT jl_project_agg(attr, val, jl_sketch(k => 8, kind => 'rademacher'), 'pinned') FROM ka_facts WHERE row_id = 1) AS rademacher_default;
-- jl_project_agg has no d: 'sparse' needs its density
SELECT error($$SELECT jl_project_agg(attr, val, jl_sketch(k => 8, kind => 'sparse'), 'pinned') FROM ka_facts$$);
SELECT error($$SELECT jl_project_agg(attr, val, jl_sketch(k => 8, kind => 'dense'), 'pinned') FROM ka_facts$$);
-- the kind must not change within a group
SELECT error($$SELECT jl_project_agg(attr, val, jl_sketch(k => 8, kind => CASE WHEN attr < 5 THEN 'rademacher' ELSE 'achlioptas' END::jl_kind), 'pinned') FROM ka_facts$$);
-- nor the density
SELECT error($$SELECT jl_project_agg(attr, val, jl_sketch(k => 8, kind => 'sparse', density => CASE WHEN attr < 5 THEN 0.5 ELSE 0.25 END), 'pinned') FROM ka_facts$$);
-- release of long-format rows (jl_long, one sketch per row_id): 'sparse'
-- resolves with the declared d, as jl_private_release.  The values lie in
-- [-1.25, 1.25]; weight 2.5 = hi - lo keeps their scale, so one attribute
-- moves by at most 2.5 and the calibration is jl_release_info's for
-- attribute bound 2.5 at d = 16 (density 1/sqrt(16) = 0.25)
ALTER TABLE ka_facts ADD PRIMARY KEY (row_id, attr);
SELECT d FROM jl_protect('ka_facts', 'row_id', ARRAY[jl_long('attr', 'val', 16, -1.25, 1.25, 2.5)],
                         neighbor => 'attribute', epsilon_cap => 10);
SELECT released FROM jl_release('ka_facts', 'ka_sparse', 1.0, jl_sketch(k => 8, kind => 'sparse'), key => 'pinned');
SELECT projection, info->>'kind' AS kind_word,
       noise_variance = (jl_release_info(16, 1.0, 2.5, 'attribute', jl_sketch(k => 8, kind => 'sparse'), key => 'pinned')->>'noise_variance')::float8 AS variance_as_info,
       grid = (jl_release_info(16, 1.0, 2.5, 'attribute', jl_sketch(k => 8, kind => 'sparse'), key => 'pinned')->>'grid')::float8 AS grid_as_info
  FROM jl_releases WHERE target = 'ka_sparse'::regclass;
SELECT s.id AS row_id, array_length(sketch, 1) AS k,
       (SELECT bool_and(v / r.grid = round(v / r.grid)) FROM unnest(sketch) v) AS on_grid
  FROM ka_sparse s, jl_releases r WHERE r.target = 'ka_sparse'::regclass ORDER BY s.id;
-- large d: P is never materialized, its rows are generated on demand
-- (attributes 60000 to 960000 of d = 1000000; the density is
-- jl_release_info's for that d)
CREATE TABLE ka_wide AS SELECT row_id, attr * 60000 AS attr, val FROM ka_facts;
ALTER TABLE ka_wide ADD PRIMARY KEY (row_id, attr);
SELECT d FROM jl_protect('ka_wide', 'row_id', ARRAY[jl_long('attr', 'val', 1000000, -1.25, 1.25, 2.5)],
                         neighbor => 'attribute', epsilon_cap => 10);
SELECT released FROM jl_release('ka_wide', 'ka_wide_sparse', 1.0, jl_sketch(k => 8, kind => 'sparse'), key => 'pinned');
SELECT info->>'kind' = jl_release_info(1000000, 1.0, 1, 'attribute', jl_sketch(k => 8, kind => 'sparse'), key => 'pinned')->>'kind' AS kind_as_info
  FROM jl_releases WHERE target = 'ka_wide_sparse'::regclass;
SELECT id AS row_id, array_length(sketch, 1) AS k FROM ka_wide_sparse ORDER BY id;
DROP TABLE ka_sparse, ka_wide, ka_wide_sparse;

-- combine refuses partial states of different kinds
CREATE TABLE ka_parted (part int, attr int, val float8, kind jl_kind, density float8) PARTITION BY LIST (part);
CREATE TABLE ka_parted_1 PARTITION OF ka_parted FOR VALUES IN (1);
CREATE TABLE ka_parted_2 PARTITION OF ka_parted FOR VALUES IN (2);
INSERT INTO ka_parted SELECT 1, a, a / 10.0, 'rademacher' FROM generate_series(1, 100) a;
INSERT INTO ka_parted SELECT 2, a, a / 10.0, 'rademacher' FROM generate_series(101, 200) a;
ANALYZE ka_parted;
SET enable_partitionwise_aggregate = on;
SELECT (SELECT jl_project_agg(attr, val, jl_sketch(k => 4, kind => kind, density => density), 'pinned') FROM ka_parted)
     = (SELECT jl_project_agg(attr, val, jl_sketch(k => 4, kind => kind, density => density), 'pinned') FROM (SELECT * FROM ka_parted OFFSET 0) s)
       AS combined_equals_single;
UPDATE ka_parted SET kind = 'achlioptas' WHERE part = 2;
SELECT jl_project_agg(attr, val, jl_sketch(k => 4, kind => kind, density => density), 'pinned') FROM ka_parted;
UPDATE ka_parted SET kind = 'sparse', density = 0.5 WHERE part = 1;
UPDATE ka_parted SET kind = 'sparse', density = 0.25 WHERE part = 2;
SELECT error($$SELECT jl_project_agg(attr, val, jl_sketch(k => 4, kind => kind, density => density), 'pinned') FROM ka_parted$$);
RESET enable_partitionwise_aggregate;
DROP TABLE ka_parted, ka_facts;
