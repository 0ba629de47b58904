/*
 * sensitivity.h - L1 and L2 sensitivities of the realized projection P (d x k,
 * row-major), rounded upward so that floating-point error never makes them
 * smaller than the true value.
 */
#ifndef JLDP_SENSITIVITY_H
#define JLDP_SENSITIVITY_H

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

/* Upper bound on the spectral norm sigma_max(P) (LAPACK dsyev on P^T P). */
double		jl_spectral_norm(const double *P, int64_t d, int k);

/* Same on a precomputed Gram matrix G = P^T P (k x k) and its error bound. */
double		jl_spectral_norm_gram(const double *G, int k, double gram_err);

/* Same on a Gram matrix accumulated from d rows (the error bound of dsyrk). */
double		jl_spectral_norm_from_gram(const double *G, int64_t d, int k);

#endif
