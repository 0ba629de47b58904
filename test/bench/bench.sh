#!/usr/bin/env bash
# Benchmark: prints figures and writes them to test/bench/results.md with a plot
# (test/bench/figures/bench_throughput.png); asserts nothing.
#   1. n rows (JLDP_BENCH_ROWS, default 200000) of d = 100, k = 20, epsilon 4:
#      the slice scan x[1:20], jl_private_release (Laplace; Gaussian with
#      delta 1e-6) and jl_project, one core
#   2. the noise samplers outside the server: ns and random bits per sample
#   3. where the time of a release goes: perf's top entries inside the
#      backend (when perf is installed; make bench installs it)
#   4. rows/s against d = 10 .. 10,000 at k = 20 (the plot)
#   5. parallel query: the release over JLDP_BENCH_PAR_ROWS (default
#      2,000,000) rows, serial and with max_parallel_workers_per_gather = 2
#      and 1, against its ceiling (two sessions releasing half each at once)
#      and with the machine's CPU time of each
#   6. whole tables: jl_release of a protected table against CREATE TABLE AS
#   7. nearest neighbours: jl_recover_dist against a SQL expression,
#      against a plain-C loop over the same float8 data (the lower bound)
#      and, when the server has pgvector, against its exact scan
#   8. k-means, the long-format release, projection kinds on wide rows
#   9. k-means against scikit-learn, one core each, the same points, start
#      and iterations (test/bench/bench_kmeans.py), and jl_kmeans over a million
#      sketches
# Queries run through EXPLAIN (ANALYZE, TIMING OFF), which evaluates every
# target-list expression but sends no rows to the client.  Each query runs
# once to warm up, then RUNS times (JLDP_BENCH_RUNS, default 7), each in a
# session of its own that has loaded the library first (LOAD 'jldp': once
# per backend, 10-20 ms, most of it the dynamic loader's work on OpenBLAS;
# a parallel plan's workers load it in the query); the figures are the
# fastest and the median run.  On a shared machine the fastest run is the
# least disturbed one; ratios use it.
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/pgenv.sh
N=${JLDP_BENCH_ROWS:-200000}
NPAR=${JLDP_BENCH_PAR_ROWS:-2000000}
RUNS=${JLDP_BENCH_RUNS:-7}
OUT=${JLDP_BENCH_OUT:-test/bench/results.md}
FIG=${JLDP_BENCH_FIG:-test/bench/figures/bench_throughput.png}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
WORK=$(mktemp -d)
REPORT=$WORK/report.md

make -s -C test/bench/c >/dev/null
make -s -C test/unit lloyd_from >/dev/null
jl_install
jl_start_cluster
trap 'jl_stop_cluster; rm -rf "$WORK"' EXIT
DB=jldp_bench
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
export PGDATABASE=$DB
q() { psql -qXAt -v ON_ERROR_STOP=1 "$@"; }
# a line of the report, also printed
md() { printf '%s\n' "$*" | tee -a "$REPORT"; }

q <<SQL
CREATE EXTENSION jldp;
SELECT jl_key_create() \g /dev/null
CREATE TABLE t AS
  SELECT i AS id, ARRAY(SELECT random() FROM generate_series(1, 100) WHERE i > 0) AS x
  FROM generate_series(1, $N) i;
ALTER TABLE t ADD PRIMARY KEY (id);
ALTER TABLE t SET (parallel_workers = 0);
VACUUM ANALYZE t;
-- protected for the whole-table releases: x's 100 elements in [0, 1]
-- (random(): the clamp changes nothing), attribute neighbours, the
-- calibration of jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20))
-- (attribute bound 1); a cap
-- the benchmark never reaches
SELECT jl_protect('t', 'id', ARRAY[jl_vector('x', 100, 0, 1)], neighbor => 'attribute', epsilon_cap => 1e9) \g /dev/null
CREATE TABLE s AS SELECT id, jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20)) AS sketch FROM t;
ALTER TABLE s ADD PRIMARY KEY (id);
VACUUM ANALYZE s;
SQL
NV=$(q -c "SELECT jl_release_info(100, 4.0, 1, 'attribute', jl_sketch(k => 20))->>'noise_variance'")

