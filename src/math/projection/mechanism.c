/*
 * mechanism.c - the messages of the status codes of mechanism.h.
 */
#include "math/projection/mechanism.h"

#include <math.h>

const char *
jl_status_message(JlStatus s)
{
	switch (s)
	{
		case JL_OK:
			return "ok";
		case JL_ERR_EPSILON:
			return "epsilon must be a finite number greater than 0";
		case JL_ERR_BOUND:
			return "bound must be a finite number greater than 0";
		case JL_ERR_DELTA_REQUIRED:
			return "delta is required for paper calibration with row neighbours";
		case JL_ERR_DELTA:
			return "delta must lie strictly between 0 and 1";
		case JL_ERR_SCALE:
			return "epsilon is too small: the noise scale exceeds the sampler's range";
		case JL_ERR_GRID:
			return "sensitivity is outside the representable range";
		case JL_ERR_ROW_MAGNITUDE:
			return "out of memory while preparing a row";
		case JL_ERR_OUTPUT_RANGE:
			return "projected value is too large for the release grid";
		case JL_ERR_GAUSSIAN_DELTA_REQUIRED:
			return "delta is required for Gaussian noise";
		case JL_ERR_CLASSIC_DELTA:
			return "classic calibration (Kenthapadi et al., Theorem 1) needs delta < 1/2";
		case JL_ERR_PAPER_NEIGHBOR:
			return "paper calibration for Gaussian noise (Kenthapadi et al., Lemma 2) is for element neighbours only";
		case JL_ERR_PAPER_K:
			return "paper calibration for Gaussian noise (Kenthapadi et al., Lemma 2) needs k > 2 (ln d + ln(2/delta))";
		case JL_ERR_PAPER_EPSILON:
			return "paper calibration for Gaussian noise (Kenthapadi et al., Lemma 2) needs epsilon < ln(1/delta)";
		case JL_ERR_ZERO_PROJECTION:
			return "every entry of this projection is zero, so its sketches would carry no information";
		case JL_ERR_STATS:
			return "a statistic of the projection that the calibration needs was not computed";
		case JL_ERR_SENSITIVITY:
			return "sensitivity must be between 1 and 2^52";
		case JL_ERR_BOUND_RANGE:
			return "the bound (bound, clip_norm, or clip_lo and clip_hi) must lie between 1e-100 and 1e100";
		case JL_ERR_NOISE_RANGE:
			return "bound / epsilon exceeds 1e100: the noise would not be finite";
	}
	return "unknown status";
}

JlStatus
jl_check_scales(double epsilon, double bound)
{
	if (!(isfinite(epsilon) && epsilon > 0.0))
		return JL_ERR_EPSILON;
	if (!(isfinite(bound) && bound > 0.0))
		return JL_ERR_BOUND;
	if (!(bound >= JL_MIN_BOUND && bound <= JL_MAX_BOUND))
		return JL_ERR_BOUND_RANGE;
	if (!(bound / epsilon <= JL_MAX_NOISE_RATIO))
		return JL_ERR_NOISE_RANGE;
	return JL_OK;
}
