/*
 * test_keystream.c - the multi-block ChaCha20 keystream and the generator
 * with fast key erasure behind the server's noise bits.
 *
 * - jl_chacha20_blocks gives exactly the bytes of the RFC 8439 block
 *   function (tested against the RFC's vectors in test_chacha20), block by
 *   block, for every count of blocks 1..40 and across the counter's wrap.
 * - jl_keystream_generate: its output is ChaCha20 under the current key,
 *   nonce 0, from byte 32 on, and the next key is bytes 0..31; no copy of
 *   the old key survives in the state; output lengths that are not whole
 *   blocks and lengths beyond one key's share.
 * - A frequency check of its bits as a JlRandom source (false-failure rate
 *   below 1e-6), with a negative control (a source with one stuck bit per
 *   byte) that must fail it.
 * - Speed (printed, not asserted).
 */
#include "unit.h"
#include "math/crypto/chacha20.h"
#include "math/crypto/keystream.h"

static void
reference_blocks(const uint8_t key[32], uint32_t ctr, const uint8_t nonce[12],
				 uint8_t *out, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		uint32_t	b[16];

		jl_chacha20_block(key, ctr + (uint32_t) i, nonce, b);
		jl_chacha20_serialize(b, out + 64 * i);
	}
}

static void
test_blocks(void)
{
	uint8_t		key[32],
				nonce[12];
	static uint8_t a[64 * 40],
				b[64 * 40];
	uint64_t	seed = 42;
	size_t		n;
	int			i,
				bad = 0;

	for (i = 0; i < 32; i++)
		key[i] = (uint8_t) unit_splitmix64(&seed);
	for (i = 0; i < 12; i++)
		nonce[i] = (uint8_t) unit_splitmix64(&seed);
	for (n = 1; n <= 40; n++)
	{
		jl_chacha20_blocks(key, 7, nonce, a, n);
		reference_blocks(key, 7, nonce, b, n);
		bad += memcmp(a, b, 64 * n) != 0;
	}
	check(bad == 0, "jl_chacha20_blocks = block function, 1..40 blocks (%d differ)", bad);
	jl_chacha20_blocks(key, UINT32_MAX - 3, nonce, a, 16);
	reference_blocks(key, UINT32_MAX - 3, nonce, b, 16);
	check(memcmp(a, b, 64 * 16) == 0, "jl_chacha20_blocks across the counter wrap");
}

static void
test_erasure(void)
{
	JlKeystream ks;
	uint8_t		seed[32],
				key0[32],
				ref[64 * 20];
	static const uint8_t zero12[12];
	uint8_t		out[1000];
	uint64_t	s = 7;
	int			i;
	size_t		lens[] = {1, 31, 32, 33, 64, 95, 96, 97, 1000};

	for (i = 0; i < 32; i++)
		seed[i] = (uint8_t) unit_splitmix64(&s);
	for (i = 0; i < (int) (sizeof(lens) / sizeof(lens[0])); i++)
	{
		size_t		len = lens[i];

		jl_keystream_seed(&ks, seed);
		memcpy(key0, ks.key, 32);
		jl_keystream_generate(&ks, out, len);
		reference_blocks(key0, 0, zero12, ref, 20);
		check(memcmp(out, ref + 32, len) == 0 && memcmp(ks.key, ref, 32) == 0,
			  "generate(%zu bytes) = ChaCha20(key, nonce 0) bytes 32.., next key its bytes 0..31", len);
		check(memcmp(&ks, key0, 32) != 0, "no copy of the old key in the state after %zu bytes", len);
	}
	/* two calls continue with the new key */
	jl_keystream_seed(&ks, seed);
	jl_keystream_generate(&ks, out, 100);
	memcpy(key0, ks.key, 32);
	jl_keystream_generate(&ks, out, 100);
	reference_blocks(key0, 0, zero12, ref, 3);
	check(memcmp(out, ref + 32, 100) == 0, "the second call runs under the key the first left");
	/* more than one key's share in one call: the key is replaced within */
	{
		size_t		big = JL_KEYSTREAM_MAX_PER_KEY + 100;
		uint8_t    *o = malloc(big);
		uint8_t    *r = malloc(JL_KEYSTREAM_MAX_PER_KEY + 64);
		uint8_t		k1[32];

		jl_keystream_seed(&ks, seed);
		jl_keystream_generate(&ks, o, big);
		reference_blocks(seed, 0, zero12, r, JL_KEYSTREAM_MAX_PER_KEY / 64 + 1);
		memcpy(k1, r, 32);
		check(memcmp(o, r + 32, JL_KEYSTREAM_MAX_PER_KEY) == 0, "a long call: the first key's share");
		reference_blocks(k1, 0, zero12, r, 3);
		check(memcmp(o + JL_KEYSTREAM_MAX_PER_KEY, r + 32, 100) == 0, "a long call: then the next key's");
		free(o);
		free(r);
	}
	/* mixing: key XOR seed */
	jl_keystream_seed(&ks, seed);
	jl_keystream_mix(&ks, seed);
	for (i = 0; i < 32 && ks.key[i] == 0; i++)
		;
	check(i == 32, "mix is key XOR seed (seed XOR seed = 0)");
	jl_keystream_wipe(&ks);
}

