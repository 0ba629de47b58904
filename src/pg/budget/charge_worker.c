/*
 * charge_worker.c - a release's charge committed before the release
 * writes anything, by a background worker in a transaction of its own.
 *
 * A charge written in the caller's transaction is undone by the caller's
 * ROLLBACK (or ROLLBACK TO SAVEPOINT, or an error after a cursor was
 * fetched) while the output has been seen (docs/design/threat_model.md, attack
 * 12).  So the release hands the charge to a dynamic background worker of
 * its database (no shared_preload_libraries needed; it takes one of
 * max_worker_processes' slots for a few milliseconds) and waits: the worker
 * locks the dataset, checks the spender and the cap, writes the charge, the
 * ledger row (naming the acting role the caller passed) and a reservation's
 * row, and commits.  Only then does the release go on, in the caller's
 * transaction.  The request and the verdict pass through a DSM segment.
 *
 * Failure modes, all in the safe direction:
 *  - no worker slot free for JL_SLOT_WAIT_MS: the release is refused
 *    (53400), nothing charged;
 *  - the worker ends without a verdict (it could not load the library,
 *    which a reinstall replaces for a moment, could not be forked or
 *    connect, or was terminated): the stage it reached, which it records
 *    in the segment, decides.  Before its transaction nothing was charged:
 *    a new worker is started, JL_WORKER_ATTEMPTS in all, and then the
 *    release is refused with 53000.  Inside its transaction, the
 *    transaction's own outcome in the commit log decides: committed, the
 *    charge stands and the release goes on; not committed, nothing was
 *    charged and the release is refused with 40001 (run it again);
 *  - the caller is cancelled while waiting: the worker is stopped, and
 *    the caller waits for it to end; a charge it committed first stands
 *    without a release, which jl_ledger shows (released false) and a
 *    WARNING names;
 *  - the release fails after the charge: the charge stands;
 *  - the worker waits for a lock longer than JL_CHARGE_LOCK_TIMEOUT_MS (a
 *    dataset's row held by another open transaction, an uncommitted
 *    declaration of the same name): the release is refused, uncharged,
 *    instead of holding a worker slot for as long as that transaction
 *    stays open (a denial of service on every slot otherwise);
 *  - the worker waits for a lock the caller's own transaction holds (a
 *    change of the dataset in the caller's open transaction, which
 *    jl_budget_refuse_uncommitted refuses beforehand): the caller sees
 *    itself among the worker's blockers, stops the worker and refuses,
 *    instead of waiting for ever.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"

#include "access/transam.h"
#include "access/xact.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "pg/budget/charge_worker.h"
#include "pg/common/messages.h"

/* how long a release waits for a free worker slot before it is refused */
#define JL_SLOT_WAIT_MS 30000
/* how long the worker waits for a lock (the dataset's row, a name) */
#define JL_CHARGE_LOCK_TIMEOUT_MS 5000
/* how often a waiting release checks whether the worker waits for it */
#define JL_BLOCK_CHECK_MS 1000

/* workers started for one charge when one ends before its transaction */
#define JL_WORKER_ATTEMPTS 5

#define JL_CHARGE_MAGIC 0x6a6c6307	/* "jlc", layout 7 (the profile's mu) */
#define JL_ERR_TEXT 1024

typedef enum
{
	JL_VERDICT_NONE = 0,
	JL_VERDICT_COMMITTED,
	JL_VERDICT_REFUSED
} JlVerdict;

/* how far the worker got: what a missing verdict means */
typedef enum
{
	JL_STAGE_NONE = 0,			/* not started, or ended before it attached */
	JL_STAGE_ATTACHED,			/* attached to the segment, no transaction yet */
	JL_STAGE_IN_XACT			/* xid is its transaction's: the commit log knows */
} JlStage;

/* the DSM segment: the request, its strings, the verdict */
typedef struct ChargeShared
{
	uint32		magic;
	Oid			database;
	Oid			nsp;
	Oid			source;
	Oid			actor;
	double		epsilon;
	double		delta;
	int32		profile;		/* JlProfileKind */
	double		rho;
	double		mu;
	/* offsets into data, 0 for NULL */
	Size		dataset,
				source_q,
				what,
				unit,
				actor_name;
	/* the verdict, written by the worker */
	volatile int stage;
	TransactionId xid;
	volatile int verdict;
	int64		ledger_id;
	int			sqlerrcode;
	char		message[JL_ERR_TEXT];
	char		detail[JL_ERR_TEXT];
	char		hint[JL_ERR_TEXT];
	char		data[FLEXIBLE_ARRAY_MEMBER];
} ChargeShared;

