-- jl_release_dist2: the mean squared distance between two rows, released.
-- The estimate is checked against the clipped rows' true mean within 12
-- standard deviations of its noise (discrete Laplace: false failure below
-- 1e-7); everything else is deterministic.
CREATE TABLE d2_src AS
  SELECT i AS pid, ARRAY[0.5 + 0.5 * sin(i), 0.5 + 0.5 * cos(i), 2.0 * sin(3 * i)]::float8[] AS x,
         sin(i) AS a, cos(i) AS b
  FROM generate_series(1, 2000) i;
ALTER TABLE d2_src ADD PRIMARY KEY (pid);
-- the truth for the clipped rows (elements clamped to [0, 1], or rows scaled to norm <= 1)
CREATE FUNCTION d2_truth(clip_norm float8) RETURNS float8 LANGUAGE sql AS $$
  WITH c AS (SELECT pid, CASE WHEN clip_norm IS NULL
                          THEN (SELECT array_agg(least(greatest(v, 0), 1) ORDER BY o)
                                FROM unnest(x) WITH ORDINALITY u(v, o))
                          ELSE (SELECT array_agg(v * least(1, clip_norm / sqrt(x[1]^2 + x[2]^2 + x[3]^2)) ORDER BY o)
                                FROM unnest(x) WITH ORDINALITY u(v, o)) END AS y
             FROM d2_src),
       m AS (SELECT count(*) AS n, sum(y[1]) s1, sum(y[2]) s2, sum(y[3]) s3,
                    sum(y[1]^2 + y[2]^2 + y[3]^2) AS q FROM c)
  SELECT (2 * (n * q - s1^2 - s2^2 - s3^2) / (n * (n - 1)))::float8 FROM m $$;

-- element neighbours: one float8[] column
SELECT abs(dist2 - d2_truth(NULL)) <= 12 * stddev AS within_12_sd,
       stddev > 0 AND stddev < 0.01 AS sd_small, n, epsilon_holding <= 0.5 AS eps_holds, delta, neighbor
  FROM jl_release_dist2('d2_src', '{x}', 0.5, clip_lo => 0, clip_hi => 1);
-- the stated stddev: 2^s sqrt(Var(discrete Laplace)) g^2 / (n (n - 1) / 2), public
SELECT round(stddev::numeric, 8) AS stddev
  FROM jl_release_dist2('d2_src', '{x}', 0.5, clip_lo => 0, clip_hi => 1);
-- row neighbours, norm clipping
SELECT abs(dist2 - d2_truth(1)) <= 12 * stddev AS within_12_sd, n, neighbor
  FROM jl_release_dist2('d2_src', '{x}', 1.0, clip_norm => 1);
-- numeric columns as the vector
SELECT n, neighbor FROM jl_release_dist2('d2_src', '{a,b}', 1.0, clip_lo => -1, clip_hi => 1);
-- each call charged its epsilon (delta 0) to the source's dataset before reading
SELECT name, epsilon_spent, delta_spent FROM jl_budgets WHERE name = 'public.d2_src';
SELECT event, epsilon, delta, what FROM jl_ledger WHERE dataset = 'public.d2_src' ORDER BY id;

-- a cap is a boundary: refused before anything is read, nothing charged
SELECT jl_dataset_set_cap('public.d2_src', 3.5);
SELECT n FROM jl_release_dist2('d2_src', '{x}', 1.0, clip_lo => 0, clip_hi => 1);
SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.d2_src';

-- fewer than two rows: no pair, no estimate; the charge stands
CREATE TABLE d2_one (x float8[]);
SELECT dist2, stddev, n FROM jl_release_dist2('d2_one', '{x}', 0.1, 0, 1);
INSERT INTO d2_one VALUES ('{0.5, 2}');
SELECT dist2, stddev, n FROM jl_release_dist2('d2_one', '{x}', 0.1, 0, 1);
SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.d2_one';

