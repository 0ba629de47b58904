/*
 * linear_fit.c - the aggregate jl_linear_fit (least squares or ridge of
 * label vectors on feature vectors from sufficient statistics, parallel
 * through its combine function) and jl_linear_predict.
 *
 * The state holds the statistics of math/analytics/linear_fit.h and a buffer of rows
 * merged a batch at a time (BLAS level 3).  The serialised state is one
 * flat bytea, checked field by field on the way back in.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "math/analytics/linear_fit.h"

#include "pg/engines/agg_state.h"
#include "pg/common/arrays.h"
#include "pg/api/analytics/linear_fit.h"
#include "pg/common/options.h"

PG_FUNCTION_INFO_V1(jl_linear_fit_trans);
PG_FUNCTION_INFO_V1(jl_linear_fit_options_trans);
PG_FUNCTION_INFO_V1(jl_linear_options_checked);
PG_FUNCTION_INFO_V1(jl_linear_fit_combine);
PG_FUNCTION_INFO_V1(jl_linear_fit_serialize);
PG_FUNCTION_INFO_V1(jl_linear_fit_deserialize);
PG_FUNCTION_INFO_V1(jl_linear_fit_final);
PG_FUNCTION_INFO_V1(jl_linear_fit_intercept_final);
PG_FUNCTION_INFO_V1(jl_linear_predict);

#define LF_MAGIC 0x6a6c6c66		/* "jllf" */
#define LF_VERSION 1
/* rows merged at once, and at most this many doubles in the buffer */
#define LF_BATCH 128
#define LF_BUFFER_DOUBLES (1 << 19)

typedef struct LinFitState
{
	int32		d;
	int32		m;
	bool		intercept;
	double		ridge;
	JlLinStats	st;
	double	   *stats;			/* the arrays of st */
	double	   *bx;				/* cap x d buffered rows */
	double	   *by;				/* cap x m */
	double	   *work;			/* 2 (d + m) */
	int			nb;
	int			cap;
} LinFitState;

static void
check_sizes(int d, int m)
{
	if (d > JL_LIN_MAX_D || m > JL_LIN_MAX_D ||
		(double) d * ((double) d + m) > JL_LIN_MAX_DOUBLES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("jl_linear_fit of %d features and %d labels is too large", d, m),
				 errdetail("The statistics hold d (d + m) numbers; at most %d are allowed.",
						   JL_LIN_MAX_DOUBLES)));
}

static LinFitState *
state_new(MemoryContext cxt, int d, int m, double ridge, bool intercept)
{
	LinFitState *s;

	check_sizes(d, m);
	s = MemoryContextAllocZero(cxt, sizeof(LinFitState));
	s->d = d;
	s->m = m;
	s->ridge = ridge;
	s->intercept = intercept;
	s->stats = MemoryContextAllocHuge(cxt, jl_lin_stats_doubles(d, m) * sizeof(double));
	jl_lin_stats_init(&s->st, d, m, s->stats);
	s->cap = Max(1, Min(LF_BATCH, LF_BUFFER_DOUBLES / (d + m)));
	s->bx = MemoryContextAlloc(cxt, mul_size(sizeof(double), mul_size(s->cap, d)));
	s->by = MemoryContextAlloc(cxt, mul_size(sizeof(double), mul_size(s->cap, m)));
	s->work = MemoryContextAlloc(cxt, sizeof(double) * 2 * ((Size) d + m));
	return s;
}

static void
flush(LinFitState *s)
{
	if (s->nb > 0)
	{
		jl_lin_stats_add_batch(&s->st, s->bx, s->by, s->nb, s->work);
		s->nb = 0;
	}
}

static void
check_ridge(double ridge)
{
	if (!(ridge >= 0.0) || isinf(ridge))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ridge must be a finite number >= 0, not %g", ridge)));
}

