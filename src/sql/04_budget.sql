-- the budgets of protected tables and their ledger: the views (a budget is
-- declared by jl_protect and managed by its table: 13_protected_tables.sql)

-- what the current role may see: datasets it owns (superusers: all, also
-- those whose owner no longer exists)
CREATE VIEW jldp.jl_budgets WITH (security_barrier) AS
  SELECT name, epsilon_cap, delta_cap, epsilon_spent, delta_spent,
         epsilon_cap - epsilon_spent AS epsilon_remaining,
         delta_cap - delta_spent AS delta_remaining,
         source, owner, created, spenders, unit,
         -- the tightest valid composition at delta_cap (docs/design/accounting.md)
         epsilon_composed, delta_composed, composed_by
  FROM jldp_internal.jldp_dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
     OR pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole('jldp_budget_admin'), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);

COMMENT ON VIEW jldp.jl_budgets IS
  'Protected datasets with their caps, spent and remaining (epsilon, delta) by basic composition (the sums), owner and granted spenders, and the charges since the last reset composed at delta_cap by the tightest valid accounting (epsilon_composed, delta_composed, composed_by: basic, rdp or pld; a release is admitted when either stays within the caps), for the datasets owned by the current role or a role it inherits (budget administrators and superusers: all).';

-- the ledger as roles see it (after the registry, which tells whether a
-- release recorded a charge)
CREATE VIEW jldp.jl_ledger WITH (security_barrier) AS
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
