#!/usr/bin/env bash
# A cancel while a large projection matrix is being built (jl_project with
# d = 1,000,000 and k = 120: a 915 MB P) must be quick and must not page
# in the untouched rest of the allocation: only the rows generated so far
# are wiped.
#
# Needs a superuser connection through the PG* variables (as run_all.sh
# leaves them) to a Linux server: the backend resets its peak resident set
# size (writing 5 to /proc/self/clear_refs) and reads it (VmHWM in
# /proc/self/status).  Uses its own database.
#
# Checks, in one backend: a statement_timeout of 200 ms cancels the build;
# the peak grows by less than half of P, and the statement ends within
# JL_CANCEL_BOUND_MS (default 1500) of its start.  Control: the same build
# run to completion grows the peak by at least 90% of P (the measurement
# sees the pages P touches).
set -euo pipefail
# jldp's API is in schema jldp: as test/pgenv.sh does for run_all.sh's
# parts, a search_path naming it unless PGOPTIONS sets one
case " ${PGOPTIONS:-} " in
  *search_path*) ;;
  *) export PGOPTIONS="-c search_path=public,jldp ${PGOPTIONS:-}" ;;
esac

D=1000000
K=120
P_MB=$(( D * K * 8 / 1048576 ))
BOUND_MS=${JL_CANCEL_BOUND_MS:-1500}
DB=jldp_cancel_memory
ADMIN_DB=${PGDATABASE:-postgres}

psql_admin() { psql -X -q -v ON_ERROR_STOP=1 -d "$ADMIN_DB" "$@"; }
cleanup() { psql_admin -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; }
trap cleanup EXIT
psql_admin -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null

echo "== cancel while building a $D x $K projection ($P_MB MB)"
out=$(psql -X -q -At -v ON_ERROR_STOP=0 -d "$DB" 2>&1 <<EOF
CREATE EXTENSION jldp;
SELECT jl_key_import('pinned', '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f') IS NOT NULL;
CREATE FUNCTION pg_temp.status_kb(field text) RETURNS bigint LANGUAGE sql AS \$\$
  SELECT (regexp_match(pg_read_file('/proc/self/status'), field || ':\s+(\d+) kB'))[1]::bigint
\$\$;
CREATE FUNCTION pg_temp.reset_peak() RETURNS bigint LANGUAGE plpgsql AS \$\$
BEGIN
  COPY (SELECT 5) TO '/proc/self/clear_refs';
  RETURN pg_temp.status_kb('VmRSS');
END \$\$;
CREATE TEMP TABLE x AS SELECT array_fill(1::float8, ARRAY[$D]) AS x;
SELECT 'warm ' || array_length(jl_project('{1,2}', jl_sketch(k => 2), 'pinned'), 1);
SELECT 'base ' || pg_temp.reset_peak();
SELECT 'start ' || extract(epoch FROM clock_timestamp());
SET statement_timeout = '200ms';
SELECT array_length(jl_project(x, jl_sketch(k => $K), 'pinned'), 1) FROM x;
RESET statement_timeout;
SELECT 'end ' || extract(epoch FROM clock_timestamp());
SELECT 'cancelled ' || pg_temp.status_kb('VmHWM');
SELECT 'base2 ' || pg_temp.reset_peak();
SELECT 'built ' || array_length(jl_project(x, jl_sketch(k => $K), 'pinned'), 1) FROM x;
SELECT 'whole ' || pg_temp.status_kb('VmHWM');
EOF
)
field() { echo "$out" | awk -v tag="$1" '$1 == tag { print $2 }'; }
base=$(field base); start=$(field start); end=$(field end); cancelled=$(field cancelled)
base2=$(field base2); whole=$(field whole); built=$(field built)
for v in "$base" "$start" "$end" "$cancelled" "$base2" "$whole" "$built"; do
  if [ -z "$v" ]; then echo "FAIL: could not read the measurements:"; echo "$out"; exit 1; fi
done
if ! echo "$out" | grep -q 'canceling statement due to statement timeout'; then
  echo "FAIL: the build was not cancelled:"; echo "$out"; exit 1
fi
ms=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%d", (b - a) * 1000 }')
grow=$(( (cancelled - base) / 1024 ))
grow_whole=$(( (whole - base2) / 1024 ))
fail=0
echo "   cancelled after 200 ms: statement ended after $ms ms, peak +$grow MB"
echo "   control, the whole P built: peak +$grow_whole MB"
if [ "$grow" -ge $(( P_MB / 2 )) ]; then
  echo "FAIL the cancelled build paged in $grow MB (half of P is $(( P_MB / 2 )) MB)"; fail=1
fi
if [ "$ms" -gt "$BOUND_MS" ]; then
  echo "FAIL the cancelled statement took $ms ms (bound $BOUND_MS ms)"; fail=1
fi
if [ "$grow_whole" -lt $(( P_MB * 9 / 10 )) ]; then
  echo "FAIL control: the whole P grew the peak by only $grow_whole MB"; fail=1
fi
[ $fail -eq 0 ] && echo "ok   a cancelled build wipes only the rows it generated"
exit $fail
