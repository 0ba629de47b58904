/*
 * sketch.c - the sketch mechanism of the pipeline (jl_sketch): each unit's
 * encoded row x projected by the key's P (or not: kind 'identity') plus
 * noise on the grid, into a table (id, sketch float8[]).
 *
 * Its calibration follows the declaration.  Row neighbours: two encoded
 * rows are at most min(2 row_clip, the box's diameter) apart, times the
 * projection's statistic for rows.  Attribute neighbours: the largest move
 * of x P when one declared attribute changes within its encoding
 * (math/projection/attribute_sensitivity.h), per unit bound.
 */
#include "postgres.h"

#include <math.h>

#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"
#include "catalog/pg_type.h"

#include "math/projection/attribute_sensitivity.h"
#include "math/projection/calibrate.h"
#include "math/projection/grid.h"
#include "math/projection/release.h"
#include "math/projection/sparse.h"

#include "pg/common/arrays.h"
#include "pg/common/calibration_json.h"
#include "pg/common/options.h"
#include "pg/pipeline/pipeline.h"
#include "pg/keys/projection_cache.h"
#include "pg/catalog/registry.h"
#include "pg/keys/strong_random.h"
#include "pg/engines/table_releaser.h"

typedef struct SketchState
{
	JlRowRelease rows;
	double		bound;			/* row neighbours: the L2 distance of two rows */
} SketchState;

/* the L2 distance of two encoded rows under row neighbours */
static double
declared_row_bound(const JlDeclaration *decl)
{
	double		diam = jl_attribute_diameter(decl->spans, decl->nattrs, decl->d);

	if (diam < 0.0)
		return diam;
	return isnan(decl->row_clip) ? diam : fmin(2.0 * decl->row_clip, diam);
}

JlStatus
jl_sketch_calibrate_declared(JlMechanism *m, const JlDeclaration *decl, JlProjection *p,
							 int k, bool strict, double *scale)
{
	JlStatus	s;

	if (decl->row)
		*scale = declared_row_bound(decl);
	else
	{
		*scale = jl_attribute_sensitivity(p->P, decl->d, k, decl->spans, decl->nattrs,
										  m->noise == JL_NOISE_LAPLACE ? 1 : 2);
		CHECK_FOR_INTERRUPTS();
	}
	if (*scale < 0.0)
	{
		if (strict)
			elog(ERROR, "the declaration of %s has an invalid attribute span", decl->relation_q);
		return JL_ERR_BOUND;
	}
	/* the same range a release is refused outside of, for every option ranked */
	s = jl_check_scales(m->epsilon, *scale);
	if (strict)
		jl_report_status(s);
	else if (s != JL_OK)
		return s;
	if (decl->row)
	{
		m->neighbor = JL_NEIGHBOR_ROW;
		m->bound = *scale;
		return strict ? (jl_calibrate_on(m, p), JL_OK) : jl_calibrate_status(m, p);
	}
	else
	{
		JlProjStats stats = p->stats;

		if (m->noise == JL_NOISE_LAPLACE)
			stats.max_row_l1 = *scale;
		else
			stats.max_row_l2 = *scale;
		m->neighbor = JL_NEIGHBOR_ELEMENT;
		m->bound = 1.0;
		return jl_calibrate_to(m, &stats);
	}
}

static void
sketch_calibrate(JlPipeline *pl)
{
	const JlSketchSpec *spec = &pl->spec.sketch;
	JlDeclaration *decl = &pl->decl;
	SketchState *st = palloc0(sizeof(SketchState));
	JlMechanism *m = &st->rows.m;
	JlProjection *p;

	/*
	 * Dhaliwal et al.'s constants are for reproducing their experiments with
	 * jl_private_release; a protected table is calibrated to its realized P
	 */
	if (spec->calibration == JL_CALIBRATION_PAPER)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("jl_release does not take calibration 'paper'"),
				 errdetail("The paper's constants are for reproducing Dhaliwal et al. with jl_private_release."),
				 errhint("Leave calibration out: the noise is calibrated to the realized projection. Nothing was charged.")));
	pl->state = st;
	st->rows.kind = spec->kind;
	st->rows.k = spec->k > 0 ? spec->k : (int) decl->d;
	st->rows.d = (int) decl->d;
	jl_check_identity_k(spec->kind, st->rows.k, decl->d, "the declared width d");
	m->noise = spec->noise;
	m->calibration = spec->calibration;
	m->delta = spec->delta;
	m->epsilon = pl->epsilon;
	if (decl->long_format)
	{
		/*
		 * Long format: one element of d (its row of P made on demand) per
		 * attribute, in [0, weight]; P's statistics streamed, never held
		 */
		if (decl->row)
		{
			st->bound = declared_row_bound(decl);
			m->neighbor = JL_NEIGHBOR_ROW;
		}
		else
		{
			st->bound = decl->attrs[0].weight;
			m->neighbor = JL_NEIGHBOR_ELEMENT;
		}
		jl_require_scales(pl->epsilon, st->bound);
		m->bound = st->bound;
		jl_calibrate_streamed(m, pl->key.secret, st->rows.kind, st->rows.k, decl->d);
		if (!decl->row)
			st->bound = NAN;
		goto calibrated;
	}
	p = jl_projection_get(pl->key.secret, st->rows.kind, st->rows.k, decl->d);
	jl_report_status(jl_sketch_calibrate_declared(m, decl, p, st->rows.k, true, &st->bound));
	if (!decl->row)
		st->bound = NAN;