/* add the row (x, y) of arguments 1 and 2 to the group's fit */
static Datum
lf_trans(FunctionCallInfo fcinfo, double ridge, bool intercept)
{
	MemoryContext cxt = jl_agg_context(fcinfo, "jl_linear_fit");
	LinFitState *s = PG_ARGISNULL(0) ? NULL : (LinFitState *) PG_GETARG_POINTER(0);
	double	   *x,
			   *y;
	int			d,
				m;

	/* rows with a NULL x or y are skipped, as count(x) skips them */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		if (s == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s);
	}
	x = jl_array_vector(PG_GETARG_ARRAYTYPE_P(1), "x", &d);
	y = jl_array_vector(PG_GETARG_ARRAYTYPE_P(2), "y", &m);
	if (s == NULL)
		s = state_new(cxt, d, m, ridge, intercept);
	else
	{
		if (d != s->d || m != s->m)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("jl_linear_fit rows must all have the same lengths"),
					 errdetail("This row has %d features and %d labels, the first had %d and %d.",
							   d, m, s->d, s->m)));
		if (ridge != s->ridge || intercept != s->intercept)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ridge and intercept must be the same for every row of a jl_linear_fit group")));
	}
	memcpy(s->bx + (Size) s->nb * d, x, sizeof(double) * d);
	memcpy(s->by + (Size) s->nb * m, y, sizeof(double) * m);
	if (++s->nb == s->cap)
		flush(s);
	PG_RETURN_POINTER(s);
}

/* 0.5's overloads: (state, x, y [, ridge [, intercept]]) */
Datum
jl_linear_fit_trans(PG_FUNCTION_ARGS)
{
	double		ridge = 0.0;
	bool		intercept = true;

	if (PG_NARGS() > 3)
	{
		if (PG_ARGISNULL(3))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("ridge must not be NULL")));
		ridge = PG_GETARG_FLOAT8(3);
		check_ridge(ridge);
	}
	if (PG_NARGS() > 4)
	{
		if (PG_ARGISNULL(4))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("intercept must not be NULL")));
		intercept = PG_GETARG_BOOL(4);
	}
	return lf_trans(fcinfo, ridge, intercept);
}

/* a jl_linear_options value: (ridge, intercept) */
static void
lf_read_options(Datum options, double *ridge, bool *intercept)
{
	static const char *const names[] = {"ridge", "intercept"};
	Datum		v[2];

	jl_option_fields(options, "jl_linear_options", names, 2, v);
	*ridge = DatumGetFloat8(v[0]);
	*intercept = DatumGetBool(v[1]);
	check_ridge(*ridge);
}

/* (state, x, y, jl_linear_options) */
Datum
jl_linear_fit_options_trans(PG_FUNCTION_ARGS)
{
	double		ridge;
	bool		intercept;

	jl_require_arg(fcinfo, 3, "options");
	lf_read_options(PG_GETARG_DATUM(3), &ridge, &intercept);
	return lf_trans(fcinfo, ridge, intercept);
}

Datum
jl_linear_options_checked(PG_FUNCTION_ARGS)
{
	double		ridge;
	bool		intercept;

	jl_require_arg(fcinfo, 0, "options");
	lf_read_options(PG_GETARG_DATUM(0), &ridge, &intercept);
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

Datum
jl_linear_fit_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = jl_agg_context(fcinfo, "jl_linear_fit_combine");
	LinFitState *a = PG_ARGISNULL(0) ? NULL : (LinFitState *) PG_GETARG_POINTER(0);
	LinFitState *b = PG_ARGISNULL(1) ? NULL : (LinFitState *) PG_GETARG_POINTER(1);

	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	flush(b);
	if (a == NULL)
	{
		/* a copy in the aggregate's context */
		a = state_new(cxt, b->d, b->m, b->ridge, b->intercept);
		jl_lin_stats_combine(&a->st, &b->st, a->work);
		PG_RETURN_POINTER(a);
	}
	if (a->d != b->d || a->m != b->m || a->ridge != b->ridge ||
		a->intercept != b->intercept)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("jl_linear_fit cannot combine states of different sizes, ridge or intercept")));
	flush(a);
	jl_lin_stats_combine(&a->st, &b->st, a->work);
	PG_RETURN_POINTER(a);
}

