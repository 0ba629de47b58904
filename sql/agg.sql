-- Aggregates over long-format (row, attr, value) data, under the pinned key
-- from keys.sql: jl_project_agg (noise-free) and jl_private_release_agg.

CREATE TEMP TABLE agg_dense AS
  SELECT r AS row_id,
         ARRAY(SELECT ((r * 37 + i * 11) % 23 - 11) / 4.0 FROM generate_series(1, 30) i)::float8[] AS x
  FROM generate_series(1, 50) r;
-- long format, zeros left out, in an order that is not the attribute order
CREATE TEMP TABLE agg_facts AS
  SELECT row_id, i::int AS attr, v AS val
  FROM agg_dense, unnest(x) WITH ORDINALITY u(v, i)
  WHERE v <> 0
  ORDER BY row_id, (i * 7) % 31;

-- attr i uses row i - 1 of P: the aggregate equals jl_project of the dense
-- vector, up to the floating-point summation order
SELECT count(*) AS groups,
       bool_and(ok) AS equal_to_dense
FROM (SELECT (SELECT bool_and(abs(a - b) <= 1e-13 * (1 + abs(b)))
              FROM unnest(s.y, jl_project(d.x, 8, 'pinned')) u(a, b)) AS ok
      FROM agg_dense d
      JOIN (SELECT row_id, jl_project_agg(attr, val, 8, 'pinned') AS y
            FROM agg_facts GROUP BY row_id) s USING (row_id)) t;
-- the values of release.sql's x P (Gaussian P) for {0.5,-2,3.25}
SELECT round(v::numeric, 12) AS xp
  FROM unnest((SELECT jl_project_agg(i::int, e, 4, 'pinned', 'gaussian')
               FROM unnest('{0.5,-2,3.25}'::float8[]) WITH ORDINALITY u(e, i))) v;
-- a sparse vector: only its nonzero attributes, in any order
SELECT (SELECT array_agg(round(v::numeric, 12)) FROM unnest(jl_project_agg(a, v, 4, 'pinned')) v)
     = (SELECT array_agg(round(v::numeric, 12)) FROM unnest(jl_project('{0,0,0,0,0,0,1.5,0,0,-2}', 4, 'pinned')) v)
       AS sparse_equals_dense
  FROM (VALUES (10, -2.0::float8), (7, 1.5)) t(a, v);
-- attribute indices far beyond any dense P: rows generated on demand
SELECT (SELECT array_agg(round(v::numeric, 12)) FROM unnest(jl_project_agg(a, v, 4, 'pinned')) v)
     = (SELECT array_agg(round(v::numeric, 12)) FROM unnest(jl_project(x, 4, 'pinned')) v)
       AS large_index_equals_dense
  FROM (VALUES (1, 2.0::float8), (299999, -1.5), (600000, 0.25)) t(a, v),
       (SELECT array_agg(CASE i WHEN 1 THEN 2.0 WHEN 299999 THEN -1.5 WHEN 600000 THEN 0.25 ELSE 0 END
                         ORDER BY i)::float8[] AS x
        FROM generate_series(1, 600000) i) dense
  GROUP BY x;
SELECT array_length(jl_project_agg(2147483647, 1.0, 4, 'pinned'), 1) AS largest_attr;

-- duplicate (row, attr) pairs are summed
SELECT (SELECT jl_project_agg(a, v, 4, 'pinned') FROM (VALUES (3, 1.0::float8), (5, 2.0), (3, 2.0)) t(a, v))
     = (SELECT jl_project_agg(a, v, 4, 'pinned') FROM (VALUES (3, 3.0::float8), (5, 2.0)) t(a, v))
       AS duplicates_summed;
-- NULL values are skipped (a NULL attr then does not matter either)
SELECT (SELECT jl_project_agg(a, v, 4, 'pinned') FROM (VALUES (3, 1.0::float8), (5, NULL), (NULL, NULL)) t(a, v))
     = (SELECT jl_project_agg(a, v, 4, 'pinned') FROM (VALUES (3, 1.0::float8)) t(a, v))
       AS nulls_skipped;
