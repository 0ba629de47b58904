-- jldp 0.3.4 -> 0.4.0.  Protected tables and one release pipeline: a
-- table declared once with its unit, attributes, bounds, neighbour notion
-- and caps (jl_protect), released by jl_release with a mechanism
-- (jl_sketch); as jldp--0.4.0.sql defines them.  Datasets of 0.3 stay as
-- they are (their ledgers, caps and grants); one bound to a table becomes
-- its declaration when jl_protect completes it.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.4.0'" to load this file. \quit

-- Protected tables (0.4.0) ---------------------------------------------------

CREATE TYPE @extschema@.jl_neighbor AS ENUM ('row', 'attribute');
COMMENT ON TYPE @extschema@.jl_neighbor IS
  'What a protected table''s releases protect: a whole unit''s row replaced (row), or one declared attribute of one unit changed within its bounds (attribute).';
CREATE TYPE @extschema@.jl_calibration AS ENUM ('exact', 'analytic', 'classic');
COMMENT ON TYPE @extschema@.jl_calibration IS
  'How a sketch release''s noise is calibrated to the realized projection: exact (Laplace), analytic (Gaussian, Balle and Wang), classic (Gaussian, Kenthapadi et al.''s Theorem 1).';
CREATE TYPE @extschema@.jl_encoding AS ENUM ('numeric', 'category', 'vector', 'long');
COMMENT ON TYPE @extschema@.jl_encoding IS
  'How a declared attribute enters the row vector: a number clamped and scaled, a category one-hot, a float8[] of fixed length clamped and scaled element by element, long-format rows (unit, attribute, value) as the elements of a vector of d.';
CREATE TYPE @extschema@.jl_attribute AS (
    column_name text, encoding @extschema@.jl_encoding, lo float8, hi float8, weight float8,
    categories text[], length int, attribute_column text);
COMMENT ON TYPE @extschema@.jl_attribute IS
  'One declared attribute of a protected table, built by jl_numeric, jl_category, jl_vector or jl_long.';
CREATE TYPE @extschema@.jl_lift AS ENUM ('always', 'auto');
COMMENT ON TYPE @extschema@.jl_lift IS
  'The covariance mechanism''s lift: always the accountant''s w, or (auto) only what a private lower bound on sigma_min(A) leaves missing.';
CREATE TYPE @extschema@.jl_covariance_method AS ENUM ('gram', 'product');
COMMENT ON TYPE @extschema@.jl_covariance_method IS
  'How the covariance mechanism computes R: from the Gram matrix (gram: d x d memory) or as Y [A; l I] batch by batch (product).';
CREATE TYPE @extschema@.jl_mechanism AS (
    mechanism text, k int, kind @extschema@.jl_kind, noise @extschema@.jl_noise, delta float8,
    calibration @extschema@.jl_calibration, r int, lift @extschema@.jl_lift,
    method @extschema@.jl_covariance_method);
COMMENT ON TYPE @extschema@.jl_mechanism IS
  'What jl_release releases with, built by a mechanism''s constructor (jl_sketch, jl_covariance_mechanism).';

ALTER TABLE @extschema@.jldp_dataset
    ADD COLUMN attributes @extschema@.jl_attribute[],
    ADD COLUMN neighbor @extschema@.jl_neighbor,
    ADD COLUMN row_clip float8;

CREATE FUNCTION @extschema@.jl_attribute_checked(a @extschema@.jl_attribute)
RETURNS @extschema@.jl_attribute
AS 'MODULE_PATHNAME', 'jl_attribute_checked'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_attribute_checked(@extschema@.jl_attribute) IS
  'Used by jl_numeric, jl_category and jl_vector: a declared attribute, or an error naming what is wrong with it (the checks jl_protect and jl_release make again).';

CREATE FUNCTION @extschema@.jl_numeric(column_name text, lo float8, hi float8, weight float8 DEFAULT 1)
RETURNS @extschema@.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN @extschema@.jl_attribute_checked(ROW(column_name, 'numeric', lo, hi, weight, NULL, NULL, NULL)::@extschema@.jl_attribute);
COMMENT ON FUNCTION @extschema@.jl_numeric(text, float8, float8, float8) IS
  'A numeric attribute of a protected table: every read clamps it to [lo, hi] (NULL and NaN read as lo) and maps it to [0, weight].';

CREATE FUNCTION @extschema@.jl_category(column_name text, categories text[], weight float8 DEFAULT 1)
RETURNS @extschema@.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN @extschema@.jl_attribute_checked(ROW(column_name, 'category', NULL, NULL, weight, categories, NULL, NULL)::@extschema@.jl_attribute);
COMMENT ON FUNCTION @extschema@.jl_category(text, text[], float8) IS
  'A categorical attribute of a protected table: one coordinate per listed category, weight for the row''s (compared as text), 0 elsewhere; a value not listed, or NULL, reads as all zeros.';

