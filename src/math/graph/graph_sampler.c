/*
 * graph_sampler.c - the graph release's sketches: the complete-graph
 * overlay as sqrt(w) (g - gbar 1) per row of R, plus one independent term
 * per edge (docs/design/graph_cuts.md, "Sampling").
 */
#include "math/graph/graph_sampler.h"

#include <math.h>
#include <string.h>

#include "math/covariance/covariance_normal.h"

void
jl_graph_overlay(JlRandom *rng, double *S, int n, int r, double w, double *mean)
{
	double		sw = sqrt(w);
	int			i,
				k;

	jl_cov_normals(rng, S, (size_t) n * r);
	memset(mean, 0, sizeof(double) * r);
	for (i = 0; i < n; i++)
	{
		const double *row = S + (size_t) i * r;

		for (k = 0; k < r; k++)
			mean[k] += row[k];
	}
	for (k = 0; k < r; k++)
		mean[k] /= n;
	for (i = 0; i < n; i++)
	{
		double	   *row = S + (size_t) i * r;

		for (k = 0; k < r; k++)
			row[k] = sw * (row[k] - mean[k]);
	}
}

void
jl_graph_add_edge(JlRandom *rng, double *S, int r, int u, int v, double c,
				  double *z)
{
	double	   *su = S + (size_t) u * r,
			   *sv = S + (size_t) v * r;
	int			k;

	jl_cov_normals(rng, z, (size_t) r);
	for (k = 0; k < r; k++)
	{
		double		t = c * z[k];

		su[k] += t;
		sv[k] -= t;
	}
}

void
jl_graph_literal(JlRandom *rng, double *S, int n, int r, double w,
				 const unsigned char *adj)
{
	double		y;
	int			i,
				j,
				k;

	memset(S, 0, sizeof(double) * (size_t) n * r);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
		{
			double		c = adj[(size_t) i * n + j] ? 1.0 : sqrt(w / n);

			for (k = 0; k < r; k++)
			{
				jl_cov_normals(rng, &y, 1);
				S[(size_t) i * r + k] += c * y;
				S[(size_t) j * r + k] -= c * y;
			}
		}
}
