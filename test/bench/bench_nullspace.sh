#!/usr/bin/env bash
# Benchmark of null-space cleaning: prints figures, asserts nothing.
#   n rows (default 1,000,000) of d = 294 doubles, a model of 6 outputs
#   (5 desired + 1 confidential for Algorithm 2), utility_error 0.01.
#   SELECT count(jl_nullspace_clean(x, model, 0.01)) FROM t  against
#   SELECT count(x) FROM t, for x stored inline (STORAGE MAIN: the table
#   holds the 2.4 kB arrays) and as PostgreSQL stores it by default (TOAST:
#   count(x) then never reads the arrays, cleaning must), and
#   CREATE TABLE ... AS SELECT jl_nullspace_clean(...) (the cleaned table
#   written).  One core (no parallel query) unless stated; each query runs
#   once to warm up, then RUNS times (default 3): fastest and median.
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/pgenv.sh
N=${JLDP_BENCH_ROWS:-1000000}
RUNS=${JLDP_BENCH_RUNS:-3}
jl_install
jl_start_cluster
DB=jldp_bench_ns
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
trap 'psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; jl_stop_cluster' EXIT
export PGDATABASE=$DB
q() { psql -qXAt -v ON_ERROR_STOP=1 "$@"; }

t0=$(date +%s)
q <<SQL
CREATE EXTENSION jldp;
SELECT setseed(0.5);
-- 1000 random vectors, repeated: random doubles do not compress, so every
-- row costs its 2.4 kB wherever it is stored
CREATE TEMP TABLE base AS
  SELECT b, ARRAY(SELECT random() FROM generate_series(1, 294) WHERE b >= 0) AS x
  FROM generate_series(0, 999) b;
CREATE TABLE t_main (id int, x float8[]);
ALTER TABLE t_main ALTER x SET STORAGE MAIN;
INSERT INTO t_main SELECT i, x FROM generate_series(0, $N - 1) i JOIN base ON b = i % 1000;
CREATE TABLE t_toast (id int, x float8[]);
INSERT INTO t_toast SELECT * FROM t_main;
ALTER TABLE t_main SET (parallel_workers = 2);
ALTER TABLE t_toast SET (parallel_workers = 2);
VACUUM ANALYZE t_main;
VACUUM ANALYZE t_toast;
CREATE TABLE model AS SELECT
  (SELECT array_agg(r) FROM (SELECT ARRAY(SELECT random() - 0.5 FROM generate_series(1, 5) WHERE i > 0) AS r
                             FROM generate_series(1, 294) i) s) AS ad,
  (SELECT array_agg(r) FROM (SELECT ARRAY[random() - 0.5] AS r FROM generate_series(1, 294) i) s) AS ac;
SQL
echo "setup: $N rows in $(( $(date +%s) - t0 )) s; heap sizes: main $(q -c "SELECT pg_size_pretty(pg_table_size('t_main'))"), default $(q -c "SELECT pg_size_pretty(pg_table_size('t_toast'))")"

# fastest and median execution time (ms), after one warm-up run
timeit() {
  local workers=$1 sql=$2 i t ms=()
  for i in $(seq 0 "$RUNS"); do
    t=$(q -c "SET max_parallel_workers_per_gather = $workers" \
          -c "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) $sql" \
        | grep -o '"Execution Time": [0-9.]*' | grep -o '[0-9.]*$')
    [ "$i" -gt 0 ] && ms+=("$t")
  done
  printf '%s\n' "${ms[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)] }'
}
# the same for a statement that writes (CREATE TABLE AS), timed by psql
timeit_ctas() {
  local sql=$1 i t ms=()
  for i in $(seq 0 "$RUNS"); do
    q -c "DROP TABLE IF EXISTS c"
    t=$( { q -c "SET max_parallel_workers_per_gather = 0" -c '\timing on' -c "$sql" ; } \
        | grep -o 'Time: [0-9.]*' | tail -1 | grep -o '[0-9.]*$')
    [ "$i" -gt 0 ] && ms+=("$t")
  done
  q -c "DROP TABLE IF EXISTS c"
  printf '%s\n' "${ms[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)] }'
}
row() { # label, figures, baseline figures
  awk -v l="$1" -v a="$2" -v b="$3" -v n="$N" 'BEGIN { split(a, A, " "); split(b, B, " ");
    printf "  %-62s %9.1f %9.1f   %5.2fx   %8.0f rows/s\n", l, A[1], A[2], A[1] / B[1], n / (A[1] / 1000) }'
}

M="(SELECT ad FROM model)"
C="(SELECT ac FROM model)"
echo "rows: $N, d = 294, utility_error 0.01; ms, fastest and median of $RUNS runs; ratio to count(x) of the same storage"
for tb in t_main t_toast; do
  [ $tb = t_main ] && echo "x stored inline (STORAGE MAIN)" || echo "x stored by default (TOAST; count(x) does not read the arrays)"
  base=$(timeit 0 "SELECT count(x) FROM $tb")
  row "SELECT count(x)" "$base" "$base"
  row "count(jl_nullspace_clean(x, a_d, 0.01)) (water-filling)" "$(timeit 0 "SELECT count(jl_nullspace_clean(x, $M, 0.01)) FROM $tb")" "$base"
  row "count(jl_nullspace_clean(x, a_d, 0.01, method => 'knapsack'))" "$(timeit 0 "SELECT count(jl_nullspace_clean(x, $M, 0.01, method => 'knapsack')) FROM $tb")" "$base"
  row "count(jl_nullspace_clean(x, a_d, a_c, 0.01)) (Algorithm 2)" "$(timeit 0 "SELECT count(jl_nullspace_clean(x, $M, $C, 0.01)) FROM $tb")" "$base"
  base2=$(timeit 2 "SELECT count(x) FROM $tb")
  row "SELECT count(x), 2 workers" "$base2" "$base2"
  row "count(jl_nullspace_clean(x, a_d, 0.01)), 2 workers" "$(timeit 2 "SELECT count(jl_nullspace_clean(x, $M, 0.01)) FROM $tb")" "$base2"
  if [ $tb = t_main ]; then
    row "CREATE TABLE c AS SELECT id, x FROM t (copy, no cleaning)" "$(timeit_ctas "CREATE TABLE c AS SELECT id, x FROM $tb")" "$base"
    row "CREATE TABLE c AS SELECT id, jl_nullspace_clean(x, a_d, 0.01)" "$(timeit_ctas "CREATE TABLE c AS SELECT id, jl_nullspace_clean(x, $M, 0.01) AS x FROM $tb")" "$base"
  fi
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (shared)"
