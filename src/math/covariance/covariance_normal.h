/*
 * covariance_normal.h - iid standard normal entries of the covariance
 * release's Y, from secure random bits (docs/design/covariance.md, "Sampling Y").
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_COVARIANCE_NORMAL_H
#define JLDP_MATH_COVARIANCE_NORMAL_H

#include <stddef.h>

#include "math/random/randbits.h"

/*
 * out[0..n-1] iid N(0,1) by Box-Muller on pairs of uniforms
 * (m + 1/2) / 2^53, m uniform on 53 bits: in the open interval (0, 1), so
 * log never sees 0; both outputs of a pair are used.
 */
void		jl_cov_normals(JlRandom *r, double *out, size_t n);

#endif
