-- Gaussian noise: (epsilon, delta) releases under the pinned key.

-- what a Gaussian release guarantees and uses (analytic calibration by default)
SELECT key, CASE WHEN jsonb_typeof(value) = 'number' THEN round(value::text::numeric, 9)::text ELSE value::text END AS value
  FROM jsonb_each(jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 1e-5), key => 'pinned')) ORDER BY key;

-- the accounting: L2 sensitivity with the grid rounding, sigma on the grid,
-- the delta that holds never above the requested one, sigma at least the
-- continuous analytic sigma for the same sensitivity
SELECT (i->>'grid')::float8 = 2 ^ round(log(2, (i->>'grid')::float8::numeric)) AS grid_power_of_two,
       (i->>'sigma')::float8 = (i->>'grid')::float8 * (i->>'sigma_in_grid_steps')::float8 AS sigma_on_grid,
       (i->>'sigma_in_grid_steps')::bigint >= 1024 AS fine_grid,
       (i->>'sensitivity')::float8 >= (i->>'projection_sensitivity')::float8 + 1.5 * sqrt(20) * (i->>'grid')::float8 AS grid_in_sensitivity,
       (i->>'delta_holding')::float8 <= (i->>'delta_requested')::float8 AS delta_holds,
       (i->>'sigma')::float8 >= (i->>'sigma_calibration')::float8 AS at_least_analytic,
       (i->>'noise_variance')::float8 = ((i->>'sigma')::float8) ^ 2 AS variance,
       (i->>'epsilon')::float8 AS epsilon, (i->>'delta')::float8 AS delta
  FROM jl_release_info(100, 1.0, 1, 'attribute', jl_sketch(k => 20, noise => 'gaussian', delta => 1e-6), key => 'pinned') i;

-- attribute neighbours: L2 sensitivity = bound * max row L2 norm, below the L1 one
SELECT (g->>'sensitivity_norm') AS norm, (g->>'sensitivity_method') AS method,
       (g->>'projection_sensitivity')::float8 < (l->>'projection_sensitivity')::float8 AS l2_below_l1
  FROM jl_release_info(6, 1.0, 2.5, 'attribute', jl_sketch(k => 8, noise => 'gaussian', delta => 1e-5), key => 'pinned') g,
       jl_release_info(6, 1.0, 2.5, 'attribute', jl_sketch(k => 8), key => 'pinned') l;
-- the max row L2 norm of P, from jl_project of the unit vectors
SELECT round(((i->>'projection_sensitivity')::float8 / 2.5)::numeric, 9) =
       round((SELECT max(sqrt(s)) FROM (SELECT e, sum(v * v) AS s FROM generate_series(1, 6) e,
              unnest(jl_project((SELECT array_agg(CASE WHEN j = e THEN 1 ELSE 0 END ORDER BY j)::float8[]
                                 FROM generate_series(1, 6) j), jl_sketch(k => 8), 'pinned')) v GROUP BY e) q)::numeric, 9) AS max_row_l2
  FROM jl_release_info(6, 1.0, 2.5, 'attribute', jl_sketch(k => 8, noise => 'gaussian', delta => 1e-5), key => 'pinned') i;
-- with another projection kind: Rademacher rows have L2 norm exactly 1
SELECT (i->>'kind') AS kind, (i->>'noise') AS noise, round((i->>'projection_sensitivity')::numeric, 9) AS sens,
       (i->>'projection_sensitivity')::float8 >= 1 AS rounded_up
  FROM jl_release_info(5, 1.0, 1, 'attribute', jl_sketch(k => 16, kind => 'rademacher', noise => 'gaussian', delta => 1e-5), key => 'pinned') i;
-- row neighbours: R * sigma_max(P)
SELECT (i->>'sensitivity_method') AS method, round((i->>'projection_sensitivity')::numeric, 6) AS sens,
       (i->>'valid')::bool AS valid
  FROM jl_release_info(3, 1.0, 1, 'row', jl_sketch(k => 4, noise => 'gaussian', delta => 1e-5), key => 'pinned') i;

-- the three calibrations: classic (Kenthapadi Theorem 1) above analytic
SELECT (i->>'calibration') AS calibration, round((i->>'sigma_calibration')::numeric, 6) AS sigma_calibration,
       round((i->>'sigma')::numeric, 6) AS sigma, (i->>'valid')::bool AS valid,
       (i->>'delta_holding')::float8 <= 1e-5 AS delta_holds
  FROM unnest(ARRAY['analytic', 'classic']::jl_calibration[]) c,
       jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 1e-5, calibration => c), key => 'pinned') i;
