/*
 * test_projection.c - keyed generation of P (projection.c).
 *
 * Deterministic checks use pinned keys: row i alone equals row i of the
 * matrix and does not depend on d; streams are separated by k, kind, row and
 * key; the documented nonce layout and a few pinned values (computed
 * independently from OpenSSL's ChaCha20 and Box-Muller in Python) hold.
 * Statistical checks use a key from getrandom: entries have mean 0, variance
 * 1/k, a N(0, 1/k) distribution and no correlation between neighbours, each
 * at level UNIT_ALPHA with a negative control that must be rejected.
 */
#include "unit.h"
#include "math/crypto/chacha20.h"
#include "math/projection/projection.h"

/* number of positions where a and b agree exactly */
static int
count_equal(const double *a, const double *b, int n)
{
	int			i,
				c = 0;

	for (i = 0; i < n; i++)
		c += a[i] == b[i];
	return c;
}

static void
test_row_vs_matrix(const uint8_t *key)
{
	static const int64_t ds[] = {1, 6, 10, 1000};
	static const int ks[] = {1, 3, 4, 5, 16, 17};
	int			a,
				b;

	for (b = 0; b < (int) (sizeof(ks) / sizeof(ks[0])); b++)
	{
		int			k = ks[b];
		int			all_ok = 1;

		for (a = 0; a < (int) (sizeof(ds) / sizeof(ds[0])); a++)
		{
			int64_t		d = ds[a],
						i;
			double	   *P = malloc(sizeof(double) * d * k);
			double	   *row = malloc(sizeof(double) * k);

			jl_projection_matrix(key, JL_KIND_GAUSSIAN, k, d, P);
			for (i = 0; i < d; i++)
			{
				jl_projection_row(key, JL_KIND_GAUSSIAN, k, (uint32_t) i, row);
				all_ok &= same_doubles(row, P + i * k, k);
			}
			free(P);
			free(row);
		}
		check(all_ok, "k=%d: every row from jl_projection_row equals that row of "
			  "jl_projection_matrix (d = 1, 6, 10, 1000)", k);
	}

	/* row 5 does not depend on d */
	{
		int			k = 7;
		double	   *P10 = malloc(sizeof(double) * 10 * k);
		double	   *P1000 = malloc(sizeof(double) * 1000 * k);

		jl_projection_matrix(key, JL_KIND_GAUSSIAN, k, 10, P10);
		jl_projection_matrix(key, JL_KIND_GAUSSIAN, k, 1000, P1000);
		check(same_doubles(P10 + 5 * k, P1000 + 5 * k, k),
			  "row 5 of the d=10 matrix equals row 5 of the d=1000 matrix (k=%d)", k);
		check(same_doubles(P10, P1000, 10 * k),
			  "the d=10 matrix is the first 10 rows of the d=1000 matrix");
		free(P10);
		free(P1000);
	}

	/* a row with a huge index, as a sparse input with d near JL_MAX_D uses */
	{
		double		r1[9],
					r2[9];

		jl_projection_row(key, JL_KIND_GAUSSIAN, 9, 0x7ffffffeu, r1);
		jl_projection_row(key, JL_KIND_GAUSSIAN, 9, 0x7ffffffeu, r2);
		check(same_doubles(r1, r2, 9) && isfinite(r1[0]) && isfinite(r1[8]),
			  "row 2^31-2 is finite and reproducible");
	}
}

