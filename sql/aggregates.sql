-- Aggregates over long-format (row, attr, value) data, under the pinned key
-- from keys.sql: jl_project_agg (noise-free) and the unbudgeted
-- jl_private_release_agg(attr, value, d, epsilon, bound, neighbor, mechanism,
-- key), which releases what jl_private_release releases for the dense vector
-- with x[attr] = value and the same options (epsilon, bound, neighbor, and
-- the jl_sketch mechanism's kind, k, noise, delta and calibration).  It
-- charges nothing and records nothing: the ledger and the registry are read
-- here first and again at the end.
CREATE TEMP TABLE agg_books_before AS
  SELECT (SELECT count(*) FROM jl_ledger) AS ledger_entries,
         (SELECT max(id) FROM jl_ledger) AS last_entry,
         (SELECT count(*) FROM jl_releases) AS releases,
         (SELECT sum(epsilon_spent) FROM jl_budgets) AS epsilon_spent,
         (SELECT sum(delta_spent) FROM jl_budgets) AS delta_spent;
-- noisy results are compared with noise-free ones within tol: with Laplace
-- noise of scale b (jl_release_info's 'scale') a coordinate's noise exceeds
-- 40 b with probability exp(-40) = 4.2e-18 (Gaussian: 10 sigma, 1.5e-23);
-- the rounding to the grid adds at most half a step (the grid is below
-- b / 1000 in every release here)
-- an error with its detail, which names the parameter that differs
CREATE FUNCTION pg_temp.agg_error_detail(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  detail text;
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || SQLERRM || ' / ' || detail;
END $$;
CREATE FUNCTION pg_temp.agg_within(z float8[], y float8[], tol float8) RETURNS boolean
LANGUAGE sql IMMUTABLE
RETURN array_length(z, 1) = array_length(y, 1)
   AND (SELECT bool_and(abs(a - b) <= tol) FROM unnest(z, y) u(a, b));


CREATE TEMP TABLE agg_dense AS
  SELECT r AS row_id,
         ARRAY(SELECT ((r * 37 + i * 11) % 23 - 11) / 4.0 FROM generate_series(1, 30) i)::float8[] AS x
  FROM generate_series(1, 50) r;
-- long format, zeros left out, in an order that is not the attribute order
CREATE TEMP TABLE agg_facts AS
  SELECT row_id, i::int AS attr, v AS val
  FROM agg_dense, unnest(x) WITH ORDINALITY u(v, i)
  WHERE v <> 0
  ORDER BY row_id, (i * 7) % 31;

-- attr i uses row i - 1 of P: the aggregate equals jl_project of the dense
-- vector, up to the floating-point summation order
SELECT count(*) AS groups,
       bool_and(ok) AS equal_to_dense
FROM (SELECT (SELECT bool_and(abs(a - b) <= 1e-13 * (1 + abs(b)))
              FROM unnest(s.y, jl_project(d.x, jl_sketch(k => 8), 'pinned')) u(a, b)) AS ok
      FROM agg_dense d
      JOIN (SELECT row_id, jl_project_agg(attr, val, jl_sketch(k => 8), 'pinned') AS y
            FROM agg_facts GROUP BY row_id) s USING (row_id)) t;
-- the values of release.sql's x P (Gaussian P) for {0.5,-2,3.25}
SELECT round(v::numeric, 12) AS xp
  FROM unnest((SELECT jl_project_agg(i::int, e, jl_sketch(k => 4, kind => 'gaussian'), 'pinned')
               FROM unnest('{0.5,-2,3.25}'::float8[]) WITH ORDINALITY u(e, i))) v;
-- a sparse vector: only its nonzero attributes, in any order
SELECT (SELECT array_agg(round(v::numeric, 12)) FROM unnest(jl_project_agg(a, v, jl_sketch(k => 4), 'pinned')) v)
     = (SELECT array_agg(round(v::numeric, 12)) FROM unnest(jl_project('{0,0,0,0,0,0,1.5,0,0,-2}', jl_sketch(k => 4), 'pinned')) v)
       AS sparse_equals_dense
  FROM (VALUES (10, -2.0::float8), (7, 1.5)) t(a, v);
-- attribute indices far beyond any dense P: rows generated on demand
SELECT (SELECT array_agg(round(v::numeric, 12)) FROM unnest(jl_project_agg(a, v, jl_sketch(k => 4), 'pinned')) v)
     = (SELECT array_agg(round(v::numeric, 12)) FROM unnest(jl_project(x, jl_sketch(k => 4), 'pinned')) v)
       AS large_index_equals_dense
  FROM (VALUES (1, 2.0::float8), (299999, -1.5), (600000, 0.25)) t(a, v),
       (SELECT array_agg(CASE i WHEN 1 THEN 2.0 WHEN 299999 THEN -1.5 WHEN 600000 THEN 0.25 ELSE 0 END
                         ORDER BY i)::float8[] AS x
        FROM generate_series(1, 600000) i) dense
  GROUP BY x;
SELECT array_length(jl_project_agg(2147483647, 1.0, jl_sketch(k => 4), 'pinned'), 1) AS largest_attr;

-- duplicate (row, attr) pairs are summed
SELECT (SELECT jl_project_agg(a, v, jl_sketch(k => 4), 'pinned') FROM (VALUES (3, 1.0::float8), (5, 2.0), (3, 2.0)) t(a, v))
     = (SELECT jl_project_agg(a, v, jl_sketch(k => 4), 'pinned') FROM (VALUES (3, 3.0::float8), (5, 2.0)) t(a, v))
       AS duplicates_summed;
-- NULL values are skipped (a NULL attr then does not matter either)
SELECT (SELECT jl_project_agg(a, v, jl_sketch(k => 4), 'pinned') FROM (VALUES (3, 1.0::float8), (5, NULL), (NULL, NULL)) t(a, v))
     = (SELECT jl_project_agg(a, v, jl_sketch(k => 4), 'pinned') FROM (VALUES (3, 1.0::float8)) t(a, v))
       AS nulls_skipped;
-- a group whose values are all NULL is the zero vector; no rows at all: NULL
SELECT jl_project_agg(a, v, jl_sketch(k => 2), 'pinned') AS all_null FROM (VALUES (3, NULL::float8)) t(a, v);
SELECT jl_project_agg(a, v, jl_sketch(k => 2), 'pinned') IS NULL AS no_rows FROM (VALUES (3, 1.0::float8)) t(a, v) WHERE false;

-- The release aggregate is jl_private_release of the dense vector.  With
-- kind 'identity' (k = d, no projection) at epsilon 10000 each coordinate
-- is x_i plus Laplace noise of scale 1.0e-4 (jl_release_info(30, 10000, 1,
-- 'attribute', jl_sketch(kind => 'identity'))): agg_dense's values are
-- multiples of 0.25, so rounding to 0.25 gives x back unless a noise exceeds
-- 0.125 = 1250 scales
-- (probability exp(-1250)); the zeros are the attributes left out of
-- agg_facts.  jl_private_release of the dense vector, rounded alike, is x too.
SELECT count(*) AS groups,
       bool_and(r.z_rounded = x) AS identity_release_is_x,
       bool_and((SELECT array_agg(round(v * 4) / 4 ORDER BY i)
                 FROM unnest(jl_private_release(x, 10000, 1, 'attribute', jl_sketch(k => 30, kind => 'identity'), key => 'pinned'))
                      WITH ORDINALITY u(v, i)) = x) AS dense_release_is_x
  FROM (SELECT row_id, jl_private_release_agg(attr, val, 30, 10000, 1.0, 'attribute', jl_sketch(kind => 'identity'), 'pinned') AS z
        FROM agg_facts GROUP BY row_id) s
  JOIN agg_dense d USING (row_id),
  LATERAL (SELECT array_agg(round(v * 4) / 4 ORDER BY i) AS z_rounded FROM unnest(s.z) WITH ORDINALITY u(v, i)) r;
-- projected kinds and row neighbours at epsilon 10000: within 40 scales
-- (10 sigmas) of jl_project of the dense vector with the same kind, and
-- within twice that of jl_private_release of the dense vector with the
-- same options ('sparse' is density 1/sqrt(d), from d, in both)
SELECT c.what, count(*) AS groups,
       bool_and(pg_temp.agg_within(s.z, jl_project(d.x, jl_sketch(k => 8, kind => c.kind), 'pinned'), c.tol)) AS near_projection,
       bool_and(pg_temp.agg_within(s.z, jl_private_release(d.x, 10000, c.bound, c.neighbor,
                                                       jl_sketch(k => 8, kind => c.kind, noise => c.noise, delta => c.delta),
                                                       'pinned'),
                                   2 * c.tol)) AS near_dense_release
  FROM (SELECT 'rademacher, attribute' AS what, row_id,
               jl_private_release_agg(attr, val, 30, 10000, 1.0, 'attribute', jl_sketch(k => 8), 'pinned') AS z
          FROM agg_facts GROUP BY row_id
        UNION ALL
        SELECT 'sparse, row', row_id,
               jl_private_release_agg(attr, val, 30, 10000, 2.0, 'row', jl_sketch(k => 8, kind => 'sparse'), 'pinned')
          FROM agg_facts GROUP BY row_id
        UNION ALL
        SELECT 'gaussian kind and noise, attribute', row_id,
               jl_private_release_agg(attr, val, 30, 10000, 1.0, 'attribute',
                                      jl_sketch(k => 8, kind => 'gaussian', noise => 'gaussian', delta => 1e-5), 'pinned')
          FROM agg_facts GROUP BY row_id) s
  JOIN (VALUES ('rademacher, attribute', 'rademacher'::jl_kind, 'attribute'::jl_neighbor, 1.0, NULL::float8, 'laplace'::jl_noise,
                40 * (jl_release_info(30, 10000, 1.0, 'attribute', jl_sketch(k => 8), key => 'pinned')->>'scale')::float8),
               ('sparse, row', 'sparse', 'row', 2.0, NULL, 'laplace',
                40 * (jl_release_info(30, 10000, 2.0, 'row', jl_sketch(k => 8, kind => 'sparse'), key => 'pinned')->>'scale')::float8),
               ('gaussian kind and noise, attribute', 'gaussian', 'attribute', 1.0, 1e-5, 'gaussian',
                10 * (jl_release_info(30, 10000, 1.0, 'attribute', jl_sketch(k => 8, kind => 'gaussian', noise => 'gaussian', delta => 1e-5), key => 'pinned')->>'sigma')::float8))
       c(what, kind, neighbor, bound, delta, noise, tol) USING (what)
  JOIN agg_dense d USING (row_id)
  GROUP BY c.what ORDER BY c.what;
-- the noise is the dense release's: over 2,000 groups of 30 attributes,
-- k = 8 (16,000 coordinates), the mean squared difference from the
-- noise-free jl_project_agg, divided by jl_release_info's noise_variance
-- for the same options, lies within 1 +- 0.12.  Its standard deviation is
-- sqrt((kurtosis - 1) / 16000): 0.018 for Laplace noise (kurtosis 6), 6.8 of
-- them in 0.12; 0.011 for Gaussian noise, 10.7 of them (the single-big-jump
-- tail of a sum of squared Laplace draws, 16000 exp(-sqrt(0.24 * 16000)),
-- is 2e-23; the normal tail beyond 6.8 sd is 1e-11).  Simulated (numpy,
-- 20,000 runs of 16,000 draws): sd 0.0177 (Laplace) and 0.0112 (Gaussian).  Negative control: the variance a bound half as large would
-- have (a quarter: 'row' misread as each row within L2 norm bound, or the
-- attribute's bound halved) leaves the band, at a ratio near 4.
CREATE TEMP TABLE agg_many AS
  SELECT u AS unit_id, a AS attr, ((u * 7 + a * 3) % 9 - 4) / 4.0 AS val
  FROM generate_series(1, 2000) u, generate_series(1, 30) a;
CREATE TEMP TABLE agg_many_y AS
  SELECT unit_id, jl_project_agg(attr, val, jl_sketch(k => 8), 'pinned') AS y FROM agg_many GROUP BY unit_id;
SELECT c.what, count(*) AS coordinates,
       abs(avg((zz - yy) ^ 2) / c.var - 1) <= 0.12 AS variance_as_info,
       abs(avg((zz - yy) ^ 2) / c.var_half_bound - 1) <= 0.12 AS control_half_bound
  FROM (SELECT 'attribute, laplace' AS what, unit_id,
               jl_private_release_agg(attr, val, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned') AS z
          FROM agg_many GROUP BY unit_id
        UNION ALL
        SELECT 'row, laplace', unit_id,
               jl_private_release_agg(attr, val, 30, 1.0, 2.0, 'row', jl_sketch(k => 8), 'pinned')
          FROM agg_many GROUP BY unit_id
        UNION ALL
        SELECT 'attribute, gaussian analytic', unit_id,
               jl_private_release_agg(attr, val, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8, noise => 'gaussian', delta => 1e-5), 'pinned')
          FROM agg_many GROUP BY unit_id
        UNION ALL
        SELECT 'row, gaussian classic', unit_id,
               jl_private_release_agg(attr, val, 30, 1.0, 2.0, 'row',
                                      jl_sketch(k => 8, noise => 'gaussian', delta => 1e-5, calibration => 'classic'), 'pinned')
          FROM agg_many GROUP BY unit_id) s
  JOIN (VALUES ('attribute, laplace',
                (jl_release_info(30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), key => 'pinned')->>'noise_variance')::float8,
                (jl_release_info(30, 1.0, 0.5, 'attribute', jl_sketch(k => 8), key => 'pinned')->>'noise_variance')::float8),
               ('row, laplace',
                (jl_release_info(30, 1.0, 2.0, 'row', jl_sketch(k => 8), key => 'pinned')->>'noise_variance')::float8,
                (jl_release_info(30, 1.0, 1.0, 'row', jl_sketch(k => 8), key => 'pinned')->>'noise_variance')::float8),
               ('attribute, gaussian analytic',
                (jl_release_info(30, 1.0, 1.0, 'attribute', jl_sketch(k => 8, noise => 'gaussian', delta => 1e-5), key => 'pinned')->>'noise_variance')::float8,
                (jl_release_info(30, 1.0, 0.5, 'attribute', jl_sketch(k => 8, noise => 'gaussian', delta => 1e-5), key => 'pinned')->>'noise_variance')::float8),
               ('row, gaussian classic',
                (jl_release_info(30, 1.0, 2.0, 'row', jl_sketch(k => 8, noise => 'gaussian', delta => 1e-5, calibration => 'classic'), key => 'pinned')->>'noise_variance')::float8,
                (jl_release_info(30, 1.0, 1.0, 'row', jl_sketch(k => 8, noise => 'gaussian', delta => 1e-5, calibration => 'classic'), key => 'pinned')->>'noise_variance')::float8))
       c(what, var, var_half_bound) USING (what)
  JOIN agg_many_y USING (unit_id),
  unnest(s.z, agg_many_y.y) u(zz, yy)
  GROUP BY c.what, c.var, c.var_half_bound ORDER BY c.what;
DROP TABLE agg_many, agg_many_y;

-- a sparse vector: only its nonzero attributes, in any order; within 40
-- scales of jl_project of the dense vector (epsilon 10000, d = 10, k = 4)
SELECT pg_temp.agg_within(jl_private_release_agg(a, v, 10, 10000, 1.0, 'attribute', jl_sketch(k => 4), 'pinned'),
                          jl_project('{0,0,0,0,0,0,1.5,0,0,-2}', jl_sketch(k => 4), 'pinned'),
                          40 * (jl_release_info(10, 10000, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')->>'scale')::float8) AS sparse_near_dense
  FROM (VALUES (10, -2.0::float8), (7, 1.5)) t(a, v);
-- attribute indices far beyond any dense P (d = 600,000): rows generated on
-- demand, the same as jl_project_agg's, which equals jl_project of the dense
-- vector (above); within 40 scales of jl_release_info(600000, 10000, 1,
-- 'attribute', jl_sketch(k => 4))
SELECT pg_temp.agg_within(jl_private_release_agg(a, v, 600000, 10000, 1.0, 'attribute', jl_sketch(k => 4), 'pinned'),
                          jl_project_agg(a, v, jl_sketch(k => 4), 'pinned'),
                          40 * (jl_release_info(600000, 10000, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')->>'scale')::float8) AS large_index_near_projection
  FROM (VALUES (1, 2.0::float8), (299999, -1.5), (600000, 0.25)) t(a, v);
-- duplicates summed, NULL values skipped (identity, d = 6, epsilon 10000:
-- rounded to 0.25 as above): (3, 1), (5, 2), (3, 2) is {0,0,3,0,2,0};
-- (3, 1), (5, NULL), (NULL, NULL) is {0,0,1,0,0,0}; a group whose values
-- are all NULL is the zero vector (with noise); no rows at all: NULL
-- (+ 0.0 turns a -0 from a negative noise into 0)
SELECT (SELECT array_agg(round(v * 4) / 4 + 0.0 ORDER BY i)
          FROM unnest(jl_private_release_agg(a, v, 6, 10000, 1.0, 'attribute', jl_sketch(kind => 'identity'), 'pinned'))
               WITH ORDINALITY u(v, i)) AS duplicates_summed
  FROM (VALUES (3, 1.0::float8), (5, 2.0), (3, 2.0)) t(a, v);
SELECT (SELECT array_agg(round(v * 4) / 4 + 0.0 ORDER BY i)
          FROM unnest(jl_private_release_agg(a, v, 6, 10000, 1.0, 'attribute', jl_sketch(kind => 'identity'), 'pinned'))
               WITH ORDINALITY u(v, i)) AS nulls_skipped
  FROM (VALUES (3, 1.0::float8), (5, NULL), (NULL, NULL)) t(a, v);
SELECT (SELECT array_agg(round(v * 4) / 4 + 0.0 ORDER BY i)
          FROM unnest(jl_private_release_agg(a, v, 2, 10000, 1.0, 'attribute', jl_sketch(kind => 'identity'), 'pinned'))
               WITH ORDINALITY u(v, i)) AS all_null
  FROM (VALUES (3, NULL::float8)) t(a, v);
SELECT jl_private_release_agg(a, v, 6, 1.0, 1.0, 'attribute', jl_sketch(k => 4), 'pinned') IS NULL AS no_rows
  FROM (VALUES (3, 1.0::float8)) t(a, v) WHERE false;

-- bad input: a specific SQLSTATE each
SELECT error($$SELECT jl_project_agg(0, 1.0, jl_sketch(k => 4), 'pinned')$$);
SELECT error($$SELECT jl_project_agg(-1, 1.0, jl_sketch(k => 4), 'pinned')$$);
SELECT error($$SELECT jl_project_agg(NULL, 1.0, jl_sketch(k => 4), 'pinned')$$);
SELECT error($$SELECT jl_project_agg(1, 'NaN', jl_sketch(k => 4), 'pinned')$$);
SELECT error($$SELECT jl_project_agg(1, '-Infinity', jl_sketch(k => 4), 'pinned')$$);
SELECT error($$SELECT jl_project_agg(1, 1.0, jl_sketch(k => 0), 'pinned')$$);
SELECT error($$SELECT jl_project_agg(1, 1.0, jl_sketch(k => NULL), 'pinned')$$);
SELECT error($$SELECT jl_project_agg(1, 1.0, jl_sketch(k => 4), NULL)$$);
SELECT error($$SELECT jl_project_agg(1, 1.0, jl_sketch(k => 4), 'no such key')$$);
-- kind 'sparse' without its density (1/sqrt(d) needs d, which it is not given)
SELECT error($$SELECT jl_project_agg(1, 1.0, jl_sketch(k => 4, kind => 'sparse'), 'pinned')$$);
-- the release aggregate: attr beyond d or below 1, d 0, each argument NULL,
-- epsilon and bound 0, NaN or infinite, a neighbor that is no jl_neighbor,
-- a value that is not finite, a NULL attr with a value, a key that does not
-- exist (or is empty)
SELECT error($$SELECT jl_private_release_agg(31, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(0, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(NULL, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 'NaN', 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 'Infinity', 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 0, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, NULL, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 'NaN', 1.0, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 'Infinity', 1.0, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, NULL, 1.0, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 0, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 0, 'row', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 'NaN', 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, NULL, 'attribute', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'column', jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, NULL, jl_sketch(k => 8), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', NULL::jl_mechanism, 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), NULL)$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), '')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'no such key')$$);
-- the mechanism: a jl_sketch with k within 1..10000 (NULL only for the
-- identity, whose k must be d), a calibration of its noise, delta with
-- Gaussian noise only and within (0, 1) (below 1/2 for 'classic'); not
-- another mechanism; and a forged jl_mechanism value is checked as the
-- constructor checks it (a word that is no jl_calibration is the enum's
-- 22P02; 'paper', Dhaliwal et al.'s constants, is jl_private_release's and
-- so the aggregate's, and needs delta with row neighbours as there)
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 10001), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8, kind => 'identity'), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8, calibration => 'tight'), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'row', jl_sketch(k => 8, calibration => 'paper'), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8, calibration => 'analytic'), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8, delta => 1e-5), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8, noise => 'gaussian'), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8, noise => 'gaussian', delta => 1), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8, noise => 'gaussian', delta => 0.5, calibration => 'classic'), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_covariance_mechanism(4, 1e-5), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_advised(dist2 => 1.0), 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute',
  ROW('sketch', 100000, 'rademacher', 'laplace', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism, 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute',
  ROW('sketch', NULL, 'rademacher', 'laplace', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism, 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute',
  ROW('sketch', 8, 'rademacher', 'laplace', 0.5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism, 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute',
  ROW('sketch', 8, 'rademacher', 'gaussian', 1e-5, 'exact', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism, 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute',
  ROW('sketch', 8, 'rademacher', 'laplace', NULL, NULL, 3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism, 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute',
  ROW('bogus', 8, 'rademacher', 'laplace', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism, 'pinned')$$);
-- a density: only with kind 'sparse', within [2^-50, 1]
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute',
  ROW('sketch', 8, 'sparse', 'laplace', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 2)::jl_mechanism, 'pinned')$$);
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute',
  ROW('sketch', 8, 'rademacher', 'laplace', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0.5)::jl_mechanism, 'pinned')$$);

-- parameters must not change within a group ...
SELECT error($$SELECT jl_project_agg(a, 1.0, jl_sketch(k => a), 'pinned') FROM generate_series(1, 3) a$$);
SELECT error($$SELECT jl_project_agg(1, 1.0, jl_sketch(k => 4), CASE WHEN a = 1 THEN 'pinned' ELSE 'pinned2' END) FROM generate_series(1, 3) a$$);
-- in the release aggregate: d, epsilon, bound, the neighbor, the key, and
-- each field of the mechanism (k, kind, noise, delta, calibration, density)
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(1, 1.0, 29 + a, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned') FROM generate_series(1, 3) a$$);
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(1, 1.0, 30, a, 1.0, 'attribute', jl_sketch(k => 8), 'pinned') FROM generate_series(1, 3) a$$);
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, a, 'attribute', jl_sketch(k => 8), 'pinned') FROM generate_series(1, 3) a$$);
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, CASE WHEN a = 1 THEN 'attribute' ELSE 'row' END::jl_neighbor,
                                             jl_sketch(k => 8), 'pinned') FROM generate_series(1, 3) a$$);
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8),
                                             CASE WHEN a = 1 THEN 'pinned' ELSE 'pinned2' END) FROM generate_series(1, 3) a$$);
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 7 + a), 'pinned') FROM generate_series(1, 3) a$$);
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute',
                                             jl_sketch(k => 8, kind => CASE WHEN a = 1 THEN 'rademacher' ELSE 'gaussian' END::jl_kind), 'pinned')
               FROM generate_series(1, 3) a$$);
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute',
                                             CASE WHEN a = 1 THEN jl_sketch(k => 8) ELSE jl_sketch(k => 8, noise => 'gaussian', delta => 1e-5) END, 'pinned')
               FROM generate_series(1, 3) a$$);
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8, noise => 'gaussian', delta => a * 1e-6), 'pinned')
               FROM generate_series(1, 3) a$$);
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute',
                                             jl_sketch(k => 8, noise => 'gaussian', delta => 1e-6,
                                                       calibration => CASE WHEN a = 1 THEN 'analytic' ELSE 'classic' END::jl_calibration), 'pinned')
               FROM generate_series(1, 3) a$$);
