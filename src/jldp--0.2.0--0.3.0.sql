-- jldp 0.2.0 -> 0.3.0.  Each section below adds what the same section at
-- the end of jldp--0.3.0.sql adds to a fresh install.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.3.0'" to load this file. \quit

-- Performance -----------------------------------------------------------------
-- the planner's cost per row (in units of cpu_operator_cost) of a release and
-- of a projection: a release takes about a microsecond a row at d = 100,
-- k = 20 (docs/benchmarks.md), far more than the COST 1 of a plain C
-- function, with which the planner keeps a release serial even over
-- millions of rows; with these, parallel plans are chosen where they pay
ALTER FUNCTION @extschema@.jl_private_release(float8[], int, float8, text, float8, text, float8, text, text, text) COST 100;
ALTER FUNCTION @extschema@.jl_project(float8[], int, text, text) COST 50;
