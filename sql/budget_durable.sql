-- A charge is committed before any output exists: no ROLLBACK, ROLLBACK TO
-- SAVEPOINT or error after the output was seen undoes it
-- (docs/design/threat_model.md, attack 12).  Each attack below released twice
-- within a cap of once before charges were committed on their own.  The
-- releases are of protected tables (jl_protect, jl_release); a charge made
-- for an unbudgeted primitive is booked (jl_budget_book).
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
SELECT * FROM jl_protect('jd_raw', 'id', ARRAY[jl_vector('x', 3, 0, 6)], epsilon_cap => 1.0);

-- 1. release at epsilon 1, read the output, ROLLBACK
BEGIN;
SELECT released, epsilon_charged FROM jl_release('jd_raw', 'jd_out', 1.0, jl_sketch(k => 2), key => 'pinned');
SELECT count(*) AS rows_seen FROM jd_out;
ROLLBACK;
SELECT to_regclass('jd_out') IS NULL AS output_gone, epsilon_spent FROM jl_budgets WHERE name = 'public.jd_raw';
-- the second release at epsilon 1 does not fit the cap of 1
SELECT jd_error($$SELECT jl_release('jd_raw', 'jd_out', 1.0, jl_sketch(k => 2), key => 'pinned')$$);
-- the charge stands, and jl_ledger says that no release recorded it (the
-- registry's row went with the ROLLBACK)
SELECT event, epsilon, epsilon_spent, role = current_user AS acting_role, released FROM jl_ledger
 WHERE dataset = 'public.jd_raw' ORDER BY id;

-- 2. the same with ROLLBACK TO SAVEPOINT
SELECT jl_reset('jd_raw');
BEGIN;
SAVEPOINT s;
SELECT released, epsilon_charged FROM jl_release('jd_raw', 'jd_out', 1.0, jl_sketch(k => 2), key => 'pinned');
SELECT count(*) AS rows_seen FROM jd_out;
ROLLBACK TO SAVEPOINT s;
SELECT jd_error($$SELECT jl_release('jd_raw', 'jd_out2', 1.0, jl_sketch(k => 2), key => 'pinned')$$);
COMMIT;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.jd_raw';

-- 3. an unbudgeted release (jl_private_release, row by row) read through
-- a cursor after its cost was booked, then the transaction aborts: the
-- booked charge stands
CREATE TABLE jd_facts AS SELECT r AS row_id, ARRAY[r % 5, 2 * r % 5, 3 * r % 5]::float8[] AS x
  FROM generate_series(1, 10) r;
ALTER TABLE jd_facts ADD PRIMARY KEY (row_id);
SELECT * FROM jl_protect('jd_facts', 'row_id', ARRAY[jl_vector('x', 3, 0, 4)], neighbor => 'attribute',
                         epsilon_cap => 1.0);
BEGIN;
SELECT jl_budget_book('jd_facts', 1.0, note => 'jl_private_release of jd_facts') > 0 AS booked;
DECLARE c CURSOR FOR
  SELECT row_id, array_length(jl_private_release(x, 1.0, 4, 'attribute', jl_sketch(k => 2), key => 'pinned'), 1) AS k
  FROM jd_facts ORDER BY row_id;
FETCH 2 FROM c;
SELECT 1 / 0;
ROLLBACK;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.jd_facts';
SELECT jd_error($$SELECT jl_budget_book('jd_facts', 1.0)$$);
-- a booking taken back by ROLLBACK TO SAVEPOINT is still charged
SELECT jl_set_cap('jd_facts', 2.0);
BEGIN;
SAVEPOINT s;
SELECT jl_budget_book('jd_facts', 1.0) > 0 AS booked;
ROLLBACK TO SAVEPOINT s;
SELECT jd_error($$SELECT jl_budget_book('jd_facts', 1.0)$$);
COMMIT;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.jd_facts';
-- a booked charge is no release's: released is NULL
SELECT event, epsilon, what, released FROM jl_ledger WHERE dataset = 'public.jd_facts' ORDER BY id;

-- 4. an error after the output was written: the charge stands
SELECT jl_reset('jd_raw');
SELECT jd_error($$SELECT (jl_release('jd_raw', 'jd_out3', 0.5, jl_sketch(k => 2), key => 'pinned')).release_id / 0$$);
SELECT to_regclass('jd_out3') IS NULL AS output_gone, epsilon_spent FROM jl_budgets WHERE name = 'public.jd_raw';

-- 5. a declaration (or a cap) not committed yet is invisible to the
-- committed charge: refused, with a hint to commit it first
CREATE TABLE jd_raw2 (id int PRIMARY KEY, x float8[]);
INSERT INTO jd_raw2 SELECT * FROM jd_raw;
BEGIN;
SELECT * FROM jl_protect('jd_raw2', 'id', ARRAY[jl_vector('x', 3, 0, 6)], epsilon_cap => 1.0);
SELECT jd_error($$SELECT jl_release('jd_raw2', 'jd_out4', 0.5, jl_sketch(k => 2), key => 'pinned')$$);
SELECT jd_error($$SELECT jl_budget_book('jd_raw2', 0.5)$$);
ROLLBACK;
BEGIN;
SELECT jl_set_cap('jd_raw', 5);
SELECT jd_error($$SELECT jl_release('jd_raw', 'jd_out4', 0.5, jl_sketch(k => 2), key => 'pinned')$$);
ROLLBACK;
-- a re-declaration in the open transaction (here: a lower cap) likewise
BEGIN;
SELECT * FROM jl_protect('jd_raw', 'id', ARRAY[jl_vector('x', 3, 0, 6)], epsilon_cap => 0.9);
SELECT jd_error($$SELECT jl_release('jd_raw', 'jd_out4', 0.1, jl_sketch(k => 2), key => 'pinned')$$);
ROLLBACK;
-- a relation created in the open transaction may be declared there, and
-- not released there: its dataset goes with the ROLLBACK
BEGIN;
CREATE TABLE jd_raw3 (id int PRIMARY KEY, x float8[]);
SELECT * FROM jl_protect('jd_raw3', 'id', ARRAY[jl_vector('x', 3, 0, 6)], epsilon_cap => 1.0);
SELECT jd_error($$SELECT jl_release('jd_raw3', 'jd_out5', 0.5, jl_sketch(k => 2), key => 'pinned')$$);
ROLLBACK;
SELECT count(*) AS datasets_of_uncommitted FROM jl_budgets WHERE name LIKE '%jd_raw3%';

-- a lock this transaction holds on the dataset, which the committed charge
-- would wait for: the release sees itself among the worker's blockers and
-- refuses, instead of waiting for ever
BEGIN;
SELECT name FROM jldp_internal.jldp_dataset WHERE name = 'public.jd_raw' FOR UPDATE;
SELECT jd_error($$SELECT jl_release('jd_raw', 'jd_out4', 0.5, jl_sketch(k => 2), key => 'pinned')$$);
ROLLBACK;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.jd_raw';

-- 6. a read-only transaction cannot create the target: refused before
-- the charge
BEGIN READ ONLY;
SELECT jd_error($$SELECT jl_release('jd_raw', 'jd_out4', 0.1, jl_sketch(k => 2), key => 'pinned')$$);
ROLLBACK;
SELECT epsilon_spent FROM jl_budgets WHERE name = 'public.jd_raw';

-- 7. a charge whose release failed after it: the charge stands, and
-- jl_ledger says that no release recorded it.  (Reading a row fails
-- nothing in the pipeline: a NaN reads as lo, see protected_tables.)  The
-- failure here is the target's creation after the charge, refused by an
-- event trigger; the name's reservation before the charge creates a table
-- without columns, which it lets pass.
CREATE TABLE jd_bad (id int PRIMARY KEY, x float8[]);
INSERT INTO jd_bad VALUES (1, '{1,2}'), (2, '{NaN,1}');
SELECT * FROM jl_protect('jd_bad', 'id', ARRAY[jl_vector('x', 2, 0, 6)], epsilon_cap => 5);
CREATE FUNCTION jd_refuse_target() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT FROM pg_event_trigger_ddl_commands() c JOIN pg_attribute a ON a.attrelid = c.objid
              WHERE c.object_identity = 'public.jd_bad_out' AND a.attnum > 0) THEN
    RAISE EXCEPTION 'the target is refused after the charge';
  END IF;
