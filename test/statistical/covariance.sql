-- Check 8: the covariance release (Blocki et al., docs/design/covariance.md).
--
-- A: 50 fixed rows, d = 3, of a protected table (jl_vector x in [0, 1] at
-- weight 1: the encoding is x itself) declared for row neighbours with row
-- clip 1, so the mechanism's norm bound is C = 1, as 0.3's clip_norm 1 (the
-- same lift); the elements lie in [0, 0.5] and the norms below 0.59 (no
-- clamping, no clipping).  Released by jl_release with
-- jl_covariance_mechanism.  x a fixed direction, truth t = x^T A^T A x,
-- Sigma_x = t + l^2 ||x||^2 with l the release's lift.
-- jl_directional_variance is ||R x||^2 / r - l^2 ||x||^2 with ||R x||^2 /
-- Sigma_x chi-square(r), so it is unbiased with standard deviation
-- s = sqrt(2/r) Sigma_x.
--   8.a  M = 300 releases (r 200) with each method ('gram', 'product'):
--        mean error, z = mean(e) / (s / sqrt M)
--   8.b  the same releases: sample variance of e against s^2,
--        (S2 - s^2) / sqrt((m4 - S2^2) / M), m4 the empirical fourth moment
--   8.c  the plug-in jl_directional_variance_stddev: its mean against s
--        (it is unbiased for s), z with its sample standard deviation
--   8.d  one release with r = 100000, three directions: z = e / s
-- Negative controls, the same statistic and band:
--   8.a, 8.d  the estimate without - l^2 ||x||^2
--   8.b       the standard deviation without the lift, sqrt(2/r) t
--   8.c       a plug-in of the lift-free form, sqrt(2/r) (estimate)
-- Z is the two-sided 5e-8 normal quantile (lib.sql).

CREATE SCHEMA c8;
CREATE TABLE c8.src AS
SELECT i, ARRAY[0.25 + 0.25 * sin(i), 0.2 + 0.2 * cos(2 * i), 0.15 + 0.15 * sin(5 * i)]::float8[] AS x
FROM generate_series(1, 50) i;
ALTER TABLE c8.src ADD PRIMARY KEY (i);
-- 601 releases at epsilon 1, delta 1e-6: caps above that (an audit of the
-- mechanism, not of the budget)
SELECT jl_protect('c8.src', 'i', ARRAY[jl_vector('x', 3, 0, 1)], neighbor => 'row', row_clip => 1,
                  epsilon_cap => 1000, delta_cap => 0.01);

