/*
 * budget.c - privacy budget: datasets, caps, the ledger, reservations.
 *
 * The tables belong to the extension's owner and are not readable by
 * PUBLIC; jldp's functions write them through SPI under the owner's
 * identity (as PostgreSQL's referential-integrity triggers do), so a
 * curator can spend budget only through a release.
 */
#include "postgres.h"

#include <math.h>
#include <stdlib.h>

#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "pg/budget.h"
#include "pg/owner.h"

PG_FUNCTION_INFO_V1(jl_dataset_declare);
PG_FUNCTION_INFO_V1(jl_dataset_set_cap);
PG_FUNCTION_INFO_V1(jl_dataset_reset);
PG_FUNCTION_INFO_V1(jl_budget_reserve);

#define ERRCODE_BUDGET_EXCEEDED ERRCODE_CONFIGURATION_LIMIT_EXCEEDED

/* the role on whose behalf we act: the current user (as SQL sees it) */
static Oid
acting_role(void)
{
	return GetUserId();
}

char *
jl_budget_dataset_for(Oid nsp, Oid source_relid)
{
	JlOwnerScope scope;
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(source_relid)};
	char	   *result = NULL;
	int			rc;

	SPI_connect();
	jl_become_owner(nsp, &scope);
	rc = SPI_execute_with_args(psprintf("SELECT name FROM %s WHERE source = $1 ORDER BY name",
										jl_qualified(nsp, "jldp_dataset")),
							   1, types, values, NULL, true, 0);
	jl_restore_user(&scope);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "could not read the budget");
	if (SPI_processed > 1)
		ereport(ERROR,
				(errcode(ERRCODE_AMBIGUOUS_PARAMETER),
				 errmsg("several datasets are declared for relation %s", get_rel_name(source_relid)),
				 errhint("Name the dataset to charge with dataset => ...")));
	if (SPI_processed == 1)
		result = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	if (result)
	{
		MemoryContext old = MemoryContextSwitchTo(CurTransactionContext);

		result = pstrdup(result);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	return result;
}

