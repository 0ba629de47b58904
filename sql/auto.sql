-- jl_release_table(kind => 'auto'): the kind, k and noise that jl_advise
-- ranks first for the same public inputs, charged for what is released and
-- recorded in the registry with the advice.  Uses the pinned key of keys.sql.

-- 13 attributes in one float8[] column: d comes from the first row's length
CREATE TABLE auto_small AS
  SELECT i AS id, array(SELECT ((i * j) % 7) / 7.0 FROM generate_series(1, 13) j)::float8[] AS v
  FROM generate_series(1, 20) i;
ALTER TABLE auto_small ADD PRIMARY KEY (id);

-- epsilon 4, Laplace noise, element neighbours (bound 1), distances near
-- 1.3: no projection wins
SELECT rank, kind, k, noise FROM jl_advise(13, 4.0, 1.3, key => 'pinned') WHERE rank <= 2;
SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_small_out', epsilon => 4.0,
                        kind => 'auto', dist2 => 1.3, key => 'pinned') > 0 AS released;
-- the release is rank 1 of jl_advise, and the registry says so
SELECT r.projection, r.k, r.info->>'noise' AS noise, r.info->>'chosen_by' AS chosen_by,
       (r.projection, r.k, r.info->>'noise') = (a.kind, a.k, a.noise) AS as_advised,
       r.info->'advice'->>'goal' AS goal, (r.info->'advice'->>'dist2')::float8 AS dist2,
       r.info->'advice'->>'dist2_from' AS dist2_from,
       r.info->'advice'->'chosen'->>'kind' AS chosen,
       (r.info->'advice'->'runner_up'->>'kind', (r.info->'advice'->'runner_up'->>'k')::int)
         = (b.kind, b.k) AS runner_up_as_advised,
       (r.info->'advice'->'runner_up'->>'predicted_error')::float8 = b.predicted_error AS runner_up_error
  FROM jl_releases r,
       jl_advise(13, 4.0, 1.3, key => 'pinned') a, jl_advise(13, 4.0, 1.3, key => 'pinned') b
 WHERE r.target = 'auto_small_out'::regclass AND a.rank = 1 AND b.rank = 2;
SELECT count(*) AS rows, min(array_length(sketch, 1)) AS len FROM auto_small_out;

-- 2000 attributes, epsilon 1, delta 1e-6 and no noise named: Laplace and
-- Gaussian are both ranked, and a Rademacher projection with Laplace noise
-- wins; it is charged delta 0 although delta was given
CREATE TABLE auto_wide AS
  SELECT i AS id, array(SELECT sin(i * j) FROM generate_series(1, 2000) j)::float8[] AS v
  FROM generate_series(1, 5) i;
ALTER TABLE auto_wide ADD PRIMARY KEY (id);
SELECT rank, kind, k, noise FROM jl_advise(2000, 1.0, 200, delta => 1e-6, key => 'pinned') WHERE rank <= 2;
SELECT jl_release_table('auto_wide', 'id', '{v}', 'auto_wide_out', epsilon => 1.0, delta => 1e-6,
                        kind => 'auto', dist2 => 200, key => 'pinned') > 0 AS released;
SELECT r.projection, r.k, r.info->>'noise' AS noise, r.delta,
       (r.projection, r.k, r.info->>'noise') = (a.kind, a.k, a.noise) AS as_advised,
       r.info->'advice'->>'noises' AS noises_ranked
  FROM jl_releases r, jl_advise(2000, 1.0, 200, delta => 1e-6, key => 'pinned') a
 WHERE r.target = 'auto_wide_out'::regclass AND a.rank = 1;
SELECT count(*) AS sketches, min(array_length(sketch, 1)) AS len FROM auto_wide_out;
SELECT epsilon, delta FROM jl_ledger
 WHERE dataset = 'public.auto_wide' AND event = 'charge' ORDER BY id DESC LIMIT 1;

-- row neighbours (rows clipped to norm 1/2: bound 1), the same epsilon and
-- delta: no projection with Gaussian noise wins, charged (1, 1e-6)
SELECT rank, kind, k, noise FROM jl_advise(2000, 1.0, 200, neighbor => 'row', delta => 1e-6, key => 'pinned')
 WHERE rank <= 2;
SELECT jl_release_table('auto_wide', 'id', '{v}', 'auto_wide_row', epsilon => 1.0, delta => 1e-6,
                        neighbor => 'row', clip_norm => 0.5, kind => 'auto', dist2 => 200,
                        key => 'pinned') > 0 AS released;
SELECT r.projection, r.k, r.info->>'noise' AS noise, r.delta,
       (r.projection, r.k, r.info->>'noise') = (a.kind, a.k, a.noise) AS as_advised
  FROM jl_releases r, jl_advise(2000, 1.0, 200, neighbor => 'row', delta => 1e-6, key => 'pinned') a
 WHERE r.target = 'auto_wide_row'::regclass AND a.rank = 1;
SELECT epsilon, delta FROM jl_ledger
 WHERE dataset = 'public.auto_wide' AND event = 'charge' ORDER BY id DESC LIMIT 1;
-- noise named: only that noise is ranked
SELECT jl_release_table('auto_wide', 'id', '{v}', 'auto_wide_laplace', epsilon => 1.0, delta => 1e-6,
                        neighbor => 'row', clip_norm => 0.5, noise => 'laplace', kind => 'auto',
                        dist2 => 200, key => 'pinned') > 0 AS released;
