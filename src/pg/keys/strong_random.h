/*
 * strong_random.h - the backend's cryptographically secure random bits
 * (pg_strong_random), never shared across forked processes.
 */
#ifndef JLDP_PG_STRONG_RANDOM_H
#define JLDP_PG_STRONG_RANDOM_H

#include "postgres.h"

#include "math/random/randbits.h"

extern JlRandom *jl_strong_random(void);

#endif
