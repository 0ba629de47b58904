/*
 * dp_kmeans.c - the k-means mechanism of the pipeline
 * (jl_kmeans_mechanism): differentially private k-means over a protected
 * table's encoded rows, released as its clusters (math/analytics/dp_kmeans.c
 * does the arithmetic; docs/design/dp_kmeans.md).
 *
 * The declaration gives the public geometry: every coordinate lies in
 * [0, weight]; two encoded rows are at most min(2 row_clip, the box's
 * diameter) apart; about the box's centre every row lies within half its
 * full diagonal, or within row_clip of the origin when the clip is the
 * smaller.  A row that changes cluster moves two clusters' sums, so a
 * change of one attribute costs what a replaced row does: the guarantee is
 * stated for rows whatever the declaration's notion.
 *
 * The number of units is counted before the charge (k must not exceed it):
 * it is what every guarantee states as not protected.
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "storage/lmgr.h"

#include "math/analytics/dp_kmeans.h"
#include "math/projection/attribute_sensitivity.h"

#include "pg/catalog/registry.h"
#include "pg/common/arrays.h"
#include "pg/common/calibration_json.h"
#include "pg/common/messages.h"
#include "pg/common/options.h"
#include "pg/keys/strong_random.h"
#include "pg/pipeline/pipeline.h"

/* the rows held in memory at most (doubles): 2 GiB */
#define KM_MAX_DOUBLES ((int64) 1 << 28)
#define KM_BATCH_ROWS 10000

typedef struct KmState
{
	JlDpKmeansSpec spec;
	JlDpKmeansCalibration cal;
	double	   *lo,
			   *hi,
			   *centre;
	bool		origin;			/* the centre is the origin (the row clip) */
	int64		counted;		/* units counted before the charge */
	double	   *centroids;		/* k x d, encoded */
	double	   *counts;			/* k */
} KmState;

/*
 * The units the reader gives, counted (the number is not protected), with
 * the table's writers locked out until the release's transaction ends, so
 * that the rows read after the charge are the rows counted before it (a
 * table grown past the memory limit in between would be refused after the
 * charge)
 */
