/*
 * nullspace_model.c - decomposition of a linear model for null-space
 * cleaning, and the cleaning of one vector with its certificate (see
 * nullspace_model.h and docs/design/nullspace.md).
 *
 * Over 700 lines: the decomposition and the cleaning share the model's
 * layout and its byte counts, and the certificate's error bounds follow
 * every step of both; apart, each half would restate the other's.
 */
#include "math/nullspace/nullspace_model.h"
#include "math/nullspace/nullspace_knapsack.h"
#include "math/base/fp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* LAPACK (Fortran calling convention) */
extern void dgesvd_(const char *jobu, const char *jobvt, const int *m,
					const int *n, double *a, const int *lda, double *s,
					double *u, const int *ldu, double *vt, const int *ldvt,
					double *work, const int *lwork, int *info);

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
	n = add_sz(n, mul_sz((size_t) d, (size_t) md));	/* A_d^T */
	n = add_sz(n, (size_t) d);	/* max_k |A_d ik| */
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

/* SVD of the column-major m x n matrix a (destroyed): s (min(m,n)),
 * u (m x p, if wanted) and vt (p x n, or n x n with full_v: the right
 * singular vectors of the zero singular values too) */
static JlNsStatus
svd(int m, int n, double *a, double *s, double *u, double *vt, int full_v)
{
	int			p = m < n ? m : n,
				lwork = -1,
				info = 0,
				ldu = m,
				ldvt = full_v ? n : p;
	const char *jobvt = full_v ? "A" : "S";
	double		wq = 0.0,
			   *work;

	dgesvd_(u ? "S" : "N", jobvt, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, &wq,
			&lwork, &info);
	if (info != 0)
		return JL_NS_LAPACK_FAILED;
	lwork = (int) wq;
	work = malloc((size_t) lwork * sizeof(double));
	if (work == NULL)
		return JL_NS_NO_MEMORY;
	dgesvd_(u ? "S" : "N", jobvt, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work,
			&lwork, &info);
	free(work);
	if (info != 0)
		return JL_NS_LAPACK_FAILED;
	/* finite entries whose singular values overflow (near DBL_MAX) */
	for (info = 0; info < p; info++)
		if (!isfinite(s[info]))
			return JL_NS_OVERFLOW;
	return JL_NS_OK;
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
	m->amax = p;
	return m;
}

/*
 * ||v||_2 of n finite doubles, scaled by a power of two near max |v_i| so
 * that no square overflows or underflows in bulk.  The result is at most
 * ||v||_2 (1 + gamma_(n+2)): n squares and their sum, the square root;
 * the scaling is exact, and a scaled element that underflows moves the
 * sum (at least 1/4) by 2^-1074 at most.
 */
static double
norm2(const double *v, size_t n)
{
	double		mx = 0.0,
				sum = 0.0,
				sc;
	size_t		i;
	int			e;

	for (i = 0; i < n; i++)
		if (fabs(v[i]) > mx)
			mx = fabs(v[i]);
	if (mx == 0.0)
		return 0.0;
	(void) frexp(mx, &e);		/* mx in [2^(e-1), 2^e) */
	if (e > -1000 && e < 1000)
	{
		sc = ldexp(1.0, -e);
		for (i = 0; i < n; i++)
			sum += (v[i] * sc) * (v[i] * sc);
	}
	else
	{
		/* 2^-e itself would be subnormal or overflow */
		for (i = 0; i < n; i++)
		{
			double		t = ldexp(v[i], -e);

			sum += t * t;
		}
	}
	return ldexp(sqrt(sum), e);
}

/* A_d^T (md x d, each output's coefficients contiguous), the largest
 * |coefficient| of each feature, and ||A_d||_F */
static void
store_desired(JlNsModel *m, const double *Ad)
{
	int			i,
				k;

	for (i = 0; i < m->d; i++)
	{
		m->amax[i] = 0.0;
		for (k = 0; k < m->md; k++)
		{
			double		v = Ad[(size_t) i * m->md + k];

			m->AdT[(size_t) k * m->d + i] = v;
			if (fabs(v) > m->amax[i])
				m->amax[i] = fabs(v);
		}
	}
	m->ad_fro = norm2(Ad, (size_t) m->d * m->md);
}

