-- Check 10: the graph release for cut queries (Blocki et al.,
-- docs/design/graph_cuts.md).
--
-- G: 200 vertices, i joined to i+1, i+2, i+3 and i+17 (mod 200), 800 edges,
-- each a row of an edge table (a unit id, jl_edge) released by jl_release
-- with jl_graph: one edge row replaced by any other is the neighbour, so
-- the overlay weight is w0 = 2 l^2 (l the covariance accountant's lift of
-- rows of norm 1) and w = n w0 / (n + w0); the estimator's law below
-- depends only on w.
-- Two sets: S1 = {1, 21, ..., 181} (|S| = 10, a small cut) and S2 = the odd
-- vertices (|S| = 100).  With w the release's overlay weight,
-- q = 1_S^T Sigma 1_S = (w/n) s (n - s) + (1 - w/n) cut, the estimate's
-- error e is (q chi-square(r)/r - q) / (1 - w/n): unbiased with standard
-- deviation s_e = sqrt(2/r) q / (1 - w/n).
--   10.a  M = 300 releases (r 100, epsilon 2, delta 1e-6), each set:
--         z = mean(e) / (s_e / sqrt M)
--   10.b  the same: sample variance of e against s_e^2, (S2 - s_e^2) / SE
--   10.c  jl_cut_size_stddev: its mean against s_e (unbiased plug-in)
-- Negative controls, the same statistic and band:
--   10.a  the estimate computed with the paper's w0 in place of the
--         released w (the overlay term subtracted at the wrong weight)
--   10.b  the standard deviation of the cut term alone, sqrt(2/r) cut
--   10.c  a plug-in without the factor 1 / (1 - w/n)
-- Z is the two-sided 5e-8 normal quantile (lib.sql).

CREATE SCHEMA c10;
CREATE TABLE c10.edges AS
SELECT row_number() OVER () AS id, i AS u, ((i - 1 + k) % 200) + 1 AS v
FROM generate_series(1, 200) i, unnest(ARRAY[1, 2, 3, 17]) k;
ALTER TABLE c10.edges ADD PRIMARY KEY (id);
-- 300 releases at epsilon 2, delta 1e-6: caps above that (an audit of the
-- mechanism, not of the budget)
SELECT jl_protect('c10.edges', 'id', ARRAY[jl_edge('u', 'v', 200)], epsilon_cap => 1000, delta_cap => 0.01);
CREATE TABLE c10.sets (name text, s int[]);
INSERT INTO c10.sets VALUES
  ('S1 (|S|=10)', ARRAY(SELECT generate_series(1, 200, 20))),
  ('S2 (|S|=100)', ARRAY(SELECT generate_series(1, 200, 2)));
