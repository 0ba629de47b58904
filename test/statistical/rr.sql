-- Check 4: the flip rate of jl_randomized_response through SQL.
--
-- N bits (half 0, half 1) are released; c of them come out flipped.  The
-- Chernoff binomial bounds of lib.sql at alpha_line / 2 on each side give a
-- band for the flip probability that contains the true one except with
-- probability 5e-8 (no approximation); the check is that it contains
-- p = 1/(1 + e^epsilon).  One check per input type (bit varying, float8[],
-- boolean[]), each at its own epsilon.
-- Negative control: the same band must exclude the flip probability of
-- 1.1 epsilon (a sampler off by 10% in epsilon is caught).

CREATE TEMP TABLE c4_cfg (name text, kind text, eps float8, nrows int, d int);
INSERT INTO c4_cfg VALUES
  ('4.a', 'bit varying', 1.0, 300, 10000),
  ('4.b', 'float8[]',    0.5, 200, 2000),
  ('4.c', 'boolean[]',   2.0, 100, 1000);

CREATE TEMP TABLE c4_flips (name text, n bigint, c bigint);

-- bit varying: rows of 0s and rows of 1s, flips counted with bit_count
INSERT INTO c4_flips
SELECT cfg.name, sum(cfg.d), sum(bit_count(jl_randomized_response(x, cfg.eps) # x))
FROM c4_cfg cfg, generate_series(1, cfg.nrows) i,
     LATERAL (SELECT repeat(CASE WHEN i % 2 = 0 THEN '0' ELSE '1' END, cfg.d)::varbit AS x) s
WHERE cfg.kind = 'bit varying'
GROUP BY cfg.name;

INSERT INTO c4_flips
SELECT cfg.name, sum(cfg.d),
       sum((SELECT count(*) FROM unnest(jl_randomized_response(x, cfg.eps), x) u(o, v) WHERE o <> v))
FROM c4_cfg cfg, generate_series(1, cfg.nrows) i,
     LATERAL (SELECT array_fill((i % 2)::float8, ARRAY[cfg.d]) AS x) s
WHERE cfg.kind = 'float8[]'
GROUP BY cfg.name;

INSERT INTO c4_flips
SELECT cfg.name, sum(cfg.d),
       sum((SELECT count(*) FROM unnest(jl_randomized_response(x, cfg.eps), x) u(o, v) WHERE o <> v))
FROM c4_cfg cfg, generate_series(1, cfg.nrows) i,
     LATERAL (SELECT array_fill(i % 2 = 0, ARRAY[cfg.d]) AS x) s
WHERE cfg.kind = 'boolean[]'
GROUP BY cfg.name;

SELECT stat_record(f.name, 'check',
         format('flip rate of jl_randomized_response(%s, %s): p = 1/(1 + e^eps) in the band of %s flips in %s bits',
                cfg.kind, cfg.eps, f.c, f.n),
         jl_rr_flip_probability(cfg.eps),
         stat_binom_lower(f.c, f.n, stat_alpha() / 2),
         stat_binom_upper(f.c, f.n, stat_alpha() / 2),
         format('observed rate %s', stat_g(f.c::float8 / f.n)))
FROM c4_flips f JOIN c4_cfg cfg USING (name);

SELECT stat_record(f.name, 'control',
         format('the same band against the flip probability of 1.1 eps = %s', 1.1 * cfg.eps),
         jl_rr_flip_probability(1.1 * cfg.eps),
         stat_binom_lower(f.c, f.n, stat_alpha() / 2),
         stat_binom_upper(f.c, f.n, stat_alpha() / 2))
FROM c4_flips f JOIN c4_cfg cfg USING (name);
