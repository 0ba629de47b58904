-- jldp 1.0.0 -> 1.1.0:
--  - the budget composed by the tightest valid accounting: each charge's
--    privacy profile in the ledger, the composed totals in jldp_dataset
--    and jldp_ledger (the existing rows: their sums, each old charge pure
--    when its delta is 0, else known by its (epsilon, delta) only), shown by
--    jl_budgets, jl_ledger and jl_protected;
--  - jl_key_revoke takes the role's name, so that a grantee dropped since
--    can be revoked (a new role of its name would otherwise use the key);
--  - the documentation in three kinds (docs/guide, docs/reference,
--    docs/design): the two hints of a distributed release that name the
--    scale-out notes name their new place.
-- Keys, grants, declarations, the ledger's rows, the registry and released
-- tables are kept.

\echo Use "ALTER EXTENSION jldp UPDATE TO '1.1.0'" to load this file. \quit

DROP FUNCTION jldp.jl_key_revoke(text, regrole);
CREATE FUNCTION jldp.jl_key_revoke(name text, role name)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_key_revoke'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_key_revoke(text, name) IS
  'Take back what jl_key_grant allowed (by the role''s name: also a role dropped since, whose name a new role could take).';

REVOKE ALL ON FUNCTION jldp.jl_key_revoke(text, name) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION jldp.jl_key_revoke(text, name) TO jldp_curator;

CREATE OR REPLACE PROCEDURE jldp_internal.jl_distributed_run(
    source regclass, id_column text, target text, key text, epsilon float8, delta float8,
    noise text, mechanism jldp.jl_mechanism, part_call text, INOUT release_id bigint DEFAULT NULL)
LANGUAGE plpgsql
AS $fn$
DECLARE
  decl jsonb;         -- the coordinator's declaration (a sharded protected table)
  rdecl text;         -- a shard's
  lowers text[];      -- each partition's bounds, for its shard's part
  uppers text[];
  members text[];
  part_sql text;
  -- a test's failure point (jldp_test.fail_point), a superuser's only: it
  -- holds a release's prepared parts, or fails it after the shards charged
  -- set for the session, not planted for it by ALTER DATABASE or ALTER ROLE
  fail_point text := CASE WHEN (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER)
                               AND NOT EXISTS (SELECT FROM pg_catalog.pg_db_role_setting d, pg_catalog.unnest(d.setconfig) c
                                                WHERE c LIKE 'jldp\_test.fail\_point=%')
                          THEN pg_catalog.current_setting('jldp_test.fail_point', true) END;
  expect jsonb;       -- the bounds a shard's part must have applied
  parts oid[];        -- the partitions, as pg_inherits lists them
  bparts oid[];       -- and as jl_shard_bounds does
  dl text;            -- dblink's schema, quoted
  gid text;
  cschema text;       -- where the caller's unqualified target would go
  rschemas text[] := '{}';   -- on each shard: the schema its CREATE TABLE uses
  rjl text[] := '{}';        -- on each shard: jldp's API schema, quoted
  tname text;
  rtype text;
  rjlname text;
  rcur text;
  nother int;
  nservers int;
  rexists boolean;
  lk int;
  n int;
  srv text[];
  remote text[];
  bounds text[];
  conns text[] := '{}';
  rids bigint[] := '{}';
  recs jsonb[] := '{}';
  opened int := 0;
  prepared int := 0;
  strat text;
  natts int;
  keycol text;
  idtype text;
  rid bigint;
  r jsonb;
  fp text;
  mpt int;
  fps text[] := '{}';
  rident text;
  idents text[] := '{}';      -- each partition's remote table: system/database/oid
  info jsonb;
  nrows bigint := 0;
  in_doubt text[] := '{}';
  lock_bound text;    -- how long a name's reservation waits for another transaction
  saved_lt text;
  rname text;
  ri int;
  untimed text;
  dlk int;            -- the source's lock: one distributed release of it at a time
  me_ident text;      -- this coordinator: system identifier/database
  volatile_keys text[] := ARRAY['id', 'target', 'source', 'dataset', 'released_at', 'released_by',
                                'info', 'target_schema', 'target_name'];
