/*
 * encode.c - how a protected table's attributes are read: the SQL
 * functions the pipeline's query (declaration.c) applies to each column,
 * the one place where values are clamped to their declared bounds and
 * mapped to [0, weight].  Every value, NULL and NaN included, encodes to a
 * finite number within its coordinate's range, so that no row can fail
 * after the charge or move the sketch more than the declaration says.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pg/common/arrays.h"
#include "pg/common/options.h"

/* x clamped to [lo, hi], mapped to [0, w]; NaN reads as lo */
static double
encode(double x, double lo, double hi, double w)
{
	double		v;

	if (isnan(x))
		return 0.0;
	x = x < lo ? lo : (x > hi ? hi : x);
	v = (x - lo) / (hi - lo) * w;
	/* rounding is monotone, so v is within [0, w]; kept there regardless */
	return v < 0.0 ? 0.0 : (v > w ? w : v);
}

/* the declared range the pipeline passes, or ERROR */
static void
check_range(const char *fn, double lo, double hi, double w)
{
	if (!(lo < hi && w > 0.0 && isfinite(hi - lo) && isfinite(w)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s needs finite lo < hi and weight > 0", fn)));
}

/* the constant arguments the pipeline passes: never NULL */
static double
constant(FunctionCallInfo fcinfo, int n, const char *name)
{
	jl_require_arg(fcinfo, n, name);
	return PG_GETARG_FLOAT8(n);
}

/* jl_encode_number(x float8, lo float8, hi float8, weight float8) */
PG_FUNCTION_INFO_V1(jl_encode_number);
Datum
jl_encode_number(PG_FUNCTION_ARGS)
{
	double		lo = constant(fcinfo, 1, "lo"),
				hi = constant(fcinfo, 2, "hi"),
				w = constant(fcinfo, 3, "weight");

	check_range("jl_encode_number", lo, hi, w);
	if (PG_ARGISNULL(0))
		PG_RETURN_FLOAT8(0.0);
	PG_RETURN_FLOAT8(encode(PG_GETARG_FLOAT8(0), lo, hi, w));
}

/*
 * The text of x as its type's output function writes it: no cast, which
 * the type's owner could define to run code of theirs for every row.
 */
static char *
output_text(FunctionCallInfo fcinfo, Datum x)
{
	FmgrInfo   *out = (FmgrInfo *) fcinfo->flinfo->fn_extra;

	if (out == NULL)
	{
		Oid			type = get_fn_expr_argtype(fcinfo->flinfo, 0);
		Oid			func;
		bool		varlena;

		if (!OidIsValid(type))
			elog(ERROR, "jl_encode_category: the type of x is unknown");
		getTypeOutputInfo(type, &func, &varlena);
		out = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(FmgrInfo));
		fmgr_info_cxt(func, out, fcinfo->flinfo->fn_mcxt);
		fcinfo->flinfo->fn_extra = out;
	}
	return OutputFunctionCall(out, x);
}

/* jl_encode_category(x anyelement, categories text[], weight float8) */
PG_FUNCTION_INFO_V1(jl_encode_category);
Datum
jl_encode_category(PG_FUNCTION_ARGS)
{
	ArrayType  *cats;
	Datum	   *elems;
	bool	   *nulls;
	double	   *out;
	double		w;
	int			n,
				i;

	jl_require_arg(fcinfo, 1, "categories");
	w = constant(fcinfo, 2, "weight");
	if (!(w > 0.0 && isfinite(w)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("jl_encode_category needs a finite weight > 0")));
	cats = PG_GETARG_ARRAYTYPE_P(1);
	if (ARR_ELEMTYPE(cats) != TEXTOID || ARR_NDIM(cats) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("categories must be a one-dimensional text[]")));
	deconstruct_array(cats, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	out = palloc0(sizeof(double) * Max(n, 1));
	if (!PG_ARGISNULL(0))
	{
		char	   *x = output_text(fcinfo, PG_GETARG_DATUM(0));
		size_t		len = strlen(x);

		for (i = 0; i < n; i++)
			if (!nulls[i] && len == VARSIZE_ANY_EXHDR(DatumGetPointer(elems[i])) &&
				memcmp(x, VARDATA_ANY(DatumGetPointer(elems[i])), len) == 0)
			{
				out[i] = w;
				break;
			}
	}
	PG_RETURN_ARRAYTYPE_P(jl_vector_array(out, n));
}

/* jl_encode_vector(x float8[], length int, lo float8, hi float8, weight float8) */
PG_FUNCTION_INFO_V1(jl_encode_vector);
Datum
jl_encode_vector(PG_FUNCTION_ARGS)
{
	double		lo = constant(fcinfo, 2, "lo"),
				hi = constant(fcinfo, 3, "hi"),
				w = constant(fcinfo, 4, "weight");
	int			len,
				n = 0,
				i;
	Datum	   *elems = NULL;
	bool	   *nulls = NULL;
	double	   *out;

	jl_require_arg(fcinfo, 1, "length");
	len = PG_GETARG_INT32(1);
	check_range("jl_encode_vector", lo, hi, w);
	if (len < 1 || len > 1000000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("jl_encode_vector needs a length of 1 to 1000000")));
	if (!PG_ARGISNULL(0))
	{
		ArrayType  *x = PG_GETARG_ARRAYTYPE_P(0);

		if (ARR_ELEMTYPE(x) != FLOAT8OID)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("jl_encode_vector reads float8[]")));
		deconstruct_array(x, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &nulls, &n);
	}
	out = palloc(sizeof(double) * len);
	for (i = 0; i < len; i++)
		out[i] = (i < n && !nulls[i]) ? encode(DatumGetFloat8(elems[i]), lo, hi, w) : 0.0;
	PG_RETURN_ARRAYTYPE_P(jl_vector_array(out, len));
}
