/*
 * test_advise.c - the advisor's error models and its ranking: the tails of
 * the normal and Student's t laws against closed forms, the t law as the
 * chi-square mixture the clustering model says it is, the threshold of
 * DESIGN.md, the clustering model's centres found by k-means from single
 * rows, and the best option against brute force over every k of every
 * candidate on a grid of (d, eps, neighbour, noise, r2, goal) with smooth
 * synthetic noise variances (deterministic; no randomness).
 */
#include "unit.h"
#include "math/estimate/advise.h"

static void
test_tails(void)
{
	double		cs[] = {0.05, 0.5, 1.0, 3.0, 10.0, 1e3, 1e6};
	double		worst1 = 0,
				worst2 = 0,
				worstn = 0;
	int			i;

	for (i = 0; i < 7; i++)
	{
		double		c = cs[i],
					t1 = atan(1.0 / c) / M_PI,	/* nu = 1: 1/2 - atan(c)/pi */
					s = sqrt(2.0 + c * c),
					t2 = 1.0 / (s * (s + c));	/* nu = 2, no cancellation */

		worst1 = fmax(worst1, unit_rel(jl_log_t_tail(c, 1), log(t1)));
		worst2 = fmax(worst2, unit_rel(jl_log_t_tail(c, 2), log(t2)));
	}
	check(worst1 < 1e-12, "t tail, 1 degree of freedom, c 0.05..1e6 (rel err %.2g)", worst1);
	check(worst2 < 1e-12, "t tail, 2 degrees of freedom, c 0.05..1e6 (rel err %.2g)", worst2);
	check(unit_rel(exp(jl_log_t_tail(-1.0, 2)), 0.5 + 0.5 / sqrt(3.0)) < 1e-12,
		  "t tail at c < 0: 1/2 + c/(2 sqrt(2 + c^2))");
	for (i = 0; i < 60; i++)
	{
		double		c = 0.5 + i;
		long double ref = logl(0.5L * erfcl((long double) c / sqrtl(2.0L)));

		worstn = fmax(worstn, unit_rel(jl_log_normal_tail(c), (double) ref));
	}
	check(worstn < 1e-12, "log normal tail against long double erfc, c 0.5..59.5 (rel err %.2g)", worstn);
	check(unit_rel(jl_log_t_tail(3.0, 1e9), jl_log_normal_tail(3.0)) < 1e-6,
		  "t tail with 1e9 degrees of freedom is the normal tail");
	check(jl_log_t_tail(30.0, 5000) < jl_log_t_tail(30.0, 50) &&
		  jl_log_t_tail(30.0, 5000) > jl_log_normal_tail(30.0),
		  "t tail far out: between the normal tail and fewer degrees of freedom");
}

/* E over q ~ chi2_k / k of Phi(-c sqrt(q)) by the midpoint rule */
static double
mixture(double c, int k)
{
	double		sum = 0,
				h = 1e-4,
				q;

	for (q = h / 2; q < 40.0; q += h)
	{
		double		a = 0.5 * k,
					x = a * q,	/* chi2_k / 2 */
					dens = exp((a - 1) * log(x) - x - lgamma(a)) * a;

		sum += dens * 0.5 * erfc(c * sqrt(q) / M_SQRT2) * h;
	}
	return sum;
}

static void
test_t_is_the_mixture(void)
{
	int			ks[] = {3, 8, 30};
	double		worst = 0;
	int			i;

	for (i = 0; i < 3; i++)
		worst = fmax(worst, unit_rel(mixture(2.0, ks[i]), exp(jl_log_t_tail(2.0, ks[i]))));
	check(worst < 1e-6,
		  "P(T_k > c) = E Phi(-c sqrt(chi2_k/k)) at c = 2, k = 3, 8, 30 (rel err %.2g)", worst);
}

static void
test_threshold(void)
{
	double		worst = 0;
	int			k,
				e;

	for (k = 1; k <= 64; k *= 4)
		for (e = 0; e < 3; e++)
		{
			double		eps = (double[]) {0.5, 1, 4}[e],
						c = 2.5 * k,	/* (max row L1)^2 */
						r2 = 7.0,
						s2i = 2.0 / (eps * eps),
						design = k * c * c + (2.0 / 7.0) * (c - 1) * eps * eps * r2 +
						pow(eps, 4) * r2 * r2 / (28.0 * k);

			worst = fmax(worst, unit_rel(jl_advise_d_needed(r2, k, c * s2i, 2.0 / k, s2i, false), design));
		}
	check(worst < 1e-12, "d needed for a projection with Laplace noise = DESIGN.md's threshold (rel err %.2g)", worst);
}

