-- Check 2: distance recovery, mean and spread, conditional on P.
--
-- Fixed rows x, y; N independent pairs of releases a ~ release(x),
-- b ~ release(y); D = jl_recover_dist(a, b, s2), s2 = noise_variance.
-- Given P (fixed by the pinned key), E D = r2P = ||xbar - ybar||^2, where
-- xbar = g round(x P / g) is the projection on the release grid (it differs
-- from ||xP - yP||^2 by the rounding only, printed as "rounding"), and
--   Var D = condvar = 8 s2 r2P + 14 k s2^2            (DESIGN.md, given P)
-- (exact for Laplace noise; the discrete Laplace differs by O(1/t^2)).
--   mean      z = (mean D - r2P) / sqrt(condvar / N)              |z| <= Z
--   variance  S2 = var_samp(D); SE = sqrt((m4 - S2^2) / N) with m4 the
--             empirical fourth central moment of D; (S2 - condvar)/SE in +-Z
-- Negative controls, the same statistic and band:
--   mean      the biased estimator ||a - b||^2 (no - 2 k s2) as estimate of r2P
--   variance  Dhaliwal et al.'s Claim 7, 4 s2 r2 + 2k(7 s2^2 - s2), as the
--             variance (x, y chosen with r2P large against k s2, so that it is
--             far from condvar: ratio printed)
-- Also (deterministic): jl_recover_dist_stddev(a, b, s2) equals
-- sqrt(2 r2^2/k + 8 s2 r2 + 14 k s2^2) at r2 = max(D, 0) (relative 1e-12) on
-- the first 20 pairs and on 20 pairs of releases of x and x (D often < 0);
-- control: the Claim 7 form must not match.
-- Z is the two-sided 5e-8 normal quantile (lib.sql).  The band of the
-- variance uses the fourth moment estimated from the N = 100000 samples (the
-- usual large-sample approximation; D has exponential tails).

CREATE TEMP TABLE c2_cfg (name text, d int, k int, eps float8, neighbor jl_neighbor,
                          bound float8, ax float8, ay float8, npair int);
INSERT INTO c2_cfg VALUES
  -- x_i = ax sin(i), y_i = ay cos(i); the options of 2.a are repeated as
  -- constants in c2_pairs
  ('2.a', 50, 10, 8.0, 'attribute', 1.0, 1.0, 1.0, 100000),
  ('2.b', 20, 20, 6.0, 'row',     1.0, 2.0, 2.0, 100000);

CREATE TEMP TABLE c2_info AS
SELECT c.*, x, y,
       (info->>'noise_variance')::float8 AS s2,
       (info->>'grid')::float8 AS g,
       (SELECT sum((p - q) ^ 2) FROM unnest(stat_project_grid(x, c.k, (info->>'grid')::float8),
                                           stat_project_grid(y, c.k, (info->>'grid')::float8)) u(p, q)) AS r2p,
       (SELECT sum((p - q) ^ 2) FROM unnest(jl_project(x, jl_sketch(k => c.k), 'stat'),
                                           jl_project(y, jl_sketch(k => c.k), 'stat')) u(p, q)) AS r2p_exact,
       (SELECT sum((p - q) ^ 2) FROM unnest(x, y) u(p, q)) AS r2
FROM c2_cfg c,
     LATERAL (SELECT array_agg(c.ax * sin(i) ORDER BY i) AS x,
                     array_agg(c.ay * cos(i) ORDER BY i) AS y
              FROM generate_series(1, c.d) i) xy,
     LATERAL (SELECT jl_release_info(c.d, c.eps, c.bound, c.neighbor, jl_sketch(k => c.k), key => 'stat') AS info) i;

CREATE TEMP TABLE c2_pairs AS
SELECT name, r, a, b, s2, jl_recover_dist(a, b, s2) AS dist
FROM (SELECT c.name, r, c.s2,
             -- 2.a passes its options as constants (jl_sketch of constants:
             -- one mechanism, folded when the statement is planned), 2.b
             -- from columns (a jl_sketch built and checked per row)
             CASE WHEN c.name = '2.a'
                  THEN jl_private_release(c.x, 8.0, 1.0, 'attribute', jl_sketch(k => 10), key => 'stat')
                  ELSE jl_private_release(c.x, c.eps, c.bound, c.neighbor, jl_sketch(k => c.k), key => 'stat')
             END AS a,
             CASE WHEN c.name = '2.a'
                  THEN jl_private_release(c.y, 8.0, 1.0, 'attribute', jl_sketch(k => 10), key => 'stat')
                  ELSE jl_private_release(c.y, c.eps, c.bound, c.neighbor, jl_sketch(k => c.k), key => 'stat')
             END AS b
      FROM c2_info c, generate_series(1, c.npair) r) s;

CREATE TEMP TABLE c2 AS
SELECT c.*, m.n, m.mean, m.s2d, m.m4,
       8 * c.s2 * c.r2p + 14 * c.k * c.s2 ^ 2 AS condvar,
       4 * c.s2 * c.r2p + 2 * c.k * (7 * c.s2 ^ 2 - c.s2) AS claim7,
       format('%s/exact d=%s k=%s eps=%s N=%s', c.neighbor, c.d, c.k, c.eps, m.n) AS label