static Size
string_size(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* copy s into the data area at *used; its offset (1-based), 0 for NULL */
static Size
put_string(ChargeShared *sh, Size *used, const char *s)
{
	Size		at;

	if (s == NULL)
		return 0;
	at = *used;
	memcpy(sh->data + at, s, strlen(s) + 1);
	*used += strlen(s) + 1;
	return at + 1;
}

static const char *
get_string(const ChargeShared *sh, Size off)
{
	return off == 0 ? NULL : sh->data + off - 1;
}

static void
put_text(char *dst, const char *s)
{
	if (s)
		strlcpy(dst, s, JL_ERR_TEXT);
	else
		dst[0] = '\0';
}

static bool charge_in_transaction = false;

void
jl_charge_worker_init(void)
{
	DefineCustomBoolVariable("jldp.charge_in_transaction",
							 "Writes a superuser's budget charges in its own transaction instead of by a background worker.",
							 "For audits that release thousands of times: a ROLLBACK then undoes the charge. Only superusers may set it, and it takes effect only while both the session's user and the current user are superusers.",
							 &charge_in_transaction, false, PGC_SUSET, 0, NULL, NULL, NULL);
}

bool
jl_charge_in_transaction(void)
{
	return charge_in_transaction && superuser() && superuser_arg(GetSessionUserId());
}

/* ---- the worker ---- */

void
jl_charge_worker_main(Datum arg)
{
	dsm_segment *seg;
	ChargeShared *sh;
	JlChargeRequest r;
	MemoryContext cxt;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	seg = dsm_attach(DatumGetUInt32(arg));
	if (seg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("jldp charge worker: the release that started it is gone")));
	sh = dsm_segment_address(seg);
	if (sh->magic != JL_CHARGE_MAGIC)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("jldp charge worker: request of another library version")));
	sh->stage = JL_STAGE_ATTACHED;
	/* as the bootstrap superuser; the budget functions act as the owner */
	BackgroundWorkerInitializeConnectionByOid(sh->database, InvalidOid, 0);

	memset(&r, 0, sizeof(r));
	r.nsp = sh->nsp;
	r.dataset = get_string(sh, sh->dataset);
	r.source = sh->source;
	r.unit = get_string(sh, sh->unit);
	r.source_q = get_string(sh, sh->source_q);
	r.epsilon = sh->epsilon;
	r.delta = sh->delta;
	r.profile = (JlProfileKind) sh->profile;
	r.rho = sh->rho;
	r.mu = sh->mu;
	r.what = get_string(sh, sh->what);
	r.actor.role = sh->actor;
	r.actor.name = (char *) get_string(sh, sh->actor_name);

	SetConfigOption("lock_timeout", CppAsString2(JL_CHARGE_LOCK_TIMEOUT_MS),
					PGC_SUSET, PGC_S_OVERRIDE);
	/*
	 * The charge is durable before the release goes on, whatever the
	 * database's settings (its owner may turn synchronous_commit off)
	 */
	SetConfigOption("synchronous_commit", "on", PGC_SUSET, PGC_S_OVERRIDE);
	cxt = CurrentMemoryContext;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	pgstat_report_activity(STATE_RUNNING, "jldp: committing a privacy budget charge");
	PG_TRY();
	{
		int64		id;

		/* from here on, the commit log tells whether the charge stands */
		sh->xid = GetTopTransactionId();
		pg_write_barrier();
		sh->stage = JL_STAGE_IN_XACT;
		PushActiveSnapshot(GetTransactionSnapshot());
		id = jl_budget_charge_now(&r);
		PopActiveSnapshot();
		sh->ledger_id = id;
		pg_write_barrier();
		CommitTransactionCommand();
		sh->verdict = JL_VERDICT_COMMITTED;
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		sh->sqlerrcode = e->sqlerrcode;
		if (e->sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE)
		{
			snprintf(sh->message, JL_ERR_TEXT,
					 "the privacy budget charge of dataset \"%s\" waited more than %d s for another transaction",
					 jl_msg_str(r.dataset), JL_CHARGE_LOCK_TIMEOUT_MS / 1000);
			put_text(sh->detail, "An open transaction holds the dataset (a cap change, a grant, or an uncommitted declaration of its name); nothing was charged or released.");
			put_text(sh->hint, "Run the release again once that transaction has ended.");
		}
		else
		{
			put_text(sh->message, e->message);
			put_text(sh->detail, e->detail);
			put_text(sh->hint, e->hint);
		}
		pg_write_barrier();
		sh->verdict = JL_VERDICT_REFUSED;
	}
	PG_END_TRY();
	pgstat_report_activity(STATE_IDLE, NULL);
	dsm_detach(seg);
	proc_exit(0);
}

