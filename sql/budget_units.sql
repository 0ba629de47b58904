-- Each privacy unit contributes to a budgeted release at most once per
-- charge (docs/design/threat_model.md, attack 10): a cross join with
-- generate_series(1, 100), or a view repeating each row, released 100
-- sketches per unit for one charge before (averaging them cut the noise
-- variance 100-fold).  A release now reads a protected table, whose
-- declaration fixes the unit (unique by a constraint): views are never
-- declared, and a release takes no unit of its own.
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
-- both are curators: the owner protects its tables and grants spending,
-- the operator releases them (what it may declare is still only its own)
GRANT jldp_curator TO regress_ju_owner, regress_ju_op;
GRANT CREATE ON SCHEMA public TO regress_ju_owner, regress_ju_op;

SET ROLE regress_ju_owner;
-- long format: 10 users, 3 attributes each (values 0 to 4), the user and
-- the attribute unique together
CREATE TABLE ju_facts AS SELECT u AS user_id, a AS attr, (u * a % 5)::float8 AS val
  FROM generate_series(1, 10) u, generate_series(1, 3) a;
ALTER TABLE ju_facts ADD PRIMARY KEY (user_id, attr);
SELECT * FROM jl_protect('ju_facts', 'user_id', ARRAY[jl_long('attr', 'val', 3, 0, 4)],
                         neighbor => 'attribute', epsilon_cap => 1.0);
SELECT jl_protect_grant('ju_facts', 'regress_ju_op');
GRANT SELECT ON ju_facts TO regress_ju_op;
-- dense rows with a primary key (and another unique column)
CREATE TABLE ju_dense (id int PRIMARY KEY, row_no int NOT NULL UNIQUE, x float8[] NOT NULL);
INSERT INTO ju_dense SELECT i, 100 + i, ARRAY[i % 7, i % 5]::float8[] FROM generate_series(1, 20) i;
SELECT * FROM jl_protect('ju_dense', 'id', ARRAY[jl_vector('x', 2, 0, 6)], epsilon_cap => 1.0);
SELECT jl_protect_grant('ju_dense', 'regress_ju_op');
GRANT SELECT ON ju_dense TO regress_ju_op;
RESET ROLE;

