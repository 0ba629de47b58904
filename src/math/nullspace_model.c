/*
 * nullspace_model.c - decomposition of a linear model for null-space
 * cleaning, and the cleaning of one vector with its certificate (see
 * nullspace_model.h and docs/nullspace.md).
 */
#include "math/nullspace_model.h"
#include "math/nullspace_knapsack.h"
#include "math/fp.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* LAPACK (Fortran calling convention) */
extern void dgesvd_(const char *jobu, const char *jobvt, const int *m,
					const int *n, double *a, const int *lda, double *s,
					double *u, const int *ldu, double *vt, const int *ldvt,
					double *work, const int *lwork, int *info);
extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a,
				   const int *lda, double *w, double *work, const int *lwork,
				   int *info);

/* a + b, or SIZE_MAX on overflow */
static size_t
add_sz(size_t a, size_t b)
{
	return (a > SIZE_MAX - b) ? SIZE_MAX : a + b;
}

static size_t
mul_sz(size_t a, size_t b)
{
	return (b != 0 && a > SIZE_MAX / b) ? SIZE_MAX : a * b;
}

/* doubles of a model whose SVD has p singular values */
static size_t
model_doubles(int d, int md, int p)
{
	size_t		n = 0;

	n = add_sz(n, mul_sz((size_t) p, (size_t) d));	/* Ut and U0t together */
	n = add_sz(n, mul_sz(3, (size_t) p));	/* lam, sig, spare */
	n = add_sz(n, mul_sz((size_t) p, (size_t) p));	/* W */
	n = add_sz(n, mul_sz((size_t) p, (size_t) md));	/* T0 */
	n = add_sz(n, mul_sz(2, mul_sz((size_t) d, (size_t) md)));	/* A_d^T, |A_d^T| */
	return n;
}

size_t
jl_ns_model_bytes(int method, int d, int md, int mc)
{
	int			mm = md + (method == JL_NS_CONFIDENTIAL ? mc : 0);
	int			p = mm < d ? mm : d;
	size_t		n;

	if (d < 1 || md < 1 || mm < 1)
		return 0;
	n = mul_sz(model_doubles(d, md, p), sizeof(double));
	n = add_sz(n, sizeof(JlNsModel) + 64);
	return n == SIZE_MAX ? 0 : n;
}

static bool
all_zero(const double *a, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		if (a[i] != 0.0)
			return false;
	return true;
}

/* thin SVD of the column-major m x n matrix a (destroyed): s (min(m,n)),
 * u (m x p, if wanted) and vt (p x n) */
static JlNsStatus
svd(int m, int n, double *a, double *s, double *u, double *vt)
{
	int			p = m < n ? m : n,
				lwork = -1,
				info = 0,
				ldu = m;
	double		wq = 0.0,
			   *work;

	dgesvd_(u ? "S" : "N", "S", &m, &n, a, &m, s, u, &ldu, vt, &p, &wq,
			&lwork, &info);
	if (info != 0)
		return JL_NS_LAPACK_FAILED;
	lwork = (int) wq;
	work = malloc((size_t) lwork * sizeof(double));
	if (work == NULL)
		return JL_NS_NO_MEMORY;
	dgesvd_(u ? "S" : "N", "S", &m, &n, a, &m, s, u, &ldu, vt, &p, work,
			&lwork, &info);
	free(work);
	return info == 0 ? JL_NS_OK : JL_NS_LAPACK_FAILED;
}

/* eigenvalues (ascending, w) and eigenvectors (columns of a) of the
 * symmetric column-major n x n matrix a */
static JlNsStatus
syev(int n, double *a, double *w)
{
	int			lwork = -1,
				info = 0;
	double		wq = 0.0,
			   *work;

	dsyev_("V", "U", &n, a, &n, w, &wq, &lwork, &info);
	if (info != 0)
		return JL_NS_LAPACK_FAILED;
	lwork = (int) wq;
	work = malloc((size_t) lwork * sizeof(double));
	if (work == NULL)
		return JL_NS_NO_MEMORY;
	dsyev_("V", "U", &n, a, &n, w, work, &lwork, &info);
	free(work);
	return info == 0 ? JL_NS_OK : JL_NS_LAPACK_FAILED;
}