CREATE FUNCTION c10.truth(s int[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT count(*)::float8 FROM c10.edges WHERE (u = ANY (s)) <> (v = ANY (s)) $$;

CREATE TABLE c10.runs (name text, run int, est float8, sd float8, w float8, w0 float8);
DO $$
DECLARE
  j int;
  t text;
BEGIN
  FOR j IN 1..300 LOOP
    t := 'c10.rel_' || j;
    PERFORM jl_release('c10.edges', t, 2.0, jl_graph(100, 1e-6), key => 'stat');
    INSERT INTO c10.runs
    SELECT name, j, jl_cut_size(t::regclass, s), jl_cut_size_stddev(t::regclass, s),
           (SELECT (info->>'w')::float8 FROM jl_releases WHERE target = t::regclass),
           (SELECT (info->>'w0')::float8 FROM jl_releases WHERE target = t::regclass)
    FROM c10.sets;
    EXECUTE 'DROP TABLE ' || t;
  END LOOP;
END $$;

CREATE TEMP TABLE c10 AS
SELECT r.name, count(*)::float8 AS m, 100 AS r, c10.truth(s.s) AS cut,
       array_length(s.s, 1)::float8 AS ss, 200.0::float8 AS n,
       min(w) AS w, max(w) AS w_max, min(w0) AS w0,
       avg(est - c10.truth(s.s)) AS mean_e, var_samp(est - c10.truth(s.s)) AS s2e,
       avg(sd) AS mean_sd, stddev_samp(sd) AS sd_sd
FROM c10.runs r JOIN c10.sets s USING (name) GROUP BY r.name, s.s;
ALTER TABLE c10 ADD COLUMN q float8, ADD COLUMN se float8, ADD COLUMN m4 float8,
  ADD COLUMN mean_wrong float8, ADD COLUMN mean_sd_wrong float8, ADD COLUMN sd_sd_wrong float8;
UPDATE c10 SET q = (w / n) * ss * (n - ss) + (1 - w / n) * cut;
UPDATE c10 SET se = sqrt(2.0 / r) * q / (1 - w / n),
  m4 = (SELECT avg((est - c10.cut - c10.mean_e) ^ 4) FROM c10.runs WHERE c10.runs.name = c10.name),
  -- the estimate from the same q-hat, with w0 for w
  mean_wrong = (SELECT avg(((est * (1 - w / c10.n) + (w / c10.n) * c10.ss * (c10.n - c10.ss))
                            - (w0 / c10.n) * c10.ss * (c10.n - c10.ss)) / (1 - w0 / c10.n) - c10.cut)
                FROM c10.runs WHERE c10.runs.name = c10.name),
  mean_sd_wrong = (SELECT avg(sd * (1 - w / c10.n)) FROM c10.runs WHERE c10.runs.name = c10.name),
  sd_sd_wrong = (SELECT stddev_samp(sd * (1 - w / c10.n)) FROM c10.runs WHERE c10.runs.name = c10.name);

SELECT stat_record('10.a', 'exact', 'every release has the same overlay weight w (public inputs only), ' || name,
                   (w_max = w)::int, 1, 1, format('w %s, w0 %s', stat_g(w), stat_g(w0)))
FROM c10;
SELECT stat_record('10.a', 'check', format('cut estimate mean, %s, M=%s releases r=%s: z = mean(e) / (s_e/sqrt M)', name, m, r),
                   mean_e / (se / sqrt(m)), -stat_z(), stat_z(),
                   format('cut %s, mean error %s, s_e %s', stat_g(cut), stat_g(mean_e), stat_g(se)))
FROM c10;
SELECT stat_record('10.a', 'control', 'cut estimate with the overlay subtracted at w0 instead of w, ' || name,
                   mean_wrong / (se / sqrt(m)), -stat_z(), stat_z())
FROM c10;
SELECT stat_record('10.b', 'check', 'cut estimate variance, ' || name || ': (S2 - s_e^2) / SE, s_e = sqrt(2/r) q / (1 - w/n)',
                   (s2e - se ^ 2) / sqrt((m4 - s2e ^ 2) / m), -stat_z(), stat_z(),
                   format('S2 %s, s_e^2 %s', stat_g(s2e), stat_g(se ^ 2)))
FROM c10;
SELECT stat_record('10.b', 'control', 'cut estimate variance against the cut term alone sqrt(2/r) cut, ' || name,
                   (s2e - (2.0 / r) * cut ^ 2) / sqrt((m4 - s2e ^ 2) / m), -stat_z(), stat_z())
FROM c10;
SELECT stat_record('10.c', 'check', 'jl_cut_size_stddev, ' || name || ': z = (mean - s_e) / (sd / sqrt M)',
                   (mean_sd - se) / (sd_sd / sqrt(m)), -stat_z(), stat_z(),
                   format('mean plug-in %s, s_e %s', stat_g(mean_sd), stat_g(se)))
FROM c10;
SELECT stat_record('10.c', 'control', 'a plug-in without the factor 1 / (1 - w/n), ' || name,
                   (mean_sd_wrong - se) / (sd_sd_wrong / sqrt(m)), -stat_z(), stat_z())
FROM c10;
