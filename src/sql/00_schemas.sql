-- jldp: private sketches of table rows (a secret Johnson-Lindenstrauss
-- projection plus calibrated noise), the privacy budget, the release
-- registry, recovery and analytics over sketches, protected tables and one
-- release pipeline.  The install script is these files of src/sql in
-- order, concatenated by the Makefile; each upgrade script
-- (src/jldp--A--B.sql) takes an installation of A to what they define.

\echo Use "CREATE EXTENSION jldp" to load this file. \quit

-- jldp's two schemas: the API and the catalog with its internal steps

CREATE SCHEMA jldp;

COMMENT ON SCHEMA jldp IS
  'jldp''s API: what a curator, an analyst or a budget administrator calls (\df jldp.*).';

CREATE SCHEMA jldp_internal;

COMMENT ON SCHEMA jldp_internal IS
  'jldp''s catalog (keys, declarations, ledger, registry) and the steps no user calls; reached through jldp''s functions.';
