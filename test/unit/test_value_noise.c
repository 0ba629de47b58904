/*
 * test_value_noise.c - the scale of discrete Laplace noise on one integer
 * value (value_noise.c): the smallest integer t with t * epsilon >=
 * sensitivity, against exact rational arithmetic in 128-bit integers.
 *
 * Not statistical: the cases are fixed or come from a fixed-seed stream.
 * The interesting ones are those where the rounded quotient
 * sensitivity / epsilon is an integer, or lies just beside one: there its
 * ceiling can be one step off, and only an exact comparison decides.
 */
#include "unit.h"
#include "math/noise/laplace.h"
#include "math/noise/value_noise.h"

typedef unsigned __int128 u128;

/* epsilon = M 2^E with M an integer below 2^53 */
static void
split(double epsilon, u128 *M, int *E)
{
	int			e;
	double		m = frexp(epsilon, &e);

	*M = (u128) ldexp(m, 53);
	*E = e - 53;
}

/* bits of s */
static int
bit_length(int64_t s)
{
	return 64 - __builtin_clzll((unsigned long long) s);
}

/*
 * t * epsilon >= s, exactly, for t < 2^63: t M 2^E >= s, i.e.
 * t M >= s 2^-E when E < 0, where t M < 2^116.
 */
static int
exact_covers(uint64_t t, int64_t s, double epsilon)
{
	u128		M;
	int			E;

	split(epsilon, &M, &E);
	if (E >= 0)
		return E >= 64 || ((u128) t * M << E) >= (u128) s;
	if (bit_length(s) - E > 127)
		return 0;
	return (u128) t * M >= ((u128) s << (-E));
}

/* The exact t by ceiling division, or 0 when it exceeds 2^62. */
static uint64_t
exact_steps(int64_t s, double epsilon)
{
	u128		M,
				t;
	int			E;

	split(epsilon, &M, &E);
	if (E >= 0)
		return exact_covers(1, s, epsilon) ? 1 :
			(uint64_t) (((u128) s + (M << E) - 1) / (M << E));
	if (bit_length(s) - E > 127)
		return 0;				/* s 2^-E >= 2^127 > 2^62 M */
	t = (((u128) s << (-E)) + M - 1) / M;
	if (t == 0)
		t = 1;
	return t > ((u128) 1 << 62) ? 0 : (uint64_t) t;
}

/* one case: the library against the exact t, and t minimal by brute force */
static int
agrees(int64_t s, double epsilon, int verbose)
{
	uint64_t	want = exact_steps(s, epsilon),
				got = 0;
	JlStatus	st = jl_laplace_steps(s, epsilon, &got);
	int			ok;

	if (want == 0 || want > JL_LAPLACE_MAX_T)
		ok = st == JL_ERR_SCALE;
	else
		ok = st == JL_OK && got == want && exact_covers(got, s, epsilon) &&
			(got == 1 || !exact_covers(got - 1, s, epsilon));
	if (verbose || !ok)
		check(ok, "s %lld, epsilon %.17g: t %llu (status %d), exact %llu",
			  (long long) s, epsilon, (unsigned long long) got, (int) st,
			  (unsigned long long) want);
	return ok;
}

static void
test_bad_input(void)
{
	const double bad_eps[] = {0.0, -0.0, -1.0, NAN, INFINITY, -INFINITY};
	const int64_t bad_s[] = {0, -1, INT64_MIN, JL_VALUE_MAX_SENSITIVITY + 1, INT64_MAX};
	uint64_t	t = 12345;
	int			i,
				ok = 1;

	for (i = 0; i < (int) (sizeof(bad_eps) / sizeof(bad_eps[0])); i++)
		ok &= jl_laplace_steps(1, bad_eps[i], &t) == JL_ERR_EPSILON;
	check(ok && t == 12345, "epsilon 0, -0, < 0, NaN, +-Infinity refused, t untouched");

	ok = 1;
	for (i = 0; i < (int) (sizeof(bad_s) / sizeof(bad_s[0])); i++)
		ok &= jl_laplace_steps(bad_s[i], 1.0, &t) == JL_ERR_SENSITIVITY;
	check(ok && t == 12345, "sensitivity 0, < 0, 2^52 + 1, INT64_MAX refused, t untouched");

	/* a bad epsilon is reported before a bad sensitivity */
	check(jl_laplace_steps(0, NAN, &t) == JL_ERR_EPSILON,
		  "epsilon checked before sensitivity");
}

static void
test_small_cases(void)
{
	uint64_t	t = 0;

	check(jl_laplace_steps(1, 1.0, &t) == JL_OK && t == 1, "s 1, epsilon 1: t 1");
	check(jl_laplace_steps(1, 1e300, &t) == JL_OK && t == 1, "huge epsilon: t 1, not 0");
	check(jl_laplace_steps(3, 0.75, &t) == JL_OK && t == 4, "s 3, epsilon 0.75 (exact quotient 4): t 4");
	/* 0.1 is a little above 1/10: ten steps cover 1, nine do not */
	check(jl_laplace_steps(1, 0.1, &t) == JL_OK && t == 10, "s 1, epsilon 0.1: t 10");
	/* 0.3 is a little below 3/10: 3 / 0.3 rounds to 10, but 10 steps fall short */
	check(jl_laplace_steps(3, 0.3, &t) == JL_OK && t == 11 &&
		  exact_steps(3, 0.3) == 11, "s 3, epsilon 0.3 (quotient rounds to 10): t 11");
	check(jl_laplace_steps(JL_VALUE_MAX_SENSITIVITY, 1e300, &t) == JL_OK && t == 1,
		  "largest sensitivity 2^52 accepted");
}

