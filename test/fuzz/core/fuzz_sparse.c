/*
 * fuzz_sparse.c - the (attribute, value) pairs of a long-format release,
 * compacted (math/projection/sparse.c, jl_sparse_compact): any pairs, in
 * any order, with repeats, NaN and infinities, come out sorted by
 * attribute, each once, each the sum of its values (a sum compared with
 * the pairs summed in input order, which is exact here for the small
 * integers the harness uses as values, and checked as NaN/infinite alike
 * otherwise).
 */
#include "fuzz.h"

#include <math.h>

#include "math/projection/sparse.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzIn		in = {data, size};
	int64_t		n = (int64_t) (size / 5),
				m;
	JlSparsePair *p = malloc(sizeof(JlSparsePair) * (n ? n : 1));
	JlSparsePair *orig = malloc(sizeof(JlSparsePair) * (n ? n : 1));

	for (int64_t i = 0; i < n; i++)
	{
		uint8_t		b[5];

		fuzz_take(&in, b, 5);
		p[i].attr = (int32_t) (1 + ((b[0] | (b[1] << 8)) % 512));
		/* small integers, or now and then NaN or an infinity */
		p[i].value = b[4] == 255 ? NAN : b[4] == 254 ? INFINITY : (double) (int8_t) b[2] * (1 + b[3] % 4);
		orig[i] = p[i];
	}
	m = jl_sparse_compact(p, n);
	FUZZ_CHECK(m >= 0 && m <= n, "%lld pairs from %lld", (long long) m, (long long) n);
	for (int64_t i = 0; i < m; i++)
	{
		double		sum = 0.0;
		int			seen = 0;

		FUZZ_CHECK(i == 0 || p[i].attr > p[i - 1].attr, "not sorted and distinct at %lld", (long long) i);
		for (int64_t j = 0; j < n; j++)
			if (orig[j].attr == p[i].attr)
			{
				sum += orig[j].value;
				seen = 1;
			}
		FUZZ_CHECK(seen, "attribute %d was not in the input", p[i].attr);
		FUZZ_CHECK(sum == p[i].value || (isnan(sum) && isnan(p[i].value)),
				   "attribute %d: %g, not %g", p[i].attr, p[i].value, sum);
	}
	for (int64_t j = 0; j < n; j++)
	{
		int			found = 0;

		for (int64_t i = 0; i < m && !found; i++)
			found = p[i].attr == orig[j].attr;
		FUZZ_CHECK(found, "attribute %d was lost", orig[j].attr);
	}
	free(p);
	free(orig);
	return 0;
}
