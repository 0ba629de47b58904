-- jldp 0.3.2 -> 0.3.3.  jl_release_dist2: the mean squared distance between
-- two rows released under a budget, for the advisor's dist2; as
-- jldp--0.3.3.sql defines it.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.3.3'" to load this file. \quit

-- The advisor's dist2 read from the data, under a budget -------------------
CREATE FUNCTION @extschema@.jl_release_dist2(
    source regclass, vector text[], epsilon float8,
    clip_lo float8 DEFAULT NULL, clip_hi float8 DEFAULT NULL,
    clip_norm float8 DEFAULT NULL, dataset text DEFAULT NULL,
    OUT dist2 float8, OUT stddev float8, OUT n bigint, OUT epsilon_holding float8,
    OUT delta float8, OUT neighbor text)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_release_dist2'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_release_dist2(regclass, text[], float8, float8, float8, float8, text) IS
  'The mean squared distance between two rows of source (one float8[] column or several numeric columns), released with exact discrete Laplace noise: epsilon-DP (delta 0) for one element of one row changed within [clip_lo, clip_hi] (element neighbours) or one row changed within L2 norm clip_norm (row neighbours); clipping is required. Each clipped row is put on an integer grid of 1/1024 of the range, the sum of squared distances over pairs is an exact integer of sensitivity (n - 1) times the largest pair term, and the noise is sampled on that grid. Reads a whole table only (no view, partition or table with row level security: n is released exactly), every row one unit; charges epsilon to dataset (default: the table''s) before anything is read. Returns the estimate (dist2, for jl_advise and jl_release_table''s kind ''auto''), the standard deviation of its noise, the number of rows n (the same for neighbours), the epsilon that holds, delta 0 and the neighbour notion; dist2 and stddev are NULL for fewer than two rows.';
REVOKE ALL ON FUNCTION @extschema@.jl_release_dist2(regclass, text[], float8, float8, float8, float8, text) FROM PUBLIC;
