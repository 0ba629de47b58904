-- The experiments of Dhaliwal et al. (2019), section 5, run through jldp.
-- Loaded into a fresh database with jldp installed; run.sh calls the
-- paper_* functions with the sizes of a full or a quick run and copies the
-- result tables to CSV.
--
-- Data: two isotropic Gaussian clusters of unit variance whose centres are 4
-- apart, at +-(2 / sqrt(d)) (1, ..., 1).  The data come from random() after
-- setseed, so they are the same on every run; they are data, not noise.  All
-- noise comes from jl_private_release (pg_strong_random), and every
-- repetition or release uses a key of its own from jl_key_create, so the
-- projections differ from run to run.
--
-- epsilon = 4 and bound 1 throughout, as in the paper.  The paper's data do
-- not satisfy bound 1 (unit-variance coordinates move by more than 1); like
-- the paper, we release them unclipped, so the figures are those of the
-- mechanism at the stated noise level.

CREATE TEMP TABLE blobs (id int PRIMARY KEY, label int, x float8[]);
CREATE TEMP TABLE sk (id int, label int, s float8[]);

-- 2 n_per points in R^d, ids 1..n_per in cluster 1, the rest in cluster 2
CREATE FUNCTION paper_blobs(n_per int, d int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE blobs;
	INSERT INTO blobs
	SELECT i, CASE WHEN i > n_per THEN 2 ELSE 1 END,
		   ARRAY(SELECT (CASE WHEN i > n_per THEN 2.0 ELSE -2.0 END)::float8 / sqrt(d)
						+ sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())
				 FROM generate_series(1, d) WHERE i > 0)
	FROM generate_series(1, 2 * n_per) i;
	ANALYZE blobs;
END $$;

-- the release options of each method (NULL neighbor: no noise), as
-- jldp's option types (the paper's element-wise methods are jldp's
-- 'attribute' neighbours).  kind is the papers' Gaussian P ('gaussian'), or
-- 'identity' for no projection (k = d: plain noise on the raw attributes,
-- the simplest alternative)
CREATE TABLE paper_method (method text PRIMARY KEY, ord int, neighbor jl_neighbor,
						   calibration jl_calibration, delta float8, label text,
						   kind jl_kind NOT NULL DEFAULT 'gaussian');

-- the k of a method's release: d without a projection
CREATE FUNCTION paper_k(m paper_method, d int, k int) RETURNS int
LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN m.kind = 'identity' THEN d ELSE k END $$;

-- true when err is the refusal of a paper calibration that does not cover P
CREATE FUNCTION paper_is_refusal(state text, msg text) RETURNS bool
LANGUAGE sql IMMUTABLE AS $$
	SELECT state = '22023' AND msg LIKE 'paper calibration does not cover%'
$$;

CREATE FUNCTION paper_dot(a float8[], b float8[]) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT sum(u * v) FROM unnest(a, b) AS t(u, v)
$$;

-- the papers' Gaussian P, named (jldp's default kind is 'rademacher'), or none
CREATE FUNCTION paper_info(d int, k int, m paper_method, kname text) RETURNS jsonb
LANGUAGE sql AS $$
	SELECT jl_release_info(d, 4.0, 1, m.neighbor,
						   jl_sketch(k => paper_k(m, d, k), kind => m.kind, delta => m.delta,
									 calibration => m.calibration),
						   key => kname)
$$;

-- the release of one row under a method
CREATE FUNCTION paper_release(x float8[], k int, m paper_method, kname text) RETURNS float8[]
LANGUAGE sql VOLATILE AS $$
	SELECT jl_private_release(x, 4.0, 1, m.neighbor,
							  jl_sketch(k => paper_k(m, array_length(x, 1), k), kind => m.kind,
										delta => m.delta, calibration => m.calibration),
							  key => kname)
$$;

------------------------------------------------------------------------
-- Table 1: k-means accuracy (best label matching), one key per repetition
------------------------------------------------------------------------
CREATE TABLE t1_result (d int, k int, rep int, method text, accuracy float8,
						refused bool, noise_variance float8,
						epsilon_effective float8, model_z float8,
						PRIMARY KEY (d, k, rep, method));

-- sk holds the sketches of this repetition; the accuracy of 2-means on them
CREATE FUNCTION paper_accuracy(seed bigint) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	c float8[];
	acc float8;
BEGIN
	SELECT jl_kmeans(s, jl_kmeans_options(2, seed)) INTO c FROM sk;
	SELECT avg((jl_nearest_centroid(s, c) = label)::int) INTO acc FROM sk;
	-- best matching of the two labels
	RETURN greatest(acc, 1 - acc);
END $$;