/* the model block with room for s kept and s0 cut directions */
static JlNsModel *
model_alloc(int method, int d, int md, int mc, int s, int s0)
{
	size_t		nd = model_doubles(d, md, s + s0);
	size_t		bytes = add_sz(sizeof(JlNsModel), mul_sz(nd, sizeof(double)));
	JlNsModel  *m;
	double	   *p;

	if (bytes == SIZE_MAX || (m = calloc(1, bytes)) == NULL)
		return NULL;
	m->method = method;
	m->d = d;
	m->md = md;
	m->mc = mc;
	m->s = s;
	m->s0 = s0;
	m->bytes = bytes;
	p = (double *) (m + 1);
	m->Ut = p;
	p += (size_t) s * d;
	m->U0t = p;
	p += (size_t) s0 * d;
	m->lam = p;
	p += s + s0;
	m->sig = p;
	p += s + s0;
	p += s + s0;
	m->W = p;
	p += (size_t) (s + s0) * (s + s0);
	m->T0 = p;
	p += (size_t) (s + s0) * md;
	m->AdT = p;
	p += (size_t) d * md;
	m->absAdT = p;
	return m;
}

/* A_d^T and |A_d^T| (md x d, each output's coefficients contiguous) */
static void
store_desired(JlNsModel *m, const double *Ad)
{
	int			i,
				k;

	for (i = 0; i < m->d; i++)
		for (k = 0; k < m->md; k++)
		{
			double		v = Ad[(size_t) i * m->md + k];

			m->AdT[(size_t) k * m->d + i] = v;
			m->absAdT[(size_t) k * m->d + i] = fabs(v);
		}
}

static JlNsStatus
build_desired(int method, int d, int md, const double *Ad, JlNsModel **out)
{
	int			p = md < d ? md : d,
				s = 0,
				j,
				i;
	double	   *a = malloc(mul_sz((size_t) d, (size_t) md) * sizeof(double));
	double	   *sv = malloc((size_t) p * sizeof(double));
	double	   *vt = malloc(mul_sz((size_t) p, (size_t) d) * sizeof(double));
	JlNsStatus	st = JL_NS_NO_MEMORY;
	JlNsModel  *m;

	if (a == NULL || sv == NULL || vt == NULL)
		goto done;
	/* row-major A_d (d x md) is the column-major md x d matrix A_d^T */
	memcpy(a, Ad, (size_t) d * md * sizeof(double));
	st = svd(md, d, a, sv, NULL, vt);
	if (st != JL_NS_OK)
		goto done;
	/* A_d^T = Z Sigma U^T: the rows of vt are the u_j; sigma_j = 0 are in
	 * the null space, removed with the rest of it */
	while (s < p && sv[s] > 0.0)
		s++;
	if (s == 0)
	{
		st = JL_NS_RANK_ZERO_DESIRED;
		goto done;
	}
	m = model_alloc(method, d, md, 0, s, 0);
	if (m == NULL)
	{
		st = JL_NS_NO_MEMORY;
		goto done;
	}
	for (j = 0; j < s; j++)
	{
		m->lam[j] = sv[j] * sv[j];
		m->sig[j] = sv[j];
		for (i = 0; i < d; i++)
			m->Ut[(size_t) j * d + i] = vt[j + (size_t) i * p];
	}
	m->sigma_max = sv[0];
	store_desired(m, Ad);
	*out = m;
	st = JL_NS_OK;
done:
	free(a);
	free(sv);
	free(vt);
	return st;
}

