-- jldp 0.4.2 -> 0.5.0: the API moves to schema jldp; the catalog (keys,
-- declarations, ledger, registry) and every step no user calls to
-- jldp_internal.  Every object keeps its OID, owner, privileges and data;
-- the routines are then defined as the install script defines them (the
-- bodies naming the new schemas, the replaced signatures anew), and the
-- roles and their grants are set as a fresh install sets them.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.5.0'" to load this file. \quit

CREATE SCHEMA jldp;

COMMENT ON SCHEMA jldp IS
  'jldp''s API: what a curator, an analyst or a budget administrator calls (\df jldp.*).';

CREATE SCHEMA jldp_internal;

COMMENT ON SCHEMA jldp_internal IS
  'jldp''s catalog (keys, declarations, ledger, registry) and the steps no user calls; reached through jldp''s functions.';

-- each of the extension's objects in its old schema moves to jldp, or to
-- jldp_internal when it is internal (a table's indexes, sequences and row
-- type, and a type's array type, move with it)
DO $move$
DECLARE
  internal text[] := ARRAY['jldp_key', 'jldp_dataset', 'jldp_ledger', 'jldp_release', 'jldp_distributed_release', 'jl_project_agg_trans', 'jl_agg_combine', 'jl_agg_serialize', 'jl_agg_deserialize', 'jl_private_release_agg_final', 'jl_project_agg_final', 'jl_kmeans_trans', 'jl_kmeans_combine', 'jl_kmeans_serialize', 'jl_kmeans_deserialize', 'jl_kmeans_final', 'jl_linear_fit_trans', 'jl_linear_fit_combine', 'jl_linear_fit_serialize', 'jl_linear_fit_deserialize', 'jl_linear_fit_final', 'jl_linear_fit_intercept_final', 'jl_lloyd_step_trans', 'jl_vector_sum_trans', 'jl_cut_trans', 'jl_cut_estimate_final', 'jl_cut_estimate_stddev_final', 'jl_release_agg_trans', 'jl_drop_guard', 'jl_key_table_changed', 'jl_attribute_checked', 'jl_mechanism_checked', 'jl_distributed_decision', 'jl_distributed_pending', 'jl_distributed_committed', 'jl_distributed_run', 'jl_shard_bounds', 'jl_declaration_info', 'jl_release_part', 'jl_release_part_check', 'jl_distributed_begin_declared', 'jl_distributed_charge_declared', 'jl_distributed_decide_declared', 'jl_encode_number', 'jl_encode_category', 'jl_encode_vector', 'jl_dataset_grant', 'jl_dataset_revoke'];
  o record;
BEGIN
  FOR o IN
    SELECT pg_catalog.format('ALTER %s %s SET SCHEMA %I',
             CASE p.prokind WHEN 'a' THEN 'AGGREGATE' WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END,
             p.oid::pg_catalog.regprocedure,
             CASE WHEN p.proname = ANY (internal) THEN 'jldp_internal' ELSE 'jldp' END) AS stmt
      FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_proc p ON p.oid = d.objid
     WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.deptype = 'e'
       AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
       AND d.refobjid = (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname = 'jldp')
       AND p.pronamespace = '@extschema@'::pg_catalog.regnamespace
    UNION ALL
    SELECT pg_catalog.format('ALTER %s %s SET SCHEMA %I',
             CASE c.relkind WHEN 'v' THEN 'VIEW' ELSE 'TABLE' END, c.oid::pg_catalog.regclass,
             CASE WHEN c.relname = ANY (internal) THEN 'jldp_internal' ELSE 'jldp' END)
      FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class c ON c.oid = d.objid
     WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.deptype = 'e'
       AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
       AND d.refobjid = (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname = 'jldp')
       AND c.relnamespace = '@extschema@'::pg_catalog.regnamespace AND c.relkind IN ('r', 'v')
    UNION ALL
    SELECT pg_catalog.format('ALTER TYPE %s SET SCHEMA jldp', t.oid::pg_catalog.regtype)
      FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_type t ON t.oid = d.objid
     WHERE d.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND d.deptype = 'e'
       AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
       AND d.refobjid = (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname = 'jldp')
       AND t.typnamespace = '@extschema@'::pg_catalog.regnamespace
  LOOP
    EXECUTE o.stmt;
  END LOOP;
END
$move$;

-- replaced: 0.4's forms with option words, dropped (CHANGELOG: their
-- replacements)
DROP FUNCTION jldp.jl_private_release(float8[], int, float8, text, float8, text, float8, text, text, text);
DROP FUNCTION jldp.jl_release_info(int, int, float8, text, float8, text, float8, text, text, text);
DROP FUNCTION jldp.jl_sketch(int, jldp.jl_kind, jldp.jl_noise, float8, jldp.jl_calibration);
ALTER TYPE jldp.jl_calibration ADD VALUE 'paper';
ALTER TYPE jldp.jl_mechanism ADD ATTRIBUTE density float8;
DROP AGGREGATE jldp.jl_project_agg(int, float8, int, text);
DROP AGGREGATE jldp.jl_project_agg(int, float8, int, text, text);
DROP FUNCTION jldp_internal.jl_project_agg_trans(internal, int, float8, int, text);
DROP FUNCTION jldp_internal.jl_project_agg_trans(internal, int, float8, int, text, text);
DROP FUNCTION jldp.jl_project(float8[], int, text, text);
DROP FUNCTION jldp.jl_suggest_k(int, bigint, float8, float8, float8, text, float8, text, float8, text, text, text);
DROP FUNCTION jldp.jl_suggest_k_info(int, bigint, float8, float8, float8, text, float8, text, float8, text, text, text);
DROP FUNCTION jldp.jl_advise(int, float8, float8, float8, text, float8, text, float8, text, float8, bigint, text);
DROP FUNCTION jldp.jl_nullspace_clean(float8[], float8[], float8, text);
DROP FUNCTION jldp.jl_recover_dist_stddev(float8[], float8[], float8, text, text);
DROP FUNCTION jldp.jl_recover_inner_stddev(float8[], float8[], float8, text, text);
DROP FUNCTION jldp.jl_recover_norm2_stddev(float8[], float8, text, text);
ALTER TABLE jldp_internal.jldp_key ADD COLUMN users name[] NOT NULL DEFAULT '{}';

-- new types
CREATE TYPE jldp.jl_nullspace_method AS ENUM ('waterfill', 'knapsack');

-- every routine as the install script defines it (created when new)
CREATE OR REPLACE FUNCTION jldp.jldp_version()
RETURNS text
AS 'MODULE_PATHNAME', 'jldp_version'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_key_create(name text DEFAULT 'default')
RETURNS text
AS 'MODULE_PATHNAME', 'jl_key_create'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_key_import(name text, secret bytea)
RETURNS text
AS 'MODULE_PATHNAME', 'jl_key_import'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_key_grant(name text, role regrole)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_key_grant'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_key_revoke(name text, role regrole)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_key_revoke'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_key_drop(name text)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_key_drop'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_key_table_changed()
RETURNS trigger
AS 'MODULE_PATHNAME', 'jl_key_table_changed'
LANGUAGE C;

CREATE OR REPLACE FUNCTION jldp.jl_key_export(name text)
RETURNS bytea
AS 'MODULE_PATHNAME', 'jl_key_export'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_key_import_wrapped(name text, wrapped bytea)
RETURNS text
AS 'MODULE_PATHNAME', 'jl_key_import_wrapped'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_key_rewrap()
RETURNS int
AS 'MODULE_PATHNAME', 'jl_key_rewrap'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_master_key_id()
RETURNS text
AS 'MODULE_PATHNAME', 'jl_master_key_id'
LANGUAGE C STABLE PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION jldp.jl_dataset_declare(name text, epsilon_cap float8,
    delta_cap float8 DEFAULT 0, source regclass DEFAULT NULL, unit text DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_dataset_declare'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_dataset_set_cap(name text, epsilon_cap float8, delta_cap float8 DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_dataset_set_cap'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_dataset_reset(name text)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_dataset_reset'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_dataset_grant(name text, spender regrole)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_dataset_grant'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_dataset_revoke(name text, spender regrole)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_dataset_revoke'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_agg_combine(internal, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_agg_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_agg_serialize(internal)
RETURNS bytea AS 'MODULE_PATHNAME', 'jl_agg_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_agg_deserialize(bytea, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_agg_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_private_release_agg_final(internal)
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_private_release_agg_final'
LANGUAGE C VOLATILE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_project_agg_final(internal)
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_project_agg_final'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_private_release(x float8[], epsilon float8, bound float8,
    neighbor jldp.jl_neighbor, mechanism jldp.jl_mechanism, key text DEFAULT 'default')
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_private_release_mechanism'
LANGUAGE C VOLATILE PARALLEL SAFE COST 100;

CREATE OR REPLACE FUNCTION jldp.jl_release_info(d int, epsilon float8, bound float8,
    neighbor jldp.jl_neighbor, mechanism jldp.jl_mechanism, key text DEFAULT 'default')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'jl_release_info_mechanism'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_project(x float8[], mechanism jldp.jl_mechanism, key text DEFAULT 'default')
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_project_mechanism'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 50;

CREATE OR REPLACE FUNCTION jldp_internal.jl_project_agg_mechanism_trans(internal, int, float8, jldp.jl_mechanism, text)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_project_agg_mechanism_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE jldp.jl_project_agg(attr int, value float8, mechanism jldp.jl_mechanism, key text) (
  SFUNC = jldp_internal.jl_project_agg_mechanism_trans, STYPE = internal, SSPACE = 512,
  FINALFUNC = jldp_internal.jl_project_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = jldp_internal.jl_agg_combine,
  SERIALFUNC = jldp_internal.jl_agg_serialize, DESERIALFUNC = jldp_internal.jl_agg_deserialize,
  PARALLEL = SAFE);

CREATE OR REPLACE FUNCTION jldp_internal.jl_release_agg_trans(internal, int, float8, int, float8, float8,
    jldp.jl_neighbor, jldp.jl_mechanism, text)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_release_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE jldp.jl_private_release_agg(attr int, value float8, d int, epsilon float8,
    bound float8, neighbor jldp.jl_neighbor, mechanism jldp.jl_mechanism, key text) (
  SFUNC = jldp_internal.jl_release_agg_trans, STYPE = internal, SSPACE = 512,
  FINALFUNC = jldp_internal.jl_private_release_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = jldp_internal.jl_agg_combine,
  SERIALFUNC = jldp_internal.jl_agg_serialize, DESERIALFUNC = jldp_internal.jl_agg_deserialize,
  PARALLEL = SAFE);

