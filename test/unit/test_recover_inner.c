/*
 * test_inner.c - recovery of inner products and squared norms and their
 * variances (inner.c).
 *
 * Exact values on fixed inputs, then Monte Carlo: Laplace noise from the
 * real sampler (jl_discrete_laplace, t = 1000, grid step 1; its kurtosis is
 * 6 up to 1e-6), Gaussian noise from a Box-Muller sampler local to this
 * test.  Given a fixed projection, the recovered values are unbiased with
 * the given-P variances; over random keys (fresh Gaussian P per draw) with
 * the over-P variances.  Negative controls that the same checks must
 * reject: Laplace data against the Gaussian-noise norm formula and the
 * reverse, the inner product without its k s2^2 term, and the given-P
 * formulas used over P.
 *
 * Each check compares a sample mean or variance of M draws with its claim,
 * z = (estimate - claim) / se with a plug-in standard error (for the
 * variance sqrt((m4 - S^4) / M)), and rejects at |z| >= 6: nominal 2e-9,
 * a factor > 100 of headroom for the plug-in and skewness corrections, so
 * the false-failure rate is below 1e-6 per check.
 */
#include "unit.h"
#include "math/estimate/recover_inner.h"
#include "math/noise/laplace.h"
#include "math/projection/projection.h"

#define MC_Z 6.0
#define MC_T 1000
#define MC_M 200000
#define K 16

static JlRandom rng;

