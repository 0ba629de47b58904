-- the catalog: keys, declarations, ledger, registry, distributed releases

-- Keys -------------------------------------------------------------------
CREATE TABLE jldp_internal.jldp_key (
    name        text PRIMARY KEY,
    -- 32 plain bytes, or (with a master key) the 77-byte wrapped form
    secret      bytea NOT NULL CHECK (length(secret) IN (32, 77)),
    fingerprint text NOT NULL,
    owner       name NOT NULL,
    created     timestamptz NOT NULL DEFAULT now(),
    -- roles its owner let use it (jl_key_grant), by name
    users       name[] NOT NULL DEFAULT '{}'
);

REVOKE ALL ON jldp_internal.jldp_key FROM PUBLIC;

COMMENT ON TABLE jldp_internal.jldp_key IS
  'jldp secret keys. Readable by no role but its owner; the release functions read it internally.';

-- keys are part of a backup: sketches released under a key are only
-- reproducible (and shards only consistent) with the same key
SELECT pg_catalog.pg_extension_config_dump('jldp_internal.jldp_key', '');

-- Privacy budget ------------------------------------------------------------
-- Protected datasets with caps; every release is charged by basic
-- composition under a row lock on its dataset, so concurrent releases
-- cannot together pass a cap.  Only jldp's own functions write here.
CREATE TABLE jldp_internal.jldp_dataset (
    name          text PRIMARY KEY,
    -- numeric: sums of decimal epsilons are exact, so a cap is met exactly
    epsilon_cap   numeric NOT NULL CHECK (epsilon_cap >= 0),
    delta_cap     numeric NOT NULL CHECK (delta_cap >= 0 AND delta_cap <= 1),
    epsilon_spent numeric NOT NULL DEFAULT 0,
    delta_spent   numeric NOT NULL DEFAULT 0,
    source        regclass,
    -- roles by name: a dump restored into another cluster keeps them
    owner         name NOT NULL,
    created       timestamptz NOT NULL DEFAULT now(),
    -- roles the owner allowed to spend the budget (jl_protect_grant)
    spenders      name[] NOT NULL DEFAULT '{}',
    -- the column of source whose values are the privacy units
    unit          text,
    -- a protected table's declaration (jl_protect): its attributes with
    -- their bounds, what a release protects, the row clip
    attributes    jldp.jl_attribute[],
    neighbor      jldp.jl_neighbor,
    row_clip      float8,
    -- the numbers of the columns it reads (the unit, then each
    -- attribute's), when declared: a release refuses a table whose columns
    -- were renamed or added again since
    columns       int2[],
    -- the charges since the last reset composed at the cap's delta by the
    -- tightest valid accounting (docs/design/accounting.md): what admits a
    -- release, beside the sums above
    epsilon_composed float8 NOT NULL DEFAULT 0,
    delta_composed   float8 NOT NULL DEFAULT 0,
    composed_by      text NOT NULL DEFAULT 'basic'
);

REVOKE ALL ON jldp_internal.jldp_dataset FROM PUBLIC;

COMMENT ON TABLE jldp_internal.jldp_dataset IS
  'Protected datasets: the privacy budget cap (epsilon, delta) and what has been spent, by name and at most one per source relation. Written only by jldp''s functions; roles read it through jl_budgets.';

-- one dataset per source relation: releases that name none are charged to it
CREATE UNIQUE INDEX jldp_dataset_source ON jldp_internal.jldp_dataset (source);

SELECT pg_catalog.pg_extension_config_dump('jldp_internal.jldp_dataset', '');

CREATE TABLE jldp_internal.jldp_ledger (
    id            bigserial PRIMARY KEY,
    dataset       text NOT NULL,
    event         text NOT NULL CHECK (event IN ('declare', 'cap', 'reset', 'charge', 'reserve', 'grant', 'revoke')),
    epsilon       numeric,
    delta         numeric,
    epsilon_spent numeric NOT NULL,
    delta_spent   numeric NOT NULL,
    what          text,
    role          name NOT NULL,
    xact          xid8 NOT NULL DEFAULT pg_current_xact_id(),
    at            timestamptz NOT NULL DEFAULT now(),
    -- a charge's privacy profile: pure (epsilon-DP), zcdp (rho-zCDP, rho
    -- below) or approx (only its epsilon and delta); NULL for other events
    profile       text CHECK (profile IN ('pure', 'zcdp', 'approx')),
    rho           float8,
    -- the dataset's composed totals after the event (epsilon_composed of
    -- jldp_dataset): anyone can recompute them from the profiles
    epsilon_composed float8,
    delta_composed   float8,
    composed_by      text,
    -- a zcdp charge's dominating Gaussian shift (N(mu, 1) against N(0, 1),
    -- with an atom of delta / 1024 on one side), when its calibration found
    -- one: the accountant composes it by its privacy loss distribution
    mu               float8
);

