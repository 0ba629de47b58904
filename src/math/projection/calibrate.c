/*
 * calibrate.c - the calibration of a release to the realized projection:
 * the grid, the noise in grid steps, and the (epsilon, delta) that holds.
 *
 * Laplace noise (Dhaliwal et al.): the rounded projections of neighbours
 * differ by at most D1 + 1.5 k g in L1 (release.c), so discrete Laplace
 * noise of t grid steps is pure epsilon-DP with
 *   epsilon_effective = (D1 + 1.5 k g) / (t g) <= epsilon.
 *
 * Gaussian noise (Kenthapadi et al.): they differ by an integer vector v
 * with ||v||_2 g <= D2 + 1.5 sqrt(k) g.  Shifting a product of discrete
 * Gaussians by an integer vector v costs Renyi divergence
 * alpha ||v||^2 / (2 s^2) at every order alpha (Canonne, Kamath, Steinke
 * 2020, Proposition 5 per coordinate, additivity over coordinates), i.e. the
 * release is rho-zCDP with rho = D^2 / (2 (s g)^2), D = D2 + 1.5 sqrt(k) g.
 * The (epsilon, delta) reported as holding is CKS's conversion of that rho
 * (Corollary 13).  It is a guarantee for the noise actually sampled, an
 * exact sampler on the grid, not for a continuous Gaussian; the price is
 * a few per cent of sigma over the continuous analytic calibration.
 *
 * Gaussian calibrations give the continuous sigma that a paper would use;
 * the sampled s is at least that (in grid steps), and for 'analytic' it is
 * raised to the smallest s whose certified delta is <= the requested delta.
 * For 'classic' and 'paper' the release is refused (valid = false) if the
 * certified delta at their sigma exceeds the requested delta.
 */
#include "math/projection/calibrate.h"
#include "math/base/fp.h"
#include "math/noise/gaussian.h"
#include "math/noise/gaussian_dominance.h"
#include "math/projection/grid.h"
#include "math/noise/laplace.h"

#include <float.h>
#include <math.h>

JlProjStat
jl_sensitivity_stat(JlNoise noise, JlNeighbor neighbor)
{
	if (noise == JL_NOISE_GAUSSIAN)
		return neighbor == JL_NEIGHBOR_ELEMENT ? JL_STAT_MAX_ROW_L2 : JL_STAT_SPECTRAL;
	return neighbor == JL_NEIGHBOR_ELEMENT ? JL_STAT_MAX_ROW_L1 : JL_STAT_ROW_L1;
}

static JlStatus
calibrate_laplace(JlMechanism *m)
{
	double		target,
				g,
				tt;
	JlStatus	st;

	m->sigma_calibration = NAN;
	m->rho = NAN;
	m->delta_holding = 0.0;
	if (!(isfinite(m->epsilon) && m->epsilon > 0.0))
		return JL_ERR_EPSILON;
	if (!(isfinite(m->bound) && m->bound > 0.0))
		return JL_ERR_BOUND;
	if ((st = jl_check_scales(m->epsilon, m->bound)) != JL_OK)
		return st;
	if (!isnan(m->delta) && !(m->delta > 0.0 && m->delta < 1.0))
		return JL_ERR_DELTA;

	if (m->proj_sensitivity == 0.0)
		return JL_ERR_ZERO_PROJECTION;
	m->data_sensitivity = m->bound * m->proj_sensitivity * (1.0 + 2.0 * JL_U_ROUND);
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
	if (!jl_grid_set(m, fmin(target / (1536.0 * m->k), target / (1024.0 * m->epsilon))))
		return JL_ERR_GRID;
	g = m->grid;
	m->sensitivity = (m->data_sensitivity + 1.5 * m->k * g) * (1.0 + 4.0 * JL_U_ROUND);

	if (m->calibration == JL_CALIBRATION_PAPER)
		tt = ceil(m->paper_c / (g * m->epsilon) * (1.0 + 4.0 * JL_U_ROUND));
	else
		tt = ceil(m->sensitivity / (g * m->epsilon) * (1.0 + 4.0 * JL_U_ROUND));
	if (!(tt >= 1.0 && tt <= (double) JL_LAPLACE_MAX_T))
		return JL_ERR_SCALE;
	m->t = (uint64_t) tt;
	m->scale = (double) m->t * g;
	m->noise_variance = g * g * jl_discrete_laplace_variance(m->t);
	m->epsilon_effective = m->sensitivity / m->scale;
	m->valid = (m->sensitivity <= m->scale * m->epsilon);
	m->noise_table = NULL;
	m->noise_table_full = false;
	return JL_OK;
}

