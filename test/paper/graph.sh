#!/usr/bin/env bash
# The graph release for cut queries (Blocki et al., jl_release with jl_graph)
# against per-query Laplace noise and randomized response on the adjacency
# matrix at the same epsilon and the same neighbours (one edge row of the
# protected edge table replaced): cut error against |S| on a stochastic block
# model, a preferential-attachment graph and networkx's karate club, les
# miserables and florentine families (test/paper/graph.py).
#
# Usage: test/paper/graph.sh --out DIR [--quick]
# Writes DIR/results/graph_*.csv, DIR/figures/graph_cuts.png and the
# markdown fragment DIR/results/graph_section.md (included by report.py).
# Uses the server of the PG* variables if set (jldp installed there), else
# builds, installs and starts a throwaway cluster.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/plugin.sh" graph "matplotlib, numpy, networkx" "$@"

db=jldp_graph
cleanup() { psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; }
trap 'cleanup; jl_stop_cluster' EXIT

start=$(date +%s)
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $db"
psql -X -q -v ON_ERROR_STOP=1 -o /dev/null -d "$db" -c "SET client_min_messages = warning" -c "CREATE EXTENSION jldp"
PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" \
  "$py" "$here/graph.py" --out "$out" --db "$db" --quick "$quick"
echo "graph: done in $(( $(date +%s) - start )) s"
