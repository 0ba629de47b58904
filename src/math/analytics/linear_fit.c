/*
 * linear_fit.c - sufficient statistics of a linear least-squares fit and
 * its solution (see linear_fit.h).
 */
#include "math/analytics/linear_fit.h"
#include "math/base/fp.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a,
				   const int *lda, double *w, double *work, const int *lwork,
				   int *info);

size_t
jl_lin_stats_doubles(int d, int m)
{
	size_t		dd = (size_t) d,
				mm = (size_t) m;

	if (d < 1 || m < 1 || dd > SIZE_MAX / 8 / dd || mm > SIZE_MAX / 8 / dd)
		return 0;
	return dd + mm + dd * dd + dd * mm;
}

void
jl_lin_stats_init(JlLinStats *st, int d, int m, double *buf)
{
	st->d = d;
	st->m = m;
	st->n = 0;
	memset(buf, 0, jl_lin_stats_doubles(d, m) * sizeof(double));
	st->mx = buf;
	st->my = st->mx + d;
	st->Sxx = st->my + m;
	st->Sxy = st->Sxx + (size_t) d * d;
}

/*
 * Add to a the statistics (nb, mxb, myb, Sxx_b, Sxy_b) where Sxx_b and Sxy_b
 * have already been added to a's (only the cross term and the means
 * remain): S += (na nb / n) delta delta^T, mean += (nb / n) delta.
 */
static void
chan_update(JlLinStats *a, int64_t nb, const double *mxb, const double *myb,
			double *dx, double *dy)
{
	int			d = a->d,
				m = a->m,
				i;
	int64_t		na = a->n,
				n = na + nb;
	double		f,
				w;

	if (nb == 0)
		return;
	for (i = 0; i < d; i++)
		dx[i] = mxb[i] - a->mx[i];
	for (i = 0; i < m; i++)
		dy[i] = myb[i] - a->my[i];
	w = (double) nb / (double) n;
	f = (double) na * w;		/* na nb / n */
	if (na > 0)
	{
		cblas_dsyr(CblasRowMajor, CblasUpper, d, f, dx, 1, a->Sxx, d);
		cblas_dger(CblasRowMajor, d, m, f, dx, 1, dy, 1, a->Sxy, m);
	}
	for (i = 0; i < d; i++)
		a->mx[i] += w * dx[i];
	for (i = 0; i < m; i++)
		a->my[i] += w * dy[i];
	a->n = n;
}

void
jl_lin_stats_add_batch(JlLinStats *st, double *X, double *Y, int b,
					   double *work)
{
	int			d = st->d,
				m = st->m,
				r,
				i;
	double	   *mxb,
			   *myb;

	if (b <= 0)
		return;
	mxb = work;
	myb = mxb + d;
	memset(mxb, 0, sizeof(double) * (d + m));
	for (r = 0; r < b; r++)
	{
		for (i = 0; i < d; i++)
			mxb[i] += X[(size_t) r * d + i];
		for (i = 0; i < m; i++)
			myb[i] += Y[(size_t) r * m + i];
	}
	for (i = 0; i < d; i++)
		mxb[i] /= b;
	for (i = 0; i < m; i++)
		myb[i] /= b;
	for (r = 0; r < b; r++)
	{
		for (i = 0; i < d; i++)
			X[(size_t) r * d + i] -= mxb[i];
		for (i = 0; i < m; i++)
			Y[(size_t) r * m + i] -= myb[i];
	}
	/* the batch's centred co-moments, added straight into the state */
	cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, d, b, 1.0, X, d, 1.0,
				st->Sxx, d);
	cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, d, m, b, 1.0, X, d,
				Y, m, 1.0, st->Sxy, m);
	chan_update(st, b, mxb, myb, mxb + d + m, mxb + d + m + d);
}

