/*
 * chacha20.c - the ChaCha20 block function (RFC 8439, section 2.3).
 */
#include "math/crypto/chacha20.h"

#include <string.h>

/*
 * Zero n bytes at p in a way the compiler may not drop as a dead store (the
 * stack arrays below hold key words and output; fast key erasure relies on
 * none of them surviving a call).
 */
static void
wipe(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

/*
 * Zero the vector registers the eight-wide code used (x86-64: xmm/ymm 0-15;
 * the AVX2 clone uses no others), so no key word or output stays in a
 * register that a context switch or a signal frame could copy to memory.
 * VZEROALL where the processor has AVX (it clears the full registers),
 * otherwise PXOR on the 16 SSE registers.  Elsewhere nothing is done
 * (docs/design/randomness.md says so).
 */
static void
wipe_vector_registers(void)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx"))
		__asm__ __volatile__("vzeroall" : : :
							 "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
							 "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	else
		__asm__ __volatile__("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\t"
							 "pxor %%xmm2, %%xmm2\n\tpxor %%xmm3, %%xmm3\n\t"
							 "pxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"
							 "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\t"
							 "pxor %%xmm8, %%xmm8\n\tpxor %%xmm9, %%xmm9\n\t"
							 "pxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
							 "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\t"
							 "pxor %%xmm14, %%xmm14\n\tpxor %%xmm15, %%xmm15" : : :
							 "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
							 "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#endif
}

static inline uint32_t
rotl32(uint32_t v, int c)
{
	return (v << c) | (v >> (32 - c));
}

static inline uint32_t
load_le32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

#define QR(a, b, c, d) \
	do { \
		a += b; d ^= a; d = rotl32(d, 16); \
		c += d; b ^= c; b = rotl32(b, 12); \
		a += b; d ^= a; d = rotl32(d, 8); \
		c += d; b ^= c; b = rotl32(b, 7); \
	} while (0)

void
jl_chacha20_block(const uint8_t key[32], uint32_t counter,
				  const uint8_t nonce[12], uint32_t out[16])
{
	uint32_t	s[16];
	uint32_t	x[16];
	int			i;

	s[0] = 0x61707865;
	s[1] = 0x3320646e;
	s[2] = 0x79622d32;
	s[3] = 0x6b206574;
	for (i = 0; i < 8; i++)
		s[4 + i] = load_le32(key + 4 * i);
	s[12] = counter;
	for (i = 0; i < 3; i++)
		s[13 + i] = load_le32(nonce + 4 * i);

	for (i = 0; i < 16; i++)
		x[i] = s[i];
	for (i = 0; i < 10; i++)
	{
		QR(x[0], x[4], x[8], x[12]);
		QR(x[1], x[5], x[9], x[13]);
		QR(x[2], x[6], x[10], x[14]);
		QR(x[3], x[7], x[11], x[15]);
		QR(x[0], x[5], x[10], x[15]);
		QR(x[1], x[6], x[11], x[12]);
		QR(x[2], x[7], x[8], x[13]);
		QR(x[3], x[4], x[9], x[14]);
	}
	for (i = 0; i < 16; i++)
		out[i] = x[i] + s[i];
	wipe(s, sizeof(s));
	wipe(x, sizeof(x));
}

void
jl_chacha20_serialize(const uint32_t block[16], uint8_t out[64])
{
	int			i;

	for (i = 0; i < 16; i++)
	{
		out[4 * i] = (uint8_t) block[i];
		out[4 * i + 1] = (uint8_t) (block[i] >> 8);
		out[4 * i + 2] = (uint8_t) (block[i] >> 16);
		out[4 * i + 3] = (uint8_t) (block[i] >> 24);
	}
}


/*
 * Eight blocks side by side: lane j of vector word i is word i of block j;
 * ngroups such groups of eight from counter s[12] on (s[12] advances).
 * GCC's vector extension (no intrinsics): the generic build uses SSE2, and
 * on x86-64 an AVX2 clone is chosen at load time where the processor has it.
 */
typedef uint32_t jl_u32x8 __attribute__((vector_size(32)));

/* two-vector shuffles of 32-bit lanes, in GCC's and clang's spelling */
#if defined(__clang__)
#define SHUF(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define SHUF(a, b, ...) __builtin_shuffle(a, b, (jl_u32x8) {__VA_ARGS__})
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JL_SHUFFLE_TRANSPOSE 1
#else
#define JL_SHUFFLE_TRANSPOSE 0
#endif

#if !JL_SHUFFLE_TRANSPOSE
static inline void
store_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}
#endif

#define ROTV(v, c) (((v) << (c)) | ((v) >> (32 - (c))))
#define QRV(a, b, c, d) \
	do { \
		a += b; d ^= a; d = ROTV(d, 16); \
		c += d; b ^= c; b = ROTV(b, 12); \
		a += b; d ^= a; d = ROTV(d, 8); \
		c += d; b ^= c; b = ROTV(b, 7); \
	} while (0)

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void
chacha20_blocks8(uint32_t s[16], uint8_t *out, size_t ngroups)
{
	jl_u32x8	x[16],
				in[16];
#if JL_SHUFFLE_TRANSPOSE
	jl_u32x8	v[8];
#else
	uint32_t	t[16][8] __attribute__((aligned(32)));
#endif
	int			i,
				j;

	/* the input words: only the counter's change from group to group */
	for (i = 0; i < 16; i++)
		for (j = 0; j < 8; j++)
			in[i][j] = s[i];
	for (j = 0; j < 8; j++)
		in[12][j] = s[12] + (uint32_t) j;	/* wraps as the counter does */
	for (; ngroups > 0; ngroups--, s[12] += 8, in[12] += 8, out += 512)
	{
		for (i = 0; i < 16; i++)
			x[i] = in[i];
		for (i = 0; i < 10; i++)
		{
			QRV(x[0], x[4], x[8], x[12]);
			QRV(x[1], x[5], x[9], x[13]);
			QRV(x[2], x[6], x[10], x[14]);
			QRV(x[3], x[7], x[11], x[15]);
			QRV(x[0], x[5], x[10], x[15]);
			QRV(x[1], x[6], x[11], x[12]);
			QRV(x[2], x[7], x[8], x[13]);
			QRV(x[3], x[4], x[9], x[14]);
		}
		for (i = 0; i < 16; i++)
			x[i] += in[i];
#if JL_SHUFFLE_TRANSPOSE
		/*
		 * transpose in registers, words 0..7 and 8..15 of the eight blocks
		 * as two 8 x 8 transposes, each block's half one vector store
		 * (little-endian: the vector's bytes are the words' LE bytes)
		 */
		for (i = 0; i < 16; i += 8)
		{
			jl_u32x8	t0 = SHUF(x[i + 0], x[i + 1], 0, 8, 1, 9, 4, 12, 5, 13),
						t1 = SHUF(x[i + 0], x[i + 1], 2, 10, 3, 11, 6, 14, 7, 15),
						t2 = SHUF(x[i + 2], x[i + 3], 0, 8, 1, 9, 4, 12, 5, 13),
						t3 = SHUF(x[i + 2], x[i + 3], 2, 10, 3, 11, 6, 14, 7, 15),
						t4 = SHUF(x[i + 4], x[i + 5], 0, 8, 1, 9, 4, 12, 5, 13),
						t5 = SHUF(x[i + 4], x[i + 5], 2, 10, 3, 11, 6, 14, 7, 15),
						t6 = SHUF(x[i + 6], x[i + 7], 0, 8, 1, 9, 4, 12, 5, 13),
						t7 = SHUF(x[i + 6], x[i + 7], 2, 10, 3, 11, 6, 14, 7, 15);
			jl_u32x8	u0 = SHUF(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13),
						u1 = SHUF(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15),
						u2 = SHUF(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13),
						u3 = SHUF(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15),
						u4 = SHUF(t4, t6, 0, 1, 8, 9, 4, 5, 12, 13),
						u5 = SHUF(t4, t6, 2, 3, 10, 11, 6, 7, 14, 15),
						u6 = SHUF(t5, t7, 0, 1, 8, 9, 4, 5, 12, 13),
						u7 = SHUF(t5, t7, 2, 3, 10, 11, 6, 7, 14, 15);
			v[0] = SHUF(u0, u4, 0, 1, 2, 3, 8, 9, 10, 11);
			v[4] = SHUF(u0, u4, 4, 5, 6, 7, 12, 13, 14, 15);
			v[1] = SHUF(u1, u5, 0, 1, 2, 3, 8, 9, 10, 11);
			v[5] = SHUF(u1, u5, 4, 5, 6, 7, 12, 13, 14, 15);
			v[2] = SHUF(u2, u6, 0, 1, 2, 3, 8, 9, 10, 11);
			v[6] = SHUF(u2, u6, 4, 5, 6, 7, 12, 13, 14, 15);
			v[3] = SHUF(u3, u7, 0, 1, 2, 3, 8, 9, 10, 11);
			v[7] = SHUF(u3, u7, 4, 5, 6, 7, 12, 13, 14, 15);
			for (j = 0; j < 8; j++)
				memcpy(out + 64 * j + 4 * i, &v[j], sizeof(v[j]));
		}
#else
		/* transpose through memory: whole-vector stores, then scalar copies */
		for (i = 0; i < 16; i++)
			memcpy(t[i], &x[i], sizeof(x[i]));
		for (j = 0; j < 8; j++)
			for (i = 0; i < 16; i++)
				store_le32(out + 64 * j + 4 * i, t[i][j]);
#endif
	}
	/* key words and output: once per call, not per group */
	wipe(in, sizeof(in));
	wipe(x, sizeof(x));
#if JL_SHUFFLE_TRANSPOSE
	wipe(v, sizeof(v));
#else
	wipe(t, sizeof(t));
#endif
}

void
jl_chacha20_blocks(const uint8_t key[32], uint32_t counter,
				   const uint8_t nonce[12], uint8_t *out, size_t nblocks)
{
	uint32_t	s[16];
	int			i;

	s[0] = 0x61707865;
	s[1] = 0x3320646e;
	s[2] = 0x79622d32;
	s[3] = 0x6b206574;
	for (i = 0; i < 8; i++)
		s[4 + i] = load_le32(key + 4 * i);
	for (i = 0; i < 3; i++)
		s[13 + i] = load_le32(nonce + 4 * i);
	s[12] = counter;
	if (nblocks >= 8)
	{
		chacha20_blocks8(s, out, nblocks / 8);
		counter += (uint32_t) (nblocks / 8 * 8);
		out += 512 * (nblocks / 8);
		nblocks %= 8;
	}
	for (; nblocks > 0; nblocks--, counter++, out += 64)
	{
		uint32_t	b[16];

		jl_chacha20_block(key, counter, nonce, b);
		jl_chacha20_serialize(b, out);
		wipe(b, sizeof(b));
	}
	wipe(s, sizeof(s));			/* the key words go */
	wipe_vector_registers();
}
