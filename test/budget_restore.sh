#!/usr/bin/env bash
# A budget restored into another cluster keeps its owners and authorises
# nothing new (docs/threat_model.md, attacks 3 and 7).  Makes two throwaway
# clusters of its own (own data directories and ports; needs initdb and the
# installed jldp, not the PG* server):
#   1. Cluster 1: curators A and B, a dataset of A bound to A's table with B
#      granted to spend it, a charge by a release, a reservation consumed by
#      an aggregate release and one left unused; transaction ids are burnt
#      first, so that the unused reservation's transaction id lies ahead of
#      cluster 2's.
#   2. pg_dump of that database; in cluster 2 the roles are created in
#      another order after an extra role (so every role OID differs), then
#      pg_restore.
#   3. Owners, spenders, ledger roles, key owners and releasers are the same
#      roles by name; the
#      extra role, whose OID may be A's old one, sees and changes nothing.
#   4. Cluster 2's transaction ids are burnt up to the unused reservation's;
#      in that very transaction an aggregate release of the dataset must be
#      refused: no restored reservation authorises a release.
#   5. DROP SCHEMA ... CASCADE of the extension's schema is refused while
#      keys and ledger rows exist.
# Exits non-zero on any failure.
set -euo pipefail
source "$(dirname "$0")/pgenv.sh"
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
  # no autovacuum: nothing else takes transaction ids while they are counted
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
GRANT EXECUTE ON FUNCTION
    jl_dataset_declare(text, float8, float8, regclass, text), jl_dataset_set_cap(text, float8, float8),
    jl_dataset_reset(text), jl_budget_reserve(text, float8, float8),
    jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8,
                     text, text, float8, float8, float8, text, text, float8, float8, text, float8, bigint),
    jl_private_release_agg(int, float8, int, int, float8, text, text, float8, text, float8, text),
    jl_private_release_agg(int, float8, int, int, float8, text, text, float8, text, float8, text, text, text),
    jl_release_long(regclass, text, text, text, int, text, int, float8, text, float8,
                    text, float8, text, text, text, text)
  TO jr_curator_a, jr_curator_b;
GRANT EXECUTE ON FUNCTION jl_dataset_grant(text, regrole) TO jr_curator_a;
GRANT EXECUTE ON FUNCTION jl_key_create(text), jl_key_drop(text) TO jr_curator_a;
GRANT CREATE ON SCHEMA public TO jr_curator_a, jr_curator_b;
SET ROLE jr_curator_a;
SELECT jl_key_create('a_key');
CREATE TABLE facts AS SELECT r AS row_id, a AS attr, (r * a % 5)::float8 AS val
  FROM generate_series(1, 20) r, generate_series(1, 6) a;
GRANT SELECT ON facts TO jr_curator_b;
CREATE TABLE src AS SELECT i AS id, ARRAY[i % 3, i % 5]::float8[] AS x FROM generate_series(1, 20) i;
ALTER TABLE src ADD PRIMARY KEY (id);
SELECT jl_dataset_declare('facts_ds', 10.0, source => 'facts', unit => 'row_id');
SELECT jl_dataset_declare('src_ds', 10.0, source => 'src');
SELECT jl_release_table('src', 'id', '{x}', 'src_out', 2, 1.0, key => 'kept', dataset => 'src_ds');
BEGIN;
SELECT jl_budget_reserve('facts_ds', 1.0);
SELECT count(z) FROM (SELECT jl_private_release_agg(attr, val, 6, 2, 1.0, 'facts_ds', 'element', 1, 'exact', NULL, 'kept') AS z
  FROM facts GROUP BY row_id) s;
COMMIT;
RESET ROLE;
-- transaction ids ahead of what cluster 2 will have used after the restore
DO $$ BEGIN
  WHILE pg_current_xact_id() < '3000'::xid8 LOOP COMMIT; END LOOP;
END $$;
SQL
granted=$(q1 -c "SET ROLE jr_curator_a" -c "SELECT jl_dataset_grant('facts_ds', 'jr_curator_b')" 2>&1 || true)
check "cluster 1: the owner grants B to spend its dataset" "$granted" ""
q1 -c "SET ROLE jr_curator_b" -c "SELECT jl_release_long('facts', 'row_id', 'attr', 'val', 6, 'facts_b', 2, 0.5, key => 'kept', dataset => 'facts_ds')" >/dev/null
q1 -c "SET ROLE jr_curator_a" -c "BEGIN" -c "SELECT jl_budget_reserve('facts_ds', 1.0)" -c "COMMIT" >/dev/null
target_xact=$(q1 -c "SELECT xact FROM jldp_ledger WHERE event = 'reserve' ORDER BY id DESC LIMIT 1")
owner_before=$(q1 -c "SELECT owner FROM jl_budgets WHERE name = 'facts_ds'")
check "cluster 1: the dataset is owned by the curator who declared it" "$owner_before" "jr_curator_a"

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
q2 -c "GRANT EXECUTE ON FUNCTION jl_dataset_reset(text), jl_dataset_set_cap(text, float8, float8), jl_budget_reserve(text, float8, float8), jl_key_drop(text) TO jr_mallory" >/dev/null
oids=$(as_pg psql -qXAt -h "$tmp" -p "$P1" -U postgres -d "$db" -c "SELECT string_agg(oid::text, ',' ORDER BY rolname) FROM pg_roles WHERE rolname LIKE 'jr\_%'")
oids2=$(q2 -c "SELECT string_agg(oid::text, ',' ORDER BY rolname) FROM pg_roles WHERE rolname LIKE 'jr\_curator%'")
if [ "$oids" = "$oids2" ]; then
  echo "FAIL the curators have the same OIDs in both clusters ($oids): the test would see nothing"
  fail=1
