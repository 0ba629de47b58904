/*
 * keywrap.c - AEAD_CHACHA20_POLY1305 (RFC 8439, section 2.8) on the
 * existing ChaCha20 block function, and the wrapped form of key secrets.
 */
#include "math/crypto/keywrap.h"

#include <string.h>

#include "math/crypto/chacha20.h"
#include "math/crypto/poly1305.h"

/* x ^= the ChaCha20 keystream from block counter 1 (section 2.4) */
static void
chacha20_xor(const uint8_t key[32], const uint8_t nonce[12],
			 const uint8_t *in, size_t n, uint8_t *out)
{
	uint32_t	ctr = 1;
	size_t		off = 0;

	while (off < n)
	{
		uint32_t	block[16];
		uint8_t		ks[64];
		size_t		m = n - off < 64 ? n - off : 64;
		size_t		i;

		jl_chacha20_block(key, ctr++, nonce, block);
		jl_chacha20_serialize(block, ks);
		for (i = 0; i < m; i++)
			out[off + i] = in[off + i] ^ ks[i];
		off += m;
		memset(ks, 0, sizeof(ks));
		memset(block, 0, sizeof(block));
	}
}

static void
put_le64(uint8_t *p, uint64_t v)
{
	int			i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

/* the tag over aad | pad16 | ct | pad16 | len(aad) | len(ct) (section 2.8) */
static void
aead_tag(const uint8_t key[32], const uint8_t nonce[12],
		 const uint8_t *aad, size_t naad, const uint8_t *ct, size_t n,
		 uint8_t tag[16])
{
	static const uint8_t zeros[16] = {0};
	uint32_t	block[16];
	uint8_t		otk[64];
	uint8_t		lens[16];
	JlPoly1305	st;

	/* the one-time Poly1305 key: block counter 0 (section 2.6) */
	jl_chacha20_block(key, 0, nonce, block);
	jl_chacha20_serialize(block, otk);
	jl_poly1305_init(&st, otk);
	jl_poly1305_update(&st, aad, naad);
	if (naad % 16)
		jl_poly1305_update(&st, zeros, 16 - naad % 16);
	jl_poly1305_update(&st, ct, n);
	if (n % 16)
		jl_poly1305_update(&st, zeros, 16 - n % 16);
	put_le64(lens, (uint64_t) naad);
	put_le64(lens + 8, (uint64_t) n);
	jl_poly1305_update(&st, lens, 16);
	jl_poly1305_final(&st, tag);
	memset(otk, 0, sizeof(otk));
	memset(block, 0, sizeof(block));
}

void
jl_aead_seal(const uint8_t key[32], const uint8_t nonce[12],
			 const uint8_t *aad, size_t naad,
			 const uint8_t *pt, size_t n, uint8_t *ct, uint8_t tag[16])
{
	chacha20_xor(key, nonce, pt, n, ct);
	aead_tag(key, nonce, aad, naad, ct, n, tag);
}

int
jl_aead_open(const uint8_t key[32], const uint8_t nonce[12],
			 const uint8_t *aad, size_t naad,
			 const uint8_t *ct, size_t n, const uint8_t tag[16], uint8_t *pt)
{
	uint8_t		want[16];
	int			ok;

	aead_tag(key, nonce, aad, naad, ct, n, want);
	ok = jl_tag_equal(want, tag);
	if (ok)
		chacha20_xor(key, nonce, ct, n, pt);
	else
		memset(pt, 0, n);
	return ok;
}

void
jl_master_id(const uint8_t master[32], uint8_t id[16])
{
	/* a block no AEAD use of the master key reaches: counter 2^32 - 1 */
	static const uint8_t nonce[12] = {'j', 'l', 'd', 'p', '-', 'm', 'a', 's', 't', 'e', 'r', 0};
	uint32_t	block[16];
	uint8_t		bytes[64];

	jl_chacha20_block(master, 0xffffffffu, nonce, block);
	jl_chacha20_serialize(block, bytes);
	memcpy(id, bytes, 16);
	memset(bytes, 0, sizeof(bytes));
	memset(block, 0, sizeof(block));
}

void
jl_hex(const uint8_t *b, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t		i;

	for (i = 0; i < n; i++)
	{
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[2 * n] = '\0';
}

#define AAD_PREFIX "jldp-key-v1"
#define AAD_MAX (sizeof(AAD_PREFIX) + 1 + JL_MASTER_ID_BYTES + 256)

/* the additional data; 0 when the name is too long to be a key name */
static size_t
wrap_aad(JlWrapPurpose purpose, const uint8_t id[16],
		 const char *name, size_t name_len, uint8_t aad[AAD_MAX])
{
	size_t		n = sizeof(AAD_PREFIX);	/* with its terminating 0 */

	if (name_len > 256)
		return 0;
	memcpy(aad, AAD_PREFIX, n);
	aad[n++] = (uint8_t) purpose;
	memcpy(aad + n, id, JL_MASTER_ID_BYTES);
	n += JL_MASTER_ID_BYTES;
	memcpy(aad + n, name, name_len);
	return n + name_len;
}

void
jl_keywrap(const uint8_t master[32], JlWrapPurpose purpose,
		   const char *name, size_t name_len,
		   const uint8_t secret[32], const uint8_t nonce[12],
		   uint8_t out[JL_WRAP_BYTES])
{
	uint8_t		aad[AAD_MAX];
	uint8_t    *id = out + 1,
			   *nc = id + JL_MASTER_ID_BYTES,
			   *ct = nc + JL_AEAD_NONCE_BYTES,
			   *tag = ct + JL_WRAPPED_SECRET_BYTES;
	size_t		naad;

	if (name_len > 256)
		name_len = 256;			/* callers check names far below this */
	out[0] = (uint8_t) purpose;
	jl_master_id(master, id);
	memcpy(nc, nonce, JL_AEAD_NONCE_BYTES);
	naad = wrap_aad(purpose, id, name, name_len, aad);
	jl_aead_seal(master, nc, aad, naad, secret, JL_WRAPPED_SECRET_BYTES, ct, tag);
}

JlUnwrapResult
jl_keyunwrap(const uint8_t master[32], JlWrapPurpose purpose,
			 const char *name, size_t name_len,
			 const uint8_t *in, size_t n, uint8_t secret[32])
{
	uint8_t		aad[AAD_MAX];
	uint8_t		id[JL_MASTER_ID_BYTES];
	size_t		naad;

	memset(secret, 0, JL_WRAPPED_SECRET_BYTES);
	if (n != JL_WRAP_BYTES || in[0] != (uint8_t) purpose || name_len > 256)
		return JL_UNWRAP_MALFORMED;
	jl_master_id(master, id);
	if (memcmp(id, in + 1, JL_MASTER_ID_BYTES) != 0)
		return JL_UNWRAP_OTHER_MASTER;
	naad = wrap_aad(purpose, id, name, name_len, aad);
	if (!jl_aead_open(master, in + 1 + JL_MASTER_ID_BYTES, aad, naad,
					  in + 1 + JL_MASTER_ID_BYTES + JL_AEAD_NONCE_BYTES,
					  JL_WRAPPED_SECRET_BYTES,
					  in + 1 + JL_MASTER_ID_BYTES + JL_AEAD_NONCE_BYTES + JL_WRAPPED_SECRET_BYTES,
					  secret))
		return JL_UNWRAP_FORGED;
	return JL_UNWRAP_OK;
}

const uint8_t *
jl_keywrap_master_id(const uint8_t *in)
{
	return in + 1;
}
