-- Edge tables (jl_edge) released by the pipeline's graph mechanism
-- (jl_graph), and jl_budget_book.  Expected values checked independently:
-- the overlay weight against an mpmath quadrature of the replacement
-- pair's privacy loss (docs/design/graph_cuts.md's table: w0 = 19.62 for r = 10,
-- epsilon = 0.5, delta = 0.01, so w = 40 w0 / (40 + w0) = 13.163 for 40
-- vertices; the release's 13.165 includes the accountant's 1e-3 margin on
-- delta); the cut against its count from the edges.
SET client_min_messages = warning;
CREATE FUNCTION pg_error(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE VIEW pg_charges AS SELECT count(*) AS n FROM jl_ledger WHERE event = 'charge';

-- a ring of 40 vertices with chords, as edge rows (id unique)
CREATE TABLE pg_edges (id int PRIMARY KEY, u int, v int, note text);
INSERT INTO pg_edges SELECT i, i, i % 40 + 1 FROM generate_series(1, 40) i;
INSERT INTO pg_edges SELECT 100 + i, i, (i + 19) % 40 + 1 FROM generate_series(1, 40, 2) i;
-- rows that are no edge, and a repeat and a reversal of ring edges
INSERT INTO pg_edges VALUES (201, NULL, 3), (202, 5, 5), (203, 0, 7), (204, 8, 41),
  (205, -1, 2), (206, 1, 2), (207, 3, 2);

-- the declaration: d is the vertices
SELECT dataset, d FROM jl_protect('pg_edges', 'id', ARRAY[jl_edge('u', 'v', 40)],
                                  epsilon_cap => 10, delta_cap => 0.05);
SELECT relation, unit, neighbor, d FROM jl_protected WHERE relation = 'pg_edges'::regclass;

-- declarations refused
SELECT pg_error($$SELECT jl_edge('u', 'v', 1)$$) AS one_vertex;
SELECT pg_error($$SELECT jl_edge('u', 'v', NULL)$$) AS vertices_null;
SELECT pg_error($$SELECT jl_protect('pg_edges', 'id', ARRAY[jl_edge('u', 'v', 40), jl_numeric('u', 0, 1)], epsilon_cap => 1)$$) AS edge_and_more;
SELECT pg_error($$SELECT jl_protect('pg_edges', 'id', ARRAY[jl_edge('u', 'v', 40)], row_clip => 1, epsilon_cap => 1)$$) AS with_row_clip;
SELECT pg_error($$SELECT jl_protect('pg_edges', 'id', ARRAY[jl_edge('u', 'v', 40)], neighbor => 'attribute', epsilon_cap => 1)$$) AS attribute_neighbours;
SELECT pg_error($$SELECT jl_protect('pg_edges', 'id', ARRAY[jl_edge('u', 'note', 40)], epsilon_cap => 1)$$) AS text_endpoint;
SELECT pg_error($$SELECT jl_protect('pg_edges', 'id', ARRAY[jl_edge('id', 'v', 40)], epsilon_cap => 1)$$) AS unit_as_endpoint;
SELECT pg_error($$SELECT jl_protect('pg_edges', 'id', ARRAY[jl_edge('u', 'u', 40)], epsilon_cap => 1)$$) AS one_column_twice;
SELECT pg_error($$SELECT jl_protect('pg_edges', 'id', ARRAY[ROW('u', 'edge', 0, 1, 1, NULL, 40, 'v')::jl_attribute], epsilon_cap => 1)$$) AS edge_with_bounds;
SELECT pg_error($$SELECT jl_protect('pg_edges', 'id', ARRAY[ROW('u', 'edge', NULL, NULL, 2, NULL, 40, 'v')::jl_attribute], epsilon_cap => 1)$$) AS edge_weight;
-- the unit must be unique: each edge row is one unit
CREATE TABLE pg_edges_nokey (id int, u int, v int);
SELECT pg_error($$SELECT jl_protect('pg_edges_nokey', 'id', ARRAY[jl_edge('u', 'v', 40)], epsilon_cap => 1)$$) AS unit_not_unique;

-- mechanisms and shapes that do not go together: refused, nothing charged
SELECT n AS charges_before FROM pg_charges \gset
CREATE TABLE pg_rows (id int PRIMARY KEY, a float8);
INSERT INTO pg_rows SELECT i, i FROM generate_series(1, 10) i;
SELECT d FROM jl_protect('pg_rows', 'id', ARRAY[jl_numeric('a', 0, 10)], epsilon_cap => 10, delta_cap => 0.05);
SELECT pg_error($$SELECT jl_release('pg_edges', 'pg_x', 1, jl_sketch(k => 4), key => 'pinned')$$) AS sketch_of_edges;
SELECT pg_error($$SELECT jl_release('pg_edges', 'pg_x', 1, jl_covariance_mechanism(4, 1e-3), key => 'pinned')$$) AS covariance_of_edges;
SELECT pg_error($$SELECT jl_release_dist2('pg_edges', 1)$$) AS dist2_of_edges;
SELECT pg_error($$SELECT jl_release('pg_rows', 'pg_x', 1, jl_graph(10, 1e-3), key => 'pinned')$$) AS graph_of_rows;
SELECT pg_error($$SELECT jl_graph(0, 1e-3)$$) AS r_zero;
SELECT pg_error($$SELECT jl_graph(10, NULL)$$) AS delta_null;
SELECT pg_error($$SELECT jl_graph(10, 1)$$) AS delta_one;
SELECT pg_error($$SELECT jl_release('pg_edges', 'pg_x', 1, ROW('graph', 4, NULL, NULL, 1e-3, NULL, 10, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jl_mechanism, key => 'pinned')$$) AS graph_with_k;
-- weight not below the vertices: refused before the charge
SELECT pg_error($$SELECT jl_release('pg_edges', 'pg_x', 0.01, jl_graph(10, 1e-6), key => 'pinned')$$) AS weight_too_large;
SELECT pg_error($$SELECT jl_release('pg_edges', 'pg_x', 701, jl_graph(10, 1e-3), key => 'pinned')$$) AS epsilon_too_large;
-- beyond the caps
SELECT pg_error($$SELECT jl_release('pg_edges', 'pg_x', 11, jl_graph(10, 1e-3), key => 'pinned')$$) AS over_cap;
SELECT n - :charges_before AS charges FROM pg_charges;

-- the release: one charge; rows that are no edge add nothing and fail
-- nothing; the guarantee counts every row (the units are public)
SELECT released, epsilon_charged, delta_charged, round(noise_variance::numeric, 1) AS w,
       guarantee LIKE '%one edge row replaced%' OR guarantee LIKE '%against its row replaced by any other%' AS replacement,
       guarantee LIKE '%how many (67, each read once)%' AS all_rows_counted
  FROM jl_release('pg_edges', 'pg_cut', 0.5, jl_graph(r => 10, delta => 0.01), key => 'pinned');
SELECT n - :charges_before AS charges FROM pg_charges;
SELECT count(*) AS vertices, min(vertex), max(vertex), min(cardinality(sketch)) AS r FROM pg_cut;
SELECT info->>'mechanism' AS mechanism, info->>'neighbor' AS neighbor, info->>'release_mechanism' AS via,
       (info->>'n')::int AS n, (info->>'r')::int AS r, info->'declaration'->'attributes'->0->>'encoding' AS encoding,
       info ? 'rows' AS rows_recorded
  FROM jldp_internal.jldp_release WHERE target = 'pg_cut'::regclass;

-- the cut estimate against the true cut: S = vertices 1..20 of the ring
-- cuts the ring twice and every chord (i, i + 20) from an odd i: 2 + 10.
-- The estimate is (q - (w/n) s (n - s)) / (1 - w/n) with q = |R 1_S|^2 / r
-- distributed as lambda chi2_r / r, lambda = (1 - w/n) cut + (w/n) s (n - s);
-- with r = 10 a bound of 6 plug-in standard deviations fails by chance
-- with probability 0.0126 (scipy: chi2.cdf(10 / (1 + 6 sqrt(0.2)), 10)),
-- so the check is on q / lambda between the chi2_10 / 10 quantiles 5e-9
-- and 1 - 5e-9 (scipy: 0.011503 and 5.926081; a false failure below 1e-8)
SELECT count(*) AS true_cut FROM (
  SELECT DISTINCT LEAST(u, v), GREATEST(u, v) FROM pg_edges
   WHERE u BETWEEN 1 AND 40 AND v BETWEEN 1 AND 40 AND u <> v
     AND ((u <= 20) <> (v <= 20))) e;
SELECT ((1 - w / 40) * est + (w / 40) * 20 * 20) / ((1 - w / 40) * 12 + (w / 40) * 20 * 20)
         BETWEEN 0.011503 AND 5.926081 AS within_chi2_band,
       abs(sd / (sqrt(0.2) * ((1 - w / 40) * est + (w / 40) * 20 * 20) / (1 - w / 40)) - 1) < 1e-12 AS stddev_is_plug_in
  FROM (SELECT jl_cut_size('pg_cut', ARRAY(SELECT generate_series(1, 20))) AS est,
               jl_cut_size_stddev('pg_cut', ARRAY(SELECT generate_series(1, 20))) AS sd,
               (SELECT (info->>'w')::float8 FROM jldp_internal.jldp_release WHERE target = 'pg_cut'::regclass) AS w) c;

-- jl_budget_book: an unbudgeted primitive's cost, charged at once
SELECT n AS charges_before FROM pg_charges \gset
SELECT jl_budget_book('pg_rows', 0.5, note => 'jl_private_release_agg over pg_rows') > 0 AS booked;
SELECT event, epsilon, delta, what, released FROM jl_ledger
 WHERE dataset = 'public.pg_rows' AND event = 'charge';
SELECT epsilon_spent FROM jl_protected WHERE relation = 'pg_rows'::regclass;
SELECT pg_error($$SELECT jl_budget_book('pg_rows', 10)$$) AS over_cap;
SELECT pg_error($$SELECT jl_budget_book('pg_rows', 0)$$) AS epsilon_zero;
SELECT pg_error($$SELECT jl_budget_book('pg_rows', 0.1, 1)$$) AS delta_one;
SELECT pg_error($$SELECT jl_budget_book('pg_edges_nokey', 0.1)$$) AS undeclared;
CREATE VIEW pg_rows_view AS SELECT * FROM pg_rows;
SELECT pg_error($$SELECT jl_budget_book('pg_rows_view', 0.1)$$) AS a_view;
-- booking is a curator's: refused a role without a jldp role and an
-- analyst; a curator, on a budget it may spend
CREATE ROLE regress_pg_other;
GRANT SELECT ON pg_rows TO regress_pg_other;
SET ROLE regress_pg_other;
SELECT pg_error($$SELECT jl_budget_book('pg_rows', 0.1)$$) AS no_jldp_role;
RESET ROLE;
GRANT jldp_analyst TO regress_pg_other;
SET ROLE regress_pg_other;
SELECT pg_error($$SELECT jl_budget_book('pg_rows', 0.1)$$) AS analyst;
RESET ROLE;
GRANT jldp_curator TO regress_pg_other;
SET ROLE regress_pg_other;
SELECT pg_error($$SELECT jl_budget_book('pg_rows', 0.1)$$) AS not_a_spender;
RESET ROLE;
REVOKE SELECT ON pg_rows FROM regress_pg_other;
DROP ROLE regress_pg_other;
SELECT n - :charges_before AS charges FROM pg_charges;

-- spending granted by the table: jl_protect_grant, jl_protect_revoke
CREATE ROLE regress_pg_spender;
GRANT SELECT ON pg_rows TO regress_pg_spender;
GRANT jldp_curator TO regress_pg_spender;
SET ROLE regress_pg_spender;
SELECT pg_error($$SELECT jl_budget_book('pg_rows', 0.1)$$) AS before_grant;
RESET ROLE;
SELECT jl_protect_grant('pg_rows', 'regress_pg_spender');
SELECT spenders FROM jl_protected WHERE relation = 'pg_rows'::regclass;
SET ROLE regress_pg_spender;
SELECT jl_budget_book('pg_rows', 0.1) > 0 AS after_grant;
RESET ROLE;
SELECT jl_protect_revoke('pg_rows', 'regress_pg_spender');
SET ROLE regress_pg_spender;
SELECT pg_error($$SELECT jl_budget_book('pg_rows', 0.1)$$) AS after_revoke;
RESET ROLE;
SELECT pg_error($$SELECT jl_protect_grant('pg_edges_nokey', 'regress_pg_spender')$$) AS not_protected;
REVOKE SELECT ON pg_rows FROM regress_pg_spender;
DROP ROLE regress_pg_spender;
