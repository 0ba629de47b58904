/*
 * protected.c - the SQL entry points of the pipeline (pg/pipeline):
 * jl_release, a shard's part of a distributed release and its check,
 * jl_budget_book and jl_release_dist2 of a protected table.  Each reads its
 * arguments and hands them to the one pipeline; nothing of a release's
 * steps is here.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pg/budget/budget.h"
#include "pg/catalog/owner.h"
#include "pg/common/messages.h"
#include "pg/common/options.h"
#include "pg/pipeline/pipeline.h"

#define PROTECTED_ARG 0
#define TARGET_ARG 1
#define EPSILON_ARG 2
#define MECHANISM_ARG 3
#define KEY_ARG 4

static void
read_arguments(FunctionCallInfo fcinfo, JlPipeline *pl)
{
	jl_pipeline_require_read_committed("jl_release");
	pl->decl.relid = jl_regclass_arg(fcinfo, PROTECTED_ARG, "protected");
	pl->target_name = jl_text_arg(fcinfo, TARGET_ARG, "target");
	pl->epsilon = jl_epsilon_arg(fcinfo, EPSILON_ARG);
	jl_require_arg_hint(fcinfo, MECHANISM_ARG, "mechanism", NULL,
						"mechanism => jl_sketch(k => 20), for example.");
	jl_mechanism_read(PG_GETARG_DATUM(MECHANISM_ARG), &pl->spec);
	pl->keyname = jl_text_arg(fcinfo, KEY_ARG, "key");
}

/*
 * jl_release(protected regclass, target text, epsilon float8,
 *            mechanism jl_mechanism, key text, OUT release_id bigint,
 *            OUT released regclass, OUT epsilon_charged float8,
 *            OUT delta_charged float8, OUT noise_variance float8,
 *            OUT guarantee text)
 */
PG_FUNCTION_INFO_V1(jl_release);
Datum
jl_release(PG_FUNCTION_ARGS)
{
	JlPipeline	pl;
	TupleDesc	td;
	Datum		out[6];
	bool		outnull[6] = {false, false, false, false, false, false};
	char	   *g;
	int64		release_id;

	memset(&pl, 0, sizeof(pl));
	pl.nsp = JL_CATALOG_NSP(fcinfo);
	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "jl_release must return a record");
	read_arguments(fcinfo, &pl);
	g = jl_pipeline_run(&pl, jl_pipeline_ops(&pl), &release_id);

	td = BlessTupleDesc(td);
	out[0] = Int64GetDatum(release_id);
	out[1] = ObjectIdGetDatum(pl.target);
	out[2] = Float8GetDatum(pl.epsilon);
	out[3] = Float8GetDatum(pl.delta_charged);
	out[4] = Float8GetDatum(pl.noise_variance);
	outnull[4] = isnan(pl.noise_variance);
	out[5] = CStringGetTextDatum(g);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, out, outnull)));
}

/* jl_release_part's and jl_release_part_check's arguments */
static void
read_part_arguments(FunctionCallInfo fcinfo, JlPipeline *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->nsp = JL_CATALOG_NSP(fcinfo);
	read_arguments(fcinfo, pl);
	pl->part = true;
	pl->part_lower = jl_text_arg_or_null(fcinfo, 5);
	pl->part_upper = jl_text_arg_or_null(fcinfo, 6);
	pl->part_nmembers = -1;
	if (!PG_ARGISNULL(7))
	{
		ArrayType  *a = PG_GETARG_ARRAYTYPE_P(7);
		Datum	   *elems;
		bool	   *nulls;

		if (ARR_NDIM(a) > 1)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("unit_in must be a one-dimensional array")));
		deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &pl->part_nmembers);
		pl->part_members = palloc(sizeof(char *) * Max(pl->part_nmembers, 1));
		for (int i = 0; i < pl->part_nmembers; i++)
		{
			if (nulls[i])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("unit_in must not hold NULLs")));
			pl->part_members[i] = TextDatumGetCString(elems[i]);
		}
	}
	if ((pl->part_nmembers >= 0) == (pl->part_lower != NULL || pl->part_upper != NULL) ||
		pl->part_nmembers == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a part reads a range of units (unit_lower, unit_upper) or a list (unit_in), one of them")));
}

/*
 * jl_release_part(protected regclass, target text, epsilon float8,
 *                 mechanism jl_mechanism, key text, unit_lower text,
 *                 unit_upper text, unit_in text[]) RETURNS bigint: a
 * shard's part of a distributed release (jl_release_distributed runs it
 * on each shard, in a transaction it then prepares): jl_release of the
 * units within the coordinator's partition bounds (a range, either end
 * NULL for unbounded, or a list).  The registry id.
 */
