-- jldp 0.2.0 -> 0.3.0.  Each section below adds what the same section at
-- the end of jldp--0.3.0.sql adds to a fresh install.

\echo Use "ALTER EXTENSION jldp UPDATE TO '0.3.0'" to load this file. \quit

-- Covariance release (Blocki et al.) ----------------------------------------
-- R = Y [A; l I]: r rows of N(0, A^T A + l^2 I), Y fresh iid N(0,1) from the
-- secure random source; l from an exact accountant (docs/covariance.md).
CREATE FUNCTION @extschema@.jl_release_covariance(
    source regclass, vector text[], target text, r int,
    epsilon float8, delta float8, clip_norm float8 DEFAULT 1,
    lift text DEFAULT 'always', dataset text DEFAULT NULL, method text DEFAULT 'gram')
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_release_covariance'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_release_covariance(regclass, text[], text, int, float8, float8, float8, text, text, text) IS
  'Release R = Y [A; l I] of source (rows A: one float8[] column or several numeric columns, each row scaled to L2 norm <= clip_norm) into a new table target (i int, y float8[]) of r rows, Y an r x (n + d) matrix of iid N(0,1) drawn fresh from the secure random source and never stored. (epsilon, delta)-DP for one row replaced by another (change of norm <= 2 clip_norm), with the lift l the smallest the exact accountant allows (lift ''always''), or with lift ''auto'' (epsilon/10 and delta/2 spent on sigma_min(A) with Laplace noise, and l only what its lower confidence bound leaves missing). Streams the source once; method ''gram'' (default) draws R = Z F with F^T F = A^T A + l^2 I and Z r x d iid N(0,1), the same distribution as ''product'', which multiplies each batch of rows by fresh columns of Y (dgemm); charges (epsilon, delta) to dataset (default: the source relation); recorded in jl_releases (info: l, w, the paper-style w, sigma_min when ''auto''). Returns the registry id.';
REVOKE ALL ON FUNCTION @extschema@.jl_release_covariance(regclass, text[], text, int, float8, float8, float8, text, text, text) FROM PUBLIC;

