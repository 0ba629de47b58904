/*
 * covariance_release.c - jl_release_covariance: R = Y [A; l I] written to a
 * new table of r rows (i, y float8[]), Y fresh iid N(0,1) from the secure
 * random source, never keyed, never stored (docs/covariance.md).
 *
 * The steps, as jl_release_table's: read and check the arguments, build the
 * query of the vector from the catalog, learn d (the named columns, or the
 * length of the first row's array: schema, not data) and refuse a release
 * too large for memory, calibrate the lift from public inputs, charge the
 * budget, create the target, stream the source once (batches of rows
 * clipped and multiplied by their columns of Y with one dgemm), add the
 * lift rows, write R and record the release.  All in the caller's
 * transaction: a failure or a cancel leaves no target and no registry row.
 *
 * lift 'auto' spends epsilon/10 on sigma_min(A) with discrete Laplace noise
 * on a grid and lifts only by what its lower confidence bound leaves
 * missing; the remaining (0.9 epsilon, delta/2) calibrate w, and the
 * bound's failure probability is delta/2.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "portability/instr_time.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/varlena.h"

#include "math/covariance.h"
#include "math/covariance_accountant.h"
#include "math/covariance_normal.h"
#include "math/laplace.h"

#include "pg/arrays.h"
#include "pg/covariance_release.h"
#include "pg/budget.h"
#include "pg/source_relation.h"
#include "pg/calibration_json.h"
#include "pg/messages.h"
#include "pg/options.h"
#include "pg/registry.h"
#include "pg/release_names.h"
#include "pg/strong_random.h"

PG_FUNCTION_INFO_V1(jl_release_covariance);

#define SOURCE_ARG 0
#define VECTOR_ARG 1
#define TARGET_ARG 2
#define R_ARG 3
#define EPSILON_ARG 4
#define DELTA_ARG 5
#define CLIP_NORM_ARG 6
#define LIFT_ARG 7
#define DATASET_ARG 8
#define METHOD_ARG 9

#define BATCH_ROWS 512
#define BATCH_BYTES ((Size) 64 * 1024 * 1024)
#define PROGRESS_SECONDS 5.0
/* lift 'auto': the share of epsilon spent on sigma_min */
#define SIGMA_EPSILON_SHARE 0.1



/* the receiver of the source's rows */
typedef struct CovReceiver
{
	DestReceiver pub;
	CovRelease *cr;
	double	   *X;				/* batch x d */
	double	   *Yb;				/* r x batch */
	double	   *G;				/* d x d, lift 'auto' */
	int			batch;
	int			n;
	instr_time	start,
				last_report;
	MemoryContext row_cxt;
} CovReceiver;

static char *
required_text(FunctionCallInfo fcinfo, int n, const char *what)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", what)));
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

static void
require(FunctionCallInfo fcinfo, int n, const char *what)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", what)));
}

