#!/usr/bin/env bash
# The edit-test loop (make check): the C unit tests of src/math (no
# server), the structure and docs checks (test/static) and pg_regress,
# against a throwaway cluster (or the server of the
# PG* variables, see test/pgenv.sh).  make test runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
source test/pgenv.sh
start=$(date +%s)
jl_install
make -s unit
test/static/structure.sh
test/static/docs.sh
jl_start_cluster
if ! make -s installcheck; then
  [ -f regression.diffs ] && cat regression.diffs
  exit 1
fi
echo "make check: unit tests and pg_regress passed in $(( $(date +%s) - start )) s"
