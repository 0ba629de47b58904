/*
 * seeds.c - the first inputs of each harness's corpus (corpus/<harness>/),
 * valid ones that the fuzzer mutates: wrapped keys that unwrap, states
 * that read, options that calibrate.  make -C test/fuzz/core seeds writes
 * them; the corpus in the tree is those seeds and what the fuzzer found
 * beyond them, minimized (make fuzz-core).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "math/crypto/keywrap.h"
#include "math/projection/agg_wire.h"

static void
put(const char *dir, const char *name, const void *b, size_t n)
{
	char		path[512];
	FILE	   *f;

	mkdir("corpus", 0755);
	snprintf(path, sizeof(path), "corpus/%s", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "corpus/%s/seed-%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(b, 1, n, f) != n)
	{
		perror(path);
		exit(1);
	}
	fclose(f);
}

static void
keyunwrap_seeds(void)
{
	static const uint8_t master[32] = {
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32
	};
	const char *names[] = {"k", "analyst key", ""};

	for (int i = 0; i < 3; i++)
		for (int purpose = 0; purpose < 2; purpose++)
		{
			uint8_t		in[2 + 64 + JL_WRAP_BYTES];
			uint8_t		secret[32],
						nonce[12];
			size_t		len = strlen(names[i]);
			char		tag[32];

			for (int j = 0; j < 32; j++)
				secret[j] = (uint8_t) (7 * j + i);
			for (int j = 0; j < 12; j++)
				nonce[j] = (uint8_t) (j + 3 * i);
			in[0] = (uint8_t) purpose;
			in[1] = (uint8_t) len;
			memcpy(in + 2, names[i], len);
			jl_keywrap(master, purpose ? JL_WRAP_EXPORT : JL_WRAP_AT_REST, names[i], len,
					   secret, nonce, in + 2 + len);
			snprintf(tag, sizeof(tag), "%d-%d", i, purpose);
			put("fuzz_keyunwrap", tag, in, 2 + len + JL_WRAP_BYTES);
		}
}

static void
agg_wire_seeds(void)
{
	for (int npairs = 0; npairs <= 3; npairs++)
	{
		JlAggWireHeader h;
		JlSparsePair pairs[3] = {{1, 0.5}, {4, -2.0}, {9, 1e300}};
		uint8_t		out[512];
		char		tag[16];

		memset(&h, 0, sizeof(h));
		h.kind = 1;
		h.d = 10;
		h.k = 4;
		h.epsilon = 1.0;
		h.bound = 1.0;
		h.delta = NAN;
		h.npairs = npairs;
		h.keylen = 3;
		jl_agg_wire_write(&h, "key", pairs, out);
		snprintf(tag, sizeof(tag), "%d", npairs);
		put("fuzz_agg_wire", tag, out, jl_agg_wire_size(h.keylen, h.npairs));
	}
}

static void
calibrate_seeds(void)
{
	for (int opts = 0; opts < 32; opts++)
	{
		uint8_t		b[4 + 4 + 4 + 8 * 8];
		uint32_t	o = (uint32_t) opts,
					d = 99,
					k = 19;
		double		v[8] = {1.0, 1.0, opts & 1 ? 1e-6 : NAN, 0.5, 2.0, 0.9, 3.0, 1.2};

		memcpy(b, &o, 4);
		memcpy(b + 4, &d, 4);
		memcpy(b + 8, &k, 4);
		memcpy(b + 12, v, sizeof(v));
		{
			char		tag[16];

			snprintf(tag, sizeof(tag), "%02d", opts);
			put("fuzz_calibrate", tag, b, sizeof(b));
		}
	}
}

static void
sparse_seeds(void)
{
	uint8_t		b[5 * 6] = {1, 0, 3, 0, 0, 2, 0, 5, 1, 0, 1, 0, 250, 2, 0,
		7, 1, 1, 0, 255, 2, 0, 9, 3, 254, 1, 0, 1, 0, 0};

	put("fuzz_sparse", "0", b, sizeof(b));
}

int
main(void)
{
	keyunwrap_seeds();
	agg_wire_seeds();
	calibrate_seeds();
	sparse_seeds();
	return 0;
}
