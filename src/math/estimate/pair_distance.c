/*
 * pair_distance.c - the mean squared distance between two rows, released
 * (pair_distance.h has the mechanism and its sensitivity).
 */
#include "math/estimate/pair_distance.h"
#include "math/noise/laplace.h"
#include "math/noise/value_noise.h"

#include <math.h>
#include <stdlib.h>

/* R: the largest norm of a row on the grid under norm clipping */
static int64_t
row_radius(int d)
{
	return JL_PD_LEVELS + (int64_t) ceil(sqrt((double) d) / 2.0) + 1;
}

bool
jl_pd_init(JlPairDist *a, bool rows, double lo, double hi, double c, int d)
{
	a->s1 = NULL;
	a->q = NULL;
	if (d < 1 || d > JL_PD_MAX_D)
		return false;
	if (rows ? !(c >= JL_PD_MIN_RANGE && c <= JL_PD_MAX_RANGE) :
		!(isfinite(lo) && isfinite(hi) && hi - lo >= JL_PD_MIN_RANGE &&
		  hi - lo <= JL_PD_MAX_RANGE))
		return false;
	a->rows = rows;
	a->lo = lo;
	a->hi = hi;
	a->c = c;
	a->d = d;
	a->changes = 1;
	a->n = 0;
	a->s2 = 0;
	a->s1 = calloc((size_t) d, sizeof(int64_t));
	a->q = calloc((size_t) d, sizeof(int64_t));
	if (a->s1 == NULL || a->q == NULL)
	{
		jl_pd_free(a);
		return false;
	}
	return true;
}

void
jl_pd_free(JlPairDist *a)
{
	free(a->s1);
	free(a->q);
	a->s1 = NULL;
	a->q = NULL;
}

/* each element clamped to [lo, hi], then q in [0, Q] */
static void
grid_elements(JlPairDist *a, const double *x)
{
	double		w = a->hi - a->lo;
	int			j;

	for (j = 0; j < a->d; j++)
	{
		double		v = fmin(fmax(x[j], a->lo), a->hi);
		int64_t		q = (int64_t) llround((v - a->lo) / w * JL_PD_LEVELS);

		a->q[j] = q < 0 ? 0 : (q > JL_PD_LEVELS ? JL_PD_LEVELS : q);
	}
}

/*
 * The row scaled to norm <= c, then q.  The norm is computed on x / max|x_j|
 * (no overflow or underflow), each q_j is clamped to [-R, R] (no overflow
 * of |q|^2), and |q|^2 <= R^2 is checked on the integers, shrinking the row
 * a bounded number of times and else taking the zero row, so that the bound
 * does not rest on an analysis of rounding.
 */
static void
grid_row(JlPairDist *a, double *x)
{
	int64_t		r = row_radius(a->d);
	double		m = 0.0,
				s2 = 0.0,
				f;
	int			j,
				tries;

	for (j = 0; j < a->d; j++)
		m = fmax(m, fabs(x[j]));
	if (m > 0.0)
	{
		double		norm_m;		/* the norm over m, in [1, sqrt(d)] */

		for (j = 0; j < a->d; j++)
			s2 += (x[j] / m) * (x[j] / m);
		norm_m = sqrt(s2);
		/* y = x f with |y| <= c: f = 1 if |x| = m norm_m <= c */
		for (j = 0; j < a->d; j++)
			x[j] = (m / a->c <= 1.0 / norm_m) ? x[j] / a->c : (x[j] / m) / norm_m;
	}
	/* x is now the row over c, of norm <= 1 up to rounding */
	f = 1.0;
	for (tries = 0;; tries++)
	{
		__int128	len2 = 0;

		for (j = 0; j < a->d; j++)
		{
			double		v = tries < 64 ? x[j] * f * JL_PD_LEVELS : 0.0;
			int64_t		q = (int64_t) llround(fmin(fmax(v, (double) -r), (double) r));

			a->q[j] = q;
			len2 += (__int128) q * q;
		}
		if (len2 <= (__int128) r * r)
			break;
		f *= 0.999;
	}
	for (j = 0; j < a->d; j++)
		x[j] = tries < 64 ? x[j] * f * a->c : 0.0;
}

