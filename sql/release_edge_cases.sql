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
    fp := jl_release_info(4, 1.0, 1, 'attribute', jl_sketch(k => 3), key => 'rf_k')->>'key_fingerprint';
    p := jl_project('{1,2,3,4}', jl_sketch(k => 3), 'rf_k');
    z := jl_private_release('{0.25,0.5,0.75,1}', 1e9, 1, 'attribute', jl_sketch(k => 3), key => 'rf_k');
    IF i = 1 THEN
      fp_old := fp;
      p_old := p;
      PERFORM jl_key_drop('rf_k');
      fp_new := jl_key_create('rf_k');
    ELSE
      RAISE NOTICE 'pass %: info uses the new key %, the old one %; projection changed %; release projects with the new key %',
        i, fp = fp_new, fp = fp_old, p <> p_old,
        (SELECT max(abs(a - b)) < 1e-6
           FROM unnest(z, jl_project('{0.25,0.5,0.75,1}', jl_sketch(k => 3), 'rf_k')) u(a, b));
      -- directly, as a superuser may: the key table's trigger tells the caches
      DELETE FROM jldp_internal.jldp_key WHERE name = 'rf_k';
      fp_new := jl_key_create('rf_k');
    END IF;
  END LOOP;
END $$;
-- a dropped key is not used from a cache either
DO $$
DECLARE i int; p float8[];
BEGIN
  FOR i IN 1..2 LOOP
    p := jl_project('{1,2,3,4}', jl_sketch(k => 3), 'rf_k');
    IF i = 1 THEN PERFORM jl_key_drop('rf_k'); END IF;
  END LOOP;
  RAISE NOTICE 'dropped key still used';
EXCEPTION WHEN undefined_object THEN
  RAISE NOTICE 'dropped key refused: %', SQLERRM;
END $$;

-- 2. partitionwise aggregation grouped by the partition key (the planner
-- may aggregate each partition in a node of its own).  0.3 released with the
-- aggregate under a reservation (one reservation for all the partitions'
-- groups, never the same rows twice, a reservation per rescan of the
-- Append); the aggregate's reservations are retired, and the pipeline
-- reads a protected long-format table itself, grouped by its unit: here,
-- with the planner's partitionwise aggregation on (and then sorted
-- aggregation too), each unit must still be one whole group (one sketch
-- per unit, of all its attributes) for one charge per release
CREATE TABLE rf_facts (row_id int, attr int, val float8, PRIMARY KEY (row_id, attr)) PARTITION BY HASH (row_id);
CREATE TABLE rf_facts_0 PARTITION OF rf_facts FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE rf_facts_1 PARTITION OF rf_facts FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE rf_facts_2 PARTITION OF rf_facts FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO rf_facts SELECT r, a, (r * a % 5)::float8 FROM generate_series(1, 30) r, generate_series(1, 4) a;
ANALYZE rf_facts;
-- values in [0, 4] with weight 4: the encoding is the value itself
SELECT d FROM jl_protect('rf_facts', 'row_id', ARRAY[jl_long('attr', 'val', 4, 0, 4, weight => 4)],
                         neighbor => 'attribute', epsilon_cap => 10000);
SET enable_partitionwise_aggregate = on;
SELECT released FROM jl_release('rf_facts', 'rf_parts_k2', 1.0, jl_sketch(k => 2), key => 'pinned');
SELECT count(*) AS groups, count(DISTINCT id) AS units, count(DISTINCT sketch) AS releases FROM rf_parts_k2;
-- sorted aggregates merged in order: the partitions' groups interleave.
-- Without projection at epsilon 5000 each sketch is its unit's 4 values
-- (Laplace scale 4 / 5000 = 0.0008, one attribute moving by at most its
-- weight 4: a coordinate off by 0.05 after rounding has probability
-- exp(-62.5) < 1e-27), compared with the unit's rows read here directly
SET enable_hashagg = off;
SELECT released FROM jl_release('rf_facts', 'rf_parts_id', 5000, jl_sketch(kind => 'identity'), key => 'pinned');
SELECT count(*) AS groups,
       count(*) FILTER (WHERE ARRAY(SELECT round(x::numeric, 1) FROM unnest(s.sketch) x)
                              = ARRAY(SELECT round(f.val::numeric, 1) FROM rf_facts f WHERE f.row_id = s.id ORDER BY f.attr))
         AS whole_units
  FROM rf_parts_id s;
RESET enable_hashagg;
RESET enable_partitionwise_aggregate;
-- one charge per release
SELECT event, epsilon FROM jl_ledger WHERE dataset = 'public.rf_facts' ORDER BY id;

-- 3. a release with d > 262,143 (0.3's jl_release_table: its batch of
-- 512 rows would pass 1 GB); charged once, when it succeeds
CREATE TABLE rf_wide AS
  SELECT i AS id, array_fill(0.5::float8, ARRAY[262145]) AS x FROM generate_series(1, 3) i;
ALTER TABLE rf_wide ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('rf_wide', 'id', ARRAY[jl_vector('x', 262145, 0, 1)], neighbor => 'attribute', epsilon_cap => 10);
SELECT error($$SELECT jl_release('rf_wide', 'rf_wide_private', 1.0, jl_sketch(k => 2), key => 'pinned')$$);
SELECT count(*) AS rows, min(array_length(sketch, 1)) AS k FROM rf_wide_private;
SELECT event, epsilon FROM jldp_internal.jldp_ledger WHERE dataset = 'public.rf_wide' ORDER BY id;

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
SELECT d FROM jl_protect('rf_num', 'id', ARRAY[jl_numeric('a', 0, 40), jl_numeric('b', 0, 40)],
                         neighbor => 'attribute', epsilon_cap => 10);
