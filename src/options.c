/*
 * options.c - option words of the release functions and the mapping of
 * mechanism status codes to errors.
 */
#include "jldp.h"

#include "utils/builtins.h"

/* text equals a C string, without copying (called per row) */
static bool
text_is(text *t, const char *s)
{
	size_t		n = strlen(s);

	return VARSIZE_ANY_EXHDR(t) == n && memcmp(VARDATA_ANY(t), s, n) == 0;
}

JlNeighbor
jl_parse_neighbor(text *t)
{
	char	   *s;

	if (text_is(t, "element"))
		return JL_NEIGHBOR_ELEMENT;
	if (text_is(t, "row"))
		return JL_NEIGHBOR_ROW;
	s = text_to_cstring(t);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown neighbor \"%s\"", s),
			 errhint("Use 'element' (one element changes by at most bound) "
					 "or 'row' (one row changes by at most bound in L2 norm).")));
	pg_unreachable();
}

JlCalibration
jl_parse_calibration(text *t)
{
	char	   *s;

	if (text_is(t, "exact"))
		return JL_CALIBRATION_EXACT;
	if (text_is(t, "paper"))
		return JL_CALIBRATION_PAPER;
	s = text_to_cstring(t);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown calibration \"%s\"", s),
			 errhint("Use 'exact' (sensitivity of the realized projection) "
					 "or 'paper' (Dhaliwal et al.'s constants).")));
	pg_unreachable();
}

const char *
jl_neighbor_name(JlNeighbor n)
{
	return n == JL_NEIGHBOR_ROW ? "row" : "element";
}

const char *
jl_calibration_name(JlCalibration c)
{
	return c == JL_CALIBRATION_PAPER ? "paper" : "exact";
}

void
jl_report_status(JlStatus s)
{
	int			code;
	const char *hint = NULL;

	switch (s)
	{
		case JL_OK:
			return;
		case JL_ERR_DELTA_REQUIRED:
			code = ERRCODE_NULL_VALUE_NOT_ALLOWED;
			hint = "Pass delta => a value in (0, 1), or use calibration => 'exact'.";
			break;
		case JL_ERR_ROW_MAGNITUDE:
			code = ERRCODE_OUT_OF_MEMORY;
			break;
		case JL_ERR_OUTPUT_RANGE:
			code = ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
			break;
		case JL_ERR_SCALE:
		case JL_ERR_GRID:
			code = ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
			break;
		default:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
	}
	ereport(ERROR, (errcode(code), errmsg("%s", jl_status_message(s)),
					hint ? errhint("%s", hint) : 0));
}

/* A release whose paper calibration does not cover the realized P is refused. */
void
jl_refuse_invalid(const JlLaplace *m)
{
	if (!m->valid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("paper calibration does not cover this projection"),
				 errdetail("The realized L1 sensitivity %g exceeds the paper's c = %g, "
						   "so this release would only be %g-differentially private, not %g.",
						   m->sensitivity, m->paper_c, m->epsilon_effective, m->epsilon),
				 errhint("Use calibration => 'exact', which calibrates to the realized projection.")));
}
