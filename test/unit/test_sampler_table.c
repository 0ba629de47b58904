/*
 * test_sampler_table.c - the table-driven exact discrete Laplace sampler of
 * laplace.c: jl_exp_fixed, jl_exp_bounds32, jl_bernoulli_exp_bounded,
 * jl_bernoulli_exp_resolve, jl_laplace_table_fill, jl_discrete_laplace_table.
 *
 * Deterministic part:
 *   - jl_exp_fixed(num, den, w) against references of exp(-num/den) computed
 *     with Python's decimal module at 6000 digits (embedded below as 32-bit
 *     limbs, most significant first, integer limb first): the true value lies
 *     within err units of the last limb of val, err is small, out-of-range
 *     arguments are refused, nothing is written beyond the w + 1 limbs.
 *   - jl_exp_bounds32 brackets 2^32 exp(-num/den) with hi - lo <= 2: against
 *     Python floors, against jl_exp_fixed (exact floor) on every num <= den
 *     <= 150 and on random 32-bit pairs, and against expl.
 *   - jl_bernoulli_exp_resolve on crafted random streams whose bits agree
 *     with exp(-g) for 32 m bits and then deviate: the answer must be the
 *     right one for every m up to 511 limbs (every doubling of the
 *     precision); R below / above floor(2^32 exp(-g)) decides true / false.
 *   - jl_laplace_table_fill's alias tables (math/noise/exp_alias.h): every
 *     outcome's weight, rebuilt from the columns, is exactly its lower
 *     bound lo_i (the straddling and padding cells for "other"), the weights
 *     fill the columns exactly, lo_i <= K exp(-g_i) <= hi_i against
 *     jl_exp_fixed, "other" below 2^-12; for the scales sampled below and
 *     for JL_LAPLACE_TABLE_MAX_T; no table beyond it.  The same for the
 *     direct discrete Gaussian sampler's tables (weights exp(-i^2/(2 s^2)),
 *     against jl_exp_fixed_any) at s = 1, 20, 9802 and
 *     JL_GAUSSIAN_ALIAS_MAX_S.
 *   - jl_discrete_laplace_table with no table, or a table not built for t,
 *     is jl_discrete_laplace (same output on the same fixed-seed stream).
 *
 * Statistical part (getrandom), each check rejecting at nominal level
 * UNIT_ALPHA = 1e-7, so false-failure rate <= 1e-6 (see unit.h), and each
 * with a negative control that the same check must reject:
 *   - jl_bernoulli_exp_bounded with tight bounds and with useless bounds
 *     (lo = 0, hi = 2^32: every trial goes to the resolver) is
 *     Bernoulli(exp(-g)); the resolver called with R = floor(2^32 exp(-g))
 *     is Bernoulli(frac(2^32 exp(-g))), the part only its extra bits decide.
 *   - the alias table's slow path (jl_exp_alias_other) alone: its accepted
 *     outputs follow the parts of the straddling cells under the curve, and
 *     its acceptance rate is theirs; control: lo_i - 1 for even i.
 *   - jl_discrete_laplace_table fits the exact pmf and variance for t in
 *     {1, 2, 7, 1000, 9167, 32767, 32768 (the first split table), 100000,
 *     2^22}; controls: scale 1.1 t, and a corrupted table (built for
 *     t + max(1, t/20), labelled t) which proves the check sees the table.
 * About 25 checks at UNIT_ALPHA: false-failure rate below 3e-6.
 */
#include "unit.h"
#include "math/noise/exp_alias.h"
#include "math/noise/gaussian.h"
#include "math/noise/laplace.h"
#include "math/random/randbits.h"
#include "laplace_cells.h"

static JlRandom rng;			/* getrandom-backed */

/* ---------- references ---------- */

/*
 * floor(exp(-num/den) 2^(32 L)) as L + 1 limbs of 8 hex digits, most
 * significant (the integer limb) first.  Generated with
 *   from decimal import *; getcontext().prec = 6000
 *   e = (Decimal(-num) / Decimal(den)).exp()
 *   v = int((e * Decimal(2) ** (32 * L)).to_integral_value(rounding=ROUND_FLOOR))
 *   '%0*x' % (8 * (L + 1), v)
 */
typedef struct ExpRef
{
	uint64_t	num;
	uint64_t	den;
	int			L;
	const char *hex;
} ExpRef;

