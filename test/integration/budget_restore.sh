#!/usr/bin/env bash
# A budget restored into another cluster keeps its owners and authorises
# nothing new (docs/design/threat_model.md, attacks 3 and 7).  Makes two throwaway
# clusters of its own (own data directories and ports; needs initdb and the
# installed jldp, not the PG* server):
#   1. Cluster 1: curators A and B, two tables of A protected by A
#      (jl_protect: a wide one and a long-format one, whose budgets are
#      their datasets public.src and public.facts), B granted to spend the
#      long one (jl_protect_grant), a charge by a release of each, a booking
#      (jl_budget_book) paying for an unbudgeted release (jl_private_release
#      of each row) and a booking on its own.
#   2. pg_dump of that database; in cluster 2 the roles are created in
#      another order after an extra role (so every role OID differs), then
#      pg_restore.
#   3. Owners, spenders, ledger roles, key owners and releasers are the same
#      roles by name; the declarations, caps and spent budgets come back;
#      the extra role, whose OID may be A's old one, sees and changes nothing.
#   4. (0.3 replayed a restored reservation in its transaction id, to show
#      that none authorises an aggregate release in cluster 2.  A booking
#      authorises nothing, and no charge of the pipeline is kept for a later
#      transaction to use, so there is nothing to replay.)
#   5. DROP SCHEMA ... CASCADE of the extension's schemas (jldp,
#      jldp_internal, and the one named in CREATE EXTENSION ... SCHEMA) is
#      refused while keys and ledger rows exist.
# Exits non-zero on any failure.
set -euo pipefail
source "$(dirname "$0")/../pgenv.sh"
tmp=$(mktemp -d /tmp/jldp-restore.XXXXXX)
chmod 755 "$tmp"
[ "$(id -u)" -eq 0 ] && chown postgres: "$tmp"
ports=()
stop_all() {
  for c in c1 c2; do
    [ -d "$tmp/$c" ] && as_pg "$PGBIN/pg_ctl" -D "$tmp/$c" -m immediate stop >/dev/null 2>&1 || true
  done
  rm -rf "$tmp"
}
trap stop_all EXIT

start() {
  local name=$1 port
  as_pg "$PGBIN/initdb" -D "$tmp/$name" -A trust -U postgres --no-sync >/dev/null
  port=$(( 20000 + RANDOM % 20000 ))
  # no autovacuum: nothing else runs in the clusters
  as_pg "$PGBIN/pg_ctl" -D "$tmp/$name" -l "$tmp/$name.log" -w \
    -o "-p $port -k $tmp -c listen_addresses='' -c fsync=off -c autovacuum=off" start >/dev/null
  ports+=("$port")
}
start c1
start c2
P1=${ports[0]}
P2=${ports[1]}
db=jldp_restore
q1() { as_pg psql -qXAt -v ON_ERROR_STOP=1 -h "$tmp" -p "$P1" -U postgres -d "$db" "$@"; }
q2() { as_pg psql -qXAt -v ON_ERROR_STOP=1 -h "$tmp" -p "$P2" -U postgres -d "$db" "$@"; }
# the SQLSTATE and message of the error of a q2 call (empty when none)
state() { q2 -v VERBOSITY=verbose "$@" 2>&1 | sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\): \(.*\)$/\1 \2/p' | head -1 || true; }
fail=0
check() {
  local what=$1 got=$2 want=$3
  if [ "$got" = "$want" ]; then
    echo "ok   $what"
  else
    echo "FAIL $what: got '$got', expected '$want'"
    fail=1
  fi
}

# 1. cluster 1
as_pg psql -qX -h "$tmp" -p "$P1" -U postgres -d postgres -c "CREATE DATABASE $db" \
  -c "CREATE ROLE jr_curator_a" -c "CREATE ROLE jr_curator_b" >/dev/null
