#!/usr/bin/env bash
# A sharded protected table (docs/design/scaleout.md, "Sharded protected tables")
# on three throwaway clusters of its own: a coordinator and two shards.
#   1. Each shard declares its table (jl_protect); the coordinator declares
#      its partitioned table of foreign partitions with the same call.
#   2. CALL jl_release_distributed(protected, target, epsilon, jl_sketch):
#      one charge on the coordinator, one on each shard, a partitioned
#      target over the shards' sketch tables, usable for recovery.
#   3. A unit held by two shards (a row of shard 2's range on shard 1) is
#      released once, by the shard whose partition holds it; the negative
#      control: the coordinator reads it twice through its partitions.
#   4. Refused with nothing charged anywhere: a shard whose declaration
#      differs, a shard whose table is not declared, a mechanism other than
#      jl_sketch, jl_release of the sharded table on the coordinator, 0.3's
#      jl_release_distributed of it; sharded tables the declaration refuses
#      (hash partitions, a unit that is not the partition key, a text, enum
#      or float unit).
#   5. Found by an adversarial review: a date unit's bounds read the same
#      whatever the caller's DateStyle (a unit held by two shards is still
#      released once under 'SQL, DMY'); the coordinator is charged before
#      the parts read, so a failure after the shards charged leaves its
#      charge standing (marked not released) and cannot be refused by a
#      change of its budget meanwhile; a decision forged by hand, without a
#      charge or over a target that is not the shards' sketch tables, is
#      refused.
#   6. Found by a second review: what a shard's part would refuse (its cap,
#      its spender) is asked of every shard before the coordinator is
#      charged; a shard role whose default isolation is repeatable read
#      releases (the part's transaction is read committed); a list
#      partition holding the NULL unit, a partition being detached, an
#      expression partition key and a record without a declaration are
#      refused, none with an internal error.
# Exits non-zero on any failure.
set -euo pipefail
source "$(dirname "$0")/../pgenv.sh"
opts="-c max_prepared_transactions=10"
jl_multi_start coord $opts; PC=$JL_MULTI_PORT
jl_multi_start shard1 $opts; PS1=$JL_MULTI_PORT
jl_multi_start shard2 $opts; PS2=$JL_MULTI_PORT
dir=$JL_MULTI_DIR
q() { local port=$1; shift; as_pg psql -qXAt -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d postgres "$@"; }
fail=0
err() { "$@" 2>&1 >/dev/null | sed -n 's/^.*ERROR: *//p' | head -1 || true; }
state() { q "$1" -c "SELECT SQLSTATE" 2>/dev/null || true; }
# the SQLSTATE of a statement's error on the coordinator ('ok' without one)
sqlstate() {
  q $PC -c "DO \$\$ BEGIN EXECUTE \$q\$$1\$q\$; RAISE NOTICE 'ok'; EXCEPTION WHEN OTHERS THEN RAISE NOTICE '%', SQLSTATE; END \$\$" 2>&1 \
    | sed -n 's/^.*NOTICE: *//p' | head -1
}
call_state() {
  local out
  out=$(q $PC -c "$1" 2>&1 >/dev/null || true)
  if [ -z "$out" ]; then echo ok; else q $PC -c "SELECT 1" >/dev/null; echo "$out" | sed -n 's/^.*ERROR: *//p' | head -1; fi
}
charges() { q "$1" -c "SELECT count(*) FROM jl_ledger WHERE event = 'charge'"; }

for p in $PC $PS1 $PS2; do q $p -c "CREATE EXTENSION jldp" >/dev/null; done
# one key, carried in plain form (the master-key path is test/integration/shard_scaleout.sh's)
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
for p in $PC $PS1 $PS2; do q $p -c "SELECT jl_key_import('shared', decode('$secret', 'hex'))" >/dev/null; done

