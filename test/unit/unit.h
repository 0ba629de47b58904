/*
 * unit.h - shared helpers of the C unit tests (no server).
 *
 * Reporting: every check prints one line, "ok  " or "FAIL", its name and its
 * figures; unit_done() returns the exit status (1 if any check failed).
 *
 * Randomness: statistical checks draw from the kernel (getrandom), as the
 * server draws from pg_strong_random; a fixed-seed splitmix64 stream is used
 * only where a check must be reproducible and is not statistical.
 *
 * Statistics: every statistical check rejects at a nominal level of
 * UNIT_ALPHA = 1e-7, i.e. with a factor 10 of headroom against the
 * approximations involved (Pearson's statistic vs chi-square with expected
 * counts >= 100, CLT for means), so its false-failure rate is at most 1e-6.
 * p-values of chi-square statistics come from the regularized incomplete
 * gamma function, not from a table or a normal approximation.
 */
#ifndef JLDP_UNIT_H
#define JLDP_UNIT_H

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "math/projection/projection.h"
#include "math/random/randbits.h"

#define UNIT_FN static __attribute__((unused))

#define UNIT_ALPHA 1e-7
/* two-sided normal threshold at UNIT_ALPHA: 2 Phi(-5.33) = 9.8e-8 */
#define UNIT_Z 5.33

static int	unit_nok = 0;
static int	unit_nfail = 0;

__attribute__((format(printf, 2, 3)))
UNIT_FN int
check(int pass, const char *fmt, ...)
{
	va_list		ap;

	fputs(pass ? "ok   " : "FAIL ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	if (pass)
		unit_nok++;
	else
		unit_nfail++;
	return pass;
}

__attribute__((format(printf, 1, 2)))
UNIT_FN void
note(const char *fmt, ...)
{
	va_list		ap;

	fputs("#    ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

UNIT_FN int
unit_done(const char *prog)
{
	printf("# %s: %d ok, %d failed\n", prog, unit_nok, unit_nfail);
	fflush(stdout);
	return unit_nfail ? 1 : 0;
}

UNIT_FN double
unit_rel(double a, double b)
{
	double		m = fmax(fabs(a), fabs(b));

	return m == 0.0 ? 0.0 : fabs(a - b) / m;
}

/* n bytes from 2n hex digits (test vectors) */
UNIT_FN void
unit_unhex(const char *hex, uint8_t *out, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		unsigned int v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t) v;
	}
}

/* ---------- byte sources for JlRandom ---------- */

UNIT_FN void
unit_getrandom_fill(void *ctx, uint8_t *buf, size_t len)
{
	size_t		done = 0;

	(void) ctx;
	while (done < len)
	{
		ssize_t		n = getrandom(buf + done, len - done, 0);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			perror("getrandom");
			exit(2);
		}
		done += (size_t) n;
	}
}

