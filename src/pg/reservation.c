/*
 * reservation.c - budget reservations for releases that cannot write (an
 * aggregate's final function may run in parallel mode).
 *
 * jl_budget_reserve charges the dataset at once and writes a row of
 * jldp_reservation with a bigserial id and a random 128-bit token
 * (pg_strong_random).  The token is also kept in this backend's memory for
 * the current transaction only.  A release consumes a reservation whose
 * token this backend holds, made in the current transaction, not used yet;
 * before the transaction commits (or is prepared) the consumed rows are
 * marked used.  A row restored into another cluster, where transaction ids
 * repeat, is held by no backend and authorises nothing
 * (docs/threat_model.md).
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "common/string.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/uuid.h"

#include "pg/budget.h"
#include "pg/owner.h"
#include "pg/reservation.h"
#include "pg/messages.h"

PG_FUNCTION_INFO_V1(jl_budget_reserve);

/* this backend's reservations of the current transaction */
typedef struct Reservations
{
	LocalTransactionId lxid;
	Oid			nsp;			/* the extension's schema */
	List	   *tokens;			/* char *: the tokens made here, as text */
	List	   *consumed;		/* int64 *: ids consumed, to be marked used */
} Reservations;

static Reservations held = {InvalidLocalTransactionId, InvalidOid, NIL, NIL};
static bool callback_registered = false;

/* the current transaction's reservations; the old ones went with theirs */
static Reservations *
current(void)
{
	if (held.lxid != MyProc->lxid)
	{
		held.lxid = MyProc->lxid;
		held.tokens = NIL;
		held.consumed = NIL;
	}
	return &held;
}

/* a random 128-bit token as uuid text */
static char *
new_token(void)
{
	pg_uuid_t	u;

	if (!pg_strong_random(u.data, UUID_LEN))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random reservation token")));
	return DatumGetCString(DirectFunctionCall1(uuid_out, UUIDPGetDatum(&u)));
}

