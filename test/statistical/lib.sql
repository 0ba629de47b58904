-- lib.sql - shared pieces of the statistical tests: the error budget, the
-- result table and its reporting, binomial confidence bounds.
--
-- Error budget.  Every statistical line (a "check") has a false-failure rate
-- of at most ALPHA_LINE = 5e-8; the suite has at most 40 of them, so by
-- the union bound the whole run fails by chance with probability <= 2e-6.
-- Normal bands use Z_LINE, the two-sided 5e-8 quantile of N(0,1):
-- Phi^-1(1 - 2.5e-8) = 5.4513104.  Each check has a negative control: the
-- same statistic and band applied to a wrong model or a wrong mechanism,
-- which must be rejected.

CREATE TABLE stat_const (alpha_line float8, z_line float8);
INSERT INTO stat_const VALUES (5e-8, 5.451310438136472);

CREATE FUNCTION stat_z() RETURNS float8 LANGUAGE sql STABLE
  AS $$ SELECT z_line FROM stat_const $$;
CREATE FUNCTION stat_alpha() RETURNS float8 LANGUAGE sql STABLE
  AS $$ SELECT alpha_line FROM stat_const $$;

-- One line per check or control.  kind: 'check' must lie in its band,
-- 'control' must lie outside it (the check rejects the wrong model),
-- 'exact' is a deterministic comparison that must hold.
CREATE TABLE stat_result (
    seq     serial,
    name    text NOT NULL,
    kind    text NOT NULL CHECK (kind IN ('check', 'control', 'exact')),
    what    text NOT NULL,
    stat    float8,
    lo      float8,
    hi      float8,
    detail  text,
    in_band boolean NOT NULL,
    ok      boolean NOT NULL
);

-- Figures with 6 significant digits.
CREATE FUNCTION stat_g(v float8) RETURNS text LANGUAGE sql IMMUTABLE
  SET extra_float_digits = -9
  AS $$ SELECT coalesce(v::text, 'null') $$;

CREATE FUNCTION stat_record(p_name text, p_kind text, p_what text,
                            p_stat float8, p_lo float8, p_hi float8,
                            p_detail text DEFAULT '')
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  inb boolean := coalesce(p_stat >= p_lo AND p_stat <= p_hi, false);
BEGIN
  INSERT INTO stat_result (name, kind, what, stat, lo, hi, detail, in_band, ok)
  VALUES (p_name, p_kind, p_what, p_stat, p_lo, p_hi, p_detail, inb,
          CASE p_kind WHEN 'control' THEN NOT inb ELSE inb END);
END $$;

CREATE FUNCTION stat_line(r stat_result) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT format('%s %-7s %-4s %s: %s = %s, band [%s, %s] -> %s%s',
                CASE WHEN r.ok THEN 'PASS' ELSE 'FAIL' END,
                r.kind, r.name, r.what,
                CASE r.kind WHEN 'exact' THEN 'value' ELSE 'statistic' END,
                stat_g(r.stat),
                CASE WHEN r.lo = '-Infinity' THEN '-inf' ELSE stat_g(r.lo) END,
                CASE WHEN r.hi = 'Infinity' THEN 'inf' ELSE stat_g(r.hi) END,
                CASE WHEN r.in_band THEN 'in band'
                     ELSE 'outside band' END
                || CASE r.kind WHEN 'control' THEN
                     CASE WHEN r.in_band THEN ' (control NOT rejected)'
                          ELSE ' (control rejected, as it must be)' END
                   ELSE '' END,
                CASE WHEN r.detail <> '' THEN E'\n       ' || r.detail ELSE '' END)
$$;

-- Binomial confidence bounds from the Chernoff (relative entropy) bound:
-- for c successes in n trials, P(c/n <= a) <= exp(-n KL(a || p)) for a < p,
-- so the upper bound U = max{q >= c/n : n KL(c/n || q) <= ln(1/alpha)}
-- satisfies P(p > U) <= alpha exactly (no approximation), and likewise the
-- lower bound.  Slightly more conservative than Clopper-Pearson.
CREATE FUNCTION stat_kl(p float8, q float8) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT CASE WHEN p > 0 THEN p * ln(p / q) ELSE 0 END
       + CASE WHEN p < 1 THEN (1 - p) * ln((1 - p) / (1 - q)) ELSE 0 END
$$;

CREATE FUNCTION stat_binom_upper(c bigint, n bigint, alpha float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  p   float8 := c::float8 / n;
  lim float8 := ln(1 / alpha) / n;
  lo  float8 := c::float8 / n;
  hi  float8 := 1;
  mid float8;
BEGIN
  IF c >= n THEN RETURN 1; END IF;
  FOR i IN 1..200 LOOP
    mid := (lo + hi) / 2;
    IF mid <= lo OR mid >= hi THEN EXIT; END IF;
    IF stat_kl(p, mid) > lim THEN hi := mid; ELSE lo := mid; END IF;
  END LOOP;
  RETURN hi;		-- the conservative end
END $$;

CREATE FUNCTION stat_binom_lower(c bigint, n bigint, alpha float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  p   float8 := c::float8 / n;
  lim float8 := ln(1 / alpha) / n;
  lo  float8 := 0;
  hi  float8 := c::float8 / n;
  mid float8;
BEGIN
  IF c <= 0 THEN RETURN 0; END IF;
  FOR i IN 1..200 LOOP
    mid := (lo + hi) / 2;
    IF mid <= lo OR mid >= hi THEN EXIT; END IF;
    IF stat_kl(p, mid) > lim THEN lo := mid; ELSE hi := mid; END IF;
  END LOOP;
  RETURN lo;		-- the conservative end
END $$;

-- Unit vector e_i of length d, and the exact discrete Laplace moments of a
-- release (noise L g, L with P(L = l) proportional to p^|l|, p = exp(-1/t)):
-- E L^2 = 2p/(1-p)^2, E L^4 = 2p(1 + 10p + p^2)/(1-p)^4.
CREATE FUNCTION stat_unit(d int, i int) RETURNS float8[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT array_agg(CASE WHEN j = i THEN 1 ELSE 0 END::float8 ORDER BY j)
  FROM generate_series(1, d) j
$$;

CREATE FUNCTION stat_dlap_var(grid float8, t float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT grid * grid * 2 * p / ((1 - p) * (1 - p)) FROM (SELECT exp(-1 / t) p) s
$$;

CREATE FUNCTION stat_dlap_m4(grid float8, t float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT grid ^ 4 * 2 * p * (1 + 10 * p + p * p) / (1 - p) ^ 4
  FROM (SELECT exp(-1 / t) p) s
$$;

-- The projection of x rounded to the release grid: the exact expectation of
-- a release of x (the release adds symmetric noise to round(x P / grid)).
CREATE FUNCTION stat_project_grid(x float8[], k int, grid float8) RETURNS float8[]
LANGUAGE sql STABLE AS $$
  SELECT array_agg(grid * round(v / grid) ORDER BY o)
  FROM unnest(jl_project(x, jl_sketch(k => k), 'stat')) WITH ORDINALITY u(v, o)
$$;
