/*
 * gaussian_exact.h - independent computations of the Gaussian mechanisms'
 * privacy profiles for the C unit tests, in long double, written from the
 * formulas (no call into the code under test).
 */
#ifndef JLDP_UNIT_GAUSSIAN_EXACT_H
#define JLDP_UNIT_GAUSSIAN_EXACT_H

#include <math.h>

/*
 * The exact delta(eps) of N_Z(0, s^2)^k against the integer shift v
 * (k = 1 or 2): the sum over the lattice of p(n) (1 - e^(eps - L(n)))_+,
 * L(n) = (|v|^2 + 2 <n, v>) / (2 s^2).
 */
UNIT_FN long double
exact_discrete_delta(double s, int k, const int *v, double eps)
{
	long		N = (long) (40.0 * s) + 10,
				n1,
				n2;
	long double z = 0.0L,
				acc = 0.0L,
				vv = 0.0L,
				ss = 2.0L * s * s;
	int			i;

	for (i = 0; i < k; i++)
		vv += (long double) v[i] * v[i];
	for (n1 = -N; n1 <= N; n1++)
		z += expl(-(long double) n1 * n1 / ss);
	for (n1 = -N; n1 <= N; n1++)
		for (n2 = (k == 2 ? -N : 0); n2 <= (k == 2 ? N : 0); n2++)
		{
			long double L = (vv + 2.0L * ((long double) n1 * v[0] +
										  (k == 2 ? (long double) n2 * v[1] : 0.0L))) / ss;

			if (L > eps)
				acc += expl(-((long double) n1 * n1 + (long double) n2 * n2) / ss) *
					(1.0L - expl(eps - L));
		}
	return acc / (k == 2 ? z * z : z);
}

/* delta of N(mu, 1) against N(0, 1) at eps: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) */
UNIT_FN long double
gdp_ld(long double mu, long double eps)
{
	return 0.5L * erfcl((eps / mu - mu / 2.0L) / sqrtl(2.0L)) -
		expl(eps) * 0.5L * erfcl((eps / mu + mu / 2.0L) / sqrtl(2.0L));
}

#endif
