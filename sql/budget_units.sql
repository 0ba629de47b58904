-- Each privacy unit contributes to a budgeted release at most once per
-- charge (docs/threat_model.md, attack 10): a cross join with
-- generate_series(1, 100), or a view repeating each row, released 100
-- sketches per unit for one charge before (averaging them cut the noise
-- variance 100-fold).
CREATE ROLE regress_ju_owner;
CREATE ROLE regress_ju_op;
CREATE FUNCTION ju_error(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
GRANT EXECUTE ON FUNCTION ju_error(text) TO PUBLIC;
GRANT EXECUTE ON FUNCTION
    jl_dataset_declare(text, float8, float8, regclass, text),
    jl_dataset_grant(text, regrole),
    jl_budget_reserve(text, float8, float8),
    jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8,
                     text, text, float8, float8, float8, text, text, float8, float8, text, float8, bigint),
    jl_release_long(regclass, text, text, text, int, text, int, float8, text, float8,
                    text, float8, text, text, text, text),
    jl_private_release_agg(int, float8, int, int, float8, text, text, float8, text, float8, text),
    jl_private_release_agg(int, float8, int, int, float8, text, text, float8, text, float8, text, text, text)
  TO regress_ju_owner, regress_ju_op;
GRANT CREATE ON SCHEMA public TO regress_ju_owner, regress_ju_op;

SET ROLE regress_ju_owner;
-- long format: 10 users, 3 attributes each
CREATE TABLE ju_facts AS SELECT u AS user_id, a AS attr, (u * a % 5)::float8 AS val
  FROM generate_series(1, 10) u, generate_series(1, 3) a;
SELECT jl_dataset_declare('ju_logs', 1.0, source => 'ju_facts', unit => 'user_id');
SELECT jl_dataset_grant('ju_logs', 'regress_ju_op');
GRANT SELECT ON ju_facts TO regress_ju_op;
-- dense rows with a primary key
CREATE TABLE ju_dense (id int PRIMARY KEY, row_no int NOT NULL UNIQUE, x float8[] NOT NULL);
INSERT INTO ju_dense SELECT i, 100 + i, ARRAY[i % 7, i % 5]::float8[] FROM generate_series(1, 20) i;
SELECT jl_dataset_declare('ju_rows', 1.0, source => 'ju_dense', unit => 'id');
SELECT jl_dataset_grant('ju_rows', 'regress_ju_op');
GRANT SELECT ON ju_dense TO regress_ju_op;
RESET ROLE;

-- 1. the cross-join attack: a granted spender cannot reserve for the
-- free-form aggregate at all ...
SET ROLE regress_ju_op;
SELECT ju_error($$SELECT jl_budget_reserve('ju_logs', 1.0)$$);
-- ... and jl_release_long groups by the unit itself: one sketch per user
SELECT jl_release_long('ju_facts', 'user_id', 'attr', 'val', 3, 'ju_long', 2, 0.5, key => 'pinned') > 0 AS released;
SELECT count(*) AS sketches, count(DISTINCT id) AS users, min(array_length(sketch, 1)) AS k FROM ju_long;
RESET ROLE;
SET ROLE regress_ju_owner;
CREATE VIEW ju_facts_x100 AS SELECT f.user_id, f.attr, f.val FROM ju_facts f, generate_series(1, 100) g;
GRANT SELECT ON ju_facts_x100 TO regress_ju_op;
RESET ROLE;
SET ROLE regress_ju_op;
SELECT ju_error($$SELECT jl_release_long('ju_facts_x100', 'user_id', 'attr', 'val', 3, 'ju_long2', 2, 0.5, key => 'pinned')$$);
-- the dataset's privacy unit is user_id: grouping by another column is refused
SELECT ju_error($$SELECT jl_release_long('ju_facts', 'attr', 'user_id', 'val', 10, 'ju_long2', 2, 0.5, key => 'pinned')$$);
RESET ROLE;
-- the owner keeps the aggregate, as a safety rail for a role that reads
-- the raw rows anyway (like jl_private_release)
SET ROLE regress_ju_owner;
BEGIN;
SELECT jl_budget_reserve('ju_logs', 0.5) > 0 AS reserved;
SELECT count(z) AS owner_release FROM (
  SELECT jl_private_release_agg(attr, val, 3, 2, 0.5, 'ju_logs', 'element', 1, 'exact', NULL, 'pinned') AS z
  FROM ju_facts GROUP BY user_id) s;
COMMIT;
RESET ROLE;
SELECT name, epsilon_spent, unit FROM jl_budgets WHERE name = 'ju_logs';
SELECT event, epsilon, what, role FROM jl_ledger WHERE dataset = 'ju_logs' AND event IN ('charge', 'reserve') ORDER BY id;
SELECT source, id_column, d, k, dataset, info->>'rows' AS rows, info->>'format' AS format
  FROM jl_releases WHERE target = 'ju_long'::regclass;

