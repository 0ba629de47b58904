#!/usr/bin/env bash
# The analyst's Python example (docs/guide/analyst.py), run as it is
# meant to be run: as a login role holding jldp_analyst and SELECT on one
# release, over libpq.  A curator's table of 300 units in three segments
# (50 attributes in [0, 1]; a unit is high, 0.8, on the attributes of its
# segment, low, 0.2, elsewhere, with a deterministic jitter of +-0.05) is
# protected and released without projection at epsilon 4 (attribute
# neighbours: Laplace noise of variance 0.125 per attribute).  Checked:
#   1. the squared distances the example recovers in numpy equal
#      jl_recover_dist(a, b, release) computed by the server for the 300
#      pairs (unit, next unit), to 1e-9 relative: the noise variance came
#      from the registry and the bias 2 k sigma^2 = 12.5 was removed;
#   2. its clusters recover the segments: purity at least 0.95.  Two
#      segments differ by 0.36 on 33 attributes (squared distance 12); a
#      unit joins another segment's centre only if its noise moves it 6
#      along a direction where it has standard deviation 1.2, about 5
#      standard deviations: about 3e-4 for one of the 300 units (Gaussian
#      approximation of a sum of 33 Laplace terms), while failing takes 15;
#   3. control: told the noise variance is 0, the example's distances are
#      off by 12.5 and check 1 must fail.
# Uses test/pgenv.sh's server; needs python3-psycopg2 and python3-numpy.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/pgenv.sh
jl_install
jl_start_cluster
db=jldp_pyex
role=jldp_pyex_analyst
tmp=$(mktemp -d)
drop() {
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS $db" -c "DROP ROLE IF EXISTS $role" >/dev/null 2>&1 || true
}
trap 'drop; rm -rf "$tmp"' EXIT
drop
psql -qX -d postgres -c "CREATE DATABASE $db" >/dev/null
q() { psql -qXAt -v ON_ERROR_STOP=1 -d "$db" "$@"; }
q >/dev/null <<SQL
CREATE EXTENSION jldp;
SET search_path = public, jldp;
CREATE ROLE $role LOGIN IN ROLE jldp_analyst;
SELECT jl_key_create();
CREATE TABLE pyex AS
  SELECT i AS id, i % 3 AS segment,
         ARRAY(SELECT 0.2 + 0.6 * (j % 3 = i % 3)::int + 0.1 * (((i * 7919 + j * 104729) % 1000) / 1000.0 - 0.5)
               FROM generate_series(1, 50) j)::float8[] AS x
  FROM generate_series(1, 300) i;
ALTER TABLE pyex ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('pyex', 'id', ARRAY[jl_vector('x', 50, 0, 1)], neighbor => 'attribute', epsilon_cap => 4);
SELECT released FROM jl_release('pyex', 'pyex_private', 4, jl_sketch(kind => 'identity'));
GRANT SELECT ON pyex_private TO $role;
SQL

example() { PGUSER=$role PGDATABASE=$db /usr/bin/python3 docs/guide/analyst.py pyex_private 3 "$@"; }
example > "$tmp/out"
example --noise-variance 0 > "$tmp/out0"
head -4 "$tmp/out" | sed 's/^/     /'

# the server's recovered distance of each (unit, next unit) pair
q -F ' ' -c "SELECT a.id, jldp.jl_recover_dist(a.sketch, b.sketch, 'pyex_private')
                FROM pyex_private a JOIN pyex_private b ON b.id = a.id % 300 + 1 ORDER BY a.id" > "$tmp/server"
q -F ' ' -c "SELECT id, segment FROM pyex ORDER BY id" > "$tmp/segments"

compare() {  # output file -> "worst relative difference"
  /usr/bin/python3 - "$1" "$tmp/server" <<'PY'
import sys
ex = {int(l.split()[1]): float(l.split()[5]) for l in open(sys.argv[1]) if l.startswith('unit ')}
sv = {int(a): float(b) for a, b in (l.split() for l in open(sys.argv[2]))}
assert len(ex) == len(sv) == 300, (len(ex), len(sv))
print(max(abs(ex[i] - sv[i]) / max(1.0, abs(sv[i])) for i in sv))
PY
}
worst=$(compare "$tmp/out")
worst0=$(compare "$tmp/out0")
purity=$(/usr/bin/python3 - "$tmp/out" "$tmp/segments" <<'PY'
import sys, collections
lab = {int(l.split()[1]): int(l.split()[3]) for l in open(sys.argv[1]) if l.startswith('unit ')}
seg = {int(a): int(b) for a, b in (l.split() for l in open(sys.argv[2]))}
by = collections.defaultdict(collections.Counter)
for i, c in lab.items():
    by[c][seg[i]] += 1
print(sum(max(c.values()) for c in by.values()) / len(lab))
PY
)
fail=0
if /usr/bin/python3 -c "import sys; sys.exit(0 if float('$worst') < 1e-9 else 1)"; then
  echo "ok   the example's recovered squared distances equal jl_recover_dist's for 300 pairs (worst relative difference $worst)"
else
  echo "FAIL the example's recovered squared distances differ from jl_recover_dist's (worst relative difference $worst)"; fail=1
fi
if /usr/bin/python3 -c "import sys; sys.exit(0 if float('$purity') >= 0.95 else 1)"; then
  echo "ok   its clusters recover the three segments (purity $purity)"
else
  echo "FAIL its clusters do not recover the segments (purity $purity)"; fail=1
fi
if /usr/bin/python3 -c "import sys; sys.exit(0 if float('$worst0') > 1e-3 else 1)"; then
  echo "ok   control: told the noise variance is 0, its distances are off (worst relative difference $worst0) and the comparison fails"
else
  echo "FAIL control: ignoring the noise went unnoticed ($worst0)"; fail=1
fi
exit $fail
