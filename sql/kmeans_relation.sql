-- jl_kmeans(release, n_clusters, ...): k-means of a table's sketches in one
-- call, returning centroids, sizes, inertia and iterations; the labels in
-- the same statement.  Checked independently: on three clusters far apart,
-- the sizes are the groups' and the inertia is the sum of squared
-- distances to the groups' means computed in SQL; the centroids are the
-- aggregate's over the same sketches.
SET extra_float_digits = 0;
CREATE TABLE krel_s (id int PRIMARY KEY, grp int, sketch float8[]);
INSERT INTO krel_s SELECT i, i % 3, ARRAY[(i % 3) * 100 + sin(i), (i % 3) * 50 + cos(i), i % 7]::float8[]
  FROM generate_series(1, 3000) i;
INSERT INTO krel_s VALUES (3001, NULL, NULL);   -- a NULL sketch is skipped
SELECT sizes, iterations, array_dims(centroids) AS dims FROM jl_kmeans('krel_s', 3);
-- the inertia: the squared distances to each group's mean, summed
WITH m AS (SELECT grp, avg(sketch[1]) AS a, avg(sketch[2]) AS b, avg(sketch[3]) AS c FROM krel_s GROUP BY grp)
SELECT abs((SELECT inertia FROM jl_kmeans('krel_s', 3)) -
           (SELECT sum((s.sketch[1] - m.a) ^ 2 + (s.sketch[2] - m.b) ^ 2 + (s.sketch[3] - m.c) ^ 2)
              FROM krel_s s JOIN m USING (grp))) < 1e-6 AS inertia_is_the_groups;
-- the aggregate's centroids, from the same sketches and parameters
SELECT (SELECT jl_kmeans(sketch, jl_kmeans_options(3, 5, 300, 2)) FROM krel_s) =
       (SELECT centroids FROM jl_kmeans('krel_s'::regclass, 3, seed => 5, n_init => 2)) AS same_as_aggregate;
-- every row labelled in the same statement: three labels, one per group
SELECT count(DISTINCT label) AS labels, count(DISTINCT (grp, label)) AS group_label_pairs
  FROM (SELECT s.grp, jl_nearest_centroid(s.sketch, k.centroids) AS label
          FROM krel_s s, jl_kmeans('krel_s', 3) k WHERE s.sketch IS NOT NULL) x;
-- ... and by jl_kmeans_labels in one call: for every row with a sketch the
-- label jl_nearest_centroid gives with jl_kmeans's centroids (same
-- arguments), by regclass and by name; its sizes are jl_kmeans's
SELECT count(*) AS labelled,
       bool_and(l.cluster = jl_nearest_centroid(s.sketch, k.centroids)) AS as_nearest_centroid,
       bool_and(l.cluster = t.cluster) AS by_name_too
  FROM jl_kmeans_labels('krel_s'::regclass, 3, seed => 5) l
  JOIN krel_s s ON s.id = l.id
  JOIN jl_kmeans_labels('krel_s', 3, seed => 5) t ON t.id = l.id,
       jl_kmeans('krel_s', 3, seed => 5) k;
SELECT (SELECT array_agg(n ORDER BY c) FROM (SELECT cluster AS c, count(*) AS n FROM jl_kmeans_labels('krel_s', 3, seed => 5) GROUP BY 1) x)
       = (SELECT sizes FROM jl_kmeans('krel_s', 3, seed => 5)) AS sizes_as_jl_kmeans;
-- tol = 0 stops only when no assignment changes: never fewer iterations
CREATE TABLE krel_u AS SELECT i AS id, ARRAY[sin(i * 1.3), cos(i * 2.1), sin(i * 0.7)]::float8[] AS sketch
  FROM generate_series(1, 2000) i;
SELECT (SELECT iterations FROM jl_kmeans('krel_u', 8, tol => 0)) >=
       (SELECT iterations FROM jl_kmeans('krel_u', 8)) AS tol_zero_runs_longer,
       (SELECT iterations FROM jl_kmeans('krel_u', 8, max_iter => 3)) AS capped;
-- another column, a schema-qualified name, fewer distinct sketches than clusters
CREATE SCHEMA krel_ns;
CREATE TABLE krel_ns.t (v float8[]);
INSERT INTO krel_ns.t VALUES ('{1,1}'), ('{1,1}'), ('{5,5}');
SELECT centroids, sizes, inertia FROM jl_kmeans('krel_ns.t', 4, sketch_column => 'v');
-- jl_kmeans_labels labels a release's (id, sketch) rows: a table without id is refused
SELECT error($$SELECT * FROM jl_kmeans_labels('krel_ns.t', 2)$$) AS no_id_column;
-- no sketch: one row of NULLs
CREATE TABLE krel_empty (sketch float8[]);
SELECT * FROM jl_kmeans('krel_empty', 2);

