/*
 * keywrap.h - ChaCha20-Poly1305 (RFC 8439, section 2.8) and the wrapped
 * form of a 32-byte key secret under a 32-byte master key.
 *
 * Plain C (no postgres.h); test/unit/test_keywrap.c checks the AEAD against
 * the RFC's vectors and the wrapping against tampering.  The caller supplies
 * the 12-byte nonce (from a cryptographically secure source: a nonce must
 * never repeat under one master key).
 *
 * A wrapped secret is JL_WRAP_BYTES bytes:
 *   purpose (1) | master key id (16) | nonce (12) | ciphertext (32) | tag (16)
 * authenticated with the additional data "jldp-key-v1", the purpose, the
 * master key id and the key's name, so a wrapped secret opens only as the
 * key of that name, for that purpose, under that master key.
 */
#ifndef JLDP_MATH_KEYWRAP_H
#define JLDP_MATH_KEYWRAP_H

#include <stddef.h>
#include <stdint.h>

#define JL_AEAD_KEY_BYTES 32
#define JL_AEAD_NONCE_BYTES 12
#define JL_AEAD_TAG_BYTES 16

#define JL_MASTER_KEY_BYTES 32
#define JL_MASTER_ID_BYTES 16
#define JL_WRAPPED_SECRET_BYTES 32
#define JL_WRAP_BYTES (1 + JL_MASTER_ID_BYTES + JL_AEAD_NONCE_BYTES + \
					   JL_WRAPPED_SECRET_BYTES + JL_AEAD_TAG_BYTES)

/* what a wrapped secret is for: stored in the key table, or carried to a shard */
typedef enum JlWrapPurpose
{
	JL_WRAP_AT_REST = 1,
	JL_WRAP_EXPORT = 2
} JlWrapPurpose;

typedef enum JlUnwrapResult
{
	JL_UNWRAP_OK = 0,
	JL_UNWRAP_MALFORMED,		/* wrong length or purpose */
	JL_UNWRAP_OTHER_MASTER,		/* wrapped under another master key */
	JL_UNWRAP_FORGED			/* the tag does not verify */
} JlUnwrapResult;

/* AEAD_CHACHA20_POLY1305: ct gets n bytes, tag 16 */
void		jl_aead_seal(const uint8_t key[32], const uint8_t nonce[12],
						 const uint8_t *aad, size_t naad,
						 const uint8_t *pt, size_t n,
						 uint8_t *ct, uint8_t tag[16]);

/* 1 and pt when the tag verifies; 0 (pt zeroed) otherwise */
int			jl_aead_open(const uint8_t key[32], const uint8_t nonce[12],
						 const uint8_t *aad, size_t naad,
						 const uint8_t *ct, size_t n,
						 const uint8_t tag[16], uint8_t *pt);

/* the non-secret identifier of a master key (a PRF output, not the key) */
void		jl_master_id(const uint8_t master[32], uint8_t id[16]);

/* lower-case hex of n bytes into out (2n + 1 bytes) */
void		jl_hex(const uint8_t *b, size_t n, char *out);

void		jl_keywrap(const uint8_t master[32], JlWrapPurpose purpose,
					   const char *name, size_t name_len,
					   const uint8_t secret[32], const uint8_t nonce[12],
					   uint8_t out[JL_WRAP_BYTES]);

JlUnwrapResult jl_keyunwrap(const uint8_t master[32], JlWrapPurpose purpose,
							const char *name, size_t name_len,
							const uint8_t *in, size_t n,
							uint8_t secret[32]);

/* the master key id a wrapped secret names (n must be JL_WRAP_BYTES) */
const uint8_t *jl_keywrap_master_id(const uint8_t *in);

#endif