static JlNsStatus
build_confidential(int d, int md, int mc, const double *Ad, const double *Ac,
				   JlNsModel **out)
{
	int			mm = md + mc,
				p = mm < d ? mm : d,
				s = 0,
				s0,
				i,
				j,
				r;
	double	   *a = malloc(mul_sz((size_t) d, (size_t) mm) * sizeof(double));
	double	   *sv = malloc((size_t) p * sizeof(double));
	double	   *u = malloc(mul_sz((size_t) mm, (size_t) p) * sizeof(double));
	double	   *vt = malloc(mul_sz((size_t) p, (size_t) d) * sizeof(double));
	double	   *C = NULL,
			   *w = NULL;
	JlNsStatus	st = JL_NS_NO_MEMORY;
	JlNsModel  *m;

	if (a == NULL || sv == NULL || u == NULL || vt == NULL)
		goto done;
	/* column-major [A_d A_c]^T, mm x d */
	for (i = 0; i < d; i++)
	{
		for (r = 0; r < md; r++)
			a[r + (size_t) i * mm] = Ad[(size_t) i * md + r];
		for (r = 0; r < mc; r++)
			a[md + r + (size_t) i * mm] = Ac[(size_t) i * mc + r];
	}
	/* [A_d A_c]^T = Z Sigma Q^T */
	st = svd(mm, d, a, sv, u, vt);
	if (st != JL_NS_OK)
		goto done;
	while (s < p && sv[s] > JL_NS_CUTOFF * sv[0])
		s++;
	s0 = p - s;
	C = malloc(mul_sz((size_t) s, (size_t) s) * sizeof(double));
	w = malloc((size_t) s * sizeof(double));
	if (C == NULL || w == NULL)
	{
		st = JL_NS_NO_MEMORY;
		goto done;
	}
	/*
	 * In the basis Q Sigma^-1 of S, B_d + B_c is the identity and B_d is
	 * Z_d^T Z_d (Z_d: the first md rows of Z); its eigenvectors W
	 * diagonalise both, B_d with mu_j and B_c with 1 - mu_j.
	 */
	for (i = 0; i < s; i++)
		for (j = 0; j < s; j++)
		{
			double		t = 0.0;

			for (r = 0; r < md; r++)
				t += u[r + (size_t) i * mm] * u[r + (size_t) j * mm];
			C[i + (size_t) j * s] = t;
		}
	st = syev(s, C, w);
	if (st != JL_NS_OK)
		goto done;
	m = model_alloc(JL_NS_CONFIDENTIAL, d, md, mc, s, s0);
	if (m == NULL)
	{
		st = JL_NS_NO_MEMORY;
		goto done;
	}
	for (j = 0; j < s; j++)
	{
		m->lam[j] = w[j] < 0.0 ? 0.0 : (w[j] > 1.0 ? 1.0 : w[j]);
		m->sig[j] = sv[j];
		for (i = 0; i < s; i++)
			m->W[(size_t) i * s + j] = C[i + (size_t) j * s];
	}
	for (j = 0; j < p; j++)
		for (i = 0; i < d; i++)
		{
			double		q = vt[j + (size_t) i * p];

			if (j < s)
				m->Ut[(size_t) j * d + i] = q;
			else
				m->U0t[(size_t) (j - s) * d + i] = q;
		}
	/* T0 = U0^T A_d: the desired predictor's view of the cut directions */
	for (j = 0; j < s0; j++)
		for (r = 0; r < md; r++)
		{
			double		t = 0.0;

			for (i = 0; i < d; i++)
				t += m->U0t[(size_t) j * d + i] * Ad[(size_t) i * md + r];
			m->T0[(size_t) j * md + r] = t;
		}
	m->sigma_max = sv[0];
	store_desired(m, Ad);
	*out = m;
	st = JL_NS_OK;
done:
	free(a);
	free(sv);
	free(u);
	free(vt);
	free(C);
	free(w);
	return st;
}

