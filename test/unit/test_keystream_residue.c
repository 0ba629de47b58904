/*
 * test_keystream_residue.c - fast key erasure leaves no copy of the erased
 * key, nor of the output, in the memory the generator worked in
 * (docs/design/randomness.md, "Backtracking resistance").
 *
 * The state itself is checked in test_keystream; here the check is on the
 * stack and the vector registers.  A refill runs in a frame below main's,
 * over a stack area zeroed beforehand; then, from a frame at the same depth,
 * the area the refill's callees used is copied and searched for the old
 * key's 32-bit words and for 64-bit words of the output (the output is
 * zeroed word by word as randbits takes it, so a copy on the stack would
 * outlive it).  On x86-64 the vector registers are read right after the
 * refill and searched the same way.  Deterministic: the key and the words
 * searched for are fixed, and a chance match of a 32-bit key word in 16 KiB
 * of zeroed stack is not what a failure looks like (the check requires all
 * eight words of the key, or a 64-bit output word).
 *
 * A positive control plants the key in a deeper frame without wiping it and
 * must be found, so the scan can see what it looks for.
 */
#include "unit.h"
#include "math/crypto/chacha20.h"
#include "math/crypto/keystream.h"

#define AREA (64 * 1024)		/* zeroed beforehand, below main's frame */
#define SPAN (16 * 1024)		/* searched: the deepest refill uses ~3 KiB */

static uint8_t out[JL_RAND_BUFSIZE];
static uint8_t snapshot[SPAN];
static uint8_t vregs[16 * 32];

/* touch and zero AREA bytes of stack below the caller's frame */
__attribute__((noinline)) static void
prepare_stack(void)
{
	volatile uint8_t area[AREA];
	size_t		i;

	for (i = 0; i < AREA; i++)
		area[i] = 0;
	(void) area;
}

/*
 * Copy the SPAN bytes below this frame (the area the callees of a function
 * called from the same frame as this one used) to snapshot.
 */
__attribute__((noinline)) static void
take_snapshot(void)
{
	const volatile uint8_t *top = (const volatile uint8_t *) __builtin_frame_address(0);
	size_t		i;

	for (i = 0; i < SPAN; i++)
		snapshot[i] = top[(ptrdiff_t) i - SPAN];
}

/* x86-64: the 16 vector registers (ymm where the processor has AVX) */
__attribute__((noinline)) static int
read_vector_registers(void)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx"))
		__asm__ __volatile__(
			"vmovdqu %%ymm0, 0(%0)\n\tvmovdqu %%ymm1, 32(%0)\n\t"
			"vmovdqu %%ymm2, 64(%0)\n\tvmovdqu %%ymm3, 96(%0)\n\t"
			"vmovdqu %%ymm4, 128(%0)\n\tvmovdqu %%ymm5, 160(%0)\n\t"
			"vmovdqu %%ymm6, 192(%0)\n\tvmovdqu %%ymm7, 224(%0)\n\t"
			"vmovdqu %%ymm8, 256(%0)\n\tvmovdqu %%ymm9, 288(%0)\n\t"
			"vmovdqu %%ymm10, 320(%0)\n\tvmovdqu %%ymm11, 352(%0)\n\t"
			"vmovdqu %%ymm12, 384(%0)\n\tvmovdqu %%ymm13, 416(%0)\n\t"
			"vmovdqu %%ymm14, 448(%0)\n\tvmovdqu %%ymm15, 480(%0)"
			: : "r"(vregs) : "memory");
	else
		__asm__ __volatile__(
			"movdqu %%xmm0, 0(%0)\n\tmovdqu %%xmm1, 32(%0)\n\t"
			"movdqu %%xmm2, 64(%0)\n\tmovdqu %%xmm3, 96(%0)\n\t"
			"movdqu %%xmm4, 128(%0)\n\tmovdqu %%xmm5, 160(%0)\n\t"
			"movdqu %%xmm6, 192(%0)\n\tmovdqu %%xmm7, 224(%0)\n\t"
			"movdqu %%xmm8, 256(%0)\n\tmovdqu %%xmm9, 288(%0)\n\t"
			"movdqu %%xmm10, 320(%0)\n\tmovdqu %%xmm11, 352(%0)\n\t"
			"movdqu %%xmm12, 384(%0)\n\tmovdqu %%xmm13, 416(%0)\n\t"
			"movdqu %%xmm14, 448(%0)\n\tmovdqu %%xmm15, 480(%0)"
			: : "r"(vregs) : "memory");
	return 1;
#else
	return 0;
#endif
}

