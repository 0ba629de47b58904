-- jl_linear_fit and jl_linear_fit_intercept against least squares computed
-- independently (PostgreSQL's regr_* aggregates and the 2 x 2 normal
-- equations by Cramer's rule), for every group size n = 1 .. 300, with and
-- without an intercept.  Groups smaller than the 128-row batch returned
-- NULL in 0.3.3.
CREATE TABLE lf_rows AS
  SELECT n, i, sin(i * 1.3) + 0.2 * n AS x1, cos(i * 0.7) AS x2,
         2.0 * sin(i * 1.3) - cos(i * 0.7) + 0.3 * sin(i * 7.1) + 0.01 * n AS y
  FROM generate_series(1, 300) n, generate_series(1, n) i;

-- one feature: slope and intercept; minimum-norm (slope 0) when all x agree
CREATE TABLE lf_one AS
  SELECT n,
         (jl_linear_fit(ARRAY[x1], ARRAY[y]))[1][1] AS w,
         (jl_linear_fit_intercept(ARRAY[x1], ARRAY[y]))[1] AS b,
         (jl_linear_fit(ARRAY[x1], ARRAY[y], jl_linear_options(0, false)))[1][1] AS w0,
         coalesce(regr_slope(y, x1), 0) AS w_ref,
         coalesce(regr_intercept(y, x1), avg(y)) AS b_ref,
         sum(x1 * y) / sum(x1 * x1) AS w0_ref
  FROM lf_rows GROUP BY n;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE w IS NULL OR b IS NULL OR w0 IS NULL) AS nulls,
       count(*) FILTER (WHERE abs(w - w_ref) > 1e-9 * (1 + abs(w_ref))) AS slope_off,
       count(*) FILTER (WHERE abs(b - b_ref) > 1e-9 * (1 + abs(b_ref))) AS intercept_off,
       count(*) FILTER (WHERE abs(w0 - w0_ref) > 1e-9 * (1 + abs(w0_ref))) AS through_origin_off
  FROM lf_one;

-- two features, n >= 3 (n >= 2 through the origin): the normal equations
CREATE TABLE lf_two AS
  SELECT n, jl_linear_fit(ARRAY[x1, x2], ARRAY[y]) AS w,
         jl_linear_fit_intercept(ARRAY[x1, x2], ARRAY[y]) AS b,
         jl_linear_fit(ARRAY[x1, x2], ARRAY[y], jl_linear_options(0, false)) AS w0,
         regr_sxx(x1, x2) AS s22, regr_syy(x1, x2) AS s11,
         covar_pop(x1, x2) * count(*) AS s12,
         covar_pop(x1, y) * count(*) AS s1y, covar_pop(x2, y) * count(*) AS s2y,
         avg(x1) AS m1, avg(x2) AS m2, avg(y) AS my,
         sum(x1 * x1) AS q11, sum(x2 * x2) AS q22, sum(x1 * x2) AS q12,
         sum(x1 * y) AS q1y, sum(x2 * y) AS q2y
  FROM lf_rows GROUP BY n;
CREATE TABLE lf_two_ref AS
  SELECT n, w, b, w0,
         (s1y * s22 - s2y * s12) / nullif(s11 * s22 - s12 * s12, 0) AS w1_ref,
         (s2y * s11 - s1y * s12) / nullif(s11 * s22 - s12 * s12, 0) AS w2_ref,
         (q1y * q22 - q2y * q12) / nullif(q11 * q22 - q12 * q12, 0) AS v1_ref,
         (q2y * q11 - q1y * q12) / nullif(q11 * q22 - q12 * q12, 0) AS v2_ref,
         m1, m2, my
  FROM lf_two;
SELECT count(*) FILTER (WHERE n >= 3) AS groups,
       count(*) FILTER (WHERE n >= 3 AND (abs(w[1][1] - w1_ref) > 1e-8 * (1 + abs(w1_ref))
                                      OR abs(w[2][1] - w2_ref) > 1e-8 * (1 + abs(w2_ref)))) AS coef_off,
       count(*) FILTER (WHERE n >= 3 AND abs(b[1] - (my - w1_ref * m1 - w2_ref * m2)) > 1e-8 * (1 + abs(my))) AS intercept_off,
       count(*) FILTER (WHERE n >= 2 AND (abs(w0[1][1] - v1_ref) > 1e-8 * (1 + abs(v1_ref))
                                      OR abs(w0[2][1] - v2_ref) > 1e-8 * (1 + abs(v2_ref)))) AS through_origin_off
  FROM lf_two_ref;
-- the smallest groups in full: one row (the intercept fits it exactly, no
-- slope), two rows (a line through both)
SELECT n, round(w::numeric, 9) AS w, round(b::numeric, 9) AS b,
       round(w_ref::numeric, 9) AS w_ref, round(b_ref::numeric, 9) AS b_ref
  FROM lf_one WHERE n <= 2 ORDER BY n;
DROP TABLE lf_rows, lf_one, lf_two, lf_two_ref;
