/*
 * test_mechanism.c - calibration and release on the power-of-two grid
 * (mechanism.c).
 *
 * Grid arithmetic over a range of (d, k, epsilon, bound, neighbour,
 * calibration): the grid is a power of two, the effective sensitivity covers
 * the data sensitivity plus 1.5 k g, scale = t g exactly, t >= 1024, the
 * noise variance is g^2 Var(L_t), exact calibration is epsilon-DP for this P
 * and wastes at most 1/1024 of epsilon, the paper's constants are as in the
 * papers.  Errors: bad epsilon, bound and delta, missing delta, scale and grid
 * out of range, rows too large.  Release: outputs on the grid, the rounding
 * of x P stays within the floating-point allowance, neighbouring rows move
 * the grid indices by at most the effective sensitivity, and the noise has
 * the calibrated variance (statistical, UNIT_ALPHA, with a negative control).
 */
#include "unit.h"
#include "math/noise/laplace.h"
#include "math/projection/mechanism.h"
#include "math/base/fp.h"
#include "math/projection/projection.h"
#include "math/projection/sensitivity.h"
#include "math/projection/calibrate.h"
#include "math/projection/grid.h"
#include "math/projection/release.h"

#include <float.h>

static uint64_t seed = 777;

static int
is_pow2(double g)
{
	int			e;

	return g > 0.0 && isfinite(g) && frexp(g, &e) == 0.5;
}

static JlMechanism
make(int64_t d, int k, double eps, double bound, JlNeighbor nb, JlCalibration cal,
	 double delta, double proj, double max_abs)
{
	JlMechanism	m;

	memset(&m, 0, sizeof(m));
	m.d = d;
	m.k = k;
	m.epsilon = eps;
	m.bound = bound;
	m.neighbor = nb;
	m.calibration = cal;
	m.delta = delta;
	m.proj_sensitivity = proj;
	m.max_abs = max_abs;
	return m;
}

/* one property over the whole grid of configurations */
typedef struct Prop
{
	const char *name;
	int			n;				/* configurations it applies to */
	int			bad;			/* violations */
	char		example[256];	/* first violation */
} Prop;

static void
prop(Prop *p, int ok, const JlMechanism *m, const char *fmt, ...)
{
	p->n++;
	if (!ok && p->bad++ == 0)
	{
		va_list		ap;
		int			off;

		off = snprintf(p->example, sizeof(p->example),
					   "d=%ld k=%d eps=%g bound=%g nb=%d cal=%d: ", (long) m->d, m->k,
					   m->epsilon, m->bound, (int) m->neighbor, (int) m->calibration);
		va_start(ap, fmt);
		vsnprintf(p->example + off, sizeof(p->example) - off, fmt, ap);
		va_end(ap);
	}
}

static void
prop_report(const Prop *p)
{
	if (p->bad == 0)
		check(1, "%s (%d configurations)", p->name, p->n);
	else
		check(0, "%s: %d of %d configurations violate it, e.g. %s", p->name, p->bad, p->n,
			  p->example);
}

enum
{
	P_OK, P_POW2, P_SENS, P_DATA, P_SCALE, P_T, P_VAR, P_VALID, P_WASTE, P_GRIDCOST,
	P_EPSEFF, P_PAPER_EL, P_PAPER_ROW, P_PAPER_T, P_PAPER_VALID, NPROP
};

