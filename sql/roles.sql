-- Roles: each of jldp's roles holds exactly the grants its job needs.
-- The declared list below is this test's claim, written apart from the
-- install script's grant lists: every routine and view of schemas jldp and
-- jldp_internal, with who may use it.  Effective privileges (as
-- has_function_privilege sees them, through role membership) are compared
-- with it; the hint table of permission errors too.  test/integration/upgrade.sh checks
-- that an upgraded database has the same privileges (every ACL of the
-- extension's routines, relations and schemas equals a fresh install's).
CREATE ROLE regress_roles_none;
CREATE ROLE regress_roles_analyst IN ROLE jldp_analyst;
CREATE ROLE regress_roles_curator IN ROLE jldp_curator;
CREATE ROLE regress_roles_admin IN ROLE jldp_budget_admin;

-- the three roles: NOLOGIN, a curator is an analyst, nothing else inherited
SELECT r.rolname, r.rolcanlogin, r.rolsuper, r.rolcreaterole, r.rolinherit,
       ARRAY(SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
              WHERE m.member = r.oid ORDER BY 1) AS member_of
  FROM pg_roles r WHERE r.rolname IN ('jldp_analyst', 'jldp_curator', 'jldp_budget_admin') ORDER BY 1;

-- who may use what: 'analyst' (and so a curator), 'curator', 'curator and
-- budget_admin', 'budget_admin', and 'superuser' (no role: superusers only,
-- or run by an aggregate's or trigger's owner)
CREATE TEMP TABLE declared (name text PRIMARY KEY, who text NOT NULL);
INSERT INTO declared
SELECT n, 'analyst' FROM unnest(ARRAY[
  'jl_recover_dist', 'jl_recover_dist_stddev', 'jl_recover_inner', 'jl_recover_inner_stddev',
  'jl_recover_norm2', 'jl_recover_norm2_stddev', 'jl_recover_dist_rr', 'jl_recover_dist_rr_stddev',
  'jl_knn', 'jl_kmeans', 'jl_kmeans_lloyd', 'jl_kmeans_labels', 'jl_nearest_centroid', 'jl_lloyd_step',
  'jl_vector_sum', 'jl_lloyd_update', 'jl_pca', 'jl_covariance', 'jl_directional_variance',
  'jl_directional_variance_stddev', 'jl_least_squares', 'jl_cut_size', 'jl_cut_size_stddev',
  'jl_cut_estimate', 'jl_cut_estimate_stddev', 'jl_linear_fit', 'jl_linear_fit_intercept',
  'jl_linear_predict', 'jl_nullspace_clean', 'jl_min_dim', 'jl_discrete_laplace_variance',
  'jl_rr_flip_probability', 'jldp_version', 'jl_kmeans_options', 'jl_linear_options',
  'jl_releases', 'jl_distributed_releases',
  -- internal steps an analyst's call runs as the analyst
  'jl_kmeans_options_checked', 'jl_kmeans_options_of', 'jl_linear_options_checked']) n
UNION ALL
SELECT n, 'curator' FROM unnest(ARRAY[
  'jl_key_create', 'jl_key_drop', 'jl_key_export', 'jl_master_key_id', 'jl_keys',
  'jl_key_grant', 'jl_key_revoke',
  'jl_protect', 'jl_numeric', 'jl_category', 'jl_vector', 'jl_long', 'jl_edge',
  'jl_protect_grant', 'jl_protect_revoke',
  'jl_sketch', 'jl_advised', 'jl_covariance_mechanism', 'jl_graph', 'jl_kmeans_mechanism',
  'jl_release', 'jl_release_dist2', 'jl_release_distributed', 'jl_distributed_resolve',
  'jl_budget_book', 'jl_advise', 'jl_suggest_k', 'jl_suggest_k_info', 'jl_release_info',
  'jl_private_release', 'jl_private_release_agg', 'jl_project', 'jl_project_agg',
  'jl_randomized_response', 'jl_add_discrete_laplace',
  -- internal steps a curator's call runs as the curator
  'jl_attribute_checked', 'jl_mechanism_checked',
  'jl_encode_number', 'jl_encode_category', 'jl_encode_vector', 'jl_distributed_run',
  'jl_declaration_info', 'jl_shard_bounds', 'jl_release_part', 'jl_release_part_check',
  'jl_distributed_begin_declared', 'jl_distributed_charge_declared',
  'jl_distributed_decide_declared', 'jl_distributed_decision', 'jl_distributed_pending',
  'jl_distributed_committed']) n
