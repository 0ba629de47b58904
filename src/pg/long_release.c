/*
 * long_release.c - jl_release_long: long-format rows (unit, attribute,
 * value) of a relation released into a new table (id, sketch), one sketch
 * per privacy unit, with a budget charge and a registry record.
 *
 * The budgeted counterpart of jl_private_release_agg.  The aggregate runs
 * over any query and cannot see a unit repeated by it (a cross join, a
 * view repeating rows), so only a dataset's owner reserves for it; this
 * function runs the grouping itself, GROUP BY the unit column of a base
 * relation or a simple view of one (jl_source_base_relation), so each unit
 * contributes exactly one group under one charge (docs/threat_model.md,
 * attack 10).  The charge is a reservation committed by the charge's
 * worker before anything is read (charge_worker.c), held for this
 * release's own query only.
 */
#include "postgres.h"

#include "fmgr.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"

#include "math/mechanism.h"

#include "pg/budget.h"
#include "pg/keystore.h"
#include "pg/messages.h"
#include "pg/options.h"
#include "pg/owner.h"
#include "pg/registry.h"
#include "pg/reservation.h"
#include "pg/source_relation.h"

PG_FUNCTION_INFO_V1(jl_release_long);

/* argument numbers */
enum
{
	SOURCE_ARG, UNIT_ARG, ATTR_ARG, VALUE_ARG, D_ARG, TARGET_ARG, K_ARG,
	EPSILON_ARG, NEIGHBOR_ARG, BOUND_ARG, CALIBRATION_ARG, DELTA_ARG,
	KEY_ARG, DATASET_ARG, KIND_ARG, NOISE_ARG, NARGS
};

static char *
text_arg(FunctionCallInfo fcinfo, int n, const char *what)
{
	jl_require_arg(fcinfo, n, what);
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

/* a column of source by name, of one of the accepted types */
static AttrNumber
source_column(Oid source, const char *name, bool integer, Oid *type)
{
	AttrNumber	att = get_attnum(source, name);
	Oid			t;

	if (att == InvalidAttrNumber || att < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation %s does not exist",
						jl_msg_str(name), jl_msg_str(get_rel_name(source)))));
	t = get_atttype(source, att);
	if (integer ? !(t == INT2OID || t == INT4OID || t == INT8OID) :
		!(t == FLOAT8OID || t == FLOAT4OID || t == INT2OID || t == INT4OID ||
		  t == INT8OID || t == NUMERICOID))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" must be %s", jl_msg_str(name),
						integer ? "an integer (the attribute, 1..d)" : "numeric (the value)")));
	if (type)
		*type = t;
	return att;
}

/*
 * The release's description as jl_release_info gives it, called by OID
 * (the function's privileges are for direct calls; this release already
 * holds the key).
 */
static char *
release_info(Oid nsp, FunctionCallInfo fcinfo, int64 groups)
{
	Oid			argtypes[10] = {INT4OID, INT4OID, FLOAT8OID, TEXTOID, FLOAT8OID,
	TEXTOID, FLOAT8OID, TEXTOID, TEXTOID, TEXTOID};
	List	   *name = list_make2(makeString(get_namespace_name(nsp)),
								  makeString("jl_release_info"));
	Oid			fn = LookupFuncName(name, 10, argtypes, false);
	LOCAL_FCINFO(call, 10);
	FmgrInfo	flinfo;
	static const int from[10] = {D_ARG, K_ARG, EPSILON_ARG, NEIGHBOR_ARG, BOUND_ARG,
	CALIBRATION_ARG, DELTA_ARG, KEY_ARG, KIND_ARG, NOISE_ARG};
	Datum		info;
	char	   *s;
	int			i;

	fmgr_info(fn, &flinfo);
	InitFunctionCallInfoData(*call, &flinfo, 10, InvalidOid, NULL, NULL);
	for (i = 0; i < 10; i++)
	{
		call->args[i].value = PG_GETARG_DATUM(from[i]);
		call->args[i].isnull = PG_ARGISNULL(from[i]);
	}
	info = FunctionCallInvoke(call);
	if (call->isnull)
		elog(ERROR, "jl_release_info returned NULL");
	s = DatumGetCString(DirectFunctionCall1(jsonb_out, info));
	/* {...} with the number of groups released */
	s[strlen(s) - 1] = '\0';
	return psprintf("%s, \"rows\": " INT64_FORMAT ", \"format\": \"long\"}", s, groups);
}

