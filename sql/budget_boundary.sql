-- The privacy budget as a boundary between roles (docs/threat_model.md):
-- curators A and B, a release operator, an analyst, attacking each other.
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
GRANT EXECUTE ON FUNCTION
    jl_dataset_declare(text, float8, float8, regclass, text),
    jl_dataset_set_cap(text, float8, float8),
    jl_dataset_reset(text),
    jl_budget_reserve(text, float8, float8),
    jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8,
                     text, text, float8, float8, float8, text, text, float8, float8, text, float8, bigint),
    jl_private_release_agg(int, float8, int, int, float8, text, text, float8, text, float8, text)
  TO regress_jb_a, regress_jb_b, regress_jb_op;
GRANT EXECUTE ON FUNCTION jl_dataset_grant(text, regrole), jl_dataset_revoke(text, regrole)
  TO regress_jb_a, regress_jb_b;
GRANT CREATE ON SCHEMA public TO regress_jb_a, regress_jb_b;

-- a dataset of the superuser
SELECT jl_dataset_declare('jb_super', 1.0);

-- curator A: a raw table, a dataset bound to it, one that is not
SET ROLE regress_jb_a;
CREATE TABLE jb_a_raw AS SELECT i AS id, ARRAY[i % 7, i % 5, i % 3]::float8[] AS x FROM generate_series(1, 40) i;
ALTER TABLE jb_a_raw ADD PRIMARY KEY (id);
CREATE TABLE jb_a_raw2 AS SELECT * FROM jb_a_raw;
ALTER TABLE jb_a_raw2 ADD PRIMARY KEY (id);
CREATE TABLE jb_a_raw3 AS SELECT * FROM jb_a_raw;
ALTER TABLE jb_a_raw3 ADD PRIMARY KEY (id);
GRANT SELECT ON jb_a_raw2, jb_a_raw3 TO regress_jb_b;
SELECT jl_dataset_declare('jb_a', 2.0, source => 'jb_a_raw');
SELECT jl_dataset_declare('jb_a_free', 1.0);
SELECT jl_release_table('jb_a_raw', 'id', '{x}', 'jb_a_out', 2, 0.5, key => 'pinned') > 0 AS released;
-- an aggregate release consumes a reservation (marked used at commit)
CREATE TABLE jb_a_facts AS SELECT r AS row_id, a AS attr, (r * a % 5)::float8 AS val
  FROM generate_series(1, 10) r, generate_series(1, 4) a;
BEGIN;
SELECT jl_budget_reserve('jb_a_free', 0.5) > 0 AS reserved;
SELECT count(z) AS released FROM (SELECT jl_private_release_agg(attr, val, 4, 2, 0.5, 'jb_a_free', 'element', 1, 'exact', NULL, 'pinned') AS z
  FROM jb_a_facts GROUP BY row_id) s;
COMMIT;
-- (1) A owns and sees its datasets, and the ledger names A
SELECT name, epsilon_cap, epsilon_spent, owner FROM jl_budgets ORDER BY name;
SELECT dataset, event, epsilon, role FROM jl_ledger ORDER BY id;
RESET ROLE;

