-- jl_advise: which release to use, no projection or a projection kind at its
-- best k, ranked by the predicted error, under a key pinned to fixed bytes.
SELECT jl_key_import('advise', '\x5f5e5d5c5b5a595857565554535251504f4e4d4c4b4a49484746454443424140');

-- the figures, rounded to 4 significant digits
CREATE FUNCTION advise_sig(x float8) RETURNS numeric LANGUAGE sql IMMUTABLE AS
  $$ SELECT CASE WHEN x IS NULL OR x = 0 THEN x::numeric
                 ELSE round(x::numeric, 3 - floor(log(abs(x)))::int) END $$;

-- small d, epsilon 4, Laplace noise (attribute neighbours, bound 1): the raw
-- noise has the smallest error, and the note says what d a projection needs
SELECT rank, kind, k, noise, calibration, advise_sig(noise_variance) AS s2,
       advise_sig(predicted_error) AS stddev, advise_sig(relative_error) AS relative, refused, note
  FROM jl_advise(13, 4.0, 1.3, key => 'advise');
-- its note says that no option serves the goal here (the stddev 2.04 of
-- the recovered squared distance is not below 1.3) and the epsilon at which
-- the best would: checked with jl_advise itself just below and at it
SELECT substring(note from 'at epsilon ([0-9.]+) it would be')::float8 AS eps_needed
  FROM jl_advise(13, 4.0, 1.3, key => 'advise') WHERE rank = 1 \gset
SELECT (SELECT predicted_error >= 1.3 FROM jl_advise(13, :eps_needed / 1.02, 1.3, key => 'advise') WHERE rank = 1) AS below_not_useful,
       (SELECT predicted_error < 1.3 FROM jl_advise(13, :eps_needed * 1.001, 1.3, key => 'advise') WHERE rank = 1) AS at_useful,
       (SELECT note NOT LIKE 'not useful%' FROM jl_advise(13, :eps_needed * 1.001, 1.3, key => 'advise') WHERE rank = 1) AS note_says_useful;

-- large d with Gaussian noise (delta 1e-6) as well: a projection wins, and
-- every option's noise is calibrated to the realized P of its k
SELECT rank, kind, k, noise, calibration, delta, advise_sig(noise_variance) AS s2,
       advise_sig(predicted_error) AS stddev, advise_sig(relative_error) AS relative, refused, note
  FROM jl_advise(2000, 1.0, 200, delta => 1e-6, key => 'advise');

-- the noise variances are those of jl_release_info for the same options and k
SELECT a.kind, a.noise, a.noise_variance = (i->>'noise_variance')::float8 AS as_release_info
  FROM jl_advise(2000, 1.0, 200, delta => 1e-6, key => 'advise') a,
       jl_release_info(2000, 1.0, 1, 'attribute',
                       jl_sketch(k => a.k, kind => a.kind::jl_kind, noise => a.noise::jl_noise,
                                 delta => CASE WHEN a.noise = 'gaussian' THEN 1e-6 END), key => 'advise') i
 WHERE a.kind <> 'identity' ORDER BY a.rank;

-- a range of distances: ranked by the worst ratio to the best option at each
SELECT rank, kind, k, noise, advise_sig(predicted_error) AS stddev_lo,
       advise_sig(predicted_error_hi) AS stddev_hi, advise_sig(relative_error) AS worst_ratio, note
  FROM jl_advise(30, 1.0, 0.3, 30, noise => 'laplace', key => 'advise');