END $$;
CREATE EVENT TRIGGER jd_refuse ON ddl_command_end WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION jd_refuse_target();
SELECT jd_error($$SELECT jl_release('jd_bad', 'jd_bad_out', 1.0, jl_sketch(k => 2), key => 'pinned')$$) AS failed;
DROP EVENT TRIGGER jd_refuse;
DROP FUNCTION jd_refuse_target();
SELECT released FROM jl_release('jd_bad', 'jd_bad_out', 1.0, jl_sketch(k => 2), key => 'pinned');
SELECT event, epsilon, released FROM jl_ledger WHERE dataset = 'public.jd_bad' ORDER BY id;
-- events other than charges: released is NULL
SELECT count(*) FILTER (WHERE released IS NOT NULL) AS non_charges_with_released
  FROM jl_ledger WHERE event <> 'charge';

-- 8. jldp.charge_in_transaction: only a superuser may set it, and only a
-- superuser's charges follow it (a ROLLBACK then undoes the charge)
-- (the spender is a curator: it protects a table of its own and books
-- its charges)
CREATE ROLE regress_jd_spender;
GRANT jldp_curator TO regress_jd_spender;
GRANT CREATE ON SCHEMA public TO regress_jd_spender;
SET ROLE regress_jd_spender;
SELECT left(jd_error($$SET jldp.charge_in_transaction = on$$), 5) AS set_by_non_superuser;
CREATE TABLE jd_spender_raw (id int PRIMARY KEY, a float8);
SELECT * FROM jl_protect('jd_spender_raw', 'id', ARRAY[jl_numeric('a', 0, 1)], epsilon_cap => 5);
RESET ROLE;
SET jldp.charge_in_transaction = on;
BEGIN;
SELECT released AS released_in_transaction FROM jl_release('jd_bad', 'jd_tx_out', 1.0, jl_sketch(k => 2), key => 'pinned');
SELECT jl_budget_book('jd_bad', 1.0) > 0 AS booked_in_transaction;
ROLLBACK;
SELECT count(*) AS jd_bad_charges_after_rollback FROM jl_ledger WHERE dataset = 'public.jd_bad' AND event = 'charge';
-- set by a superuser, then a non-superuser current user: its charge is
-- committed by the worker, and stands after a ROLLBACK
SET ROLE regress_jd_spender;
BEGIN;
SELECT jl_budget_book('jd_spender_raw', 1.0) > 0 AS booked;
ROLLBACK;
RESET ROLE;
-- ... and a superuser's SECURITY DEFINER wrapper called in another role's
-- session (the setting given to that session): by the worker too
CREATE FUNCTION jd_su_book() RETURNS bigint LANGUAGE sql SECURITY DEFINER AS
  $$ SELECT jl_budget_book('jd_spender_raw', 0.5, note => 'through a wrapper') $$;
GRANT EXECUTE ON FUNCTION jd_su_book() TO regress_jd_spender;
SET SESSION AUTHORIZATION regress_jd_spender;
SHOW jldp.charge_in_transaction;
BEGIN;
SELECT jd_su_book() > 0 AS booked_through_wrapper;
ROLLBACK;
RESET SESSION AUTHORIZATION;
RESET jldp.charge_in_transaction;
SELECT event, epsilon, what, CASE WHEN role = current_user THEN 'the superuser' ELSE role END AS role
  FROM jl_ledger WHERE dataset = 'public.jd_spender_raw' ORDER BY id;
DROP FUNCTION jd_su_book();
DROP TABLE jd_spender_raw;
REVOKE CREATE ON SCHEMA public FROM regress_jd_spender;

DROP TABLE jd_raw, jd_raw2, jd_facts, jd_bad, jd_bad_out;
DROP FUNCTION jd_error(text);
DROP ROLE regress_jd_spender;
