/*
 * advise.c - predicted errors of release options and their ranking.
 */
#include "math/estimate/advise.h"
#include "math/projection/sensitivity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double
jl_advise_dist_variance(double r2, int k, double s2, double f, bool gaussian,
						bool identity)
{
	if (identity)
		f = 0.0;
	else if (isnan(f))
		f = 2.0 / k;
	return f * r2 * r2 + 8.0 * s2 * r2 + (gaussian ? 8.0 : 14.0) * k * s2 * s2;
}

double
jl_advise_dist_stddev(double r2, int k, double s2, double f, bool gaussian,
					  bool identity)
{
	double		scale = fmax(r2, s2);

	if (!(scale > 0.0 && isfinite(scale)))
		return sqrt(jl_advise_dist_variance(r2, k, s2, f, gaussian, identity));
	return scale * sqrt(jl_advise_dist_variance(r2 / scale, k, s2 / scale, f,
												gaussian, identity));
}

JlPShape
jl_p_shape_unknown(void)
{
	JlPShape	sh = {NAN, NAN, NAN};

	return sh;
}

JlPShape
jl_p_shape(const double *P, int64_t d, int k)
{
	double	   *G = jl_gram(P, d, k);
	double		tr = 0.0,
				tr2 = 0.0,
				dd = (double) d;
	JlPShape	sh = jl_p_shape_unknown();
	int			i;

	if (G == NULL)
		return sh;
	/* tr(A) = tr(P^T P), tr(A^2) = |P^T P|_F^2 */
	for (i = 0; i < k; i++)
		tr += G[i * k + i];
	for (i = 0; i < k * k; i++)
		tr2 += G[i] * G[i];
	free(G);
	sh.f = (2.0 * tr2 + tr * tr) / (dd * (dd + 2.0)) - 2.0 * tr / dd + 1.0;
	sh.scale = tr / dd;
	sh.spread = tr > 0.0 ? tr2 / tr : NAN;
	return sh;
}

double
jl_log_normal_tail(double c)
{
	double		c2;

	if (c < 37.0)
		return log(0.5 * erfc(c / M_SQRT2));
	/* Mills ratio: Phi(-c) = phi(c)/c (1 - 1/c^2 + 3/c^4 - 15/c^6 ...) */
	c2 = 1.0 / (c * c);
	return -0.5 * c * c - log(c * sqrt(2.0 * M_PI)) +
		log1p(c2 * (-1.0 + c2 * (3.0 + c2 * (-15.0 + c2 * (105.0 - 945.0 * c2)))));
}

/* log of the continued fraction of I_x(a, b) (Lentz), x < (a+1)/(a+b+2) */
static double
log_beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double		c = 1.0,
				d = 1.0 - (a + b) * x / (a + 1.0),
				h;
	int			m;

	d = 1.0 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (m = 1; m <= 100000; m++)
	{
		double		aa,
					del;
		int			m2 = 2 * m;

		aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		d = 1.0 + aa * d;
		c = 1.0 + aa / c;
		d = 1.0 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + aa * d;
		c = 1.0 + aa / c;
		d = 1.0 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < 1e-15)
			break;
	}
	return log(h);
}

/*
 * log I_x(a, b), the regularized incomplete beta function, with log x and
 * log(1 - x) given (each accurate where x or 1 - x is tiny).
 */
static double
log_betai(double a, double b, double x, double lx, double l1x)
{
	double		front = a * lx + b * l1x - (lgamma(a) + lgamma(b) - lgamma(a + b));

	if (x < (a + 1.0) / (a + b + 2.0))
		return front - log(a) + log_beta_cf(a, b, x);
	return log1p(-exp(front - log(b) + log_beta_cf(b, a, 1.0 - x)));
}

double
jl_log_t_tail(double c, double nu)
{
	double		c2 = c * c;

	if (c < 0.0)
		return log1p(-exp(jl_log_t_tail(-c, nu)));
	if (c == 0.0)
		return log(0.5);
	/* P(T > c) = I_x(nu/2, 1/2) / 2 with x = nu / (nu + c^2) */
	return log(0.5) + log_betai(0.5 * nu, 0.5, nu / (nu + c2),
								log(nu) - log(nu + c2), log(c2) - log(nu + c2));
}

