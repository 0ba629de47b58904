-- Check 11: empirical (epsilon, delta) of the graph release for cut queries
-- (jl_release with jl_graph over an edge table, docs/design/graph_cuts.md) on the
-- worst-case pair of its neighbours, one edge row replaced by any other.
--
-- G0: n = 30 vertices, edges a cycle on 5..30 and the chords {i, i+5}
-- (i = 5..25), one row each; the vertices 1 to 4 are isolated.  One more
-- row (unit 1000) is the edge {3, 4} in G and {1, 2} in G': the two
-- tables are neighbours (that row replaced).  With w the release's overlay
-- weight (public: a function of n, r, epsilon, delta, recorded in
-- jl_releases), d = e_1 - e_2 and d' = e_3 - e_4, L_G0 d = L_G0 d' = 0, so
-- Sigma(G0) is w on both, d and d' are orthogonal, and the edge row adds
-- (1 - w/n) d d^T (G') or (1 - w/n) d' d'^T (G): the whitened rows are
-- orthogonal of norm rho, rho^2 = 2 (1 - w/n) / w = 2 / w0, the pair the
-- covariance accountant proves to be the worst (its lift l = 1 / rho gives
-- w0 = 2 l^2).  The release's law differs between G and G' only along d
-- and d', so the optimal test looks at
--   T12 = sum_k (R[k,1] - R[k,2])^2 / (2 w),  T34 = sum_k (R[k,3] - R[k,4])^2 / (2 w)
-- (sketches of vertices 1 to 4): T12 is (1 + rho^2) chi-square(r) under G'
-- and chi-square(r) under G, T34 the reverse, independent; the privacy
-- loss of G' against G is increasing in T12 - T34 (by rho^2 / (2 (1 +
-- rho^2)) per unit) and that of G against G' decreasing.
-- With z = (T12 - T34) / sqrt(4 r), the events, fixed a priori, are
--   S_m+ = {z > m} (for P(S | G') <= e^eps P(S | G) + delta) and
--   S_m- = {z < m} (for P(S | G) <= e^eps P(S | G') + delta),
-- m = -3, -2.5, ..., 8 (46 events).  From N releases of G and N of G'
-- (independent, each through jl_release with fresh Y), exact
-- Clopper-Pearson bounds at alpha_b = 5e-8 / 92 (one-sided, a lower bound
-- for the side the event favours and an upper bound for the other) give
--   eps_lb = max over the events of ln((lower(P1(S)) - delta) / upper(P0(S))).
-- (epsilon, delta)-DP means P1(S) <= e^epsilon P0(S) + delta for every S, so
-- by the union bound over the 92 confidence bounds eps_lb <= epsilon except
-- with probability 5e-8: the false-failure rate of the check line.
--   11.a  r 64, epsilon 1, delta 0.05, N = 400 per side (n = 30: the
--         weight w0 = 20.41 this needs is not below 20 vertices).
-- Negative control: the same events, bounds and claim (epsilon 1, delta
-- 0.05) applied to releases made at epsilon_release = 16 (overlay weight
-- w0 2.877 where the claim needs 20.41, about 7 times too small), N = 200
-- per side; it must find eps_lb > 1.  The chance that it does not (a
-- false failure of the control line) is below 1e-15: computed exactly
-- from the binomial laws of one event alone (S_1+, P(S | G') = 0.9045
-- against P(S | G) = 0.00196, the law of T12 - T34 by quadrature).
-- What the check can see: at the expected counts of 400 releases a side
-- (computed from the same laws), eps_lb is -0.11 for releases made at
-- epsilon 1 (an event holding nearly all N releases of both sides), 0.89
-- at epsilon 4 (a weight 2.6 times too small: not caught) and 1.81 at
-- epsilon 8 (4.3 times too small: caught).  The point estimates
-- ln((P1 - delta) / P0) of the same events reach 0.99 at epsilon 1: the
-- pair is the accountant's worst case, but N is far too small for bounds
-- near epsilon.  The check catches blatant violations only; the fine
-- calibration is the unit test's (test/unit/test_graph.c: a Monte Carlo of
-- the exact densities, half the weight rejected).
-- The weights w0 above were checked against a scipy quadrature of the
-- worst-case pair's privacy loss (delta / 1.001 for the accountant's
-- margin).
-- The bounds: exact binomial tails summed in log space, bisected; an
-- 'exact' line checks them against their closed forms at 0 and N
-- successes and against lib.sql's Chernoff bounds, which they must not be
-- wider than.

CREATE SCHEMA c11;
CREATE TABLE c11.g (id int PRIMARY KEY, u int, v int);
INSERT INTO c11.g
SELECT i, i, CASE WHEN i = 30 THEN 5 ELSE i + 1 END FROM generate_series(5, 30) i
UNION ALL
SELECT 100 + i, i, i + 5 FROM generate_series(5, 25) i
UNION ALL
SELECT 1000, 3, 4;
CREATE TABLE c11.gp AS SELECT id, CASE WHEN id = 1000 THEN 1 ELSE u END AS u,
                              CASE WHEN id = 1000 THEN 2 ELSE v END AS v FROM c11.g;
ALTER TABLE c11.gp ADD PRIMARY KEY (id);
-- the caps hold 10 releases (the spending is reset every 10 below)
SELECT jl_protect(t, 'id', ARRAY[jl_edge('u', 'v', 30)], epsilon_cap => 1000, delta_cap => 0.9)
FROM (VALUES ('c11.g'::regclass), ('c11.gp')) v(t);
CREATE TABLE c11.cfg (name text, kind text, n int, r int, eps_claim float8, eps_release float8,
                      delta float8, nrel int);
INSERT INTO c11.cfg VALUES ('11.a', 'check',   30, 64, 1.0,  1.0, 0.05, 400),
                           ('11.a', 'control', 30, 64, 1.0, 16.0, 0.05, 200);
CREATE TABLE c11.t_stat (kind text, side text, w float8, w0 float8, z float8);

DO $$
DECLARE
  c record;
  side text;
  j int;
  s float8[][];
  w float8;
  w0 float8;
BEGIN
  FOR c IN SELECT * FROM c11.cfg LOOP
    FOREACH side IN ARRAY ARRAY['g', 'gp'] LOOP
      FOR j IN 1..c.nrel LOOP
        PERFORM jl_release(('c11.' || side)::regclass, 'c11.rel', c.eps_release,
                           jl_graph(c.r, c.delta), key => 'stat');
        SELECT (info->>'w')::float8, (info->>'w0')::float8 INTO w, w0
        FROM jl_releases WHERE target = 'c11.rel'::regclass;
        INSERT INTO c11.t_stat
        SELECT c.kind, side, w, w0,
               ((SELECT sum((p1 - p2) ^ 2) FROM unnest(a1.sketch, a2.sketch) u(p1, p2)) / (2 * w)
                - (SELECT sum((p3 - p4) ^ 2) FROM unnest(a3.sketch, a4.sketch) u(p3, p4)) / (2 * w))
               / sqrt(4.0 * c.r)
        FROM c11.rel a1, c11.rel a2, c11.rel a3, c11.rel a4
        WHERE a1.vertex = 1 AND a2.vertex = 2 AND a3.vertex = 3 AND a4.vertex = 4;
        DROP TABLE c11.rel;
        -- commit now and then (the locks of hundreds of tables); the
        -- releases would exhaust the protected table's caps, so its
        -- spending is reset (an audit, not a release of data), and the
        -- reset committed before the next charge
        IF j % 10 = 0 THEN
          PERFORM jl_reset(('c11.' || side)::regclass);
          COMMIT;
        END IF;
      END LOOP;
    END LOOP;
  END LOOP;
END $$;

-- Clopper-Pearson bounds from exact binomial sums:
-- sum_{i = lo..hi} C(n, i) p^i (1 - p)^(n - i), 0 < p < 1, its terms in
-- log space by the ratio of consecutive terms
CREATE FUNCTION c11.binom_sum(lo int, hi int, n int, p float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  lq float8 := ln(p) - ln(1 - p);
  t float8 := n * ln(1 - p) + lo * lq;    -- ln of the term i = lo
  s float8 := 0;
BEGIN
  FOR i IN 1..lo LOOP t := t + ln((n - i + 1)::float8 / i); END LOOP;
  FOR i IN lo..hi LOOP
    IF i > lo THEN t := t + ln((n - i + 1)::float8 / i) + lq; END IF;
    IF t > -700 THEN s := s + exp(t); END IF;
  END LOOP;
  RETURN s;
END $$;

-- upper U: P(X <= c | U) = alpha; lower L: P(X >= c | L) = alpha (the
-- conservative end of the bisection is returned)
CREATE FUNCTION c11.cp_upper(c bigint, n bigint, alpha float8) RETURNS float8
LANGUAGE plpgsql STABLE AS $$
DECLARE
  lo float8 := c::float8 / n;
  hi float8 := 1;
  mid float8;
BEGIN
  IF c >= n THEN RETURN 1; END IF;
  FOR i IN 1..55 LOOP
    mid := (lo + hi) / 2;
    IF mid <= lo OR mid >= hi THEN EXIT; END IF;
    IF c11.binom_sum(0, c::int, n::int, mid) > alpha THEN lo := mid; ELSE hi := mid; END IF;
  END LOOP;
  RETURN hi;
END $$;

CREATE FUNCTION c11.cp_lower(c bigint, n bigint, alpha float8) RETURNS float8
LANGUAGE plpgsql STABLE AS $$
DECLARE
  lo float8 := 0;
  hi float8 := c::float8 / n;
  mid float8;
BEGIN
  IF c <= 0 THEN RETURN 0; END IF;
  FOR i IN 1..55 LOOP
    mid := (lo + hi) / 2;
    IF mid <= lo OR mid >= hi THEN EXIT; END IF;
    IF c11.binom_sum(c::int, n::int, n::int, mid) > alpha THEN hi := mid; ELSE lo := mid; END IF;
  END LOOP;
  RETURN lo;
END $$;

CREATE TEMP TABLE c11_ab AS SELECT stat_alpha() / 92 AS ab;

SELECT stat_record('11.a', 'exact',
                   'Clopper-Pearson bounds: closed forms 1 - alpha^(1/N) at 0 and alpha^(1/N) at N successes (N 200, 400), within the Chernoff bounds of lib.sql at 0, 5, 40, 200 of 400',
                   (abs(c11.cp_upper(0, 400, ab) / (1 - ab ^ (1.0 / 400)) - 1) < 1e-9
                    AND abs(c11.cp_lower(400, 400, ab) / ab ^ (1.0 / 400) - 1) < 1e-9
                    AND abs(c11.cp_upper(0, 200, ab) / (1 - ab ^ (1.0 / 200)) - 1) < 1e-9
                    AND abs(c11.cp_lower(200, 200, ab) / ab ^ (1.0 / 200) - 1) < 1e-9
                    AND (SELECT bool_and(c11.cp_upper(c, 400, ab) <= stat_binom_upper(c, 400, ab) * (1 + 1e-12)
                                         AND c11.cp_lower(c, 400, ab) >= stat_binom_lower(c, 400, ab) * (1 - 1e-12)
                                         AND c11.cp_upper(c, 400, ab) > c / 400.0
                                         AND c11.cp_lower(c, 400, ab) < c / 400.0 + (c = 0)::int)
                         FROM unnest(ARRAY[0, 5, 40, 200]) c))::int,
                   1, 1,
                   format('40 of 400: Clopper-Pearson [%s, %s], Chernoff [%s, %s]',
                          stat_g(c11.cp_lower(40, 400, ab)), stat_g(c11.cp_upper(40, 400, ab)),
                          stat_g(stat_binom_lower(40, 400, ab)), stat_g(stat_binom_upper(40, 400, ab))))
FROM c11_ab;

SELECT stat_record(c.name, 'exact',
                   format('every release of the %s has one overlay weight, w = n w0 / (n + w0) < n', c.kind),
                   (max(t.w) = min(t.w) AND max(t.w0) = min(t.w0)
                    AND abs(min(t.w) / (c.n * min(t.w0) / (c.n + min(t.w0))) - 1) < 1e-12
                    AND min(t.w) < c.n)::int, 1, 1,
                   format('epsilon_release %s: w %s, w0 %s, rho^2 = 2/w0 = %s; %s releases',
                          c.eps_release, stat_g(min(t.w)), stat_g(min(t.w0)), stat_g(2 / min(t.w0)), count(*)))
FROM c11.cfg c JOIN c11.t_stat t USING (kind)
GROUP BY c.name, c.kind, c.n, c.eps_release ORDER BY c.kind;

-- counts per event: c1 on the side the event favours, c0 on the other
CREATE TEMP TABLE c11_ev AS
SELECT c.name, c.kind, c.eps_claim, c.eps_release, c.delta, c.nrel AS n, e.dir, m,
       count(*) FILTER (WHERE t.side = CASE e.dir WHEN '+' THEN 'gp' ELSE 'g' END
                          AND CASE e.dir WHEN '+' THEN t.z > m ELSE t.z < m END) AS c1,
       count(*) FILTER (WHERE t.side = CASE e.dir WHEN '+' THEN 'g' ELSE 'gp' END
                          AND CASE e.dir WHEN '+' THEN t.z > m ELSE t.z < m END) AS c0
FROM c11.cfg c JOIN c11.t_stat t USING (kind),
     (VALUES ('+'), ('-')) e(dir), generate_series(-6, 16) m2, LATERAL (SELECT m2 / 2.0::float8 AS m) mm
GROUP BY c.name, c.kind, c.eps_claim, c.eps_release, c.delta, c.nrel, e.dir, m;

CREATE TEMP TABLE c11_lb AS
SELECT *, CASE WHEN lo1 > delta THEN ln((lo1 - delta) / up0) ELSE '-Infinity' END AS lb
FROM (SELECT e.*, c11.cp_lower(c1, n, ab) AS lo1, c11.cp_upper(c0, n, ab) AS up0
      FROM c11_ev e, c11_ab) s;

CREATE TEMP TABLE c11 AS
SELECT DISTINCT ON (name, kind) *
FROM c11_lb ORDER BY name, kind, lb DESC, m;

SELECT stat_record(name, kind,
                   CASE kind
                     WHEN 'check' THEN format('empirical epsilon, worst-case replacement neighbours G + {3,4}, G + {1,2} (n 30, r 64), epsilon %s, delta %s, N=%s per side: eps_lb <= epsilon',
                                              eps_claim, delta, n)
                     ELSE format('releases made at epsilon %s, audited against the claim epsilon %s, delta %s (N=%s per side)',
                                 eps_release, eps_claim, delta, n) END,
                   lb, '-Infinity', eps_claim,
                   format('best event z %s %s: %s of %s releases on the favoured side, %s on the other; bounds [%s, %s]; per event (z > m | z < m): %s',
                          dir, m, c1, n, c0, stat_g(lo1), stat_g(up0),
                          (SELECT string_agg(format('%s:%s/%s|%s/%s', l.m, a.c1, a.c0, l.c1, l.c0), ' ' ORDER BY l.m)
                           FROM c11_lb a JOIN c11_lb l USING (name, kind, m)
                           WHERE a.name = c11.name AND a.kind = c11.kind AND a.dir = '+' AND l.dir = '-'
                             AND l.m IN (-2, -1, 0, 1, 2, 3, 4, 6, 8))))
FROM c11 ORDER BY kind;
