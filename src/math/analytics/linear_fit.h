/*
 * linear_fit.h - least squares (optionally ridge) of label vectors y
 * (m values) on feature vectors x (d values) from sufficient statistics:
 * the count n, the means of x and y and the centred co-moments
 * Sxx = sum (x - mean x)(x - mean x)^T and Sxy = sum (x - mean x)(y - mean y)^T.
 * Rows are merged a batch at a time (BLAS level 3) and states combine
 * exactly (Chan, Golub and LeVeque's pairwise update), so partial states of
 * a parallel aggregate give the same statistics as one pass.
 *
 * The fit minimises ||Y - X W - 1 b^T||^2 + ridge ||W||_F^2 (the intercept
 * b is not penalised; without an intercept b = 0):
 *   W = (Sxx + ridge I)^+ Sxy,  b = mean y - W^T mean x,
 * solved through LAPACK dsyev (see docs/design/nullspace.md for why).
 *
 * Plain C: no postgres.h.  Matrices are row-major.
 */
#ifndef JLDP_MATH_LINEAR_FIT_H
#define JLDP_MATH_LINEAR_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct JlLinStats
{
	int			d;
	int			m;
	int64_t		n;
	double	   *mx;				/* d */
	double	   *my;				/* m */
	double	   *Sxx;			/* d x d, upper triangle kept */
	double	   *Sxy;			/* d x m */
} JlLinStats;

/* doubles of the statistics' arrays (mx, my, Sxx, Sxy), 0 on overflow */
extern size_t jl_lin_stats_doubles(int d, int m);

/* point st's arrays into buf (jl_lin_stats_doubles(d, m) doubles), zeroed */
extern void jl_lin_stats_init(JlLinStats *st, int d, int m, double *buf);

/*
 * Merge b rows: X (b x d) and Y (b x m), row-major; both are overwritten
 * (centred in place).  work: 2 (d + m) doubles.
 */
extern void jl_lin_stats_add_batch(JlLinStats *st, double *X, double *Y, int b,
								   double *work);

/* a += b (same d and m); work: d + m doubles */
extern void jl_lin_stats_combine(JlLinStats *a, const JlLinStats *b,
								 double *work);

typedef enum JlLinStatus
{
	JL_LIN_OK = 0,
	JL_LIN_NO_MEMORY,
	JL_LIN_LAPACK_FAILED
} JlLinStatus;

/*
 * W (d x m) and b (m; may be NULL) of the fit; *rank the number of
 * eigenvalues of Sxx + ridge I (with n mean x mean x^T added without an
 * intercept) above the cut-off d u lambda_max, directions below it get no
 * weight (the minimum-norm solution).
 */
extern JlLinStatus jl_lin_solve(const JlLinStats *st, double ridge,
								bool intercept, double *W, double *b,
								int *rank);

#endif
