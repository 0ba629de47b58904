-- Analytics over sketches: jl_kmeans and jl_nearest_centroid.

-- three well-separated clusters of 30 points in 4 dimensions, each point
-- its centre plus a deterministic offset of norm below 1
CREATE TEMP TABLE km_points AS
  SELECT i AS id, i % 3 AS segment,
         ARRAY[10 * (i % 3 = 1)::int + 0.4 * sin(i), 10 * (i % 3 = 2)::int + 0.4 * cos(i),
               0.4 * sin(2 * i), 0.4 * cos(3 * i)]::float8[] AS sketch,
         NULL::int AS cluster
  FROM generate_series(1, 90) i;

-- the centroids: an n_clusters x k array, equal to the segments' means
SELECT array_dims(jl_kmeans(sketch, 3)) AS dims FROM km_points;
CREATE TEMP TABLE km_result AS SELECT jl_kmeans(sketch, 3) AS c FROM km_points;
WITH m AS (SELECT segment, j, avg(v) AS v, count(*) AS points
           FROM km_points, unnest(sketch) WITH ORDINALITY u(v, j) GROUP BY segment, j),
     means AS (SELECT segment, max(points) AS points, array_agg(v ORDER BY j) AS mean
               FROM m GROUP BY segment)
SELECT segment, points,
       round(max(abs(u.v - c[jl_nearest_centroid(mean, c)][u.j]))::numeric, 12) AS max_centroid_error
FROM means, km_result, unnest(mean) WITH ORDINALITY u(v, j)
GROUP BY segment, points ORDER BY segment;

-- labelling: every segment gets one label of its own
UPDATE km_points SET cluster = jl_nearest_centroid(sketch, (SELECT c FROM km_result));
SELECT segment, min(cluster) = max(cluster) AS one_label, count(*) AS points
FROM km_points GROUP BY segment ORDER BY segment;
SELECT count(DISTINCT cluster) AS labels, min(cluster) AS lowest, max(cluster) AS highest FROM km_points;

-- deterministic: the same seed gives the same centroids, whatever the
-- order of the input rows; NULL sketches are skipped
SELECT (SELECT jl_kmeans(sketch, jl_kmeans_options(3, 7)) FROM km_points)
     = (SELECT jl_kmeans(sketch, jl_kmeans_options(3, 7)) FROM km_points) AS same_seed_same_result,
       (SELECT jl_kmeans(sketch, jl_kmeans_options(3, 7) ORDER BY id) FROM km_points)
     = (SELECT jl_kmeans(sketch, jl_kmeans_options(3, 7) ORDER BY id DESC) FROM km_points) AS order_independent,
       (SELECT jl_kmeans(sketch, jl_kmeans_options(3, 7)) FROM km_points)
     = (SELECT jl_kmeans(s, jl_kmeans_options(3, 7)) FROM (SELECT sketch AS s FROM km_points
                                       UNION ALL SELECT NULL FROM generate_series(1, 5)) t) AS nulls_skipped,
       (SELECT jl_kmeans(sketch, 3) FROM km_points)
     = (SELECT jl_kmeans(sketch, jl_kmeans_options(3, 0, 300)) FROM km_points) AS defaults_are_seed_0_max_iter_300;

-- points on a grid have no clear clusters: different seeds find different
-- local optima (k-means++ seeding is random), one seed always the same one
CREATE TEMP TABLE km_grid AS
  SELECT ARRAY[x, y]::float8[] AS sketch FROM generate_series(1, 12) x, generate_series(1, 12) y;
SELECT count(DISTINCT c) > 1 AS seeds_differ
FROM (SELECT s, (SELECT jl_kmeans(sketch, jl_kmeans_options(7, s)) FROM km_grid) AS c FROM generate_series(1, 10) s) t;
SELECT count(DISTINCT c) AS results_of_one_seed
FROM (SELECT (SELECT jl_kmeans(sketch, jl_kmeans_options(7, 42)) FROM km_grid) AS c FROM generate_series(1, 5) s) t;
-- max_iter bounds the Lloyd iterations: one update gives other centroids
SELECT (SELECT jl_kmeans(sketch, jl_kmeans_options(7, 42, 1)) FROM km_grid)
    <> (SELECT jl_kmeans(sketch, jl_kmeans_options(7, 42)) FROM km_grid) AS one_iteration_differs;