BEGIN
  -- names are resolved in pg_catalog only while the procedure runs (a
  -- procedure that commits cannot have SET search_path); the target goes
  -- where the caller's CREATE TABLE would put it
  cschema := pg_catalog.current_schema();
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  -- refuses an undeclared table, or one whose declaration the catalog no longer allows
  decl := jldp_internal.jl_declaration_info(source);
  id_column := decl->'declaration'->>'unit';
  IF cschema IS NULL THEN
    RAISE EXCEPTION 'jl_release_distributed: no schema has been selected to create the target in'
      USING ERRCODE = '3F000';
  END IF;
  SELECT pg_catalog.quote_ident(ns.nspname) INTO dl
    FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace ns ON ns.oid = e.extnamespace
   WHERE e.extname = 'dblink';
  IF dl IS NULL THEN
    RAISE EXCEPTION 'jl_release_distributed needs the dblink extension on the coordinator'
      USING ERRCODE = '0A000',
            HINT = 'CREATE EXTENSION dblink; the release connects to each shard through its foreign server and the caller''s user mapping.';
  END IF;

  -- the source: a table partitioned by the id column alone, each partition
  -- a foreign table (postgres_fdw) on a server of its own
  IF (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = source) IS DISTINCT FROM 'p' THEN
    RAISE EXCEPTION 'jl_release_distributed: % is not a partitioned table', source
      USING ERRCODE = '42809',
            HINT = 'Release a table on one server with jl_release.';
  END IF;
  SELECT CASE pt.partstrat WHEN 'r' THEN 'RANGE' WHEN 'l' THEN 'LIST' ELSE 'HASH' END, pt.partnatts,
         (SELECT a.attname FROM pg_catalog.pg_attribute a WHERE a.attrelid = source AND a.attnum = pt.partattrs[0])
    INTO strat, natts, keycol
    FROM pg_catalog.pg_partitioned_table pt WHERE pt.partrelid = source;
  -- by the column itself, with its own collation and the default operator
  -- class (pg_get_partkeydef names either only when it is not the default):
  -- the coordinator's target is partitioned alike
  IF natts <> 1 OR keycol IS DISTINCT FROM id_column
     OR pg_catalog.pg_get_partkeydef(source) IS DISTINCT FROM strat || ' (' || pg_catalog.quote_ident(id_column) || ')' THEN
    RAISE EXCEPTION 'jl_release_distributed: % must be partitioned by its id column "%" alone', source, id_column
      USING ERRCODE = '0A000',
            HINT = 'The sharded sketch table is partitioned like the source, by the id (with the column''s own collation and the default operator class).';
  END IF;
  SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) INTO idtype
    FROM pg_catalog.pg_attribute a WHERE a.attrelid = source AND a.attname = id_column AND NOT a.attisdropped;
  SELECT pg_catalog.array_agg(s.srvname::text ORDER BY c.relname, c.oid),
         pg_catalog.array_agg(pg_catalog.format('%I.%I',
             coalesce((SELECT pg_catalog.substr(o, 13) FROM pg_catalog.unnest(ft.ftoptions) o WHERE o LIKE 'schema\_name=%'), ns.nspname::text),
             coalesce((SELECT pg_catalog.substr(o, 12) FROM pg_catalog.unnest(ft.ftoptions) o WHERE o LIKE 'table\_name=%'), c.relname::text))
           ORDER BY c.relname, c.oid),
         pg_catalog.array_agg(pg_catalog.pg_get_expr(c.relpartbound, c.oid) ORDER BY c.relname, c.oid),
         count(*),
         count(*) FILTER (WHERE w.fdwname IS DISTINCT FROM 'postgres_fdw'),
         count(DISTINCT s.srvname),
         pg_catalog.array_agg(c.oid ORDER BY c.relname, c.oid)
    INTO srv, remote, bounds, n, nother, nservers, parts
    FROM pg_catalog.pg_inherits i
    JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
    JOIN pg_catalog.pg_namespace ns ON ns.oid = c.relnamespace
    LEFT JOIN pg_catalog.pg_foreign_table ft ON ft.ftrelid = c.oid
    LEFT JOIN pg_catalog.pg_foreign_server s ON s.oid = ft.ftserver
    LEFT JOIN pg_catalog.pg_foreign_data_wrapper w ON w.oid = s.srvfdw
   WHERE i.inhparent = source;
  IF n = 0 OR nother > 0 THEN
    RAISE EXCEPTION 'jl_release_distributed: every partition of % must be a foreign table of postgres_fdw', source
      USING ERRCODE = '0A000',
            HINT = 'Release a table on one server with jl_release; sub-partitioned partitions are not supported.';
  END IF;
  IF nservers <> n THEN
    RAISE EXCEPTION 'jl_release_distributed: two partitions of % are on one foreign server', source
      USING ERRCODE = '0A000',
            HINT = 'Each shard releases into one table named like the target: give each partition a server of its own.';
  END IF;
  -- a shard that accepts connections but never answers would hold the
  -- release past every timeout while connecting (libpq's connection setup
  -- ignores a cancel): each server must bound it
  SELECT pg_catalog.string_agg(x, ', ' ORDER BY x) INTO untimed
    FROM pg_catalog.unnest(srv) x JOIN pg_catalog.pg_foreign_server s ON s.srvname = x
   WHERE NOT EXISTS (SELECT FROM pg_catalog.unnest(s.srvoptions) o
                      WHERE o ~ '^connect_timeout=\s*0*([1-9][0-9]?|[12][0-9][0-9]|300)\s*$');
  IF untimed IS NOT NULL THEN
    RAISE EXCEPTION 'jl_release_distributed: foreign server "%" sets no connect_timeout of 1 to 300 seconds', pg_catalog.split_part(untimed, ', ', 1)
      USING ERRCODE = '0A000',
            DETAIL = pg_catalog.format('Servers without one: %s.', untimed),
            HINT = pg_catalog.format('ALTER SERVER %I OPTIONS (ADD connect_timeout ''5''); a frozen shard would otherwise hold the release past statement_timeout and pg_terminate_backend (docs/design/scaleout.md).',
                                     pg_catalog.split_part(untimed, ', ', 1));
  END IF;
  -- each shard reads the units within its partition's bounds
  SELECT pg_catalog.array_agg(b.unit_lower ORDER BY c.relname, c.oid),
         pg_catalog.array_agg(b.unit_upper ORDER BY c.relname, c.oid),
         pg_catalog.array_agg(b.unit_in::text ORDER BY c.relname, c.oid),
         pg_catalog.array_agg(c.oid ORDER BY c.relname, c.oid)
    INTO lowers, uppers, members, bparts
    FROM jldp_internal.jl_shard_bounds(source) b JOIN pg_catalog.pg_class c ON c.oid = b.partition;
  -- one list of partitions for the servers and the bounds
  IF bparts IS DISTINCT FROM parts THEN
    RAISE EXCEPTION 'jl_release_distributed: the partitions of % changed while they were read', source
      USING ERRCODE = '55000',
            HINT = 'A partition is being attached or detached; nothing was charged.';
  END IF;
  -- the target's name as the shards' releases read it
  BEGIN
    tname := (pg_catalog.parse_ident(target))[1];
    IF pg_catalog.cardinality(pg_catalog.parse_ident(target)) <> 1 THEN
      RAISE EXCEPTION USING ERRCODE = '42602';
    END IF;
  EXCEPTION WHEN OTHERS THEN
    RAISE EXCEPTION 'jl_release_distributed: target must be a plain table name, not "%"', target
      USING ERRCODE = '42602',
            HINT = 'The target is created in the first schema of the search path, on the coordinator and on each shard.';
  END;
  IF pg_catalog.octet_length(tname || '_' || n) > 63 THEN
    RAISE EXCEPTION 'jl_release_distributed: target name "%" is too long for its partitions (%_1 ...)', tname, tname
      USING ERRCODE = '42622';
  END IF;
  FOR i IN 0 .. n LOOP
    IF pg_catalog.to_regclass(pg_catalog.format('%I.%I', cschema, CASE WHEN i = 0 THEN tname ELSE tname || '_' || i END)) IS NOT NULL THEN
      RAISE EXCEPTION 'jl_release_distributed: relation "%" already exists',
        CASE WHEN i = 0 THEN tname ELSE tname || '_' || i END
        USING ERRCODE = '42P07',
              HINT = 'The target and its partitions target_1, target_2, ... are created on the coordinator.';
    END IF;
  END LOOP;
  -- not inside a transaction block, and nothing the coordinator's charge
  -- would refuse: checked before any shard spends its budget
  gid := jldp_internal.jl_distributed_begin_declared(source, epsilon, delta, (mechanism).noise);
  -- nor called where it cannot commit (from a function, say): find out now
  COMMIT;
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

  -- one distributed release of source at a time, from here to its
  -- decision: a second one waits (at most the caller's lock_timeout, 10 s
  -- without one), then checks the coordinator's charge again against what
  -- the first one spent.  Otherwise both passed the check above, every
  -- shard charged for both, and the second was refused at its decision.
  saved_lt := pg_catalog.current_setting('lock_timeout');
  lock_bound := CASE WHEN saved_lt = '0' THEN '10s' ELSE saved_lt END;
  dlk := pg_catalog.hashtext('jl_release_distributed/' || source::pg_catalog.oid::pg_catalog.text);
  BEGIN
    PERFORM pg_catalog.set_config('lock_timeout', lock_bound, true);
    PERFORM pg_catalog.pg_advisory_lock(1785488497, dlk);
    PERFORM pg_catalog.set_config('lock_timeout', saved_lt, true);
  EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION 'jl_release_distributed: another distributed release of % is in progress', source
      USING ERRCODE = '55P03',
            HINT = pg_catalog.format('Nothing was charged; it was waited for %s (lock_timeout).', lock_bound);
  END;
  BEGIN
    gid := jldp_internal.jl_distributed_begin_declared(source, epsilon, delta, (mechanism).noise);
  EXCEPTION WHEN OTHERS OR query_canceled THEN
    PERFORM pg_catalog.pg_advisory_unlock(1785488497, dlk);
    RAISE;
  END;
  me_ident := (SELECT system_identifier::text FROM pg_catalog.pg_control_system()) || '/' ||
              pg_catalog.current_database();

  -- a release in progress holds this lock until it ends (or its session
  -- does): jl_distributed_resolve leaves its prepared parts alone
  lk := pg_catalog.hashtext(gid);
  PERFORM pg_catalog.pg_advisory_lock(1785488496, lk);

  -- connect; every shard must hold the same key and allow prepared transactions
  BEGIN
    FOR i IN 1 .. n LOOP
      conns := conns || (gid || '_' || i);
      EXECUTE pg_catalog.format('SELECT %s.dblink_connect($1, $2)', dl) USING conns[i], srv[i];
      opened := i;
      -- the shard's jldp version (its API is in schema jldp, its parts in
      -- jldp_internal, as here) and the schema its CREATE TABLE uses; then
      -- names resolve in pg_catalog only
      EXECUTE pg_catalog.format('SELECT j, c FROM %s.dblink($1, $2) AS t(j text, c text)', dl)
        INTO rjlname, rcur
        USING conns[i], 'SELECT (SELECT e.extversion FROM pg_catalog.pg_extension e '
                        'WHERE e.extname OPERATOR(pg_catalog.=) ''jldp''), '
                        'pg_catalog.current_schema()';
      IF rjlname IS NULL OR rcur IS NULL THEN
        RAISE EXCEPTION 'jl_release_distributed: shard % has no jldp extension or no schema to create the target in', srv[i]
          USING ERRCODE = '55000';
      END IF;
      IF rjlname IS DISTINCT FROM (SELECT e.extversion FROM pg_catalog.pg_extension e WHERE e.extname = 'jldp') THEN
        RAISE EXCEPTION 'jl_release_distributed: shard % runs jldp %, this server %', srv[i], rjlname,
                        (SELECT e.extversion FROM pg_catalog.pg_extension e WHERE e.extname = 'jldp')
          USING ERRCODE = '55000',
                HINT = 'ALTER EXTENSION jldp UPDATE on every server; nothing was charged.';
      END IF;
      rjl := rjl || 'jldp'::text;
      rschemas := rschemas || rcur;
      EXECUTE pg_catalog.format('SELECT %s.dblink_exec($1, $2)', dl)
        USING conns[i], 'SET search_path = pg_catalog, pg_temp';
      EXECUTE pg_catalog.format('SELECT fp, mpt, rexists, rtype, ident FROM %s.dblink($1, $2) '
                                'AS t(fp text, mpt int, rexists boolean, rtype text, ident text)', dl)
        INTO fp, mpt, rexists, rtype, rident
        USING conns[i], pg_catalog.format(
          'SELECT (SELECT fingerprint FROM %s.jl_keys WHERE name = %L), '
          'pg_catalog.current_setting(''max_prepared_transactions'')::int, '
          'pg_catalog.to_regclass(%L) IS NOT NULL, '
          '(SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a '
          ' WHERE a.attrelid = pg_catalog.to_regclass(%L) AND a.attname = %L AND NOT a.attisdropped), '
          '(SELECT system_identifier::text FROM pg_catalog.pg_control_system()) OPERATOR(pg_catalog.||) ''/'' '
          'OPERATOR(pg_catalog.||) pg_catalog.current_database() OPERATOR(pg_catalog.||) ''/'' '
          'OPERATOR(pg_catalog.||) pg_catalog.to_regclass(%L)::oid::text',
          rjl[i], key, pg_catalog.format('%I.%I', rschemas[i], tname), remote[i], id_column, remote[i]);
      idents := idents || rident;
      IF rexists THEN
        RAISE EXCEPTION 'jl_release_distributed: relation "%" already exists on shard %', tname, srv[i]
          USING ERRCODE = '42P07';
      END IF;
      IF rtype IS DISTINCT FROM idtype THEN
        RAISE EXCEPTION 'jl_release_distributed: the id column "%" of % on shard % is %, not % as on the coordinator',
          id_column, remote[i], srv[i], coalesce(rtype, 'missing'), idtype
          USING ERRCODE = '42804';
      END IF;
      IF fp IS NULL THEN
        RAISE EXCEPTION 'jl_release_distributed: shard % has no key named "%"', srv[i], key
          USING ERRCODE = '42704',
                HINT = 'Carry the key with jl_key_export and jl_key_import_wrapped (docs/design/scaleout.md).';
      END IF;
      IF mpt = 0 THEN
        RAISE EXCEPTION 'jl_release_distributed: shard % does not allow prepared transactions', srv[i]
          USING ERRCODE = '55000',
                HINT = 'Set max_prepared_transactions above 0 on every shard (a restart is needed).';
      END IF;
      fps := fps || fp;
      -- a sharded protected table: each shard's declaration of its table is
      -- the coordinator's (checked again by the decision, from the parts'
      -- records)
      EXECUTE pg_catalog.format('SELECT d FROM %s.dblink($1, $2) AS t(d text)', dl) INTO rdecl
        USING conns[i], pg_catalog.format('SELECT jldp_internal.jl_declaration_info(%L::pg_catalog.regclass)::text', remote[i]);
      IF rdecl::jsonb IS DISTINCT FROM decl THEN
        RAISE EXCEPTION 'jl_release_distributed: the declaration of % on shard % is not the coordinator''s declaration of %',
          remote[i], srv[i], source
          USING ERRCODE = '55000',
                DETAIL = pg_catalog.format('Shard: %s; coordinator: %s.', rdecl, decl),
                HINT = 'Declare the table on every shard with the jl_protect call made on the coordinator (the same unit, attributes, neighbours and row clip); nothing was charged.';
      END IF;
    END LOOP;
    -- two servers (or partitions) reading one remote table would release
    -- its rows twice under the coordinator's one charge: refused before
    -- any shard charges
    IF (SELECT count(DISTINCT x) FROM pg_catalog.unnest(idents) x) < n THEN
      RAISE EXCEPTION 'jl_release_distributed: two partitions of % read the same table on one database',
        source
        USING ERRCODE = '0A000',
              DETAIL = pg_catalog.format('Remote tables (system identifier/database/table oid) by server: %s.',
                         pg_catalog.array_to_string(
                           ARRAY(SELECT srv[j] || ' ' || coalesce(idents[j], 'missing')
                                   FROM pg_catalog.generate_series(1, n) j), ', ')),
              HINT = 'Each partition must be a table of its own: its rows would be released once per partition.';
    END IF;
    -- nor two partitions on one database: both parts would create the
    -- target there (the second waiting for the first one's prepared
    -- transaction, for good)
    IF (SELECT count(DISTINCT pg_catalog.regexp_replace(x, '/[0-9]+$', '')) FROM pg_catalog.unnest(idents) x) < n THEN
      RAISE EXCEPTION 'jl_release_distributed: two partitions of % are on one database', source
        USING ERRCODE = '0A000',
              DETAIL = pg_catalog.format('Databases (system identifier/database/table oid) by server: %s.',
                         pg_catalog.array_to_string(
                           ARRAY(SELECT srv[j] || ' ' || coalesce(idents[j], 'missing')
                                   FROM pg_catalog.generate_series(1, n) j), ', ')),
              HINT = 'Each shard database releases into one table named like the target: give each shard database one partition.';
    END IF;
    -- nor a partition on the coordinator's own database
    IF EXISTS (SELECT FROM pg_catalog.unnest(idents) x
                WHERE pg_catalog.regexp_replace(x, '/[0-9]+$', '') = me_ident) THEN
      RAISE EXCEPTION 'jl_release_distributed: a partition of % reads the coordinator''s own database', source
        USING ERRCODE = '0A000',
              HINT = 'Release local rows with jl_release; a shard is another database.';
    END IF;
    IF (SELECT count(DISTINCT f) FROM pg_catalog.unnest(fps) f) > 1 THEN
      RAISE EXCEPTION 'jl_release_distributed: the shards hold different keys named "%"', key
        USING ERRCODE = '22023',
              DETAIL = pg_catalog.format('Fingerprints by server: %s.', pg_catalog.array_to_string(
                         ARRAY(SELECT srv[j] || ' ' || fps[j] FROM pg_catalog.generate_series(1, n) j), ', ')),
              HINT = 'Sketches under different keys cannot be compared: import one key on every shard.';
    END IF;
    -- the names, reserved before any shard charges: each is created and
    -- dropped in a transaction that lasts until the release ends (the
    -- coordinator's, which will hold the decision, and each part's on its
    -- shard), so that another transaction creating one waits for this
    -- release and then fails, and this release waits for another at most
    -- the caller's lock_timeout (10 s without one).  The coordinator and
    -- the shards in one order for every release (system identifier and
    -- database, byte order): no two releases wait on each other.
    FOR ri IN SELECT j FROM pg_catalog.generate_series(0, n) j
              ORDER BY (CASE WHEN j = 0 THEN me_ident
                             ELSE pg_catalog.regexp_replace(idents[j], '/[0-9]+$', '') END) COLLATE "C" LOOP
      IF ri = 0 THEN
        FOR ci IN 0 .. n LOOP
          rname := CASE WHEN ci = 0 THEN tname ELSE tname || '_' || ci END;
          BEGIN
            PERFORM pg_catalog.set_config('lock_timeout', lock_bound, true);
            EXECUTE pg_catalog.format('CREATE TABLE %I.%I ()', cschema, rname);
            EXECUTE pg_catalog.format('DROP TABLE %I.%I', cschema, rname);
            PERFORM pg_catalog.set_config('lock_timeout', saved_lt, true);
          EXCEPTION
            WHEN lock_not_available THEN
              RAISE EXCEPTION 'jl_release_distributed: another transaction is creating "%" on the coordinator', rname
                USING ERRCODE = '55P03',
                      HINT = pg_catalog.format('Nothing was charged.  A release into the same name is in progress; it was waited for %s (lock_timeout).', lock_bound);
            WHEN unique_violation OR duplicate_table OR duplicate_object THEN
              RAISE EXCEPTION 'jl_release_distributed: relation "%" already exists', rname
                USING ERRCODE = '42P07',
                      HINT = 'A relation or type of that name exists, or was created meanwhile; nothing was charged.';
          END;
        END LOOP;
        CONTINUE;
      END IF;
      -- the part's transaction, at the isolation level the pipeline reads at
      -- (whatever the shard role's default)
      EXECUTE pg_catalog.format('SELECT %s.dblink_exec($1, $2)', dl)
        USING conns[ri], 'BEGIN ISOLATION LEVEL READ COMMITTED';
      BEGIN
        -- the part may wait for another shard's part: the shard's own
        -- idle_in_transaction_session_timeout must not end it meanwhile
        EXECUTE pg_catalog.format('SELECT %s.dblink_exec($1, $2)', dl)
          USING conns[ri], pg_catalog.format(
            'SET LOCAL idle_in_transaction_session_timeout = 0; '
            'SET LOCAL lock_timeout = %L; CREATE TABLE %I.%I (); DROP TABLE %I.%I; RESET lock_timeout',
            lock_bound, rschemas[ri], tname, rschemas[ri], tname);
      EXCEPTION
        WHEN lock_not_available THEN
          RAISE EXCEPTION 'jl_release_distributed: another transaction is creating "%" on shard %', tname, srv[ri]
            USING ERRCODE = '55P03',
                  HINT = pg_catalog.format('Nothing was charged.  A release into the same name is in progress there (distributed, or jl_release in an open transaction); it was waited for %s (lock_timeout).', lock_bound);
        WHEN unique_violation OR duplicate_table OR duplicate_object THEN
          RAISE EXCEPTION 'jl_release_distributed: relation "%" already exists on shard %', tname, srv[ri]
            USING ERRCODE = '42P07',
                  HINT = 'A relation or type of that name exists there, or was created meanwhile; nothing was charged.';
      END;
    END LOOP;
    -- a sharded protected table: every refusal a shard's part would make
    -- before reading (its declaration, spender, bounds, key, calibration
    -- and cap), asked of every shard in its part's transaction before the
    -- coordinator is charged
    FOR i IN 1 .. n LOOP
      EXECUTE pg_catalog.format('SELECT pg_catalog.count(*) FROM %s.dblink($1, $2) AS t(x int)', dl)
        USING conns[i], pg_catalog.format(
          'SELECT 1 FROM (SELECT jldp_internal.jl_release_part_check(%L::pg_catalog.regclass, %L, %L::pg_catalog.float8, %L::%s.jl_mechanism, %L, %L, %L, %L::pg_catalog.text[])) s',
          remote[i], pg_catalog.format('%I.%I', rschemas[i], tname), epsilon, mechanism::text, rjl[i], key,
          lowers[i], uppers[i], members[i]);
    END LOOP;
  -- a cancel (statement_timeout, pg_cancel_backend) cleans up as an error
  -- does: WHEN OTHERS alone does not catch query_canceled
  EXCEPTION WHEN OTHERS OR query_canceled THEN
    FOR j IN 1 .. opened LOOP
      BEGIN
        EXECUTE pg_catalog.format('SELECT %s.dblink_disconnect($1)', dl) USING conns[j];
      EXCEPTION WHEN OTHERS THEN NULL;
      END;
    END LOOP;
    PERFORM pg_catalog.pg_advisory_unlock(1785488496, lk);
    PERFORM pg_catalog.pg_advisory_unlock(1785488497, dlk);
    RAISE;
  END;

  -- phase 1: every shard releases its rows at the same time (dblink's
  -- asynchronous queries), then each prepares (nothing visible yet)
  BEGIN
    -- a sharded protected table: the coordinator's charge, durable, before
    -- any shard reads a row (no change of its budget while the parts run
    -- can then refuse the decision after the shards were charged)
    PERFORM jldp_internal.jl_distributed_charge_declared(gid);
    FOR i IN 1 .. n LOOP
      part_sql := pg_catalog.format(
        'SELECT jldp_internal.jl_release_part(%L::pg_catalog.regclass, %L, %L::pg_catalog.float8, %L::%s.jl_mechanism, %L, %L, %L, %L::pg_catalog.text[])',
        remote[i], pg_catalog.format('%I.%I', rschemas[i], tname), epsilon, mechanism::text, rjl[i], key,
        lowers[i], uppers[i], members[i]);
      EXECUTE pg_catalog.format('SELECT %s.dblink_send_query($1, $2)', dl) USING conns[i], part_sql;
    END LOOP;
    FOR i IN 1 .. n LOOP
      EXECUTE pg_catalog.format('SELECT rid FROM %s.dblink_get_result($1) AS t(rid bigint)', dl) INTO rid
        USING conns[i];
      -- the end of the query's results, after which the connection is free
      EXECUTE pg_catalog.format('SELECT count(*) FROM %s.dblink_get_result($1) AS t(rid bigint)', dl)
        USING conns[i];
      EXECUTE pg_catalog.format('SELECT r FROM %s.dblink($1, $2) AS t(r jsonb)', dl) INTO r
        USING conns[i], pg_catalog.format(
          'SELECT to_jsonb(x) || jsonb_build_object(''target_schema'', ns.nspname, ''target_name'', c.relname) '
          'FROM %s.jl_releases x JOIN pg_catalog.pg_class c ON c.oid = x.target '
          'JOIN pg_catalog.pg_namespace ns ON ns.oid = c.relnamespace WHERE x.id = %s', rjl[i], rid);
      EXECUTE pg_catalog.format('SELECT %s.dblink_exec($1, $2)', dl)
        USING conns[i], pg_catalog.format('PREPARE TRANSACTION %L', gid || '_' || i);
      prepared := i;
      -- the part applied its partition's bounds, as the coordinator wrote them
      expect := pg_catalog.jsonb_build_object('lower', lowers[i], 'upper', uppers[i],
                                              'in', pg_catalog.to_jsonb(members[i]::pg_catalog.text[]));
      IF r->'info'->'part' IS DISTINCT FROM expect THEN
        RAISE EXCEPTION 'jl_release_distributed: shard % read other bounds than its partition''s', srv[i]
          USING ERRCODE = '55000',
                DETAIL = pg_catalog.format('Read: %s; the partition: %s.', r->'info'->'part', expect);
      END IF;
      rids := rids || rid;
      recs := recs || r;
      nrows := nrows + (r->'info'->>'rows')::bigint;
      IF i > 1 AND (recs[i] - volatile_keys) || pg_catalog.jsonb_build_object('info', (recs[i]->'info') - 'rows' - 'guarantee' - 'part')
                   IS DISTINCT FROM
                   (recs[1] - volatile_keys) || pg_catalog.jsonb_build_object('info', (recs[1]->'info') - 'rows' - 'guarantee' - 'part') THEN
        RAISE EXCEPTION 'jl_release_distributed: shards % and % released with different calibrations', srv[1], srv[i]
          USING ERRCODE = '22023',
                DETAIL = pg_catalog.format('%s: %s; %s: %s', srv[1], recs[1] - volatile_keys, srv[i], recs[i] - volatile_keys),
                HINT = 'Every shard needs the same jldp version and the same d.';
      END IF;
    END LOOP;
    IF fail_point = 'prepared' THEN
      RAISE EXCEPTION 'jldp_test.fail_point: a failure after every shard prepared';
    END IF;
    IF fail_point = 'prepared_wait' THEN
      PERFORM pg_catalog.pg_sleep(coalesce(NULLIF(
                pg_catalog.current_setting('jldp_test.wait_seconds', true), '')::pg_catalog.float8, 30));
    END IF;
  EXCEPTION WHEN OTHERS OR query_canceled THEN
    FOR j IN 1 .. opened LOOP
      BEGIN
        -- a prepared part is rolled back; the others end with their
        -- connection (a running release is cancelled first)
        IF j <= prepared THEN
          EXECUTE pg_catalog.format('SELECT %s.dblink_exec($1, $2)', dl)
            USING conns[j], pg_catalog.format('ROLLBACK PREPARED %L', gid || '_' || j);
        ELSE
          EXECUTE pg_catalog.format('SELECT %s.dblink_cancel_query($1)', dl) USING conns[j];
        END IF;
      EXCEPTION WHEN OTHERS THEN
        RAISE WARNING 'jl_release_distributed: the part of shard % could not be rolled back; it stays prepared until jl_distributed_resolve() rolls it back', srv[j];
      END;
      BEGIN
        EXECUTE pg_catalog.format('SELECT %s.dblink_disconnect($1)', dl) USING conns[j];
      EXCEPTION WHEN OTHERS THEN NULL;
      END;
    END LOOP;
    PERFORM pg_catalog.pg_advisory_unlock(1785488496, lk);
    PERFORM pg_catalog.pg_advisory_unlock(1785488497, dlk);
    RAISE;
  END;

  -- the decision: the sharded sketch table, the one charge, the registry
  -- row and the decision row, in one transaction of the coordinator
  BEGIN
    EXECUTE pg_catalog.format('CREATE TABLE %I.%I (id %s, sketch pg_catalog.float8[]) PARTITION BY %s (id)',
                              cschema, tname, idtype, strat);
    FOR i IN 1 .. n LOOP
      EXECUTE pg_catalog.format('CREATE FOREIGN TABLE %I.%I PARTITION OF %I.%I %s SERVER %I OPTIONS (schema_name %L, table_name %L)',
                                cschema, tname || '_' || i, cschema, tname, bounds[i], srv[i],
                                recs[i]->>'target_schema', recs[i]->>'target_name');
    END LOOP;
    info := (recs[1]->'info') || pg_catalog.jsonb_build_object(
              'rows', nrows,
              'distributed', pg_catalog.jsonb_build_object('gid', gid, 'servers', srv,
                                                           'shard_release_ids', rids,
                                                           'shard_sources', remote));
    release_id := jldp_internal.jl_distributed_decide_declared(source, pg_catalog.format('%I.%I', cschema, tname)::regclass,
                    info, gid, srv, rids, recs[1]->>'key_fingerprint', nrows);
    IF fail_point = 'decide' THEN
      RAISE EXCEPTION 'jldp_test.fail_point: a failure before the decision commits';
    END IF;
  EXCEPTION WHEN OTHERS OR query_canceled THEN
    FOR j IN 1 .. n LOOP
      BEGIN
        EXECUTE pg_catalog.format('SELECT %s.dblink_exec($1, $2)', dl)
          USING conns[j], pg_catalog.format('ROLLBACK PREPARED %L', gid || '_' || j);
      EXCEPTION WHEN OTHERS THEN
        RAISE WARNING 'jl_release_distributed: the part of shard % could not be rolled back; it stays prepared until jl_distributed_resolve() rolls it back', srv[j];
      END;
      BEGIN
        EXECUTE pg_catalog.format('SELECT %s.dblink_disconnect($1)', dl) USING conns[j];
      EXCEPTION WHEN OTHERS THEN NULL;
      END;
    END LOOP;
    PERFORM pg_catalog.pg_advisory_unlock(1785488496, lk);
    PERFORM pg_catalog.pg_advisory_unlock(1785488497, dlk);
    RAISE;
  END;
  -- the decision is flushed before any shard commits, whatever the
  -- caller's synchronous_commit (any role may turn it off for itself)
  IF pg_catalog.current_setting('synchronous_commit') = 'off' THEN
    PERFORM pg_catalog.set_config('synchronous_commit', 'local', true);
  END IF;
  COMMIT;
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  -- the charge is committed: another release of source may check against it
  PERFORM pg_catalog.pg_advisory_unlock(1785488497, dlk);

  -- phase 2: publish.  From here the release stands; a shard that cannot
  -- commit now keeps its part prepared until jl_distributed_resolve()
  IF fail_point = 'commit' THEN
    FOR j IN 1 .. n LOOP
      EXECUTE pg_catalog.format('SELECT %s.dblink_disconnect($1)', dl) USING conns[j];
    END LOOP;
    PERFORM pg_catalog.pg_advisory_unlock(1785488496, lk);
    RAISE EXCEPTION 'jldp_test.fail_point: a failure after the decision, before the shards commit'
      USING HINT = 'SELECT * FROM jl_distributed_resolve() commits the shards'' parts.';
  END IF;
  BEGIN
    FOR i IN 1 .. n LOOP
      BEGIN
        EXECUTE pg_catalog.format('SELECT %s.dblink_exec($1, $2)', dl)
          USING conns[i], pg_catalog.format('COMMIT PREPARED %L', gid || '_' || i);
      EXCEPTION WHEN OTHERS THEN
        in_doubt := in_doubt || srv[i];
        RAISE WARNING 'jl_release_distributed: shard % did not commit its part (%): the release is decided and charged; SELECT * FROM jl_distributed_resolve() commits it when the shard is back', srv[i], SQLERRM;
      END;
      BEGIN
        EXECUTE pg_catalog.format('SELECT %s.dblink_disconnect($1)', dl) USING conns[i];
      EXCEPTION WHEN OTHERS THEN NULL;
      END;
    END LOOP;
  EXCEPTION WHEN query_canceled THEN
    -- decided: the parts not yet committed stay prepared for the resolver,
    -- which the lock no longer keeps away
    FOR j IN 1 .. n LOOP
      BEGIN
        EXECUTE pg_catalog.format('SELECT %s.dblink_disconnect($1)', dl) USING conns[j];
      EXCEPTION WHEN OTHERS THEN NULL;
      END;
    END LOOP;
    PERFORM pg_catalog.pg_advisory_unlock(1785488496, lk);
    RAISE;
  END;
  IF pg_catalog.cardinality(in_doubt) = 0 THEN
    PERFORM jldp_internal.jl_distributed_committed(gid);
  END IF;
  PERFORM pg_catalog.pg_advisory_unlock(1785488496, lk);
END
$fn$;

-- the composition accountant (docs/design/accounting.md): each charge's
-- privacy profile in the ledger, and the composed totals; the charges
-- written before this update are pure when their delta is 0, else known by
-- their (epsilon, delta) only, and the totals so far are the sums
ALTER TABLE jldp_internal.jldp_dataset
  ADD COLUMN epsilon_composed float8 NOT NULL DEFAULT 0,
  ADD COLUMN delta_composed float8 NOT NULL DEFAULT 0,
  ADD COLUMN composed_by text NOT NULL DEFAULT 'basic';
UPDATE jldp_internal.jldp_dataset
   SET epsilon_composed = epsilon_spent::float8, delta_composed = delta_spent::float8;
ALTER TABLE jldp_internal.jldp_ledger
  ADD COLUMN profile text CHECK (profile IN ('pure', 'zcdp', 'approx')),
  ADD COLUMN rho float8,
  ADD COLUMN epsilon_composed float8,
  ADD COLUMN delta_composed float8,
  ADD COLUMN composed_by text;
UPDATE jldp_internal.jldp_ledger
   SET profile = CASE WHEN event IN ('charge', 'reserve') THEN
                   CASE WHEN delta = 0 THEN 'pure' ELSE 'approx' END END,
       epsilon_composed = epsilon_spent::float8, delta_composed = delta_spent::float8,
       composed_by = 'basic';

CREATE OR REPLACE VIEW jldp.jl_budgets WITH (security_barrier) AS
  SELECT name, epsilon_cap, delta_cap, epsilon_spent, delta_spent,
         epsilon_cap - epsilon_spent AS epsilon_remaining,
         delta_cap - delta_spent AS delta_remaining,
         source, owner, created, spenders, unit,
         -- the tightest valid composition at delta_cap (docs/design/accounting.md)
         epsilon_composed, delta_composed, composed_by
  FROM jldp_internal.jldp_dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
     OR pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole('jldp_budget_admin'), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);

