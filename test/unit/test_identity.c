/*
 * test_identity.c - the identity projection (P = I_d, k = d: no projection):
 * its rows, its products (a copy, passed as P == NULL), its long-format
 * product, and the recovery formulas and standard errors of its releases.
 *
 * The release of x is g (round(x / g) + N) with N discrete Laplace: for x on
 * the grid the sketch is x plus exact noise, so the recovered squared
 * distance has variance 8 s2 r2 + 14 k s2^2 with r2 = ||x_a - x_b||^2 (no
 * 2 r2^2 / k term: nothing is random about P).  Monte Carlo through
 * jl_release_row with a mechanism calibrated by jl_calibrate_to on
 * jl_identity_stats: M = 200000 pairs of releases, |z| < 6 (nominal 2e-9
 * with a plug-in standard error; false-failure rate below 1e-6 per check,
 * as test_recover.c).  Negative control: the over-P form (the Gaussian-P
 * variance, adding 2 r2^2 / k) must be rejected by the same check.
 */
#include "unit.h"
#include "math/projection/calibrate.h"
#include "math/projection/grid.h"
#include "math/projection/projection.h"
#include "math/estimate/recover.h"
#include "math/estimate/recover_inner.h"
#include "math/projection/release.h"
#include "math/projection/sensitivity.h"
#include "math/projection/sparse.h"

#define MC_Z 6.0
#define MC_M 200000
#define D 8

static JlRandom rng;

static void
test_kind(void)
{
	uint8_t		key[JL_KEY_BYTES] = {1};
	double		row[5],
				val[5];
	int32_t		idx[5];
	int			n;

	check(jl_kind_ready(JL_KIND_IDENTITY), "identity is a ready kind");
	check(strcmp(jl_kind_name(JL_KIND_IDENTITY), "identity") == 0, "its name is \"identity\"");
	check(jl_kind_resolve(JL_KIND_IDENTITY, 100) == JL_KIND_IDENTITY, "resolving it with d keeps it");
	jl_projection_row(key, JL_KIND_IDENTITY, 5, 3, row);
	check(row[0] == 0 && row[1] == 0 && row[2] == 0 && row[3] == 1 && row[4] == 0,
		  "row 3 of I_5 is e_3");
	n = jl_projection_row_nz(key, JL_KIND_IDENTITY, 5, 3, val, idx);
	check(n == 1 && idx[0] == 3 && val[0] == 1.0, "its nonzeros: one 1 in column 3");
}

static void
test_products(void)
{
	double		x[3] = {0.1, -1e300, 3.5},
				X[6] = {1, 2, 3, 4, 5, 6},
				y[3],
				Y[6];
	JlSparsePair pairs[3] = {{1, 0.25}, {3, -7.0}, {4, 1.0}};
	uint8_t		key[JL_KEY_BYTES] = {2};
	double		rowbuf[4],
				cbuf[4],
				ys[4];

	jl_project_vec(NULL, 3, 3, x, y);
	check(memcmp(x, y, sizeof(x)) == 0, "jl_project_vec with P = I copies x exactly");
	memset(y, 0, sizeof(y));
	jl_project_vec_compensated(NULL, 3, 3, x, y);
	check(memcmp(x, y, sizeof(x)) == 0, "so does the compensated product");
	jl_project_rows(NULL, 3, 3, X, 2, Y);
	check(memcmp(X, Y, sizeof(X)) == 0, "and the product of a batch of rows");
	jl_sparse_project(pairs, 3, key, JL_KIND_IDENTITY, 4, NULL, rowbuf, INFINITY, ys);
	check(ys[0] == 0.25 && ys[1] == 0 && ys[2] == -7.0 && ys[3] == 1.0,
		  "long format: attribute i goes to coordinate i (%g %g %g %g)", ys[0], ys[1], ys[2], ys[3]);
	jl_sparse_project(pairs, 3, key, JL_KIND_IDENTITY, 4, NULL, rowbuf, 2.0, ys);
	check(ys[0] == 0.25 && ys[2] == -2.0, "values clamped to the limit");
	jl_sparse_project_compensated(pairs, 3, key, JL_KIND_IDENTITY, 4, NULL, rowbuf,
								  INFINITY, cbuf, ys);
	check(ys[0] == 0.25 && ys[2] == -7.0 && ys[3] == 1.0, "compensated: the same copy");
}