-- a group whose values are all NULL is the zero vector; no rows at all: NULL
SELECT jl_project_agg(a, v, 2, 'pinned') AS all_null FROM (VALUES (3, NULL::float8)) t(a, v);
SELECT jl_project_agg(a, v, 2, 'pinned') IS NULL AS no_rows FROM (VALUES (3, 1.0::float8)) t(a, v) WHERE false;

-- bad input: a specific SQLSTATE each
SELECT error($$SELECT jl_project_agg(0, 1.0, 4, 'pinned')$$);
SELECT error($$SELECT jl_project_agg(-1, 1.0, 4, 'pinned')$$);
SELECT error($$SELECT jl_project_agg(NULL, 1.0, 4, 'pinned')$$);
SELECT error($$SELECT jl_project_agg(1, 'NaN', 4, 'pinned')$$);
SELECT error($$SELECT jl_project_agg(1, '-Infinity', 4, 'pinned')$$);
SELECT error($$SELECT jl_project_agg(1, 1.0, 0, 'pinned')$$);
SELECT error($$SELECT jl_project_agg(1, 1.0, NULL, 'pinned')$$);
SELECT error($$SELECT jl_project_agg(1, 1.0, 4, NULL)$$);
SELECT error($$SELECT jl_project_agg(1, 1.0, 4, 'no such key')$$);
SELECT error($$SELECT jl_private_release_agg(31, 1.0, 30, 8, 1.0, 'agg_data')$$);
SELECT error($$SELECT jl_private_release_agg(0, 1.0, 30, 8, 1.0, 'agg_data')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 0, 8, 1.0, 'agg_data')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, NULL, 8, 1.0, 'agg_data')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 10001, 1.0, 'agg_data')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 8, 0, 'agg_data')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 8, 'NaN', 'agg_data')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 8, 1.0, NULL)$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 8, 1.0, '')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 8, 1.0, 'agg_data', 'column', 1)$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 8, 1.0, 'agg_data', 'row', 0)$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 8, 1.0, 'agg_data', 'row', 1, 'tight', NULL)$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 8, 1.0, 'agg_data', 'row', 1, 'exact', 1)$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 8, 1.0, 'agg_data', 'row', 1, 'paper', NULL)$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 8, 1.0, 'agg_data', 'element', 1, 'exact', NULL, 'no such key')$$);

-- parameters must not change within a group ...
SELECT error($$SELECT jl_project_agg(a, 1.0, a, 'pinned') FROM generate_series(1, 3) a$$);
SELECT error($$SELECT jl_project_agg(1, 1.0, 4, CASE WHEN a = 1 THEN 'pinned' ELSE 'pinned2' END) FROM generate_series(1, 3) a$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 8, a, 'agg_data') FROM generate_series(1, 3) a$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 8, 1.0, 'agg_data' || a) FROM generate_series(1, 3) a$$);
-- ... nor between the states that are combined: partial aggregates per
-- partition, each consistent, combined by the final step (and in parallel)
CREATE TABLE agg_parted (part int, attr int, val float8, k int) PARTITION BY LIST (part);
CREATE TABLE agg_parted_1 PARTITION OF agg_parted FOR VALUES IN (1);
CREATE TABLE agg_parted_2 PARTITION OF agg_parted FOR VALUES IN (2);
INSERT INTO agg_parted SELECT 1, a, a / 10.0, 4 FROM generate_series(1, 100) a;
INSERT INTO agg_parted SELECT 2, a, a / 10.0, 4 FROM generate_series(101, 200) a;
ANALYZE agg_parted;
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT jl_project_agg(attr, val, k, 'pinned') FROM agg_parted;
SELECT (SELECT jl_project_agg(attr, val, k, 'pinned') FROM agg_parted)
     = (SELECT jl_project_agg(attr, val, k, 'pinned') FROM (SELECT * FROM agg_parted OFFSET 0) s)
       AS combined_equals_single;
UPDATE agg_parted SET k = 5 WHERE part = 2;
SELECT error($$SELECT jl_project_agg(attr, val, k, 'pinned') FROM agg_parted$$);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT jl_project_agg(attr, val, k, 'pinned') FROM agg_parted;
SELECT error($$SELECT jl_project_agg(attr, val, k, 'pinned') FROM agg_parted$$);
RESET enable_partitionwise_aggregate;
DROP TABLE agg_parted;

