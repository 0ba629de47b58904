/*
 * suggest_k.c - SQL entry points for choosing k: jl_min_dim (scikit-learn's
 * distortion-only bound) and jl_suggest_k / jl_suggest_k_info (the k that
 * minimizes the variance of recovered distances, Kenthapadi et al. 3.3).
 *
 * The noise variance for each candidate k is the extension's own
 * calibration to the realized projection, the one jl_release_info reports
 * for the same options, so every noise, kind and calibration it knows
 * works here; the caller needs the right to call jl_release_info (a key is
 * used).  Nothing is written and no query is run, so the search is safe in
 * a parallel worker.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "math/estimate/advise.h"
#include "math/projection/calibrate.h"
#include "math/projection/sensitivity.h"
#include "math/estimate/suggest_k.h"

#include "pg/common/arrays.h"
#include "pg/common/calibration_json.h"
#include "pg/keys/keystore.h"
#include "pg/common/options.h"
#include "pg/keys/projection_cache.h"
#include "pg/advice/advice.h"
#include "pg/common/messages.h"
#include "pg/catalog/owner.h"

PG_FUNCTION_INFO_V1(jl_min_dim_sql);
PG_FUNCTION_INFO_V1(jl_suggest_k);
PG_FUNCTION_INFO_V1(jl_suggest_k_info);


Datum
jl_min_dim_sql(PG_FUNCTION_ARGS)
{
	int64		n = PG_GETARG_INT64(0);
	double		eps = PG_GETARG_FLOAT8(1);
	double		k;

	if (n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be at least 1, not " INT64_FORMAT, n)));
	if (!(eps > 0.0 && eps < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("eps must be in (0, 1), not %g", eps),
				 errhint("The Johnson-Lindenstrauss bound is defined for eps in (0, 1).")));
	k = jl_min_dim(n, eps);
	if (!(k <= PG_INT32_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the minimum dimension %.17g is out of range for integer", k)));
	PG_RETURN_INT32((int32) k);
}

typedef struct SuggestArgs
{
	int32		d;
	int64		n;
	double		epsilon;
	double		lo,
				hi;
	JlNeighbor	neighbor;
	bool		gaussian;
	int			kmax;
} SuggestArgs;

/* the release each candidate k is calibrated as */
typedef struct Candidates
{
	JlKey		key;
	JlKind		kind;
	int32		d;
	JlMechanism options;		/* noise, epsilon, neighbor, bound,
								 * calibration, delta */
	JlStatus	refusal;		/* the last calibration refused, or JL_OK */
} Candidates;

/*
 * The noise variance of a release at k, as jl_release_info reports it; NaN
 * if not a valid release.  A calibration that refuses this k (with
 * invalid_parameter_value, e.g. the paper's Gaussian bound needs
 * k > 2 (ln d + ln(2/delta)); or numeric_value_out_of_range, e.g. a sparse
 * P of this k that is all zeros, whose sensitivity 0 has no noise grid, or
 * a noise scale beyond the sampler's range) makes the k infeasible, and is
 * kept to be raised if no k is feasible.  Any other refusal is raised at
 * once.
 */
static double
candidate_variance(void *ctx, int k)
{
	Candidates *c = (Candidates *) ctx;
	JlMechanism m = c->options;
	JlStatus	s;
	int			code;

	CHECK_FOR_INTERRUPTS();
	/* the row statistics of P would take too long to compute */
	if (m.neighbor == JL_NEIGHBOR_ROW && !jl_row_stats_affordable(c->d, k))
		return NAN;
	s = jl_calibrate_status(&m, jl_projection_get(c->key.secret, c->kind, k, c->d));
	if (s != JL_OK)
	{
		code = jl_status_sqlstate(s);
		if (code != ERRCODE_INVALID_PARAMETER_VALUE &&
			code != ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE)
			jl_report_status(s);
		c->refusal = s;
		return NAN;
	}
	if (!m.valid || !isfinite(m.noise_variance))
		return NAN;
	return m.noise_variance;
}

