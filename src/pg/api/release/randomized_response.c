/*
 * randomized_response.c - SQL entry points of randomized response for 0/1 data (float8[],
 * boolean[] and bit varying) and of its distance recovery.
 *
 * No key is involved: a caller only perturbs or compares data it already
 * has, so these are executable by everyone.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/varbit.h"

#include "math/noise/randomized_response.h"

#include "pg/common/arrays.h"
#include "pg/keys/strong_random.h"

PG_FUNCTION_INFO_V1(jl_randomized_response);
PG_FUNCTION_INFO_V1(jl_randomized_response_bool);
PG_FUNCTION_INFO_V1(jl_randomized_response_bits);
PG_FUNCTION_INFO_V1(jl_rr_flip_probability_sql);
PG_FUNCTION_INFO_V1(jl_recover_dist_rr);
PG_FUNCTION_INFO_V1(jl_recover_dist_rr_bool);
PG_FUNCTION_INFO_V1(jl_recover_dist_rr_bits);
PG_FUNCTION_INFO_V1(jl_recover_dist_rr_stddev);
PG_FUNCTION_INFO_V1(jl_recover_dist_rr_stddev_bool);
PG_FUNCTION_INFO_V1(jl_recover_dist_rr_stddev_bits);

static void
read_epsilon(double epsilon, JlRR *rr)
{
	if (!jl_rr_setup(rr, epsilon))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a finite number > 0")));
}

static double
read_p(double p)
{
	if (!(p >= 0.0 && p < 0.5))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("flip probability p must be in [0, 0.5), not %g", p),
				 errhint("p is jl_rr_flip_probability(epsilon) of the release.")));
	return p;
}

/* The elements of a float8[] of 0/1 values. */
static double *
bits_doubles(ArrayType *a, const char *what, int *n)
{
	double	   *v;
	int			i;

	*n = jl_array_check(a, FLOAT8OID, what);
	v = (double *) ARR_DATA_PTR(a);
	for (i = 0; i < *n; i++)
		if (!(v[i] == 0.0 || v[i] == 1.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s must contain only 0 and 1", what),
					 errdetail("Element %d is %g.", i + ARR_LBOUND(a)[0], v[i]),
					 errhint("Randomized response applies to 0/1 data; "
							 "use jl_private_release for other values.")));
	return v;
}

static void
same_length(int64 na, int64 nb)
{
	if (na != nb)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("vectors have different lengths " INT64_FORMAT " and " INT64_FORMAT,
						na, nb)));
}

Datum
jl_randomized_response(PG_FUNCTION_ARGS)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P_COPY(0);
	JlRR		rr;
	double	   *v;
	int			n;

	read_epsilon(PG_GETARG_FLOAT8(1), &rr);
	v = bits_doubles(a, "bits", &n);
	jl_rr_flip_doubles(jl_strong_random(), &rr, v, n);
	PG_RETURN_ARRAYTYPE_P(a);
}

Datum
jl_randomized_response_bool(PG_FUNCTION_ARGS)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P_COPY(0);
	JlRR		rr;
	int			n;

	read_epsilon(PG_GETARG_FLOAT8(1), &rr);
	n = jl_array_check(a, BOOLOID, "bits");
	/* a bool element is one byte, 0 or 1 */
	jl_rr_flip_bytes(jl_strong_random(), &rr, (uint8 *) ARR_DATA_PTR(a), n);
	PG_RETURN_ARRAYTYPE_P(a);
}

Datum
jl_randomized_response_bits(PG_FUNCTION_ARGS)
{
	VarBit	   *b = PG_GETARG_VARBIT_P_COPY(0);
	JlRR		rr;

	read_epsilon(PG_GETARG_FLOAT8(1), &rr);
	if (VARBITLEN(b) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("bits must not be empty")));
	jl_rr_flip_bitstring(jl_strong_random(), &rr, VARBITS(b), VARBITLEN(b));
	PG_RETURN_VARBIT_P(b);
}

Datum
jl_rr_flip_probability_sql(PG_FUNCTION_ARGS)
{
	JlRR		rr;

	read_epsilon(PG_GETARG_FLOAT8(0), &rr);
	PG_RETURN_FLOAT8(rr.p);
}

/* Hamming distance and length of arguments 0 and 1 of a recovery call. */
static void
hamming_doubles(FunctionCallInfo fcinfo, double *h, double *d)
{
	double	   *a,
			   *b;
	int			na,
				nb,
				i;
	int64		diff = 0;

	a = bits_doubles(PG_GETARG_ARRAYTYPE_P(0), "a", &na);
	b = bits_doubles(PG_GETARG_ARRAYTYPE_P(1), "b", &nb);
	same_length(na, nb);
	for (i = 0; i < na; i++)
		diff += (a[i] != b[i]);
	*h = (double) diff;
	*d = na;
}

static void
hamming_bool(FunctionCallInfo fcinfo, double *h, double *d)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *b = PG_GETARG_ARRAYTYPE_P(1);
	int			na = jl_array_check(a, BOOLOID, "a");
	int			nb = jl_array_check(b, BOOLOID, "b");
	const bool *va = (const bool *) ARR_DATA_PTR(a);
	const bool *vb = (const bool *) ARR_DATA_PTR(b);
	int64		diff = 0;
	int			i;

	same_length(na, nb);
	for (i = 0; i < na; i++)
		diff += (va[i] != vb[i]);
	*h = (double) diff;
	*d = na;
}

static void
hamming_bits(FunctionCallInfo fcinfo, double *h, double *d)
{
	VarBit	   *a = PG_GETARG_VARBIT_P(0);
	VarBit	   *b = PG_GETARG_VARBIT_P(1);

	same_length(VARBITLEN(a), VARBITLEN(b));
	if (VARBITLEN(a) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("bit strings must not be empty")));
	/* the pad bits of a bit string are zero */
	*h = (double) jl_hamming_bytes(VARBITS(a), VARBITS(b), VARBITBYTES(a));
	*d = VARBITLEN(a);
}

typedef void (*HammingFn) (FunctionCallInfo fcinfo, double *h, double *d);

static Datum
recover(FunctionCallInfo fcinfo, HammingFn hamming, bool stddev)
{
	double		p = read_p(PG_GETARG_FLOAT8(2));
	double		h,
				d;

	hamming(fcinfo, &h, &d);
	if (stddev)
		PG_RETURN_FLOAT8(sqrt(jl_rr_variance(d, p)));
	PG_RETURN_FLOAT8(jl_rr_recover_sqdist(h, d, p));
}

Datum
jl_recover_dist_rr(PG_FUNCTION_ARGS)
{
	return recover(fcinfo, hamming_doubles, false);
}

Datum
jl_recover_dist_rr_bool(PG_FUNCTION_ARGS)
{
	return recover(fcinfo, hamming_bool, false);
}

Datum
jl_recover_dist_rr_bits(PG_FUNCTION_ARGS)
{
	return recover(fcinfo, hamming_bits, false);
}

Datum
jl_recover_dist_rr_stddev(PG_FUNCTION_ARGS)
{
	return recover(fcinfo, hamming_doubles, true);
}

Datum
jl_recover_dist_rr_stddev_bool(PG_FUNCTION_ARGS)
{
	return recover(fcinfo, hamming_bool, true);
}

Datum
jl_recover_dist_rr_stddev_bits(PG_FUNCTION_ARGS)
{
	return recover(fcinfo, hamming_bits, true);
}
