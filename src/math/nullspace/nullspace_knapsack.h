/*
 * nullspace_knapsack.h - how much of each component null-space cleaning
 * removes: the augmented fractional knapsack of the paper (Fig. 1 with its
 * modified line 4) and the water-filling that maximises Theorem 2's
 * objective.  docs/design/nullspace.md derives both.
 *
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_NULLSPACE_KNAPSACK_H
#define JLDP_MATH_NULLSPACE_KNAPSACK_H

/*
 * Augmented fractional knapsack: alpha in [0,1]^n maximising
 * sum alpha_j^2 G_j subject to sum alpha_j^2 H_j <= eps (G_j, H_j >= 0).
 * With beta_j = alpha_j^2 it is Dantzig's fractional knapsack, solved
 * exactly by the greedy order of G_j/H_j (ties by index); items with
 * H_j = 0 are taken whole.  order: n ints of scratch, or a precomputed
 * order of the items with H_j > 0 when presorted is nonzero (Algorithm 2,
 * where the ratio does not depend on x).  Returns sum alpha_j^2 H_j.
 */
extern double jl_ns_knapsack(const double *G, const double *H, int n,
							 double eps, int *order, int presorted,
							 double *alpha);

/*
 * Water-filling: alpha in [0,1]^n maximising sum alpha_j subject to
 * sum alpha_j^2 H_j <= eps, i.e. alpha_j = min(1, c / H_j) with c the
 * largest level the budget allows.  order: n ints of scratch.  Returns
 * sum alpha_j^2 H_j.
 */
extern double jl_ns_waterfill(const double *H, int n, double eps, int *order,
							  double *alpha);

/*
 * Whole components only, for a budget that stands for zero (utility_error
 * 0, see nullspace_model.h): alpha_j in {0, 1}, items with H_j <= 0 taken,
 * then, in increasing H_j (or in the given order when presorted is
 * nonzero), every item that still fits in eps.  No item is removed in
 * part: a fraction of a component that costs more than rounding would
 * move x~ away from the projection without any guarantee being at stake.
 * order: n ints of scratch, or the precomputed order.  Returns
 * sum alpha_j H_j.
 */
extern double jl_ns_whole(const double *H, int n, double eps, int *order,
						  int presorted, double *alpha);

#endif