static const ExpRef refs[] = {
	{1, UINT64_C(1), 512,
		"000000005e2d58d8b3bcdf1abadec7829054f90dda9805aab56c77333024b9d0a507daed"
		"b16400bf472b4215b8245b669d90d27a5aea5550968dc39229f03c6276dcaa58c0ec2b3b"
		"dbaa9270d925fdbd580cf14dc087c3f3fe444626cd2ade4e58d1124367a81bea3764ed4f"
		"7dd5c1b8d90c4ef7d6dd9188d1c956a5a3be55cd31b7802c64d44bcc3336cebb7c4d486d"
		"3acc24d534eebc13e86c03879edbb804faf9f570fd828fd2581c26fe7f6ab167db5f9209"
		"4a50dde211df54497a6858f4742956895386fd8210b95f9b53595fb95bf7a95db690df00"
		"7e1bad6546c325f1128833f39df09860481c191d6c0690b2f6d6ee341973f3bd8250a104"
		"5abe7bc39b1c287966cd7a5585c1a68a4172bddfab76b384eff170727951e3bf312ce7df"
		"c42b6f43fa63c0e5237cf2bed64fef713018d5fac47ff10e53b25caecb104217cc938c3c"
		"8558b92ea34e5febf731e0ef7419d41247e6b8265c2e4f2a0f44603ecbaf05352923f923"
		"31f58fa50ce4caa76004104fda85879222bfd51129c23b35517b8dbd87e1706f117d6c24"
		"1fe9b7da826376afe8fc50c7a9accd10cf26ec8118c8c67e8a86bee1a61fb5ac269656f8"
		"8b2d130a225a2116733aa2b85de686b98f123ea1e101c2232e3f2f49e9daf98043653be4"
		"61655087d88a5b4f8872900fe8f95817067dd502245bc34aaf72305b987c184715e3b45f"
		"949f413101397f409bd4d94b654b4d413b1490229909a674312868a5759c69cba2890044"
		"9e688cdafd1f2ce9344e0aeb6423205fd47366ad2315e178c5894b3463015cf4fc3b075e"
		"a4d9b594ba194a40e9415cd3894aba02083cd911b170f8de4f818699763b0d63d216d5b2"
		"588dc9b98de4b81267eb034139e63de0e688ca203f970839684a3f0224f5900a6cb1e70b"
		"02251478e0a00b2334c02f0060f4e270b2c30d5772dfe5adcf697e52f5113d27de562039"
		"88099440b81b3b98b4ab477d2ba6dfcd20030aa2ad30fee662b82f8f4f3754842c4e0055"
		"da87913636d0866e617209d1e989145777a413f90e726043daf3492f24be3ad93a8dc32b"
		"86f324b7764822bcc1493a61d54cda335051213ad7741e223a416ea0622ea8dfde7e673f"
		"2dab16393e990ec405184298a9cc43c306d4661dc7fb8fed7c886106de75c926e6a689c7"
		"14754b23846bd95e871a35758705a886f7804a009f5015f05e8cc0ab4c00a7fee70d44ae"
		"e5e304e039186ba508ba83a7aa4cfb5fccaaf57d4200e4d77252ea7ddd78b68477b1898f"
		"abaa6a38a024b911356970a0fcf42e5610e8c4ce8c23bca3b5215608a1e6e924b27339f5"
		"6e71c80508ba791592adab6d0e1813616ca27ac7bcca4d8e70688fc4e293340ff83cedb5"
		"187ae61b333d7ed8546435b0f4e9c76175d619f5a1f6e80835647dc4e1cf00f9732847bb"
		"9edb98963121c088112eb7e4f87a3e1f40ec8699b700bda29c4e7dbaeac1953dcd59592f"
		"2c7548242b187a2b1dcb9abe6f9e1fc85429deab674c146bfcb34125030cc755dc417137"
		"8876644b7538196f09ca08b1aa631f888fb9590b9165430c561635568c56825442505f0a"
		"ec6d664eea0027d776fcc5fcf69f3129a8a95a040e5712f3672f4415ea6968c97ab70670"
		"a304096ec1803a9f39bd338cce289012c7968d7ede0a9962320a48f08713cd2ef2888a2b"
		"45571b3f466552d6c01b793ba3ae30945df6d1f4b42ca637405f0bdd46592de682d0dce4"
		"62721d4578ad6cfe9495d95eb801f6520610c685a43a97680171a2866d778af667bbb03f"
		"0f47fa7e12483c78ef8dce4c5efd6ae470e4c4ddceb0f26a0624eb484ab3ff907027b861"
		"b21c3fd109c3ba5598ac2e001cf94cafcea4c1ae999d7ef1ce9ca5db603e4698c1c9c11f"
		"9e1bf668076c66af6ee9a8ac66a9cafe39ddc9deda6494ce936e432a5138fb46d4203eb0"
		"cee8d4471becaf0eba43f939d510303d9baf3962d856662e8e14fbababd75de055b50d14"
		"6dbf3a32892438169e7ef48df8782652f46434b2b52f73e1366589fa8b1c28f9dee7fe31"
		"63a23aa2e40cee53c048968145df274d1cbd93a918741b8187cd62085f441443bad8556a"
		"512ed9ab56b181e4565193f7da649983e7bd09a9eb11f9daa18a5525fe2eb9bffca2c7ff"
		"63f6c184be1c41f25c677df0286c656595c7820fc129ab8d888e33d090a58b80fccece77"
		"0844e1645f0a3f242117d173c9df881af88f62f9847e6ae315a2e72d10ad58c93676f6fd"
		"6e97ca11900e89e1d5aee45438598513ae9fa9cac9fdd5e9745ed516aeefd1275edd56d0"
		"d6872b44919b02b39c653bfe0d0989c0ee1c794d916c7e833901f2a1620f3a0e3467b4fc"
		"413f87c5f927498397a0e7cade562b0a16b5935072030fa782a9810b5097e873d6fb5a8b"
		"16f2dc4b9d6401348222d1a14f4d7f807dacf8b1f1ccddfd599f6e3ff66938a7bd70d7c4"
		"9a2a97035a2e391089c744e4db6b528eed8477040da1a093ebf36656e3edc04442387b28"
		"376ec6e73d7f6eca2f5246fc987e839321cbfefc5b71307950e3e3d14ba3274ce0d2cda4"
		"cf2daee877c32701c0fd58a1667a52a7cb956b750edb2c333136d03de452fe8e61ed2502"
		"9438f588a2b4dc87fb8cbc5677ccc8346347b40b817a0dc61854a0731f36e08f60fe6b17"
		"81e9af40f23dc550a674885dcaeb4d5adeb618b8100e6e8620370626fee5c505b2f6e5d8"
		"13a5e85ee550346c80d4b48d60b4d228f6d9299970d85b67b814505e81a5126b76cc9708"
		"b1e4a0c6da40488fd9de3683283ba924095a87f3e633cc7c5d96fe3a28886eb6012f004a"
		"b3ab1264d74eee3807797ce79a589287b815b8258de400e489bdb59ad0c637c944cac19b"
		"9a452f76f3050846dcf9876513808838dc3dc84392f36b34dc92643a69bb9fcbff8b44df"
	},
	{3, UINT64_C(7), 32,
		"00000000a6c4b5c76ed590fa515b4c45aec303f48a4e6ed9ba579db051ab796e1b2f187c"
		"19c939a2953743697a6402b3deef2f6a6a796cd0c55531ec744fa2d10ffe358f35efe622"
		"767c2b6291c90107460e9c9867ccb5a9e5b5bd7bdaf56630605f3a21ed84333bc1549913"
		"8b6576b963fa1680577a294593ef27745096ab76613fb9b2"
	},
	{1, UINT64_C(2), 32,
		"000000009b4597e37cb04ff3d675a35530cdd767e347bf8ad0e80abbce4ae95861014318"
		"7944cf1032e9a4b09167a9a5702402ad0b36b8009daad52a21b5e185d8f98e327727e256"
		"7a45a9591be6dda2aabdfae9c6dbba09b0f238e3f65e59911e1c8455397f2b63bcde142a"
		"2d26d2cae5e54723202d3c981997b6943c910080b1d0faac"
	},
	{12345, UINT64_C(65536), 32,
		"00000000d40c04a700e56ecbf36af0aeb1f79513b242f0006ad5e0096abd58d61ae9f570"
		"a882fcc8d237c0fc595b893206c72b55e76925dee0505e831a346cb6363f598dbeaec95b"
		"bbfe85827e76d0b155286d1e003f3a9cf80f9cac794b8e712cdce74229a89d09f4118e07"
		"14b5ff76f2c6fae60d288903e52d09ecfc0d9fc30d0236d8"
	},
	{65535, UINT64_C(65536), 32,
		"000000005e2db7063bac4ef6313df46020b02460a7be17ee59439dfb9be10811251f2182"
		"c98729a8932cf3cfcc964db51b9b805f76833485c521f7ea83b16a56f122e43b1adcf80d"
		"9b2a96c65a4dc0bb36cf9295f728f5ccf233b921571fe2d1c70d5aa21dc1f5402e751346"
		"75f0ea6a2f7877b25f0b8a6aa586377aea6ffa42537793e5"
	},
	{1, UINT64_C(4294967295), 32,
		"00000000fffffffeffffffff7fffffffd55555556000000028888888be38e38e704e04e0"
		"7fcd9cd9f57c2989d101bbd788dd575e86f3c45859109750c5806158a1011042c3487dd2"
		"4d95e81a1cb84bad3985b3fd29e2a37d2d3d32be090dbd7aa3232dd77030ed3859e4adbb"
		"998fbea39abd5bc24e3fd3b4d33cf1e83eea58c6a4909572"
	},
	{0, UINT64_C(5), 32,
		"000000010000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000"
	},
	{4294967294, UINT64_C(4294967295), 32,
		"000000005e2d58d911ea37f3fbdfabe324dbfa647c73a64afea04f789a96fcc11550f3b9"
		"561db998f592b1da910b3d34a29b8d98796e2a991c06a4a91d8fc18fcf0368b2c8451409"
		"7fbf17059ed7f9a6d6f69a57a22462bdec111bce80dd3e9091018563c784c89b5afd0c79"
		"8d1ebdf6b332ab7a3b4b6e0ca850aad4f000a7a60be85661"
	},
	{123456789, UINT64_C(987654321), 32,
		"00000000e1eb512bbd511420a311da09170623342955d24077128dfb21f32f7a301ad3c4"
		"591a6598ee9f14180d0e8f28069c99c1186b6ffafba6fb1043e869d4cbc44ddd0dd1309f"
		"5a792e3e565f0077c936b6f253495735ff19b8302671f7b1a8cb15c7cbc2482bfe32d488"
		"d400fdb68031f82bac21d9490cb928d6ea3bcb1339460d66"
	},
};

#define NREFS ((int) (sizeof(refs) / sizeof(refs[0])))

/*
 * (num, den, floor(2^32 exp(-num/den))), Python decimal at 400 digits:
 * special cases, u/t of the tables, 26 random pairs (num <= den), and
 * arguments beyond the sampler's range (g > 1, 64-bit num and den).
 */
