-- The privacy budget as a boundary between roles (docs/design/threat_model.md):
-- curators A and B, a release operator, an analyst, attacking each other,
-- and a budget administrator, the only one to raise a cap or reset.
-- Releases go through protected tables (jl_protect, jl_release); the cost
-- of an unbudgeted primitive is booked with jl_budget_book; spending is
-- granted by the table (jl_protect_grant).
CREATE ROLE regress_jb_a;
CREATE ROLE regress_jb_a_member IN ROLE regress_jb_a;
CREATE ROLE regress_jb_b;
CREATE ROLE regress_jb_op;
CREATE ROLE regress_jb_analyst;
-- an error with its detail: refusals must not show what jl_budgets hides
CREATE FUNCTION jb_error(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  d text;
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' | ' || nullif(d, ''), '');
END $$;
GRANT EXECUTE ON FUNCTION jb_error(text) TO PUBLIC;
-- the curators and the operator (who releases and books) are curators, the
-- analyst an analyst; raising a cap or resetting a spent budget is a budget
-- administrator's, a role that owns no dataset here
GRANT jldp_curator TO regress_jb_a, regress_jb_b, regress_jb_op;
GRANT jldp_analyst TO regress_jb_analyst;
CREATE ROLE regress_jb_admin;
GRANT jldp_budget_admin TO regress_jb_admin;
GRANT CREATE ON SCHEMA public TO regress_jb_a, regress_jb_b;

-- a protected table of the superuser's, which no curator here may read
CREATE TABLE jb_super (id int PRIMARY KEY, a float8);
INSERT INTO jb_super SELECT i, i % 3 FROM generate_series(1, 5) i;
SELECT dataset FROM jl_protect('jb_super', 'id', ARRAY[jl_numeric('a', 0, 2)], epsilon_cap => 1.0);

-- curator A: three raw tables, two of them protected (B may read the
-- second and the third, the operator the second), and a long-format table
SET ROLE regress_jb_a;
CREATE TABLE jb_a_raw AS SELECT i AS id, ARRAY[i % 7, i % 5, i % 3]::float8[] AS x FROM generate_series(1, 40) i;
ALTER TABLE jb_a_raw ADD PRIMARY KEY (id);
CREATE TABLE jb_a_raw2 AS SELECT * FROM jb_a_raw;
ALTER TABLE jb_a_raw2 ADD PRIMARY KEY (id);
CREATE TABLE jb_a_raw3 AS SELECT * FROM jb_a_raw;
ALTER TABLE jb_a_raw3 ADD PRIMARY KEY (id);
GRANT SELECT ON jb_a_raw2, jb_a_raw3 TO regress_jb_b;
GRANT SELECT ON jb_a_raw2 TO regress_jb_op;
SELECT * FROM jl_protect('jb_a_raw', 'id', ARRAY[jl_vector('x', 3, 0, 6)], epsilon_cap => 2);
SELECT * FROM jl_protect('jb_a_raw2', 'id', ARRAY[jl_vector('x', 3, 0, 6)], epsilon_cap => 1);
SELECT released, epsilon_charged FROM jl_release('jb_a_raw', 'jb_a_out', 0.5, jl_sketch(k => 2), key => 'pinned');
-- long format, (row, attribute, value): one sketch per row_id, as the
-- aggregate released it under 0.3 (10 rows of 4 attributes)
CREATE TABLE jb_a_facts AS SELECT r AS row_id, a AS attr, (r * a % 5)::float8 AS val
  FROM generate_series(1, 10) r, generate_series(1, 4) a;
ALTER TABLE jb_a_facts ADD PRIMARY KEY (row_id, attr);
SELECT * FROM jl_protect('jb_a_facts', 'row_id', ARRAY[jl_long('attr', 'val', 4, 0, 4)],
                         neighbor => 'attribute', epsilon_cap => 1);
