/*
 * mechanism.c - Laplace calibration and release on a power-of-two grid.
 *
 * Release of x: y = fl(x P); n_j = round(y_j / g); z_j = g (n_j + L_j) with
 * L_j discrete Laplace of integer scale t.  For neighbours x, x':
 *   |n_j g - n'_j g| <= |y_j - y'_j| + g            (rounding, each side g/2)
 *   |fl(y_j) - y_j|  <= gamma_d ||x||_1 max|P| <= g/4   (checked per row)
 * so ||n g - n' g||_1 <= D + k g + 2 k g/4 = D + 1.5 k g, where D is the L1
 * sensitivity of the exact x P.  The output lies on the grid, so its low
 * bits carry nothing about x (Mironov 2012), and the discrete Laplace is
 * sampled exactly, so the guarantee is pure epsilon-DP with
 *   epsilon_effective = (D + 1.5 k g) / (t g) <= epsilon.
 */
#include "mechanism.h"
#include "gaussian.h"
#include "laplace.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define U_ROUND (DBL_EPSILON / 2.0)
/* output and grid indices stay below 2^51 so g * n is exact */
#define JL_MAX_GRID_INDEX 2251799813685248.0
/* projections saturate at 2^49 grid steps (see jl_laplace_noise) */
#define JL_SATURATE 562949953421312.0
/* 1.5 * 2^52: adding and subtracting it rounds |q| < 2^51 to an integer */
#define JL_ROUND_MAGIC 6755399441055744.0

const char *
jl_status_message(JlStatus s)
{
	switch (s)
	{
		case JL_OK:
			return "ok";
		case JL_ERR_EPSILON:
			return "epsilon must be a finite number greater than 0";
		case JL_ERR_BOUND:
			return "bound must be a finite number greater than 0";
		case JL_ERR_DELTA_REQUIRED:
			return "delta is required for paper calibration with row neighbours";
		case JL_ERR_DELTA:
			return "delta must lie strictly between 0 and 1";
		case JL_ERR_SCALE:
			return "epsilon is too small: the noise scale exceeds the sampler's range";
		case JL_ERR_GRID:
			return "sensitivity is outside the representable range";
		case JL_ERR_ROW_MAGNITUDE:
			return "out of memory while preparing a row";
		case JL_ERR_OUTPUT_RANGE:
			return "projected value is too large for the release grid";
		case JL_ERR_GAUSSIAN_DELTA_REQUIRED:
			return "delta is required for Gaussian noise";
		case JL_ERR_CLASSIC_DELTA:
			return "classic calibration (Kenthapadi et al., Theorem 1) needs delta < 1/2";
		case JL_ERR_PAPER_NEIGHBOR:
			return "paper calibration for Gaussian noise (Kenthapadi et al., Lemma 2) is for element neighbours only";
		case JL_ERR_PAPER_K:
			return "paper calibration for Gaussian noise (Kenthapadi et al., Lemma 2) needs k > 2 (ln d + ln(2/delta))";
		case JL_ERR_PAPER_EPSILON:
			return "paper calibration for Gaussian noise (Kenthapadi et al., Lemma 2) needs epsilon < ln(1/delta)";
		case JL_ERR_ZERO_PROJECTION:
			return "every entry of this projection is zero, so its sketches would carry no information";
	}
	return "unknown status";
}

/* Largest power of two <= v (v > 0, normal). */
static double
pow2_floor(double v)
{
	int			e;

	(void) frexp(v, &e);		/* v = f 2^e, f in [0.5, 1) */
	return ldexp(1.0, e - 1);
}

bool
jl_set_grid(JlLaplace *m, double g)
{
	if (!(g >= DBL_MIN * 4.0))
		return false;
	m->grid = pow2_floor(g);
	m->fp_allowance = m->grid / 4.0;
	jl_set_input_limit(m);
	return true;
}