FROM c2_info c
JOIN (SELECT p.name, count(*)::float8 AS n, avg(dist) AS mean, var_samp(dist) AS s2d,
             avg((dist - mu) ^ 4) AS m4
      FROM c2_pairs p
      JOIN (SELECT name, avg(dist) AS mu FROM c2_pairs GROUP BY name) mu USING (name)
      GROUP BY p.name) m USING (name);

SELECT stat_record(name, 'check', 'recovery mean, ' || label || ': z = (mean D - r2P) / sqrt(condvar/N)',
                   (mean - r2p) / sqrt(condvar / n), -stat_z(), stat_z(),
                   format('mean D %s, r2P %s (rounding %s), ||x-y||^2 %s, s2 %s, r2P/(k s2) %s',
                          stat_g(mean), stat_g(r2p), stat_g(r2p - r2p_exact), stat_g(r2),
                          stat_g(s2), stat_g(r2p / (k * s2))))
FROM c2 ORDER BY name;
SELECT stat_record(name, 'control', 'recovery mean of the biased ||a-b||^2 (no - 2 k s2), ' || label,
                   (mean + 2 * k * s2 - r2p) / sqrt(condvar / n), -stat_z(), stat_z())
FROM c2 ORDER BY name;

SELECT stat_record(name, 'check', 'recovery variance, ' || label || ': z = (var D - condvar) / SE',
                   (s2d - condvar) / sqrt((m4 - s2d ^ 2) / n), -stat_z(), stat_z(),
                   format('var D %s, condvar 8 s2 r2P + 14 k s2^2 = %s, SE %s, kurtosis %s',
                          stat_g(s2d), stat_g(condvar), stat_g(sqrt((m4 - s2d ^ 2) / n)),
                          stat_g(m4 / s2d ^ 2)))
FROM c2 ORDER BY name;
SELECT stat_record(name, 'control', 'recovery variance against Claim 7, 4 s2 r2 + 2k(7 s2^2 - s2), ' || label,
                   (s2d - claim7) / sqrt((m4 - s2d ^ 2) / n), -stat_z(), stat_z(),
                   format('Claim 7 variance %s, condvar / Claim 7 = %s', stat_g(claim7),
                          stat_g(condvar / claim7)))
FROM c2 ORDER BY name;

-- the plug-in standard error, on the first 20 pairs of each configuration
CREATE TEMP TABLE c2_sd AS
SELECT p.name, c.label,
       jl_recover_dist_stddev(p.a, p.b, p.s2) AS sd,
       sqrt(2 * greatest(p.dist, 0) ^ 2 / c.k + 8 * p.s2 * greatest(p.dist, 0)
            + 14 * c.k * p.s2 ^ 2) AS sd_formula,
       sqrt(2 * greatest(p.dist, 0) ^ 2 / c.k + 4 * p.s2 * greatest(p.dist, 0)
            + 2 * c.k * (7 * p.s2 ^ 2 - p.s2)) AS sd_claim7,
       p.dist
FROM c2_pairs p JOIN c2 c USING (name)
WHERE p.r <= 20;
-- and 20 pairs of two releases of the same x, where D < 0 about half the
-- time and the plug-in r2 is clamped to 0
INSERT INTO c2_sd
SELECT name, label, jl_recover_dist_stddev(a, b, s2),
       sqrt(2 * greatest(dist, 0) ^ 2 / k + 8 * s2 * greatest(dist, 0) + 14 * k * s2 ^ 2),
       sqrt(2 * greatest(dist, 0) ^ 2 / k + 4 * s2 * greatest(dist, 0) + 2 * k * (7 * s2 ^ 2 - s2)),
       dist
FROM (SELECT *, jl_recover_dist(a, b, s2) AS dist
      FROM (SELECT c.name, c.label, c.k, c.s2,
                   jl_private_release(c.x, c.eps, c.bound, c.neighbor, jl_sketch(k => c.k), key => 'stat') AS a,
                   jl_private_release(c.x, c.eps, c.bound, c.neighbor, jl_sketch(k => c.k), key => 'stat') AS b
            FROM c2 c, generate_series(1, 20) r) s) s;

SELECT stat_record(name, 'exact', 'jl_recover_dist_stddev = sqrt(2 r2^2/k + 8 s2 r2 + 14 k s2^2) at r2 = max(D,0), '
                   || min(label) || ', 20 pairs (x, y) and 20 pairs (x, x): max relative error',
                   max(abs(sd / sd_formula - 1)), 0, 1e-12,
                   format('D in [%s, %s], stddev in [%s, %s]', stat_g(min(dist)), stat_g(max(dist)),
                          stat_g(min(sd)), stat_g(max(sd))))
FROM c2_sd GROUP BY name ORDER BY name;
SELECT stat_record(name, 'control', 'jl_recover_dist_stddev against the Claim 7 form, '
                   || min(label) || ': max relative error',
                   max(abs(sd / sd_claim7 - 1)), 0, 1e-12)
FROM c2_sd GROUP BY name ORDER BY name;
