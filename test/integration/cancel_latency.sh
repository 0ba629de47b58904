#!/usr/bin/env bash
# How long the longest calibrations keep running after a cancel.  Each call
# below runs for a second or more (the accountants at the largest r, the row
# statistics of P at the largest d k^2, the advisor over every k, the
# streamed statistics of a huge d) and is cancelled by a statement_timeout
# of 200 ms (50 ms for the pipeline's accountants, which reach their answer
# in 0.1 to 0.3 s: past 200 ms, a cancel could miss them); the time past
# the timeout is printed.  Each call runs after the library is loaded in its
# session.  0.3.3 ignored the cancel in the accountants for minutes.  The
# budgeted releases go through protected tables and jl_release, at the
# sizes 0.3's jl_release_covariance, jl_release_graph and reserved
# aggregate were measured at: r = 100000 (the largest), epsilon 1e-12,
# delta 1e-300, and a long-format declaration (jl_long) of d = 2^31 - 1.  Fails when a call is not cancelled, or
# ends more than JL_CANCEL_BOUND_MS (default 1000) after its timeout: a
# bound loose enough for a loaded machine, far below a hang; the figures
# printed are the measurement (the loops check every few tens of ms).
# Needs a superuser connection through the PG* variables; its own database.
set -euo pipefail
# jldp's API is in schema jldp: as test/pgenv.sh does for run_all.sh's
# parts, a search_path naming it unless PGOPTIONS sets one
case " ${PGOPTIONS:-} " in
  *search_path*) ;;
  *) export PGOPTIONS="-c search_path=public,jldp ${PGOPTIONS:-}" ;;
