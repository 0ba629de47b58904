-- Keys: create, import, drop, fingerprints, errors.
CREATE EXTENSION jldp;
-- jldp's API is in schema jldp: these tests call it unqualified, as a
-- database whose search_path names jldp does (this session, and the later
-- tests' sessions)
SELECT set_config('search_path', 'public, jldp', false);
DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET search_path = public, jldp', current_database()); END $$;

-- error(sql): the SQLSTATE and message of a failing statement, so that the
-- expected output pins the error class as well as the text
CREATE FUNCTION error(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- a pinned key: its fingerprint is fixed
SELECT jl_key_import('pinned', '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
SELECT jl_key_import('pinned2', '\x1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100');
SELECT error($$SELECT jl_key_import('pinned', '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f')$$);
SELECT error($$SELECT jl_key_import('short', '\x0001')$$);
SELECT error($$SELECT jl_key_import(NULL, '\x0001')$$);
SELECT error($$SELECT jl_key_import('x', NULL)$$);

-- a random key: a 32-digit fingerprint, different every time
SELECT length(jl_key_create('random')) AS fingerprint_length;
SELECT length(jl_key_create()) AS default_fingerprint_length;
SELECT error($$SELECT jl_key_create('random')$$);
SELECT error($$SELECT jl_key_create('')$$);
SELECT error($$SELECT jl_key_create(NULL)$$);
SELECT error($$SELECT jl_key_create(repeat('k', 64))$$);
SELECT count(DISTINCT fingerprint) AS distinct_fingerprints FROM jl_keys;

-- the view shows names and fingerprints, never the secret
SELECT name, fingerprint FROM jl_keys WHERE name LIKE 'pinned%' ORDER BY name;
SELECT column_name FROM information_schema.columns
 WHERE table_name = 'jl_keys' ORDER BY ordinal_position;

-- drop
SELECT jl_key_drop('random');
SELECT error($$SELECT jl_key_drop('random')$$);
SELECT error($$SELECT jl_key_drop(NULL)$$);
SELECT name FROM jl_keys ORDER BY name;

-- a failed statement changes nothing
SELECT error($$SELECT jl_key_import('atomic', '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'), jl_key_import('atomic', '\x00')$$);
SELECT count(*) AS atomic_keys FROM jl_keys WHERE name = 'atomic';

-- a key is its creator's: another curator may neither see nor use it until
-- the creator grants it (a role that may project with a key learns its P)
CREATE ROLE regress_keys_a IN ROLE jldp_curator;
CREATE ROLE regress_keys_b IN ROLE jldp_curator;
SET ROLE regress_keys_a;
SELECT length(jl_key_create('regress_ka')) AS created;
-- (a random key: its projection is kept in a psql variable, not shown)
SELECT jl_project('{1,2,3}', jl_sketch(k => 2), 'regress_ka')::text AS pa \gset
SET ROLE regress_keys_b;
SELECT count(*) AS b_sees FROM jl_keys WHERE name = 'regress_ka';
-- nor through a condition of its own that errs on rows it may not see (the
-- view is a security barrier: its filter runs first)
SELECT count(*) AS b_leaks FROM jl_keys WHERE (name || ':' || fingerprint || ':' || owner)::int = 1;
SELECT error($$SELECT jl_project('{1,0,0}', jl_sketch(k => 1), 'regress_ka')$$) AS b_projects;
SELECT error($$SELECT jl_private_release('{1,0,0}', 1.0, 1, 'attribute', jl_sketch(k => 1), 'regress_ka')$$) AS b_releases;
SELECT error($$SELECT jl_key_grant('regress_ka', 'regress_keys_b')$$) AS b_grants_itself;
SELECT error($$SELECT jl_key_drop('regress_ka')$$) AS b_drops;
SET ROLE regress_keys_a;
SELECT jl_key_grant('regress_ka', 'regress_keys_b') AS a_grants;
SET ROLE regress_keys_b;
SELECT name, owner, users FROM jl_keys WHERE name = 'regress_ka';
-- the same P as its creator's
SELECT jl_project('{1,2,3}', jl_sketch(k => 2), 'regress_ka')::text = :'pa' AS b_projects_as_a;
SET ROLE regress_keys_a;
SELECT jl_key_revoke('regress_ka', 'regress_keys_b') AS a_revokes;
SET ROLE regress_keys_b;
SELECT error($$SELECT jl_project('{1,0,0}', jl_sketch(k => 1), 'regress_ka')$$) AS b_after_revoke;
RESET ROLE;
-- superusers use every key
SELECT jl_project('{1,2,3}', jl_sketch(k => 2), 'regress_ka')::text = :'pa' AS superuser_projects_as_a;
-- a grantee dropped since is revoked by its name, before a new role takes
-- the name (grants are kept by name, as a dump keeps them)
CREATE ROLE regress_keys_c IN ROLE jldp_curator;
SET ROLE regress_keys_a;
SELECT jl_key_grant('regress_ka', 'regress_keys_c') AS a_grants_c;
RESET ROLE;
DROP ROLE regress_keys_c;
SET ROLE regress_keys_a;
SELECT jl_key_revoke('regress_ka', 'regress_keys_c') AS a_revokes_dropped_c;
SELECT users FROM jl_keys WHERE name = 'regress_ka';
RESET ROLE;
CREATE ROLE regress_keys_c IN ROLE jldp_curator;
SET ROLE regress_keys_c;
SELECT error($$SELECT jl_project('{1,0,0}', jl_sketch(k => 1), 'regress_ka')$$) AS new_c_projects;
RESET ROLE;
DROP ROLE regress_keys_c;
SELECT jl_key_drop('regress_ka');
DROP ROLE regress_keys_a, regress_keys_b;

-- the pinned keys, for the curators of the later tests
SELECT jl_key_grant('pinned', 'jldp_curator'), jl_key_grant('pinned2', 'jldp_curator');
