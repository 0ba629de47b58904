-- Null-space cleaning on the scene data (test/paper/nullspace.sh): the
-- paper's Figures 4 (no attack), 6 (the attack of its Algorithm 3) and 7
-- (a Laplace baseline at the same e_utility), a k-nearest-neighbour
-- adversary and a sweep of utility_error, all through jldp's SQL:
-- jl_linear_fit for every model, jl_nullspace_clean for every cleaning,
-- jl_recover_dist(a, b, 0) = ||a - b||^2 for the neighbours.
--
-- Errors, per test vector x (as the paper's Theorems state them):
--   e_utility = ||f_d(x~) - f_d(x)||^2, f_d(x) = A_d^T x + b_d
--   e_privacy = ||g(x~) - f_c(x)||^2, g the adversary's predictor
--     (no attack: f_c itself; attack: refitted on cleaned training data;
--     knn: the mean label of the k nearest cleaned training vectors)
--   complete privacy: e_privacy > ||f_c(mean x) - f_c(x)||^2
-- and the same with the true labels y_c in place of f_c(x) (columns *_true).

CREATE UNLOGGED TABLE ns_row (id int PRIMARY KEY, x float8[] NOT NULL, y float8[] NOT NULL);
CREATE UNLOGGED TABLE ns_split (id int PRIMARY KEY, test boolean NOT NULL);
CREATE UNLOGGED TABLE ns_clean (method text, test boolean, id int, xc float8[], y float8[],
                                PRIMARY KEY (method, test, id));
CREATE UNLOGGED TABLE ns_out (run int, nd int, nc int, eps float8, method text, adversary text,
                              id int, e_utility float8, e_privacy float8, e_mean float8,
                              e_privacy_true float8, e_mean_true float8);
CREATE UNLOGGED TABLE ns_alpha (run int, nd int, nc int, method text, id int,
                                x float8[], xc float8[]);
CREATE UNLOGGED TABLE ns_model (run int, nd int, nc int, desired int[], confidential int[],
                                ad float8[], ac float8[], bd float8[], bc float8[], xmean float8[]);

-- y[idx[1]], y[idx[2]], ...
CREATE FUNCTION ns_pick(y float8[], idx int[]) RETURNS float8[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT array_agg(y[i] ORDER BY o) FROM unnest(idx) WITH ORDINALITY u(i, o) $$;
CREATE FUNCTION ns_sq(a float8[], b float8[]) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT jl_recover_dist(a, b, 0) $$;
-- the columns idx of a d x m matrix
CREATE FUNCTION ns_cols(a float8[], idx int[]) RETURNS float8[]
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT array_agg(r ORDER BY i) FROM (
    SELECT i, array_agg(a[i][j] ORDER BY o) AS r
    FROM generate_subscripts(a, 1) i, unnest(idx) WITH ORDINALITY u(j, o) GROUP BY i) t $$;

-- cleaned vectors of the split's rows (test, or training for the attack)
CREATE FUNCTION ns_clean_rows(meth text, eps float8, ad float8[], ac float8[], on_test boolean)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM ns_clean WHERE method = meth AND test = on_test;
  INSERT INTO ns_clean
  SELECT meth, on_test, r.id,
         CASE meth WHEN 'none' THEN r.x
                   WHEN 'confidential' THEN jl_nullspace_clean(r.x, ad, ac, eps)
                   ELSE jl_nullspace_clean(r.x, ad, eps, method => meth::jl_nullspace_method) END, r.y
  FROM ns_row r JOIN ns_split s USING (id) WHERE s.test = on_test;
END $$;

-- one configuration of one run at one utility_error: every method and adversary
CREATE FUNCTION ns_cell(r int, ndes int, ncon int, eps float8, methods text[],
                        knn int, attack boolean) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  m record;
  meth text;
  ac2 float8[];
  bc2 float8[];
BEGIN
  SELECT * INTO m FROM ns_model WHERE run = r AND nd = ndes AND nc = ncon;
  FOREACH meth IN ARRAY methods LOOP
    PERFORM ns_clean_rows(meth, eps, m.ad, m.ac, true);
    -- no attack: the cleaner's confidential model (the adversary's f_c)
    INSERT INTO ns_out
    SELECT r, ndes, ncon, eps, meth, 'linear', c.id,
           ns_sq(jl_linear_predict(c.xc, m.ad), jl_linear_predict(x, m.ad)),
           ns_sq(jl_linear_predict(c.xc, m.ac), jl_linear_predict(x, m.ac)),
           ns_sq(jl_linear_predict(m.xmean, m.ac), jl_linear_predict(x, m.ac)),
           ns_sq(jl_linear_predict(c.xc, m.ac, m.bc), ns_pick(y, m.confidential)),
           ns_sq(jl_linear_predict(m.xmean, m.ac, m.bc), ns_pick(y, m.confidential))
    FROM ns_clean c JOIN ns_row USING (id, y) WHERE c.method = meth AND c.test;
    IF meth <> 'none' AND NOT attack THEN
      CONTINUE;
    END IF;
    -- the attack (Algorithm 3): clean the adversary's training data, refit
    PERFORM ns_clean_rows(meth, eps, m.ad, m.ac, false);
    SELECT jl_linear_fit(c.xc, ns_pick(y, m.confidential)),
           jl_linear_fit_intercept(c.xc, ns_pick(y, m.confidential))
      INTO ac2, bc2
      FROM ns_clean c JOIN ns_row USING (id, y) WHERE c.method = meth AND NOT c.test;
    INSERT INTO ns_out
    SELECT r, ndes, ncon, eps, meth, 'attack', c.id,
           NULL,
           ns_sq(jl_linear_predict(c.xc, ac2, bc2), jl_linear_predict(x, m.ac, m.bc)),
           ns_sq(jl_linear_predict(m.xmean, m.ac), jl_linear_predict(x, m.ac)),
           ns_sq(jl_linear_predict(c.xc, ac2, bc2), ns_pick(y, m.confidential)),
           ns_sq(jl_linear_predict(m.xmean, m.ac, m.bc), ns_pick(y, m.confidential))
    FROM ns_clean c JOIN ns_row USING (id, y) WHERE c.method = meth AND c.test;
    -- a nonlinear adversary: the mean confidential labels of the knn
    -- nearest cleaned training vectors
    IF knn > 0 THEN
      INSERT INTO ns_out
      SELECT r, ndes, ncon, eps, meth, 'knn', t.id, NULL,
             ns_sq(p.yhat, jl_linear_predict(x, m.ac, m.bc)),
             ns_sq(jl_linear_predict(m.xmean, m.ac), jl_linear_predict(x, m.ac)),
             ns_sq(p.yhat, ns_pick(y, m.confidential)),
             ns_sq(jl_linear_predict(m.xmean, m.ac, m.bc), ns_pick(y, m.confidential))
      FROM ns_clean t JOIN ns_row USING (id, y)
      CROSS JOIN LATERAL (
        SELECT array_agg(v ORDER BY j) AS yhat FROM (
          SELECT j, avg(v) AS v FROM (
            SELECT ns_pick(n.y, m.confidential) AS yc
            FROM ns_clean n
            WHERE n.method = meth AND NOT n.test
            ORDER BY jl_recover_dist(n.xc, t.xc, 0) LIMIT knn) nn,
            unnest(nn.yc) WITH ORDINALITY u(v, j) GROUP BY j) s) p
      WHERE t.method = meth AND t.test;
    END IF;
  END LOOP;
END $$;

-- the Laplace baseline: x + Laplace(0, b) per feature, b such that
-- E e_utility = 2 b^2 ||A_d||_F^2 = target (seeded random(); a baseline,
-- not a release)
CREATE FUNCTION ns_laplace(r int, ndes int, ncon int, target float8) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  m record;
  fro2 float8;
  b float8;
BEGIN
  SELECT * INTO m FROM ns_model WHERE run = r AND nd = ndes AND nc = ncon;
  SELECT sum(v * v) INTO fro2 FROM unnest(m.ad) v;
  b := sqrt(target / (2 * fro2));
  INSERT INTO ns_out
  SELECT r, ndes, ncon, target, 'laplace', 'linear', id,
         ns_sq(jl_linear_predict(xn, m.ad), jl_linear_predict(x, m.ad)),
         ns_sq(jl_linear_predict(xn, m.ac), jl_linear_predict(x, m.ac)),
         ns_sq(jl_linear_predict(m.xmean, m.ac), jl_linear_predict(x, m.ac)),
         ns_sq(jl_linear_predict(xn, m.ac, m.bc), ns_pick(y, m.confidential)),
         ns_sq(jl_linear_predict(m.xmean, m.ac, m.bc), ns_pick(y, m.confidential))
  FROM (SELECT id, x, y,
               (SELECT array_agg(v + CASE WHEN random() < 0.5 THEN b ELSE -b END * ln(1 - random()) ORDER BY o)
                FROM unnest(x) WITH ORDINALITY u(v, o) WHERE id IS NOT NULL) AS xn
        FROM ns_row JOIN ns_split USING (id) WHERE test) t;
END $$;

-- the experiment: runs random 90/10 splits; per run and configuration
-- (N_d, N_c) the labels are drawn at random (the paper: one desired, half,
-- one confidential), both models fitted on the training 90%
CREATE FUNCTION ns_experiment(runs int, eps float8, sweep float8[], sweep_runs int,
                              knn int, knn_runs int, laplace float8[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  r int;
  cfg int[];
  perm int[];
  e float8;
  n int;
  xm float8[];
  methods text[] := '{knapsack,waterfill,confidential}';
BEGIN
  SELECT count(*) INTO n FROM ns_row;
  FOR r IN 1..runs LOOP
    PERFORM setseed(r / 1000.0);
    TRUNCATE ns_split;
    INSERT INTO ns_split
    SELECT id, row_number() OVER (ORDER BY random()) <= round(0.1 * n) FROM ns_row;
    SELECT array_agg(v ORDER BY j) INTO xm FROM (
      SELECT j, avg(v) AS v FROM ns_row JOIN ns_split USING (id), unnest(x) WITH ORDINALITY u(v, j)
      WHERE NOT test GROUP BY j) s;
    FOREACH cfg SLICE 1 IN ARRAY '{{1,5},{3,3},{5,1}}'::int[] LOOP
      SELECT array_agg(l ORDER BY random()) INTO perm FROM generate_series(1, 6) l;
      INSERT INTO ns_model
      SELECT r, cfg[1], cfg[2], perm[1:cfg[1]], perm[cfg[1] + 1:6],
             jl_linear_fit(x, ns_pick(y, perm[1:cfg[1]])),
             jl_linear_fit(x, ns_pick(y, perm[cfg[1] + 1:6])),
             jl_linear_fit_intercept(x, ns_pick(y, perm[1:cfg[1]])),
             jl_linear_fit_intercept(x, ns_pick(y, perm[cfg[1] + 1:6])),
             xm
      FROM ns_row JOIN ns_split USING (id) WHERE NOT test;
      PERFORM ns_cell(r, cfg[1], cfg[2], eps, methods || '{none}'::text[],
                      CASE WHEN r <= knn_runs THEN knn ELSE 0 END, true);
      IF r = 1 THEN
        -- x and x~ of the first run, for the expected privacy of Theorem 2
        INSERT INTO ns_alpha
        SELECT r, cfg[1], cfg[2], c.method, c.id, x, c.xc
        FROM ns_clean c JOIN ns_row USING (id) WHERE c.test AND c.method IN ('knapsack', 'waterfill');
      END IF;
      IF r <= sweep_runs THEN
        FOREACH e IN ARRAY sweep LOOP
          PERFORM ns_cell(r, cfg[1], cfg[2], e, methods, 0, true);
        END LOOP;
      END IF;
      IF cfg = '{1,5}' THEN
        FOREACH e IN ARRAY laplace LOOP
          PERFORM ns_laplace(r, cfg[1], cfg[2], e);
          -- Algorithm 1 at the same targets (Figure 7)
          IF e <> eps AND NOT (r <= sweep_runs AND e = ANY (sweep)) THEN
            PERFORM ns_cell(r, cfg[1], cfg[2], e, '{knapsack}', 0, true);
          END IF;
        END LOOP;
      END IF;
    END LOOP;
  END LOOP;
END $$;
