/*
 * csr.c - products with the nonzeros of a sparse projection matrix.
 */
#include "math/projection/csr.h"
#include "math/projection/grid.h"
#include "math/projection/release.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t
jl_csr_count(const double *P, int64_t d, int k)
{
	int64_t		n = 0,
				i;

	for (i = 0; i < d * (int64_t) k; i++)
		n += P[i] != 0.0;
	return n;
}

void
jl_csr_fill(const double *P, int64_t d, int k, JlCsr *S)
{
	int64_t		i,
				n = 0;
	int			j;

	S->d = d;
	S->k = k;
	for (i = 0; i < d; i++)
	{
		const double *row = P + i * (int64_t) k;

		S->rowptr[i] = n;
		for (j = 0; j < k; j++)
			if (row[j] != 0.0)
			{
				S->col[n] = j;
				S->val[n] = row[j];
				n++;
			}
	}
	S->rowptr[d] = n;
	S->nnz = n;

	/* by columns: counts, offsets, then the rows in increasing order */
	for (j = 0; j <= k; j++)
		S->colptr[j] = 0;
	for (i = 0; i < n; i++)
		S->colptr[S->col[i] + 1]++;
	for (j = 0; j < k; j++)
		S->colptr[j + 1] += S->colptr[j];
	{
		int64_t    *next = S->colptr;	/* advanced below, then restored */

		for (i = 0; i < d; i++)
		{
			int64_t		p;

			for (p = S->rowptr[i]; p < S->rowptr[i + 1]; p++)
			{
				int64_t		q = next[S->col[p]]++;

				S->row[q] = (int32_t) i;
				S->cval[q] = S->val[p];
			}
		}
		for (j = k; j > 0; j--)
			S->colptr[j] = S->colptr[j - 1];
		S->colptr[0] = 0;
	}
}

/* y += v P_i */
static inline void
add_row(const JlCsr *S, int64_t i, double v, double *y)
{
	int64_t		p,
				end = S->rowptr[i + 1];

	for (p = S->rowptr[i]; p < end; p++)
		y[S->col[p]] += v * S->val[p];
}

void
jl_csr_project_vec(const JlCsr *S, const double *x, double *y)
{
	int			j;

	for (j = 0; j < S->k; j++)
	{
		double		s = 0.0;
		int64_t		p,
					end = S->colptr[j + 1];

		for (p = S->colptr[j]; p < end; p++)
			s += x[S->row[p]] * S->cval[p];
		y[j] = s;
	}
}

void
jl_csr_project_rows(const JlCsr *S, const double *X, int64_t n, double *Y)
{
	int64_t		r;

	for (r = 0; r < n; r++)
		jl_csr_project_vec(S, X + r * S->d, Y + r * S->k);
}

void
jl_csr_project_pairs(const JlCsr *S, const JlSparsePair *pairs, int64_t n,
					 double limit, double *y)
{
	int64_t		i;

	memset(y, 0, sizeof(double) * S->k);
	for (i = 0; i < n; i++)
	{
		/* fmin/fmax map a NaN sum of overflowed duplicates into range */
		double		v = fmax(-limit, fmin(pairs[i].value, limit));

		add_row(S, pairs[i].attr - 1, v, y);
	}
}

JlStatus
jl_release_row_csr(const JlMechanism *m, const JlCsr *S,
						   const double *P, const double *x, double *out,
						   JlRandom *r)
{
	int			cls = jl_row_class(m, x);

	if (cls != JL_ROW_PLAIN)
		return jl_release_row(m, P, x, out, r);
	jl_csr_project_vec(S, x, out);
	return jl_noise_on_grid(m, out, r);
}
