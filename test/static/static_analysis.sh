#!/usr/bin/env bash
# Static analysis (make test): cppcheck on the plain-C core (every #ifdef
# configuration) and on the glue (with PostgreSQL's server headers, in the
# server's configuration).  Fails on any finding not suppressed with its
# reason: here for a whole class, or a cppcheck-suppress comment beside
# the line.
set -euo pipefail
cd "$(dirname "$0")/../.."
PG_CONFIG=${PG_CONFIG:-$(command -v pg_config || echo /usr/lib/postgresql/15/bin/pg_config)}
common=(--quiet --enable=warning,portability,performance --std=c99 -I src --inline-suppr
        --error-exitcode=1 -j2
        # only our own sources are analysed, not the system's headers
        --suppress=missingIncludeSystem --suppress=missingInclude)
glue=(--max-configs=1 -I "$("$PG_CONFIG" --includedir-server)"
      # PostgreSQL's headers hold more #ifdef configurations than cppcheck
      # checks at once: the glue is checked in one, the server's
      --suppress=toomanyconfigs
      # the glue reads float8[] and bytea data through PostgreSQL's
      # ARR_DATA_PTR and VARDATA, which are char *: an array's and a
      # bytea's data are MAXALIGNed, so the cast to double * is the idiom
      # of every extension
      "--suppress=invalidPointerCast:src/pg/*")
start=$(date +%s)
cppcheck "${common[@]}" src/math
cppcheck "${common[@]}" "${glue[@]}" src/pg
echo "static analysis: cppcheck $(cppcheck --version | cut -d' ' -f2), src/math and src/pg, no finding ($(( $(date +%s) - start )) s)"