static void
read_arguments(FunctionCallInfo fcinfo, CovRelease *cr)
{
	char	   *lift;

	require(fcinfo, SOURCE_ARG, "source");
	cr->source = PG_GETARG_OID(SOURCE_ARG);
	require(fcinfo, VECTOR_ARG, "vector");
	cr->target_name = required_text(fcinfo, TARGET_ARG, "target");
	require(fcinfo, R_ARG, "r");
	cr->r = PG_GETARG_INT32(R_ARG);
	if (cr->r < 1 || cr->r > JL_COV_MAX_R)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("r must be between 1 and %d, not %d", JL_COV_MAX_R, cr->r)));
	require(fcinfo, EPSILON_ARG, "epsilon");
	cr->epsilon = PG_GETARG_FLOAT8(EPSILON_ARG);
	if (!(cr->epsilon > 0.0 && cr->epsilon <= JL_COV_MAX_EPSILON))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be greater than 0 and at most %g, not %g",
						JL_COV_MAX_EPSILON, cr->epsilon),
				 errhint("The accountant computes e^epsilon; an epsilon above %g protects nothing.",
						 JL_COV_MAX_EPSILON)));
	require(fcinfo, DELTA_ARG, "delta");
	cr->delta = PG_GETARG_FLOAT8(DELTA_ARG);
	if (!(cr->delta > 0.0 && cr->delta < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must be in (0, 1)"),
				 errhint("The covariance release is (epsilon, delta)-DP with delta > 0; choose delta well below 1/n.")));
	require(fcinfo, CLIP_NORM_ARG, "clip_norm");
	cr->C = PG_GETARG_FLOAT8(CLIP_NORM_ARG);
	if (!(isfinite(cr->C) && cr->C > 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("clip_norm must be a finite number greater than 0")));
	jl_require_scales(cr->epsilon, cr->C);
	lift = required_text(fcinfo, LIFT_ARG, "lift");
	if (strcmp(lift, "always") == 0)
		cr->auto_lift = false;
	else if (strcmp(lift, "auto") == 0)
		cr->auto_lift = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown lift \"%s\"", jl_msg_str(lift)),
				 errhint("Use 'always' or 'auto'.")));
	cr->dataset = PG_ARGISNULL(DATASET_ARG) ? NULL :
		text_to_cstring(PG_GETARG_TEXT_PP(DATASET_ARG));
	lift = required_text(fcinfo, METHOD_ARG, "method");
	if (strcmp(lift, "gram") == 0)
		cr->gram = true;
	else if (strcmp(lift, "product") == 0)
		cr->gram = false;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown method \"%s\"", jl_msg_str(lift)),
				 errhint("Use 'gram' or 'product'.")));
}

static Oid
column_type(Oid relid, const char *name)
{
	Oid			t;

	jl_column_of(relid, name, &t);
	return t;
}

/*
 * SELECT vector FROM source: one float8[] column as it is, or several
 * numeric columns as the elements (then d is known).
 */
static void
build_source_query(FunctionCallInfo fcinfo, CovRelease *cr)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(VECTOR_ARG);
	Datum	   *names;
	int			n,
				i;

	if (get_rel_relkind(cr->source) == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", cr->source)));
	/* locked until the transaction ends: what is checked is what is read */
	jl_source_lock(cr->source);
	cr->source_q = quote_qualified_identifier(get_namespace_name(get_rel_namespace(cr->source)),
											  get_rel_name(cr->source));
	if (ARR_NDIM(arr) != 1 || array_contains_nulls(arr))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("vector must be a non-empty list of column names")));
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &names, NULL, &n);
	initStringInfo(&cr->sql);
	initStringInfo(&cr->vec_desc);
	appendStringInfoString(&cr->sql, "SELECT ");
	cr->d = -1;
	if (n == 1 && column_type(cr->source, TextDatumGetCString(names[0])) == FLOAT8ARRAYOID)
	{
		appendStringInfoString(&cr->sql, quote_identifier(TextDatumGetCString(names[0])));
		appendStringInfoString(&cr->vec_desc, TextDatumGetCString(names[0]));
	}
	else
	{
		appendStringInfoString(&cr->sql, "ARRAY[");
		for (i = 0; i < n; i++)
		{
			char	   *c = TextDatumGetCString(names[i]);

			if (!jl_numeric_type(column_type(cr->source, c)))
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("column \"%s\" must be float8[] or numeric", jl_msg_str(c))));
			appendStringInfo(&cr->sql, "%s%s::pg_catalog.float8", i ? ", " : "", quote_identifier(c));
			appendStringInfo(&cr->vec_desc, "%s%s", i ? ", " : "", c);
		}
		appendStringInfoString(&cr->sql, "]");
		cr->d = n;
	}
	appendStringInfo(&cr->sql, " FROM %s", cr->source_q);
}

/*
 * d from the first row's array length when the vector is one array
 * column; an empty source is refused here, before any charge.
 */
