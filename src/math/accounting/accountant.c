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
 * The releases known only by their (epsilon, delta) join every method by
 * basic composition (their deltas taken off the target first).
 */
#include "math/accounting/accountant.h"
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
			return isfinite(p->rho) && p->rho >= 0.0;
		case JL_PROFILE_APPROX:
			return true;
	}
	return false;
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

/* the RDP curve of the profiles of the kinds asked for */
static void
rdp_curve(const JlProfile *p, int n, bool pure, bool zcdp, double *curve)
{
	for (int k = 0; k < JL_RDP_ORDERS; k++)
	{
		double		c = 0.0,
					alpha = jl_rdp_order(k);

		for (int i = 0; i < n; i++)
		{
			if (pure && p[i].kind == JL_PROFILE_PURE)
				c += jl_rdp_pure(p[i].epsilon, alpha);
			else if (zcdp && p[i].kind == JL_PROFILE_ZCDP)
				c += alpha * p[i].rho;
		}
		curve[k] = c;
	}
}

JlStatus
jl_compose(const JlProfile *p, int n, double delta, JlComposition *out)
{
	double		approx_eps = 0.0,
				approx_delta = 0.0,
				rem;
	int			npure = 0,
				nzcdp = 0;
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
			nzcdp++;
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
		rdp_curve(p, n, true, true, curve);
		out->rdp_epsilon = (jl_rdp_to_epsilon(curve, rem) + approx_eps) * (1.0 + ROUNDING_MARGIN);
		if (npure > 0 && npure <= PLD_MAX_RELEASES)
		{
			static const double splits[] = {0.5, 0.9, 0.1, 0.99, 0.01};
			int			k = 0;

			int64_t		M;
			double		h = 0.0,
					   *dist;

			pure_eps = malloc(sizeof(double) * npure);
			if (pure_eps == NULL)
				return JL_ERR_STATS;
			for (int i = 0; i < n; i++)
				if (p[i].kind == JL_PROFILE_PURE)
				{
					pure_eps[k++] = p[i].epsilon;
					h += p[i].epsilon;
				}
			/* a grid of normal steps over a finite sum, else no PLD */
			h = h / PLD_STEPS;
			if (!(isfinite(h) && h >= DBL_MIN))
			{
				free(pure_eps);
				goto chosen;
			}
			dist = pld_distribution(pure_eps, npure, h, &M);
			if (dist == NULL)
			{
				free(pure_eps);
				return JL_ERR_STATS;
			}
			if (nzcdp == 0)
				out->pld_epsilon = (pld_epsilon(dist, M, h, rem) + approx_eps) * (1.0 + ROUNDING_MARGIN);
			else
			{
				double		zcurve[JL_RDP_ORDERS];

				rdp_curve(p, n, false, true, zcurve);
				for (size_t s = 0; s < sizeof(splits) / sizeof(splits[0]); s++)
				{
					double		e = (pld_epsilon(dist, M, h, splits[s] * rem) +
								 jl_rdp_to_epsilon(zcurve, (1.0 - splits[s]) * rem) + approx_eps) *
						(1.0 + ROUNDING_MARGIN);

					if (e < out->pld_epsilon)
						out->pld_epsilon = e;
				}
			}
			free(dist);
			free(pure_eps);
		}
	}

chosen:

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