/*
 * Arguments: 0 d, 1 n, 2 epsilon, 3 dist2, 4 dist2_hi, 5 neighbor,
 * 6 bound, 7 noise, 8 delta, 9 kind, 10 calibration, 11 key.
 */
static void
read_suggest_args(FunctionCallInfo fcinfo, SuggestArgs *a)
{
	char	   *noise;

	jl_require_named(fcinfo, "d n epsilon dist2 - neighbor bound noise - - - key");
	a->d = PG_GETARG_INT32(0);
	a->n = PG_GETARG_INT64(1);
	a->epsilon = PG_GETARG_FLOAT8(2);
	a->lo = PG_GETARG_FLOAT8(3);
	a->hi = PG_ARGISNULL(4) ? a->lo : PG_GETARG_FLOAT8(4);
	jl_check_choice_args(a->d, a->epsilon, a->lo, a->hi);
	if (a->n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be at least 1, not " INT64_FORMAT, a->n)));
	a->neighbor = jl_parse_neighbor(jl_option_arg(fcinfo, 5));
	noise = text_to_cstring(jl_option_arg(fcinfo, 7));
	if (strcmp(noise, "laplace") == 0)
		a->gaussian = false;
	else if (strcmp(noise, "gaussian") == 0)
		a->gaussian = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown noise \"%s\"", jl_msg_str(noise)),
				 errhint("Use 'laplace' or 'gaussian'.")));
}

/*
 * The release options, as jl_release_info reads them (kind and calibration
 * NULL: their defaults), and the key.
 */
static void
read_release_options(FunctionCallInfo fcinfo, const SuggestArgs *a,
					 Candidates *c)
{
	JlMechanism *o = &c->options;

	memset(c, 0, sizeof(*c));
	c->d = a->d;
	o->noise = a->gaussian ? JL_NOISE_GAUSSIAN : JL_NOISE_LAPLACE;
	o->epsilon = a->epsilon;
	o->neighbor = a->neighbor;
	o->bound = PG_GETARG_FLOAT8(6);
	/* at once: every k would refuse them, one calibration after another */
	jl_require_scales(o->epsilon, o->bound);
	jl_read_calibration(fcinfo, 10, 8, o->noise, &o->calibration, &o->delta);
	c->kind = jl_parse_kind(PG_ARGISNULL(9) ? cstring_to_text("rademacher") :
							jl_option_arg(fcinfo, 9));
	if (JL_KIND_IS_IDENTITY(c->kind))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("kind 'identity' has no k to suggest: its k is d"),
				 errhint("jl_release_info(d, epsilon, bound, neighbor, jl_sketch(kind => 'identity')) "
						 "reports its noise; compare it with the suggested k of a projection kind.")));
	c->refusal = JL_OK;
}

static void
suggest(FunctionCallInfo fcinfo, SuggestArgs *a, JlSuggest *s, JlMechanism *options)
{
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	Candidates	c;
	bool		found = false;

	read_suggest_args(fcinfo, a);
	a->kmax = jl_largest_k(a->d, a->neighbor);
	jl_check_release_info_privilege(nsp);
	read_release_options(fcinfo, a, &c);
	jl_key_lookup(nsp, text_to_cstring(PG_GETARG_TEXT_PP(11)), &c.key);
	PG_TRY();
	{
		found = jl_suggest_k_search(a->lo, a->hi, a->gaussian, a->kmax,
									candidate_variance, &c, s);
	}
	PG_FINALLY();
	{
		explicit_bzero(&c.key, sizeof(c.key));
	}
	PG_END_TRY();
	*options = c.options;
	if (!found && c.refusal != JL_OK)
		jl_report_status(c.refusal);
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no k between 1 and %d gives a valid release with these options", a->kmax)));
}

/*
 * The stddev of a recovered squared distance at dist2 without a projection
 * (P = I, k = d, no distortion) with the same options, and its noise
 * variance into *s2; NaN for both if that calibration refuses.
 */
