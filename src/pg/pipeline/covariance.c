/*
 * covariance.c - the covariance mechanism of the pipeline
 * (jl_covariance_mechanism): Blocki et al.'s release of R = Y [A; l I], r
 * rows, A the protected table's encoded rows (pg/engines/covariance_release.c does
 * the arithmetic).  The accountant's neighbours replace one row of A by
 * any other of L2 norm at most C: C is the declaration's row clip, or the
 * largest norm of an encoded row (each number at its weight, each category
 * one weight); a change of one attribute is such a replacement, so the
 * guarantee is stated for rows whatever the declaration's notion.
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/json.h"

#include "math/covariance/covariance_accountant.h"

#include "pg/engines/covariance_release.h"
#include "pg/common/options.h"
#include "pg/pipeline/pipeline.h"

static void
cov_calibrate(JlPipeline *pl)
{
	const JlCovarianceSpec *spec = &pl->spec.covariance;
	CovRelease *cr = palloc0(sizeof(CovRelease));
	double		norm;

	pl->state = cr;
	if (pl->decl.long_format)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the covariance mechanism reads wide rows, and %s is declared in long format",
						pl->decl.relation_q),
				 errhint("Release long-format tables with jl_sketch.")));
	if (!(pl->epsilon <= JL_COV_MAX_EPSILON))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be at most %g for the covariance mechanism, not %g",
						JL_COV_MAX_EPSILON, pl->epsilon),
				 errhint("The accountant computes e^epsilon; an epsilon above %g protects nothing.",
						 JL_COV_MAX_EPSILON)));
	if (spec->origin_zero)
	{
		double	   *offset = palloc(sizeof(double) * pl->decl.d);

		norm = jl_declaration_origin_offset(&pl->decl, offset);
		cr->offset = offset;
	}
	else
		norm = jl_declaration_largest_norm(&pl->decl);
	cr->nsp = pl->nsp;
	cr->source = pl->decl.relid;
	cr->source_q = pl->decl.relation_q;
	cr->r = spec->r;
	cr->d = (int) pl->decl.d;
	cr->epsilon = pl->epsilon;
	cr->delta = spec->delta;
	cr->C = isnan(pl->decl.row_clip) ? norm : fmin(pl->decl.row_clip, norm);
	cr->auto_lift = spec->auto_lift;
	cr->gram = spec->gram;
	jl_require_scales(cr->epsilon, cr->C);
	initStringInfo(&cr->sql);
	appendStringInfo(&cr->sql, "SELECT v FROM (%s) AS s (u, v)", jl_pipeline_rows_sql(pl));
	initStringInfo(&cr->vec_desc);
	appendStringInfoString(&cr->vec_desc, jl_declaration_describe(&pl->decl));
	jl_cov_check_memory(cr);
	jl_cov_calibrate(cr);
	pl->delta_charged = spec->delta;
	pl->noise_variance = NAN;	/* known once the lift is: l^2 */
}

static void
cov_write(JlPipeline *pl)
{
	CovRelease *cr = pl->state;

	cr->target_name = pl->target_name;
	cr->target_nsp = pl->target_nsp;
	cr->target_rel = pl->target_rel;
	cr->target_q = pl->target_q;
	cr->fresh_snapshot = true;
	cr->allow_empty = true;
	jl_cov_write(cr);
	pl->target = cr->target;
	pl->nrows = cr->nrows;
	pl->noise_variance = cr->l * cr->l;
}

static char *
cov_guarantee(JlPipeline *pl)
{
	CovRelease *cr = pl->state;
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfo(&b, "(epsilon = %g, delta = %g) differential privacy (the Johnson-Lindenstrauss transform of Blocki et al., %d rows, lifted by %.6g; the accountant's delta %.3g) for each unit (%s) of %s, against a unit's row replaced by any other of L2 norm at most %.6g after encoding%s",
					 pl->epsilon, pl->delta_charged, cr->r, cr->l, cr->w_delta, pl->decl.unit,
					 pl->decl.relation_q, cr->C,
					 cr->offset ? " (numbers about their zero: x weight / (hi - lo))" : "");
	jl_pipeline_not_protected(&b, pl);
	return b.data;
}

static int64
cov_record(JlPipeline *pl, const char *guarantee)
{
	CovRelease *cr = pl->state;
	StringInfoData extra;

	initStringInfo(&extra);
	appendStringInfo(&extra, "\"release\": \"jl_release\", \"release_mechanism\": \"covariance\", \"origin\": \"%s\", %s, \"guarantee\": ",
					 cr->offset ? "zero" : "lo", jl_declaration_json(&pl->decl));
	escape_json(&extra, guarantee);
	cr->extra_info = extra.data;
	cr->ledger_id = pl->ledger_id;
	cr->dataset = pl->decl.dataset;
	return jl_cov_record(cr);
}

const JlMechanismOps jl_covariance_ops = {
	true, false, false, cov_calibrate, cov_write, cov_guarantee, cov_record
};
