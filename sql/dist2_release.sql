-- jl_release_dist2(protected, epsilon): the mean squared distance between
-- two encoded rows of a protected table, released through the pipeline.
-- Its grid and bounds come from the declaration: attribute neighbours clip
-- each encoded coordinate to [0, the largest weight], row neighbours scale
-- each encoded row to L2 norm at most the row clip; the grid step g is
-- 1/1024 of that range.  N, the sum over pairs of squared grid distances,
-- is an exact integer; shifted down by s bits it gets discrete Laplace
-- noise of integer scale t (math/estimate/pair_distance.h).
-- How each value is known:
--  * the stated stddev, s, the sensitivity and t: computed independently
--    with mpmath from pair_distance.h's plan (s the least shift with
--    ((n - 1) T) >> s <= 2^20, sensitivity (that >> s) + 1, t the least
--    integer with sensitivity / t <= epsilon, Var = 2 p / (1 - p)^2 with
--    p = exp(-1 / t), stddev = sqrt(Var) 2^s g^2 / (n (n - 1) / 2)), and
--    recomputed here in SQL from the same formula;
--  * the estimate: against the clipped rows' true mean computed here in
--    SQL, within 12 standard deviations of its noise (discrete Laplace,
--    P(|Z| > 12 sd) about exp(-12 sqrt 2) = 4e-8 each) plus 1e-5 for the
--    grid's rounding (half a step per coordinate: its bias is below 1e-6);
--  * with t = 1 (a huge epsilon on four rows), the released integer itself:
--    N computed by hand on the grid, the noise an integer of magnitude
--    at most 20 (false failure below 1e-9).
CREATE TABLE d2_src AS
  SELECT i AS pid, ARRAY[0.5 + 0.5 * sin(i), 0.5 + 0.5 * cos(i), 2.0 * sin(3 * i)]::float8[] AS x,
         sin(i) AS a, cos(i) AS b, (ARRAY['p', 'q', 'r'])[1 + i % 3] AS seg
  FROM generate_series(1, 2000) i;
