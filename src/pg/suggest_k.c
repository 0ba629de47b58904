/*
 * suggest_k.c - SQL entry points for choosing k: jl_min_dim (scikit-learn's
 * distortion-only bound) and jl_suggest_k / jl_suggest_k_info (the k that
 * minimizes the variance of recovered distances, Kenthapadi et al. 3.3).
 *
 * The noise variance for each candidate k is the extension's own
 * calibration to the realized projection: jl_release_info is called
 * through SPI, as the calling role, with the options passed through by
 * name, so every noise, kind and calibration jl_release_info knows works
 * here, and the caller needs the right to call it (a key is used).
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "access/xact.h"

#include "pg/budget.h"
#include "math/suggest_k.h"

#include "pg/options.h"
#include "pg/owner.h"

PG_FUNCTION_INFO_V1(jl_min_dim_sql);
PG_FUNCTION_INFO_V1(jl_suggest_k);
PG_FUNCTION_INFO_V1(jl_suggest_k_info);

/* limits of the row-neighbour sensitivity (as the release enforces them) */
#define JL_SUGGEST_ROW_MAX_K 2048
#define JL_SUGGEST_ROW_MAX_WORK 4e10
/* P of at most 1 GB, the projection cache's bound */
#define JL_SUGGEST_P_BYTES ((double) (1 << 30))