CREATE OR REPLACE FUNCTION jldp.jl_recover_dist(a float8[], b float8[], noise_variance float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_dist(a float8[], b float8[], release regclass)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_release'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_dist_stddev(a float8[], b float8[], release regclass)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_stddev_release'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_inner(a float8[], b float8[], noise_variance float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_inner'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_norm2(a float8[], noise_variance float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_norm2'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_inner(a float8[], b float8[], release regclass)
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_inner_release'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_inner_stddev(a float8[], b float8[], release regclass)
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_inner_stddev_release'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_norm2(a float8[], release regclass)
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_norm2_release'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_norm2_stddev(a float8[], release regclass)
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_norm2_stddev_release'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_dist(a float8[], b float8[], release text)
RETURNS float8
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN jldp.jl_recover_dist(a, b, release::pg_catalog.regclass);

CREATE OR REPLACE FUNCTION jldp.jl_recover_dist_stddev(a float8[], b float8[], release text)
RETURNS float8
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN jldp.jl_recover_dist_stddev(a, b, release::pg_catalog.regclass);

CREATE OR REPLACE FUNCTION jldp.jl_recover_inner(a float8[], b float8[], release text)
RETURNS float8
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN jldp.jl_recover_inner(a, b, release::pg_catalog.regclass);

CREATE OR REPLACE FUNCTION jldp.jl_recover_inner_stddev(a float8[], b float8[], release text)
RETURNS float8
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN jldp.jl_recover_inner_stddev(a, b, release::pg_catalog.regclass);

CREATE OR REPLACE FUNCTION jldp.jl_recover_norm2(a float8[], release text)
RETURNS float8
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN jldp.jl_recover_norm2(a, release::pg_catalog.regclass);

CREATE OR REPLACE FUNCTION jldp.jl_recover_norm2_stddev(a float8[], release text)
RETURNS float8
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN jldp.jl_recover_norm2_stddev(a, release::pg_catalog.regclass);

CREATE OR REPLACE FUNCTION jldp.jl_recover_dist_stddev(a float8[], b float8[], noise_variance float8,
    noise jldp.jl_noise DEFAULT 'laplace', kind jldp.jl_kind DEFAULT 'rademacher')
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_stddev'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_inner_stddev(a float8[], b float8[], noise_variance float8,
    noise jldp.jl_noise DEFAULT 'laplace', kind jldp.jl_kind DEFAULT 'rademacher')
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_inner_stddev'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_norm2_stddev(a float8[], noise_variance float8,
    noise jldp.jl_noise DEFAULT 'laplace', kind jldp.jl_kind DEFAULT 'rademacher')
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_norm2_stddev'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_kmeans_trans(internal, float8[], int)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_kmeans_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_kmeans_trans(internal, float8[], int, bigint)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_kmeans_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_kmeans_trans(internal, float8[], int, bigint, int)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_kmeans_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_kmeans_combine(internal, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_kmeans_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_kmeans_serialize(internal)
RETURNS bytea AS 'MODULE_PATHNAME', 'jl_kmeans_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_kmeans_deserialize(bytea, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_kmeans_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_kmeans_final(internal)
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_kmeans_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE jldp.jl_kmeans(sketch float8[], n_clusters int) (
  SFUNC = jldp_internal.jl_kmeans_trans, STYPE = internal, SSPACE = 8192,
  FINALFUNC = jldp_internal.jl_kmeans_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = jldp_internal.jl_kmeans_combine,
  SERIALFUNC = jldp_internal.jl_kmeans_serialize, DESERIALFUNC = jldp_internal.jl_kmeans_deserialize,
  PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE jldp.jl_kmeans(sketch float8[], n_clusters int, seed bigint) (
  SFUNC = jldp_internal.jl_kmeans_trans, STYPE = internal, SSPACE = 8192,
  FINALFUNC = jldp_internal.jl_kmeans_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = jldp_internal.jl_kmeans_combine,
  SERIALFUNC = jldp_internal.jl_kmeans_serialize, DESERIALFUNC = jldp_internal.jl_kmeans_deserialize,
  PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE jldp.jl_kmeans(sketch float8[], n_clusters int, seed bigint, max_iter int) (
  SFUNC = jldp_internal.jl_kmeans_trans, STYPE = internal, SSPACE = 8192,
  FINALFUNC = jldp_internal.jl_kmeans_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = jldp_internal.jl_kmeans_combine,
  SERIALFUNC = jldp_internal.jl_kmeans_serialize, DESERIALFUNC = jldp_internal.jl_kmeans_deserialize,
  PARALLEL = SAFE);

CREATE OR REPLACE FUNCTION jldp.jl_nearest_centroid(sketch float8[], centroids float8[])
RETURNS int AS 'MODULE_PATHNAME', 'jl_nearest_centroid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_kmeans_trans(internal, float8[], int, bigint, int, int)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_kmeans_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE jldp.jl_kmeans(sketch float8[], n_clusters int, seed bigint, max_iter int, n_init int) (
  SFUNC = jldp_internal.jl_kmeans_trans, STYPE = internal, SSPACE = 8192,
  FINALFUNC = jldp_internal.jl_kmeans_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = jldp_internal.jl_kmeans_combine,
  SERIALFUNC = jldp_internal.jl_kmeans_serialize, DESERIALFUNC = jldp_internal.jl_kmeans_deserialize,
  PARALLEL = SAFE);

CREATE OR REPLACE FUNCTION jldp_internal.jl_lloyd_step_trans(float8[], float8[], float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_lloyd_step_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_vector_sum_trans(float8[], float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_vector_sum_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE jldp.jl_lloyd_step(sketch float8[], centroids float8[]) (
  SFUNC = jldp_internal.jl_lloyd_step_trans, STYPE = float8[],
  COMBINEFUNC = jldp_internal.jl_vector_sum_trans, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE jldp.jl_vector_sum(float8[]) (
  SFUNC = jldp_internal.jl_vector_sum_trans, STYPE = float8[],
  COMBINEFUNC = jldp_internal.jl_vector_sum_trans, PARALLEL = SAFE);

CREATE OR REPLACE FUNCTION jldp.jl_lloyd_update(step float8[], centroids float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'jl_lloyd_update_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_kmeans_lloyd(sketches regclass, sketch_column name,
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

CREATE OR REPLACE FUNCTION jldp.jl_knn(sketches regclass, id_column name, sketch_column name,
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

CREATE OR REPLACE FUNCTION jldp.jl_knn(release regclass, query float8[], n int)
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

CREATE OR REPLACE FUNCTION jldp.jl_knn(release text, query float8[], n int)
RETURNS TABLE (id bigint, dist float8)
LANGUAGE sql STABLE PARALLEL UNSAFE
AS $fn$ SELECT * FROM jldp.jl_knn(release::pg_catalog.regclass, query, n) $fn$;

CREATE OR REPLACE FUNCTION jldp.jl_kmeans(release regclass, n_clusters int, seed bigint DEFAULT 0,
    max_iter int DEFAULT 300, n_init int DEFAULT 1, tol float8 DEFAULT 1e-4,
    sketch_column name DEFAULT 'sketch',
    OUT centroids float8[], OUT sizes bigint[], OUT inertia float8, OUT iterations int,
    OUT workers int)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_kmeans_relation'
LANGUAGE C STABLE PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION jldp.jl_kmeans(release text, n_clusters int, seed bigint DEFAULT 0,
    max_iter int DEFAULT 300, n_init int DEFAULT 1, tol float8 DEFAULT 1e-4,
    sketch_column name DEFAULT 'sketch',
    OUT centroids float8[], OUT sizes bigint[], OUT inertia float8, OUT iterations int,
    OUT workers int)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_kmeans_relation'
LANGUAGE C STABLE PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION jldp.jl_kmeans_labels(release regclass, n_clusters int, seed bigint DEFAULT 0,
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

CREATE OR REPLACE FUNCTION jldp.jl_kmeans_labels(release text, n_clusters int, seed bigint DEFAULT 0,
    max_iter int DEFAULT 300, n_init int DEFAULT 1, tol float8 DEFAULT 1e-4)
RETURNS TABLE (id bigint, cluster int)
LANGUAGE sql STABLE PARALLEL UNSAFE
AS $fn$ SELECT * FROM jldp.jl_kmeans_labels(release::pg_catalog.regclass, n_clusters, seed, max_iter, n_init, tol) $fn$;

CREATE OR REPLACE FUNCTION jldp.jl_randomized_response(bits float8[], epsilon float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_randomized_response'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_randomized_response(bits boolean[], epsilon float8)
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'jl_randomized_response_bool'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_randomized_response(bits bit varying, epsilon float8)
RETURNS bit varying
AS 'MODULE_PATHNAME', 'jl_randomized_response_bits'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_rr_flip_probability(epsilon float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_rr_flip_probability_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_dist_rr(a float8[], b float8[], p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_rr'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_dist_rr(a boolean[], b boolean[], p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_rr_bool'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_dist_rr(a bit varying, b bit varying, p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_rr_bits'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_dist_rr_stddev(a float8[], b float8[], p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_rr_stddev'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_dist_rr_stddev(a boolean[], b boolean[], p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_rr_stddev_bool'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_recover_dist_rr_stddev(a bit varying, b bit varying, p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_rr_stddev_bits'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_add_discrete_laplace(value bigint, epsilon float8, sensitivity bigint DEFAULT 1)
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_add_discrete_laplace'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_discrete_laplace_variance(epsilon float8, sensitivity bigint DEFAULT 1)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_discrete_laplace_variance_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_min_dim(n bigint, eps float8 DEFAULT 0.1)
RETURNS int
AS 'MODULE_PATHNAME', 'jl_min_dim_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_suggest_k(
    d int, n bigint, epsilon float8, dist2 float8, dist2_hi float8 DEFAULT NULL,
    neighbor jldp.jl_neighbor DEFAULT 'attribute', bound float8 DEFAULT 1,
    noise jldp.jl_noise DEFAULT 'laplace', delta float8 DEFAULT NULL,
    kind jldp.jl_kind DEFAULT NULL, calibration jldp.jl_calibration DEFAULT NULL,
    key text DEFAULT 'default')
RETURNS int
AS 'MODULE_PATHNAME', 'jl_suggest_k'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_suggest_k_info(
    d int, n bigint, epsilon float8, dist2 float8, dist2_hi float8 DEFAULT NULL,
    neighbor jldp.jl_neighbor DEFAULT 'attribute', bound float8 DEFAULT 1,
    noise jldp.jl_noise DEFAULT 'laplace', delta float8 DEFAULT NULL,
    kind jldp.jl_kind DEFAULT NULL, calibration jldp.jl_calibration DEFAULT NULL,
    key text DEFAULT 'default')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'jl_suggest_k_info'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_advise(
    d int, epsilon float8, dist2 float8, dist2_hi float8 DEFAULT NULL,
    neighbor jldp.jl_neighbor DEFAULT 'attribute', bound float8 DEFAULT 1,
    noise jldp.jl_noise DEFAULT NULL, delta float8 DEFAULT NULL,
    goal jldp.jl_goal DEFAULT 'distance', cluster_var float8 DEFAULT NULL,
    n bigint DEFAULT NULL, key text DEFAULT 'default')
RETURNS TABLE (rank int, kind text, k int, noise text, calibration text,
               delta float8, noise_variance float8, predicted_error float8,
               predicted_error_hi float8, relative_error float8,
               refused boolean, note text)
AS 'MODULE_PATHNAME', 'jl_advise'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10;

CREATE OR REPLACE FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[])
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[], float8)
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[], float8, boolean)
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_linear_fit_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_linear_fit_serialize(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'jl_linear_fit_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_linear_fit_deserialize(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_linear_fit_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_linear_fit_final(internal)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_linear_fit_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_linear_fit_intercept_final(internal)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_linear_fit_intercept_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE jldp.jl_linear_fit(x float8[], y float8[]) (
  SFUNC = jldp_internal.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = jldp_internal.jl_linear_fit_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = jldp_internal.jl_linear_fit_combine,
  SERIALFUNC = jldp_internal.jl_linear_fit_serialize,
  DESERIALFUNC = jldp_internal.jl_linear_fit_deserialize,
  PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE jldp.jl_linear_fit(x float8[], y float8[], ridge float8) (
  SFUNC = jldp_internal.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = jldp_internal.jl_linear_fit_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = jldp_internal.jl_linear_fit_combine,
  SERIALFUNC = jldp_internal.jl_linear_fit_serialize,
  DESERIALFUNC = jldp_internal.jl_linear_fit_deserialize,
  PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE jldp.jl_linear_fit(x float8[], y float8[], ridge float8, intercept boolean) (
  SFUNC = jldp_internal.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = jldp_internal.jl_linear_fit_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = jldp_internal.jl_linear_fit_combine,
  SERIALFUNC = jldp_internal.jl_linear_fit_serialize,
  DESERIALFUNC = jldp_internal.jl_linear_fit_deserialize,
  PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE jldp.jl_linear_fit_intercept(x float8[], y float8[]) (
  SFUNC = jldp_internal.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = jldp_internal.jl_linear_fit_intercept_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = jldp_internal.jl_linear_fit_combine,
  SERIALFUNC = jldp_internal.jl_linear_fit_serialize,
  DESERIALFUNC = jldp_internal.jl_linear_fit_deserialize,
  PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE jldp.jl_linear_fit_intercept(x float8[], y float8[], ridge float8) (
  SFUNC = jldp_internal.jl_linear_fit_trans, STYPE = internal,
  FINALFUNC = jldp_internal.jl_linear_fit_intercept_final, FINALFUNC_MODIFY = SHAREABLE,
  COMBINEFUNC = jldp_internal.jl_linear_fit_combine,
  SERIALFUNC = jldp_internal.jl_linear_fit_serialize,
  DESERIALFUNC = jldp_internal.jl_linear_fit_deserialize,
  PARALLEL = SAFE);

CREATE OR REPLACE FUNCTION jldp.jl_linear_predict(x float8[], coef float8[], intercept float8[] DEFAULT NULL)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_linear_predict'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_nullspace_clean(x float8[], a_desired float8[], a_confidential float8[],
    utility_error float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_nullspace_clean_confidential'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_nullspace_clean(x float8[], a_desired float8[], utility_error float8,
    method jldp.jl_nullspace_method DEFAULT 'waterfill')
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_nullspace_clean'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_directional_variance(release regclass, x float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_directional_variance'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION jldp.jl_directional_variance_stddev(release regclass, x float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_directional_variance_stddev'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION jldp.jl_covariance(release regclass)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_covariance'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION jldp.jl_pca(release regclass, n_components int,
    OUT component int, OUT variance float8, OUT direction float8[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'jl_pca'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 10;

CREATE OR REPLACE FUNCTION jldp.jl_least_squares(release regclass, target_attr int)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_least_squares'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION jldp.jl_cut_size(release regclass, s int[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_size'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION jldp.jl_cut_size_stddev(release regclass, s int[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_size_stddev'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION jldp_internal.jl_cut_trans(internal, regclass, int, float8[])
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_cut_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_cut_estimate_final(internal)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_estimate_final'
LANGUAGE C STABLE PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION jldp_internal.jl_cut_estimate_stddev_final(internal)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_estimate_stddev_final'
LANGUAGE C STABLE PARALLEL RESTRICTED;

CREATE OR REPLACE AGGREGATE jldp.jl_cut_estimate(release regclass, vertex int, sketch float8[]) (
    SFUNC = jldp_internal.jl_cut_trans,
    STYPE = internal,
    FINALFUNC = jldp_internal.jl_cut_estimate_final,
    PARALLEL = RESTRICTED
);

CREATE OR REPLACE AGGREGATE jldp.jl_cut_estimate_stddev(release regclass, vertex int, sketch float8[]) (
    SFUNC = jldp_internal.jl_cut_trans,
    STYPE = internal,
    FINALFUNC = jldp_internal.jl_cut_estimate_stddev_final,
    PARALLEL = RESTRICTED
);

CREATE OR REPLACE FUNCTION jldp_internal.jl_attribute_checked(a jldp.jl_attribute)
RETURNS jldp.jl_attribute
AS 'MODULE_PATHNAME', 'jl_attribute_checked'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_numeric(column_name text, lo float8, hi float8, weight float8 DEFAULT 1)
RETURNS jldp.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_attribute_checked(ROW(column_name, 'numeric', lo, hi, weight, NULL, NULL, NULL)::jldp.jl_attribute);

CREATE OR REPLACE FUNCTION jldp.jl_category(column_name text, categories text[], weight float8 DEFAULT 1)
RETURNS jldp.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_attribute_checked(ROW(column_name, 'category', NULL, NULL, weight, categories, NULL, NULL)::jldp.jl_attribute);

CREATE OR REPLACE FUNCTION jldp.jl_vector(column_name text, length int, lo float8, hi float8, weight float8 DEFAULT 1)
RETURNS jldp.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_attribute_checked(ROW(column_name, 'vector', lo, hi, weight, NULL, length, NULL)::jldp.jl_attribute);

CREATE OR REPLACE FUNCTION jldp.jl_long(attribute_column text, value_column text, d int, lo float8, hi float8,
    weight float8 DEFAULT 1)
RETURNS jldp.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_attribute_checked(ROW(value_column, 'long', lo, hi, weight, NULL, d, attribute_column)::jldp.jl_attribute);

CREATE OR REPLACE FUNCTION jldp_internal.jl_mechanism_checked(m jldp.jl_mechanism)
RETURNS jldp.jl_mechanism
AS 'MODULE_PATHNAME', 'jl_mechanism_checked'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_sketch(k int DEFAULT NULL, kind jldp.jl_kind DEFAULT 'rademacher',
    noise jldp.jl_noise DEFAULT 'laplace', delta float8 DEFAULT NULL,
    calibration jldp.jl_calibration DEFAULT NULL, density float8 DEFAULT NULL)
RETURNS jldp.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_mechanism_checked(ROW('sketch', k, kind, noise, delta, calibration, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, density)::jldp.jl_mechanism);

CREATE OR REPLACE FUNCTION jldp.jl_advised(goal jldp.jl_goal DEFAULT 'distance', dist2 float8 DEFAULT NULL,
    dist2_hi float8 DEFAULT NULL, cluster_var float8 DEFAULT NULL,
    noise jldp.jl_noise DEFAULT NULL, delta float8 DEFAULT NULL, force boolean DEFAULT false)
RETURNS jldp.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_mechanism_checked(ROW('advised', NULL, NULL, noise, delta, NULL, NULL, NULL, NULL, goal, dist2, dist2_hi, cluster_var, force, NULL, NULL)::jldp.jl_mechanism);

CREATE OR REPLACE FUNCTION jldp.jl_covariance_mechanism(r int, delta float8,
    lift jldp.jl_lift DEFAULT 'always', method jldp.jl_covariance_method DEFAULT 'gram',
    origin jldp.jl_origin DEFAULT 'lo')
RETURNS jldp.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_mechanism_checked(ROW('covariance', NULL, NULL, NULL, delta, NULL, r, lift, method, NULL, NULL, NULL, NULL, NULL, origin, NULL)::jldp.jl_mechanism);

CREATE OR REPLACE FUNCTION jldp_internal.jl_encode_number(x float8, lo float8, hi float8, weight float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_encode_number'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_encode_category(x anyelement, categories text[], weight float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_encode_category'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_encode_category(x text, categories text[], weight float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_encode_category'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_encode_vector(x float8[], length int, lo float8, hi float8, weight float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_encode_vector'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp.jl_protect(relation regclass, unit text, attributes jldp.jl_attribute[],
    neighbor jldp.jl_neighbor DEFAULT 'row', row_clip float8 DEFAULT NULL,
    epsilon_cap float8 DEFAULT NULL, delta_cap float8 DEFAULT 0,
    OUT dataset text, OUT d int)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_protect'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_release(protected regclass, target text, epsilon float8,
    mechanism jldp.jl_mechanism, key text DEFAULT 'default',
    OUT release_id bigint, OUT released regclass, OUT epsilon_charged float8, OUT delta_charged float8,
    OUT noise_variance float8, OUT guarantee text)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_release'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_release_dist2(protected regclass, epsilon float8,
    OUT dist2 float8, OUT stddev float8, OUT n bigint, OUT epsilon_holding float8,
    OUT delta float8, OUT neighbor text, OUT guarantee text)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_release_dist2_declared'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_edge(u text, v text, vertices int)
RETURNS jldp.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_attribute_checked(ROW(u, 'edge'::text, NULL, NULL, 1, NULL, vertices, v)::jldp.jl_attribute);

CREATE OR REPLACE FUNCTION jldp.jl_graph(r int, delta float8)
RETURNS jldp.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_mechanism_checked(ROW('graph', NULL, NULL, NULL, delta, NULL, r, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jldp.jl_mechanism);

CREATE OR REPLACE FUNCTION jldp.jl_budget_book(protected regclass, epsilon float8, delta float8 DEFAULT 0,
    note text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_budget_book'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_protect_grant(protected regclass, spender regrole)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  ds text;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) protected) THEN
    RAISE EXCEPTION 'relation with OID % does not exist', protected::pg_catalog.oid USING ERRCODE = '42P01';
  END IF;
  SELECT p.dataset INTO ds FROM jldp.jl_protected p WHERE p.relation = protected;
  IF ds IS NULL THEN
    RAISE EXCEPTION '% is not a protected table whose budget you manage', protected
      USING ERRCODE = '55000',
            HINT = 'Declare it with jl_protect; its owner (or a member of the owner''s role) grants spending.';
  END IF;
  PERFORM jldp_internal.jl_dataset_grant(ds, spender);
END
$fn$;

CREATE OR REPLACE FUNCTION jldp.jl_protect_revoke(protected regclass, spender regrole)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  ds text;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) protected) THEN
    RAISE EXCEPTION 'relation with OID % does not exist', protected::pg_catalog.oid USING ERRCODE = '42P01';
  END IF;
  SELECT p.dataset INTO ds FROM jldp.jl_protected p WHERE p.relation = protected;
  IF ds IS NULL THEN
    RAISE EXCEPTION '% is not a protected table whose budget you manage', protected
      USING ERRCODE = '55000';
  END IF;
  PERFORM jldp_internal.jl_dataset_revoke(ds, spender);
END
$fn$;

CREATE OR REPLACE FUNCTION jldp.jl_set_cap(protected regclass, epsilon_cap float8, delta_cap float8 DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  ds text;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) protected) THEN
    RAISE EXCEPTION 'relation with OID % does not exist', protected::pg_catalog.oid USING ERRCODE = '42P01';
  END IF;
  SELECT p.dataset INTO ds FROM jldp.jl_protected p WHERE p.relation OPERATOR(pg_catalog.=) protected;
  IF ds IS NULL THEN
    RAISE EXCEPTION '% is not a protected table whose budget you manage', protected
      USING ERRCODE = '55000',
            HINT = 'A budget administrator (jldp_budget_admin) sets the cap of any protected table; its owner may lower it.';
  END IF;
  PERFORM jldp.jl_dataset_set_cap(ds, epsilon_cap, delta_cap);
END
$fn$;

CREATE OR REPLACE FUNCTION jldp.jl_reset(protected regclass)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  ds text;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) protected) THEN
    RAISE EXCEPTION 'relation with OID % does not exist', protected::pg_catalog.oid USING ERRCODE = '42P01';
  END IF;
  SELECT p.dataset INTO ds FROM jldp.jl_protected p WHERE p.relation OPERATOR(pg_catalog.=) protected;
  IF ds IS NULL THEN
    RAISE EXCEPTION '% is not a protected table', protected USING ERRCODE = '55000';
  END IF;
  PERFORM jldp.jl_dataset_reset(ds);
END
$fn$;

CREATE OR REPLACE FUNCTION jldp_internal.jl_distributed_decision(gid text)
RETURNS TABLE (servers text[], shard_release_ids bigint[])
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
  SELECT d.servers, d.shard_release_ids FROM jldp_internal.jldp_distributed_release d WHERE d.gid = $1
$fn$;

CREATE OR REPLACE FUNCTION jldp_internal.jl_distributed_pending()
RETURNS TABLE (gid text, servers text[], shard_release_ids bigint[])
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
  SELECT d.gid, d.servers, d.shard_release_ids FROM jldp_internal.jldp_distributed_release d
   WHERE d.committed_at IS NULL ORDER BY d.gid
$fn$;

CREATE OR REPLACE FUNCTION jldp_internal.jl_distributed_committed(gid text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'jl_distributed_committed'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp.jl_distributed_resolve(servers text[] DEFAULT NULL)
RETURNS TABLE (server text, gid text, action text)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  dl text;
  srvs text[];
  pend record;
  confirmed text[] := '{}';
  left_alone text[] := '{}';
  dsrv text[];
  conn text := 'jldp_resolve_' || pg_catalog.pg_backend_pid()::text;
  rjl text;
  g text;
  base text;
  part int;
  locked boolean;
  seen boolean;
  me text;
BEGIN
  -- this coordinator's identity in the transaction ids it prepares (as
  -- jl_distributed_begin writes it): a resolver touches only the parts of
  -- its own coordinator's releases (and of 0.3.3's, whose ids had none)
  me := pg_catalog.substr(pg_catalog.md5(
          (SELECT system_identifier FROM pg_catalog.pg_control_system())::text || '/' ||
          (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database())::text), 1, 16);
  SELECT pg_catalog.quote_ident(ns.nspname) INTO dl
    FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace ns ON ns.oid = e.extnamespace
   WHERE e.extname = 'dblink';
  IF dl IS NULL THEN
    RAISE EXCEPTION 'jl_distributed_resolve needs the dblink extension on the coordinator'
      USING ERRCODE = '0A000', HINT = 'CREATE EXTENSION dblink;';
  END IF;
  -- each decision is read after the release's lock is taken, in a
  -- snapshot of its own
  IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'jl_distributed_resolve runs only at isolation level read committed'
      USING ERRCODE = '25000',
            HINT = 'A transaction''s single snapshot would not see a decision made while it runs.';
  END IF;
  srvs := coalesce(servers, ARRAY(
    SELECT s.srvname::text FROM pg_catalog.pg_foreign_server s
      JOIN pg_catalog.pg_foreign_data_wrapper w ON w.oid = s.srvfdw
     WHERE w.fdwname = 'postgres_fdw'
       AND EXISTS (SELECT FROM pg_catalog.pg_user_mappings um
                    WHERE um.srvid = s.oid AND um.usename IN (current_user, 'public'))
     ORDER BY 1));
  FOREACH server IN ARRAY srvs LOOP
    BEGIN
      EXECUTE pg_catalog.format('SELECT %s.dblink_connect($1, $2)', dl) USING conn, server;
    EXCEPTION WHEN OTHERS THEN
      gid := NULL;
      action := 'unreachable: ' || SQLERRM;
      RETURN NEXT;
      CONTINUE;
    END;
    BEGIN
      EXECUTE pg_catalog.format('SELECT x FROM %s.dblink($1, $2) AS t(x text)', dl) INTO rjl
        USING conn, 'SELECT pg_catalog.quote_ident(COALESCE(j.nspname, n.nspname)) '
                    'FROM pg_catalog.pg_extension e '
                    'JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace '
                    'LEFT JOIN pg_catalog.pg_namespace j ON j.nspname OPERATOR(pg_catalog.=) ''jldp'' '
                    'AND EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid OPERATOR(pg_catalog.=) ''pg_catalog.pg_namespace''::pg_catalog.regclass '
                    'AND d.objid OPERATOR(pg_catalog.=) j.oid AND d.refobjid OPERATOR(pg_catalog.=) e.oid AND d.deptype OPERATOR(pg_catalog.=) ''e'') '
                    'WHERE e.extname OPERATOR(pg_catalog.=) ''jldp''';
      EXECUTE pg_catalog.format('SELECT %s.dblink_exec($1, $2)', dl)
        USING conn, 'SET search_path = pg_catalog, pg_temp';
    EXCEPTION WHEN OTHERS THEN
      gid := NULL;
      action := 'unreachable: ' || SQLERRM;
      RETURN NEXT;
      EXECUTE pg_catalog.format('SELECT %s.dblink_disconnect($1)', dl) USING conn;
      CONTINUE;
    END;
    FOR g IN EXECUTE pg_catalog.format('SELECT x FROM %s.dblink($1, $2) AS t(x text) ORDER BY 1', dl)
        USING conn, pg_catalog.format('SELECT gid FROM pg_catalog.pg_prepared_xacts '
                    'WHERE gid OPERATOR(pg_catalog.~) ''^jldp_(%s_)?[0-9a-f]{32}_[1-9][0-9]{0,8}$'' '
                    'AND database OPERATOR(pg_catalog.=) pg_catalog.current_database()', me) LOOP
      gid := g;
      base := pg_catalog.regexp_replace(g, '_[0-9]+$', '');
      part := pg_catalog.substring(g, '_([0-9]+)$')::int;
      -- a release still running holds this lock: its parts are its own.
      -- Once held, the decision read now is final (a release decides
      -- only while it holds the lock)
      locked := pg_catalog.pg_try_advisory_lock(1785488496, pg_catalog.hashtext(base));
      IF NOT locked THEN
        left_alone := left_alone || base;
        action := 'left alone (the release is in progress)';
        RETURN NEXT;
        CONTINUE;
      END IF;
      BEGIN
        dsrv := NULL;
        SELECT d.servers INTO dsrv FROM jldp_internal.jl_distributed_decision(base) d;
        IF dsrv IS NULL THEN
          EXECUTE pg_catalog.format('SELECT %s.dblink_exec($1, $2)', dl)
            USING conn, pg_catalog.format('ROLLBACK PREPARED %L', g);
          action := 'rolled back (no decision: the coordinator did not commit the release)';
        ELSIF dsrv[part] IS DISTINCT FROM server THEN
          left_alone := left_alone || base;
          action := pg_catalog.format('left alone (the decision names server %s for part %s)', dsrv[part], part);
        ELSE
          EXECUTE pg_catalog.format('SELECT %s.dblink_exec($1, $2)', dl)
            USING conn, pg_catalog.format('COMMIT PREPARED %L', g);
          action := 'committed (the coordinator decided the release)';
        END IF;
      EXCEPTION WHEN OTHERS THEN
        left_alone := left_alone || base;
        action := 'failed: ' || SQLERRM;
      END;
      PERFORM pg_catalog.pg_advisory_unlock(1785488496, pg_catalog.hashtext(base));
      RETURN NEXT;
    END LOOP;
    -- the decided releases' parts this shard has committed: its registry
    -- holds their rows (written in the prepared transaction)
    FOR pend IN SELECT * FROM jldp_internal.jl_distributed_pending() LOOP
      FOR i IN 1 .. pg_catalog.cardinality(pend.servers) LOOP
        CONTINUE WHEN pend.servers[i] IS DISTINCT FROM server;
        BEGIN
          EXECUTE pg_catalog.format('SELECT x FROM %s.dblink($1, $2) AS t(x boolean)', dl) INTO seen
            USING conn, pg_catalog.format('SELECT EXISTS (SELECT FROM %s.jl_releases WHERE id = %s)',
                                          rjl, pend.shard_release_ids[i]);
        EXCEPTION WHEN OTHERS THEN
          seen := false;
        END;
        IF seen THEN
          confirmed := confirmed || (pend.gid || '_' || i);
        END IF;
      END LOOP;
    END LOOP;
    EXECUTE pg_catalog.format('SELECT %s.dblink_disconnect($1)', dl) USING conn;
  END LOOP;
  -- a decided release whose every part its shard shows committed
  FOR pend IN SELECT * FROM jldp_internal.jl_distributed_pending() LOOP
    IF NOT pend.gid = ANY (left_alone)
       AND (SELECT bool_and((pend.gid || '_' || i) = ANY (confirmed))
              FROM pg_catalog.generate_series(1, pg_catalog.cardinality(pend.servers)) i) THEN
      PERFORM jldp_internal.jl_distributed_committed(pend.gid);
      server := NULL;
      gid := pend.gid;
      action := 'recorded as committed on every shard';
      RETURN NEXT;
    END IF;
  END LOOP;
END
$fn$;

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
            HINT = pg_catalog.format('ALTER SERVER %I OPTIONS (ADD connect_timeout ''5''); a frozen shard would otherwise hold the release past statement_timeout and pg_terminate_backend (docs/scaleout.md).',
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
                HINT = 'Carry the key with jl_key_export and jl_key_import_wrapped (docs/scaleout.md).';
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

CREATE OR REPLACE FUNCTION jldp_internal.jl_shard_bounds(protected regclass)
RETURNS TABLE (partition regclass, unit_lower text, unit_upper text, unit_in text[])
AS 'MODULE_PATHNAME', 'jl_shard_bounds'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_declaration_info(protected regclass)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'jl_declaration_info'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION jldp_internal.jl_release_part(protected regclass, target text, epsilon float8,
    mechanism jldp.jl_mechanism, key text, unit_lower text, unit_upper text, unit_in text[])
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_release_part'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_release_part_check(protected regclass, target text, epsilon float8,
    mechanism jldp.jl_mechanism, key text, unit_lower text, unit_upper text, unit_in text[])
RETURNS void
AS 'MODULE_PATHNAME', 'jl_release_part_check'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_distributed_begin_declared(source regclass, epsilon float8, delta float8,
    noise jldp.jl_noise)
RETURNS text
AS 'MODULE_PATHNAME', 'jl_distributed_begin_declared'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_distributed_charge_declared(gid text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_distributed_charge_declared'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION jldp_internal.jl_distributed_decide_declared(source regclass, target regclass, info jsonb,
    gid text, servers text[], shard_release_ids bigint[], key_fingerprint text, "rows" bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_distributed_decide_declared'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE PROCEDURE jldp.jl_release_distributed(
    protected regclass, target text, epsilon float8, mechanism jldp.jl_mechanism,
    key text DEFAULT 'default', INOUT release_id bigint DEFAULT NULL)
LANGUAGE plpgsql
AS $fn$
BEGIN
  IF protected IS NULL OR target IS NULL OR epsilon IS NULL OR mechanism IS NULL OR key IS NULL THEN
    RAISE EXCEPTION 'jl_release_distributed: protected, target, epsilon, mechanism and key are required'
      USING ERRCODE = '22004',
            HINT = 'CALL jl_release_distributed(''customers'', ''customers_private'', 1, jl_sketch(k => 20)).';
  END IF;
  -- checked as jl_release checks it, before anything else
  PERFORM jldp_internal.jl_mechanism_checked(mechanism);
  IF (mechanism).mechanism IS DISTINCT FROM 'sketch' THEN
    RAISE EXCEPTION 'jl_release_distributed releases with jl_sketch'
      USING ERRCODE = '0A000',
            DETAIL = 'Its shards release disjoint units, each a sketch of its own: the parts compose in parallel.';
  END IF;
  CALL jldp_internal.jl_distributed_run(protected, NULL, target, key, epsilon, (mechanism).delta,
                                      (mechanism).noise::text, mechanism, NULL, release_id);
END
$fn$;

CREATE OR REPLACE FUNCTION jldp_internal.jl_drop_guard()
RETURNS event_trigger
AS 'MODULE_PATHNAME', 'jl_drop_guard'
LANGUAGE C;

CREATE OR REPLACE FUNCTION jldp_internal.jl_role_hint(name text) RETURNS text
AS 'MODULE_PATHNAME', 'jl_role_hint'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;


-- the views, as the install script defines them (budget administrators
-- see every dataset)
CREATE OR REPLACE VIEW jldp.jl_keys WITH (security_barrier) AS
  SELECT name, fingerprint, owner, created,
         CASE WHEN length(secret) = 77
              THEN encode(substr(secret, 2, 16), 'hex') END AS master_key_id,
         users
  FROM jldp_internal.jldp_key
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
     OR EXISTS (SELECT FROM pg_catalog.unnest(users) u
                 WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(u)), 'USAGE'))
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);

CREATE OR REPLACE VIEW jldp.jl_budgets WITH (security_barrier) AS
  SELECT name, epsilon_cap, delta_cap, epsilon_spent, delta_spent,
         epsilon_cap - epsilon_spent AS epsilon_remaining,
         delta_cap - delta_spent AS delta_remaining,
         source, owner, created, spenders, unit
  FROM jldp_internal.jldp_dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
     OR pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole('jldp_budget_admin'), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);

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
         END AS released
  FROM jldp_internal.jldp_ledger l JOIN jldp_internal.jldp_dataset d ON d.name = l.dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(d.owner)), 'USAGE')
     OR pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole('jldp_budget_admin'), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);

CREATE OR REPLACE VIEW jldp.jl_releases WITH (security_barrier) AS
  SELECT id, target, source, id_column, vector, d, k, projection, neighbor, bound,
         clipping, calibration, epsilon, delta, noise_variance, grid, key_fingerprint,
         dataset, info, version, released_at, released_by
  FROM jldp_internal.jldp_release
  -- a dropped target is not looked up (each lookup of a missing OID would
  -- stay in the session's catalog cache)
  WHERE CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = target)
             THEN pg_catalog.has_table_privilege(target, 'SELECT') ELSE false END;

CREATE OR REPLACE VIEW jldp.jl_protected WITH (security_barrier) AS
  SELECT source AS relation, name AS dataset, unit, neighbor, row_clip,
         (SELECT sum(CASE (a).encoding WHEN 'numeric' THEN 1
                                       WHEN 'category' THEN pg_catalog.cardinality((a).categories)
                                       ELSE (a).length END)::int
            FROM pg_catalog.unnest(attributes) a) AS d,
         attributes, epsilon_cap, delta_cap, epsilon_spent, delta_spent,
         epsilon_cap - epsilon_spent AS epsilon_remaining, delta_cap - delta_spent AS delta_remaining,
         owner, spenders
  FROM jldp_internal.jldp_dataset
  WHERE attributes IS NOT NULL
    AND (pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
     OR pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole('jldp_budget_admin'), 'USAGE')
         OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user));

CREATE OR REPLACE VIEW jldp.jl_distributed_releases WITH (security_barrier) AS
  SELECT gid, release_id, target, servers, shard_release_ids, decided_at, committed_at, released_by
  FROM jldp_internal.jldp_distributed_release
  WHERE CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = target)
             THEN pg_catalog.has_table_privilege(target, 'SELECT') ELSE false END;

-- every comment, as the install script words it
COMMENT ON TYPE jldp.jl_neighbor IS
  'What a protected table''s releases protect: a whole unit''s row replaced (row), or one declared attribute of one unit changed within its bounds (attribute).';
COMMENT ON TYPE jldp.jl_calibration IS
  'How a sketch release''s noise is calibrated to the realized projection: exact (Laplace), analytic (Gaussian, Balle and Wang), classic (Gaussian, Kenthapadi et al.''s Theorem 1), paper (Dhaliwal et al.''s constants, for reproducing their experiments with the unbudgeted primitives: jl_release refuses it).';
COMMENT ON TYPE jldp.jl_encoding IS
  'How a declared attribute enters the row vector: a number clamped and scaled, a category one-hot, a float8[] of fixed length clamped and scaled element by element, long-format rows (unit, attribute, value) as the elements of a vector of d, an edge (u, v) as its incidence vector over the vertices.';
COMMENT ON TYPE jldp.jl_attribute IS
  'One declared attribute of a protected table, built by jl_numeric, jl_category, jl_vector or jl_long.';
COMMENT ON TYPE jldp.jl_noise IS
  'The noise of a release, as an option word postgres_fdw can ship (a text constant blocks pushdown).';
COMMENT ON TYPE jldp.jl_kind IS
  'The projection kind of a release, as an option word postgres_fdw can ship (a text constant blocks pushdown).';
COMMENT ON TYPE jldp.jl_lift IS
  'The covariance mechanism''s lift: always the accountant''s w, or (auto) only what a private lower bound on sigma_min(A) leaves missing.';
COMMENT ON TYPE jldp.jl_covariance_method IS
  'How the covariance mechanism computes R: from the Gram matrix (gram: d x d memory) or as Y [A; l I] batch by batch (product).';
COMMENT ON TYPE jldp.jl_origin IS
  'Where the covariance mechanism puts a number''s zero: at lo (the declared encoding, (x - lo) weight / (hi - lo)) or at zero (x weight / (hi - lo): second moments about the data''s origin).';
COMMENT ON TYPE jldp.jl_goal IS
  'What sketches are for, as the advisor predicts their error: recovered squared distances (distance) or a nearest-centre clustering (clustering).';
COMMENT ON TYPE jldp.jl_mechanism IS
  'What jl_release releases with, built by a mechanism''s constructor (jl_sketch, jl_advised, jl_covariance_mechanism, jl_graph).';
COMMENT ON TYPE jldp.jl_nullspace_method IS
  'How jl_nullspace_clean spends its utility budget: waterfill (the exact maximiser of the paper''s objective) or knapsack (Algorithm 1 as published).';
COMMENT ON TABLE jldp_internal.jldp_key IS
  'jldp secret keys. Readable by no role but its owner; the release functions read it internally.';
COMMENT ON TABLE jldp_internal.jldp_dataset IS
  'Protected datasets: the privacy budget cap (epsilon, delta) and what has been spent, by name and at most one per source relation. Written only by jldp''s functions; roles read it through jl_budgets.';
COMMENT ON TABLE jldp_internal.jldp_ledger IS
  'Privacy budget ledger: every declaration, cap change, reset and charge of a dataset (and the reservations of jldp before 0.4.2) with the totals after it, the acting role and the transaction. Written only by jldp''s functions; roles read it through jl_ledger.';
COMMENT ON FUNCTION jldp.jldp_version() IS
  'The version of the jldp library in use (the control file''s default_version when it was built); recorded with each table release.';
COMMENT ON TABLE jldp_internal.jldp_release IS
  'Release registry: one row per release into a table (jl_release, jl_release_distributed; before 0.4.2 also jl_release_table, jl_release_long, jl_release_covariance and jl_release_graph) with its source, target, options, noise variance, key fingerprint, the ledger charge it was made under, the full record (info), the jldp version and who released it. Written only by those functions; roles read it through jl_releases.';
COMMENT ON TABLE jldp_internal.jldp_distributed_release IS
  'Decisions of distributed releases: a row exists exactly when the coordinator committed the release (its charge and registry row); the shards'' prepared parts named gid_1, gid_2, ... are then to be committed. committed_at: when every part was seen committed.';
COMMENT ON VIEW jldp.jl_keys IS
  'The keys the current role may use (its own, those granted to a role it has, all for superusers) with their non-secret fingerprints, the id of the master key that encrypts each (NULL: stored unencrypted) and the roles granted them.';
COMMENT ON FUNCTION jldp.jl_key_create(text) IS
  'Create a new 256-bit key from pg_strong_random; returns its non-secret fingerprint.';
COMMENT ON FUNCTION jldp.jl_key_import(text, bytea) IS
  'Pin a key to 32 known bytes (reproducible tests, the same key on every shard). Superuser only; the bytes appear in the query text.';
COMMENT ON FUNCTION jldp.jl_key_grant(text, regrole) IS
  'Let a role (and its members) use a key: release and project with it. Its creator, a member of the creator''s role, or a superuser. A role that may project with a key learns its P.';
COMMENT ON FUNCTION jldp.jl_key_revoke(text, regrole) IS
  'Take back what jl_key_grant allowed.';
COMMENT ON FUNCTION jldp.jl_key_drop(text) IS
  'Drop a key (its creator, a member of the creator''s role, or a superuser). Sketches released under it can no longer be reproduced.';
COMMENT ON FUNCTION jldp_internal.jl_key_table_changed() IS
  'Trigger on jldp_key: tells every backend that cached keys must be looked up again.';
COMMENT ON FUNCTION jldp.jl_key_export(text) IS
  'The key''s secret encrypted under the master key, for jl_key_import_wrapped on a server with the same master key (a shard); reveals nothing without the master key. The key''s creator or a superuser.';
COMMENT ON FUNCTION jldp.jl_key_import_wrapped(text, bytea) IS
  'Create the key name from what jl_key_export(name) returned on a server with the same master key; returns its fingerprint, to compare with the exporting server''s jl_keys. Superuser only.';
COMMENT ON FUNCTION jldp.jl_key_rewrap() IS
  'Encrypt every key under the configured master key: unencrypted keys, and keys encrypted under jldp.previous_master_key_file or _command (rotation). Returns the number of keys changed. Superuser only.';
COMMENT ON FUNCTION jldp.jl_master_key_id() IS
  'The non-secret id of the configured master key (compare across servers), NULL when none is configured.';
COMMENT ON FUNCTION jldp.jl_dataset_declare(text, float8, float8, regclass, text) IS
  'Declare a dataset with a privacy budget cap (epsilon, delta), owned by the calling role. Binding it to a source relation (a table, partitioned table or foreign table; not a view or a partition) takes the relation''s owner, a member of its role, or a superuser; jl_protect of that relation then declares the protected table on it, keeping its name, caps and ledger. unit names the column of source whose values are the privacy units: its declaration must then use that unit.';
COMMENT ON FUNCTION jldp.jl_dataset_set_cap(text, float8, float8) IS
  'Change a dataset''s cap (its owner, a member of the owner''s role, or a superuser); recorded in the ledger.';
COMMENT ON FUNCTION jldp.jl_dataset_reset(text) IS
  'Set a dataset''s spent budget back to 0 (its owner, a member of the owner''s role, or a superuser); recorded in the ledger.';
COMMENT ON VIEW jldp.jl_budgets IS
  'Protected datasets with their caps, spent and remaining (epsilon, delta), owner and granted spenders, for the datasets owned by the current role or a role it inherits (budget administrators and superusers: all).';
COMMENT ON VIEW jldp.jl_ledger IS
  'The budget ledger of the datasets jl_budgets shows to the current role: each event with the (epsilon, delta) it asked for and the totals after it; for a charge, whether a release recorded it (released).';
COMMENT ON FUNCTION jldp_internal.jl_dataset_grant(text, regrole) IS
  'Allow a role (and its members) to spend a dataset''s budget: releases charged to it and bookings (jl_budget_book). Its owner, a member of the owner''s role, or a superuser; recorded in the ledger.';
COMMENT ON FUNCTION jldp_internal.jl_dataset_revoke(text, regrole) IS
  'Withdraw what jl_dataset_grant allowed. Its owner, a member of the owner''s role, or a superuser; recorded in the ledger.';
COMMENT ON VIEW jldp.jl_releases IS
  'Release registry: one row per table release, visible to roles that can read its target.';
COMMENT ON FUNCTION jldp.jl_private_release(float8[], float8, float8, jldp.jl_neighbor, jldp.jl_mechanism, text) IS
  'Unbudgeted primitive: a private sketch of x with a jl_sketch mechanism: x P (the key''s secret JL projection of the mechanism''s kind and k; kind ''identity'': P = I, k = d) rounded to a power-of-two grid plus exact discrete noise (Laplace: pure epsilon, to the L1 sensitivity of the realized P; Gaussian: (epsilon, delta), to its L2 sensitivity), for neighbours that change one element by at most bound (''attribute'') or a whole row by at most bound in L2 norm (''row''). Charges nothing and records nothing: book its cost with jl_budget_book. jl_release_info gives the guarantee.';
COMMENT ON FUNCTION jldp.jl_release_info(int, float8, float8, jldp.jl_neighbor, jldp.jl_mechanism, text) IS
  'What jl_private_release of d-dimensional rows with these options guarantees (epsilon, delta that hold; for Gaussian noise also delta_requested and the smaller delta_holding) and uses (noise, sensitivity, scale or sigma, grid, noise_variance), and the projection (kind, density). Contains no secret.';
COMMENT ON FUNCTION jldp.jl_project(float8[], jldp.jl_mechanism, text) IS
  'Noise-free x P, P of the jl_sketch mechanism''s k, kind and density (its noise is not used; kind ''identity'' with k NULL: x itself), for the curator''s own verification. Reveals P: never grant it to analysts.';
COMMENT ON AGGREGATE jldp.jl_project_agg(int, float8, jldp.jl_mechanism, text) IS
  'Noise-free x P of each group of (attr, value) rows (attr >= 1 uses row attr - 1 of P; duplicates summed, NULL values skipped), P of the jl_sketch mechanism''s k (required), kind and density (kind ''sparse'' needs its density here, as there is no d): equals jl_project of the dense vector up to summation order. Reveals P: never grant it to analysts.';
COMMENT ON AGGREGATE jldp.jl_private_release_agg(int, float8, int, float8, float8, jldp.jl_neighbor, jldp.jl_mechanism, text) IS
  'Unbudgeted primitive: a private sketch of each group of (attr, value) rows, e.g. SELECT user_id, jl_private_release_agg(attr, val, 1000, 1.0, 1.0, ''attribute'', jl_sketch(k => 20), ''default'') FROM facts GROUP BY user_id: what jl_private_release releases for the dense vector with x[attr] = value (attr 1..d, else an error; repeated attributes summed, NULL values skipped), each element within bound (neighbor ''attribute'') or each row within L2 norm bound / 2 (''row''), with the jl_sketch mechanism''s projection and noise and the key''s P.  It charges nothing and records nothing: which rows it reads is the query''s, not a declaration''s; book its cost with jl_budget_book(protected, epsilon, delta).  jl_release over a protected table (jl_long) is the budgeted release of long-format data.';
COMMENT ON FUNCTION jldp.jl_recover_dist(float8[], float8[], float8) IS
  'Unbiased estimate of the squared distance between the original rows: ||a - b||^2 - 2 k noise_variance.';
COMMENT ON FUNCTION jldp.jl_recover_dist(float8[], float8[], regclass) IS
  'jl_recover_dist with the noise variance of the release that wrote the table (from the registry).';
COMMENT ON FUNCTION jldp.jl_recover_dist_stddev(float8[], float8[], regclass) IS
  'jl_recover_dist_stddev with the noise variance, the noise and the kind (identity or a projection) of the release that wrote the table (from the registry).';
COMMENT ON FUNCTION jldp.jl_recover_inner(float8[], float8[], float8) IS
  'Unbiased estimate of the inner product of two different original rows: <a, b> (independent noise needs no correction; noise_variance is only checked). For a row with itself use jl_recover_norm2.';
COMMENT ON FUNCTION jldp.jl_recover_norm2(float8[], float8) IS
  'Unbiased estimate of the squared L2 norm of the original row: ||a||^2 - k noise_variance (may be negative).';
COMMENT ON FUNCTION jldp.jl_recover_inner(float8[], float8[], regclass) IS
  'jl_recover_inner for sketches of the release that wrote the table (k checked against the registry).';
COMMENT ON FUNCTION jldp.jl_recover_inner_stddev(float8[], float8[], regclass) IS
  'jl_recover_inner_stddev with the noise variance of the release that wrote the table (from the registry).';
COMMENT ON FUNCTION jldp.jl_recover_norm2(float8[], regclass) IS
  'jl_recover_norm2 with the noise variance of the release that wrote the table (from the registry).';
COMMENT ON FUNCTION jldp.jl_recover_norm2_stddev(float8[], regclass) IS
  'jl_recover_norm2_stddev with the noise variance and the noise (info->>''noise'', absent meaning laplace) of the release that wrote the table.';
COMMENT ON FUNCTION jldp.jl_recover_dist(float8[], float8[], text) IS
  'jl_recover_dist with the release named (resolved as a regclass is, on the search path).';
COMMENT ON FUNCTION jldp.jl_recover_dist_stddev(float8[], float8[], text) IS
  'jl_recover_dist_stddev with the release named (resolved as a regclass is, on the search path).';
COMMENT ON FUNCTION jldp.jl_recover_inner(float8[], float8[], text) IS
  'jl_recover_inner with the release named (resolved as a regclass is, on the search path).';
COMMENT ON FUNCTION jldp.jl_recover_inner_stddev(float8[], float8[], text) IS
  'jl_recover_inner_stddev with the release named (resolved as a regclass is, on the search path).';
COMMENT ON FUNCTION jldp.jl_recover_norm2(float8[], text) IS
  'jl_recover_norm2 with the release named (resolved as a regclass is, on the search path).';
COMMENT ON FUNCTION jldp.jl_recover_norm2_stddev(float8[], text) IS
  'jl_recover_norm2_stddev with the release named (resolved as a regclass is, on the search path).';
COMMENT ON FUNCTION jldp.jl_recover_dist_stddev(float8[], float8[], float8, jldp.jl_noise, jldp.jl_kind) IS
  'jl_recover_dist_stddev with the noise and the kind as enum labels (e.g. ''gaussian''::jl_noise): postgres_fdw can push it to a shard.';
COMMENT ON FUNCTION jldp.jl_recover_inner_stddev(float8[], float8[], float8, jldp.jl_noise, jldp.jl_kind) IS
  'jl_recover_inner_stddev with the noise and the kind as enum labels: postgres_fdw can push it to a shard.';
COMMENT ON FUNCTION jldp.jl_recover_norm2_stddev(float8[], float8, jldp.jl_noise, jldp.jl_kind) IS
  'jl_recover_norm2_stddev with the noise and the kind as enum labels: postgres_fdw can push it to a shard.';
COMMENT ON AGGREGATE jldp.jl_kmeans(float8[], int) IS
  'k-means centroids of the sketches as an n_clusters x k float8[][]: k-means++ seeding (seed 0) and Lloyd iterations until no assignment changes (at most 300). The result depends only on the multiset of sketches (the same in serial and parallel plans). NULL sketches are skipped; no sketches gives NULL; with at most n_clusters distinct sketches the centroids are those sketches (fewer rows, with a NOTICE). An empty cluster is re-seeded with the point farthest from its centroid. The sketches are held in memory (below 1 GB).';
COMMENT ON AGGREGATE jldp.jl_kmeans(float8[], int, bigint) IS
  'jl_kmeans with the seed of the k-means++ seeding (any bigint; the same seed gives the same centroids).';
COMMENT ON AGGREGATE jldp.jl_kmeans(float8[], int, bigint, int) IS
  'jl_kmeans with the seed and the maximum number of Lloyd iterations (>= 1).';
COMMENT ON FUNCTION jldp.jl_nearest_centroid(float8[], float8[]) IS
  'The 1-based row of the m x k centroids (e.g. from jl_kmeans) nearest to the sketch in squared L2 distance, the lowest row on ties: UPDATE t SET cluster = jl_nearest_centroid(sketch, c).';
COMMENT ON AGGREGATE jldp.jl_kmeans(float8[], int, bigint, int, int) IS
  'jl_kmeans with n_init runs (1..1000), each a k-means++ seeding followed by at most max_iter Lloyd iterations, keeping the run with the lowest inertia (sum of squared distances to the nearest centroid; the earliest run on ties), as scikit-learn''s KMeans(n_init=...). The first run is seeded by seed, so n_init 1 equals jl_kmeans(sketch, n_clusters, seed, max_iter); the others by seeds drawn from a ChaCha20 stream keyed by seed. Deterministic and the same in serial and parallel plans; the time grows with n_init.';
COMMENT ON FUNCTION jldp_internal.jl_lloyd_step_trans(float8[], float8[], float8[]) IS
  'Transition function of jl_lloyd_step.';
COMMENT ON FUNCTION jldp_internal.jl_vector_sum_trans(float8[], float8[]) IS
  'Transition and combine function of jl_vector_sum, combine function of jl_lloyd_step.';
COMMENT ON AGGREGATE jldp.jl_lloyd_step(float8[], float8[]) IS
  'One Lloyd step of k-means over the rows it sees: an m x (k + 1) array whose row j holds the sum of the sketches nearest centroid j (of the m x k centroids, as jl_nearest_centroid) and their count. Pushed to a shard by postgres_fdw; add the shards'' steps with jl_vector_sum and take jl_lloyd_update.';
COMMENT ON AGGREGATE jldp.jl_vector_sum(float8[]) IS
  'Element-wise sum of float8 arrays of one shape (one- or two-dimensional); use ORDER BY in the call for a result that does not depend on the order rows arrive in.';
COMMENT ON FUNCTION jldp.jl_lloyd_update(float8[], float8[]) IS
  'The centroids after a Lloyd step: row j of step (sums, count) divided by its count, or row j of centroids when the count is 0.';
COMMENT ON FUNCTION jldp.jl_kmeans_lloyd(regclass, name, float8[], int) IS
  'k-means (Lloyd) from the given m x k starting centroids over the sketch column of a table, until no centroid moves or max_iter steps. On a partitioned table each leaf partition computes its own step (a foreign partition on its shard: m (k + 1) numbers move per step), added in partition order; a local table partitioned alike gives the same centroids bit for bit.';
COMMENT ON FUNCTION jldp.jl_knn(regclass, name, name, float8[], int, float8) IS
  'The n rows of a sketch table nearest to query by jl_recover_dist (ties by id; id_column cast to bigint). On a partitioned table each leaf partition returns its own n nearest (a foreign partition sorts and limits on its shard), so n rows per shard move.';
COMMENT ON FUNCTION jldp.jl_knn(regclass, float8[], int) IS
  'The n units of a release nearest to query, by the squared distance jl_recover_dist recovers with the release''s noise variance (from jl_releases; ties by id): jl_knn(''customers_private'', sketch, 10).';
COMMENT ON FUNCTION jldp.jl_knn(text, float8[], int) IS
  'jl_knn(release regclass, query, n) with the release named as text: jl_knn(''customers_private'', sketch, 10).';
COMMENT ON FUNCTION jldp.jl_kmeans(regclass, int, bigint, int, int, float8, name) IS
  'k-means of the sketches of a table (its float8[] column sketch_column) in one call: the centroids (n_clusters x k), each cluster''s size, the inertia, the iterations (scikit-learn''s n_iter_ and tol) and the parallel workers its assignment steps used (max_parallel_workers_per_gather; the result is the serial one); the labels in the same statement: SELECT s.id, jl_nearest_centroid(s.sketch, k.centroids) FROM t s, jl_kmeans(''t'', 4) k. The same centroids as the aggregate jl_kmeans(sketch, n_clusters, seed, max_iter, n_init) over the table.';
COMMENT ON FUNCTION jldp.jl_kmeans(text, int, bigint, int, int, float8, name) IS
  'jl_kmeans(release regclass, ...) with the table named as text: jl_kmeans(''customers_private'', 4).';
COMMENT ON FUNCTION jldp.jl_kmeans_labels(regclass, int, bigint, int, int, float8) IS
  'Each unit of a release with its k-means cluster (1 to n_clusters), in one query: the centroids of jl_kmeans(release, n_clusters, seed, max_iter, n_init, tol) and each sketch''s nearest (jl_nearest_centroid); rows without a sketch are left out. jl_kmeans gives the same run''s centroids, sizes and inertia.';
COMMENT ON FUNCTION jldp.jl_kmeans_labels(text, int, bigint, int, int, float8) IS
  'jl_kmeans_labels(release regclass, ...) with the release named as text: SELECT * FROM jl_kmeans_labels(''customers_private'', 4).';
COMMENT ON FUNCTION jldp.jl_randomized_response(float8[], float8) IS
  'Randomized response: each 0/1 element flipped independently with probability p = jl_rr_flip_probability(epsilon) = 1/(1 + e^epsilon), exactly, from pg_strong_random. epsilon-DP for one element changing (h elements: h epsilon). Values other than 0 and 1 are an error.';
COMMENT ON FUNCTION jldp.jl_randomized_response(boolean[], float8) IS
  'Randomized response on a boolean[]: each element negated with probability 1/(1 + e^epsilon).';
COMMENT ON FUNCTION jldp.jl_randomized_response(bit varying, float8) IS
  'Randomized response on a bit string (compact for large d): each bit flipped with probability 1/(1 + e^epsilon).';
COMMENT ON FUNCTION jldp.jl_rr_flip_probability(float8) IS
  'The flip probability jl_randomized_response uses for epsilon: 1/(1 + e^epsilon) (epsilon rounded down to a multiple of 2^-31).';
COMMENT ON FUNCTION jldp.jl_recover_dist_rr(float8[], float8[], float8) IS
  'Unbiased estimate of the squared distance (Hamming distance) between the original 0/1 vectors of two randomized responses with flip probability p: (||a - b||^2 - 2 d p (1-p)) / (1 - 2p)^2.';
COMMENT ON FUNCTION jldp.jl_recover_dist_rr(boolean[], boolean[], float8) IS
  'jl_recover_dist_rr of two boolean[] randomized responses.';
COMMENT ON FUNCTION jldp.jl_recover_dist_rr(bit varying, bit varying, float8) IS
  'jl_recover_dist_rr of two bit-string randomized responses.';
COMMENT ON FUNCTION jldp.jl_recover_dist_rr_stddev(float8[], float8[], float8) IS
  'Standard deviation of jl_recover_dist_rr, the same at every true distance: sqrt(d s (1-s)) / (1-2p)^2 with s = 2p(1-p).';
COMMENT ON FUNCTION jldp.jl_recover_dist_rr_stddev(boolean[], boolean[], float8) IS
  'jl_recover_dist_rr_stddev of two boolean[] randomized responses.';
COMMENT ON FUNCTION jldp.jl_recover_dist_rr_stddev(bit varying, bit varying, float8) IS
  'jl_recover_dist_rr_stddev of two bit-string randomized responses.';
COMMENT ON FUNCTION jldp.jl_add_discrete_laplace(bigint, float8, bigint) IS
  'value + exact discrete Laplace noise of scale t = the smallest integer with sensitivity / t <= epsilon, from pg_strong_random: epsilon-DP for values of neighbouring inputs differing by at most sensitivity. Saturates at the bigint range.';
COMMENT ON FUNCTION jldp.jl_discrete_laplace_variance(float8, bigint) IS
  'Variance of the noise jl_add_discrete_laplace(value, epsilon, sensitivity) adds: 2 q / (1 - q)^2 with q = exp(-1/t).';
COMMENT ON FUNCTION jldp.jl_min_dim(bigint, float8) IS
  'scikit-learn''s johnson_lindenstrauss_min_dim(n, eps=eps): int(4 ln(n) / (eps^2/2 - eps^3/3)), the k at which a random projection alone keeps all pairwise squared distances of n points within a factor 1 +- eps with good probability (no noise considered). eps in (0, 1).';
COMMENT ON FUNCTION jldp.jl_suggest_k(int, bigint, float8, float8, float8, jldp.jl_neighbor, float8, jldp.jl_noise, float8, jldp.jl_kind, jldp.jl_calibration, text) IS
  'The k minimizing the variance 2 r^4/k + 8 s2 r^2 + c k s2^2 of recovered squared distances at r^2 = dist2 (or, for a range [dist2, dist2_hi], the worst ratio to the best stddev of any k), with s2 the noise variance of jl_release_info(d, k, epsilon, ...) for the realized projection of each candidate k. Uses the key. See jl_suggest_k_info.';
COMMENT ON FUNCTION jldp.jl_suggest_k_info(int, bigint, float8, float8, float8, jldp.jl_neighbor, float8, jldp.jl_noise, float8, jldp.jl_kind, jldp.jl_calibration, text) IS
  'jl_suggest_k with its figures: k, noise_variance, expected stddev and relative stddev at dist2 (and dist2_hi), the best k at each end of the range, Kenthapadi''s rule of thumb dist2 / (2 s2), identity_stddev (no projection: P = I, k = d, with the same options) and projection_pays (stddev < identity_stddev), and for the n rows the distortion of the projection alone at this k (scikit-learn''s bound) and jl_min_dim(n, 0.1).';
COMMENT ON FUNCTION jldp.jl_advise(int, float8, float8, float8, jldp.jl_neighbor, float8, jldp.jl_noise, float8, jldp.jl_goal, float8, bigint, text) IS
  'Ranks the releases of d-dimensional rows: no projection (kind identity, k = d) and each projection kind at its best k, with Laplace noise and, where delta is given, Gaussian noise, each calibrated as jl_release_info would (to the realized projection of the key). predicted_error: for goal distance the stddev of a recovered squared distance at dist2, sqrt(2 r^4/k + 8 s2 r^2 + c k s2^2) (no 2 r^4/k term without a projection); for goal clustering the misclassification probability of the nearest-centre rule between two clusters whose centres are dist2 apart, each attribute with variance cluster_var around its centre (n rows: centres estimated). relative_error: to the best option (for a range [dist2, dist2_hi], the worst ratio to the best at each distance). Refused options are shown, never ranked. The note of rank 1 says first when even it does not serve the goal (distance: a stddev not below dist2; clustering: a misclassification of 0.25 or more) and the epsilon at which it would, then whether the projection pays. Uses the key.';
COMMENT ON FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[]) IS
  'Transition function of jl_linear_fit and jl_linear_fit_intercept.';
COMMENT ON FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[], float8) IS
  'Transition function of jl_linear_fit and jl_linear_fit_intercept with a ridge.';
