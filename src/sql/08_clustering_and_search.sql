-- k-means, labelling, nearest neighbours, the distributed Lloyd steps

-- Analytics over sketches: k-means and labelling (no key involved, so
-- executable by analysts).
-- the aggregate's options as one typed value (aggregates take no named
-- arguments): jl_kmeans(sketch, jl_kmeans_options(4, n_init => 10)), or
-- jl_kmeans(sketch, 4) through the implicit cast of n_clusters (1.0.0)
CREATE TYPE jldp.jl_kmeans_options AS (n_clusters int, seed bigint, max_iter int, n_init int);

COMMENT ON TYPE jldp.jl_kmeans_options IS
  'The options of the jl_kmeans aggregate, built by jl_kmeans_options(n_clusters, seed, max_iter, n_init); an integer n_clusters casts to it with the other options at their defaults.';

CREATE FUNCTION jldp_internal.jl_kmeans_options_checked(options jldp.jl_kmeans_options)
RETURNS jldp.jl_kmeans_options AS 'MODULE_PATHNAME', 'jl_kmeans_options_checked'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_kmeans_options_checked(jldp.jl_kmeans_options) IS
  'The options unchanged if every field is in range (n_clusters 1..10000, max_iter >= 1, n_init 1..1000, none NULL), else an ERROR: the check of jl_kmeans_options.';

CREATE FUNCTION jldp.jl_kmeans_options(n_clusters int, seed bigint DEFAULT 0,
    max_iter int DEFAULT 300, n_init int DEFAULT 1)
RETURNS jldp.jl_kmeans_options
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_kmeans_options_checked(ROW(n_clusters, seed, max_iter, n_init)::jldp.jl_kmeans_options);

COMMENT ON FUNCTION jldp.jl_kmeans_options(int, bigint, int, int) IS
  'The options of the jl_kmeans aggregate: n_clusters (1..10000), the seed of the k-means++ seeding (any bigint), the maximum number of Lloyd iterations (>= 1) and n_init, the number of seedings whose run with the lowest inertia is kept (1..1000): jl_kmeans(sketch, jl_kmeans_options(4, n_init => 10)).';

CREATE FUNCTION jldp_internal.jl_kmeans_options_of(n_clusters int)
RETURNS jldp.jl_kmeans_options
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp.jl_kmeans_options(n_clusters);

COMMENT ON FUNCTION jldp_internal.jl_kmeans_options_of(int) IS
  'The implicit cast of an integer n_clusters to jl_kmeans_options, the other options at their defaults: jl_kmeans(sketch, 4).';

CREATE CAST (int AS jldp.jl_kmeans_options)
  WITH FUNCTION jldp_internal.jl_kmeans_options_of(int) AS IMPLICIT;

COMMENT ON CAST (int AS jldp.jl_kmeans_options) IS
  'n_clusters as the options of the jl_kmeans aggregate, the others at their defaults.';