/*
 * The distortion factor of a fixed P against a Monte Carlo over directions,
 * 0 for P = I, and its mean over Gaussian P, 2/k (DESIGN.md's 2 r^4/k).
 */
static void
test_distortion_factor(void)
{
	int64_t		d = 7;
	int			k = 3,
				i,
				j,
				t,
				draws = 400000;
	double		P[21],
				I[49] = {0},
				sum = 0,
				sum2 = 0,
				mean = 0,
				f,
				sd;
	uint64_t	seed = 42;

	for (i = 0; i < 21; i++)
		P[i] = unit_det_normal(&seed) / sqrt(k);
	for (t = 0; t < draws; t++)
	{
		double		x[7],
					n2 = 0,
					y2 = 0,
					e;

		for (i = 0; i < 7; i++)
			x[i] = unit_det_normal(&seed), n2 += x[i] * x[i];
		for (j = 0; j < k; j++)
		{
			double		y = 0;

			for (i = 0; i < 7; i++)
				y += x[i] * P[i * k + j];
			y2 += y * y;
		}
		e = (y2 - n2) * (y2 - n2) / (n2 * n2);
		sum += e;
		sum2 += e * e;
	}
	f = jl_p_shape(P, d, k).f;
	sd = sqrt((sum2 / draws - pow(sum / draws, 2)) / draws);
	check(fabs(sum / draws - f) < UNIT_Z * sd,
		  "distortion factor of a fixed P = mean over directions (%.5f, Monte Carlo %.5f +- %.5f)",
		  f, sum / draws, sd);
	for (i = 0; i < 7; i++)
		I[i * 7 + i] = 1.0;
	check(fabs(jl_p_shape(I, 7, 7).f) < 1e-15, "distortion factor of P = I is 0");
	d = 50;
	k = 5;
	{
		double	   *Q = malloc(sizeof(double) * 250),
					m2 = 0;
		int			reps = 20000;

		for (t = 0; t < reps; t++)
		{
			for (i = 0; i < 250; i++)
				Q[i] = unit_det_normal(&seed) / sqrt(k);
			f = jl_p_shape(Q, d, k).f;
			mean += f;
			m2 += f * f;
		}
		free(Q);
		sd = sqrt((m2 / reps - pow(mean / reps, 2)) / reps);
		check(fabs(mean / reps - 2.0 / k) < UNIT_Z * sd,
			  "mean distortion factor over Gaussian P = 2/k, the JL term (%.5f vs %.5f +- %.5f)",
			  mean / reps, 2.0 / k, sd);
	}
}

/* synthetic calibrations: smooth sensitivities of each kind */
enum
{
	IDENTITY, GAUSS, RADEMACHER, ACHLIOPTAS, SPARSE, NKINDS
};

typedef struct Model
{
	int			kind;
	bool		gaussian;
	bool		row;
	int64_t		d;
	double		eps;
	int			kmin;			/* k below this is refused (NaN) */
} Model;

static double
model_s2(void *ctx, int k, JlPShape *shape)
{
	Model	   *m = ctx;
	double		ld = log((double) m->d),
				sd = sqrt((double) m->d),
				sens;

	*shape = jl_p_shape_unknown();
	if (k < m->kmin)
		return NAN;
	if (m->row)
		sens = m->kind == IDENTITY ? (m->gaussian ? 1.0 : sd) :
			(m->gaussian ? 1.0 : sqrt(k)) * (1.0 + sqrt((double) m->d / k));
	else if (m->gaussian)
		sens = (double[]) {1.0, 1.0 + sqrt(2 * ld / k), 1.0, 1.0 + sqrt(ld / k),
		1.0 + sqrt(sd * ld / k)}[m->kind];
	else
		sens = (double[]) {1.0, sqrt(2 * k / M_PI) + sqrt(2 * ld), sqrt(k),
		sqrt(2 * k / 3.0) + sqrt(ld), sqrt(k / sd) * (1.0 + 3.0 / sqrt(1.0 + k / sd))}[m->kind];
	if (m->gaussian)
		return pow(sens * 4.2246789 / m->eps, 2);
	return 2.0 * pow(sens / m->eps, 2);
}

static double
kind_m4(int kind, int64_t d)
{
	return (double[]) {1.0, 3.0, 1.0, 3.0, sqrt((double) d)}[kind];
}

