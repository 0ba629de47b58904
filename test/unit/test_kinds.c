/*
 * test_kinds.c - the Rademacher, Achlioptas and sparse projections
 * (projection.c).
 *
 * Deterministic checks with pinned keys: every entry is exactly one of the
 * kind's values; the documented layout, reimplemented from the ChaCha20
 * block function, gives the same rows; a row alone equals that row of the
 * matrix and does not depend on d (sparse: except through the density);
 * kinds and densities have separate streams; the density code rounds as
 * documented; the rare rejection path of the Achlioptas draw.
 * Statistical checks with a key from getrandom, each at level UNIT_ALPHA
 * (false-failure rate <= 1e-6, see unit.h), each with a negative control
 * that must be rejected: frequencies of +, 0, - (Pearson), pairs of
 * neighbouring entries (independence), E[k P_ij^2] = 1 (so E||P_i||^2 = 1
 * and E[P^T P] = (d/k) I) and E[P_ij P_ij'] = 0.
 */
#include "unit.h"
#include "math/crypto/chacha20.h"
#include "math/projection/projection.h"

static uint64_t
w64(const uint32_t *w)
{
	return ((uint64_t) w[0] << 32) | w[1];
}

/* ---------- density codes ---------- */

static void
test_density_code(void)
{
	JlKind		c;
	double		s,
				worst = 0.0;
	int64_t		d;
	int			ok = 1;

	c = jl_kind_sparse(1.0);
	check(c != 0 && jl_kind_ready(c) && jl_kind_density(c) == 1.0,
		  "density 1 is representable exactly (code 0x%06x)", c);
	check(jl_kind_density(jl_kind_sparse(0.5)) == 0.5 &&
		  jl_kind_density(jl_kind_sparse(0x1p-50)) == 0x1p-50 &&
		  jl_kind_density(jl_kind_sparse(0.75)) == 0.75,
		  "dyadic densities 1/2, 3/4, 2^-50 round-trip exactly");
	check(jl_kind_sparse(0.0) == 0 && jl_kind_sparse(-0.1) == 0 &&
		  jl_kind_sparse(1.0000001) == 0 && jl_kind_sparse(NAN) == 0 &&
		  jl_kind_sparse(0x1p-51) == 0 && jl_kind_sparse(INFINITY) == 0,
		  "densities outside [2^-50, 1] and NaN have no code");
	for (d = 1; d <= 3000000; d = d * 3 + 1)
	{
		c = jl_kind_resolve(JL_KIND_SPARSE, d);
		s = 1.0 / sqrt((double) d);
		ok &= jl_kind_ready(c) && JL_KIND_BASE(c) == JL_KIND_SPARSE && c < (1u << 24);
		worst = fmax(worst, fabs(jl_kind_density(c) - s) / s);
	}
	c = jl_kind_resolve(JL_KIND_SPARSE, JL_MAX_D);
	ok &= jl_kind_ready(c);
	check(ok && worst <= 0x1p-14,
		  "auto density 1/sqrt(d) for d = 1 .. 2^31-1: valid 24-bit codes, "
		  "relative rounding %.3g <= 2^-14", worst);
	check(!jl_kind_ready(JL_KIND_SPARSE) && !jl_kind_ready(0) && !jl_kind_ready(6) &&
		  !jl_kind_ready(JL_KIND_IDENTITY | (1u << 4)) &&
		  !jl_kind_ready(JL_KIND_GAUSSIAN | (1u << 4)) &&
		  jl_kind_ready(JL_KIND_GAUSSIAN) && jl_kind_ready(JL_KIND_RADEMACHER) &&
		  jl_kind_ready(JL_KIND_ACHLIOPTAS),
		  "unresolved sparse, unknown codes and stray bits are not ready; base kinds are");
	check(jl_kind_resolve(JL_KIND_RADEMACHER, 1000) == JL_KIND_RADEMACHER &&
		  jl_kind_resolve(jl_kind_sparse(0.25), 1000) == jl_kind_sparse(0.25),
		  "resolve leaves other kinds and explicit densities alone");
	check(jl_kind_resolve(JL_KIND_SPARSE, 1024) == jl_kind_sparse(1.0 / 32.0) &&
		  jl_kind_density(jl_kind_resolve(JL_KIND_SPARSE, 1024)) == 1.0 / 32.0,
		  "d = 1024 resolves to density 1/32 exactly");
}

