-- Option words as enum labels (jl_noise, jl_kind): the overloads of the
-- standard errors give what the text forms give, and a word that is not a
-- label is refused by the type.  (postgres_fdw pushes the enum forms to a
-- shard: test/shard_scaleout.sh.)
SELECT jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'gaussian'::jl_noise, 'identity'::jl_kind)
     = jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'gaussian', 'identity') AS dist_identity,
       jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'laplace'::jl_noise, 'rademacher'::jl_kind)
     = jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5) AS dist_default,
       jl_recover_inner_stddev('{1,2,3}', '{0,1,5}', 0.5, 'laplace'::jl_noise, 'sparse'::jl_kind)
     = jl_recover_inner_stddev('{1,2,3}', '{0,1,5}', 0.5, 'laplace', 'sparse') AS inner_sparse,
       jl_recover_norm2_stddev('{1,2,3}', 0.5, 'gaussian'::jl_noise, 'achlioptas'::jl_kind)
     = jl_recover_norm2_stddev('{1,2,3}', 0.5, 'gaussian', 'achlioptas') AS norm2;
-- the enum and text forms differ where they should: identity drops the projection's term
SELECT jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'gaussian'::jl_noise, 'identity'::jl_kind)
     < jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'gaussian'::jl_noise, 'rademacher'::jl_kind) AS identity_smaller;
-- untyped literals still choose the text form (defaults apply)
SELECT jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'gaussian') > 0 AS text_form;
-- not a label
SELECT jl_recover_dist_stddev('{1,2,3}', '{0,1,5}', 0.5, 'cauchy'::jl_noise, 'identity'::jl_kind);
SELECT enum_range(NULL::jl_noise), enum_range(NULL::jl_kind);
