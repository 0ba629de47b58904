#!/usr/bin/env bash
# Load: CLIENTS concurrent pgbench sessions for DURATION seconds, mixing
# budgeted releases of protected tables (jl_release with jl_sketch) of
# four wide tables and a long-format one, bookings (jl_budget_book) each
# paying for an unbudgeted release (jl_private_release_agg of every user's
# rows), cap raises and
# reads of the views, against small caps so that refusals are frequent.  Assumes the PG* variables
# point at a server with jldp installed (superuser connection); without
# them, jldp is built and installed and a throwaway cluster is made.
#   - No error other than the documented refusal (SQLSTATE 53400, budget
#     exceeded) may occur: every statement runs through jl_load_try, which
#     turns only that refusal into a result; anything else aborts the
#     client and fails the run.
#   - The ledger's sum equals the sum released: every release's charge has
#     its registry row and every booking its unbudgeted release (recorded
#     in load_booked by the transaction that made it), per dataset.
#   - No dataset is ever above its cap (checked by readers during the run
#     and at the end).
#   - Backend memory is flat: each session records the total of its memory
#     contexts (without the local buffers, which the pg_temp targets fill up
#     to temp_buffers) now and then; the growth from the first to the last quarter
#     of the run is reported and must stay below MEM_GROWTH_KB.
# Usage: test/integration/load.sh [DURATION] (default 300; make test runs 45).
set -euo pipefail
source "$(dirname "$0")/../pgenv.sh"
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
-- four dense tables, each protected (caps small: refusals are frequent);
-- their datasets are public.t0 to public.t3
DO $$ BEGIN
  FOR i IN 0..3 LOOP
    EXECUTE format('CREATE TABLE t%s (id int PRIMARY KEY, x float8[] NOT NULL)', i);
    EXECUTE format('INSERT INTO t%s SELECT j, ARRAY[random(), random(), random(), random()] FROM generate_series(1, 300) j', i);
    PERFORM jl_protect(('t' || i)::regclass, 'id', ARRAY[jl_vector('x', 4, 0, 1)], epsilon_cap => 2.0);
  END LOOP;
