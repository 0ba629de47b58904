/*
 * sketch.c - the sketch mechanism of the pipeline (jl_sketch): each unit's
 * encoded row x projected by the key's P (or not: kind 'identity') plus
 * noise on the grid, into a table (id, sketch float8[]).
 *
 * Its calibration follows the declaration.  Row neighbours: two encoded
 * rows are at most min(2 row_clip, the box's diameter) apart, times the
 * projection's statistic for rows.  Attribute neighbours: the largest move
 * of x P when one declared attribute changes within its encoding
 * (math/attribute_sensitivity.h), per unit bound.
 */
#include "postgres.h"

#include <math.h>

#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"

#include "math/attribute_sensitivity.h"
#include "math/calibrate.h"

#include "pg/calibration_json.h"
#include "pg/options.h"
#include "pg/pipeline/pipeline.h"
#include "pg/projection_cache.h"
#include "pg/registry.h"
#include "pg/table_releaser.h"

typedef struct SketchState
{
	JlRowRelease rows;
	double		bound;			/* row neighbours: the L2 distance of two rows */
} SketchState;

static void
sketch_calibrate(JlPipeline *pl)
{
	const JlSketchSpec *spec = &pl->spec.sketch;
	JlDeclaration *decl = &pl->decl;
	SketchState *st = palloc0(sizeof(SketchState));
	JlMechanism *m = &st->rows.m;
	JlProjection *p;

	pl->state = st;
	st->rows.kind = spec->kind;
	st->rows.k = spec->k > 0 ? spec->k : (int) decl->d;
	st->rows.d = (int) decl->d;
	jl_check_identity_k(spec->kind, st->rows.k, decl->d, "the declared width d");
	m->noise = spec->noise;
	m->calibration = spec->calibration;
	m->delta = spec->delta;
	m->epsilon = pl->epsilon;
	p = jl_projection_get(pl->key.secret, st->rows.kind, st->rows.k, decl->d);
	if (decl->row)
	{
		double		diam = jl_attribute_diameter(decl->spans, decl->nattrs, decl->d);

		if (diam < 0.0)
			elog(ERROR, "the declaration of %s has an invalid attribute span", decl->relation_q);
		st->bound = isnan(decl->row_clip) ? diam : fmin(2.0 * decl->row_clip, diam);
		jl_require_scales(pl->epsilon, st->bound);
		m->neighbor = JL_NEIGHBOR_ROW;
		m->bound = st->bound;
		jl_calibrate_on(m, p);
	}
	else
	{
		JlProjStats stats = p->stats;
		double		s = jl_attribute_sensitivity(p->P, decl->d, st->rows.k, decl->spans,
												 decl->nattrs, m->noise == JL_NOISE_LAPLACE ? 1 : 2);

		CHECK_FOR_INTERRUPTS();
		if (s < 0.0)
			elog(ERROR, "the declaration of %s has an invalid attribute span", decl->relation_q);
		jl_require_scales(pl->epsilon, s);
		if (m->noise == JL_NOISE_LAPLACE)
			stats.max_row_l1 = s;
		else
			stats.max_row_l2 = s;
		m->neighbor = JL_NEIGHBOR_ELEMENT;
		m->bound = 1.0;
		st->bound = NAN;
		jl_report_status(jl_calibrate_to(m, &stats));
	}
	jl_refuse_invalid(m);
	jl_warn_saturation(m, JL_KIND_IS_IDENTITY(jl_kind_resolve(st->rows.kind, decl->d)));
	st->rows.precalibrated = true;
	pl->delta_charged = spec->noise == JL_NOISE_GAUSSIAN ? spec->delta : 0.0;
	pl->noise_variance = m->noise_variance;
}

