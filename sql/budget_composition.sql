-- A protected table's budget composed by the tightest valid accounting
-- (docs/design/accounting.md): the same caps admit more releases than
-- the sums do, and every figure is one anyone can recompute from the
-- ledger's profiles.
SET search_path = public, jldp;
CREATE TABLE bc_src AS
  SELECT i AS id, (i % 7)::float8 AS a, (i % 3)::float8 AS b FROM generate_series(1, 20) i;
ALTER TABLE bc_src ADD PRIMARY KEY (id);

-- 1. pure releases (the dist2 release: Laplace noise on one value) at
-- epsilon 0.1 under caps (5, 1e-6): the sums stop at 50; composed by the
-- pure releases' privacy loss distribution, 100 at 0.1 are (4.7796,
-- 1e-6)-DP.  Independently (numpy: the exact composition of 100
-- randomized responses, binomial): 4.77457; the accountant rounds each
-- epsilon up to its grid (0.1 -> 0.10009...), pessimistically, 0.1% above.
-- The exact composition of 108 is 4.9882, of 109 5.0340 (the accountant's
-- 4.9899 and 5.0410): 108 fit, where the sums admit 50
SELECT d FROM jl_protect('bc_src', 'id', ARRAY[jl_numeric('a', 0, 7), jl_numeric('b', 0, 3)],
                         epsilon_cap => 5, delta_cap => 1e-6);
CREATE FUNCTION bc_try(rel regclass, n int, eps float8) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  admitted int := 0;
BEGIN
  FOR i IN 1 .. n LOOP
    BEGIN
      PERFORM jl_release_dist2(rel, eps);
      admitted := admitted + 1;
    EXCEPTION WHEN configuration_limit_exceeded THEN
      EXIT;
    END;
  END LOOP;
  RETURN admitted;
END $$;
SELECT bc_try('bc_src', 120, 0.1) AS admitted;
SELECT epsilon_spent, round(epsilon_composed::numeric, 4) AS epsilon_composed,
       round(delta_composed::numeric, 10) AS delta_composed, composed_by
  FROM jl_budgets WHERE name = 'public.bc_src';
-- the ledger holds each charge's profile and the totals after it
SELECT count(*) FILTER (WHERE profile = 'pure') AS pure, count(*) FILTER (WHERE profile IS NULL) AS other,
       max(epsilon_spent) AS spent, round(max(epsilon_composed)::numeric, 4) AS composed
  FROM jl_ledger WHERE dataset = 'public.bc_src';
-- a reset starts the composition again
SELECT jl_reset('bc_src');
SELECT epsilon_spent, epsilon_composed, composed_by FROM jl_budgets WHERE name = 'public.bc_src';
-- (three at 2.0: the sums admit 2; composed, the third would be 6 less
-- 1.5e-6, past 5)
SELECT bc_try('bc_src', 3, 2.0) AS admitted_after_reset;

-- 2. with delta cap 0 the sums are the only valid composition
CREATE TABLE bc_pure AS SELECT * FROM bc_src;
ALTER TABLE bc_pure ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('bc_pure', 'id', ARRAY[jl_numeric('a', 0, 7)], epsilon_cap => 1);
SELECT bc_try('bc_pure', 15, 0.1) AS admitted;
SELECT epsilon_spent, round(epsilon_composed::numeric, 10) AS epsilon_composed, composed_by FROM jl_budgets WHERE name = 'public.bc_pure';

-- 3. the sums are judged in exact decimals, not in doubles, which round
-- to nearest: under a cap of 2.6999999999999997, bookings of 0.9, 0.01,
-- 0.35, 0.85, 0.03, 0.55 and 0.01 (2.70 exactly; 2.6999999999999993 in
-- doubles) stop at the sixth (found by a review: the double sums admitted
-- the seventh)
CREATE TABLE bc_ulp AS SELECT * FROM bc_src;
ALTER TABLE bc_ulp ADD PRIMARY KEY (id);
SELECT d FROM jl_protect('bc_ulp', 'id', ARRAY[jl_numeric('a', 0, 7)], epsilon_cap => 2.6999999999999997);
SELECT e, error(format('SELECT jl_budget_book(%L, %s, 0)', 'bc_ulp', e)) AS booked
  FROM unnest(ARRAY[0.9, 0.01, 0.35, 0.85, 0.03, 0.55, 0.01]) WITH ORDINALITY AS b(e, i) ORDER BY i;
SELECT epsilon_spent, epsilon_cap FROM jl_budgets WHERE name = 'public.bc_ulp';

DROP FUNCTION bc_try(regclass, int, float8);
DROP TABLE bc_src, bc_pure, bc_ulp;
