#!/usr/bin/env bash
# Install what building, running and testing jldp needs (Debian 12);
# with the argument test, also what make test adds (clang and its libFuzzer
# runtime for the core's fuzzing, cppcheck); with bench, what make bench
# needs.
set -euo pipefail
# postgresql-contrib: pgbench and the contrib modules, for test/integration/load.sh;
# python3-psycopg2: the analyst's Python example (docs/guide/analyst.py)
pkgs=(postgresql-15 postgresql-server-dev-15 libopenblas-dev build-essential
      python3-matplotlib python3-numpy python3-sklearn python3-networkx python3-psycopg2
      postgresql-contrib)
# "deps.sh bench": also perf, which make bench uses to profile a backend
[ "${1:-}" = bench ] && pkgs+=(linux-perf)
# "deps.sh test": the core's libFuzzer harnesses and the static analysis
[ "${1:-}" = test ] && pkgs+=(clang libclang-rt-14-dev cppcheck)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
