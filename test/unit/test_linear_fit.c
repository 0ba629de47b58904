/*
 * test_linear_fit.c - least squares from sufficient statistics
 * (linear_fit.c) against a direct solution in long double, and the
 * combination of partial states against one pass.
 *
 * Not statistical: data come from a fixed-seed stream.
 */
#include "unit.h"
#include "math/analytics/linear_fit.h"

static uint64_t seed = 777;

/* Gaussian elimination with partial pivoting in long double: G w = r */
static void
solve_ld(long double *G, long double *r, int n, int m)
{
	int			i,
				j,
				k,
				c;

	for (k = 0; k < n; k++)
	{
		int			p = k;

		for (i = k + 1; i < n; i++)
			if (fabsl(G[i * n + k]) > fabsl(G[p * n + k]))
				p = i;
		for (j = 0; j < n; j++)
		{
			long double t = G[k * n + j];

			G[k * n + j] = G[p * n + j];
			G[p * n + j] = t;
		}
		for (c = 0; c < m; c++)
		{
			long double t = r[k * m + c];

			r[k * m + c] = r[p * m + c];
			r[p * m + c] = t;
		}
		for (i = k + 1; i < n; i++)
		{
			long double f = G[i * n + k] / G[k * n + k];

			for (j = k; j < n; j++)
				G[i * n + j] -= f * G[k * n + j];
			for (c = 0; c < m; c++)
				r[i * m + c] -= f * r[k * m + c];
		}
	}
	for (k = n - 1; k >= 0; k--)
		for (c = 0; c < m; c++)
		{
			long double t = r[k * m + c];

			for (j = k + 1; j < n; j++)
				t -= G[k * n + j] * r[j * m + c];
			r[k * m + c] = t / G[k * n + k];
		}
}

/*
 * Reference: [W; b] from the augmented normal equations in long double,
 * ridge on W only.
 */
static void
reference(const double *X, const double *Y, int n, int d, int m, double ridge,
		  bool intercept, long double *Wref, long double *bref)
{
	int			p = d + (intercept ? 1 : 0),
				i,
				j,
				r,
				c;
	long double *G = calloc((size_t) p * p, sizeof(long double));
	long double *R = calloc((size_t) p * m, sizeof(long double));

	for (r = 0; r < n; r++)
		for (i = 0; i < p; i++)
		{
			long double xi = i < d ? X[r * d + i] : 1.0L;

			for (j = 0; j < p; j++)
				G[i * p + j] += xi * (j < d ? X[r * d + j] : 1.0L);
			for (c = 0; c < m; c++)
				R[i * m + c] += xi * Y[r * m + c];
		}
	for (i = 0; i < d; i++)
		G[i * p + i] += ridge;
	solve_ld(G, R, p, m);
	for (i = 0; i < d; i++)
		for (c = 0; c < m; c++)
			Wref[i * m + c] = R[i * m + c];
	for (c = 0; c < m; c++)
		bref[c] = intercept ? R[d * m + c] : 0.0L;
	free(G);
	free(R);
}