CREATE FUNCTION @extschema@.jl_vector(column_name text, length int, lo float8, hi float8, weight float8 DEFAULT 1)
RETURNS @extschema@.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN @extschema@.jl_attribute_checked(ROW(column_name, 'vector', lo, hi, weight, NULL, length, NULL)::@extschema@.jl_attribute);
COMMENT ON FUNCTION @extschema@.jl_vector(text, int, float8, float8, float8) IS
  'A float8[] attribute of a protected table, each of its length elements an attribute of its own: clamped to [lo, hi] and mapped to [0, weight] (missing, NULL or NaN elements read as lo; elements past length are not read).';

CREATE FUNCTION @extschema@.jl_long(attribute_column text, value_column text, d int, lo float8, hi float8,
    weight float8 DEFAULT 1)
RETURNS @extschema@.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN @extschema@.jl_attribute_checked(ROW(value_column, 'long', lo, hi, weight, NULL, d, attribute_column)::@extschema@.jl_attribute);
COMMENT ON FUNCTION @extschema@.jl_long(text, text, int, float8, float8, float8) IS
  'Long-format rows (unit, attribute, value) of a protected table, the only attribute of its declaration: the unit''s values form a vector of d elements (attribute 1 to d; others not read), each clamped to [lo, hi] and mapped to [0, weight]; the unit and the attribute are unique together by a constraint.';

CREATE FUNCTION @extschema@.jl_mechanism_checked(m @extschema@.jl_mechanism)
RETURNS @extschema@.jl_mechanism
AS 'MODULE_PATHNAME', 'jl_mechanism_checked'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_mechanism_checked(@extschema@.jl_mechanism) IS
  'Used by jl_sketch: a mechanism, or an error naming what is wrong with it (the checks jl_release makes again).';

CREATE FUNCTION @extschema@.jl_sketch(k int DEFAULT NULL, kind @extschema@.jl_kind DEFAULT 'rademacher',
    noise @extschema@.jl_noise DEFAULT 'laplace', delta float8 DEFAULT NULL,
    calibration @extschema@.jl_calibration DEFAULT NULL)
RETURNS @extschema@.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN @extschema@.jl_mechanism_checked(ROW('sketch', k, kind, noise, delta, calibration, NULL, NULL, NULL)::@extschema@.jl_mechanism);
COMMENT ON FUNCTION @extschema@.jl_sketch(int, @extschema@.jl_kind, @extschema@.jl_noise, float8, @extschema@.jl_calibration) IS
  'The sketch mechanism for jl_release: each unit''s encoded row projected to k dimensions by the key''s P (kind ''identity'': not projected, k = d) plus noise calibrated to the declaration and the realized P (Laplace: pure epsilon; Gaussian: give delta).';

CREATE FUNCTION @extschema@.jl_covariance_mechanism(r int, delta float8,
    lift @extschema@.jl_lift DEFAULT 'always', method @extschema@.jl_covariance_method DEFAULT 'gram')
RETURNS @extschema@.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN @extschema@.jl_mechanism_checked(ROW('covariance', NULL, NULL, NULL, delta, NULL, r, lift, method)::@extschema@.jl_mechanism);
COMMENT ON FUNCTION @extschema@.jl_covariance_mechanism(int, float8, @extschema@.jl_lift, @extschema@.jl_covariance_method) IS
  'The covariance mechanism for jl_release (Blocki et al.): r rows of R = Y [A; l I], A the encoded rows (each of L2 norm at most the row clip, or the largest the declaration allows), Y fresh Gaussian, the lift l from an exact accountant for (epsilon, delta); jl_covariance and jl_directional_variance read it.';