JlNsStatus
jl_ns_model_build(int method, int d, int md, int mc, const double *Ad,
				  const double *Ac, JlNsModel **out)
{
	*out = NULL;
	if (all_zero(Ad, (size_t) d * md))
		return JL_NS_RANK_ZERO_DESIRED;
	if (method == JL_NS_CONFIDENTIAL)
	{
		if (all_zero(Ac, (size_t) d * mc))
			return JL_NS_RANK_ZERO_CONFIDENTIAL;
		return build_confidential(d, md, mc, Ad, Ac, out);
	}
	return build_desired(method, d, md, Ad, out);
}

void
jl_ns_model_free(JlNsModel *m)
{
	free(m);
}

size_t
jl_ns_scratch_doubles(const JlNsModel *m)
{
	return (size_t) 8 * (m->s + m->s0) + 2 * (size_t) m->md + 2 * (size_t) m->d + 8;
}

size_t
jl_ns_scratch_ints(const JlNsModel *m)
{
	return (size_t) m->s + 1;
}

double
jl_ns_certify(const double *At, const double *absAt, int d, int m,
			  const double *x, const double *xt, double *r, double *g,
			  double *D)
{
	double		gd = jl_gamma((double) d + 2),
				coef,
				E = 0.0;
	double	   *absD = D + d;
	int			i,
				k;

	for (i = 0; i < d; i++)
	{
		D[i] = x[i] - xt[i];
		absD[i] = fabs(D[i]);
	}
	/* r = A^T D and g = |A|^T |D| (BLAS, any order of summation) */
	cblas_dgemv(CblasRowMajor, CblasNoTrans, m, d, 1.0, At, d, D, 1, 0.0, r, 1);
	cblas_dgemv(CblasRowMajor, CblasNoTrans, m, d, 1.0, absAt, d, absD, 1, 0.0, g, 1);

	/*
	 * |r_k - true_k| <= (gamma_d + u/(1-u)) sum |A_ik| |D_i| (the sum's
	 * rounding and that of each difference x_i - xt_i), the computed g_k
	 * within a factor (1 + 2 gamma_d) of that sum, plus one underflow per
	 * product; then a sum of m squares.
	 */
	coef = (gd + 2.0 * JL_U_ROUND) * (1.0 + 2.0 * gd);
	for (k = 0; k < m; k++)
	{
		double		e = (fabs(r[k]) + coef * g[k] + (double) d * JL_UNDERFLOW_UNIT) *
		(1.0 + 4.0 * JL_U_ROUND);

		/* a square that underflows counts as the smallest subnormal */
		E += e * e + (e > 0.0 ? JL_UNDERFLOW_UNIT : 0.0);
	}
	return E * (1.0 + jl_gamma((double) m + 8));
}

/* y = Ut x for the s rows of Ut (each d long) */
static void
coords(const double *Ut, int s, int d, const double *x, double *y)
{
	if (s > 0)
		cblas_dgemv(CblasRowMajor, CblasNoTrans, s, d, 1.0, Ut, d, x, 1, 0.0, y, 1);
}

/* out = Ut^T c */
static void
combine(const double *Ut, int s, int d, const double *c, double *out)
{
	int			j,
				i;

	memset(out, 0, sizeof(double) * d);
	for (j = 0; j < s; j++)
	{
		const double *u = Ut + (size_t) j * d;
		double		cj = c[j];

		if (cj == 0.0)
			continue;
		for (i = 0; i < d; i++)
			out[i] += cj * u[i];
	}
}

/*
 * One plan at budget b: x~ into out, returns the planned error.  The
 * scratch holds y (the coordinates), which does not depend on b and is
 * computed by the caller.
 */
