-- jldp 0.4.0 -> 0.4.1.  Edge tables (jl_edge) released by the pipeline's
-- graph mechanism (jl_graph); jl_budget_book charges a protected table
-- for a release made with an unbudgeted primitive; as jldp--0.4.1.sql
-- defines them.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.4.1'" to load this file. \quit

ALTER TYPE @extschema@.jl_encoding ADD VALUE 'edge';
COMMENT ON TYPE @extschema@.jl_encoding IS
  'How a declared attribute enters the row vector: a number clamped and scaled, a category one-hot, a float8[] of fixed length clamped and scaled element by element, long-format rows (unit, attribute, value) as the elements of a vector of d, an edge (u, v) as its incidence vector over the vertices.';
COMMENT ON TYPE @extschema@.jl_mechanism IS
  'What jl_release releases with, built by a mechanism''s constructor (jl_sketch, jl_covariance_mechanism, jl_graph).';

-- a booked charge is no release's
CREATE OR REPLACE VIEW @extschema@.jl_ledger WITH (security_barrier) AS
  SELECT l.id, l.dataset, l.event, l.epsilon, l.delta, l.epsilon_spent, l.delta_spent,
         l.what, l.role, l.at,
         -- a charge is committed before its release reads a row: false when
         -- no release recorded it (it failed or was cancelled after the
         -- charge, or is still running); a protected table's dist2 (a value)
         -- marks its charge when it returns; NULL for other events and for
         -- 0.3's jl_release_dist2, whose result was returned, not recorded,
         -- and for a booked charge (jl_budget_book), which no release records
         CASE WHEN l.event <> 'charge' THEN NULL
              WHEN l.what = 'jl_budget_book' OR l.what LIKE 'jl_budget_book: %' THEN NULL
              WHEN l.what LIKE 'jl_release_dist2 (declared) %' THEN l.what LIKE '% (returned)'
              WHEN l.what LIKE 'jl_release_dist2 %' THEN NULL
              ELSE EXISTS (SELECT 1 FROM @extschema@.jldp_release r WHERE r.ledger_id = l.id)
         END AS released
  FROM @extschema@.jldp_ledger l JOIN @extschema@.jldp_dataset d ON d.name = l.dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(d.owner)), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
REVOKE ALL ON @extschema@.jl_ledger FROM PUBLIC;
GRANT SELECT ON @extschema@.jl_ledger TO PUBLIC;


-- Edge tables and the graph mechanism; booking an unbudgeted release (0.4.1)

CREATE FUNCTION @extschema@.jl_edge(u text, v text, vertices int)
RETURNS @extschema@.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN @extschema@.jl_attribute_checked(ROW(u, 'edge'::text, NULL, NULL, 1, NULL, vertices, v)::@extschema@.jl_attribute);
COMMENT ON FUNCTION @extschema@.jl_edge(text, text, int) IS
  'An edge table''s one attribute: integer columns u and v are an undirected edge of vertices 1 to vertices (public); a row whose endpoints are NULL, equal or outside 1..vertices is no edge, and repeated or reversed pairs are one edge. Released with jl_graph.';

CREATE FUNCTION @extschema@.jl_graph(r int, delta float8)
RETURNS @extschema@.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN @extschema@.jl_mechanism_checked(ROW('graph', NULL, NULL, NULL, delta, NULL, r, NULL, NULL)::@extschema@.jl_mechanism);
COMMENT ON FUNCTION @extschema@.jl_graph(int, float8) IS
  'The graph mechanism for jl_release over a table declared with jl_edge (Blocki et al.): one sketch of r entries per vertex, R = Y E with E the edges overlaid with a weighted complete graph, the weight from an exact accountant for (epsilon, delta) against one edge row replaced; jl_cut_size estimates cuts from it.';

CREATE FUNCTION @extschema@.jl_budget_book(protected regclass, epsilon float8, delta float8 DEFAULT 0,
    note text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_budget_book'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_budget_book(regclass, float8, float8, text) IS
  'Charge a protected table''s budget at once, durably and within its caps, for a release made with an unbudgeted primitive (jl_private_release, jl_private_release_agg, jl_project): returns the ledger row''s id. Nothing checks what the primitive reads.';
REVOKE ALL ON FUNCTION @extschema@.jl_budget_book(regclass, float8, float8, text) FROM PUBLIC;
