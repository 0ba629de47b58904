#!/usr/bin/env bash
# Memory of the release of a protected long-format table (jl_long) with
# d = 1,000,000 attributes through the pipeline (jl_release with jl_sketch):
# each unit's state holds the attributes seen, rows of P are generated on
# demand and P's statistics are streamed, so a backend must stay far below
# the d x k matrix P (160 MB at k = 20) that a dense release would build.
# (0.3 measured the aggregate under a reservation at the same sizes.)
#
# Needs a superuser connection through the PG* variables (as run_all.sh
# leaves them) to a Linux server: the backend resets its peak resident set
# size (writing 5 to /proc/self/clear_refs) before each step and reads it
# (VmHWM in /proc/self/status) after.  Uses its own database.
#
# Checks, in one backend (parallel query off), the peak growth over the
# resident size before the step:
#   1. 10,000 units x 100 of the 1,000,000 attributes, one sketch per unit
#   2. one unit holding all 1,000,000 attributes (a table of its own)
# each within JL_SPARSE_BOUND_MB (default 64); then, as a control that the
# measurement sees a dense P at all, jl_release_info(1000000, 1.0, 1,
# 'attribute', jl_sketch(k => 20)) builds one, and its step must grow by
# at least 90% of its 152 MB.
set -euo pipefail
# jldp's API is in schema jldp: as test/pgenv.sh does for run_all.sh's
# parts, a search_path naming it unless PGOPTIONS sets one
case " ${PGOPTIONS:-} " in
  *search_path*) ;;
  *) export PGOPTIONS="-c search_path=public,jldp ${PGOPTIONS:-}" ;;
esac

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
-- every attribute once, scattered over the rows (a row's attributes are not
-- in order, so the state sorts and merges them); values in [-1, 1],
-- declared with weight 2 (the encoding val + 1 keeps their scale),
-- attribute neighbours
CREATE TABLE facts AS
  SELECT ((i * 7919) % $ROWS + 1)::int AS row_id, i::int AS attr, ((i * 37) % 101 - 50) / 50.0 AS val
  FROM generate_series(1, $D::bigint) i;
ALTER TABLE facts ADD PRIMARY KEY (row_id, attr);
ANALYZE facts;
SELECT jl_protect('facts', 'row_id', ARRAY[jl_long('attr', 'val', $D, -1, 1, weight => 2)],
                  neighbor => 'attribute', epsilon_cap => 100);
-- the same attributes, all of one unit
CREATE TABLE facts_one AS SELECT 1 AS row_id, attr, val FROM facts;
ALTER TABLE facts_one ADD PRIMARY KEY (row_id, attr);
ANALYZE facts_one;
SELECT jl_protect('facts_one', 'row_id', ARRAY[jl_long('attr', 'val', $D, -1, 1, weight => 2)],
                  neighbor => 'attribute', epsilon_cap => 100);
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
-- load the library, the key and the statistics of P (streamed, O(k)
-- memory), and map the pages of both tables and their indexes: each is
-- released once first, by the same reader.  (The resident size counts the
-- shared buffers a backend has touched: reading 1,000,000 rows for the
-- first time adds some 65 MB of them, which are no memory of the release;
-- 0.3's warm-up scanned the table for the same reason.)
SELECT 'warm ' || released FROM jl_release('facts', 'out_warm', 1.0, jl_sketch(k => $K), key => 'pinned');
SELECT 'warm ' || released FROM jl_release('facts_one', 'out_warm_one', 1.0, jl_sketch(k => $K), key => 'pinned');
SELECT 'base ' || pg_temp.reset_peak();

-- 1. one sketch per unit, one charge
SELECT 'charged ' || epsilon_charged FROM jl_release('facts', 'out_grouped', 1.0, jl_sketch(k => $K), key => 'pinned');
SELECT 'grouped ' || pg_temp.status_kb('VmHWM');
SELECT 'groups ' || count(*) || ' ' || count(*) FILTER (WHERE array_length(sketch, 1) = $K) FROM out_grouped;
SELECT 'base2 ' || pg_temp.reset_peak();

-- 2. one unit with all d attributes
SELECT 'charged ' || epsilon_charged FROM jl_release('facts_one', 'out_one', 1.0, jl_sketch(k => $K), key => 'pinned');
SELECT 'whole ' || pg_temp.status_kb('VmHWM');
SELECT 'single ' || min(array_length(sketch, 1)) || ' ' || count(*) FROM out_one;
SELECT 'base3 ' || pg_temp.reset_peak();

-- control: the dense path's P for the same d and k
SELECT 'info ' || (jl_release_info($D, 1.0, 1, 'attribute', jl_sketch(k => $K), key => 'pinned')->>'grid');
SELECT 'dense ' || pg_temp.status_kb('VmHWM');
EOF
)

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
single_rows=$(field single 3)
for v in "$base" "$grouped" "$base2" "$whole" "$base3" "$dense" "$groups" "$single"; do
  if [ -z "$v" ]; then
    echo "FAIL: could not read the measurements:"; echo "$out"; exit 1
  fi
done

mb() { awk -v kb="$1" 'BEGIN { printf "%.1f", kb / 1024 }'; }
fail=0
echo "   backend resident before the releases: $(mb "$base") MB"
echo "   one sketch per unit: $released of $groups units released, peak $(mb "$grouped") MB (+$(mb $((grouped - base))) MB)"
echo "   one unit of $D attributes: $single_rows sketch of length $single, peak $(mb "$whole") MB (+$(mb $((whole - base2))) MB)"
echo "   bound: +$BOUND_MB MB; a dense P of $D x $K doubles alone is $DENSE_MB MB"
echo "   control, the dense path's P built by jl_release_info: peak $(mb "$dense") MB (+$(mb $((dense - base3))) MB)"

if [ "$groups" -ne "$ROWS" ] || [ "$released" -ne "$ROWS" ] || [ "$single" -ne "$K" ] || [ "$single_rows" -ne 1 ]; then
  echo "FAIL: not every unit was released with $K values"; fail=1
fi
if [ "$(echo "$out" | grep -c '^charged 1$')" -ne 2 ]; then
  echo "FAIL: the two releases were not charged epsilon 1 each"; fail=1
fi
if [ $((grouped - base)) -gt $((BOUND_MB * 1024)) ]; then
  echo "FAIL: the release of $ROWS units grew the backend by more than $BOUND_MB MB"; fail=1
fi
if [ $((whole - base2)) -gt $((BOUND_MB * 1024)) ]; then
  echo "FAIL: the release of the single unit grew the backend by more than $BOUND_MB MB"; fail=1
fi
# negative control: a measurement that cannot see 150 MB proves nothing
if [ $((dense - base3)) -lt $((DENSE_MB * 1024 * 9 / 10)) ]; then
  echo "FAIL: the control did not register the dense P (the measurement is blind)"; fail=1
fi
echo "   ($(( $(date +%s) - start )) s)"
[ "$fail" -eq 0 ] && echo "sparse memory test passed"
exit "$fail"