/* ---- the release ---- */

/* a worker slot, waiting for one to come free; NULL after JL_SLOT_WAIT_MS */
static BackgroundWorkerHandle *
start_worker(dsm_segment *seg)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	int			waited = 0,
				nap = 5;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "jldp");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "jl_charge_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "jldp charge for PID %d", MyProcPid);
	snprintf(worker.bgw_type, BGW_MAXLEN, "jldp charge");
	worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	worker.bgw_notify_pid = MyProcPid;

	while (!RegisterDynamicBackgroundWorker(&worker, &handle))
	{
		if (waited >= JL_SLOT_WAIT_MS)
			return NULL;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 nap, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		waited += nap;
		nap = Min(nap * 2, 200);
	}
	return handle;
}

/* the worker waits for a lock this backend holds */
static bool
blocked_by_me(pid_t pid)
{
	ArrayType  *a = DatumGetArrayTypeP(DirectFunctionCall1(pg_blocking_pids,
														   Int32GetDatum((int32) pid)));
	int			n = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	int32	   *pids = (int32 *) ARR_DATA_PTR(a);
	int			i;

	for (i = 0; i < n; i++)
		if (pids[i] == MyProcPid)
			return true;
	return false;
}

/* wait for the worker to end; true if it was stopped for waiting on us */
static bool
wait_for_worker(BackgroundWorkerHandle *handle)
{
	bool		stopped = false;

	for (;;)
	{
		pid_t		pid;
		BgwHandleStatus st;
		int			rc;

		CHECK_FOR_INTERRUPTS();
		st = GetBackgroundWorkerPid(handle, &pid);
		if (st == BGWH_STOPPED)
			return stopped;
		if (st == BGWH_POSTMASTER_DIED)
			ereport(FATAL,
					(errcode(ERRCODE_ADMIN_SHUTDOWN),
					 errmsg("the postmaster died while a privacy budget charge was committed")));
		rc = WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					   JL_BLOCK_CHECK_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		if ((rc & WL_TIMEOUT) && st == BGWH_STARTED && !stopped && blocked_by_me(pid))
		{
			TerminateBackgroundWorker(handle);
			stopped = true;
		}
	}
}

/*
 * wait_for_worker, and when the wait is cancelled (or fails), stop the
 * worker and wait for it to end before the error goes on: a charge it
 * committed first stands without a release, and the caller is told.
 */
static bool
wait_for_worker_or_stop(BackgroundWorkerHandle *handle, ChargeShared *sh,
						const char *dataset)
{
	bool		stopped = false;

	PG_TRY();
	{
		stopped = wait_for_worker(handle);
	}
	PG_CATCH();
	{
		pid_t		pid;

		HOLD_INTERRUPTS();
		TerminateBackgroundWorker(handle);
		/* bounded: the worker's lock waits end at its lock_timeout */
		for (;;)
		{
			BgwHandleStatus st = GetBackgroundWorkerPid(handle, &pid);

			if (st == BGWH_STOPPED || st == BGWH_POSTMASTER_DIED)
				break;
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 10, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
		}
		pg_read_barrier();
		if (sh->verdict == JL_VERDICT_COMMITTED ||
			(sh->stage == JL_STAGE_IN_XACT && TransactionIdDidCommit(sh->xid)))
			ereport(WARNING,
					(errmsg("the privacy budget charge %lld of dataset \"%s\" was committed before the release was cancelled",
							(long long) sh->ledger_id, jl_msg_str(dataset)),
					 errdetail("The charge stands and nothing was released; jl_ledger shows it with released = false.")));
		RESUME_INTERRUPTS();
		PG_RE_THROW();
	}
	PG_END_TRY();
	return stopped;
}

