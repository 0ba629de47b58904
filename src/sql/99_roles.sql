-- roles: who may do what, and the hint a permission error carries

-- the role a permission error's hint names for a routine or view (0.5.0)
CREATE FUNCTION jldp_internal.jl_role_hint(name text) RETURNS text
AS 'MODULE_PATHNAME', 'jl_role_hint'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION jldp_internal.jl_role_hint(text) IS
  'The role that a permission error on routine or view name says has it (the hint''s table, compared with the grants by the roles test).';

-- Roles: who may do what ----------------------------------------------------
-- Three NOLOGIN roles, created when absent (roles belong to the cluster:
-- another database's jldp may have created them), each holding exactly the
-- grants its job needs; a person is set up with one GRANT, e.g.
-- GRANT jldp_curator TO alice.  Nothing in jldp is granted to PUBLIC.
DO $roles$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['jldp_analyst', 'jldp_curator', 'jldp_budget_admin'] LOOP
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) r) THEN
      EXECUTE pg_catalog.format('CREATE ROLE %I NOLOGIN', r);
    END IF;
  END LOOP;
  -- a curator may do everything an analyst may
  IF NOT pg_catalog.pg_has_role('jldp_curator', 'jldp_analyst', 'MEMBER') THEN
    GRANT jldp_analyst TO jldp_curator;
  END IF;
END
$roles$;
COMMENT ON ROLE jldp_analyst IS
  'jldp: reads releases (jldp.jl_releases) and recovers, searches and clusters over the released tables it may SELECT; never a key, a projection or a raw row.';
COMMENT ON ROLE jldp_curator IS
  'jldp: an analyst that also owns keys, declares its tables protected, releases them, and asks the advisor; spends budgets, cannot refill them.';
COMMENT ON ROLE jldp_budget_admin IS
  'jldp: raises caps and resets spent budgets of any protected table, and reads every budget and the whole ledger.';

-- every role may look names up in jldp, so that a call it may not make is
-- answered "permission denied" (with the role that has it), not "does not
-- exist"; what it may call is what its roles were granted
REVOKE ALL ON SCHEMA jldp, jldp_internal FROM PUBLIC;
GRANT USAGE ON SCHEMA jldp TO PUBLIC;
-- the curator's calls of jldp's SQL functions reach the internal steps they
-- run as their caller (the constructors' checks, the distributed release's
-- steps, on a coordinator and on each shard)
GRANT USAGE ON SCHEMA jldp_internal TO jldp_curator;

