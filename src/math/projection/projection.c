/*
 * projection.c - keyed generation of the JL projection matrix.
 *
 * Nonce layout (12 bytes, little-endian words):
 *   word 0: purpose | kind << 8   (kind: the 24-bit code of projection.h,
 *                                  density included)
 *   word 1: k
 *   word 2: row index i
 * The 32-bit block counter walks along the row, with a fixed number of
 * words per entry, so entry j sits in a known block and can be located
 * without generating the others:
 *   gaussian    4 words (two 64-bit uniforms, Box-Muller): block j / 4
 *   rademacher  1 bit (bit j % 32 of word (j % 512) / 32): block j / 512
 *   achlioptas  2 words (one 64-bit word, rejection to {0..5}): block j / 8
 *   sparse      2 words (one 64-bit word u): block j / 8
 * A 64-bit word is (w[2i] << 32) | w[2i + 1].
 *
 * Exactness.  Rademacher signs are single bits.  Achlioptas draws v uniform
 * on {0..5} from a 64-bit word w by rejection: w < 6 floor(2^64 / 6) is
 * accepted and v = w mod 6 (each v then has exactly floor(2^64 / 6)
 * preimages); v = 0 gives +, v = 1 gives -, else 0.  A rejected word
 * (probability 4 / 2^64) is replaced by fresh words from a separate counter
 * range (blocks 2^31 + 2^16 j + a), so the other entries keep their words.
 * Sparse: the density is the dyadic s = m / 2^e (e <= 63), and the entry is
 * nonzero iff the top e bits of u, as an integer, are below m: probability
 * exactly m / 2^e = s.  Its sign is the lowest bit of u, which the top e
 * bits never include.  The value is +-1/sqrt(s k) with this exact s.
 */
#include "math/projection/projection.h"
#include "math/crypto/chacha20.h"

#include <math.h>
#include <string.h>

#define DENSITY_M(kind) (((kind) >> 10) & 0x3fff)
#define DENSITY_E(kind) (((kind) >> 4) & 0x3f)

/* Achlioptas: 6 floor(2^64 / 6) = 2^64 - 4, the first rejected word */
#define ACHLIOPTAS_LIMIT (UINT64_MAX - UINT64_MAX % 6)
#define ACHLIOPTAS_RETRY_BASE 0x80000000u
#define ACHLIOPTAS_MAX_ATTEMPTS 0xffff

void
jl_projection_nonce(uint8_t nonce[12], uint32_t purpose, JlKind kind,
					uint32_t k, uint32_t row)
{
	uint32_t	w[3];
	int			i;

	w[0] = purpose | (kind << 8);
	w[1] = k;
	w[2] = row;
	for (i = 0; i < 3; i++)
	{
		nonce[4 * i] = (uint8_t) w[i];
		nonce[4 * i + 1] = (uint8_t) (w[i] >> 8);
		nonce[4 * i + 2] = (uint8_t) (w[i] >> 16);
		nonce[4 * i + 3] = (uint8_t) (w[i] >> 24);
	}
}

double
jl_open_unit(uint64_t bits)
{
	/*
	 * (2m + 1) / 2^53 with m the top 52 bits: 2m + 1 < 2^53 is exact in a
	 * double, so u lies in [2^-53, 1 - 2^-53], never 0 or 1, and the grid
	 * is symmetric (u(m) + u(~m) = 1).
	 */
	return (double) (((bits >> 12) << 1) | 1) * (1.0 / 9007199254740992.0);
}

JlKind
jl_kind_sparse(double s)
{
	int			ex;
	double		f;
	uint32_t	m,
				e;

	if (!(s >= JL_DENSITY_MIN && s <= 1.0))
		return 0;
	f = frexp(s, &ex);			/* s = f 2^ex, 1/2 <= f < 1 */
	m = (uint32_t) round(ldexp(f, JL_DENSITY_BITS));
	e = (uint32_t) (JL_DENSITY_BITS - ex);
	if (m == (1u << JL_DENSITY_BITS))
	{
		m >>= 1;
		e--;
	}
	if (e < JL_DENSITY_MIN_EXP || e > JL_DENSITY_MAX_EXP)
		return 0;
	return JL_KIND_SPARSE | (e << 4) | (m << 10);
}

