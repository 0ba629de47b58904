# Sourced by the scripts in test/: build and install jldp, then point the
# PG* variables at a server.  With PGHOST, PGPORT or PGDATABASE already set,
# that server is used (jldp must be installable there); otherwise a throwaway
# cluster is created in a temporary directory and removed on exit.

JLDP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# PG_CONFIG picks the PostgreSQL installation (default: Debian's PostgreSQL 15)
if [ -z "${PG_CONFIG:-}" ]; then
  PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
  [ -x "$PG_CONFIG" ] || PG_CONFIG=pg_config
fi
export PG_CONFIG
# jldp's API is in schema jldp: the scripts call it unqualified, as a
# session whose search_path names jldp does (README)
case " ${PGOPTIONS:-} " in
  *search_path*) ;;
  *) export PGOPTIONS="-c search_path=public,jldp ${PGOPTIONS:-}" ;;
esac
PGBIN=$("$PG_CONFIG" --bindir)

as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

jl_install() {
  local SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  make -C "$JLDP_TOP" -s >/dev/null
  $SUDO make -C "$JLDP_TOP" -s install >/dev/null
}

jl_stop_cluster() {
  if [ -n "${JL_CLUSTER_DIR:-}" ] && [ -d "$JL_CLUSTER_DIR" ]; then
    as_pg "$PGBIN/pg_ctl" -D "$JL_CLUSTER_DIR/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$JL_CLUSTER_DIR"
  fi
}

jl_start_cluster() {
  if [ -n "${PGHOST:-}${PGPORT:-}${PGDATABASE:-}" ]; then
    echo "using the server of the PG* variables (host ${PGHOST:-default}, port ${PGPORT:-default})"
    return
  fi
  JL_CLUSTER_DIR=$(mktemp -d /tmp/jldp-cluster.XXXXXX)
  chmod 755 "$JL_CLUSTER_DIR"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$JL_CLUSTER_DIR"
  trap jl_stop_cluster EXIT
  as_pg "$PGBIN/initdb" -D "$JL_CLUSTER_DIR/data" -A trust -U postgres --no-sync >/dev/null
  local port=$(( 20000 + RANDOM % 20000 ))
  as_pg "$PGBIN/pg_ctl" -D "$JL_CLUSTER_DIR/data" -l "$JL_CLUSTER_DIR/log" -w \
    -o "-p $port -k $JL_CLUSTER_DIR -c listen_addresses='' -c fsync=off -c max_worker_processes=8 -c max_parallel_workers=4" \
    start >/dev/null
  export PGHOST=$JL_CLUSTER_DIR PGPORT=$port PGUSER=postgres PGDATABASE=postgres
  echo "throwaway cluster in $JL_CLUSTER_DIR, port $port"
}

# Throwaway clusters of a multi-server test (own data directories, ports and
# socket directory; stopped and removed on exit).  jl_multi_start NAME
# [server options...] starts one and sets JL_MULTI_PORT; its log is
# $JL_MULTI_DIR/NAME.log.
jl_multi_stop() {
  local d
  [ -n "${JL_MULTI_DIR:-}" ] && [ -d "$JL_MULTI_DIR" ] || return 0
  for d in "$JL_MULTI_DIR"/*/; do
    [ -f "$d/PG_VERSION" ] && as_pg "$PGBIN/pg_ctl" -D "$d" -m immediate stop >/dev/null 2>&1 || true
  done
  rm -rf "$JL_MULTI_DIR"
}

jl_multi_start() {
  local name=$1 port
  shift
  if [ -z "${JL_MULTI_DIR:-}" ]; then
    JL_MULTI_DIR=$(mktemp -d /tmp/jldp-multi.XXXXXX)
    chmod 755 "$JL_MULTI_DIR"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$JL_MULTI_DIR"
    trap jl_multi_stop EXIT
  fi
  as_pg "$PGBIN/initdb" -D "$JL_MULTI_DIR/$name" -A trust -U postgres --no-sync >/dev/null
  port=$(( 20000 + RANDOM % 20000 ))
  as_pg "$PGBIN/pg_ctl" -D "$JL_MULTI_DIR/$name" -l "$JL_MULTI_DIR/$name.log" -w \
    -o "-p $port -k $JL_MULTI_DIR -c listen_addresses='' -c fsync=off $*" start >/dev/null
  JL_MULTI_PORT=$port
}

# one check line of a shell test; sets fail=1 on a mismatch
jl_check() {
  local what=$1 got=$2 want=$3
  if [ "$got" = "$want" ]; then echo "ok   $what"; else echo "FAIL $what: got '$got', expected '$want'"; fail=1; fi
}
