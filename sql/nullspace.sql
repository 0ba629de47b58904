-- Null-space cleaning and linear fits: jl_linear_fit, jl_linear_predict,
-- jl_nullspace_clean (Algorithms 1 and 2).  Deterministic; values rounded
-- where the last bits depend on BLAS.

-- an error's SQLSTATE and message
CREATE FUNCTION ns_try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE FUNCTION ns_round(a float8[], digits int DEFAULT 9) RETURNS numeric[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT array_agg(round(v::numeric, digits) + 0 ORDER BY i) FROM unnest(a) WITH ORDINALITY u(v, i) $$;
CREATE FUNCTION ns_sq(a float8[], b float8[]) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT sum((u - v) * (u - v)) FROM unnest(a, b) AS t(u, v) $$;

-- the paper's toy example: y_d = x1 - x2 is fitted exactly, and cleaning
-- keeps x1 - x2 and removes x1 + x2, (3,1) -> (1,-1)
CREATE TEMP TABLE toy (x float8[], yd float8[], yc float8[]);
INSERT INTO toy VALUES ('{3,1}', '{2}', '{5}'), ('{4,2}', '{2}', '{8}'),
                       ('{5,1}', '{4}', '{7}'), ('{6,5}', '{1}', '{16}');
SELECT ns_round(jl_linear_fit(x, yd)::float8[]) AS coef, array_dims(jl_linear_fit(x, yd)) AS dims,
       ns_round(jl_linear_fit_intercept(x, yd)) AS intercept
FROM toy;
SELECT x, ns_round(jl_nullspace_clean(x, '{{1},{-1}}', 1e-20)) AS cleaned,
       ns_round(jl_nullspace_clean(x, '{{1},{-1}}', 1e-20, method => 'knapsack')) AS knapsack
FROM toy;

-- exact data: y = (2 x1 - x2 + 3, x3); with an intercept, ridge, and none
CREATE TEMP TABLE lin AS
  SELECT ARRAY[sin(i), cos(3 * i), sin(7 * i) + 0.5]::float8[] AS x,
         ARRAY[2 * sin(i) - cos(3 * i) + 3, sin(7 * i) + 0.5]::float8[] AS y
  FROM generate_series(1, 200) i;
SELECT ns_round(jl_linear_fit(x, y)::float8[]) AS coef,
       ns_round(jl_linear_fit_intercept(x, y)) AS intercept,
       array_dims(jl_linear_fit(x, y)) AS dims
FROM lin;
-- ridge shrinks the coefficients, the intercept absorbs the means
SELECT ns_round(jl_linear_fit(x, y, jl_linear_options(10))::float8[], 4) AS ridge_coef,
       ns_round(jl_linear_fit_intercept(x, y, jl_linear_options(10)), 4) AS ridge_intercept FROM lin;
SELECT ns_round(jl_linear_fit(x, y, jl_linear_options(0, false))::float8[], 4) AS origin_coef FROM lin;
-- prediction reproduces y
SELECT max(ns_sq(jl_linear_predict(x, c, b), y)) < 1e-20 AS predicts_exactly
FROM lin, (SELECT jl_linear_fit(x, y) c, jl_linear_fit_intercept(x, y) b FROM lin) m;
-- NULL rows are skipped; no rows give NULL
SELECT jl_linear_fit(x, y) IS NULL AS empty_is_null FROM lin WHERE false;
SELECT ns_round(jl_linear_fit(x, y)::float8[]) = ns_round((SELECT jl_linear_fit(x, y) FROM lin)::float8[]) AS nulls_skipped
FROM (SELECT x, y FROM lin UNION ALL SELECT NULL, '{1,2}' UNION ALL SELECT '{1,2,3}', NULL) t;

-- the guarantee on 2000 vectors, both methods and Algorithm 2, and the
-- budget used: e_utility <= eps, within 1e-5 of it wherever the model sees
-- more than eps of x (||a_desired^T x||^2 > eps)
CREATE TEMP TABLE vec AS
  SELECT i, ARRAY[sin(i), cos(2 * i), sin(3 * i + 1), cos(5 * i), sin(11 * i) * 3, 0.25]::float8[] AS x
  FROM generate_series(1, 2000) i;
CREATE TEMP TABLE model AS SELECT
  '{{1,0.5},{-1,0.2},{0.3,0},{0,0},{0.01,0.001},{2,-1}}'::float8[] AS ad,
  '{{0.2},{1},{1},{0.5},{0},{1}}'::float8[] AS ac;
SELECT method, max(e) <= 0.01 AS guarantee_holds,
       count(*) FILTER (WHERE e > 0.01 * (1 - 1e-5)) = count(*) FILTER (WHERE seen > 0.01) AS budget_used,
       count(*) FILTER (WHERE seen > 0.01) AS seen_above_eps
FROM (SELECT m AS method, ns_sq(jl_linear_predict(x, ad), array_fill(0::float8, ARRAY[2])) AS seen,
             ns_sq(jl_linear_predict(x, ad), jl_linear_predict(
               CASE m WHEN 'confidential' THEN jl_nullspace_clean(x, ad, ac, 0.01)
                      ELSE jl_nullspace_clean(x, ad, 0.01, method => m::jl_nullspace_method) END, ad)) AS e
      FROM vec, model, unnest('{waterfill,knapsack,confidential}'::text[]) m) t
GROUP BY method ORDER BY method;
-- utility_error 0 removes only what a_desired cannot see: a_desired^T x
-- unchanged to rounding
SELECT max(ns_sq(jl_linear_predict(x, ad), jl_linear_predict(jl_nullspace_clean(x, ad, 0), ad))) < 1e-28 AS exact_nullspace
FROM vec, model;
-- ... and removes all of it: the result is the orthogonal projection of x
-- onto the range of a_desired (0.3.3 returned x unchanged); the paper's toy
-- model by hand, (3,1) onto (1,-1)/sqrt 2 is (1,-1), (5,5) onto it is 0
SELECT ns_round(jl_nullspace_clean('{3,1}', '{{1},{-1}}', 0)) AS toy_projected,
       ns_round(jl_nullspace_clean('{5,5}', '{{1},{-1}}', 0)) AS toy_null;
-- here, against the projection computed in SQL: a_desired's two columns
-- orthonormalised by Gram-Schmidt, Q Q^T x
CREATE TEMP TABLE ns_q AS
  WITH a AS (SELECT ARRAY(SELECT ad[i][1] FROM generate_series(1, 6) i) AS c1,
                    ARRAY(SELECT ad[i][2] FROM generate_series(1, 6) i) AS c2 FROM model),
       q1 AS (SELECT c1, c2, sqrt((SELECT sum(v * v) FROM unnest(c1) v)) AS n1 FROM a),
       u AS (SELECT ARRAY(SELECT c1[i] / n1 FROM generate_series(1, 6) i) AS e1, c2 FROM q1),
       w AS (SELECT e1, ARRAY(SELECT c2[i] - (SELECT sum(p * q) FROM unnest(e1, c2) t(p, q)) * e1[i]
                               FROM generate_series(1, 6) i) AS r FROM u)
  SELECT e1, ARRAY(SELECT r[i] / sqrt((SELECT sum(v * v) FROM unnest(r) v)) FROM generate_series(1, 6) i) AS e2
  FROM w;
SELECT max(sqrt(ns_sq(jl_nullspace_clean(x, ad, 0),
                      ARRAY(SELECT (SELECT sum(p * q) FROM unnest(e1, x) t(p, q)) * e1[i]
                                 + (SELECT sum(p * q) FROM unnest(e2, x) t(p, q)) * e2[i]
                            FROM generate_series(1, 6) i)))
           / sqrt(ns_sq(x, array_fill(0::float8, ARRAY[6])))) < 1e-12 AS zero_error_is_the_projection
FROM vec, model, ns_q;
-- a larger budget removes more of x
SELECT avg(ns_sq(x, jl_nullspace_clean(x, ad, 0.001))) < avg(ns_sq(x, jl_nullspace_clean(x, ad, 0.1))) AS monotone
FROM vec, model;

-- parallel plans: the fit's partial states combine, cleaning runs in workers
CREATE TABLE ns_big AS
  SELECT i, ARRAY[sin(i), cos(2 * i), sin(3 * i + 1), cos(5 * i), sin(11 * i) * 3, 0.25]::float8[] AS x,
         ARRAY[sin(i) - cos(2 * i), cos(5 * i)]::float8[] AS y
  FROM generate_series(1, 30000) i;
ANALYZE ns_big;
CREATE TEMP TABLE ns_serial AS
  SELECT jl_linear_fit(x, y) AS c, jl_linear_fit_intercept(x, y) AS b FROM ns_big;
CREATE TEMP TABLE ns_clean_serial AS
  SELECT i, jl_nullspace_clean(x, (SELECT ad FROM model), 0.01) AS xc FROM ns_big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT jl_linear_fit(x, y) FROM ns_big;
SELECT ns_round(jl_linear_fit(x, y)::float8[]) = ns_round((SELECT c FROM ns_serial)::float8[]) AS parallel_fit_equals_serial
FROM ns_big;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ns_big WHERE (jl_nullspace_clean(x, '{{1},{2},{0},{0},{0},{0}}', 0.01))[1] > 0;
SELECT count(*) = 30000 AS parallel_clean_equals_serial
FROM (SELECT i, jl_nullspace_clean(x, '{{1,0.5},{-1,0.2},{0.3,0},{0,0},{0.01,0.001},{2,-1}}', 0.01) AS xc
      FROM ns_big) p JOIN ns_clean_serial s USING (i) WHERE p.xc = s.xc;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE ns_big;

-- one call site per column: the model a constant (compared in full once,
-- then by address), or changing from row to row (compared every row)
SELECT count(*) FILTER (WHERE c = k) AS constant_equals_column,
       count(*) FILTER (WHERE s = CASE WHEN i % 3 = 0 THEN c ELSE c2 END) AS switching_model
FROM (SELECT i, jl_nullspace_clean(x, '{{1,0.5},{-1,0.2},{0.3,0},{0,0},{0.01,0.001},{2,-1}}', 0.01) AS c,
             jl_nullspace_clean(x, ad, 0.01) AS k,
             jl_nullspace_clean(x, '{{1},{2},{0},{0},{0},{0}}', 0.01) AS c2,
             jl_nullspace_clean(x, CASE WHEN i % 3 = 0 THEN ad ELSE '{{1},{2},{0},{0},{0},{0}}' END, 0.01) AS s
      FROM vec, model) t;

-- bad input, each with its SQLSTATE
SELECT q, ns_try(q) AS result FROM unnest(ARRAY[
  $$SELECT jl_nullspace_clean('{1,2,3}', '{{1},{2}}', 0.1)$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{{1},{2}}', -0.1)$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{{1},{2}}', 'NaN')$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{{1},{2}}', 'Infinity')$$,
  $$SELECT jl_nullspace_clean('{1,NaN}', '{{1},{2}}', 0.1)$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{{1},{Infinity}}', 0.1)$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{{0},{0}}', 0.1)$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{1,2}', 0.1)$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{}', 0.1)$$,
  $$SELECT jl_nullspace_clean('{}', '{{1},{2}}', 0.1)$$,
  $$SELECT jl_nullspace_clean('{1,NULL}', '{{1},{2}}', 0.1)$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{{1},{NULL}}', 0.1)$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{{1},{2}}', 0.1, method => 'greedy')$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{{1},{2}}', '{{1},{2},{3}}', 0.1)$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{{1},{2}}', '{{0},{0}}', 0.1)$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{{1},{2}}', '{{1},{2}}', -1)$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{{1.7e308},{1.7e308}}', 0.1)$$,
  $$SELECT jl_nullspace_clean('{1,2}', '{{1e308},{1e308}}', '{{1e308},{1.7e308}}', 0.1)$$,
  $$SELECT jl_linear_fit(x, y) FROM (VALUES ('{1,2}'::float8[], '{1}'::float8[]), ('{1,2,3}', '{1}')) t(x, y)$$,
  $$SELECT jl_linear_fit(x, y) FROM (VALUES ('{1,2}'::float8[], '{1}'::float8[]), ('{1,2}', '{1,2}')) t(x, y)$$,
  $$SELECT jl_linear_fit(x, y, jl_linear_options(-1)) FROM (VALUES ('{1,2}'::float8[], '{1}'::float8[])) t(x, y)$$,
  $$SELECT jl_linear_fit(x, y, jl_linear_options(NULL)) FROM (VALUES ('{1,2}'::float8[], '{1}'::float8[])) t(x, y)$$,
  $$SELECT jl_linear_fit(x, y, jl_linear_options(r)) FROM (VALUES ('{1,2}'::float8[], '{1}'::float8[], 1), ('{1,2}', '{1}', 2)) t(x, y, r)$$,
  $$SELECT jl_linear_fit(x, y) FROM (VALUES ('{1,Infinity}'::float8[], '{1}'::float8[])) t(x, y)$$,
  $$SELECT jl_linear_predict('{1,2}', '{{1},{2},{3}}')$$,
  $$SELECT jl_linear_predict('{1,2}', '{{1},{2}}', '{1,2}')$$
]) q;
-- NULL in, NULL out (STRICT)
SELECT jl_nullspace_clean(NULL, '{{1},{2}}', 0.1) IS NULL AS null_x,
       jl_nullspace_clean('{1,2}', NULL, 0.1) IS NULL AS null_model;