static void
test_grid_arithmetic(void)
{
	static const int64_t ds[] = {1, 10, 1000, 100000};
	static const int ks[] = {1, 5, 50, 300};
	static const double epss[] = {1e-3, 0.1, 1.0, 10.0};
	static const double bounds[] = {1e-6, 1.0, 1e6};
	Prop		P[NPROP] = {
		{"calibration returns JL_OK"},
		{"grid is a power of two"},
		{"sensitivity >= data_sensitivity + 1.5 k grid"},
		{"data_sensitivity >= bound * proj_sensitivity"},
		{"scale == t * grid exactly"},
		{"t >= 1024"},
		{"noise_variance == grid^2 * jl_discrete_laplace_variance(t)"},
		{"exact calibration: valid and scale * epsilon >= sensitivity"},
		{"exact calibration: epsilon_effective >= epsilon / (1 + 1/1024) (t not wasteful)"},
		{"grid rounding cost 1.5 k grid <= target / 1024"},
		{"epsilon_effective == sensitivity / scale"},
		{"paper element: c = 2 sqrt(k) bound, paper_delta = d e^(-k/2)"},
		{"paper row: c = k sqrt(2 bound^2 ln(2k/delta) / k), paper_delta = delta"},
		{"paper: scale * epsilon >= paper c"},
		{"paper: valid iff sensitivity <= scale * epsilon"},
	};
	int			a,
				b,
				c,
				e,
				nb,
				cal,
				i;

	for (a = 0; a < 4; a++)
		for (b = 0; b < 4; b++)
			for (c = 0; c < 4; c++)
				for (e = 0; e < 3; e++)
					for (nb = 0; nb < 2; nb++)
						for (cal = 0; cal < 2; cal++)
						{
							int64_t		d = ds[a];
							int			k = ks[b];
							double		sk = sqrt((double) k),
										proj,
										delta;
							JlMechanism	m;
							JlStatus	st;
							long double ls;

							/* realistic sizes: element ~ 0.8 sqrt(k) (max row L1 of
							 * N(0,1/k) entries), row ~ sqrt(k) (1 + sqrt(d/k)) */
							proj = nb == 0 ? 1.37 * 0.8 * sk : sk * (1.0 + sqrt((double) d / k));
							delta = (nb == 1 && cal == 1) ? 1e-6 : ((a + b) % 2 ? 1e-5 : NAN);
							m = make(d, k, epss[c], bounds[e], (JlNeighbor) nb, (JlCalibration) cal,
									 delta, proj, 4.0 / sk);
							st = jl_mechanism_calibrate(&m);
							prop(&P[P_OK], st == JL_OK, &m, "status %d", (int) st);
							if (st != JL_OK)
								continue;
							prop(&P[P_POW2], is_pow2(m.grid), &m, "grid %a", m.grid);
							ls = (long double) m.data_sensitivity + 1.5L * k * (long double) m.grid;
							prop(&P[P_SENS], (long double) m.sensitivity >= ls, &m,
								 "sensitivity %.17g < %.17Lg", m.sensitivity, ls);
							prop(&P[P_DATA], (long double) m.data_sensitivity >=
								 (long double) m.bound * (long double) m.proj_sensitivity, &m,
								 "data_sensitivity %.17g", m.data_sensitivity);
							prop(&P[P_SCALE], m.scale == (double) m.t * m.grid &&
								 (long double) m.scale == (long double) m.t * (long double) m.grid,
								 &m, "scale %.17g, t %llu, grid %a", m.scale,
								 (unsigned long long) m.t, m.grid);
							prop(&P[P_T], m.t >= 1024, &m, "t = %llu", (unsigned long long) m.t);
							prop(&P[P_VAR], m.noise_variance ==
								 m.grid * m.grid * jl_discrete_laplace_variance(m.t), &m,
								 "noise_variance %.17g", m.noise_variance);
							prop(&P[P_EPSEFF], m.epsilon_effective == m.sensitivity / m.scale, &m,
								 "epsilon_effective %.17g", m.epsilon_effective);
							{
								double		target = cal == 0 ? m.data_sensitivity : m.paper_c;

								prop(&P[P_GRIDCOST], 1.5 * k * m.grid <= target / 1024.0, &m,
									 "1.5 k g = %.17g, target %.17g", 1.5 * k * m.grid, target);
							}
							if (cal == JL_CALIBRATION_EXACT)
							{
								prop(&P[P_VALID], m.valid &&
									 (long double) m.scale * (long double) m.epsilon >=
									 (long double) m.sensitivity && m.epsilon_effective <= m.epsilon,
									 &m, "valid %d, scale*eps %.17g, sensitivity %.17g",
									 (int) m.valid, m.scale * m.epsilon, m.sensitivity);
								prop(&P[P_WASTE], m.epsilon_effective >=
									 m.epsilon / (1.0 + 1.0 / 1024.0) * (1.0 - 1e-12), &m,
									 "epsilon_effective %.17g", m.epsilon_effective);
							}
							else
							{
								prop(&P[P_PAPER_T], (long double) m.scale * (long double) m.epsilon >=
									 (long double) m.paper_c, &m, "scale*eps %.17g < c %.17g",
									 m.scale * m.epsilon, m.paper_c);
								prop(&P[P_PAPER_VALID], m.valid ==
									 (m.sensitivity <= m.scale * m.epsilon), &m, "valid %d",
									 (int) m.valid);
								if (nb == JL_NEIGHBOR_ELEMENT)
									prop(&P[P_PAPER_EL],
										 unit_rel(m.paper_c, 2.0 * sk * m.bound) < 1e-15 &&
										 unit_rel(m.paper_delta, d * exp(-0.5 * k)) < 1e-14, &m,
										 "c %.17g, paper_delta %.17g", m.paper_c, m.paper_delta);
								else
									prop(&P[P_PAPER_ROW],
										 unit_rel(m.paper_c, k * sqrt(2.0 * m.bound * m.bound *
																	 log(2.0 * k / delta) / k)) < 1e-14 &&
										 m.paper_delta == delta, &m,
										 "c %.17g, paper_delta %.17g", m.paper_c, m.paper_delta);
							}
						}
	for (i = 0; i < NPROP; i++)
		prop_report(&P[i]);

	/* recalibration drops a noise table set up for the old scale, whole */
	{
		static const JlCalibration cals[] = {JL_CALIBRATION_EXACT, JL_CALIBRATION_ANALYTIC};
		static uint32_t stale[4];
		int			c;

		for (c = 0; c < 2; c++)
		{
			JlMechanism	m = make(100, 8, 1.0, 1.0, JL_NEIGHBOR_ROW, cals[c],
								 c == 0 ? NAN : 1e-6, 3.0, 1.0);
			JlStatus	st;

			m.noise_table = stale;
			m.noise_table_full = true;
			st = jl_mechanism_calibrate(&m);
			check(st == JL_OK && m.noise_table == NULL && !m.noise_table_full,
				  "%s: calibration resets noise_table and noise_table_full (%d, %d)",
				  c == 0 ? "Laplace" : "Gaussian", m.noise_table == NULL, (int) m.noise_table_full);
		}
	}
	/* the paper's element delta is vacuous for small k, and the release says so */
	{
		JlMechanism	m = make(1000, 5, 1.0, 1.0, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_PAPER,
							 NAN, 1.5, 1.0);
		JlStatus	st = jl_mechanism_calibrate(&m);

		check(st == JL_OK && m.paper_delta > 1.0,
			  "paper element d=1000 k=5: paper_delta = d e^(-k/2) = %.4g >= 1 is reported (vacuous)",
			  m.paper_delta);
	}
	/* the paper's element constant can be below the realized sensitivity:
	 * the release is then not epsilon-DP for this P and must say so */
	{
		JlMechanism	m = make(100, 4, 1.0, 1.0, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_PAPER,
							 NAN, 10.0, 1.0);	/* c = 4 < realized 10 */
		JlStatus	st = jl_mechanism_calibrate(&m);

		check(st == JL_OK && !m.valid && m.epsilon_effective > m.epsilon,
			  "paper element with realized D1 = 10 > c = 4: valid = %d, epsilon_effective = %.4g",
			  (int) m.valid, m.epsilon_effective);
	}
}

