/*
 * process_random.c - the per-process noise generator (see process_random.h).
 */
#include "math/random/process_random.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "math/crypto/keystream.h"

static JlRandom rng;
static JlKeystream keystream;
static uint64_t since_reseed = 0;
static JlSeedSource seed_source = NULL;
static bool keyed = false;
static bool handler_registered = false;

/* memset that the compiler may not drop */
static void
wipe(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

/* in the child of a fork: forget everything inherited */
static void
forget_in_child(void)
{
	jl_keystream_wipe(&keystream);
	wipe(&rng, sizeof(rng));
	since_reseed = 0;
	keyed = false;
}

static void
fill_keystream(void *ctx, uint8_t *buf, size_t len)
{
	(void) ctx;
	if (since_reseed >= JL_RESEED_BYTES)
	{
		uint8_t		seed[32];

		seed_source(seed);
		jl_keystream_mix(&keystream, seed);
		wipe(seed, sizeof(seed));
		since_reseed = 0;
	}
	jl_keystream_generate(&keystream, buf, len);
	since_reseed += len;
}

JlRandom *
jl_process_random(JlSeedSource seed)
{
	if (!handler_registered)
	{
		/* before any key exists, so no fork can copy a key without it */
		if (pthread_atfork(NULL, NULL, forget_in_child) != 0)
			return NULL;
		handler_registered = true;
	}
	seed_source = seed;
	if (!keyed)
	{
		uint8_t		s[32];

		jl_random_init(&rng, fill_keystream, NULL);
		seed(s);
		jl_keystream_seed(&keystream, s);
		wipe(s, sizeof(s));
		since_reseed = 0;
		keyed = true;
	}
	return &rng;
}
