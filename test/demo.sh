#!/usr/bin/env bash
# The main job: as curator, create a key and release a sample table of
# patient-like rows into a private table; as analyst, recover distances,
# cluster and search the sketches; print what happened.  Runs on a throwaway
# cluster, or on the server of the PG* variables (database jldp_demo there).
set -euo pipefail
cd "$(dirname "$0")/.."
source test/pgenv.sh
N=${JLDP_DEMO_ROWS:-1000}   # rows
D=100                       # attributes per row, each in [0, 1]
K=10                        # sketch dimension
EPS=4                       # epsilon per release (element neighbours, bound 1)

jl_install
jl_start_cluster
psql -qX -d postgres -c "DROP DATABASE IF EXISTS jldp_demo" -c "CREATE DATABASE jldp_demo" 2>/dev/null
export PGDATABASE=jldp_demo
q() { psql -qXAt -v ON_ERROR_STOP=1 "$@"; }

echo "== curator: a key and a sample table"
q <<SQL
CREATE EXTENSION jldp;
SELECT 'key fingerprint: ' || jl_key_create('demo');
-- two patient segments; each attribute a normalised lab value in [0, 1]
CREATE TABLE patients AS
  SELECT i AS id, i % 2 AS segment,
         ARRAY(SELECT least(1, greatest(0, 0.3 + 0.4 * (i % 2)
                      + 0.1 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())))
               FROM generate_series(1, $D) WHERE i > 0) AS features
  FROM generate_series(1, $N) i;
SELECT format('patients: %s rows of %s attributes in [0, 1], two segments', count(*), $D) FROM patients;
SQL

echo "== curator: a privacy budget, and the release into a private table"
q <<SQL
SELECT jl_dataset_declare('patients', epsilon_cap => 10, source => 'patients');
\timing on
SELECT 'registry id ' || jl_release_table('patients', 'id', '{features}', 'patients_private', $K, $EPS,
                                          key => 'demo', clip_lo => 0, clip_hi => 1);
\timing off
SELECT format('budget of dataset %s: spent epsilon %s of %s, %s left', name, epsilon_spent, epsilon_cap, epsilon_remaining)
  FROM jl_budgets;
CREATE TABLE release_info AS SELECT info FROM jl_releases WHERE target = 'patients_private'::regclass;
SELECT format('guarantee: (epsilon %s, delta %s)-DP when one attribute of one patient changes by at most %s (attributes clamped to [0, 1])',
              info->>'epsilon', info->>'delta', info->>'bound') FROM release_info;
SELECT format('calibrated to the realized projection: L1 sensitivity %s, Laplace scale %s on a grid of %s, noise variance %s per coordinate',
              round((info->>'sensitivity')::numeric, 4), round((info->>'scale')::numeric, 4),
              info->>'grid', round((info->>'noise_variance')::numeric, 4)) FROM release_info;
SQL

echo "== analyst: distances recovered from sketches (5000 random pairs)"
q <<SQL
CREATE TEMP TABLE pairs AS
  SELECT a.id AS i, b.id AS j, a.segment = b.segment AS same,
         (SELECT sum((u - v) ^ 2) FROM unnest(a.features, b.features) AS t(u, v)) AS truth
  FROM (SELECT (random() * ($N - 1))::int + 1 AS i, (random() * ($N - 1))::int + 1 AS j
        FROM generate_series(1, 5000)) r
  JOIN patients a ON a.id = r.i JOIN patients b ON b.id = r.j WHERE r.i <> r.j;
-- the analyst needs no numbers from the curator: the registry has them
CREATE TEMP TABLE est AS
  SELECT p.*, jl_recover_dist(a.sketch, b.sketch, 'patients_private'::regclass) AS rec,
              jl_recover_dist_stddev(a.sketch, b.sketch, 'patients_private'::regclass) AS se
  FROM pairs p JOIN patients_private a ON a.id = p.i JOIN patients_private b ON b.id = p.j;
SELECT format('%s pairs: true squared distance %s (same segment) and %s (different); recovered on average %s and %s',
              count(*), round(avg(truth) FILTER (WHERE same)::numeric, 2), round(avg(truth) FILTER (WHERE NOT same)::numeric, 2),
              round(avg(rec) FILTER (WHERE same)::numeric, 2), round(avg(rec) FILTER (WHERE NOT same)::numeric, 2)) FROM est;
SELECT format('single-pair error: standard deviation %s, and %s%% of pairs lie within 2 standard errors reported by jl_recover_dist_stddev',
              round(stddev(rec - truth)::numeric, 2),
              round(100.0 * avg((abs(rec - truth) <= 2 * se)::int), 1)) FROM est;
SELECT format('mean error %s: the estimate is unbiased over keys and noise, but one key distorts related distances alike (relative spread sqrt(2/k) = %s), so its error does not average out over pairs',
              round(avg(rec - truth)::numeric, 2), round(sqrt(2.0 / $K), 2)) FROM est;
SQL

echo "== analyst: 2-means clustering over the sketches"
q <<SQL
CREATE TEMP TABLE cent AS
  WITH m AS (SELECT array_agg(v ORDER BY j) AS c FROM
               (SELECT j, avg(v) AS v FROM patients_private, unnest(sketch) WITH ORDINALITY u(v, j) GROUP BY j) s),
       a AS (SELECT p.sketch FROM patients_private p, m ORDER BY jl_recover_dist(p.sketch, m.c, 0) DESC, id LIMIT 1),
       b AS (SELECT p.sketch FROM patients_private p, a ORDER BY jl_recover_dist(p.sketch, a.sketch, 0) DESC, id LIMIT 1)
  SELECT 0 AS c, sketch FROM a UNION ALL SELECT 1, sketch FROM b;
CREATE TEMP TABLE assign (id int, c int);
DO \$\$
BEGIN
  FOR it IN 1..20 LOOP
    TRUNCATE assign;
    INSERT INTO assign
      SELECT p.id, (SELECT c FROM cent ORDER BY jl_recover_dist(p.sketch, cent.sketch, 0) LIMIT 1)
      FROM patients_private p;
    TRUNCATE cent;
    INSERT INTO cent
      SELECT c, array_agg(v ORDER BY j) FROM
        (SELECT a.c, u.j, avg(u.v) AS v FROM assign a JOIN patients_private p USING (id),
                unnest(p.sketch) WITH ORDINALITY u(v, j) GROUP BY a.c, u.j) s
      GROUP BY c;
  END LOOP;
END \$\$;
SELECT format('accuracy against the true segments (best label matching): %s%%',
              round(100.0 * greatest(avg((a.c = p.segment)::int), avg((a.c <> p.segment)::int)), 1))
  FROM assign a JOIN patients p USING (id);
SQL

echo "== analyst: nearest neighbours by recovered distance"
q <<SQL
SELECT format('%s%% of 200 patients have their nearest neighbour (by jl_recover_dist over the sketches) in their own segment',
              round(100.0 * avg(same::int), 1))
  FROM (SELECT p.id, (SELECT s.segment = p.segment FROM patients_private q JOIN patients s USING (id)
                      WHERE q.id <> p.id
                      ORDER BY jl_recover_dist(q.sketch, pp.sketch, 0) LIMIT 1) AS same
        FROM patients p JOIN patients_private pp USING (id) WHERE p.id <= 200) t;
SQL
