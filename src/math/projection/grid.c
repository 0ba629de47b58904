/*
 * grid.c - the power-of-two grid a release lives on, and the limits on
 * input rows that keep the floating-point error of x P within the grid's
 * allowance.
 */
#include "math/projection/grid.h"
#include "math/base/fp.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

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

/*
 * The sum of min(|x_i|, lim) and the largest |x_i| of a finite row, in one
 * pass with eight independent chains of each (two vectors of four lanes;
 * the latency of the adds and compares, not the loads, bounds this loop).
 * GCC's vector extension: SSE2 registers in the generic build, one AVX2
 * register in the clone chosen at load time on x86-64 processors that have
 * it.  Comparisons select with masks rather than fmin/fmax, which are
 * library calls without -ffast-math.
 */
typedef double jl_f64x4g __attribute__((vector_size(32)));
typedef int64_t jl_i64x4g __attribute__((vector_size(32)));

#define GLD4(p) ({ jl_f64x4g v_; memcpy(&v_, (p), sizeof(v_)); v_; })
#define GABS4(v) ((jl_f64x4g) ((jl_i64x4g) (v) & (jl_i64x4g) {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX}))
/* a where the mask is set, else b */
#define GSEL4(mask, a, b) ((jl_f64x4g) (((jl_i64x4g) (a) & (mask)) | ((jl_i64x4g) (b) & ~(mask))))

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void
row_sums(const double *x, int64_t d, double lim, double *l1, double *amax)
{
	jl_f64x4g	s0 = {0.0, 0.0, 0.0, 0.0},
				s1 = s0,
				m0 = s0,
				m1 = s0,
				L = {lim, lim, lim, lim};
	double		s,
				mx;
	int64_t		i;

	for (i = 0; i + 8 <= d; i += 8)
	{
		jl_f64x4g	a0 = GABS4(GLD4(x + i)),
					a1 = GABS4(GLD4(x + i + 4));

		m0 = GSEL4(a0 > m0, a0, m0);
		m1 = GSEL4(a1 > m1, a1, m1);
		s0 += GSEL4(a0 < L, a0, L);
		s1 += GSEL4(a1 < L, a1, L);
	}
	s0 += s1;
	m0 = GSEL4(m1 > m0, m1, m0);
	s = (s0[0] + s0[2]) + (s0[1] + s0[3]);
	mx = m0[0];
	mx = m0[1] > mx ? m0[1] : mx;
	mx = m0[2] > mx ? m0[2] : mx;
	mx = m0[3] > mx ? m0[3] : mx;
	for (; i < d; i++)
	{
		double		a = fabs(x[i]);

		mx = a > mx ? a : mx;
		s += a < lim ? a : lim;
	}
	*l1 = s;
	*amax = mx;
}

int
jl_row_class(const JlMechanism *m, const double *x)
{
	double		l1,
				amax;
	int			cls = JL_ROW_PLAIN;

	row_sums(x, m->d, m->input_limit, &l1, &amax);
	if (amax > m->input_limit)
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