-- paper (Lemma 2): sigma = (4/eps) sqrt(ln(1/delta)) B, when k > 2 (ln d + ln(2/delta))
SELECT round((i->>'paper_sigma')::numeric, 6) AS paper_sigma,
       round((4 * sqrt(ln(1e5)))::numeric, 6) AS formula,
       (i->>'valid')::bool AS valid, (i->>'delta_holding')::float8 <= 1e-5 AS delta_holds
  FROM jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 40, noise => 'gaussian', delta => 1e-5, calibration => 'paper'), key => 'pinned') i;
SELECT error($$SELECT jl_release_info(10, 1.0, 1, 'attribute', jl_sketch(k => 20, noise => 'gaussian', delta => 1e-5, calibration => 'paper'), key => 'pinned')$$);
SELECT error($$SELECT jl_release_info(10, 12.0, 1, 'attribute', jl_sketch(k => 40, noise => 'gaussian', delta => 1e-5, calibration => 'paper'), key => 'pinned')$$);
SELECT error($$SELECT jl_release_info(10, 1.0, 1, 'row', jl_sketch(k => 40, noise => 'gaussian', delta => 1e-5, calibration => 'paper'), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2,3}', 1.0, 1, 'attribute', jl_sketch(k => 40, noise => 'gaussian', delta => 0.4, calibration => 'paper'), key => 'pinned')$$);
SELECT error($$SELECT jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 0.5, calibration => 'classic'), key => 'pinned')$$);

-- errors: missing delta, delta outside (0, 1), unknown noise, calibration of the other noise
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian'), key => 'pinned')$$);
SELECT error($$SELECT jl_release_info(2, 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian'), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 0), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 1), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 'NaN'), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'normal', delta => 1e-5), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, noise => NULL, delta => 1e-5), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 1e-5, calibration => 'exact'), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, calibration => 'analytic'), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'laplace', calibration => 'classic'), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 1e-5), key => 'pinned')$$);

-- a release: on the grid, k values, fresh noise each call
SELECT array_length(z, 1) AS k,
       bool_and(v / (jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 6, noise => 'gaussian', delta => 1e-5), key => 'pinned')->>'grid')::float8 =
                round(v / (jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 6, noise => 'gaussian', delta => 1e-5), key => 'pinned')->>'grid')::float8)) AS on_grid
  FROM (SELECT jl_private_release('{1,2,3}', 1.0, 1, 'attribute', jl_sketch(k => 6, noise => 'gaussian', delta => 1e-5), key => 'pinned') z) s,
       unnest(z) v GROUP BY z;
SELECT count(DISTINCT jl_private_release('{1,2,3}', 1.0, 1, 'attribute', jl_sketch(k => 6, noise => 'gaussian', delta => 1e-5), key => 'pinned')) AS distinct_of_3
  FROM generate_series(1, 3);

-- recovery: the Gaussian variance 2 r^4/k + 8 s2 r^2 + 8 k s2^2
SELECT round(jl_recover_dist_stddev('{3,0}', '{0,0}', 0.5, 'gaussian')::numeric, 9) AS gaussian,
       round(sqrt(2 * (9 - 2) ^ 2 / 2.0 + 8 * 0.5 * (9 - 2) + 8 * 2 * 0.25)::numeric, 9) AS formula,
       round(jl_recover_dist_stddev('{3,0}', '{0,0}', 0.5)::numeric, 9) AS laplace;
SELECT error($$SELECT jl_recover_dist_stddev('{3,0}', '{0,0}', 0.5, 'cauchy')$$);

-- table release with Gaussian noise: charged (epsilon, delta), recorded with its noise
CREATE TABLE g_src AS
  SELECT i AS pid, ARRAY[(i % 7) / 7.0, (i % 5) / 5.0, (i % 3) / 3.0]::float8[] AS x
  FROM generate_series(1, 500) i;
ALTER TABLE g_src ADD PRIMARY KEY (pid);
-- declared with x's three elements in [0, 1] (weight 1 = hi - lo: the
-- encoding is x clamped), attribute neighbours: one element moves by at
-- most 1, so the calibration is jl_release_info's for attribute bound 1
SELECT * FROM jl_protect('g_src', 'pid', ARRAY[jl_vector('x', 3, 0, 1)],
                         neighbor => 'attribute', epsilon_cap => 2.0, delta_cap => 1e-5);
