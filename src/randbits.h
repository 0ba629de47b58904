/*
 * randbits.h - exact integer randomness from a byte source.
 *
 * The source is a callback (pg_strong_random inside the server, the kernel's
 * getrandom in unit tests).  Everything above it uses integers only, so no
 * floating-point artefact can enter a noise sample.
 */
#ifndef JLDP_RANDBITS_H
#define JLDP_RANDBITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JL_RAND_BUFSIZE 4096

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

/* nbits uniform random bits, 0 <= nbits <= 64. */
uint64_t	jl_rand_bits(JlRandom *r, int nbits);

/* Uniform on {0, ..., n-1}, n >= 1, by rejection (exact). */
uint64_t	jl_rand_below(JlRandom *r, uint64_t n);

/* Bernoulli(num/den), 0 <= num <= den, den >= 1 (exact). */
bool		jl_rand_bernoulli(JlRandom *r, uint64_t num, uint64_t den);

#endif