/*
 * The margin over its standard deviation of a row assigned between two
 * centres r2 apart in k coordinates with sigma2 of spread per coordinate.
 * Centres found by k-means (n finite) start as single rows (its seeds):
 * with x = mu1 + e, seeds mu1 + u and mu2 + v (e, u, v of variance sigma2
 * per coordinate), |x - seed2|^2 - |x - seed1|^2 has mean r2 and variance
 * 8 r2 sigma2 + 12 k sigma2^2, that is 4 r2 sigma2 (2 + 3 k sigma2 / r2).
 * Known centres (n infinite): 4 r2 sigma2.  Decreasing in sigma2 and k.
 */
static double
clustering_z(const JlAdviseProblem *p, double r2, int k, double sigma2)
{
	double		z = sqrt(r2) / (2.0 * sqrt(sigma2));

	if (isfinite(p->n))
		z /= sqrt(2.0 + 3.0 * k * (sigma2 / r2));
	return z;
}

/*
 * log of the misclassification probability (advise.h).  With the realized
 * P, a centre difference of squared length r2 has mean squared length
 * r2 tr(G)/d after the projection (the noise was calibrated to this P, so
 * a P with short rows has less noise and less signal too), and isotropic
 * clusters spread along it by tr(G^2)/tr(G) per unit of its squared length.
 */
static double
clustering_score(const JlAdviseProblem *p, const JlAdviseCandidate *c,
				 double r2, int k, double s2, const JlPShape *shape)
{
	double		rho = c->identity ? 1.0 : (p->d + k + c->m4 - 2.0) / k,
				scale = 1.0,
				z;

	if (!c->identity && shape != NULL)
	{
		if (isfinite(shape->spread) && shape->spread > 0.0)
			rho = shape->spread;
		if (isfinite(shape->scale) && shape->scale > 0.0)
			scale = shape->scale;
	}
	z = clustering_z(p, r2 * scale, k, p->cluster_var * rho + s2);
	if (c->identity)
		return jl_log_normal_tail(z);
	return jl_log_t_tail(z, k);
}

/*
 * The realized P's mean scale of squared lengths, tr(G)/d (1 without a
 * projection, or where G was not computed: its mean over keys).
 */
static double
realized_scale(const JlAdviseCandidate *c, const JlPShape *shape)
{
	if (!c->identity && shape != NULL && isfinite(shape->scale) && shape->scale > 0.0)
		return shape->scale;
	return 1.0;
}

/*
 * The variance of a recovered squared distance at r2 around its mean
 * scale r2, for a search that only compares recoveries: the spread of
 * |x P|^2 / |x|^2 over directions, f - (scale - 1)^2 (f the mean squared
 * distortion, which also holds the common shrinkage scale - 1 that no
 * ranking sees), the cross term 8 s2 |x P|^2 at its mean and the noise's
 * c k s2^2; computed on (r2, s2) scaled by their maximum (homogeneous of
 * degree 2), as jl_advise_dist_stddev.
 */
static double
ranking_stddev(double r2, int k, double s2, double f, double scale, bool gaussian)
{
	double		m = fmax(r2, s2),
				spread = fmax(f - (scale - 1.0) * (scale - 1.0), 0.0),
				cn = gaussian ? 8.0 : 14.0,
				x,
				y;

	if (!(m > 0.0 && isfinite(m)))
		return sqrt(spread * r2 * r2 + 8.0 * s2 * scale * r2 + cn * k * s2 * s2);
	x = r2 / m;
	y = s2 / m;
	return m * sqrt(spread * x * x + 8.0 * y * scale * x + cn * k * y * y);
}

/*
 * log of the probability that a non-neighbour at hi is recovered nearer
 * than a neighbour at lo (advise.h): the difference of the two recoveries
 * has mean scale (hi - lo), the realized P's (a P that shrinks every
 * distance shrinks both, and its noise, calibrated to it, with them), and
 * the variances of ranking_stddev.
 */
static double
neighbors_score(const JlAdviseProblem *p, const JlAdviseCandidate *c, int k,
				double s2, const JlPShape *shape)
{
	double		scale = realized_scale(c, shape),
				f = c->identity ? 0.0 :
		(shape != NULL && !isnan(shape->f)) ? shape->f : 2.0 / k,
				sd = hypot(ranking_stddev(p->lo, k, s2, f, scale, c->gaussian),
						   ranking_stddev(p->hi, k, s2, f, scale, c->gaussian));

	return jl_log_normal_tail(scale * (p->hi - p->lo) / sd);
}

