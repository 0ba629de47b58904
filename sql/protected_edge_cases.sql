-- Attacks on protected tables found by an adversarial review of 0.4.2,
-- each refused now (each of them passed on the first 0.4.2 build).
SET client_min_messages = warning;
CREATE FUNCTION pr_error(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE VIEW pr_charges AS SELECT count(*) AS n FROM jl_ledger WHERE event = 'charge';

-- 1. another role's overload of the category encoder: a role that may
-- create functions in the encoder's schema (jldp_internal since 0.5.0:
-- here granted, as no installation should) adds jl_encode_category for
-- the column's type.  A polymorphic call in the reader resolved to it, so
-- it ran for every row, after the charge, as the releasing role (reading
-- the whole table).  The reader now passes the value's text to the
-- encoder's exact signature (text, text[], float8), which no other
-- function of the schema can take.
CREATE ROLE regress_pr_carol;
GRANT USAGE, CREATE ON SCHEMA jldp_internal TO regress_pr_carol;
CREATE TABLE pr_loot (who name, val text);
GRANT INSERT ON pr_loot TO regress_pr_carol;
SET ROLE regress_pr_carol;
CREATE FUNCTION jldp_internal.jl_encode_category(x integer, categories text[], weight float8) RETURNS float8[]
LANGUAGE plpgsql AS $f$
BEGIN
  INSERT INTO public.pr_loot VALUES (current_user, x::text);
  RETURN array_fill(0::float8, ARRAY[cardinality(categories)]);
END $f$;
SELECT pr_error($f$CREATE FUNCTION jldp_internal.jl_encode_category(x text, categories text[], weight float8) RETURNS float8[]
                   LANGUAGE sql AS 'SELECT NULL::float8[]'$f$) AS the_exact_signature;
RESET ROLE;
CREATE TABLE pr_cat (id int PRIMARY KEY, grade int);
INSERT INTO pr_cat SELECT i, 1 + i % 3 FROM generate_series(1, 30) i;
SELECT dataset, d FROM jl_protect('pr_cat', 'id', ARRAY[jl_category('grade', '{1,2,3}')], epsilon_cap => 1e4);
SELECT released FROM jl_release('pr_cat', 'pr_cat_out', 1e4, jl_sketch(kind => 'identity'), key => 'pinned');
SELECT count(*) AS rows_seen_by_the_overload FROM pr_loot;
-- the encoding is the extension's: each grade one-hot (noise scale
-- 2 / 1e4 on a grid: within 0.01 of 0 or 1)
SELECT count(*) AS units,
       bool_and(round(s.sketch[c.grade]::numeric, 2) = 1
                AND round((SELECT sum(abs(x)) FROM unnest(s.sketch) x)::numeric, 1) = 1) AS one_hot
  FROM pr_cat_out s JOIN pr_cat c USING (id);
DROP FUNCTION jldp_internal.jl_encode_category(integer, text[], float8);
REVOKE USAGE, CREATE ON SCHEMA jldp_internal FROM regress_pr_carol;