static const uint64_t floors32[][3] = {
	{UINT64_C(0), UINT64_C(1), UINT64_C(4294967296)},
	{UINT64_C(0), UINT64_C(4294967295), UINT64_C(4294967296)},
	{UINT64_C(1), UINT64_C(1), UINT64_C(1580030168)},
	{UINT64_C(1), UINT64_C(2), UINT64_C(2605029347)},
	{UINT64_C(3), UINT64_C(7), UINT64_C(2797909447)},
	{UINT64_C(12345), UINT64_C(65536), UINT64_C(3557557415)},
	{UINT64_C(65535), UINT64_C(65536), UINT64_C(1580054278)},
	{UINT64_C(1), UINT64_C(4294967295), UINT64_C(4294967294)},
	{UINT64_C(4294967294), UINT64_C(4294967295), UINT64_C(1580030169)},
	{UINT64_C(4294967295), UINT64_C(4294967295), UINT64_C(1580030168)},
	{UINT64_C(1), UINT64_C(5571), UINT64_C(4294196414)},
	{UINT64_C(2785), UINT64_C(5571), UINT64_C(2605263160)},
	{UINT64_C(5570), UINT64_C(5571), UINT64_C(1580313811)},
	{UINT64_C(1), UINT64_C(262144), UINT64_C(4294950912)},
	{UINT64_C(131072), UINT64_C(262144), UINT64_C(2605029347)},
	{UINT64_C(262143), UINT64_C(262144), UINT64_C(1580036196)},
	{UINT64_C(1), UINT64_C(100000), UINT64_C(4294924346)},
	{UINT64_C(99999), UINT64_C(100000), UINT64_C(1580045969)},
	{UINT64_C(1), UINT64_C(3), UINT64_C(3077478545)},
	{UINT64_C(2), UINT64_C(3), UINT64_C(2205109735)},
	{UINT64_C(1449916887), UINT64_C(2610631462), UINT64_C(2464661806)},
	{UINT64_C(321779412), UINT64_C(1111747923), UINT64_C(3215581957)},
	{UINT64_C(1542415878), UINT64_C(1570164608), UINT64_C(1608201442)},
	{UINT64_C(1584007726), UINT64_C(3252124928), UINT64_C(2638934943)},
	{UINT64_C(36808859), UINT64_C(1437339342), UINT64_C(4186373793)},
	{UINT64_C(752699625), UINT64_C(994721507), UINT64_C(2015263816)},
	{UINT64_C(1306809121), UINT64_C(2911984183), UINT64_C(2741964501)},
	{UINT64_C(2552479409), UINT64_C(3870964440), UINT64_C(2221211714)},
	{UINT64_C(464115063), UINT64_C(533707137), UINT64_C(1800091845)},
	{UINT64_C(109266044), UINT64_C(214478610), UINT64_C(2580528781)},
	{UINT64_C(643055585), UINT64_C(1538141479), UINT64_C(2827437530)},
	{UINT64_C(2584421217), UINT64_C(2932906883), UINT64_C(1779376721)},
	{UINT64_C(97536924), UINT64_C(361562174), UINT64_C(3279459600)},
	{UINT64_C(16652666), UINT64_C(535901493), UINT64_C(4163557276)},
	{UINT64_C(350796973), UINT64_C(871756425), UINT64_C(2872094146)},
	{UINT64_C(3941184), UINT64_C(14283950), UINT64_C(3259347380)},
	{UINT64_C(646604685), UINT64_C(1287865911), UINT64_C(2599630711)},
	{UINT64_C(1782725881), UINT64_C(3543180618), UINT64_C(2596855066)},
	{UINT64_C(451204194), UINT64_C(1720568053), UINT64_C(3304226907)},
	{UINT64_C(1985515744), UINT64_C(3514318897), UINT64_C(2441139945)},
	{UINT64_C(23), UINT64_C(40), UINT64_C(2416799008)},
	{UINT64_C(26), UINT64_C(27), UINT64_C(1639647005)},
	{UINT64_C(1), UINT64_C(16), UINT64_C(4034748382)},
	{UINT64_C(36), UINT64_C(48), UINT64_C(2028798895)},
	{UINT64_C(11), UINT64_C(17), UINT64_C(2248773861)},
	{UINT64_C(12), UINT64_C(18), UINT64_C(2205109735)},
	{UINT64_C(3), UINT64_C(2), UINT64_C(958336740)},
	{UINT64_C(5), UINT64_C(2), UINT64_C(352552384)},
	{UINT64_C(10), UINT64_C(1), UINT64_C(194991)},
	{UINT64_C(100), UINT64_C(1), UINT64_C(0)},
	{UINT64_C(7000), UINT64_C(10), UINT64_C(0)},
	{UINT64_C(745), UINT64_C(1), UINT64_C(0)},
	{UINT64_C(9223372036854788153), UINT64_C(4611686018427387911), UINT64_C(581260615)},
	{UINT64_C(18446744073709551615), UINT64_C(9223372036854775907), UINT64_C(581260615)},
};

#define NFLOORS ((int) (sizeof(floors32) / sizeof(floors32[0])))

#define TWO32 (UINT64_C(1) << 32)

/* the reference's L + 1 limbs, least significant first (out[L]: integer) */
static bool
ref_limbs(const ExpRef *R, uint32_t *out)
{
	int			i;

	if (strlen(R->hex) != (size_t) (8 * (R->L + 1)))
		return false;
	for (i = 0; i <= R->L; i++)
	{
		char		buf[9];
		char	   *end;

		memcpy(buf, R->hex + 8 * (R->L - i), 8);
		buf[8] = '\0';
		out[i] = (uint32_t) strtoul(buf, &end, 16);
		if (*end != '\0')
			return false;
	}
	return true;
}

/* a - b over n limbs (least significant first), saturated to +-2^62 */
static int64_t
limbs_diff(const uint32_t *a, const uint32_t *b, int n)
{
	const uint32_t *x = a,
			   *y = b;
	int64_t		sign = 1,
				borrow = 0;
	uint64_t	mag = 0;
	int			i;

	for (i = n - 1; i >= 0; i--)
		if (a[i] != b[i])
		{
			if (a[i] < b[i])
			{
				x = b;
				y = a;
				sign = -1;
			}
			break;
		}
	for (i = 0; i < n; i++)
	{
		int64_t		s = (int64_t) x[i] - y[i] - borrow;

		borrow = s < 0;
		s += borrow << 32;
		if (i == 0)
			mag = (uint64_t) s;
		else if (i == 1 && s < (INT64_C(1) << 30))
			mag |= (uint64_t) s << 32;
		else if (s != 0)
			return sign * (INT64_C(1) << 62);
	}
	return sign * (int64_t) mag;
}

/* a += v units of the last limb (v >= 0) or a -= -v, over n limbs */
static void
limbs_add(uint32_t *a, int n, int64_t v)
{
	int64_t		carry = v;
	int			i;

	for (i = 0; i < n && carry != 0; i++)
	{
		int64_t		s = (int64_t) a[i] + carry;

		/* floor division by 2^32 */
		carry = s >> 32;
		a[i] = (uint32_t) (s - (carry << 32));
	}
}

/*
 * floor(2^32 exp(-num/den)) from jl_exp_fixed at 128 bits (checked against
 * the references in test_exp_fixed): false if the error bound leaves it
 * undetermined.  num = 0 gives 2^32, which is exact.
 */
static bool
exact_floor32(uint64_t num, uint64_t den, uint64_t *F)
{
	uint32_t	v[5];
	uint64_t	err;
	unsigned __int128 frac;

	if (!jl_exp_fixed(num, den, 4, v, &err))
		return false;
	if (num == 0)
	{
		*F = TWO32;
		return true;
	}
	/* 2^32 exp(-g) = v4 2^32 + v3 + (frac +- err) / 2^96 */
	frac = ((unsigned __int128) v[2] << 64) | ((unsigned __int128) v[1] << 32) | v[0];
	if (frac < err || frac + err >= ((unsigned __int128) 1 << 96))
		return false;
	*F = ((uint64_t) v[4] << 32) | v[3];
	return true;
}

/* ---------- 1. jl_exp_fixed ---------- */