static void
check_epsilon_delta(double epsilon, double delta)
{
	if (!(isfinite(epsilon) && epsilon >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a finite number >= 0")));
	if (!(delta >= 0.0 && delta < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must lie in [0, 1)")));
}

/*
 * v as a numeric that reads back as v: float8_numeric's 15 significant
 * digits when they do (what was typed, e.g. 1e-05), else 17.  Rounding to 15
 * digits would charge 0.3 for 0.1 + 0.2 = 0.30000000000000004, and a
 * release calibrated to the larger epsilon would pass a cap of 0.3.
 */
static Datum
float8_as_numeric(double v)
{
	char		buf[64];

	snprintf(buf, sizeof(buf), "%.15g", v);
	if (!isfinite(v) || strtod(buf, NULL) == v)
		return DirectFunctionCall1(float8_numeric, Float8GetDatum(v));
	snprintf(buf, sizeof(buf), "%.17g", v);
	return DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

static char *
numeric_text(Datum d)
{
	return DatumGetCString(DirectFunctionCall1(numeric_out, d));
}

/* Insert a ledger row (SPI connected, as owner); returns its id. */
static int64
ledger_insert(Oid nsp, const char *dataset, const char *event, Datum eps,
			  bool eps_null, Datum delta, bool delta_null, const char *what)
{
	Oid			types[5] = {TEXTOID, TEXTOID, NUMERICOID, NUMERICOID, TEXTOID};
	Datum		values[5];
	char		nulls[5] = {' ', ' ', eps_null ? 'n' : ' ', delta_null ? 'n' : ' ',
	what ? ' ' : 'n'};
	bool		isnull;
	int			rc;
	char	   *sql;

	values[0] = CStringGetTextDatum(dataset);
	values[1] = CStringGetTextDatum(event);
	values[2] = eps;
	values[3] = delta;
	values[4] = what ? CStringGetTextDatum(what) : (Datum) 0;
	sql = psprintf("INSERT INTO %s (dataset, event, epsilon, delta, epsilon_spent, delta_spent, what, role) "
				   "SELECT $1, $2, $3, $4, epsilon_spent, delta_spent, $5, %u FROM %s WHERE name = $1 "
				   "RETURNING id",
				   jl_qualified(nsp, "jldp_ledger"), acting_role(),
				   jl_qualified(nsp, "jldp_dataset"));
	rc = SPI_execute_with_args(sql, 5, types, values, nulls, false, 0);
	if (rc != SPI_OK_INSERT_RETURNING || SPI_processed != 1)
		elog(ERROR, "could not write the budget ledger");
	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
									   SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * Lock the dataset row; returns false if it does not exist.  Fills the
 * owner and, as text, the caps and spent amounts.
 */
static bool
lock_dataset(Oid nsp, const char *dataset, Oid *owner)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(dataset)};
	bool		isnull;
	int			rc;

	rc = SPI_execute_with_args(psprintf("SELECT owner FROM %s WHERE name = $1 FOR UPDATE",
										jl_qualified(nsp, "jldp_dataset")),
							   1, types, values, NULL, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "could not read the budget");
	if (SPI_processed == 0)
		return false;
	if (owner)
		*owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0],
												SPI_tuptable->tupdesc, 1, &isnull));
	return true;
}

static void
declare_dataset(Oid nsp, const char *dataset, const char *eps_cap,
				const char *delta_cap, Oid source_relid)
{
	Oid			types[4] = {TEXTOID, TEXTOID, TEXTOID, OIDOID};
	Datum		values[4];
	char		nulls[4] = {' ', ' ', ' ', OidIsValid(source_relid) ? ' ' : 'n'};
	int			rc;

	values[0] = CStringGetTextDatum(dataset);
	values[1] = CStringGetTextDatum(eps_cap);
	values[2] = CStringGetTextDatum(delta_cap);
	values[3] = ObjectIdGetDatum(source_relid);
	if (OidIsValid(source_relid))
	{
		char	   *existing = NULL;

		rc = SPI_execute_with_args(psprintf("SELECT name FROM %s WHERE source = $4::regclass",
											jl_qualified(nsp, "jldp_dataset")),
								   4, types, values, nulls, true, 1);
		if (rc == SPI_OK_SELECT && SPI_processed > 0)
			existing = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		if (existing)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_OBJECT),
					 errmsg("relation %s already has a dataset, \"%s\"",
							get_rel_name(source_relid), existing),
					 errhint("Set its cap with jl_dataset_set_cap('%s', ...).", existing)));
	}
	rc = SPI_execute_with_args(psprintf("INSERT INTO %s (name, epsilon_cap, delta_cap, source, owner) "
										"VALUES ($1, $2::numeric, $3::numeric, $4::regclass, %u) "
										"ON CONFLICT (name) DO NOTHING",
										jl_qualified(nsp, "jldp_dataset"), acting_role()),
							   4, types, values, nulls, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "could not declare dataset");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("dataset \"%s\" already exists", dataset)));
	ledger_insert(nsp, dataset, "declare",
				  DirectFunctionCall3(numeric_in, CStringGetDatum(eps_cap),
									  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)), false,
				  DirectFunctionCall3(numeric_in, CStringGetDatum(delta_cap),
									  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)), false,
				  OidIsValid(source_relid) ?
				  psprintf("source %s",
						   quote_qualified_identifier(get_namespace_name(get_rel_namespace(source_relid)),
													  get_rel_name(source_relid))) : NULL);
}

/* Charge within an SPI connection, as owner. */
static int64
charge_locked(Oid nsp, const char *dataset, double epsilon, double delta,
			  const char *event, const char *what)
{
	Oid			types[3] = {TEXTOID, NUMERICOID, NUMERICOID};
	Datum		values[3];
	int			rc;
	bool		isnull;
	bool		fits;

	values[0] = CStringGetTextDatum(dataset);
	values[1] = float8_as_numeric(epsilon);
	values[2] = float8_as_numeric(delta);
	rc = SPI_execute_with_args(psprintf("SELECT epsilon_spent + $2 <= epsilon_cap AND delta_spent + $3 <= delta_cap, "
										"(epsilon_cap - epsilon_spent)::text, (delta_cap - delta_spent)::text, "
										"epsilon_cap::text, delta_cap::text "
										"FROM %s WHERE name = $1",
										jl_qualified(nsp, "jldp_dataset")),
							   3, types, values, NULL, false, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the budget of dataset \"%s\"", dataset);
	fits = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (!fits)
		ereport(ERROR,
				(errcode(ERRCODE_BUDGET_EXCEEDED),
				 errmsg("privacy budget of dataset \"%s\" would be exceeded", dataset),
				 errdetail("This release needs epsilon %s, delta %s; the remaining budget is epsilon %s, delta %s (caps %s, %s).",
						   numeric_text(values[1]), numeric_text(values[2]),
						   SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2),
						   SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3),
						   SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4),
						   SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 5)),
				 errhint("The dataset's owner can raise the cap with jl_dataset_set_cap().")));
	rc = SPI_execute_with_args(psprintf("UPDATE %s SET epsilon_spent = epsilon_spent + $2, "
										"delta_spent = delta_spent + $3 WHERE name = $1",
										jl_qualified(nsp, "jldp_dataset")),
							   3, types, values, NULL, false, 0);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "could not charge the budget");
	return ledger_insert(nsp, dataset, event, values[1], false, values[2], false, what);
}