# "fastest median" execution time (ms) of a query, after one warm-up run;
# $2: settings (default: parallel query off)
timeit() {
  local sql=$1 set=${2:-"SET max_parallel_workers_per_gather = 0"} runs=${3:-$RUNS} i ms=()
  for i in $(seq 0 "$runs"); do
    t=$(q -c "LOAD 'jldp'" -c "$set" -c "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) $sql" \
        | grep -o '"Execution Time": [0-9.]*' | grep -o '[0-9.]*$')
    [ "$i" -gt 0 ] && ms+=("$t")
  done
  printf '%s\n' "${ms[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)] }'
}
# Paired runs for a ratio on a machine whose speed drifts: queries A and B
# alternate in one session (after LOAD 'jldp' and a warm-up of each), N
# pairs; prints "ratio_median a_fastest b_fastest", the ratio being the
# median over pairs of A's time over B's.  $1, $3: settings; $2, $4: queries.
paired() {
  local seta=$1 qa=$2 setb=$3 qb=$4 n=${5:-15} i pairs
  pairs=$({
    echo "LOAD 'jldp';"
    for i in $(seq 0 "$n"); do
      echo "$seta;"
      echo "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) $qa;"
      echo "$setb;"
      echo "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) $qb;"
    done
  } | q | grep -o '"Execution Time": [0-9.]*' | grep -o '[0-9.]*$' | paste - - | tail -n +2)
  echo "$(echo "$pairs" | awk '{ print $1 / $2 }' | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }')" \
       "$(echo "$pairs" | cut -f1 | sort -g | head -1)" "$(echo "$pairs" | cut -f2 | sort -g | head -1)"
}
f1() { echo "$1" | cut -d' ' -f1; }
f2() { echo "$1" | cut -d' ' -f2; }

# ---- 1. the release against the slice scan
md "## Release, projection and the slice scan"
md ""
# the library's load, once per backend: fastest of 5 new sessions
load_ms=$(for i in 1 2 3 4 5; do q -c '\timing on' -c "LOAD 'jldp'" | grep -o 'Time: [0-9.]*' | grep -o '[0-9.]*$'; done | sort -g | head -1)
md "$N rows of d = 100 random values, k = 20, epsilon = 4, one core (parallel"
md "query off); ms, fastest and median of $RUNS runs; ratios of the fastest runs."
md "Each run is a new session that first loaded the library (\`LOAD 'jldp'\`, $load_ms ms"
md "here, once per backend: the dynamic loader's work on OpenBLAS, mostly)."
md ""
md "| query | fastest | median | / slice scan | rows/s |"
md "|---|---|---|---|---|"
slice=$(timeit "SELECT x[1:20] FROM t")
row() {
  local label=$1 r=$2
  md "$(awk -v l="$label" -v a="$r" -v s="$(f1 "$slice")" -v n="$N" 'BEGIN {
    split(a, A, " "); printf "| %s | %.1f | %.1f | %.2fx | %.0f |", l, A[1], A[2], A[1] / s, n / (A[1] / 1000) }')"
}
row '`SELECT x[1:20] FROM t` (the slice scan)' "$slice"
rel=$(timeit "SELECT jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20)) FROM t")
row "\`SELECT jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20)) FROM t\` (Laplace)" "$rel"
gauss=$(timeit "SELECT jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20, noise => 'gaussian', delta => 1e-6)) FROM t")
row "\`jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20, noise => 'gaussian', delta => 1e-6))\`" "$gauss"
proj=$(timeit "SELECT jl_project(x, jl_sketch(k => 20)) FROM t")
row '`SELECT jl_project(x, jl_sketch(k => 20)) FROM t` (no noise)' "$proj"
md ""
md "$(awk -v r="$(f1 "$rel")" -v g="$(f1 "$gauss")" -v p="$(f1 "$proj")" -v n="$N" 'BEGIN {
  printf "Noise per sample in the server (release minus projection, 20 samples a row): %.1f ns Laplace, %.1f ns Gaussian.", (r - p) * 1e6 / (20 * n), (g - p) * 1e6 / (20 * n) }')"
md ""

# ---- 2. the samplers outside the server
md "## The noise samplers"
md ""
md "\`test/bench/c/bench_sampler\`: the exact samplers with their tables, bits from the"
md "ChaCha20 keystream generator the server uses ([randomness.md](randomness.md)); fastest of 7 rounds."
md "The release above samples the discrete Laplace at scale 9167 grid steps and the"
md "discrete Gaussian at 9802 (both from one alias-table lookup; the Gaussian at"
md "40000 is above the direct table's range and uses rejection from the Laplace)."
md ""
md "| sampler | scale (grid steps) | ns per sample | random bits per sample |"
md "|---|---|---|---|"
test/bench/c/bench_sampler > "$WORK/sampler.txt"
ks=$(awk '/^keystream/ { print $3 }' "$WORK/sampler.txt")
awk '$1 == "laplace" || $1 == "gaussian" { printf "| discrete %s | %s | %s | %s |\n", ($1 == "laplace") ? "Laplace" : "Gaussian", $2, $3, $4 }' \
  "$WORK/sampler.txt" | tee -a "$REPORT"
md ""
md "The keystream itself: $ks ns per byte."
md ""

