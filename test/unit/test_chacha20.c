/*
 * test_chacha20.c - the ChaCha20 block function against RFC 8439.
 *
 * Vectors: section 2.3.2 (block function), section 2.4.2 (keystream and
 * ciphertext of the "sunscreen" plaintext, counter 1), Appendix A.1 test
 * vectors #1-#5.  Every expected value below was checked against an
 * independent implementation (OpenSSL's ChaCha20 through Python's
 * cryptography package) before being written down.
 */
#include "unit.h"
#include "math/crypto/chacha20.h"

static void
hex_to_bytes(const char *hex, uint8_t *out, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		unsigned int v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t) v;
	}
}

static void
bytes_to_hex(const uint8_t *b, size_t n, char *out)
{
	size_t		i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = '\0';
}

/* keystream of n bytes starting at block counter ctr (as RFC 8439 2.4) */
static void
keystream(const uint8_t key[32], uint32_t ctr, const uint8_t nonce[12],
		  uint8_t *out, size_t n)
{
	size_t		off = 0;

	while (off < n)
	{
		uint32_t	block[16];
		uint8_t		bytes[64];
		size_t		m = n - off < 64 ? n - off : 64;

		jl_chacha20_block(key, ctr++, nonce, block);
		jl_chacha20_serialize(block, bytes);
		memcpy(out + off, bytes, m);
		off += m;
	}
}

static void
check_block(const char *name, const uint8_t key[32], uint32_t ctr,
			const uint8_t nonce[12], const char *expected_hex)
{
	uint32_t	block[16];
	uint8_t		bytes[64];
	char		got[129];

	jl_chacha20_block(key, ctr, nonce, block);
	jl_chacha20_serialize(block, bytes);
	bytes_to_hex(bytes, 64, got);
	if (strcmp(got, expected_hex) == 0)
		check(1, "%s: serialized block matches", name);
	else
		check(0, "%s: serialized block is %s, want %s", name, got, expected_hex);
}

int
main(void)
{
	uint8_t		key[32],
				nonce[12];
	int			i;

	/* RFC 8439 2.3.2: key 00..1f, nonce 000000090000004a00000000, counter 1 */
	for (i = 0; i < 32; i++)
		key[i] = (uint8_t) i;
	hex_to_bytes("000000090000004a00000000", nonce, 12);
	{
		/* the state after 20 rounds plus the input, as words (2.3.2) */
		static const uint32_t words[16] = {
			0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3,
			0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
			0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
			0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2
		};
		uint32_t	block[16];
		int			same = 1;

		jl_chacha20_block(key, 1, nonce, block);
		for (i = 0; i < 16; i++)
			same &= block[i] == words[i];
		check(same, "rfc8439 2.3.2: block as 16 words (first %08x, want %08x)",
			  block[0], words[0]);
	}
	check_block("rfc8439 2.3.2", key, 1, nonce,
				"10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
				"d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");

	/* RFC 8439 2.4.2: key 00..1f, nonce 000000000000004a00000000, counter 1 */
	{
		static const char plaintext[] =
			"Ladies and Gentlemen of the class of '99: If I could offer you "
			"only one tip for the future, sunscreen would be it.";
		static const char ks_hex[] =
			"224f51f3401bd9e12fde276fb8631ded8c131f823d2c06e27e4fcaec9ef3cf78"
			"8a3b0aa372600a92b57974cded2b9334794cba40c63e34cdea212c4cf07d41b7"
			"69a6749f3f630f4122cafe28ec4dc47e26d4346d70b98c73f3e9c53ac40c5945"
			"398b6eda1a832c89c167eacd901d7e2bf363";
		static const char ct_hex[] =
			"6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
			"f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
			"07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
			"5af90bbf74a35be6b40b8eedf2785e42874d";
		size_t		n = strlen(plaintext);
		uint8_t		ks[114],
					ct[114];
		char		got[229];

		check(n == 114, "rfc8439 2.4.2: plaintext is 114 bytes (%zu)", n);
		hex_to_bytes("000000000000004a00000000", nonce, 12);
		keystream(key, 1, nonce, ks, n);
		bytes_to_hex(ks, n, got);
		check(strcmp(got, ks_hex) == 0, "rfc8439 2.4.2: 114-byte keystream over blocks 1-2 %s",
			  strcmp(got, ks_hex) == 0 ? "matches" : got);
		for (i = 0; i < (int) n; i++)
			ct[i] = (uint8_t) plaintext[i] ^ ks[i];
		bytes_to_hex(ct, n, got);
		check(strcmp(got, ct_hex) == 0, "rfc8439 2.4.2: ciphertext %s",
			  strcmp(got, ct_hex) == 0 ? "matches" : got);
	}

	/* RFC 8439 Appendix A.1 */
	memset(key, 0, 32);
	memset(nonce, 0, 12);
	check_block("rfc8439 A.1 #1 (zero key, counter 0)", key, 0, nonce,
				"76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
				"da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586");
	check_block("rfc8439 A.1 #2 (zero key, counter 1)", key, 1, nonce,
				"9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
				"29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f");
	key[31] = 0x01;
	check_block("rfc8439 A.1 #3 (key ..01, counter 1)", key, 1, nonce,
				"3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a"
				"8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0");
	memset(key, 0, 32);
	key[1] = 0xff;
	check_block("rfc8439 A.1 #4 (key 00ff.., counter 2)", key, 2, nonce,
				"72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca"
				"13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096");
	memset(key, 0, 32);
	nonce[11] = 0x02;
	check_block("rfc8439 A.1 #5 (nonce ..02, counter 0)", key, 0, nonce,
				"c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c7"
				"8a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d");

	/* serialization is little-endian word order */
	{
		uint32_t	w[16];
		uint8_t		b[64];
		int			ok = 1;

		for (i = 0; i < 16; i++)
			w[i] = 0x03020100u + 0x04040404u * (uint32_t) i;
		jl_chacha20_serialize(w, b);
		for (i = 0; i < 64; i++)
			ok &= b[i] == (uint8_t) i;
		check(ok, "serialize: words 0x03020100 + 0x04040404 i give bytes 00..3f");
	}

	/* counter wrap: the block function takes any 32-bit counter */
	{
		uint32_t	a[16],
					b[16];

		memset(key, 0x5a, 32);
		memset(nonce, 0xa5, 12);
		jl_chacha20_block(key, 0xffffffffu, nonce, a);
		jl_chacha20_block(key, 0, nonce, b);
		check(memcmp(a, b, sizeof(a)) != 0 && a[12] != 0,
			  "counter 0xffffffff and 0 give different blocks");
	}

	return unit_done("test_chacha20");
}
