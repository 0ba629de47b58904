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
 * worker and hold it in this backend; returns the ledger id.  The query
 * consumes it; jl_budget_forget_reservation(ledger id) drops it afterwards
 * if it was not (an empty source), so nothing else can.
 */
extern int64 jl_budget_reserve_for_release(JlChargeRequest *req);
extern void jl_budget_forget_reservation(int64 ledger_id);

#endif