typedef struct
{
	JlKeystream ks;
	int			stuck;			/* negative control: bit 3 of every byte set */
} Src;

static void
src_fill(void *ctx, uint8_t *buf, size_t len)
{
	Src		   *s = ctx;
	size_t		i;

	jl_keystream_generate(&s->ks, buf, len);
	if (s->stuck)
		for (i = 0; i < len; i++)
			buf[i] |= 8;
}

/*
 * Frequencies of the 256 byte values in n bytes drawn 8 bits at a time:
 * Pearson's chi-square with 255 degrees of freedom, p-value against
 * UNIT_ALPHA.  Returns the p-value.
 */
static double
byte_frequency_p(int stuck, size_t n)
{
	static JlRandom r;
	Src			s;
	uint8_t		seed[32];
	uint64_t	c[256] = {0};
	double		chi = 0.0,
				e = (double) n / 256.0;
	size_t		i;

	unit_getrandom_fill(NULL, seed, 32);
	jl_keystream_seed(&s.ks, seed);
	s.stuck = stuck;
	jl_random_init(&r, src_fill, &s);
	for (i = 0; i < n; i++)
		c[jl_rand_bits(&r, 8)]++;
	for (i = 0; i < 256; i++)
		chi += (c[i] - e) * (c[i] - e) / e;
	return 1.0 - unit_gamma_p(255.0 / 2.0, chi / 2.0);
}

static void
test_frequencies(void)
{
	double		p = byte_frequency_p(0, 10000000);
	double		q = byte_frequency_p(1, 100000);

	check(p > UNIT_ALPHA, "byte frequencies of the keystream through jl_rand_bits (p = %.3g)", p);
	check(!(q > UNIT_ALPHA), "negative control: a stuck bit fails the same check (p = %.3g)", q);
}

static void
test_speed(void)
{
	JlKeystream ks;
	uint8_t		seed[32] = {1};
	static uint8_t buf[65536];
	double		t0,
				t;
	int			i,
				n = 4000;

	jl_keystream_seed(&ks, seed);
	t0 = unit_seconds();
	for (i = 0; i < n; i++)
		jl_keystream_generate(&ks, buf, sizeof(buf));
	t = unit_seconds() - t0;
	note("keystream: %.0f MB/s (%d x 64 KB in %.3f s)", n * 65536.0 / t / 1e6, n, t);
}

int
main(void)
{
	test_blocks();
	test_erasure();
	test_frequencies();
	test_speed();
	return unit_done("test_keystream");
}