static void
learn_dimension(CovRelease *cr)
{
	bool		isnull;
	int			found;

	SPI_connect();
	if (SPI_execute(psprintf("SELECT pg_catalog.array_length(v, 1) FROM (%s) AS s (v) LIMIT 1",
							 cr->sql.data), true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the vector length of %s", cr->source_q);
	found = (int) SPI_processed;
	if (found == 1 && cr->d < 0)
	{
		Datum		v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("vector of row 1 must not be NULL or empty"),
					 errhint("Filter NULLs out of the source, e.g. with a view.")));
		cr->d = DatumGetInt32(v);
	}
	SPI_finish();
	if (found == 0)
		ereport(ERROR,
				(errcode(ERRCODE_NO_DATA),
				 errmsg("source %s has no rows", cr->source_q)));
}

/* r x d (and d x d for sigma_min) within the stated bound, before any allocation */
void
jl_cov_check_memory(const CovRelease *cr)
{
	if ((Size) cr->r * (Size) cr->d > JL_COV_MAX_ENTRIES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("r * d = %lld exceeds the limit of %lld values (256 MB) of a covariance release",
						(long long) cr->r * cr->d, (long long) JL_COV_MAX_ENTRIES),
				 errhint("Use a smaller r or fewer attributes.")));
	if ((cr->auto_lift || cr->gram) && (Size) cr->d * (Size) cr->d > JL_COV_MAX_ENTRIES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s needs a %d x %d Gram matrix, beyond the limit of %lld values",
						cr->auto_lift ? "lift 'auto'" : "method 'gram'",
						cr->d, cr->d, (long long) JL_COV_MAX_ENTRIES),
				 errhint(cr->auto_lift ? "Use lift => 'always', method => 'product'." :
						 "Use method => 'product'.")));
}

/*
 * The accountant's lift for rows of norm 1, cached per backend (a few
 * entries): repeated releases with the same r, epsilon and delta skip the
 * quadrature.  The lift scales with clip_norm exactly.
 */
#define LIFT_CACHE 8
typedef struct LiftEntry
{
	int			r;
	double		eps,
				delta,
				w1;				/* the lift for clip_norm 1 */
} LiftEntry;
static LiftEntry lift_cache[LIFT_CACHE];
static int	lift_cache_next = 0;

static double
lift_for_unit_rows(int r, double eps, double delta)
{
	LiftEntry  *e;
	int			i;

	for (i = 0; i < LIFT_CACHE; i++)
		if (lift_cache[i].r == r && lift_cache[i].eps == eps && lift_cache[i].delta == delta)
			return lift_cache[i].w1;
	e = &lift_cache[lift_cache_next];
	lift_cache_next = (lift_cache_next + 1) % LIFT_CACHE;
	e->r = 0;					/* invalid until complete */
	e->w1 = jl_cov_lift(r, eps, delta, 1.0);
	e->eps = eps;
	e->delta = delta;
	e->r = r;
	return e->w1;
}

