/*
 * graph_accountant.c - delta(eps) of the graph release and the smallest
 * overlay weight, from the covariance accountant's pair delta
 * (docs/design/graph_cuts.md, "Privacy").
 */
#include "math/graph/graph_accountant.h"

#include <math.h>

#include "math/base/interrupt.h"

#include "math/covariance/covariance_accountant.h"

/* one direction: the pair's delta with ten times its error estimate */
static double
direction_delta(int r, double a, double b, double eps)
{
	double		err,
				d = jl_cov_pair_delta(r, a, b, 0.0, eps, &err);

	return d + 10.0 * err;
}

double
jl_graph_delta(int r, double rho, double eps)
{
	double		add = direction_delta(r, rho, 0.0, eps),
				remove = direction_delta(r, 0.0, rho, eps);

	return fmin(1.0, fmax(add, remove) * (1.0 + JL_COV_DELTA_MARGIN));
}

double
jl_graph_rho(int r, double eps, double delta)
{
	double		ok = 1.0,		/* ok meets delta, bad does not */
				bad;
	int			i;

	if (!(r >= 1 && r <= JL_COV_MAX_R && eps > 0.0 && eps <= JL_COV_MAX_EPSILON &&
		  delta > 0.0 && delta < 1.0))
		return NAN;
	for (i = 0; i < 2000 && jl_graph_delta(r, ok, eps) > delta; i++)
	{
		jl_interrupt_check();
		ok *= 0.5;
	}
	bad = 2.0 * ok;
	for (i = 0; i < 2000 && jl_graph_delta(r, bad, eps) <= delta; i++)
	{
		jl_interrupt_check();
		ok = bad;
		bad *= 2.0;
	}
	for (i = 0; i < 200 && bad - ok > ok * 1e-9; i++)
	{
		double		mid = sqrt(ok * bad);

		jl_interrupt_check();
		if (jl_graph_delta(r, mid, eps) <= delta)
			ok = mid;
		else
			bad = mid;
	}
	return ok;
}

double
jl_graph_w0(double rho)
{
	return 2.0 / (rho * rho);
}

double
jl_graph_weight(double n, double w0)
{
	return n * w0 / (n + w0);
}

double
jl_graph_edge_rho(double n, double w)
{
	return sqrt(2.0 * (1.0 - w / n) / w);
}

double
jl_graph_w_paper(int r, double eps, double delta)
{
	double		l = 16.0 * sqrt(r * log(2.0 / delta)) * log(16.0 * r / delta) / eps;

	return l * l;
}
