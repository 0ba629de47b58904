/*
 * pair_distance.c - the mean squared distance between two rows, released
 * (pair_distance.h has the mechanism and its sensitivity).
 */
#include "math/pair_distance.h"
#include "math/laplace.h"
#include "math/value_noise.h"

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
	if (rows ? !(isfinite(c) && c > 0.0) :
		!(isfinite(lo) && isfinite(hi) && lo < hi && isfinite(hi - lo)))
		return false;
	a->rows = rows;
	a->lo = lo;
	a->hi = hi;
	a->c = c;
	a->d = d;
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
 * The row scaled to norm <= c, then q; |q|^2 <= R^2 is checked on the
 * integers and the row shrunk until it holds, so that the bound does not
 * rest on an analysis of rounding.
 */
static void
grid_row(JlPairDist *a, double *x)
{
	int64_t		r = row_radius(a->d);
	double		norm2 = 0.0,
				f;
	int			j;

	for (j = 0; j < a->d; j++)
		norm2 += x[j] * x[j];
	f = (norm2 > a->c * a->c) ? a->c / sqrt(norm2) : 1.0;
	for (;;)
	{
		__int128	len2 = 0;

		for (j = 0; j < a->d; j++)
		{
			a->q[j] = (int64_t) llround(x[j] * f / a->c * JL_PD_LEVELS);
			len2 += (__int128) a->q[j] * a->q[j];
		}
		if (len2 <= (__int128) r * r)
			break;
		f *= 0.999;
	}
	for (j = 0; j < a->d; j++)
		x[j] *= f;
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

	return a->rows ? 4 * r * r : (int64_t) JL_PD_LEVELS * JL_PD_LEVELS;
}

JlStatus
jl_pd_plan(const JlPairDist *a, double epsilon, JlPairDistRelease *out)
{
	/* (n - 1) T < 2^40 * 2^23: fits */
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
	/* in doubles: floor(N / 2^s) may pass 2^63 for n d beyond 2^43 */
	noisy = (double) (jl_pd_statistic(a) >> out->shift) + (double) jl_discrete_laplace(r, out->t);
	out->dist2 = (noisy * m + 0.5 * (m - 1.0)) * g * g / pairs;
	out->stddev = sqrt(jl_discrete_laplace_variance(out->t)) * m * g * g / pairs;
	return JL_OK;
}