static int64
count_units(JlPipeline *pl)
{
	int64		n;
	bool		isnull;

	LockRelationOid(pl->decl.relid, ShareLock);
	SPI_connect();
	if (SPI_execute(psprintf("SELECT pg_catalog.count(*) FROM (%s) AS s (u, v)",
							 jl_pipeline_rows_sql(pl)), true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not count the units of %s", pl->decl.relation_q);
	n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	return n;
}

static void
km_calibrate(JlPipeline *pl)
{
	const JlDeclaration *decl = &pl->decl;
	const JlKmeansSpec *ks = &pl->spec.kmeans;
	KmState    *st = palloc0(sizeof(KmState));
	double		full = 0.0,
				diam;
	int			d;
	JlStatus	s;

	pl->state = st;
	if (decl->long_format)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the k-means mechanism reads wide rows, and %s is declared in long format",
						decl->relation_q),
				 errhint("Release long-format tables with jl_sketch, and cluster the sketches with jl_kmeans.")));
	if (decl->d > JL_DP_KMEANS_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("rows of %lld coordinates exceed the k-means mechanism's limit of %d",
						(long long) decl->d, JL_DP_KMEANS_MAX_D),
				 errhint("Release sketches with jl_sketch and cluster them with jl_kmeans.")));
	d = (int) decl->d;
	if (!(pl->epsilon <= JL_DP_KMEANS_MAX_EPSILON))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be at most %g for the k-means mechanism, not %g",
						JL_DP_KMEANS_MAX_EPSILON, pl->epsilon),
				 errhint("At an epsilon past %g the noise protects nothing.", JL_DP_KMEANS_MAX_EPSILON)));

	/* the box of the encoding, its centre, the radius about it, the diameter */
	st->lo = palloc0(sizeof(double) * d);
	st->hi = palloc(sizeof(double) * d);
	st->centre = palloc(sizeof(double) * d);
	for (int a = 0; a < decl->nattrs; a++)
		for (int64 j = 0; j < decl->spans[a].width; j++)
		{
			double		w = decl->spans[a].weight;

			st->hi[decl->spans[a].offset + j] = w;
			st->centre[decl->spans[a].offset + j] = w / 2.0;
			full += w * w;
		}
	diam = jl_attribute_diameter(decl->spans, decl->nattrs, decl->d);
	if (!(diam > 0.0))
		elog(ERROR, "the declaration of %s has an invalid attribute span", decl->relation_q);
	st->spec.radius = sqrt(full) / 2.0 * (1.0 + 4.0 * DBL_EPSILON);
	if (!isnan(decl->row_clip))
	{
		diam = fmin(diam, 2.0 * decl->row_clip);
		if (decl->row_clip < st->spec.radius)
		{
			/* encoded rows are scaled into the clip about the origin */
			st->origin = true;
			st->spec.radius = decl->row_clip;
			for (int i = 0; i < d; i++)
				st->centre[i] = 0.0;
		}
	}
	/* the number of units (not protected) sets the iterations left out */
	st->counted = count_units(pl);
	st->spec.k = ks->k;
	st->spec.d = d;
	st->spec.iterations = ks->iterations > 0 ? ks->iterations :
		jl_dp_kmeans_auto_iterations(Max(st->counted, 1), ks->k, d, pl->epsilon);
	st->spec.epsilon = pl->epsilon;
	st->spec.delta = ks->delta;
	st->spec.lo = st->lo;
	st->spec.hi = st->hi;
	st->spec.centre = st->centre;
	st->spec.diameter = diam;
	s = jl_dp_kmeans_calibrate(&st->spec, &st->cal);
	if (s == JL_ERR_STATS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the k-means mechanism cannot be calibrated for the declaration of %s",
						decl->relation_q),
				 errdetail("Its encoded rows lie within %g of their centre and %g of each other; the mechanism needs both within [1e-100, 1e100].",
						   st->spec.radius, st->spec.diameter),
				 errhint("Declare weights nearer 1 (a weight scales an attribute's encoding).")));
	jl_report_status(s);

	/* k units at least, and the rows within the memory limit: before the charge */
	if (ks->k > st->counted)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("k = %d clusters exceed the %lld units of %s", ks->k, (long long) st->counted,
						decl->relation_q),
				 errhint("Choose k at most the number of units (which no release protects: every guarantee states it).")));
	if (st->counted > KM_MAX_DOUBLES / d)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%lld rows of %d coordinates exceed the k-means mechanism's memory limit of %lld numbers",
						(long long) st->counted, d, (long long) KM_MAX_DOUBLES),
				 errhint("Release sketches with jl_sketch and cluster them with jl_kmeans.")));

	pl->delta_charged = ks->delta;
	pl->noise_variance = st->cal.sum_sd * st->cal.sum_sd;
	/* the iterations' discrete Gaussian noise: its zCDP and dominating shift */
	pl->profile.kind = JL_PROFILE_ZCDP;
	pl->profile.rho = st->cal.rho;
	pl->profile.mu = st->cal.mu;
}

