/*
 * mechanism.h - calibration of the JL release to the realized projection
 * (Laplace noise, Dhaliwal et al.; Gaussian noise, Kenthapadi et al., in
 * gaussian.c), and the release of one row on a grid.
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
	JL_ERR_OUTPUT_RANGE,		/* projected value too large for the grid */
	JL_ERR_GAUSSIAN_DELTA_REQUIRED, /* Gaussian noise needs delta */
	JL_ERR_CLASSIC_DELTA,		/* Theorem 1 needs delta < 1/2 */
	JL_ERR_PAPER_NEIGHBOR,		/* Lemma 2 is for element neighbours */
	JL_ERR_PAPER_K,				/* Lemma 2 needs k > 2 (ln d + ln(2/delta)) */
	JL_ERR_PAPER_EPSILON,		/* Lemma 2 needs epsilon < ln(1/delta) */
	JL_ERR_ZERO_PROJECTION		/* every entry of P is 0 (a sparse kind) */
} JlStatus;

/* The calibration of one release, Laplace or Gaussian noise. */
typedef struct JlLaplace
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
	 * Optional: jl_laplace_table_fill(t, .) bounds (2t entries) that speed
	 * up the sampler, set by the caller after calibration; NULL is fine.
	 */
	const uint32_t *noise_table;
} JlLaplace;

const char *jl_status_message(JlStatus s);

/* Fill the results of m from its inputs (either noise). */
JlStatus	jl_laplace_calibrate(JlLaplace *m);

/* m->input_limit from m->grid, m->d and m->max_abs. */
void		jl_set_input_limit(JlLaplace *m);

/*
 * m->grid = the largest power of two <= g, its fp_allowance g/4 and
 * input_limit; false (nothing set) unless g >= 4 DBL_MIN.
 */
bool		jl_set_grid(JlLaplace *m, double g);

/* Noise-free y = x P (BLAS), x of length d, y of length k. */
void		jl_project_vec(const double *P, int64_t d, int k, const double *x,
						   double *y);

/*
 * How row x must be projected so that the floating-point error of x P stays
 * within fp_allowance whatever the data (no data-dependent refusal, which
 * would itself tell neighbours apart):
 *   JL_ROW_CLAMP       some |x_i| exceeds input_limit: clamp first (a
 *                      contraction, so the sensitivity is unchanged);
 *   JL_ROW_COMPENSATED gamma_d ||x||_1 max|P| exceeds the allowance: project
 *                      with jl_project_vec_compensated instead of BLAS.
 * Returns JL_ROW_PLAIN (0) for ordinary rows.  x must be finite.
 */
#define JL_ROW_PLAIN 0
#define JL_ROW_CLAMP 1
#define JL_ROW_COMPENSATED 2
int			jl_laplace_row_class(const JlLaplace *m, const double *x);

/* Clamp x in place to [-input_limit, input_limit]. */
void		jl_laplace_clamp(const JlLaplace *m, double *x);

/*
 * y = x P with a compensated dot product per coordinate (error-free
 * products by fma, compensated sums): error <= u |y_j| + gamma_d^2
 * sum_i |x_i P_ij| (Ogita, Rump, Oishi 2005), far below the allowance for
 * clamped rows.
 */
void		jl_project_vec_compensated(const double *P, int64_t d, int k,
									   const double *x, double *y);

/*
 * y = x P (by whichever projection jl_laplace_row_class asked for) clamped
 * to +-2^49 grid steps, rounded to the grid, plus noise (discrete Laplace or
 * discrete Gaussian, as m->noise says).
 */
JlStatus	jl_laplace_noise(const JlLaplace *m, double *y, JlRandom *r);

/*
 * One release: y = x P rounded to the grid plus discrete noise,
 * out[0..k-1].
 */
JlStatus	jl_laplace_release_row(const JlLaplace *m, const double *P,
								   const double *x, double *out,
								   JlRandom *r);

/* True iff v is an exact multiple of grid (every released value is). */
bool		jl_on_grid(double v, double grid);

#endif
