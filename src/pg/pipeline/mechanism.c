/*
 * mechanism.c - the jl_mechanism values jl_release takes (mechanism.h):
 * one composite type for every mechanism, its fields checked here, when a
 * constructor builds it and again when a release uses it.  A field that
 * belongs to another mechanism must be NULL.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/typcache.h"

#include "math/estimate/advise.h"
#include "math/analytics/dp_kmeans.h"
#include "math/covariance/covariance_accountant.h"

#include "pg/advice/advice.h"
#include "pg/common/arrays.h"
#include "pg/common/options.h"
#include "pg/pipeline/mechanism.h"

static char *
label(Datum enumval)
{
	return DatumGetCString(DirectFunctionCall1(enum_out, enumval));
}

static void
refuse(const char *who, const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: %s", who, msg),
			 hint ? errhint("%s", hint) : 0));
}

static Datum
field(HeapTupleHeader th, const char *name, bool *isnull)
{
	return GetAttributeByName(th, name, isnull);
}

/*
 * A jl_mechanism of an older install script than this library's lacks
 * fields (0.5.0 added density, the last): 55000, not an internal error
 */
static void
check_fields(HeapTupleHeader th)
{
	TupleDesc	tupdesc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(th),
												 HeapTupleHeaderGetTypMod(th));
	bool		found = false;
	int			i;

	for (i = 0; i < tupdesc->natts && !found; i++)
		found = !TupleDescAttr(tupdesc, i)->attisdropped &&
			strcmp(NameStr(TupleDescAttr(tupdesc, i)->attname), "density") == 0;
	ReleaseTupleDesc(tupdesc);
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("type jl_mechanism has no field \"density\""),
				 errdetail("The extension's SQL is older than its library."),
				 errhint("ALTER EXTENSION jldp UPDATE.")));
}

/* a field that must be given */
static Datum
required(HeapTupleHeader th, const char *who, const char *name)
{
	bool		isnull;
	Datum		v = field(th, name, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: %s must not be NULL", who, name)));
	return v;
}

/* fields of other mechanisms are NULL */
static void
absent(HeapTupleHeader th, const char *who, const char *const *names)
{
	bool		isnull;

	for (; *names; names++)
	{
		(void) field(th, *names, &isnull);
		if (!isnull)
			refuse(who, psprintf("%s does not go with this mechanism", *names),
				   "Build the mechanism with its constructor: jl_sketch(...), jl_advised(...), jl_covariance_mechanism(...), jl_graph(...) or jl_kmeans_mechanism(...).");
	}
}

static void
read_sketch(HeapTupleHeader th, JlSketchSpec *spec)
{
	static const char *const others[] = {"r", "lift", "method", "goal", "dist2", "dist2_hi",
	"cluster_var", "force", "origin", NULL};
	double		density;
	bool		isnull;
	Datum		v;

	absent(th, "jl_sketch", others);
	v = required(th, "jl_sketch", "kind");
	spec->kind = jl_parse_kind(cstring_to_text(label(v)));
	v = field(th, "density", &isnull);
	if (!isnull)
	{
		density = DatumGetFloat8(v);
		if (spec->kind != JL_KIND_SPARSE)
			refuse("jl_sketch", "density goes with kind 'sparse'",
				   "Leave density out, or kind => 'sparse' (density 1/sqrt(d) when density is left out).");
		spec->kind = jl_kind_sparse(density);
		if (spec->kind == 0)
			refuse("jl_sketch", psprintf("density %g is not between 2^-50 and 1", density),
				   "density => 0.01, say; leave it out for 1/sqrt(d).");
	}

	v = field(th, "k", &isnull);
	if (isnull)
	{
		if (!JL_KIND_IS_IDENTITY(spec->kind))
			refuse("jl_sketch", "k must not be NULL",
				   "Give k (jl_advise suggests one), or kind => 'identity' to release the encoded attributes with noise and no projection.");
		spec->k = 0;
	}
	else
	{
		spec->k = DatumGetInt32(v);
		jl_check_k(spec->k);
	}

	v = required(th, "jl_sketch", "noise");
	spec->noise = jl_parse_noise(cstring_to_text(label(v)));

	v = field(th, "delta", &isnull);
	spec->delta = isnull ? NAN : DatumGetFloat8(v);
	if (!isnull && isnan(spec->delta))
		jl_report_status(JL_ERR_DELTA);	/* NaN would read as "not given" */
	if (spec->noise == JL_NOISE_GAUSSIAN && isnull)
		jl_report_status(JL_ERR_GAUSSIAN_DELTA_REQUIRED);
	if (spec->noise == JL_NOISE_GAUSSIAN && !(spec->delta > 0.0 && spec->delta < 1.0))
		jl_report_status(JL_ERR_DELTA);

	v = field(th, "calibration", &isnull);
	if (isnull)
		spec->calibration = spec->noise == JL_NOISE_GAUSSIAN ? JL_CALIBRATION_ANALYTIC :
			JL_CALIBRATION_EXACT;
	else
		spec->calibration = jl_parse_calibration(cstring_to_text(label(v)), spec->noise);
	/* Laplace's paper calibration takes the paper's delta for row neighbours */
	if (spec->noise == JL_NOISE_LAPLACE && !isnan(spec->delta) &&
		spec->calibration != JL_CALIBRATION_PAPER)
		refuse("jl_sketch", "delta goes with noise 'gaussian'", "Laplace noise gives pure epsilon-DP: leave delta out.");
	if (spec->calibration == JL_CALIBRATION_CLASSIC && !(spec->delta < 0.5))
		jl_report_status(JL_ERR_CLASSIC_DELTA);
}

/* r and delta of Blocki et al.'s releases (covariance, graph) */
static void
read_r_delta(HeapTupleHeader th, const char *who, const char *release, int *r, double *delta)
{
	bool		isnull;
	Datum		v = required(th, who, "r");

	*r = DatumGetInt32(v);
	if (*r < 1 || *r > JL_COV_MAX_R)
		refuse(who, psprintf("r must be between 1 and %d, not %d", JL_COV_MAX_R, *r), NULL);
	v = field(th, "delta", &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: delta must not be NULL", who),
				 errhint("The %s release is (epsilon, delta)-DP with delta > 0; choose delta well below 1/n.", release)));
	*delta = DatumGetFloat8(v);
	if (!(*delta > 0.0 && *delta < 1.0))
		jl_report_status(JL_ERR_DELTA);
}

