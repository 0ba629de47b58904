/*
 * mechanism.h - the vocabulary of one release: its options (noise,
 * neighbour notion, calibration), the JlMechanism that carries a
 * calibration from its inputs to its results, and the status codes the
 * math returns.
 *
 * Files below this one on the way down: calibrate.h fills a JlMechanism,
 * grid.h and release.h use it to release rows.
 *
 * Plain C: no postgres.h.  Errors come back as JlStatus codes that the
 * PostgreSQL glue turns into ereport()s with their SQLSTATEs.
 */
#ifndef JLDP_MATH_MECHANISM_H
#define JLDP_MATH_MECHANISM_H

#include <stdbool.h>
#include <stdint.h>

#include "math/base/status.h"

typedef enum JlNeighbor
{
	JL_NEIGHBOR_ELEMENT = 0,	/* one element changes by at most bound */
	JL_NEIGHBOR_ROW = 1			/* one row changes by at most bound in L2 */
} JlNeighbor;

typedef enum JlNoise
{
	JL_NOISE_LAPLACE = 0,		/* pure epsilon, L1 sensitivity */
	JL_NOISE_GAUSSIAN = 1		/* (epsilon, delta), L2 sensitivity */
} JlNoise;

typedef enum JlCalibration
{
	JL_CALIBRATION_EXACT = 0,	/* Laplace: L1 sensitivity of the realized P */
	JL_CALIBRATION_PAPER = 1,	/* Laplace: Dhaliwal et al.'s constants;
								 * Gaussian: Kenthapadi et al.'s Lemma 2 */
	JL_CALIBRATION_ANALYTIC = 2,	/* Gaussian: Balle & Wang, realized P */
	JL_CALIBRATION_CLASSIC = 3	/* Gaussian: Kenthapadi et al.'s Theorem 1 */
} JlCalibration;

/*
 * The public scales every release accepts, checked before anything is
 * charged: a bound (bound, clip_norm, clip_hi - clip_lo and the clamp
 * limits themselves) in [JL_MIN_BOUND, JL_MAX_BOUND], so that its square
 * and its products with n, d and k neither underflow nor overflow (a
 * clip_norm whose square is 0 would skip clipping), and bound / epsilon at
 * most JL_MAX_NOISE_RATIO, so that the noise scale and its variance stay
 * finite for every projection the releases accept.
 */
#define JL_MIN_BOUND 1e-100
#define JL_MAX_BOUND 1e100
#define JL_MAX_NOISE_RATIO 1e100

/* JL_OK, or the first of JL_ERR_EPSILON, JL_ERR_BOUND_RANGE, JL_ERR_NOISE_RANGE */
JlStatus	jl_check_scales(double epsilon, double bound);

/* The calibration of one release, with Laplace or Gaussian noise. */
typedef struct JlMechanism
{
	/* inputs */
	JlNoise		noise;
	int64_t		d;
	int			k;
	double		epsilon;
	JlNeighbor	neighbor;
	double		bound;
	JlCalibration calibration;
	double		delta;			/* NaN when not given */
	double		proj_sensitivity;	/* of P per unit bound.  Laplace (L1):
									 * max row L1 norm (element) or max_s
									 * ||P s||_2 (row).  Gaussian (L2): max
									 * row L2 norm (element) or sigma_max(P)
									 * (row) */
	double		max_abs;		/* max |P_ij| */

	/* results */
	double		data_sensitivity;	/* bound * proj_sensitivity */
	double		grid;			/* power-of-two grid step g */
	double		fp_allowance;	/* per coordinate allowance for rounding in x P */
	double		input_limit;	/* |x_i| beyond this is clamped to it */
	double		sensitivity;	/* effective: data + rounding to grid + fp */
	uint64_t	t;				/* scale (Laplace) or sigma (Gaussian) in
								 * grid steps */
	double		scale;			/* t * g */
	double		noise_variance; /* per coordinate, of the discrete noise */
	double		epsilon_effective;	/* Laplace: sensitivity / scale;
									 * Gaussian: the epsilon at which delta
									 * holds */
	double		paper_c;		/* NaN unless calibration is paper
								 * (Gaussian: the paper's sigma) */
	double		paper_delta;	/* the paper's probability over P, or NaN */
	bool		valid;			/* (epsilon, delta)-DP holds for this P */
	/* Gaussian only */
	double		sigma_calibration;	/* the calibration's continuous sigma */
	double		rho;			/* zCDP of the sampled noise */
	double		delta_holding;	/* delta certified at epsilon (<= delta
								 * when valid) */

	/*
	 * Optional: jl_laplace_table_fill(t, .) bounds (t entries) that speed
	 * up the sampler, set by the caller after calibration; NULL is fine.
	 * With noise_table_full set, the table is jl_noise_table_fill's
	 * (math/projection/release.h), which for Gaussian noise also holds the
	 * acceptance bounds.
	 */
	const uint32_t *noise_table;
	bool		noise_table_full;
} JlMechanism;

/* The message of a status, for errmsg(). */
const char *jl_status_message(JlStatus s);

#endif
