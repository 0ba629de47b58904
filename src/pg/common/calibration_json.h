/*
 * calibration_json.h - the JSON that describes a calibrated release: what
 * jl_release_info returns and what the release registry records, written
 * in one place so that the two always agree.
 */
#ifndef JLDP_PG_CALIBRATION_JSON_H
#define JLDP_PG_CALIBRATION_JSON_H

#include "postgres.h"

#include "lib/stringinfo.h"

#include "math/projection/mechanism.h"
#include "math/projection/projection.h"

/*
 * the "mechanism" of releases that add noise to x P; with P = I (kind
 * 'identity') jl_calibration_json writes JL_MECHANISM_RAW_NOISE instead
 */
#define JL_MECHANISM_PROJECTION "jl_projection"
#define JL_MECHANISM_RAW_NOISE "raw_noise"

/* Append , "name": v (null when not finite). */
extern void jl_json_num(StringInfo b, const char *name, double v);

/*
 * Open a JSON object in b with the calibration m (calibrated: d and k set)
 * of a release by mechanism on the projection of this kind (resolved) under
 * the key with this fingerprint.  The caller appends any fields of its own
 * and the closing brace.
 */
extern void jl_calibration_json(StringInfo b, const char *mechanism,
								const JlMechanism *m, JlKind kind,
								const char *key_fingerprint);

#endif
