/*
 * covariance_release.c - the arithmetic of the covariance mechanism
 * (pipeline/covariance.c): R = Y [A; l I] written to a new table of r rows
 * (i, y float8[]), Y fresh iid N(0,1) from the secure random source, never
 * keyed, never stored (docs/design/covariance.md).
 *
 * The pipeline calibrates the lift from public inputs (jl_cov_calibrate),
 * refuses a release too large for memory (jl_cov_check_memory), charges,
 * then this file streams the encoded rows once (batches clipped and
 * multiplied by their columns of Y with one dgemm, or their Gram matrix),
 * adds the lift rows, writes R (jl_cov_write) and records the release
 * (jl_cov_record).
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

#include "math/covariance/covariance.h"
#include "math/covariance/covariance_accountant.h"
#include "math/covariance/covariance_normal.h"
#include "math/noise/laplace.h"

#include "pg/common/arrays.h"
#include "pg/engines/covariance_release.h"
#include "pg/budget/budget.h"
#include "pg/catalog/source_relation.h"
#include "pg/common/calibration_json.h"
#include "pg/common/messages.h"
#include "pg/common/options.h"
#include "pg/catalog/registry.h"
#include "pg/catalog/release_names.h"
#include "pg/keys/strong_random.h"

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

double
jl_cov_unit_lift(int r, double eps, double delta)
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
	cr->w = cr->C * jl_cov_unit_lift(cr->r, cr->eps_w, cr->delta_w) * (1.0 + 1e-12);
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