-- every centroid is the mean of the grid points nearest to it
SELECT bool_and(abs(mean_x - c[l][1]) < 1e-12 AND abs(mean_y - c[l][2]) < 1e-12) AS centroids_are_means,
       count(*) AS clusters
FROM (SELECT l, avg(sketch[1]) AS mean_x, avg(sketch[2]) AS mean_y, c
      FROM (SELECT sketch, c, jl_nearest_centroid(sketch, c) AS l
            FROM km_grid, (SELECT jl_kmeans(sketch, jl_kmeans_options(7, 42)) AS c FROM km_grid) r) t
      GROUP BY l, c) m;

-- grouped: one result per group
SELECT segment, array_dims(jl_kmeans(sketch, 2)) AS dims FROM km_points GROUP BY segment ORDER BY segment;

-- no sketches: NULL
SELECT jl_kmeans(sketch, 3) IS NULL AS empty_is_null FROM km_points WHERE false;
SELECT jl_kmeans(NULL::float8[], 3) IS NULL AS only_nulls_is_null FROM generate_series(1, 3);

-- at most n_clusters distinct sketches: the centroids are those sketches,
-- in sorted order (fewer rows than n_clusters, with a notice)
SELECT jl_kmeans(sketch, 5) AS fewer_rows_than_clusters FROM (VALUES ('{3,1}'::float8[]), ('{1,2}'), ('{1,1}')) v(sketch);
SELECT jl_kmeans(sketch, 3) AS duplicates FROM (VALUES ('{2,2}'::float8[]), ('{1,1}'), ('{2,2}'), ('{1,1}'), ('{2,2}')) v(sketch);
SELECT jl_kmeans(sketch, 2) AS as_many_distinct_as_clusters FROM (VALUES ('{2,2}'::float8[]), ('{1,1}'), ('{2,2}')) v(sketch);
SELECT jl_kmeans(sketch, 1) AS one_cluster_is_the_mean FROM (VALUES ('{2,0}'::float8[]), ('{0,1}'), ('{1,2}')) v(sketch);
-- with this seed a Lloyd update empties a cluster: it is re-seeded with the
-- point farthest from its centroid, and all four centroids stay in use
SELECT jl_kmeans(sketch, jl_kmeans_options(4, 130308)) AS reseeded
FROM (VALUES ('{1,13}'::float8[]), ('{12,5}'), ('{14,2}'), ('{16,16}'), ('{18,9}'), ('{19,9}')) v(sketch);

-- parallel plans: the workers' states are serialized and combined, and the
-- result equals the serial one exactly
CREATE TEMP TABLE km_serial AS SELECT NULL::float8[] AS c LIMIT 0;
CREATE TABLE km_big AS
  SELECT i AS id, ARRAY[10 * (i % 4 = 1)::int + sin(i), 10 * (i % 4 = 2)::int + cos(i),
                        10 * (i % 4 = 3)::int + sin(3 * i)]::float8[] AS sketch
  FROM generate_series(1, 30000) i;
ANALYZE km_big;
INSERT INTO km_serial SELECT jl_kmeans(sketch, jl_kmeans_options(4, 3)) FROM km_big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT jl_kmeans(sketch, jl_kmeans_options(4, 3)) FROM km_big;
SELECT jl_kmeans(sketch, jl_kmeans_options(4, 3)) = (SELECT c FROM km_serial) AS parallel_equals_serial FROM km_big;
SELECT array_dims(c) AS dims, (SELECT count(DISTINCT jl_nearest_centroid(sketch, c)) FROM km_big) AS labels_used
FROM km_serial;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE km_big;

-- jl_nearest_centroid: 1-based, lowest row on ties, NULL in NULL out
SELECT jl_nearest_centroid('{0.9,0}', '{{0,0},{1,0},{0,1}}') AS second,
       jl_nearest_centroid('{0.5,0}', '{{0,0},{1,0}}') AS tie_goes_to_first,
       jl_nearest_centroid('{5,5}', '{{1,1}}') AS only_one,
       jl_nearest_centroid('{7}', '[0:1][3:3]={{1},{6}}') AS any_lower_bounds,
       jl_nearest_centroid(NULL, '{{1,1}}') AS null_sketch,
       jl_nearest_centroid('{1,1}', NULL) AS null_centroids;

