-- Arguments outside the range a calibration can serve are refused before
-- anything is charged, quickly, with a SQLSTATE and a hint: the ledger does
-- not move.  Each call below hung the server past every timeout, or burnt
-- its charge and then failed, in 0.3.3.
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
CREATE TABLE ar_edges AS SELECT i AS u, i + 1 AS v FROM generate_series(1, 19) i;
SELECT jl_dataset_declare('ar', 1e6, 0.5, source => 'ar_src');
SELECT jl_dataset_declare('ar_graph', 1e6, 0.5, source => 'ar_edges');
CREATE VIEW ar_spent AS
  SELECT (SELECT count(*) FROM jl_ledger WHERE dataset IN ('ar', 'ar_graph')) AS ledger_rows,
         (SELECT sum(epsilon_spent) FROM jl_budgets WHERE name IN ('ar', 'ar_graph')) AS spent;
SELECT * FROM ar_spent;
SET statement_timeout = '5s';

-- the accountants: epsilon beyond e^epsilon's range ran for minutes, uninterruptible
SELECT ar_error($$SELECT jl_release_covariance('ar_src', '{a,b,c}', 'ar_cov', 8, 1e308, 1e-6, 1.0)$$);
SELECT ar_error($$SELECT jl_release_covariance('ar_src', '{a,b,c}', 'ar_cov', 2, 1e200, 1e-6, 1.0)$$);
SELECT ar_error($$SELECT jl_release_graph('ar_edges', 'u', 'v', 20, 'ar_g', 8, 1e308, 1e-3)$$);
SELECT ar_error($$SELECT jl_release_covariance('ar_src', '{a,b,c}', 'ar_cov', 8, 0, 1e-6, 1.0)$$);

-- clip norms and clamps whose calibration is not finite: charged, then failed
SELECT ar_error($$SELECT jl_release_table('ar_src', 'id', '{x}', 'ar_t', 2, 1.0, 'row',
                                          key => 'pinned', clip_norm => 1e200)$$);
SELECT ar_error($$SELECT jl_release_table('ar_src', 'id', '{x}', 'ar_t', 2, 1.0,
                                          key => 'pinned', clip_lo => -1e308, clip_hi => 1e308)$$);
SELECT ar_error($$SELECT jl_release_covariance('ar_src', '{a,b,c}', 'ar_cov', 8, 1.0, 1e-6, 1e200)$$);
SELECT ar_error($$SELECT jl_release_covariance('ar_src', '{a,b,c}', 'ar_cov', 8, 1.0, 1e-6, 1e308)$$);
-- a clip norm whose square underflows to 0 would skip clipping
SELECT ar_error($$SELECT jl_release_table('ar_src', 'id', '{x}', 'ar_t', 2, 1.0, 'row',
                                          key => 'pinned', clip_norm => 1e-160)$$);
SELECT ar_error($$SELECT jl_release_covariance('ar_src', '{a,b,c}', 'ar_cov', 8, 1.0, 1e-6, 1e-160)$$);
-- a bound that makes the noise infinite
SELECT ar_error($$SELECT jl_release_table('ar_src', 'id', '{x}', 'ar_t', 2, 1e-200,
                                          key => 'pinned', clip_lo => 0, clip_hi => 1)$$);
SELECT ar_error($$SELECT jl_release_table('ar_src', 'id', '{x}', 'ar_t', 2, 1.0,
                                          key => 'pinned', bound => 1e300)$$);
-- options the calibration refuses whatever the data: refused before the
-- charge, also when d is known only from the rows (one float8[] column)
SELECT ar_error($$SELECT jl_release_table('ar_src', 'id', '{x}', 'ar_t', 2, 1.0, noise => 'gaussian',
                                          calibration => 'classic', delta => 0.7, key => 'pinned')$$);
SELECT ar_error($$SELECT jl_release_table('ar_src', 'id', '{x}', 'ar_t', 2, 1.0, 'row', noise => 'gaussian',
                                          calibration => 'paper', delta => 1e-6, key => 'pinned', clip_norm => 1)$$);
SELECT ar_error($$SELECT jl_release_table('ar_src', 'id', '{x}', 'ar_t', 2, 1.0, 'row',
                                          calibration => 'paper', key => 'pinned', clip_norm => 1)$$);
SELECT ar_error($$SELECT jl_release_table('ar_src', 'id', '{x}', 'ar_t', 2, 1e-10, key => 'pinned')$$);
SELECT ar_error($$SELECT jl_release_table('ar_src', 'id', '{x}', 'ar_t', 2, 1e-6, noise => 'gaussian',
                                          delta => 1e-9, key => 'pinned')$$);
SELECT ar_error($$SELECT jl_release_table('ar_src', 'id', '{a,b}', 'ar_t', 1, 1.0, noise => 'gaussian',
                                          calibration => 'paper', delta => 1e-6, key => 'pinned')$$);
-- nothing was charged, no target exists
SELECT * FROM ar_spent;
SELECT count(*) AS targets FROM pg_class WHERE relname IN ('ar_cov', 'ar_g', 'ar_t');

-- the edges of the range still release
SELECT jl_release_covariance('ar_src', '{a,b,c}', 'ar_cov', 2, 700, 1e-6, 1e100) > 0 AS cov_at_700;
SELECT jl_release_graph('ar_edges', 'u', 'v', 20, 'ar_g', 8, 700, 1e-3) > 0 AS graph_at_700;
SELECT jl_release_table('ar_src', 'id', '{x}', 'ar_t', 2, 1.0, 'row',
                        key => 'pinned', clip_norm => 1e-100) > 0 AS table_at_1e_100;
SELECT ledger_rows, spent FROM ar_spent;
RESET statement_timeout;
