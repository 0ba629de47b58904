/*
 * accountant.c - the composition of a dataset's releases (accountant.h,
 * docs/design/accounting.md).
 *
 * Every method below gives an (epsilon, delta) that the releases together
 * satisfy; the least epsilon of them is the dataset's spent budget.
 *   basic  the sums of the epsilons and deltas (Dwork et al.);
 *   rdp    each release's Renyi DP curve, summed order by order (Mironov
 *          2017): randomized response's for a pure release (the most any
 *          epsilon-DP mechanism has, tightly: Steinke, "Sharp RDP & zCDP
 *          from Pure DP", 2024), alpha rho for rho-zCDP (Bun and Steinke
 *          2016; the discrete Gaussian's rho, Canonne, Kamath and Steinke
 *          2020), converted to epsilon at delta by Canonne, Kamath and
 *          Steinke's conversion at each of a fixed set of orders (each
 *          order gives a valid epsilon; the least is taken);
 *   pld    the pure releases' privacy loss composed exactly: randomized
 *          response with epsilon dominates every epsilon-DP mechanism
 *          (Kairouz, Oh and Viswanath 2015), so the composition of
 *          randomized responses dominates theirs; each epsilon is rounded
 *          up to a grid h (a randomized response with a larger epsilon
 *          dominates the smaller's), so the losses are multiples of h and
 *          their distribution is computed exactly, up to the rounding of
 *          double sums, covered by a margin on delta.  The zCDP releases
 *          join by rdp, with delta split between the two.
 *          A Gaussian release with a dominating shift mu (an atom of
 *          delta0 = delta / 1024 on one side and N(mu, 1) against N(0, 1),
 *          math/noise/gaussian_dominance.h) joins the PLD instead: Gaussian
 *          shifts compose exactly to sqrt(sum mu^2), their atoms to at most
 *          the sum of the delta0, and the pure releases' losses L_j add to
 *          the Gaussian loss, so delta(eps) = sum_j p_j delta_mu(eps - L_j)
 *          + sum delta0 (gaussian_profile.h), evaluated at multiples of h
 *          with every term rounded up.
 * The releases known only by their (epsilon, delta) join every method by
 * basic composition (their deltas taken off the target first).
 */
#include "math/accounting/accountant.h"
#include "math/accounting/gaussian_profile.h"
#include "math/base/interrupt.h"

#include <float.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* delta's margin for the rounding of the PLD's sums (relative, absolute) */
#define PLD_DELTA_MARGIN_REL 1e-9
#define PLD_DELTA_MARGIN_ABS 1e-15
/* the PLD grid: at most this many steps across the pure releases' sum */
#define PLD_STEPS 65536
/*
 * The PLD composes at most this many pure releases (its cost is about
 * n (65536 + n) steps, under the dataset's lock); beyond, Renyi DP alone
 * (n times 160 orders)
 */
#define PLD_MAX_RELEASES 4096
/*
 * Every epsilon a method returns is raised by this much, relative: the
 * rounding of its sums (of at most a million terms) to nearest, never up
 */
#define ROUNDING_MARGIN 1e-9

bool
jl_profile_valid(const JlProfile *p)
{
	if (!(isfinite(p->epsilon) && p->epsilon >= 0.0 && isfinite(p->delta) &&
		  p->delta >= 0.0 && p->delta < 1.0))
		return false;
	switch (p->kind)
	{
		case JL_PROFILE_PURE:
			return p->delta == 0.0;
		case JL_PROFILE_ZCDP:
			return isfinite(p->rho) && p->rho >= 0.0 &&
				(isnan(p->mu) || (isfinite(p->mu) && p->mu >= 0.0));
		case JL_PROFILE_APPROX:
			return true;
	}
	return false;
}

bool
jl_profile_has_mu(const JlProfile *p)
{
	return p->kind == JL_PROFILE_ZCDP && isfinite(p->mu) && p->mu > 0.0 && p->delta > 0.0;
}

double
jl_rdp_order(int i)
{
	/* alpha = 1 + 10^x, x from -3 to 4 */
	return 1.0 + pow(10.0, -3.0 + 7.0 * i / (JL_RDP_ORDERS - 1));
}

