/*
 * test_csr.c - the products over the nonzeros of a sparse P (csr.c).
 *
 * Deterministic: the compressed rows hold exactly the nonzeros of P; the
 * product with long-format pairs is bit-identical to jl_sparse_project on
 * the dense P (the same terms in the same order, zeros adding nothing);
 * rows generated on demand, over their nonzeros only, give the same
 * products as the dense P; the dense-vector product is identical to a row-order loop and within the
 * error bound gamma_d sum |x_i P_ij| of BLAS; batches equal single rows;
 * a whole release (fixed-seed noise) equals the dense release.
 */
#include "unit.h"
#include "math/projection/csr.h"
#include "math/projection/projection.h"
#include "math/projection/calibrate.h"
#include "math/projection/release.h"

#include <float.h>

static JlCsr
make_csr(const double *P, int64_t d, int k)
{
	JlCsr		S;
	int64_t		nnz = jl_csr_count(P, d, k);

	S.rowptr = malloc(sizeof(int64_t) * (d + 1));
	S.colptr = malloc(sizeof(int64_t) * (k + 1));
	S.col = malloc(sizeof(int32_t) * (nnz + 1));
	S.val = malloc(sizeof(double) * (nnz + 1));
	S.row = malloc(sizeof(int32_t) * (nnz + 1));
	S.cval = malloc(sizeof(double) * (nnz + 1));
	jl_csr_fill(P, d, k, &S);
	return S;
}

static void
free_csr(JlCsr *S)
{
	free(S->rowptr);
	free(S->colptr);
	free(S->col);
	free(S->val);
	free(S->row);
	free(S->cval);
}

