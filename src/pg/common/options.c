/*
 * options.c - option words of the release functions and the mapping of
 * mechanism status codes to errors.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include <errno.h>

#include "access/htup_details.h"
#include "catalog/pg_enum.h"
#include "catalog/pg_type.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "math/projection/release.h"

#include "pg/common/options.h"
#include "pg/common/messages.h"

/* text equals a C string, without copying (called per row) */
static bool
text_is(text *t, const char *s)
{
	size_t		n = strlen(s);

	return VARSIZE_ANY_EXHDR(t) == n && memcmp(VARDATA_ANY(t), s, n) == 0;
}

/* ERROR (null_value_not_allowed) if argument n, called name, is NULL. */
JlNeighbor
jl_parse_neighbor(text *t)
{
	char	   *s;

	if (text_is(t, "element") || text_is(t, "attribute"))
		return JL_NEIGHBOR_ELEMENT;
	if (text_is(t, "row"))
		return JL_NEIGHBOR_ROW;
	s = text_to_cstring(t);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown neighbor \"%s\"", jl_msg_str(s)),
			 errhint("Use 'attribute' (one element changes by at most bound) "
					 "or 'row' (one row changes by at most bound in L2 norm).")));
	pg_unreachable();
}

JlNoise
jl_parse_noise(text *t)
{
	char	   *s;

	if (text_is(t, "laplace"))
		return JL_NOISE_LAPLACE;
	if (text_is(t, "gaussian"))
		return JL_NOISE_GAUSSIAN;
	s = text_to_cstring(t);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown noise \"%s\"", jl_msg_str(s)),
			 errhint("Use 'laplace' (pure epsilon) or 'gaussian' ((epsilon, delta), needs delta).")));
	pg_unreachable();
}

/*
 * The calibration word for this noise; NULL means the noise's default
 * ('exact' for Laplace, 'analytic' for Gaussian).  Words of the other
 * noise are refused.
 */
JlCalibration
jl_parse_calibration(text *t, JlNoise noise)
{
	char	   *s;

	if (t == NULL)
		return noise == JL_NOISE_GAUSSIAN ? JL_CALIBRATION_ANALYTIC : JL_CALIBRATION_EXACT;
	if (text_is(t, "paper"))
		return JL_CALIBRATION_PAPER;
	if (noise == JL_NOISE_LAPLACE)
	{
		if (text_is(t, "exact"))
			return JL_CALIBRATION_EXACT;
		s = text_to_cstring(t);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("calibration \"%s\" does not go with Laplace noise", jl_msg_str(s)),
				 errhint("Use 'exact' (sensitivity of the realized projection) "
						 "or 'paper' (Dhaliwal et al.'s constants)%s.",
						 (strcmp(s, "analytic") == 0 || strcmp(s, "classic") == 0) ?
						 "; 'analytic' and 'classic' go with noise => 'gaussian'" : "")));
	}
	if (text_is(t, "analytic"))
		return JL_CALIBRATION_ANALYTIC;
	if (text_is(t, "classic"))
		return JL_CALIBRATION_CLASSIC;
	s = text_to_cstring(t);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("calibration \"%s\" does not go with Gaussian noise", jl_msg_str(s)),
			 errhint("Use 'analytic' (Balle and Wang, the default), 'classic' (Kenthapadi et al., Theorem 1) "
					 "or 'paper' (Kenthapadi et al., Lemma 2)%s.",
					 strcmp(s, "exact") == 0 ? "; 'exact' goes with noise => 'laplace'" : "")));
	pg_unreachable();
}

/*
 * 'gaussian', 'rademacher', 'achlioptas', 'sparse' (density 1/sqrt(d), set
 * once d is known), 'sparse(s)' with an explicit density s in [2^-50, 1],
 * or 'identity' (no projection: P = I, k = d).
 */
