#!/usr/bin/env bash
# The main job: as curator, create a key and release a sample table of
# patient-like rows into a private table; as an analyst who may read only
# the private table, cluster the sketches, label the rows and search for
# nearest neighbours; then, knowing the truth, score what the analyst found.
# Runs on a throwaway cluster, or on the server of the PG* variables
# (database jldp_demo and role jldp_demo_analyst there).
set -euo pipefail
cd "$(dirname "$0")/.."
source test/pgenv.sh
N=${JLDP_DEMO_ROWS:-1500} # rows
D=100                     # attributes per row, each in [0, 1]
K=10                      # sketch dimension
EPS=4                     # epsilon per release (element neighbours, bound 1)
S=3                       # patient segments
Q=100                     # patients whose neighbours the analyst looks up

jl_install
jl_start_cluster
psql -qX -d postgres -c "DROP DATABASE IF EXISTS jldp_demo" -c "DROP ROLE IF EXISTS jldp_demo_analyst" \
     -c "CREATE DATABASE jldp_demo" -c "CREATE ROLE jldp_demo_analyst" 2>/dev/null
export PGDATABASE=jldp_demo
q() { psql -qXAt -v ON_ERROR_STOP=1 "$@"; }

echo "== curator: a key and a sample table"
q <<SQL
CREATE EXTENSION jldp;
SELECT 'key fingerprint: ' || jl_key_create('demo');
-- $S patient segments, each high (0.8) on its own third of the attributes and
-- low (0.2) elsewhere, every patient shifted along one shared direction by
-- its own amount t in [-1, 1] (so that nearest neighbours are well defined),
-- plus measurement noise; each attribute a normalised lab value in [0, 1]
CREATE TABLE patients AS
  SELECT i AS id, i % $S AS segment,
         ARRAY(SELECT least(1, greatest(0, 0.2 + 0.6 * (j % $S = i % $S)::int
                      + 0.15 * t * (CASE WHEN j % 2 = 0 THEN 1 ELSE -1 END)
                      + 0.03 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())))
               FROM generate_series(1, $D) j) AS features
  FROM (SELECT i, 2 * random() - 1 AS t FROM generate_series(1, $N) i) p;
SELECT format('patients: %s rows of %s attributes in [0, 1], %s segments', count(*), $D, $S) FROM patients;
SQL

echo "== curator: a privacy budget, the release into a private table, and an analyst"
q <<SQL
SELECT jl_dataset_declare('patients', epsilon_cap => 10, source => 'patients') \g /dev/null
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
-- the analyst reads the private table and nothing else; the analytics and
-- recovery functions are executable by everyone, the key functions are not
GRANT SELECT ON patients_private TO jldp_demo_analyst;
CREATE SCHEMA analysis AUTHORIZATION jldp_demo_analyst;
SELECT 'analyst role jldp_demo_analyst: SELECT on patients_private, a schema of its own, no key';
SQL

echo "== analyst: what the role may not do"
q <<'SQL'
SET ROLE jldp_demo_analyst;
DO $$
BEGIN
  BEGIN
    PERFORM count(*) FROM patients;
    RAISE EXCEPTION 'the analyst could read patients';
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'reading the raw table patients: refused (%)', SQLERRM;
  END;
  BEGIN
    PERFORM jl_private_release('{1,0,0}', 10, 1000.0, key => 'demo');
    RAISE EXCEPTION 'the analyst could release with the key';
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'projecting a vector of its choice with the key: refused (%)', SQLERRM;
  END;
END $$;
SQL

echo "== analyst: k-means over the sketches, then every row labelled"
q <<SQL
SET ROLE jldp_demo_analyst;
\timing on
CREATE TABLE analysis.centroids AS SELECT jl_kmeans(sketch, $S, 1) AS c FROM patients_private;
CREATE TABLE analysis.labels AS
  SELECT p.id, jl_nearest_centroid(p.sketch, c.c) AS cluster FROM patients_private p, analysis.centroids c;
\timing off
SELECT format('jl_kmeans(sketch, %s): centroids %s; cluster sizes %s', $S, array_dims(c),
              (SELECT string_agg(n::text, ', ' ORDER BY cluster)
               FROM (SELECT cluster, count(*) AS n FROM analysis.labels GROUP BY cluster) s))
  FROM analysis.centroids;
SQL

echo "== analyst: the 10 nearest neighbours of $Q patients, by recovered distance"
q <<SQL
SET ROLE jldp_demo_analyst;
\timing on
CREATE TABLE analysis.neighbours AS
  SELECT q.id AS query, n.id AS neighbour
  FROM patients_private q
  CROSS JOIN LATERAL (SELECT p.id FROM patients_private p WHERE p.id <> q.id
                      ORDER BY jl_recover_dist(p.sketch, q.sketch, 'patients_private'::regclass)
                      LIMIT 10) n
  WHERE q.id <= $Q;
\timing off
SQL