/* ---------- exact values ---------- */

static void
test_values(const uint8_t *key)
{
	static const int ks[] = {1, 3, 20, 100, 513};
	int			a;

	for (a = 0; a < 5; a++)
	{
		int			k = ks[a];
		double	   *row = malloc(sizeof(double) * k);
		JlKind		kinds[4] = {JL_KIND_RADEMACHER, JL_KIND_ACHLIOPTAS,
		jl_kind_sparse(0.1), jl_kind_resolve(JL_KIND_SPARSE, 1000)};
		double		want_scale[4];
		int			b;

		want_scale[0] = 1.0 / sqrt((double) k);
		want_scale[1] = sqrt(3.0 / k);
		want_scale[2] = 1.0 / sqrt(jl_kind_density(kinds[2]) * k);
		want_scale[3] = 1.0 / sqrt(jl_kind_density(kinds[3]) * k);
		for (b = 0; b < 4; b++)
		{
			double		sc = jl_kind_scale(kinds[b], k);
			int			ok = sc == want_scale[b];
			uint32_t	i;
			int			j;

			for (i = 0; i < 50; i++)
			{
				jl_projection_row(key, kinds[b], k, i * 7919u, row);
				for (j = 0; j < k; j++)
					ok &= row[j] == sc || row[j] == -sc ||
						(b > 0 && row[j] == 0.0 && !signbit(row[j]));
			}
			check(ok, "%s (density %.6g), k = %d: every entry of 50 rows is exactly "
				  "+-%.17g%s", jl_kind_name(kinds[b]), jl_kind_density(kinds[b]), k, sc,
				  b > 0 ? " or +0" : "");
		}
		free(row);
	}
	check(jl_kind_scale(JL_KIND_RADEMACHER, 25) == 0.2 &&
		  jl_kind_scale(JL_KIND_ACHLIOPTAS, 12) == 0.5 &&
		  jl_kind_scale(jl_kind_sparse(0.25), 16) == 0.5 &&
		  jl_kind_scale(jl_kind_sparse(1.0), 4) == 0.5,
		  "scales: rademacher k=25 0.2, achlioptas k=12 sqrt(3/12) = 0.5, "
		  "sparse s=1/4 k=16 1/sqrt(4) = 0.5, sparse s=1 k=4 0.5");
}

/* ---------- the layout of projection.c, reimplemented ---------- */

static void
nonce_of(uint8_t nonce[12], JlKind kind, uint32_t k, uint32_t row)
{
	uint32_t	w[3] = {JL_PURPOSE_PROJECTION | (kind << 8), k, row};
	int			i;

	for (i = 0; i < 3; i++)
	{
		nonce[4 * i] = (uint8_t) w[i];
		nonce[4 * i + 1] = (uint8_t) (w[i] >> 8);
		nonce[4 * i + 2] = (uint8_t) (w[i] >> 16);
		nonce[4 * i + 3] = (uint8_t) (w[i] >> 24);
	}
}