/* log(e^a + e^b) */
static double
log_add(double a, double b)
{
	double		hi = a > b ? a : b,
				lo = a > b ? b : a;

	return hi + log1p(exp(lo - hi));
}

double
jl_rdp_pure(double epsilon, double alpha)
{
	/*
	 * D_alpha of (p, 1-p) from (1-p, p), p = e^eps / (1 + e^eps):
	 * log((e^(alpha eps) + e^((1 - alpha) eps)) / (1 + e^eps)) / (alpha - 1)
	 */
	double		d = (log_add(alpha * epsilon, (1.0 - alpha) * epsilon) - log_add(0.0, epsilon)) /
		(alpha - 1.0);

	/* never above epsilon (nor below 0) whatever the rounding */
	return fmin(fmax(d, 0.0), epsilon);
}

double
jl_rdp_to_epsilon(const double *rdp, double delta)
{
	double		best = INFINITY,
				ld = log(1.0 / delta);

	for (int i = 0; i < JL_RDP_ORDERS; i++)
	{
		double		a = jl_rdp_order(i);
		double		e = rdp[i] + (ld + (a - 1.0) * log1p(-1.0 / a) - log(a)) / (a - 1.0);

		if (isfinite(e) && e < best)
			best = e;
	}
	/* the rounding of this sum, upward */
	return fmax(best * (1.0 + 1e-12), 0.0);
}

/*
 * The distribution of the summed losses of randomized responses with these
 * epsilons rounded up to the grid h: (*M) the sum of the steps, the array
 * 2 M + 1 long (index M: loss 0).  NULL when out of memory.
 */
static double *
pld_distribution(const double *eps, int n, double h, int64_t *Mp)
{
	int64_t		M = 0,
				reach = 0;
	double	   *cur,
			   *next;

	double		steps = 0.0;

	/* at most 2^24 steps each way (the grid of jl_compose has 65536 + n) */
	for (int i = 0; i < n; i++)
		steps += ceil(eps[i] / h);
	if (!(steps >= 0.0 && steps <= 16777216.0))
		return NULL;
	M = (int64_t) steps;
	cur = calloc((size_t) (2 * M + 1), sizeof(double));
	next = calloc((size_t) (2 * M + 1), sizeof(double));
	if (cur == NULL || next == NULL)
	{
		free(cur);
		free(next);
		return NULL;
	}
	cur[M] = 1.0;
	for (int i = 0; i < n; i++)
	{
		int64_t		m = (int64_t) ceil(eps[i] / h);
		double		p = 1.0 / (1.0 + exp(-(m * h)));	/* loss +m h: the likelier */

		jl_interrupt_check();

		if (m == 0)
			continue;
		/* next over the reach after this step; cur's outside its reach is 0 */
		memset(next + (M - reach - m), 0, sizeof(double) * (size_t) (2 * (reach + m) + 1));
		for (int64_t j = M - reach; j <= M + reach; j++)
		{
			if (cur[j] == 0.0)
				continue;
			next[j + m] += p * cur[j];
			next[j - m] += (1.0 - p) * cur[j];
		}
		reach += m;
		{
			double	   *t = cur;

			cur = next;
			next = t;
		}
	}
	free(next);
	*Mp = M;
	return cur;
}

/* delta(epsilon) = E[(1 - e^(epsilon - L))_+] over the distribution */
static double
pld_delta_of(const double *dist, int64_t M, double h, double epsilon)
{
	double		delta = 0.0;

	int64_t		from;

	/* the losses above epsilon only; epsilon within [0, M h] (finite) */
	if (!(epsilon >= 0.0))
		epsilon = 0.0;
	if (epsilon >= M * h)
		return 0.0;
	from = M + (int64_t) floor(epsilon / h);
	for (int64_t j = from; j <= 2 * M; j++)
	{
		double		l = (j - M) * h;

		if (j >= 0 && dist[j] > 0.0 && l > epsilon)
			delta += dist[j] * -expm1(epsilon - l);
	}
	return delta;
}

