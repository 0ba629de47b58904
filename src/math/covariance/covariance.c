/*
 * covariance.c - the covariance release's linear algebra: BLAS level 3 for
 * the release, LAPACK for sigma_min, PCA and least squares.
 */
#include "math/covariance/covariance.h"
#include "math/base/fp.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* LAPACK (Fortran calling convention), from OpenBLAS */
extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a,
				   const int *lda, double *w, double *work, const int *lwork,
				   int *info);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda,
					int *info);
extern void dposv_(const char *uplo, const int *n, const int *nrhs, double *a,
				   const int *lda, double *b, const int *ldb, int *info);

/* x scaled to L2 norm <= C if its squared norm n2 exceeds C^2 */
static int
clip_scale(double *x, int d, double n2, double C)
{
	int			i;

	if (n2 <= C * C)
		return 0;
	{
		/* a hair inside, so rounding cannot leave the norm above C */
		double		s = C / sqrt(n2) * (1.0 - 1e-12);

		for (i = 0; i < d; i++)
			x[i] *= s;
	}
	return 1;
}

int
jl_cov_clip(double *x, int d, double C)
{
	double		n2 = 0.0;
	int			i;

	for (i = 0; i < d; i++)
		n2 += x[i] * x[i];
	return clip_scale(x, d, n2, C);
}

void
jl_cov_clip_rows(double *X, int n, int d, double C)
{
	size_t		dd = (size_t) d;
	int			i = 0,
				j;

	/*
	 * Eight rows side by side: each row's sum is the chain of jl_cov_clip,
	 * in the same order (so the same bits), and the eight chains overlap
	 * where one would wait for each addition in turn.
	 */
	for (; i + 8 <= n; i += 8)
	{
		double	   *x = X + (size_t) i * dd;
		const double *x0 = x,
				   *x1 = x0 + dd,
				   *x2 = x1 + dd,
				   *x3 = x2 + dd,
				   *x4 = x3 + dd,
				   *x5 = x4 + dd,
				   *x6 = x5 + dd,
				   *x7 = x6 + dd;
		double		n0 = 0.0,
					n1 = 0.0,
					n2 = 0.0,
					n3 = 0.0,
					n4 = 0.0,
					n5 = 0.0,
					n6 = 0.0,
					n7 = 0.0;

		for (j = 0; j < d; j++)
		{
			n0 += x0[j] * x0[j];
			n1 += x1[j] * x1[j];
			n2 += x2[j] * x2[j];
			n3 += x3[j] * x3[j];
			n4 += x4[j] * x4[j];
			n5 += x5[j] * x5[j];
			n6 += x6[j] * x6[j];
			n7 += x7[j] * x7[j];
		}
		clip_scale(x, d, n0, C);
		clip_scale(x + dd, d, n1, C);
		clip_scale(x + 2 * dd, d, n2, C);
		clip_scale(x + 3 * dd, d, n3, C);
		clip_scale(x + 4 * dd, d, n4, C);
		clip_scale(x + 5 * dd, d, n5, C);
		clip_scale(x + 6 * dd, d, n6, C);
		clip_scale(x + 7 * dd, d, n7, C);
	}
	for (; i < n; i++)
		jl_cov_clip(X + (size_t) i * dd, d, C);
}

int
jl_cov_copy_finite(double *dst, const double *x, int d)
{
	memcpy(dst, x, (size_t) d * sizeof(double));
	return jl_all_finite(dst, (size_t) d);
}

void
jl_cov_accumulate(double *R, int r, int d, const double *Yb, const double *X, int b)
{
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r, d, b,
				1.0, Yb, b, X, d, 1.0, R, d);
}

void
jl_cov_gram_accumulate(double *G, int d, const double *X, int b)
{
	cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, d, b, 1.0, X, d, 1.0, G, d);
}

void
jl_cov_add_lift(double *R, const double *L, size_t n, double l)
{
	size_t		i;

	for (i = 0; i < n; i++)
		R[i] += l * L[i];
}

void
jl_cov_round(double *R, size_t n, double step)
{
	size_t		i;

	for (i = 0; i < n; i++)
		R[i] = nearbyint(R[i] / step) * step;
}

/* eigenvalues (ascending) and, with jobz "V", eigenvectors of A in place */
static int
syev(const char *jobz, double *A, int d, double *w)
{
	int			lwork = -1,
				info = 0;
	double		wq = 0.0,
			   *work;

	dsyev_(jobz, "L", &d, A, &d, w, &wq, &lwork, &info);
	if (info != 0)
		return -1;
	lwork = (int) wq;
	work = malloc((size_t) lwork * sizeof(double));
	if (work == NULL)
		return -1;
	dsyev_(jobz, "L", &d, A, &d, w, work, &lwork, &info);
	free(work);
	return info == 0 ? 0 : -1;
}