static void
test_exp_fixed(void)
{
	static uint32_t full[JL_EXP_MAX_LIMBS + 2];
	static uint32_t val[JL_EXP_MAX_LIMBS + 16];
	static const int ws[] = {1, 4, 8, 32, 512};
	bool		parsed = true;
	int			c,
				j;

	for (c = 0; c < NREFS; c++)
		parsed &= refs[c].L <= JL_EXP_MAX_LIMBS && ref_limbs(&refs[c], full);
	check(parsed, "%d references exp(-num/den) (Python decimal, 32 to 512 limbs) parse", NREFS);
	if (!parsed)
		return;

	for (c = 0; c < NREFS; c++)
	{
		const ExpRef *R = &refs[c];

		ref_limbs(R, full);
		for (j = 0; j < (int) (sizeof(ws) / sizeof(ws[0])); j++)
		{
			int			w = ws[j],
						i;
			const uint32_t *refw = full + (R->L - w);	/* floor(exp 2^(32w)) */
			uint64_t	err = 0;
			bool		ok,
						in,
						small,
						untouched = true;
			int64_t		d;

			if (w > R->L)
				continue;
			memset(val, 0xa5, sizeof(val));
			ok = jl_exp_fixed(R->num, R->den, w, val, &err);
			for (i = w + 1; i < w + 16; i++)
				untouched &= val[i] == 0xa5a5a5a5u;
			d = limbs_diff(val, refw, w + 1);

			/*
			 * true value x in [ref, ref + 1) units, x = ref only for num =
			 * 0: val - err <= x iff d <= err; x <= val + err iff -d <= err -
			 * 1 (x not on the grid) or -d <= err (num = 0)
			 */
			in = ok && err < (UINT64_C(1) << 62) && d <= (int64_t) err &&
				-d <= (int64_t) err - (R->num != 0);
			small = err < (w <= 32 ? (UINT64_C(1) << 20) : (UINT64_C(1) << 22));
			check(in && small && untouched,
				  "jl_exp_fixed(%llu/%llu, w=%d): val - ref = %lld units, err = %llu "
				  "(< 2^%d), nothing written past limb w",
				  (unsigned long long) R->num, (unsigned long long) R->den, w,
				  (long long) d, (unsigned long long) err, w <= 32 ? 20 : 22);

			/* negative control: the same check rejects val moved by 2 err + 2 */
			if (c == 1 && w == 8)
			{
				int			s;

				for (s = -1; s <= 1; s += 2)
				{
					int64_t		d2;

					limbs_add(val, w + 1, s * (int64_t) (2 * err + 2));
					d2 = limbs_diff(val, refw, w + 1);
					check(!(d2 <= (int64_t) err && -d2 <= (int64_t) err - 1),
						  "negative control: the same check rejects val %c (2 err + 2) "
						  "(val - ref = %lld)", s > 0 ? '+' : '-', (long long) d2);
					limbs_add(val, w + 1, -s * (int64_t) (2 * err + 2));
				}
			}
		}
	}

	/* arguments out of range are refused; the extremes of the range work */
	{
		uint64_t	err;
		bool		refused,
					accepted;

		refused = !jl_exp_fixed(1, 2, 0, val, &err) &&
			!jl_exp_fixed(1, 2, -1, val, &err) &&
			!jl_exp_fixed(1, 2, JL_EXP_MAX_LIMBS + 1, val, &err) &&
			!jl_exp_fixed(4, 3, 8, val, &err) &&
			!jl_exp_fixed(UINT64_MAX, 3, 8, val, &err) &&
			!jl_exp_fixed(0, 0, 8, val, &err) &&
			!jl_exp_fixed(1, TWO32, 8, val, &err) &&
			!jl_exp_fixed(TWO32, TWO32 + 1, 8, val, &err) &&
			!jl_exp_fixed(1, UINT64_MAX, 8, val, &err);
		check(refused, "jl_exp_fixed refuses w = 0, -1, %d; num > den; den = 0; den >= 2^32",
			  JL_EXP_MAX_LIMBS + 1);
		accepted = jl_exp_fixed(TWO32 - 1, TWO32 - 1, 1, val, &err) &&
			jl_exp_fixed(0, 1, JL_EXP_MAX_LIMBS, val, &err) &&
			val[JL_EXP_MAX_LIMBS] == 1 && val[0] == 0 && val[JL_EXP_MAX_LIMBS - 1] == 0;
		check(accepted, "jl_exp_fixed accepts num = den = 2^32 - 1 at w = 1 and gives "
			  "exp(0) = 1 exactly at w = %d", JL_EXP_MAX_LIMBS);
	}
}

/* ---------- 2. jl_exp_bounds32 ---------- */

static void
test_exp_bounds32(void)
{
	uint64_t	seed = 31337,
				lo,
				hi;
	int			i,
				bad = 0,
				maxw = 0,
				n = 0,
				undet = 0;
	uint64_t	num,
				den;

	/* Python floors: lo <= F < 2^32 exp(-g) < F + 1 <= hi */
	for (i = 0; i < NFLOORS; i++)
	{
		uint64_t	F = floors32[i][2];
		bool		ok;

		num = floors32[i][0];
		den = floors32[i][1];
		jl_exp_bounds32(num, den, &lo, &hi);
		ok = lo <= hi && hi - lo <= 2 &&
			(num == 0 ? (lo <= TWO32 && hi == TWO32) : (lo <= F && F + 1 <= hi));
		if (!ok)
		{
			bad++;
			note("jl_exp_bounds32(%llu, %llu) = [%llu, %llu], floor(2^32 exp(-g)) = %llu",
				 (unsigned long long) num, (unsigned long long) den,
				 (unsigned long long) lo, (unsigned long long) hi, (unsigned long long) F);
		}
		if ((int) (hi - lo) > maxw)
			maxw = (int) (hi - lo);
	}
	check(bad == 0, "jl_exp_bounds32 brackets 2^32 exp(-num/den) for %d Python references "
		  "(g in [0, 745], num/den up to 2^64), hi - lo <= 2 (max %d)", NFLOORS, maxw);

	/* exp(0) = 1 */
	{
		static const uint64_t dens[] = {1, 7, TWO32 - 1, UINT64_C(1) << 63, UINT64_MAX};
		bool		ok = true,
					always = true;

		for (i = 0; i < 5; i++)
		{
			jl_exp_bounds32(0, dens[i], &lo, &hi);
			ok &= lo <= TWO32 && hi == TWO32 && hi - lo <= 2;
		}
		jl_exp_bounds32(0, 1, &lo, &hi);
		for (i = 0; i < 100000; i++)
			always &= jl_bernoulli_exp_bounded(&rng, 0, 5, lo, hi);
		check(ok && always, "jl_exp_bounds32(0, den) = [%llu, 2^32] for den up to 2^64 - 1 (exp(0) = 1); "
			  "jl_bernoulli_exp_bounded(0/5) true in 100000 of 100000",
			  (unsigned long long) lo);
	}

	/* exact floors from jl_exp_fixed: every num <= den <= 150, random pairs */
	bad = 0;
	maxw = 0;
	for (den = 1; den <= 150; den++)
		for (num = 0; num <= den; num++)
		{
			uint64_t	F;

			jl_exp_bounds32(num, den, &lo, &hi);
			n++;
			if (!exact_floor32(num, den, &F))
			{
				undet++;
				continue;
			}
			if (!(lo <= hi && hi - lo <= 2 &&
				  (num == 0 ? (hi == TWO32) : (lo <= F && F + 1 <= hi))))
				bad++;
			if ((int) (hi - lo) > maxw)
				maxw = (int) (hi - lo);
		}
	for (i = 0; i < 20000; i++)
	{
		uint64_t	F;

		/* den log-uniform in [1, 2^32), num uniform in [0, den] */
		den = 1 + ((unit_splitmix64(&seed) >> 32) >> (unit_splitmix64(&seed) % 32));
		if (den >= TWO32)
			den = TWO32 - 1;
		num = unit_splitmix64(&seed) % (den + 1);
		jl_exp_bounds32(num, den, &lo, &hi);
		n++;
		if (!exact_floor32(num, den, &F))
		{
			undet++;
			continue;
		}
		if (!(lo <= hi && hi - lo <= 2 &&
			  (num == 0 ? (hi == TWO32) : (lo <= F && F + 1 <= hi))))
			bad++;
		if ((int) (hi - lo) > maxw)
			maxw = (int) (hi - lo);
	}
	check(bad == 0 && undet < 10, "jl_exp_bounds32 brackets the exact floor (jl_exp_fixed, 128 bits) "
		  "for all num <= den <= 150 and 20000 random 32-bit pairs: %d pairs, %d bad, %d undetermined, "
		  "max hi - lo = %d", n, bad, undet, maxw);

	/* expl as a sanity check, num <= den < 2^32 and 1 < g < 700 */
	bad = 0;
	maxw = 0;
	for (i = 0; i < 1100000; i++)
	{
		long double E;

		if (i < 1000000)
		{
			den = 1 + ((unit_splitmix64(&seed) >> 32) >> (unit_splitmix64(&seed) % 32));
			if (den >= TWO32)
				den = TWO32 - 1;
			num = unit_splitmix64(&seed) % (den + 1);
		}
		else
		{
			den = 1 + (unit_splitmix64(&seed) >> 40);
			num = den + unit_splitmix64(&seed) % (699 * den);
		}
		jl_exp_bounds32(num, den, &lo, &hi);
		E = ldexpl(expl(-(long double) num / (long double) den), 32);
		if (!(lo <= hi && hi - lo <= 2 && (long double) lo <= E && E <= (long double) hi))
			bad++;
		if ((int) (hi - lo) > maxw)
			maxw = (int) (hi - lo);
	}
	check(bad == 0, "jl_exp_bounds32 brackets 2^32 expl(-num/den) for 1000000 random pairs "
		  "num <= den < 2^32 and 100000 with 1 < g < 700: %d bad, max hi - lo = %d", bad, maxw);

	/*
	 * Beyond g = 745.13 exp(-g) underflows to 0 in double, and the header's
	 * lo <= 2^32 exp(-num/den) <= hi (no range stated) then fails: hi = 0
	 * while the true value is positive.
	 */
	{
		static const uint64_t big[][2] = {{746, 1}, {800, 1}, {7460, 10}, {UINT64_C(1) << 40, 1},
		{UINT64_MAX, 1}};
		int			nbad = 0;

		for (i = 0; i < 5; i++)
		{
			jl_exp_bounds32(big[i][0], big[i][1], &lo, &hi);
			if (!(hi >= 1 && lo == 0))
				nbad++;
		}
		jl_exp_bounds32(746, 1, &lo, &hi);
		check(nbad == 0, "jl_exp_bounds32 with g >= 746 (746, 800, 746.0, 2^40, 2^64 - 1): "
			  "hi >= 1 since 2^32 exp(-g) > 0 (bad: %d of 5; g = 746 gives [%llu, %llu])",
			  nbad, (unsigned long long) lo, (unsigned long long) hi);
	}
}

