-- Arguments outside the range a calibration can serve are refused before
-- anything is charged, quickly, with a SQLSTATE and a hint: the ledger does
-- not move.  Each call below hung the server past every timeout, or burnt
-- its charge and then failed, in 0.3.3 (there through jl_release_table,
-- jl_release_covariance and jl_release_graph; here through the protected
-- tables' declarations and the release pipeline: a bound, clamp or clip
-- norm is now an argument of the declaration, refused when declared, an
-- epsilon or an option an argument of jl_release or of its mechanism).
CREATE FUNCTION ar_error(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE TABLE ar_src AS
  SELECT i AS id, (i % 7)::float8 AS a, (i % 5)::float8 AS b, (i % 3)::float8 AS c,
         ARRAY[i % 7, i % 5, i % 3]::float8[] AS x
  FROM generate_series(1, 40) i;
ALTER TABLE ar_src ADD PRIMARY KEY (id);
CREATE TABLE ar_cols AS SELECT id, a, b, c FROM ar_src;
ALTER TABLE ar_cols ADD PRIMARY KEY (id);
CREATE TABLE ar_edges AS SELECT i AS id, i AS u, i + 1 AS v FROM generate_series(1, 19) i;
ALTER TABLE ar_edges ADD PRIMARY KEY (id);
-- the vector x in [0, 7] (d = 3), row neighbours clipped to norm 1; the
-- columns a, b, c (d = 3) for the covariance mechanism, clipped to norm
-- 1e100 (the largest row clip); the path graph on vertices 1..20 (d = 20)
SELECT * FROM jl_protect('ar_src', 'id', ARRAY[jl_vector('x', 3, 0, 7)], row_clip => 1,
                         epsilon_cap => 1e6, delta_cap => 0.5);
SELECT * FROM jl_protect('ar_cols', 'id', ARRAY[jl_numeric('a', 0, 7), jl_numeric('b', 0, 5), jl_numeric('c', 0, 3)],
                         row_clip => 1e100, epsilon_cap => 1e6, delta_cap => 0.5);
SELECT * FROM jl_protect('ar_edges', 'id', ARRAY[jl_edge('u', 'v', 20)], epsilon_cap => 1e6, delta_cap => 0.5);
-- the ledger of the three tables: one declare row each, nothing spent; the
-- declarations as they stand (a refused declaration must leave them)
CREATE VIEW ar_spent AS
  SELECT (SELECT count(*) FROM jl_ledger WHERE dataset IN ('public.ar_src', 'public.ar_cols', 'public.ar_edges')) AS ledger_rows,
         (SELECT sum(epsilon_spent) FROM jl_budgets WHERE name IN ('public.ar_src', 'public.ar_cols', 'public.ar_edges')) AS spent,
         (SELECT string_agg(format('%s: %s %s', relation, row_clip, attributes), '; ' ORDER BY dataset)
            FROM jl_protected WHERE dataset IN ('public.ar_src', 'public.ar_cols', 'public.ar_edges')) AS declared;
SELECT * FROM ar_spent;
SET statement_timeout = '5s';

-- the accountants: epsilon beyond e^epsilon's range ran for minutes, uninterruptible
SELECT ar_error($$SELECT jl_release('ar_cols', 'ar_cov', 1e308, jl_covariance_mechanism(r => 8, delta => 1e-6), key => 'pinned')$$);
SELECT ar_error($$SELECT jl_release('ar_cols', 'ar_cov', 1e200, jl_covariance_mechanism(r => 2, delta => 1e-6), key => 'pinned')$$);
SELECT ar_error($$SELECT jl_release('ar_edges', 'ar_g', 1e308, jl_graph(r => 8, delta => 1e-3), key => 'pinned')$$);
SELECT ar_error($$SELECT jl_release('ar_cols', 'ar_cov', 0, jl_covariance_mechanism(r => 8, delta => 1e-6), key => 'pinned')$$);

-- clip norms and clamps whose calibration is not finite (0.3: charged,
-- then failed): refused when declared.  A row clip of 1e200 (0.3's
-- clip_norm of jl_release_table and of jl_release_covariance alike is
-- the declaration's row_clip), clamps of +-1e308 (0.3's clip_lo and
-- clip_hi are the attribute's lo and hi), given to the constructor and,
-- forged past it, to jl_protect, which checks them again
SELECT ar_error($$SELECT jl_protect('ar_src', 'id', ARRAY[jl_vector('x', 3, 0, 7)], row_clip => 1e200,
                                    epsilon_cap => 1e6, delta_cap => 0.5)$$);
SELECT ar_error($$SELECT jl_protect('ar_cols', 'id', ARRAY[jl_numeric('a', 0, 7), jl_numeric('b', 0, 5), jl_numeric('c', 0, 3)],
                                    row_clip => 1e308, epsilon_cap => 1e6, delta_cap => 0.5)$$);
SELECT ar_error($$SELECT jl_vector('x', 3, -1e308, 1e308)$$);
SELECT ar_error($$SELECT jl_protect('ar_src', 'id', ARRAY[ROW('x', 'vector', -1e308, 1e308, 1, NULL, 3, NULL)::jl_attribute],
                                    row_clip => 1, epsilon_cap => 1e6, delta_cap => 0.5)$$);
-- a clip norm whose square underflows to 0 would skip clipping
SELECT ar_error($$SELECT jl_protect('ar_src', 'id', ARRAY[jl_vector('x', 3, 0, 7)], row_clip => 1e-160,
                                    epsilon_cap => 1e6, delta_cap => 0.5)$$);
SELECT ar_error($$SELECT jl_protect('ar_cols', 'id', ARRAY[jl_numeric('a', 0, 7), jl_numeric('b', 0, 5), jl_numeric('c', 0, 3)],
                                    row_clip => 1e-160, epsilon_cap => 1e6, delta_cap => 0.5)$$);
-- a bound that makes the noise infinite: an epsilon of 1e-200 for encoded
-- rows 2 apart (twice the row clip 1; 0.3: clamps [0, 1] with element
-- neighbours); 0.3's per-release bound of 1e300 is now the encoded
-- width, the attribute's weight (encoded to [0, weight]), refused when
-- declared
SELECT ar_error($$SELECT jl_release('ar_src', 'ar_t', 1e-200, jl_sketch(k => 2), key => 'pinned')$$);
SELECT ar_error($$SELECT jl_vector('x', 3, 0, 7, weight => 1e300)$$);
SELECT ar_error($$SELECT jl_protect('ar_src', 'id', ARRAY[ROW('x', 'vector', 0, 7, 1e300, NULL, 3, NULL)::jl_attribute],
                                    row_clip => 1, epsilon_cap => 1e6, delta_cap => 0.5)$$);
-- options the calibration refuses whatever the data: refused when the
-- mechanism is built, and again by jl_release for one forged past its
-- constructor, before the charge
SELECT ar_error($$SELECT jl_sketch(k => 2, noise => 'gaussian', calibration => 'classic', delta => 0.7)$$);
SELECT ar_error($$SELECT jl_release('ar_src', 'ar_t', 1.0, ROW('sketch', 2, 'rademacher', 'gaussian', 0.7, 'classic', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism,
                                    key => 'pinned')$$);
-- (calibration 'paper', Dhaliwal et al.'s constants, is jl_private_release's
-- only: jl_sketch builds it, jl_release refuses it before the charge; a word
-- that is no jl_calibration is the enum's 22P02)
SELECT ar_error($$SELECT jl_release('ar_src', 'ar_t', 1.0, jl_sketch(k => 2, noise => 'gaussian', calibration => 'paper', delta => 1e-6),
                                    key => 'pinned')$$);
SELECT ar_error($$SELECT jl_release('ar_src', 'ar_t', 1.0, jl_sketch(k => 2, calibration => 'paper'), key => 'pinned')$$);
SELECT ar_error($$SELECT jl_sketch(k => 2, noise => 'gaussian', calibration => 'papers', delta => 1e-6)$$);
-- an epsilon whose noise scale exceeds the sampler's range
SELECT ar_error($$SELECT jl_release('ar_src', 'ar_t', 1e-10, jl_sketch(k => 2), key => 'pinned')$$);
SELECT ar_error($$SELECT jl_release('ar_src', 'ar_t', 1e-6, jl_sketch(k => 2, noise => 'gaussian', delta => 1e-9), key => 'pinned')$$);
-- nothing was charged, no declaration changed, no target exists
SELECT * FROM ar_spent;
SELECT count(*) AS targets FROM pg_class WHERE relname IN ('ar_cov', 'ar_g', 'ar_t');

-- the edges of the range still declare and release: epsilon 700 for both
-- accountants (the covariance one with the row clip 1e100), a row clip of
-- 1e-100 (declared again: one more declare row, the ledger kept)
SELECT released AS cov_at_700
  FROM jl_release('ar_cols', 'ar_cov', 700, jl_covariance_mechanism(r => 2, delta => 1e-6), key => 'pinned');
SELECT released AS graph_at_700
  FROM jl_release('ar_edges', 'ar_g', 700, jl_graph(r => 8, delta => 1e-3), key => 'pinned');
SELECT d FROM jl_protect('ar_src', 'id', ARRAY[jl_vector('x', 3, 0, 7)], row_clip => 1e-100,
                         epsilon_cap => 1e6, delta_cap => 0.5);
SELECT released AS table_at_1e_100
  FROM jl_release('ar_src', 'ar_t', 1.0, jl_sketch(k => 2), key => 'pinned');
-- 3 + 1 declare rows and 3 charges; 700 + 700 + 1 spent
SELECT ledger_rows, spent FROM ar_spent;
RESET statement_timeout;
-- what the other tests need not see
DROP VIEW ar_spent;
