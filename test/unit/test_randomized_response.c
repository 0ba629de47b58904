/*
 * test_randomized_response.c - randomized response (randomized_response.c).
 *
 * 1. The flip sampler: over N pairs of consecutive trials, the four pair
 *    outcomes against p^2, p(1-p), (1-p)p, (1-p)^2 (Pearson, 3 df: the flip
 *    rate and independence of neighbouring trials; where fewer than 100
 *    double flips are expected, flips among all trials, 1 df), rejected at UNIT_ALPHA
 *    = 1e-7, for epsilon from 0.1 (p = 0.475) to 10 (p = 4.5e-5, the
 *    e^-1 loop of the exponential trials).  Negative controls: a sampler
 *    built for 1.1 epsilon must be rejected against the p of epsilon.
 * 2. The estimator: M pairs of 0/1 vectors at true Hamming distance h are
 *    flipped and recovered; the sample mean must match h and the sample
 *    variance jl_rr_variance (the same for every h), z = (estimate - claim)
 *    / se with plug-in standard errors, rejected at |z| >= 6 (nominal
 *    2e-9, a factor > 100 of headroom for the plug-in).  Negative
 *    controls: the estimate without the 2dp(1-p) correction, and the
 *    variance d p(1-p) / (1-2p)^4 of one flipped vector, must be rejected.
 * 3. Deterministic: epsilon rounding, bit strings (pad bits untouched),
 *    Hamming counts, exact estimator values.
 */
#include "unit.h"
#include "math/noise/randomized_response.h"

#define MC_Z 6.0

static JlRandom rng;

/* Pearson over pairs; returns the p-value */
static double
pair_test(const JlRR *sampler, double p, uint64_t npairs, double *stat)
{
	uint64_t	obs[4] = {0, 0, 0, 0};
	double		prob[4];
	double		emin;
	int			df;
	uint64_t	i;

	for (i = 0; i < npairs; i++)
	{
		int			a = jl_rr_flip(&rng, sampler);
		int			b = jl_rr_flip(&rng, sampler);

		obs[2 * a + b]++;
	}
	prob[0] = (1 - p) * (1 - p);
	prob[1] = (1 - p) * p;
	prob[2] = p * (1 - p);
	prob[3] = p * p;
	if (npairs * prob[3] >= 100.0)
		return unit_pearson(obs, prob, 4, stat, &df, &emin);
	/* too few double flips expected: the 2 npairs single trials instead */
	obs[0] = 2 * obs[0] + obs[1] + obs[2];
	obs[1] = obs[1] + obs[2] + 2 * obs[3];
	prob[0] = 1 - p;
	prob[1] = p;
	return unit_pearson(obs, prob, 2, stat, &df, &emin);
}

static void
test_flip_rate(void)
{
	const double eps[] = {0.1, 1.0, 3.0, 10.0};
	/* at eps = 10 the 1-df test: 8e6 trials, 363 flips expected */
	const uint64_t npairs[] = {2000000, 2000000, 2000000, 4000000};
	int			i;

	for (i = 0; i < 4; i++)
	{
		JlRR		rr,
					wrong;
		double		stat,
					pv;

		jl_rr_setup(&rr, eps[i]);
		pv = pair_test(&rr, rr.p, npairs[i], &stat);
		check(pv > UNIT_ALPHA, "flips at epsilon %g (p = %.6g), %llu pairs: X2 = %.2f, p-value %.3g",
			  eps[i], rr.p, (unsigned long long) npairs[i], stat, pv);
		if (i < 2)
		{
			jl_rr_setup(&wrong, 1.1 * eps[i]);
			pv = pair_test(&wrong, rr.p, npairs[i], &stat);
			check(pv <= UNIT_ALPHA, "negative control: a sampler for epsilon %g tested against p(%g): X2 = %.1f, p-value %.3g (must be rejected)",
				  1.1 * eps[i], eps[i], stat, pv);
		}
	}
}

