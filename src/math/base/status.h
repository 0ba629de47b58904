/*
 * status.h - the status codes every plain-C computation of a release
 * returns instead of raising an error: the glue reports each with its own
 * SQLSTATE and message (pg/common/options.c, jl_report_status).
 */
#ifndef JLDP_MATH_STATUS_H
#define JLDP_MATH_STATUS_H

typedef enum JlStatus
{
	JL_OK = 0,
	JL_ERR_EPSILON,				/* epsilon not finite and > 0 */
	JL_ERR_BOUND,				/* bound not finite and > 0 */
	JL_ERR_DELTA_REQUIRED,		/* paper row calibration needs delta */
	JL_ERR_DELTA,				/* delta outside (0, 1) */
	JL_ERR_SCALE,				/* epsilon so small the scale overflows */
	JL_ERR_GRID,				/* sensitivity outside the representable range */
	JL_ERR_ROW_MAGNITUDE,		/* row too large for the floating-point allowance */
	JL_ERR_OUTPUT_RANGE,		/* projected value too large for the grid */
	JL_ERR_GAUSSIAN_DELTA_REQUIRED, /* Gaussian noise needs delta */
	JL_ERR_CLASSIC_DELTA,		/* Theorem 1 needs delta < 1/2 */
	JL_ERR_PAPER_NEIGHBOR,		/* Lemma 2 is for element neighbours */
	JL_ERR_PAPER_K,				/* Lemma 2 needs k > 2 (ln d + ln(2/delta)) */
	JL_ERR_PAPER_EPSILON,		/* Lemma 2 needs epsilon < ln(1/delta) */
	JL_ERR_ZERO_PROJECTION,		/* every entry of P is 0 (a sparse kind) */
	JL_ERR_STATS,				/* a statistic of P the calibration needs is missing */
	JL_ERR_SENSITIVITY,			/* an integer sensitivity outside 1..2^52 */
	JL_ERR_BOUND_RANGE,			/* bound outside [JL_MIN_BOUND, JL_MAX_BOUND] */
	JL_ERR_NOISE_RANGE			/* bound / epsilon above JL_MAX_NOISE_RATIO */
} JlStatus;

#endif