# ---- 3. the profile
if command -v perf >/dev/null 2>&1 && [ "${JLDP_BENCH_PROFILE:-1}" != 0 ]; then
  # profile <name> <statement, run 12 times in one backend>
  profile() {
    local name=$1 stmt=$2
    {
      echo "SET max_parallel_workers_per_gather = 0;"
      echo "$stmt"
      echo "SELECT pg_backend_pid() AS pid \\gset"
      echo "\\setenv JL_PID :pid"
      echo "\\! perf record -q -F 1999 -p \$JL_PID -o $WORK/$name.data -- sleep 6 >/dev/null 2>&1 &"
      echo "SELECT pg_sleep(0.3);"
      for i in $(seq 1 12); do echo "$stmt"; done
      echo "SELECT pg_sleep(6);"
    } | q >/dev/null
    perf report -i "$WORK/$name.data" --no-children --sort dso,symbol --stdio 2>/dev/null \
      | awk '/^ *[0-9.]+%/ { n++; if (n <= 10) { pct = $1; $1 = ""; sub(/^ +/, ""); gsub(/\[\.\] |\[k\] /, ""); sub(/ +- +- *$/, ""); printf "| %s | `%s` |\n", pct, $0 } }'
  }
  md "## Where the time of a release goes"
  md ""
  md "\`perf record\` (cpu-clock samples at 2 kHz) on the backend while it runs the"
  md "query 12 times; the top entries (shared object, symbol):"
  md ""
  for which in laplace gaussian project table; do
    case $which in
      laplace) sql="SELECT jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20)) FROM t" ;;
      gaussian) sql="SELECT jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20, noise => 'gaussian', delta => 1e-6)) FROM t" ;;
      project) sql="SELECT jl_project(x, jl_sketch(k => 20)) FROM t" ;;
      table) sql="SELECT jl_release('t', 's_prof', 4.0, jl_sketch(k => 20))" ;;
    esac
    if [ "$which" = table ]; then
      stmt="DROP TABLE IF EXISTS s_prof; $sql;"
    else
      stmt="EXPLAIN (ANALYZE, TIMING OFF) $sql;"
    fi
    md "\`$sql\`:"
    md ""
    md "| share | where |"
    md "|---|---|"
    profile "$which" "$stmt" | tee -a "$REPORT"
    md ""
  done
  q -c "DROP TABLE IF EXISTS s_prof" >/dev/null
fi

# ---- 4. rows/s against d
md "## Rows per second against d"
md ""
md "k = 20, epsilon = 4, one core; rows = min($N, 2·10⁷ / d); fastest of 3 runs."
md "Arrays over 2 kB (d > 250) are stored out of line (TOAST), which all three"
md "queries read. Plot: [figures/bench_throughput.png](figures/bench_throughput.png)."
md ""
md "| d | rows | slice scan rows/s | jl_project rows/s | release rows/s | release / slice scan |"
md "|---|---|---|---|---|---|"
: > "$WORK/throughput.txt"
for d in 10 30 100 300 1000 3000 10000; do
  rows=$(( 20000000 / d )); [ "$rows" -gt "$N" ] && rows=$N
  q -c "DROP TABLE IF EXISTS td" -c "CREATE TABLE td AS SELECT i AS id, ARRAY(SELECT random() FROM generate_series(1, $d) WHERE i > 0) AS x FROM generate_series(1, $rows) i" \
    -c "ALTER TABLE td SET (parallel_workers = 0)" -c "VACUUM ANALYZE td" >/dev/null
  a=$(f1 "$(timeit "SELECT x[1:20] FROM td" "" 3)")
  b=$(f1 "$(timeit "SELECT jl_project(x, jl_sketch(k => 20)) FROM td" "" 3)")
  c=$(f1 "$(timeit "SELECT jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20)) FROM td" "" 3)")
  echo "$d $rows $a $b $c" >> "$WORK/throughput.txt"
  md "$(awk -v d="$d" -v n="$rows" -v a="$a" -v b="$b" -v c="$c" 'BEGIN {
    printf "| %d | %d | %.0f | %.0f | %.0f | %.2fx |", d, n, n / (a / 1000), n / (b / 1000), n / (c / 1000), c / a }')"
done
q -c "DROP TABLE td" >/dev/null
md ""
mkdir -p "$(dirname "$FIG")"
"$PY" - "$WORK/throughput.txt" "$FIG" <<'PY'
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
d = [r[0] for r in rows]
fig, ax = plt.subplots(figsize=(6.4, 4.2))
for i, label, m in ((2, "slice scan x[1:20]", "o"), (3, "jl_project(x, jl_sketch(k => 20))", "s"),
                    (4, "jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20))", "^")):
    ax.plot(d, [r[1] / (r[i] / 1000.0) for r in rows], marker=m, label=label)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("d (length of x)")
ax.set_ylabel("rows per second (one core)")
ax.set_title("k = 20, epsilon = 4, fastest of 3 runs")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
PY

# ---- 5. parallel query
q <<SQL >/dev/null
CREATE TABLE tp AS SELECT id + j * $N AS id, x FROM t, generate_series(0, ($NPAR / $N) - 1) j;
VACUUM ANALYZE tp;
SQL
NP=$(q -c "SELECT count(*) FROM tp")
# the machine's own ceiling: a busy loop alone and in two processes at once
cores=$(test/bench/c/bench_cores)
PSET="SET max_parallel_workers_per_gather = 2"
PSET1="SET max_parallel_workers_per_gather = 1"
RSQL="SELECT jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20)) FROM tp"
ser=$(timeit "$RSQL" "" 3)
par=$(timeit "$RSQL" "$PSET" 3)
par1=$(timeit "$RSQL" "$PSET1" 3)
PSETNL="SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off"
parnl=$(timeit "$RSQL" "$PSETNL" 3)
pscan=$(timeit "SELECT x[1:20] FROM tp" "$PSET" 3)
sscan=$(timeit "SELECT x[1:20] FROM tp" "" 3)
# the same work with a small result: the sketches summed in the workers
# (partial aggregates), so that the gather does not move 2,000,000 arrays
ASQL="SELECT sum((jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20)))[1]) FROM tp"
aser=$(timeit "$ASQL" "" 3)
apar=$(timeit "$ASQL" "$PSET" 3)
workers=$(q -c "$PSET" -c "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) $RSQL" \
          | grep -o '"Workers Launched": [0-9]*' | grep -o '[0-9]*$' || echo 0)