/*
 * One case: the candidates of the noises asked for, searched by the
 * advisor and by brute force; 1 if the best agree.
 */
static int
one_case(const JlAdviseProblem *p, bool row, double eps, int noises,
		 int kmax, char *why)
{
	JlAdviseCandidate cs[2 * NKINDS];
	Model		ms[2 * NKINDS];
	JlPShape	f;
	int			n = 0,
				best,
				bi = -1,
				bk = 0,
				i,
				k,
				g;
	double		bscore = INFINITY;

	for (g = 0; g < 2; g++)
	{
		if (!(noises & (1 << g)))
			continue;
		for (i = 0; i < NKINDS; i++)
		{
			ms[n] = (Model) {i, g == 1, row, p->d, eps, 1};
			memset(&cs[n], 0, sizeof(cs[n]));
			cs[n].identity = i == IDENTITY;
			cs[n].gaussian = g == 1;
			cs[n].m4 = kind_m4(i, p->d);
			if (i == IDENTITY)
				jl_advise_fixed(&cs[n], (int) p->d, model_s2(&ms[n], (int) p->d, &f));
			else
				jl_advise_search(p, &cs[n], kmax, model_s2, &ms[n], cs, n);
			n++;
		}
	}
	best = jl_advise_rank(p, cs, n);

	for (i = 0; i < n; i++)
		for (k = 1; k <= (cs[i].identity ? 1 : kmax); k++)
		{
			int			kk = cs[i].identity ? (int) p->d : k;
			double		s2 = model_s2(&ms[i], kk, &f);
			JlPShape	mean = {2.0 / kk, NAN, NAN};
			double		s = jl_advise_score(p, &cs[i], p->lo, kk, s2, &mean);

			if (s < bscore)
			{
				bscore = s;
				bi = i;
				bk = kk;
			}
		}
	if (best == bi && unit_rel(cs[best].score, bscore) < 1e-12)
		return 1;
	/* neighbors: among useless options the search may stop early */
	if (p->goal == JL_GOAL_NEIGHBORS && best >= 0 &&
		!jl_advise_useful(p, jl_advise_error(bscore)) &&
		!jl_advise_useful(p, jl_advise_error(cs[best].score)))
		return 1;
	sprintf(why, "d %lld eps %g row %d noises %d r2 %g goal %d var %g n %g: advisor %d k %d (%.17g), brute %d k %d (%.17g)",
			(long long) p->d, eps, row, noises, p->lo, p->goal, p->cluster_var, p->n,
			best, best >= 0 ? cs[best].k : 0, best >= 0 ? cs[best].score : NAN,
			bi, bk, bscore);
	return 0;
}

static void
test_brute_force(JlAdviseGoal goal)
{
	int64_t		ds[] = {4, 13, 30, 64, 200, 1000};
	double		epss[] = {0.5, 1, 4, 10},
				r2f[] = {0.01, 0.1, 1.0},
				vars[] = {0.0, 0.05},
				ns[] = {INFINITY, 1000};
	int			cases = 0,
				agree = 0,
				di,
				ei,
				row,
				no,
				ri,
				vi;
	char		why[512] = "",
				last[512] = "";

	for (di = 0; di < 6; di++)
		for (ei = 0; ei < 4; ei++)
			for (row = 0; row < 2; row++)
				for (no = 1; no <= 3; no++)
					for (ri = 0; ri < 3; ri++)
						for (vi = 0; vi < (goal == JL_GOAL_CLUSTERING ? 4 : 1); vi++)
						{
							JlAdviseProblem p = {ds[di], r2f[ri] * ds[di], r2f[ri] * ds[di],
							goal, vars[vi % 2], ns[vi / 2]};

							/* neighbors: a non-neighbour 4 times as far */
							if (goal == JL_GOAL_NEIGHBORS)
								p.hi = 4 * p.lo;

							cases++;
							if (one_case(&p, row, epss[ei], no, (int) fmin(ds[di], 400), why))
								agree++;
							else
								strcpy(last, why);
						}
	check(agree == cases, "%s: the advisor's best = brute force's best in %d of %d cases %s",
		  goal == JL_GOAL_DISTANCE ? "distance" : goal == JL_GOAL_CLUSTERING ? "clustering" :
		  "neighbors", agree, cases, last);
}

