-- Graph cut release (Blocki et al.): the release, the registry, the budget,
-- cut estimates by array and by aggregate, and every bad input.  Noisy
-- values are checked against 8 plug-in standard deviations (a chi-square(r)
-- / r with r = 1000 beyond that: probability below 1e-10).
-- A circulant graph on 300 vertices: i joined to i+1, ..., i+10 (mod 300),
-- 3000 edges; the odd vertices are cut from the even ones by the 1500 edges
-- of odd offset.
CREATE TABLE gr_edges AS
  SELECT i AS a, ((i - 1 + k) % 300) + 1 AS b
  FROM generate_series(1, 300) i, generate_series(1, 10) k;
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

SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'gr_rel', 1000, 2.0, 1e-6) > 0 AS released;
SELECT count(*) AS n, min(array_length(sketch, 1)) AS r, min(vertex) AS first, max(vertex) AS last FROM gr_rel;
-- the registry: w from public inputs (n, r, epsilon, delta); the edge count is not recorded
SELECT source, id_column, vector, d, k, projection, neighbor, clipping, calibration,
       epsilon, delta, key_fingerprint, dataset, info->>'mechanism' AS mechanism,
       round((info->>'w0')::numeric, 4) AS w0, round((info->>'w')::numeric, 4) AS w,
       round((info->>'w_paper')::numeric, -6) AS w_paper,
       (info->>'w_delta_computed')::float8 <= delta AS accountant_meets_delta,
       info ? 'rows' OR info ? 'edges_count' AS edge_count_recorded
  FROM jl_releases WHERE target = 'gr_rel'::regclass;
-- every entry on the release's grid; the sketches of all vertices sum to about 0
SELECT bool_and(v / r.grid = round(v / r.grid)) AS on_grid
  FROM gr_rel, unnest(sketch) v, jl_releases r WHERE r.target = 'gr_rel'::regclass;
SELECT max(abs(t)) < 1e-6 AS rows_orthogonal_to_ones
  FROM (SELECT sum(sketch[k]) AS t FROM gr_rel, generate_series(1, 1000) k GROUP BY k) s;
-- the default dataset of the edges is charged (epsilon, delta)
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
  SELECT a AS x, b AS y FROM gr_edges UNION ALL SELECT b, a FROM gr_edges
  UNION ALL SELECT a, b FROM gr_edges UNION ALL SELECT b, a FROM gr_edges;
SELECT jl_dataset_declare('gr_data', 5, 1e-3, source => 'gr_dup') IS NOT NULL AS declared;
SELECT jl_release_graph('gr_dup', 'x', 'y', 300, 'gr_dup_rel', 1000, 2.0, 1e-6, dataset => 'gr_data') > 0 AS released;
SELECT abs(jl_cut_size('gr_dup_rel', s) - gr_truth(s)) <= 8 * jl_cut_size_stddev('gr_dup_rel', s) AS merged
  FROM gr_sets WHERE name = 'odd';
SELECT name, epsilon_spent FROM jl_budgets WHERE name = 'gr_data';
-- a release of a view over the edges is charged to the table's dataset
CREATE VIEW gr_dup_view AS SELECT y AS u, x AS v FROM gr_dup WHERE x < y;
SELECT jl_release_graph('gr_dup_view', 'u', 'v', 300, 'gr_view_rel', 1000, 2.0, 1e-6) > 0 AS released;
SELECT source, dataset FROM jl_releases WHERE target = 'gr_view_rel'::regclass;
SELECT count(*) AS datasets_of_view FROM jl_budgets WHERE name LIKE '%gr_dup_view%';
-- a dataset not bound to the relation read is refused, uncharged: one bound
-- to another relation, one bound to none
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'gr_bad', 10, 0.5, 1e-6, dataset => 'gr_data')$$);
SELECT jl_dataset_declare('gr_loose', 100) IS NOT NULL AS declared;
SELECT error($$SELECT jl_release_graph('gr_dup', 'x', 'y', 300, 'gr_bad', 10, 0.5, 1e-6, dataset => 'gr_loose')$$);
-- past the cap (5): refused, by name or through the view, nothing written
SELECT error($$SELECT jl_release_graph('gr_dup', 'x', 'y', 300, 'gr_bad', 1000, 2.0, 1e-6, dataset => 'gr_data')$$);
SELECT error($$SELECT jl_release_graph('gr_dup_view', 'u', 'v', 300, 'gr_bad', 1000, 2.0, 1e-6)$$);
SELECT to_regclass('gr_bad') IS NULL AS no_target,
       (SELECT count(*) FROM jl_releases WHERE dataset = 'gr_data') AS registry_rows,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'gr_data') AS spent,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'gr_loose') AS loose_spent,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.gr_edges') AS edges_spent;
-- smallint and bigint columns; isolated vertices beyond the edges' range
CREATE TABLE gr_small AS SELECT a::int2 AS a, b::int8 AS b FROM gr_edges WHERE a < b AND b - a < 3;
SELECT jl_release_graph('gr_small', 'a', 'b', 400, 'gr_small_rel', 50, 4.0, 1e-3) > 0 AS released;
SELECT count(*) AS n FROM gr_small_rel;

