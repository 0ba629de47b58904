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

#include "math/analytics/dp_kmeans.h"
#include "math/estimate/advise.h"
#include "math/projection/calibrate.h"
#include "math/projection/sensitivity.h"

#include "pg/advice/advice.h"
#include "pg/keys/keystore.h"
#include "pg/common/options.h"
#include "pg/keys/projection_cache.h"
#include "pg/common/messages.h"
#include "pg/catalog/owner.h"

PG_FUNCTION_INFO_V1(jl_advise);

static void
read_goal(FunctionCallInfo fcinfo, int goal_arg, JlAdviseProblem *p)
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
	jl_require_named(fcinfo, "d epsilon dist2 - neighbor bound - - goal - - key");
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
	read_goal(fcinfo, 8, p);
	jl_advise_check_goal_distances("jl_advise", p->goal, p->lo, p->hi, !PG_ARGISNULL(3));
	a->kmax = Min(d, jl_largest_k(d, a->neighbor));
}

/* the ranked option of the smallest rank with (identity, noise); -1: none */
static int
best_of(const JlAdviseCandidate *cs, const JlAdviseRow *opts, int n, bool identity,
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
		  const JlAdviseRow *opts, int n, int i)
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
note_of(const JlAdviseArgs *a, const JlAdviseCandidate *cs, const JlAdviseRow *opts,
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
		const JlAdviseCandidate *cs, const JlAdviseRow *opts, int n, int i,
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

/*
 * The k-means mechanism's row (goal clustering with n and delta): ranked
 * beside the per-row releases by its predicted misclassification, its note
 * saying which wins.
 */
static void
put_kmeans_row(Tuplestorestate *ts, TupleDesc desc, const JlAdviseArgs *a,
			   const JlAdviseKmeans *km, int rank, double best_sketch, double best_all)
{
	Datum		v[ADVISE_COLUMNS];
	bool		null[ADVISE_COLUMNS];
	double		e = jl_advise_error(km->score);
	StringInfoData b;

	memset(null, false, sizeof(null));
	initStringInfo(&b);
	if (!km->found)
		appendStringInfo(&b, "refused: %s", km->refusal == JL_ERR_STATS ?
						 psprintf("rows of more than %d attributes", JL_DP_KMEANS_MAX_D) :
						 jl_status_message(km->refusal));
	else
	{
		appendStringInfo(&b, "the clusters released, not the rows: jl_release(protected, target, epsilon, jl_kmeans_mechanism(k => clusters, delta => %g)), %d noisy Lloyd iterations, a row's guarantee under either neighbour notion; predicted for two clusters of n/2 rows each, the rows labelled by the released centroids (Lloyd's local optima not modelled): ",
						 a->delta, km->iterations);
		if (!isfinite(best_sketch))
			appendStringInfoString(&b, "no per-row release is valid");
		else if (e <= best_sketch)
			appendStringInfo(&b, "wins: misclassification %.3g against %.3g for the best per-row release",
							 e, best_sketch);
		else
			appendStringInfo(&b, "the best per-row release wins: misclassification %.3g against its %.3g",
							 best_sketch, e);
		if (rank == 1 && !jl_advise_useful(&a->p, e))
			appendStringInfo(&b, "; not useful for goal clustering at this epsilon (misclassification %.3g, useful below %.2g)",
							 e, JL_ADVISE_USEFUL_MISCLASSIFICATION);
	}
	v[0] = Int32GetDatum(rank);
	null[0] = !km->found;
	v[1] = CStringGetTextDatum("kmeans mechanism");
	v[2] = Int32GetDatum(km->clusters);
	v[3] = CStringGetTextDatum("gaussian");
	v[4] = CStringGetTextDatum("dominating Gaussian shift");
	v[5] = Float8GetDatum(a->delta);
	v[6] = Float8GetDatum(km->sum_sd * km->sum_sd);
	null[6] = !km->found;
	v[7] = Float8GetDatum(e);
	null[7] = !km->found;
	v[8] = Float8GetDatum(jl_advise_error(km->score_hi));
	null[8] = !km->found || a->p.lo == a->p.hi;
	v[9] = Float8GetDatum(best_all > 0.0 ? e / best_all : 1.0);
	null[9] = !km->found;
	v[10] = BoolGetDatum(!km->found);
	v[11] = CStringGetTextDatum(b.data);
	tuplestore_putvalues(ts, desc, v, null);
}

Datum
jl_advise(PG_FUNCTION_ARGS)
{
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	JlAdviseArgs	a;
	JlKey		key;
	JlAdviseCandidate *cs = palloc0(sizeof(JlAdviseCandidate) * 2 * JL_ADVISE_OPTIONS);
	JlAdviseRow		opts[2 * JL_ADVISE_OPTIONS];
	int			n = 0,
				rank,
				i,
				km_rank = 1;
	const char *usefulness = NULL;
	JlAdviseKmeans km;
	double		best_sketch = INFINITY,
				best_all = INFINITY;

	read_advise_args(fcinfo, &a);
	jl_check_release_info_privilege(nsp);
	InitMaterializedSRF(fcinfo, 0);
	jl_key_lookup(nsp, text_to_cstring(PG_GETARG_TEXT_PP(11)), &key);
	PG_TRY();
	{
		int			best;

		n = jl_advise_evaluate(&a, key.secret, cs, opts);
		best = jl_advise_rank(&a.p, cs, n);
		if (best >= 0)
			usefulness = usefulness_of(&a, key.secret, jl_advise_error(cs[best].score));
	}
	PG_FINALLY();
	{
		explicit_bzero(&key, sizeof(key));
	}
	PG_END_TRY();

	/* the k-means mechanism, for goal clustering: its rank among the found */
	jl_advise_kmeans_option(&a, &km);
	if (km.found)
	{
		double		e = jl_advise_error(km.score);

		for (i = 0; i < n; i++)
			if (cs[i].found)
			{
				best_sketch = fmin(best_sketch, jl_advise_error(cs[i].score));
				if (cs[i].score <= km.score)
					km_rank++;
			}
		for (i = 0; i < n; i++)
			if (cs[i].found && cs[i].rank >= km_rank)
				cs[i].rank++;
		if (km_rank == 1)
		{
			usefulness = NULL;	/* said in the k-means mechanism's row */
			/* the per-row releases' relative errors: to the best, now it */
			for (i = 0; i < n; i++)
				if (cs[i].found && e > 0.0)
					cs[i].relative *= best_sketch / e;
		}
		best_all = fmin(best_sketch, e);
	}

	/* the ranked options in order, then the refused ones */
	for (rank = 1; rank <= n + 1; rank++)
	{
		if (km.found && rank == km_rank)
			put_kmeans_row(rsinfo->setResult, rsinfo->setDesc, &a, &km, rank, best_sketch, best_all);
		for (i = 0; i < n; i++)
			if (cs[i].found && cs[i].rank == rank)
				put_row(rsinfo->setResult, rsinfo->setDesc, &a, cs, opts, n, i, usefulness);
	}
	for (i = 0; i < n; i++)
		if (!cs[i].found)
			put_row(rsinfo->setResult, rsinfo->setDesc, &a, cs, opts, n, i, NULL);
	if (km.applies && !km.found)
		put_kmeans_row(rsinfo->setResult, rsinfo->setDesc, &a, &km, 0, best_sketch, best_all);
	return (Datum) 0;
}
