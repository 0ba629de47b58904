-- The objects the SQL fuzzer's calls name: a key, tables of every shape a
-- release reads (a table, a view with a secret filter, a partitioned table
-- and a partition, a long table, edges), datasets with a large cap,
-- protected tables (wide, long and edges), and the targets of a table, a
-- covariance and a graph release to read back, each made by jl_release
-- from a protected table.
SET client_min_messages = warning;
CREATE EXTENSION jldp;
SELECT jl_key_import('pinned', '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
CREATE TABLE fz_src AS
  SELECT i AS id, ARRAY[i % 7, i % 5, i % 3, 1]::float8[] AS x,
         (i % 7)::float8 AS a, (i % 5)::float8 AS b, (i % 3)::float8 AS c,
         i AS u, i % 40 + 1 AS v, (i % 4 + 1) AS attr, (i % 9)::float8 AS val
  FROM generate_series(1, 200) i;
ALTER TABLE fz_src ADD PRIMARY KEY (id);
CREATE VIEW fz_view AS SELECT * FROM fz_src WHERE a > 3;
CREATE TABLE fz_parted (id int PRIMARY KEY, x float8[]) PARTITION BY RANGE (id);
CREATE TABLE fz_part_1 PARTITION OF fz_parted FOR VALUES FROM (0) TO (100);
CREATE TABLE fz_part_2 PARTITION OF fz_parted FOR VALUES FROM (100) TO (1000);
INSERT INTO fz_parted SELECT id, x FROM fz_src;
CREATE TABLE fz_edges AS SELECT i AS u, i % 40 + 1 AS v FROM generate_series(1, 40) i;
-- budgets bound to tables that are not declared, as 0.3's
-- jl_dataset_declare left them (written directly: 1.0 declares a budget
-- only with jl_protect)
INSERT INTO jldp_internal.jldp_dataset (name, epsilon_cap, delta_cap, source, owner) VALUES
  ('fz', 1e12, 0.5, 'fz_src', current_user), ('fz_parted', 1e12, 0.5, 'fz_parted', current_user),
  ('fz_edges', 1e12, 0.5, 'fz_edges', current_user);
-- protected tables (jl_protect), released through the pipeline
CREATE TABLE fz_protected AS SELECT id, a, b, x, u FROM fz_src;
ALTER TABLE fz_protected ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('fz_protected', 'id', ARRAY[jl_numeric('a', 0, 7), jl_numeric('b', 0, 5), jl_vector('x', 4, 0, 7)],
                         epsilon_cap => 1e12, delta_cap => 0.5);
CREATE TABLE fz_protected_long AS SELECT id AS u, attr, val FROM fz_src;
ALTER TABLE fz_protected_long ADD PRIMARY KEY (u, attr);
SELECT d FROM jl_protect('fz_protected_long', 'u', ARRAY[jl_long('attr', 'val', 4, 0, 9)],
                         epsilon_cap => 1e12, delta_cap => 0.5);
CREATE TABLE fz_protected_edges AS SELECT i AS id, i % 40 + 1 AS u, (i * 7) % 41 AS v FROM generate_series(1, 60) i;
ALTER TABLE fz_protected_edges ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('fz_protected_edges', 'id', ARRAY[jl_edge('u', 'v', 40)],
                         epsilon_cap => 1e12, delta_cap => 0.5);
-- the releases read back (a table, a covariance and a graph release),
-- made by the pipeline from the protected tables above
SELECT released FROM jl_release('fz_protected', 'fz_rel', 1.0, jl_sketch(k => 4), key => 'pinned');
SELECT released FROM jl_release('fz_protected', 'fz_cov_rel', 1.0, jl_covariance_mechanism(r => 8, delta => 1e-6), key => 'pinned');
SELECT released FROM jl_release('fz_protected_edges', 'fz_graph_rel', 4.0, jl_graph(r => 8, delta => 1e-3), key => 'pinned');
