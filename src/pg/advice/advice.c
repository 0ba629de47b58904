/*
 * advice.c - which release to use for rows of d attributes: no projection
 * or a projection kind at its best k, with Laplace or Gaussian noise,
 * ranked by the predicted error of what the sketches are for
 * (math/estimate/advise.h).  For jl_advise (api/analytics/advise.c), which
 * shows the ranking, and for a release with jl_advised
 * (pg/pipeline/advised.c), which takes its first option.
 *
 * Every candidate is calibrated as jl_release_info would calibrate it: the
 * projections to the realized P of the key for each k tried, no projection
 * (P = I_d) to the statistics of the identity.  A calibration that refuses
 * marks its k infeasible; an option with no feasible k is refused and never
 * ranked.  Nothing is written and no query is run, so the advisor is safe
 * in a parallel worker.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/acl.h"

#include "math/estimate/advise.h"
#include "math/estimate/suggest_k.h"
#include "math/projection/calibrate.h"
#include "math/projection/sensitivity.h"

#include "pg/advice/advice.h"
#include "pg/catalog/owner.h"
#include "pg/common/messages.h"
#include "pg/common/options.h"
#include "pg/keys/keystore.h"
#include "pg/keys/projection_cache.h"

#define ADVISE_KINDS 4
static const JlKind advise_kinds[ADVISE_KINDS] = {
	JL_KIND_GAUSSIAN, JL_KIND_RADEMACHER, JL_KIND_ACHLIOPTAS, JL_KIND_SPARSE
};

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
				JlAdviseCandidate *c, JlAdviseRow *o)
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
int
jl_advise_evaluate(const JlAdviseArgs *a, const uint8 *secret, JlAdviseCandidate *cs,
		 JlAdviseRow *opts)
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

static void
option_of(const JlAdviseArgs *a, const JlAdviseCandidate *c, const JlAdviseRow *o,
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
	JlAdviseCandidate *cs = palloc0(sizeof(JlAdviseCandidate) * 2 * JL_ADVISE_OPTIONS);
	JlAdviseRow		opts[2 * JL_ADVISE_OPTIONS];
	int			n = jl_advise_evaluate(a, secret, cs, opts),
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

void
jl_check_release_info_privilege(Oid nsp)
{
	const char *api = quote_identifier(get_namespace_name(jl_api_nsp(nsp)));
	Oid			fn = DatumGetObjectId(DirectFunctionCall1(regprocedurein,
														  CStringGetDatum(psprintf("%s.jl_release_info(pg_catalog.int4, pg_catalog.float8, pg_catalog.float8, %s.jl_neighbor, %s.jl_mechanism, pg_catalog.text)",
																				   api, api, api))));

	if (pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_FUNCTION, "jl_release_info");
}

void
jl_check_choice_args(int32 d, double epsilon, double lo, double hi)
{
	if (d < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("d must be at least 1, not %d", d)));
	if (!(isfinite(epsilon) && epsilon > 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a finite number > 0")));
	if (!(isfinite(lo) && lo > 0.0 && isfinite(hi) && hi >= lo))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the squared distances must satisfy 0 < dist2 <= dist2_hi < Infinity"),
				 errhint("dist2 is a typical squared distance between rows, or with dist2_hi the low end of a range.")));
}

int
jl_largest_k(int32 d, JlNeighbor neighbor)
{
	double		kmax = fmin(JL_MAX_K, floor(JL_SUGGEST_P_BYTES / (8.0 * d)));

	if (neighbor == JL_NEIGHBOR_ROW)
		kmax = fmin(kmax, fmin(JL_ROW_MAX_K, floor(sqrt(JL_ROW_MAX_WORK / d))));
	if (kmax < 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("d = %d is too large for any projection", d)));
	return (int) kmax;
}
