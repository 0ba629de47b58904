/*
 * sensitivity.h - L1 and L2 sensitivities of the realized projection P (d x k,
 * row-major), rounded upward so that floating-point error never makes them
 * smaller than the true value.
 */
#ifndef JLDP_MATH_SENSITIVITY_H
#define JLDP_MATH_SENSITIVITY_H

#include <stdbool.h>
#include <stdint.h>

/* Exact enumeration of sign vectors up to this k (2^(k-1) terms). */
#define JL_ROW_ENUM_MAX_K 24

typedef enum JlRowMethod
{
	JL_ROW_EXACT_ENUMERATION = 1,	/* max over s in {+-1}^k of ||P s||_2 */
	JL_ROW_SPECTRAL_BOUND = 2	/* sqrt(k) * sigma_max(P) */
} JlRowMethod;

/* max_ij |P_ij| */
double		jl_max_abs(const double *P, int64_t n);

/* max_i ||P_i||_1: L1 sensitivity per unit change of one element. */
double		jl_max_row_l1(const double *P, int64_t d, int k);

/* max_i ||P_i||_2: L2 sensitivity per unit change of one element. */
double		jl_max_row_l2(const double *P, int64_t d, int k);

/* The same from the largest squared row norm computed in floating point. */
double		jl_row_l2_from_sq(double max_sq, int k);

/*
 * max over sign vectors s of ||P s||_2: L1 sensitivity per unit L2 change of
 * one row.  Exact for k <= JL_ROW_ENUM_MAX_K, otherwise the certified bound
 * sqrt(k) sigma_max(P).  Returns a negative value if LAPACK fails.
 */
double		jl_row_l1_sensitivity(const double *P, int64_t d, int k,
								  JlRowMethod *method);

/*
 * The same from a Gram matrix G = P^T P (k x k, both triangles filled) that
 * was accumulated from d rows, e.g. streamed without materialising P.
 */
double		jl_row_l1_sensitivity_gram(const double *G, int64_t d, int k,
									   JlRowMethod *method);

/*
 * G = P^T P (k x k, both triangles filled), malloc'ed; NULL if out of
 * memory or cancelled (jl_cancel_pending, between blocks of rows of about
 * JL_GRAM_BLOCK_FLOPS).
 */
#define JL_GRAM_BLOCK_FLOPS 100000000
double	   *jl_gram(const double *P, int64_t d, int k);

/* Upper bound on the spectral norm sigma_max(P) (LAPACK dsyev on P^T P). */
double		jl_spectral_norm(const double *P, int64_t d, int k);

/* Same on a precomputed Gram matrix G = P^T P (k x k) and its error bound. */
double		jl_spectral_norm_gram(const double *G, int k, double gram_err);

/* Same on a Gram matrix accumulated from d rows (the error bound of dsyrk). */
double		jl_spectral_norm_from_gram(const double *G, int64_t d, int k);

/*
 * The statistics of one realized P that calibrations read.  The row
 * statistics cost P^T P (d k^2) and its eigenvalues (k^3) and are computed
 * only for row neighbours: NaN until then.
 */
typedef enum JlProjStat
{
	JL_STAT_MAX_ROW_L1,			/* max_i ||P_i||_1 */
	JL_STAT_MAX_ROW_L2,			/* max_i ||P_i||_2 */
	JL_STAT_ROW_L1,				/* max over s of ||P s||_2 */
	JL_STAT_SPECTRAL			/* sigma_max(P) */
} JlProjStat;

typedef struct JlProjStats
{
	int64_t		d;
	int			k;
	double		max_abs;		/* max |P_ij| */
	double		max_row_l1;
	double		max_row_l2;
	double		row_l1;			/* jl_row_l1_sensitivity, or NaN */
	JlRowMethod row_method;		/* how row_l1 was computed */
	double		spectral_norm;	/* jl_spectral_norm, or NaN */
} JlProjStats;

/* One statistic of st (NaN if not computed). */
static inline double
jl_proj_stat(const JlProjStats *st, JlProjStat which)
{
	switch (which)
	{
		case JL_STAT_MAX_ROW_L1:
			return st->max_row_l1;
		case JL_STAT_MAX_ROW_L2:
			return st->max_row_l2;
		case JL_STAT_ROW_L1:
			return st->row_l1;
		case JL_STAT_SPECTRAL:
			return st->spectral_norm;
	}
	return -1.0;
}

/*
 * The statistics of P = I_d (no projection, k = d): every row has one entry
 * 1, so max_abs, the row norms and sigma_max are 1; for row neighbours the
 * L1 norm of a change of L2 norm 1 is at most sqrt(d) (rounded up).
 */
void		jl_identity_stats(int64_t d, JlProjStats *st);

/*
 * Limits on the row statistics: the Gram matrix (d k^2) is accumulated in
 * cancellable blocks, but its eigenvalues (k^3) are one LAPACK call that
 * cannot be interrupted: k <= 1024 keeps it below about 0.1 s, and d k^2
 * keeps a calibration near a second.
 */
#define JL_ROW_MAX_K 1024
#define JL_ROW_MAX_WORK 4e10
static inline bool
jl_row_stats_affordable(int64_t d, int k)
{
	return k <= JL_ROW_MAX_K && (double) d * k * k <= JL_ROW_MAX_WORK;
}

#endif
