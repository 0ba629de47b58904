/*
 * sparse.h - long-format (attribute, value) input to the JL release: the
 * pair list of an aggregate state, x P from rows of P generated on demand,
 * and the sensitivities of P streamed row by row, so that neither P nor a
 * dense x is ever materialized when d is large.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_SPARSE_H
#define JLDP_MATH_SPARSE_H

#include "math/projection/mechanism.h"
#include "math/projection/projection.h"
#include "math/projection/sensitivity.h"

#include <stdint.h>

/* One attribute (1-based, as SQL array subscripts) and its value. */
typedef struct JlSparsePair
{
	int32_t		attr;
	double		value;
} JlSparsePair;

/*
 * Sort pairs[0..n-1] by attribute and sum the values of equal attributes
 * in place; returns the number of distinct attributes.  In place, O(n log n).
 */
int64_t		jl_sparse_compact(JlSparsePair *pairs, int64_t n);

/*
 * y[0..k-1] = sum over pairs of clamp(value) * P_(attr - 1), summed in the
 * order of the pairs (sorted: attribute order), with values clamped to
 * [-limit, limit] (pass INFINITY for none).  P is the dense d x k matrix
 * when the caller has one (attr <= its d), or NULL: then each row is
 * generated from the key into rowbuf (k doubles).  The identity kind
 * adds each value to its own coordinate (attr <= k), whatever P is.
 */
void		jl_sparse_project(const JlSparsePair *pairs, int64_t n,
							  const uint8_t key[JL_KEY_BYTES], JlKind kind,
							  int k, const double *P, double *rowbuf,
							  double limit, double *y);

/*
 * The same with a compensated dot product per coordinate (fma products,
 * two-sum accumulation), as jl_project_vec_compensated; cbuf: k doubles.
 */
void		jl_sparse_project_compensated(const JlSparsePair *pairs, int64_t n,
										  const uint8_t key[JL_KEY_BYTES],
										  JlKind kind, int k, const double *P,
										  double *rowbuf, double limit,
										  double *cbuf, double *y);

/*
 * jl_row_class for the sparse row: the dense row of dimension m->d
 * with these nonzero entries gets the same answer (zeros add nothing to its
 * L1 norm, and the bounds are those of d terms, an upper bound for n).
 */
int			jl_sparse_row_class(const JlMechanism *m, const JlSparsePair *pairs,
								int64_t n);

/* Statistics of P streamed over its rows. */
typedef struct JlStreamStats
{
	double		max_abs;		/* max |P_ij| */
	double		max_row_l1;		/* jl_max_row_l1 over the rows seen */
	double		max_row_l2;		/* jl_max_row_l2 over the rows seen */
} JlStreamStats;

/*
 * Rows first .. first + n - 1 of P, generated into buf (n * k doubles):
 * fold them into st (max_abs and max_row_l1 start at 0), and when G is not
 * NULL add their Gram matrix to the upper triangle of G (k x k).  Over all d
 * rows, st equals jl_max_abs / jl_max_row_l1 / jl_max_row_l2 of the dense
 * P exactly, and G
 * is P^T P with the same error bound as a single dsyrk.
 */
void		jl_stream_rows(const uint8_t key[JL_KEY_BYTES], JlKind kind, int k,
						   int64_t first, int64_t n, double *buf,
						   JlStreamStats *st, double *G);



#endif
