/*
 * poly1305.c - Poly1305 (RFC 8439, section 2.5), the accumulator h and the
 * key r in radix 2^26 so that every product fits 64 bits.
 */
#include "math/crypto/poly1305.h"

#include <string.h>

#define MASK26 0x3ffffffu

static inline uint32_t
le32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static inline void
put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

void
jl_poly1305_init(JlPoly1305 *st, const uint8_t key[32])
{
	/* r with the clamping of section 2.5.1, split into 26-bit limbs */
	st->r[0] = le32(key + 0) & 0x3ffffff;
	st->r[1] = (le32(key + 3) >> 2) & 0x3ffff03;
	st->r[2] = (le32(key + 6) >> 4) & 0x3ffc0ff;
	st->r[3] = (le32(key + 9) >> 6) & 0x3f03fff;
	st->r[4] = (le32(key + 12) >> 8) & 0x00fffff;
	memset(st->h, 0, sizeof(st->h));
	st->pad[0] = le32(key + 16);
	st->pad[1] = le32(key + 20);
	st->pad[2] = le32(key + 24);
	st->pad[3] = le32(key + 28);
	st->nbuf = 0;
}

/* h = (h + block) * r mod 2^130 - 5 for each 16-byte block; hibit 2^128 */
static void
blocks(JlPoly1305 *st, const uint8_t *m, size_t n, uint32_t hibit)
{
	const uint64_t r0 = st->r[0], r1 = st->r[1], r2 = st->r[2],
				r3 = st->r[3], r4 = st->r[4];
	const uint64_t s1 = r1 * 5, s2 = r2 * 5, s3 = r3 * 5, s4 = r4 * 5;
	uint32_t	h0 = st->h[0], h1 = st->h[1], h2 = st->h[2],
				h3 = st->h[3], h4 = st->h[4];

	while (n >= 16)
	{
		uint64_t	d0, d1, d2, d3, d4;
		uint32_t	c;

		h0 += le32(m + 0) & MASK26;
		h1 += (le32(m + 3) >> 2) & MASK26;
		h2 += (le32(m + 6) >> 4) & MASK26;
		h3 += (le32(m + 9) >> 6) & MASK26;
		h4 += (le32(m + 12) >> 8) | hibit;

		d0 = (uint64_t) h0 * r0 + (uint64_t) h1 * s4 + (uint64_t) h2 * s3 +
			(uint64_t) h3 * s2 + (uint64_t) h4 * s1;
		d1 = (uint64_t) h0 * r1 + (uint64_t) h1 * r0 + (uint64_t) h2 * s4 +
			(uint64_t) h3 * s3 + (uint64_t) h4 * s2;
		d2 = (uint64_t) h0 * r2 + (uint64_t) h1 * r1 + (uint64_t) h2 * r0 +
			(uint64_t) h3 * s4 + (uint64_t) h4 * s3;
		d3 = (uint64_t) h0 * r3 + (uint64_t) h1 * r2 + (uint64_t) h2 * r1 +
			(uint64_t) h3 * r0 + (uint64_t) h4 * s4;
		d4 = (uint64_t) h0 * r4 + (uint64_t) h1 * r3 + (uint64_t) h2 * r2 +
			(uint64_t) h3 * r1 + (uint64_t) h4 * r0;

		c = (uint32_t) (d0 >> 26);
		h0 = (uint32_t) d0 & MASK26;
		d1 += c;
		c = (uint32_t) (d1 >> 26);
		h1 = (uint32_t) d1 & MASK26;
		d2 += c;
		c = (uint32_t) (d2 >> 26);
		h2 = (uint32_t) d2 & MASK26;
		d3 += c;
		c = (uint32_t) (d3 >> 26);
		h3 = (uint32_t) d3 & MASK26;
		d4 += c;
		c = (uint32_t) (d4 >> 26);
		h4 = (uint32_t) d4 & MASK26;
		h0 += c * 5;
		c = h0 >> 26;
		h0 &= MASK26;
		h1 += c;

		m += 16;
		n -= 16;
	}
	st->h[0] = h0;
	st->h[1] = h1;
	st->h[2] = h2;
	st->h[3] = h3;
	st->h[4] = h4;
}