CREATE FUNCTION jldp_internal.jl_kmeans_trans(internal, float8[], jldp.jl_kmeans_options)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_kmeans_options_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION jldp_internal.jl_kmeans_combine(internal, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_kmeans_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION jldp_internal.jl_kmeans_serialize(internal)
RETURNS bytea AS 'MODULE_PATHNAME', 'jl_kmeans_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION jldp_internal.jl_kmeans_deserialize(bytea, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_kmeans_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION jldp_internal.jl_kmeans_final(internal)
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_kmeans_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- the final function sorts the points in place, which leaves the state's
-- multiset of points (all the result depends on) unchanged
CREATE AGGREGATE jldp.jl_kmeans(sketch float8[], options jldp.jl_kmeans_options) (
  SFUNC = jldp_internal.jl_kmeans_trans, STYPE = internal, SSPACE = 8192,
  FINALFUNC = jldp_internal.jl_kmeans_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = jldp_internal.jl_kmeans_combine,
  SERIALFUNC = jldp_internal.jl_kmeans_serialize, DESERIALFUNC = jldp_internal.jl_kmeans_deserialize,
  PARALLEL = SAFE);

COMMENT ON AGGREGATE jldp.jl_kmeans(float8[], jldp.jl_kmeans_options) IS
  'k-means centroids of the sketches as an n_clusters x k float8[][]: jl_kmeans(sketch, 4), or jl_kmeans(sketch, jl_kmeans_options(4, seed => 7, max_iter => 50, n_init => 10)). Each of n_init runs (default 1) is a k-means++ seeding followed by Lloyd iterations until no assignment changes (at most max_iter, default 300); the run with the lowest inertia is kept (the earliest on ties), as scikit-learn''s KMeans(n_init=...). The first run is seeded by seed (default 0), the others by seeds drawn from a ChaCha20 stream keyed by it. The result depends only on the multiset of sketches (the same in serial and parallel plans). NULL sketches are skipped; no sketches gives NULL; with at most n_clusters distinct sketches the centroids are those sketches (fewer rows, with a NOTICE). An empty cluster is re-seeded with the point farthest from its centroid. The sketches are held in memory (below 1 GB). jl_kmeans(release, n_clusters, ...) gives the sizes and inertia too.';

CREATE FUNCTION jldp.jl_nearest_centroid(sketch float8[], centroids float8[])
RETURNS int AS 'MODULE_PATHNAME', 'jl_nearest_centroid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_nearest_centroid(float8[], float8[]) IS
  'The 1-based row of the m x k centroids (e.g. from jl_kmeans) nearest to the sketch in squared L2 distance, the lowest row on ties: UPDATE t SET cluster = jl_nearest_centroid(sketch, c).';

-- Scale-out ----------------------------------------------------------------
-- Pieces that postgres_fdw pushes to the shards of a partitioned sketch
-- table whose partitions are foreign tables (docs/design/scaleout.md): immutable,
-- no text arguments (a constant text argument blocks pushdown).
CREATE FUNCTION jldp_internal.jl_lloyd_step_trans(float8[], float8[], float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_lloyd_step_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_lloyd_step_trans(float8[], float8[], float8[]) IS
  'Transition function of jl_lloyd_step.';

CREATE FUNCTION jldp_internal.jl_vector_sum_trans(float8[], float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_vector_sum_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_vector_sum_trans(float8[], float8[]) IS
  'Transition and combine function of jl_vector_sum, combine function of jl_lloyd_step.';

CREATE AGGREGATE jldp.jl_lloyd_step(sketch float8[], centroids float8[]) (
  SFUNC = jldp_internal.jl_lloyd_step_trans, STYPE = float8[],
  COMBINEFUNC = jldp_internal.jl_vector_sum_trans, PARALLEL = SAFE);

COMMENT ON AGGREGATE jldp.jl_lloyd_step(float8[], float8[]) IS
  'One Lloyd step of k-means over the rows it sees: an m x (k + 1) array whose row j holds the sum of the sketches nearest centroid j (of the m x k centroids, as jl_nearest_centroid) and their count. Pushed to a shard by postgres_fdw; add the shards'' steps with jl_vector_sum and take jl_lloyd_update.';

CREATE AGGREGATE jldp.jl_vector_sum(float8[]) (
  SFUNC = jldp_internal.jl_vector_sum_trans, STYPE = float8[],
  COMBINEFUNC = jldp_internal.jl_vector_sum_trans, PARALLEL = SAFE);

COMMENT ON AGGREGATE jldp.jl_vector_sum(float8[]) IS
  'Element-wise sum of float8 arrays of one shape (one- or two-dimensional); use ORDER BY in the call for a result that does not depend on the order rows arrive in.';

CREATE FUNCTION jldp.jl_lloyd_update(step float8[], centroids float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_lloyd_update_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_lloyd_update(float8[], float8[]) IS
  'The centroids after a Lloyd step: row j of step (sums, count) divided by its count, or row j of centroids when the count is 0.';

CREATE FUNCTION jldp.jl_kmeans_lloyd(sketches regclass, sketch_column name,
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
  SELECT string_agg(format('SELECT jldp.jl_lloyd_step(%I, $1) AS s, %s AS o FROM %s',
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
    EXECUTE format('SELECT jldp.jl_vector_sum(s ORDER BY o) FROM (%s) u', parts) INTO step USING c;
    IF step IS NULL THEN
      RAISE EXCEPTION 'jl_kmeans_lloyd: % has no sketches', sketches USING ERRCODE = '2200E';
    END IF;
    nxt := jldp.jl_lloyd_update(step, c);
    EXIT WHEN nxt = c OR i >= max_iter;
    c := nxt;
  END LOOP;
  RETURN nxt;
END
$fn$;

COMMENT ON FUNCTION jldp.jl_kmeans_lloyd(regclass, name, float8[], int) IS
  'k-means (Lloyd) from the given m x k starting centroids over the sketch column of a table, until no centroid moves or max_iter steps. On a partitioned table each leaf partition computes its own step (a foreign partition on its shard: m (k + 1) numbers move per step), added in partition order; a local table partitioned alike gives the same centroids bit for bit.';

CREATE FUNCTION jldp.jl_knn(sketches regclass, id_column name, sketch_column name,
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
  SELECT string_agg(format('(SELECT %I::bigint AS id, jldp.jl_recover_dist(%I, $1, $2) AS dist FROM %s ORDER BY 2, 1 LIMIT $3)',
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

COMMENT ON FUNCTION jldp.jl_knn(regclass, name, name, float8[], int, float8) IS
  'The n rows of a sketch table nearest to query by jl_recover_dist (ties by id; id_column cast to bigint). On a partitioned table each leaf partition returns its own n nearest (a foreign partition sorts and limits on its shard), so n rows per shard move.';

-- the nearest sketches of a release, the noise variance from its registry
-- row (0.5.0)
CREATE FUNCTION jldp.jl_knn(release regclass, query float8[], n int)
RETURNS TABLE (id bigint, dist float8)
LANGUAGE plpgsql STABLE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  r record;
BEGIN
  IF release IS NULL OR query IS NULL OR n IS NULL THEN
    RAISE EXCEPTION 'jl_knn: no argument may be NULL' USING ERRCODE = '22004';
  END IF;
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) release) THEN
    RAISE EXCEPTION 'relation with OID % does not exist', release::pg_catalog.oid USING ERRCODE = '42P01';
  END IF;
  -- the newest registry row of the table (a release by jl_release,
  -- jl_release_distributed or a 0.3 path), as the caller may read it
  SELECT x.id_column, x.noise_variance, x.info->>'mechanism' AS mechanism INTO r
    FROM jldp.jl_releases x WHERE x.target OPERATOR(pg_catalog.=) release
   ORDER BY x.id DESC LIMIT 1;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'jl_knn: % is not a release you may read', release
      USING ERRCODE = '55000',
            HINT = 'jl_releases lists the releases you may read; for another table of sketches give its columns and noise variance: jl_knn(table, id_column, sketch_column, query, n, noise_variance).';
  END IF;
  IF r.mechanism IN ('covariance', 'graph') THEN
    RAISE EXCEPTION 'jl_knn: % is a % release, whose sketches are not rows', release, r.mechanism
      USING ERRCODE = '22023',
            HINT = CASE r.mechanism WHEN 'graph' THEN 'Estimate cuts with jl_cut_size.'
                                    ELSE 'Query it with jl_directional_variance or jl_pca.' END;
  END IF;
  -- the pipeline writes (id, sketch); 0.3's releases named the id column
  -- after the source's
  RETURN QUERY SELECT k.id, k.dist
                 FROM jldp.jl_knn(release,
                        CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_attribute a
                                           WHERE a.attrelid OPERATOR(pg_catalog.=) release
                                             AND a.attname OPERATOR(pg_catalog.=) 'id' AND a.attnum > 0
                                             AND NOT a.attisdropped)
                             THEN 'id' ELSE r.id_column END::pg_catalog.name,
                        'sketch', query, n, r.noise_variance) k;
END
$fn$;

COMMENT ON FUNCTION jldp.jl_knn(regclass, float8[], int) IS
  'The n units of a release nearest to query, by the squared distance jl_recover_dist recovers with the release''s noise variance (from jl_releases; ties by id): jl_knn(''customers_private'', sketch, 10).';

CREATE FUNCTION jldp.jl_knn(release text, query float8[], n int)
RETURNS TABLE (id bigint, dist float8)
LANGUAGE sql STABLE PARALLEL UNSAFE
AS $fn$ SELECT * FROM jldp.jl_knn(release::pg_catalog.regclass, query, n) $fn$;

COMMENT ON FUNCTION jldp.jl_knn(text, float8[], int) IS
  'jl_knn(release regclass, query, n) with the release named as text: jl_knn(''customers_private'', sketch, 10).';

-- k-means of a table's sketches in one call (0.4.1)
CREATE FUNCTION jldp.jl_kmeans(release regclass, n_clusters int, seed bigint DEFAULT 0,
    max_iter int DEFAULT 300, n_init int DEFAULT 1, tol float8 DEFAULT 1e-4,
    sketch_column name DEFAULT 'sketch',
    OUT centroids float8[], OUT sizes bigint[], OUT inertia float8, OUT iterations int,
    OUT workers int)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_kmeans_relation'
LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION jldp.jl_kmeans(regclass, int, bigint, int, int, float8, name) IS
  'k-means of the sketches of a table (its float8[] column sketch_column) in one call: the centroids (n_clusters x k), each cluster''s size, the inertia, the iterations (scikit-learn''s n_iter_ and tol) and the parallel workers its assignment steps used (max_parallel_workers_per_gather; the result is the serial one); the labels in the same statement: SELECT s.id, jl_nearest_centroid(s.sketch, k.centroids) FROM t s, jl_kmeans(''t'', 4) k. The same centroids as the aggregate jl_kmeans(sketch, jl_kmeans_options(n_clusters, seed, max_iter, n_init)) over the table (at tol 1e-4, the aggregate''s).';

CREATE FUNCTION jldp.jl_kmeans(release text, n_clusters int, seed bigint DEFAULT 0,
    max_iter int DEFAULT 300, n_init int DEFAULT 1, tol float8 DEFAULT 1e-4,
    sketch_column name DEFAULT 'sketch',
    OUT centroids float8[], OUT sizes bigint[], OUT inertia float8, OUT iterations int,
    OUT workers int)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_kmeans_relation'
LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION jldp.jl_kmeans(text, int, bigint, int, int, float8, name) IS
  'jl_kmeans(release regclass, ...) with the table named as text: jl_kmeans(''customers_private'', 4).';

-- each unit's cluster in one query (0.5.0)
CREATE FUNCTION jldp.jl_kmeans_labels(release regclass, n_clusters int, seed bigint DEFAULT 0,
    max_iter int DEFAULT 300, n_init int DEFAULT 1, tol float8 DEFAULT 1e-4)
RETURNS TABLE (id bigint, cluster int)
LANGUAGE plpgsql STABLE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  c float8[];
BEGIN
  IF release IS NULL OR n_clusters IS NULL OR seed IS NULL OR max_iter IS NULL OR n_init IS NULL OR tol IS NULL THEN
    RAISE EXCEPTION 'jl_kmeans_labels: no argument may be NULL' USING ERRCODE = '22004';
  END IF;
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_class r WHERE r.oid OPERATOR(pg_catalog.=) release) THEN
    RAISE EXCEPTION 'relation with OID % does not exist', release::pg_catalog.oid USING ERRCODE = '42P01';
  END IF;
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
                  WHERE a.attrelid OPERATOR(pg_catalog.=) release AND a.attname OPERATOR(pg_catalog.=) 'id'
                    AND a.attnum > 0 AND NOT a.attisdropped) THEN
    RAISE EXCEPTION 'jl_kmeans_labels: % has no column id', release
      USING ERRCODE = '42703',
            HINT = 'It labels a release''s (id, sketch) rows; for another table: SELECT t.key, jl_nearest_centroid(t.v, k.centroids) FROM t, jl_kmeans(''t'', 4, sketch_column => ''v'') k.';
  END IF;
  -- the centroids, then each row's nearest (jl_kmeans checks the column)
  SELECT k.centroids INTO c FROM jldp.jl_kmeans(release, n_clusters, seed, max_iter, n_init, tol) k;
  IF c IS NULL THEN
    RETURN;
  END IF;
  RETURN QUERY EXECUTE pg_catalog.format(
    'SELECT s.id::pg_catalog.int8, jldp.jl_nearest_centroid(s.sketch, $1) FROM %s s '
    'WHERE s.sketch IS NOT NULL ORDER BY 1', release) USING c;
END
$fn$;

COMMENT ON FUNCTION jldp.jl_kmeans_labels(regclass, int, bigint, int, int, float8) IS
  'Each unit of a release with its k-means cluster (1 to n_clusters), in one query: the centroids of jl_kmeans(release, n_clusters, seed, max_iter, n_init, tol) and each sketch''s nearest (jl_nearest_centroid); rows without a sketch are left out. jl_kmeans gives the same run''s centroids, sizes and inertia.';

CREATE FUNCTION jldp.jl_kmeans_labels(release text, n_clusters int, seed bigint DEFAULT 0,
    max_iter int DEFAULT 300, n_init int DEFAULT 1, tol float8 DEFAULT 1e-4)
RETURNS TABLE (id bigint, cluster int)
LANGUAGE sql STABLE PARALLEL UNSAFE
AS $fn$ SELECT * FROM jldp.jl_kmeans_labels(release::pg_catalog.regclass, n_clusters, seed, max_iter, n_init, tol) $fn$;

COMMENT ON FUNCTION jldp.jl_kmeans_labels(text, int, bigint, int, int, float8) IS
  'jl_kmeans_labels(release regclass, ...) with the release named as text: SELECT * FROM jl_kmeans_labels(''customers_private'', 4).';
