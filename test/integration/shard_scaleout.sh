#!/usr/bin/env bash
# Scale-out over postgres_fdw (docs/design/scaleout.md) on three throwaway clusters
# of its own: a coordinator and two shards on local sockets, one master key.
#   1. The key is created on the coordinator and carried to the shards with
#      jl_key_export / jl_key_import_wrapped: the same fingerprint on all.
#   2. Each shard declares its rows (jl_protect) and releases them next to
#      the data (jl_release with jl_sketch); the coordinator's sketch table
#      is partitioned, its partitions foreign tables on the shards; a local
#      copy partitioned alike is the single-node reference.
#   3. kNN: jl_knn on the sharded table equals jl_knn on the local copy; the
#      shard sorts and limits (LIMIT in the remote SQL).
#   4. k-means: jl_kmeans_lloyd from the same starting centroids gives the
#      same centroids bit for bit; the Lloyd step is an aggregate computed by
#      the shard (postgres_fdw pushes it).  Both functions read the shards
#      asynchronously (auto_explain shows Async Foreign Scan).
#   5. An analyst mapped to a shard role with SELECT on the sketches only
#      cannot read jldp_key through a foreign table of its own; the negative
#      control, a mapping to the shard's superuser, can.
#   6. A sharded protected table (the coordinator's partitioned table of
#      foreign partitions, declared on the coordinator and on each shard with
#      the same jl_protect call) released with CALL jl_release_distributed(
#      protected, target, epsilon, jl_sketch(...), key): failures at each
#      step (injected with jldp_test.fail_point, a shard stopped, frozen or
#      failing), the resolver, name reservations, locks and timeouts, and
#      the sources it refuses.  The release's basic contract (one charge on
#      each ledger, every unit once, the record, the refusals of a
#      declaration that differs or a cap) is test/integration/shard_protected.sh's.
#      Unlike 0.3's form, the coordinator is charged after the shards'
#      checks and before any shard reads a row: a failure after that leaves
#      its charge standing, marked as not released (jl_ledger.released).
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

# one master key for the deployment
as_pg sh -c "umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > '$dir/master.key'"
for p in $PC $PS1 $PS2; do
  q $p -c "CREATE EXTENSION jldp" -c "ALTER SYSTEM SET jldp.master_key_file = '$dir/master.key'" -c "SELECT pg_reload_conf()" >/dev/null
done
sleep 0.3

# 1. the key
fp=$(q $PC -c "SELECT jl_key_create('shared')")
blob=$(q $PC -c "SELECT jl_key_export('shared')")
for p in $PS1 $PS2; do
  jl_check "shard on port $p: the imported key has the coordinator's fingerprint" \
    "$(q $p -c "SELECT jl_key_import_wrapped('shared', '$blob')")" "$fp"
done
jl_check "all three servers: one master key id" \
  "$(for p in $PC $PS1 $PS2; do q $p -c "SELECT jl_master_key_id()"; done | sort -u | wc -l)" "1"

# 2. rows on the shards, declared and released where they live: x is six
# values in [0, 10] (weight 10: the encoding is x itself), attribute
# neighbours, one declaration on every server
n_per=300
declare_for() { echo "SELECT d FROM jl_protect('$1', 'id', ARRAY[jl_vector('x', 6, 0, 10, weight => 10)], neighbor => 'attribute', epsilon_cap => 1000)"; }
for i in 1 2; do
  p=$([ $i = 1 ] && echo $PS1 || echo $PS2)
  lo=$(( (i - 1) * n_per + 1 )); hi=$(( i * n_per ))
  q $p >/dev/null <<SQL
CREATE TABLE raw AS
  SELECT g AS id, ARRAY[(g % 7) + (g % 3) * 0.5, (g % 11) * 0.3, (g % 5) * 0.7, (g % 13) * 0.2,
                        (g % 4) * 1.1, (g % 9) * 0.4]::float8[] AS x
  FROM generate_series($lo, $hi) g;
ALTER TABLE raw ADD PRIMARY KEY (id);
$(declare_for raw);
SELECT released FROM jl_release('raw', 'sk', 1.0, jl_sketch(k => 8), key => 'shared');
SQL
done
cols=$(q $PS1 -c "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum) FROM pg_attribute WHERE attrelid = 'sk'::regclass AND attnum > 0 AND NOT attisdropped")
sketch_col=$(q $PS1 -c "SELECT attname FROM pg_attribute WHERE attrelid = 'sk'::regclass AND attnum > 0 AND atttypid = 'float8[]'::regtype LIMIT 1")
id_col=$(q $PS1 -c "SELECT attname FROM pg_attribute WHERE attrelid = 'sk'::regclass AND attnum = 1")
q $PC >/dev/null <<SQL
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$dir', port '$PS1', dbname 'postgres', extensions 'jldp', async_capable 'true',
           connect_timeout '2', keepalives_idle '30', keepalives_interval '10', keepalives_count '3');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$dir', port '$PS2', dbname 'postgres', extensions 'jldp', async_capable 'true',
           connect_timeout '2', keepalives_idle '30', keepalives_interval '10', keepalives_count '3');
CREATE USER MAPPING FOR postgres SERVER shard1 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR postgres SERVER shard2 OPTIONS (user 'postgres');
CREATE TABLE sk ($cols) PARTITION BY RANGE ($id_col);
CREATE FOREIGN TABLE sk_1 PARTITION OF sk FOR VALUES FROM (1) TO ($(( n_per + 1 )))
  SERVER shard1 OPTIONS (table_name 'sk');
CREATE FOREIGN TABLE sk_2 PARTITION OF sk FOR VALUES FROM ($(( n_per + 1 ))) TO ($(( 2 * n_per + 1 )))
  SERVER shard2 OPTIONS (table_name 'sk');
-- the single-node reference: the same rows in the same order, local partitions
CREATE TABLE sk_local ($cols) PARTITION BY RANGE ($id_col);
CREATE TABLE sk_local_1 PARTITION OF sk_local FOR VALUES FROM (1) TO ($(( n_per + 1 )));
CREATE TABLE sk_local_2 PARTITION OF sk_local FOR VALUES FROM ($(( n_per + 1 ))) TO ($(( 2 * n_per + 1 )));
INSERT INTO sk_local_1 SELECT * FROM sk_1;
INSERT INTO sk_local_2 SELECT * FROM sk_2;
SQL
jl_check "the sharded table holds both shards' sketches" "$(q $PC -c "SELECT count(*) FROM sk")" "$(( 2 * n_per ))"

