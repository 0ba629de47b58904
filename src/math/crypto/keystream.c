/*
 * keystream.c - ChaCha20 keystream with fast key erasure (see keystream.h).
 */
#include "math/crypto/keystream.h"

#include <string.h>

static const uint8_t zero_nonce[12];

/* memset that the compiler may not drop */
static void
wipe(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

void
jl_keystream_seed(JlKeystream *ks, const uint8_t seed[32])
{
	memcpy(ks->key, seed, JL_CHACHA_KEY_BYTES);
}

void
jl_keystream_mix(JlKeystream *ks, const uint8_t seed[32])
{
	int			i;

	for (i = 0; i < JL_CHACHA_KEY_BYTES; i++)
		ks->key[i] ^= seed[i];
}

/* up to JL_KEYSTREAM_MAX_PER_KEY bytes under one key, then the next key */
static void
generate_one_key(JlKeystream *ks, uint8_t *out, size_t len)
{
	uint8_t		first[64];
	uint8_t		last[64];
	size_t		head = len < 32 ? len : 32;
	size_t		full,
				tail;

	/* block 0: the next key, then the first 32 bytes of output */
	jl_chacha20_blocks(ks->key, 0, zero_nonce, first, 1);
	memcpy(out, first + 32, head);
	out += head;
	len -= head;
	full = len / 64;
	tail = len % 64;
	jl_chacha20_blocks(ks->key, 1, zero_nonce, out, full);
	if (tail > 0)
	{
		jl_chacha20_blocks(ks->key, 1 + (uint32_t) full, zero_nonce, last, 1);
		memcpy(out + 64 * full, last, tail);
		wipe(last, sizeof(last));
	}
	/* the old key is gone from here on */
	memcpy(ks->key, first, JL_CHACHA_KEY_BYTES);
	wipe(first, sizeof(first));
}

void
jl_keystream_generate(JlKeystream *ks, uint8_t *out, size_t len)
{
	do
	{
		size_t		n = len < JL_KEYSTREAM_MAX_PER_KEY ? len : JL_KEYSTREAM_MAX_PER_KEY;

		generate_one_key(ks, out, n);
		out += n;
		len -= n;
	} while (len > 0);
}

void
jl_keystream_wipe(JlKeystream *ks)
{
	wipe(ks->key, sizeof(ks->key));
}
