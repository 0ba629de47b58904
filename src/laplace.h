/*
 * laplace.h - exact discrete Laplace sampling (Canonne, Kamath, Steinke 2020).
 *
 * Pr[L = z] = (1 - p) / (1 + p) * p^|z| with p = exp(-1/t), t a positive
 * integer (the scale in grid steps).  Only integer arithmetic on uniformly
 * random bits: the distribution is exact, not a floating-point approximation.
 */
#ifndef JLDP_LAPLACE_H
#define JLDP_LAPLACE_H

#include "randbits.h"

#include <stdint.h>

/* Largest scale (in grid steps) the sampler accepts. */
#define JL_LAPLACE_MAX_T (UINT64_C(1) << 44)

/* Bernoulli(exp(-num/den)), num >= 0, den >= 1. */
bool		jl_bernoulli_exp(JlRandom *r, uint64_t num, uint64_t den);

/* Discrete Laplace with scale t (1 <= t <= JL_LAPLACE_MAX_T). */
int64_t		jl_discrete_laplace(JlRandom *r, uint64_t t);

/* Its variance, 2p / (1-p)^2 with p = exp(-1/t). */
double		jl_discrete_laplace_variance(uint64_t t);

/* Its fourth moment, 2p(1 + 10p + p^2) / (1-p)^4. */
double		jl_discrete_laplace_moment4(uint64_t t);

#endif
