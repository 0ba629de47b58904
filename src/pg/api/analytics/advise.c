/*
 * advise.c - SQL entry point jl_advise: which release to use for rows of d
 * attributes, no projection or a projection kind at its best k, with
 * Laplace or Gaussian noise, ranked by the predicted error of a recovered
 * squared distance or of a nearest-centre clustering (math/estimate/advise.h).
 *
 * Every candidate is calibrated as jl_release_info would calibrate it: the
 * projections to the realized P of the key for each k tried, no projection
 * (P = I_d) to the statistics of the identity.  A calibration that refuses
 * marks its k infeasible; an option with no feasible k is shown as refused
 * and never ranked.  Nothing is written and no query is run, so the advisor
 * is safe in a parallel worker.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "math/estimate/advise.h"
#include "math/projection/calibrate.h"
#include "math/projection/sensitivity.h"

#include "pg/api/analytics/advise.h"
#include "pg/keys/keystore.h"
#include "pg/common/options.h"
#include "pg/keys/projection_cache.h"
#include "pg/api/analytics/suggest_k.h"
#include "pg/common/messages.h"
#include "pg/catalog/owner.h"

PG_FUNCTION_INFO_V1(jl_advise);

#define ADVISE_KINDS 4
static const JlKind advise_kinds[ADVISE_KINDS] = {
	JL_KIND_GAUSSIAN, JL_KIND_RADEMACHER, JL_KIND_ACHLIOPTAS, JL_KIND_SPARSE
};

/* per option: no projection and each kind */
#define ADVISE_OPTIONS (1 + ADVISE_KINDS)

/*
 * The calibrations of one kind for every k tried, with both noises on the
 * same P (the second search finds the first one's work done).
 */
typedef struct KindCalibrations
{
	const JlAdviseArgs *a;
	const uint8 *secret;
	JlKind		kind;
	JlNoise		searching;
	int			n;
	int			ks[2 * JL_ADVISE_MAX_EVALS];
	double		s2[2 * JL_ADVISE_MAX_EVALS][2];
	JlPShape	shape[2 * JL_ADVISE_MAX_EVALS];	/* of each P */
	JlStatus	refusal[2];		/* the last refusal of each noise */
} KindCalibrations;

/* The options of a release with this noise, as jl_release_info's defaults. */
static JlMechanism
release_options(const JlAdviseArgs *a, JlNoise noise)
{
	JlMechanism m;

	memset(&m, 0, sizeof(m));
	m.noise = noise;
	m.epsilon = a->epsilon;
	m.neighbor = a->neighbor;
	m.bound = a->bound;
	m.calibration = noise == JL_NOISE_GAUSSIAN ? JL_CALIBRATION_ANALYTIC :
		JL_CALIBRATION_EXACT;
	m.delta = noise == JL_NOISE_GAUSSIAN ? a->delta : NAN;
	return m;
}

/* s2 of a calibrated m, or NaN (the refusal kept in *refusal) */
static double
noise_variance_of(JlStatus s, const JlMechanism *m, JlStatus *refusal)
{
	if (s != JL_OK)
	{
		*refusal = s;
		return NAN;
	}
	if (!m->valid || !isfinite(m->noise_variance))
		return NAN;
	return m->noise_variance;
}

/* the distortion factor of P is computed up to this d k^2 (dsyrk) */
#define ADVISE_GRAM_WORK 1e9

static double
kind_variance(void *ctx, int k, JlPShape *shape)
{
	KindCalibrations *c = (KindCalibrations *) ctx;
	int64		d = c->a->p.d;
	int			i,
				noise;
	JlProjection *P;

	for (i = 0; i < c->n; i++)
		if (c->ks[i] == k)
		{
			*shape = c->shape[i];
			return c->s2[i][c->searching];
		}
	*shape = jl_p_shape_unknown();
	if (c->n >= 2 * JL_ADVISE_MAX_EVALS)
		return NAN;
	CHECK_FOR_INTERRUPTS();
	c->ks[c->n] = k;
	c->s2[c->n][0] = c->s2[c->n][1] = NAN;
	c->shape[c->n] = jl_p_shape_unknown();
	/* the row statistics of P would take too long to compute */
	if (c->a->neighbor == JL_NEIGHBOR_ROW && !jl_row_stats_affordable(d, k))
		return c->s2[c->n++][c->searching];
	P = jl_projection_get(c->secret, c->kind, k, d);
	if ((double) d * k * k <= ADVISE_GRAM_WORK)
		*shape = c->shape[c->n] = jl_p_shape(P->P, d, k);
	for (noise = 0; noise < 2; noise++)
		if (c->a->noise[noise])
		{
			JlMechanism m = release_options(c->a, (JlNoise) noise);
			JlStatus	s = c->a->calibrate ?
				c->a->calibrate(c->a->calibrate_ctx, &m, P) : jl_calibrate_status(&m, P);

			c->s2[c->n][noise] = noise_variance_of(s, &m, &c->refusal[noise]);
		}
	return c->s2[c->n++][c->searching];
}

