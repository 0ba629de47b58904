/*
 * table_release.c - jl_release_table: a whole table (or the rows of a
 * relation) released into a new private table (id, sketch) in one call,
 * with clipping, a budget charge and a registry record.
 *
 * The steps: read the arguments (clipping sets the bound), build the query
 * of (id, vector) from the catalog, charge the budget, create the target,
 * release the rows into it (table_releaser.c), record the release
 * (registry.c).  All of it happens in the caller's transaction: a failure
 * or a cancel leaves no target, no charge and no registry row behind.
 *
 * kind 'auto' lets the advisor (pg/advise.c) choose the kind, k and noise
 * before anything is charged, from public inputs only: d (the named
 * columns, or the length of the first row's vector: schema, not data),
 * epsilon, the neighbour notion, the bound, delta, and the squared distance
 * of interest (given, or a default from the bound and d).  No value of the
 * data is read before the choice, so the choice leaks nothing.
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"

#include "math/calibrate.h"
#include "math/gaussian.h"
#include "math/laplace.h"

#include "pg/advise.h"
#include "pg/arrays.h"
#include "pg/budget.h"
#include "pg/calibration_json.h"
#include "pg/keystore.h"
#include "pg/options.h"
#include "pg/projection_cache.h"
#include "pg/registry.h"
#include "pg/release_names.h"
#include "pg/source_relation.h"
#include "pg/suggest_k.h"
#include "pg/table_releaser.h"
#include "pg/messages.h"

PG_FUNCTION_INFO_V1(jl_release_table);

/* argument numbers */
#define SOURCE_ARG 0
#define ID_COLUMN_ARG 1
#define VECTOR_ARG 2
#define TARGET_ARG 3
#define K_ARG 4
#define EPSILON_ARG 5
#define NEIGHBOR_ARG 6
#define BOUND_ARG 7
#define CALIBRATION_ARG 8
#define DELTA_ARG 9
#define KEY_ARG 10
#define DATASET_ARG 11
#define CLIP_LO_ARG 12
#define CLIP_HI_ARG 13
#define CLIP_NORM_ARG 14
#define KIND_ARG 15
#define NOISE_ARG 16
#define DIST2_ARG 17
#define DIST2_HI_ARG 18
#define GOAL_ARG 19				/* then cluster_var and n */
#define ADVISE_LAST_ARG 21

/* one call of jl_release_table, step by step */
typedef struct TableRelease
{
	Oid			nsp;			/* the extension's schema */
	Oid			source;
	char	   *source_q;		/* qualified, quoted */
	Oid			base;			/* the relation it reads, whose dataset pays */
	AttrNumber	base_id_att;	/* the id column there, or InvalidAttrNumber */
	char	   *target_name;	/* as given */
	char	   *keyname;
	char	   *dataset;		/* NULL until chosen */
	bool		dataset_given;
	ArrayType  *vec_arr;
	JlRowRelease rows;			/* key, kind, k, d, options, clipping, id */
	JlKey		key;
	StringInfoData sql;			/* SELECT id, vector FROM source */
	StringInfoData vec_desc;	/* the vector's column(s) */
	Oid			target_nsp;
	char	   *target_rel;
	char	   *target_q;		/* qualified, quoted */
	Oid			target;
	int64		ledger_id;
	bool		noise_given;
	bool		advised;		/* kind 'auto': chosen by the advisor */
	const char *dist2_from;		/* where the advisor's dist2 came from */
	JlAdviseArgs advice;
	JlAdviseChoice choice;
} TableRelease;

static char *
required_text(FunctionCallInfo fcinfo, int n, const char *what)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", what)));
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

/* kind 'auto': the advisor chooses k and the calibration */
static void
read_auto_arguments(FunctionCallInfo fcinfo, TableRelease *tr)
{
	/* 0.1.0's SQL function has no advisor's arguments */
	if (PG_NARGS() <= ADVISE_LAST_ARG)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("kind 'auto' needs the jl_release_table of jldp 0.2.0"),
				 errhint("ALTER EXTENSION jldp UPDATE.")));
	if (!PG_ARGISNULL(K_ARG))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("kind 'auto' chooses k: leave k out"),
				 errhint("Give a kind ('identity', 'rademacher', ...) to release at a k of your own.")));
	if (!PG_ARGISNULL(CALIBRATION_ARG))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("kind 'auto' releases with the calibration jl_advise ranks: leave calibration out"),
				 errhint("Laplace noise is calibrated 'exact', Gaussian noise 'analytic'.")));
}