SELECT released, epsilon_charged FROM jl_release('jb_a_facts', 'jb_a_facts_out', 0.5, jl_sketch(k => 2), key => 'pinned');
SELECT count(*) AS released, count(DISTINCT id) AS row_ids FROM jb_a_facts_out;
-- (1) A owns and sees its datasets, and the ledger names A
SELECT name, epsilon_cap, epsilon_spent, owner FROM jl_budgets ORDER BY name;
SELECT relation, dataset, unit, neighbor, epsilon_remaining, owner FROM jl_protected ORDER BY dataset;
SELECT dataset, event, epsilon, role FROM jl_ledger ORDER BY id;
RESET ROLE;

-- (1) curator B changes nobody's budget but its own
SET ROLE regress_jb_b;
SELECT jb_error($$SELECT jl_reset('jb_a_raw')$$);
SELECT jb_error($$SELECT jl_set_cap('jb_a_raw', 1000)$$);
SELECT jb_error($$SELECT jl_reset('jb_super')$$);
SELECT jb_error($$SELECT jl_set_cap('jb_super', 1000, 0.5)$$);
SELECT jb_error($$SELECT jl_protect_grant('jb_a_raw', 'regress_jb_b')$$);
SELECT jb_error($$SELECT jl_protect_grant('jb_super', 'regress_jb_b')$$);
SELECT count(*) AS budgets_b_sees, (SELECT count(*) FROM jl_ledger) AS ledger_rows_b_sees,
       (SELECT count(*) FROM jl_protected) AS protected_b_sees FROM jl_budgets;
