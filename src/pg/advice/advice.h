/*
 * advise.h - the advisor's ranking (jl_advise) for use inside the server:
 * jl_release_table(kind => 'auto') releases with the option ranked first.
 *
 * Every input is public (d, epsilon, neighbour notion, bound, noise, delta,
 * the goal and its squared distances): the ranking never reads data.
 */
#ifndef JLDP_PG_ADVISE_H
#define JLDP_PG_ADVISE_H

#include "postgres.h"

#include "fmgr.h"

#include "math/estimate/advise.h"
#include "math/projection/mechanism.h"
#include "math/projection/projection.h"

struct JlProjection;

/*
 * A calibration of m (its noise, epsilon, delta and calibration set) to p,
 * the P of one candidate (P NULL: the identity), for releases whose
 * sensitivity is not neighbor x bound: a protected table's declaration.
 * Sets m's neighbour and bound; a status, never an error.
 */
typedef JlStatus (*JlAdviseCalibrateFn) (void *ctx, JlMechanism *m,
										 struct JlProjection *p);

/* what the options are ranked for */
typedef struct JlAdviseArgs
{
	JlAdviseProblem p;
	double		epsilon;
	double		bound;
	double		delta;			/* NaN when not given */
	JlNeighbor	neighbor;
	bool		noise[2];		/* indexed by JlNoise: candidates with it */
	int			kmax;
	/* NULL: neighbor and bound; else every candidate calibrated by it */
	JlAdviseCalibrateFn calibrate;
	void	   *calibrate_ctx;
} JlAdviseArgs;

/* one ranked option */
typedef struct JlAdviseOption
{
	JlKind		kind;			/* JL_KIND_IDENTITY for no projection */
	int			k;
	JlNoise		noise;
	double		predicted_error;	/* at dist2 */
	double		relative;		/* to the best option */
} JlAdviseOption;

/* rank 1 and, if there is one, rank 2 */
typedef struct JlAdviseChoice
{
	JlAdviseOption best;
	bool		has_runner_up;
	JlAdviseOption runner_up;
} JlAdviseChoice;

/*
 * The noises ranked: the given one, or (noise_given false) Laplace and,
 * when delta is given, Gaussian too.  Checks that Gaussian has a delta.
 */
extern void jl_advise_allow_noises(JlAdviseArgs *a, bool noise_given, JlNoise noise);

/*
 * goal (argument goal_arg; NULL: 'distance'), cluster_var (goal_arg + 1)
 * and n (goal_arg + 2) into p.
 */

/* the name of a goal: "distance", "clustering" or "neighbors" */
extern const char *jl_advise_goal_name(JlAdviseGoal goal);

/* the goal of a jl_goal label; ERROR (22023) for another word */
extern JlAdviseGoal jl_advise_parse_goal(const char *label);

/*
 * ERROR unless the squared distances suit the goal: for neighbors a
 * non-neighbour's (hi, given) beyond a neighbour's (lo); who names the call.
 */
extern void jl_advise_check_goal_distances(const char *who, JlAdviseGoal goal,
										   double lo, double hi, bool hi_given);

/*
 * What an option's predicted error means for the goal, in words, with the
 * level below which it is useful: "misorders ... (useful below 0.25)".
 */
extern char *jl_advise_error_words(const JlAdviseProblem *p, double error);

/*
 * Rank every option for a (p.d, kmax and the rest set, arguments checked)
 * with the key's projections, as jl_advise does, into *choice; ERROR when
 * no option gives a valid release.
 */
extern void jl_advise_choose(const JlAdviseArgs *a, const uint8 *secret,
							 JlAdviseChoice *choice);

/* the largest epsilon jl_advise_epsilon_needed tries */
#define JL_ADVISE_MAX_EPSILON 1000.0

/*
 * The smallest epsilon (to about 1%) above a->epsilon at which the option
 * ranked first serves the goal (jl_advise_useful), or INFINITY when none
 * up to JL_ADVISE_MAX_EPSILON does.  Interruptible; a->epsilon restored.
 */
extern double jl_advise_epsilon_needed(JlAdviseArgs *a, const uint8 *secret);

/* The same, returning false instead of the error. */
extern bool jl_advise_try_choose(const JlAdviseArgs *a, const uint8 *secret,
								 JlAdviseChoice *choice);

/* The options the advisor weighs: no projection and each projection kind. */
/* per option: no projection and each kind */
#define JL_ADVISE_OPTIONS (1 + 4)

/* One row of the result: a candidate and what it needs to be shown. */
typedef struct JlAdviseRow
{
	JlAdviseCandidate c;
	const char *kind;
	JlKind		kindv;
	JlNoise		noise;
	JlStatus	refusal;		/* why no k was feasible */
} JlAdviseRow;

/*
 * Every option (2 * JL_ADVISE_OPTIONS at most) of a's problem, each at its
 * best k, calibrated to the key's P: the candidates into cs, what each is
 * into rows; returns how many.
 */
extern int	jl_advise_evaluate(const JlAdviseArgs *a, const uint8 *secret, JlAdviseCandidate *cs,
							   JlAdviseRow *rows);

/* ERROR unless the caller may read what a release would do (jl_release_info's privilege). */
extern void jl_check_release_info_privilege(Oid nsp);

/* ERROR unless d, epsilon and the distances of a choice of k are valid. */
extern void jl_check_choice_args(int32 d, double epsilon, double lo, double hi);

/* P of at most 1 GB, the projection cache's bound */
#define JL_SUGGEST_P_BYTES ((double) (1 << 30))

/* The largest k a release of d attributes allows for this neighbour notion. */
extern int	jl_largest_k(int32 d, JlNeighbor neighbor);

/*
 * The k-means mechanism as an option for goal clustering (jl_advise): the
 * release of two clusters' centroids (the model's two) over n rows at the
 * problem's epsilon and delta, with the geometry of its neighbour notion
 * and bound (attribute: the box [0, bound]^d, about its centre; row: rows
 * at most bound apart, within bound sqrt(d / (2 (d + 1))) of a centre by
 * Jung's theorem), its predicted misclassification of a row
 * (jl_advise_kmeans_score).  found false when it does not apply (another
 * goal, no n, no delta) or its calibration refuses (refusal).
 */
typedef struct JlAdviseKmeans
{
	bool		applies;
	bool		found;
	JlStatus	refusal;
	int			clusters;
	int			iterations;
	double		sum_sd;			/* noise sd of a sum's coordinate */
	double		count_sd;		/* of a count */
	double		tau2;			/* a centroid's noise per coordinate */
	double		score;			/* log of the misclassification at dist2 */
	double		score_hi;		/* at dist2_hi */
} JlAdviseKmeans;

extern void jl_advise_kmeans_option(const JlAdviseArgs *a, JlAdviseKmeans *o);

#endif