-- 1. long format: the release groups by the declared unit itself, one
-- sketch per user (10 users)
SET ROLE regress_ju_op;
SELECT released, epsilon_charged FROM jl_release('ju_facts', 'ju_long', 0.5, jl_sketch(k => 2), key => 'pinned');
SELECT count(*) AS sketches, count(DISTINCT id) AS users, min(array_length(sketch, 1)) AS k FROM ju_long;
RESET ROLE;
-- a view repeating each user's rows 100 times: not declarable (42809),
-- so not releasable
SET ROLE regress_ju_owner;
CREATE VIEW ju_facts_x100 AS SELECT f.user_id, f.attr, f.val FROM ju_facts f, generate_series(1, 100) g;
GRANT SELECT ON ju_facts_x100 TO regress_ju_op;
SELECT ju_error($$SELECT jl_protect('ju_facts_x100', 'user_id', ARRAY[jl_long('attr', 'val', 3, 0, 4)], neighbor => 'attribute', epsilon_cap => 1000)$$);
RESET ROLE;
SET ROLE regress_ju_op;
SELECT ju_error($$SELECT jl_release('ju_facts_x100', 'ju_long2', 0.5, jl_sketch(k => 2), key => 'pinned')$$);
-- the declared unit is user_id: a spender cannot make attr the unit (a
-- declaration is its table owner's)
SELECT ju_error($$SELECT jl_protect('ju_facts', 'attr', ARRAY[jl_long('user_id', 'val', 10, 0, 4)], neighbor => 'attribute', epsilon_cap => 1)$$);
RESET ROLE;
SELECT name, epsilon_spent, unit FROM jl_budgets WHERE name = 'public.ju_facts';
SELECT event, epsilon, what, role FROM jl_ledger WHERE dataset = 'public.ju_facts' AND event = 'charge' ORDER BY id;
SELECT source, id_column, d, k, dataset, info->>'rows' AS rows
  FROM jl_releases WHERE target = 'ju_long'::regclass;

-- 2. dense rows: one row per unit, by the schema
SET ROLE regress_ju_owner;
-- views repeating each row, a view whose id is not unique, a table
-- copied with repeats (no unique id): none can be declared (views:
-- 42809; the copy: 55000), so none released
CREATE VIEW ju_dense_x100 AS SELECT d.id, d.x FROM ju_dense d, generate_series(1, 100) g;
CREATE VIEW ju_dense_srf AS SELECT id, x, generate_series(1, 100) AS g FROM ju_dense;
CREATE VIEW ju_dense_mod AS SELECT id % 3 AS id, x FROM ju_dense;
CREATE TABLE ju_dense_copy AS SELECT d.id, d.x FROM ju_dense d, generate_series(1, 2) g;
SELECT v, ju_error(format($$SELECT jl_protect(%L, 'id', ARRAY[jl_vector('x', 2, 0, 6)], epsilon_cap => 1000)$$, v)) AS declared,
       ju_error(format($$SELECT jl_release(%L, 'ju_out_bad', 0.1, jl_sketch(k => 2), key => 'pinned')$$, v)) AS released
  FROM unnest(ARRAY['ju_dense_x100', 'ju_dense_srf', 'ju_dense_mod', 'ju_dense_copy']) v;
-- a filtered view of the protected table: refused as well (0.3 released
-- it, charged to the table)
CREATE VIEW ju_dense_view AS SELECT id AS person, x FROM ju_dense WHERE id > 5;
SELECT ju_error($$SELECT jl_release('ju_dense_view', 'ju_out_bad', 0.5, jl_sketch(k => 2), key => 'pinned')$$);
-- the table itself: one sketch per id (20)
SELECT released, epsilon_charged FROM jl_release('ju_dense', 'ju_out', 0.5, jl_sketch(k => 2), key => 'pinned');
SELECT count(*) AS rows, count(DISTINCT id) AS units FROM ju_out;
-- unique only by a deferrable constraint, a unique index that is no
-- constraint (on a column with NULLs), a partial unique index: refused
CREATE TABLE ju_weak (id int, id2 int, id3 int NOT NULL, x float8[]);
ALTER TABLE ju_weak ADD UNIQUE (id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE ju_weak ALTER COLUMN id SET NOT NULL;
CREATE UNIQUE INDEX ON ju_weak (id2);
CREATE UNIQUE INDEX ON ju_weak (id3) WHERE id3 > 0;
INSERT INTO ju_weak VALUES (1, 1, 1, '{1,2}');
SELECT c, ju_error(format($$SELECT jl_protect('ju_weak', %L, ARRAY[jl_vector('x', 2, 0, 6)], epsilon_cap => 1)$$, c))
  FROM unnest(ARRAY['id', 'id2', 'id3']) c;
RESET ROLE;
SELECT name, epsilon_spent FROM jl_budgets
 WHERE name IN ('public.ju_dense', 'public.ju_dense_copy', 'public.ju_weak')
    OR name LIKE 'public.ju_dense\_%' ORDER BY name;

-- 3. a unit is a column of its relation
SELECT ju_error($$SELECT jl_protect('ju_weak', 'nope', ARRAY[jl_vector('x', 2, 0, 6)], epsilon_cap => 1)$$);
-- (0.3's free dataset with a unit and no relation cannot be made: 1.0
-- declares a budget only with its table, by jl_protect)

-- 4. two releases in one transaction are charged once each
SET ROLE regress_ju_op;
BEGIN;
SELECT released, epsilon_charged FROM jl_release('ju_facts', 'ju_long_ok', 0.25, jl_sketch(k => 2), key => 'pinned');
SELECT released, epsilon_charged FROM jl_release('ju_facts', 'ju_long_ok2', 0.25, jl_sketch(k => 2), key => 'pinned');
SELECT count(*) AS sketches, count(DISTINCT id) AS users FROM ju_long_ok;
COMMIT;
-- the cap (1) is now spent: 0.5 + 0.25 + 0.25
SELECT ju_error($$SELECT jl_release('ju_facts', 'ju_long_over', 0.01, jl_sketch(k => 2), key => 'pinned')$$);
RESET ROLE;
SELECT name, epsilon_spent FROM jl_budgets WHERE name = 'public.ju_facts';

DROP VIEW ju_facts_x100, ju_dense_x100, ju_dense_srf, ju_dense_mod, ju_dense_view;
DROP TABLE ju_facts, ju_long, ju_long_ok, ju_long_ok2, ju_dense, ju_dense_copy, ju_out, ju_weak;
REVOKE CREATE ON SCHEMA public FROM regress_ju_owner, regress_ju_op;
DROP FUNCTION ju_error(text);
DROP ROLE regress_ju_owner, regress_ju_op;
