#!/usr/bin/env bash
# The main job: as curator, create a key and a sample table of patient-like
# rows, declare it protected (jl_protect: each attribute's public bounds,
# what a release protects, a cap), ask jl_advise which release suits it (no
# projection or a projection, from public inputs only), release it through
# the pipeline (jl_release) with the advisor's first choice and, for
# comparison, with the best projection or no projection, whichever the
# advisor ranked below; as an analyst who may read
# only the private tables, cluster the sketches, label the rows and search
# for nearest neighbours in both; then, knowing the truth, score both side
# by side and say which won.
# Runs on a throwaway cluster, or on the server of the PG* variables
# (database jldp_demo and role jldp_demo_analyst there).
set -euo pipefail
cd "$(dirname "$0")/.."
source test/pgenv.sh
N=${JLDP_DEMO_ROWS:-1500} # rows
D=100                     # attributes per row, each in [0, 1]
EPS=4                     # epsilon per release (element neighbours, bound 1)
S=3                       # patient segments
Q=100                     # patients whose neighbours the analyst looks up
# the squared distance that matters, known without the data: segments differ
# on 2/3 of the attributes by about 0.6, so by about D * 2/3 * 0.36
DIST2=$(( D * 24 / 100 ))

jl_install
jl_start_cluster
psql -qX -d postgres -c "DROP DATABASE IF EXISTS jldp_demo" -c "DROP ROLE IF EXISTS jldp_demo_analyst" \
     -c "CREATE DATABASE jldp_demo" -c "CREATE ROLE jldp_demo_analyst" 2>/dev/null
export PGDATABASE=jldp_demo
q() { psql -qXAt -v ON_ERROR_STOP=1 "$@"; }

echo "== curator: a key and a sample table"
q <<SQL
CREATE EXTENSION jldp;
-- jldp's roles (created by the extension): the demo's analyst is an analyst
GRANT jldp_analyst TO jldp_demo_analyst;
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
ALTER TABLE patients ADD PRIMARY KEY (id);
SELECT format('patients: %s rows of %s attributes in [0, 1], %s segments', count(*), $D, $S) FROM patients;
SQL

echo "== curator: what jl_advise says before any release (public inputs: d = $D, epsilon $EPS, bound 1, dist2 $DIST2)"
q <<SQL
SELECT format('%s. %s, k = %s, %s noise: predicted stddev of a recovered squared distance %s (%s x the best)%s',
              rank, kind, k, noise, round(predicted_error::numeric, 2), round(relative_error::numeric, 2),
              CASE WHEN note IS NOT NULL THEN E'\n   ' || note END)
  FROM jl_advise($D, $EPS, $DIST2, bound => 1, key => 'demo') WHERE NOT refused ORDER BY rank;
-- the comparison: whichever of no projection and the best projection the
-- advisor did not put first
CREATE TABLE advice AS
  SELECT (array_agg(kind ORDER BY rank))[1] AS kind, (array_agg(k ORDER BY rank))[1] AS k,
         (array_agg(predicted_error ORDER BY rank))[1] AS predicted
  FROM jl_advise($D, $EPS, $DIST2, bound => 1, key => 'demo') WHERE NOT refused
  GROUP BY kind = 'identity' ORDER BY min(rank);
