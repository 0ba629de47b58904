/*
 * mechanism.c - the jl_mechanism values jl_release takes (mechanism.h).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "utils/builtins.h"

#include "pg/arrays.h"
#include "pg/options.h"
#include "pg/pipeline/mechanism.h"

static char *
label(Datum enumval)
{
	return DatumGetCString(DirectFunctionCall1(enum_out, enumval));
}

static void
refuse(const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("jl_sketch: %s", msg),
			 hint ? errhint("%s", hint) : 0));
}

void
jl_mechanism_read(Datum composite, JlSketchSpec *spec)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(composite);
	bool		isnull;
	Datum		v;
	char	   *name;

	memset(spec, 0, sizeof(*spec));
	v = GetAttributeByName(th, "mechanism", &isnull);
	name = isnull ? "" : TextDatumGetCString(v);
	if (strcmp(name, "sketch") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mechanism \"%s\"", name),
				 errhint("Build the mechanism with its constructor, e.g. jl_sketch(k => 20).")));

	v = GetAttributeByName(th, "kind", &isnull);
	if (isnull)
		refuse("kind must not be NULL", NULL);
	spec->kind = jl_parse_kind(cstring_to_text(label(v)));

	v = GetAttributeByName(th, "k", &isnull);
	if (isnull)
	{
		if (!JL_KIND_IS_IDENTITY(spec->kind))
			refuse("k must not be NULL", "Give k (jl_advise suggests one), or kind => 'identity' to release the encoded attributes with noise and no projection.");
		spec->k = 0;
	}
	else
	{
		spec->k = DatumGetInt32(v);
		jl_check_k(spec->k);
	}

	v = GetAttributeByName(th, "noise", &isnull);
	if (isnull)
		refuse("noise must not be NULL", NULL);
	spec->noise = jl_parse_noise(cstring_to_text(label(v)));

	v = GetAttributeByName(th, "delta", &isnull);
	spec->delta = isnull ? NAN : DatumGetFloat8(v);
	if (spec->noise == JL_NOISE_LAPLACE && !isnull)
		refuse("delta goes with noise 'gaussian'", "Laplace noise gives pure epsilon-DP: leave delta out.");
	if (spec->noise == JL_NOISE_GAUSSIAN && isnull)
		jl_report_status(JL_ERR_GAUSSIAN_DELTA_REQUIRED);
	if (spec->noise == JL_NOISE_GAUSSIAN && !(spec->delta > 0.0 && spec->delta < 1.0))
		jl_report_status(JL_ERR_DELTA);

	v = GetAttributeByName(th, "calibration", &isnull);
	if (isnull)
		spec->calibration = spec->noise == JL_NOISE_GAUSSIAN ? JL_CALIBRATION_ANALYTIC :
			JL_CALIBRATION_EXACT;
	else
		spec->calibration = jl_parse_calibration(cstring_to_text(label(v)), spec->noise);
	if (spec->calibration == JL_CALIBRATION_CLASSIC && !(spec->delta < 0.5))
		jl_report_status(JL_ERR_CLASSIC_DELTA);
}

/* jl_mechanism_checked(jl_mechanism) RETURNS jl_mechanism */
PG_FUNCTION_INFO_V1(jl_mechanism_checked);
Datum
jl_mechanism_checked(PG_FUNCTION_ARGS)
{
	JlSketchSpec spec;

	jl_require_arg(fcinfo, 0, "mechanism");
	jl_mechanism_read(PG_GETARG_DATUM(0), &spec);
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}