static void
test_kind(const uint8_t *key, JlKind kind, int64_t d, int k)
{
	double	   *P = malloc(sizeof(double) * d * k),
			   *x = malloc(sizeof(double) * d),
			   *X = malloc(sizeof(double) * 8 * d),
			   *Y = malloc(sizeof(double) * 8 * k),
			   *y1 = malloc(sizeof(double) * k),
			   *y2 = malloc(sizeof(double) * k),
			   *y3 = malloc(sizeof(double) * k),
			   *rowbuf = malloc(sizeof(double) * k),
			   *cbuf = malloc(sizeof(double) * k);
	JlSparsePair *pairs = malloc(sizeof(JlSparsePair) * d);
	JlCsr		S;
	uint64_t	seed = 11;
	int64_t		i,
				n = 0,
				nz = 0;
	int			j,
				r,
				ok = 1,
				same_pairs = 1,
				same_demand = 1,
				same_loop = 1,
				within = 1,
				batch = 1;
	double		gd = (d + 2) * (DBL_EPSILON / 2) / (1 - (d + 2) * (DBL_EPSILON / 2));
	const char *name = jl_kind_name(kind);

	jl_projection_matrix(key, kind, k, d, P);
	S = make_csr(P, d, k);

	/* the nonzeros, and only them, in row order */
	for (i = 0; i < d; i++)
	{
		int64_t		p = S.rowptr[i];

		for (j = 0; j < k; j++)
			if (P[i * k + j] != 0.0)
			{
				ok &= p < S.rowptr[i + 1] && S.col[p] == j && S.val[p] == P[i * k + j];
				p++;
				nz++;
			}
		ok &= p == S.rowptr[i + 1];
	}
	/* by columns: the same nonzeros, rows increasing */
	for (j = 0; j < k; j++)
	{
		int64_t		p = S.colptr[j];

		for (i = 0; i < d; i++)
			if (P[i * k + j] != 0.0)
			{
				ok &= p < S.colptr[j + 1] && S.row[p] == i && S.cval[p] == P[i * k + j];
				p++;
			}
		ok &= p == S.colptr[j + 1];
	}
	ok &= S.colptr[0] == 0 && S.colptr[k] == nz;
	check(ok && S.nnz == nz && S.rowptr[0] == 0 && S.rowptr[d] == nz,
		  "%s d=%ld k=%d: compressed rows and columns hold exactly the %ld nonzeros (%.1f%%)", name,
		  (long) d, k, (long) nz, 100.0 * nz / (d * k));

	for (r = 0; r < 20; r++)
	{
		double		bound[4096];

		/* a sparse input: about a third of the attributes, mixed magnitudes */
		n = 0;
		for (i = 0; i < d; i++)
		{
			uint64_t	w = unit_splitmix64(&seed);

			x[i] = (w % 3 == 0) ? ((double) (int64_t) (w >> 20) / 1e12 - 2000.0) * ((w & 8) ? 1e-3 : 1.0) : 0.0;
			if (x[i] != 0.0)
			{
				pairs[n].attr = (int32_t) (i + 1);
				pairs[n].value = x[i];
				n++;
			}
		}
		/* pairs: bit-identical to the dense P with the same order */
		jl_sparse_project(pairs, n, key, kind, k, P, rowbuf, INFINITY, y1);
		jl_csr_project_pairs(&S, pairs, n, INFINITY, y2);
		same_pairs &= memcmp(y1, y2, sizeof(double) * k) == 0;
		/* rows generated on demand, over their nonzeros: the same */
		jl_sparse_project(pairs, n, key, kind, k, NULL, rowbuf, INFINITY, y3);
		same_demand &= memcmp(y1, y3, sizeof(double) * k) == 0;
		/* with a clamp */
		jl_sparse_project(pairs, n, key, kind, k, P, rowbuf, 1.5, y1);
		jl_csr_project_pairs(&S, pairs, n, 1.5, y2);
		same_pairs &= memcmp(y1, y2, sizeof(double) * k) == 0;
		jl_sparse_project(pairs, n, key, kind, k, NULL, rowbuf, 1.5, y3);
		same_demand &= memcmp(y1, y3, sizeof(double) * k) == 0;
		/* compensated, dense P against rows on demand */
		jl_sparse_project_compensated(pairs, n, key, kind, k, P, rowbuf, 1.5, cbuf, y1);
		jl_sparse_project_compensated(pairs, n, key, kind, k, NULL, rowbuf, 1.5, cbuf, y3);
		same_demand &= memcmp(y1, y3, sizeof(double) * k) == 0;

		/* dense x: the row-order loop exactly, BLAS within the bound */
		jl_csr_project_vec(&S, x, y2);
		for (j = 0; j < k; j++)
		{
			y3[j] = 0.0;
			bound[j] = 0.0;
		}
		for (i = 0; i < d; i++)
			for (j = 0; j < k; j++)
				if (x[i] != 0.0 && P[i * k + j] != 0.0)
				{
					y3[j] += x[i] * P[i * k + j];
					bound[j] += fabs(x[i] * P[i * k + j]);
				}
		same_loop &= memcmp(y2, y3, sizeof(double) * k) == 0;
		jl_project_vec(P, d, k, x, y1);
		for (j = 0; j < k; j++)
			within &= fabs(y1[j] - y2[j]) <= 2.0 * gd * bound[j];

		/* batches: rows as alone */
		if (r < 8)
			memcpy(X + r * d, x, sizeof(double) * d);
	}
	jl_csr_project_rows(&S, X, 8, Y);
	for (r = 0; r < 8; r++)
	{
		jl_csr_project_vec(&S, X + r * d, y1);
		batch &= memcmp(y1, Y + r * k, sizeof(double) * k) == 0;
	}
	check(same_pairs, "%s: pairs x P over the nonzeros is bit-identical to the dense "
		  "jl_sparse_project (20 inputs, with and without a clamp)", name);
	check(same_demand, "%s: rows generated on demand (nonzeros only) give the dense P's "
		  "pair products bit for bit, plain and compensated", name);
	check(same_loop, "%s: dense x P gathered by columns equals the row-order loop exactly", name);
	check(within, "%s: ... and BLAS x P within gamma_d sum |x_i P_ij| per coordinate", name);
	check(batch, "%s: a batch of 8 rows equals the rows one by one", name);

	/* a release: the same noise (fixed seed), the same output */
	{
		JlMechanism	m;
		JlRandom	ra,
					rb;
		uint64_t	sa = 5,
					sb = 5;
		int			same = 1;
		JlStatus	s1,
					s2;

		memset(&m, 0, sizeof(m));
		m.d = d;
		m.k = k;
		m.epsilon = 1.0;
		m.neighbor = JL_NEIGHBOR_ELEMENT;
		m.bound = 1.0;
		m.calibration = JL_CALIBRATION_EXACT;
		m.delta = NAN;
		m.max_abs = jl_max_abs(P, d * k);
		m.proj_sensitivity = jl_max_row_l1(P, d, k);
		check(jl_mechanism_calibrate(&m) == JL_OK, "%s: calibrated", name);
		jl_random_init(&ra, unit_det_fill, &sa);
		jl_random_init(&rb, unit_det_fill, &sb);
		for (r = 0; r < 8; r++)
		{
			s1 = jl_release_row(&m, P, X + r * d, y1, &ra);
			s2 = jl_release_row_csr(&m, &S, P, X + r * d, y2, &rb);
			same &= s1 == JL_OK && s2 == JL_OK && memcmp(y1, y2, sizeof(double) * k) == 0;
		}
		/* a row beyond the input limit: clamped, compensated, dense path */
		for (i = 0; i < d; i++)
			x[i] = (i % 2) ? 1e300 : -3.0;
		s1 = jl_release_row(&m, P, x, y1, &ra);
		s2 = jl_release_row_csr(&m, &S, P, x, y2, &rb);
		same &= s1 == s2 && memcmp(y1, y2, sizeof(double) * k) == 0;
		check(same, "%s: releases over the nonzeros equal the dense releases (fixed-seed noise, "
			  "8 rows and one clamped row)", name);
	}
	free_csr(&S);
	free(P);
	free(x);
	free(X);
	free(Y);
	free(y1);
	free(y2);
	free(y3);
	free(rowbuf);
	free(cbuf);
	free(pairs);
}

int
main(void)
{
	uint8_t		key[JL_KEY_BYTES];

	pinned_key(key, 0x21);
	test_kind(key, jl_kind_resolve(JL_KIND_SPARSE, 1000), 1000, 20);
	test_kind(key, jl_kind_sparse(0.01), 3000, 64);
	test_kind(key, JL_KIND_ACHLIOPTAS, 500, 30);
	test_kind(key, JL_KIND_RADEMACHER, 200, 8);
	return unit_done("test_csr");
}
