/*
 * test_pair_distance.c - the released mean squared distance between two
 * rows (pair_distance.c).
 *
 * 1. Exact: the integer statistic N equals the sum over pairs of the
 *    squared grid distances computed pair by pair, and N g^2 / pairs is the
 *    mean squared distance of the clipped rows within the grid's rounding.
 * 2. Sensitivity, attacked: neighbours built to move N the most (one
 *    element from one end of its range to the other with every other row at
 *    that end; one row turned around with every other row on it; random
 *    neighbours at the extremes) never move N by more than (n - 1) T, and
 *    the first two reach it exactly.  Negative control: half that bound is
 *    exceeded, so the check can fail.  Rows of every length whose
 *    coordinates all round up stay within the grid radius R.
 * 3. The shift: floor(u / 2^s) - floor(v / 2^s) within the planned
 *    sensitivity for |u - v| <= (n - 1) T, at the extremes and at random.
 * 4. Statistics (nominal false-failure rate 1e-7 each): 200,000 releases
 *    of one table, mean against the exact value and variance against the
 *    stated stddev^2 (z with the discrete Laplace fourth moment).  Negative
 *    control: a stddev^2 10% too small is rejected.
 */
#include "unit.h"
#include "math/noise/laplace.h"
#include "math/estimate/pair_distance.h"

static JlRandom rng;

/* N pair by pair, from the rows kept on the grid */
static __int128
brute_statistic(const int64_t *Q, int64_t n, int d)
{
	__int128	s = 0;
	int64_t		i,
				l;
	int			j;

	for (i = 0; i < n; i++)
		for (l = i + 1; l < n; l++)
			for (j = 0; j < d; j++)
			{
				int64_t		u = Q[i * d + j] - Q[l * d + j];

				s += (__int128) u * u;
			}
	return s;
}

/* feed rows, keeping each row's grid values */
static void
feed(JlPairDist *a, const double *X, int64_t n, int64_t *Q)
{
	double	   *x = malloc(sizeof(double) * a->d);
	int64_t		i;

	for (i = 0; i < n; i++)
	{
		memcpy(x, X + i * a->d, sizeof(double) * a->d);
		jl_pd_add(a, x);
		if (Q)
			memcpy(Q + i * a->d, a->q, sizeof(int64_t) * a->d);
	}
	free(x);
}

static __int128
statistic_of(bool rows, double lo, double hi, double c, int d, const double *X, int64_t n)
{
	JlPairDist	a;
	__int128	s;

	jl_pd_init(&a, rows, lo, hi, c, d);
	feed(&a, X, n, NULL);
	s = jl_pd_statistic(&a);
	jl_pd_free(&a);
	return s;
}

static void
test_exact(void)
{
	uint64_t	seed = 7;
	int			rows;

	for (rows = 0; rows <= 1; rows++)
	{
		int			d = 5;
		int64_t		n = 40,
					i,
					l;
		double	   *X = malloc(sizeof(double) * n * d);
		double	   *C = malloc(sizeof(double) * n * d);
		int64_t    *Q = malloc(sizeof(int64_t) * n * d);
		JlPairDist	a;
		double		mean = 0.0,
					est;
		int			j;

		for (i = 0; i < n * d; i++)
			X[i] = 3.0 * unit_det_normal(&seed);	/* much of it clipped */
		jl_pd_init(&a, rows, -1.0, 2.0, 2.0, d);
		memcpy(C, X, sizeof(double) * n * d);
		for (i = 0; i < n; i++)
		{
			jl_pd_add(&a, C + i * d);	/* C: the clipped rows */
			memcpy(Q + i * d, a.q, sizeof(int64_t) * d);
		}
		check(jl_pd_statistic(&a) == brute_statistic(Q, n, d),
			  "%s clipping: N equals the sum over pairs (%.17g)", rows ? "norm" : "element",
			  (double) jl_pd_statistic(&a));
		for (i = 0; i < n; i++)
			for (l = i + 1; l < n; l++)
				for (j = 0; j < d; j++)
					mean += (C[i * d + j] - C[l * d + j]) * (C[i * d + j] - C[l * d + j]);
		mean /= 0.5 * n * (n - 1);
		est = (double) jl_pd_statistic(&a) * jl_pd_step(&a) * jl_pd_step(&a) / (0.5 * n * (n - 1));
		/* rounding moves each coordinate by g/2 at most */
		check(fabs(est - mean) <= 2.0 * sqrt(mean) * sqrt((double) d) * jl_pd_step(&a) + d * jl_pd_step(&a) * jl_pd_step(&a),
			  "%s clipping: N g^2 / pairs %.6f is the clipped rows' mean squared distance %.6f",
			  rows ? "norm" : "element", est, mean);
		jl_pd_free(&a);
		free(X);
		free(C);
		free(Q);
	}
}

