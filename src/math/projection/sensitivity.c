/*
 * sensitivity.c - L1 and L2 sensitivities of the realized projection
 * (the L2 sensitivity for row neighbours is jl_spectral_norm).
 *
 * All results carry an upward margin for the rounding error of their own
 * computation, so the noise they calibrate is never too small.
 */
#include "math/projection/sensitivity.h"
#include "math/base/interrupt.h"
#include "math/base/fp.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* LAPACK symmetric eigensolver (Fortran calling convention). */
extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a,
				   const int *lda, double *w, double *work, const int *lwork,
				   int *info);

double
jl_max_abs(const double *P, int64_t n)
{
	double		m = 0.0;
	int64_t		i;

	for (i = 0; i < n; i++)
		if (fabs(P[i]) > m)
			m = fabs(P[i]);
	return m;
}

/* max_i of sum_j |P_ij| (squares: sum_j P_ij^2), as computed */
static double
max_row_sum(const double *P, int64_t d, int k, bool squares)
{
	double		best = 0.0;
	int64_t		i;
	int			j;

	for (i = 0; i < d; i++)
	{
		const double *row = P + i * (int64_t) k;
		double		s = 0.0;

		for (j = 0; j < k; j++)
			s += squares ? row[j] * row[j] : fabs(row[j]);
		if (s > best)
			best = s;
	}
	return best;
}

double
jl_max_row_l1(const double *P, int64_t d, int k)
{
	return max_row_sum(P, d, k, false) * (1.0 + 2.0 * jl_gamma(k + 1));
}

double
jl_row_l2_from_sq(double max_sq, int k)
{
	/* a k-term sum of squares: relative error <= gamma_{k+1}; sqrt adds u */
	return sqrt(max_sq * (1.0 + 2.0 * jl_gamma(k + 1))) * (1.0 + 2.0 * JL_U_ROUND);
}

double
jl_max_row_l2(const double *P, int64_t d, int k)
{
	return jl_row_l2_from_sq(max_row_sum(P, d, k, true), k);
}

double *
jl_gram(const double *P, int64_t d, int k)
{
	double	   *G = calloc((size_t) k * k, sizeof(double));
	int			a,
				b;

	int64_t		i,
				block = JL_GRAM_BLOCK_FLOPS / ((int64_t) k * k);

	if (G == NULL)
		return NULL;
	/*
	 * In blocks of rows of about JL_GRAM_BLOCK_FLOPS each (tens of
	 * milliseconds), so that a cancel is seen between them: the sum is
	 * still one of d terms per entry (the same error bound).
	 */
	if (block < 1)
		block = 1;
	for (i = 0; i < d; i += block)
	{
		if (jl_cancel_pending())
		{
			free(G);
			return NULL;
		}
		cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, k,
					(int) (d - i < block ? d - i : block), 1.0, P + i * k, k,
					1.0, G, k);
	}
	for (a = 0; a < k; a++)
		for (b = 0; b < a; b++)
			G[a * k + b] = G[b * k + a];
	return G;
}

double
jl_spectral_norm_gram(const double *G, int k, double gram_err)
{
	double	   *A = malloc((size_t) k * k * sizeof(double));
	double	   *w = malloc((size_t) k * sizeof(double));
	double	   *work;
	double		wq;
	double		fro = 0.0;
	int			lwork = -1,
				info = 0,
				n = k;
	int			i;

	if (A == NULL || w == NULL)
	{
		free(A);
		free(w);
		return -1.0;
	}
	memcpy(A, G, (size_t) k * k * sizeof(double));
	for (i = 0; i < k * k; i++)
		fro += G[i] * G[i];
	fro = sqrt(fro);

	dsyev_("N", "U", &n, A, &n, w, &wq, &lwork, &info);
	lwork = (int) wq;
	work = malloc((size_t) lwork * sizeof(double));
	if (work == NULL || info != 0)
	{
		free(A);
		free(w);
		free(work);
		return -1.0;
	}
	dsyev_("N", "U", &n, A, &n, w, work, &lwork, &info);
	free(work);
	free(A);
	if (info != 0)
	{
		free(w);
		return -1.0;
	}
	wq = w[k - 1];
	free(w);

	/*
	 * dsyev is backward stable: its eigenvalues are exact for G + E with
	 * ||E|| <= p(k) u ||G||; take p(k) = 16 k.  Add the error of forming G.
	 */
	wq += 16.0 * k * JL_U_ROUND * fro + gram_err;
	return sqrt(wq) * (1.0 + 2.0 * JL_U_ROUND);
}