echo "== evaluation (the curator knows the truth): distances"
q <<SQL
CREATE TEMP TABLE pairs AS
  SELECT a.id AS i, b.id AS j, a.segment = b.segment AS same,
         jl_recover_dist(a.features, b.features, 0) AS truth   -- noise variance 0: the plain squared distance
  FROM (SELECT (random() * ($N - 1))::int + 1 AS i, (random() * ($N - 1))::int + 1 AS j
        FROM generate_series(1, 5000)) r
  JOIN patients a ON a.id = r.i JOIN patients b ON b.id = r.j WHERE r.i <> r.j;
CREATE TEMP TABLE est AS
  SELECT p.*, jl_recover_dist(a.sketch, b.sketch, 'patients_private'::regclass) AS rec,
              jl_recover_dist_stddev(a.sketch, b.sketch, 'patients_private'::regclass) AS se,
              -- the curator, with the key: the squared distance after projection, without noise
              jl_recover_dist(jl_project(ra.features, $K, 'demo'), jl_project(rb.features, $K, 'demo'), 0) AS projected
  FROM pairs p JOIN patients_private a ON a.id = p.i JOIN patients_private b ON b.id = p.j
  JOIN patients ra ON ra.id = p.i JOIN patients rb ON rb.id = p.j;
SELECT format('%s random pairs: true squared distance %s (same segment) and %s (different); recovered on average %s and %s',
              count(*), round(avg(truth) FILTER (WHERE same)::numeric, 2), round(avg(truth) FILTER (WHERE NOT same)::numeric, 2),
              round(avg(rec) FILTER (WHERE same)::numeric, 2), round(avg(rec) FILTER (WHERE NOT same)::numeric, 2)) FROM est;
SELECT format('why they differ: recovery is unbiased for the distance after this key''s projection, %s and %s for these pairs '
              '(the segments differ along one direction, which one projection P of k = $K stretches or shrinks); '
              'over keys the projection is unbiased for the true distance',
              round(avg(projected) FILTER (WHERE same)::numeric, 2), round(avg(projected) FILTER (WHERE NOT same)::numeric, 2)) FROM est;
SELECT format('single-pair error: standard deviation %s; %s%% of pairs lie within 2 standard errors reported by jl_recover_dist_stddev',
              round(stddev(rec - truth)::numeric, 2),
              round(100.0 * avg((abs(rec - truth) <= 2 * se)::int), 1)) FROM est;
SQL

echo "== evaluation: clustering"
q <<SQL
-- accuracy under the best matching of cluster labels to segments
CREATE TEMP TABLE confusion AS
  SELECT p.segment, l.cluster, count(*) AS n
  FROM patients p JOIN analysis.labels l USING (id) GROUP BY 1, 2;
WITH RECURSIVE perm(m) AS (
    SELECT ARRAY[]::int[]
    UNION ALL
    SELECT m || c FROM perm, generate_series(1, $S) c WHERE cardinality(m) < $S AND c <> ALL (m))
SELECT format('accuracy against the true segments (best label matching): %s%% of %s patients (a random labelling: about %s%%)',
              round(100.0 * max(hit) / $N, 1), $N, round(100.0 / $S, 1))
  FROM (SELECT m, (SELECT coalesce(sum(n), 0) FROM confusion WHERE cluster = m[segment + 1]) AS hit
        FROM perm WHERE cardinality(m) = $S) t;
SELECT format('segment %s: %s', segment, string_agg(format('%s in cluster %s', n, cluster), ', ' ORDER BY cluster))
  FROM confusion GROUP BY segment ORDER BY segment;
SQL

echo "== evaluation: nearest neighbours"
q <<SQL
CREATE TEMP TABLE truth AS
  SELECT q.id AS query, n.id AS neighbour, n.dist
  FROM patients q
  CROSS JOIN LATERAL (SELECT p.id, jl_recover_dist(p.features, q.features, 0) AS dist
                      FROM patients p WHERE p.id <> q.id ORDER BY 2 LIMIT 10) n
  WHERE q.id <= $Q;
SELECT format('recall of the true 10 nearest among the 10 found: %s%% (random rows: %s%%)',
              round(100.0 * count(t.neighbour) / count(*), 1), round(100.0 * 10 / ($N - 1), 1))
  FROM analysis.neighbours a LEFT JOIN truth t USING (query, neighbour);
SELECT format('neighbours found in the query''s own segment: %s%% (random rows: %s%%)',
              round(100.0 * avg((pq.segment = pn.segment)::int), 1), round(100.0 / $S, 1))
  FROM analysis.neighbours a JOIN patients pq ON pq.id = a.query JOIN patients pn ON pn.id = a.neighbour;
SELECT format('why: the true 10 nearest lie within squared distance %s of their query on average, while one recovered distance has a standard error of about %s; at this epsilon the sketches resolve the segments, not the order within one',
              round((SELECT avg(m) FROM (SELECT max(dist) AS m FROM truth GROUP BY query) t)::numeric, 2),
              round((SELECT avg(jl_recover_dist_stddev(a.sketch, b.sketch, 'patients_private'::regclass))
                     FROM truth t JOIN patients_private a ON a.id = t.query
                     JOIN patients_private b ON b.id = t.neighbour)::numeric, 1));
SQL