REVOKE ALL ON jldp_internal.jldp_ledger FROM PUBLIC;

COMMENT ON TABLE jldp_internal.jldp_ledger IS
  'Privacy budget ledger: every declaration, cap change, reset and charge of a dataset (and the reservations of jldp before 0.4.2) with the totals after it, the acting role and the transaction. Written only by jldp''s functions; roles read it through jl_ledger.';

SELECT pg_catalog.pg_extension_config_dump('jldp_internal.jldp_ledger', '');

SELECT pg_catalog.pg_extension_config_dump('jldp_internal.jldp_ledger_id_seq', '');

-- Table release and the release registry -----------------------------------
-- the version of the loaded library, which takes it from jldp.control
CREATE FUNCTION jldp.jldp_version()
RETURNS text
AS 'MODULE_PATHNAME', 'jldp_version'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jldp_version() IS
  'The version of the jldp library in use (the control file''s default_version when it was built); recorded with each table release.';

CREATE TABLE jldp_internal.jldp_release (
    id              bigserial PRIMARY KEY,
    source          text NOT NULL,
    target          regclass NOT NULL,
    id_column       text NOT NULL,
    vector          text NOT NULL,
    d               int NOT NULL,
    k               int NOT NULL,
    projection      text NOT NULL,
    neighbor        text NOT NULL,
    bound           float8 NOT NULL,
    clipping        text NOT NULL,
    calibration     text NOT NULL,
    epsilon         float8 NOT NULL,
    delta           float8 NOT NULL,
    noise_variance  float8 NOT NULL,
    grid            float8 NOT NULL,
    key_fingerprint text NOT NULL,
    dataset         text NOT NULL,
    ledger_id       bigint,
    info            jsonb NOT NULL,
    version         text NOT NULL DEFAULT jldp.jldp_version(),
    released_at     timestamptz NOT NULL DEFAULT now(),
    released_by     name NOT NULL
);

REVOKE ALL ON jldp_internal.jldp_release FROM PUBLIC;

COMMENT ON TABLE jldp_internal.jldp_release IS
  'Release registry: one row per release into a table (jl_release, jl_release_distributed; before 0.4.2 also jl_release_table, jl_release_long, jl_release_covariance and jl_release_graph) with its source, target, options, noise variance, key fingerprint, the ledger charge it was made under, the full record (info), the jldp version and who released it. Written only by those functions; roles read it through jl_releases.';

SELECT pg_catalog.pg_extension_config_dump('jldp_internal.jldp_release', '');

SELECT pg_catalog.pg_extension_config_dump('jldp_internal.jldp_release_id_seq', '');

-- Budget boundary: long-format releases grouped by their privacy unit -------
-- (docs/design/threat_model.md, attack 10)
-- Distributed release (docs/design/scaleout.md) ----------------------------------
-- A release over the shards of a partitioned table whose partitions are
-- foreign tables: each shard releases its own rows (jl_release_part) in a
-- transaction it prepares (two-phase commit); the coordinator charges the
-- partitioned table's dataset once (parallel composition over disjoint
-- shards), records the release for the partitioned table of the shards'
-- sketch tables and the decision in one transaction, and only then commits
-- the shards' parts.  jl_distributed_resolve finishes a release left in
-- doubt by a failure between the two.
CREATE TABLE jldp_internal.jldp_distributed_release (
    gid               text PRIMARY KEY,
    release_id        bigint NOT NULL,
    target            regclass NOT NULL,
    servers           text[] NOT NULL,
    shard_release_ids bigint[] NOT NULL,
    decided_at        timestamptz NOT NULL DEFAULT now(),
    committed_at      timestamptz,
    released_by       name NOT NULL
);

REVOKE ALL ON jldp_internal.jldp_distributed_release FROM PUBLIC;

COMMENT ON TABLE jldp_internal.jldp_distributed_release IS
  'Decisions of distributed releases: a row exists exactly when the coordinator committed the release (its charge and registry row); the shards'' prepared parts named gid_1, gid_2, ... are then to be committed. committed_at: when every part was seen committed.';

SELECT pg_catalog.pg_extension_config_dump('jldp_internal.jldp_distributed_release', '');
