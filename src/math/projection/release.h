/*
 * release.h - one row released on the grid of a calibrated JlMechanism:
 * the noise-free projection x P, its compensated variant, and rounding to
 * the grid plus exact discrete noise.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_RELEASE_H
#define JLDP_MATH_RELEASE_H

#include "math/projection/mechanism.h"
#include "math/random/randbits.h"

#include <stdint.h>

/*
 * Every product below takes P == NULL as the identity (P = I_d, k = d,
 * never materialised): y = x is a copy, exact, so the floating-point
 * allowance of the release is met by every row.
 */

/*
 * Noise-free y = x P, x of length d, y of length k: our own register-blocked
 * kernel (release.c; faster than BLAS dgemv at these shapes), a copy for
 * P = I.
 */
void		jl_project_vec(const double *P, int64_t d, int k, const double *x,
						   double *y);

/*
 * y = x P with a compensated dot product per coordinate (error-free
 * products by fma, compensated sums): error <= u |y_j| + gamma_d^2
 * sum_i |x_i P_ij| (Ogita, Rump, Oishi 2005), far below the allowance for
 * clamped rows.
 */
void		jl_project_vec_compensated(const double *P, int64_t d, int k,
									   const double *x, double *y);

/* Y = X P for n rows (n x d into n x k, row-major): one BLAS level-3 product. */
void		jl_project_rows(const double *P, int64_t d, int k, const double *X,
							int64_t n, double *Y);

/*
 * y = x P (by whichever projection jl_row_class asked for) clamped to
 * +-2^49 grid steps, rounded to the grid, plus noise (discrete Laplace or
 * discrete Gaussian, as m->noise says), in place.
 */
JlStatus	jl_noise_on_grid(const JlMechanism *m, double *y, JlRandom *r);

/*
 * The sampler table of a calibrated mechanism: its number of entries (0:
 * none, the scale is beyond the table samplers' range), and filling it.
 * Set m->noise_table to it and m->noise_table_full = true.
 */
uint64_t	jl_noise_table_entries(const JlMechanism *m);
void		jl_noise_table_fill(const JlMechanism *m, uint32_t *table);

/* |y_j| at which jl_noise_on_grid saturates a projection: 2^49 grid steps */
double		jl_saturation_level(const JlMechanism *m);

/*
 * The largest |y_j| = |sum_i x_i P_ij| of a row within the bound: every
 * |x_i| <= bound (element neighbours) or ||x||_2 <= bound (row
 * neighbours), bounded by d max|P_ij| resp. sqrt(d) max|P_ij| per unit
 * bound (identity: 1).  It depends on the calibration only, never on data.
 */
double		jl_within_bound_level(const JlMechanism *m, bool identity);

/*
 * One release: y = x P rounded to the grid plus discrete noise,
 * out[0..k-1].
 */
JlStatus	jl_release_row(const JlMechanism *m, const double *P,
						   const double *x, double *out, JlRandom *r);

#endif
