#!/usr/bin/env bash
# Every test: C unit tests (no server), pg_regress, the upgrade from 0.1.0,
# the README's SQL, the statistical suite, the budget's restore into a
# second cluster, a reduced run of the papers'
# experiments and the demo, against a throwaway cluster (or the server of
# the PG* variables).
set -euo pipefail
cd "$(dirname "$0")/.."
source test/pgenv.sh

echo "== build and install"
jl_install

echo "== C unit tests (no server)"
make -s unit

jl_start_cluster

echo "== pg_regress"
if ! make -s installcheck; then
  [ -f regression.diffs ] && cat regression.diffs
  exit 1
fi

echo "== upgrades (from 0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.3.2 and 0.3.3) equal a fresh install"
test/upgrade.sh

echo "== the README's SQL, in order"
test/readme.sh

echo "== statistical tests"
test/stat/run.sh
test/sparse_memory.sh
test/cancel_memory.sh

echo "== cancels of the longest calibrations"
test/cancel_latency.sh

echo "== fuzz: every routine with hostile arguments (test/fuzz.sh, ${JLDP_FUZZ_SECONDS:-150} s; make fuzz runs longer)"
test/fuzz.sh "${JLDP_FUZZ_SECONDS:-150}"

echo "== two sessions racing for the last of a budget"
test/concurrency.sh

echo "== the charge's worker ending without a verdict"
JLDP_OWN_CLUSTER=${JL_CLUSTER_DIR:+1} test/charge_worker.sh

echo "== load: 8 sessions of budgeted releases, reservations, cap changes and reads (test/load.sh, short)"
test/load.sh "${JLDP_LOAD_SECONDS:-45}"

echo "== a budget restored into a second cluster"
test/budget_restore.sh

echo "== keys at rest: encrypted under a master key, rotated, distributed"
test/keywrap.sh

echo "== scale-out: a coordinator and two shards over postgres_fdw"
test/shard_scaleout.sh

echo "== the papers' experiments, reduced (test/paper/run.sh --quick)"
paper_out=$(mktemp -d)
test/paper/run.sh --quick --out "$paper_out" >/dev/null
rm -rf "$paper_out"

echo "== demo (the main job, as a smoke test)"
test/demo.sh >/dev/null

echo "all tests passed"
