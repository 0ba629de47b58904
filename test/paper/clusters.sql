-- Clusters of a protected table, two ways through jldp (loaded by
-- test/paper/clusters.sh): the k-means mechanism (jl_kmeans_mechanism:
-- the clusters released, no row) and release-then-cluster (the sketches of
-- the advisor's choice for goal 'clustering', clustered by jl_kmeans).  For
-- each data set, neighbour notion, epsilon and repetition; every attribute
-- in [0, 1] (jl_vector('x', d, 0, 1)), k the number of true classes.  The
-- report (clusters_report.py) labels the raw rows by the released centroids
-- and runs the non-private k-means and the reimplementation of
-- diffprivlib's algorithm on the same rows.

CREATE TABLE cl_set (ds text PRIMARY KEY, ord int, d int, n int, classes int);
CREATE TABLE cl_row (ds text, id int, label int, x float8[], PRIMARY KEY (ds, id));
-- the k-means mechanism's release: one row per cluster, encoded centroid
CREATE TABLE cl_centroid (ds text, epsilon float8, neighbor text, rep int, cluster int,
						  c float8[], size float8, PRIMARY KEY (ds, epsilon, neighbor, rep, cluster));
-- release-then-cluster: the advisor's choice and the contingency table of
-- the k-means clusters of the sketches (rows) against the classes (columns)
CREATE TABLE cl_sketch_run (ds text, epsilon float8, neighbor text, rep int, kind text, k int,
							noise text, conf int[], PRIMARY KEY (ds, epsilon, neighbor, rep));

-- each data set's rows protected twice, under either neighbour notion, with
-- caps the experiment never reaches
CREATE FUNCTION cl_tables() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	s cl_set;
	nb text;
	t text;
BEGIN
	FOR s IN SELECT * FROM cl_set LOOP
		FOREACH nb IN ARRAY ARRAY['attribute', 'row'] LOOP
			t := format('cl_t_%s_%s', s.ds, nb);
			EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, x float8[])', t);
			EXECUTE format('INSERT INTO %I SELECT id, x FROM cl_row WHERE ds = %L', t, s.ds);
			PERFORM jl_protect(t::regclass, 'id', ARRAY[jl_vector('x', s.d, 0, 1)],
							   neighbor => nb::jl_neighbor, epsilon_cap => 1e9, delta_cap => 0.5);
		END LOOP;
	END LOOP;
END $$;

CREATE FUNCTION cl_experiment(epsilons float8[], reps int, delta float8) RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
	s cl_set;
	nb text;
	eps float8;
	rep int;
	t text;
	kname text;
	c float8[];
	r record;
BEGIN
	FOR s IN SELECT * FROM cl_set ORDER BY ord LOOP
		FOREACH nb IN ARRAY ARRAY['attribute', 'row'] LOOP
			t := format('cl_t_%s_%s', s.ds, nb);
			FOR rep IN 1 .. reps LOOP
				kname := format('cl_%s_%s_%s', s.ds, nb, rep);
				PERFORM jl_key_create(kname);
				FOREACH eps IN ARRAY epsilons LOOP
					-- the clusters released
					PERFORM jl_release(t::regclass, 'cl_out', eps, jl_kmeans_mechanism(k => s.classes, delta => delta));
					INSERT INTO cl_centroid SELECT s.ds, eps, nb, rep, o.cluster, o.encoded, o.size FROM cl_out o;
					DROP TABLE cl_out;
					-- the rows released as the advisor chooses, then clustered
					PERFORM jl_release(t::regclass, 'cl_sk', eps,
									   jl_advised(goal => 'clustering', dist2 => s.d / 6.0, cluster_var => 1 / 24.0,
												  delta => delta, force => true), key => kname);
					SELECT jl_kmeans(k.sketch, jl_kmeans_options(s.classes, rep, 300, 10)) INTO c FROM cl_sk k;
					SELECT rl.projection AS kind, rl.k, rl.info->>'noise' AS noise INTO r
					  FROM jl_releases rl WHERE rl.target = 'cl_sk'::regclass;
					INSERT INTO cl_sketch_run
					SELECT s.ds, eps, nb, rep, r.kind, r.k, r.noise,
						   (SELECT array_agg(m.row ORDER BY m.cl)
							  FROM (SELECT cl, array_agg(coalesce(n, 0) ORDER BY lb) AS row
									  FROM generate_series(1, s.classes) cl CROSS JOIN generate_series(1, s.classes) lb
									  LEFT JOIN (SELECT jl_nearest_centroid(k.sketch, c) AS g, w.label, count(*)::int AS n
												   FROM cl_sk k JOIN cl_row w ON w.ds = s.ds AND w.id = k.id
												  GROUP BY 1, 2) q ON q.g = cl AND q.label = lb
									 GROUP BY cl) m);
					DROP TABLE cl_sk;
				END LOOP;
				PERFORM jl_key_drop(kname);
			END LOOP;
		END LOOP;
	END LOOP;
END $$;
