/*
 * sparse.c - long-format input: pair lists, x P from rows of P generated on
 * demand, and the sensitivities of P streamed row by row.
 *
 * Row i of P depends only on (key, kind, k, i), so a sparse x needs only the
 * rows of its nonzero attributes, and the sensitivities (a maximum over rows,
 * and the Gram matrix P^T P, a sum over rows) can be accumulated over rows
 * generated a block at a time: memory O(k^2) instead of O(d k).
 */
#include "math/projection/sparse.h"
#include "math/base/fp.h"
#include "math/projection/grid.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- sorting pairs by attribute: introsort, in place ---- */

#define INSERTION_MAX 16

static void
insertion_sort(JlSparsePair *a, int64_t n)
{
	int64_t		i,
				j;

	for (i = 1; i < n; i++)
	{
		JlSparsePair v = a[i];

		for (j = i; j > 0 && a[j - 1].attr > v.attr; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

static void
sift_down(JlSparsePair *a, int64_t root, int64_t n)
{
	JlSparsePair v = a[root];

	for (;;)
	{
		int64_t		c = 2 * root + 1;

		if (c >= n)
			break;
		if (c + 1 < n && a[c + 1].attr > a[c].attr)
			c++;
		if (a[c].attr <= v.attr)
			break;
		a[root] = a[c];
		root = c;
	}
	a[root] = v;
}

static void
heap_sort(JlSparsePair *a, int64_t n)
{
	int64_t		i;

	for (i = n / 2 - 1; i >= 0; i--)
		sift_down(a, i, n);
	for (i = n - 1; i > 0; i--)
	{
		JlSparsePair t = a[0];

		a[0] = a[i];
		a[i] = t;
		sift_down(a, 0, i);
	}
}

static void
swap_pairs(JlSparsePair *a, JlSparsePair *b)
{
	JlSparsePair t = *a;

	*a = *b;
	*b = t;
}

/* quicksort on the larger part by iteration, the smaller by recursion */
static void
intro_sort(JlSparsePair *a, int64_t n, int depth)
{
	while (n > INSERTION_MAX)
	{
		int64_t		mid = n / 2,
					i,
					j;
		int32_t		pivot;

		if (depth-- <= 0)
		{
			heap_sort(a, n);	/* adversarial input: O(n log n) anyway */
			return;
		}
		/* median of three into a[mid] */
		if (a[mid].attr < a[0].attr)
			swap_pairs(&a[mid], &a[0]);
		if (a[n - 1].attr < a[mid].attr)
		{
			swap_pairs(&a[n - 1], &a[mid]);
			if (a[mid].attr < a[0].attr)
				swap_pairs(&a[mid], &a[0]);
		}
		pivot = a[mid].attr;
		/* Hoare partition */
		i = -1;
		j = n;
		for (;;)
		{
			do
				i++;
			while (a[i].attr < pivot);
			do
				j--;
			while (a[j].attr > pivot);
			if (i >= j)
				break;
			swap_pairs(&a[i], &a[j]);
		}
		/* a[0..j] <= pivot <= a[j+1..n-1] */
		if (j + 1 < n - (j + 1))
		{
			intro_sort(a, j + 1, depth);
			a += j + 1;
			n -= j + 1;
		}
		else
		{
			intro_sort(a + j + 1, n - (j + 1), depth);
			n = j + 1;
		}
	}
	insertion_sort(a, n);
}

int64_t
jl_sparse_compact(JlSparsePair *pairs, int64_t n)
{
	int64_t		i,
				m = 0;
	int			depth = 0;

	if (n <= 1)
		return n;
	for (i = n; i > 0; i >>= 1)
		depth += 2;
	intro_sort(pairs, n, depth);
	for (i = 0; i < n; i++)
	{
		if (m > 0 && pairs[m - 1].attr == pairs[i].attr)
			pairs[m - 1].value += pairs[i].value;
		else
			pairs[m++] = pairs[i];
	}
	return m;
}

/* ---- x P ---- */

static inline double
clamp(double v, double limit)
{
	/* fmin/fmax also map a NaN sum (of overflowed duplicates) into range */
	return fmax(-limit, fmin(v, limit));
}

/*
 * The row of P for pair's attribute: from the dense P when there is one,
 * otherwise generated into rowbuf.  Generated rows of a kind with zeros
 * give only their nonzeros, with their columns in idx (*cols = idx; adding
 * v * 0 changes no sum, plain or compensated, so the result is the same);
 * otherwise *cols = NULL and all k entries are returned.  Returns the
 * number of entries, *vals the entries.
 */
static inline int
pair_row(const JlSparsePair *pair, const uint8_t key[JL_KEY_BYTES],
		 JlKind kind, int k, const double *P, double *rowbuf, int32_t *idx,
		 const double **vals, const int32_t **cols)
{
	uint32_t	i = (uint32_t) (pair->attr - 1);

	*cols = NULL;
	*vals = rowbuf;
	if (JL_KIND_IS_IDENTITY(kind))
	{
		/* row i of I: one 1 in column i (attributes beyond k have none) */
		*cols = idx;
		idx[0] = (int32_t) i;
		rowbuf[0] = 1.0;
		return i < (uint32_t) k ? 1 : 0;
	}
	if (P != NULL)
	{
		*vals = P + (int64_t) i * k;
		return k;
	}
	if (jl_kind_density(kind) < 1.0)
	{
		*cols = idx;
		return jl_projection_row_nz(key, kind, k, i, rowbuf, idx);
	}
	jl_projection_row(key, kind, k, i, rowbuf);
	return k;
}

/*
 * y = sum over pairs of clamp(value) P_(attr - 1), in pair order per
 * coordinate; with cbuf, every product and sum is compensated (fma
 * products, two-sum accumulation into cbuf, added at the end).
 */
static void
sparse_project(const JlSparsePair *pairs, int64_t n,
			   const uint8_t key[JL_KEY_BYTES], JlKind kind, int k,
			   const double *P, double *rowbuf, double limit, double *cbuf,
			   double *y)
{
	int32_t		idx[JL_MAX_K];
	int64_t		i;
	int			j;

	for (j = 0; j < k; j++)
	{
		y[j] = 0.0;
		if (cbuf != NULL)
			cbuf[j] = 0.0;
	}
	for (i = 0; i < n; i++)
	{
		const double *row;
		const int32_t *cols;
		int			nz = pair_row(&pairs[i], key, kind, k, P, rowbuf, idx,
								  &row, &cols);
		double		v = clamp(pairs[i].value, limit);

		for (j = 0; j < nz; j++)
		{
			int			c = cols ? cols[j] : j;
			double		p = v * row[j];

			if (cbuf == NULL)
				y[c] += p;
			else
			{
				double		pe = fma(v, row[j], -p);	/* exact */
				double		t,
							te;

				jl_two_sum(y[c], p, &t, &te);
				y[c] = t;
				cbuf[c] += te + pe;
			}
		}
	}
	if (cbuf != NULL)
		for (j = 0; j < k; j++)
			y[j] += cbuf[j];
}

void
jl_sparse_project(const JlSparsePair *pairs, int64_t n,
				  const uint8_t key[JL_KEY_BYTES], JlKind kind, int k,
				  const double *P, double *rowbuf, double limit, double *y)
{
	sparse_project(pairs, n, key, kind, k, P, rowbuf, limit, NULL, y);
}

void
jl_sparse_project_compensated(const JlSparsePair *pairs, int64_t n,
							  const uint8_t key[JL_KEY_BYTES], JlKind kind,
							  int k, const double *P, double *rowbuf,
							  double limit, double *cbuf, double *y)
{
	sparse_project(pairs, n, key, kind, k, P, rowbuf, limit, cbuf, y);
}

int
jl_sparse_row_class(const JlMechanism *m, const JlSparsePair *pairs, int64_t n)
{
	double		lim = m->input_limit;
	double		l1 = 0.0;
	int			cls = JL_ROW_PLAIN;
	int64_t		i;

	for (i = 0; i < n; i++)
	{
		double		a = fabs(pairs[i].value);

		/* !(a <= lim): NaN, the sum of overflowed duplicates, is clamped */
		if (!(a <= lim))
		{
			cls |= JL_ROW_CLAMP;
			a = lim;
		}
		l1 += a;
	}
	/* as jl_row_class, with the dense row's dimension */
	if (!jl_fp_within_allowance(l1, m->d, m->max_abs, m->fp_allowance))
		cls |= JL_ROW_COMPENSATED;
	return cls;
}

/* ---- sensitivities streamed over the rows of P ---- */

void
jl_stream_rows(const uint8_t key[JL_KEY_BYTES], JlKind kind, int k,
			   int64_t first, int64_t n, double *buf, JlStreamStats *st,
			   double *G)
{
	int64_t		i;
	double		v;

	for (i = 0; i < n; i++)
		jl_projection_row(key, kind, k, (uint32_t) (first + i), buf + i * k);

	/*
	 * jl_max_row_l1 is the maximum of the rows' L1 norms times a constant
	 * (rounded): the maximum over blocks of it is the value over all rows.
	 */
	v = jl_max_abs(buf, n * k);
	if (v > st->max_abs)
		st->max_abs = v;
	v = jl_max_row_l1(buf, n, k);
	if (v > st->max_row_l1)
		st->max_row_l1 = v;
	v = jl_max_row_l2(buf, n, k);
	if (v > st->max_row_l2)
		st->max_row_l2 = v;
	if (G != NULL)
		cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, k, (int) n, 1.0,
					buf, k, 1.0, G, k);
}

