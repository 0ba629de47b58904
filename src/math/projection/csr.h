/*
 * csr.h - the nonzeros of a sparse projection matrix P, by rows and by
 * columns, and the products x P that use only them.
 *
 * Long-format input (a few attributes) walks the rows of its attributes;
 * a dense x is gathered column by column (long, predictable loops rather
 * than a scatter of rows with one nonzero or two).  Both sum the terms of
 * a coordinate in increasing row order, so they agree exactly with each
 * other and with a row-order loop over the dense P.
 *
 * Achlioptas and sparse projections are mostly zeros: a product over the
 * nonzeros costs nnz(P) = s d k multiply-adds instead of d k.  Each
 * coordinate of x P is still a sum of at most d products of x_i and P_ij,
 * so the floating-point error bound the release relies on (gamma_d ||x||_1
 * max|P|) holds unchanged.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_CSR_H
#define JLDP_MATH_CSR_H

#include "math/projection/mechanism.h"
#include "math/random/randbits.h"
#include "math/projection/sparse.h"

#include <stdint.h>

typedef struct JlCsr
{
	int64_t		d;
	int			k;
	int64_t		nnz;
	int64_t    *rowptr;			/* d + 1: row i is rowptr[i] .. rowptr[i+1]-1 */
	int32_t    *col;			/* nnz column indices, increasing in a row */
	double	   *val;			/* nnz values */
	int64_t    *colptr;			/* k + 1: column j is colptr[j] .. colptr[j+1]-1 */
	int32_t    *row;			/* nnz row indices, increasing in a column */
	double	   *cval;			/* nnz values */
} JlCsr;

/* Nonzeros of the dense d x k matrix P. */
int64_t		jl_csr_count(const double *P, int64_t d, int k);

/*
 * Fill S from P; S->rowptr (d + 1), S->colptr (k + 1), S->col, S->val,
 * S->row and S->cval (jl_csr_count(P) entries) are allocated by the caller.
 */
void		jl_csr_fill(const double *P, int64_t d, int k, JlCsr *S);

/* y = x P (y of length k), gathered by columns. */
void		jl_csr_project_vec(const JlCsr *S, const double *x, double *y);

/* Y = X P for n rows of X (n x d) into Y (n x k), row-major. */
void		jl_csr_project_rows(const JlCsr *S, const double *X, int64_t n,
								double *Y);

/*
 * As jl_sparse_project with a dense P: y = sum over pairs of
 * clamp(value, limit) P_(attr - 1), attributes <= S->d.
 */
void		jl_csr_project_pairs(const JlCsr *S, const JlSparsePair *pairs,
								 int64_t n, double limit, double *y);

/*
 * jl_release_row with the product over the nonzeros for ordinary
 * rows; rows that need the compensated product use the dense P.
 */
JlStatus	jl_release_row_csr(const JlMechanism *m, const JlCsr *S,
									   const double *P, const double *x,
									   double *out, JlRandom *r);

#endif
