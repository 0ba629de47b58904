#!/usr/bin/env bash
# Load: CLIENTS concurrent pgbench sessions for DURATION seconds, mixing
# budgeted table releases, long-format releases, reservations with an
# aggregate release, cap raises and reads of the views, against datasets
# with small caps so that refusals are frequent.  Assumes the PG* variables
# point at a server with jldp installed (superuser connection); without
# them, jldp is built and installed and a throwaway cluster is made.
#   - No error other than the documented refusal (SQLSTATE 53400, budget
#     exceeded) may occur: every statement runs through jl_load_try, which
#     turns only that refusal into a result; anything else aborts the
#     client and fails the run.
#   - The ledger's sum equals the sum released: every charge has its
#     registry row and every reservation was used, per dataset.
#   - No dataset is ever above its cap (checked by readers during the run
#     and at the end).
#   - Backend memory is flat: each session records the total of its memory
#     contexts (without the local buffers, which the pg_temp targets fill up
#     to temp_buffers) now and then; the growth from the first to the last quarter
#     of the run is reported and must stay below MEM_GROWTH_KB.
# Usage: test/load.sh [DURATION] (default 300; make test runs 45).
set -euo pipefail
source "$(dirname "$0")/pgenv.sh"
if [ -z "${PGHOST:-}${PGPORT:-}${PGDATABASE:-}" ]; then
  jl_install
  jl_start_cluster
fi
DURATION=${1:-${JLDP_LOAD_SECONDS:-300}}
CLIENTS=${JLDP_LOAD_CLIENTS:-8}
MEM_GROWTH_KB=${JLDP_LOAD_MEM_GROWTH_KB:-1024}
PGBENCH=${PGBENCH:-$PGBIN/pgbench}
db=jldp_load
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1
tmp=$(mktemp -d)
cleanup() {
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  rm -rf "$tmp"
  jl_stop_cluster
}
trap cleanup EXIT
q() { psql -qXAt -v ON_ERROR_STOP=1 -d "$db" "$@"; }

q <<'SQL' >/dev/null
CREATE EXTENSION jldp;
SELECT jl_key_import('load', '\x00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff');
-- four dense tables, each with its dataset (caps small: refusals are frequent)
DO $$ BEGIN
  FOR i IN 0..3 LOOP
    EXECUTE format('CREATE TABLE t%s (id int PRIMARY KEY, x float8[] NOT NULL)', i);
    EXECUTE format('INSERT INTO t%s SELECT j, ARRAY[random(), random(), random(), random()] FROM generate_series(1, 300) j', i);
    PERFORM jl_dataset_declare('d' || i, 2.0, source => ('t' || i)::regclass, unit => 'id');
  END LOOP;
END $$;
-- long format: 100 users, 8 of 50 attributes each
CREATE TABLE facts AS SELECT u AS user_id, (u * 7 + j * 13) % 50 + 1 AS attr, random() AS val
  FROM generate_series(1, 100) u, generate_series(1, 8) j;
