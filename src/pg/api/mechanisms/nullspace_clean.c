/*
 * nullspace_clean.c - SQL entry points of null-space cleaning:
 * jl_nullspace_clean(x, a_desired, utility_error [, method]) (Algorithm 1)
 * and jl_nullspace_clean(x, a_desired, a_confidential, utility_error)
 * (Algorithm 2).  The model's decomposition comes from the per-backend
 * cache; each call site also remembers the model arguments as they were
 * passed (before detoasting), so a table cleaned against one model reads
 * and hashes the model once, not once per row; a model that is a constant
 * in the query is compared in full once, then by its address.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "math/nullspace/nullspace_model.h"

#include "pg/common/arrays.h"
#include "pg/api/analytics/linear_fit.h"
#include "pg/common/messages.h"
#include "pg/engines/nullspace_cache.h"
#include "pg/common/options.h"

PG_FUNCTION_INFO_V1(jl_nullspace_clean);
PG_FUNCTION_INFO_V1(jl_nullspace_clean_confidential);

typedef struct NsCallSite
{
	int			method;
	char	   *raw[2];			/* the model arguments' bytes as passed */
	Size		rawlen[2];
	const char *constptr[2];	/* a Const argument's bytes, once matched */
	uint64		id;				/* the cache entry */
	int			d;
	double	   *scratch;
	int		   *iscratch;
	Size		nscratch;
	Size		niscratch;
} NsCallSite;

/*
 * The bytes by which a model argument is recognised: the datum as passed
 * (inline, compressed, or an on-disk TOAST pointer, which names one
 * immutable value), except an expanded array, whose pointer says nothing
 * of its contents and is flattened.
 */
static void
arg_bytes(Datum v, const char **p, Size *len)
{
	struct varlena *ptr = (struct varlena *) DatumGetPointer(v);

	if (VARATT_IS_EXTERNAL_EXPANDED(ptr))
		ptr = pg_detoast_datum(ptr);
	*p = (const char *) ptr;
	*len = VARSIZE_ANY(ptr);
}

/*
 * Whether model argument i is a Const in the calling expression: its value
 * then lives, unchanged at one address, as long as the call site (not so
 * a Param, which PL/pgSQL may refill in place between calls)
 */
static bool
arg_is_const(FmgrInfo *flinfo, int i)
{
	Node	   *e = flinfo->fn_expr;
	List	   *args;

	if (e == NULL || !IsA(e, FuncExpr))
		return false;
	args = ((FuncExpr *) e)->args;
	return i < list_length(args) && IsA(list_nth(args, i), Const);
}

static bool
site_matches(NsCallSite *site, int method, Datum *args, int nargs)
{
	int			i;

	if (site->id == 0 || site->method != method)
		return false;
	for (i = 0; i < nargs; i++)
	{
		const char *p;
		Size		len;

		arg_bytes(args[i], &p, &len);
		/* a Const compared in full once: its address suffices after */
		if (site->constptr[i] != NULL && p == site->constptr[i])
			continue;
		if (len != site->rawlen[i] || memcmp(p, site->raw[i], len) != 0)
			return false;
	}
	return jl_ns_cache_still(site->id) != NULL;
}

static int
parse_method(text *t)
{
	const char *s = VARDATA_ANY(t);
	int			n = VARSIZE_ANY_EXHDR(t);

	if (n == 9 && memcmp(s, "waterfill", 9) == 0)
		return JL_NS_WATERFILL;
	if (n == 8 && memcmp(s, "knapsack", 8) == 0)
		return JL_NS_KNAPSACK;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown method \"%s\"", jl_msg_text(t)),
			 errhint("Use 'waterfill' (the maximiser of Theorem 2's objective) or 'knapsack' (Algorithm 1 as published).")));
	return 0;
}

static double
read_eps(FunctionCallInfo fcinfo, int arg)
{
	double		eps = PG_GETARG_FLOAT8(arg);

	if (!(eps >= 0.0) || isinf(eps))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("utility_error must be a finite number >= 0, not %g", eps)));
	return eps;
}

