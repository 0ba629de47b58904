/*
 * chacha20.h - the ChaCha20 block function of RFC 8439, section 2.3.
 *
 * Plain C (no postgres.h) so it can be tested against the RFC's vectors
 * without a server.
 */
#ifndef JLDP_MATH_CHACHA20_H
#define JLDP_MATH_CHACHA20_H

#include <stddef.h>
#include <stdint.h>

#define JL_CHACHA_KEY_BYTES 32

/*
 * One 64-byte block of keystream as 16 words (the serialized block is these
 * words in little-endian order).  key: 32 bytes; nonce: 12 bytes.
 */
void		jl_chacha20_block(const uint8_t key[32], uint32_t counter,
							  const uint8_t nonce[12], uint32_t out[16]);

/*
 * nblocks consecutive blocks of keystream (counters counter, counter + 1,
 * ...; the counter wraps modulo 2^32 as in RFC 8439), serialized, into out
 * (64 nblocks bytes): the same bytes as jl_chacha20_block and
 * jl_chacha20_serialize block by block, computed eight blocks at a time in
 * vector registers.
 */
void		jl_chacha20_blocks(const uint8_t key[32], uint32_t counter,
							   const uint8_t nonce[12], uint8_t *out,
							   size_t nblocks);

/* Serialize a block as RFC 8439 does (little-endian words). */
void		jl_chacha20_serialize(const uint32_t block[16], uint8_t out[64]);

#endif