-- parallel plans: partial states are serialized in the workers, combined
-- and finished in the leader, with the same result as a serial plan
CREATE TABLE agg_par AS
  SELECT r AS row_id, a AS attr, ((r * 13 + a * 7) % 19 - 9) / 8.0 AS val
  FROM generate_series(1, 4000) r, generate_series(1, 10) a;
CREATE TABLE agg_wide AS SELECT a AS attr, ((a * 13) % 19 - 9) / 8.0 AS val FROM generate_series(1, 40000) a;
ANALYZE agg_par;
ANALYZE agg_wide;
EXPLAIN (COSTS OFF) SELECT jl_project_agg(attr, val, 6, 'pinned') FROM agg_wide;
CREATE TEMP TABLE agg_parallel AS SELECT jl_project_agg(attr, val, 6, 'pinned') AS y FROM agg_wide;
EXPLAIN (COSTS OFF) SELECT row_id % 4 AS g, jl_project_agg(attr, val, 6, 'pinned') FROM agg_par GROUP BY row_id % 4;
CREATE TEMP TABLE agg_parallel_groups AS
  SELECT row_id % 4 AS g, jl_project_agg(attr, val, 6, 'pinned') AS y FROM agg_par GROUP BY row_id % 4;
SET max_parallel_workers_per_gather = 0;
SELECT y = (SELECT jl_project_agg(attr, val, 6, 'pinned') FROM agg_wide) AS parallel_equals_serial
  FROM agg_parallel;
-- the same groups; a group's duplicates are summed in another order
SELECT count(*) AS groups,
       bool_and((SELECT bool_and(abs(a - b) <= 1e-12 * (1 + abs(b))) FROM unnest(p.y, s.y) u(a, b))) AS parallel_equals_serial
  FROM agg_parallel_groups p
  JOIN (SELECT row_id % 4 AS g, jl_project_agg(attr, val, 6, 'pinned') AS y FROM agg_par GROUP BY row_id % 4) s USING (g);
SET max_parallel_workers_per_gather = 2;

-- the release and its budget
SELECT jl_dataset_declare('agg_data', 10);
CREATE TEMP TABLE agg_out (row_id int, z float8[]);
-- without a reservation: refused before anything is written
SELECT error($$INSERT INTO agg_out
  SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 1.0, 'agg_data', 'element', 1, 'exact', NULL, 'pinned')
  FROM agg_facts GROUP BY row_id$$);
SELECT count(*) AS rows_written FROM agg_out;
-- a reservation too small for the release (charged all the same: a
-- reservation is committed on its own, and ROLLBACK leaves it)
BEGIN;
SELECT jl_budget_reserve('agg_data', 0.5) > 0 AS reserved;
SELECT error($$INSERT INTO agg_out
  SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 1.0, 'agg_data', 'element', 1, 'exact', NULL, 'pinned')
  FROM agg_facts GROUP BY row_id$$);
ROLLBACK;
SELECT count(*) AS rows_written FROM agg_out;
-- past the cap, no reservation is made at all
SELECT error($$SELECT jl_budget_reserve('agg_data', 10.5)$$);
-- one reservation covers every group of one release
BEGIN;
SELECT jl_budget_reserve('agg_data', 1.0) > 0 AS reserved;
INSERT INTO agg_out
  SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 1.0, 'agg_data', 'element', 1, 'exact', NULL, 'pinned')
  FROM agg_facts GROUP BY row_id;
-- and only one
SELECT error($$SELECT count(z) FROM (SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 1.0, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') AS z
  FROM agg_facts GROUP BY row_id) s$$);
COMMIT;
SELECT epsilon_spent, epsilon_remaining FROM jl_budgets WHERE name = 'agg_data';
SELECT event, epsilon FROM jl_ledger WHERE dataset = 'agg_data' ORDER BY id;
-- length k, fresh noise per group, on the grid jl_release_info(d, ...) reports
SELECT count(*) AS groups, count(DISTINCT z) AS distinct_releases,
       bool_and(array_length(z, 1) = 8) AS length_k
  FROM agg_out;
