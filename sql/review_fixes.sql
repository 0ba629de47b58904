-- Defects found by an adversarial review, each attacked as it was found.

-- 1. A key dropped and created again in one transaction is looked up again
-- by call sites that cached it (a PL/pgSQL loop keeps its expressions, and
-- their per-call caches, for the whole transaction); also when the key
-- table is written directly.
SELECT jl_key_create('rf_k') IS NOT NULL AS created;
DO $$
DECLARE
  fp_old text; fp_new text; fp text;
  p_old float8[]; p float8[]; z float8[];
  i int;
BEGIN
  FOR i IN 1..3 LOOP
    fp := jl_release_info(4, 3, 1.0, key => 'rf_k')->>'key_fingerprint';
    p := jl_project('{1,2,3,4}', 3, 'rf_k');
    z := jl_private_release('{0.25,0.5,0.75,1}', 3, 1e9, key => 'rf_k');
    IF i = 1 THEN
      fp_old := fp;
      p_old := p;
      PERFORM jl_key_drop('rf_k');
      fp_new := jl_key_create('rf_k');
    ELSE
      RAISE NOTICE 'pass %: info uses the new key %, the old one %; projection changed %; release projects with the new key %',
        i, fp = fp_new, fp = fp_old, p <> p_old,
        (SELECT max(abs(a - b)) < 1e-6
           FROM unnest(z, jl_project('{0.25,0.5,0.75,1}', 3, 'rf_k')) u(a, b));
      -- directly, as a superuser may: the key table's trigger tells the caches
      DELETE FROM jldp_key WHERE name = 'rf_k';
      fp_new := jl_key_create('rf_k');
    END IF;
  END LOOP;
END $$;
-- a dropped key is not used from a cache either
DO $$
DECLARE i int; p float8[];
BEGIN
  FOR i IN 1..2 LOOP
    p := jl_project('{1,2,3,4}', 3, 'rf_k');
    IF i = 1 THEN PERFORM jl_key_drop('rf_k'); END IF;
  END LOOP;
  RAISE NOTICE 'dropped key still used';
EXCEPTION WHEN undefined_object THEN
  RAISE NOTICE 'dropped key refused: %', SQLERRM;
END $$;

-- 2. partitionwise aggregation grouped by the partition key: one node per
-- partition, each group in one partition; one reservation covers them all,
-- and never the same rows twice
CREATE TABLE rf_facts (row_id int, attr int, val float8) PARTITION BY HASH (row_id);
CREATE TABLE rf_facts_0 PARTITION OF rf_facts FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE rf_facts_1 PARTITION OF rf_facts FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE rf_facts_2 PARTITION OF rf_facts FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO rf_facts SELECT r, a, (r * a % 5)::float8 FROM generate_series(1, 30) r, generate_series(1, 4) a;
ANALYZE rf_facts;
SELECT jl_dataset_declare('rf_parts', 10.0, source => 'rf_facts') IS NOT NULL AS declared;
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF)
  SELECT row_id, jl_private_release_agg(attr, val, 4, 2, 1.0, 'rf_parts', 'element', 1, 'exact', NULL, 'pinned')
  FROM rf_facts GROUP BY row_id;
BEGIN;
SELECT jl_budget_reserve('rf_parts', 1.0) > 0 AS reserved;
SELECT count(*) AS groups, count(DISTINCT z) AS releases
  FROM (SELECT row_id, jl_private_release_agg(attr, val, 4, 2, 1.0, 'rf_parts', 'element', 1, 'exact', NULL, 'pinned') AS z
        FROM rf_facts GROUP BY row_id) s;
-- the reservation is used up
SELECT error($$SELECT count(z) FROM (SELECT row_id, jl_private_release_agg(attr, val, 4, 2, 1.0, 'rf_parts', 'element', 1, 'exact', NULL, 'pinned') AS z
        FROM rf_facts GROUP BY row_id) s$$);
COMMIT;
SELECT event, epsilon FROM jl_ledger WHERE dataset = 'rf_parts' ORDER BY id;
-- two releases of the same rows in one query need two reservations
BEGIN;
SELECT jl_budget_reserve('rf_parts', 1.0) > 0 AS reserved;
EXPLAIN (COSTS OFF) SELECT count(z) FROM (
  SELECT row_id, jl_private_release_agg(attr, val, 4, 2, 1.0, 'rf_parts', 'element', 1, 'exact', NULL, 'pinned') AS z FROM rf_facts GROUP BY row_id
  UNION ALL
  SELECT row_id, jl_private_release_agg(attr, val, 4, 2, 1.0, 'rf_parts', 'element', 1, 'exact', NULL, 'pinned') FROM rf_facts GROUP BY row_id) s;