double
jl_advise_score(const JlAdviseProblem *p, const JlAdviseCandidate *c,
				double r2, int k, double s2, const JlPShape *shape)
{
	double		f = shape != NULL ? shape->f : NAN;

	if (p->goal == JL_GOAL_CLUSTERING)
		return clustering_score(p, c, r2, k, s2, shape);
	if (p->goal == JL_GOAL_NEIGHBORS)
		return neighbors_score(p, c, k, s2, shape);
	return 0.5 * log(jl_advise_dist_variance(r2, k, s2, f, c->gaussian, c->identity));
}

double
jl_advise_error(double score)
{
	return exp(score);
}

bool
jl_advise_useful(const JlAdviseProblem *p, double error)
{
	if (isnan(error))
		return false;
	if (p->goal == JL_GOAL_CLUSTERING || p->goal == JL_GOAL_NEIGHBORS)
		return error < JL_ADVISE_USEFUL_MISCLASSIFICATION;
	return error < p->lo;
}

double
jl_advise_noise_free_error(const JlAdviseProblem *p)
{
	JlAdviseCandidate c;

	if (p->goal != JL_GOAL_CLUSTERING)
		return 0.0;
	memset(&c, 0, sizeof(c));
	c.identity = true;
	c.m4 = 1.0;
	return jl_advise_error(jl_advise_score(p, &c, p->lo, (int) (p->d > INT32_MAX ? INT32_MAX : p->d),
										   0.0, NULL));
}

/*
 * A lower bound of the score at hi from the noise alone, for the search to
 * stop at; it grows with k where s2 does, so no larger k can do better.
 * Distance: the noise term.  Neighbors: the two distances' noise terms.
 * Clustering: without the spread of the clusters
 * and with the normal tail, below the t tail of every k (Jensen: Phi(-c
 * sqrt(q)) is convex in q and E chi2_k/k = 1), at the signal of the
 * realized P.
 */
static double
noise_score(const JlAdviseProblem *p, const JlAdviseCandidate *c, int k,
			double s2, const JlPShape *shape)
{
	double		scale = (!c->identity && isfinite(shape->scale)) ? shape->scale : 1.0;

	if (p->goal == JL_GOAL_CLUSTERING)
		return jl_log_normal_tail(clustering_z(p, p->hi * scale, k, s2));
	/* the noise terms alone: v(lo) + v(hi) >= 2 c k s2^2 */
	if (p->goal == JL_GOAL_NEIGHBORS)
		return jl_log_normal_tail(scale * (p->hi - p->lo) /
								  (s2 * sqrt(2.0 * (c->gaussian ? 8.0 : 14.0) * k)));
	return 0.5 * log((c->gaussian ? 8.0 : 14.0) * k * s2 * s2);
}

/*
 * Whether the grid stops at k: the noise alone makes the error twice the
 * best so far (score ref), so no larger k does better.  For goal
 * neighbors, whose probability cannot reach twice a best near chance (and
 * whose noise bound grows slowly with k: the search ran to k = d, 20 s at
 * d = 2000), also when the best so far is useless and the noise alone
 * makes the error JL_ADVISE_USEFUL_MISCLASSIFICATION or more: every larger
 * k is then useless, and only the order of useless options is lost (the
 * usefulness and the epsilon that would serve are not: they are decided
 * below that level).
 */
static bool
noise_stops(const JlAdviseProblem *p, const JlAdviseCandidate *c, int k, double s2,
			const JlPShape *shape, double ref)
{
	double		ns = noise_score(p, c, k, s2, shape);

	if (ns > ref + M_LN2)
		return true;
	return p->goal == JL_GOAL_NEIGHBORS && ref >= log(JL_ADVISE_USEFUL_MISCLASSIFICATION) &&
		ns >= log(JL_ADVISE_USEFUL_MISCLASSIFICATION);
}

/* The squared distances probed: lo alone, or JL_ADVISE_GRID log-spaced. */
static int
probes(const JlAdviseProblem *p, double *r2)
{
	int			g,
				n = (p->lo == p->hi || p->goal == JL_GOAL_NEIGHBORS) ? 1 : JL_ADVISE_GRID;

	for (g = 0; g < n; g++)
		r2[g] = (n == 1) ? p->lo : p->lo * pow(p->hi / p->lo, (double) g / (n - 1));
	r2[n - 1] = p->hi;
	return n;
}

/* lower each ref[g] to the best score of c's evaluations */
static void
lower_refs(const JlAdviseProblem *p, const JlAdviseCandidate *c,
		   const double *r2, int ng, double *ref)
{
	int			g,
				i;

	for (i = 0; i < c->n; i++)
		if (!isnan(c->s2s[i]))
			for (g = 0; g < ng; g++)
				ref[g] = fmin(ref[g], jl_advise_score(p, c, r2[g], c->ks[i], c->s2s[i],
													  &c->shapes[i]));
}

