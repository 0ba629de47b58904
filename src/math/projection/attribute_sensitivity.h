/*
 * attribute_sensitivity.h - the sensitivity of a projected row to one
 * declared attribute of a protected table, whose encoding may span several
 * coordinates of the row (a one-hot category moves two).
 *
 * The encoded row x has d coordinates; attribute j occupies the span
 * [offset, offset + width).  A numeric attribute (and each element of a
 * vector attribute: an element is an attribute of its own) is one
 * coordinate in [0, weight]; a category is width coordinates of which at
 * most one is weight and the others 0 (a value outside the list, or NULL,
 * encodes as all zeros).  When attribute j changes, x P moves by
 *   numeric:   t P_c,              |t| <= weight, c in the span;
 *   category:  weight (P_a - P_b)  or  weight P_a,  a != b in the span.
 * The sensitivity of the release to one attribute is the largest norm
 * (L1 for Laplace noise, L2 for Gaussian) of such a move over every
 * attribute, computed from the realized P and rounded upward.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_ATTRIBUTE_SENSITIVITY_H
#define JLDP_MATH_ATTRIBUTE_SENSITIVITY_H

#include <stdbool.h>
#include <stdint.h>

typedef enum JlEncoding
{
	JL_ENCODING_NUMERIC = 0,	/* width coordinates, each an attribute in [0, weight] */
	JL_ENCODING_CATEGORY = 1	/* width coordinates, one-hot with value weight */
} JlEncoding;

typedef struct JlAttrSpan
{
	JlEncoding	encoding;
	int64_t		offset;
	int64_t		width;
	double		weight;
} JlAttrSpan;

/* The most categories one attribute may list (pairs cost width^2 k). */
#define JL_MAX_CATEGORIES 1000

/*
 * max over the n spans of the largest move of x P when one attribute
 * changes, in the L1 (norm 1) or L2 (norm 2) norm; P is d x k row-major,
 * or NULL for the identity (k = d).  Rounded upward.  Returns -1 if a span
 * lies outside [0, d), a weight is not finite and > 0, a category has more
 * than JL_MAX_CATEGORIES coordinates, or norm is not 1 or 2.  Interruptible
 * (jl_interrupt_check between attributes and pairs of rows).
 */
double		jl_attribute_sensitivity(const double *P, int64_t d, int k,
									 const JlAttrSpan *spans, int n, int norm);

/*
 * The L2 diameter of the encoded box: the largest ||x - x'||_2 for two rows
 * of the declared encoding, sqrt(sum numeric width weight^2 + sum category
 * 2 weight^2), rounded upward (a category of one coordinate counts
 * weight^2).  -1 on the same errors as above.
 */
double		jl_attribute_diameter(const JlAttrSpan *spans, int n, int64_t d);

#endif