# the work's own ceiling: two sessions at once, each releasing half of the
# table (its first and second half of pages), serial plans, no gather;
# wall time from the first start to the last end, fastest of 3
HALF=$(( $(q -c "SELECT pg_relation_size('tp') / current_setting('block_size')::int") / 2 ))
halfq() { q -c "SET max_parallel_workers_per_gather = 0" -c "EXPLAIN (ANALYZE, TIMING OFF) $RSQL WHERE ctid $1 '($HALF,0)'" >/dev/null; }
two=""
for i in 0 1 2 3; do
  t0=$(date +%s%N)
  halfq "<" & halfq ">="
  wait
  t1=$(( ($(date +%s%N) - t0) / 1000000 ))
  [ "$i" -gt 0 ] && two=$(awk -v a="$two" -v b="$t1" 'BEGIN { print (a == "" || b < a) ? b : a }')
done
# the CPU time of the whole machine during one run of each (ticks of
# /proc/stat, so everything else running counts too): what the gather adds
# "cpu_ms wall_ms"
cpuof() {
  local a b t0 t1
  a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat)
  t0=$(date +%s%N)
  q -c "$1" -c "EXPLAIN (ANALYZE, TIMING OFF) $RSQL" >/dev/null
  t1=$(date +%s%N)
  b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat)
  echo $(( (b - a) * 1000 / $(getconf CLK_TCK) )) $(( (t1 - t0) / 1000000 ))
}
cser=$(cpuof "SET max_parallel_workers_per_gather = 0")
cpar=$(cpuof "$PSET")
cpar1=$(cpuof "$PSET1")
md "## Parallel query"
md ""
# paired: serial and parallel alternating in one session
S0="SET max_parallel_workers_per_gather = 0"
PAIRS=${JLDP_BENCH_PAIRS:-5}
pp2=$(paired "$S0" "$RSQL" "$PSET" "$RSQL" "$PAIRS")
ppnl=$(paired "$S0; SET parallel_leader_participation = on" "$RSQL" "$PSETNL" "$RSQL" "$PAIRS")
pp1=$(paired "$S0" "$RSQL" "$PSET1" "$RSQL" "$PAIRS")
ppa=$(paired "$S0" "$ASQL" "$PSET" "$ASQL" "$PAIRS")
md "$NP rows of d = 100 (the table above, repeated), k = 20, epsilon = 4; ms,"
md "fastest and median of 3 runs; $workers workers launched besides the leader"
md "with max_parallel_workers_per_gather = 2."
md ""
md "| query | serial | parallel | speed-up |"
md "|---|---|---|---|"
md "$(awk -v a="$sscan" -v b="$pscan" 'BEGIN { split(a, A, " "); split(b, B, " "); printf "| `SELECT x[1:20] FROM tp`, 2 workers | %.0f (%.0f) | %.0f (%.0f) | %.2fx |", A[1], A[2], B[1], B[2], A[1] / B[1] }')"
md "$(awk -v a="$ser" -v b="$par" 'BEGIN { split(a, A, " "); split(b, B, " "); printf "| `SELECT jl_private_release(x, 4.0, 1, '"'"'attribute'"'"', jl_sketch(k => 20)) FROM tp`, 2 workers | %.0f (%.0f) | %.0f (%.0f) | %.2fx |", A[1], A[2], B[1], B[2], A[1] / B[1] }')"
md "$(awk -v a="$ser" -v b="$parnl" 'BEGIN { split(a, A, " "); split(b, B, " "); printf "| the same, 2 workers, parallel_leader_participation = off | %.0f (%.0f) | %.0f (%.0f) | %.2fx |", A[1], A[2], B[1], B[2], A[1] / B[1] }')"
md "$(awk -v a="$ser" -v b="$par1" 'BEGIN { split(a, A, " "); split(b, B, " "); printf "| the same, 1 worker (max_parallel_workers_per_gather = 1) | %.0f (%.0f) | %.0f (%.0f) | %.2fx |", A[1], A[2], B[1], B[2], A[1] / B[1] }')"
md "$(awk -v a="$aser" -v b="$apar" -v q="$ASQL" 'BEGIN { split(a, A, " "); split(b, B, " "); printf "| `%s`, 2 workers | %.0f (%.0f) | %.0f (%.0f) | %.2fx |", q, A[1], A[2], B[1], B[2], A[1] / B[1] }')"
md "$(awk -v a="$ser" -v b="$two" 'BEGIN { split(a, A, " "); printf "| the release in two sessions at once, half of the pages each (serial plans, no gather; wall time) | %.0f | %.0f | %.2fx |", A[1], b, A[1] / b }')"
md ""
md "Paired runs: the serial and the parallel plan alternate in one session, $PAIRS pairs; the median of the"
md "pairs' speed-ups, which cancels the drift of a shared machine's speed (fastest serial and parallel run in ms)."
md ""
md "| plan | median speed-up | serial | parallel |"
md "|---|---|---|---|"
md "$(echo "$pp2" | awk '{ printf "| the release, 2 workers | %.2fx | %.0f | %.0f |", $1, $2, $3 }')"
md "$(echo "$ppnl" | awk '{ printf "| the release, 2 workers, parallel_leader_participation = off | %.2fx | %.0f | %.0f |", $1, $2, $3 }')"
md "$(echo "$pp1" | awk '{ printf "| the release, 1 worker | %.2fx | %.0f | %.0f |", $1, $2, $3 }')"
md "$(echo "$ppa" | awk '{ printf "| the sum of the sketches, 2 workers | %.2fx | %.0f | %.0f |", $1, $2, $3 }')"
md ""
md "$(echo "$cores" | awk '{ printf "The ceilings: a busy loop in C (`test/bench/c/bench_cores`) takes %.3f s alone and %.3f s in each of two processes at once, so two processes do %.2fx the work of one on this machine (2.00x: two whole cores; 1.00x: the two CPUs share one core, as virtual CPUs may).", $1, $2, $3 }') The last row is this work split in two with nothing between the halves: what two processes gained at the time, a reference measured once (a parallel plan measured at a calmer moment can do better)."
md ""
md "$(awk -v s="$(f1 "$cser")" -v p="$(f1 "$cpar")" -v p1="$(f1 "$cpar1")" -v n="$NP" -v w="$(f2 "$cpar")" 'BEGIN { printf "CPU time of the machine during one run: %d ms serial, %d ms with 2 workers (%.2f us more a row), %d ms with 1 worker. What a parallel plan adds is the gather: each sketch a worker makes is copied into a 64 kB queue the leader empties, and the processes wake each other every few hundred rows. With 2 workers three processes share the two CPUs (the leader also releases rows while its queues are empty), and the CPUs idle while a worker waits for the leader to empty its full queue: the CPU time of the machine in that run was %.0f%% of twice its wall time. With the leader only gathering (parallel_leader_participation = off) or with 1 worker, two processes share the two CPUs.", s, p, (p - s) * 1000 / n, p1, 100 * p / (2 * w) }')"
md ""
q -c "DROP TABLE tp" >/dev/null