PG_FUNCTION_INFO_V1(jl_release_part);
Datum
jl_release_part(PG_FUNCTION_ARGS)
{
	JlPipeline	pl;
	int64		release_id;

	read_part_arguments(fcinfo, &pl);
	(void) jl_pipeline_run(&pl, jl_pipeline_ops(&pl), &release_id);
	PG_RETURN_INT64(release_id);
}

/*
 * jl_release_part_check(the arguments of jl_release_part) RETURNS void:
 * every refusal jl_release_part would make before reading a row (the
 * arguments, the declaration, the spender, the bounds, the key, the
 * calibration, and the charge: its cap, made in a subtransaction and
 * rolled back), made without charging.  jl_release_distributed asks every
 * shard before the coordinator is charged, in the transaction its part
 * then runs in.
 */
PG_FUNCTION_INFO_V1(jl_release_part_check);
Datum
jl_release_part_check(PG_FUNCTION_ARGS)
{
	JlPipeline	pl;
	const JlMechanismOps *ops;

	read_part_arguments(fcinfo, &pl);
	ops = jl_pipeline_ops(&pl);
	jl_pipeline_prepare(&pl, ops);
	jl_budget_trial_charge_declared(pl.nsp, pl.decl.dataset, pl.decl.relid, pl.decl.unit,
									pl.epsilon, pl.delta_charged,
									pl.profile.kind ? &pl.profile : NULL);
	explicit_bzero(&pl.key, sizeof(pl.key));
	PG_RETURN_VOID();
}

/*
 * jl_budget_book(protected regclass, epsilon float8, delta float8,
 *                note text) RETURNS bigint: the cost of an unbudgeted
 * primitive's release (jl_private_release, its aggregate, jl_project) of
 * a protected table's rows, charged to its ledger at once, as every
 * release is: durable, within the caps, by a role that may spend.  The
 * ledger row's id.  What the primitive then reads is the curator's to
 * keep to the declaration: nothing here sees it.
 */
PG_FUNCTION_INFO_V1(jl_budget_book);
Datum
jl_budget_book(PG_FUNCTION_ARGS)
{
	JlPipeline	pl;
	double		delta;
	char	   *note;

	memset(&pl, 0, sizeof(pl));
	pl.nsp = JL_CATALOG_NSP(fcinfo);
	pl.decl.relid = jl_regclass_arg(fcinfo, 0, "protected");
	pl.epsilon = jl_epsilon_arg(fcinfo, 1);
	delta = jl_float8_arg(fcinfo, 2, "delta");
	if (!(delta >= 0.0 && delta < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must be in [0, 1), not %g", delta),
				 errhint("0 for a pure epsilon release.")));
	note = jl_text_arg_or_null(fcinfo, 3);
	jl_declaration_load(pl.nsp, pl.decl.relid, &pl.decl);
	jl_budget_check_spender(pl.nsp, pl.decl.dataset);
	PG_RETURN_INT64(jl_budget_charge_declared(pl.nsp, pl.decl.dataset, pl.decl.relid,
											  pl.decl.unit, pl.epsilon, delta,
											  note ? psprintf("jl_budget_book: %s", note) :
											  "jl_budget_book",
											  NULL));
}

/*
 * jl_release_dist2(protected regclass, epsilon float8, OUT dist2 float8,
 *                  OUT stddev float8, OUT n bigint, OUT epsilon_holding
 *                  float8, OUT delta float8, OUT neighbor text,
 *                  OUT guarantee text): the dist2 mechanism, a value
 */
PG_FUNCTION_INFO_V1(jl_release_dist2_declared);
Datum
jl_release_dist2_declared(PG_FUNCTION_ARGS)
{
	JlPipeline	pl;
	TupleDesc	td;
	Datum		out[7];
	bool		outnull[7] = {false, false, false, false, false, false, false};
	const JlDist2Value *v;
	char	   *g;
	int64		release_id;

	memset(&pl, 0, sizeof(pl));
	pl.nsp = JL_CATALOG_NSP(fcinfo);
	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "jl_release_dist2 must return a record");
	jl_pipeline_require_read_committed("jl_release_dist2");
	pl.decl.relid = jl_regclass_arg(fcinfo, 0, "protected");
	pl.epsilon = jl_epsilon_arg(fcinfo, 1);
	g = jl_pipeline_run(&pl, &jl_dist2_ops, &release_id);
	v = jl_dist2_value(&pl);

	td = BlessTupleDesc(td);
	out[0] = Float8GetDatum(v->dist2);
	out[1] = Float8GetDatum(v->stddev);
	outnull[0] = outnull[1] = v->n < 2;
	out[2] = Int64GetDatum(v->n);
	out[3] = Float8GetDatum(v->epsilon);
	out[4] = Float8GetDatum(0.0);
	out[5] = CStringGetTextDatum(pl.decl.row ? "row" : "attribute");
	out[6] = CStringGetTextDatum(g);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, out, outnull)));
}