-- z of the Gaussian approximation to the accuracy Phi(z) of the perpendicular
-- bisector of the true cluster means in sketch space: with w = (mu2 - mu1) P,
-- z = |w|^2 / (2 sqrt(|P w|^2 + nv |w|^2)).  For raw data z = 2; with no
-- projection (P = I) z = 2 / sqrt(1 + nv).
CREATE FUNCTION paper_model_z(d int, k int, kname text, nv float8, kind jl_kind) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	w float8[];
	ww float8;
	pw float8;
BEGIN
	w := jl_project(array_fill(4.0 / sqrt(d), ARRAY[d]), jl_sketch(k => k, kind => kind), kname);
	ww := paper_dot(w, w);
	-- |P w|^2 = sum_i (P_i . w)^2, P_i = e_i P
	SELECT sum(paper_dot(jl_project(ARRAY(SELECT (j = i)::int::float8
												FROM generate_series(1, d) j),
									jl_sketch(k => k, kind => kind), kname), w) ^ 2)
	INTO pw FROM generate_series(1, d) i;
	RETURN ww / (2 * sqrt(pw + nv * ww));
END $$;

CREATE FUNCTION paper_table1(dks int[], reps int, n_per int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	i int;
	d int;
	k int;
	rep int;
	m paper_method;
	kname text;
	info jsonb;
	refused bool;
	st text;
	msg text;
BEGIN
	FOR i IN 1 .. array_length(dks, 1) LOOP
		d := dks[i][1];
		k := dks[i][2];
		FOR rep IN 1 .. reps LOOP
			PERFORM paper_blobs(n_per, d);
			kname := format('t1_%s_%s_%s', d, k, rep);
			PERFORM jl_key_create(kname);
			FOR m IN SELECT * FROM paper_method ORDER BY ord LOOP
				refused := false;
				info := NULL;
				TRUNCATE sk;
				IF m.method = 'none' THEN
					INSERT INTO sk SELECT id, label, x FROM blobs;
				ELSIF m.method = 'projection' THEN
					INSERT INTO sk SELECT id, label, jl_project(x, jl_sketch(k => k, kind => m.kind), kname) FROM blobs;
				ELSE
					info := paper_info(d, k, m, kname);
					BEGIN
						INSERT INTO sk SELECT id, label, paper_release(x, k, m, kname) FROM blobs;
					EXCEPTION WHEN OTHERS THEN
						GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
						IF NOT paper_is_refusal(st, msg) THEN
							RAISE;
						END IF;
						refused := true;
					END;
					-- the release and jl_release_info must agree on refusals
					IF refused = (info->>'valid')::bool THEN
						RAISE EXCEPTION 'release refused: %, jl_release_info valid: %',
							refused, info->>'valid';
					END IF;
				END IF;
				INSERT INTO t1_result
				VALUES (d, k, rep, m.method,
						CASE WHEN refused THEN NULL ELSE paper_accuracy(rep) END,
						refused,
						coalesce((info->>'noise_variance')::float8, 0),
						(info->>'epsilon_effective')::float8,
						CASE WHEN m.method = 'none' THEN 2.0
							 WHEN refused THEN NULL
							 ELSE paper_model_z(d, paper_k(m, d, k), kname,
									coalesce((info->>'noise_variance')::float8, 0), m.kind) END);
			END LOOP;
			PERFORM jl_key_drop(kname);
		END LOOP;
	END LOOP;
END $$;

------------------------------------------------------------------------
-- Figure 3 and the variance check: recovered minus true squared distance of
-- fixed pairs, a new key for every release, paper calibration.  cfg names a
-- (d, k) setting.
------------------------------------------------------------------------
CREATE TABLE f3_config (cfg text PRIMARY KEY, d int, k int);
CREATE TABLE f3_pair (cfg text, pair int, a int, b int, r2 float8, PRIMARY KEY (cfg, pair));
CREATE TABLE f3_diff (cfg text, rel int, method text, pair int, diff float8);
CREATE TABLE f3_release (cfg text, rel int, method text, refused bool, noise_variance float8,
						 epsilon_effective float8, PRIMARY KEY (cfg, rel, method));
CREATE TEMP TABLE f3_sketch (id int PRIMARY KEY, s float8[]);

CREATE FUNCTION paper_fig3(cfg text, n_pairs int, n_rel int, n_per int, d int, k int,
						   methods text[]) RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
	r int;
	m paper_method;
	kname text;
	info jsonb;
	nv float8;
	st text;
	msg text;
BEGIN
	INSERT INTO f3_config VALUES (cfg, d, k);
	PERFORM paper_blobs(n_per, d);
	-- pairs of distinct points drawn uniformly
	INSERT INTO f3_pair
	SELECT cfg, p, q.a, q.b, (SELECT sum((u - v) ^ 2) FROM unnest(xa.x, xb.x) AS t(u, v))
	FROM (SELECT p, a, 1 + (a + floor(random() * (2 * n_per - 1))::int) % (2 * n_per) AS b
		  FROM (SELECT p, 1 + floor(random() * 2 * n_per)::int AS a
				FROM generate_series(1, n_pairs) p) s) q
	JOIN blobs xa ON xa.id = q.a JOIN blobs xb ON xb.id = q.b;
	FOR r IN 1 .. n_rel LOOP
		kname := format('f3_%s_%s', cfg, r);
		PERFORM jl_key_create(kname);
		FOR m IN SELECT * FROM paper_method WHERE method = ANY (methods) ORDER BY ord LOOP
			info := paper_info(d, k, m, kname);
			nv := (info->>'noise_variance')::float8;
			TRUNCATE f3_sketch;
			BEGIN
				INSERT INTO f3_sketch
				SELECT id, paper_release(x, k, m, kname)
				FROM blobs
				WHERE id IN (SELECT a FROM f3_pair p WHERE p.cfg = paper_fig3.cfg
							 UNION SELECT b FROM f3_pair p WHERE p.cfg = paper_fig3.cfg);
			EXCEPTION WHEN OTHERS THEN
				GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
				IF NOT paper_is_refusal(st, msg) THEN
					RAISE;
				END IF;
				INSERT INTO f3_release VALUES (cfg, r, m.method, true, nv, NULL);
				CONTINUE;
			END;
			INSERT INTO f3_release
			VALUES (cfg, r, m.method, false, nv, (info->>'epsilon_effective')::float8);
			INSERT INTO f3_diff
			SELECT cfg, r, m.method, p.pair, jl_recover_dist(sa.s, sb.s, nv) - p.r2
			FROM f3_pair p JOIN f3_sketch sa ON sa.id = p.a JOIN f3_sketch sb ON sb.id = p.b
			WHERE p.cfg = paper_fig3.cfg;
		END LOOP;
		PERFORM jl_key_drop(kname);
	END LOOP;
END $$;

-- Figure 3 summary: the mean over all pairs and releases, with a 95%
-- confidence interval from the spread of the per-release means (releases are
-- independent; pairs within a release share the projection, so they are not)
CREATE VIEW f3_summary AS
WITH per_rel AS (
	SELECT cfg, method, rel, avg(diff) AS m FROM f3_diff GROUP BY cfg, method, rel
), rel AS (
	SELECT cfg, method, count(*) FILTER (WHERE refused) AS refused, count(*) AS releases,
		   avg(noise_variance) FILTER (WHERE NOT refused) AS noise_variance,
		   avg(epsilon_effective) FILTER (WHERE NOT refused) AS epsilon_effective
	FROM f3_release GROUP BY cfg, method
), all_diff AS (
	SELECT cfg, method, count(*) AS n, stddev_samp(diff) AS sd FROM f3_diff GROUP BY cfg, method
)
SELECT c.cfg, c.d, c.k, pm.method, rel.releases, rel.refused,
	   (SELECT count(*) FROM f3_pair p WHERE p.cfg = c.cfg) AS pairs,
	   all_diff.n, rel.noise_variance, rel.epsilon_effective,
	   avg(m) AS mean,
	   1.959963985 * stddev_samp(m) / sqrt(count(*)) AS ci95_halfwidth,
	   all_diff.sd, pm.calibration, pm.kind
FROM f3_config c JOIN per_rel USING (cfg) JOIN paper_method pm USING (method)
	 JOIN rel USING (cfg, method) JOIN all_diff USING (cfg, method)
GROUP BY c.cfg, c.d, c.k, pm.method, pm.ord, pm.calibration, pm.kind, rel.releases, rel.refused,
		 rel.noise_variance, rel.epsilon_effective, all_diff.n, all_diff.sd
ORDER BY c.d, c.k, pm.ord;

-- Figure 3 histogram: nbins bins between the 0.2% and 99.8% quantiles of
-- each method; bins 0 and nbins + 1 count what falls outside
CREATE FUNCTION paper_f3_histogram(nbins int) RETURNS TABLE (cfg text, method text,
	bin int, lo float8, hi float8, count bigint)
LANGUAGE sql AS $$
	WITH r AS (
		SELECT cfg, method, percentile_cont(0.002) WITHIN GROUP (ORDER BY diff) AS lo,
			   percentile_cont(0.998) WITHIN GROUP (ORDER BY diff) AS hi
		FROM f3_diff GROUP BY cfg, method
	)
	SELECT f.cfg, f.method, b, r.lo + (b - 1) * (r.hi - r.lo) / nbins,
		   r.lo + b * (r.hi - r.lo) / nbins, count(*)
	FROM f3_diff f JOIN r USING (cfg, method),
		 LATERAL width_bucket(f.diff, r.lo, r.hi, nbins) AS b
	GROUP BY f.cfg, f.method, b, r.lo, r.hi ORDER BY 1, 2, 3
$$;

-- The variance check.  With a new P per release, Var D = 2 r^4 / k
-- + 8 s2 r^2 + 14 k s2^2 (DESIGN.md); Dhaliwal's Claim 7 states
-- 2 r^4 / k + 4 s2 r^2 + 2 k (7 s2^2 - s2).  s2 is the per-coordinate noise
-- variance, the same for every key under the paper's calibration.
CREATE FUNCTION paper_var_corrected(r2 float8, k int, s2 float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$ SELECT 2 * r2 ^ 2 / k + 8 * s2 * r2 + 14 * k * s2 ^ 2 $$;
CREATE FUNCTION paper_var_claim7(r2 float8, k int, s2 float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$ SELECT 2 * r2 ^ 2 / k + 4 * s2 * r2 + 2 * k * (7 * s2 ^ 2 - s2) $$;

CREATE VIEW f3_s2 AS
	SELECT cfg, method, avg(noise_variance) AS s2 FROM f3_release
	WHERE NOT refused GROUP BY cfg, method;

-- per pair: the empirical variance of D over releases and both formulas
-- (the paper's calibrations only: both formulas are about a random P and one
-- noise level, which the exact calibration varies with P)
CREATE VIEW variance_pairs AS
	SELECT f.cfg, c.k, f.method, f.pair, p.r2, count(*) AS n, avg(f.diff) AS mean_diff,
		   var_samp(f.diff) AS var_empirical,
		   paper_var_corrected(p.r2, c.k, s2.s2) AS var_corrected,
		   paper_var_claim7(p.r2, c.k, s2.s2) AS var_claim7
	FROM f3_diff f JOIN f3_pair p USING (cfg, pair) JOIN f3_s2 s2 USING (cfg, method)
		 JOIN f3_config c USING (cfg)
	WHERE f.method IN (SELECT method FROM paper_method WHERE kind <> 'identity' AND calibration = 'paper')
	GROUP BY f.cfg, c.k, f.method, f.pair, p.r2, s2.s2;

-- Pooled: per release, the summed squared errors (D - r^2)^2 over the pairs
-- divided by the summed predicted variances; the mean over releases with a
-- 95% interval (releases are independent).  A correct formula gives 1.
CREATE VIEW variance_summary AS
	WITH pred AS (
		SELECT p.cfg, s2.method, s2.s2,
			   sum(paper_var_corrected(p.r2, c.k, s2.s2)) AS corrected,
			   sum(paper_var_claim7(p.r2, c.k, s2.s2)) AS claim7
		FROM f3_pair p JOIN f3_config c USING (cfg) JOIN f3_s2 s2 USING (cfg)
		GROUP BY p.cfg, s2.method, s2.s2
	), per_rel AS (
		SELECT cfg, method, rel, sum(diff ^ 2) AS sse FROM f3_diff
		WHERE method IN (SELECT method FROM paper_method WHERE kind <> 'identity' AND calibration = 'paper')
		GROUP BY cfg, method, rel
	)
	SELECT cfg, c.d, c.k, method, pred.s2 AS noise_variance, v.formula,
		   count(*) AS releases, avg(sse / v.pred) AS ratio,
		   1.959963985 * stddev_samp(sse / v.pred) / sqrt(count(*)) AS ci95_halfwidth
	FROM per_rel JOIN pred USING (cfg, method) JOIN f3_config c USING (cfg)
		 CROSS JOIN LATERAL (VALUES ('corrected', pred.corrected),
									('claim7', pred.claim7)) AS v(formula, pred)
	GROUP BY cfg, c.d, c.k, method, pred.s2, v.formula ORDER BY c.d, c.k, method, v.formula;

------------------------------------------------------------------------
-- Figure 4: per-coordinate noise standard deviation against k
------------------------------------------------------------------------
CREATE TABLE f4_result (d int, k int, key int, method text, noise_variance float8,
						valid bool, epsilon_effective float8, sensitivity float8);

CREATE FUNCTION paper_fig4(d int, ks int[], n_keys int, methods text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	j int;
	k int;
	m paper_method;
	kname text;
	info jsonb;
BEGIN
	FOR j IN 1 .. n_keys LOOP
		kname := format('f4_%s', j);
		PERFORM jl_key_create(kname);
		FOREACH k IN ARRAY ks LOOP
			FOR m IN SELECT * FROM paper_method WHERE method = ANY (methods) ORDER BY ord LOOP
				info := paper_info(d, k, m, kname);
				INSERT INTO f4_result
				VALUES (d, k, j, m.method, (info->>'noise_variance')::float8,
						(info->>'valid')::bool, (info->>'epsilon_effective')::float8,
						(info->>'sensitivity')::float8);
			END LOOP;
		END LOOP;
		PERFORM jl_key_drop(kname);
	END LOOP;
END $$;