/* w from public inputs only: r, epsilon, delta, clip_norm (and the split of 'auto') */
void
jl_cov_calibrate(CovRelease *cr)
{
	/* below this the accountant's delta underflows: nothing is certified */
	if (!(cr->delta >= 1e-300))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta %g is too small for the covariance accountant to certify", cr->delta),
				 errhint("Use a delta of at least 1e-300 (1e-12, say: well below 1 / n is enough).")));
	if (cr->auto_lift)
	{
		JlCovSigmaPlan probe;

		cr->eps_sigma = SIGMA_EPSILON_SHARE * cr->epsilon;
		cr->beta = 0.5 * cr->delta;
		cr->eps_w = cr->epsilon - cr->eps_sigma;
		cr->delta_w = cr->delta - cr->beta;
		/* the plan's feasibility (epsilon too small for the sampler) before the charge */
		if (jl_cov_sigma_plan(cr->C, 0.0, cr->d, cr->eps_sigma, cr->beta, &probe) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("epsilon %g is too small for lift 'auto' to release sigma_min", cr->epsilon),
					 errhint("Use lift => 'always'.")));
	}
	else
	{
		cr->eps_w = cr->epsilon;
		cr->delta_w = cr->delta;
	}
	/* a hair up, so that rounding in C * w1 cannot cross the bisection's end */
	cr->w = cr->C * lift_for_unit_rows(cr->r, cr->eps_w, cr->delta_w) * (1.0 + 1e-12);
	/*
	 * checked again for this release: the bound holds at the lift used.  A
	 * delta so small that the accountant cannot certify any lift (its
	 * computed delta bottoms out near the floating-point floor) is the
	 * caller's argument: refused with its SQLSTATE, before the charge
	 */
	if (isfinite(cr->w) && cr->w > 0.0)
		cr->w_delta = jl_cov_delta(cr->r, cr->C / cr->w, cr->eps_w);
	if (!isfinite(cr->w) || !(cr->w > 0.0) || !(cr->w_delta <= cr->delta_w))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the covariance accountant cannot certify delta %g at epsilon %g with r = %d",
						cr->delta_w, cr->eps_w, cr->r),
				 errhint("Use a larger delta (1e-12, say: well below 1 / n is enough).")));
	cr->w_paper = jl_cov_lift_paper(cr->r, cr->epsilon, cr->delta, cr->C);
}


static void
charge_budget(CovRelease *cr)
{
	/*
	 * The dataset bound to the base relation the source reads (a partition's
	 * root, a simple view's table), else one named after that relation,
	 * declared on first use; a dataset given must be bound to it.  Every
	 * row of the source is a privacy unit: no unit column.
	 */
	Oid			base = jl_source_base_relation(cr->source, NULL, NULL);
	bool		declare = false;

	if (cr->dataset == NULL)
		cr->dataset = jl_budget_dataset_for(cr->nsp, base);
	cr->dataset_given = (cr->dataset != NULL);
	if (cr->dataset == NULL)
	{
		cr->dataset = quote_qualified_identifier(get_namespace_name(get_rel_namespace(base)),
												get_rel_name(base));
		declare = true;
	}
	cr->ledger_id = jl_budget_charge(cr->nsp, cr->dataset, base, declare, JL_UNIT_EACH_ROW,
									 cr->epsilon, cr->delta,
									 psprintf("jl_release_covariance into %s", cr->target_name));
}

/* ---------- streaming ---------- */

static void
cov_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
cov_shutdown(DestReceiver *self)
{
}

static void
cov_destroy(DestReceiver *self)
{
}

static void
report_progress(CovReceiver *cv)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, cv->last_report);
	if (INSTR_TIME_GET_DOUBLE(now) >= PROGRESS_SECONDS)
	{
		INSTR_TIME_SET_CURRENT(cv->last_report);
		now = cv->last_report;
		INSTR_TIME_SUBTRACT(now, cv->start);
		ereport(NOTICE,
				(errmsg("jl_release_covariance: %lld rows read in %.1f s",
						(long long) cv->cr->nrows, INSTR_TIME_GET_DOUBLE(now))));
	}
}

/* The batch's rows clipped; 'product': R += Yb X for the batch, Yb fresh;
 * G += X^T X for 'gram' or 'auto' */
static void
cov_flush(CovReceiver *cv)
{
	CovRelease *cr = cv->cr;

	if (cv->n == 0)
		return;
	if (cr->offset != NULL)
	{
		int64		i;
		int			j;

		for (i = 0; i < cv->n; i++)
			for (j = 0; j < cr->d; j++)
				cv->X[i * cr->d + j] += cr->offset[j];
	}
	jl_cov_clip_rows(cv->X, cv->n, cr->d, cr->C);
	if (!cr->gram)
	{
		jl_cov_normals(jl_strong_random(), cv->Yb, (size_t) cr->r * cv->n);
		jl_cov_accumulate(cr->R, cr->r, cr->d, cv->Yb, cv->X, cv->n);
	}
	if (cv->G)
		jl_cov_gram_accumulate(cv->G, cr->d, cv->X, cv->n);
	cr->nrows += cv->n;
	cv->n = 0;
	MemoryContextReset(cv->row_cxt);	/* the batch's detoasted arrays */
	CHECK_FOR_INTERRUPTS();
	report_progress(cv);
}