bool
jl_pd_add(JlPairDist *a, double *x)
{
	int			j;

	for (j = 0; j < a->d; j++)
		if (!isfinite(x[j]))
			return false;
	if (a->n >= JL_PD_MAX_ROWS)
		return false;
	if (a->rows)
		grid_row(a, x);
	else
	{
		grid_elements(a, x);
		for (j = 0; j < a->d; j++)
			x[j] = fmin(fmax(x[j], a->lo), a->hi);
	}
	for (j = 0; j < a->d; j++)
	{
		a->s1[j] += a->q[j];
		a->s2 += (__int128) a->q[j] * a->q[j];
	}
	a->n++;
	return true;
}

/*
 * n S2 - sum_j S1_j^2.  Bounds: element, S2 <= n d Q^2 and S1_j <= n Q;
 * row, S2 <= n R^2 and |S1_j| <= n R; with n <= 2^40, d <= 10^6, Q = 2^10
 * every product stays below 2^120.
 */
__int128
jl_pd_statistic(const JlPairDist *a)
{
	__int128	s = (__int128) a->n * a->s2;
	int			j;

	for (j = 0; j < a->d; j++)
		s -= (__int128) a->s1[j] * a->s1[j];
	return s;
}

double
jl_pd_step(const JlPairDist *a)
{
	return (a->rows ? a->c : a->hi - a->lo) / JL_PD_LEVELS;
}

int64_t
jl_pd_term_bound(const JlPairDist *a)
{
	int64_t		r = row_radius(a->d);

	return a->rows ? 4 * r * r : (int64_t) (a->changes < 1 ? 1 : a->changes) * JL_PD_LEVELS * JL_PD_LEVELS;
}

JlStatus
jl_pd_plan(const JlPairDist *a, double epsilon, JlPairDistRelease *out)
{
	/* (n - 1) T < 2^40 * 2^24: fits */
	__int128	sens = (__int128) (a->n > 1 ? a->n - 1 : 1) * jl_pd_term_bound(a);
	int			s = 0;
	JlStatus	st;

	while ((sens >> s) > JL_PD_MAX_STEPS)
		s++;
	out->shift = s;
	/* |floor(u / m) - floor(v / m)| <= floor(|u - v| / m) + 1 for m > 1 */
	out->sensitivity = (int64_t) (sens >> s) + (s > 0 ? 1 : 0);
	st = jl_laplace_steps(out->sensitivity, epsilon, &out->t);
	if (st != JL_OK)
		return st;
	out->epsilon = (double) out->sensitivity / (double) out->t;
	return JL_OK;
}

JlStatus
jl_pd_release(const JlPairDist *a, double epsilon, JlRandom *r,
			  JlPairDistRelease *out)
{
	JlStatus	st = jl_pd_plan(a, epsilon, out);
	double		g = jl_pd_step(a),
				m,
				pairs;
	double		noisy;

	if (st != JL_OK)
		return st;
	out->dist2 = out->stddev = NAN;
	if (a->n < 2)
		return JL_OK;
	m = ldexp(1.0, out->shift);
	pairs = 0.5 * (double) a->n * (double) (a->n - 1);
	/* added exactly (128 bits), then rounded once: a function of the sum */
	noisy = (double) ((jl_pd_statistic(a) >> out->shift) +
					  (__int128) jl_discrete_laplace(r, out->t));
	out->dist2 = (noisy * m + 0.5 * (m - 1.0)) * g * g / pairs;
	out->stddev = sqrt(jl_discrete_laplace_variance(out->t)) * m * g * g / pairs;
	return JL_OK;
}
