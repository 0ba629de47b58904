-- jldp 0.1.0 -> 0.2.0: the registry's version default read from the library
-- (whose version comes from jldp.control), comments on the tables and views,
-- jl_suggest_k and jl_suggest_k_info PARALLEL SAFE, the budget boundary
-- (owners by name, spending grants, reservation tokens, the drop guard).
-- jl_suggest_k and jl_suggest_k_info PARALLEL SAFE, the identity kind and the
-- Rademacher default.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.2.0'" to load this file. \quit

-- the version of the loaded library, which takes it from jldp.control
CREATE FUNCTION @extschema@.jldp_version()
RETURNS text
AS 'MODULE_PATHNAME', 'jldp_version'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jldp_version() IS
  'The version of the jldp library in use (the control file''s default_version when it was built); recorded with each table release.';

-- releases record the library's version, not a version written here
ALTER TABLE @extschema@.jldp_release
  ALTER COLUMN version SET DEFAULT @extschema@.jldp_version();

-- comments on the tables and views
COMMENT ON TABLE @extschema@.jldp_dataset IS
  'Protected datasets: the privacy budget cap (epsilon, delta) and what has been spent, by name and at most one per source relation. Written only by jldp''s functions; roles read it through jl_budgets.';
COMMENT ON TABLE @extschema@.jldp_ledger IS
  'Privacy budget ledger: every declaration, cap change, reset, charge and reservation of a dataset with the totals after it, the acting role and the transaction. Written only by jldp''s functions; roles read it through jl_ledger.';
COMMENT ON TABLE @extschema@.jldp_release IS
  'Release registry: one row per jl_release_table call with its source, target, options, noise variance, key fingerprint, the full record (info), the jldp version and who released it. Written only by jl_release_table; roles read it through jl_releases.';
COMMENT ON VIEW @extschema@.jl_budgets IS
  'Protected datasets with their caps, spent and remaining (epsilon, delta), for the datasets owned by the current role or a role it inherits (superusers: all).';
COMMENT ON VIEW @extschema@.jl_ledger IS
  'The budget ledger of the datasets jl_budgets shows to the current role: each event with the (epsilon, delta) it asked for and the totals after it.';

-- each candidate k is calibrated in-process, through neither SPI nor a
-- subtransaction
ALTER FUNCTION @extschema@.jl_suggest_k(int, bigint, float8, float8, float8, text, float8, text, float8, text, text, text)
  PARALLEL SAFE;
ALTER FUNCTION @extschema@.jl_suggest_k_info(int, bigint, float8, float8, float8, text, float8, text, float8, text, text, text)
  PARALLEL SAFE;

-- k-means restarts: jl_kmeans with n_init k-means++ seedings, the run with
-- the lowest inertia kept (the other overloads make one)
CREATE FUNCTION @extschema@.jl_kmeans_trans(internal, float8[], int, bigint, int, int)
RETURNS internal AS 'MODULE_PATHNAME', 'jl_kmeans_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.jl_kmeans(sketch float8[], n_clusters int, seed bigint, max_iter int, n_init int) (
  SFUNC = @extschema@.jl_kmeans_trans, STYPE = internal, SSPACE = 8192,
  FINALFUNC = @extschema@.jl_kmeans_final, FINALFUNC_MODIFY = READ_ONLY,
  COMBINEFUNC = @extschema@.jl_kmeans_combine,
  SERIALFUNC = @extschema@.jl_kmeans_serialize, DESERIALFUNC = @extschema@.jl_kmeans_deserialize,
  PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.jl_kmeans(float8[], int, bigint, int, int) IS
  'jl_kmeans with n_init runs (1..1000), each a k-means++ seeding followed by at most max_iter Lloyd iterations, keeping the run with the lowest inertia (sum of squared distances to the nearest centroid; the earliest run on ties), as scikit-learn''s KMeans(n_init=...). The first run is seeded by seed, so n_init 1 equals jl_kmeans(sketch, n_clusters, seed, max_iter); the others by seeds drawn from a ChaCha20 stream keyed by seed. Deterministic and the same in serial and parallel plans; the time grows with n_init.';

-- Choosing the release: no projection or a projection kind --------------------