-- (1) curator B changes nobody's budget but its own
SET ROLE regress_jb_b;
SELECT jb_error($$SELECT jl_dataset_reset('jb_a')$$);
SELECT jb_error($$SELECT jl_dataset_set_cap('jb_a', 1000)$$);
SELECT jb_error($$SELECT jl_dataset_reset('jb_super')$$);
SELECT jb_error($$SELECT jl_dataset_set_cap('jb_super', 1000, 0.5)$$);
SELECT jb_error($$SELECT jl_dataset_grant('jb_a', 'regress_jb_b')$$);
SELECT count(*) AS budgets_b_sees, (SELECT count(*) FROM jl_ledger) AS ledger_rows_b_sees FROM jl_budgets;
-- (6) B burns nothing of A's: neither by a reservation nor by a release
-- of its own table charged to A's dataset
SELECT jb_error($$SELECT jl_budget_reserve('jb_a', 1.0)$$);
SELECT jb_error($$SELECT jl_budget_reserve('jb_a', 100)$$);
CREATE TABLE jb_b_raw AS SELECT i AS id, ARRAY[i % 2, i % 3]::float8[] AS x FROM generate_series(1, 10) i;
ALTER TABLE jb_b_raw ADD PRIMARY KEY (id);
SELECT jb_error($$SELECT jl_release_table('jb_b_raw', 'id', '{x}', 'jb_b_out', 2, 1.0, key => 'pinned', dataset => 'jb_a')$$);
-- (4) squatting: B reads jb_a_raw2 but does not own it, and cannot bind a
-- dataset to it (nor to jb_a_raw, which it cannot even read)
SELECT jb_error($$SELECT jl_dataset_declare('jb_squat', 100, source => 'jb_a_raw2')$$);
SELECT jb_error($$SELECT jl_dataset_declare('jb_squat', 100, source => 'jb_a_raw')$$);
-- nor take the default dataset of A's relation by its name
SELECT jl_dataset_declare('public.jb_a_raw3', 100);
RESET ROLE;
SELECT name, epsilon_spent, owner::text = current_user AS superusers FROM jl_budgets
 WHERE name IN ('jb_a', 'jb_super') ORDER BY name;

SET ROLE regress_jb_a;
-- the owner declares the relation B could not squat
SELECT jl_dataset_declare('jb_a2', 1.0, source => 'jb_a_raw2');
-- the default release of jb_a_raw3 is not charged to B's dataset
SELECT jb_error($$SELECT jl_release_table('jb_a_raw3', 'id', '{x}', 'jb_a_out3', 2, 0.5, key => 'pinned')$$);
RESET ROLE;
SELECT name, epsilon_spent FROM jl_budgets WHERE name = 'public.jb_a_raw3';

-- (1) a member of A's role manages A's datasets
SET ROLE regress_jb_a_member;
SELECT jl_dataset_set_cap('jb_a', 3.0);
RESET ROLE;

-- (6) the operator spends only what an owner granted it
SET ROLE regress_jb_op;
SELECT jb_error($$SELECT jl_release_table('jb_a_raw2', 'id', '{x}', 'pg_temp.jb_op_out2', 2, 0.5, key => 'pinned')$$);
RESET ROLE;
SET ROLE regress_jb_a;
SELECT jl_dataset_grant('jb_a', 'regress_jb_op');
SELECT jl_dataset_grant('jb_a2', 'regress_jb_op');
GRANT SELECT ON jb_a_raw2 TO regress_jb_op;
-- a release through A's function: the operator cannot read the raw table
CREATE FUNCTION jb_a_release(target text) RETURNS bigint
  LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$ SELECT jl_release_table('jb_a_raw', 'id', '{x}', target, 2, 0.25, key => 'pinned') $$;