-- (the density is stored with the kind: the detail names the projection kind)
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(1, 1.0, 30, 1.0, 1.0, 'attribute',
                                             jl_sketch(k => 8, kind => 'sparse', density => a / 4.0), 'pinned')
               FROM generate_series(1, 3) a$$);
SELECT error($$SELECT jl_project_agg(1, 1.0, jl_sketch(k => 8, kind => 'sparse', density => a / 4.0), 'pinned') FROM generate_series(1, 3) a$$);
-- ... nor between the states that are combined: partial aggregates per
-- partition, each consistent, combined by the final step (and in parallel)
CREATE TABLE agg_parted (part int, attr int, val float8, k int) PARTITION BY LIST (part);
CREATE TABLE agg_parted_1 PARTITION OF agg_parted FOR VALUES IN (1);
CREATE TABLE agg_parted_2 PARTITION OF agg_parted FOR VALUES IN (2);
INSERT INTO agg_parted SELECT 1, a, a / 10.0, 4 FROM generate_series(1, 100) a;
INSERT INTO agg_parted SELECT 2, a, a / 10.0, 4 FROM generate_series(101, 200) a;
ANALYZE agg_parted;
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT jl_project_agg(attr, val, jl_sketch(k => k), 'pinned') FROM agg_parted;
SELECT (SELECT jl_project_agg(attr, val, jl_sketch(k => k), 'pinned') FROM agg_parted)
     = (SELECT jl_project_agg(attr, val, jl_sketch(k => k), 'pinned') FROM (SELECT * FROM agg_parted OFFSET 0) s)
       AS combined_equals_single;
