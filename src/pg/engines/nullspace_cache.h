/*
 * nullspace_cache.h - per-backend cache of decomposed null-space cleaning
 * models, keyed by the method and the model's numbers, so that cleaning a
 * table decomposes its model once, not once per row.
 */
#ifndef JLDP_PG_NULLSPACE_CACHE_H
#define JLDP_PG_NULLSPACE_CACHE_H

#include "postgres.h"

#include "math/nullspace/nullspace_model.h"

/* entries and bytes the cache keeps at most (least recently used out) */
#define JL_NS_CACHE_ENTRIES 16
#define JL_NS_CACHE_BYTES ((Size) 256 * 1024 * 1024)

/*
 * The decomposition of (method, Ad d x md, Ac d x mc or NULL), built on
 * first use.  *id identifies the entry: a later jl_ns_cache_still(id)
 * says whether the pointer is still valid.  Errors (rank zero, memory,
 * LAPACK) are reported here.
 */
extern const JlNsModel *jl_ns_cache_get(int method, int d, int md, int mc,
										const double *Ad, const double *Ac,
										uint64 *id);

/* the model of entry id if it is still cached, else NULL */
extern const JlNsModel *jl_ns_cache_still(uint64 id);

#endif