static void
test_exact_formulas(void)
{
	double		a[3] = {1, 2, 3},
				b[3] = {4, 6, 3};
	double		sd;

	/* recovered r2 = 25 - 2 * 3 * 0.5 = 22 */
	sd = jl_recover_stddev_noise(a, b, 3, 0.5, 0, 1);
	check(fabs(sd - sqrt(8 * 0.5 * 22 + 14 * 3 * 0.25)) < 1e-14,
		  "identity, Laplace: stddev %.17g = sqrt(8 s2 r2 + 14 k s2^2) at r2 = 22", sd);
	sd = jl_recover_stddev_noise(a, b, 3, 0.5, 1, 1);
	check(fabs(sd - sqrt(8 * 0.5 * 22 + 8 * 3 * 0.25)) < 1e-14,
		  "identity, Gaussian: stddev %.17g = sqrt(8 s2 r2 + 8 k s2^2)", sd);
	sd = jl_recover_stddev_noise(a, b, 3, 0.5, 0, 0);
	check(fabs(sd - sqrt(2 * 22.0 * 22 / 3 + 8 * 0.5 * 22 + 14 * 3 * 0.25)) < 1e-14,
		  "random P (identity = 0): the over-P form, unchanged");
	/* |a|^2 = 14 - 1.5 = 12.5, |b|^2 = 61 - 1.5 = 59.5 */
	sd = jl_inner_stddev(a, b, 3, 0.5, 1);
	check(fabs(sd - sqrt(0.5 * (12.5 + 59.5) + 3 * 0.25)) < 1e-14,
		  "identity: inner-product stddev %.17g = sqrt(s2 (|a|^2 + |b|^2) + k s2^2)", sd);
	sd = jl_norm2_stddev(a, 3, 0.5, JL_KURTOSIS_LAPLACE, 1);
	check(fabs(sd - sqrt(4 * 0.5 * 12.5 + 5 * 3 * 0.25)) < 1e-14,
		  "identity: squared-norm stddev %.17g = sqrt(4 s2 |a|^2 + (kappa - 1) k s2^2)", sd);
}

/* An identity mechanism of dimension D (element neighbours, bound 1). */
static void
identity_mechanism(JlMechanism *m, double epsilon)
{
	JlProjStats st;
	JlStatus	s;

	memset(m, 0, sizeof(*m));
	m->noise = JL_NOISE_LAPLACE;
	m->epsilon = epsilon;
	m->neighbor = JL_NEIGHBOR_ELEMENT;
	m->bound = 1.0;
	m->calibration = JL_CALIBRATION_EXACT;
	m->delta = NAN;
	jl_identity_stats(D, &st);
	s = jl_calibrate_to(m, &st);
	check(s == JL_OK && m->valid && m->k == D && m->d == D,
		  "calibrated to jl_identity_stats(%d): k = d, sensitivity %.6g, noise variance %.6g",
		  D, m->sensitivity, m->noise_variance);
	check(m->data_sensitivity >= 1.0 && m->data_sensitivity <= 1.0 + 1e-15,
		  "element, Laplace: the data sensitivity %.17g is the bound (rounded up)",
		  m->data_sensitivity);
}

static void
test_release_variance(void)
{
	JlMechanism m;
	double		xa[D],
				xb[D],
				za[D],
				zb[D],
				r2 = 0.0,
				V,
				Vp,
				z,
				zp,
				zm;
	double	   *Dv = malloc(sizeof(double) * MC_M);
	int			i,
				j,
				ongrid = 1;
	Moments		mo;

	identity_mechanism(&m, 2.0);
	/* x_a, x_b on the grid, r2 about 12 k s2: the over-P term 2 r2^2 / k triples the variance */
	for (j = 0; j < D; j++)
	{
		xa[j] = m.grid * nearbyint((j % 2 ? 1.0 : -1.0) * (1.0 + 0.2 * j) *
								   sqrt(4.0 * m.noise_variance) / m.grid);
		xb[j] = m.grid * (double) (j - 3);
		r2 += (xa[j] - xb[j]) * (xa[j] - xb[j]);
	}
	for (i = 0; i < MC_M; i++)
	{
		jl_release_row(&m, NULL, xa, za, &rng);
		jl_release_row(&m, NULL, xb, zb, &rng);
		for (j = 0; j < D; j++)
			ongrid &= jl_on_grid(za[j], m.grid) && jl_on_grid(zb[j], m.grid);
		Dv[i] = jl_recover_sqdist(za, zb, D, m.noise_variance);
	}
	moments(Dv, MC_M, &mo);
	V = jl_recover_variance_laplace(r2, D, m.noise_variance, 1);
	Vp = jl_recover_variance_laplace(r2, D, m.noise_variance, 0);
	zm = (mo.mean - r2) / mo.se_mean;
	z = (mo.var - V) / mo.se_var;
	zp = (mo.var - Vp) / mo.se_var;
	check(ongrid, "every released value lies on the grid %g", m.grid);
	check(fabs(zm) < MC_Z, "identity release, r2 = %.4g (%.1f k s2): mean recovered %.6g, z = %.2f",
		  r2, r2 / (D * m.noise_variance), mo.mean, zm);
	check(fabs(z) < MC_Z, "variance %.6g vs 8 s2 r2 + 14 k s2^2 = %.6g, z = %.2f (M = %d)",
		  mo.var, V, z, MC_M);
	check(fabs(zp) >= MC_Z, "negative control: the same check rejects the Gaussian-P form "
		  "2 r2^2/k + 8 s2 r2 + 14 k s2^2 = %.6g (z = %.1f)", Vp, zp);
	free(Dv);
}

int
main(void)
{
	jl_random_init(&rng, unit_getrandom_fill, NULL);
	test_kind();
	test_products();
	test_exact_formulas();
	test_release_variance();
	return unit_done("test_identity");
}
