-- Table release, the registry, recovery by release, the privacy budget.
CREATE TABLE tr_src AS
  SELECT i AS pid, ARRAY[(i % 7) / 7.0, (i % 5) / 5.0, (i % 3) / 3.0, 2.0]::float8[] AS x,
         (i % 11)::float8 AS a, (i % 13)::int AS b
  FROM generate_series(1, 3000) i;
ALTER TABLE tr_src ADD PRIMARY KEY (pid);

-- a float8[] column declared as four elements clamped to [0, 1] (weight
-- 1 = hi - lo: the encoding is x clamped), attribute neighbours: one
-- element moves by at most 1, the calibration jl_release_info's for
-- attribute neighbours, bound 1
SELECT * FROM jl_protect('tr_src', 'pid', ARRAY[jl_vector('x', 4, 0, 1)],
                         neighbor => 'attribute', epsilon_cap => 10);
SELECT released, epsilon_charged, delta_charged
  FROM jl_release('tr_src', 'tr_elem', 1.0, jl_sketch(k => 4), key => 'pinned');
SELECT count(*) AS rows, count(DISTINCT id) AS ids, min(array_length(sketch, 1)) AS k
  FROM tr_elem;
-- the registry: what the release used and guarantees
SELECT target, source, id_column, vector, d, k, projection, neighbor, bound, clipping,
       calibration, epsilon, delta, key_fingerprint, dataset, version,
       noise_variance = (jl_release_info(4, 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')->>'noise_variance')::float8 AS variance_as_info,
       grid = (jl_release_info(4, 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')->>'grid')::float8 AS grid_as_info,
       released_by = current_user AS by_me
  FROM jl_releases WHERE target = 'tr_elem'::regclass;
-- its info is jl_release_info's, field for field, but for the
-- sensitivities, which the pipeline computes over the declared attributes
-- and rounds up by a few ulps more (and the epsilon that holds, computed
-- from them): within 1e-12; besides, the rows read and the declaration
SELECT (SELECT array_agg(e.key ORDER BY e.key) FROM jsonb_each(jl_release_info(4, 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')) e
         WHERE e.value IS DISTINCT FROM info->e.key) AS differ_from_info,
       (SELECT bool_and(abs((info->>f)::float8 / (jl_release_info(4, 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')->>f)::float8 - 1) < 1e-12)
          FROM unnest(ARRAY['sensitivity', 'projection_sensitivity', 'epsilon_effective']) f) AS within_1e_12,
       (SELECT array_agg(f ORDER BY f) FROM jsonb_object_keys(info - ARRAY(SELECT jsonb_object_keys(jl_release_info(4, 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')))) f) AS added,
       info->>'mechanism' AS mechanism, info->'rows' AS rows
  FROM jl_releases WHERE target = 'tr_elem'::regclass;
-- every sketch on the release's grid
SELECT bool_and(v / r.grid = round(v / r.grid)) AS on_grid
  FROM tr_elem, unnest(sketch) v, jl_releases r WHERE r.target = 'tr_elem'::regclass;

-- numeric columns, row neighbours: a in [0, 10] and b in [0, 12] with
-- weights 10 and 12 (their own scale), encoded rows scaled to norm <= 2,
-- so two rows are min(2 x 2, sqrt(10^2 + 12^2)) = 4 apart at most (bound
-- 4).  A copy of tr_src: rows cannot be declared on a ledger spent for
-- attributes
CREATE TABLE tr_src_rows AS SELECT * FROM tr_src;
ALTER TABLE tr_src_rows ADD PRIMARY KEY (pid);
SELECT d FROM jl_protect('tr_src_rows', 'pid', ARRAY[jl_numeric('a', 0, 10, 10), jl_numeric('b', 0, 12, 12)],
                         neighbor => 'row', row_clip => 2, epsilon_cap => 1);
SELECT released FROM jl_release('tr_src_rows', 'tr_row', 0.5, jl_sketch(k => 3), key => 'pinned');
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

-- the source's dataset is its declaration's, with the declared cap
SELECT name, epsilon_cap, epsilon_spent, source FROM jl_budgets WHERE name = 'public.tr_src';

-- a protected table with a cap: releases are charged until it is reached
CREATE TABLE tr_capped AS SELECT * FROM tr_src;
ALTER TABLE tr_capped ADD PRIMARY KEY (pid);
SELECT * FROM jl_protect('tr_capped', 'pid', ARRAY[jl_vector('x', 4, 0, 1)],
                         neighbor => 'attribute', epsilon_cap => 1.0);
SELECT released FROM jl_release('tr_capped', 'tr_a', 0.6, jl_sketch(k => 4), key => 'pinned');
SELECT error($$SELECT jl_release('tr_capped', 'tr_b', 0.6, jl_sketch(k => 4), key => 'pinned')$$);
-- refused before any output: no table, no registry row, nothing charged
SELECT to_regclass('tr_b') IS NULL AS no_target,
       (SELECT count(*) FROM jl_releases WHERE dataset = 'public.tr_capped') AS registry_rows,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.tr_capped') AS spent;
SELECT released FROM jl_release('tr_capped', 'tr_b', 0.4, jl_sketch(k => 4), key => 'pinned');
SELECT epsilon_spent, epsilon_remaining FROM jl_budgets WHERE name = 'public.tr_capped';
-- a budget administrator raises the cap and resets; every change is in the
-- ledger
CREATE ROLE regress_jldp_tr_admin;
GRANT jldp_budget_admin TO regress_jldp_tr_admin;
SET ROLE regress_jldp_tr_admin;
SELECT jl_set_cap('tr_capped', 2.0);
SELECT jl_reset('tr_capped');
RESET ROLE;
SELECT event, epsilon, delta, epsilon_spent, what FROM jl_ledger WHERE dataset = 'public.tr_capped' ORDER BY id;

-- a dataset declared for the source before it was protected (by 0.3's
-- jl_dataset_declare, written here as it left it) is the one its
-- declaration charges, so protecting it cannot escape that cap
CREATE TABLE tr_src2 AS SELECT * FROM tr_src;
ALTER TABLE tr_src2 ADD PRIMARY KEY (pid);
INSERT INTO jldp_internal.jldp_dataset (name, epsilon_cap, delta_cap, source, owner)
  VALUES ('tr_bound', 0.5, 0, 'tr_src2', current_user);
SELECT * FROM jl_protect('tr_src2', 'pid', ARRAY[jl_vector('x', 4, 0, 1)],
                         neighbor => 'attribute', epsilon_cap => 0.5);
SELECT released FROM jl_release('tr_src2', 'tr_e', 0.5, jl_sketch(k => 4), key => 'pinned');
SELECT error($$SELECT jl_release('tr_src2', 'tr_f', 0.5, jl_sketch(k => 4), key => 'pinned')$$);
SELECT dataset FROM jl_releases WHERE target = 'tr_e'::regclass;
-- one dataset per source: a second is refused by the catalog itself
SELECT error($$INSERT INTO jldp_internal.jldp_dataset (name, epsilon_cap, delta_cap, source, owner)
                 VALUES ('tr_bound2', 0.5, 0, 'tr_src2', current_user)$$);
DROP TABLE tr_e, tr_src2;

-- a booked charge (for an unbudgeted primitive's release) is committed on
-- its own, so a rollback leaves it charged
BEGIN;
SELECT jl_budget_book('tr_capped', 0.5) > 0 AS booked;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.tr_capped';
ROLLBACK;
SELECT epsilon_spent AS after_rollback FROM jl_budgets WHERE name = 'public.tr_capped';

-- bad input, to the declaration
CREATE TABLE tr_fresh AS SELECT * FROM tr_src;
ALTER TABLE tr_fresh ADD PRIMARY KEY (pid);
SELECT error($$SELECT jl_protect('tr_fresh', 'nope', ARRAY[jl_vector('x', 4, 0, 1)], epsilon_cap => 1)$$);
SELECT error($$SELECT jl_protect('tr_fresh', 'pid', ARRAY[jl_numeric('nope', 0, 1)], epsilon_cap => 1)$$);
SELECT error($$SELECT jl_protect('tr_fresh', 'pid', ARRAY[]::jl_attribute[], epsilon_cap => 1)$$);
SELECT error($$SELECT jl_protect('tr_fresh', 'pid', ARRAY[jl_numeric('x', 0, 1)], epsilon_cap => 1)$$);
SELECT error($$SELECT jl_vector('x', 4, 1, 0)$$);
SELECT error($$SELECT jl_protect('tr_fresh', 'pid', ARRAY[jl_vector('x', 4, 0, 1)], neighbor => 'attribute', row_clip => 1, epsilon_cap => 1)$$);
SELECT count(*) AS fresh_declared FROM jldp_internal.jldp_dataset WHERE source = 'tr_fresh'::regclass;
DROP TABLE tr_fresh;
-- and to the release.  (0.3's refusals of a NaN element, of a ragged
-- array, of a per-release bound below the clipping, of clip_lo without
-- clip_hi and of element clipping with row neighbours have no counterpart:
-- a declaration reads NaN as lo and an array at its declared length, and
-- its bounds are the attributes', for either neighbour notion)
SELECT error($$SELECT jl_release('tr_src', 'tr_elem', 1.0, jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_release('tr_src', 'tr_c; DROP TABLE tr_src', 1.0, jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_release('tr_src', 'a.b.c.d', 1.0, jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_release('tr_src', 'tr_c', 0, jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_release('tr_src', 'tr_c', 1.0, jl_sketch(k => 0), key => 'pinned')$$);
-- 'paper' is a jl_calibration for jl_private_release only
SELECT error($$SELECT jl_release('tr_src', 'tr_c', 1.0, jl_sketch(k => 4, calibration => 'paper'), key => 'pinned')$$);
SELECT error($$SELECT jl_release('tr_src', 'tr_c', 1.0, jl_sketch(k => 4), key => 'missing')$$);
SELECT to_regclass('tr_c') IS NULL AS nothing_left_behind,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.tr_src') AS spent;

-- a temporary table of the same name does not capture the release
CREATE TEMP TABLE tr_shadow (id text, sketch text);
SELECT released FROM jl_release('tr_src', 'tr_shadow', 1.0, jl_sketch(k => 2), key => 'pinned');
SELECT (SELECT count(*) FROM public.tr_shadow) AS in_public, (SELECT count(*) FROM pg_temp.tr_shadow) AS in_temp;
SELECT released FROM jl_release('tr_src', 'tr_unqualified', 1.0, jl_sketch(k => 2), key => 'pinned');
SELECT target FROM jl_releases WHERE target IN ('public.tr_shadow'::regclass, 'tr_unqualified'::regclass) ORDER BY id;
DROP TABLE pg_temp.tr_shadow;
DROP TABLE public.tr_shadow, tr_unqualified;

-- privileges: the registry row follows SELECT on the target (an analyst's
-- view of jl_releases)
CREATE ROLE regress_jldp_reader;
GRANT jldp_analyst TO regress_jldp_reader;
GRANT SELECT ON tr_elem TO regress_jldp_reader;
SET ROLE regress_jldp_reader;
SELECT target FROM jl_releases ORDER BY id;
SELECT error($$SELECT * FROM jldp_internal.jldp_release$$);
SELECT error($$SELECT jl_recover_dist('{1,2,3}', '{1,2,3}', 'tr_row'::regclass)$$);
SELECT count(*) > 0 AS reader_recovers
  FROM tr_elem p JOIN tr_elem q ON q.id = p.id + 1
 WHERE jl_recover_dist(p.sketch, q.sketch, 'tr_elem'::regclass) IS NOT NULL;
-- budgets are curators' and budget administrators', not analysts'
SELECT error($$SELECT count(*) FROM jl_budgets$$);
-- nor may an analyst build a mechanism or release
SELECT error($$SELECT jl_release('tr_src', 'tr_d', 1.0, jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_release('tr_src', 'tr_d', 1.0, NULL::jl_mechanism, key => 'pinned')$$);
SELECT error($$SELECT jl_set_cap('tr_capped', 100)$$);
RESET ROLE;
REVOKE ALL ON tr_elem FROM regress_jldp_reader;
DROP ROLE regress_jldp_reader;

-- caps: the owner of a dataset (a curator, not a budget administrator) may
-- lower its cap, not raise it nor reset what it spent; a budget
-- administrator who does not own it may do both
CREATE ROLE regress_jldp_tr_curator;
GRANT jldp_curator TO regress_jldp_tr_curator;
CREATE TABLE tr_owned AS SELECT * FROM tr_src;
ALTER TABLE tr_owned ADD PRIMARY KEY (pid);
ALTER TABLE tr_owned OWNER TO regress_jldp_tr_curator;
SET ROLE regress_jldp_tr_curator;
-- a curator sees the budgets of its own datasets only: none yet
SELECT count(*) AS budgets_seen FROM jl_budgets;
SELECT d FROM jl_protect('tr_owned', 'pid', ARRAY[jl_vector('x', 4, 0, 1)],
                         neighbor => 'attribute', epsilon_cap => 1.0);
SELECT jl_budget_book('tr_owned', 0.6) > 0 AS booked;
SELECT error($$SELECT jl_set_cap('tr_owned', 2.0)$$);
SELECT error($$SELECT jl_set_cap('tr_owned', 1.0, 1e-6)$$);
SELECT error($$SELECT jl_reset('tr_owned')$$);
SELECT jl_set_cap('tr_owned', 0.8);
SELECT name, epsilon_cap, epsilon_spent FROM jl_budgets;
RESET ROLE;
-- EXECUTE alone does not make a budget administrator: jl_reset checks the
-- role itself
GRANT EXECUTE ON FUNCTION jl_reset(regclass) TO regress_jldp_tr_curator;
SET ROLE regress_jldp_tr_curator;
SELECT error($$SELECT jl_reset('tr_owned')$$);
RESET ROLE;
REVOKE EXECUTE ON FUNCTION jl_reset(regclass) FROM regress_jldp_tr_curator;
SET ROLE regress_jldp_tr_admin;
SELECT jl_set_cap('tr_owned', 2.0);
SELECT jl_reset('tr_owned');
SELECT epsilon_cap, epsilon_spent, owner = 'regress_jldp_tr_curator' AS owned_by_curator
  FROM jl_budgets WHERE name = 'public.tr_owned';
RESET ROLE;
SELECT event, epsilon, epsilon_spent, role FROM jl_ledger WHERE dataset = 'public.tr_owned' ORDER BY id;
DROP TABLE tr_owned;
DROP ROLE regress_jldp_tr_curator;
DROP ROLE regress_jldp_tr_admin;
DROP TABLE tr_capped, tr_src, tr_src_rows, tr_elem, tr_row, tr_a, tr_b;