COMMENT ON FUNCTION jldp_internal.jl_linear_fit_trans(internal, float8[], float8[], float8, boolean) IS
  'Transition function of jl_linear_fit and jl_linear_fit_intercept with a ridge and the intercept choice.';
COMMENT ON FUNCTION jldp_internal.jl_linear_fit_combine(internal, internal) IS
  'Combine function of jl_linear_fit: merges the counts, means and centred co-moments of two partial states.';
COMMENT ON FUNCTION jldp_internal.jl_linear_fit_serialize(internal) IS
  'Serial function of jl_linear_fit: the state as one flat bytea.';
COMMENT ON FUNCTION jldp_internal.jl_linear_fit_deserialize(bytea, internal) IS
  'Deserial function of jl_linear_fit: the state back from its bytea, every field checked.';
COMMENT ON FUNCTION jldp_internal.jl_linear_fit_final(internal) IS
  'Final function of jl_linear_fit: the d x m coefficients.';
COMMENT ON FUNCTION jldp_internal.jl_linear_fit_intercept_final(internal) IS
  'Final function of jl_linear_fit_intercept: the m intercepts.';
COMMENT ON AGGREGATE jldp.jl_linear_fit(float8[], float8[]) IS
  'Least squares of label vectors y (m values) on feature vectors x (d values) with an intercept: the d x m coefficients W minimising ||Y - X W - 1 b^T||^2 (b from jl_linear_fit_intercept; the prediction is jl_linear_predict(x, W, b)). Rows with a NULL x or y are skipped; NULL over no rows. Minimum-norm W when X is rank-deficient.';
