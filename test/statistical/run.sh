#!/usr/bin/env bash
# Statistical tests of jldp (DESIGN.md, "Testing doctrine").
#
# Assumes the PG* environment variables point at a server where jldp is
# installed, with a superuser connection.  Creates a fresh database (dropped
# at the start and at the end), pins the key 'stat', runs
#   zero_variance.sql  check 1: releases of the zero vector (mean, variance,
#                      grid), four neighbour/calibration settings
#   recovery.sql       check 2: jl_recover_dist mean and variance given P,
#                      jl_recover_dist_stddev
#   epsilon.sql        check 3: empirical epsilon on worst-case neighbours
#   rr.sql             check 4: flip rate of jl_randomized_response
#   gaussian.sql       checks 5 and 6: Gaussian noise, recovery variance,
#                      empirical (epsilon, delta) on worst-case neighbours
#   identity.sql       check 7: recovery from a release without projection
#                      (kind 'identity'): mean, variance 8 s2 r2 + 14 k s2^2
#   covariance.sql     check 8: the covariance release's directional
#                      variance: unbiased, its standard deviation and plug-in
#   covariance_audit.sql  check 9: empirical (epsilon, delta) of the
#                      covariance release on the worst-case neighbours
#   graph.sql          check 10: the graph release's cut estimates:
#                      unbiased, their standard deviation and plug-in
#   graph_audit.sql    check 11: empirical (epsilon, delta) of the graph
#                      release on an edge neighbour (Clopper-Pearson)
# and prints one line per check or negative control with its statistic, band
# and verdict.  Exits non-zero if a check fails, a negative control is not
# rejected, a check has no control, or any SQL fails.
#
# False failures: every statistical line has a false-failure rate of at most
# 5e-8 (lib.sql), at most 40 lines, so a correct extension fails a run
# with probability at most 2e-6.  Deterministic lines ('exact') cannot fail by
# chance.  Negative controls are rejected with margins of 7 standard errors
# or more (epsilon: eps_lb about 1.8 to 3 against the claimed 1).
#
# Usage: test/statistical/run.sh        (JLDP_STAT_DB overrides the database name,
#                                 JLDP_STAT_PARTS the list of parts)
set -euo pipefail
# jldp's API is in schema jldp: as test/pgenv.sh does for run_all.sh's
# parts, a search_path naming it unless PGOPTIONS sets one
case " ${PGOPTIONS:-} " in
  *search_path*) ;;
  *) export PGOPTIONS="-c search_path=public,jldp ${PGOPTIONS:-}" ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
db=${JLDP_STAT_DB:-jldp_stat}
# the pinned key: P, and so the tuned figures (r2P / (k s2), worst-case
# neighbours), are fixed by it
key='0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'

psql_db() { psql -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
drop_db() { psql -X -q -d postgres -c "DROP DATABASE IF EXISTS \"$db\"" >/dev/null 2>&1 || true; }

start=$(date +%s)
drop_db
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE \"$db\""
trap drop_db EXIT

psql_db -o /dev/null <<SQL
SET client_min_messages = warning;
CREATE EXTENSION jldp;
SELECT jl_key_import('stat', ('\\x' || '$key')::bytea);
\\i $here/lib.sql
SQL
echo "jldp $(psql_db -At -c "SELECT extversion FROM pg_extension WHERE extname = 'jldp'"), key 'stat' fingerprint $(psql_db -At -c "SELECT fingerprint FROM jl_keys WHERE name = 'stat'")"

status=0
for part in ${JLDP_STAT_PARTS:-zero_variance recovery epsilon rr gaussian identity covariance covariance_audit graph graph_audit}; do
  t0=$(date +%s)
  from=$(psql_db -At -c "SELECT coalesce(max(seq), 0) FROM stat_result")
  # the audits release thousands of times and test the mechanisms, not the
  # budget (pg_regress, test/integration/concurrency.sh and test/integration/load.sh do): as the
  # superuser, their charges are written in their own transactions instead
  # of by a background worker each (about 12 ms a release)
  if ! psql_db -o /dev/null -c "SET client_min_messages = warning" \
       -c "SET jldp.charge_in_transaction = on" -f "$here/$part.sql"; then
    echo "FAIL $part.sql: SQL error"
    status=1
  fi
  echo
  echo "== $part.sql ($(( $(date +%s) - t0 )) s)"
  psql_db -At -c "SELECT stat_line(r) FROM stat_result r WHERE seq > $from ORDER BY seq"
done

echo
echo "== summary"
psql_db -At <<'SQL'
SELECT format('%s checks (%s statistical, %s exact): %s passed, %s failed',
              count(*) FILTER (WHERE kind <> 'control'),
              count(*) FILTER (WHERE kind = 'check'),
              count(*) FILTER (WHERE kind = 'exact'),
              count(*) FILTER (WHERE kind <> 'control' AND ok),
              count(*) FILTER (WHERE kind <> 'control' AND NOT ok))
FROM stat_result;
SELECT format('%s negative controls: %s rejected, %s NOT rejected',
              count(*), count(*) FILTER (WHERE ok), count(*) FILTER (WHERE NOT ok))
FROM stat_result WHERE kind = 'control';
SELECT format('false-failure rate: %s per statistical line, %s for the run (union bound)',
              stat_alpha(), stat_alpha() * count(*))
FROM stat_result WHERE kind = 'check';
SELECT format('FAIL %s %s has no negative control', r.name, r.kind)
FROM stat_result r
WHERE r.kind = 'check'
  AND NOT EXISTS (SELECT FROM stat_result c WHERE c.name = r.name AND c.kind = 'control');
SQL
bad=$(psql_db -At <<'SQL'
SELECT count(*) FILTER (WHERE NOT ok)
     + (SELECT count(*) FROM stat_result r
        WHERE r.kind = 'check'
          AND NOT EXISTS (SELECT FROM stat_result c WHERE c.name = r.name AND c.kind = 'control'))
     + CASE WHEN count(*) FILTER (WHERE kind = 'check') = 0 THEN 1 ELSE 0 END
FROM stat_result;
SQL
)
[ "$bad" = 0 ] || status=1
echo "runtime $(( $(date +%s) - start )) s"
if [ "$status" = 0 ]; then echo "stat: PASS"; else echo "stat: FAIL"; fi
exit "$status"