declare_for() { echo "SELECT d FROM jl_protect('$1', 'id', ARRAY[jl_numeric('age', 18, 95), jl_category('seg', '{a,b,c}')], epsilon_cap => 10)"; }
declare_sql=$(declare_for raw)
# 1. the shards: ids 1..100 and 101..200; shard 1 also holds id 150, of
# shard 2's range
for i in 1 2; do
  p=$([ $i = 1 ] && echo $PS1 || echo $PS2)
  lo=$(( (i - 1) * 100 + 1 )); hi=$(( i * 100 ))
  q $p >/dev/null <<SQL
CREATE TABLE raw (id int PRIMARY KEY, age float8, seg text, secret int);
INSERT INTO raw SELECT g, 18 + g % 60, (ARRAY['a','b','c'])[1 + g % 3], g FROM generate_series($lo, $hi) g;
$declare_sql;
SQL
done
q $PS1 -c "INSERT INTO raw VALUES (150, 40, 'a', -1)" >/dev/null
q $PC >/dev/null <<SQL
CREATE EXTENSION postgres_fdw;
CREATE EXTENSION dblink;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$dir', port '$PS1', dbname 'postgres', extensions 'jldp', connect_timeout '2');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$dir', port '$PS2', dbname 'postgres', extensions 'jldp', connect_timeout '2');
CREATE USER MAPPING FOR postgres SERVER shard1 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR postgres SERVER shard2 OPTIONS (user 'postgres');
CREATE TABLE raw (id int, age float8, seg text, secret int) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE raw_1 PARTITION OF raw FOR VALUES FROM (1) TO (101) SERVER shard1 OPTIONS (table_name 'raw');
CREATE FOREIGN TABLE raw_2 PARTITION OF raw FOR VALUES FROM (101) TO (201) SERVER shard2 OPTIONS (table_name 'raw');
SQL
jl_check "the coordinator declares its sharded table (d = 4)" "$(q $PC -c "$declare_sql")" "4"
jl_check "its partitions' bounds, as the shards' parts read them" \
  "$(q $PC -c "SELECT string_agg(partition || ' ' || coalesce(unit_lower, '-') || ' ' || coalesce(unit_upper, '-'), ', ' ORDER BY partition::text) FROM jldp_internal.jl_shard_bounds('raw')")" \
  "raw_1 1 101, raw_2 101 201"
jl_check "negative control: through its partitions the coordinator reads unit 150 twice" \
  "$(q $PC -c "SELECT count(*) FROM raw WHERE id + 0 = 150")" "2"

# 2. the release
c0=$(charges $PC); s10=$(charges $PS1); s20=$(charges $PS2)
rid=$(q $PC -c "CALL jl_release_distributed('raw', 'sk', 1.0, jl_sketch(k => 4), key => 'shared')")
jl_check "a registry id on the coordinator" "$([ -n "$rid" ] && [ "$rid" -gt 0 ] && echo yes)" "yes"
jl_check "charged once on the coordinator, once on each shard" \
  "$(( $(charges $PC) - c0 )) $(( $(charges $PS1) - s10 )) $(( $(charges $PS2) - s20 ))" "1 1 1"
jl_check "the target is partitioned over the shards' sketch tables" \
  "$(q $PC -c "SELECT relkind::text || ' ' || (SELECT count(*) FROM pg_inherits WHERE inhparent = 'sk'::regclass) FROM pg_class WHERE oid = 'sk'::regclass")" "p 2"
# 3. unit 150 once
jl_check "every unit once: 200 sketches of 200 units" "$(q $PC -c "SELECT count(*) || ' ' || count(DISTINCT id) FROM sk")" "200 200"
jl_check "unit 150 released by shard 2 only (shard 1's part read ids 1..100)" \
  "$(q $PS1 -c "SELECT count(*) FROM sk WHERE id = 150") $(q $PS2 -c "SELECT count(*) FROM sk WHERE id = 150")" "0 1"
