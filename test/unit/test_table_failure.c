/*
 * test_table_failure.c - a sampler table whose fill fails is never used.
 *
 * jl_laplace_table_fill needs memory for the alias construction; when it
 * is refused (malloc returning NULL, injected here by linking with
 * -Wl,--wrap=malloc), the fill must return false and leave a table that
 * the samplers refuse, whatever the buffer held before, so that they fall
 * back to the exact sampler without a table instead of reading a half-built
 * one.  Checked for a single and a split table and for the discrete
 * Gaussian's table at a scale that uses the Laplace's: the draws equal the
 * fallback's on the same fixed-seed stream.  Negative control: the failed
 * table with the magic word put back (what a fill that marked the table
 * before it was complete would leave) gives other draws.  Deterministic.
 */
#include "unit.h"
#include "math/noise/gaussian.h"
#include "math/noise/laplace.h"

#include <string.h>

void	   *__real_malloc(size_t n);
void	   *__wrap_malloc(size_t n);

static int	fail_malloc = 0;

void *
__wrap_malloc(size_t n)
{
	if (fail_malloc)
		return NULL;
	return __real_malloc(n);
}

/* draws of the table sampler and of the plain one on the same stream */
static int
same_draws(uint64_t t, const uint32_t *table, int gaussian, int n)
{
	JlRandom   *r1 = malloc(sizeof(JlRandom)),
			   *r2 = malloc(sizeof(JlRandom));
	uint64_t	s1 = 7,
				s2 = 7;
	int			i,
				same = 0;

	jl_random_init(r1, unit_det_fill, &s1);
	jl_random_init(r2, unit_det_fill, &s2);
	for (i = 0; i < n; i++)
		same += gaussian ?
			jl_discrete_gaussian_table(r1, t, table) == jl_discrete_gaussian(r2, t, NULL) :
			jl_discrete_laplace_table(r1, t, table) == jl_discrete_laplace(r2, t);
	free(r1);
	free(r2);
	return same;
}

int
main(void)
{
	static const uint64_t ts[] = {1000, 100000};
	int			i,
				n = 2000;

	for (i = 0; i < 2; i++)
	{
		uint64_t	t = ts[i],
					words = jl_laplace_table_entries(t);
		uint32_t   *table = malloc(sizeof(uint32_t) * words);
		bool		ok;
		int			same;

		memset(table, 0x01, sizeof(uint32_t) * words);	/* old contents */
		fail_malloc = 1;
		ok = jl_laplace_table_fill(t, table);
		fail_malloc = 0;
		same = same_draws(t, table, 0, n);
		check(!ok && jl_laplace_table_scale(table) == 0 && same == n,
			  "t=%llu (%s table): a failed fill returns false, the table is refused "
			  "(scale %llu) and the draws are the plain sampler's: %d of %d",
			  (unsigned long long) t, i == 0 ? "single" : "split",
			  (unsigned long long) jl_laplace_table_scale(table), same, n);
#ifndef JL_SANITIZED
		/*
		 * (not under the sanitizers: the control samples a deliberately
		 * corrupt table, whose shifts are undefined by design)
		 */
		if (i == 0)
		{
			table[0] = UINT32_C(0x4a4c4c32);	/* the magic word back */
			same = same_draws(t, table, 0, n);
			check(same < n, "negative control: the half-built table marked usable gives "
				  "other draws (%d of %d equal)", same, n);
		}
#endif
		free(table);
	}
	/*
	 * the discrete Gaussian: its direct table, and above it the table that
	 * holds a Laplace table
	 */
	for (i = 0; i < 2; i++)
	{
		uint64_t	s = i == 0 ? 20 : JL_GAUSSIAN_ALIAS_MAX_S + 1,
					words = jl_gaussian_table_entries(s);
		uint32_t   *table = malloc(sizeof(uint32_t) * words);
		int			same;

		memset(table, 0x01, sizeof(uint32_t) * words);
		fail_malloc = 1;
		jl_gaussian_table_fill(s, table);
		fail_malloc = 0;
		same = same_draws(s, table, 1, n);
		check(same == n, "discrete Gaussian s=%llu (%s table): after a failed fill the draws "
			  "are the plain sampler's: %d of %d", (unsigned long long) s,
			  i == 0 ? "direct" : "rejection", same, n);
		free(table);
	}
	return unit_done("test_table_failure");
}
