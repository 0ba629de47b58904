/*
 * covariance_accountant.h - the privacy of the covariance release (Blocki,
 * Blum, Datta and Sheffet 2012): R = Y A-bar, Y r x N with iid N(0,1)
 * entries, A-bar = [A; l I] (rows of A of L2 norm <= C).  Neighbours: one
 * row of A replaced by another of norm <= C (for R alone, adding or removing
 * a row is a special case).  docs/design/covariance.md derives what these functions compute:
 * the worst case over all neighbouring pairs is the pair whose whitened
 * rows are orthogonal with norm rho = C / l each, where the privacy loss is
 *     L = (x / 2) (X1 - X2 / (1 + x)),  x = rho^2,  X1, X2 iid chi-square(r),
 * and delta(eps) = E[(1 - e^(eps - L))_+].
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_COVARIANCE_ACCOUNTANT_H
#define JLDP_MATH_COVARIANCE_ACCOUNTANT_H

#include <stdint.h>

/* largest r the accountant and the release accept */
#define JL_COV_MAX_R 100000

/*
 * Largest epsilon the accountant accepts: the loss computations use e^eps,
 * which overflows past 709, and a larger epsilon protects nothing.  Within
 * (0, JL_COV_MAX_EPSILON] and for every r and delta in range, a lift takes
 * at most about 0.2 s to compute (measured at r = JL_COV_MAX_R).
 */
#define JL_COV_MAX_EPSILON 700.0

/*
 * The relative margin added to every computed delta, beyond the quadrature
 * error estimate and the truncated tail (docs/design/covariance.md, "Numerics").
 */
#define JL_COV_DELTA_MARGIN 1e-3

/* log Pr[chi-square(r) > t] (t >= 0), from the regularized incomplete gamma */
double		jl_chi2_logsf(double r, double t);

/*
 * delta(eps) of the pair of r-row Gaussian releases whose whitened rows are
 * N(0, I + u u^T) and N(0, I + u' u'^T), |u| = a, |u'| = b, cos(angle) = c,
 * from the loss distribution under the first: a constant plus a weighted
 * difference of two chi-square(r) variables.  The plain quadrature value
 * (no margin); *err, if not NULL, receives its error estimate (quadrature
 * difference plus truncated tail).
 */
double		jl_cov_pair_delta(int r, double a, double b, double c, double eps,
							  double *err);

/*
 * The worst-case delta(eps) over all neighbours when every whitened row has
 * norm <= rho (rho = C / l), with the margin: an upper bound on the true
 * value.  Nonincreasing in l.
 */
double		jl_cov_delta(int r, double rho, double eps);

/*
 * The smallest lift l (to a relative 1e-9, upper end of a bisection) whose
 * jl_cov_delta(r, C / l, eps) <= delta, for rows of norm <= C.  r in
 * [1, JL_COV_MAX_R], 0 < eps <= JL_COV_MAX_EPSILON, 0 < delta < 1, C > 0;
 * NaN if out of range.  Calls jl_interrupt_check between evaluations.
 */
double		jl_cov_lift(int r, double eps, double delta, double C);

/*
 * The paper-style lift for the same neighbours (a row change of norm at
 * most 2C): w = 2C * 16 sqrt(r ln(2/delta)) ln(16 r/delta) / eps, as we read
 * Blocki et al.'s Theorem 3.1; for comparison only.
 */
double		jl_cov_lift_paper(int r, double eps, double delta, double C);

/*
 * The instance-dependent variant: sigma_min(A) released with discrete
 * Laplace noise on a grid.  For rows of norm <= C and n rows, plan the
 * grid step g, the noise scale t (grid steps) for epsilon eps1 and the
 * margin m (grid steps) with Pr[noise >= m] <= beta; the floating-point
 * error of the computed sigma_min over n rows of dimension d is added to
 * the sensitivity.  Returns 0, or -1 if eps1 or beta is out of range.
 */
typedef struct JlCovSigmaPlan
{
	double		g;				/* grid step */
	uint64_t	t;				/* discrete Laplace scale, grid steps */
	int64_t		m;				/* lower confidence margin, grid steps */
	double		sensitivity;	/* of the computed sigma_min, incl. rounding error */
	double		eps;			/* what the plan guarantees (<= eps1) */
} JlCovSigmaPlan;

int			jl_cov_sigma_plan(double C, double n, int d, double eps1, double beta,
							  JlCovSigmaPlan *p);

/*
 * sigma_min computed in floating point from A^T A (n rows, d columns, row
 * norms <= C): its absolute error bound, in units of sigma.
 */
double		jl_cov_sigma_error(double C, double n, int d);

/*
 * The lift after the noisy release: l^2 = max(0, w^2 + C^2 - lcb^2), lcb the
 * lower confidence bound of sigma_min(A) (negative counts as 0).
 */
double		jl_cov_partial_lift(double w, double C, double lcb);

#endif