-- 2. dense rows: one row per unit, by the schema
SET ROLE regress_ju_owner;
-- a view repeating each row, or a table copied with repeats: refused
CREATE VIEW ju_dense_x100 AS SELECT d.id, d.x FROM ju_dense d, generate_series(1, 100) g;
CREATE VIEW ju_dense_srf AS SELECT id, x, generate_series(1, 100) AS g FROM ju_dense;
CREATE VIEW ju_dense_mod AS SELECT id % 3 AS id, x FROM ju_dense;
CREATE TABLE ju_dense_copy AS SELECT d.id, d.x FROM ju_dense d, generate_series(1, 2) g;
SELECT v, ju_error(format($$SELECT jl_release_table(%L, 'id', '{x}', 'ju_out_bad', 2, 0.1, key => 'pinned')$$, v))
  FROM unnest(ARRAY['ju_dense_x100', 'ju_dense_srf', 'ju_dense_mod', 'ju_dense_copy']) v;
-- the unit is id: row_no, although unique, is not the unit
SELECT ju_error($$SELECT jl_release_table('ju_dense', 'row_no', '{x}', 'ju_out_bad', 2, 0.1, key => 'pinned')$$);
-- the key column released through a simple view is the table's id
CREATE VIEW ju_dense_view AS SELECT id AS person, x FROM ju_dense WHERE id > 5;
SELECT jl_release_table('ju_dense_view', 'person', '{x}', 'ju_out', 2, 0.5, key => 'pinned') > 0 AS released;
SELECT count(*) AS rows, count(DISTINCT id) AS units FROM ju_out;
-- unique only by a deferrable constraint, a partial index, or with NULLs: refused
CREATE TABLE ju_weak (id int, id2 int, id3 int NOT NULL, x float8[]);
ALTER TABLE ju_weak ADD UNIQUE (id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE ju_weak ALTER COLUMN id SET NOT NULL;
CREATE UNIQUE INDEX ON ju_weak (id2);
CREATE UNIQUE INDEX ON ju_weak (id3) WHERE id3 > 0;
INSERT INTO ju_weak VALUES (1, 1, 1, '{1,2}');
SELECT c, ju_error(format($$SELECT jl_release_table('ju_weak', %L, '{x}', 'ju_out_bad', 2, 0.1, key => 'pinned')$$, c))
  FROM unnest(ARRAY['id', 'id2', 'id3']) c;
RESET ROLE;
SELECT name, epsilon_spent FROM jl_budgets WHERE name IN ('ju_rows', 'public.ju_dense_copy', 'public.ju_weak') ORDER BY name;

-- 3. a dataset's unit is a column of its relation
SELECT ju_error($$SELECT jl_dataset_declare('ju_bad', 1.0, unit => 'id')$$);
SELECT ju_error($$SELECT jl_dataset_declare('ju_bad', 1.0, source => 'ju_weak', unit => 'nope')$$);

-- 4. a jl_release_long that fails after its charge (here: an attribute
-- past d, inside its own query) leaves no reservation behind: the free-form
-- aggregate over a cross join found it before, 100 sketches per user
SELECT jl_dataset_set_cap('ju_logs', 2.0);
SET ROLE regress_ju_op;
BEGIN;
SELECT ju_error($$SELECT jl_release_long('ju_facts', 'user_id', 'attr', 'val', 1, 'ju_long_f', 2, 0.25, key => 'pinned')$$);
SELECT ju_error($$SELECT count(z) FROM (SELECT jl_private_release_agg(attr, val, 3, 2, 0.25, 'ju_logs', 'element', 1, 'exact', NULL, 'pinned') AS z
  FROM ju_facts CROSS JOIN generate_series(1, 100) g GROUP BY user_id, g) s$$);
-- the same transaction releases again with a charge of its own
SELECT jl_release_long('ju_facts', 'user_id', 'attr', 'val', 3, 'ju_long_ok', 2, 0.25, key => 'pinned') > 0 AS released;
SELECT count(*) AS sketches, count(DISTINCT id) AS users FROM ju_long_ok;
COMMIT;
RESET ROLE;
SELECT name, epsilon_spent FROM jl_budgets WHERE name = 'ju_logs';

DROP VIEW ju_facts_x100, ju_dense_x100, ju_dense_srf, ju_dense_mod, ju_dense_view;
DROP TABLE ju_facts, ju_long, ju_long_ok, ju_dense, ju_dense_copy, ju_out, ju_weak;
REVOKE ALL ON FUNCTION
    jl_dataset_declare(text, float8, float8, regclass, text),
    jl_dataset_grant(text, regrole),
    jl_budget_reserve(text, float8, float8),
    jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8,
                     text, text, float8, float8, float8, text, text, float8, float8, text, float8, bigint),
    jl_release_long(regclass, text, text, text, int, text, int, float8, text, float8,
                    text, float8, text, text, text, text),
    jl_private_release_agg(int, float8, int, int, float8, text, text, float8, text, float8, text),
    jl_private_release_agg(int, float8, int, int, float8, text, text, float8, text, float8, text, text, text)
  FROM regress_ju_owner, regress_ju_op;
REVOKE CREATE ON SCHEMA public FROM regress_ju_owner, regress_ju_op;
DROP FUNCTION ju_error(text);
DROP ROLE regress_ju_owner, regress_ju_op;