# ---- 6. whole tables
# wall time (ms) of one run of a statement, after dropping its table
wall1() {
  q -c "DROP TABLE IF EXISTS $2" >/dev/null
  q -c "SET max_parallel_workers_per_gather = 0" -c '\timing on' -c "$1" | grep -o 'Time: [0-9.]*' | tail -1 | grep -o '[0-9.]*$'
}
lower() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
# the three statements in turn, 5 rounds, the fastest of each: a drift of
# the machine's speed falls on all three alike
ctas=""; copy=""; table=""
for i in 1 2 3 4 5; do
  copy=$(lower "$copy" "$(wall1 "CREATE TABLE s_rows AS SELECT id, x[1:20] AS sketch FROM t" s_rows)")
  ctas=$(lower "$ctas" "$(wall1 "CREATE TABLE s_rows AS SELECT id, jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20)) AS sketch FROM t" s_rows)")
  table=$(lower "$table" "$(wall1 "SELECT jl_release('t', 's_table', 4.0, jl_sketch(k => 20))" s_table)")
done
md "## Whole tables"
md ""
md "Wall time of the statement, fastest of 5 (the three in turn, 5 rounds), $N rows, one core."
md ""
md "| statement | ms | rows/s |"
md "|---|---|---|"
md "$(awk -v a="$copy" -v n="$N" 'BEGIN { printf "| `CREATE TABLE AS SELECT id, x[1:20]` (writing the same shape without a release) | %.1f | %.0f |", a, n / (a / 1000) }')"
md "$(awk -v a="$ctas" -v n="$N" 'BEGIN { printf "| `CREATE TABLE AS SELECT id, jl_private_release(x, 4.0, 1, '"'"'attribute'"'"', jl_sketch(k => 20))` | %.1f | %.0f |", a, n / (a / 1000) }')"
md "$(awk -v a="$table" -v c="$ctas" -v n="$N" 'BEGIN { printf "| `jl_release(t, ..., 4.0, jl_sketch(k => 20))` (batched, BLAS level 3) | %.1f | %.0f (%.2fx the CTAS) |", a, n / (a / 1000), c / a }')"
md ""
md "$(awk -v a="$table" -v c="$ctas" -v w="$copy" 'BEGIN { if (w >= c) printf "In this run writing the same shape without any release (the first row) was not faster than the CTAS form (%.0f%% of its time): the machine'"'"'s drift was larger than the release'"'"'s own cost, and the rows say nothing about it. ", 100 * w / c; else printf "Writing the same shape without any release (the first row) takes %.0f%% of the CTAS form'"'"'s time, so a release that cost nothing would be at most %.2fx faster than the CTAS form. ", 100 * w / c, c / w; printf "Both forms spend what is left on the same things: the noise (20 exact samples a row), the product x P (one BLAS level-3 product per batch in jl_release, a vectorised kernel per row in the CTAS form) and reading the rows; jl_release also reads each row through its declaration'"'"'s encoder (jl_encode_vector: every element clamped to its bounds and mapped, one function call and one array a row, which the CTAS form of unchecked x does not do) and pays a fixed cost per statement (the declaration'"'"'s checks, the budget charge, the registry record, the target created by SPI, the sampler'"'"'s table), tens of milliseconds." }')"
md ""

