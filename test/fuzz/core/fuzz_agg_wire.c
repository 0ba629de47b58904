/*
 * fuzz_agg_wire.c - the sketch aggregate state's bytes, as a parallel
 * worker hands them to its leader (math/projection/agg_wire.c): any bytes
 * are read without reading out of bounds, and bytes the reader accepts
 * are exactly those the writer writes for what was read.
 */
#include "fuzz.h"

#include "math/projection/agg_wire.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	JlAggWireHeader h;
	const uint8_t *key,
			   *pairs;
	JlSparsePair *out;
	uint8_t    *again;
	size_t		n;
	int32_t		max_attr = 1 << 20;

	/* the buffer exactly as long as the input, so that ASan sees an overread */
	uint8_t    *buf = malloc(size ? size : 1);

	memcpy(buf, data, size);
	if (jl_agg_wire_read(buf, size, &h, &key, &pairs) != NULL)
	{
		free(buf);
		return 0;
	}
	n = jl_agg_wire_size(h.keylen, h.npairs);
	FUZZ_CHECK(n == size, "accepted %zu bytes for a state of %zu", size, n);
	FUZZ_CHECK(memchr(key, 0, (size_t) h.keylen) == NULL, "a NUL in the key");
	out = malloc(sizeof(JlSparsePair) * (h.npairs ? (size_t) h.npairs : 1));
	if (h.d >= 1 && h.d < max_attr)
		max_attr = h.d;
	if (jl_agg_wire_pairs(pairs, h.npairs, max_attr, out) == NULL)
	{
		for (int64_t i = 0; i < h.npairs; i++)
		{
			FUZZ_CHECK(out[i].attr >= 1 && out[i].attr <= max_attr, "attribute %d", out[i].attr);
			FUZZ_CHECK(i == 0 || out[i].attr > out[i - 1].attr, "attributes out of order at %lld",
					   (long long) i);
		}
		/* what was read, written again, is the input */
		again = malloc(n);
		jl_agg_wire_write(&h, (const char *) key, out, again);
		FUZZ_CHECK(memcmp(again, buf, n) == 0, "the state written again differs");
		free(again);
	}
	free(out);
	free(buf);
	return 0;
}
