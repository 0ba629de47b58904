-- Graph cut release (Blocki et al.) through the pipeline: an edge table
-- declared with jl_edge and released by jl_release with jl_graph; the
-- registry, the budget, cut estimates by array and by aggregate, and every
-- bad input.  Noisy values are checked against 8 plug-in standard
-- deviations (a chi-square(r) / r with r = 1000 beyond that: probability
-- below 1e-10).  The neighbours are one edge row replaced by any other
-- (or by a row that is no edge): the overlay weight is w0 = 2 l^2, l the
-- covariance accountant's lift of rows of norm 1, and w = n w0 / (n + w0).
-- Each w below was checked against a scipy quadrature of the worst-case
-- pair's privacy loss (orthogonal whitened rows of norm 1 / l, delta /
-- 1.001 for the accountant's margin).
-- A circulant graph on 300 vertices: i joined to i+1, ..., i+10 (mod 300),
-- 3000 edges, each a row with its unit id; the odd vertices are cut from
-- the even ones by the 1500 edges of odd offset.
CREATE TABLE gr_edges AS
  SELECT (i - 1) * 10 + k AS id, i AS a, ((i - 1 + k) % 300) + 1 AS b
  FROM generate_series(1, 300) i, generate_series(1, 10) k;
ALTER TABLE gr_edges ADD PRIMARY KEY (id);
CREATE FUNCTION gr_truth(s int[]) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM gr_edges WHERE (a = ANY (s)) <> (b = ANY (s)) $$;
CREATE TABLE gr_sets (name text, s int[]);
INSERT INTO gr_sets VALUES
  ('odd', ARRAY(SELECT generate_series(1, 300, 2))),
  ('interval', ARRAY(SELECT generate_series(1, 150))),
  ('ten', ARRAY(SELECT generate_series(1, 100, 10))),
  ('one', '{7}'),
  ('all', ARRAY(SELECT generate_series(1, 300)));
SELECT name, gr_truth(s) AS truth FROM gr_sets ORDER BY name;

SELECT dataset, d FROM jl_protect('gr_edges', 'id', ARRAY[jl_edge('a', 'b', 300)],
                                  epsilon_cap => 10, delta_cap => 1e-4);
-- w0 = 2 x 8.3886^2 = 140.74 (quadrature: 140.7368), w = 300 w0 / (300 +
-- w0) = 95.7965
SELECT released, epsilon_charged, delta_charged, round(noise_variance::numeric, 4) AS w
  FROM jl_release('gr_edges', 'gr_rel', 2.0, jl_graph(r => 1000, delta => 1e-6), key => 'pinned');
SELECT count(*) AS n, min(array_length(sketch, 1)) AS r, min(vertex) AS first, max(vertex) AS last FROM gr_rel;
-- the registry: w from public inputs (n, r, epsilon, delta); the edge
-- count is not recorded (the rows, public, are: 3000); w_paper = (16
-- sqrt(r ln(2/delta)) ln(16 r/delta) / epsilon)^2 = 5.13e8 by hand
SELECT source, id_column, vector, d, k, projection, neighbor, clipping, calibration,
       epsilon, delta, key_fingerprint, dataset, info->>'mechanism' AS mechanism,
       round((info->>'w0')::numeric, 4) AS w0, round((info->>'w')::numeric, 4) AS w,
       round((info->>'w_paper')::numeric, -6) AS w_paper,
       (info->>'w_delta_computed')::float8 <= delta AS accountant_meets_delta,
       info ? 'edges_count' AS edge_count_recorded, info->'rows' AS rows,
       info->>'release_mechanism' AS via
  FROM jl_releases WHERE target = 'gr_rel'::regclass;
-- every entry on the release's grid; the sketches of all vertices sum to about 0
SELECT bool_and(v / r.grid = round(v / r.grid)) AS on_grid
  FROM gr_rel, unnest(sketch) v, jl_releases r WHERE r.target = 'gr_rel'::regclass;
SELECT max(abs(t)) < 1e-6 AS rows_orthogonal_to_ones
  FROM (SELECT sum(sketch[k]) AS t FROM gr_rel, generate_series(1, 1000) k GROUP BY k) s;
-- the protected table's ledger is charged (epsilon, delta)
SELECT name, epsilon_spent, delta_spent FROM jl_budgets WHERE name = 'public.gr_edges';
SELECT event, epsilon, delta, what FROM jl_ledger WHERE dataset = 'public.gr_edges' ORDER BY id;