JlStatus
jl_laplace_calibrate(JlLaplace *m)
{
	double		target,
				g,
				tt;

	if (m->noise == JL_NOISE_GAUSSIAN)
		return (JlStatus) jl_gaussian_calibrate(m);
	m->sigma_calibration = NAN;
	m->rho = NAN;
	m->delta_holding = 0.0;
	if (!(isfinite(m->epsilon) && m->epsilon > 0.0))
		return JL_ERR_EPSILON;
	if (!(isfinite(m->bound) && m->bound > 0.0))
		return JL_ERR_BOUND;
	if (!isnan(m->delta) && !(m->delta > 0.0 && m->delta < 1.0))
		return JL_ERR_DELTA;

	if (m->proj_sensitivity == 0.0)
		return JL_ERR_ZERO_PROJECTION;
	m->data_sensitivity = m->bound * m->proj_sensitivity * (1.0 + 2.0 * U_ROUND);
	m->paper_c = NAN;
	m->paper_delta = NAN;

	if (m->calibration == JL_CALIBRATION_PAPER)
	{
		if (m->neighbor == JL_NEIGHBOR_ELEMENT)
		{
			/* Theorem 3: c = 2 sqrt(k) B, w.p. >= 1 - d e^(-k/2) over P */
			m->paper_c = 2.0 * sqrt((double) m->k) * m->bound;
			m->paper_delta = (double) m->d * exp(-0.5 * m->k);
		}
		else
		{
			/* Theorem 5: c = k t, t = sqrt(2 R^2 ln(2k/delta) / k) */
			double		t;

			if (isnan(m->delta))
				return JL_ERR_DELTA_REQUIRED;
			t = sqrt(2.0 * m->bound * m->bound * log(2.0 * m->k / m->delta) / m->k);
			m->paper_c = m->k * t;
			m->paper_delta = m->delta;
		}
		target = m->paper_c;
	}
	else
		target = m->data_sensitivity;

	if (!(isfinite(target) && target > 0.0 && isfinite(m->data_sensitivity) &&
		  target >= DBL_MIN * 1e10 && target <= 1e250))
		return JL_ERR_GRID;

	/*
	 * Grid: rounding costs 1.5 k g of sensitivity, at most 1/1024 of it; and
	 * the integer scale t = ceil(.) is at least 1024, so rounding t up costs
	 * at most another 1/1024.
	 */
	if (!jl_set_grid(m, fmin(target / (1536.0 * m->k), target / (1024.0 * m->epsilon))))
		return JL_ERR_GRID;
	g = m->grid;
	m->sensitivity = (m->data_sensitivity + 1.5 * m->k * g) * (1.0 + 4.0 * U_ROUND);

	if (m->calibration == JL_CALIBRATION_PAPER)
		tt = ceil(m->paper_c / (g * m->epsilon) * (1.0 + 4.0 * U_ROUND));
	else
		tt = ceil(m->sensitivity / (g * m->epsilon) * (1.0 + 4.0 * U_ROUND));
	if (!(tt >= 1.0 && tt <= (double) JL_LAPLACE_MAX_T))
		return JL_ERR_SCALE;
	m->t = (uint64_t) tt;
	m->scale = (double) m->t * g;
	m->noise_variance = g * g * jl_discrete_laplace_variance(m->t);
	m->epsilon_effective = m->sensitivity / m->scale;
	m->valid = (m->sensitivity <= m->scale * m->epsilon);
	m->noise_table = NULL;
	return JL_OK;
}

void
jl_set_input_limit(JlLaplace *m)
{
	/*
	 * Inputs are clamped to |x_i| <= input_limit, so that the compensated
	 * projection's gamma_d^2 term, gamma_d^2 d input_limit max|P|, stays
	 * below g/8 (its other term, u |y|, is below g/8 for the |y| < 2^49 g
	 * that are not saturated).  In practice nothing is clamped: the limit is
	 * about 10^21 bound for d = 100.
	 */
	double		gd = (m->d + 2) * U_ROUND / (1.0 - (m->d + 2) * U_ROUND);
	double		lim = (m->grid / 8.0) / (gd * gd * (double) m->d * (m->max_abs > 0 ? m->max_abs : 1.0)) *
		(1.0 - 1e-6);

	m->input_limit = fmin(lim, 1e290);
}

void
jl_project_vec(const double *P, int64_t d, int k, const double *x, double *y)
{
	cblas_dgemv(CblasRowMajor, CblasTrans, (int) d, k, 1.0, P, k, x, 1, 0.0,
				y, 1);
}

static inline double
gamma_n(double n)
{
	return n * U_ROUND / (1.0 - n * U_ROUND);
}

/* absolute error of products that underflow: at most 2^-1074 each */
#define JL_UNDERFLOW_UNIT 4.9406564584124654e-324

