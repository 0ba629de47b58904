/*
 * test_graph.c - the graph release for cut queries (docs/design/graph_cuts.md):
 * the fast sampler and the literal (n choose 2)-row product against the
 * target covariance (negative control: the overlay without centring), the
 * cut estimate's algebra, and the accountant applied to the graph
 * neighbour: the smallest overlay weight, and a Monte Carlo of the privacy
 * loss computed from the two graphs' Gaussian densities on the plane
 * orthogonal to the all-ones vector (negative control: half the weight
 * violates the request).
 */
#include "unit.h"

#include "math/covariance/covariance_accountant.h"
#include "math/covariance/covariance_normal.h"
#include "math/graph/graph_accountant.h"
#include "math/graph/graph_cut.h"
#include "math/graph/graph_sampler.h"

static JlRandom rng;

#define N 5
static const int edges[][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}};
#define NE ((int) (sizeof(edges) / sizeof(edges[0])))

/* Sigma = (w/n) (n I - 1 1^T) + c2 L_G, n x n */
static void
target_sigma(int n, double w, double c2, const int (*e)[2], int ne, double *S)
{
	int			i,
				j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			S[i * n + j] = (w / n) * ((i == j ? n : 0) - 1.0);
	for (i = 0; i < ne; i++)
	{
		int			u = e[i][0],
					v = e[i][1];

		S[u * n + u] += c2;
		S[v * n + v] += c2;
		S[u * n + v] -= c2;
		S[v * n + u] -= c2;
	}
}

/*
 * The sample second moments of M sketch entries (S vertex-major, n x M)
 * against Sigma: for each (i, j), z = (mean of S_ik S_jk - Sigma_ij) /
 * sqrt((Sigma_ii Sigma_jj + Sigma_ij^2) / M); the largest |z| returned.
 */
static double
moments_z(const double *S, int n, int M, const double *Sig)
{
	double		worst = 0.0;
	int			i,
				j,
				k;

	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
		{
			double		m = 0.0,
						v = Sig[i * n + i] * Sig[j * n + j] + Sig[i * n + j] * Sig[i * n + j],
						z;

			for (k = 0; k < M; k++)
				m += S[(size_t) i * M + k] * S[(size_t) j * M + k];
			m /= M;
			z = fabs(m - Sig[i * n + j]) / sqrt(v / M);
			if (z > worst)
				worst = z;
		}
	return worst;
}

/*
 * The fast sampler and the literal product Y E both have covariance Sigma
 * (15 entries each, at UNIT_Z: false failure below 1.5e-6 per check); the
 * overlay without its centring, sqrt(w) g, has w I instead of
 * (w/n)(n I - 1 1^T) and must be rejected.
 */
static void
test_sampler_covariance(void)
{
	const int	M = 200000;
	double		w = 1.5,
				c2 = 1.0 - w / N,
				Sig[N * N],
				*S = malloc(sizeof(double) * N * M),
				*mean = malloc(sizeof(double) * M),
				*z = malloc(sizeof(double) * M),
				worst;
	unsigned char adj[N * N];
	int			i,
				k;

	target_sigma(N, w, c2, edges, NE, Sig);
	jl_graph_overlay(&rng, S, N, M, w, mean);
	for (i = 0; i < NE; i++)
		jl_graph_add_edge(&rng, S, M, edges[i][0], edges[i][1], sqrt(c2), z);
	worst = moments_z(S, N, M, Sig);
	check(worst <= UNIT_Z, "overlay sqrt(w)(g - gbar 1) plus edge terms: covariance matches (w/n) L_Kn + (1 - w/n) L_G, largest |z| %.2f", worst);

	memset(adj, 0, sizeof(adj));
	for (i = 0; i < NE; i++)
		adj[edges[i][0] < edges[i][1] ? edges[i][0] * N + edges[i][1] : edges[i][1] * N + edges[i][0]] = 1;
	jl_graph_literal(&rng, S, N, M, w, adj);
	worst = moments_z(S, N, M, Sig);
	check(worst <= UNIT_Z, "literal Y E over all (n choose 2) pairs: covariance matches the same target, largest |z| %.2f", worst);

	/* negative control: no centring */
	jl_cov_normals(&rng, S, (size_t) N * M);
	for (k = 0; k < N * M; k++)
		S[k] *= sqrt(w);
	for (i = 0; i < NE; i++)
		jl_graph_add_edge(&rng, S, M, edges[i][0], edges[i][1], sqrt(c2), z);
	worst = moments_z(S, N, M, Sig);
	check(worst > UNIT_Z, "negative control: the overlay sqrt(w) g without centring is rejected, largest |z| %.2f", worst);
	free(S);
	free(mean);
	free(z);
}

