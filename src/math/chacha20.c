/*
 * chacha20.c - the ChaCha20 block function (RFC 8439, section 2.3).
 */
#include "math/chacha20.h"

static inline uint32_t
rotl32(uint32_t v, int c)
{
	return (v << c) | (v >> (32 - c));
}

static inline uint32_t
load_le32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

#define QR(a, b, c, d) \
	do { \
		a += b; d ^= a; d = rotl32(d, 16); \
		c += d; b ^= c; b = rotl32(b, 12); \
		a += b; d ^= a; d = rotl32(d, 8); \
		c += d; b ^= c; b = rotl32(b, 7); \
	} while (0)

void
jl_chacha20_block(const uint8_t key[32], uint32_t counter,
				  const uint8_t nonce[12], uint32_t out[16])
{
	uint32_t	s[16];
	uint32_t	x[16];
	int			i;

	s[0] = 0x61707865;
	s[1] = 0x3320646e;
	s[2] = 0x79622d32;
	s[3] = 0x6b206574;
	for (i = 0; i < 8; i++)
		s[4 + i] = load_le32(key + 4 * i);
	s[12] = counter;
	for (i = 0; i < 3; i++)
		s[13 + i] = load_le32(nonce + 4 * i);

	for (i = 0; i < 16; i++)
		x[i] = s[i];
	for (i = 0; i < 10; i++)
	{
		QR(x[0], x[4], x[8], x[12]);
		QR(x[1], x[5], x[9], x[13]);
		QR(x[2], x[6], x[10], x[14]);
		QR(x[3], x[7], x[11], x[15]);
		QR(x[0], x[5], x[10], x[15]);
		QR(x[1], x[6], x[11], x[12]);
		QR(x[2], x[7], x[8], x[13]);
		QR(x[3], x[4], x[9], x[14]);
	}
	for (i = 0; i < 16; i++)
		out[i] = x[i] + s[i];
}

void
jl_chacha20_serialize(const uint32_t block[16], uint8_t out[64])
{
	int			i;

	for (i = 0; i < 16; i++)
	{
		out[4 * i] = (uint8_t) block[i];
		out[4 * i + 1] = (uint8_t) (block[i] >> 8);
		out[4 * i + 2] = (uint8_t) (block[i] >> 16);
		out[4 * i + 3] = (uint8_t) (block[i] >> 24);
	}
}