-- Gaussian noise without delta: refused by the mechanism's constructor
SELECT error($$SELECT jl_release('g_src', 'g_bad', 1.0, jl_sketch(k => 4, noise => 'gaussian'), key => 'pinned')$$);
-- the paper calibration: jl_private_release only, refused by jl_release (before any charge)
SELECT error($$SELECT jl_release('g_src', 'g_bad', 1.0, jl_sketch(k => 40, noise => 'gaussian', delta => 1e-6, calibration => 'paper'), key => 'pinned')$$);
SELECT released, epsilon_charged, delta_charged
  FROM jl_release('g_src', 'g_rel', 1.0, jl_sketch(k => 4, noise => 'gaussian', delta => 4e-6), key => 'pinned');
SELECT info->>'noise' AS noise, calibration, epsilon, delta, (info->>'delta_holding')::float8 <= delta AS holds,
       noise_variance = (jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 4e-6), key => 'pinned')->>'noise_variance')::float8 AS variance_as_info,
       grid = (jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 4e-6), key => 'pinned')->>'grid')::float8 AS grid_as_info
  FROM jl_releases WHERE target = 'g_rel'::regclass;
-- field for field jl_release_info's, but for the sensitivities, which the
-- pipeline computes over the declared attributes and rounds up by a few
-- ulps more, and what follows from them before the grid (rho, the analytic
-- sigma, the epsilon that holds): every number within 1e-12 (sigma, the
-- grid and the noise variance equal, as above)
SELECT (SELECT array_agg(e.key ORDER BY e.key) FROM jsonb_each(jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 4e-6), key => 'pinned')) e
         WHERE e.value IS DISTINCT FROM info->e.key) AS differ_from_info,
       (SELECT bool_and(abs((info->>f)::float8 / (jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 4e-6), key => 'pinned')->>f)::float8 - 1) < 1e-12)
          FROM jsonb_object_keys(info) f
         WHERE jsonb_typeof(info->f) = 'number' AND f IN (SELECT jsonb_object_keys(jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 4e-6), key => 'pinned')))) AS numbers_within_1e_12
  FROM jl_releases WHERE target = 'g_rel'::regclass;
SELECT epsilon_spent, delta_spent FROM jl_protected WHERE relation = 'g_src'::regclass;
SELECT event, epsilon, delta FROM jl_ledger WHERE dataset = 'public.g_src' ORDER BY id;
SELECT count(*) AS rows, bool_and(v / r.grid = round(v / r.grid)) AS on_grid
  FROM g_rel, unnest(sketch) v, jl_releases r WHERE r.target = 'g_rel'::regclass;
-- a second release: by the sums, 4e-6 + 7e-6 > 1e-5; but each release's
-- discrete Gaussian noise is dominated by a Gaussian shift mu (with an atom
-- of delta / 1024; both in the ledger, beside its rho), and by their
-- privacy loss distributions the two together are (1.0915, 1e-5)-DP (the
-- cap's delta, read as the float just under it), within the caps: admitted
-- (docs/design/accounting.md); by Renyi DP they were (1.1867, 1e-5).
-- Independently (scipy, the closed form of sqrt(mu1^2 + mu2^2) at
-- 1e-5 - 1.1e-5 / 1024): mu 0.2547221 and 0.1391959 give 1.0915492 (the
-- first alone 0.9455778); each mu is 1.0047 times sqrt(2 rho)
SELECT released FROM jl_release('g_src', 'g_rel2', 0.5, jl_sketch(k => 4, noise => 'gaussian', delta => 7e-6), key => 'pinned');
SELECT epsilon_spent, delta_spent, round(epsilon_composed::numeric, 4) AS epsilon_composed,
       round(delta_composed::numeric, 10) AS delta_composed, composed_by
  FROM jl_budgets WHERE name = 'public.g_src';
SELECT event, profile, round(rho::numeric, 7) AS rho, round(mu::numeric, 7) AS mu,
       round(epsilon_composed::numeric, 4) AS epsilon_composed, composed_by
  FROM jl_ledger WHERE dataset = 'public.g_src' ORDER BY id;
-- a third, at epsilon 2, is past the caps by the sums and composed: refused
SELECT error($$SELECT jl_release('g_src', 'g_rel3', 2.0, jl_sketch(k => 4, noise => 'gaussian', delta => 4e-6), key => 'pinned')$$);
SELECT epsilon_spent, delta_spent FROM jl_protected WHERE relation = 'g_src'::regclass;
-- recovery by release uses the Gaussian formula, as the registry says
SELECT bool_and(jl_recover_dist_stddev(p.sketch, q.sketch, 'g_rel'::regclass) =
                jl_recover_dist_stddev(p.sketch, q.sketch, r.noise_variance, 'gaussian')) AS gaussian_by_release,
       bool_or(jl_recover_dist_stddev(p.sketch, q.sketch, 'g_rel'::regclass) <>
               jl_recover_dist_stddev(p.sketch, q.sketch, r.noise_variance)) AS not_laplace
  FROM g_rel p JOIN g_rel q ON q.id = p.id + 1, jl_releases r WHERE r.target = 'g_rel'::regclass AND p.id < 20;

-- long-format rows with Gaussian noise and a Gaussian P (jl_long, one
-- sketch per row_id): charged (epsilon, delta), on the grid of
-- jl_release_info's calibration for d = 3, attribute bound 1 (the values
-- lie in [0, 0.8]: declared in [0, 1], weight 1, the encoding is val)
CREATE TABLE g_long AS
  SELECT r AS row_id, a AS attr, ((r * a) % 5) / 5.0 AS val
  FROM generate_series(1, 20) r, generate_series(1, 3) a;
