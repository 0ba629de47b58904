#!/usr/bin/env bash
# Null-space cleaning (the paper in papers/nullspace-cleaning-linear-
# predictors.txt) on the scene data set, through jldp's SQL: Figures 4, 6
# and 7 beside the published numbers, the two allocations of Algorithm 1,
# a k-nearest-neighbour adversary and a sweep of utility_error.
#
# Usage: test/paper/nullspace.sh --out DIR [--quick]
# Writes DIR/results/nullspace_*.csv, DIR/figures/nullspace_*.png and the
# markdown fragment DIR/results/nullspace_section.md (included by
# report.py).  The data: the directory JLDP_SCENE_DIR, by default
# ../shared/data/scene beside the source tree (scene-train.arff and
# scene-test.arff, Mulan's CSV); without it the section says so and the
# script succeeds.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/plugin.sh" nullspace "matplotlib, numpy" "$@"

top=$(cd "$here/../.." && pwd)
data=${JLDP_SCENE_DIR:-$top/../shared/data/scene}
if [ ! -f "$data/scene-train.arff" ] || [ ! -f "$data/scene-test.arff" ]; then
  echo "nullspace: the scene data are not at $data (set JLDP_SCENE_DIR); section skipped" >&2
  printf '## Null-space cleaning on the scene data\n\nNot run: the scene data set was not found (set `JLDP_SCENE_DIR`).\n' \
    > "$out/results/nullspace_section.md"
  exit 0
fi

# sizes: the paper's 10 runs; the quick run checks the pipeline
eps=0.01
laplace='{0.01,0.02,0.03}'
knn=10
if [ "$quick" = 1 ]; then
  runs=1; sweep='{0.001,1}'; sweep_runs=1; knn_runs=1
else
  runs=10; sweep='{0.0001,0.001,0.1,1}'; sweep_runs=10; knn_runs=3
fi

db=jldp_nullspace
tmp=$(mktemp -d)
cleanup() { psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap 'cleanup; jl_stop_cluster' EXIT

start=$(date +%s)
"$py" "$here/nullspace_data.py" "$data" "$tmp/scene.csv"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $db"
psql -X -q -v ON_ERROR_STOP=1 -o /dev/null -d "$db" <<SQL
SET client_min_messages = warning;
CREATE EXTENSION jldp;
\i $here/nullspace.sql
\copy ns_row FROM '$tmp/scene.csv' CSV
ANALYZE ns_row;
SELECT ns_experiment($runs, $eps, '$sweep', $sweep_runs, $knn, $knn_runs, '$laplace');
\copy (SELECT run, nd, nc, eps, method, adversary, count(*) AS n, avg(e_utility) AS e_utility, max(e_utility) AS e_utility_max, avg(e_privacy) AS e_privacy, avg((e_privacy > e_mean)::int) AS complete_privacy, avg(e_privacy_true) AS e_privacy_true, avg((e_privacy_true > e_mean_true)::int) AS complete_privacy_true FROM ns_out GROUP BY run, nd, nc, eps, method, adversary ORDER BY 1, 2, 3, 4, 5, 6) TO '$out/results/nullspace_runs.csv' CSV HEADER
\copy (SELECT run, nd, nc, desired, confidential FROM ns_model ORDER BY run, nd) TO '$out/results/nullspace_labels.csv' CSV HEADER
\copy (SELECT run, nd, nc, method, id, x, xc FROM ns_alpha ORDER BY 1, 2, 4, 5) TO '$tmp/alpha.csv' CSV HEADER
\copy (SELECT run, nd, nc, ad FROM ns_model WHERE run = 1 ORDER BY nd) TO '$tmp/alpha_models.csv' CSV HEADER
SQL
secs=$(( $(date +%s) - start ))
"$py" "$here/nullspace_report.py" --out "$out" --alpha "$tmp/alpha.csv" --alpha-models "$tmp/alpha_models.csv" --quick "$quick" \
  --seconds "$secs" --runs "$runs" --knn "$knn" --knn-runs "$knn_runs" --eps "$eps"
echo "nullspace: done in $(( $(date +%s) - start )) s"
