# Sourced by the experiments that run.sh runs after its own (kenthapadi.sh,
# realdata.sh):
#     source "$(dirname "${BASH_SOURCE[0]}")/plugin.sh" NAME MODULES "$@"
# parses --out DIR [--quick] into $out (absolute, with results/ and
# figures/) and $quick (0 or 1), finds a python3 that imports the
# comma-separated MODULES into $py, sets $here to test/paper, and points the
# PG* variables at a server with jldp installed: the one of the PG*
# variables if set, else a throwaway cluster (built and installed first).

paper_plugin_init() {
  local name=$1 modules=$2
  shift 2
  out=""
  quick=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --out) [ $# -ge 2 ] || { echo "usage: $name.sh --out DIR [--quick]" >&2; exit 2; }
             out=$2; shift 2 ;;
      --quick) quick=1; shift ;;
      *) echo "usage: $name.sh --out DIR [--quick]" >&2; exit 2 ;;
    esac
  done
  [ -n "$out" ] || { echo "usage: $name.sh --out DIR [--quick]" >&2; exit 2; }
  mkdir -p "$out/results" "$out/figures"
  out=$(cd "$out" && pwd)
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  # Debian's python3 (another python3 may come first in PATH)
  py=""
  local c
  for c in python3 /usr/bin/python3; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c "import $modules" 2>/dev/null; then py=$c; break; fi
  done
  [ -n "$py" ] || { echo "$name.sh: needs python3 with $modules (test/deps.sh)" >&2; exit 1; }
  source "$here/../pgenv.sh"
  if [ -z "${PGHOST:-}${PGPORT:-}${PGDATABASE:-}" ]; then
    jl_install
  fi
  jl_start_cluster >/dev/null
}

paper_plugin_init "$@"
