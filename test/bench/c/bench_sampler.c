/*
 * bench_sampler.c - not a test: figures of the exact noise samplers as a
 * release uses them (with their tables, bits from the ChaCha20 keystream
 * generator of the server): nanoseconds and random bits per sample.
 *   make -C test/unit bench_sampler && test/bench/c/bench_sampler
 * Prints one line per sampler and scale: "name scale ns_per_sample bits_per_sample".
 */
#include "unit.h"
#include "math/noise/gaussian.h"
#include "math/crypto/keystream.h"
#include "math/noise/laplace.h"

static JlKeystream ks;
static uint64_t bytes_drawn;

static void
keystream_fill(void *ctx, uint8_t *buf, size_t len)
{
	jl_keystream_generate(&ks, buf, len);
	bytes_drawn += len;
}

static JlRandom rng;

/* bits consumed since init: whole bytes filled minus what is still buffered */
static double
bits_used(void)
{
	return 8.0 * (double) (bytes_drawn - (rng.len - rng.pos)) - rng.nacc;
}

static void
run(const char *name, uint64_t scale, int gaussian, long n)
{
	uint32_t   *table;
	double		t0,
				t,
				b0,
				best;
	long		i;
	int			rep;
	int64_t		sink = 0;

	if (gaussian)
	{
		table = malloc(sizeof(uint32_t) * jl_gaussian_table_entries(scale));
		jl_gaussian_table_fill(scale, table);
	}
	else
	{
		table = malloc(sizeof(uint32_t) * jl_laplace_table_entries(scale));
		jl_laplace_table_fill(scale, table);
	}
	for (i = 0; i < 100000; i++)	/* warm up */
		sink += gaussian ? jl_discrete_gaussian_table(&rng, scale, table) :
			jl_discrete_laplace_table(&rng, scale, table);
	/* the fastest of 7 rounds (the machine may be shared); bits over all */
	b0 = bits_used();
	best = INFINITY;
	for (rep = 0; rep < 7; rep++)
	{
		t0 = unit_seconds();
		for (i = 0; i < n / 7; i++)
			sink += gaussian ? jl_discrete_gaussian_table(&rng, scale, table) :
				jl_discrete_laplace_table(&rng, scale, table);
		t = unit_seconds() - t0;
		best = fmin(best, t);
	}
	printf("%s %llu %.1f %.1f\n", name, (unsigned long long) scale,
		   best * 1e9 / (n / 7), (bits_used() - b0) / (7 * (n / 7)));
	free(table);
	if (sink == 42)
		printf(" ");
}

int
main(int argc, char **argv)
{
	uint8_t		seed[32];
	long		n = argc > 1 ? atol(argv[1]) : 4000000;
	double		t0,
				t;
	static uint8_t buf[65536];
	int			i,
				j;

	unit_getrandom_fill(NULL, seed, 32);
	jl_keystream_seed(&ks, seed);
	jl_random_init(&rng, keystream_fill, NULL);
	t = INFINITY;
	for (j = 0; j < 7; j++)
	{
		t0 = unit_seconds();
		for (i = 0; i < 300; i++)
			jl_keystream_generate(&ks, buf, sizeof(buf));
		t = fmin(t, unit_seconds() - t0);
	}
	printf("keystream 64KB %.2f ns_per_byte\n", t * 1e9 / (300.0 * sizeof(buf)));
	run("laplace", 9167, 0, n);		/* make bench's release: epsilon 4, k 20 */
	run("laplace", 1024, 0, n);
	run("laplace", 100000, 0, n);
	run("gaussian", 1536, 1, n);
	run("gaussian", 9802, 1, n);	/* make bench's release: delta 1e-6 */
	run("gaussian", 40000, 1, n);	/* above the direct table's 32767 */
	return 0;
}