/*
 * A 1 x 1 projection P = a only rescales: its ranking is that of no
 * projection, whatever a.  Its shape: G = a^2, scale a^2, distortion
 * f = (1 - a^2)^2 (all of it the common shrinkage), and the noise
 * calibrated to it has variance a^2 s2.  With the realized scale the two
 * misordering probabilities agree; read with the mean scale 1 (the
 * negative control, the model before the realized scale was used), the
 * projection looks far better than it is (found by a review: a Gaussian
 * P = 0.0729 was predicted at 0.19 and measured at 0.345).
 */
static void
test_neighbors_shrinking_p(void)
{
	JlAdviseProblem p = {1, 0.04, 0.36, JL_GOAL_NEIGHBORS, 0, INFINITY};
	JlAdviseCandidate id = {.identity = true, .gaussian = false, .m4 = 1},
				gau = {.identity = false, .gaussian = false, .m4 = 3};
	double		a = 0.0729,
				s2 = 0.11,		/* no projection misorders about 0.35 */
				worst = 0;
	JlPShape	sh = {pow(1 - a * a, 2), a * a, NAN},
				mean = {pow(1 - a * a, 2), NAN, NAN};
	double		want = jl_advise_score(&p, &id, p.lo, 1, s2, NULL),
				got = jl_advise_score(&p, &gau, p.lo, 1, a * a * s2, &sh),
				control = jl_advise_score(&p, &gau, p.lo, 1, a * a * s2, &mean);

	worst = unit_rel(exp(got), exp(want));
	check(worst < 1e-12, "neighbors: P = a (1 x 1) ranks as no projection, %.4f = %.4f", exp(got), exp(want));
	check(exp(control) < JL_ADVISE_USEFUL_MISCLASSIFICATION && exp(want) >= JL_ADVISE_USEFUL_MISCLASSIFICATION,
		  "negative control: with the mean scale a useless option looks useful (%.4f against %.4f)",
		  exp(control), exp(want));
}

/*
 * goal neighbors: the probability that a non-neighbour at hi is recovered
 * nearer than a neighbour at lo, Phi(-(hi - lo) / sqrt(v(lo) + v(hi))),
 * written out here from the variance of a recovered squared distance
 * (f r2^2 + 8 s2 r2 + c k s2^2) and long double erfc; useful below 0.25.
 */
static void
test_neighbors(void)
{
	JlAdviseProblem p = {9, 0.5, 2.0, JL_GOAL_NEIGHBORS, 0, INFINITY};
	JlAdviseCandidate id = {.identity = true, .gaussian = false, .m4 = 1},
				gau = {.identity = false, .gaussian = true, .m4 = 3};
	double		worst = 0;
	int			i;

	for (i = 0; i < 40; i++)
	{
		double		s2 = 1e-3 * pow(1.5, i),
					k = 3,
					f = 0.4,
					vlo = 8 * s2 * p.lo + 14 * 9 * s2 * s2,
					vhi = 8 * s2 * p.hi + 14 * 9 * s2 * s2,
					glo = f * p.lo * p.lo + 8 * s2 * p.lo + 8 * k * s2 * s2,
					ghi = f * p.hi * p.hi + 8 * s2 * p.hi + 8 * k * s2 * s2;
		JlPShape	sh = {f, 1, NAN};
		long double want_id = 0.5L * erfcl((p.hi - p.lo) / sqrtl(2.0L * (vlo + vhi))),
					want_g = 0.5L * erfcl((p.hi - p.lo) / sqrtl(2.0L * (glo + ghi)));

		worst = fmax(worst, unit_rel(exp(jl_advise_score(&p, &id, p.lo, 9, s2, NULL)), (double) want_id));
		worst = fmax(worst, unit_rel(exp(jl_advise_score(&p, &gau, p.lo, 3, s2, &sh)), (double) want_g));
	}
	check(worst < 1e-9, "neighbors: Phi(-(hi - lo) / sqrt(v(lo) + v(hi))), with and without a projection (rel err %.2g)", worst);
	check(jl_advise_useful(&p, 0.2499) && !jl_advise_useful(&p, 0.25) && !jl_advise_useful(&p, NAN),
		  "neighbors: useful below a misordering of 0.25");
	check(jl_advise_noise_free_error(&p) == 0.0, "neighbors: no noise, no misordering");
	test_neighbors_shrinking_p();
}

