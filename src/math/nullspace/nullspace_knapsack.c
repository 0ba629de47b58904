/*
 * nullspace_knapsack.c - the two allocations of the utility budget over the
 * components of x (see nullspace_knapsack.h and docs/design/nullspace.md).
 */
#include "math/nullspace/nullspace_knapsack.h"

#include <math.h>
#include <stdlib.h>

/* insertion sort of idx[0..n-1] by key ascending, ties by index: n is small
 * (the rank of the model) and the order must not depend on the sort's
 * stability */
static void
sort_by(int *idx, int n, const double *key)
{
	int			i,
				j;

	for (i = 1; i < n; i++)
	{
		int			v = idx[i];

		for (j = i - 1; j >= 0; j--)
		{
			int			w = idx[j];

			/* w < v compares item numbers (the tie-break), not an index with its limit */
			/* cppcheck-suppress arrayIndexThenCheck */
			if (key[w] < key[v] || (key[w] == key[v] && w < v))
				break;
			idx[j + 1] = w;
		}
		idx[j + 1] = v;
	}
}

/* whether item a comes before item b in the greedy order: G_a/H_a > G_b/H_b,
 * compared without division (H > 0 here), ties by index */
static int
ratio_before(const double *G, const double *H, int a, int b)
{
	double		l = G[a] * H[b],
				r = G[b] * H[a];

	return l > r || (l == r && a < b);
}

double
jl_ns_knapsack(const double *G, const double *H, int n, double eps,
			   int *order, int presorted, double *alpha)
{
	int			m = 0,
				i,
				j;
	double		used = 0.0;

	for (j = 0; j < n; j++)
		alpha[j] = 0.0;
	/* line 1: items that cost nothing are taken whole */
	for (j = 0; j < n; j++)
		if (H[j] <= 0.0)
			alpha[j] = 1.0;
	if (!presorted)
	{
		for (j = 0; j < n; j++)
			if (H[j] > 0.0)
				order[m++] = j;
		/* line 2: decreasing G/H (insertion sort; n is the model's rank) */
		for (i = 1; i < m; i++)
		{
			int			v = order[i];

			for (j = i - 1; j >= 0 && !ratio_before(G, H, order[j], v); j--)
				order[j + 1] = order[j];
			order[j + 1] = v;
		}
	}
	else
		m = n;
	/* lines 3-5 */
	for (i = 0; i < m; i++)
	{
		int			k = order[i];
		double		h = H[k];

		if (h <= 0.0)
			continue;			/* a presorted order may hold them */
		if (used + h < eps)
		{
			alpha[k] = 1.0;
			used += h;
		}
		else
		{
			/* modified line 4: r = sqrt((eps - sum) / H_(t+1)) */
			double		r = sqrt((eps - used) / h);

			if (!(r >= 0.0))
				r = 0.0;
			if (r > 1.0)
				r = 1.0;
			alpha[k] = r;
			used += r * r * h;
			break;
		}
	}
	return used;
}

double
jl_ns_waterfill(const double *H, int n, double eps, int *order,
				double *alpha)
{
	int			m = 0,
				i,
				j;
	double		total = 0.0,
				low,			/* sum of H over the items below the level */
				inv,			/* sum of 1/H over the items above it */
				c,
				used = 0.0;

	for (j = 0; j < n; j++)
	{
		alpha[j] = 1.0;
		if (H[j] > 0.0)
		{
			order[m++] = j;
			total += H[j];
		}
	}
	if (total <= eps || m == 0)
		return total;
	if (eps <= 0.0)
	{
		for (i = 0; i < m; i++)
			alpha[order[i]] = 0.0;
		return 0.0;
	}
	sort_by(order, m, H);

	/*
	 * g(c) = sum_{H_j <= c} H_j + c^2 sum_{H_j > c} 1/H_j increases in c;
	 * find the breakpoint interval [H_(i-1), H_(i)] in which g reaches eps
	 * and solve the quadratic there: c = sqrt((eps - low) / inv).
	 */
	c = 0.0;
	for (i = 0; i < m; i++)
	{
		double		h = H[order[i]];

		/* sums afresh at each step (m is small): no drift from updates */
		low = 0.0;
		for (j = 0; j < i; j++)
			low += H[order[j]];
		inv = 0.0;
		for (j = i; j < m; j++)
			inv += 1.0 / H[order[j]];
		if (low + h * h * inv >= eps)	/* g(H_(i)) */
		{
			c = sqrt((eps - low) / inv);
			if (!(c >= 0.0))
				c = 0.0;
			if (c > h)
				c = h;
			break;
		}
	}
	for (i = 0; i < m; i++)
	{
		int			k = order[i];
		double		a = c / H[k];

		alpha[k] = a < 1.0 ? a : 1.0;
		used += alpha[k] * alpha[k] * H[k];
	}
	return used;
}

double
jl_ns_whole(const double *H, int n, double eps, int *order, int presorted,
			double *alpha)
{
	int			m = 0,
				i,
				j;
	double		used = 0.0;

	for (j = 0; j < n; j++)
		alpha[j] = H[j] <= 0.0 ? 1.0 : 0.0;
	if (!presorted)
	{
		for (j = 0; j < n; j++)
			if (H[j] > 0.0)
				order[m++] = j;
		sort_by(order, m, H);
	}
	else
		m = n;
	for (i = 0; i < m; i++)
	{
		int			k = order[i];

		/* a NaN or infinite cost (overflow) never fits */
		if (H[k] > 0.0 && used + H[k] <= eps)
		{
			alpha[k] = 1.0;
			used += H[k];
		}
	}
	return used;
}
