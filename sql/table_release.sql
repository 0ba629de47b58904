-- Table release, the registry, recovery by release, the privacy budget.
CREATE TABLE tr_src AS
  SELECT i AS pid, ARRAY[(i % 7) / 7.0, (i % 5) / 5.0, (i % 3) / 3.0, 2.0]::float8[] AS x,
         (i % 11)::float8 AS a, (i % 13)::int AS b
  FROM generate_series(1, 3000) i;
ALTER TABLE tr_src ADD PRIMARY KEY (pid);

-- a float8[] column, elements clamped to [0, 1] (bound 1)
SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_elem', 4, 1.0,
                        key => 'pinned', clip_lo => 0, clip_hi => 1) > 0 AS released;
SELECT count(*) AS rows, count(DISTINCT id) AS ids, min(array_length(sketch, 1)) AS k
  FROM tr_elem;
-- the registry: what the release used and guarantees
SELECT target, source, id_column, vector, d, k, projection, neighbor, bound, clipping,
       calibration, epsilon, delta, key_fingerprint, dataset, version,
       noise_variance = (jl_release_info(4, 4, 1.0, 'element', 1, key => 'pinned')->>'noise_variance')::float8 AS variance_as_info,
       grid = (jl_release_info(4, 4, 1.0, 'element', 1, key => 'pinned')->>'grid')::float8 AS grid_as_info,
       released_by = current_user AS by_me
  FROM jl_releases WHERE target = 'tr_elem'::regclass;
-- its info is jl_release_info's, field for field, and the rows read
SELECT info - 'rows' = jl_release_info(4, 4, 1.0, 'element', 1, key => 'pinned') AS info_as_release_info,
       info->>'mechanism' AS mechanism, info->'rows' AS rows
  FROM jl_releases WHERE target = 'tr_elem'::regclass;
-- every sketch on the release's grid
SELECT bool_and(v / r.grid = round(v / r.grid)) AS on_grid
  FROM tr_elem, unnest(sketch) v, jl_releases r WHERE r.target = 'tr_elem'::regclass;

-- numeric columns as the vector, rows scaled to norm <= 2 (bound 4)
SELECT jl_release_table('tr_src', 'pid', '{a,b}', 'tr_row', 3, 0.5, 'row',
                        key => 'pinned', clip_norm => 2) > 0 AS released;
SELECT d, k, neighbor, bound, clipping FROM jl_releases WHERE target = 'tr_row'::regclass;

-- recovery by release reads the noise variance from the registry
SELECT bool_and(jl_recover_dist(p.sketch, q.sketch, 'tr_elem'::regclass) =
                jl_recover_dist(p.sketch, q.sketch, r.noise_variance)) AS same_as_by_hand,
       bool_and(jl_recover_dist_stddev(p.sketch, q.sketch, 'tr_elem'::regclass) =
                jl_recover_dist_stddev(p.sketch, q.sketch, r.noise_variance)) AS stddev_same
  FROM tr_elem p JOIN tr_elem q ON q.id = p.id + 1, jl_releases r
 WHERE r.target = 'tr_elem'::regclass AND p.id < 50;
SELECT error($$SELECT jl_recover_dist('{1,2,3,4}', '{1,2,3,4}', 'tr_src'::regclass)$$);
SELECT error($$SELECT jl_recover_dist('{1,2,3}', '{1,2,3}', 'tr_elem'::regclass)$$);

-- the default dataset of a source is tracked without a cap
SELECT name, epsilon_cap, epsilon_spent, source FROM jl_budgets WHERE name = 'public.tr_src';

-- a declared dataset with a cap: releases are charged until it is reached
CREATE TABLE tr_capped AS SELECT * FROM tr_src;
ALTER TABLE tr_capped ADD PRIMARY KEY (pid);
SELECT jl_dataset_declare('tr_data', 1.0, source => 'tr_capped');
SELECT jl_release_table('tr_capped', 'pid', '{x}', 'tr_a', 4, 0.6, key => 'pinned', dataset => 'tr_data') > 0 AS first;
SELECT error($$SELECT jl_release_table('tr_capped', 'pid', '{x}', 'tr_b', 4, 0.6, key => 'pinned', dataset => 'tr_data')$$);
-- refused before any output: no table, no registry row, nothing charged
SELECT to_regclass('tr_b') IS NULL AS no_target,
       (SELECT count(*) FROM jl_releases WHERE dataset = 'tr_data') AS registry_rows,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'tr_data') AS spent;
SELECT jl_release_table('tr_capped', 'pid', '{x}', 'tr_b', 4, 0.4, key => 'pinned', dataset => 'tr_data') > 0 AS exactly_to_the_cap;
SELECT epsilon_spent, epsilon_remaining FROM jl_budgets WHERE name = 'tr_data';
-- the curator raises the cap; every change is in the ledger
SELECT jl_dataset_set_cap('tr_data', 2.0);
SELECT jl_dataset_reset('tr_data');
SELECT event, epsilon, delta, epsilon_spent, what FROM jl_ledger WHERE dataset = 'tr_data' ORDER BY id;