REVOKE ALL ON FUNCTION jb_a_release(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION jb_a_release(text) TO regress_jb_op;
RESET ROLE;
SET ROLE regress_jb_op;
-- (10) a granted spender does not reserve for the free-form aggregate,
-- which cannot see repeated rows; it releases with jl_release_table
SELECT jb_error($$SELECT jl_budget_reserve('jb_a', 0.5)$$);
SELECT jb_a_release('jb_op_out') > 0 AS released_by_wrapper;
SELECT jb_error($$SELECT count(*) FROM jb_a_raw$$);
-- (a target it cannot create is refused before the charge)
SELECT jb_error($$SELECT jl_release_table('jb_a_raw2', 'id', '{x}', 'public.jb_op_out2', 2, 0.5, key => 'pinned')$$);
SELECT jl_release_table('jb_a_raw2', 'id', '{x}', 'pg_temp.jb_op_out2', 2, 0.5, key => 'pinned') > 0 AS released_granted;
-- the refusal says the request does not fit, not what is left or the caps
SELECT jb_error($$SELECT jl_release_table('jb_a_raw2', 'id', '{x}', 'pg_temp.jb_op_out3', 2, 100, key => 'pinned')$$);
SELECT jb_error($$SELECT jl_dataset_reset('jb_a')$$);
SELECT jb_error($$SELECT jl_dataset_set_cap('jb_a', 100)$$);
SELECT jb_error($$SELECT jl_dataset_grant('jb_a', 'regress_jb_analyst')$$);
SELECT count(*) AS budgets_op_sees FROM jl_budgets;
RESET ROLE;
SET ROLE regress_jb_a;
-- the owner's refusal does give the figures
SELECT jb_error($$SELECT jl_budget_reserve('jb_a', 100)$$);
SELECT jl_dataset_revoke('jb_a', 'regress_jb_op');
SELECT jl_dataset_revoke('jb_a2', 'regress_jb_op');
RESET ROLE;
SET ROLE regress_jb_op;
SELECT jb_error($$SELECT jl_release_table('jb_a_raw2', 'id', '{x}', 'pg_temp.jb_op_out3', 2, 0.1, key => 'pinned')$$);
RESET ROLE;

-- the analyst: no budget functions, no budget rows
SET ROLE regress_jb_analyst;
SELECT jb_error($$SELECT jl_budget_reserve('jb_a', 0.5)$$);
SELECT jb_error($$SELECT jl_dataset_reset('jb_a')$$);
SELECT count(*) AS budgets_analyst_sees, (SELECT count(*) FROM jl_ledger) AS ledger_rows FROM jl_budgets;
RESET ROLE;

-- the superuser sees every dataset; the ledger names who did what
SELECT dataset, event, epsilon, what, role FROM jl_ledger
 WHERE dataset IN ('jb_a', 'jb_a2', 'public.jb_a_raw3') ORDER BY id;
-- reservations have identities that do not recur
SELECT dataset, role, used, count(*) AS reservations, count(DISTINCT token) AS tokens
  FROM jldp_reservation WHERE dataset IN ('jb_a', 'jb_a_free') GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

-- DROP EXTENSION keeps no keys or ledger unless asked to
BEGIN;
SELECT regexp_replace(jb_error($$DROP EXTENSION jldp$$), '\([0-9]+', '(N', 'g') AS refused;
SELECT to_regclass('jldp_key') IS NOT NULL AS keys_kept;
SET LOCAL jldp.allow_drop = on;
DROP EXTENSION jldp;
SELECT to_regclass('jldp_key') IS NULL AS dropped_when_allowed;
ROLLBACK;

DROP FUNCTION jb_a_release(text);
DROP TABLE jb_a_raw, jb_a_raw2, jb_a_raw3, jb_a_facts, jb_a_out, jb_op_out, jb_b_raw;
REVOKE ALL ON FUNCTION
    jl_dataset_declare(text, float8, float8, regclass, text),
    jl_dataset_set_cap(text, float8, float8),
    jl_dataset_reset(text),
    jl_budget_reserve(text, float8, float8),
    jl_release_table(regclass, text, text[], text, int, float8, text, float8, text, float8,
                     text, text, float8, float8, float8, text, text, float8, float8, text, float8, bigint),
    jl_private_release_agg(int, float8, int, int, float8, text, text, float8, text, float8, text)
  FROM regress_jb_a, regress_jb_b, regress_jb_op;
REVOKE ALL ON FUNCTION jl_dataset_grant(text, regrole), jl_dataset_revoke(text, regrole)
  FROM regress_jb_a, regress_jb_b;
REVOKE CREATE ON SCHEMA public FROM regress_jb_a, regress_jb_b;
DROP FUNCTION jb_error(text);
DROP TABLE pg_temp.jb_op_out2;
DROP ROLE regress_jb_a_member, regress_jb_a, regress_jb_b, regress_jb_op, regress_jb_analyst;