/* ---------- 3. Bernoulli(exp(-g)) with 32-bit bounds; the resolver ---------- */

/* getrandom, counting the bytes handed to the JlRandom */
static uint64_t cnt_bytes = 0;

static void
cnt_fill(void *ctx, uint8_t *buf, size_t len)
{
	cnt_bytes += len;
	unit_getrandom_fill(ctx, buf, len);
}

/* random bits r has consumed so far (for a JlRandom on cnt_fill) */
static uint64_t
bits_used(const JlRandom *r)
{
	return 8 * (cnt_bytes - (r->len - r->pos)) - (uint64_t) r->nacc;
}

/* two-cell Pearson test of k successes in N against probability p */
static double
binomial_p(uint64_t k, uint64_t N, double p, double *x2)
{
	uint64_t	obs[2] = {k, N - k};
	double		prob[2] = {p, 1.0 - p};
	int			df;

	return unit_pearson(obs, prob, 2, x2, &df, NULL);
}

static const ExpRef *
find_ref(uint64_t num, uint64_t den)
{
	int			c;

	for (c = 0; c < NREFS; c++)
		if (refs[c].num == num && refs[c].den == den)
			return &refs[c];
	return NULL;
}

static void
test_bernoulli_bounded(void)
{
	static const uint64_t tight[][2] = {{1, 1}, {3, 7}, {1, 2}, {12345, 65536}, {65535, 65536},
	{123456789, 987654321}};
	static const uint64_t useless[][2] = {{1, 1}, {3, 7}, {12345, 65536}};
	JlRandom   *cr = malloc(sizeof(JlRandom));
	uint64_t	res_total = 0,
				trials_total = 0;
	double		res_expected = 0.0;
	int			c;

	jl_random_init(cr, cnt_fill, NULL);

	/* honest tight bounds; control: lo = hi = floor(2^32 1.01 exp(-g)) */
	for (c = 0; c < 6; c++)
	{
		uint64_t	num = tight[c][0],
					den = tight[c][1],
					N = 4000000,
					lo,
					hi,
					k = 0,
					i,
					b0,
					extra,
					wrong;
		double		p = exp(-(double) num / (double) den),
					x2,
					pv;

		jl_exp_bounds32(num, den, &lo, &hi);
		b0 = bits_used(cr);
		for (i = 0; i < N; i++)
			k += jl_bernoulli_exp_bounded(cr, num, den, lo, hi);
		extra = bits_used(cr) - b0 - 32 * N;	/* 96 per trial sent to the resolver */
		res_total += extra / 96;
		trials_total += N;
		res_expected += (double) N * (double) (hi - lo) / 4294967296.0;
		pv = binomial_p(k, N, p, &x2);
		check(pv >= UNIT_ALPHA, "jl_bernoulli_exp_bounded(%llu/%llu, [%llu, %llu]): %llu of %llu "
			  "(want %.6f), X2 = %.2f, p = %.3g; %llu extra bits (resolver reached %llu times, "
			  "expected %.4f)", (unsigned long long) num, (unsigned long long) den,
			  (unsigned long long) lo, (unsigned long long) hi, (unsigned long long) k,
			  (unsigned long long) N, p, x2, pv, (unsigned long long) extra,
			  (unsigned long long) (extra / 96), (double) N * (double) (hi - lo) / 4294967296.0);

		wrong = (uint64_t) floor(4294967296.0 * 1.01 * p);
		if (wrong > TWO32)
			wrong = TWO32;
		k = 0;
		for (i = 0; i < N; i++)
			k += jl_bernoulli_exp_bounded(cr, num, den, wrong, wrong);
		pv = binomial_p(k, N, p, &x2);
		check(pv < UNIT_ALPHA, "negative control: same check rejects bounds lo = hi = %llu "
			  "(1%% high; %llu of %llu, X2 = %.0f, p = %.3g)", (unsigned long long) wrong,
			  (unsigned long long) k, (unsigned long long) N, x2, pv);
	}
	note("tight bounds: the resolver was reached %llu times in %llu trials (expected %.4f: "
		 "(hi - lo) 2^-32 per trial, hi - lo <= 2)", (unsigned long long) res_total,
		 (unsigned long long) trials_total, res_expected);

	/* useless bounds [0, 2^32]: every trial is decided by the resolver */
	for (c = 0; c < 3; c++)
	{
		uint64_t	num = useless[c][0],
					den = useless[c][1],
					N = 1000000,
					k = 0,
					i,
					b0,
					used;
		double		p = exp(-(double) num / (double) den),
					x2,
					pv,
					t0 = unit_seconds(),
					secs;

		b0 = bits_used(cr);
		for (i = 0; i < N; i++)
			k += jl_bernoulli_exp_bounded(cr, num, den, 0, TWO32);
		secs = unit_seconds() - t0;
		used = bits_used(cr) - b0;
		pv = binomial_p(k, N, p, &x2);
		check(pv >= UNIT_ALPHA && used == 128 * N,
			  "jl_bernoulli_exp_bounded(%llu/%llu, [0, 2^32]): %llu of %llu (want %.6f), X2 = %.2f, "
			  "p = %.3g; %.3f bits per trial (128: every trial resolved, at 128 bits) (%.0f ns per trial)",
			  (unsigned long long) num, (unsigned long long) den, (unsigned long long) k,
			  (unsigned long long) N, p, x2, pv, (double) used / N, secs / N * 1e9);
		pv = binomial_p(k, N, 1.02 * p, &x2);
		check(pv < UNIT_ALPHA, "negative control: same check rejects the same draws against "
			  "a probability 2%% high, %.6f (X2 = %.0f, p = %.3g)", 1.02 * p, x2, pv);
	}
	free(cr);
}

/* the resolver alone, where only its extra bits decide */
static void
test_resolve(void)
{
	static uint32_t full[JL_EXP_MAX_LIMBS + 2];
	static const uint64_t stat[][2] = {{1, 1}, {3, 7}, {65535, 65536}};
	int			c;

	/* R = floor(2^32 exp(-g)): true with probability frac(2^32 exp(-g)) */
	for (c = 0; c < 3; c++)
	{
		const ExpRef *R = find_ref(stat[c][0], stat[c][1]);
		uint64_t	N = 1000000,
					k = 0,
					i;
		uint32_t	F;
		double		frac,
					x2,
					pv;

		ref_limbs(R, full);
		F = full[R->L - 1];
		frac = ((double) full[R->L - 2] + (double) full[R->L - 3] / 4294967296.0) / 4294967296.0;
		for (i = 0; i < N; i++)
			k += jl_bernoulli_exp_resolve(&rng, R->num, R->den, F);
		pv = binomial_p(k, N, frac, &x2);
		check(pv >= UNIT_ALPHA, "jl_bernoulli_exp_resolve(%llu/%llu, R = floor(2^32 exp(-g)) = %u): "
			  "%llu of %llu true, want frac(2^32 exp(-g)) = %.6f, X2 = %.2f, p = %.3g",
			  (unsigned long long) R->num, (unsigned long long) R->den, F,
			  (unsigned long long) k, (unsigned long long) N, frac, x2, pv);
		pv = binomial_p(k, N, frac + 0.01, &x2);
		check(pv < UNIT_ALPHA, "negative control: same check rejects the same draws against "
			  "%.6f (0.01 high; X2 = %.0f, p = %.3g)", frac + 0.01, x2, pv);
	}

	/* R below floor(2^32 exp(-g)) always true, above it always false */
	{
		int			bad = 0,
					n = 0,
					i,
					j;

		for (c = 0; c < NREFS; c++)
		{
			const ExpRef *R = &refs[c];
			uint64_t	F;
			int64_t		Rs[4];

			ref_limbs(R, full);
			F = ((uint64_t) full[R->L] << 32) | full[R->L - 1];	/* 2^32 for g = 0 */
			Rs[0] = (int64_t) F - 1;
			Rs[1] = (int64_t) F + 1;
			Rs[2] = 0;
			Rs[3] = UINT32_MAX;
			for (j = 0; j < 4; j++)
			{
				bool		want = (uint64_t) Rs[j] < F;

				if (Rs[j] < 0 || Rs[j] > UINT32_MAX)
					continue;
				for (i = 0; i < 200; i++, n++)
					bad += jl_bernoulli_exp_resolve(&rng, R->num, R->den, (uint32_t) Rs[j]) != want;
			}
		}
		check(bad == 0, "jl_bernoulli_exp_resolve: R < floor(2^32 exp(-g)) always true, R > it "
			  "always false (R = F - 1, F + 1, 0, 2^32 - 1 for %d references, exp(0) always true): "
			  "%d wrong of %d", NREFS, bad, n);
	}
}