JlKind
jl_parse_kind(text *t)
{
	char	   *s;

	if (text_is(t, "gaussian"))
		return JL_KIND_GAUSSIAN;
	if (text_is(t, "rademacher"))
		return JL_KIND_RADEMACHER;
	if (text_is(t, "achlioptas"))
		return JL_KIND_ACHLIOPTAS;
	if (text_is(t, "sparse"))
		return JL_KIND_SPARSE;
	if (text_is(t, "identity"))
		return JL_KIND_IDENTITY;
	s = text_to_cstring(t);
	if (strncmp(s, "sparse(", 7) == 0)
	{
		char	   *end;
		double		density;
		JlKind		kind;

		errno = 0;
		density = strtod(s + 7, &end);
		if (end != s + 7 && errno == 0 && strcmp(end, ")") == 0)
		{
			kind = jl_kind_sparse(density);
			if (kind != 0)
				return kind;
		}
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid sparse density in kind \"%s\"", jl_msg_str(s)),
				 errhint("Write 'sparse(s)' with a density s between 2^-50 and 1, e.g. 'sparse(0.01)', "
						 "or 'sparse' for 1/sqrt(d).")));
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown projection kind \"%s\"", jl_msg_str(s)),
			 errhint("Use 'rademacher' (+-1/sqrt(k), the default), 'gaussian' (N(0, 1/k)), "
					 "'achlioptas' (+-sqrt(3/k) w.p. 1/6 each, else 0), "
					 "'sparse' (density 1/sqrt(d)), 'sparse(s)' (density s) "
					 "or 'identity' (no projection, k = d).")));
	pg_unreachable();
}

/*
 * The word that selects this resolved kind again: sparse kinds carry their
 * density, printed exactly (a dyadic rational), so it parses back to the
 * same code.
 */
char *
jl_kind_word(JlKind kind)
{
	if (JL_KIND_BASE(kind) == JL_KIND_SPARSE && kind != JL_KIND_SPARSE)
		return psprintf("sparse(%.17g)", jl_kind_density(kind));
	return pstrdup(jl_kind_name(kind));
}

const char *
jl_neighbor_name(JlNeighbor n)
{
	return n == JL_NEIGHBOR_ROW ? "row" : "attribute";
}

const char *
jl_calibration_name(JlCalibration c)
{
	switch (c)
	{
		case JL_CALIBRATION_PAPER:
			return "paper";
		case JL_CALIBRATION_ANALYTIC:
			return "analytic";
		case JL_CALIBRATION_CLASSIC:
			return "classic";
		default:
			return "exact";
	}
}

const char *
jl_noise_name(JlNoise n)
{
	return n == JL_NOISE_GAUSSIAN ? "gaussian" : "laplace";
}

int
jl_status_sqlstate(JlStatus s)
{
	switch (s)
	{
		case JL_OK:
			return 0;
		case JL_ERR_DELTA_REQUIRED:
		case JL_ERR_GAUSSIAN_DELTA_REQUIRED:
			return ERRCODE_NULL_VALUE_NOT_ALLOWED;
		case JL_ERR_ROW_MAGNITUDE:
			return ERRCODE_OUT_OF_MEMORY;
		case JL_ERR_OUTPUT_RANGE:
		case JL_ERR_SCALE:
		case JL_ERR_NOISE_RANGE:
		case JL_ERR_GRID:
			return ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
		case JL_ERR_STATS:
			return ERRCODE_INTERNAL_ERROR;	/* a caller's bug, not the user's */
		default:
			return ERRCODE_INVALID_PARAMETER_VALUE;
	}
}

static const char *
status_hint(JlStatus s)
{
	switch (s)
	{
		case JL_ERR_DELTA_REQUIRED:
			return "Pass delta => a value in (0, 1), or use calibration => 'exact'.";
		case JL_ERR_GAUSSIAN_DELTA_REQUIRED:
			return "Pass delta => a value in (0, 1), e.g. well below 1/n for n rows, or use noise => 'laplace'.";
		case JL_ERR_BOUND_RANGE:
			return "Declare the attributes in units where a row's change is between 1e-100 and 1e100 (bounds within +-1e100, a row clip between 1e-100 and 1e100).";
		case JL_ERR_NOISE_RANGE:
			return "Use a larger epsilon or a smaller bound.";
		case JL_ERR_ZERO_PROJECTION:
			return "The sparse kind's density is too low for this d and k: use a larger density (jl_sketch(kind => 'sparse', density => s)) or a larger k.";
		default:
			return NULL;
	}
}

void
jl_require_scales(double epsilon, double bound)
{
	jl_report_status(jl_check_scales(epsilon, bound));
}