-- bad arguments
SELECT error($$SELECT jl_kmeans(sketch, 0) FROM km_points$$);
SELECT error($$SELECT jl_kmeans(sketch, -2) FROM km_points$$);
SELECT error($$SELECT jl_kmeans(sketch, 10001) FROM km_points$$);
SELECT error($$SELECT jl_kmeans(sketch, NULL) FROM km_points$$);
SELECT error($$SELECT jl_kmeans(sketch, jl_kmeans_options(3, NULL)) FROM km_points$$);
SELECT error($$SELECT jl_kmeans(sketch, jl_kmeans_options(3, 0, 0)) FROM km_points$$);
SELECT error($$SELECT jl_kmeans(sketch, jl_kmeans_options(3, 0, NULL)) FROM km_points$$);
SELECT error($$SELECT jl_kmeans(sketch, 1 + id % 2) FROM km_points$$);
SELECT error($$SELECT jl_kmeans(sketch, jl_kmeans_options(2, id)) FROM km_points$$);
SELECT error($$SELECT jl_kmeans(s, 2) FROM (VALUES ('{1,2}'::float8[]), ('{1,2,3}')) v(s)$$);
SELECT error($$SELECT jl_kmeans(s, 2) FROM (VALUES ('{1,2}'::float8[]), ('{1,NaN}')) v(s)$$);
SELECT error($$SELECT jl_kmeans(s, 2) FROM (VALUES ('{1,2}'::float8[]), ('{Infinity,1}')) v(s)$$);
SELECT error($$SELECT jl_kmeans(s, 2) FROM (VALUES ('{1,2}'::float8[]), ('{1,NULL}')) v(s)$$);
SELECT error($$SELECT jl_kmeans(s, 2) FROM (VALUES ('{}'::float8[])) v(s)$$);
SELECT error($$SELECT jl_kmeans(s, 2) FROM (VALUES ('{{1,2},{3,4}}'::float8[])) v(s)$$);
SELECT error($$SELECT jl_nearest_centroid('{1,2}', '{1,2}')$$);
SELECT error($$SELECT jl_nearest_centroid('{1,2}', '{{1,2,3}}')$$);
SELECT error($$SELECT jl_nearest_centroid('{1,2,3}', '{{1,2}}')$$);
SELECT error($$SELECT jl_nearest_centroid('{1,2}', '{{1,NaN}}')$$);
SELECT error($$SELECT jl_nearest_centroid('{1,2}', '{{1,NULL}}')$$);
SELECT error($$SELECT jl_nearest_centroid('{1,-Infinity}', '{{1,2}}')$$);
SELECT error($$SELECT jl_nearest_centroid('{}', '{{1,2}}')$$);


-- inner products and squared norms: exact values on fixed inputs
SELECT jl_recover_inner('{1,2,3}', '{4,-6,3}', 0.5) AS inner,
       jl_recover_norm2('{1,2,3}', 0.5) AS norm2,
       jl_recover_norm2('{1,2,3}', 10) AS norm2_may_be_negative,
       jl_recover_norm2('{1,2,3}', 0) AS norm2_without_noise;
-- standard errors over P and the noise at the recovered values:
-- inner sqrt(0.5 (12.5 + 59.5) + 3 0.25 + (12.5 59.5 + 1^2) / 3) = sqrt(285),
-- norm sqrt(2 12.5^2 / 3 + 4 0.5 12.5 + (kappa - 1) 3 0.25)
SELECT round(jl_recover_inner_stddev('{1,2,3}', '{4,-6,3}', 0.5)::numeric, 12) AS inner_sd,
       round(sqrt(285)::numeric, 12) AS expected,
       jl_recover_inner_stddev('{1,2,3}', '{4,-6,3}', 0.5, 'gaussian')
         = jl_recover_inner_stddev('{1,2,3}', '{4,-6,3}', 0.5) AS inner_sd_same_for_gaussian;