/* One row of the result: a candidate and what it needs to be shown. */
typedef struct Option
{
	JlAdviseCandidate c;
	const char *kind;
	JlKind		kindv;
	JlNoise		noise;
	JlStatus	refusal;		/* why no k was feasible */
} Option;

const char *
jl_advise_goal_name(JlAdviseGoal goal)
{
	switch (goal)
	{
		case JL_GOAL_CLUSTERING:
			return "clustering";
		case JL_GOAL_NEIGHBORS:
			return "neighbors";
		default:
			return "distance";
	}
}

JlAdviseGoal
jl_advise_parse_goal(const char *label)
{
	if (strcmp(label, "distance") == 0)
		return JL_GOAL_DISTANCE;
	if (strcmp(label, "clustering") == 0)
		return JL_GOAL_CLUSTERING;
	if (strcmp(label, "neighbors") == 0)
		return JL_GOAL_NEIGHBORS;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown goal \"%s\"", jl_msg_str(label)),
			 errhint("Use 'distance' (recovered squared distances), 'clustering' (two clusters whose centres are dist2 apart) or 'neighbors' (a neighbour at dist2 ranked before a non-neighbour at dist2_hi).")));
	return JL_GOAL_DISTANCE;	/* not reached */
}

void
jl_advise_check_goal_distances(const char *who, JlAdviseGoal goal, double lo, double hi,
							   bool hi_given)
{
	if (goal != JL_GOAL_NEIGHBORS)
		return;
	if (!hi_given || !(hi > lo))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: goal 'neighbors' needs dist2_hi greater than dist2", who),
				 errdetail("A nearest-neighbour search must rank a neighbour, at squared distance dist2 from the query, before a non-neighbour at dist2_hi."),
				 errhint("For example dist2 => the squared distance to a typical nearest neighbour, dist2_hi => a typical squared distance between rows.")));
}

char *
jl_advise_error_words(const JlAdviseProblem *p, double error)
{
	switch (p->goal)
	{
		case JL_GOAL_CLUSTERING:
			return psprintf("misclassifies %.3g of the rows between two clusters whose centres are %.6g apart (squared; chance: 0.5, useful below %.2g)",
							error, p->lo, JL_ADVISE_USEFUL_MISCLASSIFICATION);
		case JL_GOAL_NEIGHBORS:
			return psprintf("ranks a non-neighbour at %.6g before a neighbour at %.6g (squared distances) with probability %.3g (chance: 0.5, useful below %.2g)",
							p->hi, p->lo, error, JL_ADVISE_USEFUL_MISCLASSIFICATION);
		default:
			return psprintf("recovers a squared distance of %.6g with a standard deviation of %.3g (useful below %.6g)",
							p->lo, error, p->lo);
	}
}

void
jl_advise_read_goal(FunctionCallInfo fcinfo, int goal_arg, JlAdviseProblem *p)
{
	int			var_arg = goal_arg + 1,
				n_arg = goal_arg + 2;
	char	   *goal = PG_ARGISNULL(goal_arg) ? "distance" :
		text_to_cstring(jl_option_arg(fcinfo, goal_arg));

	p->cluster_var = 0.0;
	p->n = INFINITY;
	p->goal = jl_advise_parse_goal(goal);
	if (p->goal != JL_GOAL_CLUSTERING)
	{
		if (!PG_ARGISNULL(var_arg) || !PG_ARGISNULL(n_arg))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cluster_var and n apply to goal 'clustering' only")));
		return;
	}
	if (PG_ARGISNULL(var_arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("goal 'clustering' needs cluster_var"),
				 errhint("cluster_var is the variance of one attribute of a row around its cluster's centre; 0 for points at their centres.")));
	p->cluster_var = PG_GETARG_FLOAT8(var_arg);
	if (!(isfinite(p->cluster_var) && p->cluster_var >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cluster_var must be a finite number >= 0")));
	if (!PG_ARGISNULL(n_arg))
	{
		int64		n = PG_GETARG_INT64(n_arg);

		if (n < 2)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("n must be at least 2, not " INT64_FORMAT, n)));
		p->n = (double) n;
	}
}

