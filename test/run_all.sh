#!/usr/bin/env bash
# Every test: C unit tests (no server), pg_regress, the upgrades, the
# README's SQL and outputs, the statistical suite, cancels and the fuzzer,
# races, load, the budget's restore into a second cluster, keys at rest,
# scale-out, a reduced run of the papers' experiments and the demo, against
# a throwaway cluster (or the server of the PG* variables).  Each part's
# time is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
source test/pgenv.sh

times=()
# part "title" command...: run one part, announce it and time it
part() {
  local title=$1 t0 t1
  shift
  echo "== $title"
  t0=$(date +%s)
  "$@"
  t1=$(date +%s)
  times+=("$(printf '%6d s  %s' $((t1 - t0)) "$title")")
}
report_times() {
  echo "== time of each part"
  printf '%s\n' "${times[@]}"
}
trap 'report_times' EXIT

pg_regress() {
  if ! make -s installcheck; then
    [ -f regression.diffs ] && cat regression.diffs
    return 1
  fi
}
statistical() {
  test/statistical/run.sh
  test/integration/sparse_memory.sh
  test/integration/cancel_memory.sh
}
papers() {
  local out
  out=$(mktemp -d)
  test/paper/run.sh --quick --out "$out" >/dev/null
  rm -rf "$out"
}

part "build with warnings as errors (-Wall -Wextra -Werror)" make -s WARNINGS=error
part "the architecture: layers, entry points, no cycle of calls (test/static/structure.sh)" test/static/structure.sh
part "the docs against the code: links, paths, function names (test/static/docs.sh)" test/static/docs.sh
part "static analysis: cppcheck on the core and the glue (test/static/static_analysis.sh)" test/static/static_analysis.sh
part "build and install" jl_install
part "C unit tests (no server)" make -s unit
part "C unit tests under AddressSanitizer and UndefinedBehaviorSanitizer" make -s -C test/unit run-sanitized
part "the plain-C core under libFuzzer, 20 s a harness (make fuzz-core: 10 million executions)" make -s -C test/fuzz/core run SECONDS=20
part "the composition accountant against an independent implementation (numpy)" \
  sh -c "make -s -C test/unit compose_from && /usr/bin/python3 test/statistical/accountant_reference.py"
part "k-means from one start against a numpy Lloyd and scikit-learn" \
  sh -c "make -s -C test/unit lloyd_from && /usr/bin/python3 test/statistical/kmeans_reference.py"
jl_start_cluster
# the cluster's own trap replaced ours: report the times, then stop it
trap 'report_times; jl_stop_cluster' EXIT
part "pg_regress" pg_regress
part "upgrades (from 0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.3.2, 0.3.3, 0.3.4, 0.4.0, 0.4.1, 0.4.2, 0.5.0, 1.0.0 and 1.1.0) equal a fresh install" test/integration/upgrade.sh
part "the README's and the guide's SQL, in order, and the outputs they show" test/integration/readme.sh
part "the analyst's Python example (psycopg2, numpy) against the server's recovery" test/integration/python_example.sh
part "statistical tests" statistical
part "cancels of the longest calibrations" test/integration/cancel_latency.sh
part "fuzz: every routine with hostile arguments (${JLDP_FUZZ_SECONDS:-150} s; make fuzz runs longer)" \
  test/fuzz/sql/fuzz.sh "${JLDP_FUZZ_SECONDS:-150}"
part "two sessions racing for the last of a budget" test/integration/concurrency.sh
part "the charge's worker ending without a verdict" \
  env JLDP_OWN_CLUSTER=${JL_CLUSTER_DIR:+1} test/integration/charge_worker.sh
part "load: 8 sessions of budgeted releases, bookings, cap changes and reads (test/integration/load.sh, short)" \
  test/integration/load.sh "${JLDP_LOAD_SECONDS:-45}"
part "a budget restored into a second cluster" test/integration/budget_restore.sh
part "keys at rest: encrypted under a master key, rotated, distributed" test/integration/keywrap.sh
part "scale-out: a coordinator and two shards over postgres_fdw" test/integration/shard_scaleout.sh
part "a sharded protected table released where its rows live" test/integration/shard_protected.sh
part "the papers' experiments, reduced (test/paper/run.sh --quick)" papers
part "demo (the main job, as a smoke test)" sh -c 'test/demo.sh >/dev/null'

echo "all tests passed"
