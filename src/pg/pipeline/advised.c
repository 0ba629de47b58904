/*
 * advised.c - the advised mechanism of the pipeline (jl_advised): the
 * sketch the advisor ranks first for the goal (no projection, or a kind at
 * its best k; Laplace or, with delta, Gaussian noise), every candidate
 * calibrated to the declaration exactly as the sketch mechanism calibrates
 * it (jl_sketch_calibrate_declared).  Before the charge, when even the
 * best option would not serve the goal (math/estimate/advise.h: jl_advise_useful),
 * the release is refused with the epsilon at which it would, unless
 * forced.  From then on it is the sketch mechanism, whose record gains the
 * advice.
 *
 * Every input of the choice is public: the declaration, epsilon, the
 * goal's distances and the table's row count from the catalog's
 * statistics (the number of units is not protected by any release); no
 * row is read.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/syscache.h"

#include "math/estimate/advise.h"

#include "pg/advice/advice.h"
#include "pg/common/calibration_json.h"
#include "pg/common/options.h"
#include "pg/pipeline/pipeline.h"


static JlStatus
declared_calibrate(void *ctx, JlMechanism *m, JlProjection *p)
{
	const JlDeclaration *decl = ctx;
	double		scale;

	return jl_sketch_calibrate_declared(m, decl, p, p->P == NULL ? (int) decl->d : p->k,
										false, &scale);
}

/* the row count the planner knows, or INFINITY (never analyzed: centres known) */
static double
catalog_rows(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	double		n = INFINITY;

	if (HeapTupleIsValid(tup))
	{
		float4		t = ((Form_pg_class) GETSTRUCT(tup))->reltuples;

		if (t >= 2)
			n = t;
		ReleaseSysCache(tup);
	}
	return n;
}

static void
advice_args(const JlPipeline *pl, JlAdviseArgs *a)
{
	const JlAdvisedSpec *spec = &pl->spec.advised;
	const JlDeclaration *decl = &pl->decl;

	memset(a, 0, sizeof(*a));
	if (decl->d > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("jl_advised ranks releases of at most %d attributes; %s declares " INT64_FORMAT,
						PG_INT32_MAX, decl->relation_q, decl->d)));
	a->p.d = decl->d;
	a->p.lo = spec->dist2;
	a->p.hi = spec->dist2_hi;
	a->p.goal = (JlAdviseGoal) spec->goal;
	a->p.cluster_var = spec->goal == JL_GOAL_CLUSTERING ? spec->cluster_var : 0.0;
	a->p.n = spec->goal == JL_GOAL_CLUSTERING ? catalog_rows(decl->relid) : INFINITY;
	a->epsilon = pl->epsilon;
	a->delta = spec->delta;
	a->neighbor = decl->row ? JL_NEIGHBOR_ROW : JL_NEIGHBOR_ELEMENT;
	a->bound = 1.0;				/* unused: the declaration calibrates */
	jl_advise_allow_noises(a, spec->noise_given, spec->noise);
	a->kmax = Min((int) decl->d, jl_largest_k((int32) decl->d, a->neighbor));
	a->calibrate = declared_calibrate;
	a->calibrate_ctx = (void *) decl;
}

static const char *
option_text(const JlAdviseOption *o)
{
	if (JL_KIND_IS_IDENTITY(o->kind))
		return psprintf("no projection (k = d = %d) with %s noise", o->k, jl_noise_name(o->noise));
	return psprintf("%s projection to k = %d with %s noise", jl_kind_name(o->kind), o->k,
					jl_noise_name(o->noise));
}

/* not useful: refused, with what would be */
static void
refuse_useless(JlPipeline *pl, JlAdviseArgs *a, const JlAdviseChoice *c)
{
	const JlAdviseProblem *p = &a->p;
	double		floor_error = jl_advise_noise_free_error(p);
	double		need;

	if (p->goal == JL_GOAL_CLUSTERING && !jl_advise_useful(p, floor_error))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no release of %s is useful for clustering: its best option, %s, %s",
						pl->decl.relation_q, option_text(&c->best), jl_advise_error_words(p, c->best.predicted_error)),
				 errdetail("Even without noise the clusters overlap: with cluster_var %.6g the nearest-centre rule misclassifies %.3g.",
						   p->cluster_var, floor_error),
				 errhint("No epsilon helps.  Check dist2 and cluster_var (of the encoded attributes), or release with jl_advised(..., force => true).")));
	need = jl_advise_epsilon_needed(a, pl->key.secret);
	if (isinf(need))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no release of %s is useful for goal %s at epsilon %g: its best option, %s, %s",
						pl->decl.relation_q, jl_advise_goal_name(p->goal), pl->epsilon,
						option_text(&c->best), jl_advise_error_words(p, c->best.predicted_error)),
				 errdetail("No epsilon up to %g would make one useful.", JL_ADVISE_MAX_EPSILON),
				 errhint("Nothing was charged.  Release with jl_advised(..., force => true) to go ahead anyway.")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("no release of %s is useful for goal %s at epsilon %g: its best option, %s, %s",
					pl->decl.relation_q, jl_advise_goal_name(p->goal), pl->epsilon,
					option_text(&c->best), jl_advise_error_words(p, c->best.predicted_error)),
			 errdetail("At epsilon %.3g the best option would be useful.", need),
			 errhint("Nothing was charged.  Release at epsilon %.3g or more, or with jl_advised(..., force => true) to go ahead anyway.",
					 need)));
}

