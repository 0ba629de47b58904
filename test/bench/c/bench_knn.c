/*
 * bench_knn.c - not a test: the plain-C lower bound for a nearest-neighbour
 * scan.  Reads sketches from stdin, one per line as whitespace-separated
 * numbers (the first line is the query), holds them in one contiguous
 * float8 array, and times a tight loop computing every squared distance to
 * the query and keeping the 10 smallest (what ORDER BY jl_recover_dist(...)
 * LIMIT 10 computes, without the table scan).  Prints the fastest of 7
 * runs in milliseconds and the number of sketches.
 */
#include "unit.h"

#define TOPN 10

int
main(void)
{
	size_t		cap = 1 << 20,
				n = 0,
				rows = 0;
	double	   *v = malloc(sizeof(double) * cap);
	int			k = -1,
				cur = 0,
				rep;
	double		best = INFINITY,
				sink = 0.0;
	char		line[65536];

	while (fgets(line, sizeof(line), stdin) != NULL)
	{
		char	   *p = line,
				   *end;

		cur = 0;
		for (;;)
		{
			double		x = strtod(p, &end);

			if (end == p)
				break;
			if (n == cap)
				v = realloc(v, sizeof(double) * (cap *= 2));
			v[n++] = x;
			cur++;
			p = end;
		}
		if (cur == 0)
			continue;
		if (k < 0)
			k = cur;
		if (cur != k)
		{
			fprintf(stderr, "bench_knn: rows of different lengths\n");
			return 1;
		}
		rows++;
	}
	if (rows < 2)
	{
		fprintf(stderr, "bench_knn: no sketches\n");
		return 1;
	}
	for (rep = 0; rep < 7; rep++)
	{
		double		t0 = unit_seconds(),
					top[TOPN];
		size_t		idx[TOPN],
					r;
		int			i,
					j;

		for (i = 0; i < TOPN; i++)
			top[i] = INFINITY;
		for (r = 0; r < rows; r++)
		{
			const double *a = v + r * k;
			double		s = 0.0;

			for (j = 0; j < k; j++)
			{
				double		d = a[j] - v[j];

				s += d * d;
			}
			if (s < top[TOPN - 1])
			{
				for (i = TOPN - 1; i > 0 && top[i - 1] > s; i--)
				{
					top[i] = top[i - 1];
					idx[i] = idx[i - 1];
				}
				top[i] = s;
				idx[i] = r;
			}
		}
		best = fmin(best, unit_seconds() - t0);
		sink += top[0] + (double) idx[0];
	}
	printf("%.3f %zu\n", best * 1e3, rows);
	return sink == -1.0;
}