/* the target (unit, sketch), typed by the pipeline, owned by the caller */
static void
sketch_write(JlPipeline *pl)
{
	SketchState *st = pl->state;
	JlRowRelease *r = &st->rows;
	double		wmax = 0.0;
	int			i;

	if (SPI_execute(psprintf("CREATE TABLE %s (id %s, sketch pg_catalog.float8[])", pl->target_q,
							 format_type_extended(pl->decl.unit_type, -1, FORMAT_TYPE_FORCE_QUALIFY)),
					false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create the target table");
	pl->target = get_relname_relid(pl->target_rel, pl->target_nsp);
	if (!OidIsValid(pl->target))
		elog(ERROR, "created table %s not found", pl->target_q);

	for (i = 0; i < pl->decl.nattrs; i++)
		wmax = fmax(wmax, pl->decl.attrs[i].weight);
	r->key = &pl->key;
	r->fresh_snapshot = true;
	r->id_col = pl->decl.unit;
	r->id_type = pl->decl.unit_type;
	/* the encoding keeps every coordinate in [0, weight]; kept there again */
	if (pl->decl.row && !isnan(pl->decl.row_clip))
	{
		r->clip.kind = JL_CLIP_NORM;
		r->clip.c = pl->decl.row_clip;
	}
	else
	{
		r->clip.kind = JL_CLIP_ELEMENT;
		r->clip.lo = 0.0;
		r->clip.hi = wmax;
	}
	pl->nrows = jl_release_rows(r, jl_pipeline_rows_sql(pl), pl->target);
}

static char *
sketch_guarantee(JlPipeline *pl)
{
	SketchState *st = pl->state;
	const JlMechanism *m = &st->rows.m;
	StringInfoData b;

	initStringInfo(&b);
	if (m->noise == JL_NOISE_LAPLACE)
		appendStringInfo(&b, "epsilon = %g differential privacy (Laplace noise; %.6g holds for this projection)",
						 pl->epsilon, m->epsilon_effective);
	else
		appendStringInfo(&b, "(epsilon = %g, delta = %g) differential privacy (Gaussian noise; delta %.3g holds)",
						 pl->epsilon, pl->delta_charged, m->delta_holding);
	appendStringInfo(&b, " for each unit (%s) of %s", pl->decl.unit, pl->decl.relation_q);
	if (pl->decl.row)
		appendStringInfo(&b, ", against a unit's row replaced by any other within the declared bounds (encoded rows at most %.6g apart)",
						 st->bound);
	else
		appendStringInfoString(&b, ", against one declared attribute of one unit changed within its bounds");
	jl_pipeline_not_protected(&b, pl);
	return b.data;
}

static int64
sketch_record(JlPipeline *pl, const char *guarantee)
{
	SketchState *st = pl->state;
	StringInfoData info,
				clipping;
	JlRegistryRecord rec;

	initStringInfo(&clipping);
	appendStringInfoString(&clipping, "declared: attributes clamped to their bounds and mapped to [0, weight]");
	if (pl->decl.row && !isnan(pl->decl.row_clip))
		appendStringInfo(&clipping, "; rows scaled to L2 norm <= %.17g", pl->decl.row_clip);
	initStringInfo(&info);
	jl_calibration_json(&info, JL_MECHANISM_PROJECTION, &st->rows.m,
						jl_kind_resolve(st->rows.kind, pl->decl.d), pl->key.fingerprint);
	appendStringInfo(&info, ", \"rows\": %lld, \"release\": \"jl_release\", \"release_mechanism\": \"sketch\", %s, \"guarantee\": ",
					 (long long) pl->nrows, jl_declaration_json(&pl->decl));
	escape_json(&info, guarantee);
	appendStringInfoChar(&info, '}');

	rec.source = pl->decl.relation_q;
	rec.target = pl->target;
	rec.id_column = pl->decl.unit;
	rec.vector = jl_declaration_describe(&pl->decl);
	rec.clipping = clipping.data;
	rec.key_fingerprint = pl->key.fingerprint;
	rec.info = info.data;
	rec.ledger_id = pl->ledger_id;
	rec.dataset = pl->decl.dataset;
	return jl_registry_write(pl->nsp, &rec);
}

const JlMechanismOps jl_sketch_ops = {
	true, true, sketch_calibrate, sketch_write, sketch_guarantee, sketch_record
};