static void
test_layout(const uint8_t *key)
{
	int			k = 1100;		/* more than one Rademacher block */
	uint32_t	row = 4242;
	double	   *got = malloc(sizeof(double) * k),
			   *want = malloc(sizeof(double) * k);
	uint8_t		nonce[12];
	uint32_t	block[16];
	JlKind		sp = jl_kind_sparse(0.3);
	uint64_t	m = 0;
	int			e = 0,
				j;

	nonce_of(nonce, JL_KIND_RADEMACHER, k, row);
	for (j = 0; j < k; j++)
	{
		jl_chacha20_block(key, j / 512, nonce, block);
		want[j] = ((block[(j % 512) / 32] >> (j % 32)) & 1) ? -1.0 / sqrt(k) : 1.0 / sqrt(k);
	}
	jl_projection_row(key, JL_KIND_RADEMACHER, k, row, got);
	check(same_doubles(got, want, k),
		  "rademacher layout: bit j%%32 of word (j%%512)/32 of block j/512, 1 = minus");

	nonce_of(nonce, JL_KIND_ACHLIOPTAS, k, row);
	for (j = 0; j < k; j++)
	{
		uint64_t	w;

		jl_chacha20_block(key, j / 8, nonce, block);
		w = w64(block + 2 * (j % 8));
		if (w >= UINT64_MAX - 3)
			w = 0;				/* not hit in this row */
		want[j] = w % 6 == 0 ? sqrt(3.0 / k) : (w % 6 == 1 ? -sqrt(3.0 / k) : 0.0);
	}
	jl_projection_row(key, JL_KIND_ACHLIOPTAS, k, row, got);
	check(same_doubles(got, want, k),
		  "achlioptas layout: 64-bit word j%%8 of block j/8, w mod 6: 0 plus, 1 minus, else 0");

	/* the density code: m / 2^e, with m and e where projection.h says */
	m = (sp >> 10) & 0x3fff;
	e = (int) ((sp >> 4) & 0x3f);
	check(ldexp((double) m, -e) == jl_kind_density(sp) && m >= 8192 && m < 16384,
		  "sparse code 0x%06x: m = %llu in bits 10-23, e = %d in bits 4-9", sp,
		  (unsigned long long) m, e);
	nonce_of(nonce, sp, k, row);
	for (j = 0; j < k; j++)
	{
		uint64_t	u;
		double		sc = 1.0 / sqrt(ldexp((double) m, -e) * k);

		jl_chacha20_block(key, j / 8, nonce, block);
		u = w64(block + 2 * (j % 8));
		want[j] = (u >> (64 - e)) < m ? ((u & 1) ? -sc : sc) : 0.0;
	}
	jl_projection_row(key, sp, k, row, got);
	check(same_doubles(got, want, k),
		  "sparse layout: word u = 64-bit word j%%8 of block j/8, nonzero iff top e bits < m, "
		  "sign = lowest bit");
	free(got);
	free(want);
}

/* the rejection path of the Achlioptas draw, never met in practice */
static void
test_achlioptas_rejection(const uint8_t *key)
{
	uint8_t		nonce[12];
	uint32_t	block[16];
	uint64_t	w;
	int			v,
				j = 17;

	nonce_of(nonce, JL_KIND_ACHLIOPTAS, 30, 5);
	check(jl_achlioptas_draw(key, nonce, j, UINT64_MAX - 4) == (int) ((UINT64_MAX - 4) % 6),
		  "the largest accepted word 2^64 - 5 = 6 q + 5 gives 5");
	check((UINT64_MAX - 3) % 6 == 0, "2^64 - 4 is a multiple of 6 (the first rejected word)");
	jl_chacha20_block(key, 0x80000000u + ((uint32_t) j << 16) + 1, nonce, block);
	w = w64(block);
	v = jl_achlioptas_draw(key, nonce, j, UINT64_MAX - 3);
	check(w < UINT64_MAX - 3 && v == (int) (w % 6),
		  "rejected word 2^64 - 4: the draw comes from block 2^31 + 2^16 j + 1 (%d)", v);
	check(jl_achlioptas_draw(key, nonce, j, UINT64_MAX) == v &&
		  jl_achlioptas_draw(key, nonce, j + 1, UINT64_MAX) >= 0 &&
		  jl_achlioptas_draw(key, nonce, j + 1, UINT64_MAX) < 6,
		  "every rejected word of entry j leads to the same retry stream; retries are in 0..5");
}

/* ---------- rows alone, d, streams ---------- */

