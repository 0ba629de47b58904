/*
 * linear_fit.h - models as float8[][] (d rows, one column per output),
 * shared by jl_linear_fit and null-space cleaning.
 */
#ifndef JLDP_PG_LINEAR_FIT_H
#define JLDP_PG_LINEAR_FIT_H

#include "postgres.h"

#include "utils/array.h"

/* at most this many features or outputs, and doubles of statistics */
#define JL_LIN_MAX_D 65536
#define JL_LIN_MAX_DOUBLES (1 << 25)

/* A float8[rows][cols] of the row-major M. */
extern ArrayType *jl_matrix_array(const double *M, int rows, int cols);

/*
 * The row-major elements of a non-empty two-dimensional float8[] without
 * NULLs or non-finite values (pointing into a; ERROR naming it "what").
 */
extern double *jl_matrix_read(ArrayType *a, const char *what, int *rows,
							  int *cols);

#endif