-- PARALLEL SAFE: every candidate is calibrated in-process, through neither
-- SPI nor a subtransaction.
CREATE FUNCTION @extschema@.jl_advise(
    d int, epsilon float8, dist2 float8, dist2_hi float8 DEFAULT NULL,
    neighbor text DEFAULT 'element', bound float8 DEFAULT 1,
    noise text DEFAULT NULL, delta float8 DEFAULT NULL,
    goal text DEFAULT 'distance', cluster_var float8 DEFAULT NULL,
    n bigint DEFAULT NULL, key text DEFAULT 'default')
RETURNS TABLE (rank int, kind text, k int, noise text, calibration text,
               delta float8, noise_variance float8, predicted_error float8,
               predicted_error_hi float8, relative_error float8,
               refused boolean, note text)
AS 'MODULE_PATHNAME', 'jl_advise'
LANGUAGE C STABLE PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION @extschema@.jl_advise(int, float8, float8, float8, text, float8, text, float8, text, float8, bigint, text) IS
  'Ranks the releases of d-dimensional rows: no projection (kind identity, k = d) and each projection kind at its best k, with Laplace noise and, where delta is given, Gaussian noise, each calibrated as jl_release_info would (to the realized projection of the key). predicted_error: for goal distance the stddev of a recovered squared distance at dist2, sqrt(2 r^4/k + 8 s2 r^2 + c k s2^2) (no 2 r^4/k term without a projection); for goal clustering the misclassification probability of the nearest-centre rule between two clusters whose centres are dist2 apart, each attribute with variance cluster_var around its centre (n rows: centres estimated). relative_error: to the best option (for a range [dist2, dist2_hi], the worst ratio to the best at each distance). Refused options are shown, never ranked. The note of rank 1 says whether the projection pays. Uses the key.';

REVOKE ALL ON FUNCTION
    @extschema@.jl_advise(int, float8, float8, float8, text, float8, text, float8, text, float8, bigint, text)
  FROM PUBLIC;

-- jl_suggest_k_info reports whether no projection would be better
COMMENT ON FUNCTION @extschema@.jl_suggest_k_info(int, bigint, float8, float8, float8, text, float8, text, float8, text, text, text) IS
  'jl_suggest_k with its figures: k, noise_variance, expected stddev and relative stddev at dist2 (and dist2_hi), the best k at each end of the range, Kenthapadi''s rule of thumb dist2 / (2 s2), identity_stddev (no projection: P = I, k = d, with the same options) and projection_pays (stddev < identity_stddev), and for the n rows the distortion of the projection alone at this k (scikit-learn''s bound) and jl_min_dim(n, 0.1).';

-- Budget boundary: reservations with identities that never recur, spending
-- granted by a dataset's owner, and DROP EXTENSION guarded ------------------
-- (docs/threat_model.md)

-- the views read the columns whose type changes: made again below
DROP VIEW @extschema@.jl_ledger;
DROP VIEW @extschema@.jl_budgets;
-- owners and the ledger's roles by name (0.1.0 recorded OIDs; a role that no
-- longer exists reads 'unknown (OID=n)' and its datasets are a superuser's
-- to manage)
ALTER TABLE @extschema@.jldp_dataset
  ALTER COLUMN owner TYPE name USING pg_catalog.pg_get_userbyid(owner),
  ADD COLUMN spenders name[] NOT NULL DEFAULT '{}';
ALTER TABLE @extschema@.jldp_ledger
  ALTER COLUMN role TYPE name USING pg_catalog.pg_get_userbyid(role),
  DROP CONSTRAINT jldp_ledger_event_check,
  ADD CONSTRAINT jldp_ledger_event_check
    CHECK (event IN ('declare', 'cap', 'reset', 'charge', 'reserve', 'grant', 'revoke'));
-- what the current role may see: datasets it owns (superusers: all, also
-- those whose owner no longer exists)
CREATE VIEW @extschema@.jl_budgets WITH (security_barrier) AS
  SELECT name, epsilon_cap, delta_cap, epsilon_spent, delta_spent,
         epsilon_cap - epsilon_spent AS epsilon_remaining,
         delta_cap - delta_spent AS delta_remaining,
         source, owner, created, spenders
  FROM @extschema@.jldp_dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
