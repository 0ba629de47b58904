-- Check 7: distance recovery from a release without projection
-- (kind => 'identity': P = I, k = d).
--
-- Fixed rows x, y (d = k = 16); N independent pairs of releases a ~
-- release(x), b ~ release(y), Laplace noise; D = jl_recover_dist(a, b, s2).
-- The sketch is xbar + noise with xbar = g round(x / g) (x on the release
-- grid), so E D = r2 = ||xbar - ybar||^2 and nothing varies with P:
--   Var D = 8 s2 r2 + 14 k s2^2                (DESIGN.md with P = I)
--   mean      z = (mean D - r2) / sqrt(Var D / N)                    |z| <= Z
--   variance  S2 = var_samp(D), SE = sqrt((m4 - S2^2) / N) with m4 the
--             empirical fourth central moment; (S2 - Var D) / SE in +-Z
-- Negative controls, the same statistic and band:
--   mean      the biased ||a - b||^2 (no - 2 k s2)
--   variance  the Gaussian-P form 2 r2^2/k + 8 s2 r2 + 14 k s2^2, which
--             jl_recover_dist_stddev used before it knew the kind (r2 is
--             about 10 k s2, so the form is about 3 times Var D)
-- Also (deterministic): jl_recover_dist_stddev(a, b, s2, 'laplace',
-- 'identity') = sqrt(8 s2 r + 14 k s2^2) at r = max(D, 0) on the first 20
-- pairs (relative 1e-12); control: the Gaussian-P form must not match.
-- Z is the two-sided 5e-8 normal quantile (lib.sql).

CREATE TEMP TABLE c7_cfg AS
SELECT '7.a'::text AS name, 16 AS d, 2.0::float8 AS eps, 50000 AS npair,
       array_agg(2.2 * sin(i) ORDER BY i) AS x, array_agg(2.2 * cos(i) ORDER BY i) AS y
FROM generate_series(1, 16) i;

CREATE TEMP TABLE c7_info AS
SELECT c.*, (i->>'noise_variance')::float8 AS s2, (i->>'grid')::float8 AS g,
       i->>'mechanism' AS mechanism
FROM c7_cfg c,
     LATERAL jl_release_info(c.d, c.eps, 1, 'attribute', jl_sketch(k => c.d, kind => 'identity'), key => 'stat') i;
ALTER TABLE c7_info ADD COLUMN r2 float8;
UPDATE c7_info SET r2 = (SELECT sum((g * round(p / g) - g * round(q / g)) ^ 2) FROM unnest(x, y) u(p, q));

CREATE TEMP TABLE c7_pairs AS
SELECT name, r, a, b, s2, jl_recover_dist(a, b, s2) AS dist
FROM (SELECT c.name, r, c.s2,
             jl_private_release(c.x, c.eps, 1, 'attribute', jl_sketch(k => c.d, kind => 'identity'), key => 'stat') AS a,
             jl_private_release(c.y, c.eps, 1, 'attribute', jl_sketch(k => c.d, kind => 'identity'), key => 'stat') AS b
      FROM c7_info c, generate_series(1, c.npair) r) s;

CREATE TEMP TABLE c7 AS
SELECT c.*, m.n, m.mean, m.s2d, m.m4,
       8 * c.s2 * c.r2 + 14 * c.d * c.s2 ^ 2 AS var_identity,
       2 * c.r2 ^ 2 / c.d + 8 * c.s2 * c.r2 + 14 * c.d * c.s2 ^ 2 AS var_gaussian_p,
       format('identity (%s) d=k=%s eps=%s N=%s', c.mechanism, c.d, c.eps, m.n) AS label
FROM c7_info c
JOIN (SELECT p.name, count(*)::float8 AS n, avg(dist) AS mean, var_samp(dist) AS s2d,
             avg((dist - mu) ^ 4) AS m4
      FROM c7_pairs p
      JOIN (SELECT name, avg(dist) AS mu FROM c7_pairs GROUP BY name) mu USING (name)
      GROUP BY p.name) m USING (name);

SELECT stat_record(name, 'check', 'recovery mean, ' || label || ': z = (mean D - r2) / sqrt(var/N)',
                   (mean - r2) / sqrt(var_identity / n), -stat_z(), stat_z(),
                   format('mean D %s, r2 %s, s2 %s, r2/(k s2) %s', stat_g(mean), stat_g(r2),
                          stat_g(s2), stat_g(r2 / (d * s2))))
FROM c7;
SELECT stat_record(name, 'control', 'recovery mean of the biased ||a-b||^2 (no - 2 k s2), ' || label,
                   (mean + 2 * d * s2 - r2) / sqrt(var_identity / n), -stat_z(), stat_z())
FROM c7;
SELECT stat_record(name, 'check', 'recovery variance, ' || label || ': z = (var D - (8 s2 r2 + 14 k s2^2)) / SE',
                   (s2d - var_identity) / sqrt((m4 - s2d ^ 2) / n), -stat_z(), stat_z(),
                   format('var D %s, 8 s2 r2 + 14 k s2^2 = %s, SE %s', stat_g(s2d),
                          stat_g(var_identity), stat_g(sqrt((m4 - s2d ^ 2) / n))))
FROM c7;
SELECT stat_record(name, 'control', 'recovery variance against the Gaussian-P form 2 r2^2/k + 8 s2 r2 + 14 k s2^2, ' || label,
                   (s2d - var_gaussian_p) / sqrt((m4 - s2d ^ 2) / n), -stat_z(), stat_z(),
                   format('Gaussian-P form %s, its ratio to 8 s2 r2 + 14 k s2^2: %s', stat_g(var_gaussian_p),
                          stat_g(var_gaussian_p / var_identity)))
FROM c7;

-- the plug-in standard error with kind => 'identity', on the first 20 pairs
CREATE TEMP TABLE c7_sd AS
SELECT p.name, c.label,
       jl_recover_dist_stddev(p.a, p.b, p.s2, 'laplace', 'identity') AS sd,
       sqrt(8 * p.s2 * greatest(p.dist, 0) + 14 * c.d * p.s2 ^ 2) AS sd_formula,
       sqrt(2 * greatest(p.dist, 0) ^ 2 / c.d + 8 * p.s2 * greatest(p.dist, 0) + 14 * c.d * p.s2 ^ 2) AS sd_gaussian_p
FROM c7_pairs p JOIN c7 c USING (name)
WHERE p.r <= 20;
SELECT stat_record(name, 'exact', 'jl_recover_dist_stddev(.., ''identity'') = sqrt(8 s2 r + 14 k s2^2) at r = max(D,0), '
                   || min(label) || ', 20 pairs: max relative error',
                   max(abs(sd / sd_formula - 1)), 0, 1e-12)
FROM c7_sd GROUP BY name;
SELECT stat_record(name, 'control', 'jl_recover_dist_stddev(.., ''identity'') against the Gaussian-P form, '
                   || min(label) || ': max relative error',
                   max(abs(sd / sd_gaussian_p - 1)), 0, 1e-12)
FROM c7_sd GROUP BY name;