/* The objective of c at (k, s2) against ref: its score, or worst log ratio. */
static double
objective(const JlAdviseProblem *p, const JlAdviseCandidate *c,
		  const double *r2, int ng, const double *ref, int i)
{
	double		worst = -INFINITY;
	int			g;

	if (isnan(c->s2s[i]))
		return INFINITY;
	for (g = 0; g < ng; g++)
		worst = fmax(worst, jl_advise_score(p, c, r2[g], c->ks[i], c->s2s[i], &c->shapes[i]) -
					 (ng == 1 ? 0.0 : ref[g]));
	return worst;
}

typedef struct Search
{
	const JlAdviseProblem *p;
	JlAdviseCandidate *c;
	JlAdviseFn	fn;
	void	   *ctx;
	double		r2[JL_ADVISE_GRID];
	int			ng;
	double		ref[JL_ADVISE_GRID];
} Search;

/*
 * The index of the evaluation at k, evaluated once (-1: no room left); the
 * references follow every new evaluation.
 */
static int
eval_at(Search *s, int k)
{
	JlAdviseCandidate *c = s->c;
	double		v;
	JlPShape	sh = jl_p_shape_unknown();
	int			i,
				g;

	for (i = 0; i < c->n; i++)
		if (c->ks[i] == k)
			return i;
	if (c->n >= JL_ADVISE_MAX_EVALS)
		return -1;
	v = s->fn(s->ctx, k, &sh);
	if (!(isfinite(v) && v >= 0.0))
		v = NAN;
	if (!(isfinite(sh.f) && sh.f >= 0.0))
		sh.f = NAN;
	if (!(isfinite(sh.scale) && sh.scale > 0.0))
		sh.scale = NAN;
	if (!(isfinite(sh.spread) && sh.spread > 0.0))
		sh.spread = NAN;
	c->ks[c->n] = k;
	c->s2s[c->n] = v;
	c->shapes[c->n] = sh;
	if (!isnan(v))
		for (g = 0; g < s->ng; g++)
			s->ref[g] = fmin(s->ref[g], jl_advise_score(s->p, c, s->r2[g], k, v,
														&c->shapes[c->n]));
	return c->n++;
}

static double
s2_at(Search *s, int k)
{
	int			i = eval_at(s, k);

	return i < 0 ? NAN : s->c->s2s[i];
}

static double
objective_at(Search *s, int k)
{
	int			i = eval_at(s, k);

	return i < 0 ? INFINITY : objective(s->p, s->c, s->r2, s->ng, s->ref, i);
}

/* The evaluated k of the smallest objective, the smallest k on ties; 0: none */
static int
best_k(const JlAdviseProblem *p, const JlAdviseCandidate *c, const double *r2,
	   int ng, const double *ref, double *best)
{
	int			kb = 0,
				i;

	*best = INFINITY;
	for (i = 0; i < c->n; i++)
	{
		double		j = objective(p, c, r2, ng, ref, i);

		if (j < *best || (j == *best && j < INFINITY && c->ks[i] < kb))
		{
			*best = j;
			kb = c->ks[i];
		}
	}
	return kb;
}

void
jl_advise_fixed(JlAdviseCandidate *c, int k, double s2)
{
	c->n = 1;
	c->ks[0] = k;
	c->s2s[0] = (isfinite(s2) && s2 >= 0.0) ? s2 : NAN;
	c->shapes[0].f = 0.0;
	c->shapes[0].scale = 1.0;
	c->shapes[0].spread = 1.0;
	c->at_limit = false;
}

