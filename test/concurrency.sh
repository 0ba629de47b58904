#!/usr/bin/env bash
# Two real sessions race for the last of a privacy budget.  Assumes the PG*
# variables point at a server with jldp installable (superuser connection).
#   1. Ordered: session A releases 0.6 of a cap of 1.0 inside an open
#      transaction and then rolls it back; session B asks for 0.6 meanwhile.
#      A's charge was committed on its own before A's output existed, so B
#      is refused at once (it does not wait for A), and after A's ROLLBACK
#      the spent budget is still 0.6.
#   2. Unordered: ROUNDS times, two sessions start a 0.6 release at the same
#      moment; exactly one may succeed each round, and the spent budget must
#      never pass the cap.
#   3. First releases: two sessions release a relation with no dataset yet
#      (its default dataset is declared with the first release's charge);
#      the second is charged to the same dataset, instead of failing
#      because it "already exists".
#   4. A cap raised in an open transaction: a release meanwhile waits for it
#      (the dataset's row lock) and is charged under the new cap once the
#      change commits.
#   5. A view redefined while its release waits for the charge: session A
#      holds the dataset's row (an open cap change), B releases a simple
#      view of the table, C replaces the view by one repeating every row
#      100 times.  C waits for B (B keeps the view locked from its check to
#      its read), and B's output has each id once.
#   6. An uncommitted declaration of a relation's default dataset name held
#      open for 8 s: the relation's first release is refused, uncharged,
#      after the charge's lock timeout (5 s), instead of waiting (and
#      holding a worker slot) for as long as the declaration stays open.
#   8. A protected table's unit made unique (duplicates deleted, primary
#      key added) in a transaction a release waits for: the release reads
#      the rows after the lock, each unit once.
#   9. An inheritance child created (every row copied into it) while a
#      release of its parent waits for its charge: the release reads only
#      the parent, each unit once.
# Exits non-zero on any violation.
set -euo pipefail
ROUNDS=${JLDP_RACE_ROUNDS:-20}
db=jldp_race
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
trap 'psql -qX -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true' EXIT
q() { psql -qXAt -v ON_ERROR_STOP=1 -d "$db" "$@"; }
q <<'SQL' >/dev/null
CREATE EXTENSION jldp;
SELECT jl_key_import('race', '\x00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff');
CREATE TABLE src AS SELECT i AS id, ARRAY[random(), random(), random()] AS x FROM generate_series(1, 2000) i;
ALTER TABLE src ADD PRIMARY KEY (id);
SQL
fail=0
tmp=$(mktemp -d)

# Session A runs $1 in an open transaction held for 2 s, then ends it with
# $4 (default COMMIT); session B runs $2 meanwhile.  Their outputs go to
# $tmp/$3.a and $tmp/$3.b; $waited is how long B took.
hold_then_run() {
  ( q <<SQL > "$tmp/$3.a" 2>&1
BEGIN;
$1;
SELECT pg_sleep(2);
${4:-COMMIT};
SQL
  ) &
  local apid=$! t0 t1
  sleep 0.7
  t0=$(date +%s.%N)
  q -c "$2" > "$tmp/$3.b" 2>&1 || true
  t1=$(date +%s.%N)
  wait $apid
  waited=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
}

# 1. ordered
q -c "CREATE TABLE ordered_src (LIKE src INCLUDING ALL)" -c "INSERT INTO ordered_src SELECT * FROM src" -c "SELECT jl_dataset_declare('ordered', 1.0, source => 'ordered_src')" >/dev/null
hold_then_run "SELECT jl_release_table('ordered_src', 'id', '{x}', 'ordered_a', 2, 0.6, key => 'race', dataset => 'ordered') > 0" \
  "SELECT jl_release_table('ordered_src', 'id', '{x}', 'ordered_b', 2, 0.6, key => 'race', dataset => 'ordered')" ordered ROLLBACK
spent=$(q -c "SELECT epsilon_spent FROM jl_budgets WHERE name = 'ordered'")
if grep -q "would be exceeded" "$tmp/ordered.b" && [ "$spent" = "0.6" ] && \
   awk -v w="$waited" 'BEGIN { exit !(w < 0.8) }'; then
  echo "ok   ordered: B was refused after ${waited}s, without waiting for A's transaction; after A's ROLLBACK spent $spent of 1.0"
else
  echo "FAIL ordered: B took ${waited}s, spent $spent; B said: $(cat "$tmp/ordered.b")"
  fail=1
