/*
 * budget.h - the privacy budget: protected datasets with caps, charged by
 * basic composition.
 */
#ifndef JLDP_PG_BUDGET_H
#define JLDP_PG_BUDGET_H

#include "postgres.h"

/*
 * Charge (epsilon, delta) to dataset, refusing (ERROR, nothing written)
 * past its cap.  A dataset not yet declared is declared on first use when
 * source_relid is valid, without a cap.  Serialised by a row lock on the
 * dataset, so concurrent charges cannot together pass the cap.  Needs a
 * transaction that may write (not in parallel mode).  Returns the ledger id.
 */
extern int64 jl_budget_charge(Oid nsp, const char *dataset, Oid source_relid,
							  double epsilon, double delta, const char *what);

/*
 * For releases that cannot write (an aggregate's final function may run in
 * parallel mode): consume a reservation made with jl_budget_reserve in this
 * transaction for dataset that covers (epsilon, delta).  Each reservation
 * covers one release.  ERROR if there is none.
 */
extern void jl_budget_consume_reservation(Oid nsp, const char *dataset,
										  double epsilon, double delta);

/*
 * The dataset declared for a source relation (jl_dataset_declare(...,
 * source => rel)), or NULL; ERROR if several are.
 */
extern char *jl_budget_dataset_for(Oid nsp, Oid source_relid);

#endif
