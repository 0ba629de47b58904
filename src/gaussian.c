/*
 * gaussian.c - Gaussian noise for (epsilon, delta) releases.
 *
 * Release of x: y = fl(x P); n_j = round(y_j / g); z_j = g (n_j + Y_j) with
 * Y_j i.i.d. discrete Gaussian N_Z(0, s^2), s an integer.  For neighbours
 * x, x' the integer vectors n, n' differ by v with
 *   ||v||_2 g <= D2 + sqrt(k) g + 2 sqrt(k) g/4 = D2 + 1.5 sqrt(k) g
 * (rounding g/2 and the floating-point allowance g/4 per coordinate on each
 * side; D2 the L2 sensitivity of the exact x P).  Shifting a product of
 * discrete Gaussians by an integer vector v costs Renyi divergence
 * alpha ||v||^2 / (2 s^2) at every order alpha (Canonne, Kamath, Steinke
 * 2020, Proposition 5 per coordinate, additivity over coordinates), i.e. the
 * release is rho-zCDP with rho = D^2 / (2 (s g)^2), D = D2 + 1.5 sqrt(k) g.
 * The (epsilon, delta) reported as holding is CKS's conversion of that rho
 * (Corollary 13).  It is a guarantee for the noise actually sampled, an
 * exact sampler on the grid, not for a continuous Gaussian; the price is
 * a few per cent of sigma over the continuous analytic calibration.
 *
 * Calibrations give the continuous sigma that a paper would use; the
 * sampled s is at least that (in grid steps), and for 'analytic' it is
 * raised to the smallest s whose certified delta is <= the requested delta.
 * For 'classic' and 'paper' the release is refused (valid = false) if the
 * certified delta at their sigma exceeds the requested delta.
 */
#include "gaussian.h"
#include "laplace.h"
#include "mechanism.h"

#include <float.h>
#include <math.h>

#define U_ROUND (DBL_EPSILON / 2.0)

double
jl_normal_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

double
jl_analytic_delta(double sigma, double epsilon, double D)
{
	double		a = D / (2.0 * sigma);
	double		b = epsilon * sigma / D;
	double		second = exp(epsilon) * jl_normal_cdf(-a - b);

	if (!isfinite(second))
		second = 0.0;			/* Phi(-a-b) underflowed to 0 first */
	return jl_normal_cdf(a - b) - second;
}