CREATE FUNCTION @extschema@.jl_directional_variance(release regclass, x float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_directional_variance'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_directional_variance(regclass, float8[]) IS
  'From a covariance release: ||R x||^2 / r - l^2 ||x||^2, unbiased for x^T A^T A x (the sum of squares of the clipped rows along x). Post-processing: no budget.';

CREATE FUNCTION @extschema@.jl_directional_variance_stddev(release regclass, x float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_directional_variance_stddev'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_directional_variance_stddev(regclass, float8[]) IS
  'The standard deviation of jl_directional_variance(release, x), sqrt(2/r) x^T (A^T A + l^2 I) x, estimated by its plug-in sqrt(2/r) ||R x||^2 / r.';

CREATE FUNCTION @extschema@.jl_covariance(release regclass)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_covariance'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_covariance(regclass) IS
  'From a covariance release: the d x d matrix R^T R / r - l^2 I, unbiased for A^T A (second moments of the clipped rows, not centred; release a column of ones beside the data to get n and the column sums).';

CREATE FUNCTION @extschema@.jl_pca(release regclass, n_components int,
    OUT component int, OUT variance float8, OUT direction float8[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'jl_pca'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 10;
COMMENT ON FUNCTION @extschema@.jl_pca(regclass, int) IS
  'From a covariance release: the n_components leading eigenpairs of R^T R / r - l^2 I, largest first: each direction (unit vector) and its estimated x^T A^T A x.';

CREATE FUNCTION @extschema@.jl_least_squares(release regclass, target_attr int)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_least_squares'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_least_squares(regclass, int) IS
  'From a covariance release: the least-squares coefficients of attribute target_attr (1-based) on the other d - 1 attributes, in their order, from the estimate of A^T A (no intercept unless a column of ones was released). Refused when the estimate of the other attributes'' second moments is not positive definite.';

-- Graph cut release (Blocki et al.) -----------------------------------------
-- One sketch per vertex: column i of R = Y E, E the incidence matrix of the
-- graph overlaid with the complete graph, Y fresh iid N(0,1); the overlay
-- weight from an exact accountant on the edge neighbour (docs/graph_cuts.md).
CREATE FUNCTION @extschema@.jl_release_graph(
    edges regclass, u text, v text, n int, target text, r int,
    epsilon float8, delta float8, dataset text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_release_graph'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.jl_release_graph(regclass, text, text, int, text, int, float8, float8, text) IS
  'Release the undirected graph on vertices 1..n whose edges are the rows (u, v) of edges (integer columns; repeats and reversed pairs merged into one edge; NULL endpoints, self-loops and vertices outside 1..n refused) into a new table target (vertex int, sketch float8[]) of n rows: the sketch of vertex i is column i of R = Y E, E the edge-vertex incidence matrix of the graph overlaid with the complete graph (every pair weight w/n, every edge weight 1), Y r x (n choose 2) iid N(0,1) drawn fresh and never stored, computed in O(r (|E| + n)). (epsilon, delta)-DP for graphs differing in one edge, with w the smallest overlay weight the exact accountant allows (refused unless w < n). Charges (epsilon, delta) to dataset (default: the edge relation); recorded in jl_releases (info: n, r, w, the paper-style w). Returns the registry id.';
REVOKE ALL ON FUNCTION @extschema@.jl_release_graph(regclass, text, text, int, text, int, float8, float8, text) FROM PUBLIC;

CREATE FUNCTION @extschema@.jl_cut_size(release regclass, s int[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_size'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_cut_size(regclass, int[]) IS
  'From a graph release: the number of edges between the vertex set s (distinct vertices in 1..n) and the rest, estimated without bias as (||sum of the sketches of s||^2 / r - (w/n) |s| (n - |s|)) / (1 - w/n). Post-processing: no budget.';

CREATE FUNCTION @extschema@.jl_cut_size_stddev(release regclass, s int[])
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_size_stddev'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_cut_size_stddev(regclass, int[]) IS
  'The standard deviation of jl_cut_size(release, s), sqrt(2/r) ((w/n) |s| (n - |s|) + (1 - w/n) cut) / (1 - w/n), estimated by its unbiased plug-in.';

CREATE FUNCTION @extschema@.jl_cut_trans(internal, regclass, int, float8[])
RETURNS internal
AS 'MODULE_PATHNAME', 'jl_cut_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jl_cut_trans(internal, regclass, int, float8[]) IS
  'Transition function of jl_cut_estimate and jl_cut_estimate_stddev: sums the sketches and collects the vertices.';

CREATE FUNCTION @extschema@.jl_cut_estimate_final(internal)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_estimate_final'
LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_cut_estimate_final(internal) IS
  'Final function of jl_cut_estimate.';

CREATE FUNCTION @extschema@.jl_cut_estimate_stddev_final(internal)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_cut_estimate_stddev_final'
LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.jl_cut_estimate_stddev_final(internal) IS
  'Final function of jl_cut_estimate_stddev.';

CREATE AGGREGATE @extschema@.jl_cut_estimate(release regclass, vertex int, sketch float8[]) (
    SFUNC = @extschema@.jl_cut_trans,
    STYPE = internal,
    FINALFUNC = @extschema@.jl_cut_estimate_final,
    PARALLEL = RESTRICTED
);
COMMENT ON AGGREGATE @extschema@.jl_cut_estimate(regclass, int, float8[]) IS
  'From the rows (vertex, sketch) of a graph release chosen in SQL (each vertex once), the estimated number of edges between those vertices and the rest, as jl_cut_size; NULL over no rows.';

CREATE AGGREGATE @extschema@.jl_cut_estimate_stddev(release regclass, vertex int, sketch float8[]) (
    SFUNC = @extschema@.jl_cut_trans,
    STYPE = internal,
    FINALFUNC = @extschema@.jl_cut_estimate_stddev_final,
    PARALLEL = RESTRICTED
);
COMMENT ON AGGREGATE @extschema@.jl_cut_estimate_stddev(regclass, int, float8[]) IS
  'The standard deviation of jl_cut_estimate over the same rows, as jl_cut_size_stddev; NULL over no rows.';