void
jl_report_status(JlStatus s)
{
	const char *hint = status_hint(s);

	if (s == JL_OK)
		return;
	ereport(ERROR, (errcode(jl_status_sqlstate(s)), errmsg("%s", jl_status_message(s)),
					hint ? errhint("%s", hint) : 0));
}

void
jl_read_calibration(FunctionCallInfo fcinfo, int calibration_arg, int delta_arg,
					JlNoise noise, JlCalibration *calibration, double *delta)
{
	/* NULL: the noise's default calibration */
	*calibration = jl_parse_calibration(PG_ARGISNULL(calibration_arg) ? NULL :
										jl_option_arg(fcinfo, calibration_arg), noise);
	*delta = PG_ARGISNULL(delta_arg) ? NAN : PG_GETARG_FLOAT8(delta_arg);
	if (!PG_ARGISNULL(delta_arg) && isnan(*delta))
		jl_report_status(JL_ERR_DELTA);	/* NaN would read as "not given" */
}

void
jl_warn_saturation(const JlMechanism *m, bool identity)
{
	double		sat = jl_saturation_level(m);
	double		within = jl_within_bound_level(m, identity);

	if (!(within >= sat))
		return;
	ereport(WARNING,
			(errcode(ERRCODE_WARNING),
			 errmsg("projections of rows within the bound may saturate at +-%g", sat),
			 errdetail("At epsilon %g the grid step is %g; a projection beyond 2^49 steps is clamped, "
					   "and a row within the bound %g can reach %g.",
					   m->epsilon, m->grid, m->bound, within),
			 errhint("Use a smaller epsilon: at about %g or below, rows within the bound are released without clamping.",
					 m->epsilon * sat / within)));
}

/* A release whose paper calibration does not cover the realized P is refused. */
void
jl_refuse_invalid(const JlMechanism *m)
{
	if (m->valid)
		return;
	if (m->noise == JL_NOISE_GAUSSIAN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s calibration does not cover this projection",
						jl_calibration_name(m->calibration)),
				 errdetail("With the realized L2 sensitivity %g the sampled noise (sigma %g) "
						   "guarantees delta %g at epsilon %g, more than the requested %g.",
						   m->sensitivity, m->scale, m->delta_holding, m->epsilon, m->delta),
				 errhint("Use calibration => 'analytic', which calibrates to the realized projection.")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("paper calibration does not cover this projection"),
			 errdetail("The realized L1 sensitivity %g exceeds the paper's c = %g, "
					   "so this release would only be %g-differentially private, not %g.",
					   m->sensitivity, m->paper_c, m->epsilon_effective, m->epsilon),
			 errhint("Use calibration => 'exact', which calibrates to the realized projection.")));
}

text *
jl_option_arg(FunctionCallInfo fcinfo, int arg)
{
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, arg);
	HeapTuple	tup;
	text	   *label;

	if (type == TEXTOID || !OidIsValid(type))
		return PG_GETARG_TEXT_PP(arg);
	tup = SearchSysCache1(ENUMOID, PG_GETARG_DATUM(arg));
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid enum value %u", DatumGetObjectId(PG_GETARG_DATUM(arg)))));
	label = cstring_to_text(NameStr(((Form_pg_enum) GETSTRUCT(tup))->enumlabel));
	ReleaseSysCache(tup);
	return label;
}

void
jl_option_fields(Datum composite, const char *who, const char *const *names, int n,
				 Datum *values)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(composite);
	TupleDesc	desc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(th),
											  HeapTupleHeaderGetTypMod(th));
	HeapTupleData tuple;
	Datum	   *v;
	bool	   *isnull;
	int			i;

	if (desc->natts != n)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: a value of %d fields where %d are expected", who, desc->natts, n)));
	v = palloc(sizeof(Datum) * n);
	isnull = palloc(sizeof(bool) * n);
	tuple.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = th;
	heap_deform_tuple(&tuple, desc, v, isnull);
	ReleaseTupleDesc(desc);
	for (i = 0; i < n; i++)
	{
		if (isnull[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: %s must not be NULL", who, names[i]),
					 errhint("Build the value with its constructor, %s(...), whose arguments have defaults.", who)));
		values[i] = v[i];
	}
	pfree(v);
	pfree(isnull);
}
