-- Option words as enum labels (jl_noise, jl_kind, and since 0.5.0 every
-- option: jl_neighbor, jl_calibration, jl_goal, jl_nullspace_method): the
-- standard errors take them as enums only (0.5.0 dropped their text
-- overloads), an untyped literal is read as the enum, a text value is not
-- accepted, and a word that is not a label is refused by the type (22P02).
-- (postgres_fdw pushes the enum forms to a shard: test/shard_scaleout.sh.)
SELECT jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'gaussian'::jl_noise, 'identity'::jl_kind)
     = jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'gaussian', 'identity') AS dist_identity,
       jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'laplace'::jl_noise, 'rademacher'::jl_kind)
     = jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5) AS dist_default,
       jl_recover_inner_stddev('{1,2,3}', '{0,1,5}', 0.5, 'laplace'::jl_noise, 'sparse'::jl_kind)
     = jl_recover_inner_stddev('{1,2,3}', '{0,1,5}', 0.5, 'laplace', 'sparse') AS inner_sparse,
       jl_recover_norm2_stddev('{1,2,3}', 0.5, 'gaussian'::jl_noise, 'achlioptas'::jl_kind)
     = jl_recover_norm2_stddev('{1,2,3}', 0.5, 'gaussian', 'achlioptas') AS norm2;
-- the options matter where they should: identity drops the projection's term
SELECT jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'gaussian', 'identity')
     < jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'gaussian', 'rademacher') AS identity_smaller;
-- only the enum forms exist: one of each standard error with a noise variance
SELECT p.oid::regprocedure AS function
  FROM pg_proc p
 WHERE p.proname IN ('jl_recover_dist_stddev', 'jl_recover_inner_stddev', 'jl_recover_norm2_stddev')
   AND 'float8'::regtype = ANY (p.proargtypes)
 ORDER BY p.oid::regprocedure::text;
-- a text value is no option word (no text overload)
SELECT jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'gaussian'::text);
-- not a label, cast or untyped
SELECT jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'cauchy'::jl_noise, 'identity'::jl_kind);
SELECT jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'lapalce');
SELECT enum_range(NULL::jl_noise), enum_range(NULL::jl_kind);
SELECT enum_range(NULL::jl_neighbor) AS neighbor, enum_range(NULL::jl_calibration) AS calibration,
       enum_range(NULL::jl_goal) AS goal, enum_range(NULL::jl_nullspace_method) AS nullspace_method;
