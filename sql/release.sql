-- Projection and release under the pinned key from keys.sql.

-- exact values of x P for a Gaussian P (rounded to 12 decimals: libm's last
-- bit is not ours; the default kind, Rademacher, in projection_kinds.sql)
SELECT round(v::numeric, 12) AS p_row0 FROM unnest(jl_project('{1,0,0}', jl_sketch(k => 4, kind => 'gaussian'), 'pinned')) v;
SELECT round(v::numeric, 12) AS p_row2 FROM unnest(jl_project('{0,0,1}', jl_sketch(k => 4, kind => 'gaussian'), 'pinned')) v;
SELECT round(v::numeric, 12) AS xp FROM unnest(jl_project('{0.5,-2,3.25}', jl_sketch(k => 4, kind => 'gaussian'), 'pinned')) v;

-- row i of P depends on (key, k, i) only, not on d
SELECT jl_project('{0,1}', jl_sketch(k => 5), 'pinned') = jl_project('{0,1,0,0,0,0,0}', jl_sketch(k => 5), 'pinned') AS row_independent_of_d;
-- ... and not the same for another k or key
SELECT (jl_project('{1}', jl_sketch(k => 5), 'pinned'))[1:4] <> jl_project('{1}', jl_sketch(k => 4), 'pinned') AS k_separates;
SELECT jl_project('{1}', jl_sketch(k => 4), 'pinned') <> jl_project('{1}', jl_sketch(k => 4), 'pinned2') AS key_separates;
-- array lower bounds do not matter
SELECT jl_project('[0:2]={1,2,3}'::float8[], jl_sketch(k => 3), 'pinned') = jl_project('{1,2,3}', jl_sketch(k => 3), 'pinned') AS lbound_ignored;

-- what a release guarantees and uses, for the pinned key and a Gaussian P
SELECT key, CASE WHEN jsonb_typeof(value) = 'number' THEN round(value::text::numeric, 9)::text ELSE value::text END AS value
  FROM jsonb_each(jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4, kind => 'gaussian'), key => 'pinned')) ORDER BY key;
SELECT (i->>'sensitivity_method') AS method, round((i->>'projection_sensitivity')::numeric, 9) AS sens,
       (i->>'epsilon')::float8 AS epsilon, (i->>'delta')::float8 AS delta
  FROM jl_release_info(3, 1.0, 1, 'row', jl_sketch(k => 4, kind => 'gaussian'), key => 'pinned') i;
-- k beyond exact enumeration: the certified spectral bound
SELECT (i->>'sensitivity_method') AS method, (i->>'valid')::bool AS valid
  FROM jl_release_info(30, 1.0, 1, 'row', jl_sketch(k => 30), key => 'pinned') i;

-- the grid: a power of two, the scale a whole number of steps, at least 1024
SELECT (i->>'grid')::float8 = 2 ^ round(log(2, (i->>'grid')::float8::numeric)) AS grid_power_of_two,
       (i->>'scale')::float8 = (i->>'grid')::float8 * (i->>'scale_in_grid_steps')::float8 AS scale_on_grid,
       (i->>'scale_in_grid_steps')::bigint >= 1024 AS fine_grid,
       (i->>'sensitivity')::float8 >= (i->>'projection_sensitivity')::float8 + 1.5 * 20 * (i->>'grid')::float8 AS grid_in_sensitivity,
       (i->>'scale')::float8 * 4.0 >= (i->>'sensitivity')::float8 AS epsilon_holds,
       (i->>'epsilon_effective')::float8 <= 4.0 AS effective_below_requested
  FROM jl_release_info(100, 4.0, 1, 'attribute', jl_sketch(k => 20), key => 'pinned') i;

-- paper calibration, attribute neighbours: c = 2 sqrt(k) B with the probability claim d e^(-k/2)
-- (derived for a Gaussian P, reported only for it)
SELECT round((i->>'paper_c')::numeric, 9) AS c, round((i->>'paper_delta')::numeric, 9) AS paper_delta,
       (i->>'paper_delta_vacuous')::bool AS vacuous, (i->>'valid')::bool AS valid,
       (i->>'epsilon')::float8 AS epsilon, (i->>'delta')::float8 AS delta
  FROM jl_release_info(100, 4.0, 1, 'attribute', jl_sketch(k => 20, kind => 'gaussian', calibration => 'paper'), key => 'pinned') i;