COMMENT ON AGGREGATE jldp.jl_linear_fit(float8[], float8[], float8) IS
  'Ridge regression: as jl_linear_fit(x, y), minimising ||Y - X W - 1 b^T||^2 + ridge ||W||^2 (the intercept is not penalised).';
COMMENT ON AGGREGATE jldp.jl_linear_fit(float8[], float8[], float8, boolean) IS
  'As jl_linear_fit(x, y, ridge); intercept => false fits Y = X W through the origin.';
COMMENT ON AGGREGATE jldp.jl_linear_fit_intercept(float8[], float8[]) IS
  'The m intercepts b of jl_linear_fit(x, y): mean(y) - W^T mean(x).';
COMMENT ON AGGREGATE jldp.jl_linear_fit_intercept(float8[], float8[], float8) IS
  'The m intercepts b of jl_linear_fit(x, y, ridge).';
COMMENT ON FUNCTION jldp.jl_linear_predict(float8[], float8[], float8[]) IS
  'coef^T x + intercept: the prediction of a linear model (coef d x m, as jl_linear_fit returns it; intercept m values or NULL for none). NULL if x or coef is NULL.';
COMMENT ON FUNCTION jldp.jl_nullspace_clean(float8[], float8[], float8[], float8) IS
  'Null-space cleaning, Algorithm 2: as jl_nullspace_clean(x, a_desired, utility_error) with the budget spent where the confidential predictor a_confidential (d x m_c, fitted on the cleaner''s own data) sees most per unit of utility: generalised eigenvectors of the pencil (a_d a_d^T, a_c a_c^T) on the span of both models, coordinates in the dual basis; the common null space is removed whole. ||a_desired^T (x - result)||^2 <= utility_error, certified.';