-- each routine of the two schemas revoked from PUBLIC, then granted to the
-- one role whose list names it; a routine in no list (and not listed as a
-- superuser's or an internal step no role calls) fails the script
DO $grants$
DECLARE
  analyst text[] := ARRAY[
    'jl_recover_dist', 'jl_recover_dist_stddev', 'jl_recover_inner', 'jl_recover_inner_stddev',
    'jl_recover_norm2', 'jl_recover_norm2_stddev', 'jl_recover_dist_rr', 'jl_recover_dist_rr_stddev',
    'jl_knn', 'jl_kmeans', 'jl_kmeans_lloyd', 'jl_kmeans_labels', 'jl_nearest_centroid', 'jl_lloyd_step', 'jl_vector_sum',
    'jl_lloyd_update', 'jl_pca', 'jl_covariance', 'jl_directional_variance',
    'jl_directional_variance_stddev', 'jl_least_squares', 'jl_cut_size', 'jl_cut_size_stddev',
    'jl_cut_estimate', 'jl_cut_estimate_stddev', 'jl_linear_fit', 'jl_linear_fit_intercept',
    'jl_linear_predict', 'jl_nullspace_clean', 'jl_min_dim', 'jl_discrete_laplace_variance',
    'jl_rr_flip_probability', 'jldp_version', 'jl_kmeans_options', 'jl_linear_options',
    -- internal steps an analyst's call runs as the analyst (the options'
    -- checks, the cast of n_clusters)
    'jl_kmeans_options_checked', 'jl_kmeans_options_of', 'jl_linear_options_checked'];
  curator text[] := ARRAY[
    'jl_key_create', 'jl_key_drop', 'jl_key_export', 'jl_master_key_id', 'jl_key_grant', 'jl_key_revoke',
    'jl_protect', 'jl_numeric', 'jl_category', 'jl_vector', 'jl_long', 'jl_edge',
    'jl_protect_grant', 'jl_protect_revoke', 'jl_set_cap',
    'jl_sketch', 'jl_advised', 'jl_covariance_mechanism', 'jl_graph', 'jl_kmeans_mechanism',
    'jl_release', 'jl_release_dist2', 'jl_release_distributed', 'jl_distributed_resolve',
    'jl_budget_book', 'jl_advise', 'jl_suggest_k', 'jl_suggest_k_info', 'jl_release_info',
    'jl_private_release', 'jl_private_release_agg', 'jl_project', 'jl_project_agg',
    'jl_randomized_response', 'jl_add_discrete_laplace',
    -- internal steps a curator's call runs as the curator
    'jl_attribute_checked', 'jl_mechanism_checked',
    'jl_encode_number', 'jl_encode_category', 'jl_encode_vector',
    'jl_distributed_run', 'jl_declaration_info', 'jl_shard_bounds', 'jl_release_part',
    'jl_release_part_check', 'jl_distributed_begin_declared', 'jl_distributed_charge_declared',
    'jl_distributed_decide_declared', 'jl_distributed_decision', 'jl_distributed_pending',
    'jl_distributed_committed'];
  budget_admin text[] := ARRAY['jl_reset'];
  -- superusers only: keys pinned to known bytes or carried in, re-wrapping
  superuser text[] := ARRAY['jl_key_import', 'jl_key_import_wrapped', 'jl_key_rewrap'];
  -- aggregate support functions and triggers: run by their aggregate's or
  -- trigger's owner, never called by a role
  nobody text[] := ARRAY[
    'jl_agg_combine', 'jl_agg_serialize', 'jl_agg_deserialize', 'jl_private_release_agg_final',
    'jl_project_agg_mechanism_trans', 'jl_project_agg_final', 'jl_release_agg_trans',
    'jl_kmeans_trans', 'jl_kmeans_combine', 'jl_kmeans_serialize', 'jl_kmeans_deserialize',
    'jl_kmeans_final', 'jl_linear_fit_trans', 'jl_linear_fit_combine', 'jl_linear_fit_serialize',
    'jl_linear_fit_deserialize', 'jl_linear_fit_final', 'jl_linear_fit_intercept_final',
    'jl_lloyd_step_trans', 'jl_vector_sum_trans', 'jl_cut_trans', 'jl_cut_estimate_final',
    'jl_cut_estimate_stddev_final', 'jl_drop_guard', 'jl_key_table_changed', 'jl_role_hint'];
  f record;
  who text;
BEGIN
  FOR f IN
    SELECT p.oid::pg_catalog.regprocedure AS sig, p.proname::text AS name
      FROM pg_catalog.pg_proc p
     WHERE p.pronamespace IN ('jldp'::pg_catalog.regnamespace, 'jldp_internal'::pg_catalog.regnamespace)
     ORDER BY p.oid::pg_catalog.regprocedure::text
  LOOP
    EXECUTE pg_catalog.format('REVOKE ALL ON ROUTINE %s FROM PUBLIC', f.sig);
    who := CASE WHEN f.name = ANY (analyst) THEN 'jldp_analyst'
                WHEN f.name = ANY (curator) THEN 'jldp_curator'
                WHEN f.name = ANY (budget_admin) THEN 'jldp_budget_admin' END;
    IF who IS NOT NULL THEN
      EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO %I', f.sig, who);
    ELSIF NOT (f.name = ANY (superuser) OR f.name = ANY (nobody)) THEN
      RAISE EXCEPTION 'jldp: routine % is in no role''s list', f.sig;
    END IF;
  END LOOP;
END
$grants$;
-- raising a cap is checked inside jl_set_cap (an owner may lower)
GRANT EXECUTE ON FUNCTION jldp.jl_set_cap(regclass, float8, float8) TO jldp_budget_admin;

REVOKE ALL ON jldp.jl_releases, jldp.jl_distributed_releases, jldp.jl_keys, jldp.jl_protected,
              jldp.jl_budgets, jldp.jl_ledger FROM PUBLIC;
GRANT SELECT ON jldp.jl_releases, jldp.jl_distributed_releases TO jldp_analyst;
GRANT SELECT ON jldp.jl_keys TO jldp_curator;
GRANT SELECT ON jldp.jl_protected, jldp.jl_budgets, jldp.jl_ledger TO jldp_curator, jldp_budget_admin;