/* Before commit: the consumed reservations are marked used, durably. */
static void
mark_used(XactEvent event, void *arg)
{
	JlOwnerScope scope;
	StringInfoData ids;
	ListCell   *lc;

	if (event != XACT_EVENT_PRE_COMMIT && event != XACT_EVENT_PRE_PREPARE)
		return;
	if (held.lxid != MyProc->lxid || held.consumed == NIL)
		return;
	initStringInfo(&ids);
	foreach(lc, held.consumed)
		appendStringInfo(&ids, "%s" INT64_FORMAT, ids.len ? "," : "", *(int64 *) lfirst(lc));
	held.consumed = NIL;		/* once, whatever happens */
	/* dropped in this transaction (jldp.allow_drop): nothing to mark */
	if (!OidIsValid(get_relname_relid("jldp_reservation", held.nsp)))
		return;
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_connect();
	jl_become_owner(held.nsp, &scope);
	if (SPI_execute(psprintf("UPDATE %s SET used = true WHERE id IN (%s)",
							 jl_qualified(held.nsp, "jldp_reservation"), ids.data),
					false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not mark reservations used");
	jl_restore_user(&scope);
	SPI_finish();
	PopActiveSnapshot();
}

/* jl_budget_reserve(dataset, epsilon, delta): charge now, for one release */
Datum
jl_budget_reserve(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	JlActor		a = jl_budget_actor();
	char	   *name;
	double		eps,
				delta;
	JlOwnerScope scope;
	JlDataset	ds;
	Reservations *r;
	char	   *token = new_token();
	Oid			types[5] = {INT8OID, TEXTOID, NUMERICOID, NUMERICOID, TEXTOID};
	Datum		values[5];
	int64		id;

	name = jl_budget_arg_text(fcinfo, 0, "dataset name");
	eps = jl_budget_arg_float(fcinfo, 1, "epsilon");
	delta = PG_ARGISNULL(2) ? 0.0 : PG_GETARG_FLOAT8(2);
	jl_budget_check_epsilon_delta(eps, delta);

	jl_budget_require_current(nsp);
	SPI_connect();
	jl_become_owner(nsp, &scope);
	jl_budget_lock_existing(nsp, name, &ds);
	jl_budget_check_spend(&a, &ds, name);
	id = jl_budget_charge_locked(nsp, name, eps, delta, "reserve",
								 "reservation for one aggregate release", &a,
								 jl_budget_may_manage(&a, &ds));
	values[0] = Int64GetDatum(id);
	values[1] = CStringGetTextDatum(name);
	values[2] = jl_budget_numeric(eps);
	values[3] = jl_budget_numeric(delta);
	values[4] = CStringGetTextDatum(token);
	if (SPI_execute_with_args(psprintf("INSERT INTO %s (ledger_id, dataset, epsilon, delta, token, role) "
									   "VALUES ($1, $2, $3, $4, $5::uuid, %s::name)",
									   jl_qualified(nsp, "jldp_reservation"),
									   quote_literal_cstr(a.name)),
							  5, types, values, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not write the reservation");
	jl_restore_user(&scope);
	SPI_finish();

	r = current();
	{
		MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);

		r->tokens = lappend(r->tokens, pstrdup(token));
		MemoryContextSwitchTo(old);
	}
	r->nsp = nsp;
	if (!callback_registered)
	{
		RegisterXactCallback(mark_used, NULL);
		callback_registered = true;
	}
	PG_RETURN_INT64(id);
}

/* the tokens this backend holds, as a uuid[] literal */
static char *
tokens_literal(const Reservations *r)
{
	StringInfoData s;
	ListCell   *lc;

	initStringInfo(&s);
	appendStringInfoChar(&s, '{');
	foreach(lc, r->tokens)
		appendStringInfo(&s, "%s%s", s.len > 1 ? "," : "", (char *) lfirst(lc));
	appendStringInfoChar(&s, '}');
	return s.data;
}

static bool
consumed_already(const Reservations *r, int64 id)
{
	ListCell   *lc;

	foreach(lc, r->consumed)
		if (*(int64 *) lfirst(lc) == id)
			return true;
	return false;
}

void
jl_budget_consume_reservation(Oid nsp, const char *dataset, double epsilon,
							  double delta)
{
	Reservations *r = current();
	JlOwnerScope scope;
	Oid			types[4] = {TEXTOID, NUMERICOID, NUMERICOID, TEXTOID};
	Datum		values[4];
	uint64		i;
	int64		found = 0;

	values[0] = CStringGetTextDatum(dataset);
	values[1] = jl_budget_numeric(epsilon);
	values[2] = jl_budget_numeric(delta);
	values[3] = CStringGetTextDatum(tokens_literal(r));

	if (r->tokens != NIL)
	{
		jl_budget_require_current(nsp);
		SPI_connect();
		jl_become_owner(nsp, &scope);
		if (SPI_execute_with_args(psprintf("SELECT id FROM %s WHERE token = ANY ($4::uuid[]) "
										   "AND dataset = $1 AND NOT used "
										   "AND xact = pg_current_xact_id_if_assigned() "
										   "AND epsilon >= $2 AND delta >= $3 ORDER BY epsilon, delta, id",
										   jl_qualified(nsp, "jldp_reservation")),
								  4, types, values, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "could not read the reservations");
		for (i = 0; i < SPI_processed && found == 0; i++)
		{
			bool		isnull;
			int64		id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
														 SPI_tuptable->tupdesc, 1, &isnull));

			if (!consumed_already(r, id))
				found = id;
		}
		jl_restore_user(&scope);
		SPI_finish();
	}
	if (found == 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("no privacy budget reserved for this release of dataset \"%s\"", jl_msg_str(dataset)),
				 errdetail("The release needs epsilon %s, delta %s, reserved in the same transaction.",
						   jl_budget_numeric_text(values[1]), jl_budget_numeric_text(values[2])),
				 errhint("Call jl_budget_reserve('%s', epsilon, delta) first in this transaction; each reservation covers one release.",
						 jl_msg_str(dataset))));
	{
		MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
		int64	   *p = palloc(sizeof(int64));

		*p = found;
		r->consumed = lappend(r->consumed, p);
		MemoryContextSwitchTo(old);
	}
}