int
jl_cov_from_gram(const double *G, int d, double l2, const double *Z, int r, double *R)
{
	double	   *F = malloc(sizeof(double) * (size_t) d * d),
			   *w = NULL;
	int			i,
				j,
				info = 0,
				rc = -1;

	if (F == NULL)
		return -1;
	/* row-major upper triangle = column-major lower triangle */
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
			F[(size_t) i * d + j] = j >= i ? G[(size_t) i * d + j] + (i == j ? l2 : 0.0) : 0.0;
	dpotrf_("L", &d, F, &d, &info);
	if (info == 0)
	{
		/* column-major L read row-major is L^T: F = L^T, F^T F = L L^T */
		for (i = 0; i < d; i++)
			for (j = 0; j < i; j++)
				F[(size_t) i * d + j] = 0.0;
		rc = 0;
	}
	else if (info > 0)
	{
		/* singular (l2 = 0): F = Lambda^(1/2) V^T from the eigenpairs */
		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++)
				F[(size_t) i * d + j] = j >= i ? G[(size_t) i * d + j] + (i == j ? l2 : 0.0) : 0.0;
		w = malloc(sizeof(double) * (size_t) d);
		if (w != NULL && syev("V", F, d, w) == 0)
		{
			/* eigenvector i is column i, i.e. row i read row-major */
			for (i = 0; i < d; i++)
			{
				double		s = sqrt(w[i] > 0.0 ? w[i] : 0.0);

				for (j = 0; j < d; j++)
					F[(size_t) i * d + j] *= s;
			}
			rc = 0;
		}
	}
	if (rc == 0)
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r, d, d,
					1.0, Z, d, F, d, 0.0, R, d);
	free(w);
	free(F);
	return rc;
}

double
jl_cov_sigma_min(const double *G, int d)
{
	/* G's upper triangle in row-major order is the lower one in column-major */
	double	   *A = malloc(sizeof(double) * (size_t) d * d),
			   *w = malloc(sizeof(double) * (size_t) d),
				s = -1.0;

	if (A != NULL && w != NULL)
	{
		memcpy(A, G, sizeof(double) * (size_t) d * d);
		if (syev("N", A, d, w) == 0)
			s = sqrt(w[0] > 0.0 ? w[0] : 0.0);
	}
	free(A);
	free(w);
	return s;
}

double
jl_cov_directional(const double *R, int r, int d, const double *x, double l2,
				   double *sq)
{
	double		s = 0.0,
				xx = 0.0;
	int			i,
				j;

	for (i = 0; i < r; i++)
	{
		const double *row = R + (size_t) i * d;
		double		v = 0.0;

		for (j = 0; j < d; j++)
			v += row[j] * x[j];
		s += v * v;
	}
	for (j = 0; j < d; j++)
		xx += x[j] * x[j];
	*sq = s / r;
	return *sq - l2 * xx;
}

void
jl_cov_matrix(const double *R, int r, int d, double l2, double *C)
{
	int			i,
				j;

	memset(C, 0, sizeof(double) * (size_t) d * d);
	cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, d, r, 1.0 / r, R, d, 0.0, C, d);
	for (i = 0; i < d; i++)
	{
		C[(size_t) i * d + i] -= l2;
		for (j = 0; j < i; j++)
			C[(size_t) i * d + j] = C[(size_t) j * d + i];
	}
}

int
jl_cov_eigen(double *C, int d, double *vals)
{
	double	   *w = malloc(sizeof(double) * (size_t) d),
			   *V = malloc(sizeof(double) * (size_t) d * d);
	int			i,
				rc = -1;

	if (w != NULL && V != NULL)
	{
		/* symmetric: row-major is column-major; eigenvectors come as columns (rows here) */
		memcpy(V, C, sizeof(double) * (size_t) d * d);
		if (syev("V", V, d, w) == 0)
		{
			for (i = 0; i < d; i++)
			{
				vals[i] = w[d - 1 - i];
				memcpy(C + (size_t) i * d, V + (size_t) (d - 1 - i) * d, sizeof(double) * d);
			}
			rc = 0;
		}
	}
	free(w);
	free(V);
	return rc;
}

int
jl_cov_least_squares(const double *C, int d, int t, double *beta)
{
	int			m = d - 1,
				one = 1,
				info = 0,
				i,
				j,
				ii,
				jj;
	double	   *S;

	if (m == 0)
		return 0;
	S = malloc(sizeof(double) * (size_t) m * m);
	if (S == NULL)
		return -1;
	for (i = 0, ii = 0; i < d; i++)
	{
		if (i == t)
			continue;
		for (j = 0, jj = 0; j < d; j++)
		{
			if (j == t)
				continue;
			S[(size_t) ii * m + jj] = C[(size_t) i * d + j];
			jj++;
		}
		beta[ii] = C[(size_t) i * d + t];
		ii++;
	}
	dposv_("L", &m, &one, S, &m, beta, &m, &info);
	free(S);
	return info == 0 ? 0 : (info > 0 ? 1 : -1);
}
