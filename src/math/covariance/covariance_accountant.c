/*
 * covariance_accountant.c - delta(eps) of the covariance release and the
 * smallest lift that meets a requested delta.  The derivation, including
 * why the orthogonal pair of norm rho is the worst case, is in
 * docs/design/covariance.md; the numerics (quadrature, error estimate, margin)
 * are described there too.
 */
#include "math/covariance/covariance_accountant.h"
#include "math/base/fp.h"
#include "math/base/interrupt.h"
#include "math/noise/laplace.h"

#include <float.h>
#include <math.h>

/* ---------- chi-square tail ---------- */

/* log of e^-x x^a / Gamma(a) */
static double
gamma_log_prefix(double a, double x)
{
	return -x + a * log(x) - lgamma(a);
}

/* regularized lower incomplete gamma by its series (x < a + 1) */
static double
gamma_p_series(double a, double x)
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
	return sum * exp(gamma_log_prefix(a, x));
}

/* log of the regularized upper incomplete gamma by Lentz's continued fraction (x >= a + 1) */
static double
gamma_logq_cf(double a, double x)
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
	return gamma_log_prefix(a, x) + log(h);
}

double
jl_chi2_logsf(double r, double t)
{
	double		a = 0.5 * r,
				x = 0.5 * t;

	if (!(t > 0.0))
		return 0.0;
	/* the continued fraction would run its whole course on x = inf */
	if (isinf(t))
		return -INFINITY;
	if (x < a + 1.0)
		return log1p(-gamma_p_series(a, x));
	return gamma_logq_cf(a, x);
}

/* ---------- delta of a pair ---------- */

/* the law of the privacy loss: c0 + (mu1 X1 - nu X2) / 2 */
typedef struct Loss
{
	int			r;
	double		c0,
				mu1,
				nu,
				eps;
} Loss;

/*
 * E[(1 - e^(eps - L))_+ | X2 = y] for mu1 > 0: with t the X1 above which
 * L > eps, Q(t) - e^(eps - c0 + nu y/2) (1 + mu1)^(-r/2) Q((1 + mu1) t),
 * by tilting the chi-square density (docs/design/covariance.md).
 */
static double
inner(const Loss *l, double y)
{
	double		t = (2.0 * (l->eps - l->c0) + l->nu * y) / l->mu1;
	double		first,
				second,
				v;

	if (t < 0.0)
		t = 0.0;
	first = exp(jl_chi2_logsf(l->r, t));
	second = exp(l->eps - l->c0 + 0.5 * l->nu * y - 0.5 * l->r * log1p(l->mu1) +
				 jl_chi2_logsf(l->r, (1.0 + l->mu1) * t));
	v = first - second;
	return v > 0.0 ? v : 0.0;
}

/* log of the density of s = sqrt(chi-square(r)) */
static double
log_sqrt_chi_density(int r, double s)
{
	if (s <= 0.0)
		return -INFINITY;
	return (r - 1.0) * log(s) - 0.5 * s * s + (1.0 - 0.5 * r) * M_LN2 - lgamma(0.5 * r);
}

/* 8-point Gauss-Legendre on [-1, 1] */
static const double gl_x[4] = {0.1834346424956498, 0.5255324099163290,
0.7966664774136267, 0.9602898564975363};
static const double gl_w[4] = {0.3626837833783620, 0.3137066458778873,
0.2223810344533745, 0.1012285362903763};

/* integral over s in [lo, hi] of density(s) inner(s^2), npanels panels */
static double
integrate(const Loss *l, double lo, double hi, int npanels)
{
	double		h = (hi - lo) / npanels,
				sum = 0.0;
	int			p,
				j;

	for (p = 0; p < npanels; p++)
	{
		double		mid = lo + (p + 0.5) * h,
					part = 0.0;

		for (j = 0; j < 4; j++)
		{
			double		s1 = mid - 0.5 * h * gl_x[j],
						s2 = mid + 0.5 * h * gl_x[j];

			part += gl_w[j] * (exp(log_sqrt_chi_density(l->r, s1)) * inner(l, s1 * s1) +
							   exp(log_sqrt_chi_density(l->r, s2)) * inner(l, s2 * s2));
		}
		sum += 0.5 * h * part;
	}
	return sum;
}

#define NPANELS 256
#define S_HALFWIDTH 41.0