calibrated:
	jl_refuse_invalid(m);
	{
		/*
		 * how far a row reaches: under attribute neighbours the noise is
		 * calibrated to bound 1 and the attribute's move, while a coordinate
		 * spans [0, weight]
		 */
		JlMechanism reach = *m;
		int			i;

		if (!decl->row && !decl->long_format)
			for (reach.bound = 0.0, i = 0; i < decl->nattrs; i++)
				reach.bound = fmax(reach.bound, decl->attrs[i].weight);
		jl_warn_saturation(&reach, JL_KIND_IS_IDENTITY(jl_kind_resolve(st->rows.kind, decl->d)));
	}
	st->rows.precalibrated = true;
	pl->delta_charged = spec->noise == JL_NOISE_GAUSSIAN ? spec->delta : 0.0;
	pl->noise_variance = m->noise_variance;
	/* Gaussian noise: the zCDP of the discrete Gaussian it samples, and the
	 * Gaussian shift that dominates it */
	pl->profile.kind = spec->noise == JL_NOISE_GAUSSIAN ? JL_PROFILE_ZCDP : JL_PROFILE_PURE;
	pl->profile.rho = spec->noise == JL_NOISE_GAUSSIAN ? m->rho : NAN;
	pl->profile.mu = spec->noise == JL_NOISE_GAUSSIAN ? jl_calibration_gdp_mu(m) : NAN;
}

/* P held densely for long format up to this size; rows made on demand beyond */
#define LONG_DENSE_MAX_BYTES ((Size) 64 * 1024 * 1024)
#define LONG_BATCH_ROWS 1000

/* one unit's elements projected, noised and inserted */
typedef struct LongUnit
{
	JlSparsePair *pairs;
	int64		n,
				cap;
	double	   *y,
			   *rowbuf,
			   *cbuf;
	const double *P;			/* dense, or NULL */
	JlKind		kind;
	SPIPlanPtr	insert;
	MemoryContext cxt;			/* the current unit's datum and pairs */
	Datum		unit;
	bool		have_unit;
} LongUnit;

