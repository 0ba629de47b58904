/*
 * pair_distance.h - the mean squared distance between two rows of a table,
 * released with exact discrete Laplace noise: the advisor's dist2 read from
 * the data under a budget instead of assumed.
 *
 * Each clipped row is put on an integer grid first, so that the statistic
 * is an exact integer and its sensitivity an exact integer bound, with no
 * floating-point error in either:
 *   element clipping [lo, hi]: q_j = round((x_j - lo) / (hi - lo) * Q) in
 *       [0, Q], grid step g = (hi - lo) / Q;
 *   norm clipping C: the row scaled to L2 norm <= C, q_j = round(x_j / C * Q)
 *       clamped to [-R, R], and |q|^2 <= R^2 enforced on the integers
 *       (R = Q + ceil(sqrt(d) / 2) + 1: the rounding of d coordinates; a row
 *       that still fails after 64 shrinkings by 0.999 counts as 0), grid
 *       step g = C / Q.
 * The range (C, or hi - lo) must lie in [1e-100, 1e100].
 * N = sum over unordered pairs i < l of |q_i - q_l|^2
 *   = n sum_i |q_i|^2 - sum_j (sum_i q_ij)^2, computed exactly (128 bits).
 * One row changed (one element within [lo, hi], or the whole row within the
 * ball): each of its n - 1 pair terms moves within [0, T], T = Q^2 (element)
 * or (2R)^2 (row), so |N - N'| <= (n - 1) T.  n is the same for neighbours
 * (a row is changed, not added).  N is released shifted down by s bits so
 * that the sensitivity of floor(N / 2^s), floor((n-1) T / 2^s) + 1 (exactly
 * (n-1) T when s = 0), is at most 2^20, plus discrete Laplace noise of
 * scale t = the smallest integer with sensitivity / t <= epsilon
 * (math/noise/value_noise.h).  The estimate, post-processing:
 *   dist2 = (M 2^s + (2^s - 1) / 2) g^2 / (n (n - 1) / 2).
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_PAIR_DISTANCE_H
#define JLDP_MATH_PAIR_DISTANCE_H

#include <stdbool.h>
#include <stdint.h>

#include "math/projection/mechanism.h"
#include "math/random/randbits.h"

#define JL_PD_LEVELS 1024			/* Q */
#define JL_PD_MAX_STEPS (INT64_C(1) << 20)	/* the shifted sensitivity */
#define JL_PD_MAX_ROWS (INT64_C(1) << 40)
#define JL_PD_MAX_D 1000000
/*
 * clip_norm and clip_hi - clip_lo: the bound range every release accepts
 * (mechanism.h), within which the grid step's square stays a normal double
 */
#define JL_PD_MIN_RANGE JL_MIN_BOUND
#define JL_PD_MAX_RANGE JL_MAX_BOUND

typedef struct JlPairDist
{
	bool		rows;			/* norm clipping (row neighbours) */
	double		lo,
				hi,				/* element clipping */
				c;				/* norm clipping */
	int			d;
	int			changes;		/* element clipping: the coordinates one
								 * neighbour may change (1; 2 for a
								 * protected table's one-hot category), set
								 * after jl_pd_init */
	int64_t		n;
	int64_t	   *s1;				/* d column sums of q */
	__int128	s2;				/* sum of |q_i|^2 */
	int64_t	   *q;				/* d: the last row on the grid */
} JlPairDist;

/* What a release of N gives. */
typedef struct JlPairDistRelease
{
	double		dist2;			/* the estimate (NaN when n < 2) */
	double		stddev;			/* of its noise */
	double		epsilon;		/* what holds: sensitivity / t */
	int64_t		sensitivity;	/* of the shifted statistic, steps */
	int			shift;			/* s */
	uint64_t	t;				/* noise scale, steps */
} JlPairDistRelease;

/*
 * Element clipping to [lo, hi] (rows false) or norm clipping to c (rows
 * true), d elements a row.  false: bad arguments or no memory.
 */
bool		jl_pd_init(JlPairDist *a, bool rows, double lo, double hi, double c, int d);
void		jl_pd_free(JlPairDist *a);

/*
 * Add one row: clipped (x is modified), put on the grid and summed.
 * false: an element is not finite, or the row limit was reached.
 */
bool		jl_pd_add(JlPairDist *a, double *x);

/* N itself, exact (for tests), and its grid step g. */
__int128	jl_pd_statistic(const JlPairDist *a);
double		jl_pd_step(const JlPairDist *a);

/* The largest change of one pair term: changes Q^2 or (2R)^2. */
int64_t		jl_pd_term_bound(const JlPairDist *a);

/*
 * The shift s and the sensitivity of floor(N / 2^s) for n rows (at most
 * JL_PD_MAX_STEPS + 1), and the noise scale for epsilon.  JL_ERR_EPSILON or
 * JL_ERR_SCALE for an epsilon the sampler cannot serve.
 */
JlStatus	jl_pd_plan(const JlPairDist *a, double epsilon, JlPairDistRelease *out);

/*
 * Release: plan, sample the noise from r, and the estimate.  With n < 2
 * nothing is sampled and dist2 is NaN.
 */
JlStatus	jl_pd_release(const JlPairDist *a, double epsilon, JlRandom *r,
						  JlPairDistRelease *out);

#endif