void
jl_advise_allow_noises(JlAdviseArgs *a, bool noise_given, JlNoise noise)
{
	a->noise[JL_NOISE_LAPLACE] = a->noise[JL_NOISE_GAUSSIAN] = false;
	if (noise_given)
		a->noise[noise] = true;
	else
	{
		a->noise[JL_NOISE_LAPLACE] = true;
		a->noise[JL_NOISE_GAUSSIAN] = !isnan(a->delta);
	}
	if (a->noise[JL_NOISE_GAUSSIAN] && isnan(a->delta))
		jl_report_status(JL_ERR_GAUSSIAN_DELTA_REQUIRED);
}

/*
 * Arguments: 0 d, 1 epsilon, 2 dist2, 3 dist2_hi, 4 neighbor, 5 bound,
 * 6 noise, 7 delta, 8 goal, 9 cluster_var, 10 n, 11 key.
 */
static void
read_advise_args(FunctionCallInfo fcinfo, JlAdviseArgs *a)
{
	JlAdviseProblem *p = &a->p;
	int32		d;

	memset(a, 0, sizeof(*a));
	jl_require_arg(fcinfo, 0, "d");
	jl_require_arg(fcinfo, 1, "epsilon");
	jl_require_arg(fcinfo, 2, "dist2");
	jl_require_arg(fcinfo, 4, "neighbor");
	jl_require_arg(fcinfo, 5, "bound");
	jl_require_arg(fcinfo, 8, "goal");
	jl_require_arg(fcinfo, 11, "key");
	d = PG_GETARG_INT32(0);
	p->d = d;
	a->epsilon = PG_GETARG_FLOAT8(1);
	p->lo = PG_GETARG_FLOAT8(2);
	p->hi = PG_ARGISNULL(3) ? p->lo : PG_GETARG_FLOAT8(3);
	jl_check_choice_args(d, a->epsilon, p->lo, p->hi);
	a->neighbor = jl_parse_neighbor(jl_option_arg(fcinfo, 4));
	a->bound = PG_GETARG_FLOAT8(5);
	if (!(isfinite(a->bound) && a->bound > 0.0))
		jl_report_status(JL_ERR_BOUND);
	a->delta = PG_ARGISNULL(7) ? NAN : PG_GETARG_FLOAT8(7);
	if (!PG_ARGISNULL(7) && !(a->delta > 0.0 && a->delta < 1.0))
		jl_report_status(JL_ERR_DELTA);
	jl_advise_allow_noises(a, !PG_ARGISNULL(6),
						   PG_ARGISNULL(6) ? JL_NOISE_LAPLACE : jl_parse_noise(jl_option_arg(fcinfo, 6)));
	jl_advise_read_goal(fcinfo, 8, p);
	jl_advise_check_goal_distances("jl_advise", p->goal, p->lo, p->hi, !PG_ARGISNULL(3));
	a->kmax = Min(d, jl_largest_k(d, a->neighbor));
}

/* E[(sqrt(k) P_ij)^4] of a kind: the spread of projected clusters */
static double
kind_m4(JlKind kind, int64 d)
{
	switch (JL_KIND_BASE(kind))
	{
		case JL_KIND_RADEMACHER:
			return 1.0;
		case JL_KIND_SPARSE:
			return 1.0 / jl_kind_density(jl_kind_resolve(kind, d));
		default:
			return 3.0;			/* Gaussian and Achlioptas */
	}
}

/* No projection: P = I_d, k = d, calibrated to the identity's statistics. */
static void
identity_option(const JlAdviseArgs *a, const uint8 *secret, JlNoise noise,
				JlAdviseCandidate *c, Option *o)
{
	JlProjStats st;
	JlMechanism m = release_options(a, noise);
	JlStatus	s;
	double		s2;

	o->kind = "identity";
	o->kindv = JL_KIND_IDENTITY;
	o->noise = noise;
	o->refusal = JL_OK;
	if (a->calibrate)
		s = a->calibrate(a->calibrate_ctx, &m,
						 jl_projection_get(secret, JL_KIND_IDENTITY, (int) a->p.d, a->p.d));
	else
	{
		jl_identity_stats(a->p.d, &st);
		s = jl_calibrate_to(&m, &st);
	}
	s2 = noise_variance_of(s, &m, &o->refusal);
	c->identity = true;
	c->gaussian = noise == JL_NOISE_GAUSSIAN;
	c->m4 = 1.0;
	jl_advise_fixed(c, (int) a->p.d, s2);
}