static bool
cov_receive(TupleTableSlot *slot, DestReceiver *self)
{
	CovReceiver *cv = (CovReceiver *) self;
	CovRelease *cr = cv->cr;
	bool		isnull;
	Datum		v;
	ArrayType  *a;
	double	   *x,
			   *row;
	int			len;
	bool		ok;
	MemoryContext old;

	v = slot_getattr(slot, 1, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("vector of row %lld must not be NULL", (long long) (cr->nrows + cv->n + 1)),
				 errhint("Filter NULLs out of the source, e.g. with a view.")));
	old = MemoryContextSwitchTo(cv->row_cxt);
	row = cv->X + (Size) cv->n * cr->d;
	a = DatumGetArrayTypeP(v);
	if (ARR_NDIM(a) == 1 && !ARR_HASNULL(a) && ARR_ELEMTYPE(a) == FLOAT8OID &&
		ARR_DIMS(a)[0] == cr->d)
	{
		/* the common case: the elements straight into the batch */
		ok = jl_cov_copy_finite(row, (const double *) ARR_DATA_PTR(a), cr->d);
	}
	else
		ok = false;
	if (!ok)
	{
		/* anything else: the checks, with their messages */
		x = jl_array_vector(a, "vector", &len);
		if (len != cr->d)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("row %lld has %d elements, earlier rows %d",
							(long long) (cr->nrows + cv->n + 1), len, cr->d)));
		memcpy(row, x, sizeof(double) * cr->d);
	}
	/* clipped with the batch (cov_flush) */
	MemoryContextSwitchTo(old);
	if (++cv->n == cv->batch)
		cov_flush(cv);
	return true;
}

/* Stream the source once into cr->R ('product') and the Gram matrix G ('gram' or 'auto'). */
static void
stream_source(CovRelease *cr, double *G)
{
	CovReceiver cv;
	SPIExecuteOptions opts;

	memset(&cv, 0, sizeof(cv));
	cv.pub.receiveSlot = cov_receive;
	cv.pub.rStartup = cov_startup;
	cv.pub.rShutdown = cov_shutdown;
	cv.pub.rDestroy = cov_destroy;
	cv.pub.mydest = DestNone;
	cv.cr = cr;
	cv.G = G;
	cv.batch = Min(BATCH_ROWS, Max(1, BATCH_BYTES / (sizeof(double) * (Size) Max(cr->r, cr->d))));
	cv.X = palloc(sizeof(double) * cv.batch * (Size) cr->d);
	cv.Yb = cr->gram ? NULL : palloc(sizeof(double) * cv.batch * (Size) cr->r);
	cv.row_cxt = AllocSetContextCreate(CurrentMemoryContext, "jldp covariance row",
									   ALLOCSET_DEFAULT_SIZES);
	INSTR_TIME_SET_CURRENT(cv.start);
	cv.last_report = cv.start;

	memset(&opts, 0, sizeof(opts));
	/* read-write SPI takes a new snapshot (read committed) for the query */
	opts.read_only = !cr->fresh_snapshot;
	opts.dest = &cv.pub;
	if (SPI_execute_extended(cr->sql.data, &opts) < 0)
		elog(ERROR, "could not read the source");
	cov_flush(&cv);
	if (cv.Yb)
	{
		explicit_bzero(cv.Yb, sizeof(double) * cv.batch * (Size) cr->r);
		pfree(cv.Yb);
	}
	pfree(cv.X);
	MemoryContextDelete(cv.row_cxt);
}

