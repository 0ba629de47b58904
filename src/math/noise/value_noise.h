/*
 * value_noise.h - the calibration of exact discrete Laplace noise on one
 * integer value (noisy counts, noisy integer distances): the scale t in
 * integer steps for a sensitivity and an epsilon.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_VALUE_NOISE_H
#define JLDP_MATH_VALUE_NOISE_H

#include <stdint.h>

#include "math/base/status.h"

/* sensitivities up to this are integers that a double holds exactly */
#define JL_VALUE_MAX_SENSITIVITY (INT64_C(1) << 52)

/*
 * The smallest integer t >= 1 with t * epsilon >= sensitivity, decided
 * exactly (not by a rounded quotient), so that noise of scale t gives
 * sensitivity / t <= epsilon.  JL_ERR_EPSILON unless epsilon is finite and
 * > 0, JL_ERR_SENSITIVITY unless 1 <= sensitivity <=
 * JL_VALUE_MAX_SENSITIVITY, JL_ERR_SCALE if t would exceed the sampler's
 * JL_LAPLACE_MAX_T.
 */
JlStatus	jl_laplace_steps(int64_t sensitivity, double epsilon, uint64_t *t);

#endif