fi

# 2. unordered rounds
wins_total=0
for r in $(seq 1 "$ROUNDS"); do
  q -c "CREATE TABLE race${r}_src (LIKE src INCLUDING ALL)" -c "INSERT INTO race${r}_src SELECT * FROM src" -c "SELECT jl_dataset_declare('race$r', 1.0, source => 'race${r}_src')" >/dev/null
  for s in a b; do
    ( q -c "SELECT jl_release_table('race${r}_src', 'id', '{x}', 'race${r}_$s', 2, 0.6, key => 'race', dataset => 'race$r')" \
        > "$tmp/$r$s.out" 2>&1 && echo ok > "$tmp/$r$s.rc" || echo refused > "$tmp/$r$s.rc" ) &
  done
  wait
  wins=$(cat "$tmp/${r}a.rc" "$tmp/${r}b.rc" | grep -c '^ok$' || true)
  spent=$(q -c "SELECT epsilon_spent FROM jl_budgets WHERE name = 'race$r'")
  refusal=$(cat "$tmp/${r}a.out" "$tmp/${r}b.out" | grep -c "would be exceeded" || true)
  if [ "$wins" != 1 ] || [ "$spent" != "0.6" ] || [ "$refusal" != 1 ]; then
    echo "FAIL round $r: $wins releases succeeded, spent $spent"
    cat "$tmp/${r}a.out" "$tmp/${r}b.out"
    fail=1
  fi
  wins_total=$((wins_total + wins))
done
[ $fail = 0 ] && echo "ok   unordered: $ROUNDS rounds of two simultaneous 0.6 releases against a cap of 1.0: exactly one succeeded each round"

# 3. first releases of an undeclared relation
q -c "CREATE TABLE first_src (LIKE src INCLUDING ALL)" -c "INSERT INTO first_src SELECT * FROM src" >/dev/null
hold_then_run "SELECT jl_release_table('first_src', 'id', '{x}', 'first_a', 2, 0.5, key => 'race') > 0" \
  "SELECT jl_release_table('first_src', 'id', '{x}', 'first_b', 2, 0.25, key => 'race') > 0" first
first=$(q -c "SELECT name || ' ' || epsilon_spent || ' ' || (source = 'first_src'::regclass) FROM jl_budgets WHERE source = 'first_src'::regclass")
if grep -q '^t$' "$tmp/first.b" && [ "$first" = "public.first_src 0.75 true" ]; then
  echo "ok   first releases: B was charged to the dataset A's release declared (after ${waited}s): $first"
else
  echo "FAIL first releases: B took ${waited}s, dataset '$first'; A said: $(cat "$tmp/first.a"); B said: $(cat "$tmp/first.b")"
  fail=1
fi

# 4. a cap raised in an open transaction
q -c "CREATE TABLE capped_src (LIKE src INCLUDING ALL)" -c "INSERT INTO capped_src SELECT * FROM src" -c "SELECT jl_dataset_declare('capped', 1.0, source => 'capped_src')" \
  -c "SELECT jl_release_table('capped_src', 'id', '{x}', 'capped_a', 2, 0.6, key => 'race', dataset => 'capped')" >/dev/null
hold_then_run "SELECT jl_dataset_set_cap('capped', 2.0)" \
  "SELECT jl_release_table('capped_src', 'id', '{x}', 'capped_b', 2, 0.6, key => 'race', dataset => 'capped') > 0" capped
spent=$(q -c "SELECT epsilon_spent FROM jl_budgets WHERE name = 'capped'")
if grep -q '^t$' "$tmp/capped.b" && [ "$spent" = "1.2" ] && \
   awk -v w="$waited" 'BEGIN { exit !(w >= 0.8) }'; then
  echo "ok   cap raised meanwhile: B waited ${waited}s for the change, then was charged under the new cap: spent $spent of 2.0"
else
  echo "FAIL cap raised meanwhile: B took ${waited}s, spent $spent; B said: $(cat "$tmp/capped.b")"
  fail=1
fi

# 5. a view redefined while its release waits for the charge
q -c "CREATE TABLE viewed_src (LIKE src INCLUDING ALL)" -c "INSERT INTO viewed_src SELECT * FROM src" \
  -c "CREATE VIEW viewed_v AS SELECT id, x FROM viewed_src" -c "SELECT jl_dataset_declare('viewed', 1.0, source => 'viewed_src')" >/dev/null