/* Every option, evaluated into cs and described in opts; their number. */
static int
evaluate(const JlAdviseArgs *a, const uint8 *secret, JlAdviseCandidate *cs,
		 Option *opts)
{
	KindCalibrations *kc = palloc(sizeof(KindCalibrations));
	int			n = 0,
				i,
				noise;

	for (noise = 0; noise < 2; noise++)
		if (a->noise[noise])
			identity_option(a, secret, (JlNoise) noise, &cs[n], &opts[n]), n++;
	for (i = 0; i < ADVISE_KINDS; i++)
	{
		memset(kc, 0, sizeof(*kc));
		kc->a = a;
		kc->secret = secret;
		kc->kind = advise_kinds[i];
		kc->refusal[0] = kc->refusal[1] = JL_OK;
		for (noise = 0; noise < 2; noise++)
		{
			if (!a->noise[noise])
				continue;
			cs[n].identity = false;
			cs[n].gaussian = noise == JL_NOISE_GAUSSIAN;
			cs[n].m4 = kind_m4(kc->kind, a->p.d);
			kc->searching = (JlNoise) noise;
			jl_advise_search(&a->p, &cs[n], a->kmax, kind_variance, kc, cs, n);
			opts[n].kind = jl_kind_name(kc->kind);
			opts[n].kindv = kc->kind;
			opts[n].noise = (JlNoise) noise;
			opts[n].refusal = kc->refusal[noise];
			n++;
		}
	}
	pfree(kc);
	return n;
}

/* the ranked option of the smallest rank with (identity, noise); -1: none */
static int
best_of(const JlAdviseCandidate *cs, const Option *opts, int n, bool identity,
		int noise)
{
	int			b = -1,
				i;

	for (i = 0; i < n; i++)
		if (cs[i].found && cs[i].identity == identity &&
			(noise < 0 || (int) opts[i].noise == noise) &&
			(b < 0 || cs[i].rank < cs[b].rank))
			b = i;
	return b;
}

/* The note of the best option: whether the projection pays. */
static void
best_note(StringInfo b, const JlAdviseArgs *a, const JlAdviseCandidate *cs,
		  const Option *opts, int n, int i)
{
	const char *what = a->p.goal == JL_GOAL_DISTANCE ? "error" :
		a->p.goal == JL_GOAL_NEIGHBORS ? "misordering probability" :
		"misclassification probability";
	int			j;

	if (cs[i].identity)
	{
		appendStringInfo(b, "no projection: raw noise has the smallest %s", what);
		j = best_of(cs, opts, n, false, opts[i].noise);
		if (j < 0)
			return;
		if (isfinite(cs[j].relative / cs[i].relative))
			appendStringInfo(b, "; the best projection with %s noise (%s, k = %d) has %.3g times it",
							 jl_noise_name(opts[i].noise), opts[j].kind, cs[j].k,
							 cs[j].relative / cs[i].relative);
		else
			appendStringInfo(b, "; the best projection with %s noise (%s, k = %d) has a larger one (this one's is 0 to double precision)",
							 jl_noise_name(opts[i].noise), opts[j].kind, cs[j].k);
		/* the identity's noise does not grow with d but for Laplace rows */
		if (a->p.goal == JL_GOAL_DISTANCE &&
			(a->neighbor == JL_NEIGHBOR_ELEMENT || cs[i].gaussian))
			appendStringInfo(b, " and would need d > %.0f at that k",
							 floor(jl_advise_d_needed(a->p.lo, cs[j].k, cs[j].noise_variance,
													  cs[j].distortion, cs[i].noise_variance,
													  cs[i].gaussian)));
		return;
	}
	j = best_of(cs, opts, n, true, opts[i].noise);
	if (j < 0)
		j = best_of(cs, opts, n, true, -1);
	appendStringInfoString(b, "projection pays");
	if (j >= 0)
	{
		if (isfinite(cs[j].relative / cs[i].relative))
			appendStringInfo(b, ": no projection (%s noise) has %.3g times its %s",
							 jl_noise_name(opts[j].noise), cs[j].relative / cs[i].relative,
							 what);
		else
			appendStringInfo(b, ": no projection (%s noise) has a larger %s (this one's is 0 to double precision)",
							 jl_noise_name(opts[j].noise), what);
	}
}

