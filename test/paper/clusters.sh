#!/usr/bin/env bash
# Clusters of a protected table without per-row noise: jldp's k-means
# mechanism (jl_kmeans_mechanism) against a reimplementation of
# diffprivlib's KMeans algorithm, against release-then-cluster at the
# advisor's choice, and against k-means on the raw rows; on scikit-learn's
# bundled data sets (iris, wine, breast_cancer, digits) and a synthetic
# table of 50,000 rows with clusters of unequal size; epsilon 1, 4 and 8;
# attribute and row neighbours.
#
# Usage: test/paper/clusters.sh --out DIR [--quick]
# Writes DIR/results/clusters_*.csv and the markdown fragment
# DIR/results/clusters_section.md (included by report.py).  Uses the server
# of the PG* variables if set (jldp installed there), else builds, installs
# and starts a throwaway cluster.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/plugin.sh" clusters "numpy, scipy, sklearn" "$@"

if [ "$quick" = 1 ]; then
  sets="wine synthetic"; nsyn=5000; reps=3; epsilons='{1,4}'
else
  sets="iris wine breast_cancer digits synthetic"; nsyn=50000; reps=20; epsilons='{1,4,8}'
fi
delta=1e-6

db=jldp_clusters
tmp=$(mktemp -d)
cleanup() { psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap 'cleanup; jl_stop_cluster' EXIT

start=$(date +%s)
"$py" "$here/clusters_data.py" "$tmp" "$nsyn" $sets
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $db"
psql -X -q -v ON_ERROR_STOP=1 -o /dev/null -d "$db" <<SQL
SET client_min_messages = warning;
CREATE EXTENSION jldp;
\i $here/clusters.sql
\copy cl_set FROM '$tmp/sets.csv' CSV HEADER
\copy cl_row FROM '$tmp/rows.csv' CSV
ANALYZE;
SELECT cl_tables();
SELECT cl_experiment('$epsilons', $reps, $delta);
\copy (SELECT * FROM cl_centroid ORDER BY ds, epsilon, neighbor, rep, cluster) TO '$tmp/cl_centroid.csv' CSV HEADER
\copy (SELECT * FROM cl_sketch_run ORDER BY ds, epsilon, neighbor, rep) TO '$tmp/cl_sketch_run.csv' CSV HEADER
SQL
secs=$(( $(date +%s) - start ))
"$py" "$here/clusters_report.py" --data "$tmp" --out "$out" --reps "$reps" --delta "$delta" \
  --quick "$quick" --seconds "$secs" >/dev/null
echo "clusters: done in $(( $(date +%s) - start )) s"
