/*
 * randbits.c - bits, uniform integers and rational Bernoulli trials.
 */
#include "math/random/randbits.h"

#include <string.h>

void
jl_random_init(JlRandom *r, JlRandomFill fill, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->fill = fill;
	r->ctx = ctx;
}

void
jl_random_reset(JlRandom *r)
{
	memset(r->buf, 0, sizeof(r->buf));
	r->pos = r->len = 0;
	r->acc = 0;
	r->nacc = 0;
}

static inline uint64_t
next_word(JlRandom *r)
{
	uint64_t	w;

	if (r->len - r->pos < 8)
	{
		r->fill(r->ctx, r->buf, JL_RAND_BUFSIZE);
		r->len = JL_RAND_BUFSIZE;
		r->pos = 0;
	}
	memcpy(&w, r->buf + r->pos, 8);
	memset(r->buf + r->pos, 0, 8);	/* used randomness is not kept */
	r->pos += 8;
	return w;
}

uint64_t
jl_rand_bits_refill(JlRandom *r, int nbits)
{
	uint64_t	v;

	if (nbits <= 0)
		return 0;
	if (nbits <= r->nacc)
	{
		v = (nbits == 64) ? r->acc : (r->acc & ((UINT64_C(1) << nbits) - 1));
		r->acc = (nbits == 64) ? 0 : (r->acc >> nbits);
		r->nacc -= nbits;
		return v;
	}
	else
	{
		/* take what is left, then the rest from a fresh word */
		int			have = r->nacc;
		int			need = nbits - have;
		uint64_t	low = r->acc;
		uint64_t	w = next_word(r);
		uint64_t	high;

		high = (need == 64) ? w : (w & ((UINT64_C(1) << need) - 1));
		r->acc = (need == 64) ? 0 : (w >> need);
		r->nacc = 64 - need;
		return (have == 0) ? high : (low | (high << have));
	}
}

static inline int
bit_length(uint64_t v)
{
	return v == 0 ? 0 : 64 - __builtin_clzll(v);
}

uint64_t
jl_rand_below_wide(JlRandom *r, uint64_t n)
{
	int			nbits = bit_length(n - 1);
	uint64_t	v;

	do
		v = jl_rand_bits(r, nbits);
	while (v >= n);
	return v;
}

bool
jl_rand_bernoulli_wide(JlRandom *r, uint64_t num, uint64_t den)
{
	/* as jl_rand_bernoulli, for den >= 2^55: 128-bit long division */
	for (;;)
	{
		unsigned __int128 scaled = (unsigned __int128) num << 8;
		uint64_t	q = (uint64_t) (scaled / den);
		uint64_t	R = jl_rand_bits(r, 8);

		if (R != q)
			return R < q;
		num = (uint64_t) (scaled % den);
		if (num == 0)
			return false;		/* expansion ended: r >= num/den */
	}
}