-- Cache eviction (16 models per backend): two call sites of one statement
-- use 40 distinct models each, so every row evicts entries the other call
-- site and earlier rows hold; then each model again alone, in reverse
-- order (rebuilt after its eviction): the same outputs, bit for bit.
CREATE TEMP TABLE ns_evict AS
SELECT i,
       jl_nullspace_clean('{1,2,3,4}', ARRAY[[1, i], [0, 1], [i, 0], [1, 1]]::float8[], 0.5) AS a,
       jl_nullspace_clean('{4,3,2,1}', ARRAY[[i, 1], [1, 0], [0, i], [1, 2]]::float8[],
                          ARRAY[[1], [i], [0], [1]]::float8[], 0.5) AS b
  FROM generate_series(1, 40) i;
SELECT count(*) AS models,
       count(*) FILTER (WHERE a = (SELECT jl_nullspace_clean('{1,2,3,4}', ARRAY[[1, i], [0, 1], [i, 0], [1, 1]]::float8[], 0.5))
                          AND b = (SELECT jl_nullspace_clean('{4,3,2,1}', ARRAY[[i, 1], [1, 0], [0, i], [1, 2]]::float8[],
                                                             ARRAY[[1], [i], [0], [1]]::float8[], 0.5))) AS same_after_eviction,
       count(DISTINCT a) AS distinct_outputs
  FROM (SELECT * FROM ns_evict ORDER BY i DESC) e;
