/*
 * test_attribute_sensitivity.c - the sensitivity of a projected row to one
 * declared attribute (math/projection/attribute_sensitivity.h).
 *
 * Independent computation: for a small P (long double arithmetic), every
 * change one attribute can make is enumerated (a numeric coordinate moved
 * by its weight; a category from any listed value, or none, to any other)
 * and the largest ||change P|| taken; the function must be at least that
 * and within 1e-12 of it.  Then 20,000 random pairs of encoded rows that
 * differ in one attribute (random values in the box) must each move x P by
 * no more than the sensitivity.  Negative control: the sensitivity computed
 * as if the category were numeric (one coordinate at a time) is below the
 * enumeration, so the check above would catch a reader that ignores how a
 * category moves.  Deterministic: no false-failure rate.
 */
#include "unit.h"

#include "math/projection/attribute_sensitivity.h"

#define D 9
#define K 5

static double P[D * K];

/* three attributes: age (1 coordinate, weight 2), segment (4 categories, weight 3), a vector of 4 */
static const JlAttrSpan spans[] = {
	{JL_ENCODING_NUMERIC, 0, 1, 2.0},
	{JL_ENCODING_CATEGORY, 1, 4, 3.0},
	{JL_ENCODING_NUMERIC, 5, 4, 1.0},
};

static long double
lnorm(const long double *v, int norm)
{
	long double s = 0.0L;
	int			c;

	for (c = 0; c < K; c++)
		s += norm == 1 ? fabsl(v[c]) : v[c] * v[c];
	return norm == 1 ? s : sqrtl(s);
}

/* the move of x P when x changes by delta (d coordinates) */
static void
lmove(const long double *delta, long double *out)
{
	int			i,
				c;

	for (c = 0; c < K; c++)
		out[c] = 0.0L;
	for (i = 0; i < D; i++)
		for (c = 0; c < K; c++)
			out[c] += delta[i] * (long double) P[i * K + c];
}

/* every change of one attribute, enumerated; as_numeric: categories as numbers */
static long double
enumerated(int norm, bool as_numeric)
{
	long double best = 0.0L,
				delta[D],
				mv[K];
	int			j,
				a,
				b,
				i;

	for (j = 0; j < 3; j++)
	{
		const JlAttrSpan *s = &spans[j];

		for (a = 0; a < s->width; a++)
			for (b = -1; b < s->width; b++)
			{
				if (b == a || (b >= 0 && (s->encoding != JL_ENCODING_CATEGORY || as_numeric)))
					continue;
				for (i = 0; i < D; i++)
					delta[i] = 0.0L;
				delta[s->offset + a] = s->weight;
				if (b >= 0)
					delta[s->offset + b] = -s->weight;
				lmove(delta, mv);
				if (lnorm(mv, norm) > best)
					best = lnorm(mv, norm);
			}
	}
	return best;
}

static double
uniform(void)
{
	return (double) rand() / ((double) RAND_MAX + 1.0);
}

/* a random encoded row in the declared box */
static void
random_row(long double *x)
{
	int			i,
				hot = rand() % 5 - 1;	/* -1: no listed value */

	x[0] = 2.0 * uniform();
	for (i = 0; i < 4; i++)
		x[1 + i] = (i == hot) ? 3.0 : 0.0;
	for (i = 5; i < D; i++)
		x[i] = uniform();
}

/* x' = x with attribute j (0..6: age, segment, the 4 vector elements) redrawn */
static void
change_one(const long double *x, long double *y)
{
	long double fresh[D];
	int			i,
				j = rand() % 6;

	random_row(fresh);
	for (i = 0; i < D; i++)
		y[i] = x[i];
	if (j == 0)
		y[0] = fresh[0];
	else if (j == 1)
		for (i = 1; i < 5; i++)
			y[i] = fresh[i];
	else
		y[5 + (j - 2)] = fresh[5 + (j - 2)];
}