/* the estimate inverts 1_S^T Sigma 1_S exactly, and its plug-in scales with q */
static void
test_cut_algebra(void)
{
	double		Sig[N * N],
				w = 1.5,
				q = 0.0,
				sd,
				cut;
	int			inS[N] = {1, 1, 0, 1, 0},
				i,
				j,
				s = 3;

	target_sigma(N, w, 1.0 - w / N, edges, NE, Sig);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			q += inS[i] * inS[j] * Sig[i * N + j];
	/* S = {0, 1, 3}: edges 1-2, 2-0, 3-4 cross */
	cut = jl_graph_cut_from_q(q, 100, N, w, s, &sd);
	check(fabs(cut - 3.0) < 1e-12 && fabs(sd - sqrt(0.02) * q / (1.0 - w / N)) < 1e-12,
		  "cut from 1_S^T Sigma 1_S: %.15g (3 edges cross), stddev %.6g", cut, sd);
}

/* ---------- privacy ---------- */

/* Cholesky of an m x m SPD matrix in place (lower); log det to *ld */
static int
chol(double *A, int m, double *ld)
{
	int			i,
				j,
				k;

	*ld = 0.0;
	for (j = 0; j < m; j++)
	{
		double		d = A[j * m + j];

		for (k = 0; k < j; k++)
			d -= A[j * m + k] * A[j * m + k];
		if (!(d > 0.0))
			return -1;
		d = sqrt(d);
		A[j * m + j] = d;
		*ld += 2.0 * log(d);
		for (i = j + 1; i < m; i++)
		{
			double		s = A[i * m + j];

			for (k = 0; k < j; k++)
				s -= A[i * m + k] * A[j * m + k];
			A[i * m + j] = s / d;
		}
		for (i = 0; i < j; i++)
			A[i * m + j] = 0.0;
	}
	return 0;
}

/* |L^{-1} z|^2 */
static double
solve_sq(const double *L, int m, const double *z)
{
	double		y[64],
				s = 0.0;
	int			i,
				k;

	for (i = 0; i < m; i++)
	{
		double		t = z[i];

		for (k = 0; k < i; k++)
			t -= L[i * m + k] * y[k];
		y[i] = t / L[i * m + i];
		s += y[i] * y[i];
	}
	return s;
}

/* Q^T Sigma Q with Q the Helmert basis of the plane orthogonal to 1 */
static void
project(const double *Sig, int n, double *P)
{
	int			m = n - 1,
				a,
				b,
				i,
				j;
	double	   *Q = calloc((size_t) n * m, sizeof(double));

	for (a = 0; a < m; a++)
	{
		double		s = 1.0 / sqrt((a + 1.0) * (a + 2.0));

		for (i = 0; i <= a; i++)
			Q[i * m + a] = s;
		Q[(a + 1) * m + a] = -(a + 1.0) * s;
	}
	for (a = 0; a < m; a++)
		for (b = 0; b < m; b++)
		{
			double		t = 0.0;

			for (i = 0; i < n; i++)
				for (j = 0; j < n; j++)
					t += Q[i * m + a] * Sig[i * n + j] * Q[j * m + b];
			P[a * m + b] = t;
		}
	free(Q);
}

/*
 * delta(eps) of releasing r rows of N(0, Sigma_P) against N(0, Sigma_Q)
 * (graphs on n vertices, on the plane orthogonal to 1), Monte Carlo over
 * `trials` releases: the loss from the two densities directly.
 */
static void
mc_graph_delta(int n, const double *SigP, const double *SigQ, int r, double eps,
			   int trials, double *mean, double *se)
{
	int			m = n - 1,
				t,
				k,
				i;
	double		LP[64 * 64],
				LQ[64 * 64],
				ldP,
				ldQ,
				g[64],
				z[64],
				s = 0.0,
				s2 = 0.0;

	project(SigP, n, LP);
	project(SigQ, n, LQ);
	if (chol(LP, m, &ldP) != 0 || chol(LQ, m, &ldQ) != 0)
	{
		*mean = NAN;
		*se = NAN;
		return;
	}
	for (t = 0; t < trials; t++)
	{
		double		L = 0.0,
					v;

		for (k = 0; k < r; k++)
		{
			jl_cov_normals(&rng, g, (size_t) m);
			for (i = 0; i < m; i++)
			{
				int			j;

				z[i] = 0.0;
				for (j = 0; j <= i; j++)
					z[i] += LP[i * m + j] * g[j];
			}
			L += 0.5 * (ldQ - ldP) - 0.5 * solve_sq(LP, m, z) + 0.5 * solve_sq(LQ, m, z);
		}
		v = L > eps ? -expm1(eps - L) : 0.0;
		s += v;
		s2 += v * v;
	}
	*mean = s / trials;
	*se = sqrt(fmax(0.0, s2 / trials - (*mean) * (*mean)) / trials);
}

/*
 * The smallest weight: the bound holds at rho (the lower end of the
 * bisection) and fails just above; the graph neighbour needs less overlay
 * than the covariance accountant's replacement bound (2 l^2).
 */
