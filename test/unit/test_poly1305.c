/*
 * test_poly1305.c - Poly1305 against RFC 8439: section 2.5.2 and the edge
 * cases of Appendix A.3 (test vectors #5, #6, #7: carries through the top
 * limb, h >= 2^130 - 5 at the end, s wrapping past 2^128), fed whole and in
 * pieces of every length 1..17.  Expected values were checked against an
 * independent implementation (OpenSSL's through Python's cryptography).
 */
#include "unit.h"
#include "math/crypto/poly1305.h"

#include "math/crypto/keywrap.h"

static void
vector(const char *name, const char *key_hex, const uint8_t *m, size_t n,
	   const char *tag_hex)
{
	uint8_t		key[32],
				tag[16];
	char		got[33];
	size_t		piece;
	int			pieces_ok = 1;

	unit_unhex(key_hex, key, 32);
	jl_poly1305(key, m, n, tag);
	jl_hex(tag, 16, got);
	check(strcmp(got, tag_hex) == 0, "%s: tag %s (want %s)", name, got, tag_hex);

	/* the same tag whatever the pieces the message arrives in */
	for (piece = 1; piece <= 17; piece++)
	{
		JlPoly1305	st;
		size_t		off;

		jl_poly1305_init(&st, key);
		for (off = 0; off < n; off += piece)
			jl_poly1305_update(&st, m + off, n - off < piece ? n - off : piece);
		jl_poly1305_final(&st, tag);
		jl_hex(tag, 16, got);
		if (strcmp(got, tag_hex) != 0)
			pieces_ok = 0;
	}
	check(pieces_ok, "%s: the same tag fed in pieces of 1..17 bytes", name);
}

int
main(void)
{
	const char *msg = "Cryptographic Forum Research Group";
	uint8_t		ff[16],
				m6[16],
				m7[48];
	uint8_t		a[16] = {0},
				b[16] = {0};

	vector("RFC 8439 2.5.2",
		   "85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b",
		   (const uint8_t *) msg, strlen(msg), "a8061dc1305136c6c22b8baf0c0127a9");

	memset(ff, 0xff, 16);
	vector("RFC 8439 A.3 #5 (h reaches 2^130 - 5)",
		   "0200000000000000000000000000000000000000000000000000000000000000",
		   ff, 16, "03000000000000000000000000000000");
	unit_unhex("02000000000000000000000000000000", m6, 16);
	vector("RFC 8439 A.3 #6 (s wraps past 2^128)",
		   "02000000000000000000000000000000ffffffffffffffffffffffffffffffff",
		   m6, 16, "03000000000000000000000000000000");
	unit_unhex("ffffffffffffffffffffffffffffffff"
		  "f0ffffffffffffffffffffffffffffff"
		  "11000000000000000000000000000000", m7, 48);
	vector("RFC 8439 A.3 #7 (carry through the top limb)",
		   "0100000000000000000000000000000000000000000000000000000000000000",
		   m7, 48, "05000000000000000000000000000000");

	/* negative control: a wrong expected tag must be told apart */
	check(jl_tag_equal(a, b), "equal tags compare equal");
	b[15] = 1;
	check(!jl_tag_equal(a, b), "tags differing in the last bit compare unequal");
	return unit_done("test_poly1305");
}