SELECT round(jl_recover_norm2_stddev('{1,2,3}', 0.5)::numeric, 12) AS norm2_sd_laplace,
       round(sqrt(2 * 12.5 ^ 2 / 3 + 25 + 5 * 0.75)::numeric, 12) AS expected_laplace,
       round(jl_recover_norm2_stddev('{1,2,3}', 0.5, 'gaussian')::numeric, 12) AS norm2_sd_gaussian,
       round(sqrt(2 * 12.5 ^ 2 / 3 + 25 + 2 * 0.75)::numeric, 12) AS expected_gaussian,
       jl_recover_norm2_stddev('{1,2,3}', 0.5, 'laplace') = jl_recover_norm2_stddev('{1,2,3}', 0.5) AS laplace_is_default,
       round(jl_recover_norm2_stddev('{1,2,3}', 10, 'gaussian')::numeric, 12) AS negative_estimate_uses_0,
       round(sqrt(2 * 3 * 100)::numeric, 12) AS expected;
SELECT jl_recover_inner(NULL, '{1}', 1) IS NULL AS strict_inner,
       jl_recover_norm2_stddev('{1}', 1, NULL) IS NULL AS strict_norm2_sd;
SELECT error($$SELECT jl_recover_inner('{1,2}', '{1,2,3}', 0.5)$$);
SELECT error($$SELECT jl_recover_inner('{1,2}', '{1,NaN}', 0.5)$$);
SELECT error($$SELECT jl_recover_inner('{1,2}', '{1,2}', -1)$$);
SELECT error($$SELECT jl_recover_inner_stddev('{1,2}', '{1,2}', 'NaN'::float8)$$);
SELECT error($$SELECT jl_recover_inner_stddev('{1,2}', '{1,2}', 1, 'uniform')$$);
SELECT error($$SELECT jl_recover_norm2('{}', 0.5)$$);
SELECT error($$SELECT jl_recover_norm2('{{1,2}}', 0.5)$$);
SELECT error($$SELECT jl_recover_norm2('{1,2}', 'Infinity'::float8)$$);
SELECT error($$SELECT jl_recover_norm2_stddev('{1,2}', 1, 'Laplace ')$$);

-- by release: the noise variance, k and the noise from the registry
CREATE TABLE an_src AS
  SELECT i AS pid, ARRAY[(i % 7) / 7.0, (i % 5) / 5.0, (i % 3) / 3.0]::float8[] AS x
  FROM generate_series(1, 40) i;
ALTER TABLE an_src ADD PRIMARY KEY (pid);
-- declared with its three elements in [0, 1] (weight 1 = hi - lo: the
-- encoding is x itself), released through the pipeline
SELECT d FROM jl_protect('an_src', 'pid', ARRAY[jl_vector('x', 3, 0, 1)],
                         neighbor => 'attribute', epsilon_cap => 1);
SELECT released FROM jl_release('an_src', 'an_priv', 1.0, jl_sketch(k => 4), key => 'pinned');
SELECT bool_and(jl_recover_inner(p.sketch, q.sketch, 'an_priv'::regclass)
                = jl_recover_inner(p.sketch, q.sketch, r.noise_variance)) AS inner_as_by_hand,
       bool_and(jl_recover_inner_stddev(p.sketch, q.sketch, 'an_priv'::regclass)
                = jl_recover_inner_stddev(p.sketch, q.sketch, r.noise_variance)) AS inner_sd_as_by_hand,
       bool_and(jl_recover_norm2(p.sketch, 'an_priv'::regclass)
                = jl_recover_norm2(p.sketch, r.noise_variance)) AS norm2_as_by_hand,
       bool_and(jl_recover_norm2_stddev(p.sketch, 'an_priv'::regclass)
                = jl_recover_norm2_stddev(p.sketch, r.noise_variance, 'laplace')) AS norm2_sd_laplace
FROM an_priv p JOIN an_priv q ON q.id = p.id % 40 + 1, jl_releases r
WHERE r.target = 'an_priv'::regclass;
-- the release by name: a quoted name is the release (not a noise variance)
SELECT bool_and(jl_recover_dist(p.sketch, q.sketch, 'an_priv') = jl_recover_dist(p.sketch, q.sketch, 'an_priv'::regclass)
                AND jl_recover_dist_stddev(p.sketch, q.sketch, 'an_priv') = jl_recover_dist_stddev(p.sketch, q.sketch, 'an_priv'::regclass)
                AND jl_recover_inner(p.sketch, q.sketch, 'an_priv') = jl_recover_inner(p.sketch, q.sketch, 'an_priv'::regclass)
                AND jl_recover_inner_stddev(p.sketch, q.sketch, 'an_priv') = jl_recover_inner_stddev(p.sketch, q.sketch, 'an_priv'::regclass)
                AND jl_recover_norm2(p.sketch, 'an_priv') = jl_recover_norm2(p.sketch, 'an_priv'::regclass)
                AND jl_recover_norm2_stddev(p.sketch, 'an_priv') = jl_recover_norm2_stddev(p.sketch, 'an_priv'::regclass)) AS by_name_as_by_regclass