/*
 * jl_release_long(source regclass, unit_column text, attr_column text,
 *                 value_column text, d int, target text, k int,
 *                 epsilon float8, neighbor text, bound float8,
 *                 calibration text, delta float8, key text, dataset text,
 *                 kind text, noise text) RETURNS bigint (the registry id)
 */
Datum
jl_release_long(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	Oid			source,
				base,
				unit_type;
	AttrNumber	unit_att;
	char	   *unit_col,
			   *attr_col,
			   *value_col,
			   *target_name,
			   *target_q,
			   *source_q,
			   *dataset,
			   *unit;
	RangeVar   *rv;
	Oid			target_nsp,
				target;
	JlChargeRequest req;
	JlKey		key;
	JlNoise		noise;
	double		delta;
	int64		ledger_id,
				prev_own,
				groups,
				release_id;
	JlRegistryRecord rec;
	static const Oid types[NARGS] = {REGCLASSOID, TEXTOID, TEXTOID, TEXTOID, INT4OID,
		TEXTOID, INT4OID, FLOAT8OID, TEXTOID, FLOAT8OID, TEXTOID, FLOAT8OID, TEXTOID,
	TEXTOID, TEXTOID, TEXTOID};
	Datum		values[NARGS];
	char		nulls[NARGS];
	int			i;

	jl_require_arg(fcinfo, SOURCE_ARG, "source");
	source = PG_GETARG_OID(SOURCE_ARG);
	if (get_rel_relkind(source) == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", source)));
	/* locked until the transaction ends: what is checked is what is read */
	jl_source_lock(source);
	unit_col = text_arg(fcinfo, UNIT_ARG, "unit_column");
	attr_col = text_arg(fcinfo, ATTR_ARG, "attr_column");
	value_col = text_arg(fcinfo, VALUE_ARG, "value_column");
	target_name = text_arg(fcinfo, TARGET_ARG, "target");
	for (i = D_ARG; i <= EPSILON_ARG; i++)
		if (i != TARGET_ARG)
			jl_require_arg(fcinfo, i, i == D_ARG ? "d" : i == K_ARG ? "k" : "epsilon");
	jl_require_arg(fcinfo, NEIGHBOR_ARG, "neighbor");
	jl_require_arg(fcinfo, KEY_ARG, "key");
	jl_require_arg(fcinfo, KIND_ARG, "kind");
	jl_require_arg(fcinfo, NOISE_ARG, "noise");

	/* one group per unit of the base relation, by a column of it */
	(void) source_column(source, unit_col, false, NULL);
	unit_type = get_atttype(source, get_attnum(source, unit_col));
	(void) source_column(source, attr_col, true, NULL);
	(void) source_column(source, value_col, false, NULL);
	base = jl_source_base_relation(source, unit_col, &unit_att);
	if (unit_att == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unit column \"%s\" of %s is an expression, not a column of %s",
						jl_msg_str(unit_col), jl_msg_str(get_rel_name(source)),
						jl_msg_str(get_rel_name(base)))));
	unit = get_attname(base, unit_att, false);
	source_q = quote_qualified_identifier(get_namespace_name(get_rel_namespace(source)),
										  get_rel_name(source));

	/* the key and the options are checked before anything is charged */
	jl_key_lookup(nsp, text_to_cstring(PG_GETARG_TEXT_PP(KEY_ARG)), &key);
	noise = jl_parse_noise(PG_GETARG_TEXT_PP(NOISE_ARG));
	delta = PG_ARGISNULL(DELTA_ARG) ? 0.0 : PG_GETARG_FLOAT8(DELTA_ARG);
	(void) release_info(nsp, fcinfo, 0);

	rv = makeRangeVarFromNameList(textToQualifiedNameList(cstring_to_text(target_name)));
	target_nsp = RangeVarGetCreationNamespace(rv);
	target_q = quote_qualified_identifier(get_namespace_name(target_nsp), rv->relname);
	jl_check_target_creatable(target_nsp, rv->relname);

	/* the charge: the dataset of the base relation, committed first */
	dataset = PG_ARGISNULL(DATASET_ARG) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(DATASET_ARG));
	memset(&req, 0, sizeof(req));
	req.actor = jl_budget_actor();
	req.nsp = nsp;
	if (dataset == NULL)
		dataset = jl_budget_dataset_for(nsp, base);
	req.source = base;
	req.source_q = quote_qualified_identifier(get_namespace_name(get_rel_namespace(base)),
											  get_rel_name(base));
	req.source_owner = GetUserNameFromId(jl_relation_owner(base), false);
	if (dataset == NULL)
	{
		dataset = pstrdup(req.source_q);
		req.declare = true;
	}
	req.dataset = dataset;
	req.epsilon = PG_GETARG_FLOAT8(EPSILON_ARG);
	/* an accepted Laplace release is pure epsilon-DP */
	req.delta = noise == JL_NOISE_GAUSSIAN ? delta : 0.0;
	req.unit = unit;
	req.what = psprintf("jl_release_long into %s", jl_msg_str(target_name));
	ledger_id = jl_budget_reserve_for_release(&req);

	SPI_connect();
	if (SPI_execute(psprintf("CREATE TABLE %s (id %s, sketch pg_catalog.float8[])", target_q,
							 format_type_extended(unit_type, -1, FORMAT_TYPE_FORCE_QUALIFY)),
					false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create the target table");
	target = get_relname_relid(rv->relname, target_nsp);
	if (!OidIsValid(target))
		elog(ERROR, "created table %s not found", target_q);

	/* every parameter of the aggregate, the same for every row */
	for (i = 0; i < NARGS; i++)
	{
		values[i] = PG_GETARG_DATUM(i);
		nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
	}
	values[DATASET_ARG] = CStringGetTextDatum(dataset);
	nulls[DATASET_ARG] = ' ';
	/* the reservation is this query's only, and dropped whatever happens */
	prev_own = jl_budget_begin_own_query(ledger_id);
	PG_TRY();
	{
		if (SPI_execute_with_args(psprintf("INSERT INTO %s (id, sketch) "
										   "SELECT u, %s.jl_private_release_agg(a::pg_catalog.int4, v::pg_catalog.float8, "
										   "$5, $7, $8, $14, $9, $10, $11, $12, $13, $15, $16) "
										   "FROM (SELECT %s AS u, %s AS a, %s AS v FROM %s) s GROUP BY u",
										   target_q, quote_identifier(get_namespace_name(nsp)),
										   quote_identifier(unit_col), quote_identifier(attr_col),
										   quote_identifier(value_col), source_q),
								  NARGS, (Oid *) types, values, nulls, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not release the groups of %s", source_q);
		groups = SPI_processed;
	}
	PG_FINALLY();
	{
		jl_budget_end_own_query(ledger_id, prev_own);
	}
	PG_END_TRY();

	rec.source = source_q;
	rec.target = target;
	rec.id_column = unit_col;
	rec.vector = psprintf("%s, %s (long format, d = %d)", attr_col, value_col,
						  PG_GETARG_INT32(D_ARG));
	rec.clipping = "none: the bound is assumed, not enforced";
	rec.key_fingerprint = key.fingerprint;
	rec.info = release_info(nsp, fcinfo, groups);
	rec.ledger_id = ledger_id;
	rec.dataset = dataset;
	release_id = jl_registry_write(nsp, &rec);
	SPI_finish();
	explicit_bzero(&key, sizeof(key));
	PG_RETURN_INT64(release_id);
}
