/*
 * agg_wire.h - the bytes a sketch aggregate's state travels in between
 * processes (a parallel worker's partial state, serialized for its leader):
 * a header, the key's name, then npairs pairs of (int32 attr, float8
 * value), sorted by attr and distinct.  The reader takes bytes from
 * outside and trusts none of them: every length, count and attribute is
 * checked before it is used (fuzzed by test/fuzz/core/fuzz_agg_wire.c).
 */
#ifndef JLDP_MATH_AGG_WIRE_H
#define JLDP_MATH_AGG_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "math/projection/sparse.h"

#define JL_AGG_WIRE_MAGIC 0x4a4c4147	/* "JLAG" */
#define JL_AGG_WIRE_VERSION 4

typedef struct JlAggWireHeader
{
	uint32_t	magic;
	uint16_t	version;
	uint16_t	kind;
	int32_t		d;
	int32_t		k;
	int32_t		neighbor;
	int32_t		calibration;
	uint32_t	proj;
	int32_t		noise;
	double		epsilon;
	double		bound;
	double		delta;
	int64_t		npairs;
	int32_t		keylen;
} JlAggWireHeader;

#define JL_AGG_WIRE_PAIR_BYTES (sizeof(int32_t) + sizeof(double))

/* The bytes of a state with keylen key bytes and npairs pairs; 0 on overflow. */
size_t		jl_agg_wire_size(int32_t keylen, int64_t npairs);

/*
 * Write h (its magic and version set here), key (h->keylen bytes) and
 * h->npairs pairs into out, jl_agg_wire_size bytes.
 */
void		jl_agg_wire_write(JlAggWireHeader *h, const char *key,
							  const JlSparsePair *pairs, uint8_t *out);

/*
 * Read the header of len bytes at buf and point *key (h->keylen bytes, no
 * NUL among them) and *pairs (h->npairs pairs) into buf.  NULL when the
 * bytes are consistent; else why not, in a sentence.
 */
const char *jl_agg_wire_read(const uint8_t *buf, size_t len, JlAggWireHeader *h,
							 const uint8_t **key, const uint8_t **pairs);

/*
 * Copy the n pairs at pairs into out, checking each attribute: at least 1,
 * at most max_attr, increasing.  NULL when they are; else why not.
 * Values may be infinite (sums of duplicates can overflow).
 */
const char *jl_agg_wire_pairs(const uint8_t *pairs, int64_t n, int32_t max_attr,
							  JlSparsePair *out);

#endif