# ---- 7. nearest neighbours
# the query vector as a constant, as a client sends it (a subquery on s,
# which has no index, would add a scan of the table to every query)
QV="'$(q -c "SELECT sketch FROM s WHERE id = 1")'::float8[]"
knn=$(timeit "SELECT id FROM s ORDER BY jl_recover_dist(sketch, $QV, $NV) LIMIT 10")
topn=$(timeit "SELECT id FROM s ORDER BY sketch[1] LIMIT 10")
plain=$(timeit "SELECT id FROM s ORDER BY (SELECT sum((a - b) * (a - b)) FROM unnest(sketch, $QV) AS u(a, b)) LIMIT 10")
cnt=$(timeit "SELECT count(sketch) FROM s")
q -c "COPY (SELECT array_to_string(sketch, ' ') FROM s ORDER BY id <> 1, id) TO STDOUT" > "$WORK/sketches.txt"
cbound=$(test/bench/c/bench_knn < "$WORK/sketches.txt" | cut -d' ' -f1)
# pgvector's exact scan on the same sketches cast to vector(20), when the
# server has pgvector (the extension named vector); not a dependency
PGV=$(q -c "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")
if [ -n "$PGV" ]; then
  q >/dev/null <<SQL
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE sv AS SELECT id, sketch::vector(20) AS v FROM s;
ALTER TABLE sv ADD PRIMARY KEY (id);
ALTER TABLE sv SET (parallel_workers = 0);
VACUUM ANALYZE sv;
SQL
  QVV="'$(q -c "SELECT v FROM sv WHERE id = 1")'::vector(20)"
  pgv=$(timeit "SELECT id FROM sv ORDER BY v <-> $QVV LIMIT 10")
  pgvcnt=$(timeit "SELECT count(v) FROM sv")
  same=$(q -c "SELECT (SELECT array_agg(id) FROM (SELECT id FROM s ORDER BY jl_recover_dist(sketch, $QV, $NV) LIMIT 10) a)
                    = (SELECT array_agg(id) FROM (SELECT id FROM sv ORDER BY v <-> $QVV LIMIT 10) b)")
  sizes=$(q -c "SELECT pg_size_pretty(pg_table_size('s')) || ' of float8[] against ' || pg_size_pretty(pg_table_size('sv')) || ' of vector(20)'")
  S0="SET max_parallel_workers_per_gather = 0"
  pknn=$(paired "$S0" "SELECT id FROM s ORDER BY jl_recover_dist(sketch, $QV, $NV) LIMIT 10" \
                "$S0" "SELECT id FROM sv ORDER BY v <-> $QVV LIMIT 10" 15)
fi
md "## Nearest neighbours"
md ""
md "The 10 nearest of $N sketches of k = 20 to one of them; ms, fastest and median of $RUNS runs."
md ""
md "| query | fastest | median |"
md "|---|---|---|"
md "| \`SELECT count(sketch) FROM s\` (the scan alone) | $(f1 "$cnt") | $(f2 "$cnt") |"
md "| \`ORDER BY sketch[1] LIMIT 10\` (the scan and the top-10 sort, no distance) | $(f1 "$topn") | $(f2 "$topn") |"
md "| \`ORDER BY jl_recover_dist(sketch, q, nv) LIMIT 10\` (q a constant) | $(f1 "$knn") | $(f2 "$knn") |"
md "| \`ORDER BY (SELECT sum((a - b) * (a - b)) FROM unnest(sketch, q))\` | $(f1 "$plain") | $(f2 "$plain") |"
md "| plain C: the same distances and top 10 over the sketches in one float8 array (\`test/bench/c/bench_knn\`) | $cbound | |"
if [ -n "$PGV" ]; then
  md "| pgvector (extension vector $PGV): \`SELECT count(v) FROM sv\` (the sketches as vector(20)) | $(f1 "$pgvcnt") | $(f2 "$pgvcnt") |"
  md "| pgvector (extension vector $PGV): \`ORDER BY v <-> q LIMIT 10\` (its exact scan) | $(f1 "$pgv") | $(f2 "$pgv") |"
  md ""
  md "$(echo "$pknn" | awk '{ printf "Paired runs (the two queries alternating in one session, 15 pairs): jl_recover_dist over pgvector, median of the pairs %.2fx; fastest %.1f ms against %.1f ms.", $1, $2, $3 }')"
  md ""
  md "$(awk -v a="$knn" -v b="$pgv" -v c="$cnt" -v d="$pgvcnt" -v same="$same" -v sz="$sizes" 'BEGIN { split(a, A, " "); split(b, B, " "); split(c, C, " "); split(d, D, " "); printf "Runs in sessions of their own (the table above): jl_recover_dist against pgvector %.2fx (fastest runs); the same 10 neighbours: %s. Above its table'"'"'s scan, the distance and the top-10 sort take %.1f ms for jl_recover_dist and %.1f ms for pgvector'"'"'s <->; the tables are %s (float4 elements), and the scans differ by %.1f ms.", A[1] / B[1], (same == "t" ? "yes" : "no"), A[1] - C[1], B[1] - D[1], sz, C[1] - D[1] }')"
else
  md ""
  md "pgvector (the extension named vector) is not installed on this server: its exact scan is not measured."
fi
md ""

# ---- 8. k-means, the aggregate, projection kinds
q <<SQL >/dev/null
CREATE TABLE sc AS
  SELECT i AS id, ARRAY(SELECT 10 * (j % 4 = i % 4)::int + sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())
                        FROM generate_series(1, 20) j WHERE i > 0) AS sketch
  FROM generate_series(1, $N) i;