COMMENT ON VIEW jldp.jl_budgets IS
  'Protected datasets with their caps, spent and remaining (epsilon, delta) by basic composition (the sums), owner and granted spenders, and the charges since the last reset composed at delta_cap by the tightest valid accounting (epsilon_composed, delta_composed, composed_by: basic, rdp or pld; a release is admitted when either stays within the caps), for the datasets owned by the current role or a role it inherits (budget administrators and superusers: all).';

CREATE OR REPLACE VIEW jldp.jl_ledger WITH (security_barrier) AS
  SELECT l.id, l.dataset, l.event, l.epsilon, l.delta, l.epsilon_spent, l.delta_spent,
         l.what, l.role, l.at,
         -- a charge is committed before its release reads a row: false when
         -- no release recorded it (it failed or was cancelled after the
         -- charge, or is still running); a protected table's dist2 (a value)
         -- marks its charge when it returns; NULL for other events and for
         -- 0.3's jl_release_dist2, whose result was returned, not recorded,
         -- and for a booked charge (jl_budget_book), which no release records
         CASE WHEN l.event <> 'charge' THEN NULL
              WHEN l.what = 'jl_budget_book' OR l.what LIKE 'jl_budget_book: %' THEN NULL
              WHEN l.what LIKE 'jl_release_dist2 (declared) %' THEN l.what LIKE '% (returned)'
              WHEN l.what LIKE 'jl_release_dist2 %' THEN NULL
              ELSE EXISTS (SELECT 1 FROM jldp_internal.jldp_release r WHERE r.ledger_id = l.id)
         END AS released,
         l.profile, l.rho, l.epsilon_composed, l.delta_composed, l.composed_by
  FROM jldp_internal.jldp_ledger l JOIN jldp_internal.jldp_dataset d ON d.name = l.dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(d.owner)), 'USAGE')
     OR pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole('jldp_budget_admin'), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);