/* lift 'auto': release sigma_min(A) + Laplace on the grid, then the lift */
static void
lift_from_sigma(CovRelease *cr, const double *G)
{
	double		sigma = jl_cov_sigma_min(G, cr->d);
	int64		s,
				z;

	if (sigma < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not compute the smallest singular value"),
				 errdetail("LAPACK or memory allocation failed.")));
	if (jl_cov_sigma_plan(cr->C, (double) cr->nrows, cr->d, cr->eps_sigma, cr->beta, &cr->plan) != 0)
	{
		/*
		 * The floating-point error of sigma_min over these n rows widens its
		 * sensitivity past what epsilon / 10 can serve (the plan before the
		 * charge could not know n): after the charge, nothing is refused;
		 * sigma_min is not released and the full lift w is applied, which
		 * (0.9 epsilon, delta / 2) already covers.
		 */
		cr->sigma_skipped = true;
		cr->sigma_noisy = cr->sigma_lcb = NAN;
		cr->l = cr->w;
		return;
	}
	s = (int64) llround(sigma / cr->plan.g);
	z = jl_discrete_laplace(jl_strong_random(), cr->plan.t);
	cr->sigma_noisy = (double) (s + z) * cr->plan.g;
	cr->sigma_lcb = (double) (s + z - cr->plan.m) * cr->plan.g;
	cr->l = jl_cov_partial_lift(cr->w, cr->C, cr->sigma_lcb);
}

int64
jl_cov_record(CovRelease *cr)
{
	StringInfoData info;
	JlRegistryRecord rec;

	initStringInfo(&info);
	appendStringInfo(&info, "{\"mechanism\": \"covariance\", \"kind\": \"blocki\", \"noise\": \"jl_covariance\", "
					 "\"neighbor\": \"row\", \"calibration\": \"exact accountant\", \"lift\": \"%s\", "
					 "\"method\": \"%s\", \"d\": %d, \"k\": %d, \"r\": %d, \"rows\": %lld",
					 cr->auto_lift ? "auto" : "always", cr->gram ? "gram" : "product",
					 cr->d, cr->r, cr->r, (long long) cr->nrows);
	jl_json_num(&info, "epsilon", cr->epsilon);
	jl_json_num(&info, "delta", cr->delta);
	jl_json_num(&info, "bound", 2.0 * cr->C);
	jl_json_num(&info, "clip_norm", cr->C);
	jl_json_num(&info, "noise_variance", cr->l * cr->l);
	jl_json_num(&info, "grid", cr->step);
	jl_json_num(&info, "l", cr->l);
	jl_json_num(&info, "w", cr->w);
	jl_json_num(&info, "w_epsilon", cr->eps_w);
	jl_json_num(&info, "w_delta", cr->delta_w);
	jl_json_num(&info, "w_delta_computed", cr->w_delta);
	jl_json_num(&info, "w_paper", cr->w_paper);
	jl_json_num(&info, "accountant_margin", JL_COV_DELTA_MARGIN);
	if (cr->auto_lift)
	{
		if (cr->sigma_skipped)
			appendStringInfoString(&info, ", \"sigma_min\": \"not released: epsilon / 10 too small for the rows read; the full lift w\"");
		jl_json_num(&info, "sigma_min_noisy", cr->sigma_noisy);
		jl_json_num(&info, "sigma_min_lcb", cr->sigma_lcb);
		jl_json_num(&info, "sigma_epsilon", cr->plan.eps);
		jl_json_num(&info, "sigma_beta", cr->beta);
		jl_json_num(&info, "sigma_grid", cr->plan.g);
		jl_json_num(&info, "sigma_scale_steps", (double) cr->plan.t);
		jl_json_num(&info, "sigma_sensitivity", cr->plan.sensitivity);
	}
	appendStringInfoString(&info, ", \"y\": \"iid N(0,1) from pg_strong_random, Box-Muller, never stored\"");
	if (cr->extra_info)
		appendStringInfo(&info, ", %s", cr->extra_info);
	appendStringInfoChar(&info, '}');

	rec.source = cr->source_q;
	rec.target = cr->target;
	rec.id_column = "i";
	rec.vector = cr->vec_desc.data;
	rec.clipping = psprintf("rows scaled to L2 norm <= %.17g", cr->C);
	rec.key_fingerprint = "none: Y is fresh for each release";
	rec.info = info.data;
	rec.ledger_id = cr->ledger_id;
	rec.dataset = cr->dataset;
	return jl_registry_write(cr->nsp, &rec);
}

