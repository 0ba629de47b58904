/*
 * graph_accountant.h - the privacy of the graph release for cut queries
 * (Blocki, Blum, Datta and Sheffet 2012): R = Y E, E the weighted
 * edge-vertex incidence matrix of the graph overlaid with the complete
 * graph (every pair weight w/n, every edge of G weight 1), so that every
 * row of R is N(0, Sigma), Sigma = (w/n) L_Kn + (1 - w/n) L_G.
 *
 * Neighbours: graphs differing in one edge.  docs/design/graph_cuts.md shows that
 * the neighbour is, after whitening by the shared part of Sigma, exactly the
 * add/remove pair (u, 0) of the covariance accountant with
 *     |u|^2 <= 2 (1 - w/n) / w,
 * so delta(eps) is the larger of jl_cov_pair_delta's two directions at that
 * norm, and w is the smallest overlay weight that meets delta.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_GRAPH_ACCOUNTANT_H
#define JLDP_MATH_GRAPH_ACCOUNTANT_H

/*
 * The worst-case delta(eps) over edge neighbours whose whitened changed row
 * has norm <= rho: max over the add and the remove direction of the pair's
 * delta, plus ten times its quadrature error, times (1 + JL_COV_DELTA_MARGIN).
 * Nondecreasing in rho.
 */
double		jl_graph_delta(int r, double rho, double eps);

/*
 * The largest rho (to a relative 1e-9, lower end of a bisection) with
 * jl_graph_delta(r, rho, eps) <= delta; NaN if r, eps or delta is out of
 * range (r in [1, JL_COV_MAX_R], 0 < eps <= JL_COV_MAX_EPSILON,
 * 0 < delta < 1).  Calls jl_interrupt_check between evaluations.
 */
double		jl_graph_rho(int r, double eps, double delta);

/*
 * w0 = 2 / rho^2: the overlay weight per unit of |S| that the accountant asks
 * for with unit edges (Sigma0 = (w0/n) L_Kn + L_G), i.e. the paper's w.  The
 * construction needs w0 < n.
 */
double		jl_graph_w0(double rho);

/*
 * The overlay weight of the release, w = n w0 / (n + w0) < n: the smallest
 * w with 2 (1 - w/n) / w <= 2 / w0.  Its Sigma is n / (n + w0) times the
 * unit-edge Sigma0, a public scaling.
 */
double		jl_graph_weight(double n, double w0);

/* the whitened norm bound of the changed row, sqrt(2 (1 - w/n) / w) */
double		jl_graph_edge_rho(double n, double w);

/*
 * Theorem 3.1 of Blocki et al. read literally for the graph: every singular
 * value of E at least l = 16 sqrt(r ln(2/delta)) ln(16 r/delta) / eps for a
 * row change of norm sqrt(2), so w = l^2 (E's singular values off the
 * all-ones direction are sqrt(w)).  For comparison only.
 */
double		jl_graph_w_paper(int r, double eps, double delta);

#endif