static void
test_errors(void)
{
	static const double bad_eps[] = {0.0, -1.0, NAN, INFINITY, -INFINITY, -0.0};
	static const double bad_bound[] = {0.0, -2.0, NAN, INFINITY};
	static const double bad_delta[] = {0.0, 1.0, -0.5, 1.5, INFINITY, -INFINITY};
	int			i,
				ok;
	JlMechanism	m;
	JlStatus	st;

	ok = 1;
	for (i = 0; i < 6; i++)
	{
		m = make(10, 5, bad_eps[i], 1.0, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_EXACT, NAN, 1.0, 1.0);
		ok &= jl_mechanism_calibrate(&m) == JL_ERR_EPSILON;
	}
	check(ok, "epsilon 0, -1, NaN, +-Inf, -0 return JL_ERR_EPSILON");

	ok = 1;
	for (i = 0; i < 4; i++)
	{
		m = make(10, 5, 1.0, bad_bound[i], JL_NEIGHBOR_ROW, JL_CALIBRATION_EXACT, NAN, 1.0, 1.0);
		ok &= jl_mechanism_calibrate(&m) == JL_ERR_BOUND;
	}
	check(ok, "bound 0, -2, NaN, Inf return JL_ERR_BOUND");

	ok = 1;
	for (i = 0; i < 6; i++)
	{
		int			nb,
					cal;

		for (nb = 0; nb < 2; nb++)
			for (cal = 0; cal < 2; cal++)
			{
				m = make(10, 5, 1.0, 1.0, (JlNeighbor) nb, (JlCalibration) cal, bad_delta[i], 1.0, 1.0);
				ok &= jl_mechanism_calibrate(&m) == JL_ERR_DELTA;
			}
	}
	check(ok, "delta 0, 1, -0.5, 1.5, +-Inf return JL_ERR_DELTA (every neighbour and calibration)");

	m = make(10, 5, 1.0, 1.0, JL_NEIGHBOR_ROW, JL_CALIBRATION_PAPER, NAN, 1.0, 1.0);
	st = jl_mechanism_calibrate(&m);
	check(st == JL_ERR_DELTA_REQUIRED, "paper calibration, row neighbours, no delta: JL_ERR_DELTA_REQUIRED (%d)",
		  (int) st);
	m = make(10, 5, 1.0, 1.0, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_PAPER, NAN, 1.0, 1.0);
	st = jl_mechanism_calibrate(&m);
	check(st == JL_OK, "paper calibration, element neighbours, no delta: JL_OK (%d)", (int) st);

	m = make(10, 5, 1e-20, 1.0, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_EXACT, NAN, 1.0, 1.0);
	st = jl_mechanism_calibrate(&m);
	check(st == JL_ERR_SCALE, "epsilon 1e-20: JL_ERR_SCALE (%d)", (int) st);

	m = make(10, 5, 1.0, 1.0, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_EXACT, NAN, 0.0, 1.0);
	st = jl_mechanism_calibrate(&m);
	check(st == JL_ERR_ZERO_PROJECTION, "projection sensitivity 0 (an all-zero sparse P): JL_ERR_ZERO_PROJECTION (%d)", (int) st);

	ok = 1;
	m = make(10, 5, 1.0, 1.0, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_EXACT, NAN, NAN, 1.0);
	ok &= jl_mechanism_calibrate(&m) == JL_ERR_GRID;
	m = make(10, 5, 1.0, 1e100, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_EXACT, NAN, 1e201, 1.0);
	ok &= jl_mechanism_calibrate(&m) == JL_ERR_GRID;
	m = make(10, 5, 1.0, 1e-100, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_EXACT, NAN, 1e-210, 1.0);
	ok &= jl_mechanism_calibrate(&m) == JL_ERR_GRID;
	check(ok, "projection sensitivity NaN, sensitivity 1e301 or 1e-310: JL_ERR_GRID");

	/* the public scales, refused before any calibration (jl_check_scales) */
	ok = 1;
	m = make(10, 5, 1.0, 1e300, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_EXACT, NAN, 10.0, 1.0);
	ok &= jl_mechanism_calibrate(&m) == JL_ERR_BOUND_RANGE;
	m = make(10, 5, 1.0, 1e-160, JL_NEIGHBOR_ROW, JL_CALIBRATION_EXACT, NAN, 10.0, 1.0);
	ok &= jl_mechanism_calibrate(&m) == JL_ERR_BOUND_RANGE;
	m = make(10, 5, 1e-101, 1.0, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_EXACT, NAN, 10.0, 1.0);
	ok &= jl_mechanism_calibrate(&m) == JL_ERR_NOISE_RANGE;
	ok &= jl_check_scales(1.0, 1e100) == JL_OK && jl_check_scales(1.0, 1e-100) == JL_OK &&
		jl_check_scales(1e-100, 1e-100) == JL_OK && jl_check_scales(1.0, 0.0) == JL_ERR_BOUND &&
		jl_check_scales(NAN, 1.0) == JL_ERR_EPSILON;
	check(ok, "bounds outside [1e-100, 1e100]: JL_ERR_BOUND_RANGE; bound / epsilon above 1e100: JL_ERR_NOISE_RANGE");

	/* messages */
	{
		const char *msgs[9];
		int			j,
					distinct = 1;

		for (i = 0; i <= JL_ERR_OUTPUT_RANGE; i++)
			msgs[i] = jl_status_message((JlStatus) i);
		for (i = 0; i <= JL_ERR_OUTPUT_RANGE; i++)
			for (j = 0; j < i; j++)
				distinct &= msgs[i] && msgs[j] && strcmp(msgs[i], msgs[j]) != 0 && msgs[i][0];
		check(distinct && strcmp(jl_status_message((JlStatus) 99), "unknown status") == 0,
			  "jl_status_message: 9 distinct messages, \"unknown status\" otherwise");
	}
}

