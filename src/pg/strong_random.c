/*
 * strong_random.c - the per-process noise source: pg_strong_random behind a
 * buffer that is tagged with the process id, so a forked child never reuses
 * bytes its parent had buffered.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "pg/strong_random.h"

static JlRandom rng;
static int	rng_pid = 0;

static void
fill_strong(void *ctx, uint8_t *buf, size_t len)
{
	if (!pg_strong_random(buf, len))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate secure random bytes for noise")));
}

JlRandom *
jl_strong_random(void)
{
	if (rng_pid != MyProcPid)
	{
		jl_random_init(&rng, fill_strong, NULL);
		rng_pid = MyProcPid;
	}
	return &rng;
}