void
jl_lin_stats_combine(JlLinStats *a, const JlLinStats *b, double *work)
{
	size_t		i,
				dd = (size_t) a->d * a->d,
				dm = (size_t) a->d * a->m;
	if (b->n == 0)
		return;
	if (a->n == 0)
	{
		memcpy(a->mx, b->mx, jl_lin_stats_doubles(a->d, a->m) * sizeof(double));
		a->n = b->n;
		return;
	}
	for (i = 0; i < dd; i++)
		a->Sxx[i] += b->Sxx[i];
	for (i = 0; i < dm; i++)
		a->Sxy[i] += b->Sxy[i];
	chan_update(a, b->n, b->mx, b->my, work, work + a->d);
}

JlLinStatus
jl_lin_solve(const JlLinStats *st, double ridge, bool intercept, double *W,
			 double *b, int *rank)
{
	int			d = st->d,
				m = st->m,
				i,
				j,
				lwork = -1,
				info = 0,
				r = 0;
	double	   *G = malloc((size_t) d * d * sizeof(double));
	double	   *R = malloc((size_t) d * m * sizeof(double));
	double	   *T = malloc((size_t) d * m * sizeof(double));
	double	   *lam = malloc((size_t) d * sizeof(double));
	double	   *work = NULL,
				wq = 0.0,
				tol;
	JlLinStatus status = JL_LIN_NO_MEMORY;

	*rank = 0;
	if (G == NULL || R == NULL || T == NULL || lam == NULL)
		goto done;
	/* the full symmetric G from the upper triangle */
	for (i = 0; i < d; i++)
		for (j = i; j < d; j++)
			G[(size_t) i * d + j] = G[(size_t) j * d + i] = st->Sxx[(size_t) i * d + j];
	memcpy(R, st->Sxy, (size_t) d * m * sizeof(double));
	if (!intercept)
	{
		/* raw moments: S + n mean mean^T */
		double		n = (double) st->n;

		for (i = 0; i < d; i++)
		{
			for (j = 0; j < d; j++)
				G[(size_t) i * d + j] += n * st->mx[i] * st->mx[j];
			for (j = 0; j < m; j++)
				R[(size_t) i * m + j] += n * st->mx[i] * st->my[j];
		}
	}
	for (i = 0; i < d; i++)
		G[(size_t) i * d + i] += ridge;

	/* G = V diag(lam) V^T (symmetric: row- and column-major agree) */
	dsyev_("V", "U", &d, G, &d, lam, &wq, &lwork, &info);
	if (info != 0)
	{
		status = JL_LIN_LAPACK_FAILED;
		goto done;
	}
	lwork = (int) wq;
	work = malloc((size_t) lwork * sizeof(double));
	if (work == NULL)
		goto done;
	dsyev_("V", "U", &d, G, &d, lam, work, &lwork, &info);
	if (info != 0)
	{
		status = JL_LIN_LAPACK_FAILED;
		goto done;
	}
	/* column k of V is G[k*d .. k*d + d-1] in column-major, i.e. row k of
	 * the row-major array: V^T is G as stored row-major */
	tol = (double) d * DBL_EPSILON * (lam[d - 1] > 0.0 ? lam[d - 1] : 0.0);
	/* T = V^T R, scaled by 1/lam */
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, d, m, d, 1.0, G, d,
				R, m, 0.0, T, m);
	for (i = 0; i < d; i++)
	{
		double		inv = 0.0;

		if (lam[i] > tol && lam[i] > 0.0)
		{
			inv = 1.0 / lam[i];
			r++;
		}
		for (j = 0; j < m; j++)
			T[(size_t) i * m + j] *= inv;
	}
	/* W = V T */
	cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, d, m, d, 1.0, G, d,
				T, m, 0.0, W, m);
	if (b != NULL)
	{
		for (j = 0; j < m; j++)
		{
			double		v = intercept ? st->my[j] : 0.0;

			if (intercept)
				for (i = 0; i < d; i++)
					v -= W[(size_t) i * m + j] * st->mx[i];
			b[j] = v;
		}
	}
	*rank = r;
	status = JL_LIN_OK;
done:
	free(G);
	free(R);
	free(T);
	free(lam);
	free(work);
	return status;
}
