/*
 * arrays.h - float8[] arguments read and checked, and results built.
 */
#ifndef JLDP_PG_ARRAYS_H
#define JLDP_PG_ARRAYS_H

#include "postgres.h"

#include "catalog/pg_type.h"
#include "access/tupdesc.h"
#include "utils/array.h"

/*
 * Check a 1-D array of elemtype without NULLs (ERROR naming it "what");
 * returns its length.
 */
extern int	jl_array_check(ArrayType *a, Oid elemtype, const char *what);

/* The finite float8 elements of a, checked as jl_array_check; *n its length. */
extern double *jl_array_vector(ArrayType *a, const char *what, int *n);

/*
 * The elements of a float8[] datum read in place when it is stored plainly
 * (in line, uncompressed, 4-byte header), one-dimensional, non-empty and
 * without a NULL bitmap; *n is its length.  NULL for any other datum, which
 * the caller reads with jl_array_vector.  Finiteness is not checked: a hot
 * caller can let its own sum check it (a sum of products or squared
 * differences is finite only if every element involved is) and call
 * jl_array_vector when the sum is not finite.
 */
static inline const double *
jl_array_plain_float8(Datum d, int *n)
{
	ArrayType  *a = (ArrayType *) DatumGetPointer(d);

	if (!VARATT_IS_4B_U(a) || ARR_NDIM(a) != 1 || ARR_HASNULL(a) ||
		ARR_ELEMTYPE(a) != FLOAT8OID || ARR_DIMS(a)[0] < 1)
		return NULL;
	*n = ARR_DIMS(a)[0];
	return (const double *) ARR_DATA_PTR(a);
}

/*
 * A hint for a function called on every row of a sequential scan: fetch
 * into the cache the bytes just below the datum d, where the next row of
 * the page usually is (a page's tuples are stored from its end downwards in
 * the order they were inserted, and the scan returns them in that order),
 * so that its cache misses overlap this call instead of stalling the next
 * one.  About as many bytes as d itself, at most 1 kB.  A prefetch never
 * faults and changes no result; a wrong guess costs a few cycles.
 */
static inline void
jl_prefetch_next_row(Datum d)
{
#ifdef __GNUC__
	uintptr_t	p = (uintptr_t) DatumGetPointer(d);
	Size		n = Min(VARSIZE_ANY(DatumGetPointer(d)), 1024) + 128;
	Size		off;

	for (off = 64; off < n; off += 64)
		__builtin_prefetch((const void *) (p - off));
#endif
}

/*
 * ERROR (42804) unless column col (1-based) of the tuple descriptor td has
 * type type: checked before any value of a release's table is read back,
 * since the table's owner may have altered its columns (a bytea holding a
 * forged array header would otherwise be read as an array).
 */
extern void jl_check_column_type(TupleDesc td, int col, Oid type, Oid rel);

/* A float8[] of v[0..n-1]. */
extern ArrayType *jl_vector_array(const double *v, int n);

/* ERROR unless 1 <= k <= JL_MAX_K. */
extern void jl_check_k(int32 k);

#endif
