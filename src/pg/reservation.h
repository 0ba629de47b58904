/*
 * reservation.h - budget reservations (jl_budget_reserve) and their
 * consumption by releases that cannot write.
 */
#ifndef JLDP_PG_RESERVATION_H
#define JLDP_PG_RESERVATION_H

#include "postgres.h"

/*
 * For releases that cannot write (an aggregate's final function may run in
 * parallel mode): consume a reservation made with jl_budget_reserve by this
 * backend in this transaction for dataset that covers (epsilon, delta).
 * Each reservation covers one release; it is marked used before the
 * transaction commits.  ERROR if there is none.
 */
extern void jl_budget_consume_reservation(Oid nsp, const char *dataset,
										  double epsilon, double delta);

#endif