/* refusals are never ranked; a range ranks by the worst ratio to the best */
static void
test_refusals_and_range(void)
{
	JlAdviseProblem p = {30, 3, 3, JL_GOAL_DISTANCE, 0, INFINITY};
	JlAdviseCandidate cs[3];
	JlPShape	f;
	Model		m0 = {IDENTITY, true, false, 30, 1, 1},
				m1 = {RADEMACHER, true, false, 30, 1, 5},
				m2 = {GAUSS, true, false, 30, 1, 1000};
	int			best,
				i;

	memset(cs, 0, sizeof(cs));
	cs[0].identity = true;
	cs[0].gaussian = cs[1].gaussian = cs[2].gaussian = true;
	cs[1].m4 = 1;
	cs[2].m4 = 3;
	jl_advise_fixed(&cs[0], 30, NAN);	/* identity refused */
	jl_advise_search(&p, &cs[1], 30, model_s2, &m1, cs, 1);
	jl_advise_search(&p, &cs[2], 30, model_s2, &m2, cs, 2);
	best = jl_advise_rank(&p, cs, 3);
	check(best == 1 && !cs[0].found && cs[0].rank == 0 && !cs[2].found &&
		  cs[2].rank == 0 && cs[1].rank == 1 && cs[1].k >= 5,
		  "refused options are not ranked; a refused k is never picked (k = %d)", cs[1].k);

	p.lo = 0.3;
	p.hi = 30;
	cs[0].identity = true;
	jl_advise_fixed(&cs[0], 30, model_s2(&m0, 30, &f));
	m2.kmin = 1;
	jl_advise_search(&p, &cs[1], 30, model_s2, &m1, cs, 1);
	jl_advise_search(&p, &cs[2], 30, model_s2, &m2, cs, 2);
	best = jl_advise_rank(&p, cs, 3);
	for (i = 0; i < 3; i++)
		if (!(cs[i].relative >= 1.0 && cs[i].objective >= cs[best].objective))
			break;
	check(best >= 0 && i == 3 && cs[best].rank == 1,
		  "range: every worst ratio >= 1, the best has the smallest (%.3g %.3g %.3g)",
		  cs[0].relative, cs[1].relative, cs[2].relative);
}

/*
 * Centres found by k-means: its seeds are single rows, so the noise of all k
 * coordinates enters the assignment (c divided by sqrt(2 + 3 k sigma^2 /
 * r2)); known centres keep r / (2 sigma).  digits at epsilon 4, Gaussian
 * noise, element neighbours (test/paper/results/realdata_cells.csv): the same
 * noise variance per coordinate for no projection and a Rademacher P, and
 * k = 5 clusters better (accuracy 0.241 against 0.180).
 */
static void
test_found_centres(void)
{
	JlAdviseProblem p = {64, 64 / 6.0, 64 / 6.0, JL_GOAL_CLUSTERING, 1 / 24.0, 1797};
	JlAdviseCandidate id = {.identity = true, .gaussian = true, .m4 = 1},
				rad = {.identity = false, .gaussian = true, .m4 = 1};
	double		s2 = 1.61,
				sg = 1 / 24.0 + s2,
				c = sqrt(p.lo) / (2 * sqrt(sg)),
				known,
				found;

	found = jl_advise_score(&p, &id, p.lo, 64, s2, NULL);
	check(unit_rel(found, jl_log_normal_tail(c / sqrt(2 + 3 * 64 * sg / p.lo))) < 1e-12,
		  "found centres: Phi(-c / sqrt(2 + 3 k sigma^2 / r2)) without a projection");
	p.n = INFINITY;
	known = jl_advise_score(&p, &id, p.lo, 64, s2, NULL);
	check(unit_rel(known, jl_log_normal_tail(c)) < 1e-12 && known < found,
		  "known centres: Phi(-r / (2 sigma)), below the found centres' error");
	p.n = 1797;
	check(jl_advise_score(&p, &rad, p.lo, 5, s2, NULL) < found,
		  "digits, Gaussian noise: Rademacher k = 5 ranks above no projection (%.3f, %.3f)",
		  exp(jl_advise_score(&p, &rad, p.lo, 5, s2, NULL)), exp(found));
}

/*
 * The realized P's shape: tr(G)/d and tr(G^2)/tr(G) are the mean over
 * directions of |x P|^2/|x|^2 and the ratio of means of |P^T w|^2 and |w|^2
 * (w = x P); over Gaussian P their means are 1 and (d + k + 1)/k.  A P with
 * short rows has less noise and proportionally less signal, so with the
 * realized scale a small-entry Gaussian P at k = 1 does not outrank a
 * Rademacher P at k = 1 (whose rows are as long as its noise allows); with
 * the mean over keys (the negative control) it does.
 */