static char *
note_of(const JlAdviseArgs *a, const JlAdviseCandidate *cs, const Option *opts,
		int n, int i, const char *usefulness)
{
	StringInfoData b;

	initStringInfo(&b);
	if (!cs[i].found)
	{
		appendStringInfo(&b, "refused: %s", opts[i].refusal != JL_OK ?
						 jl_status_message(opts[i].refusal) :
						 "no k gives a valid release with these options");
		return b.data;
	}
	if (cs[i].rank == 1 && usefulness != NULL)
		appendStringInfo(&b, "%s; ", usefulness);
	if (cs[i].rank == 1)
		best_note(&b, a, cs, opts, n, i);
	if (cs[i].rank == 1 && a->p.lo != a->p.hi && a->p.goal != JL_GOAL_NEIGHBORS)
		appendStringInfoString(&b, "; relative_error is the worst ratio over [dist2, dist2_hi] to the best option at each distance");
	if (cs[i].at_limit)
		appendStringInfo(&b, "%sk is the largest tried (%d): a larger k might do better",
						 b.len > 0 ? "; " : "", a->kmax);
	return b.len > 0 ? b.data : NULL;
}

#define ADVISE_COLUMNS 12

static void
put_row(Tuplestorestate *ts, TupleDesc desc, const JlAdviseArgs *a,
		const JlAdviseCandidate *cs, const Option *opts, int n, int i,
		const char *usefulness)
{
	const JlAdviseCandidate *c = &cs[i];
	Datum		v[ADVISE_COLUMNS];
	bool		null[ADVISE_COLUMNS];
	char	   *note = note_of(a, cs, opts, n, i, usefulness);

	memset(null, !c->found, sizeof(null));
	v[0] = Int32GetDatum(c->rank);
	v[1] = CStringGetTextDatum(opts[i].kind);
	null[1] = false;
	v[2] = Int32GetDatum(c->identity ? (int) a->p.d : c->k);
	null[2] = !c->found && !c->identity;
	v[3] = CStringGetTextDatum(jl_noise_name(opts[i].noise));
	v[4] = CStringGetTextDatum(jl_calibration_name(c->gaussian ? JL_CALIBRATION_ANALYTIC :
												   JL_CALIBRATION_EXACT));
	v[5] = Float8GetDatum(c->gaussian ? a->delta : 0.0);
	null[3] = null[4] = null[5] = false;
	v[6] = Float8GetDatum(c->noise_variance);
	v[7] = Float8GetDatum(jl_advise_error(c->score));
	v[8] = Float8GetDatum(jl_advise_error(c->score_hi));
	null[8] = !c->found || a->p.lo == a->p.hi || a->p.goal == JL_GOAL_NEIGHBORS;
	v[9] = Float8GetDatum(c->relative);
	v[10] = BoolGetDatum(!c->found);
	null[10] = false;
	v[11] = note ? CStringGetTextDatum(note) : (Datum) 0;
	null[11] = note == NULL;
	tuplestore_putvalues(ts, desc, v, null);
}

/*
 * Whether the option ranked first (its error) serves the goal, in words,
 * with the epsilon at which it would; NULL when it does.
 */
static const char *
usefulness_of(JlAdviseArgs *a, const uint8 *secret, double error)
{
	const JlAdviseProblem *p = &a->p;
	double		floor_error,
				need;

	if (jl_advise_useful(p, error))
		return NULL;
	floor_error = jl_advise_noise_free_error(p);
	if (p->goal == JL_GOAL_CLUSTERING && !jl_advise_useful(p, floor_error))
		return psprintf("not useful for clustering: even without noise the clusters overlap (misclassification %.3g; useful below %.2g), no epsilon helps",
						floor_error, JL_ADVISE_USEFUL_MISCLASSIFICATION);
	need = jl_advise_epsilon_needed(a, secret);
	if (isinf(need))
		return psprintf("not useful for goal %s: no epsilon up to %g makes an option useful",
						jl_advise_goal_name(p->goal), JL_ADVISE_MAX_EPSILON);
	return psprintf("not useful for goal %s at this epsilon (%s); at epsilon %.3g it would be",
					jl_advise_goal_name(p->goal),
					p->goal == JL_GOAL_CLUSTERING ?
					psprintf("misclassification %.3g, useful below %.2g", error, JL_ADVISE_USEFUL_MISCLASSIFICATION) :
					p->goal == JL_GOAL_NEIGHBORS ?
					psprintf("misordering %.3g of a neighbour and a non-neighbour, useful below %.2g", error, JL_ADVISE_USEFUL_MISCLASSIFICATION) :
					psprintf("stddev %.3g of a squared distance of %.6g", error, p->lo),
					need);
}