CREATE VIEW @extschema@.jl_ledger WITH (security_barrier) AS
  SELECT l.id, l.dataset, l.event, l.epsilon, l.delta, l.epsilon_spent, l.delta_spent,
         l.what, l.role, l.at
  FROM @extschema@.jldp_ledger l JOIN @extschema@.jldp_dataset d ON d.name = l.dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(d.owner)), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
REVOKE ALL ON @extschema@.jl_budgets, @extschema@.jl_ledger FROM PUBLIC;
GRANT SELECT ON @extschema@.jl_budgets, @extschema@.jl_ledger TO PUBLIC;
COMMENT ON VIEW @extschema@.jl_budgets IS
  'Protected datasets with their caps, spent and remaining (epsilon, delta), owner and granted spenders, for the datasets owned by the current role or a role it inherits (superusers: all).';
COMMENT ON VIEW @extschema@.jl_ledger IS
  'The budget ledger of the datasets jl_budgets shows to the current role: each event with the (epsilon, delta) it asked for and the totals after it.';
COMMENT ON FUNCTION @extschema@.jl_dataset_declare(text, float8, float8, regclass) IS
  'Declare a protected dataset with a privacy budget cap (epsilon, delta), owned by the calling role. Binding it to a source relation takes the relation''s owner, a member of its role, or a superuser.';
COMMENT ON FUNCTION @extschema@.jl_dataset_set_cap(text, float8, float8) IS
  'Change a dataset''s cap (its owner, a member of the owner''s role, or a superuser); recorded in the ledger.';
COMMENT ON FUNCTION @extschema@.jl_dataset_reset(text) IS
  'Set a dataset''s spent budget back to 0 (its owner, a member of the owner''s role, or a superuser); recorded in the ledger.';
COMMENT ON FUNCTION @extschema@.jl_budget_reserve(text, float8, float8) IS
  'Charge (epsilon, delta) to a dataset now, for one aggregate release later in the same transaction of the same session; only roles that may spend the dataset (its owner, a member of the owner''s role, a superuser, or a role granted with jl_dataset_grant). Returns the ledger id.';

-- one row per jl_budget_reserve: a random token that only the session that
-- reserved holds, for its transaction; marked used when a release consumes it
CREATE TABLE @extschema@.jldp_reservation (
    id          bigserial PRIMARY KEY,
    ledger_id   bigint NOT NULL,
    dataset     text NOT NULL,
    epsilon     numeric NOT NULL,
    delta       numeric NOT NULL,
    token       uuid NOT NULL UNIQUE,
    role        name NOT NULL,
    xact        xid8 NOT NULL DEFAULT pg_catalog.pg_current_xact_id(),
    used        boolean NOT NULL DEFAULT false,
    reserved_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON @extschema@.jldp_reservation FROM PUBLIC;
COMMENT ON TABLE @extschema@.jldp_reservation IS
  'Budget reservations (jl_budget_reserve): the charge''s ledger id, a random 128-bit token held only by the session that reserved, for its transaction, and whether a release used it. A restored row authorises nothing. Written only by jldp''s functions.';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.jldp_reservation', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.jldp_reservation_id_seq', '');

CREATE FUNCTION @extschema@.jl_dataset_grant(name text, spender regrole)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_dataset_grant'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_dataset_grant(text, regrole) IS
  'Allow a role (and its members) to spend a dataset''s budget: releases charged to it and jl_budget_reserve. Its owner, a member of the owner''s role, or a superuser; recorded in the ledger.';

CREATE FUNCTION @extschema@.jl_dataset_revoke(name text, spender regrole)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_dataset_revoke'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_dataset_revoke(text, regrole) IS
  'Withdraw what jl_dataset_grant allowed. Its owner, a member of the owner''s role, or a superuser; recorded in the ledger.';
REVOKE ALL ON FUNCTION @extschema@.jl_dataset_grant(text, regrole) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.jl_dataset_revoke(text, regrole) FROM PUBLIC;