/* standard normal by Box-Muller, u in (0, 1) */
static double
gauss(void)
{
	double		u = ((double) jl_rand_bits(&rng, 52) + 0.5) / 4503599627370496.0;
	double		v = (double) jl_rand_bits(&rng, 52) / 4503599627370496.0;

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* one noise value of variance s2 */
static double
noise(int gaussian, double s2)
{
	if (gaussian)
		return sqrt(s2) * gauss();
	return (double) jl_discrete_laplace(&rng, MC_T);
}

/* mean and variance of D against claims; a control variance to reject */
static void
judge(const char *what, const double *D, double mean, double var,
	  const char *control, double control_var)
{
	Moments		mo;
	double		zm,
				z,
				zc;

	moments(D, MC_M, &mo);
	zm = (mo.mean - mean) / mo.se_mean;
	z = (mo.var - var) / mo.se_var;
	check(fabs(zm) < MC_Z, "%s: mean %.6g vs %.6g, z = %.2f (|z| < %.0f, M = %d)",
		  what, mo.mean, mean, zm, MC_Z, MC_M);
	check(fabs(z) < MC_Z, "%s: variance %.6g vs %.6g, z = %.2f", what, mo.var, var, z);
	if (control)
	{
		zc = (mo.var - control_var) / mo.se_var;
		check(fabs(zc) >= MC_Z, "negative control: the same check rejects %s = %.6g (z = %.1f)",
			  control, control_var, zc);
	}
}

static void
test_exact(void)
{
	double		a[3] = {1, 2, 3},
				b[3] = {4, -6, 3};
	double		v;

	check(jl_inner(a, b, 3) == 1.0, "jl_inner((1,2,3),(4,-6,3)) = %.17g (1)", jl_inner(a, b, 3));
	check(jl_norm2_recover(a, 3, 0.5) == 12.5,
		  "jl_norm2_recover((1,2,3), s2 = 0.5) = %.17g (14 - 3*0.5)", jl_norm2_recover(a, 3, 0.5));
	v = jl_inner_variance(14.0, 61.0, 1.0, 3, 0.5, 1);
	check(v == 0.5 * 75 + 3 * 0.25, "inner variance given P = %.17g (0.5*75 + 3*0.25 = 38.25)", v);
	v = jl_inner_variance(14.0, 61.0, 1.0, 3, 0.5, 0);
	check(fabs(v - (38.25 + (14.0 * 61 + 1) / 3)) < 1e-12,
		  "inner variance over P = %.17g (38.25 + (14*61 + 1)/3)", v);
	v = jl_norm2_variance(14.0, 3, 0.5, JL_KURTOSIS_LAPLACE, 1);
	check(v == 4 * 0.5 * 14 + 5 * 3 * 0.25, "Laplace norm variance given P = %.17g (28 + 3.75)", v);
	v = jl_norm2_variance(14.0, 3, 0.5, JL_KURTOSIS_GAUSSIAN, 0);
	check(fabs(v - (28 + 2 * 3 * 0.25 + 2 * 196.0 / 3)) < 1e-12,
		  "Gaussian norm variance over P = %.17g (28 + 1.5 + 2*196/3)", v);
	v = jl_norm2_stddev(a, 3, 0.5, JL_KURTOSIS_LAPLACE, 0);
	check(fabs(v - sqrt(jl_norm2_variance(12.5, 3, 0.5, 6.0, 0))) < 1e-12,
		  "norm stddev = sqrt(variance over P at the estimate 12.5) = %.17g", v);
	v = jl_norm2_stddev(a, 3, 10.0, JL_KURTOSIS_GAUSSIAN, 0);
	check(fabs(v - sqrt(2 * 3 * 100.0)) < 1e-12,
		  "norm stddev with a negative estimate uses 0: %.17g = sqrt(2 k s2^2)", v);
	v = jl_inner_stddev(a, b, 3, 0.5, 0);
	check(fabs(v - sqrt(jl_inner_variance(12.5, 59.5, 1.0, 3, 0.5, 0))) < 1e-12,
		  "inner stddev = sqrt(variance over P at the estimates) = %.17g", v);
}

/* a fixed vector of squared norm about ratio * k s2 */
static double
fixed_y(double *y, double ratio, double s2, int shift)
{
	double		n = 0.0,
				s;
	int			j;

	for (j = 0; j < K; j++)
	{
		y[j] = ((j + shift) % 3 == 0 ? -1.0 : 1.0) * (1.0 + 0.3 * ((j + shift) % K));
		n += y[j] * y[j];
	}
	s = sqrt(ratio * K * s2 / n);
	n = 0.0;
	for (j = 0; j < K; j++)
	{
		y[j] *= s;
		n += y[j] * y[j];
	}
	return n;
}

static void
test_norm_given_p(int gaussian)
{
	double		s2 = gaussian ? 2.0 : jl_discrete_laplace_variance(MC_T);
	double		kappa = gaussian ? JL_KURTOSIS_GAUSSIAN : JL_KURTOSIS_LAPLACE;
	double		wrong = gaussian ? JL_KURTOSIS_LAPLACE : JL_KURTOSIS_GAUSSIAN;
	double		y[K],
				z[K],
				n2;
	double	   *D = malloc(sizeof(double) * MC_M);
	char		what[80];
	int			i,
				j;

	n2 = fixed_y(y, 2.0, s2, 0);
	for (i = 0; i < MC_M; i++)
	{
		for (j = 0; j < K; j++)
			z[j] = y[j] + noise(gaussian, s2);
		D[i] = jl_norm2_recover(z, K, s2);
	}
	snprintf(what, sizeof(what), "%s noise, given P, squared norm (2 k s2)",
			 gaussian ? "Gaussian" : "Laplace");
	judge(what, D, n2, jl_norm2_variance(n2, K, s2, kappa, 1),
		  gaussian ? "the Laplace formula (kappa 6)" : "the Gaussian formula (kappa 3)",
		  jl_norm2_variance(n2, K, s2, wrong, 1));
	free(D);
}

static void
test_inner_given_p(int gaussian)
{
	double		s2 = gaussian ? 2.0 : jl_discrete_laplace_variance(MC_T);
	double		ya[K],
				yb[K],
				za[K],
				zb[K],
				na,
				nb,
				ip,
				V;
	double	   *D = malloc(sizeof(double) * MC_M);
	char		what[80];
	int			i,
				j;

	/* small norms, so that the k s2^2 term matters */
	na = fixed_y(ya, 0.5, s2, 0);
	nb = fixed_y(yb, 0.3, s2, 5);
	ip = jl_inner(ya, yb, K);
	for (i = 0; i < MC_M; i++)
	{
		for (j = 0; j < K; j++)
		{
			za[j] = ya[j] + noise(gaussian, s2);
			zb[j] = yb[j] + noise(gaussian, s2);
		}
		D[i] = jl_inner(za, zb, K);
	}
	V = jl_inner_variance(na, nb, ip, K, s2, 1);
	snprintf(what, sizeof(what), "%s noise, given P, inner product",
			 gaussian ? "Gaussian" : "Laplace");
	judge(what, D, ip, V, "s2 (|y_a|^2 + |y_b|^2) without k s2^2", V - K * s2 * s2);
	free(D);
}

/* over P: fresh key per draw, x_a, x_b fixed in R^3 */
static void
test_over_p(void)
{
	double		s2 = jl_discrete_laplace_variance(MC_T);
	double		xa[3] = {3.0, -2.0, 1.0},
				xb[3] = {1.0, 2.5, -2.0};
	double		P[3 * K],
				za[K],
				zb[K];
	double	   *DI = malloc(sizeof(double) * MC_M);
	double	   *DN = malloc(sizeof(double) * MC_M);
	double		s,
				na,
				nb,
				ip;
	int			i,
				j,
				t;

	/* scale so that |x_a|^2 = 10 k s2: the projection's share dominates */
	s = sqrt(10.0 * K * s2 / 14.0);
	for (t = 0; t < 3; t++)
	{
		xa[t] *= s;
		xb[t] *= s;
	}
	na = jl_inner(xa, xa, 3);
	nb = jl_inner(xb, xb, 3);
	ip = jl_inner(xa, xb, 3);
	for (i = 0; i < MC_M; i++)
	{
		uint8_t		key[JL_KEY_BYTES];
		int			w;

		for (w = 0; w < 4; w++)
		{
			uint64_t	b = jl_rand_bits(&rng, 64);

			memcpy(key + 8 * w, &b, 8);
		}
		jl_projection_matrix(key, JL_KIND_GAUSSIAN, K, 3, P);
		for (j = 0; j < K; j++)
		{
			double		ya = 0.0,
						yb = 0.0;

			for (t = 0; t < 3; t++)
			{
				ya += xa[t] * P[t * K + j];
				yb += xb[t] * P[t * K + j];
			}
			za[j] = ya + noise(0, s2);
			zb[j] = yb + noise(0, s2);
		}
		DI[i] = jl_inner(za, zb, K);
		DN[i] = jl_norm2_recover(za, K, s2);
	}
	judge("Laplace noise, over P, inner product", DI, ip,
		  jl_inner_variance(na, nb, ip, K, s2, 0),
		  "the given-P formula", jl_inner_variance(na, nb, ip, K, s2, 1));
	judge("Laplace noise, over P, squared norm", DN, na,
		  jl_norm2_variance(na, K, s2, JL_KURTOSIS_LAPLACE, 0),
		  "the given-P formula", jl_norm2_variance(na, K, s2, JL_KURTOSIS_LAPLACE, 1));
	free(DI);
	free(DN);
}

int
main(void)
{
	double		s2 = jl_discrete_laplace_variance(MC_T);

	jl_random_init(&rng, unit_getrandom_fill, NULL);
	note("discrete Laplace t = %d: kurtosis %.8f", MC_T,
		 jl_discrete_laplace_moment4(MC_T) / (s2 * s2));
	test_exact();
	test_norm_given_p(0);
	test_norm_given_p(1);
	test_inner_given_p(0);
	test_inner_given_p(1);
	test_over_p();
	return unit_done("test_inner");
}