Datum
jl_advise(PG_FUNCTION_ARGS)
{
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	JlAdviseArgs	a;
	JlKey		key;
	JlAdviseCandidate *cs = palloc0(sizeof(JlAdviseCandidate) * 2 * ADVISE_OPTIONS);
	Option		opts[2 * ADVISE_OPTIONS];
	int			n = 0,
				rank,
				i;
	const char *usefulness = NULL;

	read_advise_args(fcinfo, &a);
	jl_check_release_info_privilege(nsp);
	InitMaterializedSRF(fcinfo, 0);
	jl_key_lookup(nsp, text_to_cstring(PG_GETARG_TEXT_PP(11)), &key);
	PG_TRY();
	{
		int			best;

		n = evaluate(&a, key.secret, cs, opts);
		best = jl_advise_rank(&a.p, cs, n);
		if (best >= 0)
			usefulness = usefulness_of(&a, key.secret, jl_advise_error(cs[best].score));
	}
	PG_FINALLY();
	{
		explicit_bzero(&key, sizeof(key));
	}
	PG_END_TRY();

	/* the ranked options in order, then the refused ones */
	for (rank = 1; rank <= n; rank++)
		for (i = 0; i < n; i++)
			if (cs[i].found && cs[i].rank == rank)
				put_row(rsinfo->setResult, rsinfo->setDesc, &a, cs, opts, n, i, usefulness);
	for (i = 0; i < n; i++)
		if (!cs[i].found)
			put_row(rsinfo->setResult, rsinfo->setDesc, &a, cs, opts, n, i, NULL);
	return (Datum) 0;
}

static void
option_of(const JlAdviseArgs *a, const JlAdviseCandidate *c, const Option *o,
		  JlAdviseOption *out)
{
	out->kind = o->kindv;
	out->k = c->identity ? (int) a->p.d : c->k;
	out->noise = o->noise;
	out->predicted_error = jl_advise_error(c->score);
	out->relative = c->relative;
}

bool
jl_advise_try_choose(const JlAdviseArgs *a, const uint8 *secret, JlAdviseChoice *choice)
{
	JlAdviseCandidate *cs = palloc0(sizeof(JlAdviseCandidate) * 2 * ADVISE_OPTIONS);
	Option		opts[2 * ADVISE_OPTIONS];
	int			n = evaluate(a, secret, cs, opts),
				i;

	memset(choice, 0, sizeof(*choice));
	if (jl_advise_rank(&a->p, cs, n) < 0)
	{
		pfree(cs);
		return false;
	}
	for (i = 0; i < n; i++)
	{
		if (!cs[i].found)
			continue;
		if (cs[i].rank == 1)
			option_of(a, &cs[i], &opts[i], &choice->best);
		else if (cs[i].rank == 2)
		{
			option_of(a, &cs[i], &opts[i], &choice->runner_up);
			choice->has_runner_up = true;
		}
	}
	pfree(cs);
	return true;
}

/* bisection steps once a useful epsilon is bracketed (about 1% apart) */
#define ADVISE_BISECTIONS 6

double
jl_advise_epsilon_needed(JlAdviseArgs *a, const uint8 *secret)
{
	JlAdviseChoice c;
	double		epsilon = a->epsilon,
				lo = epsilon,
				hi = epsilon,
				mid;
	int			i;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (hi >= JL_ADVISE_MAX_EPSILON)
		{
			a->epsilon = epsilon;
			return INFINITY;
		}
		hi = fmin(2.0 * hi, JL_ADVISE_MAX_EPSILON);
		a->epsilon = hi;
		if (jl_advise_try_choose(a, secret, &c) &&
			jl_advise_useful(&a->p, c.best.predicted_error))
			break;
		lo = hi;
	}
	for (i = 0; i < ADVISE_BISECTIONS; i++)
	{
		mid = sqrt(lo * hi);
		a->epsilon = mid;
		if (jl_advise_try_choose(a, secret, &c) &&
			jl_advise_useful(&a->p, c.best.predicted_error))
			hi = mid;
		else
			lo = mid;
	}
	a->epsilon = epsilon;
	return hi;
}

void
jl_advise_choose(const JlAdviseArgs *a, const uint8 *secret, JlAdviseChoice *choice)
{
	if (!jl_advise_try_choose(a, secret, choice))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no release option is valid with these options"),
				 errhint("jl_advise with the same arguments shows why each option is refused.")));
}