double
jl_analytic_sigma(double epsilon, double delta, double D)
{
	double		lo,
				hi = D;
	int			i;

	/* delta(sigma) decreases in sigma: bracket, then bisect */
	for (i = 0; i < 2000 && jl_analytic_delta(hi, epsilon, D) > delta; i++)
		hi *= 2.0;
	lo = hi / 2.0;
	for (i = 0; i < 2000 && jl_analytic_delta(lo, epsilon, D) <= delta; i++)
	{
		hi = lo;
		lo /= 2.0;
	}
	for (i = 0; i < 200 && hi - lo > hi * 4.0 * DBL_EPSILON; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (jl_analytic_delta(mid, epsilon, D) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

double
jl_classic_sigma(double epsilon, double delta, double D)
{
	if (!(delta < 0.5))
		return NAN;
	return D * sqrt(2.0 * (log(1.0 / (2.0 * delta)) + epsilon)) / epsilon;
}

double
jl_paper_sigma(double epsilon, double delta, double B)
{
	return B * (4.0 / epsilon) * sqrt(log(1.0 / delta));
}

bool
jl_paper_k_ok(int64_t d, int k, double delta)
{
	return (double) k > 2.0 * (log((double) d) + log(2.0 / delta));
}

bool
jl_paper_epsilon_ok(double epsilon, double delta)
{
	return epsilon < log(1.0 / delta);
}

/*
 * ln of CKS's bound at alpha = 1 + x:
 *   x (alpha rho - eps) + alpha ln(1 - 1/alpha) - ln(alpha - 1)
 *   = x ((1 + x) rho - eps) + x ln x - (1 + x) ln(1 + x),
 * and the magnitude of its terms, for the rounding margin.
 */
static double
zcdp_log_delta(double x, double rho, double epsilon, double *mag)
{
	double		t1 = x * ((1.0 + x) * rho - epsilon);
	double		t2 = x * log(x);
	double		t3 = (1.0 + x) * log1p(x);

	*mag = fabs(x * (1.0 + x) * rho) + fabs(x * epsilon) + fabs(t2) + fabs(t3);
	return t1 + t2 - t3;
}

double
jl_zcdp_delta(double rho, double epsilon)
{
	double		best_u = 0.0,
				best = INFINITY,
				mag,
				lo,
				hi,
				v;
	int			i;

	if (!(rho > 0.0))
		return 0.0;
	/* coarse scan of u = ln(alpha - 1), then golden section around the best */
	for (i = 0; i <= 400; i++)
	{
		double		u = -30.0 + i * 0.15;

		v = zcdp_log_delta(exp(u), rho, epsilon, &mag);
		if (v < best)
		{
			best = v;
			best_u = u;
		}
	}
	lo = best_u - 0.15;
	hi = best_u + 0.15;
	for (i = 0; i < 100; i++)
	{
		double		m1 = hi - 0.6180339887498949 * (hi - lo);
		double		m2 = lo + 0.6180339887498949 * (hi - lo);
		double		mg;

		if (zcdp_log_delta(exp(m1), rho, epsilon, &mg) <
			zcdp_log_delta(exp(m2), rho, epsilon, &mg))
			hi = m2;
		else
			lo = m1;
	}
	v = zcdp_log_delta(exp(0.5 * (lo + hi)), rho, epsilon, &mag);
	if (v > best)
		v = zcdp_log_delta(exp(best_u), rho, epsilon, &mag);
	/* every alpha gives a valid bound; round the evaluation upward */
	v += 64.0 * DBL_EPSILON * (mag + 1.0);
	if (v >= 0.0)
		return 1.0;
	return fmin(1.0, exp(v) * (1.0 + 1e-12));
}

double
jl_zcdp_epsilon(double rho, double delta)
{
	double		lo = 0.0,
				hi = rho + 2.0 * sqrt(rho * log(1.0 / delta)) + 1e-300;
	int			i;

	for (i = 0; i < 2000 && jl_zcdp_delta(rho, hi) > delta; i++)
		hi *= 2.0;
	for (i = 0; i < 200 && hi - lo > hi * 4.0 * DBL_EPSILON; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (jl_zcdp_delta(rho, mid) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Bernoulli(exp(-num/den)) for a 128-bit num and den < 2^63. */
static bool
bernoulli_exp_wide(JlRandom *r, unsigned __int128 num, uint64_t den)
{
	unsigned __int128 q = num / den;
	uint64_t	rem = (uint64_t) (num % den);
	uint64_t	lo,
				hi;

	/* exp(-num/den) = exp(-1)^q exp(-rem/den) */
	for (; q > 0; q--)
	{
		jl_exp_bounds32(1, 1, &lo, &hi);
		if (!jl_bernoulli_exp_bounded(r, 1, 1, lo, hi))
			return false;
	}
	if (den < (UINT64_C(1) << 32))
	{
		jl_exp_bounds32(rem, den, &lo, &hi);
		return jl_bernoulli_exp_bounded(r, rem, den, lo, hi);
	}
	return jl_bernoulli_exp(r, rem, den);
}

int64_t
jl_discrete_gaussian(JlRandom *r, uint64_t s, const uint32_t *laplace_table)
{
	uint64_t	den = 2 * s * s;	/* < 2^63 for s <= 2^31 */

	for (;;)
	{
		int64_t		y = jl_discrete_laplace_table(r, s, laplace_table);
		int64_t		a = (y < 0 ? -y : y) - (int64_t) s;
		unsigned __int128 num = (unsigned __int128) ((__int128) a * a);

		if (bernoulli_exp_wide(r, num, den))
			return y;
	}
}

/* The continuous sigma of m's calibration for L2 sensitivity D. */
static double
calibration_sigma(const JlLaplace *m, double D)
{
	switch (m->calibration)
	{
		case JL_CALIBRATION_CLASSIC:
			return jl_classic_sigma(m->epsilon, m->delta, D);
		case JL_CALIBRATION_PAPER:
			return jl_paper_sigma(m->epsilon, m->delta, m->bound);
		default:
			return jl_analytic_sigma(m->epsilon, m->delta, D);
	}
}

/* rho of s grid steps of noise for sensitivity Dg grid steps, rounded up */
static double
rho_of(double Dg, uint64_t s)
{
	return Dg * Dg / (2.0 * (double) s * (double) s) * (1.0 + 8.0 * U_ROUND);
}

int
jl_gaussian_calibrate(JlLaplace *m)
{
	double		sigma0,
				g,
				Dg,
				ss;
	uint64_t	s;

	if (!(isfinite(m->epsilon) && m->epsilon > 0.0))
		return JL_ERR_EPSILON;
	if (!(isfinite(m->bound) && m->bound > 0.0))
		return JL_ERR_BOUND;
	if (isnan(m->delta))
		return JL_ERR_GAUSSIAN_DELTA_REQUIRED;
	if (!(m->delta > 0.0 && m->delta < 1.0))
		return JL_ERR_DELTA;
	if (m->calibration == JL_CALIBRATION_CLASSIC && !(m->delta < 0.5))
		return JL_ERR_CLASSIC_DELTA;
	if (m->calibration == JL_CALIBRATION_PAPER)
	{
		if (m->neighbor != JL_NEIGHBOR_ELEMENT)
			return JL_ERR_PAPER_NEIGHBOR;
		if (!jl_paper_k_ok(m->d, m->k, m->delta))
			return JL_ERR_PAPER_K;
		if (!jl_paper_epsilon_ok(m->epsilon, m->delta))
			return JL_ERR_PAPER_EPSILON;
	}

	if (m->proj_sensitivity == 0.0)
		return JL_ERR_ZERO_PROJECTION;
	m->data_sensitivity = m->bound * m->proj_sensitivity * (1.0 + 2.0 * U_ROUND);
	m->paper_c = NAN;
	m->paper_delta = NAN;
	if (!(isfinite(m->data_sensitivity) && m->data_sensitivity >= DBL_MIN * 1e10 &&
		  m->data_sensitivity <= 1e250))
		return JL_ERR_GRID;

	/*
	 * Grid: rounding costs 1.5 sqrt(k) g of L2 sensitivity, at most 1/1024
	 * of it; and sigma is at least 1024 grid steps, so rounding s up costs
	 * at most another 1/1024.
	 */
	sigma0 = calibration_sigma(m, m->data_sensitivity);
	if (!(isfinite(sigma0) && sigma0 > 0.0))
		return JL_ERR_GRID;
	if (!jl_set_grid(m, fmin(m->data_sensitivity / (1536.0 * sqrt((double) m->k)),
							 sigma0 / 1024.0)))
		return JL_ERR_GRID;
	g = m->grid;
	m->sensitivity = (m->data_sensitivity + 1.5 * sqrt((double) m->k) * g) *
		(1.0 + 4.0 * U_ROUND);
	m->sigma_calibration = calibration_sigma(m, m->sensitivity);
	if (m->calibration == JL_CALIBRATION_PAPER)
		m->paper_c = m->sigma_calibration;

	/* g is a power of two: the divisions are exact up to the final rounding */
	Dg = m->sensitivity / g * (1.0 + 2.0 * U_ROUND);
	ss = ceil(m->sigma_calibration / g * (1.0 + 4.0 * U_ROUND));
	if (!(ss >= 1.0 && ss <= (double) JL_GAUSSIAN_MAX_S))
		return JL_ERR_SCALE;
	s = (uint64_t) ss;

	if (m->calibration == JL_CALIBRATION_ANALYTIC &&
		jl_zcdp_delta(rho_of(Dg, s), m->epsilon) > m->delta)
	{
		/* the smallest s >= ss whose certified delta is <= delta */
		uint64_t	lo = s,
					hi = s;

		while (jl_zcdp_delta(rho_of(Dg, hi), m->epsilon) > m->delta)
		{
			lo = hi;
			if (hi > JL_GAUSSIAN_MAX_S / 2)
				return JL_ERR_SCALE;
			hi *= 2;
		}
		while (hi - lo > 1)
		{
			uint64_t	mid = lo + (hi - lo) / 2;

			if (jl_zcdp_delta(rho_of(Dg, mid), m->epsilon) <= m->delta)
				hi = mid;
			else
				lo = mid;
		}
		s = hi;
	}

	m->t = s;
	m->scale = (double) s * g;
	/*
	 * Var N_Z(0, s^2) is below s^2 by a relative O(s^2 exp(-2 pi^2 s^2))
	 * (Poisson summation): s^2 exactly in double for s >= 2.
	 */
	m->noise_variance = m->scale * m->scale;
	m->rho = rho_of(Dg, s);
	m->delta_holding = jl_zcdp_delta(m->rho, m->epsilon);
	m->epsilon_effective = jl_zcdp_epsilon(m->rho, m->delta);
	m->valid = (m->delta_holding <= m->delta);
	m->noise_table = NULL;
	return JL_OK;
}