SELECT jl_dataset_declare('lf', 2.0, source => 'facts', unit => 'user_id');
-- the memory each session's backend holds, sampled
CREATE TABLE load_mem (pid int, at timestamptz, bytes bigint);
CREATE TABLE load_mem_ctx (pid int, at timestamptz, name text, bytes bigint);
CREATE TABLE load_violation (at timestamptz, what text);
-- a statement's outcome: 'ok', or 'refused' for the documented refusal only
CREATE SEQUENCE load_ok;
CREATE SEQUENCE load_refused;
CREATE FUNCTION jl_load_try(sql text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
  EXECUTE sql;
  PERFORM nextval('load_ok');
  RETURN 'ok';
EXCEPTION WHEN SQLSTATE '53400' THEN
  PERFORM nextval('load_refused');
  RETURN 'refused';
END $f$;
-- a reservation and the aggregate release it pays for, in one transaction
CREATE FUNCTION jl_load_agg(eps float8) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
  n bigint;
BEGIN
  IF jl_load_try(format('SELECT jl_budget_reserve(%L, %s)', 'lf', eps)) = 'refused' THEN
    RETURN 'refused';
  END IF;
  SELECT count(z) INTO n FROM (SELECT jl_private_release_agg(attr, val, 50, 3, eps, 'lf', 'element', 1,
                                                             'exact', NULL, 'load') AS z
                               FROM facts GROUP BY user_id) s;
  RETURN 'ok';
END $f$;
SQL

cat > "$tmp/release.sql" <<'SQL'
\set i random(0, 3)
DROP TABLE IF EXISTS pg_temp.o;
SELECT jl_load_try(format('SELECT jl_release_table(%L, %L, %L, %L, 2, 0.05, key => %L)', 't' || :i, 'id', '{x}', 'pg_temp.o', 'load'));
SQL
cat > "$tmp/long.sql" <<'SQL'
DROP TABLE IF EXISTS pg_temp.l;
SELECT jl_load_try(format('SELECT jl_release_long(%L, %L, %L, %L, 50, %L, 3, 0.05, key => %L)', 'facts', 'user_id', 'attr', 'val', 'pg_temp.l', 'load'));
SQL
cat > "$tmp/agg.sql" <<'SQL'
BEGIN;
SELECT jl_load_agg(0.05);
COMMIT;
SQL
cat > "$tmp/cap.sql" <<'SQL'
\set i random(0, 4)
SELECT jl_dataset_set_cap(name, epsilon_cap + 0.1) FROM jl_budgets
 WHERE name = CASE WHEN :i = 4 THEN 'lf' ELSE 'd' || :i END;
SQL
cat > "$tmp/read.sql" <<'SQL'
SELECT count(*), sum(epsilon_spent) FROM jl_budgets;
SELECT count(*) FROM jl_ledger WHERE event IN ('charge', 'reserve');
SELECT count(*) FROM jl_releases;
INSERT INTO load_violation SELECT clock_timestamp(), name || ' spent ' || epsilon_spent || ' of ' || epsilon_cap
  FROM jl_budgets WHERE epsilon_spent > epsilon_cap;
-- local buffers (temp_buffers, 8 MB by default) fill with the pg_temp targets
INSERT INTO load_mem SELECT pg_backend_pid(), clock_timestamp(), sum(total_bytes)
  FROM pg_backend_memory_contexts WHERE name <> 'LocalBufferContext';
INSERT INTO load_mem_ctx SELECT pg_backend_pid(), clock_timestamp(), name, sum(total_bytes)
  FROM pg_backend_memory_contexts WHERE name <> 'LocalBufferContext' GROUP BY name;
SQL

echo "load: $CLIENTS sessions for ${DURATION}s (release 30, long 15, aggregate 15, cap 5, read 10)"
if ! "$PGBENCH" -n -c "$CLIENTS" -j 2 -T "$DURATION" -d "$db" \
     -f "$tmp/release.sql@30" -f "$tmp/long.sql@15" -f "$tmp/agg.sql@15" \
     -f "$tmp/cap.sql@5" -f "$tmp/read.sql@10" > "$tmp/pgbench.out" 2>&1; then
  echo "FAIL pgbench reported an error (only the budget refusal is allowed):"
  grep -iE "error|abort" "$tmp/pgbench.out" | head -20
  exit 1
fi
grep -E "number of transactions actually processed|number of failed|tps = " "$tmp/pgbench.out" | sed 's/^/     /'
echo "     budget calls: $(q -c "SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM load_ok) || ' charged, ' || (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM load_refused) || ' refused by a cap (SQLSTATE 53400)'")"
fail=0
check() {
  if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else echo "FAIL $1: got '$2', expected '$3'"; fail=1; fi
}
q <<'SQL' | sed 's/^/     /'
SELECT format('%s: cap %s, spent %s; charges %s, table releases %s, reservations used %s',
              name, epsilon_cap, epsilon_spent,
              (SELECT count(*) FROM jl_ledger l WHERE l.dataset = b.name AND l.event IN ('charge', 'reserve')),
              (SELECT count(*) FROM jldp_release r WHERE r.dataset = b.name),
              (SELECT count(*) FROM jldp_reservation v WHERE v.dataset = b.name AND v.used))
  FROM jl_budgets b ORDER BY name;