/* Monte Carlo of the estimator at true Hamming distance h */
static void
test_estimator(int d, int h, double epsilon, int M, bool controls)
{
	JlRR		rr;
	double	   *x = malloc(sizeof(double) * d),
			   *y = malloc(sizeof(double) * d),
			   *xf = malloc(sizeof(double) * d),
			   *yf = malloc(sizeof(double) * d);
	double		sum = 0,
				sum2 = 0,
				sum3 = 0,
				sum4 = 0,
				usum = 0,
				usum2 = 0;
	double		p,
				mean,
				var,
				m4,
				claim,
				wrong,
				z,
				umean,
				uvar;
	int			i,
				m;

	jl_rr_setup(&rr, epsilon);
	p = rr.p;
	for (i = 0; i < d; i++)
	{
		x[i] = (i % 3 == 0);
		y[i] = (i < h) ? 1.0 - x[i] : x[i];
	}
	for (m = 0; m < M; m++)
	{
		double		hh = 0,
					est,
					unc;

		memcpy(xf, x, sizeof(double) * d);
		memcpy(yf, y, sizeof(double) * d);
		jl_rr_flip_doubles(&rng, &rr, xf, d);
		jl_rr_flip_doubles(&rng, &rr, yf, d);
		for (i = 0; i < d; i++)
			hh += (xf[i] != yf[i]);
		est = jl_rr_recover_sqdist(hh, d, p);
		unc = hh / ((1 - 2 * p) * (1 - 2 * p));
		sum += est;
		sum2 += est * est;
		usum += unc;
		usum2 += unc * unc;
		sum3 += est * est * est;
		sum4 += est * est * est * est;
	}
	mean = sum / M;
	var = (sum2 - M * mean * mean) / (M - 1);
	/* fourth central moment from raw moments */
	m4 = sum4 / M - 4 * mean * sum3 / M + 6 * mean * mean * sum2 / M - 3 * pow(mean, 4);
	claim = jl_rr_variance(d, p);

	z = (mean - h) / sqrt(var / M);
	check(fabs(z) < MC_Z, "d %d, h %d, epsilon %g: mean of %d estimates %.4f vs h = %d, z = %.2f",
		  d, h, epsilon, M, mean, h, z);
	z = (var - claim) / sqrt((m4 - var * var) / M);
	check(fabs(z) < MC_Z, "d %d, h %d, epsilon %g: variance %.4f vs d s(1-s)/(1-2p)^4 = %.4f, z = %.2f",
		  d, h, epsilon, var, claim, z);
	if (controls)
	{
		umean = usum / M;
		uvar = (usum2 - M * umean * umean) / (M - 1);
		z = (umean - h) / sqrt(uvar / M);
		check(fabs(z) >= MC_Z, "negative control: without the 2dp(1-p) correction, mean %.4f vs h = %d, z = %.1f (must be rejected)",
			  umean, h, z);
		wrong = d * p * (1 - p) / pow(1 - 2 * p, 4);
		z = (var - wrong) / sqrt((m4 - var * var) / M);
		check(fabs(z) >= MC_Z, "negative control: one vector's variance d p(1-p)/(1-2p)^4 = %.4f vs %.4f, z = %.1f (must be rejected)",
			  wrong, var, z);
	}
	free(x);
	free(y);
	free(xf);
	free(yf);
}