static void
read_covariance(HeapTupleHeader th, JlCovarianceSpec *spec)
{
	static const char *const others[] = {"k", "kind", "noise", "calibration", "goal", "dist2",
	"dist2_hi", "cluster_var", "force", "density", NULL};
	Datum		v;

	absent(th, "jl_covariance_mechanism", others);
	read_r_delta(th, "jl_covariance_mechanism", "covariance", &spec->r, &spec->delta);
	v = required(th, "jl_covariance_mechanism", "lift");
	spec->auto_lift = strcmp(label(v), "auto") == 0;
	v = required(th, "jl_covariance_mechanism", "method");
	spec->gram = strcmp(label(v), "gram") == 0;
	v = required(th, "jl_covariance_mechanism", "origin");
	spec->origin_zero = strcmp(label(v), "zero") == 0;
}

static void
read_graph(HeapTupleHeader th, JlGraphSpec *spec)
{
	static const char *const others[] = {"k", "kind", "noise", "calibration", "lift", "method",
	"goal", "dist2", "dist2_hi", "cluster_var", "force", "origin", "density", NULL};

	absent(th, "jl_graph", others);
	read_r_delta(th, "jl_graph", "graph", &spec->r, &spec->delta);
}

static void
read_advised(HeapTupleHeader th, JlAdvisedSpec *spec)
{
	static const char *const others[] = {"k", "kind", "calibration", "r", "lift", "method", "origin",
	"density", NULL};
	bool		isnull;
	Datum		v;
	char	   *goal;

	absent(th, "jl_advised", others);
	v = required(th, "jl_advised", "goal");
	goal = label(v);
	spec->goal = jl_advise_parse_goal(goal);
	v = field(th, "dist2", &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("jl_advised: dist2 must not be NULL"),
				 errdetail("The advice depends on the squared distance the sketches must resolve: a typical squared distance between two encoded rows (goal distance), or between the centres of two clusters (goal clustering)."),
				 errhint("Estimate it privately with jl_release_dist2(protected, epsilon), or give the distance of interest.")));
	spec->dist2 = DatumGetFloat8(v);
	v = field(th, "dist2_hi", &isnull);
	spec->dist2_hi = isnull ? spec->dist2 : DatumGetFloat8(v);
	jl_advise_check_goal_distances("jl_advised", spec->goal, spec->dist2, spec->dist2_hi, !isnull);
	if (!(isfinite(spec->dist2) && spec->dist2 > 0.0 && isfinite(spec->dist2_hi) &&
		  spec->dist2_hi >= spec->dist2 && spec->dist2_hi <= 1e300 && spec->dist2 >= 1e-300))
		refuse("jl_advised", "the squared distances must satisfy 1e-300 <= dist2 <= dist2_hi <= 1e300",
			   "dist2 is a typical squared distance between encoded rows, or with dist2_hi the low end of a range.");
	v = field(th, "cluster_var", &isnull);
	if (spec->goal == JL_GOAL_CLUSTERING)
	{
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("jl_advised: goal 'clustering' needs cluster_var"),
					 errhint("cluster_var is the variance of one encoded attribute of a row around its cluster's centre; 0 for points at their centres.")));
		spec->cluster_var = DatumGetFloat8(v);
		if (!(isfinite(spec->cluster_var) && spec->cluster_var >= 0.0 && spec->cluster_var <= 1e300))
			refuse("jl_advised", "cluster_var must be a finite number >= 0", NULL);
	}
	else
	{
		if (!isnull)
			refuse("jl_advised", "cluster_var goes with goal 'clustering'", NULL);
		spec->cluster_var = NAN;
	}
	v = field(th, "noise", &isnull);
	spec->noise_given = !isnull;
	spec->noise = isnull ? JL_NOISE_LAPLACE : jl_parse_noise(cstring_to_text(label(v)));
	v = field(th, "delta", &isnull);
	spec->delta = isnull ? NAN : DatumGetFloat8(v);
	if (!isnull && isnan(spec->delta))
		jl_report_status(JL_ERR_DELTA);	/* NaN would read as "not given" */
	if (!isnull && !(spec->delta > 0.0 && spec->delta < 1.0))
		jl_report_status(JL_ERR_DELTA);
	if (spec->noise_given && spec->noise == JL_NOISE_LAPLACE && !isnull)
		refuse("jl_advised", "delta goes with noise 'gaussian'", "Laplace noise gives pure epsilon-DP: leave delta out, or leave noise out to rank both.");
	if (spec->noise_given && spec->noise == JL_NOISE_GAUSSIAN && isnull)
		jl_report_status(JL_ERR_GAUSSIAN_DELTA_REQUIRED);
	v = required(th, "jl_advised", "force");
	spec->force = DatumGetBool(v);
}