-- refused, each with its own message
CREATE FUNCTION krel_error(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT krel_error($$SELECT jl_kmeans('krel_s', 0)$$) AS no_clusters;
SELECT krel_error($$SELECT jl_kmeans('krel_s', 3, max_iter => 0)$$) AS no_iterations;
SELECT krel_error($$SELECT jl_kmeans('krel_s', 3, tol => 'NaN')$$) AS tol_nan;
SELECT krel_error($$SELECT jl_kmeans('krel_s', 3, seed => NULL)$$) AS seed_null;
SELECT krel_error($$SELECT jl_kmeans('krel_s', 3, sketch_column => 'grp')$$) AS not_float8_array;
SELECT krel_error($$SELECT jl_kmeans('krel_s', 3, sketch_column => 'nosuch')$$) AS no_column;
SELECT krel_error($$SELECT jl_kmeans('krel_nosuch', 3)$$) AS no_table;
INSERT INTO krel_ns.t VALUES ('{1,2,3}');
SELECT krel_error($$SELECT jl_kmeans('krel_ns.t', 2, sketch_column => 'v')$$) AS mixed_dimensions;
INSERT INTO krel_empty VALUES ('{1,NaN}');
SELECT krel_error($$SELECT jl_kmeans('krel_empty', 1)$$) AS not_finite;
-- an analyst (jldp_analyst) that may not read the table
CREATE ROLE regress_kr_analyst;
GRANT jldp_analyst TO regress_kr_analyst;
SET ROLE regress_kr_analyst;
SELECT krel_error($$SELECT jl_kmeans('krel_s', 3)$$) AS may_not_read;
RESET ROLE;
GRANT SELECT (sketch) ON krel_s TO regress_kr_analyst;
SET ROLE regress_kr_analyst;
SELECT sizes FROM jl_kmeans('krel_s', 3) AS column_granted;
RESET ROLE;
-- a role that may read the column but holds no jldp role may not cluster
CREATE ROLE regress_kr_nobody;
GRANT SELECT (sketch) ON krel_s TO regress_kr_nobody;
SET ROLE regress_kr_nobody;
SELECT krel_error($$SELECT jl_kmeans('krel_s', 3)$$) AS no_jldp_role;
RESET ROLE;
REVOKE SELECT (sketch) ON krel_s FROM regress_kr_analyst, regress_kr_nobody;
DROP ROLE regress_kr_analyst;
DROP ROLE regress_kr_nobody;

-- the assignment steps in parallel workers (when the work is large enough
-- and max_parallel_workers_per_gather allows): the serial result exactly
CREATE TABLE krel_big AS
  SELECT i AS id, ARRAY(SELECT sin(i * j * 0.37) FROM generate_series(1, 20) j)::float8[] AS sketch
  FROM generate_series(1, 40000) i;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE krel_serial AS SELECT * FROM jl_kmeans('krel_big', 32, n_init => 2);
SET max_parallel_workers_per_gather = 2;
CREATE TEMP TABLE krel_parallel AS SELECT * FROM jl_kmeans('krel_big', 32, n_init => 2);
RESET max_parallel_workers_per_gather;
SELECT s.workers AS serial_workers, p.workers > 0 AS parallel_workers_used,
       s.centroids = p.centroids AS same_centroids, s.sizes = p.sizes AS same_sizes,
       s.inertia = p.inertia AS same_inertia, s.iterations = p.iterations AS same_iterations
  FROM krel_serial s, krel_parallel p;
-- the aggregate (in a plan that is not parallel) gives them too
SELECT jl_kmeans(sketch, jl_kmeans_options(32, 0, 300, 2)) = (SELECT centroids FROM krel_serial) AS aggregate_same FROM krel_big;

-- -0.0 is 0.0: the result does not depend on which copy comes first
SELECT (SELECT jl_kmeans(s, 2) FROM (VALUES ('{0,1}'::float8[]), ('{-0,1}'), ('{5,5}')) v(s))::text =
       (SELECT jl_kmeans(s, 2) FROM (VALUES ('{-0,1}'::float8[]), ('{0,1}'), ('{5,5}')) v(s))::text AS negative_zero_same,
       (SELECT jl_kmeans(s, 2) FROM (VALUES ('{-0,1}'::float8[]), ('{0,1}'), ('{5,5}')) v(s))::text AS centroids;
-- beyond the magnitudes k-means computes with: refused, not clustered wrong
CREATE TABLE krel_huge AS SELECT i AS id,
  ARRAY[(CASE WHEN i % 2 = 0 THEN -1e200 ELSE 1e200 END) + i * 1e197]::float8[] AS sketch FROM generate_series(1, 20) i;
SELECT krel_error($$SELECT jl_kmeans('krel_huge', 2)$$) AS huge;