fi

# 3. owners by name
check "cluster 2: the dataset's owner is the same role" \
  "$(q2 -c "SELECT owner FROM jl_budgets WHERE name = 'facts_ds'")" "jr_curator_a"
check "cluster 2: the ledger names the roles that acted" \
  "$(q2 -c "SELECT string_agg(event || ' ' || role, ', ' ORDER BY id) FROM jl_ledger WHERE dataset = 'facts_ds'")" \
  "declare jr_curator_a, reserve jr_curator_a, grant jr_curator_a, charge jr_curator_b, reserve jr_curator_a"
check "cluster 2: the key's owner and the release's releaser are the same roles" \
  "$(q2 -c "SELECT (SELECT owner FROM jl_keys WHERE name = 'a_key') || ' ' || (SELECT string_agg(released_by, ' ' ORDER BY id) FROM jldp_release)")" \
  "jr_curator_a jr_curator_a jr_curator_b"
check "cluster 2: another role cannot drop the curator's key" \
  "$(q2 -c "SET ROLE jr_mallory" -c "SELECT jl_key_drop('a_key')" 2>&1 | grep -c 'only the creator' || true)" "1"
check "cluster 2: the owner sees its dataset" \
  "$(q2 -c "SET ROLE jr_curator_a" -c "SELECT count(*) FROM jl_budgets WHERE name = 'facts_ds'")" "1"
check "cluster 2: another role sees nothing" \
  "$(q2 -c "SET ROLE jr_mallory" -c "SELECT count(*) FROM jl_budgets")" "0"
check "cluster 2: another role cannot reset the dataset" \
  "$(q2 -c "SET ROLE jr_mallory" -c "SELECT jl_dataset_reset('facts_ds')" 2>&1 | grep -c 'only the owner' || true)" "1"
check "cluster 2: another role cannot reserve on it" \
  "$(q2 -c "SET ROLE jr_mallory" -c "SELECT jl_budget_reserve('facts_ds', 1)" 2>&1 | grep -c 'may not spend' || true)" "1"
check "cluster 2: the granted spender still may" \
  "$(q2 -c "SET ROLE jr_curator_b" -c "SELECT jl_release_long('facts', 'row_id', 'attr', 'val', 6, 'facts_b2', 2, 0.5, key => 'kept', dataset => 'facts_ds') > 0")" "t"
check "cluster 2: the reservations come back, the consumed one marked used" \
  "$(q2 -c "SELECT string_agg(used::text, ' ' ORDER BY id) FROM jldp_reservation WHERE dataset = 'facts_ds'")" "true true false true"

# 4. a restored reservation, presented in a transaction with its id
q2 >/dev/null <<'SQL'
CREATE PROCEDURE jr_replay(target xid8, INOUT outcome text DEFAULT NULL) LANGUAGE plpgsql AS $$
BEGIN
  LOOP
    IF pg_current_xact_id() >= target THEN
      IF pg_current_xact_id() <> target THEN
        outcome := 'missed the transaction id';
        RETURN;
      END IF;
      BEGIN
        PERFORM count(z) FROM (SELECT jl_private_release_agg(attr, val, 6, 2, 1.0, 'facts_ds', 'element', 1,
                                                               'exact', NULL, 'kept') AS z
                                 FROM facts GROUP BY row_id) s;
        outcome := 'released';
      EXCEPTION WHEN OTHERS THEN
        outcome := 'refused: ' || SQLERRM;
      END;
      RETURN;
    END IF;
    COMMIT;
  END LOOP;
END $$;
SQL
before=$(q2 -c "SELECT pg_current_xact_id()")
outcome=$(q2 -c "CALL jr_replay('$target_xact')")
echo "     replay: reservation of transaction $target_xact, cluster 2 at $before: $outcome"
case "$outcome" in
  "refused: no privacy budget reserved"*) echo "ok   a restored reservation authorises no release in its transaction id" ;;
  *) echo "FAIL a restored reservation: $outcome"; fail=1 ;;
esac

# 5. the extension's schema is not dropped with its keys and ledger
q2 >/dev/null <<'SQL'
CREATE DATABASE jldp_restore_schema;
SQL
as_pg psql -qXAt -v ON_ERROR_STOP=1 -h "$tmp" -p "$P2" -U postgres -d jldp_restore_schema >/dev/null <<'SQL'
CREATE SCHEMA jl;
CREATE EXTENSION jldp SCHEMA jl;
SELECT jl.jl_key_create('k');
SQL
out=$(as_pg psql -qXAt -h "$tmp" -p "$P2" -U postgres -d jldp_restore_schema -c "DROP SCHEMA jl CASCADE" 2>&1 || true)
kept=$(as_pg psql -qXAt -h "$tmp" -p "$P2" -U postgres -d jldp_restore_schema -c "SELECT count(*) FROM pg_extension WHERE extname = 'jldp'")
check "DROP SCHEMA ... CASCADE of the extension's schema is refused while keys exist" "$kept" "1"
echo "     $out" | head -1
exit $fail