COMMENT ON VIEW jldp.jl_ledger IS
  'The budget ledger of the datasets jl_budgets shows to the current role: each event with the (epsilon, delta) it asked for and the totals after it; for a charge, whether a release recorded it (released) and its privacy profile (pure, zcdp with rho, or approx); after each event, the composed totals (epsilon_composed at delta_composed, by composed_by), which anyone can recompute from the profiles since the last reset.';

CREATE OR REPLACE VIEW jldp.jl_protected WITH (security_barrier) AS
  SELECT source AS relation, name AS dataset, unit, neighbor, row_clip,
         (SELECT sum(CASE (a).encoding WHEN 'numeric' THEN 1
                                       WHEN 'category' THEN pg_catalog.cardinality((a).categories)
                                       ELSE (a).length END)::int
            FROM pg_catalog.unnest(attributes) a) AS d,
         attributes, epsilon_cap, delta_cap, epsilon_spent, delta_spent,
         epsilon_cap - epsilon_spent AS epsilon_remaining, delta_cap - delta_spent AS delta_remaining,
         owner, spenders, epsilon_composed, delta_composed, composed_by
  FROM jldp_internal.jldp_dataset
  WHERE attributes IS NOT NULL
    AND (pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
     OR pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole('jldp_budget_admin'), 'USAGE')
         OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user));

COMMENT ON VIEW jldp.jl_protected IS
  'Protected tables (jl_protect) with their declaration (unit, neighbour notion, row clip, d, attributes), caps, spent and remaining by basic composition, the composed totals (jl_budgets), for the tables whose dataset the current role owns or inherits (budget administrators and superusers: all).';
