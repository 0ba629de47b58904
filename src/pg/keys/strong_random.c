/*
 * strong_random.c - the per-process noise source: the generator of
 * math/random/process_random.c (a ChaCha20 keystream with fast key erasure behind
 * the bit buffer of math/random/randbits.c, forgotten in the child of every fork)
 * seeded from pg_strong_random.  docs/design/randomness.md gives the design and
 * its security argument.
 */
#include "postgres.h"

#include "math/random/process_random.h"
#include "pg/keys/strong_random.h"

static void
strong_seed(uint8_t seed[32])
{
	if (!pg_strong_random(seed, 32))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate secure random bytes for noise")));
}

JlRandom *
jl_strong_random(void)
{
	JlRandom   *r = jl_process_random(strong_seed);

	if (r == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("could not register the noise generator's fork handler")));
	return r;
}
