#!/usr/bin/env bash
# The covariance release (Blocki et al.: jl_release with
# jl_covariance_mechanism over a protected table; the signed synthetic
# matrices released about their zero, origin => 'zero') against
# Analyze Gauss and Laplace noise on A^T A at the same (epsilon, delta):
# directional-variance error as n and d grow, and PCA quality on the scene
# data (JLDP_SCENE_DIR, default ../shared/data/scene beside the source tree)
# and on a synthetic low-rank-plus-noise matrix (test/paper/covariance.py).
#
# Usage: test/paper/covariance.sh --out DIR [--quick]
# Writes DIR/results/covariance_*.csv, DIR/figures/covariance_*.png and the
# markdown fragment DIR/results/covariance_section.md (included by
# report.py).  Uses the server of the PG* variables if set (jldp installed
# there), else builds, installs and starts a throwaway cluster.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/plugin.sh" covariance "matplotlib, numpy" "$@"

scene=${JLDP_SCENE_DIR:-$here/../../../shared/data/scene}
db=jldp_covariance
cleanup() { psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; }
trap 'cleanup; jl_stop_cluster' EXIT

start=$(date +%s)
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $db"
psql -X -q -v ON_ERROR_STOP=1 -o /dev/null -d "$db" -c "SET client_min_messages = warning" -c "CREATE EXTENSION jldp"
PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" \
  "$py" "$here/covariance.py" --out "$out" --db "$db" --quick "$quick" --scene "$scene"
echo "covariance: done in $(( $(date +%s) - start )) s"
