#!/usr/bin/env bash
# Benchmark of the graph release: prints figures, asserts nothing.
#   a random graph of E edges (default 1,000,000) on N vertices (default
#   100,000), uniform endpoints, self-loops dropped
#   1. SELECT count(*) FROM edges
#   2. jl_release(edges, ..., 1, jl_graph(r => 100, delta => 1e-6)), the
#      edges declared with jl_edge (each row a unit: its id)
#   3. 1,000 cut queries of |S| = 100 (random sets, jl_cut_size in one statement)
# Each step runs RUNS times (default 3; count(*) after a warm-up); wall-clock
# in psql (\timing), parallel query off.  On a shared machine the fastest run
# is the least disturbed one.
# Usage: test/bench/bench_graph.sh   (JLDP_BENCH_EDGES, JLDP_BENCH_VERTICES, JLDP_BENCH_RUNS)
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/pgenv.sh
E=${JLDP_BENCH_EDGES:-1000000}
N=${JLDP_BENCH_VERTICES:-100000}
RUNS=${JLDP_BENCH_RUNS:-3}
R=100
jl_install
jl_start_cluster
DB=jldp_bench_graph
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
trap 'psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; jl_stop_cluster' EXIT
export PGDATABASE=$DB
q() { psql -qXAt -v ON_ERROR_STOP=1 "$@"; }
ms() { sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1; }

q <<SQL
SET client_min_messages = warning;
CREATE EXTENSION jldp;
CREATE TABLE edges AS
  SELECT row_number() OVER () AS id, u, v
  FROM (SELECT 1 + (random() * ($N - 1))::int AS u, 1 + (random() * ($N - 1))::int AS v
        FROM generate_series(1, $E)) s WHERE u <> v;
ALTER TABLE edges ADD PRIMARY KEY (id);
VACUUM ANALYZE edges;
-- RUNS releases at epsilon 1: caps above that (a benchmark)
SELECT d AS protected_d FROM jl_protect('edges', 'id', ARRAY[jl_edge('u', 'v', $N)], epsilon_cap => 1000, delta_cap => 0.5) \gset
CREATE TABLE sets AS
  SELECT j, ARRAY(SELECT DISTINCT 1 + (random() * ($N - 1))::int + 0 * j FROM generate_series(1, 100)) AS s
  FROM generate_series(1, 1000) j;
SQL
echo "edges: $(q -c 'SELECT count(*) FROM edges') rows on $N vertices, r = $R; $(nproc) cores, shared"
q -c "SELECT count(*) FROM edges" >/dev/null
for i in $(seq "$RUNS"); do
  t=$(q -c "SET max_parallel_workers_per_gather = 0" -c '\timing on' -c "SELECT count(*) FROM edges" | ms)
  echo "count(*)            run $i: $t ms"
done
for i in $(seq "$RUNS"); do
  t=$(q -c "SET max_parallel_workers_per_gather = 0" -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS rel" -c '\timing on' \
        -c "SELECT released FROM jl_release('edges', 'rel', 1.0, jl_graph($R, 1e-6))" | ms)
  echo "jl_release, graph   run $i: $t ms"
done
echo "set sizes: $(q -c 'SELECT min(array_length(s, 1)), max(array_length(s, 1)) FROM sets')"
for i in $(seq "$RUNS"); do
  t=$(q -c '\timing on' -c "SELECT sum(jl_cut_size('rel', s)) FROM sets" | ms)
  echo "1000 x jl_cut_size  run $i: $t ms"
done