SELECT error($$SELECT count(z) FROM (
  SELECT row_id, jl_private_release_agg(attr, val, 4, 2, 1.0, 'rf_parts', 'element', 1, 'exact', NULL, 'pinned') AS z FROM rf_facts GROUP BY row_id
  UNION ALL
  SELECT row_id, jl_private_release_agg(attr, val, 4, 2, 1.0, 'rf_parts', 'element', 1, 'exact', NULL, 'pinned') FROM rf_facts GROUP BY row_id) s$$);
ROLLBACK;
-- a rescanned Append releases its partitions again: a reservation per scan
BEGIN;
SELECT jl_budget_reserve('rf_parts', 1.0) > 0 AS reserved;
SELECT error($$SELECT (SELECT count(z) FROM (SELECT row_id, jl_private_release_agg(attr, val, 4, 2, 1.0, 'rf_parts', 'element', 1, 'exact', NULL, 'pinned') AS z
                                        FROM rf_facts WHERE o.i > 0 GROUP BY row_id) s)
               FROM generate_series(1, 2) o(i)$$);
ROLLBACK;
BEGIN;
SELECT count(*) AS reserved FROM (SELECT jl_budget_reserve('rf_parts', 1.0) FROM generate_series(1, 2)) r;
SELECT (SELECT count(z) FROM (SELECT row_id, jl_private_release_agg(attr, val, 4, 2, 1.0, 'rf_parts', 'element', 1, 'exact', NULL, 'pinned') AS z
                              FROM rf_facts WHERE o.i > 0 GROUP BY row_id) s) AS groups
  FROM generate_series(1, 2) o(i);
ROLLBACK;
-- sorted aggregates merged in order: the partitions' groups interleave
SET enable_hashagg = off;
EXPLAIN (COSTS OFF)
  SELECT row_id, jl_private_release_agg(attr, val, 4, 2, 1.0, 'rf_parts', 'element', 1, 'exact', NULL, 'pinned')
  FROM rf_facts GROUP BY row_id ORDER BY row_id;
BEGIN;
SELECT jl_budget_reserve('rf_parts', 1.0) > 0 AS reserved;
SELECT count(*) AS groups, count(DISTINCT z) AS releases
  FROM (SELECT row_id, jl_private_release_agg(attr, val, 4, 2, 1.0, 'rf_parts', 'element', 1, 'exact', NULL, 'pinned') AS z
        FROM rf_facts GROUP BY row_id ORDER BY row_id) s;
ROLLBACK;
RESET enable_hashagg;
-- grouped by something else than the partition key: partial aggregates per
-- partition, one final step, one reservation as before
BEGIN;
SELECT jl_budget_reserve('rf_parts', 1.0) > 0 AS reserved;
SELECT count(z) AS groups FROM (SELECT row_id % 2, jl_private_release_agg(attr, val, 4, 2, 1.0, 'rf_parts', 'element', 1, 'exact', NULL, 'pinned') AS z
        FROM rf_facts GROUP BY row_id % 2) s;
ROLLBACK;
RESET enable_partitionwise_aggregate;

-- 3. jl_release_table with d > 262,143 (its batch of 512 rows would pass
-- 1 GB); charged once, when it succeeds
CREATE TABLE rf_wide AS
  SELECT i AS id, array_fill(0.5::float8, ARRAY[262145]) AS x FROM generate_series(1, 3) i;
ALTER TABLE rf_wide ADD PRIMARY KEY (id);
SELECT error($$SELECT jl_release_table('rf_wide', 'id', '{x}', 'rf_wide_private', 2, 1.0,
                                       key => 'pinned', clip_lo => 0, clip_hi => 1)$$);
SELECT count(*) AS rows, min(array_length(sketch, 1)) AS k FROM rf_wide_private;
SELECT event, epsilon FROM jldp_ledger WHERE dataset = 'public.rf_wide' ORDER BY id;

-- 6. overflowing variances: the k of a moderate scale, not "no valid k";
-- overflowing distances still order the centroids
SELECT jl_suggest_k(64, 1000, 1.0, 1e200, bound => 1e100, key => 'pinned') =
       jl_suggest_k(64, 1000, 1.0, 1, bound => 1, key => 'pinned') AS k_as_at_scale_1;