static void
read_kmeans(HeapTupleHeader th, JlKmeansSpec *spec)
{
	static const char *const others[] = {"kind", "noise", "calibration", "lift", "method",
	"goal", "dist2", "dist2_hi", "cluster_var", "force", "origin", "density", NULL};
	bool		isnull;
	Datum		v;

	absent(th, "jl_kmeans_mechanism", others);
	v = required(th, "jl_kmeans_mechanism", "k");
	spec->k = DatumGetInt32(v);
	if (spec->k < 1 || spec->k > JL_DP_KMEANS_MAX_K)
		refuse("jl_kmeans_mechanism", psprintf("k must be between 1 and %d, not %d", JL_DP_KMEANS_MAX_K, spec->k),
			   "k is the number of clusters to release.");
	v = field(th, "delta", &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("jl_kmeans_mechanism: delta must not be NULL"),
				 errdetail("Its iterations add Gaussian noise: the release is (epsilon, delta)-DP with delta > 0."),
				 errhint("delta => 1e-6, say: well below 1/n, and within the table's delta cap.")));
	spec->delta = DatumGetFloat8(v);
	if (!(spec->delta > 0.0 && spec->delta < 1.0))
		jl_report_status(JL_ERR_DELTA);
	/* the iterations ride in r (the composite's fields are the constructors'); NULL: chosen from n */
	v = field(th, "r", &isnull);
	spec->iterations = isnull ? 0 : DatumGetInt32(v);
	if (!isnull && (spec->iterations < 1 || spec->iterations > JL_DP_KMEANS_MAX_ITERATIONS))
		refuse("jl_kmeans_mechanism",
			   psprintf("iterations must be between 1 and %d, not %d", JL_DP_KMEANS_MAX_ITERATIONS, spec->iterations),
			   "Each iteration is released and costs privacy: leave iterations out for Su et al.'s choice from n, k, d and epsilon.");
}

void
jl_mechanism_read(Datum composite, JlMechanismSpec *spec)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(composite);
	bool		isnull;
	Datum		v;
	char	   *name;

	memset(spec, 0, sizeof(*spec));
	check_fields(th);
	v = field(th, "mechanism", &isnull);
	name = isnull ? "(NULL)" : TextDatumGetCString(v);
	if (strcmp(name, "sketch") == 0)
	{
		spec->kind = JL_MECHANISM_SKETCH;
		read_sketch(th, &spec->sketch);
	}
	else if (strcmp(name, "covariance") == 0)
	{
		spec->kind = JL_MECHANISM_COVARIANCE;
		read_covariance(th, &spec->covariance);
	}
	else if (strcmp(name, "graph") == 0)
	{
		spec->kind = JL_MECHANISM_GRAPH;
		read_graph(th, &spec->graph);
	}
	else if (strcmp(name, "advised") == 0)
	{
		spec->kind = JL_MECHANISM_ADVISED;
		read_advised(th, &spec->advised);
	}
	else if (strcmp(name, "kmeans") == 0)
	{
		spec->kind = JL_MECHANISM_KMEANS;
		read_kmeans(th, &spec->kmeans);
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mechanism \"%s\"", name),
				 errhint("Build the mechanism with its constructor: jl_sketch(k => 20), jl_advised(dist2 => 0.5), jl_covariance_mechanism(r => 100, delta => 1e-6), jl_graph(r => 100, delta => 1e-6), or jl_kmeans_mechanism(k => 4, delta => 1e-6).")));
}