ALTER TABLE g_long ADD PRIMARY KEY (row_id, attr);
SELECT d FROM jl_protect('g_long', 'row_id', ARRAY[jl_long('attr', 'val', 3, 0, 1)],
                         neighbor => 'attribute', epsilon_cap => 5.0, delta_cap => 1e-4);
SELECT released, epsilon_charged, delta_charged
  FROM jl_release('g_long', 'g_long_rel', 1.0, jl_sketch(k => 4, kind => 'gaussian', noise => 'gaussian', delta => 1e-5), key => 'pinned');
SELECT count(DISTINCT s.id) AS groups, min(array_length(sketch, 1)) AS k,
       bool_and(v / r.grid = round(v / r.grid)) AS on_grid,
       min(r.grid) = (jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'gaussian', noise => 'gaussian', delta => 1e-5), key => 'pinned')->>'grid')::float8 AS grid_as_info,
       min(r.noise_variance) = (jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'gaussian', noise => 'gaussian', delta => 1e-5), key => 'pinned')->>'noise_variance')::float8 AS variance_as_info
  FROM g_long_rel s, unnest(sketch) v, jl_releases r WHERE r.target = 'g_long_rel'::regclass;
SELECT epsilon_spent, delta_spent FROM jl_protected WHERE relation = 'g_long'::regclass;