jl_check "the shards' registries record 100 units each" \
  "$(q $PS1 -c "SELECT info->>'rows' FROM jldp_internal.jldp_release WHERE target = 'sk'::regclass") $(q $PS2 -c "SELECT info->>'rows' FROM jldp_internal.jldp_release WHERE target = 'sk'::regclass")" "100 100"
jl_check "the coordinator's record: 200 units, its guarantee, its declaration" \
  "$(q $PC -c "SELECT (info->>'rows') || ' ' || (info->>'guarantee' LIKE 'epsilon = 1 differential privacy for each unit (id) of public.raw by parallel composition%how many (200)%') || ' ' || (info->'declaration'->>'d') FROM jldp_internal.jldp_release WHERE id = $rid")" \
  "200 true 4"
jl_check "the release recovers distances through the coordinator's registry" \
  "$(q $PC -c "SELECT jl_recover_dist(a.sketch, b.sketch, 'sk'::regclass) IS NOT NULL FROM sk a, sk b WHERE a.id = 3 AND b.id = 170")" "t"
jl_check "the decision is recorded as committed" \
  "$(q $PC -c "SELECT committed_at IS NOT NULL FROM jl_distributed_releases WHERE release_id = $rid")" "t"

# 4. refusals, nothing charged anywhere
c0=$(charges $PC); s10=$(charges $PS1); s20=$(charges $PS2)
q $PS2 -c "SELECT d FROM jl_protect('raw', 'id', ARRAY[jl_numeric('age', 18, 99), jl_category('seg', '{a,b,c}')], epsilon_cap => 10)" >/dev/null
jl_check "a shard whose declaration differs (another bound): refused" \
  "$(call_state "CALL jl_release_distributed('raw', 'sk2', 1.0, jl_sketch(k => 4), key => 'shared')")" \
  "jl_release_distributed: the declaration of public.raw on shard shard2 is not the coordinator's declaration of public.raw"
q $PS2 -c "$declare_sql" >/dev/null
q $PS2 -c "CREATE TABLE raw_plain (id int PRIMARY KEY, age float8, seg text, secret int)" >/dev/null
q $PC -c "ALTER FOREIGN TABLE raw_2 OPTIONS (SET table_name 'raw_plain')" >/dev/null
jl_check "a shard whose table is not declared: refused" \
  "$(call_state "CALL jl_release_distributed('raw', 'sk2', 1.0, jl_sketch(k => 4), key => 'shared')" | grep -c 'raw_plain is not protected')" "1"
q $PC -c "ALTER FOREIGN TABLE raw_2 OPTIONS (SET table_name 'raw')" >/dev/null
jl_check "a mechanism other than jl_sketch: refused" \
  "$(call_state "CALL jl_release_distributed('raw', 'sk2', 1.0, jl_covariance_mechanism(4, 1e-6), key => 'shared')")" \
  "jl_release_distributed releases with jl_sketch"
jl_check "jl_release of the sharded table on the coordinator: refused (0A000)" \
  "$(sqlstate "SELECT jl_release('raw', 'sk2', 1.0, jl_sketch(k => 4), key => 'shared')")" "0A000"
jl_check "jl_release_dist2 of it: refused (0A000)" "$(sqlstate "SELECT jl_release_dist2('raw', 1.0)")" "0A000"
jl_check "0.3's form of jl_release_distributed (source, id_column, vector, ...): gone since 0.4.2" \
  "$(call_state "CALL jl_release_distributed('raw', 'id', '{age}', 'sk2', 4, 1.0, key => 'shared', bound => 100)" | grep -c 'does not exist')" "1"
jl_check "over the coordinator's cap: refused before any shard charges (53400)" \
  "$(call_state "CALL jl_release_distributed('raw', 'sk2', 9.5, jl_sketch(k => 4), key => 'shared')" | grep -c 'would be exceeded')" "1"
