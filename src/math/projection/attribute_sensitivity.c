/*
 * attribute_sensitivity.c - see attribute_sensitivity.h.
 *
 * Rounding: a norm of a k-term vector whose entries carry one rounding each
 * (a difference, or none) is within a factor 1 + gamma_{k+2} of the exact
 * one; the product by the weight adds one more rounding.  Every result is
 * inflated by 1 + 2 gamma_{k+3}, which covers both, so that floating point
 * never makes a sensitivity smaller than the true one.
 */
#include "math/projection/attribute_sensitivity.h"

#include <math.h>
#include <stddef.h>

#include "math/base/fp.h"
#include "math/base/interrupt.h"

/* ||row a - row b||, or ||row a|| when b < 0 (squared for L2) */
static double
row_diff_norm(const double *P, int k, int64_t a, int64_t b, int norm)
{
	const double *pa = P + a * (int64_t) k;
	const double *pb = b >= 0 ? P + b * (int64_t) k : NULL;
	double		s = 0.0;
	int			c;

	for (c = 0; c < k; c++)
	{
		double		v = pb ? pa[c] - pb[c] : pa[c];

		s += norm == 1 ? fabs(v) : v * v;
	}
	return s;
}

static bool
span_ok(const JlAttrSpan *s, int64_t d)
{
	if (!(isfinite(s->weight) && s->weight > 0.0))
		return false;
	if (s->offset < 0 || s->width < 1 || s->offset > d - s->width)
		return false;
	if (s->encoding == JL_ENCODING_CATEGORY && s->width > JL_MAX_CATEGORIES)
		return false;
	return s->encoding == JL_ENCODING_NUMERIC || s->encoding == JL_ENCODING_CATEGORY;
}

/* the largest move of one span, before the final rounding allowance */
static double
span_sensitivity(const double *P, int k, const JlAttrSpan *s, int norm)
{
	double		best = 0.0;
	int64_t		a,
				b;

	if (P == NULL)
	{
		/* the identity: a coordinate moves alone, a category two at once */
		if (s->encoding == JL_ENCODING_CATEGORY && s->width > 1)
			return s->weight * (norm == 1 ? 2.0 : sqrt(2.0));
		return s->weight;
	}
	for (a = s->offset; a < s->offset + s->width; a++)
	{
		double		v = row_diff_norm(P, k, a, -1, norm);

		if (v > best)
			best = v;
		if (s->encoding != JL_ENCODING_CATEGORY)
			continue;
		for (b = s->offset; b < a; b++)
		{
			v = row_diff_norm(P, k, a, b, norm);
			if (v > best)
				best = v;
		}
		jl_interrupt_check();
	}
	if (norm == 2)
		best = sqrt(best);
	return s->weight * best;
}

double
jl_attribute_sensitivity(const double *P, int64_t d, int k,
						 const JlAttrSpan *spans, int n, int norm)
{
	double		best = 0.0;
	int			j;

	if ((norm != 1 && norm != 2) || n < 1 || k < 1 || (P == NULL && k != d))
		return -1.0;
	for (j = 0; j < n; j++)
	{
		double		v;

		if (!span_ok(&spans[j], d))
			return -1.0;
		v = span_sensitivity(P, k, &spans[j], norm);
		if (v > best)
			best = v;
		jl_interrupt_check();
	}
	/* the roundings of the sums, the square root and the weight */
	return best * (1.0 + 2.0 * jl_gamma(k + 3));
}

double
jl_attribute_diameter(const JlAttrSpan *spans, int n, int64_t d)
{
	double		s = 0.0;
	int			j;

	if (n < 1)
		return -1.0;
	for (j = 0; j < n; j++)
	{
		const JlAttrSpan *a = &spans[j];
		double		w2;

		if (!span_ok(a, d))
			return -1.0;
		w2 = a->weight * a->weight;
		if (a->encoding == JL_ENCODING_CATEGORY)
			s += a->width > 1 ? 2.0 * w2 : w2;
		else
			s += (double) a->width * w2;
	}
	return sqrt(s * (1.0 + 2.0 * jl_gamma(n + 2))) * (1.0 + 2.0 * JL_U_ROUND);
}