static void
test_streams(const uint8_t *key)
{
	double		a[64],
				b[64];
	uint8_t		key2[JL_KEY_BYTES];
	int			eq;

	/* k is part of the stream: row 5 for k=32 vs the first 32 entries for k=33 */
	jl_projection_row(key, JL_KIND_GAUSSIAN, 32, 5, a);
	jl_projection_row(key, JL_KIND_GAUSSIAN, 33, 5, b);
	eq = count_equal(a, b, 32);
	check(eq == 0, "k=32 and k=33 give unrelated rows (%d of 32 entries equal)", eq);
	/* allowing for the 1/sqrt(k) scale: no entry is a rescaled copy either */
	{
		int			j,
					c = 0;

		for (j = 0; j < 32; j++)
			c += fabs(a[j] * sqrt(32.0) - b[j] * sqrt(33.0)) < 1e-12;
		check(c == 0, "k=32 and k=33 rows are not rescaled copies (%d of 32 match)", c);
	}

	/* kind is part of the stream (domain separation inside the nonce) */
	jl_projection_row(key, JL_KIND_GAUSSIAN, 64, 5, a);
	jl_projection_row(key, (JlKind) 2, 64, 5, b);
	eq = count_equal(a, b, 64);
	check(eq == 0, "kind 1 and kind 2 give unrelated rows (%d of 64 entries equal)", eq);

	/* rows differ */
	jl_projection_row(key, JL_KIND_GAUSSIAN, 64, 6, b);
	eq = count_equal(a, b, 64);
	check(eq == 0, "rows 5 and 6 differ (%d of 64 entries equal)", eq);

	/* keys differ (one bit) */
	memcpy(key2, key, JL_KEY_BYTES);
	key2[17] ^= 0x10;
	jl_projection_row(key2, JL_KIND_GAUSSIAN, 64, 5, b);
	eq = count_equal(a, b, 64);
	check(eq == 0, "keys differing in one bit give unrelated rows (%d of 64 entries equal)", eq);

	/* projection and fingerprint streams are separate: the fingerprint is
	 * not the first bytes of row 0 of any k */
	{
		char		fp[33];
		uint8_t		nonce[12] = {1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};	/* purpose 1, kind 1, k 1, row 0 */
		uint32_t	block[16];
		uint8_t		bytes[64];
		char		hex[33];
		int			i;

		jl_key_fingerprint(key, fp);
		jl_chacha20_block(key, 0, nonce, block);
		jl_chacha20_serialize(block, bytes);
		for (i = 0; i < 16; i++)
			sprintf(hex + 2 * i, "%02x", bytes[i]);
		check(strcmp(fp, hex) != 0, "fingerprint stream differs from projection stream");
	}
}

/* The layout documented at the top of projection.c, reimplemented. */
static void
test_layout(const uint8_t *key)
{
	int			k = 11;
	uint32_t	row = 1234567;
	double		got[11];
	double		want[11];
	uint8_t		nonce[12];
	uint32_t	w[3] = {JL_PURPOSE_PROJECTION | (JL_KIND_GAUSSIAN << 8), (uint32_t) k, row};
	int			i,
				j;

	for (i = 0; i < 3; i++)
	{
		nonce[4 * i] = (uint8_t) w[i];
		nonce[4 * i + 1] = (uint8_t) (w[i] >> 8);
		nonce[4 * i + 2] = (uint8_t) (w[i] >> 16);
		nonce[4 * i + 3] = (uint8_t) (w[i] >> 24);
	}
	for (j = 0; j < k; j++)
	{
		uint32_t	block[16];
		const uint32_t *q;
		uint64_t	b1,
					b2;

		jl_chacha20_block(key, (uint32_t) (j / 4), nonce, block);
		q = block + 4 * (j % 4);
		b1 = ((uint64_t) q[0] << 32) | q[1];
		b2 = ((uint64_t) q[2] << 32) | q[3];
		want[j] = (1.0 / sqrt((double) k)) * sqrt(-2.0 * log(jl_open_unit(b1))) *
			cos(2.0 * M_PI * jl_open_unit(b2));
	}
	jl_projection_row(key, JL_KIND_GAUSSIAN, k, row, got);
	check(same_doubles(got, want, k),
		  "documented layout: nonce (purpose|kind<<8, k, row), counter j/4, words 4(j%%4).. , Box-Muller");
}