-- bad arguments: clear errors before the charge
SELECT * FROM jl_release_dist2('d2_src', '{x}', 0.5);
SELECT * FROM jl_release_dist2('d2_src', '{x}', 0.5, 0, 1, 1);
SELECT * FROM jl_release_dist2('d2_src', '{x}', 0.5, 1, 1);
SELECT * FROM jl_release_dist2('d2_src', '{x}', 0.5, clip_norm => 0);
SELECT * FROM jl_release_dist2('d2_src', '{x}', 0, 0, 1);
SELECT * FROM jl_release_dist2('d2_src', '{x}', 'NaN', 0, 1);
SELECT * FROM jl_release_dist2('d2_src', '{x}', 1e-300, 0, 1);
SELECT * FROM jl_release_dist2('d2_src', '{x}', NULL, 0, 1);
SELECT * FROM jl_release_dist2('d2_src', '{nope}', 0.5, 0, 1);
SELECT * FROM jl_release_dist2('d2_src', '{pid,x}', 0.5, 0, 1);
SELECT * FROM jl_release_dist2('d2_src', '{}', 0.5, 0, 1);
-- bad rows: clear errors; the charge, made before reading, stands
INSERT INTO d2_one VALUES (NULL);
SELECT * FROM jl_release_dist2('d2_one', '{x}', 0.1, 0, 1);
DELETE FROM d2_one WHERE x IS NULL;
INSERT INTO d2_one VALUES ('{1, 2, 3}');
SELECT * FROM jl_release_dist2('d2_one', '{x}', 0.1, 0, 1);
DELETE FROM d2_one WHERE array_length(x, 1) = 3;
INSERT INTO d2_one VALUES ('{1, Infinity}');
SELECT * FROM jl_release_dist2('d2_one', '{x}', 0.1, 0, 1);
SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.d2_one';
-- n is released exactly: only a whole table, where neighbours have the same
-- n, is read; a view (even a simple one), a partition or a table with row
-- level security could count a data-dependent subset: refused before
-- anything is read or charged
CREATE VIEW d2_join AS SELECT a.x FROM d2_src a JOIN d2_src b ON a.pid = b.pid;
SELECT * FROM jl_release_dist2('d2_join', '{x}', 0.1, 0, 1);
CREATE VIEW d2_some AS SELECT x FROM d2_src WHERE x[1] > 0.5;
SELECT * FROM jl_release_dist2('d2_some', '{x}', 0.1, 0, 1);
CREATE TABLE d2_parts (pid int PRIMARY KEY, x float8[]) PARTITION BY RANGE (pid);
CREATE TABLE d2_part1 PARTITION OF d2_parts FOR VALUES FROM (0) TO (50);
CREATE TABLE d2_part2 PARTITION OF d2_parts FOR VALUES FROM (50) TO (100);
INSERT INTO d2_parts SELECT i, ARRAY[i % 7, i % 3]::float8[] FROM generate_series(0, 99) i;
SELECT * FROM jl_release_dist2('d2_part1', '{x}', 0.1, 0, 1);
SELECT n, neighbor FROM jl_release_dist2('d2_parts', '{x}', 0.1, 0, 1);
CREATE TABLE d2_rls (x float8[]);
ALTER TABLE d2_rls ENABLE ROW LEVEL SECURITY;
SELECT * FROM jl_release_dist2('d2_rls', '{x}', 0.1, 0, 1);
SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.d2_src';
SELECT count(*) AS datasets FROM jl_budgets WHERE name LIKE '%d2_part1%' OR name LIKE '%d2_rls%';
-- ranges whose grid step would underflow
SELECT * FROM jl_release_dist2('d2_src', '{x}', 0.1, clip_norm => 1e-190);
SELECT * FROM jl_release_dist2('d2_src', '{x}', 0.1, 0, 1e-101);
DROP TABLE d2_parts, d2_rls;
DROP VIEW d2_some;
-- a dataset whose privacy unit may have several rows: these releases count
-- each row as one unit, so they are refused, before any charge (the
-- covariance release too); with the unit column unique, each row is one unit
CREATE TABLE d2_long (patient int, x float8[]);
INSERT INTO d2_long SELECT i % 10, ARRAY[i % 3, i % 5]::float8[] FROM generate_series(1, 40) i;
SELECT jl_dataset_declare('d2_patients', 10, 1e-5, source => 'd2_long', unit => 'patient');
SELECT n FROM jl_release_dist2('d2_long', '{x}', 0.1, 0, 1);
SELECT jl_release_covariance('d2_long', '{x}', 'd2_cov', 20, 0.5, 1e-6);
SELECT epsilon_spent FROM jl_budgets WHERE name = 'd2_patients';
CREATE TABLE d2_units (patient int PRIMARY KEY, x float8[]);
INSERT INTO d2_units SELECT i, ARRAY[i % 3, i % 5]::float8[] FROM generate_series(1, 40) i;
SELECT jl_dataset_declare('d2_units_ds', 10, 1e-5, source => 'd2_units', unit => 'patient');
SELECT n FROM jl_release_dist2('d2_units', '{x}', 0.1, 0, 1);
SELECT epsilon_spent FROM jl_budgets WHERE name = 'd2_units_ds';
DROP TABLE d2_long, d2_units;
-- not for PUBLIC
CREATE ROLE regress_d2_analyst;
GRANT SELECT ON d2_src TO regress_d2_analyst;
SET ROLE regress_d2_analyst;
SELECT * FROM jl_release_dist2('d2_src', '{x}', 0.1, 0, 1);
RESET ROLE;
DROP VIEW d2_join;
DROP TABLE d2_src, d2_one;
DROP FUNCTION d2_truth(float8);
DROP ROLE regress_d2_analyst;