-- d e^(-k/2) >= 1: the paper's guarantee is vacuous, the realized check decides
SELECT (i->>'paper_delta_vacuous')::bool AS vacuous, (i->>'valid')::bool AS valid
  FROM jl_release_info(3, 4.0, 1, 'attribute', jl_sketch(k => 2, kind => 'gaussian', calibration => 'paper'), key => 'pinned') i;
-- row: c = k sqrt(2 B^2 ln(2k/delta)/k), delta required
SELECT round((i->>'paper_c')::numeric, 9) AS c, (i->>'valid')::bool AS valid, (i->>'delta')::float8 AS delta
  FROM jl_release_info(100, 4.0, 1, 'row', jl_sketch(k => 20, delta => 1e-5, calibration => 'paper'), key => 'pinned') i;
-- a paper constant below the realized sensitivity: reported as not valid, with
-- the epsilon that does hold, and refused by the release
SELECT (i->>'valid')::bool AS valid, (i->>'epsilon')::float8 > 4 AS holds_only_larger_epsilon
  FROM jl_release_info(100, 4.0, 1, 'row', jl_sketch(k => 20, delta => 0.9, calibration => 'paper'), key => 'pinned') i;
SELECT error($$SELECT jl_private_release(array_fill(0::float8, ARRAY[100]), 4.0, 1, 'row', jl_sketch(k => 20, delta => 0.9, calibration => 'paper'), key => 'pinned')$$);
SELECT array_length(jl_private_release(array_fill(0::float8, ARRAY[100]), 4.0, 1, 'row', jl_sketch(k => 20, delta => 1e-5, calibration => 'paper'), key => 'pinned'), 1) AS paper_row_release;