static void
test_pinned(void)
{
	/*
	 * key 00..1f; values from an independent implementation (see header):
	 * Python's cryptography ChaCha20 (OpenSSL) with the nonce
	 * struct.pack('<III', 1 | kind << 8, k, row), counter j // 4, words
	 * 4 (j % 4) .. +3 as b1 = w0 << 32 | w1, b2 = w2 << 32 | w3,
	 * u = ((b >> 11) + 0.5) / 2**53, sqrt(-2 log u1) cos(2 pi u2) / sqrt(k).
	 * The fingerprint is the first 16 bytes of the block with counter 0 and
	 * nonce struct.pack('<III', 2, 0, 0).  If jl_open_unit or the layout
	 * changes on purpose, every existing release's P changes: recompute.
	 */
	static const double want[6] = {
		0.41646613925241416, -0.11401628474746353, -0.4577192858446783,
		0.043338132665340534, 0.02485976631212877, -0.650505348949857
	};
	uint8_t		key[JL_KEY_BYTES];
	double		got[6];
	double		worst = 0.0;
	char		fp[33],
				fp2[33];
	int			j;

	pinned_key(key, 0);
	jl_projection_row(key, JL_KIND_GAUSSIAN, 6, 7, got);
	for (j = 0; j < 6; j++)
		worst = fmax(worst, unit_rel(got[j], want[j]));
	check(worst < 1e-12, "pinned: key 00..1f, k=6, row 7 matches reference values "
		  "(max rel diff %.2g)", worst);

	jl_key_fingerprint(key, fp);
	check(strcmp(fp, "2810192032f347083ad97a7ab7d70d64") == 0,
		  "pinned: fingerprint of key 00..1f is %s", fp);
	jl_key_fingerprint(key, fp2);
	check(strcmp(fp, fp2) == 0, "fingerprint is stable across calls");
	{
		int			okhex = strlen(fp) == 32;

		for (j = 0; j < 32; j++)
			okhex &= (fp[j] >= '0' && fp[j] <= '9') || (fp[j] >= 'a' && fp[j] <= 'f');
		check(okhex, "fingerprint is 32 lowercase hex digits");
	}
	key[31] ^= 1;
	jl_key_fingerprint(key, fp2);
	check(strcmp(fp, fp2) != 0, "fingerprint differs across keys (%s vs %s)", fp, fp2);
}

static void
test_open_unit(void)
{
	double		lo = jl_open_unit(0),
				hi = jl_open_unit(UINT64_MAX);
	uint64_t	s = 5;
	int			i,
				inside = 1,
				symmetric = 1,
				monotone = 1,
				nbad = 0;
	uint64_t	first_bad = 0;

	check(lo > 0.0 && lo < 1.0, "jl_open_unit(0) = %.17g is in (0,1)", lo);
	check(hi > 0.0 && hi < 1.0, "jl_open_unit(UINT64_MAX) = %.17g is in (0,1)", hi);

	/*
	 * A centred grid of midpoints is symmetric: u(b) + u(~b) == 1 exactly
	 * (summed in long double: in double, 1 - 2^-54 would round to 1).
	 * Bit patterns: both ends, around 1/2, and a fixed-seed sample.
	 */
	for (i = 0; i < 40000; i++)
	{
		uint64_t	b;
		double		u,
					v;

		if (i < 4096)
			b = (uint64_t) i << (i % 2 ? 0 : 11);
		else if (i < 8192)
			b = UINT64_MAX - ((uint64_t) (i - 4096) << (i % 2 ? 0 : 11));
		else if (i < 12288)
			b = (UINT64_C(1) << 63) + ((uint64_t) (i - 10240) << 11);
		else
			b = unit_splitmix64(&s);
		u = jl_open_unit(b);
		v = jl_open_unit(~b);
		inside &= u > 0.0 && u < 1.0;
		if ((long double) u + (long double) v != 1.0L)	/* exact in long double */
		{
			symmetric = 0;
			if (nbad++ == 0)
				first_bad = b;
		}
		if (b < UINT64_MAX)
			monotone &= jl_open_unit(b + 1) >= u;
	}
	check(inside, "jl_open_unit(b) is in (0,1) for 40000 patterns (ends, middle, sample)");
	check(symmetric, "jl_open_unit is a centred grid: u(b) + u(~b) == 1 exactly "
		  "(%d of 40000 patterns fail, e.g. b = 0x%016llx: u = %.17g)",
		  nbad, (unsigned long long) first_bad, jl_open_unit(first_bad));
	check(monotone, "jl_open_unit is non-decreasing in b");
	/* Box-Muller at the extremes stays finite */
	check(isfinite(sqrt(-2.0 * log(lo))) && sqrt(-2.0 * log(lo)) < 9.0,
		  "sqrt(-2 log u) at the smallest u = %.4f (finite)", sqrt(-2.0 * log(lo)));
}

