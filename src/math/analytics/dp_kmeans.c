/*
 * dp_kmeans.c - differentially private k-means by noisy Lloyd iterations
 * (dp_kmeans.h, docs/design/dp_kmeans.md).
 *
 * Each iteration assigns the rows to the nearest centroid and releases, for
 * every cluster j, the vector (sum of r(x), lambda_g times the count) in
 * grid steps, r(x) the row about the public centre rounded to the grid
 * coordinate by coordinate (so the sums are exact integers), with
 * N_Z(0, s^2) noise on every coordinate.  Two neighbouring tables differ in
 * one row x -> x' (replaced, or one attribute changed); the release's
 * integer vector then moves by
 *   - x' in the same cluster: r(x') - r(x) in one sum, norm at most
 *     diameter / g + sqrt(d);
 *   - x' in another cluster: -r(x) and +r(x') in two sums and -+lambda_g in
 *     two counts, norm at most sqrt(2 (radius / g + sqrt(d) / 2)^2 +
 *     2 lambda_g^2).
 * Dg is the larger, and one iteration is the k (d + 1)-dimensional discrete
 * Gaussian against a shift of norm at most Dg: dominated by the Gaussian
 * shift mu_step with an atom of delta / (1024 T)
 * (math/noise/gaussian_dominance.h).  The T iterations compose adaptively
 * as their dominating pairs do (Zhu, Dong and Wang 2022): a Gaussian shift
 * sqrt(T) mu_step with atoms of at most delta / 1024, whose (epsilon, delta)
 * is exact (math/accounting/gaussian_profile.h).  The initial centroids are
 * drawn uniformly in the public box: they read no row.
 */
#include "math/analytics/dp_kmeans.h"
#include "math/accounting/accountant.h"
#include "math/accounting/gaussian_profile.h"
#include "math/base/interrupt.h"
#include "math/noise/gaussian.h"
#include "math/noise/gaussian_dominance.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define U_ROUND (DBL_EPSILON / 2.0)

bool
jl_dp_kmeans_spec_ok(const JlDpKmeansSpec *spec)
{
	if (spec == NULL || spec->k < 1 || spec->k > JL_DP_KMEANS_MAX_K || spec->d < 1 ||
		spec->d > JL_DP_KMEANS_MAX_D || spec->iterations < 1 ||
		spec->iterations > JL_DP_KMEANS_MAX_ITERATIONS || spec->lo == NULL || spec->hi == NULL ||
		spec->centre == NULL)
		return false;
	if (!(isfinite(spec->radius) && spec->radius >= 1e-100 && spec->radius <= 1e100 &&
		  isfinite(spec->diameter) && spec->diameter >= 1e-100 && spec->diameter <= 1e100))
		return false;
	for (int i = 0; i < spec->d; i++)
		if (!(isfinite(spec->lo[i]) && isfinite(spec->hi[i]) && spec->lo[i] <= spec->hi[i] &&
			  isfinite(spec->centre[i])))
			return false;
	return true;
}

/* the composed (epsilon, delta) of T steps of mu_step holds at the spec's */
static bool
holds(double mu_step, int T, double epsilon, double delta)
{
	double		mu = sqrt((double) T) * mu_step * (1.0 + 1e-12);

	return isfinite(mu) &&
		jl_gdp_delta(mu, epsilon, 1) + delta * JL_GDP_DELTA0_SHARE * (1.0 + 1e-9) <= delta;
}

