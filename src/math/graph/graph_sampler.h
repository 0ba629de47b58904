/*
 * graph_sampler.h - the graph release R = Y E in O(r (|E| + n)) time and
 * O(r n) memory, without the (n choose 2) rows of E (docs/design/graph_cuts.md,
 * "Sampling").  R is stored vertex-major: S[i r + k] is entry k of vertex
 * i's sketch (column i of R), vertices 0-based.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_GRAPH_SAMPLER_H
#define JLDP_MATH_GRAPH_SAMPLER_H

#include <stddef.h>

#include "math/random/randbits.h"

/*
 * The complete-graph overlay of weight w/n per pair: S = sqrt(w) (G - 1 gbar^T)
 * with G n x r iid N(0,1) and gbar its column means (one per sketch
 * entry), so that every row of R (an n-vector) is N(0, (w/n) (n I - 11^T)).
 * mean: scratch of r doubles.
 */
void		jl_graph_overlay(JlRandom *rng, double *S, int n, int r, double w,
							 double *mean);

/*
 * One edge (u, v) of weight c^2 on top: with z r fresh N(0,1) (scratch),
 * S[u] += c z, S[v] -= c z.
 */
void		jl_graph_add_edge(JlRandom *rng, double *S, int r, int u, int v,
							  double c, double *z);

/*
 * The exact (n choose 2)-row construction, for tests: R = Y E with Y r x
 * (n choose 2) iid N(0,1), the pair (i, j) of weight w/n, or 1 if adj[i n + j]
 * is nonzero.  S as above; O(r n^2).
 */
void		jl_graph_literal(JlRandom *rng, double *S, int n, int r, double w,
							 const unsigned char *adj);

#endif