COMMENT ON FUNCTION jldp.jl_nullspace_clean(float8[], float8[], float8, jldp.jl_nullspace_method) IS
  'Null-space cleaning, Algorithm 1: x with the components that the linear predictor a_desired (d x m, e.g. jl_linear_fit) barely sees removed, such that ||a_desired^T (x - result)||^2 <= utility_error, certified in floating point. The exact null space is always removed; the budget goes over the eigencomponents of a_desired a_desired^T by method => ''waterfill'' (the exact maximiser of the paper''s Theorem 2) or ''knapsack'' (the paper''s published Algorithm 1). The decomposition is cached per backend.';
COMMENT ON FUNCTION jldp.jl_directional_variance(regclass, float8[]) IS
  'From a covariance release: ||R x||^2 / r - l^2 ||x||^2, unbiased for x^T A^T A x (the sum of squares of the clipped rows along x). Post-processing: no budget.';
COMMENT ON FUNCTION jldp.jl_directional_variance_stddev(regclass, float8[]) IS
  'The standard deviation of jl_directional_variance(release, x), sqrt(2/r) x^T (A^T A + l^2 I) x, estimated by its plug-in sqrt(2/r) ||R x||^2 / r.';
COMMENT ON FUNCTION jldp.jl_covariance(regclass) IS
  'From a covariance release: the d x d matrix R^T R / r - l^2 I, unbiased for A^T A (second moments of the clipped rows, not centred; release a column of ones beside the data to get n and the column sums).';