JlStatus
jl_dp_kmeans_calibrate(const JlDpKmeansSpec *spec, JlDpKmeansCalibration *cal)
{
	int			T,
				m;
	double		R,
				diam,
				lambda,
				sens,
				lo,
				hi,
				mu_c,
				sigma_c,
				g,
				Dg,
				d0,
				lam_g,
				ss;
	uint64_t	s;

	memset(cal, 0, sizeof(*cal));
	if (!(isfinite(spec->epsilon) && spec->epsilon > 0.0 && spec->epsilon <= 1e6))
		return JL_ERR_EPSILON;
	if (!(spec->delta > 0.0 && spec->delta < 1.0))
		return JL_ERR_DELTA;
	if (!jl_dp_kmeans_spec_ok(spec))
		return JL_ERR_STATS;
	T = spec->iterations;
	m = spec->k * (spec->d + 1);
	R = spec->radius;
	diam = spec->diameter;

	/*
	 * Counts weighted so that a move costs no more than a change within a
	 * cluster where the geometry allows (the box about its centre: radius
	 * diameter / 2 gives lambda = diameter / 2), at least radius / 2
	 */
	lambda = fmax(sqrt(fmax(diam * diam - 2.0 * R * R, 0.0) / 2.0), R / 2.0);
	sens = fmax(sqrt(2.0 * R * R + 2.0 * lambda * lambda), diam) * (1.0 + 8.0 * U_ROUND);

	/* the continuous composed mu that just holds, by bisection */
	lo = 0.0;
	hi = 1.0;
	while (holds(hi / sqrt((double) T), T, spec->epsilon, spec->delta))
	{
		hi *= 2.0;
		if (hi > 1e6)
			return JL_ERR_SCALE;
	}
	for (int i = 0; i < 100; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (holds(mid / sqrt((double) T), T, spec->epsilon, spec->delta))
			lo = mid;
		else
			hi = mid;
	}
	mu_c = lo / sqrt((double) T);
	if (!(mu_c > 0.0))
		return JL_ERR_SCALE;
	sigma_c = sens / mu_c;

	/* the grid: its rounding at most 1/1024 of the sensitivity, sigma >= 1024 steps */
	g = fmin(sens / (1536.0 * sqrt((double) m)), sigma_c / 1024.0);
	if (!(isfinite(g) && g >= DBL_MIN * 1e10))
		return JL_ERR_GRID;
	g = ldexp(1.0, (int) floor(log2(g)));
	lam_g = fmax(nearbyint(lambda / g), 1.0);
	Dg = fmax(sqrt(2.0 * pow(R / g + 0.5 * sqrt((double) spec->d), 2.0) + 2.0 * lam_g * lam_g),
			  diam / g + sqrt((double) spec->d)) * (1.0 + 16.0 * U_ROUND);
	if (!(isfinite(Dg) && Dg < 1e15))
		return JL_ERR_GRID;

	/* the least s (up from the continuous sigma) whose dominating shift holds */
	d0 = spec->delta * JL_GDP_DELTA0_SHARE / (double) T;
	ss = ceil(sigma_c / g);
	for (int i = 0;; i++)
	{
		double		mu_s;

		if (i >= 400 || !(ss >= 1.0 && ss <= (double) JL_GAUSSIAN_MAX_S))
			return JL_ERR_SCALE;
		jl_interrupt_check();
		mu_s = jl_discrete_gaussian_mu(Dg, ss, m, d0);
		if (isfinite(mu_s) && holds(mu_s, T, spec->epsilon, spec->delta))
		{
			cal->mu_step = mu_s;
			break;
		}
		ss = ceil(ss * 1.0005) + 1.0;
	}
	s = (uint64_t) ss;
	cal->lambda = lam_g * g;
	cal->sensitivity = sens;
	cal->grid = g;
	cal->Dg = Dg;
	cal->s = s;
	cal->mu = sqrt((double) T) * cal->mu_step * (1.0 + 1e-12);
	cal->rho = (double) T * Dg * Dg / (2.0 * ss * ss) * (1.0 + 8.0 * U_ROUND);
	cal->epsilon_effective = fmin(spec->epsilon,
								  jl_gdp_epsilon(cal->mu, spec->delta * (1.0 - JL_GDP_DELTA0_SHARE * (1.0 + 1e-9))));
	cal->sum_sd = ss * g;
	cal->count_sd = ss * g / cal->lambda;
	return JL_OK;
}

int
jl_dp_kmeans_auto_iterations(int64_t n, int k, int d, double epsilon)
{
	double		rho = 0.225,
				em = sqrt(500.0 * pow((double) k, 3.0) / ((double) n * (double) n) *
						  pow(d + cbrt(4.0 * d * rho * rho), 3.0)),
				t = epsilon / em;

	if (!(t >= 2.0))
		return 2;
	return t >= 7.0 ? 7 : (int) t;
}

int64_t
jl_dp_kmeans_work_doubles(int k, int d)
{
	/* the sums (k d) and counts (k) in grid steps, and one row (d) */
	return (int64_t) k * (d + 1) + d;
}

/* a uniform double in [0, 1) from 53 random bits */
static double
uniform(JlRandom *r)
{
	return (double) jl_rand_bits(r, 53) * 0x1p-53;
}