/*
 * A crafted stream for the resolver: the 32-bit limbs seq[0..n-1] (taken by
 * jl_rand_bits(r, 32) in order: little-endian words, low half first), then
 * bytes equal to pad.
 */
typedef struct Crafted
{
	const uint32_t *seq;
	int			n;
	uint8_t		pad;
} Crafted;

static void
crafted_fill(void *ctx, uint8_t *buf, size_t len)
{
	Crafted    *cf = ctx;
	size_t		i;

	memset(buf, cf->pad, len);
	for (i = 0; i < (size_t) cf->n && 4 * i + 4 <= len; i++)
	{
		uint32_t	v = cf->seq[i];

		buf[4 * i] = (uint8_t) v;
		buf[4 * i + 1] = (uint8_t) (v >> 8);
		buf[4 * i + 2] = (uint8_t) (v >> 16);
		buf[4 * i + 3] = (uint8_t) (v >> 24);
	}
	cf->n = 0;					/* later fills: pad only */
}

/*
 * u agrees with exp(-g) on its first m 32-bit limbs and is 2^24 units of the
 * next limb above (then zeros) or below (then ones): the resolver must say
 * false / true, at every depth (its precision doubles 4, 8, ..., 512 limbs;
 * err at 512 limbs is about 2^20.6 units, below 2^24).
 */
static void
test_resolve_crafted(void)
{
	static uint32_t full[JL_EXP_MAX_LIMBS + 2];
	static uint32_t u[JL_EXP_MAX_LIMBS + 1];	/* most significant first */
	static const int ms[] = {0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 511};
	JlRandom   *r = malloc(sizeof(JlRandom));
	int			c,
				j,
				s;

	for (c = 0; c < NREFS; c++)
	{
		const ExpRef *R = &refs[c];
		int			bad = 0,
					n = 0,
					skipped = 0,
					maxlimbs = 0;
		double		t0 = unit_seconds();

		if (R->num == 0)
			continue;
		ref_limbs(R, full);
		for (j = 0; j < (int) (sizeof(ms) / sizeof(ms[0])); j++)
		{
			int			m = ms[j];

			if (m >= R->L)
				continue;
			for (s = -1; s <= 1; s += 2)
			{
				int64_t		carry = s * (INT64_C(1) << 24);
				Crafted		cf;
				int			i;
				bool		got;

				/* u = first m + 1 fraction limbs of exp(-g), +- 2^24 at limb m */
				for (i = 0; i <= m; i++)
					u[i] = full[R->L - 1 - i];
				for (i = m; i >= 0 && carry != 0; i--)
				{
					int64_t		v = (int64_t) u[i] + carry;

					carry = v >> 32;
					u[i] = (uint32_t) (v - carry * (INT64_C(1) << 32));
				}
				if (carry != 0)
				{
					skipped++;	/* u would leave [0, 1) */
					continue;
				}
				cf.seq = u + 1;
				cf.n = m;
				cf.pad = s > 0 ? 0x00 : 0xff;
				jl_random_init(r, crafted_fill, &cf);
				got = jl_bernoulli_exp_resolve(r, R->num, R->den, u[0]);
				n++;
				bad += got != (s < 0);
				i = (int) ((8 * r->pos - (size_t) r->nacc) / 32);	/* limbs drawn */
				if (i > maxlimbs)
					maxlimbs = i;
				if (got != (s < 0))
					note("m = %d, u %s exp(-g): got %s after %d limbs", m, s > 0 ? "above" : "below",
						 got ? "true" : "false", i);
			}
		}
		check(bad == 0, "jl_bernoulli_exp_resolve(%llu/%llu) on crafted streams agreeing with "
			  "exp(-g) for m limbs, m up to %d, then 2^24 units above / below: %d right of %d "
			  "(%d skipped: u out of [0,1)), up to %d further limbs drawn (%.2f s)",
			  (unsigned long long) R->num, (unsigned long long) R->den,
			  R->L >= 512 ? 511 : R->L - 1, n - bad, n, skipped, maxlimbs, unit_seconds() - t0);
	}

	/* u equal to exp(-1) on all 512 limbs: undecidable, documented as never */
	{
		const ExpRef *R = find_ref(1, 1);
		Crafted		cf;
		int			i;
		bool		got;

		ref_limbs(R, full);
		for (i = 0; i < 512; i++)
			u[i] = full[R->L - 1 - i];
		cf.seq = u + 1;
		cf.n = 511;
		cf.pad = 0x00;
		jl_random_init(r, crafted_fill, &cf);
		got = jl_bernoulli_exp_resolve(r, 1, 1, u[0]);
		note("u = exp(-1) to 16384 bits (probability 2^-16384): resolver returns %s after %d "
			 "further limbs (the code's documented choice for the undecided case)",
			 got ? "true" : "false", (int) ((8 * r->pos - (size_t) r->nacc) / 32));
	}
	free(r);
}

/* ---------- 4. jl_laplace_table_fill, jl_discrete_laplace_table ---------- */

/*
 * The deterministic properties of one alias table (math/noise/exp_alias.h) for
 * weights exp(-stride i / den), i < count:
 *   - every column's threshold is at most 2^15 and its alias an outcome;
 *   - the probability the columns give each outcome, (own threshold + the
 *     remainders of the columns aliased to it) / total, is lo_i for i <
 *     count, and the straddling cells plus the padding for "other": the
 *     weights sum to the total exactly;
 *   - lo_i <= K exp(-stride i / den) <= hi_i for every i, checked against
 *     jl_exp_fixed at 64 fractional bits with its error bound (hi - lo from
 *     the prefix sums), hi - lo <= 2;
 *   - the "other" outcome's straddling and padding cells have probability
 *     below 2^-12.
 * stride 0: weights exp(-i^2 / den) (the discrete Gaussian's tables), the
 * bounds against jl_exp_fixed_any.
 */
