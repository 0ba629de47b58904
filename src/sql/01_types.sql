-- the option types (every option word an enum) and the attribute and mechanism values

-- Protected tables (0.4.0) ---------------------------------------------------
CREATE TYPE jldp.jl_neighbor AS ENUM ('row', 'attribute');

COMMENT ON TYPE jldp.jl_neighbor IS
  'What a protected table''s releases protect: a whole unit''s row replaced (row), or one declared attribute of one unit changed within its bounds (attribute).';

CREATE TYPE jldp.jl_calibration AS ENUM ('exact', 'analytic', 'classic', 'paper');

COMMENT ON TYPE jldp.jl_calibration IS
  'How a sketch release''s noise is calibrated to the realized projection: exact (Laplace), analytic (Gaussian, Balle and Wang), classic (Gaussian, Kenthapadi et al.''s Theorem 1), paper (Dhaliwal et al.''s constants, for reproducing their experiments with the unbudgeted primitives: jl_release refuses it).';

CREATE TYPE jldp.jl_encoding AS ENUM ('numeric', 'category', 'vector', 'long', 'edge');

COMMENT ON TYPE jldp.jl_encoding IS
  'How a declared attribute enters the row vector: a number clamped and scaled, a category one-hot, a float8[] of fixed length clamped and scaled element by element, long-format rows (unit, attribute, value) as the elements of a vector of d, an edge (u, v) as its incidence vector over the vertices.';

CREATE TYPE jldp.jl_attribute AS (
    column_name text, encoding jldp.jl_encoding, lo float8, hi float8, weight float8,
    categories text[], length int, attribute_column text);

COMMENT ON TYPE jldp.jl_attribute IS
  'One declared attribute of a protected table, built by jl_numeric, jl_category, jl_vector or jl_long.';

-- Option words postgres_fdw can send to a shard -------------------------------
-- A text constant carries a collation postgres_fdw cannot show to be the
-- same on the shard, so a call with one (a noise or kind word) is never
-- pushed; the same words as enum labels are.  Overloads without defaults
-- (the text forms keep theirs).
CREATE TYPE jldp.jl_noise AS ENUM ('laplace', 'gaussian');

COMMENT ON TYPE jldp.jl_noise IS
  'The noise of a release, as an option word postgres_fdw can ship (a text constant blocks pushdown).';

CREATE TYPE jldp.jl_kind AS ENUM ('rademacher', 'gaussian', 'achlioptas', 'sparse', 'identity');

COMMENT ON TYPE jldp.jl_kind IS
  'The projection kind of a release, as an option word postgres_fdw can ship (a text constant blocks pushdown).';

-- The advisor's dist2 read from the data, under a budget -------------------
CREATE TYPE jldp.jl_lift AS ENUM ('always', 'auto');

COMMENT ON TYPE jldp.jl_lift IS
  'The covariance mechanism''s lift: always the accountant''s w, or (auto) only what a private lower bound on sigma_min(A) leaves missing.';

CREATE TYPE jldp.jl_covariance_method AS ENUM ('gram', 'product');

COMMENT ON TYPE jldp.jl_covariance_method IS
  'How the covariance mechanism computes R: from the Gram matrix (gram: d x d memory) or as Y [A; l I] batch by batch (product).';

CREATE TYPE jldp.jl_origin AS ENUM ('lo', 'zero');

COMMENT ON TYPE jldp.jl_origin IS
  'Where the covariance mechanism puts a number''s zero: at lo (the declared encoding, (x - lo) weight / (hi - lo)) or at zero (x weight / (hi - lo): second moments about the data''s origin).';

CREATE TYPE jldp.jl_goal AS ENUM ('distance', 'clustering', 'neighbors');

COMMENT ON TYPE jldp.jl_goal IS
  'What sketches are for, as the advisor predicts their error: recovered squared distances (distance), a nearest-centre clustering (clustering) or a nearest-neighbour search that must rank a neighbour at dist2 before a non-neighbour at dist2_hi (neighbors).';

CREATE TYPE jldp.jl_mechanism AS (
    mechanism text, k int, kind jldp.jl_kind, noise jldp.jl_noise, delta float8,
    calibration jldp.jl_calibration, r int, lift jldp.jl_lift,
    method jldp.jl_covariance_method, goal jldp.jl_goal, dist2 float8,
    dist2_hi float8, cluster_var float8, force boolean, origin jldp.jl_origin, density float8);

COMMENT ON TYPE jldp.jl_mechanism IS
  'What jl_release releases with, built by a mechanism''s constructor (jl_sketch, jl_advised, jl_covariance_mechanism, jl_graph).';

CREATE TYPE jldp.jl_nullspace_method AS ENUM ('waterfill', 'knapsack');

COMMENT ON TYPE jldp.jl_nullspace_method IS
  'How jl_nullspace_clean spends its utility budget: waterfill (the exact maximiser of the paper''s objective) or knapsack (Algorithm 1 as published).';