static void
option_json(StringInfo b, const JlAdviseOption *o)
{
	appendStringInfo(b, "{\"kind\": \"%s\", \"k\": %d, \"noise\": \"%s\"",
					 jl_kind_name(o->kind), o->k, jl_noise_name(o->noise));
	jl_json_num(b, "predicted_error", o->predicted_error);
	jl_json_num(b, "relative_error", o->relative);
	appendStringInfoChar(b, '}');
}

static char *
advice_json(const JlAdviseArgs *a, const JlAdviseChoice *c, bool useful)
{
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfo(&b, ", \"chosen_by\": \"jl_advised\", \"advice\": {\"goal\": \"%s\"",
					 jl_advise_goal_name(a->p.goal));
	jl_json_num(&b, "dist2", a->p.lo);
	jl_json_num(&b, "dist2_hi", a->p.hi);
	if (a->p.goal == JL_GOAL_CLUSTERING)
	{
		jl_json_num(&b, "cluster_var", a->p.cluster_var);
		if (isfinite(a->p.n))
			jl_json_num(&b, "n", a->p.n);
		else
			appendStringInfoString(&b, ", \"n\": null");
	}
	appendStringInfo(&b, ", \"noises\": \"%s\", \"useful\": %s, \"chosen\": ",
					 a->noise[JL_NOISE_LAPLACE] && a->noise[JL_NOISE_GAUSSIAN] ?
					 "laplace, gaussian" : a->noise[JL_NOISE_GAUSSIAN] ? "gaussian" : "laplace",
					 useful ? "true" : "false");
	option_json(&b, &c->best);
	appendStringInfoString(&b, ", \"runner_up\": ");
	if (c->has_runner_up)
		option_json(&b, &c->runner_up);
	else
		appendStringInfoString(&b, "null");
	appendStringInfoChar(&b, '}');
	return b.data;
}

static void
advised_calibrate(JlPipeline *pl)
{
	const JlAdvisedSpec *spec = &pl->spec.advised;
	JlAdviseArgs a;
	JlAdviseChoice c;
	JlSketchSpec *sk;
	bool		useful;

	if (pl->decl.long_format)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("jl_advised does not rank releases of long-format tables"),
				 errdetail("%s has d = " INT64_FORMAT ": a projection of every k would be made to rank them.",
						   pl->decl.relation_q, pl->decl.d),
				 errhint("Choose with jl_advise(d, epsilon, dist2, ...) and release with jl_sketch(k => ...).")));
	advice_args(pl, &a);
	jl_check_choice_args((int32) a.p.d, a.epsilon, a.p.lo, a.p.hi);
	jl_advise_choose(&a, pl->key.secret, &c);
	useful = jl_advise_useful(&a.p, c.best.predicted_error);
	if (!useful && !spec->force)
		refuse_useless(pl, &a, &c);
	a.epsilon = pl->epsilon;
	pl->advice_json = advice_json(&a, &c, useful);

	/* from here the sketch mechanism with the option chosen */
	pl->spec.kind = JL_MECHANISM_SKETCH;
	sk = &pl->spec.sketch;
	sk->kind = c.best.kind;
	sk->k = JL_KIND_IS_IDENTITY(c.best.kind) ? 0 : c.best.k;
	sk->noise = c.best.noise;
	sk->delta = c.best.noise == JL_NOISE_GAUSSIAN ? spec->delta : NAN;
	sk->calibration = c.best.noise == JL_NOISE_GAUSSIAN ? JL_CALIBRATION_ANALYTIC :
		JL_CALIBRATION_EXACT;
	jl_sketch_ops.calibrate(pl);
	/* once the release is certain to be calibrated (the charge may still refuse it) */
	if (!useful)
		ereport(WARNING,
				(errmsg("releasing although no option is useful for goal %s: the best, %s, %s",
						jl_advise_goal_name(a.p.goal), option_text(&c.best),
						jl_advise_error_words(&a.p, c.best.predicted_error)),
				 errdetail("force => true was given.")));
}

static void
advised_write(JlPipeline *pl)
{
	jl_sketch_ops.write(pl);
}

static char *
advised_guarantee(JlPipeline *pl)
{
	return jl_sketch_ops.guarantee(pl);
}

static int64
advised_record(JlPipeline *pl, const char *guarantee)
{
	return jl_sketch_ops.record(pl, guarantee);
}

const JlMechanismOps jl_advised_ops = {
	true, true, true, advised_calibrate, advised_write, advised_guarantee, advised_record
};
