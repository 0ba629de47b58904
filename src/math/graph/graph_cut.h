/*
 * graph_cut.h - the cut estimate from a graph release and its standard
 * deviation (docs/design/graph_cuts.md, "Cut estimates").
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_GRAPH_CUT_H
#define JLDP_MATH_GRAPH_CUT_H

/*
 * With x = R 1_S = the sum of the sketches of the s vertices of S (r
 * entries), q = |x|^2 / r is unbiased for
 *     1_S^T Sigma 1_S = (w/n) s (n - s) + (1 - w/n) cut_G(S),
 * so (q - (w/n) s (n - s)) / (1 - w/n) is unbiased for cut_G(S).  Its
 * standard deviation is sqrt(2/r) 1_S^T Sigma 1_S / (1 - w/n), whose
 * unbiased plug-in sqrt(2/r) q / (1 - w/n) goes to *stddev if not NULL.
 */
double		jl_graph_cut(const double *x, int r, double n, double w, double s,
						 double *stddev);

/* the same from q = |x|^2 / r */
double		jl_graph_cut_from_q(double q, int r, double n, double w, double s,
								double *stddev);

#endif