static double
plan(const JlNsModel *m, const double *y, const double *a, double h0,
	 double b, double *out, double *scratch, int *iscratch)
{
	int			s = m->s,
				j,
				i;
	double	   *H = scratch,
			   *G = H + s,
			   *alpha = G + s,
			   *c = alpha + s,
			   *t = c + s;
	double		used;

	if (m->method != JL_NS_CONFIDENTIAL)
	{
		for (j = 0; j < s; j++)
		{
			H[j] = m->lam[j] * y[j] * y[j];
			G[j] = 1.0;
		}
		if (m->method == JL_NS_WATERFILL)
			used = jl_ns_waterfill(H, s, b, iscratch, alpha);
		else
			used = jl_ns_knapsack(G, H, s, b, iscratch, 0, alpha);
		for (j = 0; j < s; j++)
			c[j] = (1.0 - alpha[j]) * y[j];
		combine(m->Ut, s, m->d, c, out);
		return used;
	}

	/*
	 * Algorithm 2: the cut directions cost h0 whole; the rest of the budget
	 * (by the triangle inequality, sqrt(b) - sqrt(h0) in norm) goes to the
	 * generalised eigencomponents a_j, in the order of mu ascending (G/H =
	 * (1 - mu)/mu decreasing, independent of x).
	 */
	{
		double		rb = sqrt(b) - sqrt(h0);
		double		bb = rb > 0.0 ? rb * rb : 0.0;

		for (j = 0; j < s; j++)
		{
			H[j] = m->lam[j] * a[j] * a[j];
			G[j] = (1.0 - m->lam[j]) * a[j] * a[j];
			iscratch[j] = j;
		}
		if (b > 0.0 && h0 > b)
		{
			/* the cut directions alone exceed the budget: remove nothing
			 * of S either; the caller's certificate sees the result */
			bb = 0.0;
		}
		used = jl_ns_knapsack(G, H, s, bb, iscratch, 1, alpha);
		for (j = 0; j < s; j++)
			c[j] = (1.0 - alpha[j]) * a[j];
		/* coordinates in Q: t = Sigma^-1 W c */
		for (i = 0; i < s; i++)
		{
			double		v = 0.0;

			for (j = 0; j < s; j++)
				v += m->W[(size_t) i * s + j] * c[j];
			t[i] = v / m->sig[i];
		}
		combine(m->Ut, s, m->d, t, out);
		return used + h0;
	}
}

void
jl_ns_clean(const JlNsModel *m, const double *x, double eps, double *out,
			double *scratch, int *iscratch, JlNsReport *rep)
{
	static const double fraction[] = {1.0 - JL_NS_MARGIN, 0.25, 1.0 / 64.0, 0.0};
	int			s = m->s,
				d = m->d,
				level,
				i,
				j;
	double	   *y = scratch,
			   *a = y + s + m->s0,
			   *r = a + s,
			   *g = r + m->md,
			   *D = g + m->md,
			   *work = D + 2 * (size_t) d;
	double		h0 = 0.0,
				planned = 0.0,
				cert = 0.0;

	coords(m->Ut, s, d, x, y);
	if (m->method == JL_NS_CONFIDENTIAL)
	{
		/* dual coordinates a = W^T Sigma y; the cost h0 of the cut
		 * directions ||T0^T (U0^T x)||^2 */
		for (j = 0; j < s; j++)
		{
			double		v = 0.0;

			for (i = 0; i < s; i++)
				v += m->W[(size_t) i * s + j] * m->sig[i] * y[i];
			a[j] = v;
		}
		if (m->s0 > 0)
		{
			double	   *y0 = y + s;

			coords(m->U0t, m->s0, d, x, y0);
			for (j = 0; j < m->md; j++)
			{
				double		v = 0.0;

				for (i = 0; i < m->s0; i++)
					v += m->T0[(size_t) i * m->md + j] * y0[i];
				h0 += v * v;
			}
		}
	}
	for (level = 0; level < 4; level++)
	{
		planned = plan(m, y, a, h0, eps * fraction[level], out, work, iscratch);
		cert = jl_ns_certify(m->AdT, m->absAdT, d, m->md, x, out, r, g, D);
		if (cert <= eps)
			break;
	}
	if (level == 4)
	{
		memcpy(out, x, (size_t) d * sizeof(double));
		planned = cert = 0.0;
	}
	if (rep)
	{
		rep->planned = planned;
		rep->certified = cert;
		rep->level = level;
	}
}