double
jl_cov_pair_delta(int r, double a, double b, double c, double eps, double *err)
{
	double		beta = 1.0 / (1.0 + b * b),
				s = a * b * c,
				T = a * a - beta * (b * b + s * s),
				D = -beta * a * a * b * b * (1.0 - c * c),
				disc = sqrt(fmax(0.0, T * T - 4.0 * D)),
				mu2;
	Loss		l;

	l.r = r;
	l.eps = eps;
	l.c0 = 0.5 * r * (log1p(b * b) - log1p(a * a));
	/* the roots of mu^2 - T mu + D, without cancellation */
	if (T >= 0.0)
	{
		l.mu1 = 0.5 * (T + disc);
		mu2 = l.mu1 > 0.0 ? D / l.mu1 : 0.0;
	}
	else
	{
		mu2 = 0.5 * (T - disc);
		l.mu1 = D / mu2;
	}
	l.nu = -mu2;
	if (l.nu < 0.0)
		l.nu = 0.0;
	if (err)
		*err = 0.0;

	if (!(l.mu1 > 0.0))
	{
		/*
		 * L = c0 - nu X2 / 2 <= c0: the loss exceeds eps only where X2 <
		 * y* = 2 (c0 - eps) / nu, and there E[1 - e^(eps - L)] is
		 * P(y*) - e^(eps - c0) (1 - nu)^(-r/2) P((1 - nu) y*) (nu < 1).
		 */
		double		ystar;

		if (l.c0 <= eps)
			return 0.0;
		if (!(l.nu > 0.0))
			return -expm1(eps - l.c0);
		ystar = 2.0 * (l.c0 - eps) / l.nu;
		return fmax(0.0, -expm1(jl_chi2_logsf(r, ystar)) -
					exp(eps - l.c0 - 0.5 * r * log1p(-l.nu)) *
					-expm1(jl_chi2_logsf(r, (1.0 - l.nu) * ystar)));
	}
	else
	{
		double		m = sqrt((double) r),
					lo = fmax(0.0, m - S_HALFWIDTH),
					hi = m + S_HALFWIDTH,
					fine = integrate(&l, lo, hi, NPANELS),
					coarse = integrate(&l, lo, hi, NPANELS / 2);

		/*
		 * beyond [lo, hi] the integrand is at most the density: its mass
		 * there bounds the truncation
		 */
		if (err)
			*err = fabs(fine - coarse) + exp(jl_chi2_logsf(r, hi * hi)) +
				(lo > 0.0 ? -expm1(jl_chi2_logsf(r, lo * lo)) : 0.0);
		return fine;
	}
}

double
jl_cov_delta(int r, double rho, double eps)
{
	double		err,
				d = jl_cov_pair_delta(r, rho, rho, 0.0, eps, &err);

	return fmin(1.0, (d + 10.0 * err) * (1.0 + JL_COV_DELTA_MARGIN));
}

double
jl_cov_lift(int r, double eps, double delta, double C)
{
	double		ok = 1.0,		/* rho values: ok meets delta, bad does not */
				bad;
	int			i;

	if (!(r >= 1 && r <= JL_COV_MAX_R && eps > 0.0 && eps <= JL_COV_MAX_EPSILON &&
		  delta > 0.0 && delta < 1.0 && isfinite(C) && C > 0.0))
		return NAN;
	/* delta decreases with rho: bracket, then bisect on log rho */
	for (i = 0; i < 2000 && jl_cov_delta(r, ok, eps) > delta; i++)
	{
		jl_interrupt_check();
		ok *= 0.5;
	}
	bad = 2.0 * ok;
	for (i = 0; i < 2000 && jl_cov_delta(r, bad, eps) <= delta; i++)
	{
		jl_interrupt_check();
		ok = bad;
		bad *= 2.0;
	}
	for (i = 0; i < 200 && bad - ok > ok * 1e-9; i++)
	{
		double		mid = sqrt(ok * bad);

		jl_interrupt_check();
		if (jl_cov_delta(r, mid, eps) <= delta)
			ok = mid;
		else
			bad = mid;
	}
	return C / ok;
}

double
jl_cov_lift_paper(int r, double eps, double delta, double C)
{
	return 2.0 * C * 16.0 * sqrt(r * log(2.0 / delta)) * log(16.0 * r / delta) / eps;
}

/* ---------- the instance-dependent variant ---------- */

double
jl_cov_sigma_error(double C, double n, int d)
{
	/*
	 * |fl(A^T A) - A^T A| <= gamma_n |A|^T |A| entrywise, whose norm is at
	 * most ||A||_F^2 <= n C^2; the symmetric eigensolver adds a backward
	 * error of a modest multiple of d u ||A^T A|| (64 d u, generously).  An
	 * eigenvalue moves by at most the norm of the perturbation, and
	 * |sqrt(a) - sqrt(b)| <= sqrt(|a - b|).
	 */
	double		lam = (jl_gamma(n + 2.0) + 64.0 * d * JL_U_ROUND) * n * C * C;

	return sqrt(lam);
}

int
jl_cov_sigma_plan(double C, double n, int d, double eps1, double beta,
				  JlCovSigmaPlan *p)
{
	double		steps,
				t,
				q;

	if (!(isfinite(eps1) && eps1 > 0.0 && beta > 0.0 && beta < 1.0 &&
		  isfinite(C) && C > 0.0 && n >= 0.0 && d >= 1))
		return -1;
	p->g = C / 1048576.0;		/* 2^-20 C */
	/* Weyl: sigma_min moves by at most C when one row is replaced */
	p->sensitivity = C + 2.0 * jl_cov_sigma_error(C, n, d);
	/* rounding to the grid adds at most one step */
	steps = ceil(p->sensitivity / p->g) + 1.0;
	t = ceil(steps / eps1);
	if (!(t >= 1.0 && t <= (double) JL_LAPLACE_MAX_T))
		return -1;
	p->t = (uint64_t) t;
	p->eps = steps / t;
	/* Pr[Z >= m] = p^m / (1 + p) <= beta, p = e^(-1/t); one step spare */
	q = t * (-log(beta) - log1p(exp(-1.0 / t)));
	p->m = (int64_t) ceil(fmax(0.0, q)) + 1;
	return 0;
}

double
jl_cov_partial_lift(double w, double C, double lcb)
{
	double		l = lcb > 0.0 ? lcb : 0.0,
				l2 = w * w + C * C - l * l;

	return l2 > 0.0 ? sqrt(l2) : 0.0;
}
