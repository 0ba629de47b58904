/*
 * bench_cores.c - not a test: how much CPU work the machine does at once.
 * A fixed busy loop runs alone, then in two processes at the same time;
 * prints "alone_seconds pair_seconds throughput", throughput being the
 * work per second of the pair over that of one process (2.0: two whole
 * cores; 1.0: the two share one).  A parallel query can gain no more.
 *   make -C test/unit bench_cores && test/bench/c/bench_cores
 */
#include "unit.h"

#include <sys/wait.h>
#include <unistd.h>

static void
spin(void)
{
	volatile uint64_t x = 0;
	uint64_t	i;

	for (i = 0; i < UINT64_C(600000000); i++)
		x += i;
}

static double
run(int procs)
{
	double		t0 = unit_seconds();
	int			i;

	for (i = 0; i < procs; i++)
		if (fork() == 0)
		{
			spin();
			_exit(0);
		}
	for (i = 0; i < procs; i++)
		wait(NULL);
	return unit_seconds() - t0;
}

int
main(void)
{
	double		one = INFINITY,
				two = INFINITY;
	int			r;

	for (r = 0; r < 3; r++)
	{
		one = fmin(one, run(1));
		two = fmin(two, run(2));
	}
	printf("%.3f %.3f %.2f\n", one, two, 2.0 * one / two);
	return 0;
}