FROM an_priv p JOIN an_priv q ON q.id = p.id % 40 + 1;
SELECT error($$SELECT jl_recover_dist('{1,2}', '{1,2}', 'an_no_such_release')$$) AS no_such_release;
-- nearest neighbours by release (the noise variance from the registry):
-- for each unit's sketch as the query, the same five ids and distances as
-- an independent ranking of every row by jl_recover_dist with the
-- registry's variance (ties by id), by regclass and by name
SELECT bool_and(k.ids = e.ids AND k.d = e.d AND t.ids = e.ids) AS knn_as_recovered, count(*) AS queries
FROM an_priv q, jl_releases r,
     LATERAL (SELECT array_agg(id ORDER BY dist, id) AS ids, array_agg(dist ORDER BY dist, id) AS d
                FROM jl_knn('an_priv'::regclass, q.sketch, 5)) k,
     LATERAL (SELECT array_agg(id ORDER BY dist, id) AS ids FROM jl_knn('an_priv', q.sketch, 5)) t,
     LATERAL (SELECT array_agg(id::bigint ORDER BY dd, id) AS ids, array_agg(dd ORDER BY dd, id) AS d
                FROM (SELECT p.id, jl_recover_dist(q.sketch, p.sketch, r.noise_variance) AS dd
                        FROM an_priv p ORDER BY 2, 1 LIMIT 5) s) e
WHERE r.target = 'an_priv'::regclass;
SELECT error($$SELECT * FROM jl_knn('an_src', '{1,2,3,4}', 5)$$) AS not_a_release;
SELECT error($$SELECT * FROM jl_knn('an_no_such_release', '{1,2,3,4}', 5)$$) AS no_such_table;
-- a release that records Gaussian noise
UPDATE jldp_internal.jldp_release SET info = info || '{"noise": "gaussian"}' WHERE target = 'an_priv'::regclass;
SELECT bool_and(jl_recover_norm2_stddev(p.sketch, 'an_priv'::regclass)
                = jl_recover_norm2_stddev(p.sketch, r.noise_variance, 'gaussian')) AS norm2_sd_gaussian
FROM an_priv p, jl_releases r WHERE r.target = 'an_priv'::regclass;
SELECT error($$SELECT jl_recover_norm2('{1,2,3}', 'an_priv'::regclass)$$);
UPDATE jldp_internal.jldp_release SET info = info || '{"noise": "uniform"}' WHERE target = 'an_priv'::regclass;
SELECT error($$SELECT jl_recover_norm2_stddev(sketch, 'an_priv'::regclass) FROM an_priv$$);
SELECT count(jl_recover_norm2(sketch, 'an_priv'::regclass)) AS estimates_need_no_noise FROM an_priv;
SELECT error($$SELECT jl_recover_inner('{1,2,3,4}', '{1,2,3,4}', 'an_src'::regclass)$$);
DROP TABLE an_src, an_priv;

-- sketches whose squared distances would underflow to 0 or overflow:
-- refused (22003) with a hint, rather than clustered by distances that
-- no longer order the points (before 0.4.1 some such cases were, others,
-- at +-1e200, were silently wrong); scaled, the same sketches cluster
SELECT error($$SELECT jl_kmeans(s, 2)
FROM (VALUES (ARRAY[0]::float8[]), (ARRAY[1e-200]), (ARRAY[2e-200])) t(s)$$) AS underflow;
SELECT jl_kmeans(s, 2) AS underflow_scaled
FROM (VALUES (ARRAY[0]::float8[]), (ARRAY[1]), (ARRAY[2])) t(s);
SELECT error($$SELECT jl_kmeans(s, 2)
FROM (VALUES (ARRAY[1.5e308, 0]), (ARRAY[1.5e308, 1]), (ARRAY[1.5e308, 2]),
             (ARRAY[1.5e308, 100]), (ARRAY[1.5e308, 101])) t(s)$$) AS overflow;
