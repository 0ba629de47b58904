#!/usr/bin/env bash
# The README's SQL, in order.  Every ```sql block of README.md runs, in the
# order of the file, in one psql session with ON_ERROR_STOP=1 in a fresh
# database; any error fails the test.  Two markers, each on the last
# non-blank line before a block:
#   <!-- not run -->  the block is skipped (it needs something the test
#                     server lacks, e.g. pgvector)
#   <!-- fails -->    the block shows a refusal: it must end in an error
# The outputs the README shows (```text blocks, and "--  value" lines in
# the SQL) are then compared with what the SQL printed: exactly where the
# pinned key makes them deterministic, and by shape where a block is marked
# <!-- noisy --> (test/integration/readme_outputs.py).
# The README creates the roles curator, analyst and accountant; they must
# not exist on the server, and are dropped afterwards with the database.
# The README's own SQL puts jldp on the search path: the one the test
# scripts' sessions get (test/pgenv.sh) is taken off here.  Assumes the PG*
# variables point at a superuser connection of a server where jldp is
# installed (see test/pgenv.sh).  Usage: test/integration/readme.sh [markdown file]:
# without one, README.md followed by the guide's pages (docs/guide), in the
# order of docs/guide/README.md, each continuing the README's session;
# with JLDP_README_OUTPUT=file, psql's output is kept there (to refresh the
# outputs the README shows).  Afterwards each of the README's roles must
# hold the jldp role the README says (what each jldp role may do is
# sql/roles.sql's).
set -euo pipefail
cd "$(dirname "$0")/../.."
db=jldp_readme
name=${1:-README.md and the guide (docs/guide)}
roles=(curator analyst accountant)
PGOPTIONS=$(printf '%s' "${PGOPTIONS:-}" | sed 's/-c search_path=[^ ]*//g')
export PGOPTIONS

tmp=$(mktemp -d)
if [ $# -ge 1 ]; then
  readme=$1
else
  # the walkthrough: README.md, then each page the guide's index lists
  readme=$tmp/walkthrough.md
  cp README.md "$readme"
  pages=$(sed -n 's/^[0-9][0-9]*\. \[.*\](\([a-z_]*\.md\))$/\1/p' docs/guide/README.md)
  [ -n "$pages" ] || { echo "FAIL no pages listed in docs/guide/README.md" >&2; exit 1; }
  for p in $pages; do
    printf '\n<!-- docs/guide/%s -->\n\n' "$p" >> "$readme"
    cat "docs/guide/$p" >> "$readme"
  done
fi
cleanup() {
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  for r in "${roles[@]}"; do
    psql -qX -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1 || true
  done
  rm -rf "$tmp"
}

for r in "${roles[@]}"; do
  if [ "$(psql -qXAt -d postgres -c "SELECT count(*) FROM pg_roles WHERE rolname = '$r'")" != 0 ]; then
    echo "FAIL role $r exists on this server; the README's SQL creates it" >&2
    exit 1
  fi
done
psql -qX -d postgres -c "SET client_min_messages = warning" \
     -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
trap cleanup EXIT

# README.md -> one psql script; each block is announced with its line number
awk -v file="$readme" '
  function fence_lang(s) { sub(/^```[ \t]*/, "", s); sub(/[ \t].*$/, "", s); return s }
  /^```/ && !inblock {
    inblock = 1; lang = fence_lang($0); start = NR + 1
    run = (lang == "sql" && mark != "not run"); fails = (mark == "fails")
    if (lang == "sql") {
      if (run) nrun++; else nskip++
      if (run && fails) nfail++
    }
    if (run) {
      printf "\\echo == %s:%d\n", file, start
      if (fails) print "\\set ON_ERROR_STOP 0"
    }
    mark = ""; next
  }
  /^```/ && inblock {
    inblock = 0
    if (run && fails) {
      print "\\set ON_ERROR_STOP 1"
      print "\\if :ERROR"
      print "\\echo (refused, as the README says)"
      print "\\else"
      printf "DO $$ BEGIN RAISE EXCEPTION %s; END $$;\n", "'\''" file ":" start ": the block marked <!-- fails --> did not fail'\''"
      print "\\endif"
    }
    run = 0; next
  }
  inblock { if (run) print; next }
  /^[ \t]*$/ { next }
  /^<!-- *not run *-->[ \t]*$/ { mark = "not run"; next }
  /^<!-- *fails *-->[ \t]*$/ { mark = "fails"; next }
  { mark = "" }
  END {
    if (inblock) { printf "%s: unterminated code block\n", file > "/dev/stderr"; exit 1 }
    printf "%d %d %d\n", nrun, nskip, nfail > "/dev/stderr"
  }
' "$readme" > "$tmp/readme.sql" 2> "$tmp/counts"
read -r nrun nskip nfail < "$tmp/counts"
if [ "$nrun" = 0 ]; then
  echo "FAIL no sql blocks found in $readme" >&2
  exit 1
fi

status=0
psql -X -v ON_ERROR_STOP=1 -d "$db" -f "$tmp/readme.sql" > "$tmp/out" 2>&1 || status=$?
[ -n "${JLDP_README_OUTPUT:-}" ] && cp "$tmp/out" "$JLDP_README_OUTPUT"
if [ "$status" = 0 ]; then
  echo "ok   $name: $nrun sql blocks ran in order ($nfail refused as shown, $nskip not run)"
else
  echo "FAIL $name: a block failed; the output from the last block announced:"
  # the output from the last "== README.md:LINE" on; psql names the script line
  awk '/^== /{buf = ""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$tmp/out"
  exit 1
fi

# the outputs the README shows are what its SQL printed (test/integration/readme_outputs.py)
python3 test/integration/readme_outputs.py "$readme" "$tmp/out"
# negative control: a README whose shown figure differs by one digit must fail
sed 's/"noise_variance": 2\.5044050489862757/"noise_variance": 2.5044050489862758/' "$readme" > "$tmp/altered.md"
if cmp -s "$readme" "$tmp/altered.md"; then
  echo "FAIL control: the shown noise_variance 2.5044050489862757 was not found to alter in $readme"
  exit 1
fi
if python3 test/integration/readme_outputs.py "$tmp/altered.md" "$tmp/out" >/dev/null; then
  echo "FAIL control: a README showing a figure the SQL did not print passed the comparison"
  exit 1
fi
echo "ok   control: a README showing one altered figure fails the comparison"

held=$(psql -qXAt -v ON_ERROR_STOP=1 -d "$db" <<'SQL'
SELECT string_agg(m.rolname || ' in ' || g.rolname, ', ' ORDER BY m.rolname)
  FROM pg_auth_members a JOIN pg_roles m ON m.oid = a.member JOIN pg_roles g ON g.oid = a.roleid
 WHERE m.rolname IN ('curator', 'analyst', 'accountant');
SQL
)
if [ "$held" != "accountant in jldp_budget_admin, analyst in jldp_analyst, curator in jldp_curator" ]; then
  echo "FAIL $name: the README's roles hold '$held'"
  exit 1
fi
echo "ok   $name: its roles hold jldp's roles ($held)"