static void
test_deterministic(void)
{
	JlRR		rr;
	uint8_t		buf[2],
				a[19],
				b[19];
	int			i,
				t,
				pad_ok = 1,
				ham_ok = 1;

	check(!jl_rr_setup(&rr, 0.0) && !jl_rr_setup(&rr, -1.0) &&
		  !jl_rr_setup(&rr, NAN) && !jl_rr_setup(&rr, INFINITY),
		  "epsilon <= 0, NaN, Infinity refused");
	jl_rr_setup(&rr, 1.0);
	check(rr.num == 1 && rr.den == 1 && rr.p == 1.0 / (1.0 + exp(1.0)),
		  "epsilon 1: 1/1, p = %.17g", rr.p);
	jl_rr_setup(&rr, 1.1);
	check(rr.epsilon <= 1.1 && 1.1 - rr.epsilon < ldexp(1.0, -31) &&
		  (double) rr.num / (double) rr.den == rr.epsilon &&
		  rr.whole == 1 && rr.frac == rr.num - rr.den && rr.den <= (UINT64_C(1) << 31),
		  "epsilon 1.1 rounded down by %.3g (< 2^-31) to %llu/%llu",
		  1.1 - rr.epsilon, (unsigned long long) rr.num, (unsigned long long) rr.den);
	jl_rr_setup(&rr, 1e-10);
	check(rr.num == 0 && rr.p == 0.5, "epsilon 1e-10 below 2^-31: p = 1/2 (more private)");
	jl_rr_setup(&rr, 3.0);
	check(rr.num == 3 && rr.den == 1 && rr.whole == 3 && rr.frac == 0, "epsilon 3: 3/1, three e^-1 trials");
	jl_rr_setup(&rr, 1e9);
	check(rr.epsilon == JL_RR_EPS_MAX && rr.p == 0.0, "epsilon 1e9 capped at %g, p = 0", rr.epsilon);
	check(jl_rr_flip_probability(2.0) == exp(-2.0) / (1 + exp(-2.0)) &&
		  isnan(jl_rr_flip_probability(0.0)),
		  "jl_rr_flip_probability(2) = %.17g", jl_rr_flip_probability(2.0));

	/* bit strings: 13 bits in 2 bytes, p = 1/2, the 3 pad bits stay 0 */
	jl_rr_setup(&rr, 1e-30);
	for (t = 0; t < 1000; t++)
	{
		buf[0] = 0;
		buf[1] = 0;
		jl_rr_flip_bitstring(&rng, &rr, buf, 13);
		pad_ok &= (buf[1] & 0x07) == 0;
	}
	check(pad_ok, "bit strings: pad bits untouched in 1000 flips of 13 bits");
	/* epsilon large: nothing flips */
	jl_rr_setup(&rr, 40.0);
	buf[0] = 0xa5;
	buf[1] = 0xf0;
	jl_rr_flip_bitstring(&rng, &rr, buf, 12);
	check(buf[0] == 0xa5 && buf[1] == 0xf0, "epsilon 40 (p = 4e-18): bits unchanged");

	for (t = 0; t < 100; t++)
	{
		uint64_t	naive = 0;

		unit_getrandom_fill(NULL, a, sizeof(a));
		unit_getrandom_fill(NULL, b, sizeof(b));
		for (i = 0; i < 19 * 8; i++)
			naive += ((a[i >> 3] >> (i & 7)) & 1) != ((b[i >> 3] >> (i & 7)) & 1);
		ham_ok &= jl_hamming_bytes(a, b, 19) == naive;
	}
	check(ham_ok, "jl_hamming_bytes equals a bit-by-bit count (100 random 19-byte pairs)");

	check(jl_rr_recover_sqdist(7, 100, 0.0) == 7.0, "p = 0: the estimate is the Hamming distance");
	/* p = 1/4: (h - 2 d 3/16) / (1/4) = 4 h - 1.5 d */
	check(jl_rr_recover_sqdist(30, 100, 0.25) == -30.0, "p = 1/4, h = 30, d = 100: %.17g (-30)",
		  jl_rr_recover_sqdist(30, 100, 0.25));
	/* s = 3/8: 100 (3/8)(5/8) / (1/2)^4 = 375 */
	check(jl_rr_variance(100, 0.25) == 375.0, "variance at p = 1/4, d = 100: %.17g (375)",
		  jl_rr_variance(100, 0.25));
	check(jl_rr_variance(100, 0.0) == 0.0, "variance at p = 0: 0");
}

int
main(void)
{
	jl_random_init(&rng, unit_getrandom_fill, NULL);
	test_deterministic();
	test_flip_rate();
	test_estimator(200, 30, 1.0, 20000, true);
	test_estimator(200, 0, 1.0, 20000, false);
	test_estimator(200, 150, 0.5, 20000, false);
	return unit_done("test_randomized_response");
}