/* the rows as the reader gives them, into memory (grown if more arrived) */
static pg_noinline double *
read_rows(JlPipeline *pl, int64 *n)
{
	int			d = (int) pl->decl.d;
	int64		cap = Max(((KmState *) pl->state)->counted, 1),
				have = 0;
	double	   *rows = palloc_extended(sizeof(double) * (Size) cap * d, MCXT_ALLOC_HUGE);
	Portal		cur;

	/* read-write: a snapshot taken now, after the lock and the checks */
	cur = SPI_cursor_open_with_args(NULL, psprintf("SELECT v FROM (%s) AS s (u, v)", jl_pipeline_rows_sql(pl)),
									0, NULL, NULL, NULL, false, 0);
	for (;;)
	{
		SPI_cursor_fetch(cur, true, KM_BATCH_ROWS);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			Datum		v = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
			ArrayType  *arr;
			int			len;
			double	   *x;

			if (isnull)
				elog(ERROR, "the reader of %s gave a NULL row", pl->decl.relation_q);
			arr = DatumGetArrayTypeP(v);
			x = jl_array_vector(arr, "encoded row", &len);
			if (len != d)
				elog(ERROR, "the reader of %s gave a row of %d coordinates, not %d",
					 pl->decl.relation_q, len, d);
			if (have == cap)
			{
				/* not with the writers locked out since the count; kept safe */
				if (cap >= KM_MAX_DOUBLES / d)
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("the rows of %s exceed the k-means mechanism's memory limit",
									pl->decl.relation_q)));
				cap = Min(2 * cap, KM_MAX_DOUBLES / d);
				rows = repalloc_huge(rows, sizeof(double) * (Size) cap * d);
			}
			memcpy(rows + (Size) have * d, x, sizeof(double) * d);
			have++;
			if ((Pointer) arr != DatumGetPointer(v))
				pfree(arr);
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(cur);
	*n = have;
	return rows;
}

/* one centroid's coordinates in the attributes' units */
static Datum
decoded(const JlDeclaration *decl, const double *c)
{
	double	   *out = palloc(sizeof(double) * decl->d);

	for (int a = 0; a < decl->nattrs; a++)
	{
		const JlAttrDecl *at = &decl->attrs[a];
		const JlAttrSpan *sp = &decl->spans[a];

		for (int64 j = 0; j < sp->width; j++)
		{
			double		v = c[sp->offset + j];

			/* a category's coordinate: the share of the cluster with the value */
			out[sp->offset + j] = sp->encoding == JL_ENCODING_CATEGORY ? v / sp->weight :
				at->lo + v * (at->hi - at->lo) / sp->weight;
		}
	}
	return PointerGetDatum(jl_vector_array(out, (int) decl->d));
}

