/*
 * covariance_normal.c - iid N(0,1) entries for the covariance release.
 */
#include "math/covariance/covariance_normal.h"

#include <math.h>

/* (m + 1/2) / 2^53: exact in double, never 0 or 1 */
static inline double
open_uniform(JlRandom *r)
{
	return ((double) jl_rand_bits(r, 53) + 0.5) * (1.0 / 9007199254740992.0);
}

void
jl_cov_normals(JlRandom *r, double *out, size_t n)
{
	size_t		i;

	for (i = 0; i + 1 < n; i += 2)
	{
		double		rad = sqrt(-2.0 * log(open_uniform(r))),
					ang = 2.0 * M_PI * open_uniform(r);

		out[i] = rad * cos(ang);
		out[i + 1] = rad * sin(ang);
	}
	if (i < n)
		out[i] = sqrt(-2.0 * log(open_uniform(r))) * cos(2.0 * M_PI * open_uniform(r));
}
