/*
 * strong_random.c - the per-process noise source: a ChaCha20 keystream with
 * fast key erasure (math/keystream.c) keyed from pg_strong_random, behind
 * the bit buffer of math/randbits.c.
 *
 * The generator is keyed afresh from pg_strong_random in every process (the
 * state is tagged with the process id, so a forked child never continues
 * its parent's keystream or reuses bytes its parent had buffered), and 32
 * fresh bytes are mixed into its key after every JL_RESEED_BYTES of output.
 * docs/randomness.md gives the design and its security argument.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "math/keystream.h"
#include "pg/strong_random.h"

/* output between reseeds from pg_strong_random */
#define JL_RESEED_BYTES (UINT64_C(1) << 20)

static JlRandom rng;
static JlKeystream keystream;
static uint64 since_reseed = 0;
static int	rng_pid = 0;

static void
strong_seed(uint8 seed[32])
{
	if (!pg_strong_random(seed, 32))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate secure random bytes for noise")));
}

static void
fill_keystream(void *ctx, uint8_t *buf, size_t len)
{
	if (since_reseed >= JL_RESEED_BYTES)
	{
		uint8		seed[32];

		strong_seed(seed);
		jl_keystream_mix(&keystream, seed);
		explicit_bzero(seed, sizeof(seed));
		since_reseed = 0;
	}
	jl_keystream_generate(&keystream, buf, len);
	since_reseed += len;
}

JlRandom *
jl_strong_random(void)
{
	if (rng_pid != MyProcPid)
	{
		uint8		seed[32];

		/* a new process: nothing of the parent's state is used */
		jl_random_init(&rng, fill_keystream, NULL);
		strong_seed(seed);
		jl_keystream_seed(&keystream, seed);
		explicit_bzero(seed, sizeof(seed));
		since_reseed = 0;
		rng_pid = MyProcPid;
	}
	return &rng;
}