static void
km_write(JlPipeline *pl)
{
	KmState    *st = pl->state;
	int			k = st->spec.k,
				d = st->spec.d;
	int64		n;
	double	   *rows = read_rows(pl, &n),
			   *work = palloc(sizeof(double) * (Size) jl_dp_kmeans_work_doubles(k, d));
	Oid			types[4] = {INT4OID, FLOAT8OID, FLOAT8ARRAYOID, FLOAT8ARRAYOID};
	SPIPlanPtr	plan;

	st->centroids = palloc(sizeof(double) * (Size) k * d);
	st->counts = palloc(sizeof(double) * k);
	/* the rows and the sums wiped, on an error or a cancel too */
	PG_TRY();
	{
		jl_dp_kmeans_run(&st->spec, &st->cal, rows, n, jl_strong_random(), st->centroids, st->counts, work);
	}
	PG_FINALLY();
	{
		explicit_bzero(rows, sizeof(double) * (Size) n * d);
		explicit_bzero(work, sizeof(double) * (Size) jl_dp_kmeans_work_doubles(k, d));
	}
	PG_END_TRY();
	pfree(rows);
	pfree(work);

	if (SPI_execute(psprintf("CREATE TABLE %s (cluster pg_catalog.int4 PRIMARY KEY, size pg_catalog.float8 NOT NULL, "
							 "centroid pg_catalog.float8[] NOT NULL, encoded pg_catalog.float8[] NOT NULL)",
							 pl->target_q), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create the target table");
	pl->target = get_relname_relid(pl->target_rel, pl->target_nsp);
	if (!OidIsValid(pl->target))
		elog(ERROR, "created table %s not found", pl->target_q);
	plan = SPI_prepare(psprintf("INSERT INTO %s (cluster, size, centroid, encoded) VALUES ($1, $2, $3, $4)",
								pl->target_q), 4, types);
	if (plan == NULL)
		elog(ERROR, "could not prepare the insert into %s", pl->target_q);
	for (int j = 0; j < k; j++)
	{
		const double *c = st->centroids + (Size) j * d;
		Datum		values[4] = {Int32GetDatum(j + 1), Float8GetDatum(st->counts[j]),
			decoded(&pl->decl, c), PointerGetDatum(jl_vector_array(c, d))};

		if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not insert into %s", pl->target_q);
	}
	SPI_freeplan(plan);
	pl->nrows = n;
}

static char *
km_guarantee(JlPipeline *pl)
{
	KmState    *st = pl->state;
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfo(&b, "(epsilon = %g, delta = %g) differential privacy (k-means, %d clusters: %d noisy Lloyd iterations from centroids spread over the public box, each releasing every cluster's sum and count with discrete Gaussian noise, sd %.6g per coordinate of a sum and %.6g for a count; composed through their dominating Gaussian shift mu = %.6g, epsilon %.6g holding at delta) for each unit (%s) of %s, against a unit's row replaced by any other (a change of one attribute is one: the row may change cluster), two encoded rows at most %.6g apart",
					 pl->epsilon, pl->delta_charged, st->spec.k, st->spec.iterations, st->cal.sum_sd,
					 st->cal.count_sd, st->cal.mu, st->cal.epsilon_effective, pl->decl.unit,
					 pl->decl.relation_q, st->spec.diameter);
	jl_pipeline_not_protected(&b, pl);
	return b.data;
}

static int64
km_record(JlPipeline *pl, const char *guarantee)
{
	KmState    *st = pl->state;
	StringInfoData info;
	JlRegistryRecord rec;

	initStringInfo(&info);
	appendStringInfo(&info, "{\"mechanism\": \"kmeans\", \"kind\": \"none\", \"noise\": \"gaussian\", "
					 "\"neighbor\": \"row\", \"calibration\": \"dominating Gaussian shift\", "
					 "\"d\": %d, \"k\": %d, \"iterations\": %d, \"n\": %lld, \"centre\": \"%s\"",
					 st->spec.d, st->spec.k, st->spec.iterations, (long long) pl->nrows,
					 st->origin ? "origin" : "box");
	jl_json_num(&info, "epsilon", pl->epsilon);
	jl_json_num(&info, "delta", pl->delta_charged);
	jl_json_num(&info, "epsilon_effective", st->cal.epsilon_effective);
	jl_json_num(&info, "bound", st->spec.diameter);
	jl_json_num(&info, "radius", st->spec.radius);
	jl_json_num(&info, "noise_variance", st->cal.sum_sd * st->cal.sum_sd);
	jl_json_num(&info, "count_sd", st->cal.count_sd);
	jl_json_num(&info, "grid", st->cal.grid);
	jl_json_num(&info, "sigma_in_grid_steps", (double) st->cal.s);
	jl_json_num(&info, "lambda", st->cal.lambda);
	jl_json_num(&info, "sensitivity", st->cal.sensitivity);
	jl_json_num(&info, "mu", st->cal.mu);
	jl_json_num(&info, "rho", st->cal.rho);
	appendStringInfo(&info, ", \"release\": \"jl_release\", \"release_mechanism\": \"kmeans\", %s, \"guarantee\": ",
					 jl_declaration_json(&pl->decl));
	escape_json(&info, guarantee);
	appendStringInfoChar(&info, '}');

	rec.source = pl->decl.relation_q;
	rec.target = pl->target;
	rec.id_column = "cluster";
	rec.vector = "centroid";
	rec.clipping = isnan(pl->decl.row_clip) ? "declared: attributes clamped to their bounds and mapped to [0, weight]" :
		"declared: attributes clamped to their bounds and mapped to [0, weight], the row scaled to the row clip";
	rec.key_fingerprint = "none: no projection";
	rec.info = info.data;
	rec.ledger_id = pl->ledger_id;
	rec.dataset = pl->decl.dataset;
	return jl_registry_write(pl->nsp, &rec);
}

const JlMechanismOps jl_kmeans_ops = {
	true, false, false, km_calibrate, km_write, km_guarantee, km_record
};