-- (the calibrations differ in their last digits: the grid is relative)
SELECT abs((a->>'relative_stddev')::float8 / (b->>'relative_stddev')::float8 - 1) < 1e-3 AS same_relative_stddev,
       abs((a->>'identity_stddev')::float8 / 1e200 / (b->>'identity_stddev')::float8 - 1) < 1e-3 AS same_identity_stddev
  FROM jl_suggest_k_info(64, 1000, 1.0, 1e200, bound => 1e100, key => 'pinned') a,
       jl_suggest_k_info(64, 1000, 1.0, 1, bound => 1, key => 'pinned') b;
SELECT jl_nearest_centroid('{1e200,0}', '{{-1e200,0},{3e200,0},{1.5e200,0}}') AS nearest_of_huge;

-- 7. a type called float8 in the releasing role's search_path changes
-- neither the target's columns nor the vector's casts
CREATE SCHEMA rf_evil;
CREATE DOMAIN rf_evil.float8 AS pg_catalog.float8 CHECK (VALUE < 1e6);
CREATE TABLE rf_num AS SELECT i AS id, i::numeric AS a, (2 * i)::numeric AS b FROM generate_series(1, 20) i;
ALTER TABLE rf_num ADD PRIMARY KEY (id);
SET search_path = rf_evil, pg_catalog, public;
SELECT error($$SELECT jl_release_table('rf_num', 'id', '{a,b}', 'public.rf_num_private', 2, 1.0,
                                       key => 'pinned', clip_lo => 0, clip_hi => 40)$$);
RESET search_path;
SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type
  FROM pg_attribute a WHERE a.attrelid = 'rf_num_private'::regclass AND a.attnum > 0 ORDER BY a.attnum;

-- 5. a calibration under which rows within the bound saturate (epsilon so
-- large that 2^49 grid steps are less than such a row's projection): one
-- WARNING per call site, before any output
CREATE TABLE rf_sat_src AS SELECT * FROM rf_num;
ALTER TABLE rf_sat_src ADD PRIMARY KEY (id);
SELECT jl_dataset_declare('rf_sat', 1e16, source => 'rf_sat_src') IS NOT NULL AS declared;
SELECT count(jl_private_release(ARRAY[i, 1, 1, 1]::float8[], 2, 1e15, key => 'pinned')) AS released
  FROM generate_series(1, 3) i;
BEGIN;
SELECT jl_budget_reserve('rf_sat', 1e15) > 0 AS reserved;
SELECT count(z) AS groups
  FROM (SELECT row_id, jl_private_release_agg(attr, val, 4, 2, 1e15, 'rf_sat', 'element', 1, 'exact', NULL, 'pinned') AS z
        FROM rf_facts GROUP BY row_id) s;
ROLLBACK;
SELECT jl_release_table('rf_sat_src', 'id', '{a,b}', 'rf_num_saturated', 2, 1e15,
                        key => 'pinned', clip_lo => 0, clip_hi => 40, dataset => 'rf_sat') > 0 AS released;
-- usual epsilon: silent, also for data far beyond the bound (saturated or
-- clamped without a word: a message would depend on the data)
SELECT array_length(jl_private_release(ARRAY[1e300, -1e300, 1, 1], 2, 1.0, key => 'pinned'), 1) AS k;
SELECT array_length(jl_private_release(ARRAY[1e10, 1, 1, 1], 2, 1e9, key => 'pinned'), 1) AS k;

-- 8. user strings echoed in messages are shortened to 64 characters
SELECT error($$SELECT jl_private_release('{1,2}', 2, 1.0, key => repeat('k', 100000))$$);
SELECT error($$SELECT jl_key_drop(repeat('k', 100000))$$);
SELECT error($$SELECT jl_private_release('{1,2}', 2, 1.0, neighbor => repeat('n', 100000))$$);
SELECT error($$SELECT jl_private_release('{1,2}', 2, 1.0, kind => repeat('é', 100000))$$);
SELECT error($$SELECT jl_dataset_reset(repeat('d', 100000))$$);
SELECT error($$SELECT jl_release_table('rf_num', 'id', ARRAY[repeat('c', 100000)], 'rf_x', 2, 1.0, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('rf_num', 'id', '{a}', 'rf_x', 2, 1.0, key => 'pinned',
                                       dataset => repeat('d', 100000))$$);

-- key owners and releasers are role names (a restore keeps them)
SELECT pg_typeof(owner) AS key_owner_type, owner = current_user AS mine
  FROM jl_keys WHERE name = 'pinned';
SELECT pg_typeof(released_by) AS released_by_type, released_by = current_user AS mine
  FROM jl_releases WHERE target = 'rf_num_private'::regclass;
