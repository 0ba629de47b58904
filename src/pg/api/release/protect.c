/*
 * protect.c - jl_protect: a table declared protected by its owner, with
 * its unit, its attributes and their public bounds, what a release
 * protects, and its caps (docs/design/api-1.0.md).  The declaration is the
 * dataset bound to the table (jldp_dataset), so that its ledger is the
 * one every release of it is charged to; a 0.3 dataset bound to the table
 * becomes its declaration, keeping what was spent.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "access/htup_details.h"

#include "pg/budget/budget.h"
#include "pg/common/messages.h"
#include "pg/common/options.h"
#include "pg/catalog/owner.h"
#include "pg/pipeline/declaration.h"

#define RELATION_ARG 0
#define UNIT_ARG 1
#define ATTRIBUTES_ARG 2
#define NEIGHBOR_ARG 3
#define ROW_CLIP_ARG 4
#define EPSILON_CAP_ARG 5
#define DELTA_CAP_ARG 6

/* what a release protects, and the row clip that goes with rows */
static void
read_neighbor(FunctionCallInfo fcinfo, JlDeclaration *decl)
{
	char	   *n;

	jl_require_arg_hint(fcinfo, NEIGHBOR_ARG, "neighbor", NULL,
						"'row' (the default) protects a whole unit's row; 'attribute' one declared attribute.");
	n = DatumGetCString(DirectFunctionCall1(enum_out, PG_GETARG_DATUM(NEIGHBOR_ARG)));
	decl->row = strcmp(n, "row") == 0;
	decl->row_clip = NAN;
	if (PG_ARGISNULL(ROW_CLIP_ARG))
		return;
	if (!decl->row)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("row_clip goes with neighbor 'row'"),
				 errhint("Attribute neighbours are bounded by each attribute's declared range.")));
	decl->row_clip = PG_GETARG_FLOAT8(ROW_CLIP_ARG);
	if (!(isfinite(decl->row_clip) && decl->row_clip >= JL_MIN_BOUND &&
		  decl->row_clip <= JL_MAX_BOUND))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("row_clip must lie within [%g, %g]", JL_MIN_BOUND, JL_MAX_BOUND),
				 errhint("The row clip is the largest L2 norm of an encoded row (each attribute in [0, weight]).")));
}

static void
read_caps(FunctionCallInfo fcinfo, double *eps_cap, double *delta_cap)
{
	if (PG_ARGISNULL(EPSILON_CAP_ARG))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("epsilon_cap must be given"),
				 errdetail("A protected table has a finite privacy budget: there is no default."),
				 errhint("epsilon_cap => 5, say; delta_cap (default 0) admits Gaussian releases.")));
	*eps_cap = PG_GETARG_FLOAT8(EPSILON_CAP_ARG);
	*delta_cap = PG_ARGISNULL(DELTA_CAP_ARG) ? 0.0 : PG_GETARG_FLOAT8(DELTA_CAP_ARG);
	if (!(isfinite(*eps_cap) && *eps_cap >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon_cap must be a finite number >= 0")));
	jl_budget_check_epsilon_delta(0.0, *delta_cap);
}

/* the dataset already bound to relid (SPI, as owner), or NULL */
static char *
bound_dataset(Oid nsp, Oid relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	bool		isnull;

	if (SPI_execute_with_args(psprintf("SELECT name FROM %s WHERE source OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
									   jl_qualified(nsp, "jldp_dataset")),
							  1, types, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the datasets");
	if (SPI_processed == 0)
		return NULL;
	return TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * What was spent under attribute neighbours does not bound the loss of a
 * whole row: a declaration spent under them may not become row-level (the
 * other way is fine: a row-level guarantee holds for one attribute too).
 */
static void
check_redeclaration(Oid nsp, const char *dataset, const JlDeclaration *decl)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(dataset)};
	bool		n_null,
				spent_null,
				unit_null,
				att_null;
	Datum		n,
				unit,
				unit_att;
	bool		spent;

	if (SPI_execute_with_args(psprintf("SELECT neighbor::pg_catalog.text, epsilon_spent OPERATOR(pg_catalog.>) 0 "
									   "OR delta_spent OPERATOR(pg_catalog.>) 0, unit, columns[1] FROM %s WHERE name OPERATOR(pg_catalog.=) $1",
									   jl_qualified(nsp, "jldp_dataset")),
							  1, types, values, NULL, false, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read dataset \"%s\"", dataset);
	n = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &n_null);
	spent = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &spent_null));
	unit = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &unit_null);
	unit_att = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4, &att_null);
	if (spent_null || !spent)
		return;

	/*
	 * What was spent bounds the loss of one unit of the unit it was spent
	 * for: another unit (a long-format table's attribute column, say) would
	 * gather several old units' releases under a budget that never counted
	 * them together
	 */
	if (!unit_null && strcmp(TextDatumGetCString(unit), decl->unit) == 0 &&
		!att_null && DatumGetInt16(unit_att) != decl->unit_att)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dataset \"%s\" has spent budget for the column that was named \"%s\"; the column of that name now is another",
						jl_msg_str(dataset), jl_msg_str(decl->unit)),
				 errdetail("What was spent bounds the loss of one unit of the column declared; a column renamed since, or dropped and added again, may hold several of them."),
				 errhint("Rename the columns back, or protect the other unit in a table of its own.")));
	if (!unit_null && strcmp(TextDatumGetCString(unit), decl->unit) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dataset \"%s\" has spent budget for unit \"%s\": it cannot protect unit \"%s\"",
						jl_msg_str(dataset), jl_msg_str(TextDatumGetCString(unit)), jl_msg_str(decl->unit)),
				 errdetail("What was spent bounds the loss of one %s; one unit of another column may hold several of them.",
						   jl_msg_str(TextDatumGetCString(unit))),
				 errhint("Keep unit => %s (rename the column back if it was renamed), or protect the other unit in a table of its own.",
						 quote_literal_cstr(TextDatumGetCString(unit)))));
	if (!decl->row)
		return;

	/*
	 * a dataset of 0.3 (no notion yet) was charged by releases under
	 * element neighbours or row neighbours, which together bound only the
	 * loss of one element
	 */
	if (n_null)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dataset \"%s\" has spent budget under jldp 0.3's releases: it cannot protect rows",
						jl_msg_str(dataset)),
				 errdetail("0.3's releases of one dataset could mix element and row neighbours; what they spent bounds only the loss of one element."),
				 errhint("Declare it with neighbor => 'attribute', or protect rows in a table of its own.")));
	if (strcmp(TextDatumGetCString(n), "attribute") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dataset \"%s\" has spent budget under attribute neighbours: it cannot protect rows",
						jl_msg_str(dataset)),
				 errdetail("What was spent for one attribute does not bound what a whole row loses; one ledger never sums epsilons of the two notions."),
				 errhint("Keep neighbor => 'attribute', or protect rows in a table of their own.")));
}