UNION ALL
SELECT n, 'curator and budget_admin' FROM unnest(ARRAY[
  'jl_set_cap', 'jl_protected', 'jl_budgets', 'jl_ledger']) n
UNION ALL
SELECT n, 'budget_admin' FROM unnest(ARRAY['jl_reset']) n
UNION ALL
SELECT n, 'superuser' FROM unnest(ARRAY[
  'jl_key_import', 'jl_key_import_wrapped', 'jl_key_rewrap',
  'jl_agg_combine', 'jl_agg_serialize', 'jl_agg_deserialize', 'jl_private_release_agg_final',
  'jl_project_agg_mechanism_trans', 'jl_project_agg_final', 'jl_release_agg_trans', 'jl_kmeans_trans',
  'jl_kmeans_combine', 'jl_kmeans_serialize', 'jl_kmeans_deserialize', 'jl_kmeans_final',
  'jl_linear_fit_trans', 'jl_linear_fit_combine', 'jl_linear_fit_serialize',
  'jl_linear_fit_deserialize', 'jl_linear_fit_final', 'jl_linear_fit_intercept_final',
  'jl_lloyd_step_trans', 'jl_vector_sum_trans', 'jl_cut_trans', 'jl_cut_estimate_final',
  'jl_cut_estimate_stddev_final', 'jl_drop_guard', 'jl_key_table_changed', 'jl_role_hint',
  -- the catalog's tables
  'jldp_key', 'jldp_dataset', 'jldp_ledger', 'jldp_release', 'jldp_distributed_release']) n;

-- each object's effective privileges, for each role (an object with
-- overloads counts once, and only if every overload agrees)
CREATE TEMP VIEW effective AS
WITH obj AS (
  SELECT p.proname::text AS name, r.role,
         has_function_privilege(r.role, p.oid, 'EXECUTE') AS may
    FROM pg_proc p, unnest(ARRAY['regress_roles_none', 'regress_roles_analyst',
                                 'regress_roles_curator', 'regress_roles_admin']) r(role)
   WHERE p.pronamespace IN ('jldp'::regnamespace, 'jldp_internal'::regnamespace)
  UNION ALL
  SELECT c.relname::text, r.role, has_table_privilege(r.role, c.oid, 'SELECT')
    FROM pg_class c, unnest(ARRAY['regress_roles_none', 'regress_roles_analyst',
                                  'regress_roles_curator', 'regress_roles_admin']) r(role)
   WHERE c.relnamespace IN ('jldp'::regnamespace, 'jldp_internal'::regnamespace)
     AND c.relkind IN ('r', 'v')),
per AS (
  SELECT name, role, CASE WHEN bool_and(may) THEN true WHEN NOT bool_or(may) THEN false END AS may
    FROM obj GROUP BY name, role)
SELECT name,
       CASE WHEN bool_or(role = 'regress_roles_none' AND may IS DISTINCT FROM false) THEN 'PUBLIC or mixed'
            WHEN bool_or(may IS NULL) THEN 'overloads differ'
            WHEN bool_or(role = 'regress_roles_analyst' AND may)
                 THEN CASE WHEN bool_or(role = 'regress_roles_curator' AND may)
                            AND NOT bool_or(role = 'regress_roles_admin' AND may)
                           THEN 'analyst' ELSE 'analyst, inconsistent' END
            WHEN bool_or(role = 'regress_roles_curator' AND may)
                 THEN CASE WHEN bool_or(role = 'regress_roles_admin' AND may)
                           THEN 'curator and budget_admin' ELSE 'curator' END
            WHEN bool_or(role = 'regress_roles_admin' AND may) THEN 'budget_admin'
            ELSE 'superuser' END AS who
  FROM per GROUP BY name;

-- every difference between the declared list and the effective privileges
-- (an object missing from either side shows with NULL on that side)
SELECT coalesce(d.name, e.name) AS name, d.who AS declared, e.who AS effective
  FROM declared d FULL JOIN effective e ON e.name = d.name
 WHERE d.who IS DISTINCT FROM e.who ORDER BY 1;
SELECT who, count(*) AS objects FROM effective GROUP BY who ORDER BY who;

