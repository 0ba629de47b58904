/*
 * fuzz_keyunwrap.c - unwrapping a stored or exported key
 * (math/crypto/keywrap.c) from any bytes, under any key name: never a read
 * out of bounds, and never a secret from bytes that are not a wrapping of
 * it (a forgery would be a finding).  The first bytes of the input are the
 * name and the purpose; the master key is fixed, as on a server.
 */
#include "fuzz.h"

#include "math/crypto/keywrap.h"

static const uint8_t master[32] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzIn		in = {data, size};
	uint8_t		head[2];
	size_t		name_len;
	char	   *name;
	uint8_t    *blob;
	uint8_t		secret[32],
				again[JL_WRAP_BYTES];
	JlWrapPurpose purpose;
	JlUnwrapResult r;

	fuzz_take(&in, head, 2);
	purpose = (head[0] & 1) ? JL_WRAP_EXPORT : JL_WRAP_AT_REST;
	name_len = head[1] % 64;
	if (name_len > in.n)
		name_len = in.n;
	name = malloc(name_len + 1);
	fuzz_take(&in, name, name_len);
	blob = malloc(in.n ? in.n : 1);
	memcpy(blob, in.p, in.n);

	r = jl_keyunwrap(master, purpose, name, name_len, blob, in.n, secret);
	FUZZ_CHECK(r == JL_UNWRAP_OK || r == JL_UNWRAP_MALFORMED || r == JL_UNWRAP_OTHER_MASTER ||
			   r == JL_UNWRAP_FORGED, "result %d", (int) r);
	if (r == JL_UNWRAP_OK)
	{
		/*
		 * Accepted: then the bytes are the wrapping of this secret under this
		 * name, purpose and nonce, byte for byte, or the tag was forged.
		 */
		FUZZ_CHECK(in.n == JL_WRAP_BYTES, "accepted %zu bytes", in.n);
		jl_keywrap(master, purpose, name, name_len, secret,
				   blob + JL_WRAP_BYTES - JL_AEAD_TAG_BYTES - JL_WRAPPED_SECRET_BYTES - JL_AEAD_NONCE_BYTES,
				   again);
		FUZZ_CHECK(memcmp(again, blob, JL_WRAP_BYTES) == 0, "a secret from bytes that do not wrap it");
	}
	free(blob);
	free(name);
	return 0;
}