( q <<'SQL' > "$tmp/viewed.a" 2>&1
BEGIN;
SELECT jl_dataset_set_cap('viewed', 2.0);
SELECT pg_sleep(2);
COMMIT;
SQL
) &
apid=$!
sleep 0.7
( q -c "SELECT jl_release_table('viewed_v', 'id', '{x}', 'viewed_out', 2, 0.5, key => 'race') > 0" > "$tmp/viewed.b" 2>&1 || true ) &
bpid=$!
sleep 0.5
t0=$(date +%s.%N)
q -c "CREATE OR REPLACE VIEW viewed_v AS SELECT s.id, s.x FROM viewed_src s, generate_series(1, 100) g" > "$tmp/viewed.c" 2>&1 || true
t1=$(date +%s.%N)
wait $apid $bpid
waited=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
rows=$(q -c "SELECT count(*) || ' rows, ' || count(DISTINCT id) || ' ids' FROM viewed_out" 2>&1 || true)
if grep -q '^t$' "$tmp/viewed.b" && [ "$rows" = "2000 rows, 2000 ids" ]; then
  echo "ok   view redefined meanwhile: the redefinition waited ${waited}s for the release, which read the view it checked: $rows"
else
  echo "FAIL view redefined meanwhile: the redefinition took ${waited}s; output: $rows; B said: $(cat "$tmp/viewed.b"); C said: $(cat "$tmp/viewed.c")"
  fail=1
fi

# 6. a declaration of the default dataset's name left open
q -c "CREATE TABLE dos_src (LIKE src INCLUDING ALL)" -c "INSERT INTO dos_src SELECT * FROM src" >/dev/null
( q <<'SQL' > "$tmp/dos.a" 2>&1
BEGIN;
SELECT jl_dataset_declare('public.dos_src', 1.0);
SELECT pg_sleep(8);
ROLLBACK;
SQL
) &
apid=$!
sleep 0.7
t0=$(date +%s.%N)
q -c "SELECT jl_release_table('dos_src', 'id', '{x}', 'dos_out', 2, 0.5, key => 'race') > 0" > "$tmp/dos.b" 2>&1 || true
t1=$(date +%s.%N)
wait $apid
waited=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
charged=$(q -c "SELECT count(*) FROM jl_ledger WHERE dataset = 'public.dos_src'")
if grep -q 'waited more than 5 s for another transaction' "$tmp/dos.b" && [ "$charged" = 0 ] && \
   awk -v w="$waited" 'BEGIN { exit !(w < 7) }'; then
  echo "ok   declaration left open: the release was refused after ${waited}s, uncharged"
else
  echo "FAIL declaration left open: the release took ${waited}s, $charged charges; it said: $(cat "$tmp/dos.b")"
  fail=1
fi
# 7. a release's table dropped by its owner between two reads of another
#    session's open transaction: the reader locks it on each read and then
#    checks it again, so the second read is 42P01 (0.3.3 and the first
#    0.3.4 crashed the server: the names of a dropped relation were NULL)
q <<'SQL' >/dev/null
CREATE TABLE race_cov AS SELECT ARRAY[i % 3, i % 5]::float8[] AS x FROM generate_series(1, 30) i;
SELECT jl_release_covariance('race_cov', '{x}', 'race_cov_rel', 4, 2.0, 1e-6);
CREATE TABLE race_edges AS SELECT i AS u, i % 40 + 1 AS v FROM generate_series(1, 40) i;
SELECT jl_release_graph('race_edges', 'u', 'v', 40, 'race_g', 4, 4.0, 1e-3);
SQL
cov=$(q -c "SELECT 'race_cov_rel'::regclass::oid")
graph=$(q -c "SELECT 'race_g'::regclass::oid")
( psql -qXAt -d "$db" -v VERBOSITY=verbose <<SQL > "$tmp/dropped.a" 2>&1
SELECT jl_covariance($cov::oid::regclass) IS NOT NULL;
SELECT jl_cut_size($graph::oid::regclass, '{1,2}') IS NOT NULL;
BEGIN;
SELECT pg_sleep(1.5);
SELECT jl_covariance($cov::oid::regclass) IS NOT NULL;
ROLLBACK;
BEGIN;
SELECT pg_sleep(0.1);
SELECT jl_cut_size($graph::oid::regclass, '{1,2}') IS NOT NULL;
ROLLBACK;
SELECT 'alive';
SQL
) &
apid=$!
sleep 0.7
q -c "DROP TABLE race_cov_rel" -c "DROP TABLE race_g" >/dev/null
wait $apid || true
if [ "$(grep -c 'ERROR:  42P01' "$tmp/dropped.a")" = 2 ] && grep -q '^alive$' "$tmp/dropped.a"; then
  echo "ok   a release's table dropped between two reads of an open transaction: 42P01 for each reader, no crash"
