/*
 * grid.h - the power-of-two grid a release lives on, and the limits on
 * input rows that keep the floating-point error of x P within the grid's
 * allowance (see release.c for why both matter).
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_GRID_H
#define JLDP_MATH_GRID_H

#include "math/projection/mechanism.h"

#include <stdbool.h>

/*
 * m->grid = the largest power of two <= g, its fp_allowance g/4 and
 * input_limit; false (nothing set) unless g >= 4 DBL_MIN.
 */
bool		jl_grid_set(JlMechanism *m, double g);

/* m->input_limit from m->grid, m->d and m->max_abs. */
void		jl_grid_set_input_limit(JlMechanism *m);

/*
 * How row x must be projected so that the floating-point error of x P stays
 * within fp_allowance whatever the data (no data-dependent refusal, which
 * would itself tell neighbours apart):
 *   JL_ROW_CLAMP       some |x_i| exceeds input_limit: clamp first (a
 *                      contraction, so the sensitivity is unchanged);
 *   JL_ROW_COMPENSATED gamma_d ||x||_1 max|P| exceeds the allowance: project
 *                      with jl_project_vec_compensated instead of jl_project_vec.
 * Returns JL_ROW_PLAIN (0) for ordinary rows.  x must be finite.
 */
#define JL_ROW_PLAIN 0
#define JL_ROW_CLAMP 1
#define JL_ROW_COMPENSATED 2
int			jl_row_class(const JlMechanism *m, const double *x);

/* Clamp x in place to [-input_limit, input_limit]. */
void		jl_row_clamp(const JlMechanism *m, double *x);

/* True iff v is an exact multiple of grid (every released value is). */
bool		jl_on_grid(double v, double grid);

#endif
