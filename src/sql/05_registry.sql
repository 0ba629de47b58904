-- the release registry as a role may read it

-- an analyst sees the record of a release exactly when it can read the target
CREATE VIEW jldp.jl_releases WITH (security_barrier) AS
  SELECT id, target, source, id_column, vector, d, k, projection, neighbor, bound,
         clipping, calibration, epsilon, delta, noise_variance, grid, key_fingerprint,
         dataset, info, version, released_at, released_by
  FROM jldp_internal.jldp_release
  -- a dropped target is not looked up (each lookup of a missing OID would
  -- stay in the session's catalog cache)
  WHERE CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = target)
             THEN pg_catalog.has_table_privilege(target, 'SELECT') ELSE false END;

COMMENT ON VIEW jldp.jl_releases IS
  'Release registry: one row per table release, visible to roles that can read its target.';
