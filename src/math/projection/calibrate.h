/*
 * calibrate.h - the calibration of a release to the realized projection:
 * which statistic of P is the sensitivity for a noise and a neighbour
 * notion, and the grid, noise and (epsilon, delta) that follow from it.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_CALIBRATE_H
#define JLDP_MATH_CALIBRATE_H

#include "math/projection/mechanism.h"
#include "math/projection/sensitivity.h"

/*
 * The statistic of P that is the sensitivity per unit bound: Laplace (L1)
 * max row L1 norm (element) or max_s ||P s||_2 (row); Gaussian (L2) max row
 * L2 norm (element) or sigma_max(P) (row).
 */
JlProjStat	jl_sensitivity_stat(JlNoise noise, JlNeighbor neighbor);

/* Fill the results of m from its inputs (either noise). */
JlStatus	jl_mechanism_calibrate(JlMechanism *m);

/*
 * Calibrate m (its options set) to the projection whose statistics are st:
 * d, k, max_abs and the sensitivity jl_sensitivity_stat picks, which st
 * must hold (JL_ERR_STATS otherwise).
 */
JlStatus	jl_calibrate_to(JlMechanism *m, const JlProjStats *st);

/*
 * The Gaussian shift that, with an atom of delta / 1024, dominates the
 * discrete Gaussian noise of a calibrated Gaussian mechanism
 * (math/noise/gaussian_dominance.h), for the budget's accountant; NaN for
 * other noise or when none is found.  Tens of milliseconds the first time
 * (a few kept per process).
 */
double		jl_calibration_gdp_mu(const JlMechanism *m);

#endif
