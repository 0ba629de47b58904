#!/usr/bin/env bash
# Benchmark of the scale-out recipe (docs/design/scaleout.md): prints figures and a
# markdown table, asserts nothing.  Three throwaway clusters of its own on
# TCP loopback (a coordinator and two shards) hold N rows of float8[D]
# (default 400,000 x 100), split by id over the shards; the coordinator also
# holds all N rows in a local table, the single-node reference.  Every
# table is a protected table, declared with one call (x as jl_vector of D
# in [0, 1], attribute neighbours): the coordinator's local table, each
# shard's half, and the coordinator's partitioned table over the shards.
#   1. release, k = 20, Laplace, attribute neighbours:
#        single node   jl_release (jl_sketch) over N rows on the coordinator
#        2 shards      jl_release on each shard over its N/2 rows, both
#                      started at once (two sessions), wall clock of the pair
#        distributed   CALL jl_release_distributed on the coordinator's
#                      sharded protected table: one coordinator charge, both
#                      shards release at once, each prepares, then commit
#        pulled        INSERT ... SELECT jl_private_release(x, ...) FROM the
#                      partitioned parent on the coordinator (the form that
#                      postgres_fdw cannot push: every raw row crosses)
#   2. kNN of one query, n = 10: jl_knn on the sharded sketches against the
#      local ones, and ORDER BY jl_recover_dist(...) LIMIT 10 on the parent
#   3. k-means, 8 clusters from the same starting centroids, at most 20
#      Lloyd steps: jl_kmeans_lloyd on the sharded sketches against the local
#      ones, and jl_kmeans(sketch, jl_kmeans_options(8, 1, 20)) on the parent (pulls every
#      sketch)
# Bytes moved: the growth of the loopback interface's byte counter
# (/proc/net/dev) during the step, both directions counted once (on
# loopback what one end sends the other receives); the servers talk over
# loopback TCP, psql over a Unix socket, so this is the traffic between
# coordinator and shards (plus whatever else uses loopback meanwhile).
# Each step runs RUNS times (default 3), fastest kept.  With
# JLDP_BENCH_EXPLAIN set, also prints the plans of one Lloyd step and of
# the kNN query as jl_kmeans_lloyd and jl_knn build them.  All three servers
# share this machine's cores, so the shards' speedup is bounded by them;
# the projection to 16 shards assumes one core per shard.
# Usage: test/bench/bench_scaleout.sh  (JLDP_BENCH_ROWS, JLDP_BENCH_DIM, JLDP_BENCH_RUNS)
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/pgenv.sh
N=${JLDP_BENCH_ROWS:-400000}
D=${JLDP_BENCH_DIM:-100}
RUNS=${JLDP_BENCH_RUNS:-3}
K=20
M=8
jl_install
opts="-c listen_addresses=127.0.0.1 -c max_parallel_workers_per_gather=0 -c shared_buffers=512MB -c max_prepared_transactions=4"
jl_multi_start coord $opts; PC=$JL_MULTI_PORT
jl_multi_start shard1 $opts; PS1=$JL_MULTI_PORT
jl_multi_start shard2 $opts; PS2=$JL_MULTI_PORT
dir=$JL_MULTI_DIR
q() { local port=$1; shift; as_pg psql -qXAt -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d postgres "$@"; }
ms() { sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1; }
lo_bytes() { awk '$1 == "lo:" { print $2 }' /proc/net/dev; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
min() { printf '%s\n' "$@" | sort -g | head -1; }
HALF=$(( N / 2 ))
# the unbudgeted primitive's options (the pulled release): epsilon 1.0,
# bound 1, attribute neighbours, jl_sketch(k => K) (Laplace), the key
rel_args="1.0, 1, 'attribute', jl_sketch(k => $K, noise => 'laplace'), key => 'bench'"
# the declaration, the same on every server (caps for RUNS releases of each kind)
declare_for() { echo "SELECT d FROM jl_protect('$1', 'id', ARRAY[jl_vector('x', $D, 0, 1)], neighbor => 'attribute', epsilon_cap => $(( 10 * RUNS + 10 )))"; }
release() { echo "SELECT released FROM jl_release('raw', '$1', 1.0, jl_sketch(k => $K), key => 'bench')"; }
gen() { # rows lo..hi of the data, the same on every server
  echo "CREATE TABLE $1 AS SELECT g AS id,
          ARRAY(SELECT ((g::bigint * 7919 + j * 104729) % 1000) / 1000.0 * 0.7 + (g % $M) * 0.03
                FROM generate_series(1, $D) j)::float8[] AS x
        FROM generate_series($2, $3) g;
        ALTER TABLE $1 ADD PRIMARY KEY (id); VACUUM ANALYZE $1;
        $(declare_for $1);"
}

echo "== $N rows of float8[$D], k = $K; coordinator and 2 shards on one machine ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
fp=$(q $PC -c "CREATE EXTENSION jldp" -c "SELECT jl_key_create('bench')")
secret_hex=$(q $PC -c "SELECT encode(secret, 'hex') FROM jldp_internal.jldp_key WHERE name = 'bench'")
for p in $PS1 $PS2; do
  q $p -c "CREATE EXTENSION jldp" -c "SELECT jl_key_import('bench', '\\x$secret_hex')" >/dev/null
done
jl_check_fp() { [ "$(q "$1" -c "SELECT fingerprint FROM jl_keys WHERE name = 'bench'")" = "$fp" ] || { echo "key fingerprints differ" >&2; exit 1; }; }
jl_check_fp $PS1; jl_check_fp $PS2
gen raw 1 $N | q $PC >/dev/null
gen raw 1 $HALF | q $PS1 >/dev/null
gen raw $(( HALF + 1 )) $N | q $PS2 >/dev/null
q $PC >/dev/null <<SQL
CREATE EXTENSION postgres_fdw;
CREATE EXTENSION dblink;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '127.0.0.1', port '$PS1', dbname 'postgres', extensions 'jldp', async_capable 'true', fetch_size '10000', connect_timeout '5');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '127.0.0.1', port '$PS2', dbname 'postgres', extensions 'jldp', async_capable 'true', fetch_size '10000', connect_timeout '5');
CREATE USER MAPPING FOR postgres SERVER shard1 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR postgres SERVER shard2 OPTIONS (user 'postgres');
CREATE TABLE raw_parent (id int, x float8[]) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE raw_1 PARTITION OF raw_parent FOR VALUES FROM (1) TO ($(( HALF + 1 )))
  SERVER shard1 OPTIONS (table_name 'raw');