-- (the registry names a sparse P with its density, jl_advise by its kind word)
SELECT r.info->'advice'->'chosen'->>'kind' AS chosen, r.k, r.info->>'noise' AS noise, r.delta,
       r.info->'advice'->>'noises' AS noises_ranked,
       (split_part(r.projection, '(', 1), r.k, r.info->>'noise') = (a.kind, a.k, a.noise) AS as_advised
  FROM jl_releases r,
       jl_advise(2000, 1.0, 200, neighbor => 'row', noise => 'laplace', delta => 1e-6, key => 'pinned') a
 WHERE r.target = 'auto_wide_laplace'::regclass AND a.rank = 1;

-- named columns and clipping, dist2 left out: the default d (hi - lo)^2 / 6,
-- the mean squared distance of two rows uniform in the clipping box
CREATE TABLE auto_cols AS SELECT i AS id, i % 3 AS a, i % 5 AS b, i % 7 AS c FROM generate_series(1, 10) i;
ALTER TABLE auto_cols ADD PRIMARY KEY (id);
SELECT jl_release_table('auto_cols', 'id', '{a,b,c}', 'auto_cols_out', epsilon => 1.0,
                        clip_lo => 0, clip_hi => 6, kind => 'auto', key => 'pinned') > 0 AS released;
SELECT r.projection, r.k, r.d, (r.info->'advice'->>'dist2')::float8 AS dist2,
       r.info->'advice'->>'dist2_from' AS dist2_from,
       (r.projection, r.k, r.info->>'noise') = (a.kind, a.k, a.noise) AS as_advised
  FROM jl_releases r, jl_advise(3, 1.0, 3 * 36 / 6.0, bound => 6, key => 'pinned') a
 WHERE r.target = 'auto_cols_out'::regclass AND a.rank = 1;
-- row neighbours (clip_norm C, bound 2C): the default is bound^2 / 2 = 2 C^2
SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_row_out', epsilon => 1.0, neighbor => 'row',
                        clip_norm => 2, kind => 'auto', key => 'pinned') > 0 AS released;
SELECT (r.info->'advice'->>'dist2')::float8 AS dist2, r.info->'advice'->>'dist2_from' AS dist2_from,
       (r.projection, r.k, r.info->>'noise') = (a.kind, a.k, a.noise) AS as_advised
  FROM jl_releases r, jl_advise(13, 1.0, 8, neighbor => 'row', bound => 4, key => 'pinned') a
 WHERE r.target = 'auto_row_out'::regclass AND a.rank = 1;
-- clustering as the goal
SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_cluster_out', epsilon => 1.0, kind => 'auto',
                        dist2 => 2, goal => 'clustering', cluster_var => 0.05, n => 20, key => 'pinned') > 0
       AS released;
SELECT r.info->'advice'->>'goal' AS goal, (r.info->'advice'->>'cluster_var')::float8 AS cluster_var,
       (r.projection, r.k, r.info->>'noise') = (a.kind, a.k, a.noise) AS as_advised
  FROM jl_releases r,
       jl_advise(13, 1.0, 2, goal => 'clustering', cluster_var => 0.05, n => 20, key => 'pinned') a
 WHERE r.target = 'auto_cluster_out'::regclass AND a.rank = 1;

-- errors, none of which charges anything or creates a target
SELECT count(*) AS charges_before FROM jl_ledger WHERE dataset = 'public.auto_small' AND event = 'charge';
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', 4, 1.0, kind => 'auto', key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', epsilon => 1.0, kind => 'auto',
                                       calibration => 'paper', key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', epsilon => 1.0, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', kind => 'auto', key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', 4, 1.0, dist2 => 2, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', 4, 1.0, goal => 'distance', key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', epsilon => 1.0, kind => 'auto',
                                       dist2_hi => 5, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', epsilon => 1.0, kind => 'auto',
                                       dist2 => -1, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', epsilon => 1.0, kind => 'auto',
                                       noise => 'gaussian', key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', epsilon => 1.0, kind => 'auto',
                                       goal => 'clustering', key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', epsilon => 1.0, kind => 'auto',
                                       goal => 'search', key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', epsilon => 1.0, kind => 'auto',
                                       bound => 0, key => 'pinned')$$);
SELECT error($$SELECT jl_release_table('auto_small', 'id', '{v}', 'auto_e', epsilon => 1.0, kind => 'auto',
                                       key => 'no such key')$$);
-- an empty source with an array column: the length is unknown
CREATE TABLE auto_empty (id int PRIMARY KEY, v float8[]);
SELECT error($$SELECT jl_release_table('auto_empty', 'id', '{v}', 'auto_e', epsilon => 1.0, kind => 'auto',
                                       key => 'pinned')$$);
SELECT count(*) AS charges_after FROM jl_ledger WHERE dataset = 'public.auto_small' AND event = 'charge';
SELECT count(*) AS empty_charges FROM jl_ledger WHERE dataset = 'public.auto_empty';
SELECT to_regclass('auto_e') IS NULL AS no_target;

-- 'auto' is a word of jl_release_table only: the other paths refuse it
SELECT error($$SELECT jl_release_info(13, 4, 1.0, key => 'pinned', kind => 'auto')$$);