-- DROP EXTENSION jldp, DROP SCHEMA ... CASCADE of its schema and DROP OWNED
-- BY its owner are refused while keys or ledger rows exist, unless
-- SET jldp.allow_drop = on (superusers)
CREATE FUNCTION @extschema@.jl_drop_guard()
RETURNS event_trigger
AS 'MODULE_PATHNAME', 'jl_drop_guard'
LANGUAGE C;
COMMENT ON FUNCTION @extschema@.jl_drop_guard() IS
  'Event trigger: refuses to drop jldp (the extension, its schema, its owner''s objects) while keys or ledger rows exist, unless jldp.allow_drop is on.';
REVOKE ALL ON FUNCTION @extschema@.jl_drop_guard() FROM PUBLIC;
CREATE EVENT TRIGGER jldp_drop_guard ON ddl_command_start
  WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED')
  EXECUTE FUNCTION @extschema@.jl_drop_guard();
-- The identity kind and the Rademacher default ----------------------------
-- kind => 'identity' releases x itself plus noise (P = I, k = d); the
-- kind of a release now defaults to 'rademacher' (the realized sensitivity
-- of a Gaussian P is larger, see docs/internals.md).  Changing a default
-- keeps the signature: CREATE OR REPLACE.  The plug-in standard errors take
-- the kind (for 'identity' nothing varies with P): a new parameter is a new
-- signature, so the old ones are dropped.

CREATE OR REPLACE FUNCTION @extschema@.jl_private_release(
    x float8[], k int, epsilon float8,
    neighbor text DEFAULT 'element', bound float8 DEFAULT 1,
    calibration text DEFAULT NULL, delta float8 DEFAULT NULL,
    key text DEFAULT 'default', kind text DEFAULT 'rademacher',
    noise text DEFAULT 'laplace')
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_private_release'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_private_release(float8[], int, float8, text, float8, text, float8, text, text, text) IS
  'Private k-dimensional sketch of x: x P (secret JL projection from the key, of the kind ''rademacher'' (default), ''gaussian'', ''achlioptas'', ''sparse'' (density 1/sqrt(d)) or ''sparse(s)''; or ''identity'': no projection, P = I and k = d, noise on every attribute) rounded to a power-of-two grid plus exact discrete noise: Laplace (noise => ''laplace'', pure epsilon, calibration ''exact'' or ''paper'') calibrated to the L1 sensitivity of the realized P, or Gaussian (noise => ''gaussian'', (epsilon, delta), delta required, calibration ''analytic'', ''classic'' or ''paper'') calibrated to its L2 sensitivity. calibration NULL: the noise''s default (''exact'', ''analytic''). See jl_release_info for the guarantee.';

CREATE OR REPLACE FUNCTION @extschema@.jl_release_info(
    d int, k int, epsilon float8,
    neighbor text DEFAULT 'element', bound float8 DEFAULT 1,
    calibration text DEFAULT NULL, delta float8 DEFAULT NULL,
    key text DEFAULT 'default', kind text DEFAULT 'rademacher',
    noise text DEFAULT 'laplace')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'jl_release_info'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_release_info(int, int, float8, text, float8, text, float8, text, text, text) IS
  'What a release of d-dimensional rows with these options guarantees (epsilon, delta that hold; for Gaussian noise also delta_requested and the smaller delta_holding) and uses (noise, sensitivity, scale or sigma, grid, noise_variance), and the projection (kind, density: the kind word recorded selects the same P again). Contains no secret.';

CREATE OR REPLACE FUNCTION @extschema@.jl_project(x float8[], k int, key text DEFAULT 'default',
    kind text DEFAULT 'rademacher')
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_project'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_project(float8[], int, text, text) IS
  'Noise-free x P with P of the given kind (''rademacher'' (default), ''gaussian'', ''achlioptas'', ''sparse'' = density 1/sqrt(d), ''sparse(s)'', or ''identity'' with k = d: x itself), for the curator''s own verification. Reveals P: never grant it to analysts.';

-- kind 'auto' and the advisor's arguments change the signature: the roles
-- that could execute the old one can execute the new one (regrole quotes names)
SELECT pg_catalog.set_config('jldp.upgrade_release_table_grantees',
         coalesce(pg_catalog.string_agg(a.grantee::regrole::text, ','), ''),
         true)
  FROM pg_catalog.pg_proc p, LATERAL pg_catalog.aclexplode(p.proacl) a
  WHERE p.oid = '@extschema@.jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8, text, text, float8, float8, float8, text, text)'::pg_catalog.regprocedure
    AND a.privilege_type = 'EXECUTE' AND a.grantee <> 0 AND a.grantee <> p.proowner;