/* a cap may be lowered here, not raised: raising is jl_dataset_set_cap's */
static void
check_not_raised(Oid nsp, const char *dataset, double eps_cap, double delta_cap)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(dataset)};
	bool		isnull;
	double		old_eps,
				old_delta;

	if (SPI_execute_with_args(psprintf("SELECT epsilon_cap::pg_catalog.float8, delta_cap::pg_catalog.float8 FROM %s WHERE name OPERATOR(pg_catalog.=) $1",
									   jl_qualified(nsp, "jldp_dataset")),
							  1, types, values, NULL, false, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read dataset \"%s\"", dataset);
	old_eps = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	old_delta = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	if (eps_cap > old_eps || delta_cap > old_delta)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("jl_protect may lower the caps of dataset \"%s\", not raise them", jl_msg_str(dataset)),
				 errdetail("Its caps are epsilon %g, delta %g.", old_eps, old_delta),
				 errhint("Raising a cap is a budget administrator's (role jldp_budget_admin): jl_dataset_set_cap.")));
}

/* write the declaration onto the dataset (SPI, as owner) */
static void
store_declaration(Oid nsp, const char *dataset, const JlDeclaration *decl, Datum attrs,
				  Oid attrs_type, double eps_cap, double delta_cap)
{
	Oid			types[8] = {TEXTOID, TEXTOID, attrs_type, TEXTOID, FLOAT8OID, NUMERICOID, NUMERICOID, INT2ARRAYOID};
	Datum		values[8];
	char		nulls[8] = {' ', ' ', ' ', ' ', isnan(decl->row_clip) ? 'n' : ' ', ' ', ' ', ' '};
	int16	   *cols = palloc(sizeof(int16) * JL_DECLARATION_MAX_COLUMNS(decl->nattrs));
	int			ncols = jl_declaration_columns(decl, cols);
	Datum	   *celems = palloc(sizeof(Datum) * ncols);
	int			i;

	for (i = 0; i < ncols; i++)
		celems[i] = Int16GetDatum(cols[i]);
	values[7] = PointerGetDatum(construct_array(celems, ncols, INT2OID, 2, true, TYPALIGN_SHORT));

	values[0] = CStringGetTextDatum(dataset);
	values[1] = CStringGetTextDatum(decl->unit);
	values[2] = attrs;
	values[3] = CStringGetTextDatum(decl->row ? "row" : "attribute");
	values[4] = Float8GetDatum(decl->row_clip);
	values[5] = jl_budget_numeric(eps_cap);
	values[6] = jl_budget_numeric(delta_cap);
	if (SPI_execute_with_args(psprintf("UPDATE %s SET unit = $2, attributes = $3, neighbor = $4::%s, row_clip = $5, "
									   "epsilon_cap = $6, delta_cap = $7, columns = $8 WHERE name OPERATOR(pg_catalog.=) $1",
									   jl_qualified(nsp, "jldp_dataset"), jl_qualified(jl_api_nsp(nsp), "jl_neighbor")),
							  8, types, values, nulls, false, 0) != SPI_OK_UPDATE || SPI_processed != 1)
		elog(ERROR, "could not store the declaration of dataset \"%s\"", dataset);
}