void
jl_dp_kmeans_step(const JlDpKmeansSpec *spec, const JlDpKmeansCalibration *cal,
				  const double *rows, int64_t n, JlRandom *r, double *centroids,
				  double *counts, double *released, double *exact, double *work)
{
	int			k = spec->k,
				d = spec->d,
				w = d + 1;
	double		g = cal->grid,
				lam_g = nearbyint(cal->lambda / g);
	double	   *y = work,		/* per cluster: d sums, then the count */
			   *x = work + (int64_t) k * w;
	/* an interrupt check every million or so multiply-adds */
	int64_t		every = (int64_t) (1 << 20) / ((int64_t) k * d + d) + 1;

	memset(y, 0, sizeof(double) * (size_t) k * w);
	for (int64_t p = 0; p < n; p++)
	{
		const double *row = rows + p * d;
		double		norm2 = 0.0,
					best = INFINITY;
		int			bj = 0;

		if (p % every == 0)
			jl_interrupt_check();
		/* the row within the box and the radius (the caller's, enforced) */
		for (int i = 0; i < d; i++)
		{
			double		v = fmin(fmax(row[i], spec->lo[i]), spec->hi[i]) - spec->centre[i];

			x[i] = v;
			norm2 += v * v;
		}
		if (norm2 > spec->radius * spec->radius)
		{
			double		f = spec->radius / sqrt(norm2) * (1.0 - 4.0 * U_ROUND);

			for (int i = 0; i < d; i++)
				x[i] *= f;
		}
		for (int j = 0; j < k; j++)
		{
			const double *c = centroids + (int64_t) j * d;
			double		dist = 0.0;

			for (int i = 0; i < d; i++)
			{
				double		t = x[i] + spec->centre[i] - c[i];

				dist += t * t;
			}
			if (dist < best)
			{
				best = dist;
				bj = j;
			}
		}
		/* in grid steps, each coordinate rounded: the sums are exact integers */
		for (int i = 0; i < d; i++)
			y[(int64_t) bj * w + i] += nearbyint(x[i] / g);
		y[(int64_t) bj * w + d] += lam_g;
	}
	if (exact != NULL)
		memcpy(exact, y, sizeof(double) * (size_t) k * w);
	for (int64_t q = 0; q < (int64_t) k * w; q++)
	{
		if (q % 1024 == 0)
			jl_interrupt_check();
		y[q] += (double) jl_discrete_gaussian(r, cal->s, NULL);
	}
	if (released != NULL)
		memcpy(released, y, sizeof(double) * (size_t) k * w);
	/* post-processing of the release only */
	{
		int			big = 0;
		double		side = INFINITY;

		for (int j = 0; j < k; j++)
		{
			double		nc = y[(int64_t) j * w + d] * g / cal->lambda;
			double	   *c = centroids + (int64_t) j * d;

			counts[j] = nc;
			if (nc > counts[big])
				big = j;
			if (nc >= cal->count_sd && nc >= 1.0)
				for (int i = 0; i < d; i++)
					c[i] = fmin(fmax(spec->centre[i] + y[(int64_t) j * w + i] * g / nc,
									 spec->lo[i]), spec->hi[i]);
		}
		for (int i = 0; i < d; i++)
			side = fmin(side, spec->hi[i] - spec->lo[i]);
		/* the empty ones seeded again beside the largest */
		for (int j = 0; j < k; j++)
			if (j != big && !(counts[j] >= cal->count_sd && counts[j] >= 1.0))
			{
				double	   *c = centroids + (int64_t) j * d,
						   *b = centroids + (int64_t) big * d,
							norm = 0.0;

				for (int i = 0; i < d; i++)
				{
					x[i] = uniform(r) - 0.5;
					norm += x[i] * x[i];
				}
				norm = norm > 0.0 ? sqrt(norm) : 1.0;
				for (int i = 0; i < d; i++)
					c[i] = fmin(fmax(b[i] + 0.1 * side * x[i] / norm, spec->lo[i]), spec->hi[i]);
			}
	}
}

/*
 * Spread over the box (Su et al.'s initialisation, as diffprivlib makes
 * it): each centroid drawn uniformly in the box shrunk by p on every side,
 * redrawn (up to 100 times) while it is within 2p of an earlier one; p
 * starts at half the box's narrowest side and is halved whenever the k do
 * not fit.  Public: no row is read.
 */
void
jl_dp_kmeans_init(const JlDpKmeansSpec *spec, JlRandom *r, double *centroids)
{
	int			k = spec->k,
				d = spec->d;
	double		p = INFINITY;

	for (int i = 0; i < d; i++)
		p = fmin(p, (spec->hi[i] - spec->lo[i]) / 2.0);
	for (int round = 0; round < 60; round++, p /= 2.0)
	{
		int			placed = 0,
					retry = 0;

		while (placed < k && retry < 100)
		{
			double	   *c = centroids + (int64_t) placed * d;
			bool		far = true;

			jl_interrupt_check();

			for (int i = 0; i < d; i++)
				c[i] = spec->lo[i] + p + (spec->hi[i] - spec->lo[i] - 2.0 * p) * uniform(r);
			for (int j = 0; j < placed && far; j++)
			{
				double		dist = 0.0;

				for (int i = 0; i < d; i++)
				{
					double		t = c[i] - centroids[(int64_t) j * d + i];

					dist += t * t;
				}
				far = dist >= 4.0 * p * p;
			}
			if (far)
			{
				placed++;
				retry = 0;
			}
			else
				retry++;
		}
		if (placed == k)
			return;
	}
	/* p underflowed: anywhere in the box */
	for (int j = 0; j < k; j++)
		for (int i = 0; i < d; i++)
			centroids[(int64_t) j * d + i] = spec->lo[i] + (spec->hi[i] - spec->lo[i]) * uniform(r);
}

void
jl_dp_kmeans_run(const JlDpKmeansSpec *spec, const JlDpKmeansCalibration *cal,
				 const double *rows, int64_t n, JlRandom *r,
				 double *centroids, double *counts, double *work)
{
	jl_dp_kmeans_init(spec, r, centroids);
	for (int it = 0; it < spec->iterations; it++)
		jl_dp_kmeans_step(spec, cal, rows, n, r, centroids, counts, NULL, NULL, work);
}
