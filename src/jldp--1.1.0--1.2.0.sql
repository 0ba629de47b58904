-- jldp 1.1.0 -> 1.2.0:
--  - a Gaussian release's charge records the Gaussian shift that dominates
--    its discrete noise (jldp_ledger.mu, shown by jl_ledger), and the
--    accountant composes such charges by their privacy loss distribution;
--    the charges written before this update carry no mu and compose by
--    Renyi DP, as they did;
--  - jl_kmeans_mechanism: differentially private k-means over a protected
--    table, released by jl_release as its clusters (granted to
--    jldp_curator).
-- Keys, grants, declarations, the ledger's rows, the registry and released
-- tables are kept.

\echo Use "ALTER EXTENSION jldp UPDATE TO '1.2.0'" to load this file. \quit

ALTER TABLE jldp_internal.jldp_ledger ADD COLUMN mu float8;

CREATE OR REPLACE VIEW jldp.jl_ledger WITH (security_barrier) AS
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
              ELSE EXISTS (SELECT 1 FROM jldp_internal.jldp_release r WHERE r.ledger_id = l.id)
         END AS released,
         l.profile, l.rho, l.epsilon_composed, l.delta_composed, l.composed_by, l.mu
  FROM jldp_internal.jldp_ledger l JOIN jldp_internal.jldp_dataset d ON d.name = l.dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(d.owner)), 'USAGE')
     OR pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole('jldp_budget_admin'), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);

COMMENT ON VIEW jldp.jl_ledger IS
  'The budget ledger of the datasets jl_budgets shows to the current role: each event with the (epsilon, delta) it asked for and the totals after it; for a charge, whether a release recorded it (released) and its privacy profile (pure, zcdp with rho and, when known, the Gaussian shift mu that dominates it, or approx); after each event, the composed totals (epsilon_composed at delta_composed, by composed_by), which anyone can recompute from the profiles since the last reset.';

CREATE FUNCTION jldp.jl_kmeans_mechanism(k int, delta float8, iterations int DEFAULT NULL)
RETURNS jldp.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_mechanism_checked(ROW('kmeans', k, NULL, NULL, delta, NULL, iterations, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jldp.jl_mechanism);

COMMENT ON FUNCTION jldp.jl_kmeans_mechanism(int, float8, int) IS
  'The k-means mechanism for jl_release: differentially private k-means over the encoded rows, released as k clusters (cluster, size, centroid in the attributes'' units, encoded centroid); iterations noisy Lloyd steps (left out: Su et al.''s choice from n, k, d and epsilon, 2 to 7) from centroids spread over the public box, each releasing every cluster''s sum and count with discrete Gaussian noise, composed exactly for (epsilon, delta) (docs/design/dp_kmeans.md).  k at most the number of units.';

REVOKE ALL ON FUNCTION jldp.jl_kmeans_mechanism(int, float8, int) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION jldp.jl_kmeans_mechanism(int, float8, int) TO jldp_curator;