static void
test_rows(const uint8_t *key)
{
	JlKind		kinds[3] = {JL_KIND_RADEMACHER, JL_KIND_ACHLIOPTAS, jl_kind_sparse(0.05)};
	int			k = 37,
				b;

	for (b = 0; b < 3; b++)
	{
		int64_t		d = 500,
					i;
		double	   *P = malloc(sizeof(double) * d * k),
				   *P2 = malloc(sizeof(double) * 2 * d * k),
				   *row = malloc(sizeof(double) * k);
		int			ok = 1;

		jl_projection_matrix(key, kinds[b], k, d, P);
		jl_projection_matrix(key, kinds[b], k, 2 * d, P2);
		for (i = 0; i < d; i++)
		{
			jl_projection_row(key, kinds[b], k, (uint32_t) i, row);
			ok &= same_doubles(row, P + i * k, k);
		}
		check(ok, "%s: each row generated alone equals that row of the d = 500 matrix",
			  jl_kind_name(kinds[b]));
		check(same_doubles(P, P2, d * k),
			  "%s: the d = 500 matrix is the first 500 rows of the d = 1000 matrix",
			  jl_kind_name(kinds[b]));
		jl_projection_row(key, kinds[b], k, 0x7ffffffeu, row);
		check(isfinite(row[0]) && isfinite(row[k - 1]), "%s: row 2^31 - 2 is finite",
			  jl_kind_name(kinds[b]));
		/* the nonzeros of a row, in order */
		{
			double	   *val = malloc(sizeof(double) * k);
			int32_t    *idx = malloc(sizeof(int32_t) * k);
			int			nz_ok = 1,
						j,
						m,
						nz;

			for (i = 0; i < 50; i++)
			{
				jl_projection_row(key, kinds[b], k, (uint32_t) i, row);
				nz = jl_projection_row_nz(key, kinds[b], k, (uint32_t) i, val, idx);
				m = 0;
				for (j = 0; j < k; j++)
					if (row[j] != 0.0)
					{
						nz_ok &= m < nz && idx[m] == j && val[m] == row[j];
						m++;
					}
				nz_ok &= m == nz;
			}
			check(nz_ok, "%s: jl_projection_row_nz gives exactly the nonzeros of 50 rows, in order",
				  jl_kind_name(kinds[b]));
			free(val);
			free(idx);
		}
		free(P);
		free(P2);
		free(row);
	}

	/* sparse: d matters only through the density */
	{
		double		a[64],
					c[64];
		JlKind		s1 = jl_kind_resolve(JL_KIND_SPARSE, 1000),
					s2 = jl_kind_resolve(JL_KIND_SPARSE, 1001),
					s3 = jl_kind_resolve(JL_KIND_SPARSE, 4000);
		int			j,
					same = 0,
					both = 0;

		check(s1 != s2 && s1 != s3, "d = 1000, 1001 and 4000 have different density codes");
		jl_projection_row(key, s1, 64, 9, a);
		jl_projection_row(key, jl_kind_sparse(jl_kind_density(s1)), 64, 9, c);
		check(same_doubles(a, c, 64),
			  "a sparse row depends on (key, density, k, i) only: auto and explicit density agree");
		/* different densities: independent streams (unrelated nonzero sets) */
		jl_projection_row(key, s3, 64, 9, c);
		jl_projection_row(key, jl_kind_sparse(0.5), 64, 9, a);
		jl_projection_row(key, jl_kind_sparse(0.50006103515625), 64, 9, c);
		for (j = 0; j < 64; j++)
		{
			both += a[j] != 0 && c[j] != 0;
			same += a[j] != 0 && (a[j] > 0) == (c[j] > 0) && c[j] != 0;
		}
		check(jl_kind_sparse(0.5) != jl_kind_sparse(0.50006103515625) && both < 30,
			  "densities 1/2 and 8193/16384 have separate streams: %d of 64 entries "
			  "nonzero in both (a shared stream: about 32)", both);
	}

	/* kinds are separate streams: same key, k, row */
	{
		double		r[64],
					a[64],
					g[64];
		int			j,
					agree = 0,
					agree2 = 0;

		jl_projection_row(key, JL_KIND_RADEMACHER, 64, 3, r);
		jl_projection_row(key, JL_KIND_GAUSSIAN, 64, 3, g);
		jl_projection_row(key, JL_KIND_ACHLIOPTAS, 64, 3, a);
		for (j = 0; j < 64; j++)
		{
			agree += (r[j] > 0) == (g[j] > 0);
			agree2 += a[j] != 0 && (a[j] > 0) == (r[j] > 0);
		}
		check(agree > 10 && agree < 54,
			  "rademacher signs are not the gaussian signs (%d of 64 agree)", agree);
		note("achlioptas nonzeros agreeing in sign with rademacher: %d", agree2);
	}
}