-- (6) B burns nothing of A's, which it may read: neither by booking nor
-- by a release (a release of B's own table is charged to B's own table)
SELECT jb_error($$SELECT jl_budget_book('jb_a_raw2', 1.0)$$);
SELECT jb_error($$SELECT jl_budget_book('jb_a_raw2', 100)$$);
SELECT jb_error($$SELECT jl_release('jb_a_raw2', 'jb_b_out2', 0.5, jl_sketch(k => 2), key => 'pinned')$$);
-- (nor jb_a_raw's, which it may not read: refused before the spender is
-- even looked at)
SELECT jb_error($$SELECT jl_budget_book('jb_a_raw', 1.0)$$);
CREATE TABLE jb_b_raw AS SELECT i AS id, ARRAY[i % 2, i % 3]::float8[] AS x FROM generate_series(1, 10) i;
ALTER TABLE jb_b_raw ADD PRIMARY KEY (id);
SELECT * FROM jl_protect('jb_b_raw', 'id', ARRAY[jl_vector('x', 2, 0, 2)], epsilon_cap => 5);
SELECT released, epsilon_charged FROM jl_release('jb_b_raw', 'jb_b_out', 1.0, jl_sketch(k => 2), key => 'pinned');
SELECT name, epsilon_spent FROM jl_budgets ORDER BY name;
-- (4) squatting: B reads jb_a_raw3 but does not own it, and cannot
-- protect it (nor jb_a_raw, which it cannot even read) ...
SELECT jb_error($$SELECT jl_protect('jb_a_raw3', 'id', ARRAY[jl_vector('x', 3, 0, 6)], epsilon_cap => 100)$$);
SELECT jb_error($$SELECT jl_protect('jb_a_raw', 'id', ARRAY[jl_vector('x', 3, 0, 6)], epsilon_cap => 100)$$);
-- ... nor re-declare A's protected jb_a_raw2 (a cap or a unit of its own);
-- and no budget of any name is declared but by jl_protect, by the table's
-- owner (0.5's jl_dataset_declare, which took any free name, is gone)
SELECT jb_error($$SELECT jl_protect('jb_a_raw2', 'id', ARRAY[jl_vector('x', 3, 0, 6)], epsilon_cap => 100)$$);
SELECT to_regproc('jl_dataset_declare') IS NULL AS no_dataset_declare;
RESET ROLE;
SELECT name, epsilon_spent, owner::text = current_user AS superusers FROM jl_budgets
 WHERE name IN ('public.jb_a_raw', 'public.jb_super') ORDER BY name;

-- A protects jb_a_raw3 itself, and releases it (charged to it)
SET ROLE regress_jb_a;
SELECT * FROM jl_protect('jb_a_raw3', 'id', ARRAY[jl_vector('x', 3, 0, 6)], epsilon_cap => 1);
SELECT released, epsilon_charged FROM jl_release('jb_a_raw3', 'jb_a_out3', 0.5, jl_sketch(k => 2), key => 'pinned');
RESET ROLE;
SELECT name, epsilon_spent, source, owner FROM jl_budgets WHERE name = 'public.jb_a_raw3';

-- (1) a member of A's role manages A's budgets: it lowers a cap ...
SET ROLE regress_jb_a_member;
SELECT jl_set_cap('jb_a_facts', 0.75);
-- ... but neither it nor A itself (a curator, no budget administrator)
-- raises a cap or resets what was spent: the role that spends a budget
-- cannot refill it
SELECT jb_error($$SELECT jl_set_cap('jb_a_raw', 3.0)$$);
RESET ROLE;
SET ROLE regress_jb_a;
SELECT jb_error($$SELECT jl_set_cap('jb_a_facts', 1.0)$$);
SELECT jb_error($$SELECT jl_set_cap('jb_a_raw', 2.0, 0.5)$$);
SELECT jb_error($$SELECT jl_reset('jb_a_facts')$$);
SELECT name, epsilon_cap, delta_cap, epsilon_spent FROM jl_budgets
 WHERE name IN ('public.jb_a_raw', 'public.jb_a_facts') ORDER BY name;
RESET ROLE;
-- a budget administrator, who owns none of these datasets and may read
-- none of their tables, raises A's cap and resets A's spent budget; it
-- sees every dataset and the whole ledger, and spends nothing
SET ROLE regress_jb_admin;
SELECT jl_set_cap('jb_a_raw', 3.0);
SELECT jl_reset('jb_a_facts');
SELECT name, epsilon_cap, epsilon_spent,
       CASE WHEN owner::text = session_user THEN 'the superuser' ELSE owner::text END AS owner
  FROM jl_budgets WHERE name LIKE '%jb\_%' ORDER BY name;
SELECT dataset, event, epsilon, role FROM jl_ledger
 WHERE event IN ('cap', 'reset') AND dataset LIKE '%jb\_%' ORDER BY id;
SELECT jb_error($$SELECT count(*) FROM jb_a_raw$$);
SELECT jb_error($$SELECT jl_budget_book('jb_a_raw', 0.1)$$);
SELECT jb_error($$SELECT jl_release('jb_b_raw', 'pg_temp.jb_admin_out', 0.1, jl_sketch(k => 2), key => 'pinned')$$);
RESET ROLE;

-- (6) the operator spends only what an owner granted it (it may read
-- jb_a_raw2)
SET ROLE regress_jb_op;
SELECT jb_error($$SELECT jl_release('jb_a_raw2', 'pg_temp.jb_op_out2', 0.5, jl_sketch(k => 2), key => 'pinned')$$);
SELECT jb_error($$SELECT jl_budget_book('jb_a_raw2', 0.5)$$);
RESET ROLE;
SET ROLE regress_jb_a;
SELECT jl_protect_grant('jb_a_raw', 'regress_jb_op');
SELECT jl_protect_grant('jb_a_raw2', 'regress_jb_op');
-- a release through A's function: the operator cannot read the raw table
CREATE FUNCTION jb_a_release(target text) RETURNS bigint
  LANGUAGE sql SECURITY DEFINER SET search_path = public, jldp, pg_temp
  AS $$ SELECT release_id FROM jl_release('jb_a_raw', target, 0.25, jl_sketch(k => 2), key => 'pinned') $$;
REVOKE ALL ON FUNCTION jb_a_release(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION jb_a_release(text) TO regress_jb_op;
RESET ROLE;
SET ROLE regress_jb_op;
SELECT jb_a_release('jb_op_out') > 0 AS released_by_wrapper;
SELECT jb_error($$SELECT count(*) FROM jb_a_raw$$);
-- nor release it directly: a granted spender still reads only what it may
SELECT jb_error($$SELECT jl_release('jb_a_raw', 'pg_temp.jb_op_out1', 0.25, jl_sketch(k => 2), key => 'pinned')$$);
-- (a target it cannot create is refused before the charge)
SELECT jb_error($$SELECT jl_release('jb_a_raw2', 'public.jb_op_out2', 0.5, jl_sketch(k => 2), key => 'pinned')$$);
SELECT released, epsilon_charged FROM jl_release('jb_a_raw2', 'pg_temp.jb_op_out2', 0.5, jl_sketch(k => 2), key => 'pinned');
-- a granted spender may book the cost of an unbudgeted release
SELECT jl_budget_book('jb_a_raw2', 0.25, note => 'by the operator') > 0 AS booked_granted;
-- the refusal says the request does not fit, not what is left or the caps
SELECT jb_error($$SELECT jl_release('jb_a_raw2', 'pg_temp.jb_op_out3', 100, jl_sketch(k => 2), key => 'pinned')$$);
SELECT jb_error($$SELECT jl_budget_book('jb_a_raw2', 100)$$);
SELECT jb_error($$SELECT jl_reset('jb_a_raw')$$);
SELECT jb_error($$SELECT jl_set_cap('jb_a_raw', 100)$$);
SELECT jb_error($$SELECT jl_protect_grant('jb_a_raw', 'regress_jb_analyst')$$);
SELECT jb_error($$SELECT jl_protect('jb_a_raw2', 'id', ARRAY[jl_vector('x', 3, 0, 6)], epsilon_cap => 1)$$);
SELECT count(*) AS budgets_op_sees, (SELECT count(*) FROM jl_protected) AS protected_op_sees FROM jl_budgets;
RESET ROLE;
SET ROLE regress_jb_a;
-- the owner's refusal does give the figures: spent 0.5 + 0.25 of the cap
-- 3 (raised by the budget administrator), 2.25 left
SELECT jb_error($$SELECT jl_budget_book('jb_a_raw', 100)$$);
SELECT jl_protect_revoke('jb_a_raw', 'regress_jb_op');
SELECT jl_protect_revoke('jb_a_raw2', 'regress_jb_op');
RESET ROLE;
SET ROLE regress_jb_op;
SELECT jb_error($$SELECT jl_release('jb_a_raw2', 'pg_temp.jb_op_out3', 0.1, jl_sketch(k => 2), key => 'pinned')$$);
SELECT jb_error($$SELECT jl_budget_book('jb_a_raw2', 0.1)$$);
RESET ROLE;

-- the analyst: no budget functions, no budget rows (its role grants
-- neither: refused before any row is looked at)
SET ROLE regress_jb_analyst;
SELECT jb_error($$SELECT jl_budget_book('jb_a_raw', 0.5)$$);
SELECT jb_error($$SELECT jl_release('jb_a_raw', 'pg_temp.jb_an_out', 0.5, jl_sketch(k => 2), key => 'pinned')$$);
SELECT jb_error($$SELECT jl_reset('jb_a_raw')$$);
SELECT jb_error($$SELECT jl_set_cap('jb_a_raw', 0.1)$$);
SELECT f, has_function_privilege(f, 'EXECUTE') AS analyst_may
  FROM unnest(ARRAY['jl_release(regclass, text, float8, jl_mechanism, text)',
                    'jl_budget_book(regclass, float8, float8, text)',
                    'jl_set_cap(regclass, float8, float8)',
                    'jl_protect_grant(regclass, regrole)']) f;
SELECT v, jb_error(format('SELECT count(*) FROM %s', v)) AS analyst_reads
  FROM unnest(ARRAY['jl_budgets', 'jl_ledger', 'jl_protected']) v;
RESET ROLE;

-- the superuser sees every dataset; the ledger names who did what
SELECT dataset, event, epsilon, what, role FROM jl_ledger
 WHERE dataset IN ('public.jb_a_raw', 'public.jb_a_raw2', 'public.jb_a_raw3') ORDER BY id;

-- DROP EXTENSION keeps no keys or ledger unless asked to
BEGIN;
SELECT regexp_replace(jb_error($$DROP EXTENSION jldp$$), '\([0-9]+', '(N', 'g') AS refused;
SELECT to_regclass('jldp_internal.jldp_key') IS NOT NULL AS keys_kept;
SET LOCAL jldp.allow_drop = on;
DROP EXTENSION jldp;
SELECT to_regclass('jldp_internal.jldp_key') IS NULL AS dropped_when_allowed;
ROLLBACK;

DROP FUNCTION jb_a_release(text);
DROP TABLE jb_super, jb_a_raw, jb_a_raw2, jb_a_raw3, jb_a_facts, jb_a_out, jb_a_out3, jb_a_facts_out, jb_op_out, jb_b_raw, jb_b_out;
REVOKE CREATE ON SCHEMA public FROM regress_jb_a, regress_jb_b;
DROP FUNCTION jb_error(text);
DROP TABLE pg_temp.jb_op_out2;
DROP ROLE regress_jb_a_member, regress_jb_a, regress_jb_b, regress_jb_op, regress_jb_analyst, regress_jb_admin;

-- found by a review of 1.0.0's budget functions: (a) a budget
-- administrator that is also a curator cannot grant itself (or anyone)
-- spending on a table it does not own: who spends is the owner's call;
-- (b) no infinite cap; (c) a spender dropped since is revoked by its name,
-- so that a role created later under it spends nothing
CREATE FUNCTION jb_refusal(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
GRANT EXECUTE ON FUNCTION jb_refusal(text) TO PUBLIC;
CREATE ROLE regress_jb_admin_curator IN ROLE jldp_budget_admin, jldp_curator;
CREATE TABLE jb_rv (id int PRIMARY KEY, a float8);
INSERT INTO jb_rv SELECT i, i % 3 FROM generate_series(1, 5) i;
SELECT dataset FROM jl_protect('jb_rv', 'id', ARRAY[jl_numeric('a', 0, 2)], epsilon_cap => 1.0);
SET ROLE regress_jb_admin_curator;
SELECT jb_refusal($$SELECT jl_protect_grant('jb_rv', 'regress_jb_admin_curator')$$) AS admin_grants;
SELECT jb_refusal($$SELECT jl_set_cap('jb_rv', 'Infinity')$$) AS infinite_cap;
SELECT jl_set_cap('jb_rv', 2.0) AS admin_raises;
RESET ROLE;
CREATE ROLE regress_jb_ghost;
SELECT jl_protect_grant('jb_rv', 'regress_jb_ghost');
DROP ROLE regress_jb_ghost;
SELECT spenders FROM jl_budgets WHERE name = 'public.jb_rv';
SELECT jl_protect_revoke('jb_rv', 'regress_jb_ghost');
SELECT spenders FROM jl_budgets WHERE name = 'public.jb_rv';
SELECT event, what, role FROM jl_ledger WHERE dataset = 'public.jb_rv' ORDER BY id;
-- (d) the hint of a refused spender names the table, not the dataset
CREATE ROLE regress_jb_stranger IN ROLE jldp_curator;
GRANT SELECT ON jb_rv TO regress_jb_stranger;
ALTER TABLE jb_rv RENAME TO jb_rv2;
SET ROLE regress_jb_stranger;
SELECT jl_budget_book('jb_rv2', 0.1);
RESET ROLE;
DROP TABLE jb_rv2;
DROP ROLE regress_jb_admin_curator, regress_jb_stranger;
DROP FUNCTION jb_refusal(text);