jl_check "nothing charged by the refusals: coordinator, shard 1, shard 2" \
  "$(( $(charges $PC) - c0 )) $(( $(charges $PS1) - s10 )) $(( $(charges $PS2) - s20 ))" "0 0 0"
jl_check "no target left behind" "$(q $PC -c "SELECT to_regclass('sk2') IS NULL")" "t"

# sharded tables the declaration refuses
q $PC >/dev/null <<SQL
CREATE TABLE raw_hash (id int, age float8, seg text, secret int) PARTITION BY HASH (id);
CREATE FOREIGN TABLE raw_hash_1 PARTITION OF raw_hash FOR VALUES WITH (MODULUS 2, REMAINDER 0) SERVER shard1 OPTIONS (table_name 'raw');
CREATE FOREIGN TABLE raw_hash_2 PARTITION OF raw_hash FOR VALUES WITH (MODULUS 2, REMAINDER 1) SERVER shard2 OPTIONS (table_name 'raw');
CREATE TABLE raw_byage (id int, age float8, seg text, secret int) PARTITION BY RANGE (age);
CREATE FOREIGN TABLE raw_byage_1 PARTITION OF raw_byage FOR VALUES FROM (0) TO (200) SERVER shard1 OPTIONS (table_name 'raw');
CREATE TABLE raw_text (id text, age float8, seg text, secret int) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE raw_text_1 PARTITION OF raw_text FOR VALUES FROM ('a') TO ('m') SERVER shard1 OPTIONS (table_name 'raw');
SQL
for t in raw_hash raw_byage; do
  jl_check "$t: not a sharded table, and its unit is not unique by a constraint (55000)" \
    "$(sqlstate "$(declare_for $t)")" "55000"
done
jl_check "raw_text: a unit with a collation (0A000)" "$(sqlstate "$(declare_for raw_text)")" "0A000"
q $PC >/dev/null <<SQL
CREATE TYPE lvl AS ENUM ('a', 'b', 'c');
CREATE TABLE raw_enum (id lvl, age float8, seg text, secret int) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE raw_enum_1 PARTITION OF raw_enum FOR VALUES FROM ('a') TO ('c') SERVER shard1 OPTIONS (table_name 'raw');
CREATE TABLE raw_float (id float8, age float8, seg text, secret int) PARTITION BY LIST (id);
CREATE FOREIGN TABLE raw_float_1 PARTITION OF raw_float FOR VALUES IN (0.1) SERVER shard1 OPTIONS (table_name 'raw');
SQL
jl_check "raw_enum: an enum unit, whose order each database sets (0A000)" "$(sqlstate "$(declare_for raw_enum)")" "0A000"
jl_check "raw_float: a float unit (0A000)" "$(sqlstate "$(declare_for raw_float)")" "0A000"

# 5. a date unit under the caller's DateStyle
for i in 1 2; do
  p=$([ $i = 1 ] && echo $PS1 || echo $PS2)
  lo=$([ $i = 1 ] && echo 2023-12-01 || echo 2024-02-01)
  q $p >/dev/null <<SQL
CREATE TABLE visits (id date PRIMARY KEY, age float8, seg text, secret int);
INSERT INTO visits SELECT d::date, 40, 'a', 0 FROM generate_series('$lo'::date, '$lo'::date + 35, '1 day') d;
$(declare_for visits);
SQL
done
q $PS1 -c "INSERT INTO visits VALUES ('2024-03-01', 40, 'a', -1)" >/dev/null
q $PC >/dev/null <<SQL
CREATE TABLE visits (id date, age float8, seg text, secret int) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE visits_1 PARTITION OF visits FOR VALUES FROM (MINVALUE) TO ('2024-01-05') SERVER shard1 OPTIONS (table_name 'visits');
CREATE FOREIGN TABLE visits_2 PARTITION OF visits FOR VALUES FROM ('2024-02-01') TO (MAXVALUE) SERVER shard2 OPTIONS (table_name 'visits');
$(declare_for visits);
SQL
jl_check "the bounds are written ISO whatever the caller's DateStyle" \
  "$(q $PC -c "SET DateStyle = 'SQL, DMY'" -c "SELECT string_agg(coalesce(unit_lower, '-') || ' ' || coalesce(unit_upper, '-'), ', ' ORDER BY partition::text) FROM jldp_internal.jl_shard_bounds('visits')")" \
  "- 2024-01-05, 2024-02-01 -"