-- clustering: two clusters whose centres are dist2 apart, each attribute
-- with variance cluster_var around its centre, centres found by k-means in n rows;
-- with n and delta the k-means mechanism is ranked too (the clusters
-- released, not the rows).  Its prediction checked independently (scipy):
-- with its noise variance 5746.6097 (sd 75.8064 of a sum's coordinate; the
-- continuous calibration's 75.577 for mu = 0.23669 over sqrt(5) iterations
-- and a sensitivity 8, the box's diagonal), a count's sd 75.8064 / 4, 500
-- rows a centroid: tau2 = (75.8064^2 + 16/64 (75.8064/4)^2) / 500^2, and
-- Phi(-6.4 / sqrt(4 6.4 (0.01 + tau2) + 4 64 tau2^2 + 8 64 0.01 tau2)) =
-- 6.5066e-10
SELECT rank, kind, k, noise, advise_sig(predicted_error) AS misclassified,
       advise_sig(relative_error) AS relative, note
  FROM jl_advise(64, 1.0, 6.4, delta => 1e-6, goal => 'clustering', cluster_var => 0.01, n => 1000,
                 key => 'advise');

-- the k-means mechanism's rank as n shrinks (its centroids average fewer
-- rows) and under row neighbours (rows bound = 2 apart: within Jung's
-- radius 2 sqrt(64 / 130) of a centre); checked as above from its noise
-- variance: n = 20, attribute: tau2 = (5746.6097 + 5746.6097 / 64) / 10^2,
-- misclassification 0.49727, so the per-row releases win (0.3701); rows,
-- n = 1000: s2 442.5137, lambda 0.70165 (R / 2 on the grid), tau2 =
-- (442.5137 + R^2 / 64 442.5137 / 0.70165^2) / 500^2: 1.8865e-30 (the
-- per-row releases' best 0.4987)
SELECT nb, n, rank, advise_sig(noise_variance) AS s2, advise_sig(predicted_error) AS misclassified,
       (SELECT advise_sig(min(predicted_error)) FROM jl_advise(64, 1.0, 6.4, neighbor => nb::jl_neighbor, bound => bd, delta => 1e-6,
                                                   goal => 'clustering', cluster_var => 0.01, n => n, key => 'advise') o
         WHERE o.kind <> 'kmeans mechanism') AS best_per_row
  FROM (VALUES ('attribute', 1.0, 20), ('attribute', 1.0, 1000), ('row', 2.0, 1000)) v(nb, bd, n),
       jl_advise(64, 1.0, 6.4, neighbor => nb::jl_neighbor, bound => bd, delta => 1e-6, goal => 'clustering',
                 cluster_var => 0.01, n => n, key => 'advise') a
 WHERE a.kind = 'kmeans mechanism' ORDER BY nb, n;

-- row neighbours: the row statistics of P (no projection: L1 sqrt(d))
SELECT rank, kind, k, noise, advise_sig(noise_variance) AS s2, advise_sig(relative_error) AS relative
  FROM jl_advise(20, 2.0, 2, neighbor => 'row', key => 'advise');

-- options whose calibration refuses are shown as refused and never ranked
SELECT rank, kind, k, noise, noise_variance, predicted_error, refused, note
  FROM jl_advise(4, 1e-300, 1, key => 'advise');

-- jl_suggest_k_info says whether its pick beats no projection
SELECT i->>'k' AS k, advise_sig((i->>'stddev')::float8) AS stddev,
       advise_sig((i->>'identity_stddev')::float8) AS identity_stddev, i->>'projection_pays' AS projection_pays,
       (i->>'identity_noise_variance')::float8 =
         (SELECT noise_variance FROM jl_advise(13, 4.0, 1.3, key => 'advise') WHERE kind = 'identity') AS as_advise
  FROM jl_suggest_k_info(13, 100, 4.0, 1.3, kind => 'rademacher', key => 'advise') i;
SELECT i->>'k' AS k, advise_sig((i->>'stddev')::float8) AS stddev,
       advise_sig((i->>'identity_stddev')::float8) AS identity_stddev, i->>'projection_pays' AS projection_pays
  FROM jl_suggest_k_info(2000, 100, 1.0, 200, kind => 'rademacher', key => 'advise') i;
-- Kenthapadi's Lemma 2 refuses k = d here: no identity figures
SELECT i->>'identity_stddev' AS identity_stddev, i->>'projection_pays' AS projection_pays
  FROM jl_suggest_k_info(20, 100, 1.0, 2, noise => 'gaussian', delta => 1e-5, calibration => 'paper', key => 'advise') i;

-- errors
SELECT error($$SELECT * FROM jl_advise(0, 1, 1, key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(NULL, 1, 1, key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 0, 1, key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 'NaN', 1, key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 0, key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 2, 1, key => 'advise')$$);
-- an option word that is no value of its enum (22P02), among them 0.4's
-- neighbour 'element' and a kind with a density
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, neighbor => 'column', key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, neighbor => 'element', key => 'advise')$$);
SELECT error($$SELECT jl_suggest_k(20, 100, 1.0, 2, kind => 'sparse(0.01)', key => 'advise')$$);
SELECT error($$SELECT jl_suggest_k(20, 100, 1.0, 2, calibration => 'tight', key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, bound => 0, key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, noise => 'gaussian', key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, noise => 'cauchy', key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, delta => 1.5, key => 'advise')$$);
-- goal neighbors: the probability that a non-neighbour at dist2_hi is
-- ranked before a neighbour at dist2, Phi(-(hi - lo) / sqrt(v(lo) + v(hi)))
-- with v the variance of a recovered squared distance.  Without a
-- projection (k = d) both goals use one noise variance, so z follows from
-- goal distance's errors at lo and hi: z = 12 / sqrt(sd(4)^2 + sd(16)^2)
-- = 1.1533, and Phi(-1.1533) = 0.12439 (0.5 erfc(z / sqrt 2), computed
-- outside PostgreSQL when this was recorded) is the misordering shown
SELECT n.kind, n.k, n.noise_variance = d.noise_variance AS same_noise,
       n.predicted_error_hi IS NULL AS one_error,
       round(n.predicted_error::numeric, 4) AS misordering,
       round(((16 - 4) / sqrt(d.predicted_error ^ 2 + d.predicted_error_hi ^ 2))::numeric, 4) AS z_from_distance_errors
  FROM jl_advise(4, 2, 4, 16, goal => 'neighbors', key => 'advise') n,
       jl_advise(4, 2, 4, 16, key => 'advise') d
 WHERE n.kind = 'identity' AND d.kind = 'identity' AND n.noise = d.noise;