__attribute__((noinline)) static void
refill(JlKeystream *ks, size_t len)
{
	jl_keystream_generate(ks, out, len);
}

/* positive control: the key copied into a deeper frame and left there */
__attribute__((noinline)) static void
leave_key(const uint8_t *key)
{
	volatile uint8_t copy[32];
	int			i;

	for (i = 0; i < 32; i++)
		copy[i] = key[i];
	(void) copy;
}

__attribute__((noinline)) static void
blocks(const uint8_t *key, size_t n)
{
	static const uint8_t nonce[12];

	jl_chacha20_blocks(key, 0, nonce, out, n);
}

/* 4-byte-aligned places in mem[0..n) holding one of the key's 8 words */
static int
key_words_found(const uint8_t *mem, size_t n, const uint8_t key[32], int *whole)
{
	size_t		i;
	int			w,
				words = 0;

	*whole = 0;
	for (i = 0; i + 4 <= n; i += 4)
		for (w = 0; w < 8; w++)
			if (memcmp(mem + i, key + 4 * w, 4) == 0)
				words++;
	for (i = 0; i + 32 <= n; i += 4)
		if (memcmp(mem + i, key, 32) == 0)
			(*whole)++;
	return words;
}

/* 8-byte-aligned places in mem[0..n) holding one of the output's 64-bit words */
static int
output_words_found(const uint8_t *mem, size_t n, const uint8_t *o, size_t olen)
{
	size_t		i,
				j;
	int			found = 0;

	for (i = 0; i + 8 <= n; i += 8)
	{
		uint64_t	m;

		memcpy(&m, mem + i, 8);
		if (m == 0)
			continue;
		for (j = 0; j + 8 <= olen; j += 8)
			if (memcmp(mem + i, o + j, 8) == 0)
			{
				found++;
				break;
			}
	}
	return found;
}

static void
one_refill(size_t len)
{
	JlKeystream ks;
	uint8_t		old[32];
	int			i,
				words,
				whole,
				outw,
				haveregs;

	for (i = 0; i < 32; i++)
		old[i] = (uint8_t) (0xA5 ^ (i * 37) ^ (i << 3));
	jl_keystream_seed(&ks, old);
	prepare_stack();
	refill(&ks, len);
	haveregs = read_vector_registers();
	take_snapshot();
	check(memcmp(ks.key, old, 32) != 0, "refill of %zu bytes: the key moved on", len);
	words = key_words_found(snapshot, SPAN, old, &whole);
	check(words == 0 && whole == 0,
		  "refill of %zu bytes: no word of the old key on the stack (%d words, %d whole keys)",
		  len, words, whole);
	outw = output_words_found(snapshot, SPAN, out, len);
	check(outw == 0, "refill of %zu bytes: no output word on the stack (%d found)", len, outw);
	if (haveregs)
	{
		words = key_words_found(vregs, sizeof(vregs), old, &whole);
		outw = output_words_found(vregs, sizeof(vregs), out, len);
		check(words == 0 && outw == 0,
			  "refill of %zu bytes: no word of the old key (%d) or output (%d) in the vector registers",
			  len, words, outw);
	}
	jl_keystream_wipe(&ks);
}

/* the block function alone: nothing of the key or output in the registers */
static void
registers_after_blocks(size_t n)
{
	uint8_t		key[32];
	int			i,
				words,
				whole,
				outw;

	for (i = 0; i < 32; i++)
		key[i] = (uint8_t) (0x5A ^ (i * 29));
	blocks(key, n);
	if (!read_vector_registers())
		return;
	words = key_words_found(vregs, sizeof(vregs), key, &whole);
	outw = output_words_found(vregs, sizeof(vregs), out, 64 * n);
	check(words == 0 && outw == 0,
		  "%zu blocks: no key word (%d) or output word (%d) left in the vector registers",
		  n, words, outw);
}

static void
control(void)
{
	uint8_t		key[32];
	int			i,
				words,
				whole;

	for (i = 0; i < 32; i++)
		key[i] = (uint8_t) (0x3C ^ (i * 53));
	prepare_stack();
	leave_key(key);
	take_snapshot();
	words = key_words_found(snapshot, SPAN, key, &whole);
	check(whole >= 1, "positive control: a key left in a deeper frame is found (%d words, %d whole)",
		  words, whole);
}

int
main(void)
{
	control();
	one_refill(JL_RAND_BUFSIZE);	/* the server's refill: 8-block path */
	one_refill(100);			/* one block at a time */
	one_refill(32 + 8 * 64 + 40);	/* eight-wide, then a partial block */
	registers_after_blocks(8);
	registers_after_blocks(3);
	return unit_done("test_keystream_residue");
}
