/*
 * arrays.c - reading and building float8[] vectors, with the checks every
 * entry point shares.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "math/base/fp.h"
#include "math/projection/projection.h"
#include "pg/common/arrays.h"

/*
 * The length of a one-dimensional, non-empty array of elemtype without
 * NULLs; any other array is an error.
 */
int
jl_array_check(ArrayType *a, Oid elemtype, const char *what)
{
	if (ARR_ELEMTYPE(a) != elemtype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s must be an array of %s", what, format_type_be(elemtype))));
	if (ARR_NDIM(a) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must not be empty", what)));
	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be one-dimensional, not %d-dimensional",
						what, ARR_NDIM(a))));
	if (array_contains_nulls(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not contain NULL elements", what)));
	return ARR_DIMS(a)[0];
}

/*
 * The elements of a one-dimensional float8[] without NULLs, NaN or infinity.
 * Returns a pointer into the array's data (no copy); *n is its length.
 */
double *
jl_array_vector(ArrayType *a, const char *what, int *n)
{
	double	   *v;
	int			i,
				len;

	len = jl_array_check(a, FLOAT8OID, what);
	v = (double *) ARR_DATA_PTR(a);
	if (!jl_all_finite(v, len))
	{
		for (i = 0; i < len && isfinite(v[i]); i++)
			;
		ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s must contain only finite numbers", what),
					 errdetail("Element %d is %s.", i + ARR_LBOUND(a)[0],
							   isnan(v[i]) ? "NaN" :
							   (v[i] > 0 ? "Infinity" : "-Infinity"))));
	}
	/* an array's length is an int: never beyond JL_MAX_D */
	StaticAssertStmt(JL_MAX_D >= PG_INT32_MAX, "every array length is a valid d");
	*n = len;
	return v;
}

void
jl_check_column_type(TupleDesc td, int col, Oid type, Oid rel)
{
	Form_pg_attribute att = TupleDescAttr(td, col - 1);

	if (att->atttypid != type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of %s is of type %s, not %s",
						NameStr(att->attname), get_rel_name(rel),
						format_type_be(att->atttypid), format_type_be(type)),
				 errhint("The release's table has been altered: release again, or restore the column's type.")));
}

/* A float8[] of n elements, copied from v, or uninitialised when v is NULL. */
ArrayType *
jl_vector_array(const double *v, int n)
{
	ArrayType  *a;
	Size		nbytes = add_size(ARR_OVERHEAD_NONULLS(1),
								  mul_size(sizeof(double), n));

	a = (ArrayType *) palloc(nbytes);
	SET_VARSIZE(a, nbytes);
	a->ndim = 1;
	a->dataoffset = 0;
	a->elemtype = FLOAT8OID;
	ARR_DIMS(a)[0] = n;
	ARR_LBOUND(a)[0] = 1;
	if (v != NULL)
		memcpy(ARR_DATA_PTR(a), v, sizeof(double) * n);
	return a;
}

void
jl_check_k(int32 k)
{
	if (k < 1 || k > JL_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("k must be between 1 and %d, not %d", JL_MAX_K, k)));
}
