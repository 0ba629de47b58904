-- A release's table read back after its owner altered it, and relations
-- that do not exist: clear errors, never a crash.  In 0.3.3 a bytea column
-- holding a forged array header crashed the server (signal 11) in every
-- reader below, and an OID that names no relation crashed
-- jl_dataset_declare (since removed: jl_protect and the budget functions
-- by table take the relation now, checked below).
CREATE FUNCTION alt_error(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
-- the releases read back below, each made through the pipeline from a
-- protected table: a path graph of 99 edges on vertices 1..100 (jl_edge),
-- and 50 rows of a vector of 3 declared in [0, 4] with weight 4 (the
-- encoding x - 0 keeps the data's scale), row neighbours clipped to norm 1
CREATE TABLE alt_edges AS SELECT i AS id, i AS u, i + 1 AS v FROM generate_series(1, 99) i;
ALTER TABLE alt_edges ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('alt_edges', 'id', ARRAY[jl_edge('u', 'v', 100)], epsilon_cap => 100, delta_cap => 1e-5);
SELECT released AS graph_released FROM jl_release('alt_edges', 'alt_g', 4.0, jl_graph(r => 8, delta => 1e-6), key => 'pinned');
CREATE TABLE alt_rows AS SELECT i AS id, ARRAY[i % 3, i % 5, 1]::float8[] AS x
  FROM generate_series(1, 50) i;
ALTER TABLE alt_rows ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('alt_rows', 'id', ARRAY[jl_vector('x', 3, 0, 4, weight => 4)], row_clip => 1,
                         epsilon_cap => 100, delta_cap => 1e-5);
SELECT released AS cov_released FROM jl_release('alt_rows', 'alt_c', 2.0, jl_covariance_mechanism(r => 16, delta => 1e-6), key => 'pinned');
-- a bytea that claims to be a one-dimensional float8[] of 2^31 - 1 elements
CREATE FUNCTION alt_forged() RETURNS bytea LANGUAGE sql AS
  $$ SELECT decode('0100000000000000bd020000ffffff7f01000000', 'hex') $$;
ALTER TABLE alt_g ALTER sketch TYPE bytea USING '\x00';
UPDATE alt_g SET sketch = alt_forged() WHERE vertex = 1;
SELECT alt_error($$SELECT jl_cut_size('alt_g', '{1}')$$);
SELECT alt_error($$SELECT jl_cut_size_stddev('alt_g', '{1,2}')$$);
ALTER TABLE alt_c ALTER y TYPE bytea USING '\x00';
UPDATE alt_c SET y = alt_forged() WHERE i = 1;
SELECT alt_error($$SELECT jl_covariance('alt_c')$$);
SELECT alt_error($$SELECT jl_directional_variance('alt_c', '{1,0,0}')$$);
SELECT alt_error($$SELECT * FROM jl_pca('alt_c', 1)$$);
SELECT alt_error($$SELECT jl_least_squares('alt_c', 3)$$);
-- the row numbers altered too
ALTER TABLE alt_c ALTER y TYPE float8[] USING '{1,2,3}', ALTER i TYPE text;
SELECT alt_error($$SELECT jl_covariance('alt_c')$$);

-- a registry record no release writes (jl_distributed_decide stores the
-- record its caller gives): refused, not read (r = -5 asked for 2^64 bytes)
SELECT released AS graph_released FROM jl_release('alt_edges', 'alt_g2', 4.0, jl_graph(r => 8, delta => 1e-6), key => 'pinned');
UPDATE jldp_internal.jldp_release SET info = jsonb_set(info, '{r}', '-5') WHERE target = 'alt_g2'::regclass;
SELECT alt_error($$SELECT jl_cut_size('alt_g2', '{1}')$$);
SELECT released AS cov_released FROM jl_release('alt_rows', 'alt_c2', 2.0, jl_covariance_mechanism(r => 16, delta => 1e-6), key => 'pinned');
UPDATE jldp_internal.jldp_release SET info = jsonb_set(info, '{d}', '0') WHERE target = 'alt_c2'::regclass;
SELECT alt_error($$SELECT jl_covariance('alt_c2')$$);
UPDATE jldp_internal.jldp_release SET info = jsonb_set(info, '{d}', '3') WHERE target = 'alt_c2'::regclass;
-- rows altered to values whose squares overflow: 22003, not LAPACK's failure
UPDATE alt_c2 SET y = '{1e300,1e300,1e300}';
SELECT alt_error($$SELECT * FROM jl_pca('alt_c2', 1)$$);
SELECT alt_error($$SELECT jl_least_squares('alt_c2', 3)$$);
-- a sketch release whose recorded noise variance is not a number
SELECT released AS sketches_released FROM jl_release('alt_rows', 'alt_s', 1.0, jl_sketch(k => 2), key => 'pinned');
UPDATE jldp_internal.jldp_release SET noise_variance = 'NaN' WHERE target = 'alt_s'::regclass;
SELECT alt_error($$SELECT jl_recover_dist('{1,2}', '{2,3}', 'alt_s'::regclass)$$);

-- analytics over a sketch column that is not float8[]: 42804 naming it
CREATE TABLE alt_ints AS SELECT i AS id, i AS sketch FROM generate_series(1, 5) i;
SELECT alt_error($$SELECT * FROM jl_knn('alt_ints', 'id', 'sketch', '{1,2}', 3)$$);
SELECT alt_error($$SELECT jl_kmeans_lloyd('alt_ints', 'sketch', '{{1,2}}')$$);
SELECT alt_error($$SELECT * FROM jl_knn('alt_ints', 'id', 'nosuch', '{1,2}', 3)$$);

-- every regclass parameter of the extension, given an OID that names no
-- relation: 42P01 (no XX000 "cache lookup failed", no crash)
SELECT alt_error($$SELECT jl_set_cap(99999999::oid::regclass, 1)$$);
SELECT alt_error($$SELECT jl_reset(99999999::oid::regclass)$$);
SELECT alt_error($$SELECT jl_protect_grant(99999999::oid::regclass, 'postgres')$$);
SELECT alt_error($$SELECT jl_protect_revoke(99999999::oid::regclass, 'postgres')$$);
SELECT alt_error($$SELECT jl_cut_size(99999999::oid::regclass, '{1}')$$);
SELECT alt_error($$SELECT jl_covariance(99999999::oid::regclass)$$);
SELECT alt_error($$SELECT jl_recover_dist('{1}', '{2}', 99999999::oid::regclass)$$);
SELECT alt_error($$SELECT * FROM jl_knn(99999999::oid::regclass, 'id', 'sketch', '{1,2}', 3)$$);
SELECT alt_error($$SELECT jl_kmeans_lloyd(99999999::oid::regclass, 'sketch', '{{1,2}}')$$);
-- each mechanism of the pipeline, and its one value release
SELECT alt_error($$SELECT * FROM jl_release(99999999::oid::regclass, 'alt_t', 1.0, jl_sketch(k => 2), key => 'pinned')$$);
SELECT alt_error($$SELECT * FROM jl_release(99999999::oid::regclass, 'alt_t', 1.0, jl_covariance_mechanism(r => 2, delta => 1e-6), key => 'pinned')$$);
SELECT alt_error($$SELECT * FROM jl_release(99999999::oid::regclass, 'alt_t', 1.0, jl_graph(r => 2, delta => 1e-6), key => 'pinned')$$);
SELECT alt_error($$SELECT * FROM jl_release_dist2(99999999::oid::regclass, 1.0)$$);
-- the sweep: each function with a regclass parameter, that parameter a
-- missing relation and the others of a plausible value; the SQLSTATE of each.
-- The 0.3 releases being retired (jl_release_table, jl_release_long,
-- jl_release_covariance, jl_release_graph and jl_release_dist2's form with
-- columns) are left out: the pipeline's jl_release and jl_release_dist2
-- (protected, epsilon) stand for them, here and in the calls above
SELECT p.proname AS routine,
       alt_error(format('SELECT %s.%I(%s)', p.pronamespace::regnamespace, p.proname,
         (SELECT string_agg(CASE WHEN t = 'regclass'::regtype THEN '99999999::oid::regclass'
                                 WHEN t = 'float8[]'::regtype THEN '''{1,2}''::float8[]'
                                 WHEN t = 'int[]'::regtype THEN '''{1}''::int[]'
                                 WHEN t = 'text[]'::regtype THEN '''{x}''::text[]'
                                 WHEN t IN ('int'::regtype, 'bigint'::regtype, 'float8'::regtype) THEN '1::' || t::text
                                 WHEN t IN ('name'::regtype, 'text'::regtype) THEN '''x''::' || t::text
                                 ELSE 'NULL::' || t::text END, ', ' ORDER BY o)
            FROM unnest(p.proargtypes::regtype[]) WITH ORDINALITY a(t, o)))) AS error
  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'jldp'
 WHERE 'regclass'::regtype = ANY (p.proargtypes::regtype[]) AND p.prokind = 'f'
   AND NOT 'internal'::regtype = ANY (p.proargtypes::regtype[])
   AND p.proname NOT IN ('jl_release_table', 'jl_release_long', 'jl_release_covariance', 'jl_release_graph')
   AND NOT (p.proname = 'jl_release_dist2' AND 'text[]'::regtype = ANY (p.proargtypes::regtype[]))
 ORDER BY p.oid::regprocedure::text;
