-- A charge is committed before any output exists: no ROLLBACK, ROLLBACK TO
-- SAVEPOINT or error after the output was seen undoes it
-- (docs/threat_model.md, attack 12).  Each attack below released twice
-- within a cap of once before charges were committed on their own.
CREATE FUNCTION jd_error(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE TABLE jd_raw AS SELECT i AS id, ARRAY[i % 7, i % 5, i % 3]::float8[] AS x
  FROM generate_series(1, 30) i;
ALTER TABLE jd_raw ADD PRIMARY KEY (id);
SELECT jl_dataset_declare('jd', 1.0, source => 'jd_raw');

-- 1. release at epsilon 1, read the output, ROLLBACK
BEGIN;
SELECT jl_release_table('jd_raw', 'id', '{x}', 'jd_out', 2, 1.0, key => 'pinned') > 0 AS released;
SELECT count(*) AS rows_seen FROM jd_out;
ROLLBACK;
SELECT to_regclass('jd_out') IS NULL AS output_gone, epsilon_spent FROM jl_budgets WHERE name = 'jd';
-- the second release at epsilon 1 does not fit the cap of 1
SELECT jd_error($$SELECT jl_release_table('jd_raw', 'id', '{x}', 'jd_out', 2, 1.0, key => 'pinned')$$);
SELECT event, epsilon, epsilon_spent, role = current_user AS acting_role FROM jl_ledger
 WHERE dataset = 'jd' ORDER BY id;

-- 2. the same with ROLLBACK TO SAVEPOINT
SELECT jl_dataset_reset('jd');
BEGIN;
SAVEPOINT s;
SELECT jl_release_table('jd_raw', 'id', '{x}', 'jd_out', 2, 1.0, key => 'pinned') > 0 AS released;
SELECT count(*) AS rows_seen FROM jd_out;
ROLLBACK TO SAVEPOINT s;
SELECT jd_error($$SELECT jl_release_table('jd_raw', 'id', '{x}', 'jd_out2', 2, 1.0, key => 'pinned')$$);
COMMIT;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'jd';

-- 3. an aggregate release read through a cursor, then the transaction
-- aborts: the reservation's charge stands
CREATE TABLE jd_facts AS SELECT r AS row_id, a AS attr, (r * a % 5)::float8 AS val
  FROM generate_series(1, 10) r, generate_series(1, 3) a;
SELECT jl_dataset_declare('jd_agg', 1.0);
BEGIN;
SELECT jl_budget_reserve('jd_agg', 1.0) > 0 AS reserved;
DECLARE c CURSOR FOR
  SELECT row_id, array_length(jl_private_release_agg(attr, val, 3, 2, 1.0, 'jd_agg', 'element', 1, 'exact', NULL, 'pinned'), 1) AS k
  FROM jd_facts GROUP BY row_id ORDER BY row_id;
FETCH 2 FROM c;
SELECT 1 / 0;
ROLLBACK;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'jd_agg';
SELECT jd_error($$SELECT jl_budget_reserve('jd_agg', 1.0)$$);
-- a reservation taken back by ROLLBACK TO SAVEPOINT is still charged, and
-- still usable in its transaction: it is not charged twice
SELECT jl_dataset_set_cap('jd_agg', 2.0);
BEGIN;
SAVEPOINT s;
SELECT jl_budget_reserve('jd_agg', 1.0) > 0 AS reserved;
ROLLBACK TO SAVEPOINT s;
SELECT count(z) AS released FROM (
  SELECT jl_private_release_agg(attr, val, 3, 2, 1.0, 'jd_agg', 'element', 1, 'exact', NULL, 'pinned') AS z
  FROM jd_facts GROUP BY row_id) s;
-- a consumed reservation taken back by ROLLBACK TO SAVEPOINT stays consumed
SAVEPOINT t;
SELECT jd_error($$SELECT count(z) FROM (
  SELECT jl_private_release_agg(attr, val, 3, 2, 1.0, 'jd_agg', 'element', 1, 'exact', NULL, 'pinned') AS z
  FROM jd_facts GROUP BY row_id) s$$);
COMMIT;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'jd_agg';
SELECT dataset, used, count(*) FROM jldp_reservation WHERE dataset = 'jd_agg'
 GROUP BY 1, 2 ORDER BY 1, 2;

-- 4. an error after the output was written: the charge stands
SELECT jl_dataset_reset('jd');
SELECT jd_error($$SELECT jl_release_table('jd_raw', 'id', '{x}', 'jd_out3', 2, 0.5, key => 'pinned') / 0$$);
SELECT to_regclass('jd_out3') IS NULL AS output_gone, epsilon_spent FROM jl_budgets WHERE name = 'jd';

-- 5. a declaration (or a cap) not committed yet is invisible to the
-- committed charge: refused, with a hint to commit it first
CREATE TABLE jd_raw2 (id int PRIMARY KEY, x float8[]);
INSERT INTO jd_raw2 SELECT * FROM jd_raw;
BEGIN;
SELECT jl_dataset_declare('jd2', 1.0, source => 'jd_raw2');
SELECT jd_error($$SELECT jl_release_table('jd_raw2', 'id', '{x}', 'jd_out4', 2, 0.5, key => 'pinned')$$);
SELECT jd_error($$SELECT jl_budget_reserve('jd2', 0.5)$$);
ROLLBACK;
BEGIN;
SELECT jl_dataset_set_cap('jd', 5);
SELECT jd_error($$SELECT jl_release_table('jd_raw', 'id', '{x}', 'jd_out4', 2, 0.5, key => 'pinned')$$);
ROLLBACK;
-- a relation created in the open transaction gets no dataset bound to it
BEGIN;
CREATE TABLE jd_raw3 (id int PRIMARY KEY, x float8[]);
SELECT jd_error($$SELECT jl_release_table('jd_raw3', 'id', '{x}', 'jd_out5', 2, 0.5, key => 'pinned')$$);
ROLLBACK;
SELECT count(*) AS datasets_of_uncommitted FROM jl_budgets WHERE name LIKE '%jd_raw3%';

-- a lock this transaction holds on the dataset, which the committed charge
-- would wait for: the release sees itself among the worker's blockers and
-- refuses, instead of waiting for ever
BEGIN;
SELECT name FROM jldp_dataset WHERE name = 'jd' FOR UPDATE;
SELECT jd_error($$SELECT jl_release_table('jd_raw', 'id', '{x}', 'jd_out4', 2, 0.5, key => 'pinned')$$);
ROLLBACK;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'jd';

-- 6. a read-only transaction cannot mark its reservation used: refused
BEGIN READ ONLY;
SELECT jd_error($$SELECT jl_budget_reserve('jd_agg', 0.1)$$);
ROLLBACK;

-- 7. a charge whose release failed after it (a row the release refuses,
-- found only when read): the charge stands, and jl_ledger says that no
-- release recorded it
CREATE TABLE jd_bad (id int PRIMARY KEY, x float8[]);
INSERT INTO jd_bad VALUES (1, '{1,2}'), (2, '{NaN,1}');
SELECT jl_dataset_declare('jd_bad', 5, source => 'jd_bad');
SELECT left(jd_error($$SELECT jl_release_table('jd_bad', 'id', '{x}', 'jd_bad_out', 2, 1.0, key => 'pinned')$$), 5) AS failed;
DELETE FROM jd_bad WHERE id = 2;
SELECT jl_release_table('jd_bad', 'id', '{x}', 'jd_bad_out', 2, 1.0, key => 'pinned') > 0 AS released;
SELECT event, epsilon, released FROM jl_ledger WHERE dataset = 'jd_bad' ORDER BY id;
-- events other than charges: released is NULL
SELECT count(*) FILTER (WHERE released IS NOT NULL) AS non_charges_with_released
  FROM jl_ledger WHERE event <> 'charge';

-- 8. jldp.charge_in_transaction: only a superuser may set it, and only a
-- superuser's charges follow it (a ROLLBACK then undoes the charge)
CREATE ROLE regress_jd_spender;
GRANT EXECUTE ON FUNCTION jl_dataset_declare(text, float8, float8, regclass, text),
                          jl_budget_reserve(text, float8, float8) TO regress_jd_spender;
SET ROLE regress_jd_spender;
SELECT left(jd_error($$SET jldp.charge_in_transaction = on$$), 5) AS set_by_non_superuser;
SELECT jl_dataset_declare('jd_spender', 5);
RESET ROLE;
SET jldp.charge_in_transaction = on;
BEGIN;
SELECT jl_release_table('jd_bad', 'id', '{x}', 'jd_tx_out', 2, 1.0, key => 'pinned') > 0 AS released_in_transaction;
ROLLBACK;
SELECT count(*) AS jd_bad_charges_after_rollback FROM jl_ledger WHERE dataset = 'jd_bad' AND event = 'charge';
-- set by a superuser, then a non-superuser current user: its charge is
-- committed by the worker, and stands after a ROLLBACK
SET ROLE regress_jd_spender;
BEGIN;
SELECT jl_budget_reserve('jd_spender', 1.0) > 0 AS reserved;
ROLLBACK;
RESET ROLE;
-- ... and a superuser's SECURITY DEFINER wrapper called in another role's
-- session (the setting given to that session): by the worker too
CREATE FUNCTION jd_su_reserve() RETURNS bigint LANGUAGE sql SECURITY DEFINER AS
  $$ SELECT jl_budget_reserve('jd_spender', 0.5) $$;
GRANT EXECUTE ON FUNCTION jd_su_reserve() TO regress_jd_spender;
SET SESSION AUTHORIZATION regress_jd_spender;
SHOW jldp.charge_in_transaction;
BEGIN;
SELECT jd_su_reserve() > 0 AS reserved_through_wrapper;
ROLLBACK;
RESET SESSION AUTHORIZATION;
RESET jldp.charge_in_transaction;
SELECT event, epsilon FROM jl_ledger WHERE dataset = 'jd_spender' ORDER BY id;
DROP FUNCTION jd_su_reserve();
REVOKE EXECUTE ON FUNCTION jl_dataset_declare(text, float8, float8, regclass, text),
                           jl_budget_reserve(text, float8, float8) FROM regress_jd_spender;

DROP TABLE jd_raw, jd_raw2, jd_facts, jd_bad, jd_bad_out;
DROP FUNCTION jd_error(text);
DROP ROLE regress_jd_spender;