void
jl_cov_write(CovRelease *cr)
{
	double	   *G = NULL;

	cr->R = palloc0(sizeof(double) * (Size) cr->r * cr->d);
	if (cr->auto_lift || cr->gram)
		G = palloc0(sizeof(double) * (Size) cr->d * cr->d);
	cr->target = jl_create_vector_table(cr->target_q, cr->target_nsp, cr->target_rel, "i", "y");
	stream_source(cr, G);
	if (cr->nrows == 0 && !cr->allow_empty)
		ereport(ERROR,
				(errcode(ERRCODE_NO_DATA),
				 errmsg("source %s has no rows", cr->source_q)));
	if (cr->auto_lift)
		lift_from_sigma(cr, G);
	else
		cr->l = cr->w;
	if (cr->gram)
	{
		/* rows of R iid N(0, A^T A + l^2 I), as Y [A; l I] has them */
		double	   *Z = palloc(sizeof(double) * (Size) cr->r * cr->d);

		jl_cov_normals(jl_strong_random(), Z, (Size) cr->r * cr->d);
		if (jl_cov_from_gram(G, cr->d, cr->l * cr->l, Z, cr->r, cr->R) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not factor the Gram matrix"),
					 errdetail("LAPACK or memory allocation failed.")));
		explicit_bzero(Z, sizeof(double) * (Size) cr->r * cr->d);
		pfree(Z);
	}
	else if (cr->l > 0.0)
	{
		double	   *L = palloc(sizeof(double) * (Size) cr->r * cr->d);

		jl_cov_normals(jl_strong_random(), L, (Size) cr->r * cr->d);
		jl_cov_add_lift(cr->R, L, (Size) cr->r * cr->d, cr->l);
		explicit_bzero(L, sizeof(double) * (Size) cr->r * cr->d);
		pfree(L);
	}
	if (G)
		explicit_bzero(G, sizeof(double) * (Size) cr->d * cr->d);
	/* a power of two, so that the rounded values are exact multiples */
	cr->step = ldexp(1.0, ilogb(Max(cr->l, cr->C)) - 30);
	jl_cov_round(cr->R, (Size) cr->r * cr->d, cr->step);
	jl_fill_vector_table(cr->target_q, "i", "y", cr->R, cr->r, cr->d);
}

/*
 * jl_release_covariance(source regclass, vector text[], target text, r int,
 *                       epsilon float8, delta float8, clip_norm float8,
 *                       lift text, dataset text, method text)
 *                       RETURNS bigint (registry id)
 */
Datum
jl_release_covariance(PG_FUNCTION_ARGS)
{
	CovRelease	cr;
	int64		id;

	memset(&cr, 0, sizeof(cr));
	cr.nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	jl_budget_require_current(cr.nsp);
	read_arguments(fcinfo, &cr);
	build_source_query(fcinfo, &cr);
	learn_dimension(&cr);
	jl_cov_check_memory(&cr);
	jl_cov_calibrate(&cr);
	jl_resolve_target(cr.target_name, &cr.target_nsp, &cr.target_rel, &cr.target_q);
	jl_check_target_creatable(cr.target_nsp, cr.target_rel);
	charge_budget(&cr);

	SPI_connect();
	jl_cov_write(&cr);
	id = jl_cov_record(&cr);
	SPI_finish();
	PG_RETURN_INT64(id);
}
