/*
 * suggest_k.c - the distortion-only bound and the variance-minimizing k.
 */
#include "math/estimate/suggest_k.h"
#include "math/estimate/advise.h"

#include <math.h>

double
jl_min_dim(int64_t n, double eps)
{
	double		denominator = (eps * eps / 2.0) - (pow(eps, 3.0) / 3.0);

	return trunc(4.0 * log((double) n) / denominator);
}

double
jl_distortion_at(int64_t n, int k)
{
	double		target = 4.0 * log((double) n) / k;
	double		lo = 0.0,
				hi = 1.0;
	int			i;

	/* eps^2/2 - eps^3/3 increases on (0, 1) up to 1/6 */
	if (!(target < 1.0 / 6.0))
		return NAN;
	for (i = 0; i < 100; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (mid * mid / 2.0 - mid * mid * mid / 3.0 < target)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

double
jl_dist_variance(double r2, int k, double s2, bool gaussian)
{
	return 2.0 * r2 * r2 / k + 8.0 * s2 * r2 +
		(gaussian ? 8.0 : 14.0) * k * s2 * s2;
}

double
jl_dist_stddev(double r2, int k, double s2, bool gaussian)
{
	/* f = 2/k: the distortion of a Gaussian P, as jl_dist_variance */
	return jl_advise_dist_stddev(r2, k, s2, NAN, gaussian, false);
}

typedef struct Search
{
	double		r2[JL_SUGGEST_GRID];
	int			ngrid;
	bool		gaussian;
	JlNoiseVarianceFn fn;
	void	   *ctx;
	int			n;				/* evaluated so far */
	int			k[JL_SUGGEST_MAX_EVALS];
	double		s2[JL_SUGGEST_MAX_EVALS];	/* NaN: infeasible */
	double		sdstar[JL_SUGGEST_GRID];	/* best stddev at each r2 */
} Search;

/* the noise variance at k, computed once */
static double
eval(Search *s, int k)
{
	int			i;
	double		v;

	for (i = 0; i < s->n; i++)
		if (s->k[i] == k)
			return s->s2[i];
	if (s->n >= JL_SUGGEST_MAX_EVALS)
		return NAN;
	v = s->fn(s->ctx, k);
	if (!(isfinite(v) && v >= 0.0))
		v = NAN;
	s->k[s->n] = k;
	s->s2[s->n] = v;
	s->n++;
	return v;
}

static void
update_sdstar(Search *s)
{
	int			g,
				i;

	for (g = 0; g < s->ngrid; g++)
	{
		s->sdstar[g] = INFINITY;
		for (i = 0; i < s->n; i++)
			if (!isnan(s->s2[i]))
				s->sdstar[g] = fmin(s->sdstar[g],
									jl_dist_stddev(s->r2[g], s->k[i], s->s2[i],
												   s->gaussian));
	}
}

/* the objective at k (evaluating it if need be); INFINITY if infeasible */
static double
objective(Search *s, int k)
{
	double		s2 = eval(s, k);
	double		worst = 0.0;
	int			g;

	if (isnan(s2))
		return INFINITY;
	/* stddevs, never variances: their squares overflow first */
	if (s->ngrid == 1)
		return jl_dist_stddev(s->r2[0], k, s2, s->gaussian) / s->r2[0];
	for (g = 0; g < s->ngrid; g++)
		worst = fmax(worst, jl_dist_stddev(s->r2[g], k, s2, s->gaussian) /
					 s->sdstar[g]);
	return worst;
}

static int
best_for(const Search *s, double r2)
{
	double		best = INFINITY;
	int			bk = 0,
				i;

	for (i = 0; i < s->n; i++)
	{
		double		v;

		if (isnan(s->s2[i]))
			continue;
		v = jl_dist_stddev(r2, s->k[i], s->s2[i], s->gaussian);
		if (v < best || (v == best && s->k[i] < bk))
		{
			best = v;
			bk = s->k[i];
		}
	}
	return bk;
}

/* the evaluated k of the smallest objective (*bestj), the lowest on ties */
static int
best_evaluated(Search *s, double *bestj)
{
	int			kb = 0,
				i;

	*bestj = INFINITY;
	for (i = 0; i < s->n; i++)
	{
		double		j = objective(s, s->k[i]);

		if (j < *bestj || (j == *bestj && s->k[i] < kb))
		{
			*bestj = j;
			kb = s->k[i];
		}
	}
	return kb;
}

bool
jl_suggest_k_search(double lo, double hi, bool gaussian, int kmax,
					JlNoiseVarianceFn fn, void *ctx, JlSuggest *out)
{
	Search		s;
	double		c = gaussian ? 8.0 : 14.0;
	double		best_hi = INFINITY;
	double		bestj;
	int			k,
				g,
				i,
				kl,
				kr,
				kb;

	s.gaussian = gaussian;
	s.fn = fn;
	s.ctx = ctx;
	s.n = 0;
	s.ngrid = (lo == hi) ? 1 : JL_SUGGEST_GRID;
	for (g = 0; g < s.ngrid; g++)
		s.r2[g] = (s.ngrid == 1) ? lo :
			lo * pow(hi / lo, (double) g / (s.ngrid - 1));
	if (s.ngrid > 1)
		s.r2[s.ngrid - 1] = hi;

	/* coarse: a geometric grid until the noise term alone is too large */
	out->at_limit = false;
	for (k = 1;; k = (int) fmax(k + 1, round(k * 1.25)))
	{
		double		s2;

		if (k >= kmax)
		{
			k = kmax;
			s2 = eval(&s, k);
			out->at_limit = true;
			break;
		}
		s2 = eval(&s, k);
		if (isnan(s2))
			continue;
		/* the noise term's stddev alone is twice the best stddev at hi */
		best_hi = fmin(best_hi, jl_dist_stddev(hi, k, s2, gaussian));
		if (sqrt(c * k) * s2 > 2.0 * best_hi)
			break;
	}
	update_sdstar(&s);

	/* the best grid k and its grid neighbours */
	kb = best_evaluated(&s, &bestj);
	if (kb == 0)
		return false;
	kl = 1;
	kr = kmax;
	for (i = 0; i < s.n; i++)
	{
		if (s.k[i] < kb && s.k[i] > kl)
			kl = s.k[i];
		if (s.k[i] > kb && s.k[i] < kr)
			kr = s.k[i];
	}
	if (kr < kb)
		kr = kb;

	/* ternary search down to a few integers, then all of them */
	while (kr - kl > 6 && s.n < JL_SUGGEST_MAX_EVALS - 10)
	{
		int			m1 = kl + (kr - kl) / 3;
		int			m2 = kr - (kr - kl) / 3;

		if (objective(&s, m1) <= objective(&s, m2))
			kr = m2;
		else
			kl = m1;
	}
	for (k = kl; k <= kr; k++)
		(void) objective(&s, k);

	/* the best of everything evaluated, against the final references */
	update_sdstar(&s);
	kb = best_evaluated(&s, &bestj);
	out->k = kb;
	out->noise_variance = eval(&s, kb);
	out->objective = bestj;
	out->evaluations = s.n;
	out->at_limit = out->at_limit && kb == kmax;
	out->k_lo_best = best_for(&s, lo);
	out->k_hi_best = best_for(&s, hi);
	return true;
}
