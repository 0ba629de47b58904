#!/usr/bin/env bash
# The SQL fuzzer (test/fuzz/sql/sql_fuzz.py): every routine of jldp called with
# hostile arguments for SECONDS (default JLDP_FUZZ_SECONDS, else 150), in a
# database of its own holding test/fuzz/sql/fixtures.sql.  Needs a superuser
# connection through the PG* variables.  Usage: test/fuzz/sql/fuzz.sh [SECONDS [SEED]]
set -euo pipefail
# jldp's API is in schema jldp: as test/pgenv.sh does for run_all.sh's
# parts, a search_path naming it unless PGOPTIONS sets one
case " ${PGOPTIONS:-} " in
  *search_path*) ;;
  *) export PGOPTIONS="-c search_path=public,jldp ${PGOPTIONS:-}" ;;
esac
cd "$(dirname "$0")/../../.."
seconds=${1:-${JLDP_FUZZ_SECONDS:-150}}
seed=${2:-20261128}
db=jldp_fuzz
admin() { psql -X -q -v ON_ERROR_STOP=1 -d "${PGDATABASE:-postgres}" -c "SET client_min_messages = warning" "$@" >/dev/null; }
trap 'admin -c "DROP DATABASE IF EXISTS $db" 2>/dev/null || true' EXIT
admin -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
PGDATABASE=$db psql -X -q -v ON_ERROR_STOP=1 -f test/fuzz/sql/fixtures.sql >/dev/null
PGDATABASE=$db python3 test/fuzz/sql/sql_fuzz.py "$seconds" "$seed"