/* one element of one row from lo to hi, every other row at lo */
static void
test_sensitivity(void)
{
	int			d = 3;
	int64_t		n = 25,
				i;
	double	   *X = calloc(n * d, sizeof(double));
	double	   *Y = calloc(n * d, sizeof(double));
	__int128	dn,
				worst = 0;
	JlPairDist	a;
	int64_t		T;
	uint64_t	seed = 11;
	int			trial;

	/* element: the extreme pair */
	jl_pd_init(&a, false, 0.0, 1.0, 0.0, d);
	T = jl_pd_term_bound(&a);
	jl_pd_free(&a);
	memcpy(Y, X, sizeof(double) * n * d);
	Y[0] = 1.0;
	dn = statistic_of(false, 0.0, 1.0, 0.0, d, Y, n) - statistic_of(false, 0.0, 1.0, 0.0, d, X, n);
	check(dn == (__int128) (n - 1) * T,
		  "element: the extreme neighbour moves N by (n - 1) Q^2 exactly (%.0f)", (double) dn);
	check(dn > (__int128) (n - 1) * T / 2,
		  "negative control: half the bound, (n - 1) Q^2 / 2, is exceeded by it");
	/* element: random neighbours at the extremes */
	for (trial = 0; trial < 2000; trial++)
	{
		int64_t		r = (int64_t) (unit_det_u01(&seed) * n);
		int			j = (int) (unit_det_u01(&seed) * d);

		for (i = 0; i < n * d; i++)
			X[i] = unit_det_u01(&seed) < 0.5 ? -0.5 : 1.5 * unit_det_u01(&seed);
		memcpy(Y, X, sizeof(double) * n * d);
		Y[r * d + j] = unit_det_u01(&seed) < 0.5 ? 7.0 : -3.0;
		dn = statistic_of(false, 0.0, 1.0, 0.0, d, Y, n) - statistic_of(false, 0.0, 1.0, 0.0, d, X, n);
		if (dn < 0)
			dn = -dn;
		if (dn > worst)
			worst = dn;
	}
	check(worst <= (__int128) (n - 1) * T,
		  "element: 2000 random neighbours within (n - 1) Q^2 (largest %.0f of %.0f)",
		  (double) worst, (double) ((n - 1) * T));

	/* row: one row turned around, every other row on it */
	jl_pd_init(&a, true, 0.0, 0.0, 2.0, d);
	T = jl_pd_term_bound(&a);
	jl_pd_free(&a);
	for (i = 0; i < n; i++)
	{
		X[i * d] = 5.0;
		X[i * d + 1] = X[i * d + 2] = 0.0;
	}
	memcpy(Y, X, sizeof(double) * n * d);
	Y[0] = -5.0;
	dn = statistic_of(true, 0.0, 0.0, 2.0, d, Y, n) - statistic_of(true, 0.0, 0.0, 2.0, d, X, n);
	check(dn == (__int128) (n - 1) * 4 * JL_PD_LEVELS * JL_PD_LEVELS && dn <= (__int128) (n - 1) * T,
		  "row: a row turned around moves N by (n - 1) (2Q)^2 (%.0f), within (n - 1) (2R)^2 (%.0f)",
		  (double) dn, (double) ((n - 1) * T));
	worst = 0;
	for (trial = 0; trial < 2000; trial++)
	{
		int64_t		r = (int64_t) (unit_det_u01(&seed) * n);
		int			j;

		for (i = 0; i < n * d; i++)
			X[i] = 10.0 * unit_det_normal(&seed);
		memcpy(Y, X, sizeof(double) * n * d);
		for (j = 0; j < d; j++)
			Y[r * d + j] = 10.0 * unit_det_normal(&seed);
		dn = statistic_of(true, 0.0, 0.0, 2.0, d, Y, n) - statistic_of(true, 0.0, 0.0, 2.0, d, X, n);
		if (dn < 0)
			dn = -dn;
		if (dn > worst)
			worst = dn;
	}
	check(worst <= (__int128) (n - 1) * T,
		  "row: 2000 random neighbours within (n - 1) (2R)^2 (largest %.0f)", (double) worst);
	free(X);
	free(Y);
}

