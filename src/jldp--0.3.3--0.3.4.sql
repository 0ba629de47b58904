-- jldp 0.3.3 -> 0.3.4.  jl_knn and jl_kmeans_lloyd check the relation and
-- the type of its sketch column in the catalog before reading a row (a
-- column of another type was reported as a missing jl_recover_dist or
-- jl_lloyd_step); jl_ledger tells for each charge whether a release
-- recorded it (released); as jldp--0.3.4.sql defines them.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.3.4'" to load this file. \quit

CREATE OR REPLACE FUNCTION @extschema@.jl_knn(sketches regclass, id_column name, sketch_column name,
    query float8[], n int, noise_variance float8 DEFAULT 0)
RETURNS TABLE (id bigint, dist float8)
LANGUAGE plpgsql STABLE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  coltype regtype;
  parts text;
BEGIN
  IF sketches IS NULL OR id_column IS NULL OR sketch_column IS NULL OR query IS NULL
     OR n IS NULL OR noise_variance IS NULL THEN
    RAISE EXCEPTION 'jl_knn: no argument may be NULL' USING ERRCODE = '22004';
  END IF;
  IF n < 1 THEN
    RAISE EXCEPTION 'n must be at least 1, not %', n USING ERRCODE = '22023';
  END IF;
  -- the relation and its sketch column, from the catalog, before any row is read
  IF NOT EXISTS (SELECT 1 FROM pg_class WHERE oid = sketches) THEN
    RAISE EXCEPTION 'relation with OID % does not exist', sketches::oid USING ERRCODE = '42P01';
  END IF;
  SELECT a.atttypid::regtype INTO coltype FROM pg_attribute a
   WHERE a.attrelid = sketches AND a.attname = sketch_column AND a.attnum > 0 AND NOT a.attisdropped;
  IF coltype IS NULL THEN
    RAISE EXCEPTION 'jl_knn: % has no column %', sketches, sketch_column USING ERRCODE = '42703';
  ELSIF coltype <> 'float8[]'::regtype THEN
    RAISE EXCEPTION 'jl_knn: column % of % is of type %, not float8[]', sketch_column, sketches, coltype
      USING ERRCODE = '42804',
            HINT = 'Pass the column of private sketches (float8[]) that a release wrote.';
  END IF;
  -- the n nearest of each leaf partition (a shard sorts and limits its
  -- own rows), then the n nearest of those
  SELECT string_agg(format('(SELECT %I::bigint AS id, @extschema@.jl_recover_dist(%I, $1, $2) AS dist FROM %s ORDER BY 2, 1 LIMIT $3)',
                           id_column, sketch_column, relid::regclass), ' UNION ALL ')
    INTO parts
    FROM (SELECT relid FROM pg_partition_tree(sketches) WHERE isleaf
                  UNION ALL
                  SELECT c.oid::regclass FROM pg_class c
                   WHERE c.oid = sketches AND c.relkind IN ('r', 'f', 'm') AND NOT c.relispartition) leaves;
  IF parts IS NULL THEN
    RAISE EXCEPTION 'jl_knn: % is not a table, or a partitioned table with leaf partitions', sketches
      USING ERRCODE = '42809',
            HINT = 'Pass the sketch table itself (a view is not read through); a partitioned table needs at least one partition.';
  END IF;
  -- the partitions' lists are gathered by a plain Append (OFFSET 0 keeps
  -- the planner from merging them in order with Merge Append, which reads
  -- the shards one after another): the shards answer at the same time,
  -- asynchronously, and the coordinator sorts their n rows each
  RETURN QUERY EXECUTE format('SELECT id, dist FROM (SELECT id, dist FROM (%s) u OFFSET 0) v ORDER BY dist, id LIMIT $3', parts)
    USING query, noise_variance, n;
END
$fn$;

CREATE OR REPLACE FUNCTION @extschema@.jl_kmeans_lloyd(sketches regclass, sketch_column name,
    centroids float8[], max_iter int DEFAULT 300)
RETURNS float8[]
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  coltype regtype;
  parts text;
  step float8[];
  c float8[] := centroids;
  nxt float8[];
  i int := 0;