-- bad input, each with its SQLSTATE; none charges the budget except an
-- endpoint outside 1..n, found while the edges are read: the charge was
-- committed before the first row (n = 299 below, 1 more spent)
SELECT epsilon_spent AS spent_before FROM jl_budgets WHERE name = 'public.gr_edges';
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'gr_bad', 0, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'gr_bad', 100001, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'gr_bad', 10, 0, 1e-6)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'gr_bad', 10, 'Infinity', 1e-6)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'gr_bad', 10, 1.0, 0)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'gr_bad', 10, 1.0, 1)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'gr_bad', 10, 1.0, NULL)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', NULL, 'gr_bad', 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 1, 'gr_bad', 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_graph(NULL, 'a', 'b', 300, 'gr_bad', 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', NULL, 'b', 300, 'gr_bad', 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'nope', 300, 'gr_bad', 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, NULL, 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'a.b.c', 10, 1.0, 1e-6)$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'gr_rel', 10, 1.0, 1e-6)$$);
CREATE TABLE gr_text AS SELECT a::text AS a, b FROM gr_edges;
SELECT error($$SELECT jl_release_graph('gr_text', 'a', 'b', 300, 'gr_bad', 10, 1.0, 1e-6)$$);
CREATE TABLE gr_float AS SELECT a, b::float8 AS b FROM gr_edges;
SELECT error($$SELECT jl_release_graph('gr_float', 'a', 'b', 300, 'gr_bad', 10, 1.0, 1e-6)$$);
-- vertices outside 1..n, self-loops, NULL endpoints
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 299, 'gr_bad', 10, 1.0, 1e-6)$$);
CREATE TABLE gr_zero (a int, b int);
INSERT INTO gr_zero VALUES (1, 2), (0, 3);
SELECT error($$SELECT jl_release_graph('gr_zero', 'a', 'b', 300, 'gr_bad', 10, 1.0, 1e-6)$$);
CREATE TABLE gr_loop (a int, b int);
INSERT INTO gr_loop VALUES (1, 2), (5, 5);
SELECT error($$SELECT jl_release_graph('gr_loop', 'a', 'b', 300, 'gr_bad', 10, 1.0, 1e-6)$$);
CREATE TABLE gr_null (a int, b int);
INSERT INTO gr_null VALUES (1, 2), (NULL, 3);
SELECT error($$SELECT jl_release_graph('gr_null', 'a', 'b', 300, 'gr_bad', 10, 1.0, 1e-6)$$);
INSERT INTO gr_null VALUES (NULL, NULL);
DELETE FROM gr_null WHERE a IS NULL AND b = 3;
SELECT error($$SELECT jl_release_graph('gr_null', 'a', 'b', 300, 'gr_bad', 10, 1.0, 1e-6)$$);
-- n r beyond the memory bound: refused before allocating or charging
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 100000, 'gr_bad', 400, 1.0, 1e-6)$$);
-- the overlay weight must stay below n, with a hint
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'gr_bad', 1000, 0.5, 1e-6)$$);
SELECT to_regclass('gr_bad') IS NULL AS no_target,
       (SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.gr_edges') AS spent_after;
-- the edge tables refused while read are charged too (gr_null twice); those
-- refused from their schema (text, float8 columns) are not
SELECT v.name, coalesce(b.epsilon_spent, 0) AS spent
  FROM (VALUES ('public.gr_text'), ('public.gr_float'), ('public.gr_zero'), ('public.gr_loop'), ('public.gr_null')) v(name)
  LEFT JOIN jl_budgets b ON b.name = v.name ORDER BY v.name;
-- an empty edge table is the empty graph: a valid release
CREATE TABLE gr_none (a int, b int);
SELECT jl_release_graph('gr_none', 'a', 'b', 300, 'gr_none_rel', 100, 2.0, 1e-6) > 0 AS empty_graph_released;

-- the analyst's functions: bad input
SELECT error($$SELECT jl_cut_size('gr_rel', '{0}')$$);
SELECT error($$SELECT jl_cut_size('gr_rel', '{301}')$$);
SELECT error($$SELECT jl_cut_size('gr_rel', '{1,2,1}')$$);
SELECT error($$SELECT jl_cut_size('gr_rel', '{1,NULL}')$$);
SELECT error($$SELECT jl_cut_size('gr_rel', '{{1,2}}')$$);
SELECT jl_cut_size('gr_rel', NULL) IS NULL AS strict;
SELECT error($$SELECT jl_cut_size('gr_edges', '{1}')$$);
SELECT jl_release_covariance('gr_small', '{a,b}', 'gr_cov', 10, 1.0, 1e-6) > 0 AS covariance;
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
-- an analyst reads a release only with SELECT on it; releasing needs a grant
CREATE ROLE gr_analyst;
SET ROLE gr_analyst;
SELECT error($$SELECT jl_cut_size('gr_rel', '{1}')$$);
SELECT error($$SELECT jl_release_graph('gr_edges', 'a', 'b', 300, 'gr_mine', 10, 1.0, 1e-6)$$);
RESET ROLE;
GRANT SELECT ON gr_rel TO gr_analyst;
SET ROLE gr_analyst;
SELECT jl_cut_size('gr_rel', '{1}') IS NOT NULL AS analyst_reads;
RESET ROLE;
REVOKE SELECT ON gr_rel FROM gr_analyst;
DROP ROLE gr_analyst;