/* ---------- release ---------- */

static double *
key_matrix(int64_t d, int k)
{
	uint8_t		key[JL_KEY_BYTES];
	double	   *P = malloc(sizeof(double) * d * k);
	int			i;

	for (i = 0; i < JL_KEY_BYTES; i++)
		key[i] = (uint8_t) (0xa0 + i);
	jl_projection_matrix(key, JL_KIND_GAUSSIAN, k, d, P);
	return P;
}

/* the computed x P is within gamma_d sum_i |x_i| |P_ij| of the exact value */
static void
test_project_vec(void)
{
	static const int64_t ds[] = {50, 1000, 100000};
	static const int ks[] = {20, 7, 16};
	int			c;

	for (c = 0; c < 3; c++)
	{
		int64_t		d = ds[c],
					i;
		int			k = ks[c],
					j;
		double	   *P = key_matrix(d, k);
		double	   *x = malloc(sizeof(double) * d);
		double	   *y = malloc(sizeof(double) * k);
		double		gamma_d = (d + 2) * (DBL_EPSILON / 2) / (1.0 - (d + 2) * (DBL_EPSILON / 2)),
					worst = 0.0;
		int			ok = 1,
					rep;

		for (rep = 0; rep < 5; rep++)
		{
			for (i = 0; i < d; i++)
				x[i] = (unit_det_u01(&seed) - 0.5) * (rep == 4 ? 1e6 : 1.0) *
					(i % 17 == 0 ? 1e3 : 1.0);
			jl_project_vec(P, d, k, x, y);
			for (j = 0; j < k; j++)
			{
				long double exact = 0.0L,
							absum = 0.0L;

				for (i = 0; i < d; i++)
				{
					exact += (long double) x[i] * P[i * k + j];
					absum += fabsl((long double) x[i] * P[i * k + j]);
				}
				ok &= fabsl(y[j] - exact) <= gamma_d * absum;
				if (absum > 0)
					worst = fmax(worst, (double) (fabsl(y[j] - exact) / (gamma_d * absum)));
			}
		}
		check(ok, "jl_project_vec d=%ld k=%d: |fl(xP) - xP| <= gamma_d sum |x_i P_ij| "
			  "(worst at %.3g of the bound)", (long) d, k, worst);
		free(P);
		free(x);
		free(y);
	}
}

