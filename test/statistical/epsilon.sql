-- Check 3: empirical epsilon on neighbouring inputs.
--
-- Neighbours x = 0 and x' at the worst case of the realized P, found by the
-- curator with jl_project (so the bound is as informative as it can be):
--   attribute  x' = B e_i, i the attribute with the largest row L1 norm of P;
--   row        x' = R (1 - 1e-12) P s / ||P s||_2, s the sign vector of
--              {+-1}^k maximizing ||P s||_2 (all 2^(k-1) enumerated);
-- in both cases ||(x' - x) P||_1 is the L1 sensitivity of P (checked against
-- jl_release_info's projection_sensitivity, relative 1e-9).
-- With ybar, y'bar the projections of x, x' on the release grid and b the
-- claimed scale, the Laplace privacy-loss statistic of a release z is
--   T(z) = sum_j (|z_j - y'bar_j| - |z_j - ybar_j|) / b   (<= Lmax <= epsilon)
-- and the events, fixed a priori, are S_m = {T >= m epsilon / 10}, m = 3..8.
-- From N releases of x and N of x' (independent), Chernoff binomial bounds
-- (lib.sql) at alpha_b = 5e-8 / 12 each give
--   eps_lb = max_m ln(lower(P(S_m | x)) / upper(P(S_m | x'))).
-- Pure epsilon-DP means P(S | x) <= e^epsilon P(S | x') for every S, so by the
-- union bound over the 12 confidence bounds, eps_lb <= epsilon except with
-- probability 5e-8 (no approximation).
-- Negative control: the same check, same events and same claimed b, applied
-- to releases made with epsilon_release = 4 epsilon (noise four times too
-- small); it must find eps_lb > epsilon.

CREATE TEMP TABLE c3_cfg (name text, d int, k int, eps float8, neighbor jl_neighbor,
                          bound float8, eps_ctl float8, nrel int);
INSERT INTO c3_cfg VALUES
  ('3.a', 10, 20, 1.0, 'attribute', 1.0, 4.0, 200000),
  ('3.b', 10, 10, 1.0, 'row',     1.0, 4.0, 200000);

CREATE TEMP TABLE c3_p AS		-- row i of P
SELECT c.name, i, jl_project(stat_unit(c.d, i), jl_sketch(k => c.k), 'stat') AS p
FROM c3_cfg c, generate_series(1, c.d) i;

-- attribute: the attribute with the largest row L1 norm
CREATE TEMP TABLE c3_elem AS
SELECT DISTINCT ON (c.name) c.name, p.i,
       (SELECT sum(abs(v)) FROM unnest(p.p) v) AS sens1,
       (SELECT array_agg(c.bound * v ORDER BY o)
        FROM unnest(stat_unit(c.d, p.i)) WITH ORDINALITY u(v, o)) AS xp
FROM c3_cfg c JOIN c3_p p USING (name)
WHERE c.neighbor = 'attribute'
ORDER BY c.name, 3 DESC;

-- row: the sign vector s maximizing ||P s||_2 (s_1 = +1 by symmetry)
CREATE TEMP TABLE c3_ps AS
SELECT c.name, m, p.i,
       (SELECT sum(v * CASE WHEN j > 1 AND (m >> (j::int - 2)) & 1 = 1 THEN -1 ELSE 1 END)
        FROM unnest(p.p) WITH ORDINALITY u(v, j)) AS ps
FROM c3_cfg c JOIN c3_p p USING (name),
     generate_series(0, (1 << (c.k - 1)) - 1) m
WHERE c.neighbor = 'row';

CREATE TEMP TABLE c3_row AS
SELECT DISTINCT ON (s.name) s.name, s.m, s.norm AS sens1,
       (SELECT array_agg(c.bound * (1 - 1e-12) * ps / s.norm ORDER BY i)
        FROM c3_ps q WHERE q.name = s.name AND q.m = s.m) AS xp
FROM (SELECT name, m, sqrt(sum(ps * ps)) AS norm FROM c3_ps GROUP BY name, m) s
JOIN c3_cfg c USING (name)
ORDER BY s.name, s.norm DESC;

CREATE TEMP TABLE c3_info AS
SELECT c.*, n.sens1, n.xp,
       (info->>'scale')::float8 AS scale,
       (info->>'grid')::float8 AS g,
       (info->>'projection_sensitivity')::float8 AS proj_sens,
       (info->>'epsilon')::float8 AS eps_info,
       array_fill(0::float8, ARRAY[c.k]) AS yb,
       stat_project_grid(n.xp, c.k, (info->>'grid')::float8) AS ypb
FROM c3_cfg c
JOIN (SELECT name, sens1, xp FROM c3_elem UNION ALL SELECT name, sens1, xp FROM c3_row) n
  USING (name),
     LATERAL (SELECT jl_release_info(c.d, c.eps, c.bound, c.neighbor, jl_sketch(k => c.k), key => 'stat') AS info) i;

-- releases: role 'check' at the claimed epsilon, 'control' at eps_ctl
CREATE TEMP TABLE c3_t AS
SELECT name, role, src,
       (SELECT sum(abs(u.z - u.b) - abs(u.z - u.a)) FROM unnest(z, yb, ypb) u(z, a, b)) / scale AS t
FROM (SELECT c.name, s.role, s.src, c.yb, c.ypb, c.scale,
             jl_private_release(CASE s.src WHEN 'x' THEN array_fill(0::float8, ARRAY[c.d])
                                           ELSE c.xp END,
                                CASE s.role WHEN 'check' THEN c.eps ELSE c.eps_ctl END,
                                c.bound, c.neighbor, jl_sketch(k => c.k), key => 'stat') AS z
      FROM c3_info c,
           (VALUES ('check', 'x'), ('check', 'x''' ), ('control', 'x'), ('control', 'x''')) s(role, src),
           generate_series(1, c.nrel) r) s;

CREATE TEMP TABLE c3_hist AS
SELECT t.name, t.role, t.src, floor(10 * t.t / c.eps)::int AS bucket, count(*) AS cnt
FROM c3_t t JOIN c3_cfg c USING (name)
GROUP BY 1, 2, 3, 4;

-- S_m = {T >= m eps / 10}, evaluated as floor(10 T / eps) >= m
CREATE TEMP TABLE c3_ev AS
SELECT c.name, r.role, m, m * c.eps / 10 AS tau, c.nrel AS n,
       coalesce((SELECT sum(cnt) FILTER (WHERE src = 'x') FROM c3_hist h
                 WHERE h.name = c.name AND h.role = r.role AND h.bucket >= m), 0)::bigint AS cx,
       coalesce((SELECT sum(cnt) FILTER (WHERE src = 'x''') FROM c3_hist h
                 WHERE h.name = c.name AND h.role = r.role AND h.bucket >= m), 0)::bigint AS cxp
FROM c3_cfg c, (VALUES ('check'), ('control')) r(role), generate_series(3, 8) m;

CREATE TEMP TABLE c3_lb AS
SELECT *, CASE WHEN lo_x > 0 THEN ln(lo_x / up_xp) ELSE '-Infinity' END AS lb,
       CASE WHEN cx > 0 AND cxp > 0 THEN ln(cx::float8 / cxp) END AS point
FROM (SELECT e.*,
             stat_binom_lower(cx, n, stat_alpha() / 12) AS lo_x,
             stat_binom_upper(cxp, n, stat_alpha() / 12) AS up_xp
      FROM c3_ev e) s;

CREATE TEMP TABLE c3 AS
SELECT c.*, b.role, b.m AS best_m, b.tau, b.cx, b.cxp, b.lb AS eps_lb, b.point,
       (SELECT sum(abs(a - q)) FROM unnest(c.yb, c.ypb) u(a, q)) / c.scale AS lmax,
       format('%s neighbours d=%s k=%s bound=%s, claimed eps=%s%s, N=%s per side', c.neighbor,
              c.d, c.k, c.bound, c.eps,
              CASE b.role WHEN 'control' THEN ', releases made with eps=' || c.eps_ctl ELSE '' END,
              c.nrel) AS label
FROM c3_info c
JOIN (SELECT DISTINCT ON (name, role) * FROM c3_lb ORDER BY name, role, lb DESC) b
  USING (name);

SELECT stat_record(name, 'exact', format('%s neighbour at the worst case of P: |1 - bound sens1(P) / projection_sensitivity|', neighbor),
                   abs(1 - bound * sens1 / proj_sens), 0, 1e-9,
                   format('bound * sens1 %s, projection_sensitivity %s, Lmax = ||y''bar - ybar||_1 / scale = %s, epsilon (info) %s',
                          stat_g(bound * sens1), stat_g(proj_sens), stat_g(lmax), stat_g(eps_info)))
FROM c3 WHERE role = 'check' ORDER BY name;

SELECT stat_record(name, role, 'empirical epsilon, ' || label || ': eps_lb',
                   eps_lb, '-Infinity', eps,
                   format('best event T >= %s: %s of x, %s of x'' (point estimate ln ratio %s); per event eps_lb: %s',
                          stat_g(tau), cx, cxp, stat_g(point),
                          (SELECT string_agg(format('%s:%s', l.tau, stat_g(l.lb)), ' ' ORDER BY l.m)
                           FROM c3_lb l WHERE l.name = c3.name AND l.role = c3.role)))
FROM c3 ORDER BY name, role;
