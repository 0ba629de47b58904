-- jl_kmeans with restarts: jl_kmeans(sketch, jl_kmeans_options(n_clusters, seed, max_iter, n_init))

-- four blobs at the corners of a 10 x 5 rectangle, 40 points each, each
-- point its corner plus a deterministic offset of norm below 1.5
CREATE TEMP TABLE kr_points AS
  SELECT i AS id, i % 4 AS blob,
         ARRAY[10 * (i % 4 >= 2)::int + sin(7.3 * i), 5 * (i % 2) + cos(3.1 * i)]::float8[] AS sketch
  FROM generate_series(1, 160) i;

-- the inertia of centroids c: the sum of squared distances of the points to
-- their nearest centroid
CREATE FUNCTION pg_temp.kr_inertia(c float8[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT sum((sketch[1] - c[l][1]) ^ 2 + (sketch[2] - c[l][2]) ^ 2)
  FROM (SELECT sketch, jl_nearest_centroid(sketch, c) AS l FROM kr_points) t
$$;
-- whether every blob has a centroid of its own (its points share one label
-- that no other blob has)
CREATE FUNCTION pg_temp.kr_blobs_found(c float8[]) RETURNS bool LANGUAGE sql AS $$
  SELECT count(DISTINCT l) = 4 AND bool_and(labels = 1)
  FROM (SELECT blob, min(jl_nearest_centroid(sketch, c)) AS l,
               count(DISTINCT jl_nearest_centroid(sketch, c)) AS labels
        FROM kr_points GROUP BY blob) t
$$;

-- n_init 1 is the single run of the other overloads
SELECT (SELECT jl_kmeans(sketch, jl_kmeans_options(4, 9, 300, 1)) FROM kr_points)
     = (SELECT jl_kmeans(sketch, jl_kmeans_options(4, 9, 300)) FROM kr_points) AS n_init_1_is_one_run,
       (SELECT jl_kmeans(sketch, 4) FROM kr_points)
     = (SELECT jl_kmeans(sketch, jl_kmeans_options(4, 0, 300, 1)) FROM kr_points) AS default_n_init_is_1;

-- seeds whose single k-means++ seeding ends in a local optimum: two
-- centroids in one blob, one between two blobs; ten runs from each of them
-- find the four blobs
SELECT seed, pg_temp.kr_blobs_found(c1) AS one_run_finds_blobs,
       pg_temp.kr_blobs_found(c10) AS ten_runs_find_blobs,
       round((pg_temp.kr_inertia(c1) / pg_temp.kr_inertia(c10))::numeric, 2) AS inertia_ratio
FROM (SELECT seed, (SELECT jl_kmeans(sketch, jl_kmeans_options(4, seed, 300, 1)) FROM kr_points) AS c1,
             (SELECT jl_kmeans(sketch, jl_kmeans_options(4, seed, 300, 10)) FROM kr_points) AS c10
      FROM generate_series(0, 99) seed) t
WHERE NOT pg_temp.kr_blobs_found(c1)
ORDER BY seed;

-- more runs are never worse in inertia (the first runs are the same), and
-- sometimes better
SELECT count(*) FILTER (WHERE i3 > i1 * (1 + 1e-12) OR i10 > i3 * (1 + 1e-12)) AS worse,
       count(*) FILTER (WHERE i10 < i1 * (1 - 1e-9)) > 0 AS sometimes_better,
       count(*) AS seeds
FROM (SELECT pg_temp.kr_inertia((SELECT jl_kmeans(sketch, jl_kmeans_options(4, seed, 300, 1)) FROM kr_points)) AS i1,
             pg_temp.kr_inertia((SELECT jl_kmeans(sketch, jl_kmeans_options(4, seed, 300, 3)) FROM kr_points)) AS i3,
             pg_temp.kr_inertia((SELECT jl_kmeans(sketch, jl_kmeans_options(4, seed, 300, 10)) FROM kr_points)) AS i10
      FROM generate_series(0, 99) seed) t;

-- deterministic: the same seed and n_init give the same centroids in any
-- input order; NULL sketches are skipped
SELECT (SELECT jl_kmeans(sketch, jl_kmeans_options(4, 7, 300, 5)) FROM kr_points)
     = (SELECT jl_kmeans(sketch, jl_kmeans_options(4, 7, 300, 5)) FROM kr_points) AS same_seed_same_result,
       (SELECT jl_kmeans(sketch, jl_kmeans_options(4, 7, 300, 5) ORDER BY id) FROM kr_points)
     = (SELECT jl_kmeans(sketch, jl_kmeans_options(4, 7, 300, 5) ORDER BY id DESC) FROM kr_points) AS order_independent,
       (SELECT jl_kmeans(sketch, jl_kmeans_options(4, 7, 300, 5)) FROM kr_points)
     = (SELECT jl_kmeans(s, jl_kmeans_options(4, 7, 300, 5)) FROM (SELECT sketch AS s FROM kr_points
                                                UNION ALL SELECT NULL FROM generate_series(1, 5)) t) AS nulls_skipped;
-- the centroids of several runs are still the means of their points
SELECT bool_and(abs(mean_x - c[l][1]) < 1e-12 AND abs(mean_y - c[l][2]) < 1e-12) AS centroids_are_means,
       count(*) AS clusters
FROM (SELECT l, avg(sketch[1]) AS mean_x, avg(sketch[2]) AS mean_y, c
      FROM (SELECT sketch, c, jl_nearest_centroid(sketch, c) AS l
            FROM kr_points, (SELECT jl_kmeans(sketch, jl_kmeans_options(4, 7, 300, 10)) AS c FROM kr_points) r) t
      GROUP BY l, c) m;

-- grouped, empty, at most n_clusters distinct sketches: as with one run
SELECT blob, array_dims(jl_kmeans(sketch, jl_kmeans_options(2, 0, 300, 3))) AS dims FROM kr_points GROUP BY blob ORDER BY blob;
SELECT jl_kmeans(sketch, jl_kmeans_options(3, 0, 300, 10)) IS NULL AS empty_is_null FROM kr_points WHERE false;
SELECT jl_kmeans(sketch, jl_kmeans_options(5, 0, 300, 10)) AS fewer_rows_than_clusters
FROM (VALUES ('{3,1}'::float8[]), ('{1,2}'), ('{1,1}')) v(sketch);

-- bad arguments: n_init outside 1..1000 (with a hint), NULL, differing
-- between rows of a group
CREATE FUNCTION pg_temp.error_hint(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  hint text;
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
  RETURN SQLSTATE || ': ' || SQLERRM || ' HINT: ' || hint;
END $$;
SELECT pg_temp.error_hint($$SELECT jl_kmeans(sketch, jl_kmeans_options(4, 0, 300, 0)) FROM kr_points$$);
SELECT pg_temp.error_hint($$SELECT jl_kmeans(sketch, jl_kmeans_options(4, 0, 300, 1001)) FROM kr_points$$);
SELECT error($$SELECT jl_kmeans(sketch, jl_kmeans_options(4, 0, 300, -5)) FROM kr_points$$);
SELECT error($$SELECT jl_kmeans(sketch, jl_kmeans_options(4, 0, 300, NULL)) FROM kr_points$$);
SELECT error($$SELECT jl_kmeans(sketch, jl_kmeans_options(4, 0, 300, 1 + id % 2)) FROM kr_points$$);
SELECT jl_kmeans(sketch, jl_kmeans_options(4, 0, 300, 1000)) IS NOT NULL AS n_init_1000_accepted FROM kr_points;

-- parallel plans: the workers' states (with n_init) are serialized and
-- combined, and the result equals the serial one exactly.  The points have
-- no clear clusters, so different seedings end in different local optima
-- and four runs give other centroids than one.
CREATE TEMP TABLE kr_serial AS SELECT NULL::float8[] AS c1, NULL::float8[] AS c4 LIMIT 0;
CREATE TABLE kr_big AS
  SELECT i AS id, ARRAY[sin(i), cos(1.7 * i), sin(2.3 * i)]::float8[] AS sketch
  FROM generate_series(1, 30000) i;
ANALYZE kr_big;
INSERT INTO kr_serial
  SELECT jl_kmeans(sketch, jl_kmeans_options(6, 1, 300, 1)), (SELECT jl_kmeans(sketch, jl_kmeans_options(6, 1, 300, 4)) FROM kr_big) FROM kr_big;
SELECT c1 <> c4 AS restarts_change_the_result FROM kr_serial;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT jl_kmeans(sketch, jl_kmeans_options(6, 1, 300, 4)) FROM kr_big;
SELECT jl_kmeans(sketch, jl_kmeans_options(6, 1, 300, 4)) = (SELECT c4 FROM kr_serial) AS parallel_equals_serial FROM kr_big;
SELECT jl_kmeans(sketch, jl_kmeans_options(6, 1, 300, 1)) = (SELECT c1 FROM kr_serial) AS parallel_equals_serial_one_run FROM kr_big;
SELECT array_dims(c4) AS dims, (SELECT count(DISTINCT jl_nearest_centroid(sketch, c4)) FROM kr_big) AS labels_used
FROM kr_serial;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE kr_big;