UNIT_FN uint64_t
unit_splitmix64(uint64_t *s)
{
	uint64_t	z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Fixed-seed stream: ctx points to a uint64_t state. */
UNIT_FN void
unit_det_fill(void *ctx, uint8_t *buf, size_t len)
{
	uint64_t   *s = ctx;
	size_t		i = 0;

	while (i < len)
	{
		uint64_t	w = unit_splitmix64(s);
		int			b;

		for (b = 0; b < 8 && i < len; b++, i++)
			buf[i] = (uint8_t) (w >> (8 * b));
	}
}

/* Uniform in the open interval (0,1): (m + 1/2) / 2^52, exact in double. */
UNIT_FN double
unit_u01(JlRandom *r)
{
	return ((double) jl_rand_bits(r, 52) + 0.5) * (1.0 / 4503599627370496.0);
}

UNIT_FN double
unit_det_u01(uint64_t *s)
{
	return ((double) (unit_splitmix64(s) >> 12) + 0.5) * (1.0 / 4503599627370496.0);
}

/* Standard normal (Box-Muller) from the given uniform source. */
UNIT_FN double
unit_normal(JlRandom *r)
{
	double		u1 = unit_u01(r),
				u2 = unit_u01(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

UNIT_FN double
unit_det_normal(uint64_t *s)
{
	double		u1 = unit_det_u01(s),
				u2 = unit_det_u01(s);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

UNIT_FN double
unit_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---------- distributions ---------- */

/* Regularized lower incomplete gamma P(a, x) by its series (x < a + 1). */
UNIT_FN double
unit_gamma_p_series(double a, double x)
{
	double		sum = 1.0 / a,
				term = 1.0 / a,
				ap = a;
	int			n;

	for (n = 0; n < 100000; n++)
	{
		ap += 1.0;
		term *= x / ap;
		sum += term;
		if (fabs(term) < fabs(sum) * 1e-17)
			break;
	}
	return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Regularized upper incomplete gamma Q(a, x) by Lentz's continued fraction (x >= a + 1). */
UNIT_FN double
unit_gamma_q_cf(double a, double x)
{
	const double tiny = 1e-300;
	double		b = x + 1.0 - a,
				c = 1.0 / tiny,
				d = 1.0 / b,
				h = d;
	int			i;

	for (i = 1; i < 100000; i++)
	{
		double		an = -i * (i - a),
					del;

		b += 2.0;
		d = an * d + b;
		if (fabs(d) < tiny)
			d = tiny;
		c = b + an / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < 1e-16)
			break;
	}
	return exp(-x + a * log(x) - lgamma(a)) * h;
}

UNIT_FN double
unit_gamma_p(double a, double x)
{
	if (x <= 0.0)
		return 0.0;
	return (x < a + 1.0) ? unit_gamma_p_series(a, x) : 1.0 - unit_gamma_q_cf(a, x);
}

UNIT_FN double
unit_gamma_q(double a, double x)
{
	if (x <= 0.0)
		return 1.0;
	return (x < a + 1.0) ? 1.0 - unit_gamma_p_series(a, x) : unit_gamma_q_cf(a, x);
}

/* Upper and lower tail of the chi-square distribution with df degrees. */
UNIT_FN double
unit_chi2_sf(double x, double df)
{
	return unit_gamma_q(0.5 * df, 0.5 * x);
}

UNIT_FN double
unit_chi2_cdf(double x, double df)
{
	return unit_gamma_p(0.5 * df, 0.5 * x);
}

/* Critical value c with Pr[chi2_df >= c] = alpha (bisection on unit_chi2_sf). */
UNIT_FN double
unit_chi2_crit(double df, double alpha)
{
	double		lo = 0.0,
				hi = df + 50.0 * sqrt(df) + 200.0;
	int			i;

	for (i = 0; i < 200; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (unit_chi2_sf(mid, df) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* Standard normal cdf and its inverse (bisection; tests only). */
UNIT_FN double
unit_phi(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

UNIT_FN double
unit_phi_inv(double p)
{
	double		lo = -40.0,
				hi = 40.0;
	int			i;

	for (i = 0; i < 200; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (unit_phi(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/*
 * Pearson goodness of fit: obs[i] against N * prob[i] over n cells whose
 * probabilities sum to 1.  Returns the p-value; stat and df are reported.
 * The caller builds cells with expected counts >= 100.
 */
UNIT_FN double
unit_pearson(const uint64_t *obs, const double *prob, int n, double *stat,
			 int *df, double *min_expected)
{
	double		N = 0.0,
				x2 = 0.0,
				emin = INFINITY;
	int			i;

	for (i = 0; i < n; i++)
		N += (double) obs[i];
	for (i = 0; i < n; i++)
	{
		double		e = N * prob[i],
					dd = (double) obs[i] - e;

		x2 += dd * dd / e;
		if (e < emin)
			emin = e;
	}
	*stat = x2;
	*df = n - 1;
	if (min_expected)
		*min_expected = emin;
	return unit_chi2_sf(x2, n - 1);
}

/* a key pinned to the bytes base, base + 1, ... (reproducible P) */
UNIT_FN void
pinned_key(uint8_t key[JL_KEY_BYTES], uint8_t base)
{
	int			i;

	for (i = 0; i < JL_KEY_BYTES; i++)
		key[i] = (uint8_t) (base + i);
}

UNIT_FN int
same_doubles(const double *a, const double *b, int64_t n)
{
	return memcmp(a, b, (size_t) n * sizeof(double)) == 0;
}

/* sample moments of x[0..M-1] and the standard errors of mean and variance */
typedef struct Moments
{
	double		mean,
				var,			/* sample variance */
				se_mean,
				se_var;
} Moments;

UNIT_FN void
moments(const double *x, int M, Moments *mo)
{
	long double s = 0.0L,
				s2 = 0.0L,
				s4 = 0.0L,
				mean;
	int			i;

	for (i = 0; i < M; i++)
		s += x[i];
	mean = s / M;
	for (i = 0; i < M; i++)
	{
		long double d = x[i] - mean,
					dd = d * d;

		s2 += dd;
		s4 += dd * dd;
	}
	mo->mean = (double) mean;
	mo->var = (double) (s2 / (M - 1));
	mo->se_mean = sqrt(mo->var / M);
	mo->se_var = sqrt((double) (s4 / M) - mo->var * mo->var) / sqrt((double) M);
}

#endif