ALTER TABLE sc SET (parallel_workers = 0);
VACUUM ANALYZE sc;
SQL
km=$(timeit "SELECT jl_kmeans(sketch, 4) FROM sc" "" 3)
kcnt=$(timeit "SELECT count(sketch) FROM sc" "" 3)
CENT=$(q -c "SELECT jl_kmeans(sketch, 4) FROM sc")
label=$(timeit "SELECT jl_nearest_centroid(sketch, '$CENT') FROM sc" "" 3)
q <<SQL >/dev/null
CREATE TABLE facts AS
  SELECT r AS row_id, (7 * r + 13 * j) % 100 + 1 AS attr, random() AS val
  FROM generate_series(1, $N) r, generate_series(1, 20) j;
-- (7 r + 13 j) mod 100 takes 20 distinct values for j = 1..20 (13 is a
-- unit mod 100): the unit and the attribute are unique together
ALTER TABLE facts ADD PRIMARY KEY (row_id, attr);
VACUUM ANALYZE facts;
SELECT jl_protect('facts', 'row_id', ARRAY[jl_long('attr', 'val', 100, 0, 1)], neighbor => 'attribute', epsilon_cap => 1e9) \g /dev/null
SQL
aggms() {
  local sql=$1 i best=""
  for i in 0 1 2; do
    ms=$(q -c "SET max_parallel_workers_per_gather = 0" -c "SET work_mem = '256MB'" \
           -c "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) $sql" \
         | grep -o '"Execution Time": [0-9.]*' | grep -o '[0-9.]*$')
    [ "$i" -gt 0 ] && best=$(awk -v a="$best" -v b="$ms" 'BEGIN { print (a == "" || b < a) ? b : a }')
  done
  echo "$best"
}
# the release of the long-format table: wall time of the statement (it
# writes its target), fastest of 2 after a first run
agg=""
for i in 0 1 2; do
  ms=$(wall1 "SELECT jl_release('facts', 's_long', 4.0, jl_sketch(k => 20))" s_long)
  [ "$i" -gt 0 ] && agg=$(lower "$agg" "$ms")
done
q -c "DROP TABLE s_long" >/dev/null
acnt=$(aggms "SELECT row_id, count(val) FROM facts GROUP BY row_id")
md "## Clustering and the long format"
md ""
md "ms, fastest of 3 runs (the long format: of 2, work_mem 256MB for the GROUP BY; the release's statement time, writing its target)."
md ""
md "| query | ms |"
md "|---|---|"
md "| \`SELECT count(sketch) FROM sc\` ($N sketches of k = 20 around 4 centres) | $(f1 "$kcnt") |"
md "| \`SELECT jl_kmeans(sketch, 4) FROM sc\` | $(f1 "$km") |"
md "| \`SELECT jl_nearest_centroid(sketch, <4 x 20 centroids>) FROM sc\` | $(f1 "$label") |"
md "| \`SELECT row_id, count(val) FROM facts GROUP BY row_id\` ($N rows x 20 attributes) | $acnt |"
md "| \`jl_release('facts', ..., 4.0, jl_sketch(k => 20))\` (facts protected as jl_long('attr', 'val', 100, 0, 1)) | $(f1 "$agg") |"
md ""

W=${JLDP_BENCH_WIDE_ROWS:-10000}
q <<SQL >/dev/null
CREATE TABLE w AS
  SELECT i AS id, ARRAY(SELECT random() FROM generate_series(1, 1000) WHERE i > 0) AS x
  FROM generate_series(1, $W) i;