-- cut estimates within 8 standard deviations of the truth; the full set's
-- cut is 0 exactly up to rounding (its sketch sum is 0)
SELECT name, abs(jl_cut_size('gr_rel', s) - gr_truth(s)) <= 8 * jl_cut_size_stddev('gr_rel', s) + 1e-6 AS within_8_sd,
       jl_cut_size_stddev('gr_rel', s) > 0 AS sd_positive
  FROM gr_sets ORDER BY name;
SELECT jl_cut_size('gr_rel', '{}') AS empty_cut, jl_cut_size_stddev('gr_rel', '{}') AS empty_sd;
-- the aggregate over rows chosen in SQL equals the array form
SELECT abs(jl_cut_estimate('gr_rel', vertex, sketch) - jl_cut_size('gr_rel', ARRAY(SELECT generate_series(1, 300, 2)))) < 1e-6 AS agg_equals_array,
       abs(jl_cut_estimate_stddev('gr_rel', vertex, sketch) - jl_cut_size_stddev('gr_rel', ARRAY(SELECT generate_series(1, 300, 2)))) < 1e-6 AS agg_sd_equals_array
  FROM gr_rel WHERE vertex % 2 = 1;
SELECT jl_cut_estimate('gr_rel', vertex, sketch) IS NULL AS no_rows_null FROM gr_rel WHERE vertex < 0;
-- (the truth counted from the edges: each class mod 3 cuts 1400)
SELECT vertex % 3 AS part, gr_truth(array_agg(vertex)) AS truth,
       abs(jl_cut_estimate('gr_rel', vertex, sketch) - gr_truth(array_agg(vertex))) <= 8 * jl_cut_estimate_stddev('gr_rel', vertex, sketch) AS within_8_sd
  FROM gr_rel GROUP BY 1 ORDER BY 1;

-- repeats and reversed pairs are one edge: each edge four times, in both
-- orders, gives the same graph (unmerged, the odd cut would be 6000)
CREATE TABLE gr_dup AS
  SELECT row_number() OVER () AS id, x, y FROM (
    SELECT a AS x, b AS y FROM gr_edges UNION ALL SELECT b, a FROM gr_edges
    UNION ALL SELECT a, b FROM gr_edges UNION ALL SELECT b, a FROM gr_edges) e;
ALTER TABLE gr_dup ADD PRIMARY KEY (id);
SELECT dataset, d FROM jl_protect('gr_dup', 'id', ARRAY[jl_edge('x', 'y', 300)], epsilon_cap => 5, delta_cap => 1e-3);
SELECT released FROM jl_release('gr_dup', 'gr_dup_rel', 2.0, jl_graph(1000, 1e-6), key => 'pinned');
SELECT abs(jl_cut_size('gr_dup_rel', s) - gr_truth(s)) <= 8 * jl_cut_size_stddev('gr_dup_rel', s) AS merged
  FROM gr_sets WHERE name = 'odd';
SELECT name, epsilon_spent FROM jl_budgets WHERE name = 'public.gr_dup';
-- past the cap (2 spent, 4 more against 5): refused, nothing written
SELECT error($$SELECT jl_release('gr_dup', 'gr_bad', 4.0, jl_graph(1000, 1e-6), key => 'pinned')$$);
SELECT to_regclass('gr_bad') IS NULL AS no_target,
       (SELECT count(*) FROM jl_releases WHERE dataset = 'public.gr_dup') AS registry_rows,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.gr_dup') AS spent,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.gr_edges') AS edges_spent;
-- smallint and bigint columns; isolated vertices beyond the edges' range
-- (w0 = 2 x 2.3656^2 = 11.19 < 400)
CREATE TABLE gr_small AS
  SELECT id, a::int2 AS a, b::int8 AS b FROM gr_edges WHERE a < b AND b - a < 3;
ALTER TABLE gr_small ADD PRIMARY KEY (id);
SELECT dataset, d FROM jl_protect('gr_small', 'id', ARRAY[jl_edge('a', 'b', 400)], epsilon_cap => 10, delta_cap => 1e-2);
SELECT released FROM jl_release('gr_small', 'gr_small_rel', 4.0, jl_graph(50, 1e-3), key => 'pinned');
SELECT count(*) AS n FROM gr_small_rel;