COMMENT ON FUNCTION jldp.jl_pca(regclass, int) IS
  'From a covariance release: the n_components leading eigenpairs of R^T R / r - l^2 I, largest first: each direction (unit vector) and its estimated x^T A^T A x.';
COMMENT ON FUNCTION jldp.jl_least_squares(regclass, int) IS
  'From a covariance release: the least-squares coefficients of attribute target_attr (1-based) on the other d - 1 attributes, in their order, from the estimate of A^T A (no intercept unless a column of ones was released). Refused when the estimate of the other attributes'' second moments is not positive definite.';
COMMENT ON FUNCTION jldp.jl_cut_size(regclass, int[]) IS
  'From a graph release: the number of edges between the vertex set s (distinct vertices in 1..n) and the rest, estimated without bias as (||sum of the sketches of s||^2 / r - (w/n) |s| (n - |s|)) / (1 - w/n). Post-processing: no budget.';
COMMENT ON FUNCTION jldp.jl_cut_size_stddev(regclass, int[]) IS
  'The standard deviation of jl_cut_size(release, s), sqrt(2/r) ((w/n) |s| (n - |s|) + (1 - w/n) cut) / (1 - w/n), estimated by its unbiased plug-in.';
COMMENT ON FUNCTION jldp_internal.jl_cut_trans(internal, regclass, int, float8[]) IS
  'Transition function of jl_cut_estimate and jl_cut_estimate_stddev: sums the sketches and collects the vertices.';