-- releases: length k, on the grid, fresh noise every call
CREATE TEMP TABLE rel AS
  SELECT i, jl_private_release('{0.5,-2,3.25}', 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned') AS z
  FROM generate_series(1, 200) i;
-- (two releases of one x coincide by chance only if all four noise draws,
-- thousands of grid steps wide, do: below 1e-15 for any of the 20,000
-- pairs, and 3 duplicates far less; noise drawn once would repeat in
-- every row)
SELECT count(*) FILTER (WHERE array_length(z, 1) = 4) AS length_k,
       count(*) - count(DISTINCT z) < 3 AS fresh_noise
  FROM rel;
SELECT bool_and(v / g = round(v / g)) AS all_on_grid
  FROM rel, unnest(z) v, (SELECT (jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')->>'grid')::float8 AS g) gg;
-- the same options by name and by position
SELECT array_length(jl_private_release(x => '{1,2,3}', epsilon => 0.5, neighbor => 'row', bound => 2,
       mechanism => jl_sketch(k => 2, calibration => 'exact'), key => 'pinned'), 1) AS named_args,
       array_length(jl_private_release('{1,2,3}', 0.5, 2, 'row', jl_sketch(2, 'rademacher', 'laplace', NULL, 'exact'), 'pinned'), 1) AS positional_args;

-- bad input: each class has its own SQLSTATE, no crash
SELECT error($$SELECT jl_private_release(NULL, 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,NULL}', 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{}', 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{{1,2},{3,4}}', 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,NaN}', 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,Infinity}', 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{-Infinity}', 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 0), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 10001), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => NULL), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', -1, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 'NaN', 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 'Infinity', 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', NULL, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1e-12, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'column', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, NULL, jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', NULL, key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, calibration => 'tight'), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 0, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, -1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 'NaN', 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
-- delta's range is checked with the noise it goes with (Gaussian); Laplace
-- noise refuses a delta outside paper calibration
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 0), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 1), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, noise => 'gaussian', delta => 'NaN'), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4, delta => 1e-5), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'row', jl_sketch(k => 4, calibration => 'paper'), key => 'pinned')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'no such key')$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 4), key => NULL)$$);
-- huge values are clamped and projections saturated, never refused (a refusal
-- that depends on the data would tell neighbouring rows apart)
SELECT array_length(jl_private_release('{1e300,1}', 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned'), 1) AS huge_released,
       array_length(jl_private_release('{478037331760}', 1.0, 1, 'attribute', jl_sketch(k => 1)), 1) AS a,
       array_length(jl_private_release('{478037331761}', 1.0, 1, 'attribute', jl_sketch(k => 1)), 1) AS neighbour;
SELECT error($$SELECT jl_release_info(0, 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_release_info(NULL, 1.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')$$);
SELECT error($$SELECT jl_release_info(200000000, 1.0, 1, 'attribute', jl_sketch(k => 10000), key => 'pinned')$$);
SELECT error($$SELECT jl_release_info(1000, 1.0, 1, 'row', jl_sketch(k => 3000), key => 'pinned')$$);
SELECT error($$SELECT jl_project('{1,2}', jl_sketch(k => 0), 'pinned')$$);
SELECT error($$SELECT jl_project('{1,NaN}', jl_sketch(k => 2), 'pinned')$$);
SELECT jl_project(NULL, jl_sketch(k => 2), 'pinned') IS NULL AS project_strict;

-- a statement that fails on one row writes nothing
CREATE TEMP TABLE src (id int, x float8[]);
INSERT INTO src VALUES (1, '{1,2,3}'), (2, '{4,5,6}'), (3, '{7,NaN,9}');
CREATE TEMP TABLE out (id int, z float8[]);
SELECT error($$INSERT INTO out SELECT id, jl_private_release(x, 1.0, 1, 'attribute', jl_sketch(k => 2), key => 'pinned') FROM src$$);
SELECT count(*) AS rows_written FROM out;

-- options held in PL/pgSQL variables change between calls of one expression
DO $$
DECLARE
  kk int;
  e float8;
  r float8[];
  big float8 := 0;
BEGIN
  FOREACH kk IN ARRAY ARRAY[2, 3, 5] LOOP
    r := jl_private_release('{0,0,0}', 1.0, 1, 'attribute', jl_sketch(k => kk), key => 'pinned');
    IF array_length(r, 1) <> kk THEN
      RAISE EXCEPTION 'k = % gave % coordinates', kk, array_length(r, 1);
    END IF;
  END LOOP;
  FOREACH e IN ARRAY ARRAY[1e6, 0.01, 0.01, 0.01] LOOP
    r := jl_private_release('{0,0,0}', e, 1, 'attribute', jl_sketch(k => 2), key => 'pinned');
    IF e = 1e6 AND (abs(r[1]) > 1e-3 OR abs(r[2]) > 1e-3) THEN
      RAISE EXCEPTION 'epsilon 1e6 gave noise %', r;
    END IF;
    IF e = 0.01 THEN
      big := greatest(big, abs(r[1]), abs(r[2]));
    END IF;
  END LOOP;
  -- scale about 140 at epsilon 0.01: all six |noise| < 1 has probability ~1e-13
  IF big < 1 THEN
    RAISE EXCEPTION 'epsilon 0.01 after 1e6 gave noise below 1: options were reused';
  END IF;
  RAISE NOTICE 'k and epsilon follow the variables';
END $$;

-- volatility, strictness and parallel safety as declared
SELECT proname, provolatile, proisstrict, proparallel, prosecdef
  FROM pg_proc WHERE proname LIKE 'jl\_%' ORDER BY proname, pronargs;

-- parallel query: the release runs in the workers, each with its own noise
CREATE TABLE par AS SELECT i, ARRAY[i, i + 1, i + 2]::float8[] AS x FROM generate_series(1, 5000) i;
ANALYZE par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (VERBOSE, COSTS OFF) SELECT jl_private_release(x, 1.0, 1, 'attribute', jl_sketch(k => 2), key => 'pinned') FROM par;
-- one x released 5000 times across the workers: a random stream shared
-- by forked workers would repeat their noise (thousands of duplicates).
-- By chance a pair coincides when both of its noise draws do, each about
-- 5,800 grid steps wide (probability 4e-5 each): 0.02 duplicates expected
-- among the 12.5 million pairs, and 10 or more below 1e-9
SELECT count(*) AS releases, count(*) - count(DISTINCT z) < 10 AS fresh_noise_in_each_worker
  FROM (SELECT jl_private_release('{1,2,3}', 1.0, 1, 'attribute', jl_sketch(k => 2), key => 'pinned') AS z FROM par) s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE par;