int64
jl_budget_charge(Oid nsp, const char *dataset, Oid source_relid,
				 double epsilon, double delta, const char *what)
{
	JlOwnerScope scope;
	int64		id;

	check_epsilon_delta(epsilon, delta);
	SPI_connect();
	jl_become_owner(nsp, &scope);
	if (!lock_dataset(nsp, dataset, NULL))
	{
		if (!OidIsValid(source_relid))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("dataset \"%s\" does not exist", dataset),
					 errhint("Declare it with jl_dataset_declare().")));
		/* the default dataset of a relation: tracked, without a cap */
		declare_dataset(nsp, dataset, "Infinity", "1", source_relid);
		lock_dataset(nsp, dataset, NULL);
	}
	id = charge_locked(nsp, dataset, epsilon, delta, "charge", what);
	jl_restore_user(&scope);
	SPI_finish();
	return id;
}

/* reservations consumed in this transaction (backend-local) */
static LocalTransactionId consumed_lxid = InvalidLocalTransactionId;
static List *consumed_ids = NIL;

void
jl_budget_consume_reservation(Oid nsp, const char *dataset, double epsilon,
							  double delta)
{
	JlOwnerScope scope;
	Oid			types[3] = {TEXTOID, NUMERICOID, NUMERICOID};
	Datum		values[3];
	uint64		i;
	int			rc;
	int64		found = 0;

	if (consumed_lxid != MyProc->lxid)
	{
		consumed_ids = NIL;		/* its memory went with the old transaction */
		consumed_lxid = MyProc->lxid;
	}
	values[0] = CStringGetTextDatum(dataset);
	values[1] = float8_as_numeric(epsilon);
	values[2] = float8_as_numeric(delta);

	SPI_connect();
	jl_become_owner(nsp, &scope);
	rc = SPI_execute_with_args(psprintf("SELECT id FROM %s WHERE dataset = $1 AND event = 'reserve' "
										"AND xact = pg_current_xact_id_if_assigned() "
										"AND epsilon >= $2 AND delta >= $3 ORDER BY epsilon, delta, id",
										jl_qualified(nsp, "jldp_ledger")),
							   3, types, values, NULL, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "could not read the budget ledger");
	for (i = 0; i < SPI_processed && found == 0; i++)
	{
		bool		isnull;
		int64		id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
													 SPI_tuptable->tupdesc, 1, &isnull));
		ListCell   *lc;
		bool		used = false;

		foreach(lc, consumed_ids)
			if (*(int64 *) lfirst(lc) == id)
				used = true;
		if (!used)
			found = id;
	}
	jl_restore_user(&scope);
	SPI_finish();

	if (found == 0)
		ereport(ERROR,
				(errcode(ERRCODE_BUDGET_EXCEEDED),
				 errmsg("no privacy budget reserved for this release of dataset \"%s\"", dataset),
				 errdetail("The release needs epsilon %s, delta %s, reserved in the same transaction.",
						   numeric_text(values[1]), numeric_text(values[2])),
				 errhint("Call jl_budget_reserve('%s', epsilon, delta) first in this transaction; each reservation covers one release.",
						 dataset)));
	{
		MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
		int64	   *p = palloc(sizeof(int64));

		*p = found;
		consumed_ids = lappend(consumed_ids, p);
		MemoryContextSwitchTo(old);
	}
}

/*
 * SQL: lock a dataset whose budget the caller may change (its owner or a
 * superuser); error if it does not exist.
 */
static void
lock_owned_dataset(Oid nsp, const char *dataset)
{
	Oid			me = acting_role(),
				owner;

	if (!lock_dataset(nsp, dataset, &owner))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("dataset \"%s\" does not exist", dataset)));
	if (!superuser_arg(me) && !has_privs_of_role(me, owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only the owner of dataset \"%s\" or a superuser may change its budget", dataset)));
}

/* SQL: caps are numbers >= 0, delta_cap below 1 */
static void
check_caps(double eps_cap, double delta_cap)
{
	if (!(eps_cap >= 0.0) || isnan(eps_cap))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon_cap must be >= 0")));
	check_epsilon_delta(0.0, delta_cap);
}

