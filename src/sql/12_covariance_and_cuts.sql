-- queries of Blocki et al.'s releases: covariance, PCA, cuts

-- Covariance release (Blocki et al.) ----------------------------------------
-- R = Y [A; l I]: r rows of N(0, A^T A + l^2 I), Y fresh iid N(0,1) from the
-- secure random source; l from an exact accountant (docs/design/covariance.md).
CREATE FUNCTION jldp.jl_directional_variance(release regclass, x float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_directional_variance'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION jldp.jl_directional_variance(regclass, float8[]) IS
  'From a covariance release: ||R x||^2 / r - l^2 ||x||^2, unbiased for x^T A^T A x (the sum of squares of the clipped rows along x). Post-processing: no budget.';

CREATE FUNCTION jldp.jl_directional_variance_stddev(release regclass, x float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_directional_variance_stddev'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION jldp.jl_directional_variance_stddev(regclass, float8[]) IS
  'The standard deviation of jl_directional_variance(release, x), sqrt(2/r) x^T (A^T A + l^2 I) x, estimated by its plug-in sqrt(2/r) ||R x||^2 / r.';

CREATE FUNCTION jldp.jl_covariance(release regclass)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_covariance'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION jldp.jl_covariance(regclass) IS
  'From a covariance release: the d x d matrix R^T R / r - l^2 I, unbiased for A^T A (second moments of the clipped rows, not centred; release a column of ones beside the data to get n and the column sums).';

CREATE FUNCTION jldp.jl_pca(release regclass, n_components int,
    OUT component int, OUT variance float8, OUT direction float8[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'jl_pca'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 10;

COMMENT ON FUNCTION jldp.jl_pca(regclass, int) IS
  'From a covariance release: the n_components leading eigenpairs of R^T R / r - l^2 I, largest first: each direction (unit vector) and its estimated x^T A^T A x.';

CREATE FUNCTION jldp.jl_least_squares(release regclass, target_attr int)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_least_squares'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION jldp.jl_least_squares(regclass, int) IS
  'From a covariance release: the least-squares coefficients of attribute target_attr (1-based) on the other d - 1 attributes, in their order, from the estimate of A^T A (no intercept unless a column of ones was released). Refused when the estimate of the other attributes'' second moments is not positive definite.';

-- Performance -----------------------------------------------------------------
-- the planner's cost per row (in units of cpu_operator_cost) of a release and
-- of a projection: a release takes about a microsecond a row at d = 100,
-- k = 20 (test/bench/results.md), far more than the COST 1 of a plain C
-- function, with which the planner keeps a release serial even over
-- millions of rows; with these, parallel plans are chosen where they pay
-- Graph cut release (Blocki et al.) -----------------------------------------
-- One sketch per vertex: column i of R = Y E, E the incidence matrix of the
-- graph overlaid with the complete graph, Y fresh iid N(0,1); the overlay
-- weight from an exact accountant on the edge neighbour (docs/design/graph_cuts.md).
CREATE FUNCTION jldp.jl_cut_size(release regclass, s int[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_size'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION jldp.jl_cut_size(regclass, int[]) IS
  'From a graph release: the number of edges between the vertex set s (distinct vertices in 1..n) and the rest, estimated without bias as (||sum of the sketches of s||^2 / r - (w/n) |s| (n - |s|)) / (1 - w/n). Post-processing: no budget.';

CREATE FUNCTION jldp.jl_cut_size_stddev(release regclass, s int[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_size_stddev'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION jldp.jl_cut_size_stddev(regclass, int[]) IS
  'The standard deviation of jl_cut_size(release, s), sqrt(2/r) ((w/n) |s| (n - |s|) + (1 - w/n) cut) / (1 - w/n), estimated by its unbiased plug-in.';

CREATE FUNCTION jldp_internal.jl_cut_trans(internal, regclass, int, float8[])
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_cut_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_cut_trans(internal, regclass, int, float8[]) IS
  'Transition function of jl_cut_estimate and jl_cut_estimate_stddev: sums the sketches and collects the vertices.';

CREATE FUNCTION jldp_internal.jl_cut_estimate_final(internal)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_estimate_final'
LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION jldp_internal.jl_cut_estimate_final(internal) IS
  'Final function of jl_cut_estimate.';

CREATE FUNCTION jldp_internal.jl_cut_estimate_stddev_final(internal)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_estimate_stddev_final'
LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION jldp_internal.jl_cut_estimate_stddev_final(internal) IS
  'Final function of jl_cut_estimate_stddev.';

CREATE AGGREGATE jldp.jl_cut_estimate(release regclass, vertex int, sketch float8[]) (
    SFUNC = jldp_internal.jl_cut_trans,
    STYPE = internal,
    FINALFUNC = jldp_internal.jl_cut_estimate_final,
    PARALLEL = RESTRICTED
);

COMMENT ON AGGREGATE jldp.jl_cut_estimate(regclass, int, float8[]) IS
  'From the rows (vertex, sketch) of a graph release chosen in SQL (each vertex once), the estimated number of edges between those vertices and the rest, as jl_cut_size; NULL over no rows.';

CREATE AGGREGATE jldp.jl_cut_estimate_stddev(release regclass, vertex int, sketch float8[]) (
    SFUNC = jldp_internal.jl_cut_trans,
    STYPE = internal,
    FINALFUNC = jldp_internal.jl_cut_estimate_stddev_final,
    PARALLEL = RESTRICTED
);

COMMENT ON AGGREGATE jldp.jl_cut_estimate_stddev(regclass, int, float8[]) IS
  'The standard deviation of jl_cut_estimate over the same rows, as jl_cut_size_stddev; NULL over no rows.';
