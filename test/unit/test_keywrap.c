/*
 * test_keywrap.c - AEAD_CHACHA20_POLY1305 against RFC 8439 (section 2.6.2,
 * the one-time key; section 2.8.2, the "sunscreen" AEAD vector), and the
 * wrapped form of a key secret: it opens under its master key, name and
 * purpose only, and every flipped bit is refused.  Expected values were
 * checked against OpenSSL's ChaCha20-Poly1305 through Python's cryptography.
 */
#define _GNU_SOURCE				/* memmem */
#include "unit.h"
#include "math/crypto/chacha20.h"
#include "math/crypto/keywrap.h"

int
main(void)
{
	uint8_t		key[32],
				nonce[12],
				aad[12],
				ct[128],
				back[128],
				tag[16];
	char		hex[2 * 128 + 1];
	const char *pt = "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.";
	size_t		n = strlen(pt);
	uint32_t	block[16];
	uint8_t		otk[64];
	int			i;

	for (i = 0; i < 32; i++)
		key[i] = (uint8_t) (0x80 + i);

	/* 2.6.2: the Poly1305 key is the first 32 bytes of block 0 */
	unit_unhex("000000000001020304050607", nonce, 12);
	jl_chacha20_block(key, 0, nonce, block);
	jl_chacha20_serialize(block, otk);
	jl_hex(otk, 32, hex);
	check(strcmp(hex, "8ad5a08b905f81cc815040274ab29471a833b637e3fd0da508dbb8e2fdd1a646") == 0,
		  "RFC 8439 2.6.2 one-time key %s", hex);

	/* 2.8.2 */
	unit_unhex("070000004041424344454647", nonce, 12);
	unit_unhex("50515253c0c1c2c3c4c5c6c7", aad, 12);
	jl_aead_seal(key, nonce, aad, 12, (const uint8_t *) pt, n, ct, tag);
	jl_hex(ct, n, hex);
	check(strcmp(hex, "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
				 "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
				 "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
				 "3ff4def08e4b7a9de576d26586cec64b6116") == 0,
		  "RFC 8439 2.8.2 ciphertext");
	jl_hex(tag, 16, hex);
	check(strcmp(hex, "1ae10b594f09e26a7e902ecbd0600691") == 0,
		  "RFC 8439 2.8.2 tag %s", hex);
	check(jl_aead_open(key, nonce, aad, 12, ct, n, tag, back) &&
		  memcmp(back, pt, n) == 0, "RFC 8439 2.8.2 opens to the plaintext");
	aad[0] ^= 1;
	check(!jl_aead_open(key, nonce, aad, 12, ct, n, tag, back) && back[0] == 0,
		  "a changed additional data is refused and no plaintext is returned");
	aad[0] ^= 1;
	ct[n - 1] ^= 0x80;
	check(!jl_aead_open(key, nonce, aad, 12, ct, n, tag, back),
		  "a changed ciphertext is refused");
	ct[n - 1] ^= 0x80;

	/* the wrapped form */
	{
		uint8_t		master[32],
					other[32],
					secret[32],
					got[32],
					w[JL_WRAP_BYTES],
					w2[JL_WRAP_BYTES],
					id[16];
		int			all_refused = 1;
		size_t		bit;

		for (i = 0; i < 32; i++)
		{
			master[i] = (uint8_t) (i * 7 + 1);
			other[i] = (uint8_t) (i * 7 + 2);
			secret[i] = (uint8_t) (0xa5 ^ i);
		}
		unit_unhex("0102030405060708090a0b0c", nonce, 12);
		jl_keywrap(master, JL_WRAP_AT_REST, "shared", 6, secret, nonce, w);
		check(JL_WRAP_BYTES == 77 && w[0] == JL_WRAP_AT_REST, "wrapped size 77, purpose byte first");
		check(memmem(w, sizeof(w), secret, 32) == NULL && memmem(w, sizeof(w), secret, 8) == NULL,
			  "the secret does not appear in its wrapped form");
		jl_master_id(master, id);
		check(memcmp(jl_keywrap_master_id(w), id, 16) == 0, "the wrapped form names its master key id");
		check(jl_keyunwrap(master, JL_WRAP_AT_REST, "shared", 6, w, sizeof(w), got) == JL_UNWRAP_OK &&
			  memcmp(got, secret, 32) == 0, "unwraps under its master key and name");
		check(jl_keyunwrap(other, JL_WRAP_AT_REST, "shared", 6, w, sizeof(w), got) == JL_UNWRAP_OTHER_MASTER,
			  "another master key is told apart by its id");
		check(jl_keyunwrap(master, JL_WRAP_AT_REST, "sharee", 6, w, sizeof(w), got) == JL_UNWRAP_FORGED,
			  "under another name it is refused (a wrapped secret cannot be moved to another key)");
		check(jl_keyunwrap(master, JL_WRAP_EXPORT, "shared", 6, w, sizeof(w), got) == JL_UNWRAP_MALFORMED,
			  "an at-rest form is not an export");
		check(jl_keyunwrap(master, JL_WRAP_AT_REST, "shared", 6, w, sizeof(w) - 1, got) == JL_UNWRAP_MALFORMED,
			  "a truncated form is refused");
		for (bit = 8 * 17; bit < 8 * sizeof(w); bit++)
		{
			memcpy(w2, w, sizeof(w));
			w2[bit / 8] ^= (uint8_t) (1 << (bit % 8));
			if (jl_keyunwrap(master, JL_WRAP_AT_REST, "shared", 6, w2, sizeof(w2), got) != JL_UNWRAP_FORGED)
				all_refused = 0;
		}
		check(all_refused, "every flipped bit of nonce, ciphertext or tag is refused");
		unit_unhex("0102030405060708090a0b0d", nonce, 12);
		jl_keywrap(master, JL_WRAP_AT_REST, "shared", 6, secret, nonce, w2);
		check(memcmp(w + 29, w2 + 29, 48) != 0, "another nonce gives another ciphertext");
	}
	return unit_done("test_keywrap");
}