typedef struct LinFitHeader
{
	uint32		magic;
	uint32		version;
	int32		d;
	int32		m;
	int32		intercept;
	int32		pad;
	double		ridge;
	int64		n;
} LinFitHeader;

Datum
jl_linear_fit_serialize(PG_FUNCTION_ARGS)
{
	LinFitState *s = (LinFitState *) PG_GETARG_POINTER(0);
	Size		nd,
				len;
	bytea	   *out;
	LinFitHeader h;

	flush(s);
	nd = jl_lin_stats_doubles(s->d, s->m);
	len = add_size(VARHDRSZ + sizeof(LinFitHeader), mul_size(nd, sizeof(double)));
	out = (bytea *) palloc_extended(len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(out, len);
	memset(&h, 0, sizeof(h));
	h.magic = LF_MAGIC;
	h.version = LF_VERSION;
	h.d = s->d;
	h.m = s->m;
	h.intercept = s->intercept ? 1 : 0;
	h.ridge = s->ridge;
	h.n = s->st.n;
	memcpy(VARDATA(out), &h, sizeof(h));
	memcpy(VARDATA(out) + sizeof(h), s->stats, nd * sizeof(double));
	PG_RETURN_BYTEA_P(out);
}

Datum
jl_linear_fit_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = jl_agg_context(fcinfo, "jl_linear_fit_deserialize");
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	Size		len = VARSIZE_ANY_EXHDR(in);
	const char *p = VARDATA_ANY(in);
	LinFitHeader h;
	LinFitState *s;
	Size		nd,
				i;

	if (len < sizeof(h))
		goto bad;
	memcpy(&h, p, sizeof(h));
	if (h.magic != LF_MAGIC || h.version != LF_VERSION || h.d < 1 || h.m < 1 ||
		h.d > JL_LIN_MAX_D || h.m > JL_LIN_MAX_D || h.n < 0 ||
		(h.intercept != 0 && h.intercept != 1) || !(h.ridge >= 0.0) || isinf(h.ridge))
		goto bad;
	check_sizes(h.d, h.m);
	nd = jl_lin_stats_doubles(h.d, h.m);
	if (len != sizeof(h) + nd * sizeof(double))
		goto bad;
	s = state_new(cxt, h.d, h.m, h.ridge, h.intercept != 0);
	memcpy(s->stats, p + sizeof(h), nd * sizeof(double));
	for (i = 0; i < nd; i++)
		if (!isfinite(s->stats[i]))
			goto bad;
	s->st.n = h.n;
	PG_RETURN_POINTER(s);
bad:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid jl_linear_fit state")));
	PG_RETURN_NULL();
}

/* the coefficients and intercept of the state's fit, palloc'd */
static void
solve(LinFitState *s, double **W, double **b)
{
	int			rank;
	JlLinStatus st;

	flush(s);
	for (Size i = 0; i < jl_lin_stats_doubles(s->d, s->m); i++)
		if (!isfinite(s->stats[i]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("jl_linear_fit: the sums of squares of the group overflow"),
					 errdetail("Values of magnitude 1e154 or more, or very many large ones, have squares beyond double precision."),
					 errhint("Rescale the features and labels.")));
	*W = palloc_extended(mul_size(sizeof(double), mul_size(s->d, s->m)), MCXT_ALLOC_HUGE);
	*b = palloc(sizeof(double) * s->m);
	st = jl_lin_solve(&s->st, s->ridge, s->intercept, *W, *b, &rank);
	if (st == JL_LIN_NO_MEMORY)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory solving jl_linear_fit")));
	if (st != JL_LIN_OK)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("LAPACK could not solve jl_linear_fit"),
				 errhint("Rescale the features and labels.")));
}

Datum
jl_linear_fit_final(PG_FUNCTION_ARGS)
{
	LinFitState *s;
	double	   *W,
			   *b;

	jl_agg_context(fcinfo, "jl_linear_fit");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (LinFitState *) PG_GETARG_POINTER(0);
	/* the rows still buffered count: a group smaller than a batch has only those */
	flush(s);
	if (s->st.n == 0)
		PG_RETURN_NULL();
	solve(s, &W, &b);
	PG_RETURN_ARRAYTYPE_P(jl_matrix_array(W, s->d, s->m));
}