COMMENT ON FUNCTION jldp_internal.jl_cut_estimate_final(internal) IS
  'Final function of jl_cut_estimate.';
COMMENT ON FUNCTION jldp_internal.jl_cut_estimate_stddev_final(internal) IS
  'Final function of jl_cut_estimate_stddev.';
COMMENT ON AGGREGATE jldp.jl_cut_estimate(regclass, int, float8[]) IS
  'From the rows (vertex, sketch) of a graph release chosen in SQL (each vertex once), the estimated number of edges between those vertices and the rest, as jl_cut_size; NULL over no rows.';
COMMENT ON AGGREGATE jldp.jl_cut_estimate_stddev(regclass, int, float8[]) IS
  'The standard deviation of jl_cut_estimate over the same rows, as jl_cut_size_stddev; NULL over no rows.';
COMMENT ON FUNCTION jldp_internal.jl_attribute_checked(jldp.jl_attribute) IS
  'Used by jl_numeric, jl_category and jl_vector: a declared attribute, or an error naming what is wrong with it (the checks jl_protect and jl_release make again).';
COMMENT ON FUNCTION jldp.jl_numeric(text, float8, float8, float8) IS
  'A numeric attribute of a protected table: every read clamps it to [lo, hi] (NULL and NaN read as lo) and maps it to [0, weight].';
COMMENT ON FUNCTION jldp.jl_category(text, text[], float8) IS
  'A categorical attribute of a protected table: one coordinate per listed category, weight for the row''s (compared as text), 0 elsewhere; a value not listed, or NULL, reads as all zeros.';
COMMENT ON FUNCTION jldp.jl_vector(text, int, float8, float8, float8) IS
  'A float8[] attribute of a protected table, each of its length elements an attribute of its own: clamped to [lo, hi] and mapped to [0, weight] (missing, NULL or NaN elements read as lo; elements past length are not read).';
COMMENT ON FUNCTION jldp.jl_long(text, text, int, float8, float8, float8) IS
  'Long-format rows (unit, attribute, value) of a protected table, the only attribute of its declaration: the unit''s values form a vector of d elements (attribute 1 to d; others not read), each clamped to [lo, hi] and mapped to [0, weight]; the unit and the attribute are unique together by a constraint.';
COMMENT ON FUNCTION jldp_internal.jl_mechanism_checked(jldp.jl_mechanism) IS
  'Used by jl_sketch: a mechanism, or an error naming what is wrong with it (the checks jl_release makes again).';
COMMENT ON FUNCTION jldp.jl_sketch(int, jldp.jl_kind, jldp.jl_noise, float8, jldp.jl_calibration, float8) IS
  'The sketch mechanism for jl_release and jl_private_release: each row projected to k dimensions by the key''s P of the kind (''sparse'': density 1/sqrt(d) unless given; ''identity'': not projected, k = d) plus noise calibrated to the realized P (Laplace: pure epsilon; Gaussian: give delta). calibration: the noise''s default (''exact'', ''analytic''), ''classic'' (Gaussian), or ''paper'' (Dhaliwal et al.''s constants, for the unbudgeted primitives only).';
COMMENT ON FUNCTION jldp.jl_advised(jldp.jl_goal, float8, float8, float8, jldp.jl_noise, float8, boolean) IS
  'The sketch mechanism the advisor ranks first for the goal (jl_advise: no projection or a kind at its best k; Laplace noise, and Gaussian when delta is given), every option calibrated to the declaration as jl_sketch would be; dist2 (required) is the squared distance of interest between encoded rows, or between two clusters'' centres with cluster_var for goal clustering.  A release refuses before its charge, with the epsilon that would serve the goal, when the best option would not (distance: the recovered squared distance''s standard deviation not below dist2; clustering: a misclassification of 0.25 or more), unless force => true.';
COMMENT ON FUNCTION jldp.jl_covariance_mechanism(int, float8, jldp.jl_lift, jldp.jl_covariance_method, jldp.jl_origin) IS
  'The covariance mechanism for jl_release (Blocki et al.): r rows of R = Y [A; l I], A the encoded rows (each of L2 norm at most the row clip, or the largest the declaration allows), Y fresh Gaussian, the lift l from an exact accountant for (epsilon, delta); jl_covariance and jl_directional_variance read it.  origin => ''zero'' releases the second moments of the numbers about their zero (x weight / (hi - lo), signed) instead of about lo, the norm bound then the largest norm of such a row.';
COMMENT ON FUNCTION jldp_internal.jl_encode_number(float8, float8, float8, float8) IS
  'Used by jl_release to read a numeric attribute: x clamped to [lo, hi] and mapped to [0, weight]; NULL and NaN read as 0.';
COMMENT ON FUNCTION jldp_internal.jl_encode_category(anyelement, text[], float8) IS
  'Used by jl_release to read a categorical attribute: one-hot over categories with value weight, the value compared as its type''s output function writes it (no cast runs); a value not listed, or NULL, as all zeros.';
COMMENT ON FUNCTION jldp_internal.jl_encode_category(text, text[], float8) IS
  'Used by jl_release to read a categorical attribute, given the value''s text as its type''s output function writes it (pg_catalog.format): its exact signature, which no other function in this schema can take, so that the reader resolves to it whatever overloads exist.';
COMMENT ON FUNCTION jldp_internal.jl_encode_vector(float8[], int, float8, float8, float8) IS
  'Used by jl_release to read a float8[] attribute: length elements, each clamped to [lo, hi] and mapped to [0, weight]; missing, NULL or NaN elements as 0.';
COMMENT ON FUNCTION jldp.jl_protect(regclass, text, jldp.jl_attribute[], jldp.jl_neighbor, float8, float8, float8) IS
  'Declare relation (a whole table or partitioned table, owned by the caller) protected: its unit (a column unique by a constraint), its attributes with their public bounds, what a release protects (row or attribute neighbours, row_clip for rows) and its caps (epsilon_cap required). jl_release reads it only through this declaration. Again on a protected table: the declaration is replaced, the spent budget kept, and a cap may only be lowered.';
COMMENT ON FUNCTION jldp.jl_release(regclass, text, float8, jldp.jl_mechanism, text) IS
  'Release a protected table into a new table target (unit, sketch float8[]) with a mechanism (jl_sketch), charged to its budget before any row is read, read only through its declaration, recorded in jl_releases; returns what holds and what does not.';
COMMENT ON FUNCTION jldp.jl_release_dist2(regclass, float8) IS
  'The mean squared distance between two encoded rows of a protected table (for jl_advise''s dist2), epsilon-DP with exact discrete Laplace noise, through the release pipeline: charged before any row is read, the grid from the declaration; returns the value with what holds and what does not.';
COMMENT ON FUNCTION jldp.jl_edge(text, text, int) IS
  'An edge table''s one attribute: integer columns u and v are an undirected edge of vertices 1 to vertices (public); a row whose endpoints are NULL, equal or outside 1..vertices is no edge, and repeated or reversed pairs are one edge. Released with jl_graph.';
COMMENT ON FUNCTION jldp.jl_graph(int, float8) IS
  'The graph mechanism for jl_release over a table declared with jl_edge (Blocki et al.): one sketch of r entries per vertex, R = Y E with E the edges overlaid with a weighted complete graph, the weight from an exact accountant for (epsilon, delta) against one edge row replaced; jl_cut_size estimates cuts from it.';
COMMENT ON FUNCTION jldp.jl_budget_book(regclass, float8, float8, text) IS
  'Charge a protected table''s budget at once, durably and within its caps, for a release made with an unbudgeted primitive (jl_private_release, jl_private_release_agg, jl_project): returns the ledger row''s id. Nothing checks what the primitive reads.';
COMMENT ON VIEW jldp.jl_protected IS
  'Protected tables (jl_protect) with their declaration (unit, neighbour notion, row clip, d, attributes), caps, spent and remaining, for the tables whose dataset the current role owns or inherits (budget administrators and superusers: all).';
COMMENT ON FUNCTION jldp.jl_protect_grant(regclass, regrole) IS
  'Let role spender release a protected table (charge its budget with jl_release, jl_release_dist2 or jl_budget_book): its declaration''s owner grants it.';
COMMENT ON FUNCTION jldp.jl_protect_revoke(regclass, regrole) IS
  'Take back what jl_protect_grant granted.';
COMMENT ON FUNCTION jldp.jl_set_cap(regclass, float8, float8) IS
  'Set a protected table''s caps (delta_cap NULL: unchanged): raising takes jldp_budget_admin; the table''s owner may lower them. Recorded in the ledger.';
COMMENT ON FUNCTION jldp.jl_reset(regclass) IS
  'Set a protected table''s spent budget back to 0 (jldp_budget_admin); recorded in the ledger.';
