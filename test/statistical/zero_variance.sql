-- Check 1: releases of the zero vector.
--
-- The zero vector projects to exactly 0, so every released coordinate is
-- pure noise g L with L discrete Laplace of integer scale t (jl_release_info:
-- grid g, scale_in_grid_steps t, noise_variance s2).  Per configuration,
-- n = N k independent samples v (n = 1000000):
--   mean      z = mean(v) / sqrt(s2 / n)                       |z| <= Z
--   variance  V = mean(v^2) (the mean is known to be 0), Var V = (m4 - s2^2)/n
--             with m4 the exact discrete Laplace fourth moment (about 6 s2^2);
--             V / s2 within 1 +- Z sqrt((m4 - s2^2)/n) / s2
--   grid      every v is an exact multiple of g (v / g = round(v / g)), and
--             noise_variance, scale agree with g and t (deterministic)
--   repeats   no two releases are equal (1.e); they are made by a parallel
--             plan, so this covers noise drawn in parallel workers
-- Negative controls (must be rejected by the same statistic and band):
--   mean      against a claimed mean of 0.015 sd (15 standard errors away)
--   variance  against a mis-scaled variance 1.03 s2 (about 13 standard errors)
--   grid      the same samples moved by half a grid step
--   repeats   the same releases with 1000 of them repeated
-- Z is the two-sided 5e-8 normal quantile (lib.sql); n is large enough that
-- the normal approximation of a mean of n squared Laplace variables holds
-- far into the tail (skewness of V is 6.6 / sqrt(n) = 0.007).

CREATE TEMP TABLE c1_cfg (name text, d int, k int, eps float8, neighbor jl_neighbor,
                          bound float8, calibration jl_calibration, delta float8, nrel int);
INSERT INTO c1_cfg VALUES
  ('1.a', 10, 20, 1.0, 'attribute', 1.0, 'exact', NULL, 50000),
  ('1.b', 10, 10, 2.0, 'row',     1.0, 'exact', NULL, 100000),
  ('1.c', 10, 20, 1.0, 'attribute', 1.0, 'paper', NULL, 50000),
  ('1.d', 10, 20, 0.5, 'row',     2.0, 'paper', 1e-6, 50000);

CREATE TEMP TABLE c1_info AS
SELECT c.*, i.info,
       (i.info->>'grid')::float8 AS g,
       (i.info->>'scale_in_grid_steps')::float8 AS t,
       (i.info->>'scale')::float8 AS scale,
       (i.info->>'noise_variance')::float8 AS s2
FROM c1_cfg c,
     LATERAL (SELECT jl_release_info(c.d, c.eps, c.bound, c.neighbor, jl_sketch(k => c.k, delta => c.delta, calibration => c.calibration), key => 'stat') AS info) i;

-- The releases are made by a parallel plan (regular table, parallel costs
-- zeroed), so that noise drawn in parallel workers is tested too; the plan
-- figures are recorded.  1.a passes its options as constants, the others
-- from columns: the two ways the release reads its options.
CREATE TABLE c1_rows AS
SELECT c.name, c.d, c.k, c.eps, c.neighbor, c.bound, c.calibration, c.delta, r
FROM c1_info c, generate_series(1, c.nrel) r
ORDER BY c.name, r;
ANALYZE c1_rows;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TEMP TABLE c1_plan (plan json);
DO $$
DECLARE p json;
BEGIN
  EXECUTE $q$
    EXPLAIN (ANALYZE, FORMAT JSON)
    CREATE TABLE c1_rel AS
    SELECT name, r,
           CASE WHEN name = '1.a'
                -- the options of 1.a as constants (jl_sketch of constants: one
                -- mechanism, folded when the statement is planned)
                THEN jl_private_release(array_fill(0::float8, ARRAY[10]), 1.0, 1.0, 'attribute',
                                        jl_sketch(k => 20, calibration => 'exact'), key => 'stat')
                -- the others from columns (a jl_sketch built and checked per row)
                ELSE jl_private_release(array_fill(0::float8, ARRAY[d]), eps, bound, neighbor,
                                        jl_sketch(k => k, delta => delta, calibration => calibration),
                                        key => 'stat') END AS z
    FROM c1_rows $q$ INTO p;
  INSERT INTO c1_plan VALUES (p);
END $$;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

CREATE TEMP TABLE c1_agg AS
SELECT c.name,
       count(*)::float8 AS n,
       sum(v) AS sum1,
       sum(v * v) AS sum2,
       count(*) FILTER (WHERE v / c.g <> round(v / c.g)) AS off_grid,
       count(*) FILTER (WHERE (v + c.g / 2) / c.g <> round((v + c.g / 2) / c.g)) AS off_grid_ctl
