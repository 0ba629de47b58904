/*
 * test_accountant_audit.c - a Monte Carlo audit of a composed sequence:
 * 100 releases of exact discrete Laplace noise of scale 10 (epsilon 0.1)
 * on a count, on the worst-case neighbours 0 and 1, with the samplers the
 * releases use (math/noise/laplace.c).  The composition at delta 0.01
 * (math/accounting/accountant.c) claims (epsilon*, 0.01); the audit
 * estimates the real delta at epsilon*, E_x[(1 - e^(epsilon* - L))_+] over
 * the summed privacy loss L of the samples drawn on 0 against 1 (an
 * unbiased estimate of the hockey-stick divergence), from N = 400,000
 * composed outputs, and requires it at most 0.01 + 5.33 standard errors
 * (false failure below 1e-7 by the normal approximation, N large).
 *
 * Negative controls, which the audit must flag (estimate above 0.01 by
 * more than 5.33 standard errors): the zCDP rho read as epsilon (0.5),
 * and the claimed epsilon lowered by 5% (an accountant that under-reports).
 * The privacy loss of one draw y is (|y - 1| - |y|) / 10, +-0.1: the
 * audit needs no model of the noise beyond its distribution's shape.
 */
#include "unit.h"
#include "math/accounting/accountant.h"
#include "math/noise/laplace.h"

#define RELEASES 100
#define SCALE 10
#define SAMPLES 400000
#define TARGET_DELTA 0.01

static JlRandom rng;

/* one composed output's privacy loss, drawn on the neighbour 0 */
static double
composed_loss(void)
{
	int64_t		l = 0;

	for (int i = 0; i < RELEASES; i++)
	{
		int64_t		y = jl_discrete_laplace(&rng, SCALE);	/* 0 + noise */

		l += (llabs(y - 1) - llabs(y));
	}
	return (double) l / SCALE;
}

/* the estimate of delta at each epsilon asked, and its standard error */
static void
audit(const double *eps, int n, double *delta, double *se)
{
	double		s[8] = {0},
				s2[8] = {0};

	for (int k = 0; k < SAMPLES; k++)
	{
		double		L = composed_loss();

		for (int i = 0; i < n; i++)
		{
			double		v = L > eps[i] ? -expm1(eps[i] - L) : 0.0;

			s[i] += v;
			s2[i] += v * v;
		}
	}
	for (int i = 0; i < n; i++)
	{
		double		m = s[i] / SAMPLES;

		delta[i] = m;
		se[i] = sqrt(fmax(s2[i] / SAMPLES - m * m, 0.0) / SAMPLES);
	}
}

int
main(void)
{
	JlProfile	p[RELEASES];
	JlComposition c;
	double		eps[3],
				delta[3],
				se[3];

	jl_random_init(&rng, unit_getrandom_fill, NULL);
	for (int i = 0; i < RELEASES; i++)
	{
		p[i].kind = JL_PROFILE_PURE;
		p[i].epsilon = 1.0 / SCALE;
		p[i].delta = 0.0;
		p[i].rho = 0.0;
	}
	jl_compose(p, RELEASES, TARGET_DELTA, &c);
	eps[0] = c.epsilon;
	eps[1] = RELEASES * 0.5 / (SCALE * SCALE);	/* rho read as epsilon */
	eps[2] = 0.95 * c.epsilon;
	audit(eps, 3, delta, se);
	note("claimed (%.4f, %g) by %s; the sums say %.1f", c.epsilon, TARGET_DELTA, c.method, c.basic_epsilon);
	check(delta[0] <= TARGET_DELTA + UNIT_Z * se[0],
		  "audit: delta at the claimed epsilon %.4f is %.5f +- %.5f, at most %g", eps[0], delta[0], se[0],
		  TARGET_DELTA);
	check(delta[1] > TARGET_DELTA + UNIT_Z * se[1],
		  "negative control: rho read as epsilon (%.2f) has delta %.4f, flagged", eps[1], delta[1]);
	check(delta[2] > TARGET_DELTA + UNIT_Z * se[2],
		  "negative control: the claim lowered by 5%% (%.4f) has delta %.5f +- %.5f, flagged", eps[2], delta[2],
		  se[2]);
	return unit_done("test_accountant_audit");
}