double
jl_pld_pure_delta(const double *eps, int n, double h, double epsilon)
{
	int64_t		M;
	double	   *dist = pld_distribution(eps, n, h, &M);
	double		d;

	if (dist == NULL)
		return NAN;
	d = pld_delta_of(dist, M, h, epsilon);
	free(dist);
	return d;
}

/*
 * The least epsilon (to bisection's precision, on the valid side) with
 * delta(epsilon) <= target, over a distribution pld_distribution made.
 */
static double
pld_epsilon(const double *dist, int64_t M, double h, double target)
{
	double		lo = 0.0,
				hi = M * h;		/* the largest loss: delta 0 beyond */

	for (int it = 0; it < 50; it++)
	{
		double		mid = 0.5 * (lo + hi);
		double		d = pld_delta_of(dist, M, h, mid);

		if (d * (1.0 + PLD_DELTA_MARGIN_REL) + PLD_DELTA_MARGIN_ABS <= target)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* which zCDP releases an RDP curve sums */
typedef enum
{
	ZCDP_NONE,
	ZCDP_ALL,
	ZCDP_WITHOUT_MU				/* those the PLD does not take */
} ZcdpShare;

/* the RDP curve of the profiles of the kinds asked for */
static void
rdp_curve(const JlProfile *p, int n, bool pure, ZcdpShare zcdp, double *curve)
{
	for (int k = 0; k < JL_RDP_ORDERS; k++)
	{
		double		c = 0.0,
					alpha = jl_rdp_order(k);

		for (int i = 0; i < n; i++)
		{
			if (pure && p[i].kind == JL_PROFILE_PURE)
				c += jl_rdp_pure(p[i].epsilon, alpha);
			else if (p[i].kind == JL_PROFILE_ZCDP &&
					 (zcdp == ZCDP_ALL || (zcdp == ZCDP_WITHOUT_MU && !jl_profile_has_mu(&p[i]))))
				c += alpha * p[i].rho;
		}
		curve[k] = c;
	}
}

/*
 * delta (with the PLD's margins) at i h of the pure releases' distribution
 * (dist, M) with the Gaussian tabulated in T: the atom at loss (j - M) h
 * reads T[i - (j - M) + M]
 */
static double
mixed_delta(const double *dist, int64_t M, const double *T, int64_t i)
{
	double		acc = 0.0;

	for (int64_t j = 0; j <= 2 * M; j++)
		if (dist[j] > 0.0)
			acc += dist[j] * T[i - j + 2 * M];
	return acc * (1.0 + PLD_DELTA_MARGIN_REL) + PLD_DELTA_MARGIN_ABS;
}

/*
 * The least multiple of h (on the valid side) at which the pure releases'
 * distribution (dist, M) with the Gaussian shift mu has delta at most
 * target: sum_j dist_j delta_mu(i h - (j - M) h) over the atoms, with
 * delta_mu rounded up, tabulated at the multiples of h it is read at.
 * Beyond top (a multiple of h past the largest pure loss, where delta_mu
 * is small) nothing is tried.  INFINITY when nothing up to top holds, or
 * out of memory.
 */
static double
pld_gauss_epsilon(const double *dist, int64_t M, double h, double mu, int64_t top,
				  double target)
{
	int64_t		lo = -1,
				hi = top,
				tn = top + 2 * M + 1;	/* m from -M to top + M */
	double	   *T = malloc(sizeof(double) * (size_t) tn);
	double		d;

	if (T == NULL)
		return INFINITY;
	for (int64_t m = 0; m < tn; m++)
	{
		if (m % 4096 == 0)
			jl_interrupt_check();
		T[m] = jl_gdp_delta(mu, (double) (m - M) * h, 1);
	}
	d = mixed_delta(dist, M, T, top);
	if (!(d <= target))
	{
		free(T);
		return INFINITY;
	}
	/* lo fails (or is -1), hi holds */
	while (hi - lo > 1)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		jl_interrupt_check();
		d = mixed_delta(dist, M, T, mid);
		if (d <= target)
			hi = mid;
		else
			lo = mid;
	}
	free(T);
	return (double) hi * h;
}

/*
 * The PLD's epsilon at delta rem for the pure releases (eps, npure), the
 * zCDP releases (if zcdp) by RDP with delta split between the two.
 * INFINITY when it cannot be had (JL_ERR_STATS when out of memory).
 */
static JlStatus
pld_with_rdp(const JlProfile *p, int n, const double *eps, int npure, bool zcdp, double rem,
			 double approx_eps, double *out)
{
	static const double splits[] = {0.5, 0.9, 0.1, 0.99, 0.01};
	int64_t		M;
	double		h = 0.0,
			   *dist;

	*out = INFINITY;
	for (int i = 0; i < npure; i++)
		h += eps[i];
	/* a grid of normal steps over a finite sum, else no PLD */
	h = h / PLD_STEPS;
	if (!(isfinite(h) && h >= DBL_MIN))
		return JL_OK;
	dist = pld_distribution(eps, npure, h, &M);
	if (dist == NULL)
		return JL_ERR_STATS;
	if (!zcdp)
		*out = (pld_epsilon(dist, M, h, rem) + approx_eps) * (1.0 + ROUNDING_MARGIN);
	else
	{
		double		zcurve[JL_RDP_ORDERS];

		rdp_curve(p, n, false, ZCDP_ALL, zcurve);
		for (size_t s = 0; s < sizeof(splits) / sizeof(splits[0]); s++)
		{
			double		e = (pld_epsilon(dist, M, h, splits[s] * rem) +
							 jl_rdp_to_epsilon(zcurve, (1.0 - splits[s]) * rem) + approx_eps) *
				(1.0 + ROUNDING_MARGIN);

			if (e < *out)
				*out = e;
		}
	}
	free(dist);
	return JL_OK;
}

/*
 * The PLD's epsilon at delta rem for the pure releases (eps, npure) and the
 * Gaussian releases with a dominating shift (their composed mu, the sum of
 * their atoms d0), the other zCDP releases (if any) by RDP with delta split
 * between the two, the approximate ones added (approx_eps).  INFINITY when
 * it cannot be had (JL_ERR_STATS when out of memory).
 */
static JlStatus
pld_with_gaussians(const JlProfile *p, int n, const double *eps, int npure, double mu,
				   double d0, bool rest, double rem, double approx_eps, double *out)
{
	static const double all[] = {1.0};
	static const double splits[] = {0.5, 0.9, 0.1, 0.99, 0.01};
	const double *sp = rest ? splits : all;
	int			nsp = rest ? (int) (sizeof(splits) / sizeof(splits[0])) : 1;
	double		rcurve[JL_RDP_ORDERS],
				h = 0.0,
			   *dist = NULL,
				tail = 0.0;
	int64_t		M = 0,
				top = 0;

	*out = INFINITY;
	if (rest)
		rdp_curve(p, n, false, ZCDP_WITHOUT_MU, rcurve);
	if (npure > 0)
	{
		/*
		 * One grid over the pure releases' sum and the Gaussian's reach: past
		 * tail, delta_mu is at most a billionth of the least target tried
		 */
		tail = jl_gdp_epsilon(mu, rem * sp[nsp - 1] * 1e-9);
		for (int i = 0; i < npure; i++)
			h += eps[i];
		h = (h + tail) / PLD_STEPS;
		if (!(isfinite(h) && h >= DBL_MIN))
			return JL_OK;
		dist = pld_distribution(eps, npure, h, &M);
		if (dist == NULL)
			return JL_ERR_STATS;
		top = M + (int64_t) ceil(tail / h);
	}
	for (int s = 0; s < nsp; s++)
	{
		double		t = sp[s] * rem * (1.0 - ROUNDING_MARGIN) - d0,
					e;

		if (!(t > 0.0))
			continue;
		e = npure == 0 ? jl_gdp_epsilon(mu, t * (1.0 - ROUNDING_MARGIN)) :
			pld_gauss_epsilon(dist, M, h, mu, top, t);
		if (rest)
			e += jl_rdp_to_epsilon(rcurve, (1.0 - sp[s]) * rem);
		e = (e + approx_eps) * (1.0 + ROUNDING_MARGIN);
		if (e < *out)
			*out = e;
	}
	free(dist);
	return JL_OK;
}

JlStatus
jl_compose(const JlProfile *p, int n, double delta, JlComposition *out)
{
	double		approx_eps = 0.0,
				approx_delta = 0.0,
				rem;
	int			npure = 0,
				nzcdp = 0,
				ngauss = 0;
	double		mu2 = 0.0,
				d0 = 0.0;
	double		curve[JL_RDP_ORDERS];
	double	   *pure_eps;

	memset(out, 0, sizeof(*out));
	if (n < 0 || !(delta >= 0.0 && delta < 1.0))
		return JL_ERR_DELTA;
	for (int i = 0; i < n; i++)
	{
		if (!jl_profile_valid(&p[i]))
			return JL_ERR_EPSILON;
		out->basic_epsilon += p[i].epsilon;
		out->basic_delta += p[i].delta;
		if (p[i].kind == JL_PROFILE_APPROX)
		{
			approx_eps += p[i].epsilon;
			approx_delta += p[i].delta;
		}
		else if (p[i].kind == JL_PROFILE_PURE)
			npure++;
		else
		{
			nzcdp++;
			if (jl_profile_has_mu(&p[i]))
			{
				ngauss++;
				mu2 += p[i].mu * p[i].mu;
				d0 += p[i].delta * JL_GDP_DELTA0_SHARE;
			}
		}
	}
	out->rdp_epsilon = out->pld_epsilon = INFINITY;
	out->epsilon = out->basic_epsilon;
	out->delta = out->basic_delta;
	out->method = "basic";

	/* the sums' rounding: the approximate releases' epsilon up, delta's target down */
	approx_eps *= 1.0 + ROUNDING_MARGIN;
	rem = (delta - approx_delta * (1.0 + ROUNDING_MARGIN)) * (1.0 - ROUNDING_MARGIN);
	if (delta > 0.0 && rem > 0.0 && npure + nzcdp > 0 && isfinite(out->basic_epsilon))
	{
		rdp_curve(p, n, true, ZCDP_ALL, curve);
		out->rdp_epsilon = (jl_rdp_to_epsilon(curve, rem) + approx_eps) * (1.0 + ROUNDING_MARGIN);
		if (npure <= PLD_MAX_RELEASES && (npure > 0 || ngauss > 0))
		{
			int			k = 0;
			double		e;
			JlStatus	st;

			pure_eps = malloc(sizeof(double) * (npure + 1));
			if (pure_eps == NULL)
				return JL_ERR_STATS;
			for (int i = 0; i < n; i++)
				if (p[i].kind == JL_PROFILE_PURE)
					pure_eps[k++] = p[i].epsilon;
			/* the zCDP releases by RDP (the pure ones alone when none is zCDP) */
			if (npure > 0)
			{
				st = pld_with_rdp(p, n, pure_eps, npure, nzcdp > 0, rem, approx_eps, &e);
				if (st != JL_OK)
				{
					free(pure_eps);
					return st;
				}
				out->pld_epsilon = fmin(out->pld_epsilon, e);
			}
			/* the Gaussian releases with a dominating shift by their PLD */
			if (ngauss > 0)
			{
				st = pld_with_gaussians(p, n, pure_eps, npure,
										sqrt(mu2) * (1.0 + ROUNDING_MARGIN),
										d0 * (1.0 + ROUNDING_MARGIN), nzcdp > ngauss,
										rem, approx_eps, &e);
				if (st != JL_OK)
				{
					free(pure_eps);
					return st;
				}
				out->pld_epsilon = fmin(out->pld_epsilon, e);
			}
			free(pure_eps);
		}
	}

	/*
	 * The least of the methods valid at delta; basic stands at its own
	 * delta, and a method valid at delta wins when basic's delta is above it
	 */
	if (out->rdp_epsilon < out->epsilon || (out->basic_delta > delta && isfinite(out->rdp_epsilon)))
	{
		out->epsilon = out->rdp_epsilon;
		out->delta = delta;
		out->method = "rdp";
	}
	if (out->pld_epsilon < out->epsilon)
	{
		out->epsilon = out->pld_epsilon;
		out->delta = delta;
		out->method = "pld";
	}
	return JL_OK;
}