static void
grid_index(const JlMechanism *m, const double *P, const double *x, double *n)
{
	int			j;

	jl_project_vec(P, m->d, m->k, x, n);
	for (j = 0; j < m->k; j++)
		n[j] = nearbyint(n[j] / m->grid);
}

/* ||n g - n' g||_1 for neighbouring x, x' must stay within m->sensitivity */
static void
test_neighbours(void)
{
	int64_t		d = 50,
				i;
	int			k = 12,
				j,
				rep;
	double	   *P = key_matrix(d, k);
	double		x[50],
				x2[50],
				n[12],
				n2[12];
	JlMechanism	m;
	double		worst = 0.0;
	int			ok = 1;

	/* element neighbours: one element moves by +-bound */
	m = make(d, k, 1.0, 2.0, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_EXACT, NAN,
			 jl_max_row_l1(P, d, k), jl_max_abs(P, d * k));
	ok &= jl_mechanism_calibrate(&m) == JL_OK;
	for (rep = 0; rep < 300; rep++)
	{
		for (i = 0; i < d; i++)
			x[i] = (unit_det_u01(&seed) - 0.5) * 10.0;
		grid_index(&m, P, x, n);
		for (i = 0; i < d; i++)
		{
			int			sgn;

			for (sgn = -1; sgn <= 1; sgn += 2)
			{
				double		l1 = 0.0;

				memcpy(x2, x, sizeof(x));
				x2[i] += sgn * m.bound;
				grid_index(&m, P, x2, n2);
				for (j = 0; j < k; j++)
					l1 += fabs(n[j] - n2[j]) * m.grid;
				ok &= l1 <= m.sensitivity;
				worst = fmax(worst, l1 / m.sensitivity);
			}
		}
	}
	check(ok, "element neighbours (d=%ld k=%d, 30000 pairs): ||n g - n' g||_1 <= sensitivity "
		  "(worst %.6f of it)", (long) d, k, worst);

	/* row neighbours: x' = x + R delta with delta the worst direction P s* / ||P s*|| */
	{
		JlRowMethod meth;
		double		best = -1.0,
					dir[50];
		uint64_t	mask,
					bestmask = 0;

		for (mask = 0; mask < (UINT64_C(1) << k); mask++)
		{
			double		sq = 0.0;

			for (i = 0; i < d; i++)
			{
				double		yv = 0.0;

				for (j = 0; j < k; j++)
					yv += (mask >> j & 1) ? -P[i * k + j] : P[i * k + j];
				sq += yv * yv;
			}
			if (sq > best)
			{
				best = sq;
				bestmask = mask;
			}
		}
		for (i = 0; i < d; i++)
		{
			dir[i] = 0.0;
			for (j = 0; j < k; j++)
				dir[i] += (bestmask >> j & 1) ? -P[i * k + j] : P[i * k + j];
			dir[i] /= sqrt(best);
		}
		m = make(d, k, 1.0, 3.0, JL_NEIGHBOR_ROW, JL_CALIBRATION_EXACT, NAN,
				 jl_row_l1_sensitivity(P, d, k, &meth), jl_max_abs(P, d * k));
		ok = jl_mechanism_calibrate(&m) == JL_OK;
		worst = 0.0;
		for (rep = 0; rep < 3000; rep++)
		{
			double		l1 = 0.0;

			for (i = 0; i < d; i++)
				x[i] = (unit_det_u01(&seed) - 0.5) * 10.0;
			for (i = 0; i < d; i++)
				x2[i] = x[i] + m.bound * dir[i] * (1.0 - 1e-15);
			grid_index(&m, P, x, n);
			grid_index(&m, P, x2, n2);
			for (j = 0; j < k; j++)
				l1 += fabs(n[j] - n2[j]) * m.grid;
			ok &= l1 <= m.sensitivity;
			worst = fmax(worst, l1 / m.sensitivity);
		}
		check(ok && worst > 0.99, "row neighbours along the worst direction (3000 pairs): "
			  "||n g - n' g||_1 <= sensitivity and nearly attains it (worst %.6f)", worst);
	}
	free(P);
}