CREATE FUNCTION @extschema@.jl_encode_number(x float8, lo float8, hi float8, weight float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_encode_number'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_encode_number(float8, float8, float8, float8) IS
  'Used by jl_release to read a numeric attribute: x clamped to [lo, hi] and mapped to [0, weight]; NULL and NaN read as 0.';

CREATE FUNCTION @extschema@.jl_encode_category(x anyelement, categories text[], weight float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_encode_category'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_encode_category(anyelement, text[], float8) IS
  'Used by jl_release to read a categorical attribute: one-hot over categories with value weight, the value compared as its type''s output function writes it (no cast runs); a value not listed, or NULL, as all zeros.';

CREATE FUNCTION @extschema@.jl_encode_vector(x float8[], length int, lo float8, hi float8, weight float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_encode_vector'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_encode_vector(float8[], int, float8, float8, float8) IS
  'Used by jl_release to read a float8[] attribute: length elements, each clamped to [lo, hi] and mapped to [0, weight]; missing, NULL or NaN elements as 0.';

CREATE FUNCTION @extschema@.jl_protect(relation regclass, unit text, attributes @extschema@.jl_attribute[],
    neighbor @extschema@.jl_neighbor DEFAULT 'row', row_clip float8 DEFAULT NULL,
    epsilon_cap float8 DEFAULT NULL, delta_cap float8 DEFAULT 0,
    OUT dataset text, OUT d int)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_protect'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_protect(regclass, text, @extschema@.jl_attribute[], @extschema@.jl_neighbor, float8, float8, float8) IS
  'Declare relation (a whole table or partitioned table, owned by the caller) protected: its unit (a column unique by a constraint), its attributes with their public bounds, what a release protects (row or attribute neighbours, row_clip for rows) and its caps (epsilon_cap required). jl_release reads it only through this declaration. Again on a protected table: the declaration is replaced, the spent budget kept, and a cap may only be lowered.';

CREATE FUNCTION @extschema@.jl_release(protected regclass, target text, epsilon float8,
    mechanism @extschema@.jl_mechanism, key text DEFAULT 'default',
    OUT release_id bigint, OUT released regclass, OUT epsilon_charged float8, OUT delta_charged float8,
    OUT noise_variance float8, OUT guarantee text)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_release'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_release(regclass, text, float8, @extschema@.jl_mechanism, text) IS
  'Release a protected table into a new table target (unit, sketch float8[]) with a mechanism (jl_sketch), charged to its budget before any row is read, read only through its declaration, recorded in jl_releases; returns what holds and what does not.';
REVOKE ALL ON FUNCTION @extschema@.jl_release(regclass, text, float8, @extschema@.jl_mechanism, text) FROM PUBLIC;

CREATE FUNCTION @extschema@.jl_release_dist2(protected regclass, epsilon float8,
    OUT dist2 float8, OUT stddev float8, OUT n bigint, OUT epsilon_holding float8,
    OUT delta float8, OUT neighbor text, OUT guarantee text)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_release_dist2_declared'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_release_dist2(regclass, float8) IS
  'The mean squared distance between two encoded rows of a protected table (for jl_advise''s dist2), epsilon-DP with exact discrete Laplace noise, through the release pipeline: charged before any row is read, the grid from the declaration; returns the value with what holds and what does not.';
REVOKE ALL ON FUNCTION @extschema@.jl_release_dist2(regclass, float8) FROM PUBLIC;

CREATE VIEW @extschema@.jl_protected WITH (security_barrier) AS
  SELECT source AS relation, name AS dataset, unit, neighbor, row_clip,
         (SELECT sum(CASE (a).encoding WHEN 'numeric' THEN 1
                                       WHEN 'category' THEN pg_catalog.cardinality((a).categories)
                                       ELSE (a).length END)::int
            FROM pg_catalog.unnest(attributes) a) AS d,
         attributes, epsilon_cap, delta_cap, epsilon_spent, delta_spent,
         epsilon_cap - epsilon_spent AS epsilon_remaining, delta_cap - delta_spent AS delta_remaining,
         owner, spenders
  FROM @extschema@.jldp_dataset
  WHERE attributes IS NOT NULL
    AND (pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
         OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user));
REVOKE ALL ON @extschema@.jl_protected FROM PUBLIC;
GRANT SELECT ON @extschema@.jl_protected TO PUBLIC;
COMMENT ON VIEW @extschema@.jl_protected IS
  'Protected tables (jl_protect) with their declaration (unit, neighbour notion, row clip, d, attributes), caps, spent and remaining, for the tables whose dataset the current role owns or inherits (superusers: all).';
REVOKE ALL ON FUNCTION @extschema@.jl_protect(regclass, text, @extschema@.jl_attribute[], @extschema@.jl_neighbor, float8, float8, float8) FROM PUBLIC;

-- the datasets bound to a table: jl_release needs their attributes
DO $upgrade$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT name, source FROM @extschema@.jldp_dataset WHERE source IS NOT NULL ORDER BY name LOOP
    RAISE NOTICE 'jldp 0.4.0: dataset "%" of % keeps its ledger and caps; declare its attributes with jl_protect before releasing it with jl_release', r.name, r.source;
  END LOOP;
END
$upgrade$;

-- a protected table's dist2 marks its charge when it returns
CREATE OR REPLACE VIEW @extschema@.jl_ledger WITH (security_barrier) AS
  SELECT l.id, l.dataset, l.event, l.epsilon, l.delta, l.epsilon_spent, l.delta_spent,
         l.what, l.role, l.at,
         -- a charge is committed before its release reads a row: false when
         -- no release recorded it (it failed or was cancelled after the
         -- charge, or is still running); a protected table's dist2 (a value)
         -- marks its charge when it returns; NULL for other events and for
         -- 0.3's jl_release_dist2, whose result was returned, not recorded
         CASE WHEN l.event <> 'charge' THEN NULL
              WHEN l.what LIKE 'jl_release_dist2 (declared) %' THEN l.what LIKE '% (returned)'
              WHEN l.what LIKE 'jl_release_dist2 %' THEN NULL
              ELSE EXISTS (SELECT 1 FROM @extschema@.jldp_release r WHERE r.ledger_id = l.id)
         END AS released
  FROM @extschema@.jldp_ledger l JOIN @extschema@.jldp_dataset d ON d.name = l.dataset
  WHERE pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(d.owner)), 'USAGE')
     OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
REVOKE ALL ON @extschema@.jl_ledger FROM PUBLIC;
GRANT SELECT ON @extschema@.jl_ledger TO PUBLIC;