Datum
jl_min_dim_sql(PG_FUNCTION_ARGS)
{
	int64		n = PG_GETARG_INT64(0);
	double		eps = PG_GETARG_FLOAT8(1);
	double		k;

	if (n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be at least 1, not " INT64_FORMAT, n)));
	if (!(eps > 0.0 && eps < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("eps must be in (0, 1), not %g", eps),
				 errhint("The Johnson-Lindenstrauss bound is defined for eps in (0, 1).")));
	k = jl_min_dim(n, eps);
	if (!(k <= PG_INT32_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the minimum dimension %.17g is out of range for integer", k)));
	PG_RETURN_INT32((int32) k);
}

typedef struct SuggestArgs
{
	int32		d;
	int64		n;
	double		epsilon;
	double		lo,
				hi;
	bool		gaussian;
	int			kmax;
} SuggestArgs;

typedef struct InfoCall
{
	SPIPlanPtr	plan;
	int			nargs;
	Datum		values[10];
	char		nulls[10];
	ErrorData  *refusal;		/* the last calibration refused, or NULL */
	MemoryContext keep;			/* where the refusal lives: outlives SPI */
} InfoCall;

/*
 * The noise variance of jl_release_info at k; NaN if not a valid release.
 * A calibration that refuses this k (invalid_parameter_value, e.g. the
 * paper's Gaussian bound needs k > 2 (ln d + ln(2/delta)); or
 * numeric_value_out_of_range, e.g. a sparse P of this k that is all zeros,
 * whose sensitivity 0 has no noise grid, or a noise scale beyond the
 * sampler's range) makes the k infeasible: the call runs in a
 * subtransaction, as a PL/pgSQL exception block would, and the refusal is
 * kept to be raised if no k is feasible.  Any other error is raised at once.
 */
static double
info_variance(void *ctx, int k)
{
	InfoCall   *c = (InfoCall *) ctx;
	MemoryContext oldcxt = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;
	double		v = NAN;

	CHECK_FOR_INTERRUPTS();
	c->values[1] = Int32GetDatum(k);
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcxt);
	PG_TRY();
	{
		bool		isnull,
					valid;
		int			rc;

		rc = SPI_execute_plan(c->plan, c->values, c->nulls, true, 1);
		if (rc != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "could not compute the release calibration");
		v = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		if (isnull)
			v = NAN;
		valid = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
		if (!isnull && !valid)
			v = NAN;
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(c->keep);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
		if (edata->sqlerrcode != ERRCODE_INVALID_PARAMETER_VALUE &&
			edata->sqlerrcode != ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE)
			ReThrowError(edata);
		if (c->refusal != NULL)
			FreeErrorData(c->refusal);
		c->refusal = edata;
		v = NAN;
	}
	PG_END_TRY();
	return v;
}

/*
 * Arguments: 0 d, 1 n, 2 epsilon, 3 dist2, 4 dist2_hi, 5 neighbor,
 * 6 bound, 7 noise, 8 delta, 9 kind, 10 calibration, 11 key.
 */
static void
suggest(FunctionCallInfo fcinfo, SuggestArgs *a, JlSuggest *s)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	InfoCall	c;
	Oid			types[10];
	StringInfoData q;
	char	   *noise;
	JlNeighbor	neighbor;
	double		kmax;
	bool		found;

	jl_require_arg(fcinfo, 0, "d");
	jl_require_arg(fcinfo, 1, "n");
	jl_require_arg(fcinfo, 2, "epsilon");
	jl_require_arg(fcinfo, 3, "dist2");
	jl_require_arg(fcinfo, 5, "neighbor");
	jl_require_arg(fcinfo, 6, "bound");
	jl_require_arg(fcinfo, 7, "noise");
	jl_require_arg(fcinfo, 11, "key");
	a->d = PG_GETARG_INT32(0);
	a->n = PG_GETARG_INT64(1);
	a->epsilon = PG_GETARG_FLOAT8(2);
	a->lo = PG_GETARG_FLOAT8(3);
	a->hi = PG_ARGISNULL(4) ? a->lo : PG_GETARG_FLOAT8(4);
	if (a->d < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("d must be at least 1, not %d", a->d)));
	if (a->n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be at least 1, not " INT64_FORMAT, a->n)));
	if (!(isfinite(a->epsilon) && a->epsilon > 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a finite number > 0")));
	if (!(isfinite(a->lo) && a->lo > 0.0 && isfinite(a->hi) && a->hi >= a->lo))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the squared distances must satisfy 0 < dist2 <= dist2_hi < Infinity"),
				 errhint("dist2 is a typical squared distance between rows, or with dist2_hi the low end of a range.")));
	neighbor = jl_parse_neighbor(PG_GETARG_TEXT_PP(5));
	noise = text_to_cstring(PG_GETARG_TEXT_PP(7));
	if (strcmp(noise, "laplace") == 0)
		a->gaussian = false;
	else if (strcmp(noise, "gaussian") == 0)
		a->gaussian = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown noise \"%s\"", noise),
				 errhint("Use 'laplace' or 'gaussian'.")));

	/* the largest k a release of d-dimensional rows can have */
	kmax = fmin(JL_MAX_K, floor(JL_SUGGEST_P_BYTES / (8.0 * a->d)));
	if (neighbor == JL_NEIGHBOR_ROW)
		kmax = fmin(kmax, fmin(JL_SUGGEST_ROW_MAX_K,
							   floor(sqrt(JL_SUGGEST_ROW_MAX_WORK / a->d))));
	if (kmax < 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("d = %d is too large for any projection", a->d)));
	a->kmax = (int) kmax;

	/* jl_release_info(d, k, epsilon, ...) with the options given by name */
	initStringInfo(&q);
	appendStringInfo(&q, "SELECT (i->>'noise_variance')::float8, (i->>'valid')::boolean FROM %s("
					 "d => $1, k => $2, epsilon => $3, neighbor => $4, bound => $5, key => $6",
					 jl_qualified(nsp, "jl_release_info"));
	types[0] = INT4OID;
	c.values[0] = Int32GetDatum(a->d);
	types[1] = INT4OID;
	types[2] = FLOAT8OID;
	c.values[2] = Float8GetDatum(a->epsilon);
	types[3] = TEXTOID;
	c.values[3] = PointerGetDatum(PG_GETARG_TEXT_PP(5));
	types[4] = FLOAT8OID;
	c.values[4] = Float8GetDatum(PG_GETARG_FLOAT8(6));
	types[5] = TEXTOID;
	c.values[5] = PointerGetDatum(PG_GETARG_TEXT_PP(11));
	c.nargs = 6;
	if (a->gaussian)
	{
		appendStringInfo(&q, ", noise => $%d", c.nargs + 1);
		types[c.nargs] = TEXTOID;
		c.values[c.nargs++] = PointerGetDatum(PG_GETARG_TEXT_PP(7));
	}
	if (!PG_ARGISNULL(8))
	{
		appendStringInfo(&q, ", delta => $%d", c.nargs + 1);
		types[c.nargs] = FLOAT8OID;
		c.values[c.nargs++] = Float8GetDatum(PG_GETARG_FLOAT8(8));
	}
	if (!PG_ARGISNULL(9))
	{
		appendStringInfo(&q, ", kind => $%d", c.nargs + 1);
		types[c.nargs] = TEXTOID;
		c.values[c.nargs++] = PointerGetDatum(PG_GETARG_TEXT_PP(9));
	}
	if (!PG_ARGISNULL(10))
	{
		appendStringInfo(&q, ", calibration => $%d", c.nargs + 1);
		types[c.nargs] = TEXTOID;
		c.values[c.nargs++] = PointerGetDatum(PG_GETARG_TEXT_PP(10));
	}
	appendStringInfoString(&q, ") i");
	memset(c.nulls, ' ', sizeof(c.nulls));
	c.refusal = NULL;
	c.keep = CurrentMemoryContext;

	SPI_connect();
	c.plan = SPI_prepare(q.data, c.nargs, types);
	if (c.plan == NULL)
		elog(ERROR, "could not prepare \"%s\": %s", q.data,
			 SPI_result_code_string(SPI_result));
	found = jl_suggest_k_search(a->lo, a->hi, a->gaussian, a->kmax,
								info_variance, &c, s);
	SPI_finish();
	if (!found && c.refusal != NULL)
		ReThrowError(c.refusal);
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no k between 1 and %d gives a valid release with these options", a->kmax)));
}

