/*
 * test_process_random.c - the per-process noise generator
 * (math/random/process_random.c): keyed once, reseeded every JL_RESEED_BYTES, and
 * never continued by the child of a fork.
 *
 * - Reseeding: the seed source is called once on first use, then once per
 *   JL_RESEED_BYTES of output.
 * - fork(): after the parent has drawn (so its key and buffer are set), the
 *   child's next 4096 bits are compared with the parent's next 4096: equal
 *   means the child continued the parent's stream.  They differ by chance
 *   with probability 1 - 2^-4096, so the check cannot fail by chance.  Also
 *   through a grandchild, and when the parent forks before ever drawing.
 * - Negative control: a child created by a raw clone system call (no fork
 *   handlers run) does continue the parent's stream, and the same
 *   comparison reports it, so the check can fail.
 */
#define _GNU_SOURCE
#include "unit.h"
#include "math/random/process_random.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NW 64					/* 64-bit words compared: 4096 bits */

static int	seed_calls = 0;

static void
kernel_seed(uint8_t seed[32])
{
	seed_calls++;
	unit_getrandom_fill(NULL, seed, 32);
}

static void
draw(uint64_t *w, int n)
{
	JlRandom   *r = jl_process_random(kernel_seed);
	int			i;

	for (i = 0; i < n; i++)
		w[i] = jl_rand_bits(r, 64);
}

static void
write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n > 0)
	{
		ssize_t		k = write(fd, b, n);

		if (k <= 0)
			_exit(3);
		b += k;
		n -= (size_t) k;
	}
}

static int
read_all(int fd, void *p, size_t n)
{
	uint8_t    *b = p;

	while (n > 0)
	{
		ssize_t		k = read(fd, b, n);

		if (k <= 0)
			return 0;
		b += k;
		n -= (size_t) k;
	}
	return 1;
}

/*
 * Fork (raw: through the clone system call, no fork handlers); in the
 * child draw NW words (after forking once more if grand) and send them
 * back; in the parent draw NW words.  Returns 1 if the child's words equal
 * the parent's, 0 if they differ, -1 on a broken child.
 */
static int
child_continues_parent(int raw, int grand)
{
	uint64_t	mine[NW],
				theirs[NW];
	int			fd[2],
				status,
				ok;
	pid_t		pid;

	if (pipe(fd) != 0)
		return -1;
	fflush(stdout);
	pid = raw ? (pid_t) syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) : fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
	{
		uint64_t	w[NW];

		close(fd[0]);
		if (grand)
		{
			pid_t		g = fork();

			if (g < 0)
				_exit(4);
			if (g > 0)
				_exit(waitpid(g, &status, 0) == g && WIFEXITED(status) ? WEXITSTATUS(status) : 5);
		}
		draw(w, NW);
		write_all(fd[1], w, sizeof(w));
		_exit(0);
	}
	close(fd[1]);
	draw(mine, NW);
	ok = read_all(fd[0], theirs, sizeof(theirs));
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !ok)
		return -1;
	return memcmp(mine, theirs, sizeof(mine)) == 0;
}

static void
test_fork(void)
{
	uint64_t	w[3];
	int			r;

	draw(w, 3);					/* the parent's key and buffer are in use */
	r = child_continues_parent(0, 0);
	check(r == 0, "fork mid-buffer: the child's next 4096 bits differ from the parent's (%d)", r);
	r = child_continues_parent(0, 1);
	check(r == 0, "fork of a fork: the grandchild's bits differ from the parent's (%d)", r);
	r = child_continues_parent(1, 0);
	check(r == 1, "negative control: a raw clone (no fork handlers) continues the parent's stream (%d)", r);
}

static void
test_reseed(void)
{
	JlRandom   *r = jl_process_random(kernel_seed);
	int			before = seed_calls;
	uint64_t	i,
				words = 2 * JL_RESEED_BYTES / 8 + JL_RAND_BUFSIZE / 8;

	/* 2 MiB + one buffer of output from here: at least 2 reseeds, at most 3 */
	for (i = 0; i < words; i++)
		(void) jl_rand_bits(r, 64);
	check(seed_calls - before >= 2 && seed_calls - before <= 3,
		  "reseeded every %llu bytes of output (%d seed calls for %llu bytes)",
		  (unsigned long long) JL_RESEED_BYTES, seed_calls - before,
		  (unsigned long long) (8 * words));
}

int
main(void)
{
	JlRandom   *r;
	int			c;

	/* forked before the first use: parent and child each key their own */
	c = child_continues_parent(0, 0);
	check(c == 0, "fork before the first use: the child's bits differ from the parent's (%d)", c);
	r = jl_process_random(kernel_seed);
	check(r != NULL && seed_calls == 1, "first use keys the generator once (%d seed calls)", seed_calls);
	check(jl_process_random(kernel_seed) == r && seed_calls == 1,
		  "later calls: the same generator, no new seed (%d seed calls)", seed_calls);
	test_fork();
	test_reseed();
	return unit_done("test_process_random");
}