CREATE FOREIGN TABLE raw_2 PARTITION OF raw_parent FOR VALUES FROM ($(( HALF + 1 ))) TO ($(( N + 1 )))
  SERVER shard2 OPTIONS (table_name 'raw');
$(declare_for raw_parent);
SQL

# 1. release
single=(); shards=(); dist=(); pulled=(); b_shards=0; b_dist=0; b_pulled=0
for r in $(seq "$RUNS"); do
  for p in $PC $PS1 $PS2; do q $p -c "DROP TABLE IF EXISTS sk" >/dev/null 2>&1; done
  t=$(q $PC -c '\timing on' -c "$(release sk)" | ms)
  single+=("$t")
  b0=$(lo_bytes); t0=$(now_ms)
  q $PS1 -c "$(release sk)" >/dev/null &
  q $PS2 -c "$(release sk)" >/dev/null &
  wait
  shards+=("$(( $(now_ms) - t0 ))"); b_shards=$(( $(lo_bytes) - b0 ))
  for p in $PC $PS1 $PS2; do q $p -c "DROP TABLE IF EXISTS skd" >/dev/null 2>&1; done
  b0=$(lo_bytes)
  t=$(q $PC -c '\timing on' -c "CALL jl_release_distributed('raw_parent', 'skd', 1.0, jl_sketch(k => $K), key => 'bench')" | ms)
  b_dist=$(( $(lo_bytes) - b0 )); dist+=("$t")
  q $PC -c "DROP TABLE IF EXISTS sk_pulled" -c "CREATE TABLE sk_pulled (id int, sketch float8[])" >/dev/null 2>&1
  b0=$(lo_bytes)
  t=$(q $PC -c '\timing on' -c "INSERT INTO sk_pulled SELECT id, jl_private_release(x, $rel_args) FROM raw_parent" | ms)
  b_pulled=$(( $(lo_bytes) - b0 )); pulled+=("$t")