int
jl_laplace_row_class(const JlLaplace *m, const double *x)
{
	double		s0 = 0.0,
				s1 = 0.0,
				s2 = 0.0,
				s3 = 0.0;
	double		lim = m->input_limit;
	double		l1,
				gd,
				amax = 0.0;
	int			cls = JL_ROW_PLAIN;
	int64_t		i;

	/*
	 * One pass: four partial sums (the add latency, not the loads, bounds
	 * this loop) and the largest magnitude.  Plain comparisons rather than
	 * fmin/fmax, which are library calls without -ffast-math; x is finite.
	 */
	for (i = 0; i + 4 <= m->d; i += 4)
	{
		double		a0 = fabs(x[i]),
					a1 = fabs(x[i + 1]),
					a2 = fabs(x[i + 2]),
					a3 = fabs(x[i + 3]);

		amax = a0 > amax ? a0 : amax;
		amax = a1 > amax ? a1 : amax;
		amax = a2 > amax ? a2 : amax;
		amax = a3 > amax ? a3 : amax;
		s0 += a0 < lim ? a0 : lim;
		s1 += a1 < lim ? a1 : lim;
		s2 += a2 < lim ? a2 : lim;
		s3 += a3 < lim ? a3 : lim;
	}
	for (; i < m->d; i++)
	{
		double		a = fabs(x[i]);

		amax = a > amax ? a : amax;
		s0 += a < lim ? a : lim;
	}
	l1 = (s0 + s1) + (s2 + s3);
	if (amax > lim)
		cls |= JL_ROW_CLAMP;
	/* the computed l1 (any summation order) is within gamma_d of the truth */
	gd = gamma_n((double) m->d + 2);
	if (!(gd * l1 * (1.0 + 2.0 * gd) * m->max_abs +
		  (double) m->d * JL_UNDERFLOW_UNIT <= m->fp_allowance))
		cls |= JL_ROW_COMPENSATED;
	return cls;
}

void
jl_laplace_clamp(const JlLaplace *m, double *x)
{
	int64_t		i;

	for (i = 0; i < m->d; i++)
		x[i] = x[i] > m->input_limit ? m->input_limit :
			(x[i] < -m->input_limit ? -m->input_limit : x[i]);
}

/* a + b = s + e exactly (Knuth) */
static inline void
two_sum(double a, double b, double *s, double *e)
{
	double		z;

	*s = a + b;
	z = *s - a;
	*e = (a - (*s - z)) + (b - z);
}

void
jl_project_vec_compensated(const double *P, int64_t d, int k, const double *x,
						   double *y)
{
	int			j;

	for (j = 0; j < k; j++)
	{
		double		s = 0.0,
					c = 0.0;
		int64_t		i;

		for (i = 0; i < d; i++)
		{
			double		p = x[i] * P[i * (int64_t) k + j];
			double		pe = fma(x[i], P[i * (int64_t) k + j], -p);	/* exact */
			double		t,
						te;

			two_sum(s, p, &t, &te);
			s = t;
			c += te + pe;
		}
		y[j] = s + c;
	}
}

JlStatus
jl_laplace_noise(const JlLaplace *m, double *y, JlRandom *r)
{
	double		inv_grid = 1.0 / m->grid;
	int			j;

	for (j = 0; j < m->k; j++)
	{
		/* grid is a power of two: multiplying by its inverse is exact */
		double		q = y[j] * inv_grid;
		double		n;
		int64_t		noise;
		double		z;

		/*
		 * Saturate instead of refusing: clamping is 1-Lipschitz, so it adds
		 * nothing to the sensitivity, and an error here would depend on the
		 * data.  2^49 grid steps is about 10^10 bound.
		 */
		q = q > JL_SATURATE ? JL_SATURATE : (q < -JL_SATURATE ? -JL_SATURATE : q);
		/* round to nearest (even): exact for |q| < 2^51, no libm call */
		n = (q + JL_ROUND_MAGIC) - JL_ROUND_MAGIC;
		noise = (m->noise == JL_NOISE_GAUSSIAN) ?
			jl_discrete_gaussian(r, m->t, m->noise_table) :
			jl_discrete_laplace_table(r, m->t, m->noise_table);
		z = (double) ((int64_t) n + noise);
		/* depends on the noise only, never reached in practice (e^-256) */
		if (!(fabs(z) < 4.0 * JL_MAX_GRID_INDEX))
			return JL_ERR_OUTPUT_RANGE;
		y[j] = z * m->grid;
	}
	return JL_OK;
}

JlStatus
jl_laplace_release_row(const JlLaplace *m, const double *P, const double *x,
					   double *out, JlRandom *r)
{
	int			cls = jl_laplace_row_class(m, x);
	double	   *work = NULL;

	if (cls & JL_ROW_CLAMP)
	{
		work = malloc(sizeof(double) * m->d);
		if (work == NULL)
			return JL_ERR_ROW_MAGNITUDE;
		memcpy(work, x, sizeof(double) * m->d);
		jl_laplace_clamp(m, work);
		x = work;
	}
	if (cls & JL_ROW_COMPENSATED)
		jl_project_vec_compensated(P, m->d, m->k, x, out);
	else
		jl_project_vec(P, m->d, m->k, x, out);
	free(work);
	return jl_laplace_noise(m, out, r);
}

bool
jl_on_grid(double v, double grid)
{
	double		n = v / grid;

	return isfinite(n) && n == nearbyint(n);
}