/* the call site's model, (re)built when the model arguments change */
static const JlNsModel *
site_model(FunctionCallInfo fcinfo, int method, int nmodels)
{
	NsCallSite *site = (NsCallSite *) fcinfo->flinfo->fn_extra;
	Datum		args[2];
	const JlNsModel *m;
	double	   *A[2] = {NULL, NULL};
	int			rows[2] = {0, 0},
				cols[2] = {0, 0},
				i;
	static const char *const names[2] = {"a_desired", "a_confidential"};

	for (i = 0; i < nmodels; i++)
		args[i] = PG_GETARG_DATUM(1 + i);
	if (site == NULL)
	{
		site = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(NsCallSite));
		fcinfo->flinfo->fn_extra = site;
	}
	if (site_matches(site, method, args, nmodels))
	{
		for (i = 0; i < nmodels; i++)
			if (site->constptr[i] == NULL && arg_is_const(fcinfo->flinfo, 1 + i))
			{
				const char *p;
				Size		len;

				arg_bytes(args[i], &p, &len);
				/* not a copy flattened from an expanded array */
				if (p == (const char *) DatumGetPointer(args[i]))
					site->constptr[i] = p;
			}
		return jl_ns_cache_still(site->id);
	}

	for (i = 0; i < nmodels; i++)
		A[i] = jl_matrix_read(DatumGetArrayTypeP(args[i]), names[i], &rows[i], &cols[i]);
	if (nmodels == 2 && rows[1] != rows[0])
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("a_confidential has %d rows but a_desired has %d", rows[1], rows[0]),
				 errdetail("Both models map the same d features: one row per feature.")));
	site->id = 0;
	site->constptr[0] = site->constptr[1] = NULL;
	m = jl_ns_cache_get(method, rows[0], cols[0], nmodels == 2 ? cols[1] : 0,
						A[0], A[1], &site->id);
	site->method = method;
	site->d = rows[0];
	for (i = 0; i < nmodels; i++)
	{
		const char *p;
		Size		len;

		arg_bytes(args[i], &p, &len);
		if (site->raw[i])
			pfree(site->raw[i]);
		site->raw[i] = MemoryContextAllocHuge(fcinfo->flinfo->fn_mcxt, len);
		memcpy(site->raw[i], p, len);
		site->rawlen[i] = len;
	}
	if (site->nscratch < jl_ns_scratch_doubles(m) ||
		site->niscratch < jl_ns_scratch_ints(m))
	{
		if (site->scratch)
			pfree(site->scratch);
		if (site->iscratch)
			pfree(site->iscratch);
		site->nscratch = jl_ns_scratch_doubles(m);
		site->niscratch = jl_ns_scratch_ints(m);
		site->scratch = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt,
										   sizeof(double) * site->nscratch);
		site->iscratch = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt,
											sizeof(int) * site->niscratch);
	}
	return m;
}

static Datum
clean(FunctionCallInfo fcinfo, int method, int nmodels, int eps_arg)
{
	const JlNsModel *m;
	NsCallSite *site;
	ArrayType  *xa;
	double	   *x;
	double		eps;
	int			d;
	ArrayType  *out;

	xa = PG_GETARG_ARRAYTYPE_P(0);
	/* the checks of jl_array_vector, the per-element one vectorised; that
	 * function names the offending element */
	d = jl_array_check(xa, FLOAT8OID, "x");
	x = (double *) ARR_DATA_PTR(xa);
	if (!jl_ns_all_finite(x, d))
		x = jl_array_vector(xa, "x", &d);
	eps = read_eps(fcinfo, eps_arg);
	m = site_model(fcinfo, method, nmodels);
	site = (NsCallSite *) fcinfo->flinfo->fn_extra;
	if (d != m->d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("x has %d elements but the model has %d rows", d, m->d),
				 errdetail("a_desired is d x m: one row per feature, one column per output.")));
	out = jl_vector_array(NULL, d);
	jl_ns_clean(m, x, eps, (double *) ARR_DATA_PTR(out), site->scratch,
				site->iscratch, NULL);
	PG_RETURN_ARRAYTYPE_P(out);
}

/* jl_nullspace_clean(x, a_desired, utility_error, method) */
Datum
jl_nullspace_clean(PG_FUNCTION_ARGS)
{
	return clean(fcinfo, parse_method(jl_option_arg(fcinfo, 3)), 1, 2);
}

/* jl_nullspace_clean(x, a_desired, a_confidential, utility_error) */
Datum
jl_nullspace_clean_confidential(PG_FUNCTION_ARGS)
{
	return clean(fcinfo, JL_NS_CONFIDENTIAL, 2, 3);
}
