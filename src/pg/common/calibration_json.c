/*
 * calibration_json.c - the JSON that describes a calibrated release.
 *
 * "epsilon" and "delta" are what holds for the realized P: the requested
 * values when the calibration covers it (valid), otherwise the effective
 * epsilon.  The requested ones are kept beside them.
 */
#include "postgres.h"

#include <math.h>

#include "math/projection/sensitivity.h"

#include "pg/common/calibration_json.h"
#include "pg/common/options.h"

void
jl_json_num(StringInfo b, const char *name, double v)
{
	if (isfinite(v))
		appendStringInfo(b, ", \"%s\": %.17g", name, v);
	else
		appendStringInfo(b, ", \"%s\": null", name);
}

/* Which statistic of P the sensitivity is, in words. */
static const char *
sensitivity_method(const JlMechanism *m, JlKind kind)
{
	if (JL_KIND_IS_IDENTITY(kind))
		return (m->noise == JL_NOISE_LAPLACE && m->neighbor == JL_NEIGHBOR_ROW) ?
			"no projection: sqrt(d) (L1 norm of a change of L2 norm 1)" :
			"no projection: the bound itself";
	if (m->noise == JL_NOISE_GAUSSIAN)
		return m->neighbor == JL_NEIGHBOR_ELEMENT ? "max row L2 norm of P" :
			"spectral norm of P (LAPACK, rounded up)";
	if (m->neighbor == JL_NEIGHBOR_ELEMENT)
		return "max row L1 norm of P";
	if (m->k <= JL_ROW_ENUM_MAX_K)	/* as jl_row_l1_sensitivity decides */
		return "max over sign vectors s of ||P s||_2 (exact enumeration)";
	return "sqrt(k) * spectral norm of P (certified upper bound)";
}

/*
 * What holds: (epsilon, delta) as requested when valid, otherwise the
 * effective epsilon; Laplace noise is pure epsilon-DP (delta 0).
 */
static void
guarantee_fields(StringInfo b, const JlMechanism *m)
{
	bool		gaussian = m->noise == JL_NOISE_GAUSSIAN;

	jl_json_num(b, "epsilon", m->valid ? m->epsilon : m->epsilon_effective);
	jl_json_num(b, "delta", gaussian ? m->delta : 0.0);
	jl_json_num(b, "epsilon_requested", m->epsilon);
	jl_json_num(b, "epsilon_effective", m->epsilon_effective);
	if (gaussian)
	{
		jl_json_num(b, "delta_requested", m->delta);
		jl_json_num(b, "delta_holding", m->delta_holding);
		jl_json_num(b, "rho", m->rho);
	}
}

/* The sensitivity, and the noise on the grid: sigma (Gaussian) or scale. */
static void
noise_fields(StringInfo b, const JlMechanism *m, JlKind kind)
{
	bool		gaussian = m->noise == JL_NOISE_GAUSSIAN;
	const char *scale = gaussian ? "sigma" : "scale";

	appendStringInfo(b, ", \"sensitivity_norm\": \"%s\"", gaussian ? "L2" : "L1");
	jl_json_num(b, "sensitivity", m->sensitivity);
	jl_json_num(b, "projection_sensitivity", m->data_sensitivity);
	appendStringInfo(b, ", \"sensitivity_method\": \"%s\"", sensitivity_method(m, kind));
	jl_json_num(b, scale, m->scale);
	jl_json_num(b, "grid", m->grid);
	appendStringInfo(b, ", \"%s_in_grid_steps\": %llu", scale, (unsigned long long) m->t);
	jl_json_num(b, "fp_allowance", m->fp_allowance);
	jl_json_num(b, "noise_variance", m->noise_variance);
	if (gaussian)
	{
		jl_json_num(b, "sigma_calibration", m->sigma_calibration);
		jl_json_num(b, "paper_sigma", m->paper_c);
	}
	else
	{
		jl_json_num(b, "paper_c", m->paper_c);
		jl_json_num(b, "paper_delta", m->paper_delta);
		if (m->calibration == JL_CALIBRATION_PAPER)
			appendStringInfo(b, ", \"paper_delta_vacuous\": %s",
							 m->paper_delta >= 1.0 ? "true" : "false");
	}
}

void
jl_calibration_json(StringInfo b, const char *mechanism, const JlMechanism *m,
					JlKind kind, const char *key_fingerprint)
{
	if (JL_KIND_IS_IDENTITY(kind))
		mechanism = JL_MECHANISM_RAW_NOISE;
	appendStringInfo(b, "{\"mechanism\": \"%s\", \"noise\": \"%s\"",
					 mechanism, jl_noise_name(m->noise));
	appendStringInfo(b, ", \"sampler\": \"discrete %s on a power-of-two grid\"",
					 jl_noise_name(m->noise));
	appendStringInfo(b, ", \"projection\": \"%s\"", jl_kind_name(kind));
	jl_json_num(b, "density", JL_KIND_IS_IDENTITY(kind) ? 1.0 / (double) m->d :
				jl_kind_density(kind));
	appendStringInfo(b, ", \"kind\": \"%s\", \"d\": %lld, \"k\": %d",
					 jl_kind_word(kind), (long long) m->d, m->k);
	appendStringInfo(b, ", \"neighbor\": \"%s\", \"calibration\": \"%s\"",
					 jl_neighbor_name(m->neighbor), jl_calibration_name(m->calibration));
	jl_json_num(b, "bound", m->bound);
	appendStringInfo(b, ", \"valid\": %s", m->valid ? "true" : "false");
	guarantee_fields(b, m);
	noise_fields(b, m, kind);
	appendStringInfo(b, ", \"key_fingerprint\": \"%s\", \"version\": \"%s\"",
					 key_fingerprint, JLDP_VERSION);
}
