#!/usr/bin/env bash
# make fuzz: build and install jldp, then the SQL fuzzer (test/fuzz/sql/fuzz.sh) for
# SECONDS on a throwaway cluster (or the server of the PG* variables).
set -euo pipefail
cd "$(dirname "$0")/../../.."
source test/pgenv.sh
jl_install
jl_start_cluster
test/fuzz/sql/fuzz.sh "${1:-1800}"