ALTER TABLE d2_src ADD PRIMARY KEY (pid);
-- the true mean squared distance of the rows a query gives (one float8[]
-- a row): 2 (n sum |y|^2 - sum_j (sum y_j)^2) / (n (n - 1)), in numeric
CREATE FUNCTION d2_truth(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE r float8;
BEGIN
  EXECUTE format($f$
    WITH c AS (SELECT row_number() OVER () AS i, y FROM (%s) t(y)),
         e AS (SELECT i, o, v::numeric AS v FROM c, unnest(y) WITH ORDINALITY u(v, o)),
         m AS (SELECT (SELECT count(*) FROM c) AS n, (SELECT sum(v * v) FROM e) AS q,
                      (SELECT sum(s * s) FROM (SELECT sum(v) AS s FROM e GROUP BY o) z) AS col)
    SELECT (2 * (n * q - col) / (n * (n - 1)))::float8 FROM m $f$, q) INTO r;
  RETURN r;
END $$;
-- the stated stddev from (n, s, t, g), as in the header
CREATE FUNCTION d2_sd(n bigint, s int, t bigint, g float8) RETURNS float8 LANGUAGE sql AS $$
  SELECT sqrt(2 * exp(-1.0 / t) / (1 - exp(-1.0 / t))^2) * 2^s * g * g / (n * (n - 1) / 2.0) $$;

-- attribute neighbours: one float8[] column, declared as a vector in
-- [0, 1] (weight 1: the encoding is the value, clamped)
SELECT d FROM jl_protect('d2_src', 'pid', ARRAY[jl_vector('x', 3, 0, 1)],
                         neighbor => 'attribute', epsilon_cap => 100);
-- n = 2000, T = Q^2: (1999 Q^2) >> 11 = 1023488 (>> 10 exceeds 2^20), so
-- s = 11, sensitivity 1023489 and at epsilon 0.5 t = 2046978: the epsilon
-- that holds is 1023489 / 2046978 = 0.5 exactly
SELECT abs(dist2 - d2_truth('SELECT ARRAY(SELECT least(greatest(v, 0), 1) FROM unnest(x) v) FROM d2_src'))
         <= 12 * stddev + 1e-5 AS within_12_sd,
       abs(stddev / d2_sd(2000, 11, 2046978, 1.0 / 1024) - 1) < 1e-9 AS stddev_as_computed,
       n, epsilon_holding, delta, neighbor
  FROM jl_release_dist2('d2_src', 0.5);
-- the stated stddev (mpmath: 0.0028284298882637848)
SELECT round(stddev::numeric, 8) AS stddev, guarantee
  FROM jl_release_dist2('d2_src', 0.5);
-- the released statistic is M = floor(N / 2^s) + Z, Z an integer: the
-- estimate (M 2^s + (2^s - 1) / 2) g^2 / (n (n - 1) / 2) gives back M, an
-- integer, and Z = M - floor(N / 2^s) from N computed here exactly on the
-- grid (q = x clamped times 1024, rounded half away from zero as llround
-- does); |Z| <= 20 t has probability 1 - 2e-9
CREATE TEMP TABLE d2_grid AS
  WITH q AS (SELECT pid, o, floor(least(greatest(v, 0), 1) * 1024 + 0.5)::numeric AS q
               FROM d2_src, unnest(x) WITH ORDINALITY u(v, o))
  SELECT 2000 * (SELECT sum(q * q) FROM q) - (SELECT sum(s * s) FROM (SELECT sum(q) AS s FROM q GROUP BY o) z) AS big_n;
SELECT abs(m - round(m)) < 1e-3 AS an_integer,
       abs(round(m) - floor(big_n / 2048)) <= 20 * 2046978 AS noise_within_20_t
  FROM (SELECT ((dist2 * (2000 * 1999 / 2.0) * 1024 * 1024 - 2047 / 2.0) / 2048)::numeric AS m
          FROM jl_release_dist2('d2_src', 0.5)) r, d2_grid;

-- row neighbours, norm clipping: the same rows as a table of its own (its
-- own ledger: a row declaration may not follow attribute spending), x in
-- [-2, 2] with weight 4 (the encoding x + 2 keeps distances), each
-- encoded row scaled to norm at most 1.  R = 1024 + ceil(sqrt(3) / 2) + 1
-- = 1026, T = (2R)^2 = 4210704; (1999 T) >> 13 = 1027489, s = 13,
-- sensitivity 1027490, at epsilon 1 t = 1027490 (mpmath: stddev
-- 0.0056789734445452182)
CREATE TABLE d2_rows AS SELECT pid, x FROM d2_src;
ALTER TABLE d2_rows ADD PRIMARY KEY (pid);
SELECT d FROM jl_protect('d2_rows', 'pid', ARRAY[jl_vector('x', 3, -2, 2, weight => 4)],
                         neighbor => 'row', row_clip => 1, epsilon_cap => 100);
SELECT abs(dist2 - d2_truth($$SELECT ARRAY(SELECT v / greatest(1, sqrt((SELECT sum(w * w) FROM unnest(y) w))) FROM unnest(y) v)
                              FROM (SELECT ARRAY(SELECT least(greatest(v, -2), 2) + 2 FROM unnest(x) v) AS y FROM d2_rows) t$$))
         <= 12 * stddev + 1e-5 AS within_12_sd,
       abs(stddev / d2_sd(2000, 13, 1027490, 1.0 / 1024) - 1) < 1e-9 AS stddev_as_computed,
       round(stddev::numeric, 8) AS stddev, n, epsilon_holding, neighbor
  FROM jl_release_dist2('d2_rows', 1.0);

-- numeric columns and a category, each of weight 2: the encoded row is
-- (a + 1, b + 1, 2 one-hot(seg)), element clipping to [0, 2], g = 2/1024;
-- a category moves two coordinates, T = 2 Q^2: (1999 T) >> 12 = 1023488,
-- s = 12, sensitivity 1023489, at epsilon 1 t = 1023489 (mpmath: stddev
-- 0.011313719553054802, four times the vector's at epsilon 0.5: g^2 four
-- times, 2^s twice, t half)
CREATE TABLE d2_ab AS SELECT pid, a, b, seg FROM d2_src;
ALTER TABLE d2_ab ADD PRIMARY KEY (pid);
SELECT d FROM jl_protect('d2_ab', 'pid', ARRAY[jl_numeric('a', -1, 1, weight => 2), jl_numeric('b', -1, 1, weight => 2),
                                               jl_category('seg', '{p,q,r}', weight => 2)],
                         neighbor => 'attribute', epsilon_cap => 100);
SELECT abs(dist2 - d2_truth($$SELECT ARRAY[a + 1, b + 1, 2 * (seg = 'p')::int, 2 * (seg = 'q')::int, 2 * (seg = 'r')::int]::float8[]
                              FROM d2_ab$$)) <= 12 * stddev + 1e-5 AS within_12_sd,
       abs(stddev / d2_sd(2000, 12, 1023489, 2.0 / 1024) - 1) < 1e-9 AS stddev_as_computed,
       round(stddev::numeric, 8) AS stddev, n, epsilon_holding, neighbor
  FROM jl_release_dist2('d2_ab', 1.0);

-- each call charged its epsilon (delta 0) to the protected table's dataset
-- before reading, each charge marked as returned: 0.5 three times here
SELECT dataset, epsilon_spent, delta_spent FROM jl_protected WHERE relation = 'd2_src'::regclass;
SELECT event, epsilon, delta, what, released FROM jl_ledger WHERE dataset = 'public.d2_src' ORDER BY id;

-- a cap is a boundary: the curator lowers it to 2 (a declaration again,
-- the same ledger); 1.5 spent, 1 more refused before anything is read
SELECT d FROM jl_protect('d2_src', 'pid', ARRAY[jl_vector('x', 3, 0, 1)],
                         neighbor => 'attribute', epsilon_cap => 2);
SELECT n FROM jl_release_dist2('d2_src', 1.0);
SELECT epsilon_spent, epsilon_remaining FROM jl_protected WHERE relation = 'd2_src'::regclass;

-- fewer than two rows: no pair, no estimate; the charge stands
CREATE TABLE d2_one (id int PRIMARY KEY, x float8[]);
SELECT d FROM jl_protect('d2_one', 'id', ARRAY[jl_vector('x', 2, 0, 1)],
                         neighbor => 'attribute', epsilon_cap => 2000000);
SELECT dist2, stddev, n FROM jl_release_dist2('d2_one', 0.1);
INSERT INTO d2_one VALUES (1, '{0.5, 2}');
SELECT dist2, stddev, n FROM jl_release_dist2('d2_one', 0.1);
SELECT epsilon_spent FROM jl_protected WHERE relation = 'd2_one'::regclass;
-- rows that 0.3 refused after its charge (a NULL vector, another length,
-- an infinite element) are read as the declaration says: NULL as lo, cut
-- or padded to the length, clamped.  The four encoded rows are (0.5, 1),
-- (0, 0), (1, 1), (1, 1): on the grid (512, 1024), (0, 0), (1024, 1024)
-- twice, N = 1310720 + 2 x 262144 + 2 x 2097152 + 0 = 6029312 (the true
-- mean 5.75 / 6 = 0.958333...).  (3 Q^2) >> 2 = 786432: s = 2,
-- sensitivity 786433, and at epsilon 1e6, t = 1: epsilon 786433 holds.
-- M = floor(N / 4) + Z = 1507328 + Z, and the mpmath stddev is
-- 8.6273351e-7
INSERT INTO d2_one VALUES (2, NULL), (3, '{1, 2, 3}'), (4, '{1, Infinity}');
SELECT round(m, 6) = round(m) AS an_integer, abs(round(m) - 1507328) <= 20 AS exact_within_noise,
       round(dist2::numeric, 4) AS dist2, n, epsilon_holding,
       abs(stddev / d2_sd(4, 2, 1, 1.0 / 1024) - 1) < 1e-9 AS stddev_as_computed
  FROM (SELECT *, ((dist2 * 6 * 1024 * 1024 - 1.5) / 4)::numeric AS m FROM jl_release_dist2('d2_one', 1e6)) r;

-- bad arguments: clear errors before the charge
SELECT n AS charges_before FROM (SELECT count(*) AS n FROM jl_ledger WHERE event = 'charge') c \gset
SELECT * FROM jl_release_dist2('d2_src', 0);
SELECT * FROM jl_release_dist2('d2_src', 'NaN');
SELECT * FROM jl_release_dist2('d2_src', 1e-300);
SELECT * FROM jl_release_dist2('d2_src', NULL);
SELECT * FROM jl_release_dist2(NULL, 0.5);
-- the columns are the declaration's, checked when declared
SELECT d FROM jl_protect('d2_src', 'pid', ARRAY[jl_vector('nope', 3, 0, 1)], neighbor => 'attribute', epsilon_cap => 2);
SELECT d FROM jl_protect('d2_src', 'pid', ARRAY[jl_vector('pid', 3, 0, 1)], neighbor => 'attribute', epsilon_cap => 2);
SELECT d FROM jl_protect('d2_src', 'pid', ARRAY[]::jl_attribute[], neighbor => 'attribute', epsilon_cap => 2);
-- an undeclared table is refused, with the call that would declare it
CREATE TABLE d2_plain (id int PRIMARY KEY, x float8[]);
SELECT * FROM jl_release_dist2('d2_plain', 0.1);
SELECT count(*) - :charges_before AS charges FROM jl_ledger WHERE event = 'charge';

-- n is released exactly: only a whole table, where neighbours have the
-- same n, is declared; a partitioned table is declared as a whole (its
-- 100 rows, x (i % 7, i % 3) clamped to [0, 1])
CREATE TABLE d2_parts (pid int PRIMARY KEY, x float8[]) PARTITION BY RANGE (pid);
CREATE TABLE d2_part1 PARTITION OF d2_parts FOR VALUES FROM (0) TO (50);
CREATE TABLE d2_part2 PARTITION OF d2_parts FOR VALUES FROM (50) TO (100);
INSERT INTO d2_parts SELECT i, ARRAY[i % 7, i % 3]::float8[] FROM generate_series(0, 99) i;
SELECT d FROM jl_protect('d2_parts', 'pid', ARRAY[jl_vector('x', 2, 0, 1)], neighbor => 'attribute', epsilon_cap => 1);
SELECT n, neighbor FROM jl_release_dist2('d2_parts', 0.1);
DROP TABLE d2_parts;
-- with the unit column unique, each row is one unit: 40 rows, 0.1 charged
CREATE TABLE d2_units (patient int PRIMARY KEY, x float8[]);
INSERT INTO d2_units SELECT i, ARRAY[i % 3, i % 5]::float8[] FROM generate_series(1, 40) i;
SELECT d FROM jl_protect('d2_units', 'patient', ARRAY[jl_vector('x', 2, 0, 1)], neighbor => 'attribute', epsilon_cap => 10);
SELECT n FROM jl_release_dist2('d2_units', 0.1);
SELECT epsilon_spent FROM jl_protected WHERE relation = 'd2_units'::regclass;
DROP TABLE d2_units;
-- not for PUBLIC nor for an analyst: a curator's, on a budget it may spend
CREATE ROLE regress_d2_analyst;
GRANT SELECT ON d2_src TO regress_d2_analyst;
SET ROLE regress_d2_analyst;
SELECT * FROM jl_release_dist2('d2_src', 0.1);
RESET ROLE;
GRANT jldp_analyst TO regress_d2_analyst;
SET ROLE regress_d2_analyst;
SELECT * FROM jl_release_dist2('d2_src', 0.1);
RESET ROLE;
CREATE ROLE regress_d2_curator;
GRANT jldp_curator TO regress_d2_curator;
GRANT SELECT ON d2_src TO regress_d2_curator;
SET ROLE regress_d2_curator;
SELECT * FROM jl_release_dist2('d2_src', 0.1);
RESET ROLE;
SELECT jl_protect_grant('d2_src', 'regress_d2_curator');
SET ROLE regress_d2_curator;
SELECT n FROM jl_release_dist2('d2_src', 0.1);
RESET ROLE;
SELECT jl_protect_revoke('d2_src', 'regress_d2_curator');
DROP TABLE d2_src, d2_rows, d2_ab, d2_one, d2_plain;
DROP FUNCTION d2_truth(text);
DROP FUNCTION d2_sd(bigint, int, bigint, float8);
DROP ROLE regress_d2_analyst, regress_d2_curator;