SQL
# each as a jl_sketch: no projection is kind 'identity' (k = d)
mechanism() { q -c "SELECT CASE WHEN kind = 'identity' THEN 'jl_sketch(kind => ''identity'')'
                               ELSE format('jl_sketch(k => %s, kind => %L)', k, kind) END
                    FROM advice OFFSET $1 LIMIT 1"; }
FIRST=$(mechanism 0)
ALT=$(mechanism 1)

echo "== curator: the table declared protected, two releases at epsilon $EPS each, and an analyst"
q <<SQL
-- what a release protects: one attribute of one patient (attribute
-- neighbours), each attribute clamped to its public range [0, 1] on every
-- read; a finite budget for the table
SELECT format('protected: %s, d = %s (the features, each in [0, 1]), attribute neighbours, epsilon cap 10', dataset, d)
  FROM jl_protect('patients', 'id', ARRAY[jl_vector('features', $D, 0, 1)],
                  neighbor => 'attribute', epsilon_cap => 10);
\timing on
SELECT format('the advisor''s first choice, %s: release %s into %s', \$m\$$FIRST\$m\$, release_id, released)
  FROM jl_release('patients', 'patients_private', $EPS, $FIRST, key => 'demo');
SELECT format('the comparison, %s: release %s into %s', \$m\$$ALT\$m\$, release_id, released)
  FROM jl_release('patients', 'patients_compared', $EPS, $ALT, key => 'demo');
\timing off
SELECT format('budget of %s: spent epsilon %s of %s, %s left', dataset, epsilon_spent, epsilon_cap, epsilon_remaining)
  FROM jl_protected;
CREATE TABLE release_info AS
  SELECT target, info FROM jl_releases WHERE target IN ('patients_private'::regclass, 'patients_compared'::regclass);
SELECT format('%s: %s', target, info->>'guarantee') FROM release_info ORDER BY target::text DESC;
SELECT format('%s: %s, k = %s; L1 sensitivity %s, Laplace scale %s on a grid of %s, noise variance %s per coordinate',
              target, info->>'kind', info->>'k',
              round((info->>'sensitivity')::numeric, 4), round((info->>'scale')::numeric, 4),
              info->>'grid', round((info->>'noise_variance')::numeric, 4))
  FROM release_info ORDER BY target::text DESC;
-- the analyst reads the private tables and nothing else; the analytics and
-- recovery functions are executable by everyone, the key functions are not
GRANT SELECT ON patients_private, patients_compared TO jldp_demo_analyst;
CREATE SCHEMA analysis AUTHORIZATION jldp_demo_analyst;
SELECT 'analyst role jldp_demo_analyst: SELECT on the two private tables, a schema of its own, no key';
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
    PERFORM jl_private_release('{1,0,0}', 1000.0, 1, 'attribute', jl_sketch(k => 10), key => 'demo');
    RAISE EXCEPTION 'the analyst could release with the key';
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'projecting a vector of its choice with the key: refused (%)', SQLERRM;
  END;
END $$;
SQL

# the analyst's work on one private table t: k-means, labels, and the 10
# nearest neighbours of Q patients by recovered distance
analyse() {
  local t=$1
  q <<SQL
SET ROLE jldp_demo_analyst;
-- k-means in one call (the best of 10 k-means++ starts), every row
-- labelled in the same statement
CREATE TABLE analysis.${t}_labels AS
  SELECT p.id, jl_nearest_centroid(p.sketch, k.centroids) AS cluster
  FROM $t p, jl_kmeans('$t', $S, seed => 1, n_init => 10) k;
CREATE TABLE analysis.${t}_neighbours AS
  SELECT q.id AS query, n.id AS neighbour
  FROM $t q
  CROSS JOIN LATERAL (SELECT p.id FROM $t p WHERE p.id <> q.id
                      ORDER BY jl_recover_dist(p.sketch, q.sketch, '$t'::regclass)
                      LIMIT 10) n
  WHERE q.id <= $Q;
SELECT format('%s: jl_kmeans(''%s'', %s, n_init => 10), cluster sizes %s; 10 nearest neighbours of %s patients', '$t', '$t', $S,
              (SELECT string_agg(n::text, ', ' ORDER BY cluster)
               FROM (SELECT cluster, count(*) AS n FROM analysis.${t}_labels GROUP BY cluster) s), $Q);
SQL
}
echo "== analyst: k-means over the sketches, every row labelled, nearest neighbours (both tables)"
analyse patients_private
analyse patients_compared

# the curator's score of one private table t, as one row of the comparison
score() {
  local t=$1
  q <<SQL
CREATE TEMP TABLE confusion AS
  SELECT p.segment, l.cluster, count(*) AS n
  FROM patients p JOIN analysis.${t}_labels l USING (id) GROUP BY 1, 2;
CREATE TEMP TABLE est AS
  SELECT jl_recover_dist(a.sketch, b.sketch, '$t'::regclass) AS rec,
         jl_recover_dist_stddev(a.sketch, b.sketch, '$t'::regclass) AS se, p.truth
  FROM pairs p JOIN $t a ON a.id = p.i JOIN $t b ON b.id = p.j;
WITH RECURSIVE perm(m) AS (
    SELECT ARRAY[]::int[]
    UNION ALL
    SELECT m || c FROM perm, generate_series(1, $S) c WHERE cardinality(m) < $S AND c <> ALL (m))
INSERT INTO scores
SELECT '$t', r.info->>'kind', (r.info->>'k')::int,
       (SELECT 100.0 * max(hit) / $N
          FROM (SELECT (SELECT coalesce(sum(n), 0) FROM confusion WHERE cluster = m[segment + 1]) AS hit
                FROM perm WHERE cardinality(m) = $S) t),
       (SELECT 100.0 * count(t.neighbour) / count(*)
          FROM analysis.${t}_neighbours a LEFT JOIN truth t USING (query, neighbour)),
       (SELECT 100.0 * avg((pq.segment = pn.segment)::int)
          FROM analysis.${t}_neighbours a JOIN patients pq ON pq.id = a.query JOIN patients pn ON pn.id = a.neighbour),
       (SELECT stddev(rec - truth) FROM est),
       (SELECT 100.0 * avg((abs(rec - truth) <= 2 * se)::int) FROM est)
  FROM jl_releases r WHERE r.target = '$t'::regclass;
SQL
}

echo "== evaluation (the curator knows the truth): both releases side by side"
q <<SQL
CREATE TABLE pairs AS
  SELECT a.id AS i, b.id AS j,
         jl_recover_dist(a.features, b.features, 0) AS truth   -- noise variance 0: the plain squared distance
  FROM (SELECT (random() * ($N - 1))::int + 1 AS i, (random() * ($N - 1))::int + 1 AS j
        FROM generate_series(1, 5000)) r
  JOIN patients a ON a.id = r.i JOIN patients b ON b.id = r.j WHERE r.i <> r.j;
CREATE TABLE truth AS
  SELECT q.id AS query, n.id AS neighbour, n.dist
  FROM patients q
  CROSS JOIN LATERAL (SELECT p.id, jl_recover_dist(p.features, q.features, 0) AS dist
                      FROM patients p WHERE p.id <> q.id ORDER BY 2 LIMIT 10) n
  WHERE q.id <= $Q;
CREATE TABLE scores (release text, kind text, k int, accuracy float8, recall float8,
                     same_segment float8, dist_error float8, coverage float8);
SQL
score patients_private
score patients_compared
q <<SQL
SELECT format('%-18s %-11s %4s | %8s | %8s | %12s | %14s | %8s', 'release', 'kind', 'k', 'accuracy',
              'recall', 'own segment', 'distance error', 'in 2 se');
SELECT format('%-18s %-11s %4s | %7s%% | %7s%% | %11s%% | %14s | %7s%%', release, kind, k, round(accuracy::numeric, 1),
              round(recall::numeric, 1), round(same_segment::numeric, 1), round(dist_error::numeric, 2),
              round(coverage::numeric, 1))
  FROM scores ORDER BY release DESC;
SELECT format('(%s random pairs, true squared distance %s on average; accuracy: clusters against the true segments under the best label matching, a random labelling about %s%%; '
              'recall: of the true 10 nearest among the 10 found, random rows %s%%; distance error: stddev of recovered minus true squared distance, '
              'which for a projection includes how this key''s one P stretches the direction that separates the segments; '
              'in 2 se: pairs within 2 standard errors reported by jl_recover_dist_stddev)',
              count(*), round(avg(truth)::numeric, 2), round(100.0 / $S, 1), round(100.0 * 10 / ($N - 1), 1))
  FROM pairs;
SQL

echo "== summary"
q <<SQL
WITH w AS (
  SELECT s.*, s.kind = 'identity' AS raw,
         rank() OVER (ORDER BY dist_error) AS by_error
    FROM scores s),
 win AS (SELECT * FROM w WHERE by_error = 1 LIMIT 1),
 lose AS (SELECT * FROM w WHERE release <> (SELECT release FROM win) LIMIT 1)
SELECT format(E'%s won: its recovered distances have %s times smaller error (stddev %s against %s), '
              'clustering accuracy %s%% against %s%%, neighbour recall %s%% against %s%%, at the same epsilon $EPS.\n'
              'jl_advise predicted it before any release (%s x smaller error predicted, %s x measured), '
              'and the final result, patients_private, is %s.',
              CASE WHEN win.raw THEN 'No projection (plain noise on the ' || win.k || ' attributes)'
                   ELSE 'The projection (' || win.kind || ', k = ' || win.k || ')' END,
              round((lose.dist_error / win.dist_error)::numeric, 2),
              round(win.dist_error::numeric, 2), round(lose.dist_error::numeric, 2),
              round(win.accuracy::numeric, 1), round(lose.accuracy::numeric, 1),
              round(win.recall::numeric, 1), round(lose.recall::numeric, 1),
              round(((SELECT predicted FROM advice OFFSET 1 LIMIT 1) / (SELECT predicted FROM advice LIMIT 1))::numeric, 2),
              round((lose.dist_error / win.dist_error)::numeric, 2),
              CASE WHEN win.release = 'patients_private'
                   THEN 'that release: it followed the advisor, which chose the winner from public inputs alone'
                   ELSE 'the advisor''s choice, which lost here: use the comparison release' END)
  FROM win, lose;
SQL
