/*
 * fuzz_calibrate.c - the calibration of a release (math/projection/
 * calibrate.c) from any options and any statistics of P, the inputs an
 * SQL call and a projection give it: NaN, infinities, negatives, zeros and
 * extremes included.  Whatever it accepts as valid must keep the promise
 * a release states: Laplace noise whose scale covers the sensitivity at
 * epsilon (sensitivity <= t g epsilon, the data's sensitivity included),
 * Gaussian noise whose certified delta is at most the delta asked; a
 * positive grid and scale, a finite noise variance (0 only where the
 * scale is so small that its square underflows: an epsilon near 1e169).  UBSan and ASan watch
 * the arithmetic.
 */
#include "fuzz.h"

#include <math.h>

#include "math/projection/calibrate.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzIn		in = {data, size};
	uint32_t	opts = fuzz_u32(&in);
	JlMechanism m;
	JlProjStats st;
	JlStatus	s;

	memset(&m, 0, sizeof(m));
	memset(&st, 0, sizeof(st));
	m.noise = (opts & 1) ? JL_NOISE_GAUSSIAN : JL_NOISE_LAPLACE;
	m.neighbor = (opts & 2) ? JL_NEIGHBOR_ROW : JL_NEIGHBOR_ELEMENT;
	m.calibration = (JlCalibration) ((opts >> 2) & 3);
	st.d = 1 + (int64_t) (fuzz_u32(&in) % (1u << 24));
	st.k = 1 + (int) (fuzz_u32(&in) % (1u << 16));
	st.row_method = (opts & 16) ? JL_ROW_SPECTRAL_BOUND : JL_ROW_EXACT_ENUMERATION;
	m.epsilon = fuzz_double(&in);
	m.bound = fuzz_double(&in);
	m.delta = fuzz_double(&in);
	st.max_abs = fuzz_double(&in);
	st.max_row_l1 = fuzz_double(&in);
	st.max_row_l2 = fuzz_double(&in);
	st.row_l1 = fuzz_double(&in);
	st.spectral_norm = fuzz_double(&in);

	s = jl_calibrate_to(&m, &st);
	if (s != JL_OK || !m.valid || m.calibration == JL_CALIBRATION_PAPER)
		return 0;

	FUZZ_CHECK(m.t >= 1, "t = %llu", (unsigned long long) m.t);
	FUZZ_CHECK(m.grid > 0.0 && isfinite(m.grid), "grid %g", m.grid);
	FUZZ_CHECK(m.scale > 0.0 && isfinite(m.scale), "scale %g", m.scale);
	FUZZ_CHECK(m.scale == (double) m.t * m.grid, "scale %g is not t g (%llu x %g)", m.scale,
			   (unsigned long long) m.t, m.grid);
	/* positive, unless the scale's square underflows (epsilon near 1e169) */
	FUZZ_CHECK(isfinite(m.noise_variance) && m.noise_variance >= 0.0 &&
			   (m.noise_variance > 0.0 || m.scale < 1e-150), "noise variance %g at scale %g",
			   m.noise_variance, m.scale);
	FUZZ_CHECK(m.sensitivity >= m.data_sensitivity, "sensitivity %g below the data's %g",
			   m.sensitivity, m.data_sensitivity);
	FUZZ_CHECK(m.data_sensitivity >= m.bound * m.proj_sensitivity * (1.0 - 1e-15),
			   "data sensitivity %g below bound x P's %g", m.data_sensitivity,
			   m.bound * m.proj_sensitivity);
	if (m.noise == JL_NOISE_LAPLACE)
		FUZZ_CHECK(m.sensitivity <= m.scale * m.epsilon,
				   "Laplace: sensitivity %.17g above t g epsilon %.17g", m.sensitivity,
				   m.scale * m.epsilon);
	else
		FUZZ_CHECK(m.delta_holding <= m.delta && m.delta > 0.0 && m.delta < 1.0,
				   "Gaussian: delta %.17g certified for %.17g asked", m.delta_holding, m.delta);
	return 0;
}