/* coordinates that all round away from zero: |q| stays within R */
static void
test_radius(void)
{
	static const int ds[] = {1, 2, 3, 17, 100, 4097, 100000};
	int			i,
				bad = 0;

	for (i = 0; i < (int) (sizeof(ds) / sizeof(ds[0])); i++)
	{
		int			d = ds[i],
					j;
		double	   *x = malloc(sizeof(double) * d);
		JlPairDist	a;
		__int128	len2 = 0;
		int64_t		r = JL_PD_LEVELS + (int64_t) ceil(sqrt((double) d) / 2.0) + 1;

		jl_pd_init(&a, true, 0.0, 0.0, 1.0, d);
		/* every coordinate just past a half step after scaling to norm 1 */
		for (j = 0; j < d; j++)
			x[j] = (floor(JL_PD_LEVELS / sqrt((double) d)) + 0.5001) / JL_PD_LEVELS;
		jl_pd_add(&a, x);
		for (j = 0; j < d; j++)
			len2 += (__int128) a.q[j] * a.q[j];
		if (len2 > (__int128) r * r)
			bad++;
		jl_pd_free(&a);
		free(x);
	}
	check(bad == 0, "row: |q| <= R for rows whose coordinates all round up, d from 1 to 100000");
	{
		static const double cs[] = {1e-100, 1.0, 1e100};
		static const double xs[] = {1e308, -1e308, 1e-308, 5e-324, 1e-170, 1e170, 0.0};
		int			ci,
					xi,
					yi,
					over = 0,
					rows = 0;
		double		t0 = unit_seconds();

		for (ci = 0; ci < 3; ci++)
			for (xi = 0; xi < 7; xi++)
				for (yi = 0; yi < 7; yi++)
				{
					JlPairDist	a;
					double		x[3] = {xs[xi], xs[yi], -xs[xi]};
					__int128	len2 = 0;
					int64_t		r = JL_PD_LEVELS + 2;
					int			j;

					jl_pd_init(&a, true, 0.0, 0.0, cs[ci], 3);
					jl_pd_add(&a, x);
					for (j = 0; j < 3; j++)
						len2 += (__int128) a.q[j] * a.q[j];
					over += len2 > (__int128) r * r;
					rows++;
					jl_pd_free(&a);
				}
		check(over == 0 && unit_seconds() - t0 < 1.0,
			  "row: %d rows of extreme elements (5e-324 to 1e308) at clip_norm 1e-100, 1, 1e100 stay within R, at once (%.3f s)",
			  rows, unit_seconds() - t0);
	}
}

static void
test_shift(void)
{
	static const int64_t ns[] = {2, 3, 150, 1797, 1000000, INT64_C(1) << 39};
	uint64_t	seed = 5;
	int			i,
				bad = 0,
				trial;

	for (i = 0; i < (int) (sizeof(ns) / sizeof(ns[0])); i++)
	{
		JlPairDist	a;
		JlPairDistRelease p;
		__int128	sens;

		jl_pd_init(&a, false, 0.0, 1.0, 0.0, 4);
		a.n = ns[i];
		jl_pd_plan(&a, 1.0, &p);
		sens = (__int128) (ns[i] - 1) * jl_pd_term_bound(&a);
		for (trial = 0; trial < 20000; trial++)
		{
			__int128	u = (__int128) (unit_det_u01(&seed) * 1e30),
						v = u + (trial % 2 ? sens : (__int128) (unit_det_u01(&seed) * (double) sens));
			__int128	du = (v >> p.shift) - (u >> p.shift);

			if (du > p.sensitivity || p.sensitivity > JL_PD_MAX_STEPS + 1)
				bad++;
		}
		jl_pd_free(&a);
	}
	check(bad == 0, "shift: floor(N / 2^s) moves by at most the planned sensitivity (n up to 2^39)");
}

static void
test_statistics(void)
{
	int			d = 4,
				K = 200000,
				i;
	int64_t		n = 50;
	double	   *X = malloc(sizeof(double) * n * d);
	uint64_t	seed = 3;
	JlPairDist	a;
	JlPairDistRelease p;
	double		sum = 0.0,
				sum2 = 0.0,
				expect,
				mean,
				var,
				m,
				mu4,
				se_var,
				z;

	for (i = 0; i < n * d; i++)
		X[i] = unit_det_u01(&seed);
	jl_pd_init(&a, false, 0.0, 1.0, 0.0, d);
	feed(&a, X, n, NULL);
	for (i = 0; i < K; i++)
	{
		jl_pd_release(&a, 0.5, &rng, &p);
		sum += p.dist2;
		sum2 += p.dist2 * p.dist2;
	}
	m = ldexp(1.0, p.shift);
	expect = ((double) (jl_pd_statistic(&a) >> p.shift) * m + 0.5 * (m - 1.0)) *
		jl_pd_step(&a) * jl_pd_step(&a) / (0.5 * n * (n - 1));
	mean = sum / K;
	var = (sum2 - sum * sum / K) / (K - 1);
	z = (mean - expect) / (p.stddev / sqrt((double) K));
	check(fabs(z) < UNIT_Z, "mean of %d releases %.6f against %.6f (z = %.2f; shift %d, t %llu, epsilon %.6f)",
		  K, mean, expect, z, p.shift, (unsigned long long) p.t, p.epsilon);
	check(p.epsilon <= 0.5 && p.epsilon > 0.49, "epsilon that holds, sensitivity / t = %.6f <= 0.5", p.epsilon);
	/* Var of the sample variance: (mu4 - sigma^4) / K */
	mu4 = jl_discrete_laplace_moment4(p.t) / pow(jl_discrete_laplace_variance(p.t), 2) *
		pow(p.stddev, 4);
	se_var = sqrt((mu4 - pow(p.stddev, 4)) / K);
	z = (var - p.stddev * p.stddev) / se_var;
	check(fabs(z) < UNIT_Z, "variance %.6g against the stated stddev^2 %.6g (z = %.2f)",
		  var, p.stddev * p.stddev, z);
	z = (var - 0.9 * p.stddev * p.stddev) / (0.9 * se_var);
	check(fabs(z) >= UNIT_Z, "negative control: a stddev^2 10%% too small is rejected (z = %.1f)", z);
	jl_pd_free(&a);
	free(X);
}