/* a kind of its own: k is required, the advisor's arguments are refused */
static void
read_fixed_arguments(FunctionCallInfo fcinfo, TableRelease *tr)
{
	int			i;

	if (PG_ARGISNULL(K_ARG))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("k must not be NULL"),
				 errhint("Give k, or kind => 'auto' to let jl_advise choose the kind and k.")));
	tr->rows.k = PG_GETARG_INT32(K_ARG);
	jl_check_k(tr->rows.k);
	for (i = DIST2_ARG; i < PG_NARGS(); i++)
		if (!PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dist2, dist2_hi, goal, cluster_var and n go with kind 'auto'")));
	tr->rows.kind = jl_parse_kind(PG_GETARG_TEXT_PP(KIND_ARG));
}

/* The arguments other than clipping and bound. */
static void
read_arguments(FunctionCallInfo fcinfo, TableRelease *tr)
{
	JlMechanism *m = &tr->rows.m;

	if (PG_ARGISNULL(SOURCE_ARG))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("source must not be NULL")));
	tr->source = PG_GETARG_OID(SOURCE_ARG);
	tr->rows.id_col = required_text(fcinfo, ID_COLUMN_ARG, "id_column");
	if (PG_ARGISNULL(VECTOR_ARG))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("vector must not be NULL")));
	tr->vec_arr = PG_GETARG_ARRAYTYPE_P(VECTOR_ARG);
	tr->target_name = required_text(fcinfo, TARGET_ARG, "target");
	if (PG_ARGISNULL(EPSILON_ARG))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("epsilon must not be NULL")));
	m->epsilon = PG_GETARG_FLOAT8(EPSILON_ARG);
	if (PG_ARGISNULL(NEIGHBOR_ARG) || PG_ARGISNULL(KEY_ARG) || PG_ARGISNULL(KIND_ARG))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("neighbor, key and kind must not be NULL")));
	/* noise NULL: Laplace, or for kind 'auto' the advisor's choice */
	tr->noise_given = !PG_ARGISNULL(NOISE_ARG);
	m->noise = tr->noise_given ? jl_parse_noise(PG_GETARG_TEXT_PP(NOISE_ARG)) :
		JL_NOISE_LAPLACE;
	m->neighbor = jl_parse_neighbor(PG_GETARG_TEXT_PP(NEIGHBOR_ARG));
	jl_read_calibration(fcinfo, CALIBRATION_ARG, DELTA_ARG, m->noise,
						&m->calibration, &m->delta);
	tr->keyname = text_to_cstring(PG_GETARG_TEXT_PP(KEY_ARG));
	tr->dataset = PG_ARGISNULL(DATASET_ARG) ? NULL :
		text_to_cstring(PG_GETARG_TEXT_PP(DATASET_ARG));
	tr->advised = strcmp(text_to_cstring(PG_GETARG_TEXT_PP(KIND_ARG)), "auto") == 0;
	if (tr->advised)
		read_auto_arguments(fcinfo, tr);
	else
		read_fixed_arguments(fcinfo, tr);
}

/* clip_lo and clip_hi: elements clamped, for element neighbours */
static void
read_element_clipping(FunctionCallInfo fcinfo, JlNeighbor neighbor, JlClip *clip)
{
	if (PG_ARGISNULL(CLIP_LO_ARG) || PG_ARGISNULL(CLIP_HI_ARG))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("clip_lo and clip_hi go together")));
	clip->lo = PG_GETARG_FLOAT8(CLIP_LO_ARG);
	clip->hi = PG_GETARG_FLOAT8(CLIP_HI_ARG);
	if (!(isfinite(clip->lo) && isfinite(clip->hi) && clip->lo < clip->hi))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("clip_lo and clip_hi must be finite with clip_lo < clip_hi")));
	if (fabs(clip->lo) > JL_MAX_BOUND || fabs(clip->hi) > JL_MAX_BOUND)
		jl_report_status(JL_ERR_BOUND_RANGE);
	if (neighbor != JL_NEIGHBOR_ELEMENT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("element clipping (clip_lo, clip_hi) goes with neighbor 'element'"),
				 errhint("For row neighbours clip the norm with clip_norm.")));
	clip->kind = JL_CLIP_ELEMENT;
}

