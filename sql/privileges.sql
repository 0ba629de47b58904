-- Who may do what: analysts read sketches, never keys.
-- Each test role plays one of jldp's roles; regress_jldp_nobody holds none.
CREATE ROLE regress_jldp_analyst;
CREATE ROLE regress_jldp_curator;
CREATE ROLE regress_jldp_other;
CREATE ROLE regress_jldp_nobody;
GRANT jldp_analyst TO regress_jldp_analyst;
GRANT jldp_curator TO regress_jldp_curator, regress_jldp_other;
GRANT EXECUTE ON FUNCTION error(text) TO PUBLIC;
-- jl_key_import is in no role: granted here only to show that EXECUTE alone
-- does not let a curator import known bytes
GRANT EXECUTE ON FUNCTION jl_key_import(text, bytea) TO regress_jldp_curator;

CREATE TABLE private_sketch AS
  SELECT 1 AS id, '{1,2,3,4}'::float8[] AS sketch UNION ALL SELECT 2, '{2,2,3,5}';
GRANT SELECT ON private_sketch TO regress_jldp_analyst, regress_jldp_nobody;

SET ROLE regress_jldp_analyst;
-- no key material, no key-using function
SELECT error($$SELECT secret FROM jldp_internal.jldp_key$$);
SELECT error($$SELECT count(*) FROM jldp_internal.jldp_key$$);
SELECT error($$SELECT * FROM jl_keys$$);
-- the mechanism's constructor is a curator's; given a mechanism anyway (a
-- literal needs no function), each primitive refuses the analyst itself
SELECT error($$SELECT jl_sketch(k => 2)$$);
SELECT error($$SELECT jl_private_release('{1,2}', 1.0, 1, 'attribute', '(sketch,2,rademacher,laplace,,,,,,,,,,,,)'::jl_mechanism, key => 'pinned')$$);
SELECT error($$SELECT jl_project('{1,2}', '(sketch,2,rademacher,laplace,,,,,,,,,,,,)'::jl_mechanism, 'pinned')$$);
SELECT error($$SELECT jl_release_info(2, 1.0, 1, 'attribute', '(sketch,2,rademacher,laplace,,,,,,,,,,,,)'::jl_mechanism, key => 'pinned')$$);
SELECT error($$SELECT jl_key_create('mine')$$);
SELECT error($$SELECT jl_key_drop('pinned')$$);
SELECT error($$SELECT jl_key_import('mine', '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f')$$);
-- but recovery works on what it can read
SELECT a.id, b.id, jl_recover_dist(a.sketch, b.sketch, 0.25)
  FROM private_sketch a, private_sketch b WHERE a.id < b.id;
SELECT round(jl_recover_dist_stddev(a.sketch, b.sketch, 0.25)::numeric, 6)
  FROM private_sketch a, private_sketch b WHERE a.id < b.id;
RESET ROLE;

-- a role without jldp roles may not recover, even from a table it reads
SET ROLE regress_jldp_nobody;
SELECT error($$SELECT jl_recover_dist(a.sketch, b.sketch, 0.25)
  FROM private_sketch a, private_sketch b WHERE a.id < b.id$$);
RESET ROLE;

SET ROLE regress_jldp_curator;
-- a curator releases with a key it cannot read
SELECT array_length(jl_private_release('{1,2}', 1.0, 1, 'attribute', jl_sketch(k => 2), key => 'pinned'), 1) AS curator_release;
SELECT (jl_release_info(2, 1.0, 1, 'attribute', jl_sketch(k => 2), key => 'pinned')->>'key_fingerprint') AS curator_info;
SELECT error($$SELECT secret FROM jldp_internal.jldp_key$$);
-- the unbudgeted primitives are a curator's: it may project
SELECT array_length(jl_project('{1,2}', jl_sketch(k => 2), 'pinned'), 1) AS curator_projects;
-- importing known bytes takes a superuser, EXECUTE or not
SELECT error($$SELECT jl_key_import('mine', '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f')$$);
SELECT length(jl_key_create('curator_key')) AS created;
RESET ROLE;

SET ROLE regress_jldp_other;
-- another curator cannot drop the curator's key
SELECT error($$SELECT jl_key_drop('curator_key')$$);
RESET ROLE;

SET ROLE regress_jldp_curator;
SELECT jl_key_drop('curator_key');
RESET ROLE;

-- the secret is stored where only the owner can read it
SELECT has_table_privilege('regress_jldp_analyst', 'jldp_internal.jldp_key', 'SELECT') AS analyst_reads,
       has_table_privilege('regress_jldp_curator', 'jldp_internal.jldp_key', 'SELECT') AS curator_reads,
       has_function_privilege('regress_jldp_analyst', 'jl_recover_dist(float8[], float8[], float8)', 'EXECUTE') AS analyst_recovers,
       has_function_privilege('regress_jldp_nobody', 'jl_recover_dist(float8[], float8[], float8)', 'EXECUTE') AS nobody_recovers,
       has_function_privilege('jldp_curator', 'jl_key_import(text, bytea)', 'EXECUTE') AS curator_role_imports;

DROP TABLE private_sketch;
REVOKE ALL ON FUNCTION jl_key_import(text, bytea) FROM regress_jldp_curator;
DROP ROLE regress_jldp_analyst;
DROP ROLE regress_jldp_curator;
DROP ROLE regress_jldp_other;
DROP ROLE regress_jldp_nobody;