DROP FUNCTION @extschema@.jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8, text, text, float8, float8, float8, text, text);
CREATE FUNCTION @extschema@.jl_release_table(
    source regclass, id_column text, vector text[], target text, k int DEFAULT NULL,
    epsilon float8 DEFAULT NULL,
    neighbor text DEFAULT 'element', bound float8 DEFAULT NULL,
    calibration text DEFAULT NULL, delta float8 DEFAULT NULL,
    key text DEFAULT 'default', dataset text DEFAULT NULL,
    clip_lo float8 DEFAULT NULL, clip_hi float8 DEFAULT NULL, clip_norm float8 DEFAULT NULL,
    kind text DEFAULT 'rademacher', noise text DEFAULT NULL,
    dist2 float8 DEFAULT NULL, dist2_hi float8 DEFAULT NULL, goal text DEFAULT NULL,
    cluster_var float8 DEFAULT NULL, n bigint DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_release_table'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8, text, text, float8, float8, float8, text, text, float8, float8, text, float8, bigint) IS
  'Release every row of source into a new table target (id, sketch float8[]) owned by the caller: one float8[] column or several numeric columns as the vector, optional clipping (clip_lo/clip_hi for element neighbours, bound = hi - lo; clip_norm C for row neighbours, bound = 2C), projection kind and noise (''laplace'' (NULL) or ''gaussian'' with delta) as jl_private_release, charged (epsilon, delta) to dataset (default: the source relation) and recorded in jl_releases with the projection kind and the noise (info->>''noise''). k and epsilon are required, except that kind ''auto'' (k left out) releases with the kind, k and noise that jl_advise ranks first for d, epsilon, neighbor, bound, noise (NULL: Laplace, and Gaussian when delta is given), delta, goal (NULL: ''distance''), cluster_var, n and dist2 (NULL: d bound^2/6 for element neighbours, bound^2/2 for row neighbours): public inputs only, no value of the data is read before the choice; info records chosen_by and the advice. Returns the registry id.';
REVOKE ALL ON FUNCTION @extschema@.jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8, text, text, float8, float8, float8, text, text, float8, float8, text, float8, bigint) FROM PUBLIC;
DO $$
DECLARE g text := pg_catalog.current_setting('jldp.upgrade_release_table_grantees');
BEGIN
  IF g <> '' THEN
    EXECUTE 'GRANT EXECUTE ON FUNCTION @extschema@.jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8, text, text, float8, float8, float8, text, text, float8, float8, text, float8, bigint) TO ' || g;
  END IF;
END $$;

DROP FUNCTION @extschema@.jl_recover_dist_stddev(float8[], float8[], float8, text);
CREATE FUNCTION @extschema@.jl_recover_dist_stddev(a float8[], b float8[], noise_variance float8,
    noise text DEFAULT 'laplace', kind text DEFAULT 'rademacher')
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_stddev'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_recover_dist_stddev(float8[], float8[], float8, text, text) IS
  'Plug-in standard error of jl_recover_dist: sqrt(2 r^4/k + 8 s2 r^2 + c k s2^2) at r^2 = max(estimate, 0), over the projection and the noise: c = 14 for noise ''laplace'', 8 for ''gaussian''. kind => ''identity'' (a release without projection, k = d): nothing varies with P and the 2 r^4/k term goes; any other kind word keeps it.';

DROP FUNCTION @extschema@.jl_recover_inner_stddev(float8[], float8[], float8, text);
CREATE FUNCTION @extschema@.jl_recover_inner_stddev(a float8[], b float8[], noise_variance float8,
    noise text DEFAULT 'laplace', kind text DEFAULT 'rademacher')
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_inner_stddev'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_recover_inner_stddev(float8[], float8[], float8, text, text) IS
  'Plug-in standard error of jl_recover_inner over the projection and the noise: sqrt(s2 (|a|^2 + |b|^2) + k s2^2 + (|a|^2 |b|^2 + <a,b>^2) / k) at the recovered values; the same for noise ''laplace'' and ''gaussian''. kind => ''identity'' (no projection): without the last term.';

