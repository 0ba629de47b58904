/*
 * reservation.c - budget reservations for releases that cannot write (an
 * aggregate's final function may run in parallel mode).
 *
 * jl_budget_reserve charges the dataset at once and writes a row of
 * jldp_reservation with a bigserial id and a random 128-bit token
 * (pg_strong_random), both committed by a background worker before it
 * returns, so no rollback undoes them.  The reservation (token, dataset,
 * epsilon, delta) is also kept in this backend's memory for the current
 * transaction only.  A release consumes a reservation held there, not
 * consumed yet; before the transaction commits (or is prepared) the
 * consumed rows are marked used.  A row restored into another cluster, where transaction ids
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
#include "pg/charge_worker.h"
#include "pg/owner.h"
#include "pg/reservation.h"
#include "pg/messages.h"

PG_FUNCTION_INFO_V1(jl_budget_reserve);

/* a reservation this backend made in the current transaction */
typedef struct Held
{
	char	   *token;			/* uuid text */
	char	   *dataset;
	double		epsilon;
	double		delta;
	int64		ledger_id;
	bool		consumed;		/* no longer available */
	bool		used;			/* consumed by a release */
	bool		own_query;		/* jl_release_long's: its own query only */
} Held;

/* this backend's reservations of the current transaction */
typedef struct Reservations
{
	LocalTransactionId lxid;
	Oid			nsp;			/* the extension's schema */
	List	   *held;			/* Held *, in the order made */
	bool		to_mark;		/* some were consumed: mark them used */
} Reservations;

static Reservations held = {InvalidLocalTransactionId, InvalidOid, NIL, false};
static bool callback_registered = false;

/*
 * The ledger id of the jl_release_long whose own query runs now (0: none).
 * A reservation made for jl_release_long is consumed only while its query
 * runs; any other aggregate, before, during or after it, cannot take it
 * (docs/threat_model.md, attack 17).
 */
static int64 own_query_ledger = 0;

