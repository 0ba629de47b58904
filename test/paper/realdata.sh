#!/usr/bin/env bash
# Real data: scikit-learn's bundled data sets (iris, wine, breast_cancer,
# digits) released through jldp with no projection (raw noise, kind
# 'identity') and with each projection kind at several k, and with the
# choice of jl_advise from public inputs; k-means accuracy against the true
# classes and the error of recovered squared distances, over several keys.
#
# Usage: test/paper/realdata.sh --out DIR [--quick]
# Writes DIR/results/realdata_*.csv, DIR/figures/realdata_accuracy.png and
# the markdown fragment DIR/results/realdata_section.md (included by
# report.py).  Uses the server of the PG* variables if set (jldp installed
# there), else builds, installs and starts a throwaway cluster.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/plugin.sh" realdata "matplotlib, numpy, scipy, sklearn" "$@"

# sizes
if [ "$quick" = 1 ]; then
  sets="wine"; reps=2; epsilons='{4}'
else
  sets="iris wine breast_cancer digits"; reps=40; epsilons='{1,4,8}'
fi
pairs=500
kinds='{rademacher,gaussian,achlioptas,sparse}'
ks='{2,5,10,20}'
gdelta=1e-6
# jl_release_dist2's epsilon for goal 'distance, estimated'
est_eps=0.1

db=jldp_realdata
tmp=$(mktemp -d)
cleanup() { psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap 'cleanup; jl_stop_cluster' EXIT

start=$(date +%s)
"$py" "$here/realdata_data.py" "$tmp" "$pairs" $sets
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $db"
psql -X -q -v ON_ERROR_STOP=1 -o /dev/null -d "$db" <<SQL
SET client_min_messages = warning;
CREATE EXTENSION jldp;
\i $here/realdata.sql
\copy rd_set FROM '$tmp/sets.csv' CSV HEADER
\copy rd_row FROM '$tmp/rows.csv' CSV
\copy rd_pair (ds, pair, a, b) FROM '$tmp/pairs.csv' CSV
ANALYZE;
SELECT rd_tables();
SELECT rd_experiment('$epsilons', '$kinds', '$ks', $reps, $gdelta, $est_eps);
\copy (SELECT * FROM rd_set ORDER BY ord) TO '$out/results/realdata_sets.csv' CSV HEADER
\copy (SELECT * FROM rd_run ORDER BY ds, epsilon, noise, kind, k, rep) TO '$out/results/realdata_runs.csv' CSV HEADER
\copy (SELECT * FROM rd_advice ORDER BY ds, epsilon, noise, goal, rep) TO '$out/results/realdata_advice.csv' CSV HEADER
\copy (SELECT * FROM rd_estimate ORDER BY ds, epsilon, noise, rep) TO '$out/results/realdata_estimates.csv' CSV HEADER
SQL
secs=$(( $(date +%s) - start ))
"$py" "$here/realdata_report.py" --out "$out" --quick "$quick" --seconds "$secs" \
  --pairs "$pairs" --reps "$reps" --delta "$gdelta" --est-eps "$est_eps"
echo "realdata: done in $(( $(date +%s) - start )) s"