q $PC -c "SET DateStyle = 'SQL, DMY'" -c "CALL jl_release_distributed('visits', 'vk', 1.0, jl_sketch(k => 4), key => 'shared')" >/dev/null
jl_check "under DateStyle 'SQL, DMY': the unit held by two shards released once" \
  "$(q $PC -c "SELECT count(*) FROM vk WHERE id + 0 = '2024-03-01'") $(q $PC -c "SELECT count(*) || ' ' || count(DISTINCT id) FROM vk")" "1 71 71"
jl_check "each part recorded the bounds it applied" \
  "$(q $PS1 -c "SELECT info->'part' FROM jldp_internal.jldp_release WHERE target = 'vk'::regclass")" '{"in": null, "lower": null, "upper": "2024-01-05"}'

# the coordinator charged before the parts: a failure after the shards
# charged leaves every charge standing, the coordinator's marked not released
c0=$(charges $PC); s10=$(charges $PS1); s20=$(charges $PS2)
jl_check "a failure after every shard prepared (a superuser's test failure point)" \
  "$(q $PC -c "SET jldp_test.fail_point = 'prepared'" -c "CALL jl_release_distributed('raw', 'sk3', 1.0, jl_sketch(k => 4), key => 'shared')" 2>&1 | grep -c 'a failure after every shard prepared')" "1"
jl_check "its charges stand: coordinator, shard 1, shard 2" \
  "$(( $(charges $PC) - c0 )) $(( $(charges $PS1) - s10 )) $(( $(charges $PS2) - s20 ))" "1 1 1"
jl_check "the coordinator's charge is marked not released, and no target is left" \
  "$(q $PC -c "SELECT released FROM jl_ledger WHERE event = 'charge' ORDER BY id DESC LIMIT 1") $(q $PC -c "SELECT to_regclass('sk3') IS NULL")" "f t"

# a decision forged by hand
q $PC >/dev/null <<SQL
CREATE TABLE forged (id int, sketch float8[]) PARTITION BY RANGE (id);
CREATE TABLE forged_1 PARTITION OF forged FOR VALUES FROM (1) TO (101);
CREATE TABLE forged_2 PARTITION OF forged FOR VALUES FROM (101) TO (201);
SQL
info=$(q $PC -c "SELECT info FROM jldp_internal.jldp_release WHERE id = $rid")
forge() {   # $1: charge first (yes/no)
  q $PC 2>&1 <<SQL || true
SELECT jldp_internal.jl_distributed_begin_declared('raw', 0.5, NULL, 'laplace') AS gid \gset
$([ "$1" = yes ] && echo "SELECT jldp_internal.jl_distributed_charge_declared(:'gid') \g /dev/null")
SELECT jldp_internal.jl_distributed_decide_declared('raw', 'forged', \$j\$$info\$j\$, :'gid', '{shard1,shard2}', '{1,2}', 'x', 200);
SQL
}
jl_check "a decision without the charge made before the parts: refused" \
  "$(forge no | grep -c 'was not charged before its parts')" "1"
jl_check "a decision over a target that is not the shards' sketch tables: refused" \
  "$(forge yes | grep -c 'is not partitioned like raw over the shards')" "1"
jl_check "no registry row for the forged target" "$(q $PC -c "SELECT count(*) FROM jldp_internal.jldp_release WHERE target = 'forged'::regclass")" "0"

