-- recovery from sketches: distances, inner products, norms, with standard errors

-- Recovery (reads sketches only: executable by everyone) -----------------
CREATE FUNCTION jldp.jl_recover_dist(a float8[], b float8[], noise_variance float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_dist(float8[], float8[], float8) IS
  'Unbiased estimate of the squared distance between the original rows: ||a - b||^2 - 2 k noise_variance.';

CREATE FUNCTION jldp.jl_recover_dist(a float8[], b float8[], release regclass)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_release'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_dist(float8[], float8[], regclass) IS
  'jl_recover_dist with the noise variance of the release that wrote the table (from the registry).';

CREATE FUNCTION jldp.jl_recover_dist_stddev(a float8[], b float8[], release regclass)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_stddev_release'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_dist_stddev(float8[], float8[], regclass) IS
  'jl_recover_dist_stddev with the noise variance, the noise and the kind (identity or a projection) of the release that wrote the table (from the registry).';

-- Recovery of inner products and squared norms (no key involved, so
-- executable by analysts).  Variances: Gaussian P, Laplace noise kurtosis 6,
-- Gaussian noise kurtosis 3 (see README, "Inner products and norms").
CREATE FUNCTION jldp.jl_recover_inner(a float8[], b float8[], noise_variance float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_inner'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_inner(float8[], float8[], float8) IS
  'Unbiased estimate of the inner product of two different original rows: <a, b> (independent noise needs no correction; noise_variance is only checked). For a row with itself use jl_recover_norm2.';

CREATE FUNCTION jldp.jl_recover_norm2(a float8[], noise_variance float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_norm2'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_norm2(float8[], float8) IS
  'Unbiased estimate of the squared L2 norm of the original row: ||a||^2 - k noise_variance (may be negative).';

CREATE FUNCTION jldp.jl_recover_inner(a float8[], b float8[], release regclass)
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_inner_release'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_inner(float8[], float8[], regclass) IS
  'jl_recover_inner for sketches of the release that wrote the table (k checked against the registry).';

CREATE FUNCTION jldp.jl_recover_inner_stddev(a float8[], b float8[], release regclass)
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_inner_stddev_release'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_inner_stddev(float8[], float8[], regclass) IS
  'jl_recover_inner_stddev with the noise variance of the release that wrote the table (from the registry).';

CREATE FUNCTION jldp.jl_recover_norm2(a float8[], release regclass)
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_norm2_release'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_norm2(float8[], regclass) IS
  'jl_recover_norm2 with the noise variance of the release that wrote the table (from the registry).';

CREATE FUNCTION jldp.jl_recover_norm2_stddev(a float8[], release regclass)
RETURNS float8 AS 'MODULE_PATHNAME', 'jl_recover_norm2_stddev_release'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_norm2_stddev(float8[], regclass) IS
  'jl_recover_norm2_stddev with the noise variance and the noise (info->>''noise'', absent meaning laplace) of the release that wrote the table.';

-- the release by name as well as by regclass: a text literal where a
-- release is meant (not a noise variance) names it
CREATE FUNCTION jldp.jl_recover_dist(a float8[], b float8[], release text)
RETURNS float8
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN jldp.jl_recover_dist(a, b, release::pg_catalog.regclass);

COMMENT ON FUNCTION jldp.jl_recover_dist(float8[], float8[], text) IS
  'jl_recover_dist with the release named (resolved as a regclass is, on the search path).';

CREATE FUNCTION jldp.jl_recover_dist_stddev(a float8[], b float8[], release text)
RETURNS float8
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN jldp.jl_recover_dist_stddev(a, b, release::pg_catalog.regclass);

COMMENT ON FUNCTION jldp.jl_recover_dist_stddev(float8[], float8[], text) IS
  'jl_recover_dist_stddev with the release named (resolved as a regclass is, on the search path).';

CREATE FUNCTION jldp.jl_recover_inner(a float8[], b float8[], release text)
RETURNS float8
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN jldp.jl_recover_inner(a, b, release::pg_catalog.regclass);

COMMENT ON FUNCTION jldp.jl_recover_inner(float8[], float8[], text) IS
  'jl_recover_inner with the release named (resolved as a regclass is, on the search path).';

CREATE FUNCTION jldp.jl_recover_inner_stddev(a float8[], b float8[], release text)
RETURNS float8
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN jldp.jl_recover_inner_stddev(a, b, release::pg_catalog.regclass);

COMMENT ON FUNCTION jldp.jl_recover_inner_stddev(float8[], float8[], text) IS
  'jl_recover_inner_stddev with the release named (resolved as a regclass is, on the search path).';

CREATE FUNCTION jldp.jl_recover_norm2(a float8[], release text)
RETURNS float8
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN jldp.jl_recover_norm2(a, release::pg_catalog.regclass);

COMMENT ON FUNCTION jldp.jl_recover_norm2(float8[], text) IS
  'jl_recover_norm2 with the release named (resolved as a regclass is, on the search path).';

CREATE FUNCTION jldp.jl_recover_norm2_stddev(a float8[], release text)
RETURNS float8
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN jldp.jl_recover_norm2_stddev(a, release::pg_catalog.regclass);

COMMENT ON FUNCTION jldp.jl_recover_norm2_stddev(float8[], text) IS
  'jl_recover_norm2_stddev with the release named (resolved as a regclass is, on the search path).';

CREATE FUNCTION jldp.jl_recover_dist_stddev(a float8[], b float8[], noise_variance float8,
    noise jldp.jl_noise DEFAULT 'laplace', kind jldp.jl_kind DEFAULT 'rademacher')
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_dist_stddev'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_dist_stddev(float8[], float8[], float8, jldp.jl_noise, jldp.jl_kind) IS
  'jl_recover_dist_stddev with the noise and the kind as enum labels (e.g. ''gaussian''::jl_noise): postgres_fdw can push it to a shard.';

CREATE FUNCTION jldp.jl_recover_inner_stddev(a float8[], b float8[], noise_variance float8,
    noise jldp.jl_noise DEFAULT 'laplace', kind jldp.jl_kind DEFAULT 'rademacher')
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_inner_stddev'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_inner_stddev(float8[], float8[], float8, jldp.jl_noise, jldp.jl_kind) IS
  'jl_recover_inner_stddev with the noise and the kind as enum labels: postgres_fdw can push it to a shard.';

CREATE FUNCTION jldp.jl_recover_norm2_stddev(a float8[], noise_variance float8,
    noise jldp.jl_noise DEFAULT 'laplace', kind jldp.jl_kind DEFAULT 'rademacher')
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_recover_norm2_stddev'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jldp.jl_recover_norm2_stddev(float8[], float8, jldp.jl_noise, jldp.jl_kind) IS
  'jl_recover_norm2_stddev with the noise and the kind as enum labels: postgres_fdw can push it to a shard.';