static double
fit_and_compare(int n, int d, int m, double ridge, bool intercept,
				double offset, int parts)
{
	double	   *X = malloc(sizeof(double) * n * d),
			   *Y = malloc(sizeof(double) * n * m),
			   *Xc = malloc(sizeof(double) * n * d),
			   *Yc = malloc(sizeof(double) * n * m),
			   *W = malloc(sizeof(double) * d * m),
				b[8],
			   *bufs[4],
				worst = 0.0,
				scale = 0.0;
	long double *Wref = malloc(sizeof(long double) * d * m),
				bref[8];
	JlLinStats	st[4];
	double		work[64];
	int			i,
				c,
				q,
				rank;

	for (i = 0; i < n * d; i++)
		X[i] = offset + unit_det_normal(&seed);
	for (i = 0; i < n; i++)
		for (c = 0; c < m; c++)
		{
			double		t = 0.3 * c - 1.0;
			int			j;

			for (j = 0; j < d; j++)
				t += (j % 3 - 1) * 0.5 * X[i * d + j];
			Y[i * m + c] = t + 0.1 * unit_det_normal(&seed);
		}
	memcpy(Xc, X, sizeof(double) * n * d);
	memcpy(Yc, Y, sizeof(double) * n * m);
	/* parts partial states of batches of up to 7 rows, then combined */
	for (q = 0; q < parts; q++)
	{
		int			lo = n * q / parts,
					hi = n * (q + 1) / parts,
					r;

		bufs[q] = malloc(sizeof(double) * jl_lin_stats_doubles(d, m));
		jl_lin_stats_init(&st[q], d, m, bufs[q]);
		for (r = lo; r < hi; r += 7)
		{
			int			b = hi - r < 7 ? hi - r : 7;

			jl_lin_stats_add_batch(&st[q], Xc + (size_t) r * d, Yc + (size_t) r * m, b, work);
		}
		if (q > 0)
			jl_lin_stats_combine(&st[0], &st[q], work);
	}
	jl_lin_solve(&st[0], ridge, intercept, W, b, &rank);
	reference(X, Y, n, d, m, ridge, intercept, Wref, bref);
	for (i = 0; i < d * m; i++)
		scale = fmax(scale, fabs((double) Wref[i]));
	for (i = 0; i < d * m; i++)
		worst = fmax(worst, fabs(W[i] - (double) Wref[i]) / scale);
	for (c = 0; c < m; c++)
		worst = fmax(worst, fabs(b[c] - (double) bref[c]) / fmax(1.0, fabs((double) bref[c])));
	for (q = 0; q < parts; q++)
		free(bufs[q]);
	free(X);
	free(Y);
	free(Xc);
	free(Yc);
	free(W);
	free(Wref);
	return worst;
}

int
main(void)
{
	double		e;

	e = fit_and_compare(200, 5, 3, 0.0, true, 0.0, 1);
	check(e < 1e-10, "least squares with intercept, one state: rel. difference to long double %.2e", e);
	e = fit_and_compare(200, 5, 3, 0.0, true, 0.0, 4);
	check(e < 1e-10, "four partial states combined: %.2e", e);
	e = fit_and_compare(300, 8, 2, 2.5, true, 0.0, 3);
	check(e < 1e-10, "ridge 2.5 (intercept not penalised): %.2e", e);
	e = fit_and_compare(300, 4, 2, 0.0, false, 0.0, 2);
	check(e < 1e-10, "no intercept: %.2e", e);
	e = fit_and_compare(400, 6, 2, 0.0, true, 1e4, 4);
	check(e < 1e-6, "features offset by 1e4 (centred statistics avoid the cancellation): %.2e", e);

	/* rank-deficient: a duplicated column gets the minimum-norm solution */
	{
		int			n = 50,
					d = 3,
					i,
					rank;
		double		X[150],
					Y[50],
					buf[64],
					W[3],
					b;
		JlLinStats	st;
		double		work[16];

		for (i = 0; i < n; i++)
		{
			X[i * 3] = unit_det_normal(&seed);
			X[i * 3 + 1] = X[i * 3];
			X[i * 3 + 2] = unit_det_normal(&seed);
			Y[i] = 2.0 * X[i * 3] + X[i * 3 + 2] + 1.0;
		}
		jl_lin_stats_init(&st, d, 1, buf);
		jl_lin_stats_add_batch(&st, X, Y, n, work);
		jl_lin_solve(&st, 0.0, true, W, &b, &rank);
		check(rank == 2 && fabs(W[0] - 1.0) < 1e-9 && fabs(W[1] - 1.0) < 1e-9 &&
			  fabs(W[2] - 1.0) < 1e-9 && fabs(b - 1.0) < 1e-9,
			  "duplicated column: rank %d, minimum-norm W = (%.12f, %.12f, %.12f), b = %.12f", rank, W[0], W[1], W[2], b);
	}
	return unit_done("test_linear_fit");
}
