#!/usr/bin/env bash
# The upgrade script does exactly what the install script does differently.
# Assumes the PG* variables point at a server with both versions of jldp
# installable (superuser connection).
#   For each earlier version OLD (OLDS below):
#   1. Database A: CREATE EXTENSION jldp VERSION 'OLD', then ALTER EXTENSION
#      jldp UPDATE; database B: CREATE EXTENSION jldp.  The catalogs of the
#      extension's objects (functions and aggregates, tables, sequences,
#      indexes, views, types, the member list, the tables whose contents
#      pg_dump keeps) must be identical.
#   2. Negative control (once, from 0.1.0): database C is upgraded like A, then a few things
#      are changed by hand; the comparison must report each of them.
#   3. Data: database D holds a key, a declared dataset, a ledger charge and
#      a registry row made under OLD by OLD's library (built from this
#      repository's history, test/integration/old_library.sh); the new library refuses
#      OLD's SQL (55000, writing nothing) until the update; all of the data
#      is unchanged by the upgrade
#      (owners, ledger roles, key owners and releasers, OIDs in 0.1.0,
#      become the same roles' names;
#      datasets get no spenders; the registry row keeps its kind), and the key
#      still gives the same projection of 0.1.0's default kind, named
#      ('gaussian': 0.2.0's default is 'rademacher').
#   4. From 0.2.0, datasets bound to a partition and to a simple view (as
#      0.2.0 allowed): the update rebinds them to the partitioned table and
#      to the view's table, whose releases their caps then bind (a second
#      release at 0.6 of a cap of 1.0 is refused); with a conflict (the
#      partitioned table has a dataset of its own) or a view a release
#      refuses, the update is refused, naming the datasets, and leaves
#      0.2.0 in place.
# Exits non-zero on any failure.
set -euo pipefail
OLDS="0.1.0 0.2.0 0.3.0 0.3.1 0.3.2 0.3.3 0.3.4 0.4.0 0.4.1 0.4.2 0.5.0 1.0.0 1.1.0"
NEW=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$(dirname "$0")/../../jldp.control")
dbs="jldp_upgrade_a jldp_upgrade_b jldp_upgrade_c jldp_upgrade_d"
tmp=$(mktemp -d)
# the earlier versions' libraries make their data (test/integration/old_library.sh)
JL_OLD_DIR=$tmp/old
source "$(dirname "$0")/old_library.sh"
cleanup() {
  jl_library_current || true
  for db in $dbs; do
    psql -qX -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
fresh_databases() {
  for db in $dbs; do
    psql -qX -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
  done
}
# jldp's API is in schema jldp and its catalog in jldp_internal since 0.5.0
# (before it, both in public): the test's queries name them unqualified
export PGOPTIONS="${PGOPTIONS:-} -c search_path=public,jldp,jldp_internal"
q() { local db=$1; shift; psql -qXAt -v ON_ERROR_STOP=1 -d "$db" "$@"; }

# One line per property of each of the extension's objects, by name (never
# by oid), sorted: two databases with the same objects give the same text.
snapshot() {
  q "$1" <<'SQL'
WITH ext AS (SELECT oid, extnamespace FROM pg_extension WHERE extname = 'jldp'),
mem AS (
  SELECT d.classid, d.objid, d.objsubid
  FROM pg_depend d, ext
  WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'),
fn AS (SELECT p.* FROM pg_proc p JOIN mem ON mem.classid = 'pg_proc'::regclass AND mem.objid = p.oid),
rel AS (SELECT c.* FROM pg_class c JOIN mem ON mem.classid = 'pg_class'::regclass AND mem.objid = c.oid),
typ AS (SELECT t.* FROM pg_type t JOIN mem ON mem.classid = 'pg_type'::regclass AND mem.objid = t.oid),
lines(line) AS (
  SELECT 'extension | ' || concat_ws(' | ', e.extname, e.extnamespace::regnamespace, e.extrelocatable,
         e.extversion)
  FROM pg_extension e WHERE e.extname = 'jldp'
  UNION ALL
  SELECT 'extension | dumped table ' || c::regclass || ' where ' || quote_nullable(w)
  FROM pg_extension e, unnest(e.extconfig, e.extcondition) AS u(c, w) WHERE e.extname = 'jldp'
  UNION ALL
  SELECT 'member | ' || pg_describe_object(classid, objid, objsubid) FROM mem
  UNION ALL
  SELECT 'schema | ' || n.nspname || ' | ' || concat_ws(' | ', n.nspowner::regrole, n.nspacl::text,
         obj_description(n.oid, 'pg_namespace'))
  FROM pg_namespace n JOIN mem ON mem.classid = 'pg_namespace'::regclass AND mem.objid = n.oid
  UNION ALL
  -- functions and aggregates
  SELECT 'function | ' || p.oid::regprocedure || ' | ' || x.k || ' = ' || coalesce(x.v, '<null>')
  FROM fn p, LATERAL (VALUES
      ('kind', p.prokind::text),
      ('arguments', pg_get_function_arguments(p.oid)),
      ('argument names', p.proargnames::text),
      ('argument defaults', pg_get_expr(p.proargdefaults, 0)),
      ('result', pg_get_function_result(p.oid)),
      ('language', (SELECT lanname::text FROM pg_language WHERE oid = p.prolang)),
      ('symbol', p.prosrc || ' in ' || coalesce(p.probin, '-')),
      ('volatility', p.provolatile::text),
      ('strict', p.proisstrict::text),
      ('parallel', p.proparallel::text),
      ('leakproof', p.proleakproof::text),
      ('security definer', p.prosecdef::text),
      ('config', p.proconfig::text),
      ('cost', p.procost::text || ' rows ' || p.prorows::text),
      ('owner', p.proowner::regrole::text),
      ('acl', p.proacl::text),
      ('comment', obj_description(p.oid, 'pg_proc'))) AS x(k, v)
  UNION ALL
  SELECT 'aggregate | ' || a.aggfnoid::regprocedure || ' | ' || concat_ws(' | ',
         a.aggkind, a.aggtransfn::regprocedure, a.aggfinalfn::regprocedure,
         a.aggcombinefn::regprocedure, a.aggserialfn::regprocedure, a.aggdeserialfn::regprocedure,
         a.aggfinalextra, a.aggfinalmodify, a.aggtranstype::regtype, a.aggtransspace,
         quote_nullable(a.agginitval), a.aggmtransfn::regprocedure, a.aggsortop::regoperator)
  FROM pg_aggregate a JOIN fn p ON p.oid = a.aggfnoid
  UNION ALL
  -- relations: tables, sequences, indexes, views
  SELECT 'relation | ' || c.oid::regclass || ' | ' || x.k || ' = ' || coalesce(x.v, '<null>')
  FROM rel c, LATERAL (VALUES
      ('kind', c.relkind::text),
      ('persistence', c.relpersistence::text),
      ('options', c.reloptions::text),
      ('row security', c.relrowsecurity::text || ' forced ' || c.relforcerowsecurity::text),
      ('owner', c.relowner::regrole::text),
      ('acl', c.relacl::text),
      ('comment', obj_description(c.oid, 'pg_class')),
      ('view', CASE WHEN c.relkind IN ('v', 'm') THEN regexp_replace(pg_get_viewdef(c.oid), '\s+', ' ', 'g') END)) AS x(k, v)
  UNION ALL
  SELECT 'column | ' || c.oid::regclass || '.' || quote_ident(a.attname) || ' | ' || concat_ws(' | ',
         'position ' || row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum),
         format_type(a.atttypid, a.atttypmod),
         CASE WHEN a.attnotnull THEN 'not null' ELSE 'null' END,
         'default ' || coalesce(pg_get_expr(ad.adbin, ad.adrelid), '<none>'),
         'identity ' || a.attidentity::text, 'generated ' || a.attgenerated::text,
         'collation ' || coalesce(a.attcollation::regcollation::text, '-'),
         'acl ' || coalesce(a.attacl::text, '<null>'),
         'comment ' || coalesce(col_description(c.oid, a.attnum), '<null>'))
  FROM rel c
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
  UNION ALL
  SELECT 'constraint | ' || c.oid::regclass || ' | ' || concat_ws(' | ', con.conname, con.contype,
         pg_get_constraintdef(con.oid), con.condeferrable, con.convalidated,
         'comment ' || coalesce(obj_description(con.oid, 'pg_constraint'), '<null>'))
  FROM rel c JOIN pg_constraint con ON con.conrelid = c.oid
  UNION ALL
  SELECT 'index | ' || c.oid::regclass || ' | ' || pg_get_indexdef(i.indexrelid)
         || ' | comment ' || coalesce(obj_description(i.indexrelid, 'pg_class'), '<null>')
  FROM rel c JOIN pg_index i ON i.indrelid = c.oid
  UNION ALL
  SELECT 'sequence | ' || c.oid::regclass || ' | ' || concat_ws(' | ', s.seqtypid::regtype,
         s.seqstart, s.seqincrement, s.seqmax, s.seqmin, s.seqcache, s.seqcycle,
         'owned by ' || coalesce((SELECT d.refobjid::regclass || '.' || a.attname
                                  FROM pg_depend d JOIN pg_attribute a
                                    ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
                                  WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                                    AND d.refclassid = 'pg_class'::regclass AND d.deptype = 'a'), '-'))
  FROM rel c JOIN pg_sequence s ON s.seqrelid = c.oid
  UNION ALL
  SELECT 'trigger | ' || c.oid::regclass || ' | ' || pg_get_triggerdef(t.oid)
  FROM rel c JOIN pg_trigger t ON t.tgrelid = c.oid AND NOT t.tgisinternal
  UNION ALL
  SELECT 'policy | ' || c.oid::regclass || ' | ' || concat_ws(' | ', p.polname, p.polcmd,
         p.polpermissive, p.polroles::regrole[]::text, pg_get_expr(p.polqual, p.polrelid),
         pg_get_expr(p.polwithcheck, p.polrelid))
  FROM rel c JOIN pg_policy p ON p.polrelid = c.oid
  UNION ALL
  -- types that are members themselves (a table's row type belongs to the table)
  SELECT 'type | ' || t.oid::regtype || ' | ' || concat_ws(' | ', t.typtype, t.typlen, t.typbyval,
         t.typcategory, t.typinput::regproc, t.typoutput::regproc, t.typreceive::regproc,
         t.typsend::regproc, t.typalign, t.typstorage, t.typnotnull, t.typbasetype::regtype,
         pg_get_expr(t.typdefaultbin, 0), t.typacl::text,
         'comment ' || coalesce(obj_description(t.oid, 'pg_type'), '<null>'))
  FROM typ t)
SELECT line FROM lines ORDER BY line COLLATE "C";
SQL
}

fail=0
for OLD in $OLDS; do
fresh_databases

# 1. upgraded A against fresh B
q jldp_upgrade_a -c "CREATE EXTENSION jldp VERSION '$OLD'" -c "ALTER EXTENSION jldp UPDATE TO '$NEW'"
q jldp_upgrade_b -c "CREATE EXTENSION jldp"
snapshot jldp_upgrade_a > "$tmp/a"
snapshot jldp_upgrade_b > "$tmp/b"
members=$(grep -c '^member ' "$tmp/b" || true)
if [ "$(q jldp_upgrade_b -c "SELECT extversion FROM pg_extension WHERE extname = 'jldp'")" != "$NEW" ]; then
  echo "FAIL a fresh install is not version $NEW"
  fail=1
elif [ "$members" -lt 50 ]; then
  echo "FAIL the snapshot lists only $members members: the comparison would see nothing"
  fail=1
elif diff -u --label "$OLD updated to $NEW" --label "fresh $NEW" "$tmp/a" "$tmp/b" > "$tmp/ab.diff"; then
  echo "ok   $OLD updated to $NEW equals a fresh $NEW: $members members, $(wc -l < "$tmp/b") catalog lines"
else
  echo "FAIL $OLD updated to $NEW differs from a fresh $NEW:"
  cat "$tmp/ab.diff"
  fail=1
fi

# 2. negative control: each change made by hand after the upgrade is reported
if [ "$OLD" = 0.1.0 ]; then
q jldp_upgrade_c -c "CREATE EXTENSION jldp VERSION '$OLD'" -c "ALTER EXTENSION jldp UPDATE TO '$NEW'"
q jldp_upgrade_c <<'SQL'
COMMENT ON FUNCTION jl_min_dim(bigint, float8) IS 'changed by hand';
ALTER FUNCTION jl_suggest_k(int, bigint, float8, float8, float8, jl_neighbor, float8, jl_noise, float8, jl_kind, jl_calibration, text) PARALLEL RESTRICTED;
ALTER TABLE jldp_release ALTER COLUMN version SET DEFAULT '0.0.0';
COMMENT ON TABLE jldp_ledger IS NULL;
GRANT SELECT ON jl_keys TO PUBLIC;
CREATE FUNCTION jl_stray() RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT 1';
ALTER EXTENSION jldp ADD FUNCTION jl_stray();
SQL
snapshot jldp_upgrade_c > "$tmp/c"
diff "$tmp/c" "$tmp/b" > "$tmp/cb.diff" || true
missed=""
for pattern in \
    '^< function | jl_min_dim(bigint,double precision) | comment = changed by hand' \
    '^< function | jl_suggest_k(.*) | parallel = r' \
    '^< column | jldp_release.version | .*default '"'"'0.0.0'"'"'' \
    '^> relation | jldp_ledger | comment = Privacy budget ledger' \
    '^< relation | jl_keys | acl = .*=r/' \
    '^< member | function jl_stray()'; do
  grep -q -- "$pattern" "$tmp/cb.diff" || missed="$missed
  $pattern"
done
if [ -z "$missed" ]; then
  echo "ok   negative control: a changed comment, parallel label, column default, table comment, view ACL and an extra member are all reported ($(grep -c '^[<>]' "$tmp/cb.diff") differing lines)"
else
  echo "FAIL negative control: the comparison did not report:$missed"
  cat "$tmp/cb.diff"
  fail=1
fi
fi

# 3. data kept by the upgrade, made by the old version's library
jl_library_use "$(jl_old_library "$OLD")"
# the old version's own forms of the primitives (0.5.0 typed the options)
if [ "$(printf '%s\n' 0.5.0 "$OLD" | sort -V | head -n 1)" = 0.5.0 ]; then
  PRIVATE_RELEASE="jl_private_release(x, 1.0, 1, 'attribute', jl_sketch(k => 3), key => 'kept')"
  RELEASE_INFO="jl_release_info(3, 1.0, 1, 'attribute', jl_sketch(k => 3), key => 'kept')"
else
  PRIVATE_RELEASE="jl_private_release(x, 3, 1.0, key => 'kept')"
  RELEASE_INFO="jl_release_info(3, 3, 1.0, key => 'kept')"
fi
# the old version's declaration: by jl_protect since 1.0.0, which retired
# the dataset-named functions
if [ "$(printf '%s\n' 1.0.0 "$OLD" | sort -V | head -n 1)" = 1.0.0 ]; then
  DS=public.src
  DECLARE="SELECT jl_protect('src', 'id', ARRAY[jl_vector('x', 3, 0, 100)], neighbor => 'attribute', epsilon_cap => 5)"
else
  DS=kept_ds
  DECLARE="SELECT jl_dataset_declare('kept_ds', 5.0, source => 'src')"
fi
q jldp_upgrade_d >/dev/null <<SQL
CREATE EXTENSION jldp VERSION '$OLD';
SELECT jl_key_import('kept', '\x00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff');
CREATE TABLE src AS SELECT i AS id, ARRAY[i, 2 * i, i % 3]::float8[] AS x FROM generate_series(1, 50) i;
ALTER TABLE src ADD PRIMARY KEY (id);
$DECLARE;
-- a release as the old version's jl_release_table recorded it (the
-- library no longer has it): its sketches, its charge and its registry row
CREATE TABLE src_private AS SELECT id, $PRIVATE_RELEASE AS sketch FROM src;
UPDATE jldp_dataset SET epsilon_spent = 1 WHERE name = '$DS';
INSERT INTO jldp_ledger (dataset, event, epsilon, delta, epsilon_spent, delta_spent, what, role)
  SELECT '$DS', 'charge', 1, 0, 1, 0, 'jl_release_table into src_private', role
    FROM jldp_ledger WHERE dataset = '$DS' AND event = 'declare';
INSERT INTO jldp_release (source, target, id_column, vector, d, k, projection, neighbor, bound, clipping,
                          calibration, epsilon, delta, noise_variance, grid, key_fingerprint, dataset,
                          ledger_id, info, version, released_by)
  SELECT 'public.src', 'src_private'::regclass, 'id', 'x', 3, 3, i->>'projection', 'element', 1, 'none',
         i->>'calibration', 1, 0, (i->>'noise_variance')::float8, (i->>'grid')::float8, i->>'key_fingerprint',
         '$DS', l.id, i || '{"rows": 50}', '$OLD', l.role
    FROM $RELEASE_INFO i, jldp_ledger l
   WHERE l.dataset = '$DS' AND l.event = 'charge';
SQL
contents() {
  q jldp_upgrade_d <<'SQL'
SELECT 'key | ' || (to_jsonb(k) - 'owner' - 'users')::text || ' | owner ' ||   -- users added by 0.5.0 (checked empty below)
       CASE WHEN pg_typeof(k.owner) = 'oid'::regtype THEN pg_get_userbyid(k.owner::text::oid)::text
            ELSE k.owner::text END
  FROM jldp_key k ORDER BY name;
SELECT 'dataset | ' || (to_jsonb(d) - 'owner' - 'spenders' - 'unit' - 'attributes' - 'neighbor' - 'row_clip' - 'columns'
                        - 'epsilon_composed' - 'delta_composed' - 'composed_by')::text || ' | owner ' ||   -- composed totals added by 1.1.0 (checked below)   -- columns added later (a declaration of 0.4.0: NULL until jl_protect)
       CASE WHEN pg_typeof(d.owner) = 'oid'::regtype THEN pg_get_userbyid(d.owner::text::oid)::text
            ELSE d.owner::text END
  FROM jldp_dataset d ORDER BY name;
SELECT 'ledger | ' || (to_jsonb(l) - 'role' - 'profile' - 'rho' - 'epsilon_composed' - 'delta_composed' - 'composed_by' - 'mu')::text || ' | role ' ||
       CASE WHEN pg_typeof(l.role) = 'oid'::regtype THEN pg_get_userbyid(l.role::text::oid)::text
            ELSE l.role::text END
  FROM jldp_ledger l ORDER BY id;
SELECT 'registry | ' || (to_jsonb(r) - 'released_by')::text || ' | released_by ' ||
       CASE WHEN pg_typeof(r.released_by) = 'oid'::regtype THEN pg_get_userbyid(r.released_by::text::oid)::text
            ELSE r.released_by::text END
  FROM jldp_release r ORDER BY id;
SELECT 'sketches | ' || count(*) || ' ' || md5(string_agg(s::text, ',' ORDER BY id)) FROM src_private s;
-- the key's projection, by 0.5.0's jl_project(x, jl_sketch(...), key) or
-- by the (x, k, key, kind) of the versions before it
CREATE FUNCTION pg_temp.projection() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r text;
BEGIN
  -- (to_regprocedure fails on a type that does not exist: nested, not AND)
  IF to_regtype('jl_mechanism') IS NOT NULL THEN
    IF to_regprocedure('jl_project(float8[], jl_mechanism, text)') IS NOT NULL THEN
      EXECUTE $q$SELECT jl_project('{1, 2, 3}', jl_sketch(k => 3, kind => 'gaussian'), 'kept')::text$q$ INTO r;
      RETURN r;
    END IF;
  END IF;
  EXECUTE $q$SELECT jl_project('{1, 2, 3}', 3, 'kept', 'gaussian')::text$q$ INTO r;
  RETURN r;
END $$;
SELECT 'projection | ' || pg_temp.projection();
SQL
}
contents > "$tmp/d.before"
first=$OLD
# the new library under the old SQL: refused before anything is written
jl_library_current
ledger_before=$(q jldp_upgrade_d -c "SELECT (SELECT count(*) FROM jldp_ledger) || ' ' || (SELECT count(*) FROM jldp_key)")
refused=$(q jldp_upgrade_d -c "SELECT jl_key_create('refused')" 2>&1 || true)
ledger_after=$(q jldp_upgrade_d -c "SELECT (SELECT count(*) FROM jldp_ledger) || ' ' || (SELECT count(*) FROM jldp_key)")
if echo "$refused" | grep -q "jldp's library is version $NEW, and its SQL in this database is version $OLD" &&
   echo "$refused" | grep -q "ALTER EXTENSION jldp UPDATE" && [ "$ledger_before" = "$ledger_after" ]; then
  echo "ok   the $NEW library refuses the $OLD SQL's calls, with the update as the hint, writing nothing"
else
  echo "FAIL the $NEW library under the $OLD SQL: '$refused' (ledger rows and keys $ledger_before, then $ledger_after)"
  fail=1
fi
q jldp_upgrade_d -c "ALTER EXTENSION jldp UPDATE TO '$NEW'"
contents > "$tmp/d.after"
rows=$(grep -c -e '^key ' -e '^dataset ' -e '^ledger ' -e '^registry ' "$tmp/d.before" || true)
# (from 1.1.0 on, the old charge was written with the columns of its time)
since_110=$([ "$(printf '%s\n' 1.1.0 "$OLD" | sort -V | head -n 1)" = 1.1.0 ] && echo t || echo f)
versions=$(q jldp_upgrade_d -v since_110="$since_110" <<'SQL'
-- the old charges' profiles and the composed totals as the update to 1.1.0
-- writes them: a charge of delta 0 pure, the totals the sums (a 1.1.0
-- ledger keeps what it had); no old charge has a dominating shift (1.2.0)
SELECT bool_and(mu IS NULL AND (:'since_110'::bool OR
                (profile IS NOT DISTINCT FROM CASE WHEN event = 'charge' THEN 'pure' END
                 AND epsilon_composed = epsilon_spent::float8 AND composed_by = 'basic')))
       AND (:'since_110'::bool OR (SELECT bool_and(epsilon_composed = epsilon_spent::float8) FROM jldp_dataset))
  FROM jldp_ledger;
-- the old dataset completed as a declaration (attribute neighbours: what
-- 0.3 spent bounds one element's loss), then released through the pipeline
SELECT d = 3 FROM jl_protect('src', 'id', ARRAY[jl_vector('x', 3, 0, 100)], neighbor => 'attribute', epsilon_cap => 5);
SELECT released IS NOT NULL FROM jl_release('src', 'src_private2', 1.0, jl_sketch(k => 3), key => 'kept');
SELECT string_agg(version, ' ' ORDER BY id) FROM jldp_release;
SELECT bool_and(spenders = '{}' AND owner::text = (SELECT extowner::regrole::text FROM pg_extension WHERE extname = 'jldp'))
       AND (SELECT bool_and(users = '{}') FROM jldp_key)
  FROM jldp_dataset;
-- the old version's released table is still usable for recovery by name:
-- the variance and k come from its registry row (each pair's value is
-- ||a - b||^2 - 2 k nv, computed here from the row)
SELECT bool_and(abs(jl_recover_dist(a.sketch, b.sketch, 'src_private')
                    - ((SELECT sum((u - v) ^ 2) FROM unnest(a.sketch, b.sketch) t(u, v))
                       - 2 * r.k * r.noise_variance)) < 1e-9) AND count(*) = 50
  FROM src_private a JOIN src_private b ON b.id = a.id % 50 + 1,
       jldp_release r WHERE r.target = 'src_private'::regclass;
SQL
)
if [ "$rows" -lt 4 ] || ! grep -q '^registry ' "$tmp/d.before" || ! grep -q '^ledger .*charge' "$tmp/d.before"; then
  echo "FAIL data: the $OLD database holds too little to test ($rows rows):"
  cat "$tmp/d.before"
  fail=1
elif ! diff -u --label "$OLD" --label "updated to $NEW" "$tmp/d.before" "$tmp/d.after"; then
  echo "FAIL data: the upgrade changed the extension's tables or the key's projection"
  fail=1
elif [ "$versions" != "$(printf 't\nt\nt\n%s %s\nt\nt' "$first" "$NEW")" ]; then
  echo "FAIL data: the old charges' profiles, registry versions, owners by name and keys granted to no one, the old release recovered by name: '$versions', expected t, t, t, $first then $NEW, then t, t"
  fail=1
else
  echo "ok   data: a key, a dataset, its ledger and a registry row ($rows rows) and the key's projection are unchanged; the old release is recovered by name; the dataset, declared with jl_protect, releases through the pipeline, recorded as $NEW"
fi

# 4. datasets bound to a partition or a view (0.2.0 allowed both); the rows
# 0.2.0's jl_dataset_declare wrote are written directly (its key by
# 0.2.0's library)
if [ "$OLD" = 0.2.0 ]; then
bound_setup() {
  q jldp_upgrade_c >/dev/null <<'SQL'
CREATE EXTENSION jldp VERSION '0.2.0';
SELECT jl_key_import('kept', '\x00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff');
CREATE TABLE part (id int PRIMARY KEY, x float8[] NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE part_1 PARTITION OF part FOR VALUES FROM (0) TO (100);
INSERT INTO part SELECT i, ARRAY[i % 7, i % 5]::float8[] FROM generate_series(1, 50) i;
CREATE TABLE base (id int PRIMARY KEY, x float8[] NOT NULL);
INSERT INTO base SELECT i, ARRAY[i % 7, i % 5]::float8[] FROM generate_series(1, 50) i;
CREATE VIEW base_v AS SELECT id, x FROM base;
CREATE VIEW base_x2 AS SELECT b.id, b.x FROM base b, generate_series(1, 2) g;
INSERT INTO jldp_dataset (name, epsilon_cap, delta_cap, source, owner) VALUES
  ('partition cap', 1.0, 0, 'part_1', current_user), ('view cap', 1.0, 0, 'base_v', current_user);
SQL
}
# the relation a dataset was rebound to, declared (once) and released
bound_release() {
  q jldp_upgrade_c -c "SELECT jl_protect('$1', 'id', ARRAY[jl_vector('x', 2, 0, 7)], neighbor => 'attribute', epsilon_cap => 1.0) WHERE NOT EXISTS (SELECT FROM jl_protected WHERE relation = '$1'::regclass AND attributes IS NOT NULL)" >/dev/null 2>&1 || true
  q jldp_upgrade_c -c "SELECT released IS NOT NULL FROM jl_release('$1', '$2', 0.6, jl_sketch(k => 2), key => 'kept')" 2>&1 || true
}
psql -qX -d postgres -c "DROP DATABASE jldp_upgrade_c" -c "CREATE DATABASE jldp_upgrade_c" >/dev/null
jl_library_use "$(jl_old_library 0.2.0)"
bound_setup
jl_library_current
rebound=$(q jldp_upgrade_c -c "SET client_min_messages = warning" -c "ALTER EXTENSION jldp UPDATE TO '$NEW'" \
            -c "SELECT string_agg(name || ' -> ' || source::text, ', ' ORDER BY name) FROM jldp_dataset" 2>&1 || true)
first_p=$(bound_release part o1); second_p=$(bound_release part o2)
first_v=$(bound_release base o3); second_v=$(bound_release base o4)
spent=$(q jldp_upgrade_c -c "SELECT string_agg(name || ' ' || epsilon_spent, ', ' ORDER BY name) FROM jldp_dataset")
if [ "$rebound" = "partition cap -> part, view cap -> base" ] && [ "$first_p" = t ] && [ "$first_v" = t ] && \
   echo "$second_p" | grep -q 'dataset "partition cap" would be exceeded' && \
   echo "$second_v" | grep -q 'dataset "view cap" would be exceeded' && \
   [ "$spent" = "partition cap 0.6, view cap 0.6" ]; then
  echo "ok   bound to a partition or a view: rebound to the relation read ($rebound); each cap of 1.0 refused a second release at 0.6"
else
  echo "FAIL bound to a partition or a view: '$rebound'; partition releases '$first_p' then '$second_p'; view releases '$first_v' then '$second_v'; spent '$spent'"
  fail=1
fi
# a conflict and a view a release refuses: the update is refused
psql -qX -d postgres -c "DROP DATABASE jldp_upgrade_c" -c "CREATE DATABASE jldp_upgrade_c" >/dev/null
jl_library_use "$(jl_old_library 0.2.0)"
bound_setup
jl_library_current
q jldp_upgrade_c -c "INSERT INTO jldp_dataset (name, epsilon_cap, delta_cap, source, owner) VALUES
  ('root cap', 1.0, 0, 'part', current_user), ('x2 cap', 1.0, 0, 'base_x2', current_user)" >/dev/null
refusal=$(q jldp_upgrade_c -c "ALTER EXTENSION jldp UPDATE TO '$NEW'" 2>&1 || true)
version=$(q jldp_upgrade_c -c "SELECT extversion FROM pg_extension WHERE extname = 'jldp'")
if echo "$refusal" | grep -q "cannot update jldp: 2 dataset" && echo "$refusal" | grep -q "'partition cap' (bound to part_1" && \
   echo "$refusal" | grep -q "'x2 cap' (bound to base_x2" && ! echo "$refusal" | grep -q "'view cap'" && [ "$version" = 0.2.0 ]; then
  echo "ok   bound to a partition or a view, with a conflict: the update was refused, naming 'partition cap' and 'x2 cap'; still 0.2.0"
else
  echo "FAIL bound to a partition or a view, with a conflict: version $version; the update said: $refusal"
  fail=1
fi
fi
done
exit $fail