static void
test_release(void)
{
	int64_t		d = 50,
				i;
	int			k = 20,
				j,
				rep;
	double	   *P = key_matrix(d, k);
	double		x[50],
				out[20],
				y[20];
	JlMechanism	m = make(d, k, 1.0, 1.0, JL_NEIGHBOR_ELEMENT, JL_CALIBRATION_EXACT, NAN,
						 jl_max_row_l1(P, d, k), jl_max_abs(P, d * k));
	JlRandom   *det = malloc(sizeof(JlRandom));
	JlRandom   *rng = malloc(sizeof(JlRandom));
	uint64_t	dseed = 31337;
	int			ok = 1,
				ongrid = 1;
	JlStatus	st;

	jl_random_init(det, unit_det_fill, &dseed);
	jl_random_init(rng, unit_getrandom_fill, NULL);
	st = jl_mechanism_calibrate(&m);
	check(st == JL_OK, "release setup d=50 k=20: grid %a, t = %llu",
		  m.grid, (unsigned long long) m.t);

	/* outputs on the grid, finite (fixed-seed source: reproducible) */
	for (rep = 0; rep < 500; rep++)
	{
		for (i = 0; i < d; i++)
			x[i] = (unit_det_u01(&seed) - 0.5) * 4.0;
		st = jl_release_row(&m, P, x, out, det);
		ok &= st == JL_OK;
		for (j = 0; j < k; j++)
			ongrid &= isfinite(out[j]) && jl_on_grid(out[j], m.grid);
	}
	check(ok && ongrid, "500 releases: JL_OK and every output is an exact multiple of the grid");

	/* jl_on_grid itself */
	check(jl_on_grid(3.0 * m.grid, m.grid) && jl_on_grid(-1e6 * m.grid, m.grid) &&
		  jl_on_grid(0.0, m.grid) && !jl_on_grid(3.5 * m.grid, m.grid) &&
		  !jl_on_grid(NAN, m.grid) && !jl_on_grid(INFINITY, m.grid),
		  "jl_on_grid: multiples yes; half steps, NaN, Inf no");

	/* noise variance: noise_j = out_j / g - round(y_j / g), mean of noise^2
	 * against Var(L_t); z-test at 5.33 (UNIT_ALPHA), negative control: the
	 * same statistic against the variance of scale 1.1 t must be rejected */
	{
		long double s2 = 0.0L;
		double		var = jl_discrete_laplace_variance(m.t),
					m4 = jl_discrete_laplace_moment4(m.t),
					var_wrong = jl_discrete_laplace_variance((uint64_t) (1.1 * m.t)),
					mean,
					z,
					zw;
		int			N = 0;

		for (rep = 0; rep < 20000; rep++)
		{
			for (i = 0; i < d; i++)
				x[i] = (unit_det_u01(&seed) - 0.5) * 4.0;
			st = jl_release_row(&m, P, x, out, rng);
			grid_index(&m, P, x, y);
			for (j = 0; j < k; j++)
			{
				double		noise = out[j] / m.grid - y[j];

				s2 += (long double) noise * noise;
				N++;
			}
		}
		mean = (double) (s2 / N);
		z = (mean - var) / sqrt((m4 - var * var) / N);
		zw = (mean - var_wrong) / sqrt((m4 - var * var) / N);
		check(fabs(z) < UNIT_Z, "release noise in grid steps: mean square %.6g vs Var(L_t) %.6g, "
			  "z = %.2f (|z| < %.2f, N = %d)", mean, var, z, UNIT_Z, N);
		check(fabs(zw) >= UNIT_Z, "negative control: the same check rejects Var(L_1.1t) = %.6g (z = %.1f)",
			  var_wrong, zw);
	}

	/*
	 * Rows beyond the fast path's floating-point allowance are projected
	 * with the compensated dot product, and huge values are clamped and the
	 * projection saturated: never a data-dependent refusal (which would tell
	 * neighbours apart).
	 */
	{
		double		gamma_d = (d + 2) * (DBL_EPSILON / 2) / (1.0 - (d + 2) * (DBL_EPSILON / 2));
		double		limit = m.fp_allowance / (gamma_d * (1.0 + 2.0 * gamma_d) * m.max_abs);
		double		worst = 0.0;
		int			cls,
					ok = 1;

		for (i = 0; i < d; i++)
			x[i] = (i % 2 ? -2.0 : 2.0) * limit / d;
		cls = jl_row_class(&m, x);
		check(cls == JL_ROW_COMPENSATED, "row with ||x||_1 = 2x the fast path's limit %.4g: compensated (class %d)",
			  limit, cls);
		/* the compensated projection is within the allowance of the exact one */
		jl_project_vec_compensated(P, d, k, x, y);
		for (j = 0; j < k; j++)
		{
			long double ex = 0.0L;

			for (i = 0; i < d; i++)
				ex += (long double) x[i] * P[i * k + j];
			if (fabsl((long double) y[j] - ex) > worst)
				worst = (double) fabsl((long double) y[j] - ex);
		}
		check(worst <= m.fp_allowance, "compensated x P within %.3g of the long-double value (allowance %.3g)",
			  worst, m.fp_allowance);
		/* neighbours on both sides of the old refusal threshold: both released */
		for (i = 0; i < d; i++)
			x[i] = 0.0;
		x[0] = limit * 0.999;
		st = jl_release_row(&m, P, x, out, det);
		ok &= (st == JL_OK);
		x[0] += 1.0 * m.bound * limit * 0.002;
		st = jl_release_row(&m, P, x, out, det);
		ok &= (st == JL_OK);
		for (j = 0; j < k; j++)
			ok &= jl_on_grid(out[j], m.grid);
		check(ok, "rows on both sides of the fast path's limit are released, on the grid");

		/* huge values: clamped inputs, saturated projections */
		for (i = 0; i < d; i++)
			x[i] = (i % 3 ? 1e200 : -1e250);
		cls = jl_row_class(&m, x);
		st = jl_release_row(&m, P, x, out, det);
		ok = (st == JL_OK);
		for (j = 0; j < k; j++)
			ok &= jl_on_grid(out[j], m.grid) &&
				fabs(out[j] / m.grid) <= 562949953421312.0 + 60.0 * (double) m.t;
		check((cls & JL_ROW_CLAMP) && ok,
			  "row of 1e200 and -1e250: clamped (class %d), released within 2^49 grid steps plus noise",
			  cls);
	}

	free(det);
	free(rng);
	free(P);
}