/* ---------- statistics for a random key ---------- */

#define SD 4000
#define SK 500					/* n = 2e6 entries */

/* negative controls: entries of the right kind drawn with wrong odds */
typedef struct Control
{
	double		p_plus;
	double		p_minus;
	double		scale_factor;
	int			copy_neighbour;	/* entry 2i+1 := entry 2i */
} Control;

static void
apply_control(double *P, int64_t n, double sc, const Control *c, uint64_t *seed)
{
	int64_t		i;

	for (i = 0; i < n; i++)
	{
		double		u = unit_det_u01(seed);

		if (c->copy_neighbour)
		{
			if (i % 2 == 1)
				P[i] = P[i - 1];
			continue;
		}
		if (c->p_plus > 0)
			P[i] = u < c->p_plus ? sc : (u < c->p_plus + c->p_minus ? -sc : 0.0);
		P[i] *= c->scale_factor;
	}
}

/*
 * Checks on the n entries of P (sc = the kind's nonzero value), returning a
 * bitmask of rejections:
 *   1 frequencies of +, 0, - (Pearson, 2 or 1 df) against the kind's odds;
 *   2 pairs of entries (2i, 2i+1), disjoint, in 9 (or 4) cells against the
 *     product of the odds (independence of neighbours, 8 or 3 df);
 *   4 E[k P^2] = 1: z = (sum k P^2 - n) / sqrt(n var), var = 1/s - 1 (|z| <
 *     UNIT_Z; Rademacher: k P^2 = 1 for every entry up to rounding);
 *   8 E[P_ij P_ij'] = 0 on the disjoint pairs: z = sum k P P' / sqrt(m) (the
 *     products have variance 1), |z| < UNIT_Z.
 */
static int
kind_checks(const double *P, int64_t n, int k, JlKind kind, double sc,
			const char *label, int quiet)
{
	double		s = jl_kind_density(kind),
				probs[3] = {s / 2, 1.0 - s, s / 2},
				probs2[9],
				x2a,
				x2b,
				pa,
				pb,
				sumsq = 0.0,
				prod = 0.0,
				zs,
				zp;
	uint64_t	cnt[3] = {0},
				cnt2[9] = {0};
	int			ncell = s < 1.0 ? 3 : 2,
				df,
				a,
				b,
				rejected = 0;
	int64_t		i;

	if (ncell == 2)
	{
		probs[0] = 0.5;
		probs[1] = 0.5;
	}
	for (i = 0; i < n; i++)
	{
		int			c = P[i] > 0 ? 0 : (P[i] < 0 ? ncell - 1 : 1);

		cnt[c]++;
		sumsq += (double) k * P[i] * P[i];
		if (i % 2 == 0)
		{
			int			c2 = P[i + 1] > 0 ? 0 : (P[i + 1] < 0 ? ncell - 1 : 1);

			cnt2[c * ncell + c2]++;
			prod += (double) k * P[i] * P[i + 1];
		}
	}
	for (a = 0; a < ncell; a++)
		for (b = 0; b < ncell; b++)
			probs2[a * ncell + b] = probs[a] * probs[b];
	pa = unit_pearson(cnt, probs, ncell, &x2a, &df, NULL);
	pb = unit_pearson(cnt2, probs2, ncell * ncell, &x2b, &df, NULL);
	if (s < 1.0)
		zs = (sumsq - (double) n) / sqrt((double) n * (1.0 / s - 1.0));
	else
		zs = fabs(sumsq - (double) n) <= 1e-9 * n ? 0.0 : INFINITY;
	zp = prod / sqrt((double) (n / 2));

	if (!(pa >= UNIT_ALPHA))
		rejected |= 1;
	if (!(pb >= UNIT_ALPHA))
		rejected |= 2;
	if (!(fabs(zs) < UNIT_Z))
		rejected |= 4;
	if (!(fabs(zp) < UNIT_Z))
		rejected |= 8;
	if (!quiet)
	{
		check(!(rejected & 1), "%s: frequencies +/0/- %llu %llu %llu, X2 = %.2f, p = %.3g (>= %.0g)",
			  label, (unsigned long long) cnt[0], (unsigned long long) (ncell == 3 ? cnt[1] : 0),
			  (unsigned long long) cnt[ncell - 1], x2a, pa, UNIT_ALPHA);
		check(!(rejected & 2), "%s: neighbouring pairs independent, X2 = %.2f, p = %.3g",
			  label, x2b, pb);
		check(!(rejected & 4), "%s: mean of k P_ij^2 = %.6f (E = 1: E||P_i||^2 = 1), z = %.3f",
			  label, sumsq / n, zs);
		check(!(rejected & 8), "%s: mean of k P_ij P_ij' = %.2g (E = 0), z = %.3f",
			  label, prod / (n / 2), zp);
	}
	else
		note("%s: p freq %.3g, p pairs %.3g, z sq %.2f, z prod %.2f", label, pa, pb, zs, zp);
	return rejected;
}