void
jl_poly1305_update(JlPoly1305 *st, const uint8_t *m, size_t n)
{
	if (st->nbuf > 0)
	{
		size_t		take = 16 - st->nbuf < n ? 16 - st->nbuf : n;

		memcpy(st->buf + st->nbuf, m, take);
		st->nbuf += take;
		m += take;
		n -= take;
		if (st->nbuf < 16)
			return;
		blocks(st, st->buf, 16, 1u << 24);
		st->nbuf = 0;
	}
	if (n >= 16)
	{
		size_t		whole = n & ~(size_t) 15;

		blocks(st, m, whole, 1u << 24);
		m += whole;
		n -= whole;
	}
	if (n > 0)
	{
		memcpy(st->buf, m, n);
		st->nbuf = n;
	}
}

void
jl_poly1305_final(JlPoly1305 *st, uint8_t tag[16])
{
	uint32_t	h0, h1, h2, h3, h4, c;
	uint32_t	g0, g1, g2, g3, g4, mask;
	uint64_t	f;

	if (st->nbuf > 0)
	{
		/* the last partial block gets its 1 byte here, not 2^128 */
		st->buf[st->nbuf] = 1;
		memset(st->buf + st->nbuf + 1, 0, 16 - st->nbuf - 1);
		blocks(st, st->buf, 16, 0);
	}
	h0 = st->h[0];
	h1 = st->h[1];
	h2 = st->h[2];
	h3 = st->h[3];
	h4 = st->h[4];

	/* full carry */
	c = h1 >> 26;
	h1 &= MASK26;
	h2 += c;
	c = h2 >> 26;
	h2 &= MASK26;
	h3 += c;
	c = h3 >> 26;
	h3 &= MASK26;
	h4 += c;
	c = h4 >> 26;
	h4 &= MASK26;
	h0 += c * 5;
	c = h0 >> 26;
	h0 &= MASK26;
	h1 += c;

	/* g = h + 5 - 2^130; take g when it is not negative (h >= p) */
	g0 = h0 + 5;
	c = g0 >> 26;
	g0 &= MASK26;
	g1 = h1 + c;
	c = g1 >> 26;
	g1 &= MASK26;
	g2 = h2 + c;
	c = g2 >> 26;
	g2 &= MASK26;
	g3 = h3 + c;
	c = g3 >> 26;
	g3 &= MASK26;
	g4 = h4 + c - (1u << 26);

	mask = (g4 >> 31) - 1;		/* all ones when g4 did not borrow */
	g0 &= mask;
	g1 &= mask;
	g2 &= mask;
	g3 &= mask;
	g4 &= mask;
	mask = ~mask;
	h0 = (h0 & mask) | g0;
	h1 = (h1 & mask) | g1;
	h2 = (h2 & mask) | g2;
	h3 = (h3 & mask) | g3;
	h4 = (h4 & mask) | g4;

	/* h mod 2^128 as four words, plus s */
	h0 = h0 | (h1 << 26);
	h1 = (h1 >> 6) | (h2 << 20);
	h2 = (h2 >> 12) | (h3 << 14);
	h3 = (h3 >> 18) | (h4 << 8);

	f = (uint64_t) h0 + st->pad[0];
	put_le32(tag + 0, (uint32_t) f);
	f = (uint64_t) h1 + st->pad[1] + (f >> 32);
	put_le32(tag + 4, (uint32_t) f);
	f = (uint64_t) h2 + st->pad[2] + (f >> 32);
	put_le32(tag + 8, (uint32_t) f);
	f = (uint64_t) h3 + st->pad[3] + (f >> 32);
	put_le32(tag + 12, (uint32_t) f);

	memset(st, 0, sizeof(*st));
}

void
jl_poly1305(const uint8_t key[32], const uint8_t *m, size_t n, uint8_t tag[16])
{
	JlPoly1305	st;

	jl_poly1305_init(&st, key);
	jl_poly1305_update(&st, m, n);
	jl_poly1305_final(&st, tag);
}

int
jl_tag_equal(const uint8_t a[16], const uint8_t b[16])
{
	uint8_t		d = 0;
	int			i;

	for (i = 0; i < 16; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}
