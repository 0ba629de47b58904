/*
 * covariance.h - the covariance release's linear algebra (docs/design/covariance.md):
 * R = Y [A; l I] accumulated batch by batch, the Gram matrix for
 * sigma_min(A), and the analyst's estimates from R.  Matrices are row-major.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_COVARIANCE_H
#define JLDP_MATH_COVARIANCE_H

#include <stddef.h>

/* the largest r x d (and d x d) the release holds in memory: 2^25 doubles, 256 MB */
#define JL_COV_MAX_ENTRIES ((size_t) 1 << 25)

/* Scale x (d values) to L2 norm <= C, a hair inside; returns whether it was scaled. */
int			jl_cov_clip(double *x, int d, double C);

/* jl_cov_clip on each row of X (n x d), with the same results, faster */
void		jl_cov_clip_rows(double *X, int n, int d, double C);

/* x (d values) copied to dst; whether they are all finite (as isfinite on each) */
int			jl_cov_copy_finite(double *dst, const double *x, int d);

/* R (r x d) += Yb (r x b) X (b x d): one dgemm */
void		jl_cov_accumulate(double *R, int r, int d, const double *Yb,
							  const double *X, int b);

/* upper triangle of G (d x d) += X^T X for X (b x d): one dsyrk */
void		jl_cov_gram_accumulate(double *G, int d, const double *X, int b);

/*
 * The same release from the Gram matrix (docs/design/covariance.md, "Two ways to
 * compute R"): R = Z F with Z (r x d) iid N(0,1) and F^T F = G + l2 I
 * (Cholesky, or the symmetric square root when G + l2 I is singular).  G is
 * the upper triangle of A^T A (d x d, row-major); Z is overwritten with
 * nothing, R receives r x d.  0, or -1 if LAPACK or malloc failed.
 */
int			jl_cov_from_gram(const double *G, int d, double l2, const double *Z,
							 int r, double *R);

/* R += l L for L (r x d): the lift rows l I multiplied by their part of Y */
void		jl_cov_add_lift(double *R, const double *L, size_t n, double l);

/* every entry rounded to the nearest multiple of step */
void		jl_cov_round(double *R, size_t n, double step);

/*
 * sigma_min = sqrt(max(0, lambda_min)) of the Gram matrix whose upper
 * triangle is G (d x d, not modified); -1 if LAPACK or malloc failed.
 */
double		jl_cov_sigma_min(const double *G, int d);

/*
 * ||R x||^2 / r into *sq (the estimate of x^T Sigma x); the return value is
 * the unbiased directional variance sq - l2 ||x||^2.
 */
double		jl_cov_directional(const double *R, int r, int d, const double *x,
							   double l2, double *sq);

/* C (d x d, both triangles) = R^T R / r - l2 I */
void		jl_cov_matrix(const double *R, int r, int d, double l2, double *C);

/*
 * Eigenpairs of the symmetric C (d x d, overwritten with the eigenvectors
 * as rows, largest eigenvalue first; vals descending); 0, or -1 if LAPACK or
 * malloc failed.
 */
int			jl_cov_eigen(double *C, int d, double *vals);

/*
 * Least-squares coefficients of attribute t (0-based) on the others from
 * the second-moment matrix C (d x d, not modified): beta (d - 1 values, the
 * other attributes in order) solves C_{-t,-t} beta = C_{-t,t}.  0, 1 if
 * C_{-t,-t} is not positive definite, -1 if malloc failed.
 */
int			jl_cov_least_squares(const double *C, int d, int t, double *beta);

#endif