static char *
arg_text(FunctionCallInfo fcinfo, int n, const char *what)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", what)));
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

static double
arg_float(FunctionCallInfo fcinfo, int n, const char *what)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", what)));
	return PG_GETARG_FLOAT8(n);
}

/* jl_dataset_declare(name, epsilon_cap, delta_cap, source) */
Datum
jl_dataset_declare(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	char	   *name = arg_text(fcinfo, 0, "dataset name");
	double		eps_cap = arg_float(fcinfo, 1, "epsilon_cap");
	double		delta_cap = PG_ARGISNULL(2) ? 0.0 : PG_GETARG_FLOAT8(2);
	Oid			source = PG_ARGISNULL(3) ? InvalidOid : PG_GETARG_OID(3);
	JlOwnerScope scope;

	if (name[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dataset name must not be empty")));
	check_caps(eps_cap, delta_cap);
	SPI_connect();
	jl_become_owner(nsp, &scope);
	declare_dataset(nsp, name,
					numeric_text(float8_as_numeric(eps_cap)),
					numeric_text(float8_as_numeric(delta_cap)), source);
	jl_restore_user(&scope);
	SPI_finish();
	PG_RETURN_VOID();
}

/* jl_dataset_set_cap(name, epsilon_cap, delta_cap) */
Datum
jl_dataset_set_cap(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	char	   *name = arg_text(fcinfo, 0, "dataset name");
	double		eps_cap = arg_float(fcinfo, 1, "epsilon_cap");
	bool		delta_given = !PG_ARGISNULL(2);
	double		delta_cap = delta_given ? PG_GETARG_FLOAT8(2) : 0.0;
	JlOwnerScope scope;
	Oid			types[3] = {TEXTOID, NUMERICOID, NUMERICOID};
	Datum		values[3];
	char		nulls[3] = {' ', ' ', delta_given ? ' ' : 'n'};

	check_caps(eps_cap, delta_cap);
	values[0] = CStringGetTextDatum(name);
	values[1] = float8_as_numeric(eps_cap);
	values[2] = float8_as_numeric(delta_cap);

	SPI_connect();
	jl_become_owner(nsp, &scope);
	lock_owned_dataset(nsp, name);
	if (SPI_execute_with_args(psprintf("UPDATE %s SET epsilon_cap = $2, delta_cap = coalesce($3, delta_cap) WHERE name = $1",
									   jl_qualified(nsp, "jldp_dataset")),
							  3, types, values, nulls, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not set the cap");
	ledger_insert(nsp, name, "cap", values[1], false, values[2], !delta_given, NULL);
	jl_restore_user(&scope);
	SPI_finish();
	PG_RETURN_VOID();
}

/* jl_dataset_reset(name): spent back to 0, recorded */
Datum
jl_dataset_reset(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	char	   *name = arg_text(fcinfo, 0, "dataset name");
	JlOwnerScope scope;
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(name)};

	SPI_connect();
	jl_become_owner(nsp, &scope);
	lock_owned_dataset(nsp, name);
	if (SPI_execute_with_args(psprintf("UPDATE %s SET epsilon_spent = 0, delta_spent = 0 WHERE name = $1",
									   jl_qualified(nsp, "jldp_dataset")),
							  1, types, values, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not reset the budget");
	ledger_insert(nsp, name, "reset", (Datum) 0, true, (Datum) 0, true, NULL);
	jl_restore_user(&scope);
	SPI_finish();
	PG_RETURN_VOID();
}

/* jl_budget_reserve(dataset, epsilon, delta): charge now, for one release */
Datum
jl_budget_reserve(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	char	   *name = arg_text(fcinfo, 0, "dataset name");
	double		eps = arg_float(fcinfo, 1, "epsilon");
	double		delta = PG_ARGISNULL(2) ? 0.0 : PG_GETARG_FLOAT8(2);
	JlOwnerScope scope;
	int64		id;

	check_epsilon_delta(eps, delta);
	SPI_connect();
	jl_become_owner(nsp, &scope);
	if (!lock_dataset(nsp, name, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("dataset \"%s\" does not exist", name),
				 errhint("Declare it with jl_dataset_declare().")));
	id = charge_locked(nsp, name, eps, delta, "reserve", "reservation for one aggregate release");
	jl_restore_user(&scope);
	SPI_finish();
	PG_RETURN_INT64(id);
}
