-- Differentially private k-means over a protected table (jl_kmeans_mechanism
-- through jl_release).  The centroids are random (the noise); what is
-- deterministic is checked here: the calibration's figures, the charge and
-- its profile, the table's shape, the bounds every centroid keeps, the sizes
-- against the noise they carry, the refusals (before anything is charged),
-- and that no other reader takes the table.  The accuracy of the centroids
-- is a statistical property, measured in test/unit/test_dp_kmeans.c.
-- Expected values checked independently (scipy, from the recorded mu and the
-- closed form delta_mu(e) = Phi(-e/mu + mu/2) - e^e Phi(-e/mu - mu/2)):
-- mu 0.4482927 holds at (2, 1e-6) (delta_mu(2) + 1e-6/1024 = 9.9886e-7),
-- its epsilon at 1e-6 (1 - 1/1024) is 1.999889; at the cap's delta 1e-5
-- (less 1e-6/1024) 1.76479; with the second release's mu 0.3138536 (2
-- iterations), the shifts composed (hypot) at 1e-5 - 1.01e-4/1024: 2.20617.  The noise: the
-- continuous sigma for one step, the sensitivity 2 (the declared diameter:
-- sqrt(1 + 1 + 2)) over mu / sqrt(5), is 9.9759; sampled 10.0132 (the
-- grid's rounding allowance), so rho = 5 Dg^2 / (2 s^2) about 0.09974
-- (recorded 0.09979 with the allowance).
SET client_min_messages = warning;
CREATE FUNCTION km_error(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE VIEW km_charges AS SELECT count(*) AS n FROM jl_ledger WHERE event = 'charge' AND dataset LIKE 'public.km\_%';

-- 4,000 customers in four segments of (age, spend), and a category
CREATE TABLE km_customers (id int PRIMARY KEY, age float8, spend float8, region text);
INSERT INTO km_customers
  SELECT i, CASE WHEN i % 4 < 2 THEN 25 ELSE 65 END + (i % 7) - 3,
         CASE WHEN i % 2 = 0 THEN 200 ELSE 800 END + 10 * (i % 5),
         (ARRAY['north', 'south'])[1 + i % 2]
    FROM generate_series(1, 4000) i;
SELECT dataset, d FROM jl_protect('km_customers', 'id',
  ARRAY[jl_numeric('age', 18, 95), jl_numeric('spend', 0, 1000), jl_category('region', ARRAY['north', 'south'])],
  epsilon_cap => 10, delta_cap => 1e-5);

-- refused before anything is charged
SELECT km_error($$SELECT jl_kmeans_mechanism(k => 0, delta => 1e-6)$$) AS k_zero;
SELECT km_error($$SELECT jl_kmeans_mechanism(k => 1001, delta => 1e-6)$$) AS k_too_many;
SELECT km_error($$SELECT jl_kmeans_mechanism(k => 4, delta => NULL)$$) AS no_delta;
SELECT km_error($$SELECT jl_kmeans_mechanism(k => 4, delta => 0)$$) AS delta_zero;
SELECT km_error($$SELECT jl_kmeans_mechanism(k => 4, delta => 1e-6, iterations => 0)$$) AS no_iterations;
SELECT km_error($$SELECT jl_kmeans_mechanism(k => 4, delta => 1e-6, iterations => 51)$$) AS iterations_too_many;
CREATE TABLE km_tiny (id int PRIMARY KEY, age float8);
INSERT INTO km_tiny VALUES (1, 30), (2, 40), (3, 50);
SELECT d FROM jl_protect('km_tiny', 'id', ARRAY[jl_numeric('age', 18, 95)], epsilon_cap => 5, delta_cap => 1e-5);
SELECT km_error($$SELECT jl_release('km_tiny', 'km_t', 1, jl_kmeans_mechanism(k => 4, delta => 1e-6))$$) AS k_above_n;
SELECT km_error($$SELECT jl_release('km_customers', 'km_c', 'NaN', jl_kmeans_mechanism(k => 4, delta => 1e-6))$$) AS epsilon_nan;
SELECT km_error($$SELECT jl_release('km_customers', 'km_c', 50, jl_kmeans_mechanism(k => 4, delta => 1e-6))$$) AS past_epsilon_cap;
-- a hand-written composite with a field of another mechanism
SELECT km_error($$SELECT jldp_internal.jl_mechanism_checked(ROW('kmeans', 4, 'rademacher', NULL, 1e-6, NULL, 5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism)$$) AS forged_kind;
SELECT n AS charges_after_refusals FROM km_charges;

-- the release: one call
SELECT released, epsilon_charged, delta_charged, round(noise_variance::numeric, 6) AS noise_variance, guarantee
  FROM jl_release('km_customers', 'km_c', 2, jl_kmeans_mechanism(k => 4, delta => 1e-6, iterations => 5));
SELECT n AS charges FROM km_charges;
-- its charge: zCDP with the dominating shift of its iterations
SELECT event, epsilon, delta, profile, round(rho::numeric, 7) AS rho, round(mu::numeric, 7) AS mu,
       round(epsilon_composed::numeric, 4) AS epsilon_composed, composed_by
  FROM jl_ledger WHERE dataset = 'public.km_customers' ORDER BY id;
-- the table: k clusters, each centroid in the attributes' units within their
-- bounds (region as the share of each value), the encoded centroid of d = 4
SELECT count(*) AS clusters, bool_and(cardinality(centroid) = 4 AND cardinality(encoded) = 4) AS widths,
       bool_and(centroid[1] BETWEEN 18 AND 95 AND centroid[2] BETWEEN 0 AND 1000
                AND centroid[3] BETWEEN 0 AND 1 AND centroid[4] BETWEEN 0 AND 1) AS within_bounds,
       bool_and(abs(centroid[1] - (18 + encoded[1] * 77)) < 1e-9 AND abs(centroid[2] - encoded[2] * 1000) < 1e-9) AS decoded
  FROM km_c;
-- the sizes add up to n within ten noise sds of their sum (sqrt(k) count sds)
SELECT abs(sum(size) - 4000) < 10 * sqrt(4) * (r.info->>'count_sd')::float8 AS sizes_sum_to_n
  FROM km_c, jl_releases r WHERE r.target = 'km_c'::regclass GROUP BY r.info;
-- the registry's record
SELECT d, k, projection, neighbor, calibration, epsilon, delta, round(bound::numeric, 6) AS bound,
       info->>'mechanism' AS mechanism, info->>'iterations' AS iterations, info->>'n' AS n,
       info->>'centre' AS centre, round((info->>'mu')::numeric, 7) AS mu,
       round((info->>'epsilon_effective')::numeric, 6) AS epsilon_effective
  FROM jl_releases WHERE target = 'km_c'::regclass;
-- a second release whose own delta (1e-4) is past the cap's (1e-5): its
-- noise's dominating shift composes with the first at the cap's delta; its
-- iterations left out, Su et al.'s rule gives 2 (epsilon 1 over
-- sqrt(500 4^3 / 4000^2 (4 + cbrt(4 4 0.225^2))^3) = 2.04)
SELECT released FROM jl_release('km_customers', 'km_d', 1, jl_kmeans_mechanism(k => 4, delta => 1e-4));
SELECT event, epsilon, delta, profile, round(mu::numeric, 7) AS mu,
       round(epsilon_composed::numeric, 4) AS epsilon_composed, composed_by
  FROM jl_ledger WHERE dataset = 'public.km_customers' ORDER BY id;
-- it is not a table of sketches
SELECT km_error($$SELECT jl_recover_dist(ARRAY[1, 2]::float8[], ARRAY[1, 3]::float8[], 'km_c')$$) AS not_sketches;
-- the name is taken now: refused before a second charge
SELECT km_error($$SELECT jl_release('km_customers', 'km_c', 1, jl_kmeans_mechanism(k => 4, delta => 1e-6))$$) AS target_exists;
SELECT n AS charges FROM km_charges;

-- a row clip smaller than half the box's diagonal: the centre is the origin
CREATE TABLE km_clipped (id int PRIMARY KEY, a float8, b float8);
INSERT INTO km_clipped SELECT i, i % 10, (i * 7) % 10 FROM generate_series(1, 500) i;
SELECT d FROM jl_protect('km_clipped', 'id', ARRAY[jl_numeric('a', 0, 10, 4), jl_numeric('b', 0, 10, 4)],
                         row_clip => 1, epsilon_cap => 5, delta_cap => 1e-5);
SELECT released IS NOT NULL AS released FROM jl_release('km_clipped', 'km_cl', 1, jl_kmeans_mechanism(k => 2, delta => 1e-6, iterations => 3));
SELECT info->>'centre' AS centre, round((info->>'radius')::numeric, 6) AS radius, round(bound::numeric, 6) AS bound
  FROM jl_releases WHERE target = 'km_cl'::regclass;

-- long format and edges are not released as clusters
CREATE TABLE km_long (u int, attr int, val float8, PRIMARY KEY (u, attr));
INSERT INTO km_long SELECT i, 1 + i % 3, i FROM generate_series(1, 30) i;
SELECT d FROM jl_protect('km_long', 'u', ARRAY[jl_long('attr', 'val', 3, 0, 30)], epsilon_cap => 5, delta_cap => 1e-5);
SELECT km_error($$SELECT jl_release('km_long', 'km_l', 1, jl_kmeans_mechanism(k => 2, delta => 1e-6))$$) AS long_format;
SELECT n AS charges FROM km_charges;

DROP TABLE km_c, km_d, km_cl;
DROP VIEW km_charges;
DROP FUNCTION km_error(text);
