/*
 * release.c - one row released on the grid: y = x P (our kernel for one row,
 * BLAS level 3 for a batch of rows, or compensated
 * sums for rows past the floating-point allowance), rounded to the grid,
 * plus exact discrete noise.
 *
 * Release of x: y = fl(x P); n_j = round(y_j / g); z_j = g (n_j + N_j) with
 * N_j discrete Laplace of integer scale t, or discrete Gaussian of integer
 * sigma t.  For neighbours x, x':
 *   |n_j g - n'_j g| <= |y_j - y'_j| + g            (rounding, each side g/2)
 *   |fl(y_j) - y_j|  <= gamma_d ||x||_1 max|P| <= g/4   (checked per row)
 * so the rounded projections differ by at most D1 + 1.5 k g in L1 and
 * D2 + 1.5 sqrt(k) g in L2 (D1, D2 the sensitivities of the exact x P),
 * which calibrate.c accounts for.  The output lies on the grid, so its low
 * bits carry nothing about x (Mironov 2012), and the noise is sampled
 * exactly.
 */
#include "math/projection/release.h"
#include "math/base/fp.h"
#include "math/noise/gaussian.h"
#include "math/projection/grid.h"
#include "math/noise/laplace.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* output and grid indices stay below 2^51 so g * n is exact */
#define JL_MAX_GRID_INDEX 2251799813685248.0
/* projections saturate at 2^49 grid steps (see jl_noise_on_grid) */
#define JL_SATURATE 562949953421312.0
/* 1.5 * 2^52: adding and subtracting it rounds |q| < 2^51 to an integer */
#define JL_ROUND_MAGIC 6755399441055744.0

/*
 * y = x P for one row: each y_j = sum_i x_i P_ij summed in row order, with
 * separate multiplications and additions (no fused multiply-add), so the
 * error bound of fp.h holds as for any order.  Twenty columns at a time in
 * five 4-wide vector accumulators (GCC's vector extension: two SSE2
 * registers each, or one AVX2 register in the clone chosen at load time on
 * x86-64 processors that have it).  Faster than OpenBLAS's dgemv for every
 * shape make bench measures (d = 10 to 10,000, k = 5 to 100): the call
 * overhead and the transposed access dominate at these sizes.
 */
typedef double jl_f64x4 __attribute__((vector_size(32)));

#define LD4(p) ({ jl_f64x4 v_; memcpy(&v_, (p), sizeof(v_)); v_; })
#define ST4(p, v) do { jl_f64x4 v_ = (v); memcpy((p), &v_, sizeof(v_)); } while (0)

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void
project_kernel(const double *restrict P, int64_t d, int k,
			   const double *restrict x, double *restrict y)
{
	int			j = 0;
	int64_t		i;

	for (; j + 20 <= k; j += 20)
	{
		jl_f64x4	a0 = {0},
					a1 = {0},
					a2 = {0},
					a3 = {0},
					a4 = {0};

		for (i = 0; i < d; i++)
		{
			const double *p = P + i * (int64_t) k + j;
			jl_f64x4	xi = {x[i], x[i], x[i], x[i]};

			a0 += xi * LD4(p);
			a1 += xi * LD4(p + 4);
			a2 += xi * LD4(p + 8);
			a3 += xi * LD4(p + 12);
			a4 += xi * LD4(p + 16);
		}
		ST4(y + j, a0);
		ST4(y + j + 4, a1);
		ST4(y + j + 8, a2);
		ST4(y + j + 12, a3);
		ST4(y + j + 16, a4);
	}
	for (; j + 4 <= k; j += 4)
	{
		jl_f64x4	a0 = {0};

		for (i = 0; i < d; i++)
		{
			jl_f64x4	xi = {x[i], x[i], x[i], x[i]};

			a0 += xi * LD4(P + i * (int64_t) k + j);
		}
		ST4(y + j, a0);
	}
	for (; j < k; j++)
	{
		double		a = 0.0;

		for (i = 0; i < d; i++)
			a += x[i] * P[i * (int64_t) k + j];
		y[j] = a;
	}
}

void
jl_project_vec(const double *P, int64_t d, int k, const double *x, double *y)
{
	if (P == NULL)
	{
		memcpy(y, x, sizeof(double) * d);
		return;
	}
	project_kernel(P, d, k, x, y);
}

