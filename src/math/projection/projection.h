/*
 * projection.h - the secret Johnson-Lindenstrauss matrix P (d x k) derived
 * from a 256-bit key by a counter-based ChaCha20 generator.
 *
 * Row i of P depends only on (key, kind, k, i), never on d: a row can be
 * generated alone (sparse input, streaming), every server with the key gets
 * the same P, and releases with different k or kind use independent streams.
 * The kind of a sparse projection includes its density (which scikit-learn
 * derives from d), so a row depends on d only through the density.
 */
#ifndef JLDP_MATH_PROJECTION_H
#define JLDP_MATH_PROJECTION_H

#include <stddef.h>
#include <stdint.h>

#define JL_KEY_BYTES 32
#define JL_MAX_K 10000
#define JL_MAX_D 0x7fffffffL	/* row index is a 32-bit nonce word */

/*
 * A kind is a 24-bit code: the base kind in bits 0-3 and, for sparse, the
 * density s = m / 2^e with e in bits 4-9 (13..63) and m in bits 10-23
 * (2^13 <= m < 2^14; s = 1 is m = 2^13, e = 13).  The whole code goes into
 * the nonce, so every density has its own stream.  Sparse with m = 0 means
 * "density 1/sqrt(d), d not known yet" and must be resolved with
 * jl_kind_resolve before rows are generated.
 */
typedef uint32_t JlKind;

#define JL_KIND_GAUSSIAN 1		/* P_ij ~ N(0, 1/k) */
#define JL_KIND_RADEMACHER 2	/* +-1/sqrt(k), 1/2 each */
#define JL_KIND_ACHLIOPTAS 3	/* +-sqrt(3/k) w.p. 1/6 each, 0 w.p. 2/3 */
#define JL_KIND_SPARSE 4		/* +-1/sqrt(s k) w.p. s/2 each, 0 w.p. 1 - s */
#define JL_KIND_IDENTITY 5		/* P = I_d, k = d: no projection, no key */
#define JL_KIND_BASE(kind) ((kind) & 15)
#define JL_DENSITY_BITS 14		/* bits of the density's mantissa m */
#define JL_DENSITY_MIN_EXP 13
#define JL_DENSITY_MAX_EXP 63
#define JL_DENSITY_MIN 0x1p-50	/* smallest density: 2^13 / 2^63 */

/* Stream purposes (domain separation inside the nonce). */
#define JL_PURPOSE_PROJECTION 1
#define JL_PURPOSE_FINGERPRINT 2

/* Uniform double in the open interval (0,1) from 64 random bits. */
double		jl_open_unit(uint64_t bits);

/*
 * The sparse kind of density s rounded to the nearest m / 2^e (relative
 * error <= 2^-14), or 0 if s is not in [JL_DENSITY_MIN, 1].
 */
JlKind		jl_kind_sparse(double s);

/* kind with an automatic sparse density set to 1/sqrt(d); others as they are */
JlKind		jl_kind_resolve(JlKind kind, int64_t d);

/* 1 if kind is the identity (P = I_d, k = d) */
#define JL_KIND_IS_IDENTITY(kind) ((kind) == JL_KIND_IDENTITY)

/* 1 if kind can generate rows (a known base kind, sparse with a density) */
int			jl_kind_ready(JlKind kind);

/*
 * Probability that an entry is nonzero: 1, 1/3 or the sparse density
 * (identity: 1 here, having no d; I_d has 1/d, which a release records).
 */
double		jl_kind_density(JlKind kind);

/*
 * |P_ij| of a nonzero entry (Gaussian: the scale 1/sqrt(k) of N(0,1) draws),
 * computed as the rows do, so E[P_ij^2] = 1/k for every random kind
 * (identity: 1).
 */
double		jl_kind_scale(JlKind kind, int k);

/* "gaussian", "rademacher", "achlioptas", "sparse", "identity" or "unknown" */
const char *jl_kind_name(JlKind kind);

/*
 * Row i of P: out[0..k-1].  Identity: e_i (all zeros when i >= k); the
 * release paths never generate it (they copy instead), but the row is
 * defined so that every generic loop over rows of P stays correct.
 */
void		jl_projection_row(const uint8_t key[JL_KEY_BYTES], JlKind kind,
							  int k, uint32_t row, double *out);

/*
 * The nonzeros of row i: values into val[0..n-1] and their positions into
 * idx[0..n-1] (increasing), n returned; val must hold k doubles.
 */
int			jl_projection_row_nz(const uint8_t key[JL_KEY_BYTES], JlKind kind,
								 int k, uint32_t row, double *val,
								 int32_t *idx);

/* The whole d x k matrix, row-major (P[i*k + j]). */
void		jl_projection_matrix(const uint8_t key[JL_KEY_BYTES], JlKind kind,
								 int k, int64_t d, double *P);

/*
 * Achlioptas: a uniform draw from {0..5} by rejection from 64-bit words.
 * first is the entry's own word; a rejected word (probability 4 / 2^64)
 * is replaced by the first word of block 2^31 + 2^16 j + a of the row's
 * stream, attempt a = 1, 2, ...  Exported for the tests of the rare path.
 */
int			jl_achlioptas_draw(const uint8_t key[JL_KEY_BYTES],
							   const uint8_t nonce[12], int j, uint64_t first);

/* The 12-byte nonce of a stream (layout in projection.c). */
void		jl_projection_nonce(uint8_t nonce[12], uint32_t purpose,
								JlKind kind, uint32_t k, uint32_t row);

/*
 * Non-secret fingerprint of a key: 16 bytes of a dedicated ChaCha20 stream,
 * as 32 lowercase hex digits plus NUL.
 */
void		jl_key_fingerprint(const uint8_t key[JL_KEY_BYTES], char out[33]);

#endif
