/*
 * bench_compose.c - what composing a dataset's releases costs per charge
 * (math/accounting/accountant.c): jl_compose over n releases already on
 * the dataset plus the new one, for n = 1, 10, 100, 1000, of pure releases
 * (the privacy loss distribution's case), of Gaussian releases known by
 * their rho only (as before 1.2.0: Renyi DP), of Gaussian releases with
 * their dominating shift mu (their PLD), and mixed (a third Gaussian, with mu).
 * Prints figures; asserts nothing.  make -C test/bench/c bench_compose
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "math/accounting/accountant.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
main(void)
{
	static const int sizes[] = {1, 10, 100, 1000};
	printf("| releases on the dataset | pure (ms) | Gaussian by rho (ms) | Gaussian with mu (ms) | mixed (ms) |\n"
		   "|---|---|---|---|---|\n");
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		int			n = sizes[s] + 1;
		JlProfile  *p = calloc(n, sizeof(JlProfile));

		printf("| %d |", sizes[s]);
		for (int m = 0; m < 4; m++)
		{
			JlComposition c;
			double		t0,
						t;
			int			reps = 0;

			for (int i = 0; i < n; i++)
			{
				int			zc = m == 1 || m == 2 || (m == 3 && i % 3 == 0);

				p[i].kind = zc ? JL_PROFILE_ZCDP : JL_PROFILE_PURE;
				p[i].epsilon = 0.01 + 0.001 * (i % 17);
				p[i].delta = zc ? 1e-9 : 0.0;
				p[i].rho = zc ? p[i].epsilon * p[i].epsilon / 4 : 0.0;
				p[i].mu = zc && m >= 2 ? 1.002 * p[i].epsilon / 1.414 : 0.0;
			}
			t0 = now();
			do
			{
				jl_compose(p, n, 1e-6, &c);
				reps++;
			} while ((t = now() - t0) < 0.5);
			printf(" %.3f |", 1e3 * t / reps);
		}
		printf("\n");
		free(p);
	}
	return 0;
}