static void
test_statistics(void)
{
	uint8_t		key[JL_KEY_BYTES];
	int64_t		n = (int64_t) SD * SK;
	double	   *P = malloc(sizeof(double) * n);
	JlKind		kinds[4] = {JL_KIND_RADEMACHER, JL_KIND_ACHLIOPTAS,
	jl_kind_resolve(JL_KIND_SPARSE, 1000), jl_kind_sparse(0.1)};
	uint64_t	seed = 77;
	int			b;

	unit_getrandom_fill(NULL, key, sizeof(key));
	for (b = 0; b < 4; b++)
	{
		double		sc = jl_kind_scale(kinds[b], SK),
					s = jl_kind_density(kinds[b]);
		char		label[64];
		int			rej;
		Control		wrong_odds = {0},
					mis_scaled = {0},
					copied = {0};

		snprintf(label, sizeof(label), "%s s=%.4g", jl_kind_name(kinds[b]), s);
		jl_projection_matrix(key, kinds[b], SK, SD, P);
		kind_checks(P, n, SK, kinds[b], sc, label, 0);

		/* odds off by 5% of the nonzero probability (Rademacher: 0.51/0.49) */
		wrong_odds.p_plus = s < 1.0 ? s / 2 * 1.05 : 0.51;
		wrong_odds.p_minus = s < 1.0 ? s / 2 * 1.05 : 0.49;
		wrong_odds.scale_factor = 1.0;
		apply_control(P, n, sc, &wrong_odds, &seed);
		rej = kind_checks(P, n, SK, kinds[b], sc, "control", 1);
		check(rej & 1, "%s: negative control: frequencies with odds off by 5%% (0.51/0.49) are rejected", label);

		jl_projection_matrix(key, kinds[b], SK, SD, P);
		mis_scaled.scale_factor = 1.05;
		apply_control(P, n, sc, &mis_scaled, &seed);
		rej = kind_checks(P, n, SK, kinds[b], sc, "control", 1);
		check(rej & 4, "%s: negative control: entries scaled by 1.05 fail E[k P^2] = 1", label);

		jl_projection_matrix(key, kinds[b], SK, SD, P);
		copied.copy_neighbour = 1;
		apply_control(P, n, sc, &copied, &seed);
		rej = kind_checks(P, n, SK, kinds[b], sc, "control", 1);
		check((rej & 2) && (rej & 8), "%s: negative control: copied neighbours fail "
			  "independence and E[P P'] = 0", label);
	}
	free(P);
}

int
main(void)
{
	uint8_t		key[JL_KEY_BYTES];

	pinned_key(key, 0x40);
	test_density_code();
	test_values(key);
	test_layout(key);
	test_achlioptas_rejection(key);
	test_rows(key);
	test_statistics();
	return unit_done("test_kinds");
}