-- bad input, each with its SQLSTATE; none charges the budget
SELECT epsilon_spent AS spent_before FROM jl_budgets WHERE name = 'public.gr_edges';
SELECT error($$SELECT jl_graph(0, 1e-6)$$);
SELECT error($$SELECT jl_graph(100001, 1e-6)$$);
SELECT error($$SELECT jl_graph(NULL, 1e-6)$$);
SELECT error($$SELECT jl_graph(10, 0)$$);
SELECT error($$SELECT jl_graph(10, 1)$$);
SELECT error($$SELECT jl_graph(10, NULL)$$);
SELECT error($$SELECT jl_release('gr_edges', 'gr_bad', 0, jl_graph(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release('gr_edges', 'gr_bad', 'Infinity', jl_graph(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release(NULL, 'gr_bad', 1.0, jl_graph(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release('gr_edges', NULL, 1.0, jl_graph(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release('gr_edges', 'a.b.c', 1.0, jl_graph(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release('gr_edges', 'gr_rel', 1.0, jl_graph(10, 1e-6), key => 'pinned')$$);
-- the endpoints and the vertices are the declaration's: refused by
-- jl_edge or jl_protect (and the declaration of gr_edges is unchanged)
SELECT error($$SELECT jl_edge('a', 'b', NULL)$$);
SELECT error($$SELECT jl_edge('a', 'b', 1)$$);
SELECT error($$SELECT jl_edge(NULL, 'b', 300)$$);
SELECT error($$SELECT jl_protect('gr_edges', 'id', ARRAY[jl_edge('a', 'nope', 300)], epsilon_cap => 10, delta_cap => 1e-4)$$);
CREATE TABLE gr_text AS SELECT id, a::text AS a, b FROM gr_edges;
ALTER TABLE gr_text ADD PRIMARY KEY (id);
SELECT error($$SELECT jl_protect('gr_text', 'id', ARRAY[jl_edge('a', 'b', 300)], epsilon_cap => 10, delta_cap => 1e-4)$$);
CREATE TABLE gr_float AS SELECT id, a, b::float8 AS b FROM gr_edges;
ALTER TABLE gr_float ADD PRIMARY KEY (id);
SELECT error($$SELECT jl_protect('gr_float', 'id', ARRAY[jl_edge('a', 'b', 300)], epsilon_cap => 10, delta_cap => 1e-4)$$);
SELECT relation, unit, neighbor, d FROM jl_protected WHERE relation = 'gr_edges'::regclass;
-- n r beyond the memory bound: refused before allocating or charging
CREATE TABLE gr_huge AS SELECT * FROM gr_edges;
ALTER TABLE gr_huge ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('gr_huge', 'id', ARRAY[jl_edge('a', 'b', 100000)], epsilon_cap => 10, delta_cap => 1e-4);
SELECT error($$SELECT jl_release('gr_huge', 'gr_bad', 1.0, jl_graph(400, 1e-6), key => 'pinned')$$);
-- the overlay weight must stay below n, with a hint: at epsilon 0.5, w0 =
-- 2 x 15.9775^2 = 510.56 (quadrature: 510.5636) is not below 300
SELECT error($$SELECT jl_release('gr_edges', 'gr_bad', 0.5, jl_graph(1000, 1e-6), key => 'pinned')$$);
SELECT to_regclass('gr_bad') IS NULL AS no_target,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.gr_edges') AS spent_after,
       (SELECT coalesce(sum(epsilon_spent), 0) FROM jl_budgets WHERE name = 'public.gr_huge') AS huge_spent;
-- rows 0.3 refused while reading (an endpoint outside 1..n, 0 or
-- negative, a self-loop, a NULL endpoint) are no edge to the pipeline:
-- they add nothing and fail nothing, and the release is charged once.
-- The edges of gr_edges plus six such rows: the odd cut is gr_edges' 1500
-- within 8 standard deviations, and the guarantee counts all 3006 rows
CREATE TABLE gr_odd AS SELECT id, a, b FROM gr_edges;
INSERT INTO gr_odd VALUES (3001, 0, 3), (3002, 5, 5), (3003, NULL, 3), (3004, NULL, NULL),
                          (3005, 301, 2), (3006, -1, 4);
ALTER TABLE gr_odd ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('gr_odd', 'id', ARRAY[jl_edge('a', 'b', 300)], epsilon_cap => 10, delta_cap => 1e-4);
SELECT released, guarantee LIKE '%how many (3006, each read once)%' AS all_rows_counted
  FROM jl_release('gr_odd', 'gr_odd_rel', 2.0, jl_graph(1000, 1e-6), key => 'pinned');
SELECT abs(jl_cut_size('gr_odd_rel', s) - 1500) <= 8 * jl_cut_size_stddev('gr_odd_rel', s) AS within_8_sd
  FROM gr_sets WHERE name = 'odd';
-- charged: the release made; the tables refused at their declaration
-- have no budget at all
SELECT v.name, coalesce(b.epsilon_spent, 0) AS spent, b.name IS NOT NULL AS declared
  FROM (VALUES ('public.gr_text'), ('public.gr_float'), ('public.gr_odd')) v(name)
  LEFT JOIN jl_budgets b ON b.name = v.name ORDER BY v.name;
-- an empty edge table is the empty graph: a valid release
CREATE TABLE gr_none (id int PRIMARY KEY, a int, b int);
SELECT d FROM jl_protect('gr_none', 'id', ARRAY[jl_edge('a', 'b', 300)], epsilon_cap => 10, delta_cap => 1e-4);
SELECT released IS NOT NULL AS empty_graph_released
  FROM jl_release('gr_none', 'gr_none_rel', 2.0, jl_graph(100, 1e-6), key => 'pinned');

-- the analyst's functions: bad input
SELECT error($$SELECT jl_cut_size('gr_rel', '{0}')$$);
SELECT error($$SELECT jl_cut_size('gr_rel', '{301}')$$);
SELECT error($$SELECT jl_cut_size('gr_rel', '{1,2,1}')$$);
SELECT error($$SELECT jl_cut_size('gr_rel', '{1,NULL}')$$);
SELECT error($$SELECT jl_cut_size('gr_rel', '{{1,2}}')$$);
SELECT jl_cut_size('gr_rel', NULL) IS NULL AS strict;
SELECT error($$SELECT jl_cut_size('gr_edges', '{1}')$$);
CREATE TABLE gr_points (id int PRIMARY KEY, a float8, b float8);
INSERT INTO gr_points SELECT i, i % 7, i % 5 FROM generate_series(1, 50) i;
SELECT d FROM jl_protect('gr_points', 'id', ARRAY[jl_numeric('a', 0, 7), jl_numeric('b', 0, 5)],
                         epsilon_cap => 10, delta_cap => 1e-4);
SELECT released FROM jl_release('gr_points', 'gr_cov', 1.0, jl_covariance_mechanism(10, 1e-6), key => 'pinned');
SELECT error($$SELECT jl_cut_size('gr_cov', '{1}')$$);
SELECT error($$SELECT jl_directional_variance('gr_rel', '{1}')$$);
SELECT error($$SELECT jl_recover_norm2('{1,2,3}', 'gr_rel'::regclass)$$);
SELECT error($$SELECT jl_cut_estimate('gr_rel', vertex, sketch) FROM gr_rel, generate_series(1, 2) WHERE vertex < 3$$);
SELECT error($$SELECT jl_cut_estimate('gr_rel', vertex + 300, sketch) FROM gr_rel WHERE vertex < 3$$);
SELECT error($$SELECT jl_cut_estimate('gr_rel', vertex, sketch[1:5]) FROM gr_rel WHERE vertex < 3$$);
SELECT error($$SELECT jl_cut_estimate('gr_rel', NULL, sketch) FROM gr_rel WHERE vertex < 3$$);
SELECT error($$SELECT jl_cut_estimate(CASE WHEN vertex = 1 THEN 'gr_rel' ELSE 'gr_none_rel' END::regclass, vertex, sketch) FROM gr_rel WHERE vertex < 3$$);
-- an altered release is detected
DELETE FROM gr_small_rel WHERE vertex = 3;
SELECT error($$SELECT jl_cut_size('gr_small_rel', '{1,3}')$$);
-- an analyst reads a release only with SELECT on it; releasing is a
-- curator's; a role without a jldp role calls nothing
CREATE ROLE gr_analyst;
SET ROLE gr_analyst;
SELECT error($$SELECT jl_cut_size('gr_rel', '{1}')$$) AS no_jldp_role;
RESET ROLE;
GRANT jldp_analyst TO gr_analyst;
SET ROLE gr_analyst;
SELECT error($$SELECT jl_cut_size('gr_rel', '{1}')$$);
-- the mechanism's constructor (folded first) and jl_release itself
SELECT error($$SELECT jl_release('gr_edges', 'gr_mine', 1.0, jl_graph(10, 1e-6), key => 'pinned')$$);
SELECT error($$SELECT jl_release('gr_edges', 'gr_mine', 1.0, NULL::jl_mechanism, key => 'pinned')$$);
RESET ROLE;
GRANT SELECT ON gr_rel TO gr_analyst;
SET ROLE gr_analyst;
SELECT jl_cut_size('gr_rel', '{1}') IS NOT NULL AS analyst_reads;
RESET ROLE;
REVOKE SELECT ON gr_rel FROM gr_analyst;
DROP ROLE gr_analyst;