/* clip_norm: rows scaled, for row neighbours */
static void
read_norm_clipping(FunctionCallInfo fcinfo, JlNeighbor neighbor, JlClip *clip)
{
	if (clip->kind != JL_CLIP_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("use either clip_lo/clip_hi or clip_norm, not both")));
	clip->c = PG_GETARG_FLOAT8(CLIP_NORM_ARG);
	if (!(isfinite(clip->c) && clip->c > 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("clip_norm must be a finite number greater than 0")));
	if (neighbor != JL_NEIGHBOR_ROW)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("norm clipping (clip_norm) goes with neighbor 'row'"),
				 errhint("For element neighbours clamp with clip_lo and clip_hi.")));
	clip->kind = JL_CLIP_NORM;
}

/*
 * Clipping makes the bound true; without it the bound is assumed.  A bound
 * given beside clipping may only be larger than the one clipping implies.
 */
static void
read_clipping(FunctionCallInfo fcinfo, TableRelease *tr)
{
	JlClip	   *clip = &tr->rows.clip;
	JlMechanism *m = &tr->rows.m;

	clip->kind = JL_CLIP_NONE;
	clip->lo = clip->hi = clip->c = NAN;
	if (!PG_ARGISNULL(CLIP_LO_ARG) || !PG_ARGISNULL(CLIP_HI_ARG))
		read_element_clipping(fcinfo, m->neighbor, clip);
	if (!PG_ARGISNULL(CLIP_NORM_ARG))
		read_norm_clipping(fcinfo, m->neighbor, clip);
	if (clip->kind == JL_CLIP_ELEMENT)
		m->bound = clip->hi - clip->lo;
	else if (clip->kind == JL_CLIP_NORM)
		m->bound = 2.0 * clip->c;	/* replace one row by any other */
	else
		m->bound = 1.0;
	if (!PG_ARGISNULL(BOUND_ARG))
	{
		double		given = PG_GETARG_FLOAT8(BOUND_ARG);

		if (clip->kind != JL_CLIP_NONE && given < m->bound)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bound %g is smaller than the %g that the clipping implies",
							given, m->bound),
					 errhint("Leave bound out: clipping sets it.")));
		m->bound = given;
	}
	/* before the charge: a scale no calibration can serve */
	jl_require_scales(m->epsilon, m->bound);
}

/* One column as the vector: a float8[] as it is, a number as ARRAY[x]. */
static void
append_vector_column(TableRelease *tr, const char *c)
{
	Oid			t;

	jl_column_of(tr->source, c, &t);
	if (t == FLOAT8ARRAYOID)
		appendStringInfoString(&tr->sql, quote_identifier(c));
	else if (jl_numeric_type(t))
		appendStringInfo(&tr->sql, "ARRAY[%s::pg_catalog.float8]", quote_identifier(c));
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" must be float8[] or numeric", jl_msg_str(c))));
	appendStringInfoString(&tr->vec_desc, c);
}

/* Several numeric columns as the elements of the vector: d is known. */
static void
append_vector_columns(TableRelease *tr, Datum *names, int n)
{
	int			i;

	appendStringInfoString(&tr->sql, "ARRAY[");
	for (i = 0; i < n; i++)
	{
		char	   *c = TextDatumGetCString(names[i]);
		Oid			t;

		jl_column_of(tr->source, c, &t);
		if (!jl_numeric_type(t))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" must be numeric to be a vector element", jl_msg_str(c))));
		appendStringInfo(&tr->sql, "%s%s::pg_catalog.float8", i ? ", " : "", quote_identifier(c));
		appendStringInfo(&tr->vec_desc, "%s%s", i ? ", " : "", c);
	}
	appendStringInfoString(&tr->sql, "]");
	tr->rows.d = n;
}

/*
 * Each row is released as one privacy unit: the id column must be a
 * column of the base relation that the schema makes unique (a primary key,
 * or a unique constraint or index on it, NOT NULL).  A source that could
 * repeat a unit's row (a join, a view repeating rows) is refused before
 * (jl_source_base_relation); uniqueness is read from the schema, never
 * from the data, so a refusal tells nothing about the rows.
 */