COMMENT ON VIEW jldp.jl_distributed_releases IS
  'Distributed releases, visible to roles that can read their target: the shards, their registry ids, and whether every shard''s part was seen committed (committed_at NULL: in doubt until jl_distributed_resolve runs).';
COMMENT ON FUNCTION jldp_internal.jl_distributed_decision(text) IS
  'Used by jl_distributed_resolve: the servers and shard registry ids of the decided release gid; no row if the coordinator never decided it.';
COMMENT ON FUNCTION jldp_internal.jl_distributed_pending() IS
  'Used by jl_distributed_resolve: the decided distributed releases not yet seen committed on every shard.';
COMMENT ON FUNCTION jldp_internal.jl_distributed_committed(text) IS
  'Used by jl_release_distributed and jl_distributed_resolve: record that every shard''s part of a decided release was committed (the role that released it, a member of it, or a superuser). Bookkeeping only: whether a prepared part is committed depends on the decision alone.';
COMMENT ON FUNCTION jldp.jl_distributed_resolve(text[]) IS
  'Finish distributed releases left in doubt: on each server (default: every postgres_fdw server the caller has a user mapping for), for each prepared part of a release no session is running, commit it if the coordinator decided the release (for that server), else roll it back; then record as committed each decided release whose every shard shows its part committed (its registry row). One row per part found and per release recorded.';
COMMENT ON PROCEDURE jldp_internal.jl_distributed_run(regclass, text, text, text, float8, float8, text, jldp.jl_mechanism, text, bigint) IS
  'Used by jl_release_distributed (both forms): the steps of a distributed release, from its checks to the shards'' commits.';
COMMENT ON FUNCTION jldp_internal.jl_shard_bounds(regclass) IS
  'Used by jl_release_distributed: each partition of a sharded table with its bounds (a range, an end NULL when unbounded, or a list of units), as jl_release_part reads them.';
COMMENT ON FUNCTION jldp_internal.jl_declaration_info(regclass) IS
  'A protected table''s declaration, checked against the catalog as a release checks it, as the registry records it: jl_release_distributed compares the coordinator''s with each shard''s before any shard is charged.';
COMMENT ON FUNCTION jldp_internal.jl_release_part(regclass, text, float8, jldp.jl_mechanism, text, text, text, text[]) IS
  'Used by jl_release_distributed on each shard: jl_release of the units of a protected table within a partition''s bounds (unit_lower <= unit < unit_upper, an end NULL when unbounded, or unit in unit_in), charged to the shard''s budget; returns the registry id.';
COMMENT ON FUNCTION jldp_internal.jl_release_part_check(regclass, text, float8, jldp.jl_mechanism, text, text, text, text[]) IS
  'Used by jl_release_distributed on each shard before the coordinator is charged: every refusal jl_release_part would make before reading a row (its cap too, tried and rolled back), made without charging.';
COMMENT ON FUNCTION jldp_internal.jl_distributed_begin_declared(regclass, float8, float8, jldp.jl_noise) IS
  'Used by jl_release_distributed over a sharded protected table before any shard releases: what jl_distributed_begin checks, with the charge of the table''s declared dataset.';
COMMENT ON FUNCTION jldp_internal.jl_distributed_charge_declared(text) IS
  'Used by jl_release_distributed over a sharded protected table, once its checks have passed and before any shard reads: the coordinator''s charge of the release this session began, durable; returns the ledger id.';
COMMENT ON FUNCTION jldp_internal.jl_distributed_decide_declared(regclass, regclass, jsonb, text, text[], bigint[], text, bigint) IS
  'Used by jl_release_distributed over a sharded protected table: jl_distributed_decide, with the shards'' declaration compared with the coordinator''s under its lock, the target''s partitions with the source''s, the charge made before the parts read, and the coordinator''s guarantee.';
COMMENT ON PROCEDURE jldp.jl_release_distributed(regclass, text, float8, jldp.jl_mechanism, text, bigint) IS
  'Release a sharded protected table (declared with jl_protect on the coordinator, a table partitioned by its unit whose partitions are postgres_fdw foreign tables, and on each shard with the same declaration) where its rows live: each shard runs the pipeline on its own table (jl_release_part: the units within its partition''s bounds, charged to its own budget) and prepares; the coordinator then charges the table once (parallel composition), creates target partitioned like it over the shards'' sketch tables, records it, commits, and only then commits the shards'' parts. Needs dblink, max_prepared_transactions > 0 on the shards, the same key on each, and a CALL outside a transaction block.';
COMMENT ON FUNCTION jldp_internal.jl_drop_guard() IS
  'Event trigger: refuses to drop jldp (the extension, its schema, its owner''s objects) while keys or ledger rows exist, unless jldp.allow_drop is on.';
COMMENT ON FUNCTION jldp_internal.jl_role_hint(text) IS
  'The role that a permission error on routine or view name says has it (the hint''s table, compared with the grants by the roles test).';

-- Roles: who may do what ----------------------------------------------------
-- Three NOLOGIN roles, created when absent (roles belong to the cluster:
-- another database's jldp may have created them), each holding exactly the
-- grants its job needs; a person is set up with one GRANT, e.g.
-- GRANT jldp_curator TO alice.  Nothing in jldp is granted to PUBLIC.
DO $roles$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['jldp_analyst', 'jldp_curator', 'jldp_budget_admin'] LOOP
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) r) THEN
      EXECUTE pg_catalog.format('CREATE ROLE %I NOLOGIN', r);
    END IF;
  END LOOP;
  -- a curator may do everything an analyst may
  IF NOT pg_catalog.pg_has_role('jldp_curator', 'jldp_analyst', 'MEMBER') THEN
    GRANT jldp_analyst TO jldp_curator;
  END IF;
END
$roles$;
COMMENT ON ROLE jldp_analyst IS
  'jldp: reads releases (jldp.jl_releases) and recovers, searches and clusters over the released tables it may SELECT; never a key, a projection or a raw row.';
COMMENT ON ROLE jldp_curator IS
  'jldp: an analyst that also owns keys, declares its tables protected, releases them, and asks the advisor; spends budgets, cannot refill them.';
COMMENT ON ROLE jldp_budget_admin IS
  'jldp: raises caps and resets spent budgets of any protected table, and reads every budget and the whole ledger.';

-- every role may look names up in jldp, so that a call it may not make is
-- answered "permission denied" (with the role that has it), not "does not
-- exist"; what it may call is what its roles were granted
REVOKE ALL ON SCHEMA jldp, jldp_internal FROM PUBLIC;
GRANT USAGE ON SCHEMA jldp TO PUBLIC;
-- the curator's calls of jldp's SQL functions reach the internal steps they
-- run as their caller (the constructors' checks, the distributed release's
-- steps, on a coordinator and on each shard)
GRANT USAGE ON SCHEMA jldp_internal TO jldp_curator;

-- each routine of the two schemas revoked from PUBLIC, then granted to the
-- one role whose list names it; a routine in no list (and not listed as a
-- superuser's or an internal step no role calls) fails the script
DO $grants$
DECLARE
  analyst text[] := ARRAY[
    'jl_recover_dist', 'jl_recover_dist_stddev', 'jl_recover_inner', 'jl_recover_inner_stddev',
    'jl_recover_norm2', 'jl_recover_norm2_stddev', 'jl_recover_dist_rr', 'jl_recover_dist_rr_stddev',
    'jl_knn', 'jl_kmeans', 'jl_kmeans_lloyd', 'jl_kmeans_labels', 'jl_nearest_centroid', 'jl_lloyd_step', 'jl_vector_sum',
    'jl_lloyd_update', 'jl_pca', 'jl_covariance', 'jl_directional_variance',
    'jl_directional_variance_stddev', 'jl_least_squares', 'jl_cut_size', 'jl_cut_size_stddev',
    'jl_cut_estimate', 'jl_cut_estimate_stddev', 'jl_linear_fit', 'jl_linear_fit_intercept',
    'jl_linear_predict', 'jl_nullspace_clean', 'jl_min_dim', 'jl_discrete_laplace_variance',
    'jl_rr_flip_probability', 'jldp_version'];
  curator text[] := ARRAY[
    'jl_key_create', 'jl_key_drop', 'jl_key_export', 'jl_master_key_id', 'jl_key_grant', 'jl_key_revoke',
    'jl_protect', 'jl_numeric', 'jl_category', 'jl_vector', 'jl_long', 'jl_edge',
    'jl_protect_grant', 'jl_protect_revoke', 'jl_dataset_declare', 'jl_dataset_set_cap', 'jl_set_cap',
    'jl_sketch', 'jl_advised', 'jl_covariance_mechanism', 'jl_graph',
    'jl_release', 'jl_release_dist2', 'jl_release_distributed', 'jl_distributed_resolve',
    'jl_budget_book', 'jl_advise', 'jl_suggest_k', 'jl_suggest_k_info', 'jl_release_info',
    'jl_private_release', 'jl_private_release_agg', 'jl_project', 'jl_project_agg',
    'jl_randomized_response', 'jl_add_discrete_laplace',
    -- internal steps a curator's call runs as the curator
    'jl_attribute_checked', 'jl_mechanism_checked', 'jl_dataset_grant', 'jl_dataset_revoke',
    'jl_encode_number', 'jl_encode_category', 'jl_encode_vector',
    'jl_distributed_run', 'jl_declaration_info', 'jl_shard_bounds', 'jl_release_part',
    'jl_release_part_check', 'jl_distributed_begin_declared', 'jl_distributed_charge_declared',
    'jl_distributed_decide_declared', 'jl_distributed_decision', 'jl_distributed_pending',
    'jl_distributed_committed'];
  budget_admin text[] := ARRAY['jl_dataset_reset', 'jl_reset'];
  -- superusers only: keys pinned to known bytes or carried in, re-wrapping
  superuser text[] := ARRAY['jl_key_import', 'jl_key_import_wrapped', 'jl_key_rewrap'];
  -- aggregate support functions and triggers: run by their aggregate's or
  -- trigger's owner, never called by a role
  nobody text[] := ARRAY[
    'jl_agg_combine', 'jl_agg_serialize', 'jl_agg_deserialize', 'jl_private_release_agg_final',
    'jl_project_agg_mechanism_trans', 'jl_project_agg_final', 'jl_release_agg_trans',
    'jl_kmeans_trans', 'jl_kmeans_combine', 'jl_kmeans_serialize', 'jl_kmeans_deserialize',
    'jl_kmeans_final', 'jl_linear_fit_trans', 'jl_linear_fit_combine', 'jl_linear_fit_serialize',
    'jl_linear_fit_deserialize', 'jl_linear_fit_final', 'jl_linear_fit_intercept_final',
    'jl_lloyd_step_trans', 'jl_vector_sum_trans', 'jl_cut_trans', 'jl_cut_estimate_final',
    'jl_cut_estimate_stddev_final', 'jl_drop_guard', 'jl_key_table_changed', 'jl_role_hint'];
  f record;
  who text;
BEGIN
  FOR f IN
    SELECT p.oid::pg_catalog.regprocedure AS sig, p.proname::text AS name
      FROM pg_catalog.pg_proc p
     WHERE p.pronamespace IN ('jldp'::pg_catalog.regnamespace, 'jldp_internal'::pg_catalog.regnamespace)
     ORDER BY p.oid::pg_catalog.regprocedure::text
  LOOP
    EXECUTE pg_catalog.format('REVOKE ALL ON ROUTINE %s FROM PUBLIC', f.sig);
    who := CASE WHEN f.name = ANY (analyst) THEN 'jldp_analyst'
                WHEN f.name = ANY (curator) THEN 'jldp_curator'
                WHEN f.name = ANY (budget_admin) THEN 'jldp_budget_admin' END;
    IF who IS NOT NULL THEN
      EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO %I', f.sig, who);
    ELSIF NOT (f.name = ANY (superuser) OR f.name = ANY (nobody)) THEN
      RAISE EXCEPTION 'jldp: routine % is in no role''s list', f.sig;
    END IF;
  END LOOP;
END
$grants$;
-- raising a cap is checked inside jl_dataset_set_cap (an owner may lower)
GRANT EXECUTE ON FUNCTION jldp.jl_dataset_set_cap(text, float8, float8) TO jldp_budget_admin;
GRANT EXECUTE ON FUNCTION jldp.jl_set_cap(regclass, float8, float8) TO jldp_budget_admin;

REVOKE ALL ON jldp.jl_releases, jldp.jl_distributed_releases, jldp.jl_keys, jldp.jl_protected,
              jldp.jl_budgets, jldp.jl_ledger FROM PUBLIC;
GRANT SELECT ON jldp.jl_releases, jldp.jl_distributed_releases TO jldp_analyst;
GRANT SELECT ON jldp.jl_keys TO jldp_curator;
GRANT SELECT ON jldp.jl_protected, jldp.jl_budgets, jldp.jl_ledger TO jldp_curator, jldp_budget_admin;