SELECT jl_kmeans(s, 2) AS overflow_scaled
FROM (VALUES (ARRAY[1.5, 0]), (ARRAY[1.5, 1]), (ARRAY[1.5, 2]),
             (ARRAY[1.5, 100]), (ARRAY[1.5, 101])) t(s);

-- analysts need no key: all of these are jldp_analyst's (and so a
-- curator's), not PUBLIC's: a role without jldp roles may not execute them
CREATE ROLE regress_jldp_km_analyst;
CREATE ROLE regress_jldp_km_nobody;
GRANT jldp_analyst TO regress_jldp_km_analyst;
SELECT r AS role,
       has_function_privilege(r, 'jl_kmeans(float8[], jl_kmeans_options)', 'EXECUTE') AS kmeans,
       has_function_privilege(r, 'jl_kmeans_options(int, bigint, int, int)', 'EXECUTE') AS kmeans_options,
       has_function_privilege(r, 'jldp_internal.jl_kmeans_options_of(int)', 'EXECUTE') AS kmeans_cast,
       has_function_privilege(r, 'jl_nearest_centroid(float8[], float8[])', 'EXECUTE') AS nearest
  FROM unnest(ARRAY['regress_jldp_km_analyst', 'regress_jldp_km_nobody', 'jldp_curator']) r;
SELECT p.oid::regprocedure AS recovery,
       has_function_privilege('regress_jldp_km_analyst', p.oid, 'EXECUTE') AS analyst_may_execute,
       has_function_privilege('regress_jldp_km_nobody', p.oid, 'EXECUTE') AS nobody_may_execute
FROM pg_proc p WHERE proname ~ '^jl_recover_(inner|norm2)' ORDER BY p.oid::regprocedure::text;
SET ROLE regress_jldp_km_analyst;
SELECT jl_nearest_centroid('{0.9, 0.1}', '{{0, 0}, {1, 0}}') AS analyst_nearest;
RESET ROLE;
SET ROLE regress_jldp_km_nobody;
SELECT error($$SELECT jl_nearest_centroid('{0.9, 0.1}', '{{0, 0}, {1, 0}}')$$) AS nobody_nearest;
RESET ROLE;
DROP ROLE regress_jldp_km_analyst;
DROP ROLE regress_jldp_km_nobody;

-- one aggregate per job: the options are one typed value built by its
-- constructor, and an integer n_clusters casts to it
SELECT p.oid::regprocedure AS aggregate FROM pg_proc p
 WHERE p.prokind = 'a' AND p.proname IN ('jl_kmeans', 'jl_linear_fit', 'jl_linear_fit_intercept')
 ORDER BY p.oid::regprocedure::text;
SELECT jl_kmeans_options(4) AS defaults, jl_kmeans_options(4, n_init => 10) AS restarts,
       4::jl_kmeans_options AS cast_of_n_clusters, jl_linear_options() AS linear_defaults;
SELECT (SELECT jl_kmeans(sketch, 3) FROM km_points)
     = (SELECT jl_kmeans(sketch, jl_kmeans_options(3, seed => 0, max_iter => 300, n_init => 1)) FROM km_points)
       AS cast_equals_constructor;
-- refused where the options are built, before any row is read
SELECT error($$SELECT jl_kmeans_options(0)$$);
SELECT error($$SELECT jl_kmeans_options(3, n_init => 1001)$$);
SELECT error($$SELECT jl_linear_options(ridge => 'Infinity')$$);
-- a row value built by hand is checked by the aggregate
SELECT error($$SELECT jl_kmeans(sketch, ROW(3, 0, NULL, 1)::jl_kmeans_options) FROM km_points$$);
SELECT error($$SELECT jl_kmeans(sketch, ROW(3, 0, 300, 0)::jl_kmeans_options) FROM km_points$$);
SELECT error($$SELECT jl_linear_fit(x, y, ROW(-1, true)::jl_linear_options) FROM (VALUES ('{1}'::float8[], '{1}'::float8[])) t(x, y)$$);
-- without an intercept the fit goes through the origin and its intercepts are 0
SELECT jl_linear_fit(x, y, jl_linear_options(intercept => false)) AS through_origin,
       jl_linear_fit_intercept(x, y, jl_linear_options(intercept => false)) AS zero_intercept
  FROM (VALUES ('{1}'::float8[], '{3}'::float8[]), ('{2}', '{5}')) t(x, y);