/*
 * Quotients that are integers, or one ulp of epsilon either side: the
 * cases where the rounded quotient's ceiling can be off by one.
 */
static void
test_integer_quotients(void)
{
	uint64_t	seed = 20261123;
	int			n = 0,
				ok = 1,
				up = 0,
				down = 0;
	int			i;

	for (i = 0; i < 200000; i++)
	{
		int64_t		s = (int64_t) (unit_splitmix64(&seed) % (1u << (1 + i % 30))) + 1;
		uint64_t	q = unit_splitmix64(&seed) % (UINT64_C(1) << (1 + i % 40)) + 1;
		double		eps,
					near[3];
		int			j;

		if (i % 7 == 0)
			s = JL_VALUE_MAX_SENSITIVITY - (int64_t) (unit_splitmix64(&seed) % 1000);
		eps = (double) s / (double) q;
		near[0] = eps;
		near[1] = nextafter(eps, 0.0);
		near[2] = nextafter(eps, INFINITY);
		for (j = 0; j < 3; j++)
		{
			uint64_t	want = exact_steps(s, near[j]);
			double		naive = fmax(1.0, ceil((double) s / near[j]));

			if (want != 0 && want <= JL_LAPLACE_MAX_T)
			{
				if (naive < (double) want)
					up++;
				else if (naive > (double) want)
					down++;
			}
			ok &= agrees(s, near[j], 0);
			n++;
		}
	}
	check(ok, "%d epsilons at and one ulp beside s / q: every t exact", n);
	/* the cases must include ones the rounded quotient gets wrong */
	check(up > 0, "the rounded quotient's ceiling was one too small %d times", up);

	/*
	 * Never too large: integers below 2^53 are doubles and rounding is
	 * monotone, so a quotient at most n cannot round above n.
	 */
	check(down == 0, "the rounded quotient's ceiling was too large %d times", down);
}

/* the sampler's limit: t = JL_LAPLACE_MAX_T accepted, one more refused */
static void
test_limit(void)
{
	double		lim = (double) JL_LAPLACE_MAX_T;
	uint64_t	t = 0;
	uint64_t	seed = 7;
	int			i,
				ok = 1;

	check(jl_laplace_steps(1, 1.0 / lim, &t) == JL_OK && t == JL_LAPLACE_MAX_T,
		  "s 1, epsilon 2^-44: t 2^44 accepted");
	check(jl_laplace_steps(1, nextafter(1.0 / lim, 0.0), &t) == JL_ERR_SCALE,
		  "s 1, epsilon just below 2^-44: refused");
	check(jl_laplace_steps(JL_VALUE_MAX_SENSITIVITY, 256.0, &t) == JL_OK &&
		  t == JL_LAPLACE_MAX_T, "s 2^52, epsilon 256: t 2^44 accepted");
	check(jl_laplace_steps(JL_VALUE_MAX_SENSITIVITY, nextafter(256.0, 0.0), &t) == JL_ERR_SCALE,
		  "s 2^52, epsilon just below 256: refused");
	check(jl_laplace_steps(1, 4.9e-324, &t) == JL_ERR_SCALE,
		  "s 1, smallest subnormal epsilon: refused, no overflow");

	/* at and one ulp below s / 2^44, which is a double for every s */
	for (i = 0; i < 100000; i++)
	{
		int64_t		s = JL_VALUE_MAX_SENSITIVITY - (int64_t) (unit_splitmix64(&seed) % (UINT64_C(1) << 40));
		double		eps = (double) s / lim;

		ok &= agrees(s, eps, 0);
		ok &= agrees(s, nextafter(eps, 0.0), 0);
	}
	check(ok, "200000 epsilons at the limit: accepted exactly when t <= 2^44");
}

/* random sensitivities and epsilons over the whole range */
static void
test_random(void)
{
	uint64_t	seed = 99;
	int			i,
				ok = 1;

	for (i = 0; i < 200000; i++)
	{
		int64_t		s = (int64_t) (unit_splitmix64(&seed) % (uint64_t) JL_VALUE_MAX_SENSITIVITY) + 1;
		double		eps = ldexp(unit_det_u01(&seed), (int) (unit_splitmix64(&seed) % 90) - 40);

		s >>= unit_splitmix64(&seed) % 52;
		if (s < 1)
			s = 1;
		ok &= agrees(s, eps, 0);
	}
	check(ok, "200000 random (s, epsilon): t exact or refused exactly beyond 2^44");
}

int
main(void)
{
	test_bad_input();
	test_small_cases();
	test_integer_quotients();
	test_limit();
	test_random();
	return unit_done("test_value_noise");
}