SELECT bool_and(v / g = round(v / g)) AS all_on_grid
  FROM agg_out, unnest(z) v,
       (SELECT (jl_release_info(30, 8, 1.0, key => 'pinned')->>'grid')::float8 AS g) gg;
-- noise was added: no release equals its noise-free projection
SELECT bool_and(o.z <> s.y) AS noisy
  FROM agg_out o
  JOIN (SELECT row_id, jl_project_agg(attr, val, 8, 'pinned') AS y FROM agg_facts GROUP BY row_id) s USING (row_id);

-- no data-dependent refusal (it would tell neighbours apart): huge values
-- are clamped, rows past the floating-point allowance projected with
-- compensated sums, projections saturated, as by jl_private_release
BEGIN;
SELECT jl_budget_reserve('agg_data', 0.1) > 0 AS reserved;
SELECT grp, array_length(z, 1) AS k,
       (SELECT bool_and(v / g = round(v / g)) FROM unnest(z) v) AS on_grid
  FROM (SELECT grp, jl_private_release_agg(a, v, 30, 8, 0.1, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') AS z
        FROM (VALUES (1, 1, 1e300::float8), (1, 2, -1e300), (2, 1, 1e12), (2, 30, 3.5),
                     (3, 5, 1.7e308), (3, 5, 1.7e308)) t(grp, a, v)
        GROUP BY grp) s,
       (SELECT (jl_release_info(30, 8, 0.1, key => 'pinned')->>'grid')::float8 AS g) gg
  ORDER BY grp;
ROLLBACK;

-- large d: the statistics of P are streamed (d k doubles would be 19 MB
-- here), and the grid is the dense path's; row neighbours from P^T P
BEGIN;
SELECT jl_budget_reserve('agg_data', 0.1) > 0 AS reserved;
SELECT array_length(z, 1) AS k,
       (SELECT bool_and(v / g = round(v / g)) FROM unnest(z) v) AS on_dense_grid
  FROM (SELECT jl_private_release_agg(a, 1.0, 600000, 4, 0.1, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') AS z
        FROM (VALUES (1), (299999), (600000)) t(a)) s,
       (SELECT (jl_release_info(600000, 4, 0.1, key => 'pinned')->>'grid')::float8 AS g) gg;
ROLLBACK;
BEGIN;
SELECT jl_budget_reserve('agg_data', 0.1) > 0 AS reserved;
SELECT array_length(z, 1) AS k,
       (SELECT bool_and(v / g = round(v / g)) FROM unnest(z) v) AS on_dense_grid
  FROM (SELECT jl_private_release_agg(a, 1.0, 600000, 4, 0.1, 'agg_data', 'row', 1, 'exact', NULL, 'pinned') AS z
        FROM (VALUES (1), (600000)) t(a)) s,
       (SELECT (jl_release_info(600000, 4, 0.1, 'row', key => 'pinned')->>'grid')::float8 AS g) gg;
ROLLBACK;
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 100000000, 25, 0.1, 'agg_data', 'row', 1, 'exact', NULL, 'pinned')$$);

-- paper calibration: refused when it does not cover the realized P (before
-- the budget is even looked at), accepted when it does
SELECT error($$SELECT jl_private_release_agg(attr, val, 100, 20, 1.0, 'agg_data', 'row', 1, 'paper', 0.9, 'pinned') FROM agg_facts$$);
BEGIN;
SELECT jl_budget_reserve('agg_data', 0.2) > 0 AS reserved;
SELECT array_length(jl_private_release_agg(attr, val, 100, 20, 0.2, 'agg_data', 'row', 1, 'paper', 1e-5, 'pinned'), 1) AS paper_row_release
  FROM agg_facts;
ROLLBACK;

-- all groups of one release share its parameters (and its one charge)
BEGIN;
SELECT jl_budget_reserve('agg_data', 1.0) > 0 AS reserved;
SELECT error($$SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 1.0, 'agg_data', 'element', row_id, 'exact', NULL, 'pinned')
  FROM agg_facts GROUP BY row_id$$);
ROLLBACK;

