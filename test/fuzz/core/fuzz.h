/*
 * fuzz.h - what the libFuzzer harnesses share: reading typed values from
 * the fuzzer's bytes, and a finding reported as an abort (libFuzzer keeps
 * the input that caused it).
 */
#ifndef JLDP_FUZZ_H
#define JLDP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct FuzzIn
{
	const uint8_t *p;
	size_t		n;
} FuzzIn;

/* the next n bytes (zeros once the input is used up) */
static inline void
fuzz_take(FuzzIn *in, void *out, size_t n)
{
	size_t		k = n < in->n ? n : in->n;

	memset(out, 0, n);
	memcpy(out, in->p, k);
	in->p += k;
	in->n -= k;
}

static inline uint64_t
fuzz_u64(FuzzIn *in)
{
	uint64_t	v;

	fuzz_take(in, &v, sizeof(v));
	return v;
}

static inline uint32_t
fuzz_u32(FuzzIn *in)
{
	uint32_t	v;

	fuzz_take(in, &v, sizeof(v));
	return v;
}

static inline double
fuzz_double(FuzzIn *in)
{
	double		v;

	fuzz_take(in, &v, sizeof(v));
	return v;
}

#define FUZZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "finding: %s: ", #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
			abort(); \
		} \
	} while (0)

#endif