# 3. kNN
qv=$(q $PC -c "SELECT $sketch_col::text FROM sk WHERE $id_col = 17")
knn() { q $PC -c "SELECT string_agg(id || ':' || dist, ' ') FROM jl_knn('$1', '$id_col', '$sketch_col', '$qv', 10)"; }
dist_knn=$(knn sk)
jl_check "distributed kNN equals single-node kNN (10 ids and distances)" "$dist_knn" "$(knn sk_local)"
jl_check "the nearest row is the query's own" "${dist_knn%%:*}" "17"
remote=$(q $PC -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT $id_col::bigint, jl_recover_dist($sketch_col, '$qv', 0) FROM sk_1 ORDER BY 2, 1 LIMIT 10" | grep "Remote SQL")
jl_check "kNN: the shard sorts and limits (remote SQL ends in LIMIT 10)" "$(echo "$remote" | grep -c 'ORDER BY .* LIMIT 10')" "1"

# 3b. option words: enum constants are sent to the shard; a word computed
# from text at run time (a collatable text value cast to the enum, which
# postgres_fdw cannot show to be the same on the shard) is not.  Since
# 0.5.0 (no text overloads) a bare literal is an enum constant too.
pushed() { q $PC -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT $id_col FROM sk_1 WHERE $1 < 1e6" | grep "Remote SQL" | grep -c "$2"; }
jl_check "a standard error with enum option words is computed by the shard (a condition on it is in the remote SQL)" \
  "$(pushed "jl_recover_dist_stddev($sketch_col, '$qv', 0.5, 'gaussian'::jl_noise, 'identity'::jl_kind)" "jl_recover_dist_stddev(")" "1"
jl_check "and with bare literal option words (typed by the enum parameters), too" \
  "$(pushed "jl_recover_dist_stddev($sketch_col, '$qv', 0.5, 'gaussian', 'identity')" "jl_recover_dist_stddev(")" "1"
jl_check "negative control: with option words cast from text values it is not" \
  "$(pushed "jl_recover_dist_stddev($sketch_col, '$qv', 0.5, ('gauss' || 'ian')::jl_noise, ('ident' || 'ity')::jl_kind)" "jl_recover_dist_stddev(")" "0"
se_list() { q $PC -c "SELECT md5(string_agg(x::text, ',' ORDER BY i)) FROM (SELECT $id_col AS i, $1 AS x FROM sk_1) s"; }
jl_check "the shard's results equal the coordinator's" \
  "$(se_list "jl_recover_dist_stddev($sketch_col, '$qv', 0.5, 'gaussian'::jl_noise, 'identity'::jl_kind)")" \
  "$(se_list "jl_recover_dist_stddev($sketch_col, '$qv', 0.5, ('gauss' || 'ian')::jl_noise, ('ident' || 'ity')::jl_kind)")"

# 4. k-means from the same starting centroids
c0=$(q $PC -c "SELECT array_agg($sketch_col ORDER BY $id_col)::text FROM sk WHERE $id_col IN (3, 101, 250, 420, 555)")
km() { q $PC -c "SELECT jl_kmeans_lloyd('$1', '$sketch_col', '$c0', 100)::text"; }
dist_km=$(km sk)
jl_check "distributed k-means equals single-node k-means bit for bit" "$dist_km" "$(km sk_local)"
jl_check "k-means moved the centroids" "$([ "$dist_km" != "$c0" ] && echo moved)" "moved"
agg=$(q $PC -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT jl_lloyd_step($sketch_col, '$c0') FROM sk_1")
jl_check "the Lloyd step is computed by the shard (an aggregate in the remote SQL)" \
  "$(echo "$agg" | grep -c 'Remote SQL: SELECT jldp.jl_lloyd_step(')" "1"

# 4b. the shards answer at the same time: the plans of jl_knn's and
# jl_kmeans_lloyd's queries (auto_explain in the coordinator's log) read
# both foreign partitions asynchronously
log="$dir/coord.log"
before=$(grep -c "Async Foreign Scan" "$log" || true)
q $PC -c "LOAD 'auto_explain'" -c "SET auto_explain.log_min_duration = 0" \
  -c "SET auto_explain.log_nested_statements = on" \
  -c "SELECT count(*) FROM jl_knn('sk', '$id_col', '$sketch_col', '$qv', 10)" >/dev/null
sleep 0.2
knn_async=$(( $(grep -c "Async Foreign Scan" "$log" || true) - before ))
before=$(grep -c "Async Foreign Scan" "$log" || true)
q $PC -c "LOAD 'auto_explain'" -c "SET auto_explain.log_min_duration = 0" \
  -c "SET auto_explain.log_nested_statements = on" \
  -c "SELECT cardinality(jl_kmeans_lloyd('sk', '$sketch_col', '$c0', 1))" >/dev/null
sleep 0.2
km_async=$(( $(grep -c "Async Foreign Scan" "$log" || true) - before ))
jl_check "kNN: both shards are read asynchronously (Async Foreign Scan in the plan)" "$knn_async" "2"
jl_check "k-means: both shards compute their step asynchronously (Async Foreign Scan in the plan)" "$km_async" "2"

# 5. analysts and curators on the shards
q $PS1 >/dev/null <<'SQL'
CREATE ROLE shard_analyst LOGIN;
GRANT SELECT ON sk TO shard_analyst;
SQL
q $PC >/dev/null <<'SQL'
CREATE ROLE analyst LOGIN;
GRANT USAGE ON FOREIGN SERVER shard1 TO analyst;
GRANT CREATE ON SCHEMA public TO analyst;
-- trust authentication in this test: a password is not required
CREATE USER MAPPING FOR analyst SERVER shard1 OPTIONS (user 'shard_analyst', password_required 'false');
SQL
q $PC -c "SET ROLE analyst" -c "CREATE FOREIGN TABLE stolen (name text, secret bytea) SERVER shard1 OPTIONS (schema_name 'jldp_internal', table_name 'jldp_key')" >/dev/null
jl_check "an analyst mapped to a shard role with SELECT on the sketches only cannot read jldp_key" \
  "$(err q $PC -c "SET ROLE analyst" -c "SELECT secret FROM stolen")" "permission denied for schema jldp_internal"
jl_check "the analyst reads the sketches" "$(q $PC -c "SET ROLE analyst" -c "CREATE FOREIGN TABLE sk_a (id bigint) SERVER shard1 OPTIONS (table_name 'sk')" -c "SELECT count(*) FROM sk_a")" "$n_per"
q $PC -c "ALTER USER MAPPING FOR analyst SERVER shard1 OPTIONS (SET user 'postgres')" >/dev/null
jl_check "negative control: mapped to the shard's superuser, the analyst reads the (encrypted) secret" \
  "$(q $PC -c "SET ROLE analyst" -c "SELECT length(secret) FROM stolen")" "77"

# 6. a release over the shards under one charge of the coordinator
# (jl_release_distributed of a sharded protected table, two-phase commit),
# and its failures.  The coordinator declares its partitioned table with
# the shards' jl_protect call.
q $PC >/dev/null <<SQL
CREATE EXTENSION dblink;
CREATE TABLE raw (id int, x float8[]) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE raw_1 PARTITION OF raw FOR VALUES FROM (1) TO ($(( n_per + 1 )))
  SERVER shard1 OPTIONS (table_name 'raw');
CREATE FOREIGN TABLE raw_2 PARTITION OF raw FOR VALUES FROM ($(( n_per + 1 ))) TO ($(( 2 * n_per + 1 )))
  SERVER shard2 OPTIONS (table_name 'raw');
$(declare_for raw);
SQL
charges() { q $1 -c "SELECT count(*) FROM jl_ledger WHERE event = 'charge'"; }
prepared() { q $1 -c "SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE 'jldp%'"; }
state() {  # coordinator charges, shard charges, prepared parts, target tables
  echo "$(charges $PC) $(charges $PS1) $(charges $PS2) $(prepared $PS1)$(prepared $PS2)" \
       "$(q $PC -c "SELECT to_regclass('$1') IS NOT NULL")$(q $PS1 -c "SELECT to_regclass('$1') IS NOT NULL")$(q $PS2 -c "SELECT to_regclass('$1') IS NOT NULL")"
}
# CALL jl_release_distributed of source $1 into target $2 (relp), of raw (rel)
relp() { echo "CALL jl_release_distributed('$1', '$2', 1.0, jl_sketch(k => 8), key => 'shared')"; }
rel() { relp raw "$1"; }
# the newest charge on the coordinator: its dataset, epsilon and whether a release recorded it
last_charge() { q $PC -c "SELECT dataset || ' ' || epsilon || ' ' || released FROM jl_ledger WHERE event = 'charge' ORDER BY id DESC LIMIT 1"; }
read -r c0 s10 s20 _ _ <<<"$(state dsk)"

# 6a. success: one coordinator charge, one on each shard, nothing left
# prepared (every unit once, the record's rows and guarantee and the
# decision's commit are checked by test/integration/shard_protected.sh)
rid=$(q $PC -c "$(rel dsk)")
jl_check "distributed release: exactly one coordinator charge, one on each shard's ledger, nothing left prepared" \
  "$(state dsk)" "$(( c0 + 1 )) $(( s10 + 1 )) $(( s20 + 1 )) 00 ttt"
jl_check "the coordinator's charge: epsilon 1 to the sharded table's dataset, released" \
  "$(last_charge)" "public.raw 1 true"
jl_check "jl_releases on the coordinator records the partitioned target (k, rows, shards)" \
  "$(q $PC -c "SELECT id || ' ' || k || ' ' || (info->>'rows') || ' ' || jsonb_array_length(info->'distributed'->'servers') FROM jl_releases WHERE target = 'dsk'::regclass")" \
  "$rid 8 $(( 2 * n_per )) 2"
jl_check "the coordinator's record has the shards' noise variance" \
  "$(q $PC -c "SELECT noise_variance FROM jl_releases WHERE target = 'dsk'::regclass")" \
  "$(q $PS1 -c "SELECT noise_variance FROM jl_releases WHERE target = 'dsk'::regclass")"
jl_check "recovery by the registry of the partitioned target equals recovery by the noise variance" \
  "$(q $PC -c "SELECT jl_recover_dist(a.sketch, b.sketch, 'dsk'::regclass) = jl_recover_dist(a.sketch, b.sketch, r.noise_variance) FROM dsk a, dsk b, jl_releases r WHERE a.id = 3 AND b.id = $(( n_per + 5 )) AND r.target = 'dsk'::regclass")" "t"

# 6b. a target that exists on a shard: refused before any shard releases
q $PS2 -c "CREATE TABLE dsk2 (id int)" >/dev/null
read -r c0 s10 s20 _ _ <<<"$(state dsk2)"
jl_check "a target existing on a shard: refused before anything is released" \
  "$(err q $PC -c "$(rel dsk2)")" 'jl_release_distributed: relation "dsk2" already exists on shard shard2'
jl_check "  nothing charged, prepared or released" "$(state dsk2)" "$c0 $s10 $s20 00 fft"

# 6b'. a failure after the first shard prepared: the second shard's part
# fails when it creates its target (an event trigger there, after the
# part's charge; 0.3's test used a row that is not finite, which the
# declaration now reads as clamped).  Nothing released anywhere; every
# charge stands (each shard's committed before it read a row, the
# coordinator's before the parts), the coordinator's marked not released
q $PS2 >/dev/null <<'SQL'
CREATE FUNCTION fail_dsk2b() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT FROM pg_event_trigger_ddl_commands() c JOIN pg_class r ON r.oid = c.objid
              WHERE c.object_type = 'table' AND r.relname = 'dsk2b' AND r.relnatts > 0) THEN
    RAISE EXCEPTION 'shard 2 cannot create dsk2b';
  END IF;
END $$;
CREATE EVENT TRIGGER fail_dsk2b ON ddl_command_end WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION fail_dsk2b();
SQL
read -r c0 s10 s20 _ _ <<<"$(state dsk2b)"
jl_check "a shard failing after another prepared: the release is refused with the shard's error" \
  "$(err q $PC -c "$(rel dsk2b)" | grep -c "shard 2 cannot create dsk2b")" "1"
jl_check "  nothing prepared or released, every charge stands (coordinator, shard 1, shard 2)" \
  "$(state dsk2b)" "$(( c0 + 1 )) $(( s10 + 1 )) $(( s20 + 1 )) 00 fff"
jl_check "  the coordinator's charge is marked not released" "$(last_charge)" "public.raw 1 false"
q $PS2 -c "DROP EVENT TRIGGER fail_dsk2b" -c "DROP FUNCTION fail_dsk2b()" >/dev/null

# 6c. a shard stopped in the middle of its release: its table is locked, so
# the release waits on it (reading the shard's declaration, which locks
# the declared table, before anything is charged); the shard stops.  Every
# shard's checks come before the coordinator's charge and any part:
# nothing is charged anywhere
read -r c0 s10 s20 _ _ <<<"$(state dsk3)"
( q $PS2 -c "BEGIN" -c "LOCK TABLE raw IN ACCESS EXCLUSIVE MODE" -c "SELECT pg_sleep(60)" >/dev/null 2>&1 || true ) &
locker=$!
sleep 0.5
( err q $PC -c "$(rel dsk3)" > "$dir/dsk3.err" ) &
caller=$!
waited=0
for _ in $(seq 1 100); do
  [ "$(q $PS2 -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND (query LIKE '%jl_declaration_info%' OR query LIKE '%jl_release_part%')")" = 1 ] && waited=1 && break
  sleep 0.1
done
as_pg "$PGBIN/pg_ctl" -D "$dir/shard2" -m immediate stop >/dev/null
wait $caller || true
wait $locker || true
jl_check "a shard stopped mid-release (the release waiting for its table): the release is refused (the connection to the shard is lost)" \
  "$waited $(grep -ci "connection\|terminat\|server closed" "$dir/dsk3.err")" "1 1"
as_pg "$PGBIN/pg_ctl" -D "$dir/shard2" -l "$dir/shard2.log" -w \
  -o "-p $PS2 -k $dir -c listen_addresses='' -c fsync=off $opts" start >/dev/null
jl_check "  after the shard's restart: nothing prepared or released, nothing charged anywhere (the stopped shard waited for its table before any charge)" \
  "$(state dsk3)" "$c0 $s10 $s20 00 fff"

# 6c'. a shard stopped in the middle of its part, after every charge: shard
# 2's part is held in its target's creation (an event trigger sleeps there)
# while shard 1's part has prepared; the shard stops; shard 1's part is
# rolled back.  Every charge stands, the coordinator's marked not released
q $PS2 >/dev/null <<'SQL'
CREATE FUNCTION slow_dsk3b() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT FROM pg_event_trigger_ddl_commands() c JOIN pg_class r ON r.oid = c.objid
              WHERE c.object_type = 'table' AND r.relname = 'dsk3b' AND r.relnatts > 0) THEN
    PERFORM pg_sleep(60);
  END IF;
END $$;
CREATE EVENT TRIGGER slow_dsk3b ON ddl_command_end WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION slow_dsk3b();
SQL
read -r c0 s10 s20 _ _ <<<"$(state dsk3b)"
( err q $PC -c "$(rel dsk3b)" > "$dir/dsk3b.err" ) &
caller=$!
waited=0
for _ in $(seq 1 100); do
  [ "$(q $PS2 -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query LIKE '%jl_release_part(%'")$(prepared $PS1)" = 11 ] && waited=1 && break
  sleep 0.1
done
as_pg "$PGBIN/pg_ctl" -D "$dir/shard2" -m immediate stop >/dev/null
wait $caller || true
jl_check "a shard stopped in its part (shard 1's part prepared): the release is refused (the connection to the shard is lost)" \
  "$waited $(grep -ci "connection\|terminat\|server closed" "$dir/dsk3b.err")" "1 1"
as_pg "$PGBIN/pg_ctl" -D "$dir/shard2" -l "$dir/shard2.log" -w \
  -o "-p $PS2 -k $dir -c listen_addresses='' -c fsync=off $opts" start >/dev/null
q $PS2 -c "DROP EVENT TRIGGER slow_dsk3b" -c "DROP FUNCTION slow_dsk3b()" >/dev/null
jl_check "  after the shard's restart: nothing prepared or released, every charge stands (coordinator, shard 1, shard 2)" \
  "$(state dsk3b)" "$(( c0 + 1 )) $(( s10 + 1 )) $(( s20 + 1 )) 00 fff"
jl_check "  the coordinator's charge is marked not released" "$(last_charge)" "public.raw 1 false"

# 6d. a failure after the coordinator decided, before the shards committed
# (the coordinator's session ends there): in doubt until resolved
read -r c0 s10 s20 _ _ <<<"$(state dsk4)"
jl_check "a failure after the decision: the call reports it" \
  "$(PGOPTIONS="$PGOPTIONS -c jldp_test.fail_point=commit" err q $PC -c "$(rel dsk4)")" \
  "jldp_test.fail_point: a failure after the decision, before the shards commit"
jl_check "  in doubt: the coordinator charged and its table made, each shard's part prepared, not visible" \
  "$(state dsk4)" "$(( c0 + 1 )) $(( s10 + 1 )) $(( s20 + 1 )) 11 tff"
jl_check "  jl_distributed_resolve commits both parts and records the release as committed" \
  "$(q $PC -c "SELECT string_agg(coalesce(server, '-') || ': ' || split_part(action, ' ', 1), ', ' ORDER BY server NULLS LAST) FROM jl_distributed_resolve()")" \
  "shard1: committed, shard2: committed, -: recorded"
jl_check "  after resolving: every row released once, nothing prepared" \
  "$(q $PC -c "SELECT count(*) FROM dsk4")$(prepared $PS1)$(prepared $PS2)" "$(( 2 * n_per ))00"

# 6e. a failure before the decision commits: every part rolled back; the
# charges stand, the coordinator's (made before the parts) marked not
# released
read -r c0 s10 s20 _ _ <<<"$(state dsk5)"
jl_check "a failure before the decision: refused" \
  "$(PGOPTIONS="$PGOPTIONS -c jldp_test.fail_point=decide" err q $PC -c "$(rel dsk5)")" \
  "jldp_test.fail_point: a failure before the decision commits"
jl_check "  nothing prepared or released, every charge stands" \
  "$(state dsk5)" "$(( c0 + 1 )) $(( s10 + 1 )) $(( s20 + 1 )) 00 fff"
jl_check "  the coordinator's charge is marked not released" "$(last_charge)" "public.raw 1 false"

# 6f. the resolver: a part without a decision whose release is over is
# rolled back; one whose release is still running (its lock held) is left
q $PS1 -c "BEGIN" -c "CREATE TABLE orphan (i int)" -c "PREPARE TRANSACTION 'jldp_0000000000000000000000000000dead_1'" >/dev/null
q $PS1 -c "BEGIN" -c "CREATE TABLE running (i int)" -c "PREPARE TRANSACTION 'jldp_0000000000000000000000000000beef_1'" >/dev/null
( q $PC -c "SELECT pg_advisory_lock(1785488496, hashtext('jldp_0000000000000000000000000000beef'))" -c "SELECT pg_sleep(5)" >/dev/null 2>&1 || true ) &
holder=$!
sleep 0.5
jl_check "the resolver rolls back an undecided part and leaves a running release's part alone" \
  "$(q $PC -c "SELECT string_agg(gid || ': ' || split_part(action, ' ', 1) || ' ' || split_part(action, ' ', 2), ', ' ORDER BY gid) FROM jl_distributed_resolve()")" \
  "jldp_0000000000000000000000000000beef_1: left alone, jldp_0000000000000000000000000000dead_1: rolled back"
wait $holder || true
jl_check "  once that session ended, the resolver rolls it back too" \
  "$(q $PC -c "SELECT string_agg(gid || ': ' || split_part(action, ' ', 1), ', ') FROM jl_distributed_resolve()")$(prepared $PS1)" \
  "jldp_0000000000000000000000000000beef_1: rolled0"

# 6g. refusals before anything is released
q $PC -c "CREATE TABLE raw_flat (id int PRIMARY KEY, x float8[])" -c "$(declare_for raw_flat)" >/dev/null
jl_check "a table that is not partitioned is refused" \
  "$(err q $PC -c "$(relp raw_flat dskx)")" \
  "jl_release_distributed: public.raw_flat is not a partitioned table"
read -r c0 s10 s20 _ _ <<<"$(state dsk7)"
jl_check "a CALL inside a transaction block is refused before any shard releases" \
  "$(err q $PC -c "BEGIN" -c "$(rel dsk7)")" "jl_release_distributed cannot run inside a transaction block"
jl_check "  nothing charged, prepared or released" "$(state dsk7)" "$c0 $s10 $s20 00 fff"
# (the coordinator's cap checked before any shard releases: test/integration/shard_protected.sh)
jl_check "a session cannot decide a release it did not begin (a gid read from pg_prepared_xacts)" \
  "$(err q $PC -c "SELECT jldp_internal.jl_distributed_decide_declared('raw', 'dsk', info, 'jldp_0000000000000000000000000000dead', '{shard1}', '{1}', 'x', 1) FROM jldp_internal.jldp_release WHERE target = 'dsk'::regclass")" \
  'distributed release "jldp_0000000000000000000000000000dead" was not begun by this session'
q $PC >/dev/null <<'SQL'
CREATE ROLE other LOGIN;
-- a curator: jl_distributed_committed is a curator's internal step
GRANT jldp_curator TO other;
SQL
jl_check "another role cannot mark a release as committed" \
  "$(err q $PC -c "SET ROLE other" -c "SELECT jldp_internal.jl_distributed_committed('$(q $PC -c "SELECT gid FROM jl_distributed_releases WHERE target = 'dsk4'::regclass")')" | cut -d' ' -f1-3)" \
  'only role "postgres"'
# an operator ->> of the caller's that under-reports the shards' epsilon
# cannot lower the coordinator's charge
q $PC >/dev/null <<'SQL'
CREATE SCHEMA evil;
CREATE FUNCTION evil.arrow(j jsonb, k text) RETURNS text LANGUAGE sql
  AS $$ SELECT CASE WHEN k = 'epsilon' AND j ? 'distributed' THEN '1e-9' ELSE pg_catalog.jsonb_object_field_text(j, k) END $$;
CREATE OPERATOR evil.->> (LEFTARG = jsonb, RIGHTARG = text, FUNCTION = evil.arrow);
SQL
PGOPTIONS="-c search_path=public,jldp,evil,pg_catalog" q $PC -c "$(rel dsk8)" >/dev/null 2>&1 || true
jl_check "the caller's own ->> operator does not change the coordinator's charge (epsilon 1 or refused)" \
  "$(q $PC -c "SELECT count(*) FROM jl_ledger WHERE event = 'charge' AND dataset = 'public.raw' AND epsilon <> 1")" "0"
jl_check "the resolver refuses a snapshot that would not see new decisions (repeatable read)" \
  "$(err q $PC -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SELECT * FROM jl_distributed_resolve()")" \
  "jl_distributed_resolve runs only at isolation level read committed"
q $PC >/dev/null <<'SQL'
CREATE FUNCTION call_release() RETURNS void LANGUAGE plpgsql AS $$
DECLARE r bigint;
BEGIN CALL jl_release_distributed('raw', 'dsk9', 1.0, jl_sketch(k => 8), key => 'shared', release_id => r); END $$;
SQL
read -r c0 s10 s20 _ _ <<<"$(state dsk9)"
jl_check "a CALL from a function (where it cannot commit) is refused before any shard releases" \
  "$(err q $PC -c "SELECT call_release()")" "invalid transaction termination"
jl_check "  nothing charged, prepared or released" "$(state dsk9)" "$c0 $s10 $s20 00 fff"
# operators planted in a schema on everyone's search_path (public, where the
# README lets curators create objects) are not called by the release or the
# resolver, on the coordinator or on a shard
for p in $PC $PS1; do
  q $p >/dev/null <<'SQL'
CREATE TABLE planted_calls (at timestamptz);
GRANT INSERT ON planted_calls TO PUBLIC;
CREATE FUNCTION public.planted(a text, b integer) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.planted_calls VALUES (now()); RETURN a || b::text; END $$;
CREATE OPERATOR public.|| (LEFTARG = text, RIGHTARG = integer, FUNCTION = public.planted);
SQL
done
q $PC -c "$(rel dsk10)" -c "SELECT count(*) FROM jl_distributed_resolve()" >/dev/null
jl_check "operators planted in public are not called (coordinator, shard)" \
  "$(q $PC -c "SELECT count(*) FROM planted_calls")$(q $PS1 -c "SELECT count(*) FROM planted_calls")" "00"
jl_check "  and the release went through" "$(q $PC -c "SELECT count(*) FROM dsk10")" "$(( 2 * n_per ))"
jl_check "  negative control: an unqualified text || integer in a session does call it" \
  "$(q $PC -c "SELECT 'x' || 1" >/dev/null; q $PC -c "SELECT count(*) FROM planted_calls")" "1"
# 6h. the decision is durable before any shard commits, whatever the
# caller's synchronous_commit (any role may turn it off for itself): the
# coordinator restarted with a WAL writer delay of 10 s, a CALL with
# synchronous_commit off, then an immediate stop of the coordinator as soon
# as the CALL returns.  The shards' parts are committed; the coordinator
# must still hold its charge, the registry row and the decision.
coord_opts="-p $PC -k $dir -c listen_addresses='' -c fsync=off $opts"
as_pg "$PGBIN/pg_ctl" -D "$dir/coord" -l "$dir/coord.log" -w -m fast \
  -o "$coord_opts -c wal_writer_delay=10000ms" restart >/dev/null
read -r c0 s10 s20 _ _ <<<"$(state dsk11)"
PGOPTIONS="$PGOPTIONS -c synchronous_commit=off" q $PC -c "$(rel dsk11)" >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$dir/coord" -m immediate stop >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$dir/coord" -l "$dir/coord.log" -w -o "$coord_opts" start >/dev/null
jl_check "synchronous_commit off, the coordinator stopped at once after the CALL: its charge and both shards' parts stand" \
  "$(state dsk11)" "$(( c0 + 1 )) $(( s10 + 1 )) $(( s20 + 1 )) 00 ttt"
jl_check "  the registry row and the decision stand" \
  "$(q $PC -c "SELECT count(*) FROM jl_releases WHERE target = to_regclass('dsk11')")" "1"

# 6i. a cancel (statement_timeout) after every shard prepared cleans up as an
# error does: PL/pgSQL's WHEN OTHERS does not catch query_canceled, and
# 0.3.3 left the parts prepared, the shards' sessions open and the
# session's advisory lock held (the resolver then left the parts alone)
read -r c0 s10 s20 _ _ <<<"$(state dsk12)"
out=$(q $PC -v ON_ERROR_STOP=0 2>&1 <<'SQL' || true
SET jldp_test.fail_point = 'prepared_wait';
SET statement_timeout = '2s';
CALL jl_release_distributed('raw', 'dsk12', 1.0, jl_sketch(k => 8), key => 'shared');
RESET statement_timeout;
SELECT 'locks ' || count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
SQL
)
jl_check "a release cancelled after every shard prepared: cancelled" \
  "$(echo "$out" | grep -c 'canceling statement due to statement timeout')" "1"
jl_check "  the session holds no advisory lock afterwards" "$(echo "$out" | sed -n 's/^locks //p')" "0"
sleep 0.5
jl_check "  every charge stands (the coordinator's made before the parts), nothing left prepared, no target anywhere" \
  "$(state dsk12)" "$(( c0 + 1 )) $(( s10 + 1 )) $(( s20 + 1 )) 00 fff"
jl_check "  the coordinator's charge is marked not released" "$(last_charge)" "public.raw 1 false"
jl_check "  no shard session left open in a transaction" \
  "$(q $PS1 -c "SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'")$(q $PS2 -c "SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'")" "00"

# 6j. two foreign servers pointing at one shard database, a partition on
# each reading the same remote table: every row would be released twice
# under the coordinator's one charge (0.3.3 released 600 rows of 300 ids);
# refused before any shard charges
q $PC >/dev/null <<SQL
CREATE SERVER shard1_again FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$dir', port '$PS1', dbname 'postgres', extensions 'jldp', async_capable 'true', connect_timeout '2');
CREATE USER MAPPING FOR postgres SERVER shard1_again OPTIONS (user 'postgres');
CREATE TABLE raw_twice (id int, x float8[]) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE raw_twice_1 PARTITION OF raw_twice FOR VALUES FROM (1) TO ($(( n_per + 1 )))
  SERVER shard1 OPTIONS (table_name 'raw');
CREATE FOREIGN TABLE raw_twice_2 PARTITION OF raw_twice FOR VALUES FROM ($(( n_per + 1 ))) TO ($(( 2 * n_per + 1 )))
  SERVER shard1_again OPTIONS (table_name 'raw');
$(declare_for raw_twice);
SQL
read -r c0 s10 s20 _ _ <<<"$(state dsk13)"
jl_check "two partitions reading one remote table are refused" \
  "$(err q $PC -c "$(relp raw_twice dsk13)")" \
  "jl_release_distributed: two partitions of public.raw_twice read the same table on one database"
jl_check "  before any shard charged or released" "$(state dsk13)" "$c0 $s10 $s20 00 fff"

# 6l. another coordinator database on the same cluster, with servers on the
# same shards, runs its resolver while a release of the first has both parts
# prepared: it must leave them alone (0.3.3 rolled them back: advisory
# locks are per database and every jldp_ transaction was taken as its own)
q $PC -c "CREATE DATABASE coord2" >/dev/null
q2() { as_pg psql -qXAt -v ON_ERROR_STOP=1 -h "$dir" -p "$PC" -U postgres -d coord2 "$@"; }
q2 >/dev/null <<SQL
CREATE EXTENSION jldp;
CREATE EXTENSION dblink;
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$dir', port '$PS1', dbname 'postgres', connect_timeout '2');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$dir', port '$PS2', dbname 'postgres', connect_timeout '2');
CREATE USER MAPPING FOR postgres SERVER shard1 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR postgres SERVER shard2 OPTIONS (user 'postgres');
SQL
( q $PC -c "SET jldp_test.fail_point = 'prepared_wait'" -c "SET jldp_test.wait_seconds = '4'" \
    -c "$(rel dsk15)" > "$dir/dsk15.out" 2>&1 || true ) &
rpid=$!
for _ in $(seq 1 100); do
  [ "$(prepared $PS1)$(prepared $PS2)" = 11 ] && break
  sleep 0.1
done
resolved=$(q2 -c "SELECT count(*) FROM jl_distributed_resolve() WHERE action NOT LIKE 'left alone%'")
wait $rpid
jl_check "another database's resolver during a release with both parts prepared: touches none of them" "$resolved" "0"
jl_check "  and the release completes with every row" \
  "$(q $PC -c "SELECT count(*) FROM dsk15")$(prepared $PS1)$(prepared $PS2)" "$(( 2 * n_per ))00"

# 6m. two partitions on one shard database (two servers, two remote
# tables): both parts would create the target in one schema there, and
# 0.3.3 hung (the second part waited for the first one's prepared
# transaction, forever without a statement_timeout).  Refused before any
# shard charges.
q $PS1 -c "CREATE TABLE raw_b AS SELECT * FROM raw" -c "ALTER TABLE raw_b ADD PRIMARY KEY (id)" -c "$(declare_for raw_b)" >/dev/null
q $PS2 -c "CREATE TABLE raw_b AS SELECT * FROM raw" -c "ALTER TABLE raw_b ADD PRIMARY KEY (id)" -c "$(declare_for raw_b)" >/dev/null
q $PC >/dev/null <<SQL
CREATE TABLE raw_same (id int, x float8[]) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE raw_same_1 PARTITION OF raw_same FOR VALUES FROM (1) TO ($(( n_per + 1 )))
  SERVER shard1 OPTIONS (table_name 'raw');
CREATE FOREIGN TABLE raw_same_2 PARTITION OF raw_same FOR VALUES FROM ($(( n_per + 1 ))) TO ($(( 2 * n_per + 1 )))
  SERVER shard1_again OPTIONS (table_name 'raw_b');
$(declare_for raw_same);
SQL
read -r c0 s10 s20 _ _ <<<"$(state dsk16)"
t0=$(date +%s.%N)
out=$(err q $PC -c "SET statement_timeout = '20s'" -c "$(relp raw_same dsk16)")
t1=$(date +%s.%N)
jl_check "two partitions on one shard database are refused (their parts would create one table)" \
  "$out" "jl_release_distributed: two partitions of public.raw_same are on one database"
jl_check "  at once ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s), before any shard charged or released" \
  "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a < 5) }') $(state dsk16)" "1 $c0 $s10 $s20 00 fff"

# a server without connect_timeout: a frozen shard would hold the release
# past every timeout while connecting (6k); refused before anything
q $PC -c "ALTER SERVER shard1_again OPTIONS (DROP connect_timeout)" >/dev/null
jl_check "a partition's server without connect_timeout: refused before anything" \
  "$(err q $PC -c "$(relp raw_same dsk16)") $(state dsk16)" \
  "jl_release_distributed: foreign server \"shard1_again\" sets no connect_timeout of 1 to 300 seconds $c0 $s10 $s20 00 fff"
q $PC -c "ALTER SERVER shard1_again OPTIONS (ADD connect_timeout '2')" >/dev/null

# 6n. jl_release into the target's name on a shard, in a transaction
# still open: 0.3.3's distributed release charged both shards, then waited
# for that transaction and failed with a raw duplicate key error.  The name
# is reserved on every shard before any shard charges, with a bounded wait
# (the caller's lock_timeout; 10 s without one).
( q $PS2 -c "BEGIN" -c "SELECT released FROM jl_release('raw_b', 'dsk17', 1.0, jl_sketch(k => 8), key => 'shared')" \
     -c "SELECT pg_sleep(6)" -c "COMMIT" >/dev/null 2>&1 || true ) &
holder=$!
for _ in $(seq 1 100); do
  [ "$(q $PS2 -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(6)%' AND pid <> pg_backend_pid()")" = 1 ] && break
  sleep 0.1
done
read -r c0 s10 s20 _ _ <<<"$(state dsk17)"
t0=$(date +%s.%N)
out=$(err q $PC -c "SET lock_timeout = '1s'" -c "$(rel dsk17)")
t1=$(date +%s.%N)
jl_check "a target being created on a shard by an open transaction: refused after the caller's lock_timeout" \
  "$out" 'jl_release_distributed: another transaction is creating "dsk17" on shard shard2'
jl_check "  within $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, before any shard charged; nothing prepared" \
  "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a < 4) }') $(charges $PC) $(charges $PS1) $(charges $PS2) $(prepared $PS1)$(prepared $PS2)" \
  "1 $c0 $s10 $s20 00"
wait $holder

# 6o. two distributed releases into one target name from two sources on the
# same shards: the second starts while the first's parts are prepared.
# 0.3.3 charged the second's shards, which then failed on the first's
# table; the names are reserved first (on the coordinator, then on the
# shards in one order for every release, so that no two releases wait on
# each other), and the second is refused before any charge.
q $PC >/dev/null <<SQL
CREATE TABLE raw_other (id int, x float8[]) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE raw_other_1 PARTITION OF raw_other FOR VALUES FROM (1) TO ($(( n_per + 1 )))
  SERVER shard1 OPTIONS (table_name 'raw_b');
CREATE FOREIGN TABLE raw_other_2 PARTITION OF raw_other FOR VALUES FROM ($(( n_per + 1 ))) TO ($(( 2 * n_per + 1 )))
  SERVER shard2 OPTIONS (table_name 'raw_b');
$(declare_for raw_other);
SQL
read -r c0 s10 s20 _ _ <<<"$(state dsk18)"
( q $PC -c "SET jldp_test.fail_point = 'prepared_wait'" -c "SET jldp_test.wait_seconds = '3'" \
    -c "$(rel dsk18)" > "$dir/dsk18.out" 2>&1 || true ) &
first=$!
for _ in $(seq 1 100); do
  [ "$(prepared $PS1)$(prepared $PS2)" = 11 ] && break
  sleep 0.1
done
out=$(err q $PC -c "$(relp raw_other dsk18)")
wait $first
jl_check "a second distributed release into the name of one in progress: refused" \
  "$out" 'jl_release_distributed: relation "dsk18" already exists'
jl_check "  the first completes; only its charges are made (one on the coordinator, one on each shard)" \
  "$(q $PC -c "SELECT count(*) FROM dsk18") $(state dsk18)" "$(( 2 * n_per )) $(( c0 + 1 )) $(( s10 + 1 )) $(( s20 + 1 )) 00 ttt"

# 6p. a connect_timeout that passes for one but bounds nothing (libpq
# reads 2147483647 s): refused like none
q $PC -c "ALTER SERVER shard1_again OPTIONS (SET connect_timeout '2147483647')" >/dev/null
read -r c0 s10 s20 _ _ <<<"$(state dsk19)"
jl_check "a connect_timeout beyond 300 s is refused before anything" \
  "$(err q $PC -c "$(relp raw_same dsk19)") $(state dsk19)" \
  "jl_release_distributed: foreign server \"shard1_again\" sets no connect_timeout of 1 to 300 seconds $c0 $s10 $s20 00 fff"
q $PC -c "ALTER SERVER shard1_again OPTIONS (SET connect_timeout '2')" >/dev/null

# 6q. a partition key with an operator class of its own: the coordinator's
# target could not be partitioned alike, and 0.3.4's first fix was refused
# at its decision, after every shard charged.  (jl_protect declares it; the
# release refuses it)
q $PC >/dev/null <<SQL
CREATE FUNCTION int4_rev_cmp(int4, int4) RETURNS int4 LANGUAGE sql IMMUTABLE AS 'SELECT btint4cmp(\$2, \$1)';
CREATE OPERATOR CLASS int4_rev FOR TYPE int4 USING btree AS
  OPERATOR 1 >, OPERATOR 2 >=, OPERATOR 3 =, OPERATOR 4 <=, OPERATOR 5 <, FUNCTION 1 int4_rev_cmp(int4, int4);
CREATE TABLE raw_rev (id int, x float8[]) PARTITION BY RANGE (id int4_rev);
CREATE FOREIGN TABLE raw_rev_1 PARTITION OF raw_rev FOR VALUES FROM ($n_per) TO (0)
  SERVER shard1 OPTIONS (table_name 'raw');
CREATE FOREIGN TABLE raw_rev_2 PARTITION OF raw_rev FOR VALUES FROM ($(( 2 * n_per ))) TO ($n_per)
  SERVER shard2 OPTIONS (table_name 'raw');
SQL
q $PC -c "$(declare_for raw_rev)" >/dev/null
read -r c0 s10 s20 _ _ <<<"$(state dsk20)"
jl_check "a partition key with an operator class of its own is refused before any charge" \
  "$(err q $PC -c "$(relp raw_rev dsk20)") $(state dsk20)" \
  "jl_release_distributed: public.raw_rev must be partitioned by its id column \"id\" alone $c0 $s10 $s20 00 fff"

# 6r. two releases of one source at once with room under the coordinator's
# cap for one: the second waits for the first's decision and is refused
# before its shards charge (both passed the check at once before: every
# shard charged twice and the second was refused at its decision)
spent=$(q $PC -c "SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.raw'")
q $PC -c "SELECT jl_set_cap('raw', $spent + 1.5)" >/dev/null
read -r c0 s10 s20 _ _ <<<"$(state dsk21)"
( q $PC -c "SET jldp_test.fail_point = 'prepared_wait'" -c "SET jldp_test.wait_seconds = '2'" \
    -c "$(rel dsk21)" > "$dir/dsk21.out" 2>&1 || true ) &
first=$!
for _ in $(seq 1 100); do
  [ "$(prepared $PS1)$(prepared $PS2)" = 11 ] && break
  sleep 0.1
done
out=$(err q $PC -c "$(rel dsk22)" | grep -c "exceed" || true)
wait $first
jl_check "two releases of one source with room for one: the second is refused by the cap" "$out" "1"
jl_check "  before its shards charged: one charge on the coordinator and on each shard, the first released" \
  "$(state dsk21) $(q $PC -c "SELECT to_regclass('dsk22') IS NULL")" "$(( c0 + 1 )) $(( s10 + 1 )) $(( s20 + 1 )) 00 ttt t"
q $PC -c "SELECT jl_set_cap('raw', 1000)" >/dev/null

# 6s. the mirror of 6n: jl_release on a shard into a name a
# distributed release in progress has reserved there is refused before its
# charge (it was charged, then failed with a raw duplicate key error)
( q $PC -c "SET jldp_test.fail_point = 'prepared_wait'" -c "SET jldp_test.wait_seconds = '3'" \
    -c "$(rel dsk23)" > "$dir/dsk23.out" 2>&1 || true ) &
first=$!
for _ in $(seq 1 100); do
  [ "$(prepared $PS1)$(prepared $PS2)" = 11 ] && break
  sleep 0.1
done
s1=$(charges $PS1)
out=$(err q $PS1 -c "SET lock_timeout = '1s'" -c "SELECT released FROM jl_release('raw_b', 'dsk23', 1.0, jl_sketch(k => 8), key => 'shared')")
jl_check "a local release into a name a distributed release has reserved: refused" \
  "$out" 'another transaction is creating "dsk23"'
jl_check "  before its charge" "$(charges $PS1)" "$s1"
wait $first

# 6t. a partition on the coordinator's own database (a server pointing back
# at it): refused before any shard charges
q $PC >/dev/null <<SQL
CREATE SERVER self FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$dir', port '$PC', dbname 'postgres', connect_timeout '2');
CREATE USER MAPPING FOR postgres SERVER self OPTIONS (user 'postgres');
CREATE TABLE raw_here (id int PRIMARY KEY, x float8[]);
CREATE TABLE raw_loop (id int, x float8[]) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE raw_loop_1 PARTITION OF raw_loop FOR VALUES FROM (1) TO ($(( n_per + 1 )))
  SERVER shard1 OPTIONS (table_name 'raw');
CREATE FOREIGN TABLE raw_loop_2 PARTITION OF raw_loop FOR VALUES FROM ($(( n_per + 1 ))) TO ($(( 2 * n_per + 1 )))
  SERVER self OPTIONS (table_name 'raw_here');
$(declare_for raw_here);
$(declare_for raw_loop);
SQL
read -r c0 s10 s20 _ _ <<<"$(state dsk24)"
jl_check "a partition on the coordinator's own database is refused before any charge" \
  "$(err q $PC -c "$(relp raw_loop dsk24)") $(state dsk24)" \
  "jl_release_distributed: a partition of public.raw_loop reads the coordinator's own database $c0 $s10 $s20 00 fff"

# 6k. a shard that accepts connections but never answers (its postmaster
# stopped with SIGSTOP): with the documented connect_timeout, a new
# session's jl_knn and jl_release_distributed end within seconds instead of
# waiting for the shard (postgres_fdw's and dblink's connection setup does
# not answer a cancel); 0.3.3's recipe had no connect_timeout
frozen=$(head -1 "$dir/shard2/postmaster.pid")
kill -STOP "$frozen"
t0=$(date +%s.%N)
knn_out=$(timeout 60 psql -qXAt -h "$dir" -p "$PC" -U postgres -d postgres -c "SET statement_timeout = '3s'" \
            -c "SELECT count(*) FROM jl_knn('sk', '$id_col', '$sketch_col', '$qv', 10)" 2>&1 || true)
t1=$(date +%s.%N)
rel_out=$(timeout 60 psql -qXAt -h "$dir" -p "$PC" -U postgres -d postgres -c "SET statement_timeout = '3s'" \
            -c "$(rel dsk14)" 2>&1 || true)
t2=$(date +%s.%N)
kill -CONT "$frozen"
knn_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
rel_s=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", b - a }')
echo "     a frozen shard: jl_knn ended after ${knn_s} s, jl_release_distributed after ${rel_s} s"
jl_check "a frozen shard: jl_knn ends with an error within 10 s" \
  "$(awk -v s="$knn_s" 'BEGIN { print (s < 10) }')$(echo "$knn_out" | grep -c 'ERROR')" "11"
jl_check "  and so does jl_release_distributed" \
  "$(awk -v s="$rel_s" 'BEGIN { print (s < 10) }')$(echo "$rel_out" | grep -c 'ERROR')" "11"
q $PC -c "SELECT count(*) FROM jl_distributed_resolve()" >/dev/null

q $PS2 -c "SELECT jl_key_drop('shared')" -c "SELECT jl_key_create('shared')" >/dev/null
read -r c0 s10 s20 _ _ <<<"$(state dsk6)"
jl_check "shards holding different keys of one name are refused" \
  "$(err q $PC -c "$(rel dsk6)")" 'jl_release_distributed: the shards hold different keys named "shared"'
jl_check "  before any shard released" "$(state dsk6)" "$c0 $s10 $s20 00 fff"

[ $fail -eq 0 ] && echo "scale-out: all checks passed"
exit $fail