q1 >/dev/null <<'SQL'
CREATE EXTENSION jldp;
SELECT jl_key_import('kept', '\x00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff');
-- a superuser's key, granted to every curator (kept by name across the restore)
SELECT jl_key_grant('kept', 'jldp_curator');
GRANT jldp_curator TO jr_curator_a, jr_curator_b;
GRANT CREATE ON SCHEMA public TO jr_curator_a, jr_curator_b;
SET ROLE jr_curator_a;
SELECT jl_key_create('a_key');
-- long format: 20 rows of 6 attributes, values 0 to 4 (r * a mod 5)
CREATE TABLE facts AS SELECT r AS row_id, a AS attr, (r * a % 5)::float8 AS val
  FROM generate_series(1, 20) r, generate_series(1, 6) a;
ALTER TABLE facts ADD PRIMARY KEY (row_id, attr);
GRANT SELECT ON facts TO jr_curator_b;
CREATE TABLE src AS SELECT i AS id, ARRAY[i % 3, i % 5]::float8[] AS x FROM generate_series(1, 20) i;
ALTER TABLE src ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('facts', 'row_id', ARRAY[jl_long('attr', 'val', 6, 0, 4)],
                         neighbor => 'attribute', epsilon_cap => 10.0);
SELECT d FROM jl_protect('src', 'id', ARRAY[jl_vector('x', 2, 0, 4)], epsilon_cap => 10.0);
SELECT release_id FROM jl_release('src', 'src_out', 1.0, jl_sketch(k => 2), key => 'kept');
-- a booking and the unbudgeted release it pays for: each row's dense vector
-- (what 0.3's aggregate released under a reservation)
BEGIN;
SELECT jl_budget_book('facts', 1.0, 0, 'jl_private_release of each row');
SELECT count(jl_private_release(v, 1.0, 1, 'attribute', jl_sketch(k => 2, calibration => 'exact'), key => 'kept'))
  FROM (SELECT row_id, array_agg(val ORDER BY attr) AS v FROM facts GROUP BY row_id) s;
COMMIT;
RESET ROLE;
SQL
granted=$(q1 -c "SET ROLE jr_curator_a" -c "SELECT jl_protect_grant('facts', 'jr_curator_b')" 2>&1 || true)
check "cluster 1: the owner grants B to spend its protected table" "$granted" ""
q1 -c "SET ROLE jr_curator_b" -c "SELECT release_id FROM jl_release('facts', 'facts_b', 0.5, jl_sketch(k => 2), key => 'kept')" >/dev/null
q1 -c "SET ROLE jr_curator_a" -c "SELECT jl_budget_book('facts', 1.0, 0, 'on its own')" >/dev/null
owner_before=$(q1 -c "SELECT owner FROM jl_budgets WHERE name = 'public.facts'")
check "cluster 1: the protected table's dataset is owned by the curator who declared it" "$owner_before" "jr_curator_a"

# 2. dump, roles in another order in cluster 2, restore
as_pg "$PGBIN/pg_dump" -h "$tmp" -p "$P1" -U postgres -Fc -f "$tmp/dump" "$db"
as_pg psql -qX -v ON_ERROR_STOP=1 -h "$tmp" -p "$P2" -U postgres -d postgres >/dev/null <<SQL
CREATE ROLE jr_mallory;
CREATE ROLE jr_filler;
CREATE ROLE jr_curator_b;
CREATE ROLE jr_curator_a;
CREATE DATABASE $db;
SQL
as_pg "$PGBIN/pg_restore" -h "$tmp" -p "$P2" -U postgres -d "$db" --exit-on-error "$tmp/dump"
# role memberships are not in a database's dump: the curators are given
# theirs again, and the extra role is a curator too (it may call what it tries)
q2 -c "GRANT jldp_curator TO jr_curator_a, jr_curator_b, jr_mallory" >/dev/null
# the extra role may read the table and create tables: only the budget's
# spenders (restored by name) stand between it and a charge
q2 -c "GRANT SELECT ON facts TO jr_mallory" -c "GRANT CREATE ON SCHEMA public TO jr_mallory" >/dev/null
oids=$(as_pg psql -qXAt -h "$tmp" -p "$P1" -U postgres -d "$db" -c "SELECT string_agg(oid::text, ',' ORDER BY rolname) FROM pg_roles WHERE rolname LIKE 'jr\_%'")
oids2=$(q2 -c "SELECT string_agg(oid::text, ',' ORDER BY rolname) FROM pg_roles WHERE rolname LIKE 'jr\_curator%'")
if [ "$oids" = "$oids2" ]; then
  echo "FAIL the curators have the same OIDs in both clusters ($oids): the test would see nothing"
  fail=1
fi

# 3. owners by name
check "cluster 2: the dataset's owner is the same role" \
  "$(q2 -c "SELECT owner FROM jl_budgets WHERE name = 'public.facts'")" "jr_curator_a"
# the ledger of public.facts: A's declaration, A's booking, A's grant, B's
# release, A's booking
check "cluster 2: the ledger names the roles that acted" \
  "$(q2 -c "SELECT string_agg(event || ' ' || role, ', ' ORDER BY id) FROM jl_ledger WHERE dataset = 'public.facts'")" \
  "declare jr_curator_a, charge jr_curator_a, grant jr_curator_a, charge jr_curator_b, charge jr_curator_a"
# the declarations with their caps and spent budgets: facts 1 + 0.5 + 1,
# src 1 (its one release); d = 6 (jl_long) and 2 (jl_vector)
check "cluster 2: the declarations, caps and spent budgets come back" \
  "$(q2 -c "SELECT string_agg(relation || ' ' || dataset || ' ' || neighbor || ' ' || d || ' ' || epsilon_cap || ' ' || epsilon_spent || ' ' || owner || ' ' || spenders::text, ', ' ORDER BY dataset) FROM jl_protected")" \
  "facts public.facts attribute 6 10 2.5 jr_curator_a {jr_curator_b}, src public.src row 2 10 1 jr_curator_a {}"
check "cluster 2: the key's owner and the release's releaser are the same roles" \
  "$(q2 -c "SELECT (SELECT owner FROM jl_keys WHERE name = 'a_key') || ' ' || (SELECT string_agg(released_by, ' ' ORDER BY id) FROM jldp_internal.jldp_release)")" \
  "jr_curator_a jr_curator_a jr_curator_b"
check "cluster 2: another role cannot drop the curator's key" \
  "$(q2 -c "SET ROLE jr_mallory" -c "SELECT jl_key_drop('a_key')" 2>&1 | grep -c 'only the creator' || true)" "1"
check "cluster 2: the owner sees its protected table" \
  "$(q2 -c "SET ROLE jr_curator_a" -c "SELECT count(*) FROM jl_budgets WHERE name = 'public.facts'" -c "SELECT count(*) FROM jl_protected WHERE dataset = 'public.facts'" | tr '\n' ' ')" "1 1 "
check "cluster 2: another role sees nothing" \
  "$(q2 -c "SET ROLE jr_mallory" -c "SELECT count(*) FROM jl_budgets" -c "SELECT count(*) FROM jl_protected" | tr '\n' ' ')" "0 0 "
check "cluster 2: another role cannot change the dataset's cap (not even lower it)" \
  "$(q2 -c "SET ROLE jr_mallory" -c "SELECT jl_set_cap('facts', 5)" 2>&1 | grep -c 'not a protected table whose budget you manage' || true)" "1"
check "cluster 2: another role (a curator, not a budget administrator) cannot reset the dataset" \
  "$(state -c "SET ROLE jr_mallory" -c "SELECT jl_reset('facts')")" \
  '42501 permission denied for function jl_reset'
check "cluster 2: another role cannot book on it" \
  "$(q2 -c "SET ROLE jr_mallory" -c "SELECT jl_budget_book('facts', 1)" 2>&1 | grep -c 'may not spend' || true)" "1"
check "cluster 2: another role cannot release it" \
  "$(q2 -c "SET ROLE jr_mallory" -c "SELECT release_id FROM jl_release('facts', 'facts_m', 0.5, jl_sketch(k => 2), key => 'kept')" 2>&1 | grep -c 'may not spend' || true)" "1"
check "cluster 2: the granted spender still may" \
  "$(q2 -c "SET ROLE jr_curator_b" -c "SELECT release_id > 0 FROM jl_release('facts', 'facts_b2', 0.5, jl_sketch(k => 2), key => 'kept')")" "t"
check "cluster 2: the bookings come back, recorded by no release" \
  "$(q2 -c "SELECT string_agg(what || ' ' || epsilon || ' ' || coalesce(released::text, 'NULL'), ', ' ORDER BY id) FROM jl_ledger WHERE dataset = 'public.facts' AND what LIKE 'jl_budget_book%'")" \
  "jl_budget_book: jl_private_release of each row 1 NULL, jl_budget_book: on its own 1 NULL"
check "cluster 2: nothing else was charged (2.5 restored, B's 0.5 since)" \
  "$(q2 -c "SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.facts'")" "3.0"

# raising a cap and resetting are a budget administrator's, whoever owns the
# dataset: its owner (a curator) may only lower the cap (raising is refused
# inside jl_set_cap; jl_reset is executable by
# jldp_budget_admin only, so a curator is refused before its body); a budget
# administrator that owns nothing and was never granted the dataset may
# raise and reset it, and the ledger names it
check "cluster 2: the owner (a curator) cannot raise its dataset's cap" \
  "$(state -c "SET ROLE jr_curator_a" -c "SELECT jl_set_cap('facts', 20)")" \
  '42501 raising the cap of dataset "public.facts" needs role jldp_budget_admin'
check "cluster 2: the owner cannot reset it" \
  "$(state -c "SET ROLE jr_curator_a" -c "SELECT jl_reset('facts')")" \
  '42501 permission denied for function jl_reset'
q2 -c "SET ROLE jr_curator_a" -c "SELECT jl_set_cap('facts', 9)" >/dev/null || true
check "cluster 2: the owner may lower it" \
  "$(q2 -c "SELECT epsilon_cap FROM jl_budgets WHERE name = 'public.facts'")" "9"
q2 -c "CREATE ROLE jr_budget" -c "GRANT jldp_budget_admin TO jr_budget" >/dev/null
q2 -c "SET ROLE jr_budget" -c "SELECT jl_set_cap('facts', 20)" -c "SELECT jl_reset('facts')" >/dev/null || true
check "cluster 2: a budget administrator that does not own it raises its cap and resets it" \
  "$(q2 -c "SET ROLE jr_budget" -c "SELECT epsilon_cap || ' ' || epsilon_spent || ' ' || owner FROM jl_budgets WHERE name = 'public.facts'")" "20 0 jr_curator_a"
check "cluster 2: the ledger names the owner's lowering and the administrator's raise and reset" \
  "$(q2 -c "SELECT string_agg(event || ' ' || role, ', ' ORDER BY id) FROM (SELECT * FROM jl_ledger WHERE dataset = 'public.facts' ORDER BY id DESC LIMIT 3) l")" \
  "cap jr_curator_a, cap jr_budget, reset jr_budget"

# 5. the extension's schemas are not dropped with its keys and ledger
q2 >/dev/null <<'SQL'
CREATE DATABASE jldp_restore_schema;
SQL
as_pg psql -qXAt -v ON_ERROR_STOP=1 -h "$tmp" -p "$P2" -U postgres -d jldp_restore_schema >/dev/null <<'SQL'
CREATE SCHEMA jl;
CREATE EXTENSION jldp SCHEMA jl;
SELECT jldp.jl_key_create('k');
SQL
# its objects are in jldp and jldp_internal; the schema it was created in
# (pg_extension.extnamespace, jl here, else the first of the search_path)
# holds none of them but dropping it with CASCADE drops the extension too
for s in jldp jldp_internal jl; do
  out=$(as_pg psql -qXAt -h "$tmp" -p "$P2" -U postgres -d jldp_restore_schema -c "DROP SCHEMA $s CASCADE" 2>&1 || true)
  kept=$(as_pg psql -qXAt -h "$tmp" -p "$P2" -U postgres -d jldp_restore_schema -c "SELECT count(*) FROM pg_extension WHERE extname = 'jldp'")
  check "DROP SCHEMA $s CASCADE is refused while keys exist" "$kept" "1"
  echo "     $out" | head -1
done
exit $fail
