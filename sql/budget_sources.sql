-- A release is charged to the ledger of the table it reads: not to a
-- view's, a partition's or a throwaway dataset's (docs/design/threat_model.md,
-- attack 11).  Each attack below released a capped table's rows twice
-- within a cap of once before sources were resolved.  A release now names
-- a protected table and is charged to its own ledger (it takes no dataset
-- argument); views, partitions and inheritance are never declared
-- (jl_protect refuses them, 42809), so never released: the attack matrix
-- (sql/attack_matrix.sql) runs each such relation against every path.
CREATE FUNCTION js_error(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE VIEW js_charges AS SELECT count(*) AS n FROM jl_ledger WHERE event = 'charge';
CREATE TABLE js_raw (id int PRIMARY KEY, g int NOT NULL, x float8[] NOT NULL);
INSERT INTO js_raw SELECT i, i % 3, ARRAY[i % 7, i % 5]::float8[] FROM generate_series(1, 30) i;
SELECT * FROM jl_protect('js_raw', 'id', ARRAY[jl_vector('x', 2, 0, 6)], epsilon_cap => 1.0);

-- 1. a dataset with a huge cap, of another table, pays for nothing of
-- js_raw's: the release is charged to js_raw's own ledger
CREATE TABLE js_other (id int PRIMARY KEY, x float8[]);
SELECT * FROM jl_protect('js_other', 'id', ARRAY[jl_vector('x', 2, 0, 6)], epsilon_cap => 1000);
SELECT released, epsilon_charged FROM jl_release('js_raw', 'js_out', 0.75, jl_sketch(k => 2), key => 'pinned');
SELECT name, epsilon_spent FROM jl_budgets WHERE name IN ('public.js_raw', 'public.js_other') ORDER BY name;
SELECT dataset, source FROM jl_releases WHERE target = 'js_out'::regclass;
-- past its cap: 0.75 + 0.5 > 1, whatever else has budget left
SELECT js_error($$SELECT jl_release('js_raw', 'js_out2', 0.5, jl_sketch(k => 2), key => 'pinned')$$);

-- 2. views of the table, simple or not, and a materialized view: each is
-- refused as a declaration and as a release, nothing charged (0.3
-- charged a simple view's release to js_raw; the attack matrix's cells
-- 'a filtered view' and 'a materialized view' are the same refusal on
-- every path)
SELECT n AS charges_before FROM js_charges \gset
CREATE VIEW js_view AS SELECT id, x FROM js_raw WHERE g <> 1;
CREATE VIEW js_view2 AS SELECT * FROM js_view;
CREATE VIEW js_join AS SELECT r.id, r.x FROM js_raw r, js_other o WHERE o.id = r.id;
CREATE VIEW js_union AS SELECT id, x FROM js_raw UNION ALL SELECT id, x FROM js_raw;
CREATE VIEW js_srf AS SELECT id, x, generate_series(1, 3) AS copy FROM js_raw;
CREATE VIEW js_group AS SELECT g AS id, array_agg(id)::float8[] AS x FROM js_raw GROUP BY g;
CREATE VIEW js_sub AS SELECT id, x FROM js_raw WHERE id IN (SELECT id FROM js_other);
CREATE MATERIALIZED VIEW js_mat AS SELECT id, x FROM js_raw;
SELECT v, js_error(format($$SELECT jl_protect(%L, 'id', ARRAY[jl_vector('x', 2, 0, 6)], epsilon_cap => 1000)$$, v)) AS declared,
       js_error(format($$SELECT jl_release(%L, 'js_out_bad', 0.1, jl_sketch(k => 2), key => 'pinned')$$, v)) AS released
  FROM unnest(ARRAY['js_view', 'js_view2', 'js_join', 'js_union', 'js_srf', 'js_group', 'js_sub', 'js_mat']) v;
SELECT n - :charges_before AS charges FROM js_charges;
SELECT count(*) AS datasets_of_views FROM jl_budgets WHERE name LIKE '%js\_view%' OR name LIKE '%js\_mat%';

-- 3. a partitioned table is declared whole, at its root; its partitions
-- (at any depth) are refused as declarations and as releases (0.3
-- charged a partition's release to the root's dataset; the attack
-- matrix's cells 'one partition' and 'a table made a partition' are the
-- same refusal on every path, there under an undeclared root)
CREATE TABLE js_parted (id int PRIMARY KEY, g int, x float8[]) PARTITION BY RANGE (id);
CREATE TABLE js_parted_0 PARTITION OF js_parted FOR VALUES FROM (1) TO (11);
CREATE TABLE js_parted_1 PARTITION OF js_parted FOR VALUES FROM (11) TO (31) PARTITION BY RANGE (id);
CREATE TABLE js_parted_1a PARTITION OF js_parted_1 FOR VALUES FROM (11) TO (21);
CREATE TABLE js_parted_1b PARTITION OF js_parted_1 FOR VALUES FROM (21) TO (31);
INSERT INTO js_parted SELECT id, g, x FROM js_raw;
SELECT * FROM jl_protect('js_parted', 'id', ARRAY[jl_vector('x', 2, 0, 6)], epsilon_cap => 1.0);
SELECT n AS charges_before FROM js_charges \gset
SELECT p, js_error(format($$SELECT jl_protect(%L, 'id', ARRAY[jl_vector('x', 2, 0, 6)], epsilon_cap => 1000)$$, p)) AS declared,
       js_error(format($$SELECT jl_release(%L, 'js_out_p_bad', 1.0, jl_sketch(k => 2), key => 'pinned')$$, p)) AS released
  FROM unnest(ARRAY['js_parted_0', 'js_parted_1', 'js_parted_1a']) p;
SELECT n - :charges_before AS charges FROM js_charges;
-- the root: all 30 rows, charged once to its own ledger, then past its cap
SELECT released, epsilon_charged FROM jl_release('js_parted', 'js_out_p', 1.0, jl_sketch(k => 2), key => 'pinned');
SELECT count(*) AS rows FROM js_out_p;
SELECT js_error($$SELECT jl_release('js_parted', 'js_out_p2', 1.0, jl_sketch(k => 2), key => 'pinned')$$);
SELECT name, epsilon_spent FROM jl_budgets WHERE name LIKE '%js\_parted%' ORDER BY name;

-- 4. inheritance: a parent's scan reads its children's rows; neither is
-- declared (the attack matrix's cell 'a table made an inheritance child'
-- is the release of a table that became a child after its declaration)
CREATE TABLE js_parent (id int PRIMARY KEY, x float8[]);
CREATE TABLE js_child () INHERITS (js_parent);
SELECT r, js_error(format($$SELECT jl_protect(%L, 'id', ARRAY[jl_vector('x', 2, 0, 6)], epsilon_cap => 1000)$$, r)) AS declared
  FROM unnest(ARRAY['js_parent', 'js_child']) r;

DROP TABLE js_out, js_out_p, js_child, js_parent;
DROP MATERIALIZED VIEW js_mat;
DROP VIEW js_join, js_union, js_srf, js_group, js_sub, js_view2, js_view, js_charges;
DROP TABLE js_parted, js_raw, js_other;