done
scol=$(q $PS1 -c "SELECT attname FROM pg_attribute WHERE attrelid = 'sk'::regclass AND atttypid = 'float8[]'::regtype LIMIT 1")
icol=$(q $PS1 -c "SELECT attname FROM pg_attribute WHERE attrelid = 'sk'::regclass AND attnum = 1")
cols=$(q $PS1 -c "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum) FROM pg_attribute WHERE attrelid = 'sk'::regclass AND attnum > 0 AND NOT attisdropped")
q $PC >/dev/null <<SQL
CREATE TABLE sk_parent ($cols) PARTITION BY RANGE ($icol);
CREATE FOREIGN TABLE sk_1 PARTITION OF sk_parent FOR VALUES FROM (1) TO ($(( HALF + 1 )))
  SERVER shard1 OPTIONS (table_name 'sk');
CREATE FOREIGN TABLE sk_2 PARTITION OF sk_parent FOR VALUES FROM ($(( HALF + 1 ))) TO ($(( N + 1 )))
  SERVER shard2 OPTIONS (table_name 'sk');
-- the single-node reference: the shards' sketches, local
CREATE TABLE sk_local ($cols);
INSERT INTO sk_local SELECT * FROM sk_parent;
VACUUM ANALYZE sk_local;
SQL

# 2. kNN
qv=$(q $PC -c "SELECT $scol::text FROM sk_local WHERE $icol = 17")
knn_l=(); knn_s=(); knn_p=(); b_knn_s=0; b_knn_p=0
for r in $(seq "$RUNS"); do
  knn_l+=("$(q $PC -c '\timing on' -c "SELECT count(*) FROM jl_knn('sk_local', '$icol', '$scol', '$qv', 10)" | ms)")
  b0=$(lo_bytes)
  knn_s+=("$(q $PC -c '\timing on' -c "SELECT count(*) FROM jl_knn('sk_parent', '$icol', '$scol', '$qv', 10)" | ms)")
  b_knn_s=$(( $(lo_bytes) - b0 )); b0=$(lo_bytes)
  knn_p+=("$(q $PC -c '\timing on' -c "SELECT count(*) FROM (SELECT $icol FROM sk_parent ORDER BY jl_recover_dist($scol, '$qv', 0) LIMIT 10) s" | ms)")
  b_knn_p=$(( $(lo_bytes) - b0 ))
done

# 3. k-means from the same starting centroids
c0=$(q $PC -c "SELECT array_agg($scol ORDER BY $icol)::text FROM sk_local WHERE $icol IN (SELECT g * ($N / $M) FROM generate_series(1, $M) g)")
km_l=(); km_s=(); km_p=(); b_km_s=0; b_km_p=0
for r in $(seq "$RUNS"); do
  km_l+=("$(q $PC -c '\timing on' -c "SELECT cardinality(jl_kmeans_lloyd('sk_local', '$scol', '$c0', 20))" | ms)")
  b0=$(lo_bytes)
  km_s+=("$(q $PC -c '\timing on' -c "SELECT cardinality(jl_kmeans_lloyd('sk_parent', '$scol', '$c0', 20))" | ms)")
  b_km_s=$(( $(lo_bytes) - b0 )); b0=$(lo_bytes)
  km_p+=("$(q $PC -c '\timing on' -c "SELECT cardinality(jl_kmeans($scol, jl_kmeans_options($M, 1, 20))) FROM sk_parent" | ms)")
  b_km_p=$(( $(lo_bytes) - b0 ))
