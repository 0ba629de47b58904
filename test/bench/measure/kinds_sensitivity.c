/*
 * kinds_sensitivity.c - the realized sensitivity of each projection kind:
 * a measurement that prints a table and asserts nothing.
 *
 * For d in {10, 100, 1000}, k in {2, 5, 20} and a few keys, the statistic
 * of P that sets the noise (math/projection/calibrate.h):
 *   element neighbours: max row L1 norm (Laplace), max row L2 norm (Gaussian)
 *   row neighbours:     max over s of ||P s||_2 (Laplace), sigma_max(P)
 *                       (Gaussian)
 * of the gaussian, rademacher, achlioptas and sparse (density 1/sqrt(d))
 * kinds, averaged over the keys with the worst key beside it, and the
 * identity (P = I_d, k = d) for reference.  Smaller is less noise for the
 * same epsilon; the noise variance scales with its square.
 *
 * Build and run: make -C test/bench/measure run
 */
#include "math/projection/projection.h"
#include "math/projection/sensitivity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NKEYS 5

static const int dims[] = {10, 100, 1000};
static const int ks[] = {2, 5, 20};
static const char *const stat_names[] = {
	"element, Laplace (max row L1)", "element, Gaussian (max row L2)",
	"row, Laplace (max_s ||P s||_2)", "row, Gaussian (sigma_max)"
};

static double
stat_of(const double *P, int d, int k, int which)
{
	JlRowMethod method;

	switch (which)
	{
		case 0:
			return jl_max_row_l1(P, d, k);
		case 1:
			return jl_max_row_l2(P, d, k);
		case 2:
			return jl_row_l1_sensitivity(P, d, k, &method);
		default:
			return jl_spectral_norm(P, d, k);
	}
}

int
main(void)
{
	JlKind		kinds[4] = {JL_KIND_GAUSSIAN, JL_KIND_RADEMACHER,
	JL_KIND_ACHLIOPTAS, JL_KIND_SPARSE};
	int			which,
				a,
				b,
				q,
				n;

	for (which = 0; which < 4; which++)
	{
		printf("%s: mean over %d keys (worst key)\n", stat_names[which], NKEYS);
		printf("%5s %3s | %-16s %-16s %-16s %-16s | %-9s | smallest\n", "d", "k",
			   "gaussian", "rademacher", "achlioptas", "sparse", "identity");
		for (a = 0; a < 3; a++)
			for (b = 0; b < 3; b++)
			{
				int			d = dims[a],
							k = ks[b];
				double	   *P = malloc(sizeof(double) * d * k);
				double		mean[4];
				int			best = 0;
				JlProjStats id;

				printf("%5d %3d |", d, k);
				for (q = 0; q < 4; q++)
				{
					JlKind		kind = jl_kind_resolve(kinds[q], d);
					double		sum = 0.0,
								worst = 0.0;

					for (n = 0; n < NKEYS; n++)
					{
						uint8_t		key[JL_KEY_BYTES];
						double		v;

						memset(key, 0, sizeof(key));
						key[0] = (uint8_t) (n + 1);
						jl_projection_matrix(key, kind, k, d, P);
						v = stat_of(P, d, k, which);
						sum += v;
						if (v > worst)
							worst = v;
					}
					mean[q] = sum / NKEYS;
					if (mean[q] < mean[best])
						best = q;
					printf(" %6.3f (%6.3f) ", mean[q], worst);
				}
				jl_identity_stats(d, &id);
				printf("| %9.3f | %s\n", jl_proj_stat(&id, (JlProjStat) which),
					   jl_kind_name(kinds[best]));
				free(P);
			}
		printf("\n");
	}
	return 0;
}