JlKind
jl_kind_resolve(JlKind kind, int64_t d)
{
	if (kind == JL_KIND_SPARSE && d >= 1)
		return jl_kind_sparse(1.0 / sqrt((double) d));
	return kind;
}

int
jl_kind_ready(JlKind kind)
{
	switch (JL_KIND_BASE(kind))
	{
		case JL_KIND_GAUSSIAN:
		case JL_KIND_RADEMACHER:
		case JL_KIND_ACHLIOPTAS:
		case JL_KIND_IDENTITY:
			return kind == JL_KIND_BASE(kind);
		case JL_KIND_SPARSE:
			return kind < (1u << 24) &&
				DENSITY_M(kind) >= (1u << (JL_DENSITY_BITS - 1)) &&
				DENSITY_E(kind) >= JL_DENSITY_MIN_EXP &&
				DENSITY_E(kind) <= JL_DENSITY_MAX_EXP &&
				(DENSITY_E(kind) > JL_DENSITY_MIN_EXP ||
				 DENSITY_M(kind) == (1u << (JL_DENSITY_BITS - 1)));
	}
	return 0;
}

double
jl_kind_density(JlKind kind)
{
	switch (JL_KIND_BASE(kind))
	{
		case JL_KIND_ACHLIOPTAS:
			return 1.0 / 3.0;
		case JL_KIND_SPARSE:
			return ldexp((double) DENSITY_M(kind), -(int) DENSITY_E(kind));
	}
	return 1.0;
}

double
jl_kind_scale(JlKind kind, int k)
{
	switch (JL_KIND_BASE(kind))
	{
		case JL_KIND_ACHLIOPTAS:
			return sqrt(3.0 / (double) k);
		case JL_KIND_SPARSE:
			/* s k = m k / 2^e is exact (m k < 2^28) */
			return 1.0 / sqrt(jl_kind_density(kind) * (double) k);
		case JL_KIND_IDENTITY:
			return 1.0;
	}
	return 1.0 / sqrt((double) k);
}

const char *
jl_kind_name(JlKind kind)
{
	switch (JL_KIND_BASE(kind))
	{
		case JL_KIND_GAUSSIAN:
			return "gaussian";
		case JL_KIND_RADEMACHER:
			return "rademacher";
		case JL_KIND_ACHLIOPTAS:
			return "achlioptas";
		case JL_KIND_SPARSE:
			return "sparse";
		case JL_KIND_IDENTITY:
			return "identity";
	}
	return "unknown";
}

static uint64_t
word64(const uint32_t *w)
{
	return ((uint64_t) w[0] << 32) | w[1];
}

int
jl_achlioptas_draw(const uint8_t key[JL_KEY_BYTES], const uint8_t nonce[12],
				   int j, uint64_t first)
{
	uint64_t	w = first;
	uint32_t	a;

	for (a = 1; w >= ACHLIOPTAS_LIMIT && a <= ACHLIOPTAS_MAX_ATTEMPTS; a++)
	{
		uint32_t	block[16];

		jl_chacha20_block(key, ACHLIOPTAS_RETRY_BASE + ((uint32_t) j << 16) + a,
						  nonce, block);
		w = word64(block);
	}
	/* 2^16 rejections in a row (probability 2^-(62 * 65535)) give 0 */
	if (w >= ACHLIOPTAS_LIMIT)
		return 2;
	return (int) (w % 6);
}

