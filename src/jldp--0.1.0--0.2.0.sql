-- jldp 0.1.0 -> 0.2.0: the registry's version default read from the library
-- (whose version comes from jldp.control), comments on the tables and views,
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

CREATE OR REPLACE FUNCTION @extschema@.jl_release_table(
    source regclass, id_column text, vector text[], target text, k int, epsilon float8,
    neighbor text DEFAULT 'element', bound float8 DEFAULT NULL,
    calibration text DEFAULT NULL, delta float8 DEFAULT NULL,
    key text DEFAULT 'default', dataset text DEFAULT NULL,
    clip_lo float8 DEFAULT NULL, clip_hi float8 DEFAULT NULL, clip_norm float8 DEFAULT NULL,
    kind text DEFAULT 'rademacher', noise text DEFAULT 'laplace')
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_release_table'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8, text, text, float8, float8, float8, text, text) IS
  'Release every row of source into a new table target (id, sketch float8[]) owned by the caller: one float8[] column or several numeric columns as the vector, optional clipping (clip_lo/clip_hi for element neighbours, bound = hi - lo; clip_norm C for row neighbours, bound = 2C), projection kind and noise (''laplace'' or ''gaussian'' with delta) as jl_private_release, charged (epsilon, delta) to dataset (default: the source relation) and recorded in jl_releases with the projection kind and the noise (info->>''noise''). Returns the registry id.';

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
