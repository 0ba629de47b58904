/*
 * arrays.h - float8[] arguments read and checked, and results built.
 */
#ifndef JLDP_PG_ARRAYS_H
#define JLDP_PG_ARRAYS_H

#include "postgres.h"

#include "utils/array.h"

/*
 * Check a 1-D array of elemtype without NULLs (ERROR naming it "what");
 * returns its length.
 */
extern int	jl_array_check(ArrayType *a, Oid elemtype, const char *what);

/* The finite float8 elements of a, checked as jl_array_check; *n its length. */
extern double *jl_array_vector(ArrayType *a, const char *what, int *n);

/* A float8[] of v[0..n-1]. */
extern ArrayType *jl_vector_array(const double *v, int n);

/* ERROR unless 1 <= k <= JL_MAX_K. */
extern void jl_check_k(int32 k);

#endif