-- the schemas: anyone may look names up in jldp (a call it may not make
-- is then "permission denied", not "does not exist"); jldp_internal is
-- the curator's only, for the steps its calls run; nobody creates in either
SELECT r AS role, has_schema_privilege(r, 'jldp', 'USAGE') AS jldp_usage,
       has_schema_privilege(r, 'jldp_internal', 'USAGE') AS internal_usage,
       has_schema_privilege(r, 'jldp', 'CREATE') OR has_schema_privilege(r, 'jldp_internal', 'CREATE') AS creates
  FROM unnest(ARRAY['regress_roles_none', 'regress_roles_analyst', 'regress_roles_curator',
                    'regress_roles_admin']) r;

-- the hint of a permission error names the role the declared list gives
-- (the C table of src/pg/api/admin/role_hint.c against this list)
SELECT d.name, d.who, jldp_internal.jl_role_hint(d.name) AS hint_names
  FROM declared d
 WHERE jldp_internal.jl_role_hint(d.name) IS DISTINCT FROM
       CASE d.who WHEN 'analyst' THEN 'jldp_analyst' WHEN 'curator' THEN 'jldp_curator'
                  WHEN 'curator and budget_admin' THEN 'jldp_curator or jldp_budget_admin'
                  WHEN 'budget_admin' THEN 'jldp_budget_admin'
                  WHEN 'superuser' THEN CASE WHEN d.name IN ('jl_key_import', 'jl_key_import_wrapped', 'jl_key_rewrap')
                                             THEN 'a superuser' END END
 ORDER BY 1;

-- as the roles see it: a permission error says which role has the call
-- (the library is loaded in this session: the hint is added when an error
-- is reported, by the loaded library)
SELECT jldp_version() IS NOT NULL AS loaded;
SET ROLE regress_roles_none;
SELECT jl_recover_dist('{1,2}', '{1,2}', 0.0);
SELECT count(*) FROM jl_releases;
SET ROLE regress_roles_analyst;
SELECT jl_recover_dist('{1,2}', '{1,3}', 0.0) AS analyst_recovers;
SELECT jl_project('{1,2}', (SELECT NULL::jl_mechanism), 'pinned');
SELECT * FROM jl_release('pg_class', 'x', 1.0, NULL);
SELECT count(*) FROM jl_budgets;
SET ROLE regress_roles_curator;
SELECT jl_reset('pg_class');
SELECT jl_key_import('regress_roles_key', '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
SELECT count(*) FROM jldp_internal.jldp_key;
SET ROLE regress_roles_admin;
SELECT jl_recover_dist('{1,2}', '{1,3}', 0.0);
RESET ROLE;

-- a call that matches no signature (k and epsilon where a mechanism is
-- meant, 0.4's forms, a misplaced argument) says how the routine is called
SELECT * FROM jl_release('pg_class', 'x', 20, 1.0);
SELECT jl_private_release('{1,2}', 2, 1.0);
SELECT * FROM jldp.jl_knn('{1,2}', 5);

-- caps and resets by protected table: the owner (a curator) lowers, is
-- refused raising and resetting; a budget administrator who owns nothing
-- raises and resets; the ledger names who did what
GRANT CREATE ON SCHEMA public TO regress_roles_curator;
SET ROLE regress_roles_curator;
CREATE TABLE roles_t (id int PRIMARY KEY, a int);
INSERT INTO roles_t SELECT i, i FROM generate_series(1, 5) i;
SELECT d FROM jl_protect('roles_t', 'id', ARRAY[jl_numeric('a', 0, 10)], epsilon_cap => 2);
SELECT jl_budget_book('roles_t', 0.5) > 0 AS booked;
SELECT jl_set_cap('roles_t', 1.5) AS owner_lowers;
SELECT jl_set_cap('roles_t', 3);
SELECT jl_reset('roles_t');
SET ROLE regress_roles_admin;
SELECT jl_set_cap('roles_t', 3) AS admin_raises;
SELECT jl_reset('roles_t') AS admin_resets;
SELECT jl_set_cap('pg_class', 3);
SELECT name, owner, epsilon_cap, epsilon_spent FROM jl_budgets WHERE name = 'public.roles_t';
SELECT event, epsilon, epsilon_spent, role FROM jl_ledger WHERE dataset = 'public.roles_t' ORDER BY id;
RESET ROLE;
DROP TABLE roles_t;
REVOKE CREATE ON SCHEMA public FROM regress_roles_curator;

DROP ROLE regress_roles_none, regress_roles_analyst, regress_roles_curator, regress_roles_admin;

-- the dataset-named budget functions of 0.5 are gone: a call says what
-- replaced it
SELECT jl_dataset_declare('d', 1.0);
SELECT jl_dataset_set_cap('public.roles_t', 1.0);
SELECT jl_dataset_reset('public.roles_t');