done
iters=20
if [ -n "${JLDP_BENCH_EXPLAIN:-}" ]; then
  parts="SELECT jl_lloyd_step($scol, '$c0') AS s, 1 AS o FROM sk_1 UNION ALL SELECT jl_lloyd_step($scol, '$c0'), 2 FROM sk_2"
  q $PC -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT jl_vector_sum(s ORDER BY o) FROM ($parts) u"
  kparts="(SELECT $icol::bigint AS id, jl_recover_dist($scol, '$qv', 0) AS dist FROM sk_1 ORDER BY 2, 1 LIMIT 10) UNION ALL (SELECT $icol::bigint, jl_recover_dist($scol, '$qv', 0) FROM sk_2 ORDER BY 2, 1 LIMIT 10)"
  q $PC -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT id, dist FROM ($kparts) u ORDER BY dist, id LIMIT 10"
  q $PC -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT id, dist FROM (SELECT id, dist FROM ($kparts) u OFFSET 0) v ORDER BY dist, id LIMIT 10"
fi

mb() { awk -v b="$1" 'BEGIN { printf "%.3g MB", b / 1e6 }'; }
kb() { awk -v b="$1" 'BEGIN { printf "%.3g kB", b / 1e3 }'; }
f() { awk -v t="$1" 'BEGIN { printf "%.0f", t }'; }
S=$(min "${single[@]}"); T2=$(min "${shards[@]}"); DI=$(min "${dist[@]}"); P=$(min "${pulled[@]}")
KL=$(min "${knn_l[@]}"); KS=$(min "${knn_s[@]}"); KP=$(min "${knn_p[@]}")
ML=$(min "${km_l[@]}"); MS=$(min "${km_s[@]}"); MP=$(min "${km_p[@]}")
# 16 shards, one core each: a shard's share of the release is N/16 rows at
# the single node's rate; kNN and k-means move a fixed amount per shard
p16=$(awk -v s="$S" 'BEGIN { printf "%.0f", s / 16 }')
kb16=$(awk -v b="$b_knn_s" 'BEGIN { printf "%.3g kB", b * 8 / 1e3 }')
mb16=$(awk -v b="$b_km_s" 'BEGIN { printf "%.3g kB", b * 8 / 1e3 }')
cat <<EOF

| step ($N rows, d = $D, k = $K; fastest of $RUNS) | single node | 2 shards (same machine) | bytes between servers | projected: 16 shards, a core each |
|---|---|---|---|---|
| release (\`jl_release\`) | $(f "$S") ms | $(f "$T2") ms (both shards at once) | $(kb "$b_shards") | about $p16 ms, no raw row moves |
| release over every shard under one coordinator charge (\`CALL jl_release_distributed\`: both at once, two-phase commit) | | $(f "$DI") ms | $(kb "$b_dist") | about $p16 ms plus a round trip per shard, no raw row moves |
| release pulled through the coordinator (\`INSERT … SELECT jl_private_release(x, …) FROM parent\`) | | $(f "$P") ms | $(mb "$b_pulled") | every raw row crosses: grows with N, not with shards |
| kNN, 10 nearest (\`jl_knn\`) | $(f "$KL") ms | $(f "$KS") ms | $(kb "$b_knn_s") | about $kb16 (10 rows a shard) |
| kNN, \`ORDER BY jl_recover_dist(…) LIMIT 10\` on the parent | | $(f "$KP") ms | $(mb "$b_knn_p") | each shard sorts all its rows and sends a first batch (fetch_size 10,000 rows); Merge Append reads the shards one after another |
| k-means, $M clusters, at most $iters steps (\`jl_kmeans_lloyd\`) | $(f "$ML") ms | $(f "$MS") ms | $(kb "$b_km_s") | about $mb16 ($M × (k + 1) numbers a shard and step) |
| k-means, \`jl_kmeans\` on the parent | | $(f "$MP") ms | $(mb "$b_km_p") | every sketch crosses |
EOF