static void
check_one_row_per_unit(TableRelease *tr)
{
	if (tr->base_id_att == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("id column \"%s\" of %s is an expression, not a column of %s",
						jl_msg_str(tr->rows.id_col), jl_msg_str(get_rel_name(tr->source)),
						jl_msg_str(get_rel_name(tr->base))),
				 errhint("Release by a column that the schema makes unique.")));
	if (!jl_column_unique(tr->base, tr->base_id_att))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("id column \"%s\" of %s is not unique by a constraint",
						jl_msg_str(get_attname(tr->base, tr->base_id_att, false)),
						jl_msg_str(get_rel_name(tr->base))),
				 errdetail("A release charges once for each row, as one privacy unit; only a primary key, or a unique constraint or index on a NOT NULL column, promises one row per unit."),
				 errhint("Add a primary key on it, or release long-format rows with jl_release_long, which groups by the unit itself.")));
}

/*
 * SELECT id, vector FROM source: the columns checked against the catalog,
 * every name quoted.
 */
static void
build_source_query(TableRelease *tr)
{
	Datum	   *names;
	int			n;

	if (get_rel_relkind(tr->source) == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", tr->source)));
	/* locked until the transaction ends: what is checked is what is read */
	jl_source_lock(tr->source);
	tr->source_q = quote_qualified_identifier(get_namespace_name(get_rel_namespace(tr->source)),
											  get_rel_name(tr->source));
	jl_column_of(tr->source, tr->rows.id_col, &tr->rows.id_type);
	if (ARR_NDIM(tr->vec_arr) != 1 || array_contains_nulls(tr->vec_arr))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("vector must be a non-empty list of column names")));
	deconstruct_array(tr->vec_arr, TEXTOID, -1, false, TYPALIGN_INT, &names, NULL, &n);
	initStringInfo(&tr->sql);
	initStringInfo(&tr->vec_desc);
	appendStringInfo(&tr->sql, "SELECT %s, ", quote_identifier(tr->rows.id_col));
	tr->rows.d = -1;			/* known from the first row */
	if (n == 1)
		append_vector_column(tr, TextDatumGetCString(names[0]));
	else
		append_vector_columns(tr, names, n);
	appendStringInfo(&tr->sql, " FROM %s", tr->source_q);
	tr->base = jl_source_base_relation(tr->source, tr->rows.id_col, &tr->base_id_att);
	check_one_row_per_unit(tr);
}

/* The schema and name the target is created with, and the name quoted. */
static void
resolve_target(TableRelease *tr)
{
	jl_resolve_target(tr->target_name, &tr->target_nsp, &tr->target_rel, &tr->target_q);
}

/*
 * The length of the first row's vector, for a single array column: the
 * schema's width, read without any value.  An empty source has none.
 */