SELECT rank, kind, predicted_error < 0.25 AS useful, note IS NOT NULL AS noted
  FROM jl_advise(4, 0.2, 4, 16, goal => 'neighbors', key => 'advise') WHERE rank = 1;
SELECT substring(note from '^[^;]*; at epsilon [0-9.]+ it would be') AS says
  FROM jl_advise(4, 0.2, 4, 16, goal => 'neighbors', key => 'advise') WHERE rank = 1;
-- at an epsilon so large that the noise underflows, no NaN: the best
-- option's error is 0 and its ratio to itself 1 (found by a review: NaN)
SELECT count(*) FILTER (WHERE relative_error = 'NaN' OR predicted_error = 'NaN' OR note LIKE '%NaN%') AS nans,
       bool_and(relative_error = 1) FILTER (WHERE rank = 1) AS best_is_1
  FROM jl_advise(10, 1e300, 1.0, 4.0, goal => 'neighbors', key => 'advise');
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, goal => 'neighbors', key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 2, 1, goal => 'neighbors', key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, 2, goal => 'neighbors', cluster_var => 1, key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, goal => 'search', key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, goal => 'clustering', key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, goal => 'clustering', cluster_var => -1, key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, goal => 'clustering', cluster_var => 0, n => 1, key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, cluster_var => 0.1, key => 'advise')$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, key => NULL)$$);
SELECT error($$SELECT * FROM jl_advise(4, 1, 1, key => 'no such key')$$);

-- it uses the key: not executable by PUBLIC; parallel safe (no query run)
SELECT p.proacl IS NOT NULL AS acl_set,
       NOT EXISTS (SELECT FROM aclexplode(p.proacl) a WHERE a.grantee = 0) AS public_cannot_execute
  FROM pg_proc p WHERE p.proname = 'jl_advise';
SELECT proparallel, provolatile, proisstrict FROM pg_proc WHERE proname = 'jl_advise';
BEGIN;
SET LOCAL force_parallel_mode = on;
SELECT count(*) AS rows_in_parallel_mode FROM jl_advise(13, 4.0, 1.3, key => 'advise');
ROLLBACK;

SELECT jl_key_drop('advise');
DROP FUNCTION advise_sig(float8);