FROM c1_info c JOIN c1_rel r USING (name), unnest(r.z) v
GROUP BY c.name;

CREATE TEMP TABLE c1 AS
SELECT c.*, a.n, a.sum1 / a.n AS mean, a.sum2 / a.n AS v2, a.off_grid, a.off_grid_ctl,
       stat_dlap_m4(c.g, c.t) AS m4,
       format('%s/%s d=%s k=%s eps=%s bound=%s%s N=%s n=%s', c.neighbor, c.calibration,
              c.d, c.k, c.eps, c.bound,
              CASE WHEN c.delta IS NULL THEN '' ELSE ' delta=' || c.delta END,
              c.nrel, a.n) AS label
FROM c1_info c JOIN c1_agg a USING (name);

-- mean
SELECT stat_record(name, 'check', 'zero-vector mean, ' || label || ': z = mean / sqrt(s2/n)',
                   mean / sqrt(s2 / n), -stat_z(), stat_z(),
                   format('mean %s, s2 %s', stat_g(mean), stat_g(s2)))
FROM c1 ORDER BY name;
SELECT stat_record(name, 'control', 'zero-vector mean against a claimed mean of 0.015 sd, ' || label,
                   (mean - 0.015 * sqrt(s2)) / sqrt(s2 / n), -stat_z(), stat_z())
FROM c1 ORDER BY name;

-- variance: statistic V / s2, band 1 +- Z sqrt((m4 - s2^2)/n)/s2
SELECT stat_record(name, 'check', 'zero-vector variance, ' || label || ': mean(v^2) / noise_variance',
                   v2 / s2,
                   1 - stat_z() * sqrt((m4 - s2 * s2) / n) / s2,
                   1 + stat_z() * sqrt((m4 - s2 * s2) / n) / s2,
                   format('mean(v^2) %s, noise_variance %s, z = %s, m4/s2^2 = %s',
                          stat_g(v2), stat_g(s2),
                          stat_g((v2 - s2) / sqrt((m4 - s2 * s2) / n)), stat_g(m4 / (s2 * s2))))
FROM c1 ORDER BY name;
-- the claimed model scaled by c = 1.03: variance c s2, fourth moment c^2 m4
SELECT stat_record(name, 'control', 'zero-vector variance against a mis-scaled 1.03 * noise_variance, ' || label,
                   v2 / (1.03 * s2),
                   1 - stat_z() * sqrt((m4 - s2 * s2) / n) / s2,
                   1 + stat_z() * sqrt((m4 - s2 * s2) / n) / s2,
                   format('z = %s', stat_g((v2 - 1.03 * s2) / (1.03 * sqrt((m4 - s2 * s2) / n)))))
FROM c1 ORDER BY name;

-- grid: values off the grid (must be 0); noise_variance and scale must agree
-- with the grid and t (relative error, must be below 1e-9)
SELECT stat_record(name, 'exact', 'released values on the grid, ' || label || ': values off grid',
                   off_grid, 0, 0,
                   format('grid %s, t %s', stat_g(g), t))
FROM c1 ORDER BY name;
SELECT stat_record(name, 'control', 'values moved by grid/2 must be off the grid, ' || label || ': values off grid',
                   off_grid_ctl, 0, 0)
FROM c1 ORDER BY name;
SELECT stat_record(name, 'exact', 'noise_variance = g^2 2p/(1-p)^2 and scale = t g, ' || label || ': max relative error',
                   greatest(abs(s2 / stat_dlap_var(g, t) - 1), abs(scale / (t * g) - 1)),
                   0, 1e-9)
FROM c1 ORDER BY name;

-- no two releases alike (each has k coordinates of about 1e4 grid steps of
-- spread: a repeat by chance has probability below 1e-70), whichever process
-- made them; control: the same count with 1000 releases repeated
SELECT stat_record('1.e', 'exact',
                   format('repeated releases among %s zero-vector releases made by a parallel plan: count',
                          (SELECT count(*) FROM c1_rel)),
                   (SELECT count(*) - count(DISTINCT (name, z)) FROM c1_rel), 0, 0,
                   format('workers planned %s, launched %s',
                          plan->0->'Plan'->>'Workers Planned', plan->0->'Plan'->>'Workers Launched'))
FROM c1_plan;
SELECT stat_record('1.e', 'control', 'repeated releases, with 1000 of them repeated: count',
                   count(*) - count(DISTINCT (name, z)), 0, 0)
FROM (SELECT name, z FROM c1_rel
      UNION ALL (SELECT name, z FROM c1_rel ORDER BY name, r LIMIT 1000)) s;