void
jl_advise_search(const JlAdviseProblem *p, JlAdviseCandidate *c, int kmax,
				 JlAdviseFn fn, void *ctx,
				 const JlAdviseCandidate *others, int nothers)
{
	Search		s = {.p = p, .c = c, .fn = fn, .ctx = ctx};
	double		best;
	int			k,
				g,
				i,
				kb,
				kl,
				kr;

	c->n = 0;
	c->at_limit = false;
	s.ng = probes(p, s.r2);
	for (g = 0; g < s.ng; g++)
		s.ref[g] = INFINITY;
	for (i = 0; i < nothers; i++)
		lower_refs(p, &others[i], s.r2, s.ng, s.ref);

	/* a geometric grid, until the noise alone is too large */
	for (k = 1;; k = (int) fmax(k + 1, round(k * 1.25)))
	{
		if (k >= kmax)
		{
			(void) s2_at(&s, kmax);
			c->at_limit = true;
			break;
		}
		i = eval_at(&s, k);
		if (i >= 0 && !isnan(c->s2s[i]) && noise_stops(p, c, k, c->s2s[i], &c->shapes[i],
														 s.ref[s.ng - 1]))
			break;
	}

	/* between the grid neighbours of the best grid k */
	kb = best_k(p, c, s.r2, s.ng, s.ref, &best);
	if (kb == 0)
		return;
	kl = 1;
	kr = kb;
	for (i = 0; i < c->n; i++)
	{
		if (c->ks[i] < kb && c->ks[i] > kl)
			kl = c->ks[i];
		if (c->ks[i] > kb && (kr == kb || c->ks[i] < kr))
			kr = c->ks[i];
	}
	while (kr - kl > 6 && c->n < JL_ADVISE_MAX_EVALS - 10)
	{
		int			m1 = kl + (kr - kl) / 3,
					m2 = kr - (kr - kl) / 3;

		if (objective_at(&s, m1) <= objective_at(&s, m2))
			kr = m2;
		else
			kl = m1;
	}
	for (k = kl; k <= kr; k++)
		(void) s2_at(&s, k);
	c->at_limit = c->at_limit && best_k(p, c, s.r2, s.ng, s.ref, &best) == kmax;
}

/* c is ranked before b */
static bool
before(const JlAdviseCandidate *c, const JlAdviseCandidate *b)
{
	return c->objective < b->objective ||
		(c->objective == b->objective && c->k < b->k);
}

int
jl_advise_rank(const JlAdviseProblem *p, JlAdviseCandidate *cs, int n)
{
	double		r2[JL_ADVISE_GRID],
				ref[JL_ADVISE_GRID];
	int			ng = probes(p, r2),
				g,
				i,
				j,
				best = -1;

	for (g = 0; g < ng; g++)
		ref[g] = INFINITY;
	for (i = 0; i < n; i++)
		lower_refs(p, &cs[i], r2, ng, ref);
	for (i = 0; i < n; i++)
	{
		JlAdviseCandidate *c = &cs[i];
		int			kb = best_k(p, c, r2, ng, ref, &c->objective);

		c->found = kb > 0;
		c->rank = 0;
		c->k = kb;
		c->noise_variance = NAN;
		c->score = c->score_hi = c->relative = NAN;
		if (!c->found)
			continue;
		for (j = 0; j < c->n; j++)
			if (c->ks[j] == kb)
			{
				c->noise_variance = c->s2s[j];
				c->shape = c->shapes[j];
				c->distortion = c->identity ? 0.0 :
					isnan(c->shapes[j].f) ? 2.0 / kb : c->shapes[j].f;
			}
		c->score = jl_advise_score(p, c, p->lo, kb, c->noise_variance, &c->shape);
		c->score_hi = jl_advise_score(p, c, p->hi, kb, c->noise_variance, &c->shape);
		if (best < 0 || before(c, &cs[best]))
			best = i;
	}
	for (i = 0; i < n; i++)
	{
		JlAdviseCandidate *c = &cs[i];

		if (!c->found)
			continue;
		c->rank = 1;
		for (j = 0; j < n; j++)
			if (j != i && cs[j].found &&
				(before(&cs[j], c) || (j < i && !before(c, &cs[j]))))
				c->rank++;
		/* equal objectives (also two errors of 0, log -inf) are a ratio of 1 */
		c->relative = ng > 1 ? exp(c->objective) :
			c->objective == cs[best].objective ? 1.0 :
			exp(c->objective - cs[best].objective);
	}
	return best;
}

double
jl_advise_d_needed(double r2, int k, double s2, double f, double s2_identity,
				   bool gaussian)
{
	double		cn = gaussian ? 8.0 : 14.0;

	return (f * r2 * r2 + 8.0 * r2 * (s2 - s2_identity) + cn * k * s2 * s2) /
		(cn * s2_identity * s2_identity);
}

double
jl_advise_kmeans_score(const JlAdviseProblem *p, double r2, double tau2)
{
	double		s = p->cluster_var,
				d = (double) p->d,
				var = 4.0 * r2 * (s + tau2) + 4.0 * d * tau2 * tau2 + 8.0 * d * s * tau2;

	if (!(r2 > 0.0 && var >= 0.0 && isfinite(var)))
		return 0.0;				/* log 1: nothing known */
	if (var == 0.0)
		return -INFINITY;
	return jl_log_normal_tail(r2 / sqrt(var));
}
