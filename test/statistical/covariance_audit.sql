-- Check 9: empirical (epsilon, delta) of the covariance release on the
-- worst-case neighbours (docs/design/covariance.md).
--
-- A = one row (1, 0), A' = one row (0, 1), each a protected table (one
-- unit, jl_vector x in [0, 1] at weight 1: the encoding is x) declared for
-- row neighbours with row clip 1, so the mechanism's norm bound is C = 1
-- (its lift that of 0.3's clip_norm 1), released by jl_release with
-- jl_covariance_mechanism; r = 1: the shared
-- part of the covariance is l^2 I, and the whitened rows are orthogonal of
-- norm 1/l, the pair the accountant proves to be the worst.  The privacy
-- loss of a release y is increasing in T(y) = y_1^2 - y_2^2, so the events
-- are S_m = {T > m l^2}, m in {1, 2, 3, 4, 6, 8}, fixed a priori (l is public:
-- a function of r, epsilon, delta, C).  From N releases of A and N
-- of A' (independent, each with fresh Y), Chernoff binomial bounds (lib.sql)
-- at alpha_b = 5e-8 / 12 each give
--   eps_lb = max_m ln((lower(P(S_m | A)) - delta) / upper(P(S_m | A'))).
-- (epsilon, delta)-DP means P(S | A) <= e^epsilon P(S | A') + delta for every
-- S, so by the union bound over the 12 confidence bounds eps_lb <= epsilon
-- except with probability 5e-8.  (The pair is symmetric under swapping the
-- coordinates, so the other direction gives the same law.)
-- Negative control: the same events and bounds applied to releases made
-- with epsilon_release = 8 (a lift about 2.5 times too small for the claim
-- epsilon = 1); it must find eps_lb > 1.

CREATE SCHEMA c9;
CREATE TABLE c9.a AS SELECT 1 AS id, '{1,0}'::float8[] AS x;
CREATE TABLE c9.b AS SELECT 1 AS id, '{0,1}'::float8[] AS x;
ALTER TABLE c9.a ADD PRIMARY KEY (id);
ALTER TABLE c9.b ADD PRIMARY KEY (id);
-- the caps hold 50 releases (the spending is reset every 50 below)
SELECT jl_protect(t, 'id', ARRAY[jl_vector('x', 2, 0, 1)], neighbor => 'row', row_clip => 1,
                  epsilon_cap => 1000, delta_cap => 0.5)
FROM (VALUES ('c9.a'::regclass), ('c9.b')) v(t);
CREATE TABLE c9.cfg (name text, kind text, eps_claim float8, eps_release float8, delta float8, n int);
INSERT INTO c9.cfg VALUES ('9.a', 'check', 1.0, 1.0, 1e-3, 4000),
                          ('9.a', 'control', 1.0, 8.0, 1e-3, 10000);
CREATE TABLE c9.t_stat (kind text, side text, t float8);
CREATE TABLE c9.lift (kind text, l2 float8);

DO $$
DECLARE
  c record;
  side text;
  j int;
  y float8[];
BEGIN
  FOR c IN SELECT * FROM c9.cfg LOOP
    FOREACH side IN ARRAY ARRAY['a', 'b'] LOOP
      FOR j IN 1..c.n LOOP
        PERFORM jl_release(('c9.' || side)::regclass, 'c9.rel', c.eps_release,
                           jl_covariance_mechanism(1, c.delta), key => 'stat');
        SELECT r.y INTO y FROM c9.rel r;
        IF j = 1 AND side = 'a' THEN
          INSERT INTO c9.lift SELECT c.kind, noise_variance FROM jl_releases WHERE target = 'c9.rel'::regclass;
        END IF;
        INSERT INTO c9.t_stat VALUES (c.kind, side, y[1] ^ 2 - y[2] ^ 2);
        DROP TABLE c9.rel;
        -- each release's table is created and dropped: commit now and then,
        -- so that the locks of thousands of tables do not accumulate; the
        -- thousands of releases would exhaust the protected table's caps,
        -- so its spending is reset (an audit, not a release of data)
        IF j % 50 = 0 THEN
          PERFORM jl_reset(('c9.' || side)::regclass);
          COMMIT;
        END IF;
      END LOOP;
    END LOOP;
  END LOOP;
END $$;

CREATE TEMP TABLE c9 AS
SELECT c.name, c.kind, c.eps_claim, c.eps_release, c.delta, c.n, l.l2, m,
       count(*) FILTER (WHERE s.side = 'a' AND s.t > m * l.l2) AS ca,
       count(*) FILTER (WHERE s.side = 'b' AND s.t > m * l.l2) AS cb
FROM c9.cfg c JOIN c9.lift l USING (kind) JOIN c9.t_stat s USING (kind),
     unnest(ARRAY[1, 2, 3, 4, 6, 8]) m
GROUP BY c.name, c.kind, c.eps_claim, c.eps_release, c.delta, c.n, l.l2, m;

CREATE TEMP TABLE c9_lb AS
SELECT name, kind, eps_claim, eps_release, delta, n, l2,
       max(CASE WHEN stat_binom_lower(ca, n, stat_alpha() / 12) > delta
                THEN ln((stat_binom_lower(ca, n, stat_alpha() / 12) - delta)
                        / stat_binom_upper(cb, n, stat_alpha() / 12))
                ELSE '-Infinity' END) AS eps_lb,
       string_agg(format('m%s: %s/%s', m, ca, cb), ', ' ORDER BY m) AS counts
FROM c9 GROUP BY name, kind, eps_claim, eps_release, delta, n, l2;

SELECT stat_record(name, 'check',
                   format('empirical epsilon, worst-case neighbours, r 1, epsilon %s, delta %s, N=%s per side: eps_lb <= epsilon',
                          eps_claim, delta, n),
                   eps_lb, '-Infinity', eps_claim,
                   format('l^2 %s; releases of A / A'' in S_m: %s', stat_g(l2), counts))
FROM c9_lb WHERE kind = 'check';
SELECT stat_record(name, 'control',
                   format('releases made at epsilon %s, audited against the claim %s (N=%s per side)',
                          eps_release, eps_claim, n),
                   eps_lb, '-Infinity', eps_claim,
                   format('l^2 %s; %s', stat_g(l2), counts))
FROM c9_lb WHERE kind = 'control';