esac
BOUND_MS=${JL_CANCEL_BOUND_MS:-1000}
DB=jldp_cancel_latency
ADMIN_DB=${PGDATABASE:-postgres}
psql_admin() { psql -X -q -v ON_ERROR_STOP=1 -d "$ADMIN_DB" "$@"; }
cleanup() { psql_admin -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; }
trap cleanup EXIT
psql_admin -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<'SQL'
CREATE EXTENSION jldp;
SELECT jl_key_import('pinned', '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
CREATE TABLE src AS SELECT i AS id, (i % 7)::float8 AS a, (i % 5)::float8 AS b FROM generate_series(1, 100) i;
ALTER TABLE src ADD PRIMARY KEY (id);
SELECT jl_protect('src', 'id', ARRAY[jl_numeric('a', 0, 7), jl_numeric('b', 0, 5)], row_clip => 1,
                  epsilon_cap => 100, delta_cap => 0.5);
CREATE TABLE edges AS SELECT i AS id, i AS u, i % 40 + 1 AS v FROM generate_series(1, 40) i;
ALTER TABLE edges ADD PRIMARY KEY (id);
SELECT jl_protect('edges', 'id', ARRAY[jl_edge('u', 'v', 40)], epsilon_cap => 100, delta_cap => 0.5);
CREATE TABLE facts (id int, attr int, val float8, PRIMARY KEY (id, attr));
INSERT INTO facts VALUES (1, 1, 1), (2, 1, 1), (3, 1, 1);
SELECT jl_protect('facts', 'id', ARRAY[jl_long('attr', 'val', 2147483647, 0, 1)], neighbor => 'attribute',
                  epsilon_cap => 100);
CREATE TABLE km AS SELECT i AS id, ARRAY(SELECT random() FROM generate_series(1, 20) WHERE i > 0) AS sketch
  FROM generate_series(1, 100000) i;
CREATE TABLE kmsz AS SELECT i AS id, ARRAY(SELECT ((i % 10000) * 7 + j)::float8 FROM generate_series(1, 100) j WHERE i > 0) AS sketch
  FROM generate_series(1, 20000) i;
-- the k-means mechanism's iterations: 20000 rows of 50 into 1000 clusters,
-- a billion multiply-adds an iteration
CREATE TABLE kmrows AS SELECT i AS id, ARRAY(SELECT ((i * j) % 97) / 97.0::float8 FROM generate_series(1, 50) j WHERE i > 0)::float8[] AS v
  FROM generate_series(1, 20000) i;
ALTER TABLE kmrows ADD PRIMARY KEY (id);
SELECT jl_protect('kmrows', 'id', ARRAY[jl_vector('v', 50, 0, 1)], epsilon_cap => 100, delta_cap => 0.5);
SQL
fail=0
worst=0
while IFS='|' read -r what timeout sql; do
  [ -z "$what" ] && continue
  out=$(printf "SELECT 'loaded ' || jldp_version();\nSELECT 'start ' || extract(epoch FROM clock_timestamp());\nSET statement_timeout = '%sms';\n%s;\nRESET statement_timeout;\nSELECT 'end ' || extract(epoch FROM clock_timestamp());\n" "$timeout" "$sql" \
        | psql -X -q -At -v ON_ERROR_STOP=0 -d "$DB" 2>&1)
  start=$(echo "$out" | awk '$1 == "start" { print $2 }')
  end=$(echo "$out" | awk '$1 == "end" { print $2 }')
  ms=$(awk -v a="$start" -v b="$end" -v t="$timeout" 'BEGIN { printf "%d", (b - a) * 1000 - t }')
  if echo "$out" | grep -q 'canceling statement due to statement timeout'; then
    echo "ok   $what: cancelled, ended $ms ms after the timeout"
    [ "$ms" -gt "$worst" ] && worst=$ms
    if [ "$ms" -gt "$BOUND_MS" ]; then
      echo "FAIL $what: ended $ms ms after its timeout (bound $BOUND_MS ms)"; fail=1
    fi
  else
    echo "FAIL $what: not cancelled by a $timeout ms timeout:"; echo "$out" | sed 's/^/     /'; fail=1
  fi
done <<'CALLS'
the covariance accountant at r = 100000, epsilon 1e-12, delta 1e-300|50|SELECT jl_release('src', 'c1', 1e-12, jl_covariance_mechanism(r => 100000, delta => 1e-300), key => 'pinned')
the graph accountant at r = 100000, epsilon 1e-12, delta 1e-300|50|SELECT jl_release('edges', 'g1', 1e-12, jl_graph(r => 100000, delta => 1e-300), key => 'pinned')
the row statistics of P at d = 38000, k = 1024|200|SELECT jl_release_info(38000, 1.0, 1, 'row', jl_sketch(k => 1024), key => 'pinned')
the advisor's k for row neighbours over every k|200|SELECT jl_suggest_k(4, 40, 1e15, 1, NULL, 'row', 1, 'laplace', NULL, 'rademacher', 'exact', 'pinned')
the streamed statistics of P at d = 2^31 - 1 (a long-format release, attribute neighbours)|200|SELECT jl_release('facts', 'l1', 1.0, jl_sketch(k => 4), key => 'pinned')
k-means of 100000 sketches into 64 clusters, 100000 iterations at most|200|SELECT jl_kmeans(sketch, jl_kmeans_options(64, 0, 100000)) FROM km
k-means of 20000 sketches of 100 into 10000 clusters (the clusters' sizes counted)|200|SELECT * FROM jl_kmeans('kmsz', 10000)
CALLS
# the k-means mechanism cancelled in its iterations, after its charge (3 s:
# its calibration, the count and the charge come first); 0.3.3's pattern,
# a check once per 65536 rows whatever a row costs, waited out an iteration
# (minutes at these sizes)
km_out=$(printf "SELECT 'loaded ' || jldp_version();\nSELECT 'start ' || extract(epoch FROM clock_timestamp());\nSET statement_timeout = '3000ms';\nSELECT jl_release('kmrows', 'km1', 1.0, jl_kmeans_mechanism(k => 1000, delta => 1e-6, iterations => 50));\nRESET statement_timeout;\nSELECT 'end ' || extract(epoch FROM clock_timestamp());\n" \
         | psql -X -q -At -v ON_ERROR_STOP=0 -d "$DB" 2>&1)
start=$(echo "$km_out" | awk '$1 == "start" { print $2 }')
end=$(echo "$km_out" | awk '$1 == "end" { print $2 }')
ms=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%d", (b - a) * 1000 - 3000 }')
km_charged=$(psql -X -q -At -d "$DB" -c "SELECT count(*) FILTER (WHERE NOT released) || ' of ' || count(*) FROM jl_ledger WHERE event = 'charge' AND dataset = 'public.kmrows'")
if echo "$km_out" | grep -q 'canceling statement due to statement timeout' && [ "$km_charged" = "1 of 1" ]; then
  echo "ok   the k-means mechanism's iterations (20000 rows of 50, 1000 clusters): cancelled after its charge, ended $ms ms after the timeout; the charge stands, marked not released"
  [ "$ms" -gt "$worst" ] && worst=$ms
  if [ "$ms" -gt "$BOUND_MS" ]; then
    echo "FAIL the k-means mechanism's iterations: ended $ms ms after its timeout (bound $BOUND_MS ms)"; fail=1
  fi
else
  echo "FAIL the k-means mechanism's iterations: not cancelled in its run by a 3 s timeout (charges not released: $km_charged):"
  echo "$km_out" | sed 's/^/     /'; fail=1
fi
echo "     the longest time past a timeout: $worst ms"
# the releases were cancelled in their calibration, which comes before the
# charge: a charge would mean the cancel landed later (writing the target),
# and the calibration was not measured
charges=$(psql -X -q -At -d "$DB" -c "SELECT count(*) FROM jl_ledger WHERE event = 'charge' AND dataset <> 'public.kmrows'")
if [ "$charges" != "0" ]; then
  echo "FAIL a release was cancelled after its charge ($charges charges): its calibration ended before the timeout"; fail=1
else
  echo "ok   no release was charged: each was cancelled in its calibration"
fi
exit $fail