Datum
jl_linear_fit_intercept_final(PG_FUNCTION_ARGS)
{
	LinFitState *s;
	double	   *W,
			   *b;

	jl_agg_context(fcinfo, "jl_linear_fit_intercept");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (LinFitState *) PG_GETARG_POINTER(0);
	/* the rows still buffered count: a group smaller than a batch has only those */
	flush(s);
	if (s->st.n == 0)
		PG_RETURN_NULL();
	solve(s, &W, &b);
	PG_RETURN_ARRAYTYPE_P(jl_vector_array(b, s->m));
}

ArrayType *
jl_matrix_array(const double *M, int rows, int cols)
{
	ArrayType  *a;
	Size		nbytes = add_size(ARR_OVERHEAD_NONULLS(2),
								  mul_size(sizeof(double), mul_size(rows, cols)));

	a = (ArrayType *) palloc_extended(nbytes, MCXT_ALLOC_HUGE);
	SET_VARSIZE(a, nbytes);
	a->ndim = 2;
	a->dataoffset = 0;
	a->elemtype = FLOAT8OID;
	ARR_DIMS(a)[0] = rows;
	ARR_DIMS(a)[1] = cols;
	ARR_LBOUND(a)[0] = 1;
	ARR_LBOUND(a)[1] = 1;
	memcpy(ARR_DATA_PTR(a), M, sizeof(double) * (Size) rows * cols);
	return a;
}

double *
jl_matrix_read(ArrayType *a, const char *what, int *rows, int *cols)
{
	double	   *v;
	int			n,
				i;

	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s must be an array of double precision", what)));
	if (ARR_NDIM(a) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must not be empty", what)));
	if (ARR_NDIM(a) != 2)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a two-dimensional array (d rows, one column per output), not %d-dimensional",
						what, ARR_NDIM(a)),
				 errhint("A model with one output is written ARRAY[[a1],[a2],...].")));
	if (array_contains_nulls(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not contain NULL elements", what)));
	*rows = ARR_DIMS(a)[0];
	*cols = ARR_DIMS(a)[1];
	if (*rows > JL_LIN_MAX_D || *cols > JL_LIN_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s has too many rows or columns (at most %d each)", what, JL_LIN_MAX_D)));
	n = *rows * *cols;
	v = (double *) ARR_DATA_PTR(a);
	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s must contain only finite numbers", what),
					 errdetail("Element [%d][%d] is %s.", i / *cols + ARR_LBOUND(a)[0],
							   i % *cols + ARR_LBOUND(a)[1],
							   isnan(v[i]) ? "NaN" : (v[i] > 0 ? "Infinity" : "-Infinity"))));
	return v;
}

/* jl_linear_predict(x, coef [, intercept]): coef^T x + intercept */
Datum
jl_linear_predict(PG_FUNCTION_ARGS)
{
	double	   *x,
			   *W,
			   *b = NULL,
			   *y;
	int			d,
				rows,
				m,
				mb,
				i,
				j;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	x = jl_array_vector(PG_GETARG_ARRAYTYPE_P(0), "x", &d);
	W = jl_matrix_read(PG_GETARG_ARRAYTYPE_P(1), "coef", &rows, &m);
	if (rows != d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("coef has %d rows but x has %d elements", rows, d)));
	if (PG_NARGS() > 2 && !PG_ARGISNULL(2))
	{
		b = jl_array_vector(PG_GETARG_ARRAYTYPE_P(2), "intercept", &mb);
		if (mb != m)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("intercept has %d elements but coef has %d columns", mb, m)));
	}
	y = palloc(sizeof(double) * m);
	for (j = 0; j < m; j++)
		y[j] = b ? b[j] : 0.0;
	for (i = 0; i < d; i++)
		for (j = 0; j < m; j++)
			y[j] += W[(Size) i * m + j] * x[i];
	PG_RETURN_ARRAYTYPE_P(jl_vector_array(y, m));
}