SQL
check "aborted clients" "$(grep -c 'aborted in command' "$tmp/pgbench.out" || true)" "0"
check "datasets above their cap, during the run and at the end" \
  "$(q -c "SELECT (SELECT count(*) FROM load_violation) + (SELECT count(*) FROM jl_budgets WHERE epsilon_spent > epsilon_cap OR delta_spent > delta_cap)")" "0"
check "spent equals the sum of the ledger's charges, per dataset" \
  "$(q -c "SELECT count(*) FROM jl_budgets b WHERE epsilon_spent <> (SELECT coalesce(sum(epsilon), 0) FROM jl_ledger l WHERE l.dataset = b.name AND l.event IN ('charge', 'reserve'))")" "0"
check "charges without a release, releases without a charge" \
  "$(q -c "SELECT (SELECT count(*) FROM jldp_ledger l WHERE l.event = 'charge' AND NOT EXISTS (SELECT FROM jldp_release r WHERE r.ledger_id = l.id)) + (SELECT count(*) FROM jldp_release r WHERE NOT EXISTS (SELECT FROM jldp_ledger l WHERE l.id = r.ledger_id AND l.event = 'charge'))")" "0"
check "reservations not used by a release" \
  "$(q -c "SELECT count(*) FROM jldp_reservation WHERE NOT used")" "0"
check "the sum released equals the ledger's sum" \
  "$(q -c "SELECT (SELECT sum(epsilon) FROM jldp_ledger WHERE event IN ('charge', 'reserve')) = (SELECT sum(epsilon::numeric) FROM jldp_release) + (SELECT coalesce(sum(epsilon), 0) FROM jldp_reservation WHERE used AND ledger_id NOT IN (SELECT ledger_id FROM jldp_release))")" "t"
# memory: per backend, the largest sample of the last quarter of its
# samples against the largest of its first quarter
q <<'SQL' > "$tmp/mem"
WITH s AS (
  SELECT pid, bytes, ntile(4) OVER (PARTITION BY pid ORDER BY at) AS quarter,
         count(*) OVER (PARTITION BY pid) AS n
  FROM load_mem),
g AS (
  SELECT pid, max(n) AS samples, max(bytes) FILTER (WHERE quarter = 1) AS first,
         max(bytes) FILTER (WHERE quarter = 4) AS last
  FROM s GROUP BY pid HAVING max(n) >= 8)
SELECT count(*), round(min(first) / 1024.0), round(max(last) / 1024.0),
       coalesce(round(max(last - first) / 1024.0), 0), min(samples)
FROM g;
SQL
IFS='|' read -r backends first_kb last_kb growth_kb samples < "$tmp/mem"
echo "     memory: $backends backends, $samples+ samples each; contexts ${first_kb} kB (smallest, first quarter) to ${last_kb} kB (largest, last quarter); largest growth ${growth_kb} kB"
if [ "${backends:-0}" -lt 1 ]; then
  echo "FAIL memory: too few samples"
  fail=1
elif awk -v g="$growth_kb" -v m="$MEM_GROWTH_KB" 'BEGIN { exit !(g <= m) }'; then
  echo "ok   backend memory flat: growth ${growth_kb} kB <= ${MEM_GROWTH_KB} kB"
else
  echo "FAIL backend memory grew by ${growth_kb} kB; the contexts that grew most, first to last sample of a backend:"
  q <<'SQL' | sed 's/^/     /'
WITH e AS (
  SELECT pid, name, first_value(bytes) OVER w AS first, last_value(bytes) OVER w AS last
  FROM load_mem_ctx WINDOW w AS (PARTITION BY pid, name ORDER BY at ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))
SELECT DISTINCT pid, name, round(first / 1024.0) AS first_kb, round(last / 1024.0) AS last_kb
  FROM e WHERE last - first > 64 * 1024 ORDER BY 1, 2 LIMIT 20;
SQL
  fail=1
fi
exit $fail
