/*
 * reservation.h - budget reservations (jl_budget_reserve) and their
 * consumption by releases that cannot write.
 */
#ifndef JLDP_PG_RESERVATION_H
#define JLDP_PG_RESERVATION_H

#include "postgres.h"

#include "pg/budget.h"

/*
 * For releases that cannot write (an aggregate's final function may run in
 * parallel mode): consume a reservation made with jl_budget_reserve by this
 * backend in this transaction for dataset that covers (epsilon, delta).
 * Each reservation covers one release; it is marked used before the
 * transaction commits.  ERROR if there is none.
 */
extern void jl_budget_consume_reservation(Oid nsp, const char *dataset,
										  double epsilon, double delta);

/*
 * For jl_release_long: charge req (a reservation of req->dataset, bound to
 * req->source, for the release's own aggregate query) through the charge's
 * worker and hold it in this backend; returns the ledger id.  Only that
 * query consumes it: jl_budget_begin_own_query(ledger id) before the query
 * (returns the value to restore), jl_budget_end_own_query(ledger id,
 * restored) after it in every case (PG_FINALLY), which drops the
 * reservation if it was not consumed.  No other aggregate can take it, and
 * a subtransaction's abort drops it.
 */
extern int64 jl_budget_reserve_for_release(JlChargeRequest *req);
extern int64 jl_budget_begin_own_query(int64 ledger_id);
extern void jl_budget_end_own_query(int64 ledger_id, int64 prev);

#endif
