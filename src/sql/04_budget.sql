-- datasets' budgets: declared, capped, reset, spent by granted roles; the views

CREATE FUNCTION jldp.jl_dataset_declare(name text, epsilon_cap float8,
    delta_cap float8 DEFAULT 0, source regclass DEFAULT NULL, unit text DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_dataset_declare'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_dataset_declare(text, float8, float8, regclass, text) IS
  'Declare a dataset with a privacy budget cap (epsilon, delta), owned by the calling role. Binding it to a source relation (a table, partitioned table or foreign table; not a view or a partition) takes the relation''s owner, a member of its role, or a superuser; jl_protect of that relation then declares the protected table on it, keeping its name, caps and ledger. unit names the column of source whose values are the privacy units: its declaration must then use that unit.';

CREATE FUNCTION jldp.jl_dataset_set_cap(name text, epsilon_cap float8, delta_cap float8 DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_dataset_set_cap'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_dataset_set_cap(text, float8, float8) IS
  'Change a dataset''s cap (its owner, a member of the owner''s role, or a superuser); recorded in the ledger.';

CREATE FUNCTION jldp.jl_dataset_reset(name text)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_dataset_reset'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_dataset_reset(text) IS
  'Set a dataset''s spent budget back to 0 (its owner, a member of the owner''s role, or a superuser); recorded in the ledger.';

-- what the current role may see: datasets it owns (superusers: all, also
-- those whose owner no longer exists)
CREATE VIEW jldp.jl_budgets WITH (security_barrier) AS
  SELECT name, epsilon_cap, delta_cap, epsilon_spent, delta_spent,
         epsilon_cap - epsilon_spent AS epsilon_remaining,
         delta_cap - delta_spent AS delta_remaining,
         source, owner, created, spenders, unit
  FROM jldp_internal.jldp_dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
     OR pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole('jldp_budget_admin'), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);

COMMENT ON VIEW jldp.jl_budgets IS
  'Protected datasets with their caps, spent and remaining (epsilon, delta), owner and granted spenders, for the datasets owned by the current role or a role it inherits (budget administrators and superusers: all).';

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
         END AS released
  FROM jldp_internal.jldp_ledger l JOIN jldp_internal.jldp_dataset d ON d.name = l.dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(d.owner)), 'USAGE')
     OR pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole('jldp_budget_admin'), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);

COMMENT ON VIEW jldp.jl_ledger IS
  'The budget ledger of the datasets jl_budgets shows to the current role: each event with the (epsilon, delta) it asked for and the totals after it; for a charge, whether a release recorded it (released).';

-- Choosing the release: no projection or a projection kind --------------------
-- PARALLEL SAFE: every candidate is calibrated in-process, through neither
-- SPI nor a subtransaction.
-- Budget boundary: spending granted by a dataset's owner, and DROP
-- EXTENSION guarded (docs/threat_model.md) ---------------------------------
CREATE FUNCTION jldp_internal.jl_dataset_grant(name text, spender regrole)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_dataset_grant'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp_internal.jl_dataset_grant(text, regrole) IS
  'Allow a role (and its members) to spend a dataset''s budget: releases charged to it and bookings (jl_budget_book). Its owner, a member of the owner''s role, or a superuser; recorded in the ledger.';

CREATE FUNCTION jldp_internal.jl_dataset_revoke(name text, spender regrole)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_dataset_revoke'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp_internal.jl_dataset_revoke(text, regrole) IS
  'Withdraw what jl_dataset_grant allowed. Its owner, a member of the owner''s role, or a superuser; recorded in the ledger.';