int64
jl_charge_committed(const JlChargeRequest *r)
{
	Size		size = offsetof(ChargeShared, data);
	Size		used = 0;
	dsm_segment *seg;
	ChargeShared *sh;
	BackgroundWorkerHandle *handle;
	bool		stopped;
	int64		id;
	int			attempt;

	/*
	 * A superuser's audit: the charge in its own transaction, no worker.
	 * Both the session's user and the current one must be superusers, so
	 * that a superuser's SECURITY DEFINER wrapper called by another role,
	 * with the setting given to that role (ALTER ROLE ... SET, GRANT SET),
	 * still has its charge committed first.
	 */
	if (jl_charge_in_transaction())
		return jl_budget_charge_now(r);

	size = add_size(size, string_size(r->dataset));
	size = add_size(size, string_size(r->source_q));
	size = add_size(size, string_size(r->what));
	size = add_size(size, string_size(r->unit));
	size = add_size(size, string_size(r->actor.name));
	seg = dsm_create(size, 0);
	sh = dsm_segment_address(seg);
	memset(sh, 0, offsetof(ChargeShared, data));
	sh->magic = JL_CHARGE_MAGIC;
	sh->database = MyDatabaseId;
	sh->nsp = r->nsp;
	sh->source = r->source;
	sh->actor = r->actor.role;
	sh->epsilon = r->epsilon;
	sh->delta = r->delta;
	sh->profile = (int32) r->profile;
	sh->rho = r->rho;
	sh->mu = r->mu;
	sh->dataset = put_string(sh, &used, r->dataset);
	sh->source_q = put_string(sh, &used, r->source_q);
	sh->what = put_string(sh, &used, r->what);
	sh->unit = put_string(sh, &used, r->unit);
	sh->actor_name = put_string(sh, &used, r->actor.name);
	sh->verdict = JL_VERDICT_NONE;

	for (attempt = 1;; attempt++)
	{
		handle = start_worker(seg);
		if (handle == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("no background worker could be started to commit the privacy budget charge"),
					 errdetail("Every slot of max_worker_processes stayed taken for %d s; nothing was charged or released.",
							   JL_SLOT_WAIT_MS / 1000),
					 errhint("Raise max_worker_processes (a restart), or run fewer releases and parallel queries at once.")));
		stopped = wait_for_worker_or_stop(handle, sh, r->dataset);
		pfree(handle);
		pg_read_barrier();
		if (sh->verdict == JL_VERDICT_COMMITTED)
		{
			id = sh->ledger_id;
			dsm_detach(seg);
			return id;
		}
		if (stopped)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the privacy budget charge waits for this transaction's own change of dataset \"%s\"",
							jl_msg_str(r->dataset)),
					 errhint("Commit the change first: a release's charge is committed on its own, before the release.")));
		if (sh->verdict == JL_VERDICT_REFUSED)
		{
			int			code = sh->sqlerrcode;
			char	   *message = pstrdup(sh->message);
			char	   *detail = sh->detail[0] ? pstrdup(sh->detail) : NULL;
			char	   *hint = sh->hint[0] ? pstrdup(sh->hint) : NULL;

			dsm_detach(seg);
			ereport(ERROR,
					(errcode(code),
					 errmsg_internal("%s", message),
					 detail ? errdetail_internal("%s", detail) : 0,
					 hint ? errhint("%s", hint) : 0));
		}
		if (sh->stage == JL_STAGE_IN_XACT)
		{
			/* it ended inside its transaction: the commit log decides */
			if (TransactionIdDidCommit(sh->xid))
			{
				id = sh->ledger_id;
				dsm_detach(seg);
				ereport(LOG,
						(errmsg("jldp: the worker committing charge %lld of dataset \"%s\" ended after its commit, before its verdict",
								(long long) id, jl_msg_str(r->dataset))));
				return id;
			}
			dsm_detach(seg);
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("the privacy budget charge of dataset \"%s\" was not committed", jl_msg_str(r->dataset)),
					 errdetail("The background worker committing it ended before its commit; nothing was charged or released. The server log says why it ended."),
					 errhint("Run the release again.")));
		}
		/* it ended before its transaction: nothing was charged */
		if (attempt >= JL_WORKER_ATTEMPTS)
		{
			dsm_detach(seg);
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
					 errmsg("the background worker committing the privacy budget charge could not start"),
					 errdetail("%d workers in a row ended before their transaction (they could not load the jldp library, be forked or connect); nothing was charged or released. The server log says why.",
							   JL_WORKER_ATTEMPTS),
					 errhint("Run the release again; if it keeps failing, check that the server can load jldp.")));
		}
		ereport(LOG,
				(errmsg("jldp: the worker for a charge of dataset \"%s\" ended before its transaction (attempt %d of %d); starting another",
						jl_msg_str(r->dataset), attempt, JL_WORKER_ATTEMPTS)));
		pg_usleep(10000L << attempt);
		CHECK_FOR_INTERRUPTS();
		sh->stage = JL_STAGE_NONE;
		sh->xid = InvalidTransactionId;
		sh->verdict = JL_VERDICT_NONE;
		sh->ledger_id = 0;
		pg_write_barrier();
	}
	return 0;					/* not reached */
}
