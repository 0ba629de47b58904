-- jldp 0.2.0 -> 0.3.0.  Each section below adds what the same section at
-- the end of jldp--0.3.0.sql adds to a fresh install.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.3.0'" to load this file. \quit

-- Budget boundary: charges committed before any output, releases charged to
-- the base relation they read, one contribution per privacy unit
-- (docs/threat_model.md, attacks 10 to 12) --------------------------------

-- a dataset names the column of its relation whose values are the privacy units
ALTER TABLE @extschema@.jldp_dataset ADD COLUMN unit text;
CREATE OR REPLACE VIEW @extschema@.jl_budgets WITH (security_barrier) AS
  SELECT name, epsilon_cap, delta_cap, epsilon_spent, delta_spent,
         epsilon_cap - epsilon_spent AS epsilon_remaining,
         delta_cap - delta_spent AS delta_remaining,
         source, owner, created, spenders, unit
  FROM @extschema@.jldp_dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);

-- jl_dataset_declare takes the unit; the roles allowed to run it keep it
DO $$
DECLARE
  grantees text[];
  g text;
BEGIN
  SELECT pg_catalog.array_agg(a.grantee::regrole::text) INTO grantees
  FROM pg_catalog.pg_proc p, pg_catalog.aclexplode(p.proacl) a
  WHERE p.oid = '@extschema@.jl_dataset_declare(text, float8, float8, regclass)'::regprocedure
    AND a.privilege_type = 'EXECUTE' AND a.grantee <> 0 AND a.grantee <> p.proowner;
  DROP FUNCTION @extschema@.jl_dataset_declare(text, float8, float8, regclass);
  CREATE FUNCTION @extschema@.jl_dataset_declare(name text, epsilon_cap float8,
      delta_cap float8 DEFAULT 0, source regclass DEFAULT NULL, unit text DEFAULT NULL)
  RETURNS void
  AS 'MODULE_PATHNAME', 'jl_dataset_declare'
  LANGUAGE C VOLATILE PARALLEL UNSAFE;
  COMMENT ON FUNCTION @extschema@.jl_dataset_declare(text, float8, float8, regclass, text) IS
    'Declare a protected dataset with a privacy budget cap (epsilon, delta), owned by the calling role. Binding it to a source relation (a table, partitioned table or foreign table; not a view or a partition) takes the relation''s owner, a member of its role, or a superuser; releases of the relation, of its partitions and of simple views of it are charged to it. unit names the column of source whose values are the privacy units: releases must then be by that column.';
  REVOKE ALL ON FUNCTION @extschema@.jl_dataset_declare(text, float8, float8, regclass, text) FROM PUBLIC;
  FOREACH g IN ARRAY coalesce(grantees, '{}') LOOP
    EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION @extschema@.jl_dataset_declare(text, float8, float8, regclass, text) TO %s', g);
  END LOOP;
END $$;

COMMENT ON FUNCTION @extschema@.jl_budget_reserve(text, float8, float8) IS
  'Charge (epsilon, delta) to a dataset now, committed at once (a ROLLBACK leaves it), for one jl_private_release_agg later in the same transaction of the same session; only the dataset''s owner, a member of the owner''s role or a superuser (the aggregate cannot see a privacy unit repeated by its query: granted spenders release with jl_release_table or jl_release_long). Returns the ledger id.';
COMMENT ON FUNCTION @extschema@.jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8, text, text, float8, float8, float8, text, text, float8, float8, text, float8, bigint) IS
  'Release every row of source into a new table target (id, sketch float8[]) owned by the caller: one float8[] column or several numeric columns as the vector, optional clipping (clip_lo/clip_hi for element neighbours, bound = hi - lo; clip_norm C for row neighbours, bound = 2C), projection kind and noise (''laplace'' (NULL) or ''gaussian'' with delta) as jl_private_release, charged (epsilon, delta), committed before anything is read, to the dataset of the relation source reads (a partition''s partitioned table, a simple view''s table; default: the one declared for it, else one named after it; dataset => must be bound to it), with id_column unique by a primary key or unique constraint (one row per privacy unit) and recorded in jl_releases with the projection kind and the noise (info->>''noise''). k and epsilon are required, except that kind ''auto'' (k left out) releases with the kind, k and noise that jl_advise ranks first for d, epsilon, neighbor, bound, noise (NULL: Laplace, and Gaussian when delta is given), delta, goal (NULL: ''distance''), cluster_var, n and dist2 (NULL: d bound^2/6 for element neighbours, bound^2/2 for row neighbours): public inputs only, no value of the data is read before the choice; info records chosen_by and the advice. Returns the registry id.';

-- Budget boundary: long-format releases grouped by their privacy unit -------
-- (docs/threat_model.md, attack 10)
CREATE FUNCTION @extschema@.jl_release_long(
    source regclass, unit_column text, attr_column text, value_column text,
    d int, target text, k int, epsilon float8,
    neighbor text DEFAULT 'element', bound float8 DEFAULT 1,
    calibration text DEFAULT NULL, delta float8 DEFAULT NULL,
    key text DEFAULT 'default', dataset text DEFAULT NULL,
    kind text DEFAULT 'rademacher', noise text DEFAULT 'laplace')
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_release_long'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_release_long(regclass, text, text, text, int, text, int, float8, text, float8, text, float8, text, text, text, text) IS
  'Release long-format rows (unit, attr 1..d, value) of source into a new table target (id, sketch float8[]) owned by the caller: one sketch per value of unit_column, as jl_private_release_agg of GROUP BY unit_column (duplicate attributes summed, NULL values skipped), grouped by this function itself so that each privacy unit contributes one group. source is a table, a partition or a simple view of one; charged (epsilon, delta), committed before anything is read, to the dataset of the relation it reads (dataset => must be bound to it; its declared unit must be unit_column), and recorded in jl_releases. Options as jl_private_release_agg. Returns the registry id.';
REVOKE ALL ON FUNCTION @extschema@.jl_release_long(regclass, text, text, text, int, text, int, float8, text, float8, text, float8, text, text, text, text) FROM PUBLIC;

-- the registry view looks up no dropped target
CREATE OR REPLACE VIEW @extschema@.jl_releases WITH (security_barrier) AS
  SELECT id, target, source, id_column, vector, d, k, projection, neighbor, bound,
         clipping, calibration, epsilon, delta, noise_variance, grid, key_fingerprint,
         dataset, info, version, released_at, released_by
  FROM @extschema@.jldp_release
  -- a dropped target is not looked up (each lookup of a missing OID would
  -- stay in the session's catalog cache)
  WHERE CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = target)
             THEN pg_catalog.has_table_privilege(target, 'SELECT') ELSE false END;
