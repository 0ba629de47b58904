#!/usr/bin/env bash
# The background worker that commits a release's charge, when it ends
# without a verdict.  Assumes the PG* variables point at a server with jldp
# installable (superuser connection) whose data directory this script may
# configure (ALTER SYSTEM, reset at the end).
# Every release is jl_release of a protected table (jl_protect) with
# jl_sketch; its budget is the table's dataset, public.src.
#   1. The worker cannot load the library (a reinstall replaces the file for
#      a moment; here dynamic_library_path points the workers at an
#      unreadable copy): nothing is charged; after a few workers in a row
#      the release is refused with 53000, not XX000, and the ledger has not
#      moved; with the library readable again the release succeeds.  Only
#      on a throwaway cluster (JLDP_OWN_CLUSTER=1): it sets a server option.
#   2. The worker is terminated while it waits for the dataset's row (held
#      by another session): it ended inside its transaction, which did not
#      commit, so the release is refused with 40001 (retry), uncharged.
#   3. The release is cancelled (statement_timeout) while its worker waits
#      for that row: the worker is stopped too and charges nothing; the
#      next release, once the row is free, is charged once.
#   4. On a cluster of its own, a database whose owner set
#      synchronous_commit off: a release's output read in an open
#      transaction, then an immediate stop of the server: the charge stands
#      (the worker commits synchronously).
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/pgenv.sh
db=jldp_charge_worker
fail=0
tmp=$(mktemp -d)
chmod 755 "$tmp"
libdir=$("$PG_CONFIG" --pkglibdir)
cleanup() {
  psql -qX -d postgres -c "ALTER SYSTEM RESET dynamic_library_path" -c "SELECT pg_reload_conf()" >/dev/null 2>&1 || true
  psql -qX -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
psql -qX -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
q() { psql -qXAt -v ON_ERROR_STOP=1 -d "$db" "$@"; }
q <<'SQL' >/dev/null
CREATE EXTENSION jldp;
SELECT jl_key_import('cw', '\x00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff');
CREATE TABLE src AS SELECT i AS id, ARRAY[i % 3, i % 5]::float8[] AS x FROM generate_series(1, 50) i;
ALTER TABLE src ADD PRIMARY KEY (id);
-- the protected table; its budget (the dataset the worker charges) is public.src
SELECT d FROM jl_protect('src', 'id', ARRAY[jl_vector('x', 2, 0, 4)], epsilon_cap => 100);
SQL
charges() { q -c "SELECT count(*) FROM jl_ledger WHERE dataset = 'public.src' AND event = 'charge'"; }
# the SQLSTATE of a release into $1 (ok when it succeeds), with psql options $2...
release() {
  local target=$1
  shift
  psql -qXAt -d "$db" -v VERBOSITY=verbose "$@" \
       -c "SELECT release_id FROM jl_release('src', '$target', 1.0, jl_sketch(k => 2), key => 'cw')" 2>&1 \
    | sed -n 's/^.*ERROR:  \([0-9A-Z]\{5\}\):.*$/\1/p; s/^[0-9][0-9]*$/ok/p' | head -1 || true
}

# 1. an unreadable library for the workers only: the caller's session has
#    it loaded already, the workers load "jldp" through dynamic_library_path
#    (a server setting: only on the throwaway cluster, JLDP_OWN_CLUSTER=1)
if [ "${JLDP_OWN_CLUSTER:-}" = 1 ]; then
cp "$libdir/jldp.so" "$tmp/jldp.so"
chmod 000 "$tmp/jldp.so"
[ "$(id -u)" -eq 0 ] && chown root: "$tmp/jldp.so"
before=$(charges)
psql -qX -d postgres -c "ALTER SYSTEM SET dynamic_library_path = '$tmp'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
jl_check "a worker that cannot load the library: refused with 53000, not XX000" "$(release cw_t1)" 53000
jl_check "  nothing was charged" "$(charges)" "$before"
psql -qX -d postgres -c "ALTER SYSTEM RESET dynamic_library_path" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
jl_check "  the library readable again: the release succeeds" "$(release cw_t1)" ok
jl_check "  charged once" "$(charges)" "$((before + 1))"
else
  echo "skip a worker that cannot load the library (not on this server: it needs ALTER SYSTEM)"
fi

# 2. the worker terminated while it waits for the dataset's row
before=$(charges)
( q -c "BEGIN; SELECT 1 FROM jldp_internal.jldp_dataset WHERE name = 'public.src' FOR UPDATE; SELECT pg_sleep(4); COMMIT;" >/dev/null ) &
holder=$!
sleep 0.5
( release cw_t2 > "$tmp/release2" ) &
rel=$!
for _ in $(seq 1 40); do
  pid=$(q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'jldp charge' AND wait_event_type = 'Lock'" | head -1)
  [ -n "$pid" ] && break
  sleep 0.1
done
if [ -n "$pid" ]; then
  q -c "SELECT pg_terminate_backend($pid)" >/dev/null
else
  echo "FAIL no charge worker was seen waiting for the dataset's row"; fail=1
fi
wait $rel
jl_check "a worker terminated inside its transaction: refused with 40001" "$(cat "$tmp/release2")" 40001
wait $holder
jl_check "  nothing was charged" "$(charges)" "$before"

# 3. the release cancelled while its worker waits
before=$(charges)
( q -c "BEGIN; SELECT 1 FROM jldp_internal.jldp_dataset WHERE name = 'public.src' FOR UPDATE; SELECT pg_sleep(3); COMMIT;" >/dev/null ) &
holder=$!
sleep 0.5
jl_check "a release cancelled while its worker waits: 57014" \
  "$(PGOPTIONS="$PGOPTIONS -c statement_timeout=1000" release cw_t3)" 57014
jl_check "  its worker is gone" \
  "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'jldp charge'")" 0
wait $holder
jl_check "  nothing was charged" "$(charges)" "$before"
jl_check "  the next release is charged once" "$(release cw_t3)" ok
jl_check "  once" "$(charges)" "$((before + 1))"
jl_check "every charge was recorded by its release (jl_ledger.released)" \
  "$(q -c "SELECT count(*) FILTER (WHERE released) || '/' || count(*) FROM jl_ledger WHERE dataset = 'public.src' AND event = 'charge'")" \
  "$(charges)/$(charges)"

# 4. a database whose owner turned synchronous_commit off: the worker
#    commits the charge synchronously all the same, so an immediate stop
#    of the server right after the release keeps it (the WAL writer's delay
#    of 10 s makes the loss of an asynchronous commit near certain)
jl_multi_start sync -c wal_writer_delay=10000ms
trap 'cleanup; jl_multi_stop' EXIT
sp=$JL_MULTI_PORT
sd=$JL_MULTI_DIR
m() { psql -qXAt -v ON_ERROR_STOP=1 -h "$sd" -p "$sp" -d postgres "$@"; }
m >/dev/null <<'SQL'
CREATE EXTENSION jldp;
SELECT jl_key_import('cw', '\x00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff');
CREATE TABLE src AS SELECT i AS id, ARRAY[i % 3, i % 5]::float8[] AS x FROM generate_series(1, 50) i;
ALTER TABLE src ADD PRIMARY KEY (id);
-- the protected table; its budget (the dataset the worker charges) is public.src
SELECT d FROM jl_protect('src', 'id', ARRAY[jl_vector('x', 2, 0, 4)], epsilon_cap => 100);
ALTER DATABASE postgres SET synchronous_commit = off;
SQL
# the output read in an open transaction, then the server stopped at once
( m >/dev/null 2>&1 <<'SQL'
BEGIN;
SELECT release_id > 0 FROM jl_release('src', 'cw_sync', 1.0, jl_sketch(k => 2), key => 'cw');
SELECT count(*) FROM cw_sync;
SELECT pg_sleep(30);
SQL
) &
for _ in $(seq 1 50); do
  [ "$(m -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'")" = 1 ] && break
  sleep 0.1
done
as_pg "$PGBIN/pg_ctl" -D "$sd/sync" -m immediate stop >/dev/null
wait
as_pg "$PGBIN/pg_ctl" -D "$sd/sync" -l "$sd/sync.log" -w \
  -o "-p $sp -k $sd -c listen_addresses='' -c fsync=off -c wal_writer_delay=10000ms" start >/dev/null
jl_check "synchronous_commit off for the database, an immediate stop after the release: the charge stands" \
  "$(m -c "SELECT count(*) FROM jldp_internal.jldp_ledger WHERE dataset = 'public.src' AND event = 'charge'")" 1

exit $fail