Datum
jl_suggest_k(PG_FUNCTION_ARGS)
{
	SuggestArgs a;
	JlSuggest	s;

	suggest(fcinfo, &a, &s);
	PG_RETURN_INT32(s.k);
}

static void
json_num(StringInfo b, const char *name, double v)
{
	if (isfinite(v))
		appendStringInfo(b, ", \"%s\": %.17g", name, v);
	else
		appendStringInfo(b, ", \"%s\": null", name);
}

Datum
jl_suggest_k_info(PG_FUNCTION_ARGS)
{
	SuggestArgs a;
	JlSuggest	s;
	StringInfoData b;
	double		vlo,
				vhi;

	suggest(fcinfo, &a, &s);
	vlo = jl_dist_variance(a.lo, s.k, s.noise_variance, a.gaussian);
	vhi = jl_dist_variance(a.hi, s.k, s.noise_variance, a.gaussian);

	initStringInfo(&b);
	appendStringInfo(&b, "{\"k\": %d, \"noise\": \"%s\"", s.k,
					 a.gaussian ? "gaussian" : "laplace");
	appendStringInfo(&b, ", \"objective\": \"%s\"",
					 a.lo == a.hi ? "variance at dist2" :
					 "worst ratio over [dist2, dist2_hi] of the stddev to the smallest stddev of any k");
	json_num(&b, "objective_value", s.objective);
	json_num(&b, "noise_variance", s.noise_variance);
	json_num(&b, "dist2", a.lo);
	json_num(&b, "stddev", sqrt(vlo));
	json_num(&b, "relative_stddev", sqrt(vlo) / a.lo);
	if (a.lo != a.hi)
	{
		json_num(&b, "dist2_hi", a.hi);
		json_num(&b, "stddev_hi", sqrt(vhi));
		json_num(&b, "relative_stddev_hi", sqrt(vhi) / a.hi);
		appendStringInfo(&b, ", \"k_best_at_dist2\": %d, \"k_best_at_dist2_hi\": %d",
						 s.k_lo_best, s.k_hi_best);
	}
	/* Kenthapadi's rule of thumb k = r^2 / (2 sigma^2), at this k's sigma */
	json_num(&b, "k_rule_of_thumb", a.lo / (2.0 * s.noise_variance));
	appendStringInfo(&b, ", \"k_max\": %d, \"at_k_max\": %s, \"evaluations\": %d",
					 a.kmax, s.at_limit ? "true" : "false", s.evaluations);
	appendStringInfo(&b, ", \"n\": " INT64_FORMAT, a.n);
	json_num(&b, "jl_distortion", a.n >= 2 ? jl_distortion_at(a.n, s.k) : NAN);
	if (a.n >= 2)
	{
		double		m = jl_min_dim(a.n, 0.1);

		if (m <= PG_INT32_MAX)
			appendStringInfo(&b, ", \"min_dim_eps_0.1\": %.0f", m);
	}
	appendStringInfoString(&b, "}");
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}