/*
 * jl_protect(relation regclass, unit text, attributes jl_attribute[],
 *            neighbor jl_neighbor, row_clip float8, epsilon_cap float8,
 *            delta_cap float8, OUT dataset text, OUT d int)
 */
PG_FUNCTION_INFO_V1(jl_protect);
Datum
jl_protect(PG_FUNCTION_ARGS)
{
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	JlActor		a = jl_budget_actor();
	JlDeclaration decl;
	JlOwnerScope scope;
	double		eps_cap,
				delta_cap;
	char	   *dataset;
	TupleDesc	td;
	Datum		out[2];
	bool		outnull[2] = {false, false};
	JlDataset	ds;
	MemoryContext caller = CurrentMemoryContext;
	bool		existed;

	memset(&decl, 0, sizeof(decl));
	decl.relid = jl_regclass_arg(fcinfo, RELATION_ARG, "relation");
	jl_declaration_check_relation(decl.relid);
	/*
	 * Only the table's owner declares it: checked before the lock, which a
	 * role that may not declare the table must not take (it would hold
	 * every release of the table back: found by a review)
	 */
	jl_budget_check_relation_owner(&a, decl.relid);
	/* waits for the releases running under the declaration it replaces */
	jl_declaration_lock(decl.relid, true);
	jl_require_arg(fcinfo, UNIT_ARG, "unit");
	decl.unit = text_to_cstring(PG_GETARG_TEXT_PP(UNIT_ARG));
	jl_require_arg(fcinfo, ATTRIBUTES_ARG, "attributes");
	jl_declaration_read_attributes(&decl, PG_GETARG_DATUM(ATTRIBUTES_ARG));
	read_neighbor(fcinfo, &decl);
	read_caps(fcinfo, &eps_cap, &delta_cap);
	jl_declaration_bind(&decl);

	SPI_connect();
	jl_become_owner(nsp, &scope);
	dataset = bound_dataset(nsp, decl.relid);
	existed = dataset != NULL;
	if (existed)
	{
		dataset = MemoryContextStrdup(caller, dataset);
		jl_budget_lock_existing(nsp, dataset, &ds);
		jl_budget_check_manage(&a, &ds, dataset);
		check_not_raised(nsp, dataset, eps_cap, delta_cap);
		check_redeclaration(nsp, dataset, &decl);
	}
	else
	{
		/* a new dataset, named after the relation; its declaration is in the ledger */
		dataset = MemoryContextStrdup(caller,
									  quote_qualified_identifier(get_namespace_name(get_rel_namespace(decl.relid)),
																 get_rel_name(decl.relid)));
		jl_budget_declare(nsp, dataset, jl_budget_numeric_text(jl_budget_numeric(eps_cap)),
						  jl_budget_numeric_text(jl_budget_numeric(delta_cap)),
						  decl.relid, decl.unit, a.name, &a, true);
	}
	store_declaration(nsp, dataset, &decl, PG_GETARG_DATUM(ATTRIBUTES_ARG),
					  get_fn_expr_argtype(fcinfo->flinfo, ATTRIBUTES_ARG), eps_cap, delta_cap);
	if (existed)
		(void) jl_budget_ledger_insert(nsp, dataset, "declare", jl_budget_numeric(eps_cap), false,
								   jl_budget_numeric(delta_cap), false,
								   psprintf("jl_protect: unit %s; %s; %s neighbours",
											decl.unit, jl_declaration_describe(&decl),
											decl.row ? "row" : "attribute"),
								   &a);
	jl_restore_user(&scope);
	SPI_finish();

	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "jl_protect must return a record");
	td = BlessTupleDesc(td);
	out[0] = CStringGetTextDatum(dataset);
	out[1] = Int32GetDatum((int32) decl.d);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, out, outnull)));
}