double
jl_spectral_norm(const double *P, int64_t d, int k)
{
	double	   *G = jl_gram(P, d, k);
	double		trace = 0.0,
				r;
	int			j;

	if (G == NULL)
		return -1.0;
	for (j = 0; j < k; j++)
		trace += G[j * k + j];
	/* |s^T E s| and ||E|| are at most gamma_d k trace(G) (Cauchy-Schwarz) */
	r = jl_spectral_norm_gram(G, k, jl_gamma((double) d + 2) * k * trace);
	free(G);
	return r;
}

/*
 * max over s in {+-1}^k of s^T G s, with s_0 = +1 fixed (s and -s give the
 * same value), walking the other signs in Gray-code order: flipping s_j
 * changes v = G s by -2 s_j G[:,j] and q = s^T G s by -4 s_j v_j + 4 G_jj.
 * v and q are recomputed from scratch every RESYNC flips to stop drift.
 */
#define RESYNC 256

static void
resync(const double *G, int k, const int *s, double *v, double *q)
{
	int			a,
				b;

	*q = 0.0;
	for (a = 0; a < k; a++)
	{
		double		acc = 0.0;

		for (b = 0; b < k; b++)
			acc += G[a * k + b] * s[b];
		v[a] = acc;
		*q += s[a] * acc;
	}
}

static double
max_sign_quadratic(const double *G, int k)
{
	double	   *v = malloc((size_t) k * sizeof(double));
	int		   *s = calloc((size_t) k, sizeof(int));
	double		q,
				best;
	uint64_t	step,
				nsteps;
	int			a;

	if (v == NULL || s == NULL)
	{
		free(v);
		free(s);
		return -1.0;
	}
	for (a = 0; a < k; a++)
		s[a] = 1;
	nsteps = (k > 1) ? (UINT64_C(1) << (k - 1)) : 1;
	resync(G, k, s, v, &q);
	best = q;
	for (step = 1; step < nsteps; step++)
	{
		/* Gray code: flip sign 1 + (index of the lowest set bit of step) */
		int			j = 1 + __builtin_ctzll(step);

		s[j] = -s[j];
		if (step % RESYNC == 0)
			resync(G, k, s, v, &q);
		else
		{
			q += 4.0 * (s[j] * v[j] + G[j * k + j]);
			for (a = 0; a < k; a++)
				v[a] += 2.0 * s[j] * G[a * k + j];
		}
		if (q > best)
			best = q;
	}
	free(v);
	free(s);
	return best;
}

double
jl_row_l1_sensitivity(const double *P, int64_t d, int k, JlRowMethod *method)
{
	double	   *G = jl_gram(P, d, k);
	double		r;

	if (G == NULL)
		return -1.0;
	r = jl_row_l1_sensitivity_gram(G, d, k, method);
	free(G);
	return r;
}

double
jl_spectral_norm_from_gram(const double *G, int64_t d, int k)
{
	double		trace = 0.0;
	int			j;

	for (j = 0; j < k; j++)
		trace += G[j * k + j];
	return jl_spectral_norm_gram(G, k, jl_gamma((double) d + 2) * k * trace);
}

double
jl_row_l1_sensitivity_gram(const double *G, int64_t d, int k,
						   JlRowMethod *method)
{
	double		trace = 0.0,
				err,
				r;
	int			j;

	for (j = 0; j < k; j++)
		trace += G[j * k + j];
	err = jl_gamma((double) d + 2) * k * trace;

	if (k <= JL_ROW_ENUM_MAX_K)
	{
		double		q = max_sign_quadratic(G, k);

		if (q < 0.0)
			return -1.0;

		/*
		 * Each term of q or of an update is at most k * max|G_ab| <= k trace
		 * in magnitude; RESYNC updates of a few roundings each, plus forming
		 * q from v, bound the accumulated error.
		 */
		q += err + jl_gamma(8.0 * RESYNC + 2.0 * k) * k * trace;
		r = sqrt(q) * (1.0 + 2.0 * JL_U_ROUND);
		*method = JL_ROW_EXACT_ENUMERATION;
	}
	else
	{
		r = jl_spectral_norm_gram(G, k, err);
		if (r >= 0.0)
			r *= sqrt((double) k) * (1.0 + 2.0 * JL_U_ROUND);
		*method = JL_ROW_SPECTRAL_BOUND;
	}
	return r;
}

void
jl_identity_stats(int64_t d, JlProjStats *st)
{
	st->d = d;
	st->k = (int) d;
	st->max_abs = 1.0;
	st->max_row_l1 = 1.0;
	st->max_row_l2 = 1.0;
	st->spectral_norm = 1.0;
	/* sqrt is correctly rounded: one more ulp bounds the exact value */
	st->row_l1 = sqrt((double) d) * (1.0 + 2.0 * JL_U_ROUND);
	st->row_method = JL_ROW_EXACT_ENUMERATION;
}