BEGIN
  IF sketches IS NULL OR sketch_column IS NULL OR centroids IS NULL OR max_iter IS NULL THEN
    RAISE EXCEPTION 'jl_kmeans_lloyd: no argument may be NULL' USING ERRCODE = '22004';
  END IF;
  IF max_iter < 1 THEN
    RAISE EXCEPTION 'max_iter must be at least 1, not %', max_iter USING ERRCODE = '22023';
  END IF;
  -- the relation and its sketch column, from the catalog, before any row is read
  IF NOT EXISTS (SELECT 1 FROM pg_class WHERE oid = sketches) THEN
    RAISE EXCEPTION 'relation with OID % does not exist', sketches::oid USING ERRCODE = '42P01';
  END IF;
  SELECT a.atttypid::regtype INTO coltype FROM pg_attribute a
   WHERE a.attrelid = sketches AND a.attname = sketch_column AND a.attnum > 0 AND NOT a.attisdropped;
  IF coltype IS NULL THEN
    RAISE EXCEPTION 'jl_kmeans_lloyd: % has no column %', sketches, sketch_column USING ERRCODE = '42703';
  ELSIF coltype <> 'float8[]'::regtype THEN
    RAISE EXCEPTION 'jl_kmeans_lloyd: column % of % is of type %, not float8[]', sketch_column, sketches, coltype
      USING ERRCODE = '42804',
            HINT = 'Pass the column of private sketches (float8[]) that a release wrote.';
  END IF;
  -- one Lloyd step per leaf partition (on a foreign partition the shard
  -- computes it), added in the partitions' order: the result does not
  -- depend on which shard answers first
  -- (the columns in the order the outer query reads them, so that no
  -- projection stands between Append and the foreign scans: the shards
  -- then compute their steps at the same time, asynchronously)
  SELECT string_agg(format('SELECT @extschema@.jl_lloyd_step(%I, $1) AS s, %s AS o FROM %s',
                           sketch_column, ord, relid::regclass), ' UNION ALL ' ORDER BY ord)
    INTO parts
    FROM (SELECT relid, row_number() OVER (ORDER BY relid::regclass::text) AS ord
            FROM (SELECT relid FROM pg_partition_tree(sketches) WHERE isleaf
                  UNION ALL
                  SELECT c.oid::regclass FROM pg_class c
                   WHERE c.oid = sketches AND c.relkind IN ('r', 'f', 'm') AND NOT c.relispartition) leaves) l;
  IF parts IS NULL THEN
    RAISE EXCEPTION 'jl_kmeans_lloyd: % is not a table, or a partitioned table with leaf partitions', sketches
      USING ERRCODE = '42809',
            HINT = 'Pass the sketch table itself (a view is not read through); a partitioned table needs at least one partition.';
  END IF;
  LOOP
    i := i + 1;
    EXECUTE format('SELECT @extschema@.jl_vector_sum(s ORDER BY o) FROM (%s) u', parts) INTO step USING c;
    IF step IS NULL THEN
      RAISE EXCEPTION 'jl_kmeans_lloyd: % has no sketches', sketches USING ERRCODE = '2200E';
    END IF;
    nxt := @extschema@.jl_lloyd_update(step, c);
    EXIT WHEN nxt = c OR i >= max_iter;
    c := nxt;
  END LOOP;
  RETURN nxt;
END
$fn$;


-- a charge tells whether a release recorded it
CREATE OR REPLACE VIEW @extschema@.jl_ledger WITH (security_barrier) AS
  SELECT l.id, l.dataset, l.event, l.epsilon, l.delta, l.epsilon_spent, l.delta_spent,
         l.what, l.role, l.at,
         -- a charge is committed before its release reads a row: false when
         -- no release recorded it (it failed or was cancelled after the
         -- charge, or is still running); NULL for other events and for
         -- jl_release_dist2, whose result is returned, not recorded
         CASE WHEN l.event <> 'charge' OR l.what LIKE 'jl_release_dist2 %' THEN NULL
              ELSE EXISTS (SELECT 1 FROM @extschema@.jldp_release r WHERE r.ledger_id = l.id)
         END AS released
  FROM @extschema@.jldp_ledger l JOIN @extschema@.jldp_dataset d ON d.name = l.dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(d.owner)), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
COMMENT ON VIEW @extschema@.jl_ledger IS
  'The budget ledger of the datasets jl_budgets shows to the current role: each event with the (epsilon, delta) it asked for and the totals after it; for a charge, whether a release recorded it (released).';

-- the registry's comment names every release that writes it
COMMENT ON TABLE @extschema@.jldp_release IS
  'Release registry: one row per release into a table (jl_release_table, jl_release_long, jl_release_covariance, jl_release_graph, jl_release_distributed) with its source, target, options, noise variance, key fingerprint, the ledger charge it was made under, the full record (info), the jldp version and who released it. Written only by those functions; roles read it through jl_releases.';