/* ---------- statistics of the entries of P for a random key ---------- */

typedef void (*Transform) (double *P, int64_t n, int k);

static void
no_transform(double *P, int64_t n, int k)
{
	(void) P;
	(void) n;
	(void) k;
}

static void
mis_scaled(double *P, int64_t n, int k)
{
	int64_t		i;

	for (i = 0; i < n; i++)
		P[i] *= 1.05;
}

static void
shifted(double *P, int64_t n, int k)
{
	int64_t		i;

	for (i = 0; i < n; i++)
		P[i] += 0.05 / sqrt((double) k);
}

static void
rademacher(double *P, int64_t n, int k)
{
	int64_t		i;

	for (i = 0; i < n; i++)
		P[i] = (P[i] >= 0 ? 1.0 : -1.0) / sqrt((double) k);
}

static void
duplicated(double *P, int64_t n, int k)
{
	int64_t		i;

	for (i = 0; i + 1 < n; i += 2)
		P[i + 1] = P[i];
}

#define STAT_D 2000
#define STAT_K 100
#define NCELLS 100

/*
 * Four checks on the n = d k entries x of P, z = sqrt(k) x:
 *  mean: sum z / sqrt(n) ~ N(0,1) exactly for Gaussian entries; |.| < 5.33.
 *  variance: sum z^2 ~ chi2(n) exactly; both tails at UNIT_ALPHA/2.
 *  distribution: Pearson on NCELLS equiprobable cells of N(0,1), expected
 *    2000 each; p >= UNIT_ALPHA.
 *  correlation: lag-1 products along rows and down columns, each sum z z'
 *    / sqrt(m) ~ N(0,1) by the CLT (m ~ 2e5, fourth moment 1); |.| < 5.33.
 * Returns a bitmask of rejected checks (1 mean, 2 var, 4 dist, 8 corr).
 */
