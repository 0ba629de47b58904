/*
 * process_random.h - the per-process noise generator: a ChaCha20 keystream
 * with fast key erasure (math/crypto/keystream.h) behind the JlRandom bit buffer,
 * keyed from a seed source given by the caller (pg_strong_random in the
 * server, pg/keys/strong_random.c; the kernel in unit tests).
 *
 * - The first draw in a process keys the generator from 32 fresh seed
 *   bytes, and 32 more are mixed into the key (XOR) after every
 *   JL_RESEED_BYTES of output.
 * - Forks: a handler registered with pthread_atfork runs in the child of
 *   every fork() of the process, whoever calls it (the postmaster, a
 *   parallel worker's launch, PL/Python's os.fork, another library): it
 *   wipes the inherited key and buffer and marks the state unkeyed, so the
 *   child's first draw keys a generator of its own from a fresh seed and
 *   nothing of the parent's output, past or future, is in the child.  A
 *   child created by a raw clone system call, bypassing fork(), runs no
 *   handler and is not covered.
 *
 * docs/design/randomness.md gives the design and its security argument.  Plain C:
 * no postgres.h.  Not thread-safe (one generator per process).
 */
#ifndef JLDP_MATH_PROCESS_RANDOM_H
#define JLDP_MATH_PROCESS_RANDOM_H

#include <stdint.h>

#include "math/random/randbits.h"

/* output between reseeds */
#define JL_RESEED_BYTES (UINT64_C(1) << 20)

/* Fill seed with 32 uniformly random bytes, or do not return. */
typedef void (*JlSeedSource) (uint8_t seed[32]);

/*
 * The process's generator, keyed on first use from seed (which also serves
 * the reseeds until the next fork).  NULL if the fork handler could not be
 * registered (no memory): then no generator is handed out.
 */
JlRandom   *jl_process_random(JlSeedSource seed);

#endif
