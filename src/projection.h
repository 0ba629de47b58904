/*
 * projection.h - the secret Johnson-Lindenstrauss matrix P (d x k) derived
 * from a 256-bit key by a counter-based ChaCha20 generator.
 *
 * Row i of P depends only on (key, kind, k, i), never on d: a row can be
 * generated alone (sparse input, streaming), every server with the key gets
 * the same P, and releases with different k or kind use independent streams.
 */
#ifndef JLDP_PROJECTION_H
#define JLDP_PROJECTION_H

#include <stddef.h>
#include <stdint.h>

#define JL_KEY_BYTES 32
#define JL_MAX_K 10000
#define JL_MAX_D 0x7fffffffL	/* row index is a 32-bit nonce word */

typedef enum JlKind
{
	JL_KIND_GAUSSIAN = 1		/* P_ij ~ N(0, 1/k) */
} JlKind;

/* Stream purposes (domain separation inside the nonce). */
#define JL_PURPOSE_PROJECTION 1
#define JL_PURPOSE_FINGERPRINT 2

/* Uniform double in the open interval (0,1) from 64 random bits. */
double		jl_open_unit(uint64_t bits);

/* Row i of P: out[0..k-1]. */
void		jl_projection_row(const uint8_t key[JL_KEY_BYTES], JlKind kind,
							  int k, uint32_t row, double *out);

/* The whole d x k matrix, row-major (P[i*k + j]). */
void		jl_projection_matrix(const uint8_t key[JL_KEY_BYTES], JlKind kind,
								 int k, int64_t d, double *P);

/*
 * Non-secret fingerprint of a key: 16 bytes of a dedicated ChaCha20 stream,
 * as 32 lowercase hex digits plus NUL.
 */
void		jl_key_fingerprint(const uint8_t key[JL_KEY_BYTES], char out[33]);

#endif
