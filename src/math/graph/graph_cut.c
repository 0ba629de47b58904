/*
 * graph_cut.c - cut_G(S) from the sum of the sketches of S.
 */
#include "math/graph/graph_cut.h"

#include <math.h>

double
jl_graph_cut_from_q(double q, int r, double n, double w, double s,
					double *stddev)
{
	double		signal = 1.0 - w / n;

	if (stddev)
		*stddev = sqrt(2.0 / r) * q / signal;
	return (q - (w / n) * s * (n - s)) / signal;
}

double
jl_graph_cut(const double *x, int r, double n, double w, double s,
			 double *stddev)
{
	double		q = 0.0;
	int			k;

	for (k = 0; k < r; k++)
		q += x[k] * x[k];
	return jl_graph_cut_from_q(q / r, r, n, w, s, stddev);
}