static JlNsStatus
build_desired(int method, int d, int md, const double *Ad, JlNsModel **out)
{
	int			p = md < d ? md : d,
				s = 0,
				j,
				i;
	double	   *a = malloc(mul_sz(mul_sz((size_t) d, (size_t) md), sizeof(double)));
	double	   *sv = malloc((size_t) p * sizeof(double));
	double	   *vt = malloc(mul_sz(mul_sz((size_t) p, (size_t) d), sizeof(double)));
	JlNsStatus	st = JL_NS_NO_MEMORY;
	JlNsModel  *m;

	if (a == NULL || sv == NULL || vt == NULL)
		goto done;
	/* row-major A_d (d x md) is the column-major md x d matrix A_d^T */
	memcpy(a, Ad, (size_t) d * md * sizeof(double));
	st = svd(md, d, a, sv, NULL, vt, 0);
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
	double	   *a = malloc(mul_sz(mul_sz((size_t) d, (size_t) mm), sizeof(double)));
	double	   *sv = malloc((size_t) p * sizeof(double));
	double	   *u = malloc(mul_sz(mul_sz((size_t) mm, (size_t) p), sizeof(double)));
	double	   *vt = malloc(mul_sz(mul_sz((size_t) p, (size_t) d), sizeof(double)));
	double	   *zd = NULL,
			   *w = NULL,
			   *wt = NULL;
	int			q;
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
	st = svd(mm, d, a, sv, u, vt, 0);
	if (st != JL_NS_OK)
		goto done;
	while (s < p && sv[s] > JL_NS_CUTOFF * sv[0])
		s++;
	s0 = p - s;
	q = md < s ? md : s;
	zd = malloc(mul_sz(mul_sz((size_t) md, (size_t) s), sizeof(double)));
	w = malloc((size_t) q * sizeof(double));
	wt = malloc(mul_sz(mul_sz((size_t) s, (size_t) s), sizeof(double)));
	if (zd == NULL || w == NULL || wt == NULL)
	{
		st = JL_NS_NO_MEMORY;
		goto done;
	}

	/*
	 * In the basis Q Sigma^-1 of S, B_d + B_c is the identity and B_d is
	 * C = Z_d^T Z_d (Z_d: the first md rows of Z); its eigenvectors W
	 * diagonalise both, B_d with mu_j and B_c with 1 - mu_j.  They are
	 * taken from the SVD of Z_d = P Omega W^T (mu_j = omega_j^2), not from
	 * an eigensolver on C, whose eigenvalues carry an absolute error of
	 * about u: a direction A_d does not see (mu_j = 0, seen by A_c only)
	 * came out with mu_j = +-1e-17, i.e. with a planned cost mu_j a_j^2
	 * that is rounding alone, yet for a large x a real part of the budget,
	 * and at eps = 0 free only where rounding made it negative (clamped to
	 * 0).  From the SVD the error of mu_j is about u omega_j, and mu_j = 0
	 * exactly past Z_d's md rows (the full s x s W gives that null
	 * space).  Forming C would also square Z_d's condition, which costs
	 * accuracy in W when the nonzero mu_j are small (A_c much larger than
	 * A_d).
	 */
	for (i = 0; i < s; i++)
		for (r = 0; r < md; r++)
			zd[r + (size_t) i * md] = u[r + (size_t) i * mm];
	st = svd(md, s, zd, w, NULL, wt, 1);
	if (st != JL_NS_OK)
		goto done;
	m = model_alloc(JL_NS_CONFIDENTIAL, d, md, mc, s, s0);
	if (m == NULL)
	{
		st = JL_NS_NO_MEMORY;
		goto done;
	}
	/* mu ascending: the rows of W^T from the last (omega = 0 past q) */
	for (j = 0; j < s; j++)
	{
		int			k = s - 1 - j;
		double		mu = k < q ? w[k] * w[k] : 0.0;

		m->lam[j] = mu > 1.0 ? 1.0 : mu;
		m->sig[j] = sv[j];
		for (i = 0; i < s; i++)
			m->W[(size_t) i * s + j] = wt[k + (size_t) i * s];
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
	free(zd);
	free(w);
	free(wt);
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

/*
 * The per-row loops, four doubles side by side with GCC's vector extension
 * (as in chacha20.c): the generic build uses SSE2, and on x86-64 an AVX2
 * clone is chosen at load time where the processor has it.  Both clones do
 * the same operations in the same order (no fused multiply-add:
 * -ffp-contract=off), so they return the same bits.  A dot product sums
 * in lanes, then the lanes, then the tail: an order of summation like any
 * other, which is all jl_ns_certify's bound assumes.
 */
typedef double jl_f64x4 __attribute__((vector_size(32)));
typedef uint64_t jl_u64x4 __attribute__((vector_size(32)));
/* the same, at the alignment of a double (arrays' data, scratch) */
typedef double jl_f64x4u __attribute__((vector_size(32), aligned(8), may_alias));

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define JL_NS_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define JL_NS_CLONES
#endif

/* macros, not functions: a vector argument of a function would depend
 * on the clone's ABI */
#define LD4(p) (*(const jl_f64x4u *) (p))
#define ST4(p, v) (*(jl_f64x4u *) (p) = (v))
/* |v|: the sign bits cleared, as fabs does */
#define ABS4(v) ((jl_f64x4) ((jl_u64x4) (v) & ~(jl_u64x4) {0, 0, 0, 0} >> 1))
#define HSUM4(v) (((v)[0] + (v)[2]) + ((v)[1] + (v)[3]))

/*
 * The adds of a sum form a chain, each waiting for the one before; the
 * loops below keep four to eight independent chains (lanes of several
 * vectors) so that the processor overlaps them.  Indices are size_t: no
 * sign extension in the loops.
 */

/* y = M x for the rows of M (rows x d, row-major), four rows at a time
 * (x read once per four), then two, then one with four chains of its own */
JL_NS_CLONES
static void
rows_dot(const double *M, int rows, int d, const double *x, double *y)
{
	size_t		n = (size_t) d,
				j = 0,
				i;

	for (; j + 4 <= (size_t) rows; j += 4)
	{
		const double *a = M + j * n,
				   *b = a + n,
				   *c = b + n,
				   *e = c + n;
		jl_f64x4	a0 = {0.0, 0.0, 0.0, 0.0},
					a1 = a0,
					b0 = a0,
					b1 = a0,
					c0 = a0,
					c1 = a0,
					e0 = a0,
					e1 = a0;
		double		ta,
					tb,
					tc,
					te;

		for (i = 0; i + 8 <= n; i += 8)
		{
			jl_f64x4	x0 = LD4(x + i),
						x1 = LD4(x + i + 4);

			a0 += LD4(a + i) * x0;
			a1 += LD4(a + i + 4) * x1;
			b0 += LD4(b + i) * x0;
			b1 += LD4(b + i + 4) * x1;
			c0 += LD4(c + i) * x0;
			c1 += LD4(c + i + 4) * x1;
			e0 += LD4(e + i) * x0;
			e1 += LD4(e + i + 4) * x1;
		}
		if (i + 4 <= n)
		{
			jl_f64x4	x0 = LD4(x + i);

			a0 += LD4(a + i) * x0;
			b0 += LD4(b + i) * x0;
			c0 += LD4(c + i) * x0;
			e0 += LD4(e + i) * x0;
			i += 4;
		}
		a0 += a1;
		b0 += b1;
		c0 += c1;
		e0 += e1;
		ta = HSUM4(a0);
		tb = HSUM4(b0);
		tc = HSUM4(c0);
		te = HSUM4(e0);
		for (; i < n; i++)
		{
			ta += a[i] * x[i];
			tb += b[i] * x[i];
			tc += c[i] * x[i];
			te += e[i] * x[i];
		}
		y[j] = ta;
		y[j + 1] = tb;
		y[j + 2] = tc;
		y[j + 3] = te;
	}
	for (; j + 2 <= (size_t) rows; j += 2)
	{
		const double *a = M + j * n,
				   *b = a + n;
		jl_f64x4	a0 = {0.0, 0.0, 0.0, 0.0},
					a1 = a0,
					b0 = a0,
					b1 = a0;
		double		ta,
					tb;

		for (i = 0; i + 8 <= n; i += 8)
		{
			jl_f64x4	x0 = LD4(x + i),
						x1 = LD4(x + i + 4);

			a0 += LD4(a + i) * x0;
			a1 += LD4(a + i + 4) * x1;
			b0 += LD4(b + i) * x0;
			b1 += LD4(b + i + 4) * x1;
		}
		if (i + 4 <= n)
		{
			jl_f64x4	x0 = LD4(x + i);

			a0 += LD4(a + i) * x0;
			b0 += LD4(b + i) * x0;
			i += 4;
		}
		a0 += a1;
		b0 += b1;
		ta = HSUM4(a0);
		tb = HSUM4(b0);
		for (; i < n; i++)
		{
			ta += a[i] * x[i];
			tb += b[i] * x[i];
		}
		y[j] = ta;
		y[j + 1] = tb;
	}
	if (j < (size_t) rows)
	{
		const double *a = M + j * n;
		jl_f64x4	a0 = {0.0, 0.0, 0.0, 0.0},
					a1 = a0,
					a2 = a0,
					a3 = a0;
		double		ta;

		for (i = 0; i + 16 <= n; i += 16)
		{
			a0 += LD4(a + i) * LD4(x + i);
			a1 += LD4(a + i + 4) * LD4(x + i + 4);
			a2 += LD4(a + i + 8) * LD4(x + i + 8);
			a3 += LD4(a + i + 12) * LD4(x + i + 12);
		}
		for (; i + 4 <= n; i += 4)
			a0 += LD4(a + i) * LD4(x + i);
		a0 += a1;
		a2 += a3;
		a0 += a2;
		ta = HSUM4(a0);
		for (; i < n; i++)
			ta += a[i] * x[i];
		y[j] = ta;
	}
}

/* whether every one of the n doubles is finite (fp.h) */
int
jl_ns_all_finite(const double *v, int n)
{
	return jl_all_finite(v, (size_t) n);
}

/* D = x - xt, and sum_i w_i |D_i| (w >= 0) */
JL_NS_CLONES
static double
diff_weighted(const double *x, const double *xt, const double *w, int d,
			  double *D)
{
	size_t		n = (size_t) d,
				i;
	jl_f64x4	s0 = {0.0, 0.0, 0.0, 0.0},
				s1 = s0;
	double		t;

	for (i = 0; i + 8 <= n; i += 8)
	{
		jl_f64x4	v0 = LD4(x + i) - LD4(xt + i),
					v1 = LD4(x + i + 4) - LD4(xt + i + 4);

		ST4(D + i, v0);
		ST4(D + i + 4, v1);
		s0 += LD4(w + i) * ABS4(v0);
		s1 += LD4(w + i + 4) * ABS4(v1);
	}
	if (i + 4 <= n)
	{
		jl_f64x4	v0 = LD4(x + i) - LD4(xt + i);

		ST4(D + i, v0);
		s0 += LD4(w + i) * ABS4(v0);
		i += 4;
	}
	s0 += s1;
	t = HSUM4(s0);
	for (; i < n; i++)
	{
		D[i] = x[i] - xt[i];
		t += w[i] * fabs(D[i]);
	}
	return t;
}

/* the bound of the certificate from r_k and g_k (gstep 1) or one g for
 * every k (gstep 0); see jl_ns_certify */
static double
cert_bound(const double *r, const double *g, int gstep, int d, int m)
{
	double		gd = jl_gamma((double) d + 2),
				coef,
				E = 0.0;
	int			k;

	/*
	 * |r_k - true_k| <= (gamma_d + u/(1-u)) sum |A_ik| |D_i| (the sum's
	 * rounding and that of each difference x_i - xt_i), the computed g_k
	 * within a factor (1 + 2 gamma_d) of that sum, plus one underflow per
	 * product; then a sum of m squares.
	 */
	coef = (gd + 2.0 * JL_U_ROUND) * (1.0 + 2.0 * gd);
	for (k = 0; k < m; k++)
	{
		double		e = (fabs(r[k]) + coef * g[k * gstep] + (double) d * JL_UNDERFLOW_UNIT) *
		(1.0 + 4.0 * JL_U_ROUND);

		/* a square that underflows counts as the smallest subnormal */
		E += e * e + (e > 0.0 ? JL_UNDERFLOW_UNIT : 0.0);
	}
	return E * (1.0 + jl_gamma((double) m + 8));
}

double
jl_ns_certify(const double *At, const double *amax, int d, int m,
			  const double *x, const double *xt, double target, double *r,
			  double *g, double *D)
{
	double		E;
	int			i,
				k;

	/*
	 * D = x - xt and r = A^T D (any order of summation), with one bound
	 * of every sum_i |A_ik| |D_i|: sum_i amax_i |D_i|, amax_i = max_k
	 * |A_ik|, computed in the same way as the exact sums, so the same
	 * error analysis holds; enough where it is far below the budget's
	 * slack, as it usually is
	 */
	if (amax != NULL)
	{
		g[0] = diff_weighted(x, xt, amax, d, D);
		rows_dot(At, m, d, D, r);
		E = cert_bound(r, g, 0, d, m);
		if (E <= target)
			return E;
	}
	else
	{
		for (i = 0; i < d; i++)
			D[i] = x[i] - xt[i];
		rows_dot(At, m, d, D, r);
	}
	/* otherwise g_k = sum_i |A_ik| |D_i| row by row */
	for (i = 0; i < d; i++)
		D[d + i] = fabs(D[i]);
	for (k = 0; k < m; k++)
	{
		const double *a = At + (size_t) k * d;
		double		t = 0.0;

		for (i = 0; i < d; i++)
			t += fabs(a[i]) * D[d + i];
		g[k] = t;
	}
	return cert_bound(r, g, 1, d, m);
}

/* y = Ut x for the s rows of Ut (each d long) */
static void
coords(const double *Ut, int s, int d, const double *x, double *y)
{
	rows_dot(Ut, s, d, x, y);
}

/* out = Ut^T c: per element, the terms in the order of j; sixteen
 * elements at a time */
JL_NS_CLONES
static void
combine(const double *Ut, int s, int d, const double *c, double *out)
{
	int			j,
				i;

	for (i = 0; i + 16 <= d; i += 16)
	{
		jl_f64x4	o0 = {0.0, 0.0, 0.0, 0.0},
					o1 = o0,
					o2 = o0,
					o3 = o0;

		for (j = 0; j < s; j++)
		{
			const double *u = Ut + (size_t) j * d + i;
			jl_f64x4	cj = {c[j], c[j], c[j], c[j]};

			o0 += cj * LD4(u);
			o1 += cj * LD4(u + 4);
			o2 += cj * LD4(u + 8);
			o3 += cj * LD4(u + 12);
		}
		ST4(out + i, o0);
		ST4(out + i + 4, o1);
		ST4(out + i + 8, o2);
		ST4(out + i + 12, o3);
	}
	for (; i + 4 <= d; i += 4)
	{
		jl_f64x4	o = {0.0, 0.0, 0.0, 0.0};

		for (j = 0; j < s; j++)
		{
			jl_f64x4	cj = {c[j], c[j], c[j], c[j]};

			o += cj * LD4(Ut + (size_t) j * d + i);
		}
		ST4(out + i, o);
	}
	for (; i < d; i++)
	{
		double		o = 0.0;

		for (j = 0; j < s; j++)
			o += c[j] * Ut[(size_t) j * d + i];
		out[i] = o;
	}
}

/*
 * One plan at budget b: x~ into out, returns the planned error.  The
 * scratch holds y (the coordinates, and Algorithm 2's y0 = U0^T x after
 * them), which does not depend on b and is computed by the caller.  With
 * whole (utility_error 0) only whole components go, those that fit in b
 * (jl_ns_whole); otherwise the allocation of the method.
 */
static double
plan(const JlNsModel *m, const double *y, const double *a, double h0,
	 double b, int whole, double *out, double *scratch, int *iscratch)
{
	int			s = m->s,
				j,
				i;
	double	   *H = scratch,
			   *G = H + s,
			   *alpha = G + s,
			   *c = alpha + s,
			   *t = c + s;		/* s + s0 */
	double		used;

	if (m->method != JL_NS_CONFIDENTIAL)
	{
		for (j = 0; j < s; j++)
		{
			H[j] = m->lam[j] * y[j] * y[j];
			G[j] = 1.0;
		}
		if (whole)
			used = jl_ns_whole(H, s, b, iscratch, 0, alpha);
		else if (m->method == JL_NS_WATERFILL)
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
	 * (1 - mu)/mu decreasing, independent of x); if h0 alone exceeds b,
	 * nothing of S goes and the certificate decides.  With a budget that
	 * stands for 0 (whole), cut directions A_d sees more than rounding
	 * allows are kept instead: at eps = 0 they are free only if h0 fits.
	 */
	{
		int			cut = !whole || h0 <= b;
		double		rb = cut ? sqrt(b) - sqrt(h0) : sqrt(b);
		double		bb = rb > 0.0 ? rb * rb : 0.0;

		for (j = 0; j < s; j++)
		{
			H[j] = m->lam[j] * a[j] * a[j];
			G[j] = (1.0 - m->lam[j]) * a[j] * a[j];
			iscratch[j] = j;
		}
		if (whole)
			used = jl_ns_whole(H, s, bb, iscratch, 1, alpha);
		else
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
		if (cut)
		{
			combine(m->Ut, s, m->d, t, out);
			return used + h0;
		}
		/* U0t follows Ut in the model: keep the cut directions' y0 */
		memcpy(t + s, y + s, (size_t) m->s0 * sizeof(double));
		combine(m->Ut, s + m->s0, m->d, t, out);
		return used;
	}
}

/*
 * rho(x) of utility_error 0 (nullspace_model.h), rounded down so that the
 * certificate never accepts more than the stated bound: ||A_d||_F and
 * ||x||_2 are computed with relative errors of at most gamma_(d md + 2)
 * and gamma_(d + 2), and four more roundings follow (tau is exact, a
 * power of two times an integer).  Overflow gives DBL_MAX, also rounded
 * down, so the target stays finite and an infinite certificate fails.
 */
static double
zero_allowance(const JlNsModel *m, const double *x)
{
	double		n = (double) m->d * m->md + (double) m->d;
	double		tau = (double) JL_NS_ZERO_TAU * (m->d + m->md) * JL_U_ROUND;
	double		t = tau * m->ad_fro * norm2(x, (size_t) m->d);

	t = t * t;
	if (!(t <= DBL_MAX))
		t = DBL_MAX;
	t *= 1.0 - jl_gamma(2.0 * n + 16.0);
	/* + 2^-1023 rounds to at most the stated + 2^-1022 */
	return t + DBL_MIN / 2.0;
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
				cert = 0.0,
				target = eps;

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
	if (eps > 0.0)
	{
		for (level = 0; level < 4; level++)
		{
			planned = plan(m, y, a, h0, eps * fraction[level], 0, out, work,
						   iscratch);
			cert = jl_ns_certify(m->AdT, m->amax, d, m->md, x, out, eps, r, g, D);
			if (cert <= eps)
				break;
		}
	}
	else
	{
		/*
		 * utility_error 0: the components that are free up to rounding,
		 * whole, planned within rho/16 so that the rounding of x~ and of the
		 * certificate's own evaluation has the rest; certified against rho.
		 */
		target = zero_allowance(m, x);
		level = 0;
		planned = plan(m, y, a, h0, target / 16.0, 1, out, work, iscratch);
		cert = jl_ns_certify(m->AdT, m->amax, d, m->md, x, out, target, r, g, D);
		if (!(cert <= target))
			level = 4;
	}

	/*
	 * Before x~ = x: the orthogonal part of the null space alone, x~ =
	 * U U^T x (Algorithm 1 at eps = 0; at eps > 0 that is the plan at
	 * budget 0 already) or Q Q^T x + U0 U0^T x (Algorithm 2: the common
	 * null space only).  Algorithm 2's free components along generalised
	 * eigenvectors are oblique: for a large x their removal is a large
	 * x - x~ whose rounding a small budget cannot absorb, while the
	 * orthogonal part keeps x - x~ within |x| and involves no Sigma^-1.
	 */
	if (level == 4 && (m->method == JL_NS_CONFIDENTIAL || !(eps > 0.0)))
	{
		combine(m->Ut, s + m->s0, d, y, out);
		planned = 0.0;
		cert = jl_ns_certify(m->AdT, m->amax, d, m->md, x, out, target, r, g, D);
		if (cert <= target)
			level = 3;
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
		rep->budget = target;
		rep->level = level;
	}
}
