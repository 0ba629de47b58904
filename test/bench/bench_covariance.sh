#!/usr/bin/env bash
# Benchmark of the covariance release: prints figures, asserts nothing.
#   n rows (default 1,000,000) of d = 100 doubles (a float8[] column)
#   1. SELECT count(x) FROM t  (a plain scan that reads every vector)
#   2. jl_release(t, ..., 1, jl_covariance_mechanism(r => 200, delta => 1e-6))
#      over t protected (jl_vector x in [0, 0.1] at weight 0.1: the encoding
#      is x; row clip 1, as 0.3's clip_norm 1): method 'gram' (the default)
#      with lift 'always' and 'auto', and method 'product' (Y [A; l I] batch
#      by batch, r (n + d) normals)
#   3. on the release: jl_directional_variance (first call in a statement,
#      which reads the release, and 100 calls in one statement),
#      jl_pca(release, 10), jl_covariance(release)
# Each step runs once to warm up, then RUNS times (default 3); the figures are
# the fastest and the median run, wall-clock in psql (\timing), parallel
# query off.  On a shared machine the fastest run is the least disturbed one.
# Usage: test/bench/bench_covariance.sh   (JLDP_BENCH_ROWS, JLDP_BENCH_RUNS)
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/pgenv.sh
N=${JLDP_BENCH_ROWS:-1000000}
RUNS=${JLDP_BENCH_RUNS:-3}
R=200
jl_install
jl_start_cluster
DB=jldp_bench_cov
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
trap 'psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; jl_stop_cluster' EXIT
export PGDATABASE=$DB
q() { psql -qXAt -v ON_ERROR_STOP=1 "$@"; }

t0=$(date +%s)
q <<SQL
SET client_min_messages = warning;
CREATE EXTENSION jldp;
CREATE TABLE t AS
  SELECT i AS id, ARRAY(SELECT random() / 10 FROM generate_series(1, 100) WHERE i > 0) AS x
  FROM generate_series(1, $N) i;
ALTER TABLE t ADD PRIMARY KEY (id);
ALTER TABLE t SET (parallel_workers = 0);
VACUUM ANALYZE t;
-- 3 x (RUNS + 1) releases at epsilon 1: caps above that (a benchmark)
SELECT d AS protected_d FROM jl_protect('t', 'id', ARRAY[jl_vector('x', 100, 0, 0.1, 0.1)], neighbor => 'row',
                                        row_clip => 1, epsilon_cap => 1000, delta_cap => 0.5) \gset
SQL
echo "table of $N rows, d = 100: built in $(( $(date +%s) - t0 )) s, $(q -c "SELECT pg_size_pretty(pg_table_size('t'))")"

# "fastest median" wall-clock ms of a statement (after one warm-up);
# @ in the statement is replaced by the run number
timeit() {
  local sql=$1 i ms=() t
  for i in $(seq 0 "$RUNS"); do
    t=$(q -c "SET max_parallel_workers_per_gather = 0" -c "SET client_min_messages = warning" \
          -c '\timing on' -c "${sql//@/$i}" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
    [ "$i" -gt 0 ] && ms+=("$t")
  done
  printf '%s\n' "${ms[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)] }'
}

scan=$(timeit "SELECT count(x) FROM t")
rel=$(timeit "SELECT released FROM jl_release('t', 'rel_a@', 1.0, jl_covariance_mechanism($R, 1e-6))")
auto=$(timeit "SELECT released FROM jl_release('t', 'rel_b@', 1.0, jl_covariance_mechanism($R, 1e-6, lift => 'auto'))")
prod=$(timeit "SELECT released FROM jl_release('t', 'rel_c@', 1.0, jl_covariance_mechanism($R, 1e-6, method => 'product'))")
x=$(q -c "SELECT array_fill(0.1::float8, ARRAY[100])::text")
dv1=$(timeit "SELECT jl_directional_variance('rel_a1', '$x')")
dv100=$(timeit "SELECT sum(jl_directional_variance('rel_a1', array_fill(g::float8, ARRAY[100]))) FROM generate_series(1, 100) g")
pca=$(timeit "SELECT count(*) FROM jl_pca('rel_a1', 10)")
cov=$(timeit "SELECT array_length(jl_covariance('rel_a1'), 1)")
echo "rows: $N, d = 100, r = $R, epsilon 1, delta 1e-6; ms, fastest and median of $RUNS runs, wall clock, one backend"
awk -v s="$scan" -v a="$rel" -v b="$auto" -v pr="$prod" -v d1="$dv1" -v d100="$dv100" -v p="$pca" -v c="$cov" -v n="$N" 'BEGIN {
  split(s, S, " "); split(a, A, " "); split(b, B, " "); split(pr, P, " ")
  printf "  scan        SELECT count(x) FROM t                      %10.1f %10.1f\n", S[1], S[2]
  printf "  release     jl_release, covariance (r 200), gram, always %9.1f %10.1f   %.2fx the scan, %.0f rows/s\n", A[1], A[2], A[1]/S[1], n/(A[1]/1000)
  printf "  release     jl_release, covariance (r 200), gram, auto  %10.1f %10.1f   %.2fx the scan\n", B[1], B[2], B[1]/S[1]
  printf "  release     jl_release, covariance (r 200), product     %10.1f %10.1f   %.2fx the scan\n", P[1], P[2], P[1]/S[1]
  split(d1, X, " "); printf "  analyst     jl_directional_variance, 1 call             %10.1f %10.1f\n", X[1], X[2]
  split(d100, X, " "); printf "  analyst     jl_directional_variance, 100 calls          %10.1f %10.1f\n", X[1], X[2]
  split(p, X, " "); printf "  analyst     jl_pca(release, 10)                         %10.1f %10.1f\n", X[1], X[2]
  split(c, X, " "); printf "  analyst     jl_covariance(release)                      %10.1f %10.1f\n", X[1], X[2]
}'
