/*
 * options.h - the option words of SQL calls (noise, neighbor, calibration,
 * kind) parsed and named, and the math's status codes reported as errors
 * with their SQLSTATEs.
 */
#ifndef JLDP_PG_OPTIONS_H
#define JLDP_PG_OPTIONS_H

#include "postgres.h"

#include "fmgr.h"

#include "math/projection/mechanism.h"
#include "math/projection/projection.h"
#include "pg/common/args.h"

extern JlNeighbor jl_parse_neighbor(text *t);
extern JlNoise jl_parse_noise(text *t);
extern JlCalibration jl_parse_calibration(text *t, JlNoise noise);
extern JlKind jl_parse_kind(text *t);
extern char *jl_kind_word(JlKind kind);

/*
 * Option argument arg as text: a text argument as it is, a label of the
 * enum types jl_noise and jl_kind (overloads without text, which
 * postgres_fdw can send to a shard: a text constant has a collation it
 * cannot ship) as its label.
 */
extern text *jl_option_arg(FunctionCallInfo fcinfo, int arg);
extern const char *jl_neighbor_name(JlNeighbor n);
extern const char *jl_calibration_name(JlCalibration c);
extern const char *jl_noise_name(JlNoise n);

/* The SQLSTATE a status is reported with (0 for JL_OK). */
extern int	jl_status_sqlstate(JlStatus s);

/* ERROR with the status's SQLSTATE and message; nothing for JL_OK. */
extern void jl_report_status(JlStatus s);

/*
 * Refuse, before anything is charged, an epsilon and bound outside the
 * scales every release accepts (jl_check_scales, math/projection/mechanism.h).
 */
extern void jl_require_scales(double epsilon, double bound);

/*
 * The n fields of an options value (a composite of jldp's, e.g.
 * jl_kmeans_options) into values, in order; ERROR (22004) naming the field
 * if one is NULL, with a hint to use the constructor named who.  Pass-by-
 * reference values point into the composite.
 */
extern void jl_option_fields(Datum composite, const char *who, const char *const *names,
							 int n, Datum *values);

/*
 * The calibration of a release with this noise from argument
 * calibration_arg (NULL: the noise's default) and its delta from argument
 * delta_arg (NaN when NULL; a NaN given is an ERROR).
 */
extern void jl_read_calibration(FunctionCallInfo fcinfo, int calibration_arg,
								int delta_arg, JlNoise noise,
								JlCalibration *calibration, double *delta);

/* ERROR if the calibrated m does not guarantee what was asked. */
extern void jl_refuse_invalid(const JlMechanism *m);

/*
 * A WARNING when m's calibration lets rows within the bound reach the
 * saturation of jl_noise_on_grid (epsilon so large that the grid is too
 * fine); the caller issues it once per call site.  Depends on the
 * calibration only: saturation of data beyond the bound stays silent.
 */
extern void jl_warn_saturation(const JlMechanism *m, bool identity);

#endif
