/*
 * charge_worker.h - budget charges committed by a background worker in a
 * transaction of their own, before the release that pays with them writes
 * any output (docs/design/threat_model.md, attack 12).
 */
#ifndef JLDP_PG_CHARGE_WORKER_H
#define JLDP_PG_CHARGE_WORKER_H

#include "postgres.h"

#include "pg/budget/budget.h"

/*
 * Hand the charge r to a background worker of this database and wait
 * until it has committed it (returns the ledger id) or refused it (the
 * refusal is raised here, with its SQLSTATE, detail and hint).  ERROR as
 * well when no worker can be started or the worker ends without a
 * verdict: nothing is released uncharged.  The charge does not depend on
 * this transaction: a later ROLLBACK leaves it standing.
 */
extern int64 jl_charge_committed(const JlChargeRequest *r);

/*
 * The setting jldp.charge_in_transaction (superusers only, off by
 * default): a superuser's charges are written in its own transaction
 * instead, for audits that release thousands of times (a ROLLBACK undoes
 * such a charge; no budget binds a superuser anyway).
 */
extern void jl_charge_worker_init(void);

/* whether this charge goes in the caller's transaction (the setting applies) */
extern bool jl_charge_in_transaction(void);

/* the worker's entry point (bgw_function_name) */
extern PGDLLEXPORT void jl_charge_worker_main(Datum arg);

#endif