static void
long_release_unit(JlPipeline *pl, SketchState *st, LongUnit *lu)
{
	JlMechanism *m = &st->rows.m;
	int			k = st->rows.k;
	int64		n = jl_sparse_compact(lu->pairs, lu->n);
	Datum		values[2];
	int64		i;

	if (pl->decl.row && !isnan(pl->decl.row_clip))
	{
		double		n2 = 0.0;

		for (i = 0; i < n; i++)
			n2 += lu->pairs[i].value * lu->pairs[i].value;
		if (n2 > pl->decl.row_clip * pl->decl.row_clip)
		{
			/* a hair inside, so rounding cannot leave the norm above the clip */
			double		s = pl->decl.row_clip / sqrt(n2) * (1.0 - 1e-12);

			for (i = 0; i < n; i++)
				lu->pairs[i].value *= s;
		}
	}
	if (jl_sparse_row_class(m, lu->pairs, n) & JL_ROW_COMPENSATED)
		jl_sparse_project_compensated(lu->pairs, n, pl->key.secret, lu->kind, k, lu->P,
									  lu->rowbuf, m->input_limit, lu->cbuf, lu->y);
	else
		jl_sparse_project(lu->pairs, n, pl->key.secret, lu->kind, k, lu->P, lu->rowbuf,
						  m->input_limit, lu->y);
	jl_report_status(jl_noise_on_grid(m, lu->y, jl_strong_random()));
	values[0] = lu->unit;
	values[1] = PointerGetDatum(jl_vector_array(lu->y, k));
	if (SPI_execute_plan(lu->insert, values, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not insert a sketch into %s", pl->target_q);
	pl->nrows++;
	lu->n = 0;
	lu->have_unit = false;
	MemoryContextReset(lu->cxt);
	lu->pairs = NULL;
	lu->cap = 0;
}

/*
 * Long format: the reader gives (unit, attribute, encoded value) in order
 * of the unit; each unit's elements 1..d (others are not part of the
 * vector and are not read into it) are released as one sketch.  A unit
 * with no element in range is still released (its vector is 0): whether
 * a unit appears never depends on its values.
 */
static void
long_write(JlPipeline *pl, SketchState *st)
{
	LongUnit	lu;
	Oid			types[2] = {pl->decl.unit_type, FLOAT8ARRAYOID};
	TypeCacheEntry *tc = lookup_type_cache(pl->decl.unit_type, TYPECACHE_EQ_OPR_FINFO);
	Oid			coll,
				utype;
	int32		utypmod;
	int16		typlen;
	bool		typbyval;
	MemoryContext batch = AllocSetContextCreate(CurrentMemoryContext, "jldp long batch",
												ALLOCSET_DEFAULT_SIZES);
	Portal		cur;
	int			k = st->rows.k;

	memset(&lu, 0, sizeof(lu));
	get_atttypetypmodcoll(pl->decl.relid, pl->decl.unit_att, &utype, &utypmod, &coll);
	get_typlenbyval(pl->decl.unit_type, &typlen, &typbyval);
	lu.kind = jl_kind_resolve(st->rows.kind, pl->decl.d);
	if ((double) pl->decl.d * k * sizeof(double) <= LONG_DENSE_MAX_BYTES &&
		!JL_KIND_IS_IDENTITY(lu.kind))
		lu.P = jl_projection_get(pl->key.secret, st->rows.kind, k, pl->decl.d)->P;
	lu.y = palloc(sizeof(double) * k);
	lu.rowbuf = palloc(sizeof(double) * k);
	lu.cbuf = palloc(sizeof(double) * k);
	lu.cxt = AllocSetContextCreate(CurrentMemoryContext, "jldp long unit", ALLOCSET_DEFAULT_SIZES);
	lu.insert = SPI_prepare(psprintf("INSERT INTO %s VALUES ($1, $2)", pl->target_q), 2, types);
	if (lu.insert == NULL)
		elog(ERROR, "could not prepare the insert into %s", pl->target_q);

	/* read-write: a snapshot taken now, after the lock and the checks */
	cur = SPI_cursor_open_with_args(NULL, jl_pipeline_rows_sql(pl), 0, NULL, NULL, NULL, false, 0);
	for (;;)
	{
		SPITupleTable *tt;
		uint64		i,
					got;

		SPI_cursor_fetch(cur, true, LONG_BATCH_ROWS);
		got = SPI_processed;
		tt = SPI_tuptable;
		if (got == 0)
			break;
		for (i = 0; i < got; i++)
		{
			bool		isnull;
			Datum		u = SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull);
			int64		attr;
			double		value;
			MemoryContext old;

			if (isnull)
				elog(ERROR, "the reader of %s gave a NULL unit", pl->decl.relation_q);
			if (lu.have_unit &&
				!DatumGetBool(FunctionCall2Coll(&tc->eq_opr_finfo, coll, lu.unit, u)))
				long_release_unit(pl, st, &lu);
			old = MemoryContextSwitchTo(lu.cxt);
			if (!lu.have_unit)
			{
				lu.unit = datumCopy(u, typbyval, typlen);
				lu.have_unit = true;
			}
			attr = DatumGetInt64(SPI_getbinval(tt->vals[i], tt->tupdesc, 2, &isnull));
			value = DatumGetFloat8(SPI_getbinval(tt->vals[i], tt->tupdesc, 3, &isnull));
			if (attr >= 1 && attr <= pl->decl.d && value != 0.0)
			{
				if (lu.n == lu.cap)
				{
					lu.cap = lu.cap ? 2 * lu.cap : 64;
					lu.pairs = lu.pairs ? repalloc_huge(lu.pairs, sizeof(JlSparsePair) * lu.cap) :
						palloc(sizeof(JlSparsePair) * lu.cap);
				}
				lu.pairs[lu.n].attr = (int32) attr;
				lu.pairs[lu.n].value = value;
				lu.n++;
			}
			MemoryContextSwitchTo(old);
		}
		SPI_freetuptable(tt);
		MemoryContextReset(batch);
		CHECK_FOR_INTERRUPTS();
	}
	if (lu.have_unit)
		long_release_unit(pl, st, &lu);
	SPI_cursor_close(cur);
	explicit_bzero(lu.rowbuf, sizeof(double) * k);
	MemoryContextDelete(lu.cxt);
	MemoryContextDelete(batch);
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
	if (pl->decl.long_format)
	{
		long_write(pl, st);
		return;
	}

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
		appendStringInfoString(&b, ", against one declared attribute of one unit (one element, of a vector or long-format attribute) changed within its bounds");
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
	appendStringInfo(&info, ", \"rows\": %lld, \"release\": \"jl_release\", \"release_mechanism\": \"%s\", %s",
					 (long long) pl->nrows, pl->advice_json ? "advised" : "sketch",
					 jl_declaration_json(&pl->decl));
	if (pl->advice_json)
		appendStringInfoString(&info, pl->advice_json);
	appendStringInfoString(&info, ", \"guarantee\": ");
	escape_json(&info, guarantee);
	if (pl->part)
		appendStringInfo(&info, ", %s", jl_pipeline_part_json(pl));
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
	true, true, true, sketch_calibrate, sketch_write, sketch_guarantee, sketch_record
};