DROP FUNCTION @extschema@.jl_recover_norm2_stddev(float8[], float8, text);
CREATE FUNCTION @extschema@.jl_recover_norm2_stddev(a float8[], noise_variance float8,
    noise text DEFAULT 'laplace', kind text DEFAULT 'rademacher')
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_norm2_stddev'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_recover_norm2_stddev(float8[], float8, text, text) IS
  'Plug-in standard error of jl_recover_norm2 over the projection and the noise: sqrt(2 n^4/k + 4 s2 n^2 + (kappa - 1) k s2^2) at n^2 = max(estimate, 0), kappa = 6 for noise ''laplace'' (default), 3 for ''gaussian''. kind => ''identity'' (no projection): without the 2 n^4/k term.';

COMMENT ON FUNCTION @extschema@.jl_recover_dist_stddev(float8[], float8[], regclass) IS
  'jl_recover_dist_stddev with the noise variance, the noise and the kind (identity or a projection) of the release that wrote the table (from the registry).';

COMMENT ON AGGREGATE @extschema@.jl_private_release_agg(int, float8, int, int, float8, text, text, float8, text, float8, text, text) IS
  'jl_private_release_agg with every option and the projection kind (''rademacher'' (default), ''gaussian'', ''achlioptas'', ''sparse'' = density 1/sqrt(d), ''sparse(s)'', or ''identity'' with k = d: attribute i is coordinate i), as jl_private_release.';

COMMENT ON AGGREGATE @extschema@.jl_project_agg(int, float8, int, text, text) IS
  'jl_project_agg with the projection kind; ''sparse'' needs its density here (''sparse(s)''), as there is no d; ''identity'' takes k as d (attr 1..k is coordinate attr).';

-- Keys changed under a cached key, and key owners and releasers by name -----
-- (docs/threat_model.md, row 7): 0.1.0 recorded role OIDs, which dangle
-- after a restore into another cluster; a role that no longer exists reads
-- 'unknown (OID=n)'.  The views read the columns: made again.
DROP VIEW @extschema@.jl_keys;
DROP VIEW @extschema@.jl_releases;
ALTER TABLE @extschema@.jldp_key
  ALTER COLUMN owner TYPE name USING pg_catalog.pg_get_userbyid(owner);
ALTER TABLE @extschema@.jldp_release
  ALTER COLUMN released_by TYPE name USING pg_catalog.pg_get_userbyid(released_by);
CREATE VIEW @extschema@.jl_keys AS
  SELECT name, fingerprint, owner, created
  FROM @extschema@.jldp_key;
REVOKE ALL ON @extschema@.jl_keys FROM PUBLIC;
COMMENT ON VIEW @extschema@.jl_keys IS
  'Keys by name with their non-secret fingerprints; grant SELECT to curators.';
-- an analyst sees the record of a release exactly when it can read the target
CREATE VIEW @extschema@.jl_releases WITH (security_barrier) AS
  SELECT id, target, source, id_column, vector, d, k, projection, neighbor, bound,
         clipping, calibration, epsilon, delta, noise_variance, grid, key_fingerprint,
         dataset, info, version, released_at, released_by
  FROM @extschema@.jldp_release
  WHERE pg_catalog.has_table_privilege(target, 'SELECT');
REVOKE ALL ON @extschema@.jl_releases FROM PUBLIC;
GRANT SELECT ON @extschema@.jl_releases TO PUBLIC;
COMMENT ON VIEW @extschema@.jl_releases IS
  'Release registry: one row per table release, visible to roles that can read its target.';
-- every write to the key table sends a relcache invalidation of it, so
-- that call sites which cached a key look it up again (docs/internals.md)
CREATE FUNCTION @extschema@.jl_key_table_changed()
RETURNS trigger
AS 'MODULE_PATHNAME', 'jl_key_table_changed'
LANGUAGE C;
COMMENT ON FUNCTION @extschema@.jl_key_table_changed() IS
  'Trigger on jldp_key: tells every backend that cached keys must be looked up again.';
REVOKE ALL ON FUNCTION @extschema@.jl_key_table_changed() FROM PUBLIC;
CREATE TRIGGER jldp_key_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON @extschema@.jldp_key
  FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.jl_key_table_changed();