END $$;
-- long format: 100 users, 8 of 50 attributes each (j * 13 mod 50 differs
-- for j = 1..8, so a user's attributes are distinct); dataset public.facts
CREATE TABLE facts AS SELECT u AS user_id, (u * 7 + j * 13) % 50 + 1 AS attr, random() AS val
  FROM generate_series(1, 100) u, generate_series(1, 8) j;
ALTER TABLE facts ADD PRIMARY KEY (user_id, attr);
SELECT d FROM jl_protect('facts', 'user_id', ARRAY[jl_long('attr', 'val', 50, 0, 1)],
                         neighbor => 'attribute', epsilon_cap => 2.0);
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
-- a booking and the unbudgeted release it pays for, in one transaction:
-- each user's (attr, val) rows released by the unbudgeted aggregate
-- jl_private_release_agg (k 3, attribute neighbours, bound 1).  The
-- booking commits at once; load_booked, written with the release, records
-- which booking paid for it and how many sketches it released.
CREATE TABLE load_booked (ledger_id bigint PRIMARY KEY, epsilon numeric NOT NULL, sketches bigint NOT NULL);
CREATE FUNCTION jl_load_agg(eps float8) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
  lid bigint;
  n bigint;
BEGIN
  BEGIN
    lid := jl_budget_book('facts', eps, 0, 'load: jl_private_release_agg of each user''s rows');
  EXCEPTION WHEN SQLSTATE '53400' THEN
    PERFORM nextval('load_refused');
    RETURN 'refused';
  END;
  PERFORM nextval('load_ok');
  SELECT count(z) INTO n
    FROM (SELECT user_id, jl_private_release_agg(attr, val, 50, eps, 1, 'attribute', jl_sketch(k => 3), 'load') AS z
            FROM facts GROUP BY user_id) s;
  INSERT INTO load_booked VALUES (lid, eps::numeric, n);
  RETURN 'ok';
END $f$;
SQL

cat > "$tmp/release.sql" <<'SQL'
\set i random(0, 3)
DROP TABLE IF EXISTS pg_temp.o;
SELECT jl_load_try(format('SELECT jl_release(%L, %L, 0.05, jl_sketch(k => 2), key => %L)', 't' || :i, 'pg_temp.o', 'load'));
SQL
cat > "$tmp/long.sql" <<'SQL'
DROP TABLE IF EXISTS pg_temp.l;
SELECT jl_load_try(format('SELECT jl_release(%L, %L, 0.05, jl_sketch(k => 3), key => %L)', 'facts', 'pg_temp.l', 'load'));
SQL
cat > "$tmp/agg.sql" <<'SQL'
BEGIN;
SELECT jl_load_agg(0.05);
COMMIT;
SQL
cat > "$tmp/cap.sql" <<'SQL'
\set i random(0, 4)
SELECT jl_set_cap(source, epsilon_cap + 0.1) FROM jl_budgets
 WHERE name = CASE WHEN :i = 4 THEN 'public.facts' ELSE 'public.t' || :i END;
SQL
cat > "$tmp/read.sql" <<'SQL'
SELECT count(*), sum(epsilon_spent) FROM jl_budgets;
SELECT count(*) FROM jl_ledger WHERE event = 'charge';
SELECT count(*) FROM jl_releases;
INSERT INTO load_violation SELECT clock_timestamp(), name || ' spent ' || epsilon_spent || ' of ' || epsilon_cap
  FROM jl_budgets WHERE epsilon_spent > epsilon_cap;
-- local buffers (temp_buffers, 8 MB by default) fill with the pg_temp targets
INSERT INTO load_mem SELECT pg_backend_pid(), clock_timestamp(), sum(total_bytes)
  FROM pg_backend_memory_contexts WHERE name <> 'LocalBufferContext';
INSERT INTO load_mem_ctx SELECT pg_backend_pid(), clock_timestamp(), name, sum(total_bytes)
  FROM pg_backend_memory_contexts WHERE name <> 'LocalBufferContext' GROUP BY name;
SQL

echo "load: $CLIENTS sessions for ${DURATION}s (release 30, long 15, booking with a release 15, cap 5, read 10)"
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
SELECT format('%s: cap %s, spent %s; charges %s, releases %s, bookings with their release %s',
              name, epsilon_cap, epsilon_spent,
              (SELECT count(*) FROM jl_ledger l WHERE l.dataset = b.name AND l.event = 'charge'),
              (SELECT count(*) FROM jldp_internal.jldp_release r WHERE r.dataset = b.name),
              (SELECT count(*) FROM load_booked k JOIN jldp_internal.jldp_ledger l ON l.id = k.ledger_id WHERE l.dataset = b.name))
  FROM jl_budgets b ORDER BY name;
SQL
check "aborted clients" "$(grep -c 'aborted in command' "$tmp/pgbench.out" || true)" "0"
check "datasets above their cap, during the run and at the end" \
  "$(q -c "SELECT (SELECT count(*) FROM load_violation) + (SELECT count(*) FROM jl_budgets WHERE epsilon_spent > epsilon_cap OR delta_spent > delta_cap)")" "0"
check "spent equals the sum of the ledger's charges, per dataset" \
  "$(q -c "SELECT count(*) FROM jl_budgets b WHERE epsilon_spent <> (SELECT coalesce(sum(epsilon), 0) FROM jl_ledger l WHERE l.dataset = b.name AND l.event = 'charge')")" "0"
# a booking's charge is recorded by no release (jl_ledger.released is NULL);
# every other charge is a release's
check "charges without a release, releases without a charge" \
  "$(q -c "SELECT (SELECT count(*) FROM jldp_internal.jldp_ledger l WHERE l.event = 'charge' AND l.what NOT LIKE 'jl_budget_book%' AND NOT EXISTS (SELECT FROM jldp_internal.jldp_release r WHERE r.ledger_id = l.id)) + (SELECT count(*) FROM jldp_internal.jldp_release r WHERE NOT EXISTS (SELECT FROM jldp_internal.jldp_ledger l WHERE l.id = r.ledger_id AND l.event = 'charge' AND l.what NOT LIKE 'jl_budget_book%'))")" "0"
check "bookings without their release (one sketch per user), releases without a booking" \
  "$(q -c "SELECT (SELECT count(*) FROM jldp_internal.jldp_ledger l WHERE l.event = 'charge' AND l.what LIKE 'jl_budget_book%' AND NOT EXISTS (SELECT FROM load_booked k WHERE k.ledger_id = l.id AND k.epsilon = l.epsilon AND k.sketches = 100)) + (SELECT count(*) FROM load_booked k WHERE NOT EXISTS (SELECT FROM jldp_internal.jldp_ledger l WHERE l.id = k.ledger_id AND l.event = 'charge' AND l.what LIKE 'jl_budget_book%' AND l.dataset = 'public.facts'))")" "0"
check "the sum released equals the ledger's sum" \
  "$(q -c "SELECT (SELECT sum(epsilon) FROM jldp_internal.jldp_ledger WHERE event = 'charge') = (SELECT sum(epsilon::numeric) FROM jldp_internal.jldp_release) + (SELECT coalesce(sum(epsilon), 0) FROM load_booked)")" "t"
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