static int
stat_checks(const uint8_t *key, Transform tf, const char *label, int quiet)
{
	int64_t		n = (int64_t) STAT_D * STAT_K,
				i;
	double	   *P = malloc(sizeof(double) * n);
	double		sum = 0.0,
				sumsq = 0.0,
				zmean,
				p_lo,
				p_hi,
				edges[NCELLS - 1],
				probs[NCELLS],
				x2,
				pgof,
				emin,
				crow = 0.0,
				ccol = 0.0,
				zrow,
				zcol;
	uint64_t	counts[NCELLS] = {0};
	int64_t		nrow = 0,
				ncol = 0;
	int			df,
				c,
				j,
				rejected = 0;
	double		sk = sqrt((double) STAT_K);

	jl_projection_matrix(key, JL_KIND_GAUSSIAN, STAT_K, STAT_D, P);
	tf(P, n, STAT_K);

	for (c = 0; c < NCELLS - 1; c++)
		edges[c] = unit_phi_inv((c + 1.0) / NCELLS);
	for (c = 0; c < NCELLS; c++)
		probs[c] = 1.0 / NCELLS;

	for (i = 0; i < n; i++)
	{
		double		z = P[i] * sk;
		int			lo = 0,
					hi = NCELLS - 1;

		sum += z;
		sumsq += z * z;
		/* cell: first edge above z */
		while (lo < hi)
		{
			int			mid = (lo + hi) / 2;

			if (z < edges[mid])
				hi = mid;
			else
				lo = mid + 1;
		}
		counts[lo]++;
	}
	for (i = 0; i < STAT_D; i++)
		for (j = 0; j < STAT_K; j++)
		{
			double		z = P[i * STAT_K + j] * sk;

			if (j % 2 == 0 && j + 1 < STAT_K)
			{
				crow += z * P[i * STAT_K + j + 1] * sk;
				nrow++;
			}
			if (i % 2 == 0 && i + 1 < STAT_D)
			{
				ccol += z * P[(i + 1) * STAT_K + j] * sk;
				ncol++;
			}
		}

	zmean = sum / sqrt((double) n);
	p_hi = unit_chi2_sf(sumsq, (double) n);
	p_lo = unit_chi2_cdf(sumsq, (double) n);
	pgof = unit_pearson(counts, probs, NCELLS, &x2, &df, &emin);
	/* disjoint pairs, so the products are independent under H0 */
	zrow = crow / sqrt((double) nrow);
	zcol = ccol / sqrt((double) ncol);

	if (!(fabs(zmean) < UNIT_Z))
		rejected |= 1;
	if (!(p_hi >= UNIT_ALPHA / 2 && p_lo >= UNIT_ALPHA / 2))
		rejected |= 2;
	if (!(pgof >= UNIT_ALPHA))
		rejected |= 4;
	if (!(fabs(zrow) < UNIT_Z && fabs(zcol) < UNIT_Z))
		rejected |= 8;

	if (!quiet)
	{
		check(!(rejected & 1), "%s: mean of sqrt(k) P_ij: z = %.3f (|z| < %.2f), n = %ld",
			  label, zmean, UNIT_Z, (long) n);
		check(!(rejected & 2), "%s: variance: k sum P_ij^2 / n = %.5f, chi2(n) tails %.3g / %.3g (>= %.1g)",
			  label, sumsq / n, p_lo, p_hi, UNIT_ALPHA / 2);
		check(!(rejected & 4), "%s: N(0,1/k) fit: X2 = %.1f, df = %d, p = %.3g (>= %.0g), min expected %.0f",
			  label, x2, df, pgof, UNIT_ALPHA, emin);
		check(!(rejected & 8), "%s: lag-1 correlation along rows z = %.3f, down columns z = %.3f (|z| < %.2f)",
			  label, zrow, zcol, UNIT_Z);
	}
	else
		note("%s: mean z = %.2f, var ratio %.4f (p %.2g/%.2g), fit X2 = %.0f (p %.2g), corr z = %.1f/%.1f",
			 label, zmean, sumsq / n, p_lo, p_hi, x2, pgof, zrow, zcol);
	free(P);
	return rejected;
}

static void
test_statistics(void)
{
	uint8_t		key[JL_KEY_BYTES];
	int			rej;

	unit_getrandom_fill(NULL, key, sizeof(key));
	stat_checks(key, no_transform, "random key", 0);

	/* negative controls: the same checks must reject these */
	rej = stat_checks(key, shifted, "control mean + 0.05/sqrt(k)", 1);
	check(rej & 1, "negative control: mean check rejects entries shifted by 0.05/sqrt(k)");
	rej = stat_checks(key, mis_scaled, "control x 1.05", 1);
	check(rej & 2, "negative control: variance check rejects entries scaled by 1.05");
	rej = stat_checks(key, rademacher, "control Rademacher", 1);
	check(rej & 4, "negative control: N(0,1/k) fit rejects +-1/sqrt(k) entries of the same variance");
	rej = stat_checks(key, duplicated, "control duplicated pairs", 1);
	check(rej & 8, "negative control: correlation check rejects pairwise duplicated entries");
}

int
main(void)
{
	uint8_t		key[JL_KEY_BYTES];

	pinned_key(key, 0x40);
	test_row_vs_matrix(key);
	test_streams(key);
	test_layout(key);
	test_pinned();
	test_open_unit();
	test_statistics();
	return unit_done("test_projection");
}