static double
identity_stddev(const SuggestArgs *a, const JlMechanism *options, double *s2)
{
	JlProjStats st;
	JlMechanism m = *options;

	*s2 = NAN;
	jl_identity_stats(a->d, &st);
	if (jl_calibrate_to(&m, &st) != JL_OK || !m.valid || !isfinite(m.noise_variance))
		return NAN;
	*s2 = m.noise_variance;
	return jl_advise_dist_stddev(a->lo, a->d, *s2, 0.0, a->gaussian, true);
}

Datum
jl_suggest_k(PG_FUNCTION_ARGS)
{
	SuggestArgs a;
	JlSuggest	s;
	JlMechanism options;

	suggest(fcinfo, &a, &s, &options);
	PG_RETURN_INT32(s.k);
}

Datum
jl_suggest_k_info(PG_FUNCTION_ARGS)
{
	SuggestArgs a;
	JlSuggest	s;
	JlMechanism options;
	StringInfoData b;
	double		sdlo,
				sdhi,
				s2_identity,
				sd_identity;

	suggest(fcinfo, &a, &s, &options);
	sd_identity = identity_stddev(&a, &options, &s2_identity);
	sdlo = jl_dist_stddev(a.lo, s.k, s.noise_variance, a.gaussian);
	sdhi = jl_dist_stddev(a.hi, s.k, s.noise_variance, a.gaussian);

	initStringInfo(&b);
	appendStringInfo(&b, "{\"k\": %d, \"noise\": \"%s\"", s.k,
					 a.gaussian ? "gaussian" : "laplace");
	appendStringInfo(&b, ", \"objective\": \"%s\"",
					 a.lo == a.hi ? "variance at dist2" :
					 "worst ratio over [dist2, dist2_hi] of the stddev to the smallest stddev of any k");
	jl_json_num(&b, "objective_value", s.objective);
	jl_json_num(&b, "noise_variance", s.noise_variance);
	jl_json_num(&b, "dist2", a.lo);
	jl_json_num(&b, "stddev", sdlo);
	jl_json_num(&b, "relative_stddev", sdlo / a.lo);
	if (a.lo != a.hi)
	{
		jl_json_num(&b, "dist2_hi", a.hi);
		jl_json_num(&b, "stddev_hi", sdhi);
		jl_json_num(&b, "relative_stddev_hi", sdhi / a.hi);
		appendStringInfo(&b, ", \"k_best_at_dist2\": %d, \"k_best_at_dist2_hi\": %d",
						 s.k_lo_best, s.k_hi_best);
	}
	/* Kenthapadi's rule of thumb k = r^2 / (2 sigma^2), at this k's sigma */
	jl_json_num(&b, "k_rule_of_thumb", a.lo / (2.0 * s.noise_variance));
	appendStringInfo(&b, ", \"k_max\": %d, \"at_k_max\": %s, \"evaluations\": %d",
					 a.kmax, s.at_limit ? "true" : "false", s.evaluations);
	/* no projection with the same options, as jl_advise ranks it */
	jl_json_num(&b, "identity_noise_variance", s2_identity);
	jl_json_num(&b, "identity_stddev", sd_identity);
	appendStringInfo(&b, ", \"projection_pays\": %s",
					 isnan(sd_identity) ? "null" : sdlo < sd_identity ? "true" : "false");
	appendStringInfo(&b, ", \"n\": " INT64_FORMAT, a.n);
	jl_json_num(&b, "jl_distortion", a.n >= 2 ? jl_distortion_at(a.n, s.k) : NAN);
	if (a.n >= 2)
	{
		double		m = jl_min_dim(a.n, 0.1);

		if (m <= PG_INT32_MAX)
			appendStringInfo(&b, ", \"min_dim_eps_0.1\": %.0f", m);
	}
	appendStringInfoString(&b, "}");
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}