/* The continuous sigma of m's calibration for L2 sensitivity D. */
static double
calibration_sigma(const JlMechanism *m, double D)
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
	return Dg * Dg / (2.0 * (double) s * (double) s) * (1.0 + 8.0 * JL_U_ROUND);
}

/*
 * delta certified at epsilon for s grid steps of noise against a shift of
 * Dg grid steps in k coordinates: the better of the direct bound on the
 * discrete Gaussian's privacy profile and CKS's conversion of its zCDP
 * (both hold; the direct one is the tighter but for tiny s).
 */
static double
certified_delta(double Dg, uint64_t s, int k, double epsilon)
{
	return fmin(jl_discrete_gaussian_delta(Dg, (double) s, k, epsilon),
				jl_zcdp_delta(rho_of(Dg, s), epsilon));
}

/* the smallest epsilon (bisection, upper end) certified at delta */
static double
certified_epsilon(double Dg, uint64_t s, int k, double delta)
{
	double		lo = 0.0,
				hi = jl_zcdp_epsilon(rho_of(Dg, s), delta);
	int			i;

	for (i = 0; i < 200 && hi - lo > hi * 4.0 * DBL_EPSILON; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (certified_delta(Dg, s, k, mid) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/*
 * Raise *s to the smallest s' >= *s whose certified delta at epsilon is
 * <= delta, for sensitivity Dg grid steps (delta falls as s grows: double,
 * then bisect; the s returned is one whose delta was checked).  false if it
 * exceeds the sampler's range.
 */
static bool
smallest_certified_s(double Dg, int k, double epsilon, double delta, uint64_t *s)
{
	uint64_t	lo = *s,
				hi = *s;

	if (certified_delta(Dg, hi, k, epsilon) <= delta)
		return true;
	while (certified_delta(Dg, hi, k, epsilon) > delta)
	{
		lo = hi;
		if (hi > JL_GAUSSIAN_MAX_S / 2)
			return false;
		hi = hi + hi / 64 + 1;	/* the certificate is within a few per cent */
	}
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (certified_delta(Dg, mid, k, epsilon) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	*s = hi;
	return true;
}

/*
 * The certificate of a Gaussian calibration: the s sampled, the delta that
 * holds and the epsilon certified at delta, a pure function of (Dg, the
 * first s, k, epsilon, delta, whether s is raised).  Its searches evaluate
 * the privacy profile a few hundred times, about 3 ms, once per statement
 * that releases (a one-row release with Gaussian noise cost that much); a
 * few recent certificates are kept, per process, and a hit returns the same
 * numbers the computation would.  That holds only while rho_of,
 * certified_delta, certified_epsilon and smallest_certified_s read nothing
 * but their arguments (and constants): a new input to any of them must
 * join the key.
 */
#define CERT_CACHE 8

typedef struct Certificate
{
	double		Dg;
	uint64_t	s0;
	int			k;
	double		epsilon;
	double		delta;
	bool		raise;
	bool		ok;				/* false: s would exceed the sampler's range */
	uint64_t	s;
	double		delta_holding;
	double		epsilon_effective;
} Certificate;

static Certificate cert_cache[CERT_CACHE];
static int	cert_used,
			cert_next;

static Certificate
certify(double Dg, uint64_t s0, int k, double epsilon, double delta, bool raise)
{
	Certificate c = {.Dg = Dg, .s0 = s0, .k = k, .epsilon = epsilon,
	.delta = delta, .raise = raise, .s = s0};
	int			i;

	for (i = 0; i < cert_used; i++)
	{
		const Certificate *e = &cert_cache[i];

		if (e->Dg == Dg && e->s0 == s0 && e->k == k && e->epsilon == epsilon &&
			e->delta == delta && e->raise == raise)
			return *e;
	}
	c.ok = !raise || smallest_certified_s(Dg, k, epsilon, delta, &c.s);
	if (c.ok)
	{
		c.delta_holding = certified_delta(Dg, c.s, k, epsilon);
		c.epsilon_effective = certified_epsilon(Dg, c.s, k, delta);
	}
	cert_cache[cert_next] = c;
	cert_next = (cert_next + 1) % CERT_CACHE;
	if (cert_used < CERT_CACHE)
		cert_used++;
	return c;
}

/*
 * The Gaussian shift that dominates a calibrated Gaussian release's noise
 * (math/noise/gaussian_dominance.h), for the budget's accountant: tens of
 * milliseconds, so computed only for the releases a budget composes, and
 * the last few kept (a pure function of Dg, s, k and delta).
 */
#define MU_CACHE 8

typedef struct MuEntry
{
	double		Dg;
	uint64_t	s;
	int			k;
	double		delta;
	double		mu;
} MuEntry;

static MuEntry mu_cache[MU_CACHE];
static int	mu_used,
			mu_next;

double
jl_calibration_gdp_mu(const JlMechanism *m)
{
	double		Dg;
	MuEntry		e;

	if (m->noise != JL_NOISE_GAUSSIAN || !m->valid || !(m->grid > 0.0) || m->t == 0)
		return NAN;
	Dg = m->sensitivity / m->grid * (1.0 + 2.0 * JL_U_ROUND);
	for (int i = 0; i < mu_used; i++)
		if (mu_cache[i].Dg == Dg && mu_cache[i].s == m->t && mu_cache[i].k == m->k &&
			mu_cache[i].delta == m->delta)
			return mu_cache[i].mu;
	e.Dg = Dg;
	e.s = m->t;
	e.k = m->k;
	e.delta = m->delta;
	e.mu = jl_discrete_gaussian_mu(Dg, (double) m->t, m->k, m->delta * JL_GDP_DELTA0_SHARE);
	mu_cache[mu_next] = e;
	mu_next = (mu_next + 1) % MU_CACHE;
	if (mu_used < MU_CACHE)
		mu_used++;
	return e.mu;
}

static JlStatus
calibrate_gaussian(JlMechanism *m)
{
	Certificate cert;
	double		sigma0,
				g,
				Dg,
				ss;
	uint64_t	s;
	JlStatus	st;

	if (!(isfinite(m->epsilon) && m->epsilon > 0.0))
		return JL_ERR_EPSILON;
	if (!(isfinite(m->bound) && m->bound > 0.0))
		return JL_ERR_BOUND;
	if ((st = jl_check_scales(m->epsilon, m->bound)) != JL_OK)
		return st;
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
	m->data_sensitivity = m->bound * m->proj_sensitivity * (1.0 + 2.0 * JL_U_ROUND);
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
	if (!jl_grid_set(m, fmin(m->data_sensitivity / (1536.0 * sqrt((double) m->k)),
							 sigma0 / 1024.0)))
		return JL_ERR_GRID;
	g = m->grid;
	m->sensitivity = (m->data_sensitivity + 1.5 * sqrt((double) m->k) * g) *
		(1.0 + 4.0 * JL_U_ROUND);
	m->sigma_calibration = calibration_sigma(m, m->sensitivity);
	if (m->calibration == JL_CALIBRATION_PAPER)
		m->paper_c = m->sigma_calibration;

	/* g is a power of two: the divisions are exact up to the final rounding */
	Dg = m->sensitivity / g * (1.0 + 2.0 * JL_U_ROUND);
	ss = ceil(m->sigma_calibration / g * (1.0 + 4.0 * JL_U_ROUND));
	if (!(ss >= 1.0 && ss <= (double) JL_GAUSSIAN_MAX_S))
		return JL_ERR_SCALE;
	s = (uint64_t) ss;

	cert = certify(Dg, s, m->k, m->epsilon, m->delta,
				   m->calibration == JL_CALIBRATION_ANALYTIC);
	if (!cert.ok)
		return JL_ERR_SCALE;
	s = cert.s;

	m->t = s;
	m->scale = (double) s * g;
	/*
	 * Var N_Z(0, s^2) is below s^2 by a relative O(s^2 exp(-2 pi^2 s^2))
	 * (Poisson summation): s^2 exactly in double for s >= 2.
	 */
	m->noise_variance = m->scale * m->scale;
	m->rho = rho_of(Dg, s);
	m->delta_holding = cert.delta_holding;
	m->epsilon_effective = cert.epsilon_effective;
	m->valid = (m->delta_holding <= m->delta);
	m->noise_table = NULL;
	m->noise_table_full = false;
	return JL_OK;
}

JlStatus
jl_mechanism_calibrate(JlMechanism *m)
{
	JlStatus	st = m->noise == JL_NOISE_GAUSSIAN ? calibrate_gaussian(m) :
		calibrate_laplace(m);

	/* what the registry records and recovery subtracts must be a number */
	if (st == JL_OK && !(isfinite(m->noise_variance) && isfinite(m->scale)))
		return JL_ERR_NOISE_RANGE;
	return st;
}

JlStatus
jl_calibrate_to(JlMechanism *m, const JlProjStats *st)
{
	double		v = jl_proj_stat(st, jl_sensitivity_stat(m->noise, m->neighbor));

	m->d = st->d;
	m->k = st->k;
	m->max_abs = st->max_abs;
	if (!(v >= 0.0))
		return JL_ERR_STATS;
	m->proj_sensitivity = v;
	return jl_mechanism_calibrate(m);
}