else
  echo "FAIL a release's table dropped between two reads: $(cat "$tmp/dropped.a")"
  fail=1
fi
# 8. a protected table's unit made unique while its release waits: the
# curator deletes a unit's 20 duplicates and adds the primary key in one
# transaction; a release started meanwhile waits for the table's lock and
# must read the rows as they are after it (0.4.0's first pipeline read them
# with the statement's older snapshot: 21 sketches of unit 1)
q >/dev/null <<'SQL'
CREATE TABLE dup_src (id int PRIMARY KEY, age int);
INSERT INTO dup_src SELECT g, g FROM generate_series(1, 10) g;
SELECT d FROM jl_protect('dup_src', 'id', ARRAY[jl_numeric('age', 0, 100)], epsilon_cap => 5);
ALTER TABLE dup_src DROP CONSTRAINT dup_src_pkey;
INSERT INTO dup_src SELECT 1, 100 FROM generate_series(1, 20);
SQL
( q <<'SQL' > "$tmp/dup.a" 2>&1
BEGIN;
DELETE FROM dup_src WHERE id = 1 AND age = 100;
ALTER TABLE dup_src ADD PRIMARY KEY (id);
SELECT pg_sleep(2);
COMMIT;
SQL
) &
apid=$!
sleep 0.7
( q -c "SELECT released FROM jl_release('dup_src', 'dup_out', 0.5, jl_sketch(k => 2), key => 'race')" > "$tmp/dup.b" 2>&1 || true ) &
bpid=$!
wait $apid $bpid
rows=$(q -c "SELECT count(*) || ' rows, ' || count(DISTINCT id) || ' units' FROM dup_out" 2>&1 || true)
if grep -q '^dup_out$' "$tmp/dup.b" && [ "$rows" = "10 rows, 10 units" ]; then
  echo "ok   a unit made unique while its release waited: the release read the rows after the lock: $rows"
else
  echo "FAIL a unit made unique while its release waited: output $rows; the release said: $(cat "$tmp/dup.b")"
  fail=1
fi

# 9. an inheritance child created while a release of its parent waits for
# its charge (the owner holds the dataset's row with a grant in an open
# transaction, creates the child and copies every row into it): the release
# reads ONLY the table it checked (it read both before: every unit twice)
q >/dev/null <<'SQL'
CREATE TABLE kid_src (id int PRIMARY KEY, a float8);
INSERT INTO kid_src SELECT g, g % 7 FROM generate_series(1, 50) g;
SELECT d FROM jl_protect('kid_src', 'id', ARRAY[jl_numeric('a', 0, 7)], epsilon_cap => 5);
CREATE ROLE race_kid_other;
SQL
( q <<'SQL' > "$tmp/kid.a" 2>&1
BEGIN;
SELECT jl_dataset_grant('public.kid_src', 'race_kid_other');
CREATE TABLE kid_child () INHERITS (kid_src);
INSERT INTO kid_child SELECT * FROM ONLY kid_src;
SELECT pg_sleep(2);
COMMIT;
SQL
) &
apid=$!
sleep 0.7
( q -c "SELECT released FROM jl_release('kid_src', 'kid_out', 0.5, jl_sketch(k => 2), key => 'race')" > "$tmp/kid.b" 2>&1 || true ) &
bpid=$!
wait $apid $bpid
rows=$(q -c "SELECT count(*) || ' rows, ' || count(DISTINCT id) || ' units' FROM kid_out" 2>&1 || true)
q -c "DROP ROLE race_kid_other" >/dev/null 2>&1 || true
if grep -q '^kid_out$' "$tmp/kid.b" && [ "$rows" = "50 rows, 50 units" ]; then
  echo "ok   an inheritance child created while its parent's release waited: the release read only the parent: $rows"
else
  echo "FAIL an inheritance child created while its parent's release waited: output $rows; the release said: $(cat "$tmp/kid.b")"
  fail=1
fi

rm -rf "$tmp"
exit $fail
