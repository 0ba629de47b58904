/*
 * randbits.h - exact integer randomness from a byte source.
 *
 * The source is a callback (pg_strong_random inside the server, the kernel's
 * getrandom in unit tests).  Everything above it uses integers only, so no
 * floating-point artefact can enter a noise sample.
 */
#ifndef JLDP_MATH_RANDBITS_H
#define JLDP_MATH_RANDBITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define JL_RAND_BUFSIZE 65536	/* OpenSSL costs per call: fill in large blocks */

typedef void (*JlRandomFill) (void *ctx, uint8_t *buf, size_t len);

typedef struct JlRandom
{
	JlRandomFill fill;			/* must fill the whole buffer or not return */
	void	   *ctx;
	uint8_t		buf[JL_RAND_BUFSIZE];
	size_t		pos;			/* next unused byte of buf */
	size_t		len;			/* valid bytes in buf */
	uint64_t	acc;			/* unused bits, low-order first */
	int			nacc;			/* number of valid bits in acc */
} JlRandom;

void		jl_random_init(JlRandom *r, JlRandomFill fill, void *ctx);

/* Forget any buffered randomness (e.g. after fork). */
void		jl_random_reset(JlRandom *r);

/* Slow path of jl_rand_bits: the accumulator holds fewer than nbits. */
uint64_t	jl_rand_bits_refill(JlRandom *r, int nbits);

/* nbits uniform random bits, 0 <= nbits <= 64. */
static inline uint64_t
jl_rand_bits(JlRandom *r, int nbits)
{
	uint64_t	v;

	if (__builtin_expect(nbits <= r->nacc && nbits < 64, 1))
	{
		v = r->acc & ((UINT64_C(1) << nbits) - 1);
		r->acc >>= nbits;
		r->nacc -= nbits;
		return v;
	}
	if (nbits < 64 && r->len - r->pos >= 8)
	{
		/* the accumulator's bits, then the rest from the next word (as refill) */
		int			have = r->nacc;
		int			need = nbits - have;	/* 1..63 */
		uint64_t	w;

		memcpy(&w, r->buf + r->pos, 8);
		memset(r->buf + r->pos, 0, 8);	/* used randomness is not kept */
		r->pos += 8;
		v = r->acc | ((w & ((UINT64_C(1) << need) - 1)) << have);
		r->acc = w >> need;
		r->nacc = 64 - need;
		return v;
	}
	return jl_rand_bits_refill(r, nbits);
}

/*
 * 64 uniform random bits: the next whole word of the buffer (the
 * accumulator's bits stay for later calls).
 */
static inline uint64_t
jl_rand_word(JlRandom *r)
{
	uint64_t	w;

	if (__builtin_expect(r->len - r->pos >= 8, 1))
	{
		memcpy(&w, r->buf + r->pos, 8);
		memset(r->buf + r->pos, 0, 8);	/* used randomness is not kept */
		r->pos += 8;
		return w;
	}
	return jl_rand_bits_refill(r, 64);
}

/* Slow path of jl_rand_below: n >= 2^32. */
uint64_t	jl_rand_below_wide(JlRandom *r, uint64_t n);

/*
 * Uniform on {0, ..., n-1}, n >= 1 (exact).  Lemire's multiply-shift with
 * rejection for n < 2^32: the rejection (probability below n / 2^32) is
 * rare, so the branch predicts well.
 */
static inline uint64_t
jl_rand_below(JlRandom *r, uint64_t n)
{
	uint32_t	threshold;

	if (n <= 1)
		return 0;
	if (n > UINT32_MAX)
		return jl_rand_below_wide(r, n);
	threshold = (uint32_t) (-(uint32_t) n) % (uint32_t) n;
	for (;;)
	{
		uint64_t	m = jl_rand_bits(r, 32) * n;

		if ((uint32_t) m >= threshold)
			return m >> 32;
	}
}

bool		jl_rand_bernoulli_wide(JlRandom *r, uint64_t num, uint64_t den);

/*
 * Bernoulli(num/den), 0 <= num <= den, den >= 1 (exact).
 *
 * Compares a uniform random real r with num/den, 8 bits at a time: with R
 * the next 8 random bits, r < (R+1)/2^8 <= num/den decides true and
 * r >= R/2^8 >= num/den decides false; otherwise R is exactly the next 8
 * bits of the expansion of num/den and the comparison moves on to the
 * remainder.  One data-dependent branch per trial, multiplications only.
 */
static inline bool
jl_rand_bernoulli(JlRandom *r, uint64_t num, uint64_t den)
{
	if (num >= den)
		return true;
	if (num == 0)
		return false;
	if (den >= (UINT64_C(1) << 55))
		return jl_rand_bernoulli_wide(r, num, den);
	for (;;)
	{
		uint64_t	target = num << 8;	/* < 2^63 */
		uint64_t	lo = jl_rand_bits(r, 8) * den;	/* < 2^63 */

		if (lo + den <= target)
			return true;
		if (lo >= target)
			return false;
		num = target - lo;		/* in (0, den) */
	}
}

#endif
