/*
 * keystream.h - a ChaCha20 keystream generator with fast key erasure, the
 * expansion behind the backend's noise bits (pg/keys/strong_random.c seeds it
 * from pg_strong_random).
 *
 * Each call to jl_keystream_generate encrypts zeros under the current key
 * (nonce 0, block counter from 0): the first 32 bytes of that keystream
 * replace the key, the rest is the output, and the old key is overwritten
 * before the call returns.  So the state after a call says nothing about
 * the output of any earlier call (Bernstein, "Fast-key-erasure random-number
 * generators", 2017).  docs/design/randomness.md gives the security argument.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_KEYSTREAM_H
#define JLDP_MATH_KEYSTREAM_H

#include "math/crypto/chacha20.h"

#include <stddef.h>
#include <stdint.h>

/* the most output one key produces before it is replaced (blocks 1..) */
#define JL_KEYSTREAM_MAX_PER_KEY (UINT64_C(1) << 20)

typedef struct JlKeystream
{
	uint8_t		key[JL_CHACHA_KEY_BYTES];
} JlKeystream;

/* Key the generator with 32 seed bytes (replacing whatever it held). */
void		jl_keystream_seed(JlKeystream *ks, const uint8_t seed[32]);

/*
 * Mix 32 fresh seed bytes into the key (key XOR seed): uniform if either
 * the seed or the old key is, and unknown to whoever lacks either.
 */
void		jl_keystream_mix(JlKeystream *ks, const uint8_t seed[32]);

/* len bytes of output; the key moves on (fast key erasure). */
void		jl_keystream_generate(JlKeystream *ks, uint8_t *out, size_t len);

/* Forget the key. */
void		jl_keystream_wipe(JlKeystream *ks);

#endif
