/*
 * grid.c - the power-of-two grid a release lives on, and the limits on
 * input rows that keep the floating-point error of x P within the grid's
 * allowance.
 */
#include "math/grid.h"
#include "math/fp.h"

#include <float.h>
#include <math.h>

/* Largest power of two <= v (v > 0, normal). */
static double
pow2_floor(double v)
{
	int			e;

	(void) frexp(v, &e);		/* v = f 2^e, f in [0.5, 1) */
	return ldexp(1.0, e - 1);
}

bool
jl_grid_set(JlMechanism *m, double g)
{
	if (!(g >= DBL_MIN * 4.0))
		return false;
	m->grid = pow2_floor(g);
	m->fp_allowance = m->grid / 4.0;
	jl_grid_set_input_limit(m);
	return true;
}

void
jl_grid_set_input_limit(JlMechanism *m)
{
	/*
	 * Inputs are clamped to |x_i| <= input_limit, so that the compensated
	 * projection's gamma_d^2 term, gamma_d^2 d input_limit max|P|, stays
	 * below g/8 (its other term, u |y|, is below g/8 for the |y| < 2^49 g
	 * that are not saturated).  In practice nothing is clamped: the limit is
	 * about 10^21 bound for d = 100.
	 */
	double		gd = (m->d + 2) * JL_U_ROUND / (1.0 - (m->d + 2) * JL_U_ROUND);
	double		lim = (m->grid / 8.0) / (gd * gd * (double) m->d * (m->max_abs > 0 ? m->max_abs : 1.0)) *
		(1.0 - 1e-6);

	m->input_limit = fmin(lim, 1e290);
}

int
jl_row_class(const JlMechanism *m, const double *x)
{
	double		s0 = 0.0,
				s1 = 0.0,
				s2 = 0.0,
				s3 = 0.0;
	double		lim = m->input_limit;
	double		l1,
				m0 = 0.0,
				m1 = 0.0,
				m2 = 0.0,
				m3 = 0.0,
				amax;
	int			cls = JL_ROW_PLAIN;
	int64_t		i;

	/*
	 * One pass: four partial sums and four partial maxima (the latency of
	 * the adds and compares, not the loads, bounds this loop: one chain of
	 * maxima was its slowest part).  Plain comparisons rather than
	 * fmin/fmax, which are library calls without -ffast-math; x is finite.
	 */
	for (i = 0; i + 4 <= m->d; i += 4)
	{
		double		a0 = fabs(x[i]),
					a1 = fabs(x[i + 1]),
					a2 = fabs(x[i + 2]),
					a3 = fabs(x[i + 3]);

		m0 = a0 > m0 ? a0 : m0;
		m1 = a1 > m1 ? a1 : m1;
		m2 = a2 > m2 ? a2 : m2;
		m3 = a3 > m3 ? a3 : m3;
		s0 += a0 < lim ? a0 : lim;
		s1 += a1 < lim ? a1 : lim;
		s2 += a2 < lim ? a2 : lim;
		s3 += a3 < lim ? a3 : lim;
	}
	for (; i < m->d; i++)
	{
		double		a = fabs(x[i]);

		m0 = a > m0 ? a : m0;
		s0 += a < lim ? a : lim;
	}
	m0 = m1 > m0 ? m1 : m0;
	m2 = m3 > m2 ? m3 : m2;
	amax = m2 > m0 ? m2 : m0;
	l1 = (s0 + s1) + (s2 + s3);
	if (amax > lim)
		cls |= JL_ROW_CLAMP;
	/* the computed l1 (any summation order) is within gamma_d of the truth */
	if (!jl_fp_within_allowance(l1, m->d, m->max_abs, m->fp_allowance))
		cls |= JL_ROW_COMPENSATED;
	return cls;
}

void
jl_row_clamp(const JlMechanism *m, double *x)
{
	int64_t		i;

	for (i = 0; i < m->d; i++)
		x[i] = x[i] > m->input_limit ? m->input_limit :
			(x[i] < -m->input_limit ? -m->input_limit : x[i]);
}

bool
jl_on_grid(double v, double grid)
{
	double		n = v / grid;

	return isfinite(n) && n == nearbyint(n);
}