static void
test_weight(void)
{
	static const double cases[][3] = {{1, 1.0, 1e-6}, {10, 0.5, 0.01}, {100, 1.0, 1e-6}, {1000, 1.0, 1e-6}};
	int			i;

	for (i = 0; i < 4; i++)
	{
		int			r = (int) cases[i][0];
		double		eps = cases[i][1],
					delta = cases[i][2],
					rho = jl_graph_rho(r, eps, delta),
					w0 = jl_graph_w0(rho),
					l = jl_cov_lift(r, eps, delta, 1.0),
					at = jl_graph_delta(r, rho, eps),
					above = jl_graph_delta(r, rho * (1.0 + 1e-7), eps);

		check(at <= delta && above > delta && w0 < 2.0 * l * l,
			  "r %d eps %g delta %g: w0 %.4g (delta %.4g, %.4g just above), replacement bound 2 l^2 = %.4g, paper %.3g, error constant sqrt(2/r) w0 %.3f",
			  r, eps, delta, w0, at, above, 2.0 * l * l, jl_graph_w_paper(r, eps, delta),
			  sqrt(2.0 / r) * w0);
	}
	check(isnan(jl_graph_rho(0, 1.0, 1e-6)) && isnan(jl_graph_rho(10, 0.0, 1e-6)) &&
		  isnan(jl_graph_rho(10, 1.0, 1.0)),
		  "out-of-range r, eps, delta give NaN");
}

/*
 * The accountant on real graph neighbours, n = 10, r = 4, eps 1, delta 0.05,
 * both directions: G' = G minus the edge (0, 1).  (a) G' empty: the
 * whitened norm is the bound itself; (b) G' a path through 0 and 1 and a
 * triangle: a smaller norm.  The Monte Carlo delta (from the densities) is
 * within UNIT_Z standard errors of the pair delta at the graph's own
 * whitened norm and not above the request; with half the weight it exceeds
 * the request (negative control).
 */
static void
test_graph_neighbour(void)
{
	const int	n = 10,
				r = 4,
				trials = 200000;
	const double eps = 1.0,
				delta = 0.05;
	static const int rest[][2] = {{1, 2}, {2, 3}, {0, 9}, {5, 6}, {6, 7}, {7, 5}};
	int			e1[16][2],
				c,
				dir;
	double		rho = jl_graph_rho(r, eps, delta),
				w0 = jl_graph_w0(rho),
				w = jl_graph_weight(n, w0);

	check(w0 < n && fabs(jl_graph_edge_rho(n, w) - rho) <= 1e-9 * rho,
		  "n %d r %d eps %g delta %g: w0 %.4f < n, w %.4f, whitened bound sqrt(2(1 - w/n)/w) = rho %.6f",
		  n, r, eps, delta, w0, w, rho);
	for (c = 0; c < 2; c++)
	{
		int			ne = c == 0 ? 0 : 6,
					i;
		double		S1[100],
					S0[100],
					P0[81],
					bq[9],
					a2,
					ld;

		for (i = 0; i < ne; i++)
		{
			e1[i][0] = rest[i][0];
			e1[i][1] = rest[i][1];
		}
		target_sigma(n, w, 1.0 - w / n, e1, ne, S0);
		e1[ne][0] = 0;
		e1[ne][1] = 1;
		target_sigma(n, w, 1.0 - w / n, e1, ne + 1, S1);
		/* the whitened norm: (1 - w/n) b^T Sigma0^+ b on the plane */
		project(S0, n, P0);
		{
			/* Q^T (e0 - e1) for the Helmert basis: only the first column is nonzero */
			int			m = n - 1;

			memset(bq, 0, sizeof(bq));
			bq[0] = 2.0 / sqrt(2.0);
			chol(P0, m, &ld);
			a2 = (1.0 - w / n) * solve_sq(P0, m, bq);
		}
		for (dir = 0; dir < 2; dir++)
		{
			double		mc,
						se,
						err,
						pd = jl_cov_pair_delta(r, dir == 0 ? sqrt(a2) : 0.0, dir == 0 ? 0.0 : sqrt(a2), 0.0, eps, &err);

			mc_graph_delta(n, dir == 0 ? S1 : S0, dir == 0 ? S0 : S1, r, eps, trials, &mc, &se);
			check(fabs(mc - pd) <= UNIT_Z * se + 10.0 * err + 1e-12 && mc - UNIT_Z * se <= delta,
				  "%s, %s: whitened norm %.6f (bound %.6f), Monte Carlo delta %.5f +- %.5f, pair delta %.5f, request %g",
				  c == 0 ? "G' empty" : "G' path and triangle", dir == 0 ? "edge added" : "edge removed",
				  sqrt(a2), rho, mc, se, pd, delta);
		}
	}
	/* negative control: half the weight */
	{
		double		S0[100],
					S1[100],
					mc,
					se,
					wh = 0.5 * w;

		target_sigma(n, wh, 1.0 - wh / n, e1, 0, S0);
		e1[0][0] = 0;
		e1[0][1] = 1;
		target_sigma(n, wh, 1.0 - wh / n, e1, 1, S1);
		mc_graph_delta(n, S1, S0, r, eps, trials, &mc, &se);
		check(mc - UNIT_Z * se > delta,
			  "negative control: at w/2 the Monte Carlo delta %.5f +- %.5f exceeds the request %g", mc, se, delta);
	}
}

int
main(void)
{
	jl_random_init(&rng, unit_getrandom_fill, NULL);
	test_sampler_covariance();
	test_cut_algebra();
	test_weight();
	test_graph_neighbour();
	return unit_done("test_graph");
}
