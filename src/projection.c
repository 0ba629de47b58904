/*
 * projection.c - keyed generation of the JL projection matrix.
 *
 * Nonce layout (12 bytes, little-endian words):
 *   word 0: purpose | kind << 8
 *   word 1: k
 *   word 2: row index i
 * The 32-bit block counter walks along the row.  Each entry of a Gaussian row
 * uses a fixed 4 words (two 64-bit uniforms, Box-Muller), so entry j sits in
 * block j / 4 and can be located without generating the others.
 */
#include "projection.h"
#include "chacha20.h"

#include <math.h>
#include <string.h>

static void
make_nonce(uint8_t nonce[12], uint32_t purpose, uint32_t kind, uint32_t k,
		   uint32_t row)
{
	uint32_t	w[3];
	int			i;

	w[0] = purpose | (kind << 8);
	w[1] = k;
	w[2] = row;
	for (i = 0; i < 3; i++)
	{
		nonce[4 * i] = (uint8_t) w[i];
		nonce[4 * i + 1] = (uint8_t) (w[i] >> 8);
		nonce[4 * i + 2] = (uint8_t) (w[i] >> 16);
		nonce[4 * i + 3] = (uint8_t) (w[i] >> 24);
	}
}

double
jl_open_unit(uint64_t bits)
{
	/*
	 * (2m + 1) / 2^53 with m the top 52 bits: 2m + 1 < 2^53 is exact in a
	 * double, so u lies in [2^-53, 1 - 2^-53], never 0 or 1, and the grid
	 * is symmetric (u(m) + u(~m) = 1).
	 */
	return (double) (((bits >> 12) << 1) | 1) * (1.0 / 9007199254740992.0);
}

void
jl_projection_row(const uint8_t key[JL_KEY_BYTES], JlKind kind, int k,
				  uint32_t row, double *out)
{
	uint8_t		nonce[12];
	uint32_t	block[16];
	double		scale = 1.0 / sqrt((double) k);
	int			j;

	make_nonce(nonce, JL_PURPOSE_PROJECTION, (uint32_t) kind, (uint32_t) k, row);
	for (j = 0; j < k; j++)
	{
		const uint32_t *w;
		uint64_t	b1,
					b2;
		double		u1,
					u2;

		if (j % 4 == 0)
			jl_chacha20_block(key, (uint32_t) (j / 4), nonce, block);
		w = block + 4 * (j % 4);
		b1 = ((uint64_t) w[0] << 32) | w[1];
		b2 = ((uint64_t) w[2] << 32) | w[3];
		u1 = jl_open_unit(b1);
		u2 = jl_open_unit(b2);
		out[j] = scale * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
	}
}

void
jl_projection_matrix(const uint8_t key[JL_KEY_BYTES], JlKind kind, int k,
					 int64_t d, double *P)
{
	int64_t		i;

	for (i = 0; i < d; i++)
		jl_projection_row(key, kind, k, (uint32_t) i, P + i * (int64_t) k);
}

void
jl_key_fingerprint(const uint8_t key[JL_KEY_BYTES], char out[33])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t		nonce[12];
	uint32_t	block[16];
	uint8_t		bytes[64];
	int			i;

	make_nonce(nonce, JL_PURPOSE_FINGERPRINT, 0, 0, 0);
	jl_chacha20_block(key, 0, nonce, block);
	jl_chacha20_serialize(block, bytes);
	for (i = 0; i < 16; i++)
	{
		out[2 * i] = hex[bytes[i] >> 4];
		out[2 * i + 1] = hex[bytes[i] & 15];
	}
	out[32] = '\0';
	memset(bytes, 0, sizeof(bytes));
	memset(block, 0, sizeof(block));
}