-- a rescanned aggregate releases its rows again: each scan needs a reservation
BEGIN;
SELECT jl_budget_reserve('agg_data', 0.1) > 0 AS reserved;
SELECT error($$SELECT (SELECT jl_private_release_agg(attr, val, 30, 8, 0.1, 'agg_data', 'element', 1, 'exact', NULL, 'pinned')
                      FROM agg_facts WHERE row_id = 1 AND o.i > 0)
               FROM generate_series(1, 3) o(i)$$);
ROLLBACK;
BEGIN;
SELECT count(*) AS reserved FROM (SELECT jl_budget_reserve('agg_data', 0.1) FROM generate_series(1, 3)) r;
SELECT count(DISTINCT z) AS three_releases
  FROM (SELECT (SELECT jl_private_release_agg(attr, val, 30, 8, 0.1, 'agg_data', 'element', 1, 'exact', NULL, 'pinned')
                FROM agg_facts WHERE row_id = 1 AND o.i > 0) AS z
        FROM generate_series(1, 3) o(i)) s;
ROLLBACK;
-- the same for a sorted aggregate (which resets its state per group) under a
-- LIMIT that abandons each scan, and for a hashed one whose table is reused
SET enable_hashagg = off;
BEGIN;
SELECT count(*) AS reserved FROM (SELECT jl_budget_reserve('agg_data', 0.1) FROM generate_series(1, 2)) r;
SELECT error($$SELECT (SELECT z FROM (SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 0.1, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') AS z
                                      FROM agg_facts WHERE o.i > 0 GROUP BY row_id) s LIMIT 1)
               FROM generate_series(1, 3) o(i)$$);
ROLLBACK;
BEGIN;
SELECT count(*) AS reserved FROM (SELECT jl_budget_reserve('agg_data', 0.1) FROM generate_series(1, 3)) r;
SELECT count(DISTINCT z) AS three_releases
  FROM (SELECT (SELECT z FROM (SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 0.1, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') AS z
                               FROM agg_facts WHERE o.i > 0 GROUP BY row_id) s LIMIT 1) AS z
        FROM generate_series(1, 3) o(i)) t;
ROLLBACK;
RESET enable_hashagg;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF)
  SELECT o.i, s.z FROM generate_series(1, 3) o(i)
  LEFT JOIN (SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 0.1, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') AS z
             FROM agg_facts GROUP BY row_id) s ON s.row_id = o.i;
BEGIN;
SELECT count(*) AS reserved FROM (SELECT jl_budget_reserve('agg_data', 0.1) FROM generate_series(1, 2)) r;
SELECT error($$SELECT o.i, s.z FROM generate_series(1, 3) o(i)
  LEFT JOIN (SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 0.1, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') AS z
             FROM agg_facts GROUP BY row_id) s ON s.row_id = o.i$$);
ROLLBACK;
BEGIN;
SELECT count(*) AS reserved FROM (SELECT jl_budget_reserve('agg_data', 0.1) FROM generate_series(1, 3)) r;
SELECT count(*) AS rows, count(DISTINCT s.z) AS releases FROM generate_series(1, 3) o(i)
  LEFT JOIN (SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 0.1, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') AS z
             FROM agg_facts GROUP BY row_id) s ON s.row_id = o.i;
ROLLBACK;
-- ... and with the sorted aggregate rescanned
SET enable_hashagg = off;
RESET enable_sort;
EXPLAIN (COSTS OFF)
  SELECT o.i, s.z FROM generate_series(1, 3) o(i)
  LEFT JOIN (SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 0.1, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') AS z
             FROM agg_facts GROUP BY row_id) s ON s.row_id = o.i;
BEGIN;
SELECT count(*) AS reserved FROM (SELECT jl_budget_reserve('agg_data', 0.1) FROM generate_series(1, 2)) r;
SELECT error($$SELECT o.i, s.z FROM generate_series(1, 3) o(i)
  LEFT JOIN (SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 0.1, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') AS z
             FROM agg_facts GROUP BY row_id) s ON s.row_id = o.i$$);