-- the release aggregate, unbudgeted (jl_private_release_agg(attr, value,
-- d, epsilon, bound, neighbor, mechanism, key): it charges nothing; its
-- noise, delta and calibration are the jl_sketch mechanism's)
-- one group whose rows ask for different noise: refused, the detail
-- naming the noise
CREATE TEMP TABLE g_ledger_before AS SELECT count(*) AS entries, max(id) AS last_id FROM jl_ledger;
CREATE FUNCTION pg_temp.g_error_detail(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  detail text;
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || SQLERRM || ' / ' || detail;
END $$;
SELECT pg_temp.g_error_detail($$SELECT jl_private_release_agg(attr, val, 3, 1.0, 1.0, 'attribute',
                                            CASE WHEN attr = 1 THEN jl_sketch(k => 4, kind => 'gaussian', noise => 'gaussian', delta => 1e-5)
                                                 ELSE jl_sketch(k => 4, kind => 'gaussian') END, 'pinned') FROM g_long GROUP BY row_id$$);

-- parallel aggregation combines Gaussian states (serialize, deserialize,
-- combine): k values on the grid of jl_release_info's Gaussian calibration
-- (d = 3000, attribute bound 1, delta 1e-5, Gaussian P); and at epsilon 10000
-- (sigma 0.0157) within 10 sigmas (probability 1.5e-23 per coordinate
-- otherwise) of the serial noise-free jl_project_agg with the Gaussian P
-- (computed before parallel plans are allowed), where a worker's partial
-- state lost would leave out the projection of its rows (the projections
-- of attr 1..1000, 1001..2000 and 2001..3000 have every coordinate at least
-- 2.2, 0.59 and 1.09 in absolute value, 37 sigmas or more, by jl_project_agg)
CREATE TABLE g_par AS SELECT 1 AS row_id, a AS attr, 1.0::float8 AS val FROM generate_series(1, 3000) a;
CREATE TEMP TABLE g_par_serial AS SELECT jl_project_agg(attr, val, jl_sketch(k => 4, kind => 'gaussian'), 'pinned') AS y FROM g_par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT jl_private_release_agg(attr, val, 3000, 1.0, 1.0, 'attribute',
                                                  jl_sketch(k => 4, kind => 'gaussian', noise => 'gaussian', delta => 1e-5), 'pinned')
  FROM g_par;
SELECT array_length(z, 1) AS k,
       (SELECT bool_and(v / g = round(v / g)) FROM unnest(z) v) AS on_grid
  FROM (SELECT jl_private_release_agg(attr, val, 3000, 1.0, 1.0, 'attribute',
                                      jl_sketch(k => 4, kind => 'gaussian', noise => 'gaussian', delta => 1e-5), 'pinned') AS z
        FROM g_par) s,
       (SELECT (jl_release_info(3000, 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'gaussian', noise => 'gaussian', delta => 1e-5), key => 'pinned')->>'grid')::float8 AS g) gg;
SELECT (SELECT bool_and(abs(a - b) <= 10 * sigma) FROM unnest(z, (SELECT y FROM g_par_serial)) u(a, b)) AS parallel_near_serial
  FROM (SELECT jl_private_release_agg(attr, val, 3000, 10000, 1.0, 'attribute',
                                      jl_sketch(k => 4, kind => 'gaussian', noise => 'gaussian', delta => 1e-5), 'pinned') AS z
        FROM g_par) s,
       (SELECT (jl_release_info(3000, 10000, 1, 'attribute', jl_sketch(k => 4, kind => 'gaussian', noise => 'gaussian', delta => 1e-5), key => 'pinned')->>'sigma')::float8 AS sigma) i;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- the aggregate charged nothing: the ledger has not moved
SELECT count(*) = b.entries AND max(id) IS NOT DISTINCT FROM b.last_id AS ledger_unmoved
  FROM jl_ledger, g_ledger_before b GROUP BY b.entries, b.last_id;

-- jl_suggest_k runs no query, writes nothing and opens no subtransaction:
-- it is declared parallel safe and runs in a parallel worker
BEGIN;
SET LOCAL force_parallel_mode = on;
EXPLAIN (COSTS OFF) SELECT jl_suggest_k(100, 1000, 1.0, 500, noise => 'gaussian', delta => 1e-5, key => 'pinned');
SELECT jl_suggest_k(100, 1000, 1.0, 500, noise => 'gaussian', delta => 1e-5, key => 'pinned') > 0 AS suggest_k_in_parallel_mode;
SELECT jl_suggest_k_info(100, 1000, 1.0, 500, noise => 'gaussian', delta => 1e-5, key => 'pinned') IS NOT NULL AS suggest_k_info_in_parallel_mode;
ROLLBACK;

-- the budget charges what the release is calibrated to: 0.1 + 0.2 is
-- 0.30000000000000004 and 1e-5 + 2e-5 is 3.0000000000000004e-05, neither fits
-- a cap of 0.3 or 3e-5 (charging them rounded to 15 digits would); booked
-- on a protected table with those caps (jl_budget_book)
CREATE TABLE g_round (id int PRIMARY KEY, a float8);
SELECT d FROM jl_protect('g_round', 'id', ARRAY[jl_numeric('a', 0, 1)], epsilon_cap => 0.3, delta_cap => 3e-5);
SELECT error($$SELECT jl_budget_book('g_round', 0.1::float8 + 0.2::float8, 1e-5)$$);
SELECT error($$SELECT jl_budget_book('g_round', 0.1, 1e-5::float8 + 2e-5::float8)$$);
SELECT jl_budget_book('g_round', 0.3, 3e-5) > 0 AS exact_cap_fits;
SELECT epsilon_spent, delta_spent FROM jl_protected WHERE relation = 'g_round'::regclass;

DROP TABLE g_src, g_rel, g_rel2, g_long, g_long_rel, g_par, g_round;