static void
test_alias_table(const char *what, const uint32_t *tab, uint64_t count,
				 uint64_t stride, uint64_t den)
{
	uint64_t	ncol = UINT64_C(1) << tab[1],
				total = ncol << JL_EXP_ALIAS_HEIGHT_BITS,
				K = tab[2],
				straddle = tab[3],
				other = tab[4] | ((uint64_t) tab[5] << 32),
				c,
				i,
				sum = 0;
	const uint32_t *cols = tab + JL_EXP_ALIAS_HEADER,
			   *lo = cols + ncol,
			   *prefix = lo + count;
	uint64_t   *got = calloc(ncol, sizeof(uint64_t));
	int			bad_cols = 0,
				bad_weight = 0,
				bad_bounds = 0,
				maxw = 0;

	for (c = 0; c < ncol; c++)
	{
		uint64_t	tau = cols[c] & 0x7fff,
					al = cols[c] >> 15;

		if (tau >= (UINT64_C(1) << JL_EXP_ALIAS_HEIGHT_BITS) || al >= ncol)
		{
			bad_cols++;
			continue;
		}
		got[c] += tau;
		got[al] += (UINT64_C(1) << JL_EXP_ALIAS_HEIGHT_BITS) - tau;
	}
	for (i = 0; i < ncol; i++)
	{
		uint64_t	want = i < count ? lo[i] : (i == count ? other : 0);

		bad_weight += got[i] != want;
		sum += got[i];
	}
	for (i = 0; i < count; i++)
	{
		uint32_t	val[3];
		uint64_t	err,
					w = prefix[i + 1] - prefix[i];
		unsigned __int128 V,
					lo128,
					hi128;

		if (i == 0)
		{
			/* exp(0) = 1: the bounds are K exactly */
			bad_bounds += !(lo[0] == K && w == 0);
			continue;
		}
		if (!jl_exp_fixed_any(stride ? stride * i : i * i, den, 2, val, &err))
		{
			bad_bounds++;
			continue;
		}
		V = ((unsigned __int128) val[2] << 64) | ((uint64_t) val[1] << 32) | val[0];
		lo128 = (unsigned __int128) lo[i] << 64;
		hi128 = (unsigned __int128) (lo[i] + w) << 64;
		/* K (V - err) 2^-64 <= K exp(-g) <= K (V + err) 2^-64 */
		if (!(lo128 <= (V - err) * K && (V + err) * K <= hi128) || w > 2)
			bad_bounds++;
		if ((int) w > maxw)
			maxw = (int) w;
	}
	check(bad_cols == 0 && bad_weight == 0 && sum == total && prefix[count] == straddle &&
		  bad_bounds == 0 && (double) (other - (tab[10] | ((uint64_t) tab[11] << 32))) <
		  0x1p-12 * (double) total,
		  "%s: alias table of %llu outcomes in %llu columns: outcome weights exact "
		  "(%d wrong, sum %llu of %llu), lo <= K exp(-g) <= hi for all (K = %llu, %d outside, "
		  "max hi - lo %d), other %.2e of the total",
		  what, (unsigned long long) count, (unsigned long long) ncol, bad_weight,
		  (unsigned long long) sum, (unsigned long long) total, (unsigned long long) K,
		  bad_bounds + bad_cols, maxw, (double) other / (double) total);
	free(got);
}

/* the alias table inside a direct discrete Gaussian table for s */
static void
test_gaussian_table_fill(uint64_t s)
{
	uint32_t   *table = malloc(sizeof(uint32_t) * jl_gaussian_table_entries(s));
	char		what[64];

	jl_gaussian_table_fill(s, table);
	snprintf(what, sizeof(what), "discrete Gaussian s=%llu, |y| < 4 s", (unsigned long long) s);
	check(table[0] != 0, "%s: table filled", what);
	test_alias_table(what, table + 4, 4 * s, 0, 2 * s * s);
	free(table);
}

/* the tables inside a Laplace table for t */
static void
test_table_fill(uint64_t t, const uint32_t *table)
{
	char		what[64];
	uint64_t	a = table[2];

	check(jl_laplace_table_scale(table) == t && table[7] == jl_laplace_table_entries(t) &&
		  (table[1] == 1) == (t <= JL_LAPLACE_SINGLE_MAX_T),
		  "jl_laplace_table_fill(t=%llu): header (scale, words %u, %u level(s), split %llu)",
		  (unsigned long long) t, table[7], table[1], (unsigned long long) a);
	if (table[1] == 1)
	{
		snprintf(what, sizeof(what), "t=%llu, U", (unsigned long long) t);
		test_alias_table(what, table + table[4], t, 1, t);
	}
	else
	{
		snprintf(what, sizeof(what), "t=%llu, w < %llu", (unsigned long long) t,
				 (unsigned long long) a);
		test_alias_table(what, table + table[4], a, 1, t);
		snprintf(what, sizeof(what), "t=%llu, v (stride %llu)", (unsigned long long) t,
				 (unsigned long long) a);
		test_alias_table(what, table + table[3], (t + a - 1) / a, a, t);
	}
}

/*
 * The slow path alone: jl_exp_alias_other draws a uniform "other" cell and
 * outputs i for a straddling cell of i with probability (the part of the
 * cell under K exp(-g_i)), else restarts.  Its accepted outputs must follow
 * A_i = K exp(-g_i) - lo_i over the outcomes, and its acceptance rate must
 * be sum A_i / other.  Control: the same table with lo_i lowered by one for
 * even i (the resolver then compares the wrong cells), which both checks
 * must see.
 */
static void
test_alias_other(void)
{
	uint64_t	count = 40,
				den = 41,
				N = 400000,
				words = jl_exp_alias_words(count);
	uint32_t   *tab = malloc(sizeof(uint32_t) * words);
	int			pass;

	jl_exp_alias_fill(tab, count, 1, den);
	for (pass = 0; pass < 2; pass++)
	{
		const uint32_t *lo = tab + JL_EXP_ALIAS_HEADER + (UINT64_C(1) << tab[1]);
		uint64_t	obs[40],
					acc = 0,
					n,
					other = tab[4] | ((uint64_t) tab[5] << 32),
					K = tab[2];
		double		prob[40],
					A = 0.0,
					x2 = 0.0,
					x2b,
					p,
					pb;
		int			df = 0,
					i;

		if (pass == 1)
			for (i = 0; i < (int) count; i += 2)
				tab[JL_EXP_ALIAS_HEADER + (1 << tab[1]) + i]--;
		/* expected: from the honest table (pass 0's lo) */
		for (i = 0; i < (int) count; i++)
		{
			long double e = (long double) K * expl(-(long double) i / (long double) den);
			uint32_t	l = lo[i] + (pass == 1 && i % 2 == 0 ? 1 : 0);

			/* the part of the straddling cells (if any) under the curve */
			prob[i] = e > (long double) l ? (double) (e - (long double) l) : 0.0;
			A += prob[i];
			obs[i] = 0;
		}
		for (i = 0; i < (int) count; i++)
			prob[i] /= A;
		for (n = 0; n < N; n++)
		{
			int64_t		o = jl_exp_alias_other(&rng, tab);

			if (o >= 0)
			{
				obs[o]++;
				acc++;
			}
		}
		/*
		 * cells: runs of consecutive outcomes pooled until the expected
		 * count is >= 200; outcomes without straddling cells (prob 0) must
		 * never come out
		 */
		{
			uint64_t	cobs[40],
						stray = 0;
			double		cprob[40],
						pp = 0.0;
			uint64_t	oo = 0;
			int			nc = 0;

			for (i = 0; i < (int) count; i++)
			{
				if (prob[i] <= 0.0)
				{
					stray += obs[i];
					continue;
				}
				pp += prob[i];
				oo += obs[i];
				if (pp * (double) acc >= 200.0 || i == (int) count - 1)
				{
					cprob[nc] = pp;
					cobs[nc++] = oo;
					pp = 0.0;
					oo = 0;
				}
			}
			if (pp > 0.0)
			{
				cprob[nc - 1] += pp;
				cobs[nc - 1] += oo;
			}
			p = stray > 0 ? 0.0 : unit_pearson(cobs, cprob, nc, &x2, &df, NULL);
		}
		pb = binomial_p(acc, N, A / (double) other, &x2b);
		if (pass == 0)
			check(p >= UNIT_ALPHA && pb >= UNIT_ALPHA,
				  "jl_exp_alias_other (count %llu, K %llu): accepted draws fit K exp(-g) - lo "
				  "(X2 = %.1f, df %d, p = %.3g); acceptance %.4f vs %.4f (p = %.3g)",
				  (unsigned long long) count, (unsigned long long) K, x2, df, p,
				  (double) acc / N, A / (double) other, pb);
		else
			check(p < UNIT_ALPHA || pb < UNIT_ALPHA,
				  "negative control: with lo - 1 for even outcomes the slow path is rejected "
				  "(fit p = %.3g, acceptance p = %.3g)", p, pb);
	}
	free(tab);
}

static const uint32_t *cur_bounds;	/* table used by lap_table */

static int64_t
lap_table(JlRandom *r, uint64_t t)
{
	return jl_discrete_laplace_table(r, t, cur_bounds);
}

