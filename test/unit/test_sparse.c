/*
 * test_sparse.c - the long-format helpers of the release aggregate
 * (src/math/projection/sparse.c): pair compaction, x P from rows generated on demand (plain
 * and compensated) against the dense projection, and the sensitivities of P
 * streamed row by row against those of the materialized matrix.
 * Deterministic checks only.
 */
#include "unit.h"

#include "math/projection/projection.h"
#include "math/projection/sensitivity.h"
#include "math/projection/sparse.h"
#include "math/projection/release.h"
#include "math/projection/grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t key[JL_KEY_BYTES] = {
	7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

static void
test_compact(void)
{
	JlSparsePair p[] = {{5, 1.0}, {2, 0.5}, {5, 2.0}, {9, -1.0}, {2, 0.25}, {1, 3.0}};
	int64_t		n = jl_sparse_compact(p, 6);
	int			ok = (n == 4 &&
					  p[0].attr == 1 && p[0].value == 3.0 &&
					  p[1].attr == 2 && p[1].value == 0.75 &&
					  p[2].attr == 5 && p[2].value == 3.0 &&
					  p[3].attr == 9 && p[3].value == -1.0);

	check(ok, "jl_sparse_compact sorts by attribute and sums duplicates (%lld distinct)", (long long) n);
	check(jl_sparse_compact(p, 0) == 0, "jl_sparse_compact of nothing is nothing");
}

static void
test_project(void)
{
	const int	d = 300,
				k = 12;
	double	   *P = malloc(sizeof(double) * d * k);
	double	   *x = calloc(d, sizeof(double));
	double		y[12],
				ys[12],
				yc[12],
				yg[12],
				rowbuf[12],
				cbuf[12];
	JlSparsePair pairs[40];
	uint64_t	s = 42;
	double		worst = 0.0,
				worst_c = 0.0,
				worst_g = 0.0;
	int			i,
				j,
				n = 0;

	jl_projection_matrix(key, JL_KIND_GAUSSIAN, k, d, P);
	for (i = 0; i < 40; i++)
	{
		int			a = 1 + (int) (unit_splitmix64(&s) % d);
		double		v = unit_det_u01(&s) * 4.0 - 2.0;

		pairs[n].attr = a;
		pairs[n].value = v;
		n++;
		x[a - 1] += v;			/* duplicates sum, as the aggregate does */
	}
	n = (int) jl_sparse_compact(pairs, n);
	jl_project_vec(P, d, k, x, y);
	jl_sparse_project(pairs, n, key, JL_KIND_GAUSSIAN, k, P, rowbuf, INFINITY, ys);
	jl_sparse_project_compensated(pairs, n, key, JL_KIND_GAUSSIAN, k, NULL, rowbuf,
								  INFINITY, cbuf, yc);
	jl_sparse_project(pairs, n, key, JL_KIND_GAUSSIAN, k, NULL, rowbuf, INFINITY, yg);
	for (j = 0; j < k; j++)
	{
		worst = fmax(worst, fabs(ys[j] - y[j]));
		worst_c = fmax(worst_c, fabs(yc[j] - y[j]));
		worst_g = fmax(worst_g, fabs(yg[j] - ys[j]));
	}
	check(worst < 1e-12, "sparse x P (dense P given) equals jl_project_vec of the dense x (max diff %.3g)", worst);
	check(worst_g == 0.0, "sparse x P with rows generated from the key equals it exactly (max diff %.3g)", worst_g);
	check(worst_c < 1e-12, "compensated sparse x P equals it too (max diff %.3g)", worst_c);

	/* clamping of values */
	pairs[0].value = 1e300;
	jl_sparse_project(pairs, 1, key, JL_KIND_GAUSSIAN, k, P, rowbuf, 10.0, ys);
	jl_projection_row(key, JL_KIND_GAUSSIAN, k, (uint32_t) (pairs[0].attr - 1), rowbuf);
	worst = 0.0;
	for (j = 0; j < k; j++)
		worst = fmax(worst, fabs(ys[j] - 10.0 * rowbuf[j]));
	check(worst < 1e-12, "values are clamped to the limit (1e300 -> 10; max diff %.3g)", worst);
	free(P);
	free(x);
}

static void
test_stream(void)
{
	const int	d = 2000,
				k = 9;
	double	   *P = malloc(sizeof(double) * d * k);
	double	   *buf = malloc(sizeof(double) * 256 * k);
	double	   *G = calloc((size_t) k * k, sizeof(double));
	JlStreamStats st = {0.0, 0.0};
	JlRowMethod m1,
				m2;
	double		r1,
				r2;
	int64_t		i;
	int			a,
				b;

	jl_projection_matrix(key, JL_KIND_GAUSSIAN, k, d, P);
	for (i = 0; i < d; i += 256)
		jl_stream_rows(key, JL_KIND_GAUSSIAN, k, i, (i + 256 <= d) ? 256 : d - i, buf, &st, G);
	check(st.max_abs == jl_max_abs(P, (int64_t) d * k),
		  "streamed max |P| equals the dense one (%.17g)", st.max_abs);
	check(st.max_row_l1 == jl_max_row_l1(P, d, k),
		  "streamed max row L1 norm equals the dense one (%.17g)", st.max_row_l1);
	for (a = 0; a < k; a++)
		for (b = 0; b < a; b++)
			G[a * k + b] = G[b * k + a];
	r1 = jl_row_l1_sensitivity(P, d, k, &m1);
	r2 = jl_row_l1_sensitivity_gram(G, d, k, &m2);
	check(m1 == m2 && unit_rel(r1, r2) < 1e-13,
		  "row sensitivity from the streamed Gram matrix %.17g equals the dense %.17g", r2, r1);
	free(P);
	free(buf);
	free(G);
}

int
main(void)
{
	test_compact();
	test_project();
	test_stream();
	return unit_done("test_sparse");
}