ALTER TABLE w ADD PRIMARY KEY (id);
ALTER TABLE w SET (parallel_workers = 0);
VACUUM ANALYZE w;
SQL
md "## Projection kinds"
md ""
md "$W rows of d = 1000, k = 20, epsilon = 4; ms, fastest and median of 3 runs."
md ""
md "| query | fastest | median |"
md "|---|---|---|"
wslice=$(timeit "SELECT x[1:20] FROM w" "" 3)
md "| \`SELECT x[1:20] FROM w\` (the slice scan) | $(f1 "$wslice") | $(f2 "$wslice") |"
for kind in rademacher gaussian achlioptas sparse; do
  r=$(timeit "SELECT jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20, kind => '$kind')) FROM w" "" 3)
  md "| \`jl_private_release(x, 4.0, 1, 'attribute', jl_sketch(k => 20, kind => '$kind'))\` | $(f1 "$r") | $(f2 "$r") |"
done
md ""

# ---- 8b. composing a dataset's releases, per charge
md "## Composing a dataset's releases, per charge"
md ""
md "Each charge composes the dataset's charges since its last reset with the new"
md "one (docs/design/accounting.md), under the dataset's lock; what that costs"
md "against the number of releases already on the dataset (test/bench/c/bench_compose:"
md "epsilons 0.01 to 0.026, target delta 1e-6; mixed: every third zCDP)."
md ""
test/bench/c/bench_compose | tee -a "$REPORT"
md ""

# ---- 9. k-means against scikit-learn; a million sketches
md "## k-means against scikit-learn"
md ""
md "Lloyd iterations, one core each, on the same points from the same start for"
md "the same number of iterations (test/bench/bench_kmeans.py: n uniform points in"
md "[0, 1)^20; scikit-learn $($PY -c 'import sklearn; print(sklearn.__version__)')'s KMeans(algorithm='lloyd', tol=0) with one"
md "thread; jldp's iterations are the jl_kmeans aggregate's code). Fastest of 3."
md ""
$PY test/bench/bench_kmeans.py | tee -a "$REPORT"
M=${JLDP_BENCH_KMEANS_ROWS:-1000000}
q <<SQL >/dev/null
CREATE TABLE km AS
  SELECT i AS id, ARRAY(SELECT random() FROM generate_series(1, 20) WHERE i > 0) AS sketch
  FROM generate_series(1, $M) i;
ALTER TABLE km SET (parallel_workers = 0);
VACUUM ANALYZE km;
SQL
kmc=$(timeit "SELECT count(sketch) FROM km" "" 3)
km8=$(timeit "SELECT jl_kmeans(sketch, 8) FROM km" "" 3)
kmr0=$(timeit "SELECT * FROM jl_kmeans('km', 8)" "SET max_parallel_workers_per_gather = 0" 3)
kmr2=$(timeit "SELECT * FROM jl_kmeans('km', 8)" "SET max_parallel_workers_per_gather = 2" 3)
kmit=$(q -c "SELECT iterations FROM jl_kmeans('km', 8)")
md ""
md "$M uniform sketches of k = 20 in one query (the sketches collected, sorted,"
md "seeded with k-means++, then $kmit iterations until scikit-learn's tol = 1e-4),"
md "ms, fastest and median of 3; the one-call form with its assignment steps"
md "in parallel workers (the same centroids):"
md ""
md "| query | fastest | median |"
md "|---|---|---|"
md "| \`SELECT count(sketch) FROM km\` | $(f1 "$kmc") | $(f2 "$kmc") |"
md "| \`SELECT jl_kmeans(sketch, 8) FROM km\` (the aggregate, serial) | $(f1 "$km8") | $(f2 "$km8") |"
md "| \`SELECT * FROM jl_kmeans('km', 8)\`, no parallel worker | $(f1 "$kmr0") | $(f2 "$kmr0") |"
md "| \`SELECT * FROM jl_kmeans('km', 8)\`, 2 parallel workers | $(f1 "$kmr2") | $(f2 "$kmr2") |"
md ""

psql -qX -d postgres -c "DROP DATABASE $DB"

# ---- the report
PGV=$(psql -qXAt -d postgres -c "SHOW server_version")
CPU=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
MEM=$(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo)
REV=$(git rev-parse --short HEAD 2>/dev/null || echo "unknown")
VER=$(sed -n "s/^default_version = '\(.*\)'/\1/p" jldp.control)
{
  echo "# jldp benchmarks"
  echo
  echo "Written by \`make bench\` (test/bench/bench.sh); benchmarks are separate from the"
  echo "tests and assert nothing. This run: jldp $VER (commit $REV), PostgreSQL $PGV,"
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores of $CPU, $MEM of memory."
  echo "The machine is shared with other work, so the medians wander; the fastest"
  echo "run is the least disturbed, and ratios use it."
  echo
  echo "![rows per second against d](figures/bench_throughput.png)"
  echo
  cat "$REPORT"
} > "$OUT"
echo "wrote $OUT and $FIG"