static void
test_laplace_table(void)
{
	static const uint64_t ts[] = {1, 2, 7, 1000, 9167, 32767, 32768, 100000, UINT64_C(1) << 22};
	int			i;

	for (i = 0; i < (int) (sizeof(ts) / sizeof(ts[0])); i++)
	{
		uint64_t	t = ts[i],
					N = 4000000;
		uint64_t	t2 = t + (t / 20 > 1 ? t / 20 : 1);	/* a scale 5% (at least 1) larger */
		uint32_t   *bounds = malloc(jl_laplace_table_entries(t) * sizeof(uint32_t)),
				   *corrupt = malloc(jl_laplace_table_entries(t2) * sizeof(uint32_t));
		Cells	   *C = malloc(sizeof(Cells));
		LapResult	r;
		double		s2 = jl_discrete_laplace_variance(t);

		jl_laplace_table_fill(t, bounds);
		test_table_fill(t, bounds);

		/* a corrupted table: built for t2, its header saying t */
		jl_laplace_table_fill(t2, corrupt);
		corrupt[5] = (uint32_t) t;
		corrupt[6] = (uint32_t) (t >> 32);

		build_cells(C, t, (double) N);

		cur_bounds = bounds;
		run_laplace(&rng, lap_table, t, N, C, &r);
		check(r.p >= UNIT_ALPHA, "jl_discrete_laplace_table(t=%llu) fits the exact pmf: X2 = %.1f, "
			  "df = %d, p = %.3g, min expected %.0f (cell 0 = [-%lld, %lld]), N = %llu (%.2f s)",
			  (unsigned long long) t, r.x2, r.df, r.p, r.emin, (long long) C->h,
			  (long long) C->h, (unsigned long long) N, r.seconds);
		check(fabs(r.zvar) < UNIT_Z, "jl_discrete_laplace_table(t=%llu) mean z^2 = %.6g vs "
			  "jl_discrete_laplace_variance = %.6g: z = %.2f (|z| < %.2f)",
			  (unsigned long long) t, r.var, s2, r.zvar, UNIT_Z);

		run_laplace(&rng, lap_misscaled, t, N, C, &r);
		check(r.p < UNIT_ALPHA, "negative control t=%llu: fit rejects scale 1.1 t (X2 = %.0f, p = %.3g)",
			  (unsigned long long) t, r.x2, r.p);
		check(fabs(r.zvar) >= UNIT_Z, "negative control t=%llu: variance check rejects scale 1.1 t "
			  "(mean z^2 = %.6g, z = %.1f)", (unsigned long long) t, r.var, r.zvar);

		cur_bounds = corrupt;
		run_laplace(&rng, lap_table, t, N, C, &r);
		check(r.p < UNIT_ALPHA, "negative control t=%llu: fit rejects the sampler with a "
			  "corrupted table (built for scale %llu, labelled %llu; X2 = %.0f, p = %.3g; "
			  "variance z = %.1f)", (unsigned long long) t, (unsigned long long) t2,
			  (unsigned long long) t, r.x2, r.p, r.zvar);
		free(C);
		free(bounds);
		free(corrupt);
	}
}

/*
 * bounds = NULL or t > JL_LAPLACE_TABLE_MAX_T: jl_discrete_laplace itself
 * (same draws from the same fixed-seed stream).  For t > MAX_T the table
 * passed is all zeros: read, it would reject every u >= 1.
 */
static void
test_fallback(void)
{
	static const uint64_t ts[] = {1, 7, 5571, JL_LAPLACE_TABLE_MAX_T,
		JL_LAPLACE_TABLE_MAX_T + 1, 3 * JL_LAPLACE_TABLE_MAX_T};
	uint32_t   *zeros = calloc(64, sizeof(uint32_t));
	uint32_t   *table = malloc(jl_laplace_table_entries(5571) * sizeof(uint32_t));
	JlRandom   *r1 = malloc(sizeof(JlRandom)),
			   *r2 = malloc(sizeof(JlRandom));
	int			i,
				n = 20000,
				j;

	for (i = 0; i < 6; i++)
	{
		uint64_t	t = ts[i],
					s1 = 1000 + i,
					s2 = 1000 + i;
		const uint32_t *b = t > JL_LAPLACE_TABLE_MAX_T ? zeros : NULL;
		int			same = 0;

		jl_random_init(r1, unit_det_fill, &s1);
		jl_random_init(r2, unit_det_fill, &s2);
		for (j = 0; j < n; j++)
			same += jl_discrete_laplace_table(r1, t, b) == jl_discrete_laplace(r2, t);
		check(same == n, "jl_discrete_laplace_table(t=%llu, %s) = jl_discrete_laplace on the same "
			  "stream: %d of %d draws equal", (unsigned long long) t,
			  b ? "zero table, t > MAX_T" : "NULL", same, n);
	}
	/* control: with its table the same comparison tells the samplers apart */
	{
		uint64_t	s1 = 99,
					s2 = 99;
		int			same = 0;

		jl_laplace_table_fill(5571, table);
		jl_random_init(r1, unit_det_fill, &s1);
		jl_random_init(r2, unit_det_fill, &s2);
		for (j = 0; j < n; j++)
			same += jl_discrete_laplace_table(r1, 5571, table) == jl_discrete_laplace(r2, 5571);
		check(same < n / 100, "negative control: with a table (t=5571) the same comparison finds "
			  "the samplers differ: %d of %d draws equal", same, n);
	}
	free(zeros);
	free(table);
	free(r1);
	free(r2);
}

/* ---------- 5. timing (not asserted) ---------- */

static void
time_samplers(void)
{
	uint64_t	t = 5571,
				N = 2000000,
				i,
				seed = 5;
	uint32_t   *table = malloc(jl_laplace_table_entries(t) * sizeof(uint32_t));
	JlRandom   *r = malloc(sizeof(JlRandom));
	volatile int64_t sink = 0;
	double		t0,
				plain,
				tab,
				plain_d,
				tab_d,
				bits_plain,
				bits_tab;
	uint64_t	b0;

	jl_laplace_table_fill(t, table);
	jl_random_init(r, cnt_fill, NULL);
	for (i = 0; i < 100000; i++)
		sink += jl_discrete_laplace(r, t) + jl_discrete_laplace_table(r, t, table);

	b0 = bits_used(r);
	t0 = unit_seconds();
	for (i = 0; i < N; i++)
		sink += jl_discrete_laplace(r, t);
	plain = (unit_seconds() - t0) / N * 1e9;
	bits_plain = (double) (bits_used(r) - b0) / N;
	b0 = bits_used(r);
	t0 = unit_seconds();
	for (i = 0; i < N; i++)
		sink += jl_discrete_laplace_table(r, t, table);
	tab = (unit_seconds() - t0) / N * 1e9;
	bits_tab = (double) (bits_used(r) - b0) / N;

	jl_random_init(r, unit_det_fill, &seed);
	t0 = unit_seconds();
	for (i = 0; i < N; i++)
		sink += jl_discrete_laplace(r, t);
	plain_d = (unit_seconds() - t0) / N * 1e9;
	t0 = unit_seconds();
	for (i = 0; i < N; i++)
		sink += jl_discrete_laplace_table(r, t, table);
	tab_d = (unit_seconds() - t0) / N * 1e9;

	note("timing t=%llu, getrandom: jl_discrete_laplace %.1f ns/sample (%.1f random bits), "
		 "jl_discrete_laplace_table %.1f ns/sample (%.1f random bits)", (unsigned long long) t,
		 plain, bits_plain, tab, bits_tab);
	note("timing t=%llu, splitmix64 source (cost of randomness mostly removed): "
		 "jl_discrete_laplace %.1f ns, jl_discrete_laplace_table %.1f ns",
		 (unsigned long long) t, plain_d, tab_d);
	(void) sink;
	free(table);
	free(r);
}

int
main(void)
{
	double		t0 = unit_seconds();

	jl_random_init(&rng, unit_getrandom_fill, NULL);
	test_exp_fixed();
	test_exp_bounds32();
	test_bernoulli_bounded();
	test_resolve();
	test_resolve_crafted();
	test_fallback();
	test_alias_other();
	test_gaussian_table_fill(1);
	test_gaussian_table_fill(20);
	test_gaussian_table_fill(9802);
	test_gaussian_table_fill(JL_GAUSSIAN_ALIAS_MAX_S);
	{
		/* the largest scale with a table: its tables checked, not sampled */
		uint32_t   *big = malloc(jl_laplace_table_entries(JL_LAPLACE_TABLE_MAX_T) * sizeof(uint32_t));

		check(jl_laplace_table_fill(JL_LAPLACE_TABLE_MAX_T, big) &&
			  jl_laplace_table_entries(JL_LAPLACE_TABLE_MAX_T + 1) == 0 &&
			  !jl_laplace_table_fill(JL_LAPLACE_TABLE_MAX_T + 1, big) && jl_laplace_table_entries(0) == 0,
			  "tables for 1 <= t <= JL_LAPLACE_TABLE_MAX_T = 2^28 only");
		test_table_fill(JL_LAPLACE_TABLE_MAX_T, big);
		free(big);
	}
	test_laplace_table();
	time_samplers();
	note("test_sampler_table took %.1f s", unit_seconds() - t0);
	return unit_done("test_sampler_table");
}
