#!/usr/bin/env bash
# Memory of the aggregate release over long-format data with d = 1,000,000
# attributes: the state holds the attributes seen and rows of P are generated
# on demand, so a backend must stay far below the d x k matrix P (160 MB at
# k = 20) that a dense release would build.
#
# Needs a superuser connection through the PG* variables (as run_all.sh
# leaves them) to a Linux server: the backend resets its peak resident set
# size (writing 5 to /proc/self/clear_refs) before each step and reads it
# (VmHWM in /proc/self/status) after.  Uses its own database.
#
# Checks, in one backend (parallel query off), the peak growth over the
# resident size before the step:
#   1. 10,000 rows x 100 of the 1,000,000 attributes, GROUP BY row
#   2. one group holding all 1,000,000 attributes
# each within JL_SPARSE_BOUND_MB (default 64); then, as a control that the
# measurement sees a dense P at all, jl_release_info(1000000, 20, ...) builds
# one, and its step must grow by at least 90% of its 152 MB.
set -euo pipefail

D=1000000
K=20
ROWS=10000
BOUND_MB=${JL_SPARSE_BOUND_MB:-64}
DENSE_MB=$(( D * K * 8 / 1048576 ))
DB=jldp_sparse_memory
ADMIN_DB=${PGDATABASE:-postgres}

psql_admin() { psql -X -q -v ON_ERROR_STOP=1 -d "$ADMIN_DB" "$@"; }
cleanup() { psql_admin -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; }
trap cleanup EXIT

start=$(date +%s)
psql_admin -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null

echo "== sparse memory: d = $D, k = $K, $ROWS rows of $(( D / ROWS )) attributes"
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<EOF
CREATE EXTENSION jldp;
SELECT jl_key_import('pinned', '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f') IS NOT NULL AS key;
SELECT jl_dataset_declare('sparse', 100);
-- every attribute once, scattered over the rows (a row's attributes are not
-- in order, so the state sorts and merges them)
CREATE TABLE facts AS
  SELECT ((i * 7919) % $ROWS + 1)::int AS row_id, i::int AS attr, ((i * 37) % 101 - 50) / 50.0 AS val
  FROM generate_series(1, $D::bigint) i;
ANALYZE facts;
EOF

# One backend for all measurements.  kB figures come from /proc/self/status.
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" <<EOF
SET max_parallel_workers_per_gather = 0;
CREATE FUNCTION pg_temp.status_kb(field text) RETURNS bigint LANGUAGE sql AS \$\$
  SELECT (regexp_match(pg_read_file('/proc/self/status'), field || ':\s+(\d+) kB'))[1]::bigint
\$\$;
-- the peak is reset to the current resident size
CREATE FUNCTION pg_temp.reset_peak() RETURNS bigint LANGUAGE plpgsql AS \$\$
BEGIN
  COPY (SELECT 5) TO '/proc/self/clear_refs';
  RETURN pg_temp.status_kb('VmRSS');
END \$\$;
-- load the library, the key and the statistics of P (streamed, O(k) memory)
BEGIN;
SELECT jl_budget_reserve('sparse', 1);
SELECT 'warm ' || array_length(jl_private_release_agg(attr, val, $D, $K, 1.0, 'sparse', 'element', 1, 'exact', NULL, 'pinned'), 1)
  FROM facts WHERE attr <= 10;
COMMIT;
SELECT 'base ' || pg_temp.reset_peak();

-- 1. GROUP BY row: every group released, one reservation
EXPLAIN (COSTS OFF)
  SELECT row_id, jl_private_release_agg(attr, val, $D, $K, 1.0, 'sparse', 'element', 1, 'exact', NULL, 'pinned')
  FROM facts GROUP BY row_id;
BEGIN;
SELECT jl_budget_reserve('sparse', 1);
SELECT 'groups ' || count(*) || ' ' || count(*) FILTER (WHERE array_length(z, 1) = $K)
  FROM (SELECT row_id, jl_private_release_agg(attr, val, $D, $K, 1.0, 'sparse', 'element', 1, 'exact', NULL, 'pinned') AS z
        FROM facts GROUP BY row_id) s;
COMMIT;
SELECT 'grouped ' || pg_temp.status_kb('VmHWM');
SELECT 'base2 ' || pg_temp.reset_peak();

-- 2. one group with all d attributes
BEGIN;
SELECT jl_budget_reserve('sparse', 1);
SELECT 'single ' || array_length(jl_private_release_agg(attr, val, $D, $K, 1.0, 'sparse', 'element', 1, 'exact', NULL, 'pinned'), 1)
  FROM facts;
COMMIT;
SELECT 'whole ' || pg_temp.status_kb('VmHWM');
SELECT 'base3 ' || pg_temp.reset_peak();

-- control: the dense path's P for the same d and k
SELECT 'info ' || (jl_release_info($D, $K, 1.0, key => 'pinned')->>'grid');
SELECT 'dense ' || pg_temp.status_kb('VmHWM');
EOF
)
echo "$out" | grep -E '^ *(Finalize|Partial|GroupAggregate|HashAggregate|Sort|Seq Scan|  ->|Group Key|Sort Key)' | sed 's/^/   plan: /' || true

field() { echo "$out" | awk -v tag="$1" -v n="$2" '$1 == tag { print $n }'; }
base=$(field base 2)
grouped=$(field grouped 2)
base2=$(field base2 2)
whole=$(field whole 2)
base3=$(field base3 2)
dense=$(field dense 2)
groups=$(field groups 2)
released=$(field groups 3)
single=$(field single 2)
for v in "$base" "$grouped" "$base2" "$whole" "$base3" "$dense" "$groups" "$single"; do
  if [ -z "$v" ]; then
    echo "FAIL: could not read the measurements:"; echo "$out"; exit 1
  fi
done

mb() { awk -v kb="$1" 'BEGIN { printf "%.1f", kb / 1024 }'; }
fail=0
echo "   backend resident before the releases: $(mb "$base") MB"
echo "   GROUP BY row: $released of $groups groups released, peak $(mb "$grouped") MB (+$(mb $((grouped - base))) MB)"
echo "   one group of $D attributes: length $single, peak $(mb "$whole") MB (+$(mb $((whole - base2))) MB)"
echo "   bound: +$BOUND_MB MB; a dense P of $D x $K doubles alone is $DENSE_MB MB"
echo "   control, the dense path's P built by jl_release_info: peak $(mb "$dense") MB (+$(mb $((dense - base3))) MB)"

if [ "$groups" -ne "$ROWS" ] || [ "$released" -ne "$ROWS" ] || [ "$single" -ne "$K" ]; then
  echo "FAIL: not every group was released with $K values"; fail=1
fi
if [ $((grouped - base)) -gt $((BOUND_MB * 1024)) ]; then
  echo "FAIL: GROUP BY row grew the backend by more than $BOUND_MB MB"; fail=1
fi
if [ $((whole - base2)) -gt $((BOUND_MB * 1024)) ]; then
  echo "FAIL: the single group grew the backend by more than $BOUND_MB MB"; fail=1
fi
# negative control: a measurement that cannot see 150 MB proves nothing
if [ $((dense - base3)) -lt $((DENSE_MB * 1024 * 9 / 10)) ]; then
  echo "FAIL: the control did not register the dense P (the measurement is blind)"; fail=1
fi
echo "   ($(( $(date +%s) - start )) s)"
[ "$fail" -eq 0 ] && echo "sparse memory test passed"
exit "$fail"
