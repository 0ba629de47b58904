/*
 * mechanism.h - calibration of the JL + Laplace release (Dhaliwal et al.)
 * to the realized projection, and the release of one row on a grid.
 *
 * Plain C: no postgres.h.  Errors come back as JlStatus codes that the
 * PostgreSQL glue turns into ereport()s with their SQLSTATEs.
 */
#ifndef JLDP_MECHANISM_H
#define JLDP_MECHANISM_H

#include "randbits.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum JlNeighbor
{
	JL_NEIGHBOR_ELEMENT = 0,	/* one element changes by at most bound */
	JL_NEIGHBOR_ROW = 1			/* one row changes by at most bound in L2 */
} JlNeighbor;

typedef enum JlCalibration
{
	JL_CALIBRATION_EXACT = 0,	/* L1 sensitivity of the realized P */
	JL_CALIBRATION_PAPER = 1	/* Dhaliwal et al.'s constants */
} JlCalibration;

typedef enum JlStatus
{
	JL_OK = 0,
	JL_ERR_EPSILON,				/* epsilon not finite and > 0 */
	JL_ERR_BOUND,				/* bound not finite and > 0 */
	JL_ERR_DELTA_REQUIRED,		/* paper row calibration needs delta */
	JL_ERR_DELTA,				/* delta outside (0, 1) */
	JL_ERR_SCALE,				/* epsilon so small the scale overflows */
	JL_ERR_GRID,				/* sensitivity outside the representable range */
	JL_ERR_ROW_MAGNITUDE,		/* row too large for the floating-point allowance */
	JL_ERR_OUTPUT_RANGE			/* projected value too large for the grid */
} JlStatus;

typedef struct JlLaplace
{
	/* inputs */
	int64_t		d;
	int			k;
	double		epsilon;
	JlNeighbor	neighbor;
	double		bound;
	JlCalibration calibration;
	double		delta;			/* NaN when not given */
	double		proj_sensitivity;	/* of P per unit bound: max row L1 norm
									 * (element) or max_s ||P s||_2 (row) */
	double		max_abs;		/* max |P_ij| */

	/* results */
	double		data_sensitivity;	/* bound * proj_sensitivity */
	double		grid;			/* power-of-two grid step g */
	double		fp_allowance;	/* per coordinate allowance for rounding in x P */
	double		sensitivity;	/* effective: data + rounding to grid + fp */
	uint64_t	t;				/* scale in grid steps */
	double		scale;			/* t * g */
	double		noise_variance; /* per coordinate, of the discrete noise */
	double		epsilon_effective;	/* sensitivity / scale */
	double		paper_c;		/* NaN unless calibration is paper */
	double		paper_delta;	/* the paper's probability over P, or NaN */
	bool		valid;			/* epsilon-DP holds for this P */

	/*
	 * Optional: jl_laplace_table_fill(t, .) bounds (2t entries) that speed
	 * up the sampler, set by the caller after calibration; NULL is fine.
	 */
	const uint32_t *noise_table;
} JlLaplace;

const char *jl_status_message(JlStatus s);

/* Fill the results of m from its inputs. */
JlStatus	jl_laplace_calibrate(JlLaplace *m);

/* Noise-free y = x P (BLAS), x of length d, y of length k. */
void		jl_project_vec(const double *P, int64_t d, int k, const double *x,
						   double *y);

/*
 * The floating-point allowance holds for row x: gamma_d ||x||_1 max|P| <=
 * fp_allowance, so any summation order of x P (BLAS level 2 or 3) stays
 * within the sensitivity's margin.
 */
JlStatus	jl_laplace_check_row(const JlLaplace *m, const double *x);

/* y = x P (computed by any BLAS routine) rounded to the grid plus noise. */
JlStatus	jl_laplace_noise(const JlLaplace *m, double *y, JlRandom *r);

/*
 * One release: y = x P rounded to the grid plus discrete Laplace noise,
 * out[0..k-1].
 */
JlStatus	jl_laplace_release_row(const JlLaplace *m, const double *P,
								   const double *x, double *out,
								   JlRandom *r);

/* True iff v is an exact multiple of grid (every released value is). */
bool		jl_on_grid(double v, double grid);

#endif
