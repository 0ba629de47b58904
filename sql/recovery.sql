-- Distance recovery: exact values and errors.

-- ||a - b||^2 - 2 k s2 = 25 - 2 * 2 * 0.5
SELECT jl_recover_dist('{1,2}', '{4,6}', 0.5);
SELECT jl_recover_dist('{1,2}', '{4,6}', 0);
SELECT jl_recover_dist('{0,0,0}', '{0,0,0}', 1);
-- sqrt(2 r^4 / k + 8 s2 r^2 + 14 k s2^2) at r^2 = 23, k = 2, s2 = 0.5: sqrt(628)
SELECT jl_recover_dist_stddev('{1,2}', '{4,6}', 0.5), sqrt(628::float8) AS expected;
-- a negative estimate plugs in r^2 = 0: sqrt(14 k s2^2)
SELECT jl_recover_dist_stddev('{0,0,0}', '{0,0,0}', 1), sqrt(42::float8) AS expected;
-- lower bounds do not matter
SELECT jl_recover_dist('[5:6]={1,2}'::float8[], '{4,6}', 0.5);

-- strict: NULL in, NULL out
SELECT jl_recover_dist(NULL, '{1}', 1) IS NULL AS strict_a,
       jl_recover_dist('{1}', '{1}', NULL) IS NULL AS strict_variance;

SELECT error($$SELECT jl_recover_dist('{1,2}', '{1,2,3}', 1)$$);
SELECT error($$SELECT jl_recover_dist('{}', '{}', 1)$$);
SELECT error($$SELECT jl_recover_dist('{1,NULL}', '{1,2}', 1)$$);
SELECT error($$SELECT jl_recover_dist('{{1,2}}', '{{1,2}}', 1)$$);
SELECT error($$SELECT jl_recover_dist('{1,NaN}', '{1,2}', 1)$$);
SELECT error($$SELECT jl_recover_dist('{1,2}', '{1,Infinity}', 1)$$);
SELECT error($$SELECT jl_recover_dist('{1,2}', '{1,2}', -1)$$);
SELECT error($$SELECT jl_recover_dist('{1,2}', '{1,2}', 'NaN'::float8)$$);
-- a quoted word is a release's name (not a noise variance): 'NaN' names no
-- relation
SELECT error($$SELECT jl_recover_dist('{1,2}', '{1,2}', 'NaN')$$);
SELECT error($$SELECT jl_recover_dist_stddev('{1,2}', '{1}', 1)$$);

-- unbiased on average over releases of the same pair (loose check; the
-- statistical suite in test/stat has the calibrated version)
SELECT abs(avg(jl_recover_dist(jl_private_release('{3,0,0}', 50.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned'),
                               jl_private_release('{0,0,0}', 50.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned'),
                               (jl_release_info(3, 50.0, 1, 'attribute', jl_sketch(k => 4), key => 'pinned')->>'noise_variance')::float8))
           - (SELECT sum(v * v) FROM unnest(jl_project('{3,0,0}', jl_sketch(k => 4), 'pinned')) v)) < 1 AS roughly_unbiased
  FROM generate_series(1, 2000);