static int
first_vector_length(TableRelease *tr)
{
	int			d = -1;
	bool		isnull;

	SPI_connect();
	if (SPI_execute(psprintf("SELECT pg_catalog.array_length(v, 1) FROM (%s) AS s (id, v) LIMIT 1",
							 tr->sql.data), true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the vector length of %s", tr->source_q);
	if (SPI_processed == 1)
	{
		Datum		v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			d = DatumGetInt32(v);
	}
	SPI_finish();
	if (d < 1)
		ereport(ERROR,
				(errcode(ERRCODE_NO_DATA),
				 errmsg("kind 'auto' needs the vector length, and the source has no first row with a vector"),
				 errhint("Name the vector's columns, or release a non-empty table.")));
	return d;
}

/*
 * dist2 for the advisor: given, or the mean squared distance of two rows
 * drawn independently and uniformly within the bound: d bound^2 / 6 for
 * element neighbours (each element uniform on an interval of width bound),
 * bound^2 / 2 for row neighbours (two rows of norm bound / 2 in independent
 * directions).  Neither looks at the data.
 */
static void
advice_distances(FunctionCallInfo fcinfo, TableRelease *tr)
{
	JlAdviseProblem *p = &tr->advice.p;
	double		b = tr->rows.m.bound;

	if (!PG_ARGISNULL(DIST2_ARG))
	{
		p->lo = PG_GETARG_FLOAT8(DIST2_ARG);
		tr->dist2_from = "given";
	}
	else if (!PG_ARGISNULL(DIST2_HI_ARG))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dist2_hi goes with dist2")));
	else if (tr->rows.m.neighbor == JL_NEIGHBOR_ELEMENT)
	{
		p->lo = (double) tr->rows.d * b * b / 6.0;
		tr->dist2_from = "default: d bound^2 / 6";
	}
	else
	{
		p->lo = b * b / 2.0;
		tr->dist2_from = "default: bound^2 / 2";
	}
	p->hi = PG_ARGISNULL(DIST2_HI_ARG) ? p->lo : PG_GETARG_FLOAT8(DIST2_HI_ARG);
}

/*
 * kind 'auto': rank the options as jl_advise does for the same public
 * inputs and release with the first (kind, k, noise and its calibration).
 */
static void
advise_release(FunctionCallInfo fcinfo, TableRelease *tr)
{
	JlAdviseArgs *a = &tr->advice;
	JlMechanism *m = &tr->rows.m;
	const JlAdviseOption *best = &tr->choice.best;

	if (tr->rows.d < 0)
		tr->rows.d = first_vector_length(tr);
	a->p.d = tr->rows.d;
	a->epsilon = m->epsilon;
	a->bound = m->bound;
	a->delta = m->delta;
	a->neighbor = m->neighbor;
	if (!(isfinite(a->bound) && a->bound > 0.0))
		jl_report_status(JL_ERR_BOUND);
	if (!isnan(a->delta) && !(a->delta > 0.0 && a->delta < 1.0))
		jl_report_status(JL_ERR_DELTA);
	jl_advise_allow_noises(a, tr->noise_given, m->noise);
	advice_distances(fcinfo, tr);
	jl_check_choice_args(tr->rows.d, a->epsilon, a->p.lo, a->p.hi);
	jl_advise_read_goal(fcinfo, GOAL_ARG, &a->p);
	a->kmax = Min(tr->rows.d, jl_largest_k(tr->rows.d, a->neighbor));
	jl_advise_choose(a, tr->key.secret, &tr->choice);

	tr->rows.kind = best->kind;
	tr->rows.k = best->k;
	m->noise = best->noise;
	m->calibration = best->noise == JL_NOISE_GAUSSIAN ? JL_CALIBRATION_ANALYTIC :
		JL_CALIBRATION_EXACT;
	m->delta = best->noise == JL_NOISE_GAUSSIAN ? a->delta : NAN;
}

/*
 * Charge (epsilon, delta) before any output exists: a refused release
 * writes nothing.  The charge depends only on epsilon and delta, so it
 * precedes the calibration, which may need the first row for d.
 */
static void
charge_budget(TableRelease *tr)
{
	const JlMechanism *m = &tr->rows.m;

	/*
	 * Without a dataset: the one declared for the relation the source reads,
	 * else a dataset named after that relation (tracked, without a cap,
	 * until one is set).  A dataset given must be bound to that relation.
	 */
	bool		declare = false;

	if (tr->dataset == NULL)
		tr->dataset = jl_budget_dataset_for(tr->nsp, tr->base);
	tr->dataset_given = (tr->dataset != NULL);
	if (tr->dataset == NULL)
	{
		tr->dataset = quote_qualified_identifier(get_namespace_name(get_rel_namespace(tr->base)),
												 get_rel_name(tr->base));
		declare = true;
	}

	/*
	 * A Laplace release that is accepted is pure epsilon-DP: delta 0.  A
	 * Gaussian one is charged the requested delta (what holds is at most
	 * that); a missing or bad delta is refused before anything is charged.
	 */
	if (m->noise == JL_NOISE_GAUSSIAN)
	{
		if (isnan(m->delta))
			jl_report_status(JL_ERR_GAUSSIAN_DELTA_REQUIRED);
		if (!(m->delta > 0.0 && m->delta < 1.0))
			jl_report_status(JL_ERR_DELTA);
	}
	tr->ledger_id = jl_budget_charge(tr->nsp, tr->dataset, tr->base, declare,
									 get_attname(tr->base, tr->base_id_att, false),
									 m->epsilon, m->noise == JL_NOISE_GAUSSIAN ? m->delta : 0.0,
									 psprintf("jl_release_table into %s", tr->target_name));
}

/*
 * CREATE TABLE target (id, sketch float8[]), owned by the caller; every type
 * schema-qualified, so the caller's search_path cannot substitute its own.
 */
static void
create_target(TableRelease *tr)
{
	if (SPI_execute(psprintf("CREATE TABLE %s (id %s, sketch pg_catalog.float8[])", tr->target_q,
							 format_type_extended(tr->rows.id_type, -1,
												  FORMAT_TYPE_FORCE_QUALIFY)),
					false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create the target table");
	tr->target = get_relname_relid(tr->target_rel, tr->target_nsp);
	if (!OidIsValid(tr->target))
		elog(ERROR, "created table %s not found", tr->target_q);
}

/* Nothing read: calibrate for the record with the declared columns. */
/*
 * Before the charge, everything the calibration could refuse.  With d known
 * (named columns, or kind 'auto'): the calibration itself, on the realized
 * P that the release then uses (cached).  With d known only from the rows
 * (one float8[] column): the refusals that do not depend on P, from a probe
 * P whose statistics are all 1 (the options, delta, the paper's conditions,
 * and an epsilon too small for the sampler, the last with a factor 2 to
 * spare: the scale in grid steps is set by epsilon and k, and by P only
 * through the rounding of the grid to a power of two).  What depends on the
 * realized P of the rows' d (a sparse P of all zeros, the paper's bound on
 * k, a calibration that does not cover it) is refused after the charge.
 */
static void
calibrate_before_charge(TableRelease *tr)
{
	JlMechanism m = tr->rows.m;
	JlProjStats probe;
	JlStatus	st;

	if (tr->rows.d >= 0)
	{
		jl_calibrate_on(&m, jl_projection_get(tr->key.secret, tr->rows.kind,
											  tr->rows.k, tr->rows.d));
		jl_refuse_invalid(&m);
		return;
	}
	memset(&probe, 0, sizeof(probe));
	probe.d = tr->rows.k;
	probe.k = tr->rows.k;
	probe.max_abs = probe.max_row_l1 = probe.max_row_l2 = 1.0;
	probe.row_l1 = probe.spectral_norm = 1.0;
	st = jl_calibrate_to(&m, &probe);
	switch (st)
	{
		case JL_OK:
			if ((m.noise == JL_NOISE_GAUSSIAN ? (double) JL_GAUSSIAN_MAX_S : (double) JL_LAPLACE_MAX_T) <
				2.0 * (double) m.t)
				jl_report_status(JL_ERR_SCALE);
			break;
		case JL_ERR_ZERO_PROJECTION:
		case JL_ERR_GRID:
		case JL_ERR_PAPER_K:
		case JL_ERR_STATS:
			break;				/* a property of the realized P */
		default:
			jl_report_status(st);
	}
}

static void
calibrate_without_rows(TableRelease *tr)
{
	if (tr->rows.d < 0)
		ereport(ERROR,
				(errcode(ERRCODE_NO_DATA),
				 errmsg("source has no rows, so the vector length is unknown"),
				 errhint("Name the vector's columns, or release a non-empty table.")));
	jl_calibrate_on(&tr->rows.m, jl_projection_get(tr->key.secret, tr->rows.kind,
												   tr->rows.k, tr->rows.d));
}

static void
option_json(StringInfo b, const JlAdviseOption *o)
{
	appendStringInfo(b, "{\"kind\": \"%s\", \"k\": %d, \"noise\": \"%s\"",
					 jl_kind_name(o->kind), o->k, jl_noise_name(o->noise));
	jl_json_num(b, "predicted_error", o->predicted_error);
	jl_json_num(b, "relative_error", o->relative);
	appendStringInfoChar(b, '}');
}

/* kind 'auto': what the advisor was asked and what it ranked first and second */
static void
advice_json(StringInfo b, const TableRelease *tr)
{
	const JlAdviseArgs *a = &tr->advice;

	appendStringInfo(b, ", \"chosen_by\": \"jl_advise\", \"advice\": {\"goal\": \"%s\"",
					 jl_advise_goal_name(a->p.goal));
	jl_json_num(b, "dist2", a->p.lo);
	jl_json_num(b, "dist2_hi", a->p.hi);
	appendStringInfo(b, ", \"dist2_from\": \"%s\"", tr->dist2_from);
	if (a->p.goal == JL_GOAL_CLUSTERING)
	{
		jl_json_num(b, "cluster_var", a->p.cluster_var);
		jl_json_num(b, "n", a->p.n);
	}
	appendStringInfo(b, ", \"noises\": \"%s\", \"chosen\": ",
					 a->noise[JL_NOISE_LAPLACE] && a->noise[JL_NOISE_GAUSSIAN] ?
					 "laplace, gaussian" : jl_noise_name(tr->rows.m.noise));
	option_json(b, &tr->choice.best);
	appendStringInfoString(b, ", \"runner_up\": ");
	if (tr->choice.has_runner_up)
		option_json(b, &tr->choice.runner_up);
	else
		appendStringInfoString(b, "null");
	appendStringInfoChar(b, '}');
}

/* The registry record: the calibration as jl_release_info reports it, and more. */
static int64
record_release(TableRelease *tr, int64 nrows)
{
	const JlClip *clip = &tr->rows.clip;
	StringInfoData clipping,
				info;
	JlRegistryRecord rec;

	initStringInfo(&clipping);
	if (clip->kind == JL_CLIP_ELEMENT)
		appendStringInfo(&clipping, "elements clamped to [%.17g, %.17g]", clip->lo, clip->hi);
	else if (clip->kind == JL_CLIP_NORM)
		appendStringInfo(&clipping, "rows scaled to L2 norm <= %.17g", clip->c);
	else
		appendStringInfoString(&clipping, "none: the bound is assumed, not enforced");

	initStringInfo(&info);
	jl_calibration_json(&info, JL_MECHANISM_PROJECTION, &tr->rows.m,
						jl_kind_resolve(tr->rows.kind, tr->rows.d), tr->key.fingerprint);
	appendStringInfo(&info, ", \"rows\": %lld", (long long) nrows);
	if (tr->advised)
		advice_json(&info, tr);
	appendStringInfoChar(&info, '}');

	rec.source = tr->source_q;
	rec.target = tr->target;
	rec.id_column = tr->rows.id_col;
	rec.vector = tr->vec_desc.data;
	rec.clipping = clipping.data;
	rec.key_fingerprint = tr->key.fingerprint;
	rec.info = info.data;
	rec.ledger_id = tr->ledger_id;
	rec.dataset = tr->dataset;
	return jl_registry_write(tr->nsp, &rec);
}

/*
 * jl_release_table(source regclass, id_column text, vector text[],
 *                  target text, k int, epsilon float8, neighbor text,
 *                  bound float8, calibration text, delta float8, key text,
 *                  dataset text, clip_lo float8, clip_hi float8,
 *                  clip_norm float8, kind text, noise text, dist2 float8,
 *                  dist2_hi float8, goal text, cluster_var float8, n bigint)
 *                  RETURNS bigint (the registry id)
 */
Datum
jl_release_table(PG_FUNCTION_ARGS)
{
	TableRelease tr;
	int64		nrows;
	int64		release_id;

	memset(&tr, 0, sizeof(tr));
	tr.nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	read_arguments(fcinfo, &tr);
	read_clipping(fcinfo, &tr);
	build_source_query(&tr);
	if (tr.rows.d >= 0 && !tr.advised)	/* columns named: refuse before any charge */
		jl_check_identity_k(tr.rows.kind, tr.rows.k, tr.rows.d, "the number of vector columns");
	jl_key_lookup(tr.nsp, tr.keyname, &tr.key);
	tr.rows.key = &tr.key;
	if (tr.advised)				/* before the charge: it depends on the noise */
		advise_release(fcinfo, &tr);
	resolve_target(&tr);
	jl_check_target_creatable(tr.target_nsp, tr.target_rel);
	calibrate_before_charge(&tr);
	charge_budget(&tr);

	SPI_connect();
	create_target(&tr);
	nrows = jl_release_rows(&tr.rows, tr.sql.data, tr.target);
	if (nrows == 0)
		calibrate_without_rows(&tr);
	release_id = record_release(&tr, nrows);
	SPI_finish();
	explicit_bzero(&tr.key, sizeof(tr.key));
	PG_RETURN_INT64(release_id);
}