# 6. the shards' refusals, before any charge
c0=$(charges $PC); s10=$(charges $PS1); s20=$(charges $PS2)
q $PS2 -c "SELECT d FROM jl_protect('raw', 'id', ARRAY[jl_numeric('age', 18, 95), jl_category('seg', '{a,b,c}')], epsilon_cap => 0.5)" >/dev/null
jl_check "a shard whose cap the release exceeds: refused (53400)" \
  "$(call_state "CALL jl_release_distributed('raw', 'sk4', 0.4, jl_sketch(k => 4), key => 'shared')" | grep -c 'would be exceeded')" "1"
jl_check "  nothing charged anywhere: coordinator, shard 1, shard 2" \
  "$(( $(charges $PC) - c0 )) $(( $(charges $PS1) - s10 )) $(( $(charges $PS2) - s20 ))" "0 0 0"
q $PS2 -c "SELECT jl_set_cap('raw', 10, 0)" >/dev/null
q $PS2 -c "ALTER ROLE postgres SET default_transaction_isolation = 'repeatable read'" >/dev/null
q $PC -c "CALL jl_release_distributed('raw', 'sk5', 0.1, jl_sketch(k => 4), key => 'shared')" >/dev/null 2>&1 || true
jl_check "a shard role whose default isolation is repeatable read: released" \
  "$(q $PC -c "SELECT count(*) FROM sk5")" "200"
q $PS2 -c "ALTER ROLE postgres RESET default_transaction_isolation" >/dev/null
q $PC >/dev/null <<SQL
CREATE TABLE raw_listnull (id int, age float8, seg text, secret int) PARTITION BY LIST (id);
CREATE FOREIGN TABLE raw_listnull_1 PARTITION OF raw_listnull FOR VALUES IN (1, 2, NULL) SERVER shard1 OPTIONS (table_name 'raw');
CREATE TABLE raw_expr (id int, age float8, seg text, secret int) PARTITION BY RANGE ((id + 0));
CREATE FOREIGN TABLE raw_expr_1 PARTITION OF raw_expr FOR VALUES FROM (1) TO (101) SERVER shard1 OPTIONS (table_name 'raw');
SQL
jl_check "a list partition holding the NULL unit: refused (0A000)" "$(sqlstate "$(declare_for raw_listnull)")" "0A000"
jl_check "an expression partition key: not sharded (55000), and jl_shard_bounds answers 42809, not XX000" \
  "$(sqlstate "$(declare_for raw_expr)") $(sqlstate "SELECT * FROM jldp_internal.jl_shard_bounds('raw_expr')")" "55000 42809"
jl_check "a decision on a record without a declaration: refused (22023), the release still undecided" \
  "$(q $PC 2>&1 <<'SQL' | grep -c 'has no declaration'
SELECT jldp_internal.jl_distributed_begin_declared('raw', 0.1, NULL, 'laplace') AS gid \gset
SELECT jldp_internal.jl_distributed_decide_declared('raw', 'forged', '{"epsilon": 0.1}', :'gid', '{shard1}', '{1}', 'x', 1);
SQL
)" "1"

# a partition left being detached (DETACH CONCURRENTLY cancelled)
q $PC -c "BEGIN" -c "SELECT count(*) FROM raw_2" -c "SELECT pg_sleep(4)" -c "COMMIT" >/dev/null 2>&1 &
sleep 1
q $PC -c "SET statement_timeout = '1s'" -c "ALTER TABLE raw DETACH PARTITION raw_2 CONCURRENTLY" >/dev/null 2>&1 || true
wait
jl_check "a partition being detached: refused (55000)" \
  "$(sqlstate "SELECT * FROM jldp_internal.jl_shard_bounds('raw')") $(call_state "CALL jl_release_distributed('raw', 'sk6', 0.1, jl_sketch(k => 4), key => 'shared')" | grep -c 'being detached')" "55000 1"
exit $fail