CREATE FUNCTION c8.truth(e float8[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT sum((x[1] * e[1] + x[2] * e[2] + x[3] * e[3]) ^ 2) FROM c8.src $$;

CREATE TABLE c8.runs (method text, run int, est float8, sd float8, l2 float8);
DO $$
DECLARE
  j int;
  m text;
  t text;
BEGIN
  FOREACH m IN ARRAY ARRAY['gram', 'product'] LOOP
  FOR j IN 1..300 LOOP
    t := 'c8.rel_' || m || '_' || j;
    PERFORM jl_release('c8.src', t, 1.0, jl_covariance_mechanism(200, 1e-6, method => m::jl_covariance_method),
                       key => 'stat');
    INSERT INTO c8.runs
    SELECT m, j, jl_directional_variance(t::regclass, '{1,1,0}'),
           jl_directional_variance_stddev(t::regclass, '{1,1,0}'),
           (SELECT noise_variance FROM jl_releases WHERE target = t::regclass);
  END LOOP;
  END LOOP;
END $$;

CREATE TEMP TABLE c8 AS
SELECT method, count(*)::float8 AS m, 200 AS r, c8.truth('{1,1,0}') AS t, 2.0 AS xx,
       min(l2) AS l2, max(l2) AS l2_max,
       avg(est - c8.truth('{1,1,0}')) AS mean_e,
       var_samp(est - c8.truth('{1,1,0}')) AS s2e,
       avg(sd) AS mean_sd, stddev_samp(sd) AS sd_sd,
       avg(sqrt(2.0 / 200) * est) AS mean_sd_wrong, stddev_samp(sqrt(2.0 / 200) * est) AS sd_sd_wrong
FROM c8.runs GROUP BY method;
ALTER TABLE c8 ADD COLUMN s float8, ADD COLUMN m4 float8;
UPDATE c8 SET s = sqrt(2.0 / r) * (t + l2 * xx),
              m4 = (SELECT avg((est - c8.truth('{1,1,0}') - c8.mean_e) ^ 4) FROM c8.runs
                    WHERE c8.runs.method = c8.method);

SELECT stat_record('8.a', 'exact', 'every release lifted by the same l (public inputs only), method ' || method,
                   (l2_max = l2)::int, 1, 1, format('l^2 %s', stat_g(l2)))
FROM c8;
SELECT stat_record('8.a', 'check', format('directional variance mean, method %s, M=%s releases r=%s: z = mean(e) / (s/sqrt M)', method, m, r),
                   mean_e / (s / sqrt(m)), -stat_z(), stat_z(),
                   format('truth %s, mean error %s, s %s, l^2 ||x||^2 %s', stat_g(t), stat_g(mean_e),
                          stat_g(s), stat_g(l2 * xx)))
FROM c8;
SELECT stat_record('8.a', 'control', 'directional variance mean without - l^2 ||x||^2, method ' || method,
                   (mean_e + l2 * xx) / (s / sqrt(m)), -stat_z(), stat_z())
FROM c8;
SELECT stat_record('8.b', 'check', 'directional variance, method ' || method || ': (S2 - s^2) / SE, s = sqrt(2/r) (t + l^2 ||x||^2)',
                   (s2e - s ^ 2) / sqrt((m4 - s2e ^ 2) / m), -stat_z(), stat_z(),
                   format('S2 %s, s^2 %s, SE %s', stat_g(s2e), stat_g(s ^ 2), stat_g(sqrt((m4 - s2e ^ 2) / m))))
FROM c8;
SELECT stat_record('8.b', 'control', 'directional variance against the lift-free sqrt(2/r) t, method ' || method,
                   (s2e - (2.0 / r) * t ^ 2) / sqrt((m4 - s2e ^ 2) / m), -stat_z(), stat_z())
FROM c8;
SELECT stat_record('8.c', 'check', 'jl_directional_variance_stddev, method ' || method || ': z = (mean - s) / (sd / sqrt M)',
                   (mean_sd - s) / (sd_sd / sqrt(m)), -stat_z(), stat_z(),
                   format('mean plug-in %s, s %s', stat_g(mean_sd), stat_g(s)))
FROM c8;
SELECT stat_record('8.c', 'control', 'a plug-in of the lift-free form sqrt(2/r) (estimate), method ' || method,
                   (mean_sd_wrong - s) / (sd_sd_wrong / sqrt(m)), -stat_z(), stat_z())
FROM c8;

-- one large release: r = 100000 iid rows
SELECT released FROM jl_release('c8.src', 'c8.big', 1.0, jl_covariance_mechanism(100000, 1e-6), key => 'stat');
CREATE TEMP TABLE c8d AS
SELECT e, c8.truth(e) AS t, (SELECT sum(v * v) FROM unnest(e) v) AS xx,
       jl_directional_variance('c8.big', e) AS est,
       (SELECT noise_variance FROM jl_releases WHERE target = 'c8.big'::regclass) AS l2
FROM (VALUES ('{1,0,0}'::float8[]), ('{0,1,-1}'), ('{0.2,0.3,2}')) v(e);
SELECT stat_record('8.d', 'check', format('directional variance, one release r=100000, x=%s: z = e / s', e),
                   (est - t) / (sqrt(2.0 / 100000) * (t + l2 * xx)), -stat_z(), stat_z(),
                   format('truth %s, estimate %s, l^2 %s', stat_g(t), stat_g(est), stat_g(l2)))
FROM c8d;
SELECT stat_record('8.d', 'control', format('without - l^2 ||x||^2, x=%s', e),
                   (est + l2 * xx - t) / (sqrt(2.0 / 100000) * (t + l2 * xx)), -stat_z(), stat_z())
FROM c8d;
