-- Real data through jldp: scikit-learn's bundled data sets (loaded by
-- test/paper/realdata.sh with COPY), every attribute in [0, 1], attribute
-- neighbours (one element of one row) with bound 1 (rows clipped to
-- [0, 1]).  For each data set, epsilon, noise and key: the release of
-- every option (no projection, kind 'identity' with k = d; each projection
-- kind at each k <= d; the choices of jl_advise, from public inputs and, as
-- a diagnostic, from the data's statistics), k-means accuracy against the
-- true classes and the mean squared error of the recovered squared
-- distances of a fixed sample of pairs.  One key per (data set,
-- repetition), shared by all options of that repetition, so options can be
-- compared key by key.

CREATE TABLE rd_set (ds text PRIMARY KEY, ord int, d int, n int, classes int,
					 mean_pair_dist2 float8, within_class_var float8,
					 max_centre_dist2 float8, min_centre_dist2 float8);
CREATE TABLE rd_row (ds text, id int, label int, x float8[], PRIMARY KEY (ds, id));
CREATE TABLE rd_pair (ds text, pair int, a int, b int, r2 float8, PRIMARY KEY (ds, pair));
-- rank 1 of jl_advise for each goal
CREATE TABLE rd_advice (ds text, epsilon float8, noise text, rep int, goal text,
						kind text, k int, noise_variance float8, predicted_error float8,
						note text, PRIMARY KEY (ds, epsilon, noise, rep, goal));
-- conf: the contingency table of k-means clusters (rows) against the true
-- classes (columns), from which the report takes the best matching
CREATE TABLE rd_run (ds text, epsilon float8, noise text, rep int, kind text, k int,
					 refused text, noise_variance float8, mse float8, conf int[],
					 PRIMARY KEY (ds, epsilon, noise, rep, kind, k));
CREATE TEMP TABLE rd_sk (id int PRIMARY KEY, label int, s float8[]);
-- goal 'distance, estimated': dist2 released by jl_release_dist2 (epsilon
-- est_eps, charged beside the release's) from the clamped rows of the data
-- set, from a protected table of its rows (the function reads whole
-- protected tables)
CREATE TABLE rd_estimate (ds text, epsilon float8, noise text, rep int, est_epsilon float8,
						  dist2 float8, stddev float8, PRIMARY KEY (ds, epsilon, noise, rep));

-- the advisor's public inputs (documented in the report): two rows differ
-- by d/6 in squared distance on average when their attributes are
-- independent and uniform on [0, 1]; a cluster structure that splits that
-- variance (1/12 per attribute) in half between and within two clusters has
-- centres d/6 apart (squared) and 1/24 per attribute within
CREATE FUNCTION rd_dist2(d int) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$ SELECT d / 6.0 $$;
CREATE FUNCTION rd_cluster_var() RETURNS float8 LANGUAGE sql IMMUTABLE AS $$ SELECT 1 / 24.0 $$;

CREATE FUNCTION rd_clip(x float8[]) RETURNS float8[]
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT array_agg(least(greatest(v, 0), 1) ORDER BY i) FROM unnest(x) WITH ORDINALITY t(v, i)
$$;

-- one release of one data set under one option: accuracy counts and MSE
-- (the option words kept as text, as rd_run records them: knd is a jl_kind
-- word, from rd_experiment's kinds or jl_advise's kind column, nz a jl_noise)
CREATE FUNCTION rd_release(s rd_set, eps float8, nz text, delta float8, rep int,
						   knd text, kk int, kname text) RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
	nv float8;
	c float8[];
	msg text;
BEGIN
	IF EXISTS (SELECT 1 FROM rd_run r WHERE r.ds = s.ds AND r.epsilon = eps AND r.noise = nz
			   AND r.rep = rep AND r.kind = knd AND r.k = kk) THEN
		RETURN;
	END IF;
	TRUNCATE rd_sk;
	BEGIN
		nv := (jl_release_info(s.d, eps, 1, 'attribute',
							   jl_sketch(k => kk, kind => knd::jl_kind, noise => nz::jl_noise, delta => delta),
							   key => kname)->>'noise_variance')::float8;
		INSERT INTO rd_sk
		SELECT id, label, jl_private_release(rd_clip(x), eps, 1, 'attribute',
											 jl_sketch(k => kk, kind => knd::jl_kind, noise => nz::jl_noise,
													   delta => delta),
											 key => kname)
		FROM rd_row WHERE ds = s.ds;
	EXCEPTION WHEN invalid_parameter_value THEN
		-- e.g. a sparse P with an empty row at small d and k
		GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
		INSERT INTO rd_run VALUES (s.ds, eps, nz, rep, knd, kk, msg, NULL, NULL, NULL);
		RETURN;
	END;
	SELECT jl_kmeans(sk.s, jl_kmeans_options(s.classes, rep, 300, 10)) INTO c FROM rd_sk sk;
	INSERT INTO rd_run
	SELECT s.ds, eps, nz, rep, knd, kk, NULL, nv,
		   avg((jl_recover_dist(a.s, b.s, nv) - p.r2) ^ 2),
		   (SELECT array_agg(r ORDER BY cl)
			FROM (SELECT cl, array_agg(coalesce(n, 0) ORDER BY lb) AS r
				  FROM generate_series(1, s.classes) cl CROSS JOIN generate_series(1, s.classes) lb
				  LEFT JOIN (SELECT jl_nearest_centroid(sk.s, c) AS g, sk.label, count(*)::int AS n
							 FROM rd_sk sk GROUP BY 1, 2) t ON t.g = cl AND t.label = lb
				  GROUP BY cl) m)
	FROM rd_pair p JOIN rd_sk a ON a.id = p.a JOIN rd_sk b ON b.id = p.b
	WHERE p.ds = s.ds;
END $$;

-- each data set's rows as a protected table of its own, for
-- jl_release_dist2, which reads whole protected tables: x's d elements in
-- [0, 1] (weight 1 = hi - lo: the encoding is x clamped, as rd_clip does),
-- attribute neighbours (one element of one row, 0.3's element bound 1),
-- a cap the experiment never reaches (reps x epsilons x 2 noises x est_eps
-- is 24 at most); created (and committed) before the experiment, as a
-- release's charge needs its relation committed
CREATE FUNCTION rd_tables() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	s rd_set;
BEGIN
	FOR s IN SELECT * FROM rd_set LOOP
		EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, x float8[])', 'rd_t_' || s.ds);
		EXECUTE format('INSERT INTO %I SELECT id, x FROM rd_row WHERE ds = %L', 'rd_t_' || s.ds, s.ds);
		PERFORM jl_protect(('rd_t_' || s.ds)::regclass, 'id', ARRAY[jl_vector('x', s.d, 0, 1)],
						   neighbor => 'attribute', epsilon_cap => 1000);
	END LOOP;
END $$;

CREATE FUNCTION rd_experiment(epsilons float8[], kinds text[], ks int[], reps int,
							  gdelta float8, est_eps float8) RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
	s rd_set;
	eps float8;
	rep int;
	nz text;
	delta float8;
	kname text;
	o record;
	est record;
BEGIN
	UPDATE rd_pair p SET r2 = (SELECT sum((u - v) ^ 2) FROM unnest(xa.x, xb.x) t(u, v))
	FROM rd_row xa, rd_row xb
	WHERE xa.ds = p.ds AND xa.id = p.a AND xb.ds = p.ds AND xb.id = p.b;
	FOR s IN SELECT * FROM rd_set ORDER BY ord LOOP
		FOR rep IN 1 .. reps LOOP
			kname := format('rd_%s_%s', s.ds, rep);
			PERFORM jl_key_create(kname);
			FOREACH eps IN ARRAY epsilons LOOP
				FOREACH nz IN ARRAY ARRAY['laplace', 'gaussian'] LOOP
					delta := CASE WHEN nz = 'gaussian' THEN gdelta END;
					INSERT INTO rd_advice
					SELECT s.ds, eps, nz, rep, g.goal, a.kind, a.k, a.noise_variance,
						   a.predicted_error, a.note
					-- the best per-row release (for goal clustering the advisor
					-- also ranks the k-means mechanism, which releases no rows)
					FROM (VALUES ('distance'), ('clustering')) g(goal),
						 LATERAL (SELECT * FROM jl_advise(s.d, eps, rd_dist2(s.d), NULL, 'attribute', 1, nz::jl_noise, delta,
														  g.goal::jl_goal,
														  CASE WHEN g.goal = 'clustering' THEN rd_cluster_var() END,
														  CASE WHEN g.goal = 'clustering' THEN s.n END,
														  kname) x
								   WHERE x.kind <> 'kmeans mechanism' AND NOT x.refused ORDER BY x.rank LIMIT 1) a;
					-- a diagnostic: the advisor told the data's own statistics (mean
					-- squared distance of the sampled pairs; the closest two class
					-- centres and the within-class variance), its choice released too
					-- so that the report can tell inputs from model
					INSERT INTO rd_advice
					SELECT s.ds, eps, nz, rep, g.goal, a.kind, a.k, a.noise_variance,
						   a.predicted_error, a.note
					FROM (VALUES ('distance, data', 'distance', s.mean_pair_dist2, NULL::float8),
								 ('clustering, data', 'clustering', s.min_centre_dist2,
								  s.within_class_var)) g(goal, g2, dist2, cv),
						 LATERAL (SELECT * FROM jl_advise(s.d, eps, g.dist2, NULL, 'attribute', 1, nz::jl_noise, delta,
														  g.g2::jl_goal, g.cv, CASE WHEN g.g2 = 'clustering' THEN s.n END,
														  kname) x
								   WHERE x.kind <> 'kmeans mechanism' AND NOT x.refused ORDER BY x.rank LIMIT 1) a;
					-- dist2 read from the data under a budget of its own
					SELECT e.dist2, e.stddev INTO est
					FROM jl_release_dist2(('rd_t_' || s.ds)::regclass, est_eps) e;
					INSERT INTO rd_estimate VALUES (s.ds, eps, nz, rep, est_eps, est.dist2, est.stddev);
					INSERT INTO rd_advice
					SELECT s.ds, eps, nz, rep, 'distance, estimated', a.kind, a.k, a.noise_variance,
						   a.predicted_error, a.note
					FROM jl_advise(s.d, eps, greatest(est.dist2, est.stddev), NULL, 'attribute', 1, nz::jl_noise,
								   delta, 'distance', NULL, NULL, kname) a
					WHERE a.rank = 1;
					FOR o IN
						SELECT 'identity' AS kind, s.d AS k
						UNION SELECT kn, kv FROM unnest(kinds) kn, unnest(ks) kv WHERE kv <= s.d
						UNION SELECT a.kind, a.k FROM rd_advice a
							  WHERE a.ds = s.ds AND a.epsilon = eps AND a.noise = nz AND a.rep = rep
					LOOP
						PERFORM rd_release(s, eps, nz, delta, rep, o.kind, o.k, kname);
					END LOOP;
				END LOOP;
			END LOOP;
			PERFORM jl_key_drop(kname);
		END LOOP;
	END LOOP;
END $$;