-- a dataset declared for the source is charged when none is named, so
-- leaving the dataset out cannot escape its cap
CREATE TABLE tr_src2 AS SELECT * FROM tr_src;
ALTER TABLE tr_src2 ADD PRIMARY KEY (pid);
SELECT jl_dataset_declare('tr_bound', 0.5, source => 'tr_src2');
SELECT jl_release_table('tr_src2', 'pid', '{x}', 'tr_e', 4, 0.5, key => 'pinned') > 0 AS charged_to_declared;
SELECT error($$SELECT jl_release_table('tr_src2', 'pid', '{x}', 'tr_f', 4, 0.5, key => 'pinned')$$);
SELECT dataset FROM jl_releases WHERE target = 'tr_e'::regclass;
-- one dataset per source; the default one of tr_src exists already
SELECT error($$SELECT jl_dataset_declare('tr_bound2', 0.5, source => 'tr_src2')$$);
SELECT error($$SELECT jl_dataset_declare('tr_bound3', 0.5, source => 'tr_src')$$);
DROP TABLE tr_e, tr_src2;

-- reservations for releases that cannot write themselves: committed on
-- their own, so a rollback leaves them charged
BEGIN;
SELECT jl_budget_reserve('tr_data', 0.5) > 0 AS reserved;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'tr_data';
ROLLBACK;
SELECT epsilon_spent AS after_rollback FROM jl_budgets WHERE name = 'tr_data';

-- bad input
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_c', 4, 1.0, key => 'pinned', dataset => 'no such dataset')$$);
SELECT error($$SELECT jl_release_table('tr_src', 'nope', '{x}', 'tr_c', 4, 1.0, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{nope}', 'tr_c', 4, 1.0, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{}', 'tr_c', 4, 1.0, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{pid,x}', 'tr_c', 4, 1.0, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_elem', 4, 1.0, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_c; DROP TABLE tr_src', 4, 1.0, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'a.b.c.d', 4, 1.0, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_c', 4, 1.0, key => 'pinned', clip_lo => 0)$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_c', 4, 1.0, key => 'pinned', clip_lo => 1, clip_hi => 0)$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_c', 4, 1.0, 'row', key => 'pinned', clip_lo => 0, clip_hi => 1)$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_c', 4, 1.0, key => 'pinned', clip_norm => 1)$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_c', 4, 1.0, key => 'pinned', clip_lo => 0, clip_hi => 1, bound => 0.5)$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_c', 4, 0, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_c', 0, 1.0, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_c', 4, 1.0, key => 'missing')$$);
CREATE TABLE tr_bad AS SELECT 1 AS pid, '{1,2}'::float8[] AS x UNION ALL SELECT 2, '{1,NaN}';
ALTER TABLE tr_bad ADD PRIMARY KEY (pid);
SELECT error($$SELECT jl_release_table('tr_bad', 'pid', '{x}', 'tr_c', 2, 1.0, key => 'pinned')$$);
SELECT to_regclass('tr_c') IS NULL AS nothing_left_behind;
CREATE TABLE tr_ragged AS SELECT 1 AS pid, '{1,2}'::float8[] AS x UNION ALL SELECT 2, '{1,2,3}';
ALTER TABLE tr_ragged ADD PRIMARY KEY (pid);
SELECT error($$SELECT jl_release_table('tr_ragged', 'pid', '{x}', 'tr_c', 2, 1.0, key => 'pinned')$$);

-- a temporary table of the same name does not capture the release
CREATE TEMP TABLE tr_shadow (id text, sketch text);
SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_shadow', 2, 1.0, key => 'pinned', clip_lo => 0, clip_hi => 1) > 0 AS released;
SELECT (SELECT count(*) FROM public.tr_shadow) AS in_public, (SELECT count(*) FROM pg_temp.tr_shadow) AS in_temp;
SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_unqualified', 2, 1.0, key => 'pinned', clip_lo => 0, clip_hi => 1) > 0 AS released;
SELECT target FROM jl_releases WHERE target IN ('public.tr_shadow'::regclass, 'tr_unqualified'::regclass) ORDER BY id;
DROP TABLE pg_temp.tr_shadow;
DROP TABLE public.tr_shadow, tr_unqualified;

-- privileges: the registry row follows SELECT on the target
CREATE ROLE regress_jldp_reader;
GRANT SELECT ON tr_elem TO regress_jldp_reader;
SET ROLE regress_jldp_reader;
SELECT target FROM jl_releases ORDER BY id;
SELECT error($$SELECT * FROM jldp_release$$);
SELECT error($$SELECT jl_recover_dist('{1,2,3}', '{1,2,3}', 'tr_row'::regclass)$$);
SELECT count(*) > 0 AS reader_recovers
  FROM tr_elem p JOIN tr_elem q ON q.id = p.id + 1
 WHERE jl_recover_dist(p.sketch, q.sketch, 'tr_elem'::regclass) IS NOT NULL;
SELECT count(*) AS budgets_seen FROM jl_budgets;
SELECT error($$SELECT jl_release_table('tr_src', 'pid', '{x}', 'tr_d', 4, 1.0, key => 'pinned')$$);
SELECT error($$SELECT jl_dataset_set_cap('tr_data', 100)$$);
RESET ROLE;
REVOKE ALL ON tr_elem FROM regress_jldp_reader;
DROP ROLE regress_jldp_reader;
DROP TABLE tr_capped, tr_src, tr_elem, tr_row, tr_a, tr_b, tr_bad, tr_ragged;