SET search_path = rf_evil, pg_catalog, public;
SELECT error($$SELECT jldp.jl_release('rf_num', 'public.rf_num_private', 1.0, jldp.jl_sketch(k => 2), key => 'pinned')$$);
RESET search_path;
SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type
  FROM pg_attribute a WHERE a.attrelid = 'rf_num_private'::regclass AND a.attnum > 0 ORDER BY a.attnum;

-- 5. a calibration under which rows within the bound saturate (epsilon so
-- large that 2^49 grid steps are less than such a row's projection): one
-- WARNING per call site, before any output
CREATE TABLE rf_sat_src AS SELECT * FROM rf_num;
ALTER TABLE rf_sat_src ADD PRIMARY KEY (id);
SELECT count(jl_private_release(ARRAY[i, 1, 1, 1]::float8[], 1e15, 1, 'attribute', jl_sketch(k => 2), key => 'pinned')) AS released
  FROM generate_series(1, 3) i;
-- (0.3 also warned from the aggregate under a reservation: retired)
-- through the pipeline: a and b declared in [0, 40], encoded to [0, 1]
-- (weight 1), attribute neighbours.  The numbers, from the DETAIL's grid
-- step g: saturation at 2^49 g = 5.6295e14 x 8.67362e-19 = 0.000488281;
-- a row within the bounds reaches d x max|P| = 2 x 1/sqrt(2) = 1.41421
-- (rademacher P, k = 2); the HINT's epsilon 1e15 x 0.000488281 / 1.41421
-- = 3.45267e+11
SELECT d FROM jl_protect('rf_sat_src', 'id', ARRAY[jl_numeric('a', 0, 40), jl_numeric('b', 0, 40)],
                         neighbor => 'attribute', epsilon_cap => 1e16);
SELECT released FROM jl_release('rf_sat_src', 'rf_num_saturated', 1e15, jl_sketch(k => 2), key => 'pinned');
-- the same rows at their own scale (jl_numeric(.., 0, 40, weight => 40)):
-- the warning takes the reach of a row from the weights (bound 40: a row
-- reaches 2 x 40 / sqrt(2) = 56.5685; 0.4.1 said bound 1 and 1.41421, and
-- its HINT's epsilon, 1.1e13, clamped every projection without a word).
-- From the DETAIL's grid step g: the HINT's epsilon is 1e15 x 2^49 g /
-- 56.5685
CREATE TABLE rf_sat_src40 AS SELECT * FROM rf_num;
ALTER TABLE rf_sat_src40 ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('rf_sat_src40', 'id', ARRAY[jl_numeric('a', 0, 40, 40), jl_numeric('b', 0, 40, 40)],
                         neighbor => 'attribute', epsilon_cap => 1e16);
SELECT released FROM jl_release('rf_sat_src40', 'rf_num_saturated40', 1e15, jl_sketch(k => 2), key => 'pinned');
-- usual epsilon: silent, also for data far beyond the bound (saturated or
-- clamped without a word: a message would depend on the data)
SELECT array_length(jl_private_release(ARRAY[1e300, -1e300, 1, 1], 1.0, 1, 'attribute', jl_sketch(k => 2), key => 'pinned'), 1) AS k;
SELECT array_length(jl_private_release(ARRAY[1e10, 1, 1, 1], 1e9, 1, 'attribute', jl_sketch(k => 2), key => 'pinned'), 1) AS k;

-- 8. user strings echoed in messages are shortened to 64 characters
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 2), key => repeat('k', 100000))$$);
SELECT error($$SELECT jl_key_drop(repeat('k', 100000))$$);
SELECT error($$SELECT jl_reset(repeat('d', 100000))$$);
-- (a column and a unit are named by the declaration now; 0.3's per-release
-- dataset => is gone, a release naming its protected table as a regclass)
SELECT error($$SELECT jl_protect('rf_num', 'id', ARRAY[jl_numeric(repeat('c', 100000), 0, 1)], epsilon_cap => 1)$$);
SELECT error($$SELECT jl_protect('rf_num', repeat('u', 100000), ARRAY[jl_numeric('a', 0, 1)], epsilon_cap => 1)$$);
SELECT error($$SELECT jl_release('rf_num', 'rf_x', 1.0, jl_sketch(k => 2), key => repeat('k', 100000))$$);
-- (an option word is an enum label now: a long one is refused by
-- PostgreSQL's enum input, 22P02, which echoes it in full, not by jldp)
SELECT left(e, 64) AS refusal, length(e) AS message_length
  FROM error($$SELECT jl_private_release('{1,2}', 1.0, 1, repeat('n', 100000)::jl_neighbor, jl_sketch(k => 2))$$) e;
SELECT left(e, 64) AS refusal, length(e) AS message_length
  FROM error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 2, kind => repeat('é', 100000)::jl_kind))$$) e;

-- key owners and releasers are role names (a restore keeps them)
SELECT pg_typeof(owner) AS key_owner_type, owner = current_user AS mine
  FROM jl_keys WHERE name = 'pinned';
SELECT pg_typeof(released_by) AS released_by_type, released_by = current_user AS mine
  FROM jl_releases WHERE target = 'rf_num_private'::regclass;
