/*
 * laplace_cells.h - the goodness-of-fit run shared by the discrete Laplace
 * sampler tests (test_sampler.c, test_sampler_table.c): cells with exact
 * probabilities, a Pearson test over them and the variance z-score.
 */
#ifndef JLDP_TEST_LAPLACE_CELLS_H
#define JLDP_TEST_LAPLACE_CELLS_H

#include "unit.h"
#include "math/noise/laplace.h"
#include "math/random/randbits.h"

#include <math.h>
#include <stdlib.h>

typedef int64_t (*LaplaceFn) (JlRandom *r, uint64_t t);

/* negative control: exact discrete Laplace of scale 1.1 t, as G1 - G2 with
 * geometric G by inversion (floating point is fine for a control) */
static int64_t
lap_misscaled(JlRandom *r, uint64_t t)
{
	double		lp = -1.0 / (1.1 * (double) t);	/* log p' */
	double		g1 = floor(log(unit_u01(r)) / lp),
				g2 = floor(log(unit_u01(r)) / lp);

	return (int64_t) g1 - (int64_t) g2;
}

#define MAXCELLS 4096

typedef struct Cells
{
	int			m;				/* cells on each side of 0 */
	int64_t		h;				/* cell 0 is [-h, h] */
	int64_t		start[MAXCELLS];	/* start[c] of positive cell c; last is a tail */
	double		prob[2 * MAXCELLS + 1];	/* 0: zero; 1..m positive; m+1..2m negative */
} Cells;

/*
 * Cells for the discrete Laplace of scale t: {0} alone unless its
 * expected count is below 100 (t > N / 200):
 * then [-h, h] with the smallest such h; then on each side runs of integers
 * grown until their expected count is >= target (and >= 100), the last one
 * pooling the tail.  Probabilities are exact:
 * Pr[a <= Z <= b] = (p^a - p^(b+1)) / (1+p), Pr[Z >= a] = p^a / (1+p).
 */
static void
build_cells(Cells *C, uint64_t t, double N)
{
	long double p = expl(-1.0L / (long double) t),
				target = fmaxl(100.0L, (long double) N / 120.0L);
	long double p0 = (-expm1l(-1.0L / (long double) t)) / (1.0L + p),
				center = p0;
	int64_t		a,
				h = 0;
	int			m = 0,
				c;

	while (N * center < 100.0L)
	{
		h++;
		center = p0 + 2.0L * (p - powl(p, (long double) (h + 1))) / (1.0L + p);
	}
	C->h = h;
	C->prob[0] = (double) center;
	a = h + 1;
	for (;;)
	{
		long double tail_a = powl(p, (long double) a) / (1.0L + p);
		int64_t		b = a;
		long double cell;

		if (N * tail_a < 2.0L * target || m == MAXCELLS - 1)
		{
			C->start[m] = a;
			C->prob[1 + m] = (double) tail_a;
			m++;
			break;
		}
		for (;;)
		{
			cell = (powl(p, (long double) a) - powl(p, (long double) (b + 1))) / (1.0L + p);
			if (N * cell >= target)
				break;
			b++;
		}
		C->start[m] = a;
		C->prob[1 + m] = (double) cell;
		m++;
		a = b + 1;
	}
	C->m = m;
	for (c = 0; c < m; c++)
		C->prob[1 + m + c] = C->prob[1 + c];
}

static int
cell_of(const Cells *C, int64_t z)
{
	int64_t		az = z < 0 ? -z : z;
	int			lo = 0,
				hi = C->m - 1;

	if (az <= C->h)
		return 0;
	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (C->start[mid] <= az)
			lo = mid;
		else
			hi = mid - 1;
	}
	return z > 0 ? 1 + lo : 1 + C->m + lo;
}

typedef struct LapResult
{
	double		x2;
	int			df;
	double		p;				/* goodness of fit */
	double		emin;
	double		var;			/* mean of z^2 */
	double		zvar;			/* (var - sigma^2) / se */
	double		seconds;
} LapResult;

static void
run_laplace(JlRandom *r, LaplaceFn fn, uint64_t t, uint64_t N, const Cells *C,
			LapResult *res)
{
	uint64_t   *cnt = calloc(2 * C->m + 1, sizeof(uint64_t));
	long double sumsq = 0.0L;
	double		s2 = jl_discrete_laplace_variance(t),
				m4 = jl_discrete_laplace_moment4(t),
				t0 = unit_seconds();
	uint64_t	i;

	for (i = 0; i < N; i++)
	{
		int64_t		z = fn(r, t);

		cnt[cell_of(C, z)]++;
		sumsq += (long double) z * (long double) z;
	}
	res->seconds = unit_seconds() - t0;
	res->p = unit_pearson(cnt, C->prob, 2 * C->m + 1, &res->x2, &res->df, &res->emin);
	res->var = (double) (sumsq / N);
	/* mean of z^2 has variance (m4 - s2^2) / N */
	res->zvar = (res->var - s2) / sqrt((m4 - s2 * s2) / (double) N);
	free(cnt);
}

#endif
