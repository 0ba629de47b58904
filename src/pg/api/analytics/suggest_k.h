/*
 * suggest_k.h - what the choice of k and the advisor (pg/api/analytics/advise.c) share:
 * who may use them and how large k can be.
 */
#ifndef JLDP_PG_SUGGEST_K_H
#define JLDP_PG_SUGGEST_K_H

#include "postgres.h"

#include "math/projection/mechanism.h"

/*
 * ERROR unless the caller may call jl_release_info of schema nsp, which
 * reports the same calibrations with the same key.
 */
extern void jl_check_release_info_privilege(Oid nsp);

/*
 * ERROR unless d >= 1, epsilon is finite and > 0, and the squared distances
 * satisfy 0 < lo <= hi < Infinity.
 */
extern void jl_check_choice_args(int32 d, double epsilon, double lo, double hi);

/* The largest k a release of d-dimensional rows can have (ERROR if none). */
extern int	jl_largest_k(int32 d, JlNeighbor neighbor);

#endif
