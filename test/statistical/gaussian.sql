-- Checks 5 and 6: Gaussian noise (noise => 'gaussian').
--
-- Check 5: distance recovery given P, as check 2 but with Gaussian noise:
--   Var D = condvar = 8 s2 r2P + 8 k s2^2          (DESIGN.md, given P)
-- (exact for Gaussian noise; the discrete Gaussian with sigma >= 1024 grid
-- steps matches its moments far below double precision).  The variance band
-- as in check 2 (the mean is printed, not tested: check 2 tests the same
-- estimator, and the suite's error budget allows 20 statistical lines).
-- Negative control with the same statistic and band: the Laplace variance
-- 8 s2 r2P + 14 k s2^2 (r2P chosen near k s2 or below, so that the two
-- variances differ by 30% or more).
-- Also (deterministic): jl_recover_dist_stddev(a, b, s2, 'gaussian') equals
-- sqrt(2 r2^2/k + 8 s2 r2 + 8 k s2^2) at r2 = max(D, 0); control: the
-- Laplace form must not match.
--
-- Check 6: empirical (epsilon, delta) on worst-case neighbours.  x = 0 and
-- x' = B e_i, i the attribute with the largest row L2 norm of P (found with
-- jl_project; ||x' P||_2 is the L2 sensitivity, checked against
-- jl_release_info's projection_sensitivity, relative 1e-9).  With ypb the
-- projection of x' on the release grid (the release of x is pure noise,
-- that of x' is ypb + noise), the statistic of a release z is
--   T(z) = <z, ypb> / ||ypb||      (the optimal test: a likelihood ratio)
-- and the events, fixed a priori, are S_m = {T >= m sigma / 4}, m = 1..12,
-- sigma the claimed noise (jl_release_info).  From N releases of x and N of
-- x' (independent), Chernoff binomial bounds at alpha_b = 5e-8 / 24 give
--   eps_lb = max_m ln((lower(P(S_m | x')) - delta) / upper(P(S_m | x))).
-- (epsilon, delta)-DP means P(S | x') <= e^epsilon P(S | x) + delta for every
-- S, so by the union bound eps_lb <= epsilon except with probability 5e-8.
-- Negative control: the same events and claimed sigma, applied to releases
-- made with epsilon_release = 8 (noise about 6 times too small); it must
-- find eps_lb > epsilon.

CREATE TEMP TABLE c4_cfg (name text, d int, k int, eps float8, delta float8, neighbor jl_neighbor,
                          bound float8, ax float8, ay float8, npair int);
INSERT INTO c4_cfg VALUES
  ('5.a', 50, 10, 1.0, 1e-5, 'attribute', 1.0, 2.5, 2.5, 100000),
  ('5.b', 20, 20, 1.0, 1e-5, 'row',     1.0, 2.0, 2.0, 100000);

CREATE TEMP TABLE c4_info AS
SELECT c.*, x, y,
       (info->>'noise_variance')::float8 AS s2,
       (info->>'noise')::text AS noise,
       (SELECT sum((p - q) ^ 2) FROM unnest(stat_project_grid(x, c.k, (info->>'grid')::float8),
                                           stat_project_grid(y, c.k, (info->>'grid')::float8)) u(p, q)) AS r2p
FROM c4_cfg c,
     LATERAL (SELECT array_agg(c.ax * sin(i) ORDER BY i) AS x,
                     array_agg(c.ay * cos(i) ORDER BY i) AS y
              FROM generate_series(1, c.d) i) xy,
     LATERAL (SELECT jl_release_info(c.d, c.eps, c.bound, c.neighbor, jl_sketch(k => c.k, noise => 'gaussian', delta => c.delta), key => 'stat') AS info) i;

CREATE TEMP TABLE c4_pairs AS
SELECT name, r, a, b, s2, jl_recover_dist(a, b, s2) AS dist
FROM (SELECT c.name, r, c.s2,
             jl_private_release(c.x, c.eps, c.bound, c.neighbor, jl_sketch(k => c.k, noise => 'gaussian', delta => c.delta), key => 'stat') AS a,
             jl_private_release(c.y, c.eps, c.bound, c.neighbor, jl_sketch(k => c.k, noise => 'gaussian', delta => c.delta), key => 'stat') AS b
      FROM c4_info c, generate_series(1, c.npair) r) s;

CREATE TEMP TABLE c4 AS
SELECT c.*, m.n, m.mean, m.s2d, m.m4,
       8 * c.s2 * c.r2p + 8 * c.k * c.s2 ^ 2 AS condvar,
       8 * c.s2 * c.r2p + 14 * c.k * c.s2 ^ 2 AS laplacevar,
       format('gaussian %s d=%s k=%s eps=%s delta=%s N=%s', c.neighbor, c.d, c.k, c.eps, c.delta, m.n) AS label
FROM c4_info c
JOIN (SELECT p.name, count(*)::float8 AS n, avg(dist) AS mean, var_samp(dist) AS s2d,
             avg((dist - mu) ^ 4) AS m4
      FROM c4_pairs p
      JOIN (SELECT name, avg(dist) AS mu FROM c4_pairs GROUP BY name) mu USING (name)
      GROUP BY p.name) m USING (name);

SELECT stat_record(name, 'check', 'recovery variance, ' || label || ': z = (var D - condvar) / SE',
                   (s2d - condvar) / sqrt((m4 - s2d ^ 2) / n), -stat_z(), stat_z(),
                   format('var D %s, condvar 8 s2 r2P + 8 k s2^2 = %s, SE %s, kurtosis %s; '
                          'mean D %s against r2P %s (z %s), s2 %s, r2P/(k s2) %s, noise %s',
                          stat_g(s2d), stat_g(condvar), stat_g(sqrt((m4 - s2d ^ 2) / n)),
                          stat_g(m4 / s2d ^ 2), stat_g(mean), stat_g(r2p),
                          stat_g((mean - r2p) / sqrt(condvar / n)), stat_g(s2),
                          stat_g(r2p / (k * s2)), noise))
FROM c4 ORDER BY name;
SELECT stat_record(name, 'control', 'recovery variance against the Laplace form 8 s2 r2P + 14 k s2^2, ' || label,
                   (s2d - laplacevar) / sqrt((m4 - s2d ^ 2) / n), -stat_z(), stat_z(),
                   format('Laplace form %s, condvar / Laplace form = %s', stat_g(laplacevar),
                          stat_g(condvar / laplacevar)))
FROM c4 ORDER BY name;

CREATE TEMP TABLE c4_sd AS
SELECT p.name, c.label,
       jl_recover_dist_stddev(p.a, p.b, p.s2, 'gaussian') AS sd,
       sqrt(2 * greatest(p.dist, 0) ^ 2 / c.k + 8 * p.s2 * greatest(p.dist, 0)
            + 8 * c.k * p.s2 ^ 2) AS sd_formula,
       sqrt(2 * greatest(p.dist, 0) ^ 2 / c.k + 8 * p.s2 * greatest(p.dist, 0)
            + 14 * c.k * p.s2 ^ 2) AS sd_laplace,
       p.dist
FROM c4_pairs p JOIN c4 c USING (name)
WHERE p.r <= 40;

SELECT stat_record(name, 'exact', 'jl_recover_dist_stddev(.., ''gaussian'') = sqrt(2 r2^2/k + 8 s2 r2 + 8 k s2^2) at r2 = max(D,0), '
                   || min(label) || ', 40 pairs: max relative error',
                   max(abs(sd / sd_formula - 1)), 0, 1e-12,
                   format('D in [%s, %s], stddev in [%s, %s]', stat_g(min(dist)), stat_g(max(dist)),
                          stat_g(min(sd)), stat_g(max(sd))))
FROM c4_sd GROUP BY name ORDER BY name;
SELECT stat_record(name, 'control', 'jl_recover_dist_stddev(.., ''gaussian'') against the Laplace form, '
                   || min(label) || ': max relative error',
                   max(abs(sd / sd_laplace - 1)), 0, 1e-12)
FROM c4_sd GROUP BY name ORDER BY name;

-- ---- check 5

CREATE TEMP TABLE c5_cfg (name text, d int, k int, eps float8, delta float8, neighbor jl_neighbor,
                          bound float8, eps_ctl float8, nrel int);
INSERT INTO c5_cfg VALUES
  ('6.a', 10, 20, 1.0, 1e-5, 'attribute', 1.0, 8.0, 200000);

-- the attribute with the largest row L2 norm of P
CREATE TEMP TABLE c5_elem AS
SELECT DISTINCT ON (c.name) c.name, i,
       (SELECT sqrt(sum(v * v)) FROM unnest(jl_project(stat_unit(c.d, i), jl_sketch(k => c.k), 'stat')) v) AS sens2,
       (SELECT array_agg(c.bound * v ORDER BY o)
        FROM unnest(stat_unit(c.d, i)) WITH ORDINALITY u(v, o)) AS xp
FROM c5_cfg c, generate_series(1, c.d) i
ORDER BY c.name, 3 DESC;

CREATE TEMP TABLE c5_info AS
SELECT c.*, e.sens2, e.xp,
       (info->>'sigma')::float8 AS sigma,
       (info->>'grid')::float8 AS g,
       (info->>'projection_sensitivity')::float8 AS proj_sens,
       (info->>'delta_holding')::float8 AS delta_holding,
       stat_project_grid(e.xp, c.k, (info->>'grid')::float8) AS ypb
FROM c5_cfg c JOIN c5_elem e USING (name),
     LATERAL (SELECT jl_release_info(c.d, c.eps, c.bound, c.neighbor, jl_sketch(k => c.k, noise => 'gaussian', delta => c.delta), key => 'stat') AS info) i;

-- releases: role 'check' at the claimed epsilon, 'control' at eps_ctl;
-- T in units of sigma / 4, floored
CREATE TEMP TABLE c5_hist AS
SELECT name, role, src, bucket, count(*) AS cnt
FROM (SELECT c.name, s.role, s.src,
             floor(4 * (SELECT sum(u.z * u.q) FROM unnest(z, c.ypb) u(z, q)) /
                   (SELECT sqrt(sum(q * q)) FROM unnest(c.ypb) q) / c.sigma)::int AS bucket
      FROM c5_info c,
           (VALUES ('check', 'x'), ('check', 'x'''), ('control', 'x'), ('control', 'x''')) s(role, src),
           LATERAL (SELECT jl_private_release(CASE s.src WHEN 'x' THEN array_fill(0::float8, ARRAY[c.d])
                                                         ELSE c.xp END,
                                              CASE s.role WHEN 'check' THEN c.eps ELSE c.eps_ctl END,
                                              c.bound, c.neighbor,
                                              jl_sketch(k => c.k, noise => 'gaussian', delta => c.delta),
                                              key => 'stat') AS z
                    FROM generate_series(1, c.nrel) r) rel) t
GROUP BY 1, 2, 3, 4;

CREATE TEMP TABLE c5_ev AS
SELECT c.name, r.role, m, m * c.sigma / 4 AS tau, c.nrel AS n, c.delta,
       coalesce((SELECT sum(cnt) FILTER (WHERE src = 'x') FROM c5_hist h
                 WHERE h.name = c.name AND h.role = r.role AND h.bucket >= m), 0)::bigint AS cx,
       coalesce((SELECT sum(cnt) FILTER (WHERE src = 'x''') FROM c5_hist h
                 WHERE h.name = c.name AND h.role = r.role AND h.bucket >= m), 0)::bigint AS cxp
FROM c5_info c, (VALUES ('check'), ('control')) r(role), generate_series(1, 12) m;

CREATE TEMP TABLE c5_lb AS
SELECT *, CASE WHEN lo_xp > delta THEN ln((lo_xp - delta) / up_x) ELSE '-Infinity' END AS lb,
       CASE WHEN cx > 0 AND cxp > 0 THEN ln(cxp::float8 / cx) END AS point
FROM (SELECT e.*,
             stat_binom_lower(cxp, n, stat_alpha() / 24) AS lo_xp,
             stat_binom_upper(cx, n, stat_alpha() / 24) AS up_x
      FROM c5_ev e) s;

CREATE TEMP TABLE c5 AS
SELECT c.*, b.role, b.m AS best_m, b.tau, b.cx, b.cxp, b.lb AS eps_lb, b.point,
       format('gaussian %s neighbours d=%s k=%s bound=%s, claimed (eps=%s, delta=%s)%s, N=%s per side',
              c.neighbor, c.d, c.k, c.bound, c.eps, c.delta,
              CASE b.role WHEN 'control' THEN ', releases made with eps=' || c.eps_ctl ELSE '' END,
              c.nrel) AS label
FROM c5_info c
JOIN (SELECT DISTINCT ON (name, role) * FROM c5_lb ORDER BY name, role, lb DESC) b
  USING (name);

SELECT stat_record(name, 'exact', format('%s neighbour at the worst case of P: |1 - bound sens2(P) / projection_sensitivity|', neighbor),
                   abs(1 - bound * sens2 / proj_sens), 0, 1e-9,
                   format('bound * sens2 %s, projection_sensitivity %s, sigma %s, ||ypb||_2 / sigma %s, delta_holding %s',
                          stat_g(bound * sens2), stat_g(proj_sens), stat_g(sigma),
                          stat_g((SELECT sqrt(sum(q * q)) FROM unnest(ypb) q) / sigma), stat_g(delta_holding)))
FROM c5 WHERE role = 'check' ORDER BY name;

SELECT stat_record(name, role, 'empirical (epsilon, delta), ' || label || ': eps_lb',
                   eps_lb, '-Infinity', eps,
                   format('best event T >= %s: %s of x, %s of x'' (point estimate ln ratio %s); per event eps_lb: %s',
                          stat_g(tau), cx, cxp, stat_g(point),
                          (SELECT string_agg(format('%s:%s', l.m, stat_g(l.lb)), ' ' ORDER BY l.m)
                           FROM c5_lb l WHERE l.name = c5.name AND l.role = c5.role)))
FROM c5 ORDER BY name, role;
