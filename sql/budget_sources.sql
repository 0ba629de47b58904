-- A release is charged to the dataset of the base relation it reads: not
-- to a view's, a partition's or a throwaway dataset's (docs/threat_model.md,
-- attack 11).  Each attack below released a capped table's rows twice
-- within a cap of once before sources were resolved.
CREATE FUNCTION js_error(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE TABLE js_raw (id int PRIMARY KEY, g int NOT NULL, x float8[] NOT NULL);
INSERT INTO js_raw SELECT i, i % 3, ARRAY[i % 7, i % 5]::float8[] FROM generate_series(1, 30) i;
SELECT jl_dataset_declare('js', 1.0, source => 'js_raw');

-- 1. a throwaway dataset with a huge cap does not pay for the capped table
SELECT jl_dataset_declare('js_throwaway', 1000);
SELECT js_error($$SELECT jl_release_table('js_raw', 'id', '{x}', 'js_out', 2, 1.0, key => 'pinned', dataset => 'js_throwaway')$$);
-- nor does the dataset of another table
CREATE TABLE js_other (id int PRIMARY KEY, x float8[]);
SELECT jl_dataset_declare('js_other_ds', 1000, source => 'js_other');
SELECT js_error($$SELECT jl_release_table('js_raw', 'id', '{x}', 'js_out', 2, 1.0, key => 'pinned', dataset => 'js_other_ds')$$);
-- the relation's own dataset, named or not, does
SELECT jl_release_table('js_raw', 'id', '{x}', 'js_out', 2, 0.25, key => 'pinned', dataset => 'js') > 0 AS released;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'js';

-- 2. a simple view is charged to the table it reads
CREATE VIEW js_view AS SELECT id, x FROM js_raw WHERE g <> 1;
CREATE VIEW js_view2 AS SELECT * FROM js_view;
SELECT jl_release_table('js_view2', 'id', '{x}', 'js_out_v', 2, 0.25, key => 'pinned') > 0 AS released;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'js';
SELECT js_error($$SELECT jl_release_table('js_view', 'id', '{x}', 'js_out_v2', 2, 0.75, key => 'pinned')$$);
SELECT count(*) AS datasets_of_views FROM jl_budgets WHERE name LIKE '%js_view%';
SELECT dataset, source FROM jl_releases WHERE target = 'js_out_v'::regclass;
-- other views are refused: a join, a set operation, a set-returning
-- function, grouping, a subquery, a materialized view
CREATE VIEW js_join AS SELECT r.id, r.x FROM js_raw r, js_other o WHERE o.id = r.id;
CREATE VIEW js_union AS SELECT id, x FROM js_raw UNION ALL SELECT id, x FROM js_raw;
CREATE VIEW js_srf AS SELECT id, x, generate_series(1, 3) AS copy FROM js_raw;
CREATE VIEW js_group AS SELECT g AS id, array_agg(id)::float8[] AS x FROM js_raw GROUP BY g;
CREATE VIEW js_sub AS SELECT id, x FROM js_raw WHERE id IN (SELECT id FROM js_other);
CREATE MATERIALIZED VIEW js_mat AS SELECT id, x FROM js_raw;
SELECT v, js_error(format($$SELECT jl_release_table(%L, 'id', '{x}', 'js_out_bad', 2, 0.1, key => 'pinned')$$, v))
  FROM unnest(ARRAY['js_join', 'js_union', 'js_srf', 'js_group', 'js_sub', 'js_mat']) v;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'js';
-- a dataset cannot be bound to a view
SELECT js_error($$SELECT jl_dataset_declare('js_v', 1000, source => 'js_view')$$);

-- 3. a partition is charged to its partitioned table (at any depth)
CREATE TABLE js_parted (id int PRIMARY KEY, g int, x float8[]) PARTITION BY RANGE (id);
CREATE TABLE js_parted_0 PARTITION OF js_parted FOR VALUES FROM (1) TO (11);
CREATE TABLE js_parted_1 PARTITION OF js_parted FOR VALUES FROM (11) TO (31) PARTITION BY RANGE (id);
CREATE TABLE js_parted_1a PARTITION OF js_parted_1 FOR VALUES FROM (11) TO (21);
CREATE TABLE js_parted_1b PARTITION OF js_parted_1 FOR VALUES FROM (21) TO (31);
INSERT INTO js_parted SELECT id, g, x FROM js_raw;
SELECT jl_dataset_declare('js_p', 1.0, source => 'js_parted');
SELECT jl_release_table('js_parted_1a', 'id', '{x}', 'js_out_p', 2, 1.0, key => 'pinned') > 0 AS released;
SELECT js_error($$SELECT jl_release_table('js_parted', 'id', '{x}', 'js_out_p2', 2, 1.0, key => 'pinned')$$);
SELECT js_error($$SELECT jl_release_table('js_parted_0', 'id', '{x}', 'js_out_p2', 2, 1.0, key => 'pinned')$$);
SELECT name, epsilon_spent FROM jl_budgets WHERE name LIKE 'js_p%' OR name LIKE '%js_parted%' ORDER BY name;
-- a dataset cannot be bound to a partition
SELECT js_error($$SELECT jl_dataset_declare('js_p0', 1000, source => 'js_parted_0')$$);

-- 4. inheritance: a parent's scan reads its children's rows
CREATE TABLE js_parent (id int PRIMARY KEY, x float8[]);
CREATE TABLE js_child () INHERITS (js_parent);
SELECT js_error($$SELECT jl_release_table('js_parent', 'id', '{x}', 'js_out_i', 2, 0.1, key => 'pinned')$$);
SELECT js_error($$SELECT jl_release_table('js_child', 'id', '{x}', 'js_out_i', 2, 0.1, key => 'pinned')$$);

DROP TABLE js_out, js_out_v, js_out_p, js_child, js_parent;
DROP MATERIALIZED VIEW js_mat;
DROP VIEW js_join, js_union, js_srf, js_group, js_sub, js_view2, js_view;
DROP TABLE js_parted, js_raw, js_other;
