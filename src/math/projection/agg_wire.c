/*
 * agg_wire.c - the sketch aggregate state's bytes between processes.
 */
#include "math/projection/agg_wire.h"

#include <string.h>

size_t
jl_agg_wire_size(int32_t keylen, int64_t npairs)
{
	uint64_t	pairs;

	if (keylen < 0 || npairs < 0 ||
		(uint64_t) npairs > (SIZE_MAX - sizeof(JlAggWireHeader) - (size_t) keylen) / JL_AGG_WIRE_PAIR_BYTES)
		return 0;
	pairs = (uint64_t) npairs * JL_AGG_WIRE_PAIR_BYTES;
	return sizeof(JlAggWireHeader) + (size_t) keylen + (size_t) pairs;
}

void
jl_agg_wire_write(JlAggWireHeader *h, const char *key, const JlSparsePair *pairs,
				  uint8_t *out)
{
	h->magic = JL_AGG_WIRE_MAGIC;
	h->version = JL_AGG_WIRE_VERSION;
	memcpy(out, h, sizeof(*h));
	out += sizeof(*h);
	memcpy(out, key, (size_t) h->keylen);
	out += h->keylen;
	for (int64_t i = 0; i < h->npairs; i++)
	{
		memcpy(out, &pairs[i].attr, sizeof(int32_t));
		memcpy(out + sizeof(int32_t), &pairs[i].value, sizeof(double));
		out += JL_AGG_WIRE_PAIR_BYTES;
	}
}

const char *
jl_agg_wire_read(const uint8_t *buf, size_t len, JlAggWireHeader *h,
				 const uint8_t **key, const uint8_t **pairs)
{
	if (len < sizeof(*h))
		return "It is shorter than its header.";
	memcpy(h, buf, sizeof(*h));
	buf += sizeof(*h);
	len -= sizeof(*h);
	if (h->magic != JL_AGG_WIRE_MAGIC)
		return "Its magic number is wrong.";
	if (h->version != JL_AGG_WIRE_VERSION)
		return "It comes from another version of jldp.";
	if (h->keylen < 0 || h->npairs < 0)
		return "Its header is inconsistent.";
	if ((size_t) h->keylen > len ||
		(len - (size_t) h->keylen) % JL_AGG_WIRE_PAIR_BYTES != 0 ||
		(uint64_t) h->npairs != (len - (size_t) h->keylen) / JL_AGG_WIRE_PAIR_BYTES)
		return "Its size does not match its header.";
	if (memchr(buf, 0, (size_t) h->keylen) != NULL)
		return "Its key name contains a NUL byte.";
	*key = buf;
	*pairs = buf + h->keylen;
	return NULL;
}

const char *
jl_agg_wire_pairs(const uint8_t *pairs, int64_t n, int32_t max_attr, JlSparsePair *out)
{
	for (int64_t i = 0; i < n; i++)
	{
		JlSparsePair *q = &out[i];

		memcpy(&q->attr, pairs, sizeof(int32_t));
		memcpy(&q->value, pairs + sizeof(int32_t), sizeof(double));
		pairs += JL_AGG_WIRE_PAIR_BYTES;
		if (q->attr < 1 || q->attr > max_attr || (i > 0 && q->attr <= out[i - 1].attr))
			return "Its attributes are out of order or out of range.";
	}
	return NULL;
}