/* the current transaction's reservations; the old ones went with theirs */
static Reservations *
current(void)
{
	if (held.lxid != MyProc->lxid)
	{
		held.lxid = MyProc->lxid;
		held.held = NIL;
		held.to_mark = false;
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

/*
 * Before commit: the consumed reservations are marked used, durably.  The
 * rows were committed by the charge's worker, maybe after this
 * transaction's snapshot (REPEATABLE READ): they are found with the latest
 * snapshot.  A transaction that rolls back marks nothing, and its tokens
 * are forgotten with it: its reservations stay charged, unused for ever.
 */
static void
mark_used(XactEvent event, void *arg)
{
	JlOwnerScope scope;
	StringInfoData tokens;
	ListCell   *lc;
	SPIPlanPtr	plan;

	if (event != XACT_EVENT_PRE_COMMIT && event != XACT_EVENT_PRE_PREPARE)
		return;
	if (held.lxid != MyProc->lxid || !held.to_mark)
		return;
	initStringInfo(&tokens);
	foreach(lc, held.held)
	{
		Held	   *h = (Held *) lfirst(lc);

		if (h->used)
			appendStringInfo(&tokens, "%s%s", tokens.len ? "," : "", quote_literal_cstr(h->token));
	}
	held.to_mark = false;		/* once, whatever happens */
	/* dropped in this transaction (jldp.allow_drop): nothing to mark */
	if (!OidIsValid(get_relname_relid("jldp_reservation", held.nsp)))
		return;
	SPI_connect();
	jl_become_owner(held.nsp, &scope);
	plan = SPI_prepare(psprintf("UPDATE %s SET used = true WHERE token IN (%s)",
								jl_qualified(held.nsp, "jldp_reservation"), tokens.data),
					   0, NULL);
	if (plan == NULL ||
		SPI_execute_snapshot(plan, NULL, NULL, GetLatestSnapshot(), InvalidSnapshot,
							 false, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not mark reservations used");
	jl_restore_user(&scope);
	SPI_finish();
}

/*
 * A subtransaction aborted: a jl_release_long reservation of it, if still
 * held, is dropped (its call ended in an error), and no own query runs any
 * more.  The charge stands.
 */
static void
drop_own_on_abort(SubXactEvent event, SubTransactionId mySubid,
				  SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	if (event != SUBXACT_EVENT_ABORT_SUB || held.lxid != MyProc->lxid)
		return;
	foreach(lc, held.held)
	{
		Held	   *h = (Held *) lfirst(lc);

		if (h->own_query)
			h->consumed = true;
	}
	own_query_ledger = 0;
}

/* charge req through the worker and hold the reservation here */
static int64
reserve(Oid nsp, JlChargeRequest *req, bool own_query)
{
	Reservations *r;
	Held	   *h;
	MemoryContext old;

	jl_budget_check_epsilon_delta(req->epsilon, req->delta);
	/* its use is marked at commit, which a read-only transaction cannot */
	if (XactReadOnly)
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot reserve privacy budget in a read-only transaction")));
	jl_budget_require_current(nsp);
	jl_budget_refuse_uncommitted(nsp, req->dataset, req->source);
	req->token = new_token();

	r = current();
	old = MemoryContextSwitchTo(TopTransactionContext);
	h = palloc0(sizeof(Held));
	h->token = pstrdup(req->token);
	h->dataset = pstrdup(req->dataset);
	h->epsilon = req->epsilon;
	h->delta = req->delta;
	h->consumed = true;			/* not usable until charged */
	h->own_query = own_query;
	r->held = lappend(r->held, h);
	MemoryContextSwitchTo(old);
	r->nsp = nsp;
	if (!callback_registered)
	{
		RegisterXactCallback(mark_used, NULL);
		RegisterSubXactCallback(drop_own_on_abort, NULL);
		callback_registered = true;
	}
	h->ledger_id = jl_charge_committed(req);
	h->consumed = false;
	return h->ledger_id;
}

/*
 * jl_budget_reserve(dataset, epsilon, delta): charge now, for one release.
 * The charge and the reservation's row are committed by a background
 * worker before this returns (charge_worker.c): a rollback leaves them.
 */
Datum
jl_budget_reserve(PG_FUNCTION_ARGS)
{
	JlChargeRequest req;

	memset(&req, 0, sizeof(req));
	req.actor = jl_budget_actor();
	req.nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	req.dataset = jl_budget_arg_text(fcinfo, 0, "dataset name");
	req.epsilon = jl_budget_arg_float(fcinfo, 1, "epsilon");
	req.delta = PG_ARGISNULL(2) ? 0.0 : PG_GETARG_FLOAT8(2);
	req.what = "reservation for one aggregate release";
	PG_RETURN_INT64(reserve(req.nsp, &req, false));
}

int64
jl_budget_reserve_for_release(JlChargeRequest *req)
{
	req->for_table = true;
	return reserve(req->nsp, req, true);
}

int64
jl_budget_begin_own_query(int64 ledger_id)
{
	int64		prev = own_query_ledger;

	own_query_ledger = ledger_id;
	return prev;
}

void
jl_budget_end_own_query(int64 ledger_id, int64 prev)
{
	ListCell   *lc;

	own_query_ledger = prev;
	foreach(lc, current()->held)
	{
		Held	   *h = (Held *) lfirst(lc);

		if (h->ledger_id == ledger_id)
			h->consumed = true;		/* charged, used by nobody else */
	}
}

/*
 * Consumed from this backend's memory, never from the table: a row (also
 * one restored into another cluster) authorises nothing by itself.  The
 * smallest reservation that covers the release is taken.  While a
 * jl_release_long query runs only its reservation is taken; at any other
 * time a reservation made for jl_release_long is never.
 */
void
jl_budget_consume_reservation(Oid nsp, const char *dataset, double epsilon,
							  double delta)
{
	Reservations *r = current();
	Held	   *found = NULL;
	ListCell   *lc;

	foreach(lc, r->held)
	{
		Held	   *h = (Held *) lfirst(lc);

		/* while a jl_release_long query runs, only its own; else no such */
		if (own_query_ledger != 0 ? h->ledger_id != own_query_ledger : h->own_query)
			continue;
		if (h->consumed || strcmp(h->dataset, dataset) != 0 ||
			!(h->epsilon >= epsilon && h->delta >= delta))
			continue;
		if (found == NULL || h->epsilon < found->epsilon ||
			(h->epsilon == found->epsilon && h->delta < found->delta))
			found = h;
	}
	if (found == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("no privacy budget reserved for this release of dataset \"%s\"", jl_msg_str(dataset)),
				 errdetail("The release needs epsilon %s, delta %s, reserved in the same transaction.",
						   jl_budget_numeric_text(jl_budget_numeric(epsilon)),
						   jl_budget_numeric_text(jl_budget_numeric(delta))),
				 errhint("Call jl_budget_reserve('%s', epsilon, delta) first in this transaction; each reservation covers one release.",
						 jl_msg_str(dataset))));
	found->consumed = true;
	found->used = true;
	r->to_mark = true;
}
