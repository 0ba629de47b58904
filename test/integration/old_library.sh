# Sourced by the tests that put a database in the state an earlier version
# of jldp left it in (test/integration/upgrade.sh, test/integration/keywrap.sh).  The library serves
# only the SQL of its own version (jl_require_sql_version: 55000 otherwise),
# so that state is made as it was made then: by that version's library,
# built from the last commit of this repository whose jldp.control names
# it, installed over the current one, and the current one put back before
# ALTER EXTENSION jldp UPDATE, as a real upgrade does.
#
# jl_old_library VERSION        the path of VERSION's jldp.so (built once)
# jl_library_use FILE [psql options]   install FILE as the server's jldp.so
# jl_library_current [psql options]    install the library of this tree again
# The server is the one the PG* variables name (or the psql options), on
# this machine; its library directory is read from it.  PG_CONFIG (with server headers)
# builds.  Needs the repository's history (not a shallow clone).

JL_OLD_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
JL_OLD_DIR=${JL_OLD_DIR:-$(mktemp -d /tmp/jldp-old.XXXXXX)}

jl_old_library() {
  local version=$1 commit dir
  if [ -f "$JL_OLD_DIR/$version.so" ]; then
    echo "$JL_OLD_DIR/$version.so"
    return
  fi
  if [ "$(git -C "$JL_OLD_TOP" rev-parse --is-shallow-repository)" = true ]; then
    echo "jl_old_library: $JL_OLD_TOP is a shallow clone; the earlier versions' libraries are built from its history" >&2
    return 1
  fi
  # the last commit naming the version: the parent of the one that named
  # the next version, or the newest commit if none did
  commit=$(git -C "$JL_OLD_TOP" log --format=%H -1 -G"^default_version = '$version'" -- jldp.control)
  if [ -z "$commit" ]; then
    echo "jl_old_library: no commit names version $version" >&2
    return 1
  fi
  git -C "$JL_OLD_TOP" show "$commit:jldp.control" | grep -q "^default_version = '$version'" || commit=$commit^
  dir=$JL_OLD_DIR/src-$version
  mkdir -p "$dir"
  git -C "$JL_OLD_TOP" archive "$commit" | tar -x -C "$dir"
  if ! make -C "$dir" -s -j2 PG_CONFIG="$PG_CONFIG" >"$dir.log" 2>&1 || [ ! -f "$dir/jldp.so" ]; then
    echo "jl_old_library: building version $version (commit $commit) failed:" >&2
    tail -20 "$dir.log" >&2
    return 1
  fi
  cp "$dir/jldp.so" "$JL_OLD_DIR/$version.so"
  rm -rf "$dir"
  echo "$JL_OLD_DIR/$version.so"
}

jl_library_use() {
  local file=$1 libdir sudo=""
  shift
  libdir=$(psql -qXAt -d postgres "$@" -c "SELECT setting FROM pg_config WHERE name = 'PKGLIBDIR'")
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  # a new file (not written in place): a backend that mapped the old one keeps it
  $sudo install -m 755 "$file" "$libdir/jldp.so.new"
  $sudo mv -f "$libdir/jldp.so.new" "$libdir/jldp.so"
}

jl_library_current() {
  jl_library_use "$JL_OLD_TOP/jldp.so" "$@"
}
