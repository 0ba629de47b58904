/*
 * compose_from.c - not a test: the composition of the profiles read from
 * standard input (math/accounting/accountant.c), for
 * test/statistical/accountant_reference.py.  First line: the target delta;
 * then one release a line: kind (pure, zcdp, approx), epsilon, delta, rho,
 * mu (0: none).
 * Prints: basic_epsilon basic_delta rdp_epsilon pld_epsilon epsilon method.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/accounting/accountant.h"

int
main(void)
{
	double		delta;
	char		kind[16];
	JlProfile  *p = NULL;
	int			n = 0,
				cap = 0;
	JlComposition c;

	if (scanf("%lf", &delta) != 1)
		return 2;
	for (;;)
	{
		JlProfile	q = {0};

		if (scanf("%15s %lf %lf %lf %lf", kind, &q.epsilon, &q.delta, &q.rho, &q.mu) != 5)
			break;
		q.kind = strcmp(kind, "pure") == 0 ? JL_PROFILE_PURE :
			strcmp(kind, "zcdp") == 0 ? JL_PROFILE_ZCDP : JL_PROFILE_APPROX;
		if (n == cap)
		{
			cap = cap ? 2 * cap : 64;
			p = realloc(p, sizeof(JlProfile) * cap);
			if (p == NULL)
				return 2;
		}
		p[n++] = q;
	}
	if (jl_compose(p, n, delta, &c) != JL_OK)
		return 1;
	printf("%.17g %.17g %.17g %.17g %.17g %s\n", c.basic_epsilon, c.basic_delta, c.rdp_epsilon,
		   c.pld_epsilon, c.epsilon, c.method);
	free(p);
	return 0;
}