-- 3. a unit unique only under another collation or operator class: two
-- rows of one unit (equal by the column's own equality) were both read,
-- each a sketch, under a guarantee of "each read once"
CREATE COLLATION pr_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE pr_wci (id text COLLATE pr_ci NOT NULL, a float8);
CREATE UNIQUE INDEX ON pr_wci (id COLLATE "C");
INSERT INTO pr_wci VALUES ('bob', 1), ('BOB', 1), ('Bob', 1), ('bOb', 1);
SELECT count(DISTINCT id) AS units_by_the_column FROM pr_wci;
SELECT pr_error($$SELECT jl_protect('pr_wci', 'id', ARRAY[jl_numeric('a', 0, 1)], epsilon_cap => 5)$$) AS index_under_another_collation;
-- unique under the column's own collation, but that collation is not
-- deterministic (its equality is not the bytes the reader groups by)
CREATE TABLE pr_nd (id text COLLATE pr_ci PRIMARY KEY, a float8);
SELECT pr_error($$SELECT jl_protect('pr_nd', 'id', ARRAY[jl_numeric('a', 0, 1)], epsilon_cap => 5)$$) AS nondeterministic_unit;
-- an index with another operator class
CREATE TABLE pr_ops (id text NOT NULL, a float8);
CREATE UNIQUE INDEX ON pr_ops (id text_pattern_ops);
SELECT pr_error($$SELECT jl_protect('pr_ops', 'id', ARRAY[jl_numeric('a', 0, 1)], epsilon_cap => 5)$$) AS index_with_another_opclass;
-- the same key under the column's collation and default operator class
CREATE TABLE pr_ok (id text COLLATE "C" NOT NULL, a float8);
CREATE UNIQUE INDEX ON pr_ok (id);
SELECT dataset FROM jl_protect('pr_ok', 'id', ARRAY[jl_numeric('a', 0, 1)], epsilon_cap => 5);
-- the long format's (unit, attribute) key alike
CREATE TABLE pr_lci (u text COLLATE pr_ci NOT NULL, attr int NOT NULL, val float8);
CREATE UNIQUE INDEX ON pr_lci (u COLLATE "C", attr);
SELECT pr_error($$SELECT jl_protect('pr_lci', 'u', ARRAY[jl_long('attr', 'val', 2, 0, 1)], epsilon_cap => 5)$$) AS long_key_under_another_collation;
-- a declared table whose index is replaced by one under another
-- collation: refused at the release, nothing charged
SELECT n AS charges_before FROM pr_charges \gset
DROP INDEX pr_ok_id_idx;
CREATE UNIQUE INDEX pr_ok_c ON pr_ok (id COLLATE "POSIX");
SELECT pr_error($$SELECT jl_release('pr_ok', 'pr_ok_out', 1, jl_sketch(k => 1), key => 'pinned')$$) AS index_replaced;
SELECT n - :charges_before AS charged FROM pr_charges;

-- 4. columns renamed after the declaration: a long-format table's unit and
-- attribute column swapped by three renames read each old person's
-- elements as several new "units" under the budget spent for persons
CREATE TABLE pr_lt (person int NOT NULL, attr int NOT NULL, val float8, PRIMARY KEY (person, attr));
INSERT INTO pr_lt SELECT p, a, 1 FROM generate_series(1, 3) p, generate_series(1, 3) a;
SELECT d FROM jl_protect('pr_lt', 'person', ARRAY[jl_long('attr', 'val', 3, 0, 1)], epsilon_cap => 10);
SELECT columns FROM jldp_internal.jldp_dataset WHERE source = 'pr_lt'::regclass;
SELECT released FROM jl_release('pr_lt', 'pr_lt_1', 1, jl_sketch(kind => 'identity'), key => 'pinned');
ALTER TABLE pr_lt RENAME person TO tmp;
ALTER TABLE pr_lt RENAME attr TO person;
ALTER TABLE pr_lt RENAME tmp TO attr;
SELECT n AS charges_before FROM pr_charges \gset
SELECT pr_error($$SELECT jl_release('pr_lt', 'pr_lt_2', 1, jl_sketch(kind => 'identity'), key => 'pinned')$$) AS renamed_columns;
SELECT n - :charges_before AS charged FROM pr_charges;
-- declaring it again under the same unit name is declaring another column
-- as the unit: refused once budget was spent for the old one
SELECT pr_error($$SELECT jl_protect('pr_lt', 'person', ARRAY[jl_long('attr', 'val', 3, 0, 1)], epsilon_cap => 10)$$) AS same_name_other_column;
-- renamed back: released again
ALTER TABLE pr_lt RENAME person TO tmp;
ALTER TABLE pr_lt RENAME attr TO person;
ALTER TABLE pr_lt RENAME tmp TO attr;
SELECT released FROM jl_release('pr_lt', 'pr_lt_3', 1, jl_sketch(kind => 'identity'), key => 'pinned');
-- a column dropped and added again under its name is another column too
CREATE TABLE pr_re (id int PRIMARY KEY, a float8, b float8);
SELECT d FROM jl_protect('pr_re', 'id', ARRAY[jl_numeric('a', 0, 1), jl_numeric('b', 0, 1)], epsilon_cap => 10);
ALTER TABLE pr_re DROP COLUMN a;
ALTER TABLE pr_re ADD COLUMN a float8;
SELECT pr_error($$SELECT jl_release('pr_re', 'pr_re_out', 1, jl_sketch(k => 1), key => 'pinned')$$) AS column_added_again;
-- declared again (nothing spent): released
SELECT d FROM jl_protect('pr_re', 'id', ARRAY[jl_numeric('a', 0, 1), jl_numeric('b', 0, 1)], epsilon_cap => 10);
SELECT released FROM jl_release('pr_re', 'pr_re_out', 1, jl_sketch(k => 1), key => 'pinned');
REVOKE INSERT ON pr_loot FROM regress_pr_carol;
DROP ROLE regress_pr_carol;