-- the release aggregate over the partitions: at epsilon 10000 within 40
-- scales of the single jl_project_agg (d = 200, k = 4)
EXPLAIN (COSTS OFF) SELECT jl_private_release_agg(attr, val, 200, 10000, 1.0, 'attribute', jl_sketch(k => k), 'pinned') FROM agg_parted;
SELECT pg_temp.agg_within((SELECT jl_private_release_agg(attr, val, 200, 10000, 1.0, 'attribute', jl_sketch(k => k), 'pinned') FROM agg_parted),
                          (SELECT jl_project_agg(attr, val, jl_sketch(k => k), 'pinned') FROM (SELECT * FROM agg_parted OFFSET 0) s),
                          40 * (jl_release_info(200, 10000, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')->>'scale')::float8) AS combined_near_single;
UPDATE agg_parted SET k = 5 WHERE part = 2;
SELECT error($$SELECT jl_project_agg(attr, val, jl_sketch(k => k), 'pinned') FROM agg_parted$$);
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(attr, val, 200, 1.0, 1.0, 'attribute', jl_sketch(k => k), 'pinned') FROM agg_parted$$);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT jl_project_agg(attr, val, jl_sketch(k => k), 'pinned') FROM agg_parted;
SELECT error($$SELECT jl_project_agg(attr, val, jl_sketch(k => k), 'pinned') FROM agg_parted$$);
SELECT pg_temp.agg_error_detail($$SELECT jl_private_release_agg(attr, val, 200, 1.0, 1.0, 'attribute', jl_sketch(k => k), 'pinned') FROM agg_parted$$);
RESET enable_partitionwise_aggregate;
DROP TABLE agg_parted;

-- parallel plans: partial states are serialized in the workers, combined
-- and finished in the leader, with the same result as a serial plan
CREATE TABLE agg_par AS
  SELECT r AS row_id, a AS attr, ((r * 13 + a * 7) % 19 - 9) / 8.0 AS val
  FROM generate_series(1, 4000) r, generate_series(1, 10) a;
CREATE TABLE agg_wide AS SELECT a AS attr, ((a * 13) % 19 - 9) / 8.0 AS val FROM generate_series(1, 40000) a;
ANALYZE agg_par;
ANALYZE agg_wide;
EXPLAIN (COSTS OFF) SELECT jl_project_agg(attr, val, jl_sketch(k => 6), 'pinned') FROM agg_wide;
CREATE TEMP TABLE agg_parallel AS SELECT jl_project_agg(attr, val, jl_sketch(k => 6), 'pinned') AS y FROM agg_wide;
EXPLAIN (COSTS OFF) SELECT row_id % 4 AS g, jl_project_agg(attr, val, jl_sketch(k => 6), 'pinned') FROM agg_par GROUP BY row_id % 4;
CREATE TEMP TABLE agg_parallel_groups AS
  SELECT row_id % 4 AS g, jl_project_agg(attr, val, jl_sketch(k => 6), 'pinned') AS y FROM agg_par GROUP BY row_id % 4;
SET max_parallel_workers_per_gather = 0;
SELECT y = (SELECT jl_project_agg(attr, val, jl_sketch(k => 6), 'pinned') FROM agg_wide) AS parallel_equals_serial
  FROM agg_parallel;
-- the same groups; a group's duplicates are summed in another order
SELECT count(*) AS groups,
       bool_and((SELECT bool_and(abs(a - b) <= 1e-12 * (1 + abs(b))) FROM unnest(p.y, s.y) u(a, b))) AS parallel_equals_serial
  FROM agg_parallel_groups p
  JOIN (SELECT row_id % 4 AS g, jl_project_agg(attr, val, jl_sketch(k => 6), 'pinned') AS y FROM agg_par GROUP BY row_id % 4) s USING (g);
-- serial references for the parallel releases below
CREATE TEMP TABLE agg_serial_wide AS SELECT jl_project_agg(attr, val, jl_sketch(k => 6), 'pinned') AS y FROM agg_wide;
SET max_parallel_workers_per_gather = 2;
-- releases: length k, fresh noise per group, on the grid
-- jl_release_info(d, ...) reports, noise added
CREATE TEMP TABLE agg_out AS
  SELECT row_id, jl_private_release_agg(attr, val, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned') AS z
  FROM agg_facts GROUP BY row_id;
SELECT count(*) AS groups, count(DISTINCT z) AS distinct_releases,
       bool_and(array_length(z, 1) = 8) AS length_k
  FROM agg_out;
SELECT bool_and(v / g = round(v / g)) AS all_on_grid
  FROM agg_out, unnest(z) v,
       (SELECT (jl_release_info(30, 1.0, 1, 'attribute', jl_sketch(k => 8), key => 'pinned')->>'grid')::float8 AS g) gg;
-- noise was added: no release equals its noise-free projection
SELECT bool_and(o.z <> s.y) AS noisy
  FROM agg_out o
  JOIN (SELECT row_id, jl_project_agg(attr, val, jl_sketch(k => 8), 'pinned') AS y FROM agg_facts GROUP BY row_id) s USING (row_id);

-- no data-dependent refusal (it would tell neighbours apart): huge values
-- are clamped, rows past the floating-point allowance projected with
-- compensated sums, projections saturated, as by jl_private_release
SELECT grp, array_length(z, 1) AS k,
       (SELECT bool_and(v / g = round(v / g)) FROM unnest(z) v) AS on_grid
  FROM (SELECT grp, jl_private_release_agg(a, v, 30, 0.1, 1.0, 'attribute', jl_sketch(k => 8), 'pinned') AS z
        FROM (VALUES (1, 1, 1e300::float8), (1, 2, -1e300), (2, 1, 1e12), (2, 30, 3.5),
                     (3, 5, 1.7e308), (3, 5, 1.7e308)) t(grp, a, v)
        GROUP BY grp) s,
       (SELECT (jl_release_info(30, 0.1, 1, 'attribute', jl_sketch(k => 8), key => 'pinned')->>'grid')::float8 AS g) gg
  ORDER BY grp;

-- large d: the statistics of P are streamed (d k doubles would be 19 MB
-- here), and the grid is the dense path's; row neighbours from P^T P
SELECT array_length(z, 1) AS k,
       (SELECT bool_and(v / g = round(v / g)) FROM unnest(z) v) AS on_dense_grid
  FROM (SELECT jl_private_release_agg(a, 1.0, 600000, 0.1, 1.0, 'attribute', jl_sketch(k => 4), 'pinned') AS z
        FROM (VALUES (1), (299999), (600000)) t(a)) s,
       (SELECT (jl_release_info(600000, 0.1, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')->>'grid')::float8 AS g) gg;
SELECT array_length(z, 1) AS k,
       (SELECT bool_and(v / g = round(v / g)) FROM unnest(z) v) AS on_dense_grid
  FROM (SELECT jl_private_release_agg(a, 1.0, 600000, 0.1, 1.0, 'row', jl_sketch(k => 4), 'pinned') AS z
        FROM (VALUES (1), (600000)) t(a)) s,
       (SELECT (jl_release_info(600000, 0.1, 1, 'row', jl_sketch(k => 4), key => 'pinned')->>'grid')::float8 AS g) gg;
SELECT error($$SELECT jl_private_release_agg(1, 1.0, 100000000, 0.1, 1.0, 'row', jl_sketch(k => 25), 'pinned')$$);

-- all groups of one call share its parameters
SELECT pg_temp.agg_error_detail($$SELECT row_id, jl_private_release_agg(attr, val, 30, 1.0, row_id, 'attribute', jl_sketch(k => 8), 'pinned')
  FROM agg_facts GROUP BY row_id$$);

-- a rescanned aggregate releases its rows again, with fresh noise
SELECT count(DISTINCT z) AS three_releases
  FROM (SELECT (SELECT jl_private_release_agg(attr, val, 30, 0.1, 1.0, 'attribute', jl_sketch(k => 8), 'pinned')
                FROM agg_facts WHERE row_id = 1 AND o.i > 0) AS z
        FROM generate_series(1, 3) o(i)) s;
-- nor grouping sets: every set would release the same rows again
SELECT error($$SELECT row_id % 2, jl_private_release_agg(attr, val, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned')
  FROM agg_facts GROUP BY ROLLUP(row_id % 2)$$);
-- not a window function: every frame would be a new release
SELECT error($$SELECT jl_private_release_agg(attr, val, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 8), 'pinned') OVER (ORDER BY attr)
  FROM agg_facts$$);
-- jl_project_agg is a fine window function
SELECT count(DISTINCT y) AS running_projections
  FROM (SELECT jl_project_agg(attr, val, jl_sketch(k => 4), 'pinned') OVER (ORDER BY attr) AS y
        FROM agg_facts WHERE row_id = 1) s;

-- the release under a parallel plan: Partial Aggregate in the workers, the
-- noise in the leader (which runs in parallel mode); at epsilon 10000 it is
-- the serial result: agg_wide's one group within 40 scales of the serial
-- jl_project_agg (tolerance 0.02; a worker's partial state lost would move
-- it by the projection of its rows: for a third of them, attr 1..13333,
-- coordinates of root mean square 33 and at least 7.3, by jl_project_agg);
-- agg_par's four groups
-- with kind 'identity' (d = 10, bound 2) rounded to 1/8 equal the sums of
-- val per (group, attr), multiples of 1/8 within [-1.875, 1.875] computed
-- by SQL (scale 2.0e-4: a noise beyond 1/16 is 312 scales, exp(-312))
EXPLAIN (COSTS OFF)
  SELECT jl_private_release_agg(attr, val, 40000, 10000, 2.0, 'attribute', jl_sketch(k => 6), 'pinned')
  FROM agg_wide;
EXPLAIN (COSTS OFF)
  SELECT row_id % 4, jl_private_release_agg(attr, val, 10, 10000, 2.0, 'attribute', jl_sketch(kind => 'identity'), 'pinned')
  FROM agg_par GROUP BY row_id % 4;
SELECT pg_temp.agg_within(jl_private_release_agg(attr, val, 40000, 10000, 2.0, 'attribute', jl_sketch(k => 6), 'pinned'),
                          (SELECT y FROM agg_serial_wide),
                          40 * (jl_release_info(40000, 10000, 2.0, 'attribute', jl_sketch(k => 6), key => 'pinned')->>'scale')::float8) AS parallel_near_serial
  FROM agg_wide;
SELECT count(*) AS groups,
       bool_and((SELECT array_agg(round(v * 8) / 8 ORDER BY i) FROM unnest(p.z) WITH ORDINALITY u(v, i)) = s.x) AS parallel_equals_serial
  FROM (SELECT row_id % 4 AS g, jl_private_release_agg(attr, val, 10, 10000, 2.0, 'attribute', jl_sketch(kind => 'identity'), 'pinned') AS z
        FROM agg_par GROUP BY row_id % 4) p
  JOIN (SELECT g, array_agg(s::float8 ORDER BY attr) AS x
        FROM (SELECT row_id % 4 AS g, attr, sum(val) AS s FROM agg_par GROUP BY 1, 2) t GROUP BY g) s USING (g);
SELECT count(*) AS groups, count(DISTINCT z) AS distinct_releases
  FROM (SELECT row_id % 4, jl_private_release_agg(attr, val, 10, 0.5, 1.0, 'attribute', jl_sketch(k => 6), 'pinned') AS z
        FROM agg_par GROUP BY row_id % 4) s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE agg_par;
DROP TABLE agg_wide;

-- every release above was unbudgeted: the ledger, the budgets and the
-- registry of releases are as they were before the first one
SELECT b.ledger_entries = (SELECT count(*) FROM jl_ledger) AS ledger_unmoved,
       b.last_entry IS NOT DISTINCT FROM (SELECT max(id) FROM jl_ledger) AS no_new_entry,
       b.epsilon_spent IS NOT DISTINCT FROM (SELECT sum(epsilon_spent) FROM jl_budgets)
         AND b.delta_spent IS NOT DISTINCT FROM (SELECT sum(delta_spent) FROM jl_budgets) AS nothing_spent,
       b.releases = (SELECT count(*) FROM jl_releases) AS nothing_recorded
  FROM agg_books_before b;

-- declarations: combine, serialization and a read-only final function;
-- the noise-adding final function is VOLATILE
SELECT a.aggfnoid::regprocedure AS aggregate, a.aggtransfn, a.aggfinalfn, a.aggcombinefn,
       a.aggserialfn, a.aggdeserialfn, a.aggfinalmodify, p.proparallel
  FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
  WHERE p.proname LIKE 'jl\_%' ORDER BY p.oid::regprocedure::text;
SELECT p.oid::regprocedure AS function, provolatile, proisstrict, proparallel
  FROM pg_proc p WHERE proname IN ('jl_private_release_agg_final', 'jl_project_agg_final', 'jl_agg_combine',
                                   'jl_agg_serialize', 'jl_agg_deserialize', 'jl_release_agg_trans')
  ORDER BY p.oid::regprocedure::text;

-- only their role's: a curator may execute them, an analyst and a role
-- without jldp roles may not
CREATE ROLE regress_jldp_agg_analyst;
CREATE ROLE regress_jldp_agg_curator;
CREATE ROLE regress_jldp_agg_nobody;
GRANT jldp_analyst TO regress_jldp_agg_analyst;
GRANT jldp_curator TO regress_jldp_agg_curator;
SET ROLE regress_jldp_agg_analyst;
SELECT error($$SELECT jl_project_agg(a, 1.0, NULL::jl_mechanism, 'pinned') FROM generate_series(1, 3) a$$);
-- (an analyst may not build the mechanism either)
SELECT error($$SELECT jl_project_agg(a, 1.0, jl_sketch(k => 4), 'pinned') FROM generate_series(1, 3) a$$);
SELECT error($$SELECT jl_private_release_agg(a, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 4), 'pinned') FROM generate_series(1, 3) a$$);
SELECT error($$SELECT jl_private_release_agg(a, 1.0, 30, 1.0, 1.0, 'attribute', NULL::jl_mechanism, 'pinned') FROM generate_series(1, 3) a$$);
RESET ROLE;
SET ROLE regress_jldp_agg_nobody;
SELECT error($$SELECT jl_project_agg(a, 1.0, NULL::jl_mechanism, 'pinned') FROM generate_series(1, 3) a$$);
SELECT error($$SELECT jl_private_release_agg(a, 1.0, 30, 1.0, 1.0, 'attribute', NULL::jl_mechanism, 'pinned') FROM generate_series(1, 3) a$$);
RESET ROLE;
SET ROLE regress_jldp_agg_curator;
SELECT array_length(jl_project_agg(a, 1.0, jl_sketch(k => 4), 'pinned'), 1) AS curator_projects FROM generate_series(1, 3) a;
SELECT array_length(jl_private_release_agg(a, 1.0, 30, 1.0, 1.0, 'attribute', jl_sketch(k => 4), 'pinned'), 1) AS curator_releases
  FROM generate_series(1, 3) a;
RESET ROLE;
SELECT r AS role,
       has_function_privilege(r, 'jl_project_agg(int, float8, jl_mechanism, text)', 'EXECUTE') AS projects,
       has_function_privilege(r, 'jl_private_release_agg(int, float8, int, float8, float8, jl_neighbor, jl_mechanism, text)', 'EXECUTE') AS releases
  FROM unnest(ARRAY['regress_jldp_agg_analyst', 'regress_jldp_agg_nobody', 'regress_jldp_agg_curator']) r;
DROP ROLE regress_jldp_agg_analyst;
DROP ROLE regress_jldp_agg_curator;
DROP ROLE regress_jldp_agg_nobody;