/*
 * jl_row_class against a plain reference (the largest |x_i| against the
 * input limit, the sum of min(|x_i|, limit) against the allowance) for
 * every d from 1 to 40 and a large element at every position, so that the
 * vector loop's lanes and its scalar tail are all exercised; control: the
 * reference with the large element left out disagrees where it must.
 */
static void
test_row_class_lanes(void)
{
	JlMechanism m;
	double		x[40];
	int			d,
				pos,
				bad = 0,
				cases = 0,
				ctrl = 0;

	for (d = 1; d <= 40; d++)
		for (pos = 0; pos < d; pos++)
		{
			int			i,
						cls,
						want = JL_ROW_PLAIN,
						want_wrong = JL_ROW_PLAIN;
			double		amax = 0.0,
						l1 = 0.0,
						l1_wrong = 0.0;

			memset(&m, 0, sizeof(m));
			m.d = d;
			m.max_abs = 1.0;
			m.grid = 1.0;
			m.fp_allowance = 0.25;
			m.input_limit = 1e6;
			for (i = 0; i < d; i++)
				x[i] = (i % 2 ? -0.5 : 0.25) * (1 + i % 5);
			x[pos] = (pos % 2 ? -3e6 : 3e6);	/* above the limit */
			for (i = 0; i < d; i++)
			{
				double		a = fabs(x[i]);

				amax = a > amax ? a : amax;
				l1 += a < m.input_limit ? a : m.input_limit;
				if (i != pos)
					l1_wrong += a;
			}
			if (amax > m.input_limit)
				want |= JL_ROW_CLAMP;
			if (!jl_fp_within_allowance(l1, m.d, m.max_abs, m.fp_allowance))
				want |= JL_ROW_COMPENSATED;
			if (!jl_fp_within_allowance(l1_wrong, m.d, m.max_abs, m.fp_allowance))
				want_wrong |= JL_ROW_COMPENSATED;
			cls = jl_row_class(&m, x);
			bad += cls != want;
			ctrl += cls != want_wrong;
			cases++;
		}
	check(bad == 0, "jl_row_class equals the plain reference for d = 1..40, a large element at "
		  "every position: %d of %d differ", bad, cases);
	check(ctrl == cases, "control: a reference that misses the large element differs in all %d cases "
		  "(%d)", cases, ctrl);
}

int
main(void)
{
	test_grid_arithmetic();
	test_errors();
	test_project_vec();
	test_neighbours();
	test_release();
	test_row_class_lanes();
	return unit_done("test_mechanism");
}