ROLLBACK;
BEGIN;
SELECT count(*) AS reserved FROM (SELECT jl_budget_reserve('agg_data', 0.1) FROM generate_series(1, 3)) r;
SELECT count(*) AS rows, count(DISTINCT s.z) AS releases FROM generate_series(1, 3) o(i)
  LEFT JOIN (SELECT row_id, jl_private_release_agg(attr, val, 30, 8, 0.1, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') AS z
             FROM agg_facts GROUP BY row_id) s ON s.row_id = o.i;
ROLLBACK;
RESET enable_hashagg;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
-- nor grouping sets: every set would release the same rows again
SELECT error($$SELECT row_id % 2, jl_private_release_agg(attr, val, 30, 8, 1.0, 'agg_data', 'element', 1, 'exact', NULL, 'pinned')
  FROM agg_facts GROUP BY ROLLUP(row_id % 2)$$);
-- not a window function: every frame would be a new release
SELECT error($$SELECT jl_private_release_agg(attr, val, 30, 8, 1.0, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') OVER (ORDER BY attr)
  FROM agg_facts$$);
-- jl_project_agg is a fine window function
SELECT count(DISTINCT y) AS running_projections
  FROM (SELECT jl_project_agg(attr, val, 4, 'pinned') OVER (ORDER BY attr) AS y
        FROM agg_facts WHERE row_id = 1) s;

-- the release under a parallel plan: Partial Aggregate in the workers, the
-- noise and the charge in the leader (which runs in parallel mode)
EXPLAIN (COSTS OFF)
  SELECT jl_private_release_agg(attr, val, 40000, 6, 1.0, 'agg_data', 'element', 1, 'exact', NULL, 'pinned')
  FROM agg_wide;
EXPLAIN (COSTS OFF)
  SELECT row_id % 4, jl_private_release_agg(attr, val, 10, 6, 1.0, 'agg_data', 'element', 1, 'exact', NULL, 'pinned')
  FROM agg_par GROUP BY row_id % 4;
BEGIN;
SELECT jl_budget_reserve('agg_data', 0.5) > 0 AS reserved;
SELECT array_length(jl_private_release_agg(attr, val, 40000, 6, 0.5, 'agg_data', 'element', 1, 'exact', NULL, 'pinned'), 1) AS parallel_release
  FROM agg_wide;
SELECT jl_budget_reserve('agg_data', 0.5) > 0 AS reserved;
SELECT count(*) AS groups, count(DISTINCT z) AS distinct_releases
  FROM (SELECT row_id % 4, jl_private_release_agg(attr, val, 10, 6, 0.5, 'agg_data', 'element', 1, 'exact', NULL, 'pinned') AS z
        FROM agg_par GROUP BY row_id % 4) s;
ROLLBACK;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE agg_par;
DROP TABLE agg_wide;

-- declarations: combine, serialization and a read-only final function;
-- the noise-adding final function is VOLATILE
SELECT a.aggfnoid::regprocedure AS aggregate, a.aggtransfn, a.aggfinalfn, a.aggcombinefn,
       a.aggserialfn, a.aggdeserialfn, a.aggfinalmodify, p.proparallel
  FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
  WHERE p.proname LIKE 'jl\_%' ORDER BY p.oid::regprocedure::text;
SELECT p.oid::regprocedure AS function, provolatile, proisstrict, proparallel
  FROM pg_proc p WHERE proname IN ('jl_private_release_agg_final', 'jl_project_agg_final', 'jl_agg_combine',
                                   'jl_agg_serialize', 'jl_agg_deserialize')
  ORDER BY p.oid::regprocedure::text;

-- only granted roles: PUBLIC may not execute them
CREATE ROLE regress_jldp_agg_analyst;
SET ROLE regress_jldp_agg_analyst;
SELECT error($$SELECT jl_project_agg(a, 1.0, 4, 'pinned') FROM generate_series(1, 3) a$$);
SELECT error($$SELECT jl_private_release_agg(a, 1.0, 30, 4, 1.0, 'agg_data') FROM generate_series(1, 3) a$$);
RESET ROLE;
SELECT has_function_privilege('regress_jldp_agg_analyst', 'jl_project_agg(int, float8, int, text)', 'EXECUTE') AS analyst_projects,
       has_function_privilege('regress_jldp_agg_analyst', 'jl_private_release_agg(int, float8, int, int, float8, text, text, float8, text, float8, text)', 'EXECUTE') AS analyst_releases;
DROP ROLE regress_jldp_agg_analyst;