static void
test_edges(void)
{
	JlPairDist	a,
				b;
	JlPairDistRelease p;
	double		x[2] = {NAN, 0.0};

	check(!jl_pd_init(&a, false, 1.0, 1.0, 0.0, 2) && !jl_pd_init(&a, true, 0.0, 0.0, 0.0, 2) &&
		  !jl_pd_init(&a, false, 0.0, INFINITY, 0.0, 2) && !jl_pd_init(&a, false, 0.0, 1.0, 0.0, 0),
		  "bad clipping or d refused");
	jl_pd_init(&a, false, 0.0, 1.0, 0.0, 2);
	check(!jl_pd_add(&a, x) && a.n == 0, "a row with a NaN is refused and not counted");
	check(!jl_pd_init(&b, true, 0.0, 0.0, 1e-190, 2) && !jl_pd_init(&b, true, 0.0, 0.0, 1e101, 2) &&
		  !jl_pd_init(&b, false, 0.0, 1e-101, 0.0, 2),
		  "a range outside [1e-100, 1e100] refused (the grid step's square would underflow)");
	check(jl_pd_release(&a, 1.0, &rng, &p) == JL_OK && isnan(p.dist2),
		  "no rows: no estimate");
	check(jl_pd_plan(&a, 0.0, &p) == JL_ERR_EPSILON && jl_pd_plan(&a, 1e-300, &p) == JL_ERR_SCALE,
		  "epsilon 0 or too small for the sampler refused");
	jl_pd_free(&a);
}

/*
 * A protected table's one-hot category: one neighbour moves two
 * coordinates (a row's category from a to b, weight 1 on [0, 1]).  The
 * extreme: every other row in category a, the changed row from a to b;
 * each pair term moves by 2 Q^2, the bound with changes = 2, and past the
 * bound with changes = 1 (the negative control).
 */
static void
test_category_changes(void)
{
	int			d = 3;
	int64_t		n = 20,
				i;
	double	   *X = calloc(n * d, sizeof(double));
	double	   *Y;
	__int128	dn;
	JlPairDist	a;
	int64_t		T1,
				T2;

	for (i = 0; i < n; i++)
		X[i * d] = 1.0;			/* category a */
	Y = calloc(n * d, sizeof(double));
	memcpy(Y, X, sizeof(double) * n * d);
	Y[0] = 0.0;
	Y[1] = 1.0;					/* row 0: category b */
	jl_pd_init(&a, false, 0.0, 1.0, 0.0, d);
	T1 = jl_pd_term_bound(&a);
	a.changes = 2;
	T2 = jl_pd_term_bound(&a);
	jl_pd_free(&a);
	dn = statistic_of(false, 0.0, 1.0, 0.0, d, Y, n) - statistic_of(false, 0.0, 1.0, 0.0, d, X, n);
	check(T2 == 2 * T1, "a category: the term bound with two coordinates changed is 2 Q^2");
	check(dn == (__int128) (n - 1) * T2,
		  "a category from a to b moves N by (n - 1) 2 Q^2 exactly (%.0f)", (double) dn);
	check(dn > (__int128) (n - 1) * T1,
		  "negative control: the one-coordinate bound (n - 1) Q^2 is exceeded by it");
	free(X);
	free(Y);
}

int
main(void)
{
	jl_random_init(&rng, unit_getrandom_fill, NULL);
	test_exact();
	test_sensitivity();
	test_category_changes();
	test_radius();
	test_shift();
	test_edges();
	test_statistics();
	return unit_done("test_pair_distance");
}