static void
test_p_shape(void)
{
	uint64_t	seed = 77;
	int			d = 9,
				k = 3,
				draws = 200000,
				t,
				i,
				j;
	double		P[27],
				sx = 0,
				sx2 = 0,
				sn = 0,
				sd2 = 0,
				sdn = 0;
	JlPShape	sh;

	for (i = 0; i < d * k; i++)
		P[i] = unit_det_normal(&seed) / sqrt(k);
	sh = jl_p_shape(P, d, k);
	for (t = 0; t < draws; t++)
	{
		double		x[9],
					w[3] = {0, 0, 0},
					ptw2 = 0,
					n2 = 0,
					w2 = 0,
					q;

		for (i = 0; i < d; i++)
		{
			x[i] = unit_det_normal(&seed);
			n2 += x[i] * x[i];
		}
		for (j = 0; j < k; j++)
		{
			for (i = 0; i < d; i++)
				w[j] += x[i] * P[i * k + j];
			w2 += w[j] * w[j];
		}
		for (i = 0; i < d; i++)
		{
			double		y = 0;

			for (j = 0; j < k; j++)
				y += P[i * k + j] * w[j];
			ptw2 += y * y;
		}
		q = w2 / n2;
		sx += q;
		sx2 += q * q;
		sn += ptw2 / n2;
		sd2 += w2 / n2;
		sdn += 1;
	}
	{
		double		m = sx / draws,
					se = sqrt((sx2 / draws - m * m) / draws),
					ratio = sn / sd2;

		check(fabs(m - sh.scale) < UNIT_Z * se,
			  "scale of a fixed P = mean of |xP|^2/|x|^2 over directions (%.5f, Monte Carlo %.5f +- %.5f)",
			  sh.scale, m, se);
		check(fabs(ratio - sh.spread) < 0.01 * sh.spread,
			  "spread of a fixed P = ratio of means of |P^T w|^2 and |w|^2 (%.4f, Monte Carlo %.4f)",
			  sh.spread, ratio);
	}
	{
		double		Q[50 * 5],
					tr = 0,
					tr2 = 0;
		int			reps = 20000;

		for (t = 0; t < reps; t++)
		{
			for (i = 0; i < 250; i++)
				Q[i] = unit_det_normal(&seed) / sqrt(5);
			sh = jl_p_shape(Q, 50, 5);
			tr += sh.scale;
			tr2 += sh.spread * sh.scale;
		}
		check(fabs(tr / reps - 1.0) < 0.005 && fabs(tr2 / tr - 56.0 / 5) < 0.01 * 56.0 / 5,
			  "over Gaussian P: mean scale 1 (%.4f), ratio of means of the spread (d + k + 1)/k = %.3f (%.3f)",
			  tr / reps, 56.0 / 5, tr2 / tr);
	}
	{
		JlAdviseProblem p = {4, 0.67, 0.67, JL_GOAL_CLUSTERING, 1 / 24.0, 150};
		JlAdviseCandidate rad = {.identity = false, .gaussian = true, .m4 = 1},
					gau = {.identity = false, .gaussian = true, .m4 = 3};
		double		Pr[4] = {1, -1, 1, 1},
					Pg[4] = {0.5, -0.4, 0.3, 0.2},
					s2 = 2.0;	/* noise of Rademacher; Gaussian's: max|P|^2 as much */
		JlPShape	shr = jl_p_shape(Pr, 4, 1),
					shg = jl_p_shape(Pg, 4, 1);
		double		sr = jl_advise_score(&p, &rad, p.lo, 1, s2, &shr),
					sg = jl_advise_score(&p, &gau, p.lo, 1, s2 * 0.25, &shg),
					sg_mean = jl_advise_score(&p, &gau, p.lo, 1, s2 * 0.25, NULL);

		check(shr.scale == 1.0 && shr.spread == 4.0 && sr < sg,
			  "k = 1: a short Gaussian P does not outrank Rademacher with its realized signal (%.4f < %.4f)",
			  exp(sr), exp(sg));
		check(sg_mean < sr,
			  "negative control: with the mean over keys it would (%.4f < %.4f)",
			  exp(sg_mean), exp(sr));
	}
}

int
main(void)
{
	test_p_shape();
	test_tails();
	test_t_is_the_mixture();
	test_threshold();
	test_distortion_factor();
	test_found_centres();
	test_brute_force(JL_GOAL_DISTANCE);
	test_brute_force(JL_GOAL_CLUSTERING);
	test_brute_force(JL_GOAL_NEIGHBORS);
	test_neighbors();
	test_refusals_and_range();
	return unit_done("test_advise");
}