void
jl_projection_row(const uint8_t key[JL_KEY_BYTES], JlKind kind, int k,
				  uint32_t row, double *out)
{
	uint8_t		nonce[12];
	uint32_t	block[16];
	double		scale = jl_kind_scale(kind, k);
	int			j;

	jl_projection_nonce(nonce, JL_PURPOSE_PROJECTION, kind, (uint32_t) k, row);
	switch (JL_KIND_BASE(kind))
	{
		case JL_KIND_GAUSSIAN:
			for (j = 0; j < k; j++)
			{
				const uint32_t *w;
				double		u1,
							u2;

				if (j % 4 == 0)
					jl_chacha20_block(key, (uint32_t) (j / 4), nonce, block);
				w = block + 4 * (j % 4);
				u1 = jl_open_unit(word64(w));
				u2 = jl_open_unit(word64(w + 2));
				out[j] = scale * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
			}
			break;
		case JL_KIND_RADEMACHER:
			for (j = 0; j < k; j++)
			{
				uint32_t	w;

				if (j % 512 == 0)
					jl_chacha20_block(key, (uint32_t) (j / 512), nonce, block);
				w = block[(j % 512) / 32];
				out[j] = ((w >> (j % 32)) & 1) ? -scale : scale;
			}
			break;
		case JL_KIND_ACHLIOPTAS:
			for (j = 0; j < k; j++)
			{
				int			v;

				if (j % 8 == 0)
					jl_chacha20_block(key, (uint32_t) (j / 8), nonce, block);
				v = jl_achlioptas_draw(key, nonce, j, word64(block + 2 * (j % 8)));
				out[j] = v == 0 ? scale : (v == 1 ? -scale : 0.0);
			}
			break;
		case JL_KIND_SPARSE:
			{
				uint64_t	m = DENSITY_M(kind);
				int			shift = 64 - (int) DENSITY_E(kind);

				for (j = 0; j < k; j++)
				{
					uint64_t	u;

					if (j % 8 == 0)
						jl_chacha20_block(key, (uint32_t) (j / 8), nonce, block);
					u = word64(block + 2 * (j % 8));
					if ((u >> shift) < m)
						out[j] = (u & 1) ? -scale : scale;
					else
						out[j] = 0.0;
				}
			}
			break;
		case JL_KIND_IDENTITY:
			/* no key, no stream: row i of I */
			for (j = 0; j < k; j++)
				out[j] = (uint32_t) j == row ? 1.0 : 0.0;
			break;
		default:
			/* not a kind (the callers check): no usable row */
			for (j = 0; j < k; j++)
				out[j] = NAN;
			break;
	}
	memset(block, 0, sizeof(block));
}

int
jl_projection_row_nz(const uint8_t key[JL_KEY_BYTES], JlKind kind, int k,
					 uint32_t row, double *val, int32_t *idx)
{
	int			j,
				n = 0;

	jl_projection_row(key, kind, k, row, val);
	for (j = 0; j < k; j++)
		if (val[j] != 0.0)
		{
			val[n] = val[j];
			idx[n] = j;
			n++;
		}
	return n;
}

void
jl_projection_matrix(const uint8_t key[JL_KEY_BYTES], JlKind kind, int k,
					 int64_t d, double *P)
{
	int64_t		i;

	for (i = 0; i < d; i++)
		jl_projection_row(key, kind, k, (uint32_t) i, P + i * (int64_t) k);
}

void
jl_key_fingerprint(const uint8_t key[JL_KEY_BYTES], char out[33])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t		nonce[12];
	uint32_t	block[16];
	uint8_t		bytes[64];
	int			i;

	jl_projection_nonce(nonce, JL_PURPOSE_FINGERPRINT, 0, 0, 0);
	jl_chacha20_block(key, 0, nonce, block);
	jl_chacha20_serialize(block, bytes);
	for (i = 0; i < 16; i++)
	{
		out[2 * i] = hex[bytes[i] >> 4];
		out[2 * i + 1] = hex[bytes[i] & 15];
	}
	out[32] = '\0';
	memset(bytes, 0, sizeof(bytes));
	memset(block, 0, sizeof(block));
}
