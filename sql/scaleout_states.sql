-- The float8[] states of jl_lloyd_step and jl_vector_sum are written in
-- place.  Their transition functions are granted to no role: a role without
-- a jldp role cannot look them up (no USAGE on jldp_internal), a curator
-- (USAGE on jldp_internal) cannot build an aggregate over them (no EXECUTE).
-- A superuser still may, with an initial state of its own: a state that is
-- not a float8 array of the expected shape without NULLs is refused with
-- SQLSTATE 22023, never written past its end.
CREATE ROLE jl_ss_user LOGIN;
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SET ROLE jl_ss_user;
SELECT pg_temp.try($q$CREATE AGGREGATE pg_temp.vs_user(float8[]) (
  SFUNC = jldp_internal.jl_vector_sum_trans, STYPE = float8[], INITCOND = '{NULL}')$q$) AS no_jldp_role;
RESET ROLE;
GRANT jldp_curator TO jl_ss_user;
SET ROLE jl_ss_user;
SELECT pg_temp.try($q$CREATE AGGREGATE pg_temp.vs_user(float8[]) (
  SFUNC = jldp_internal.jl_vector_sum_trans, STYPE = float8[], INITCOND = '{NULL}')$q$) AS curator;
SELECT pg_temp.try($q$CREATE AGGREGATE pg_temp.ls_user(float8[], float8[]) (
  SFUNC = jldp_internal.jl_lloyd_step_trans, STYPE = float8[], INITCOND = '{{NULL}}')$q$) AS curator;
RESET ROLE;
-- the superuser's aggregates
-- a one-dimensional state of NULLs, the shape of the input
CREATE AGGREGATE pg_temp.vs_nulls(float8[]) (
  SFUNC = jldp_internal.jl_vector_sum_trans, STYPE = float8[],
  INITCOND = '{NULL,NULL,NULL,NULL}');
SELECT pg_temp.try($q$SELECT pg_temp.vs_nulls(x) FROM (VALUES ('{1,2,3,4}'::float8[])) v(x)$q$);
-- a large one, which writes far past the end when accepted
SELECT pg_temp.try(format($q$CREATE AGGREGATE pg_temp.vs_big(float8[]) (
  SFUNC = jldp_internal.jl_vector_sum_trans, STYPE = float8[], INITCOND = %L)$q$,
  (SELECT array_fill(NULL::float8, ARRAY[4000]))::text));
SELECT pg_temp.try($q$SELECT pg_temp.vs_big(array_fill(1::float8, ARRAY[4000]))$q$);
-- one NULL among values
CREATE AGGREGATE pg_temp.vs_one_null(float8[]) (
  SFUNC = jldp_internal.jl_vector_sum_trans, STYPE = float8[], INITCOND = '{1,NULL,3}');
SELECT pg_temp.try($q$SELECT pg_temp.vs_one_null(x) FROM (VALUES ('{1,2,3}'::float8[])) v(x)$q$);
-- a state of another shape
CREATE AGGREGATE pg_temp.vs_shape(float8[]) (
  SFUNC = jldp_internal.jl_vector_sum_trans, STYPE = float8[], INITCOND = '{{1,2},{3,4}}');
SELECT pg_temp.try($q$SELECT pg_temp.vs_shape(x) FROM (VALUES ('{1,2,3,4}'::float8[])) v(x)$q$);
-- a state of the right shape without NULLs is used as given
CREATE AGGREGATE pg_temp.vs_ok(float8[]) (
  SFUNC = jldp_internal.jl_vector_sum_trans, STYPE = float8[], INITCOND = '{10,20}');
SELECT pg_temp.vs_ok(x) FROM (VALUES ('{1,2}'::float8[]), ('{3,4}')) v(x);
-- the Lloyd step: 2 centroids of 2 dimensions, a 2 x 3 state
CREATE AGGREGATE pg_temp.ls_nulls(float8[], float8[]) (
  SFUNC = jldp_internal.jl_lloyd_step_trans, STYPE = float8[],
  INITCOND = '{{NULL,NULL,NULL},{NULL,NULL,NULL}}');
SELECT pg_temp.try($q$SELECT pg_temp.ls_nulls(x, '{{0,0},{1,1}}') FROM (VALUES ('{1,1}'::float8[])) v(x)$q$);
CREATE AGGREGATE pg_temp.ls_flat(float8[], float8[]) (
  SFUNC = jldp_internal.jl_lloyd_step_trans, STYPE = float8[], INITCOND = '{1,2,3,4,5,6}');
SELECT pg_temp.try($q$SELECT pg_temp.ls_flat(x, '{{0,0},{1,1}}') FROM (VALUES ('{1,1}'::float8[])) v(x)$q$);
CREATE AGGREGATE pg_temp.ls_ok(float8[], float8[]) (
  SFUNC = jldp_internal.jl_lloyd_step_trans, STYPE = float8[], INITCOND = '{{0,0,0},{0,0,0}}');
SELECT pg_temp.ls_ok(x, '{{0,0},{1,1}}') FROM (VALUES ('{1,1}'::float8[]), ('{0,0.25}')) v(x);
-- the built-in aggregates are unchanged, and called by an analyst (a
-- curator is one)
SET ROLE jl_ss_user;
SELECT jl_vector_sum(x ORDER BY x) FROM (VALUES ('{1,2}'::float8[]), ('{3,4}')) v(x);
RESET ROLE;
-- jl_knn and jl_kmeans_lloyd read leaf partitions: a view or a partitioned
-- table without partitions is refused with SQLSTATE 42809
CREATE TABLE ss_sk (id int, s float8[]);
INSERT INTO ss_sk VALUES (1, '{0,0}'), (2, '{1,1}');
CREATE VIEW ss_view AS SELECT * FROM ss_sk;
CREATE TABLE ss_empty (id int, s float8[]) PARTITION BY RANGE (id);
SELECT pg_temp.try($q$SELECT * FROM jl_knn('ss_view', 'id', 's', '{0,0}', 1)$q$);
SELECT pg_temp.try($q$SELECT * FROM jl_knn('ss_empty', 'id', 's', '{0,0}', 1)$q$);
SELECT pg_temp.try($q$SELECT jl_kmeans_lloyd('ss_view', 's', '{{0,0},{1,1}}')$q$);
SELECT pg_temp.try($q$SELECT jl_kmeans_lloyd('ss_empty', 's', '{{0,0},{1,1}}')$q$);
SELECT * FROM jl_knn('ss_sk', 'id', 's', '{0.9,0.9}', 1);
DROP VIEW ss_view;
DROP TABLE ss_sk, ss_empty;
-- jl_master_key_id reads a file or runs a command: not in a parallel worker
SELECT proparallel FROM pg_proc WHERE proname = 'jl_master_key_id';
DROP OWNED BY jl_ss_user;
DISCARD TEMP;
DROP ROLE jl_ss_user;