static void
test_against_enumeration(void)
{
	int			norm;

	for (norm = 1; norm <= 2; norm++)
	{
		double		s = jl_attribute_sensitivity(P, D, K, spans, 3, norm);
		long double e = enumerated(norm, false);

		check(s >= (double) e && s <= (double) e * (1.0 + 1e-12),
			  "L%d: jl_attribute_sensitivity %.17g vs enumeration %.17Lg", norm, s, e);
		check(enumerated(norm, true) < e,
			  "L%d negative control: a category taken as numbers gives %.6Lg < %.6Lg", norm,
			  enumerated(norm, true), e);
	}
}

static void
test_random_pairs(void)
{
	int			norm,
				t;

	for (norm = 1; norm <= 2; norm++)
	{
		double		s = jl_attribute_sensitivity(P, D, K, spans, 3, norm);
		long double worst = 0.0L;
		int			over = 0;

		for (t = 0; t < 10000; t++)
		{
			long double x[D],
						y[D],
						delta[D],
						mv[K];
			int			i;

			random_row(x);
			change_one(x, y);
			for (i = 0; i < D; i++)
				delta[i] = y[i] - x[i];
			lmove(delta, mv);
			if (lnorm(mv, norm) > worst)
				worst = lnorm(mv, norm);
			if (lnorm(mv, norm) > (long double) s)
				over++;
		}
		check(over == 0, "L%d: 10000 pairs differing in one attribute: none moves x P by more than %.6g (largest %.6Lg)",
			  norm, s, worst);
	}
}

static void
test_identity_and_diameter(void)
{
	double		s1 = jl_attribute_sensitivity(NULL, D, D, spans, 3, 1),
				s2 = jl_attribute_sensitivity(NULL, D, D, spans, 3, 2),
				diam = jl_attribute_diameter(spans, 3, D);
	/* age 2; the category 2 x 3 = 6 (L1), sqrt(2) x 3 (L2); elements 1 */
	check(s1 >= 6.0 && s1 < 6.0 * (1 + 1e-12), "identity L1: %.17g (a category of weight 3 moves two coordinates: 6)", s1);
	check(s2 >= 3.0 * sqrt(2.0) && s2 < 3.0 * sqrt(2.0) * (1 + 1e-12), "identity L2: %.17g (3 sqrt 2)", s2);
	/* sqrt(4 + 2 x 9 + 4 x 1) = sqrt(26) */
	check(diam >= sqrt(26.0) && diam < sqrt(26.0) * (1 + 1e-12), "diameter %.17g vs sqrt(26)", diam);
}

static void
test_refusals(void)
{
	JlAttrSpan	bad = {JL_ENCODING_NUMERIC, 7, 3, 1.0};
	JlAttrSpan	zero = {JL_ENCODING_NUMERIC, 0, 1, 0.0};
	JlAttrSpan	many = {JL_ENCODING_CATEGORY, 0, JL_MAX_CATEGORIES + 1, 1.0};

	check(jl_attribute_sensitivity(P, D, K, &bad, 1, 1) < 0, "a span past d is refused");
	check(jl_attribute_sensitivity(P, D, K, &zero, 1, 1) < 0, "a weight of 0 is refused");
	check(jl_attribute_sensitivity(NULL, 2000, 2000, &many, 1, 1) < 0, "more than %d categories are refused",
		  JL_MAX_CATEGORIES);
	check(jl_attribute_sensitivity(P, D, K, spans, 3, 3) < 0, "a norm other than 1 or 2 is refused");
	check(jl_attribute_sensitivity(NULL, D, K, spans, 3, 1) < 0, "the identity needs k = d");
	check(jl_attribute_diameter(&bad, 1, D) < 0, "the diameter refuses a span past d");
}

int
main(void)
{
	int			i;

	srand(7);
	for (i = 0; i < D * K; i++)
		P[i] = (uniform() - 0.5) * 2.0 / sqrt((double) K);
	test_against_enumeration();
	test_random_pairs();
	test_identity_and_diameter();
	test_refusals();
	return unit_done("test_attribute_sensitivity");
}