void
jl_project_vec_compensated(const double *P, int64_t d, int k, const double *x,
						   double *y)
{
	int			j;

	if (P == NULL)
	{
		memcpy(y, x, sizeof(double) * d);
		return;
	}
	for (j = 0; j < k; j++)
	{
		double		s = 0.0,
					c = 0.0;
		int64_t		i;

		for (i = 0; i < d; i++)
		{
			double		p = x[i] * P[i * (int64_t) k + j];
			double		pe = fma(x[i], P[i * (int64_t) k + j], -p);	/* exact */
			double		t,
						te;

			jl_two_sum(s, p, &t, &te);
			s = t;
			c += te + pe;
		}
		y[j] = s + c;
	}
}

void
jl_project_rows(const double *P, int64_t d, int k, const double *X, int64_t n,
				double *Y)
{
	if (P == NULL)
		memcpy(Y, X, sizeof(double) * d * n);
	else if (n == 1)
		jl_project_vec(P, d, k, X, Y);	/* the same sums as a single row's */
	else
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) n, k,
					(int) d, 1.0, X, (int) d, P, k, 0.0, Y, k);
}

uint64_t
jl_noise_table_entries(const JlMechanism *m)
{
	if (m->noise == JL_NOISE_GAUSSIAN)
		return jl_gaussian_table_entries(m->t);
	return jl_laplace_table_entries(m->t);
}

void
jl_noise_table_fill(const JlMechanism *m, uint32_t *table)
{
	if (m->noise == JL_NOISE_GAUSSIAN)
		jl_gaussian_table_fill(m->t, table);
	else
		jl_laplace_table_fill(m->t, table);
}

double
jl_saturation_level(const JlMechanism *m)
{
	return JL_SATURATE * m->grid;
}

double
jl_within_bound_level(const JlMechanism *m, bool identity)
{
	double		col;

	if (identity)
		col = 1.0;
	else if (m->neighbor == JL_NEIGHBOR_ROW)
		col = sqrt((double) m->d) * m->max_abs;
	else
		col = (double) m->d * m->max_abs;
	return m->bound * col;
}

JlStatus
jl_noise_on_grid(const JlMechanism *m, double *y, JlRandom *r)
{
	double		inv_grid = 1.0 / m->grid;
	int64_t		noise[64];
	int			j0;

	for (j0 = 0; j0 < m->k; j0 += 64)
	{
		int			n = m->k - j0 < 64 ? m->k - j0 : 64;
		int			i;

		/* the row's noise first (coordinate order), then the grid */
		if (m->noise != JL_NOISE_GAUSSIAN)
			jl_discrete_laplace_table_n(r, m->t, m->noise_table, noise, n);
		else if (m->noise_table_full)
			jl_discrete_gaussian_table_n(r, m->t, m->noise_table, noise, n);
		else
			for (i = 0; i < n; i++)
				noise[i] = jl_discrete_gaussian(r, m->t, m->noise_table);

		for (i = 0; i < n; i++)
		{
			/* grid is a power of two: multiplying by its inverse is exact */
			double		q = y[j0 + i] * inv_grid;
			double		rounded;
			double		z;

			/*
			 * Saturate instead of refusing: clamping is 1-Lipschitz, so it
			 * adds nothing to the sensitivity, and an error here would
			 * depend on the data.  2^49 grid steps is about 10^10 bound.
			 */
			q = q > JL_SATURATE ? JL_SATURATE : (q < -JL_SATURATE ? -JL_SATURATE : q);
			/* round to nearest (even): exact for |q| < 2^51, no libm call */
			rounded = (q + JL_ROUND_MAGIC) - JL_ROUND_MAGIC;
			z = (double) ((int64_t) rounded + noise[i]);
			/* depends on the noise only, never reached in practice (e^-256) */
			if (!(fabs(z) < 4.0 * JL_MAX_GRID_INDEX))
				return JL_ERR_OUTPUT_RANGE;
			y[j0 + i] = z * m->grid;
		}
	}
	return JL_OK;
}

JlStatus
jl_release_row(const JlMechanism *m, const double *P, const double *x,
					   double *out, JlRandom *r)
{
	int			cls = jl_row_class(m, x);
	double	   *work = NULL;

	if (cls & JL_ROW_CLAMP)
	{
		work = malloc(sizeof(double) * m->d);
		if (work == NULL)
			return JL_ERR_ROW_MAGNITUDE;
		memcpy(work, x, sizeof(double) * m->d);
		jl_row_clamp(m, work);
		x = work;
	}
	if (cls & JL_ROW_COMPENSATED)
		jl_project_vec_compensated(P, m->d, m->k, x, out);
	else
		jl_project_vec(P, m->d, m->k, x, out);
	free(work);
	return jl_noise_on_grid(m, out, r);
}
