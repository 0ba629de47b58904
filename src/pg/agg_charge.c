/*
 * agg_charge.c - the privacy budget of jl_private_release_agg.
 *
 * All groups of one scan of the aggregate share their parameters and one
 * charge (the groups hold disjoint rows): the first group consumes a budget
 * reservation (jl_budget_reserve) for the dataset before anything is
 * output; the final function may run in parallel mode, where the budget
 * tables cannot be written.  What would release the same rows twice under
 * one charge is refused or charged again: a rescan of the aggregate's plan
 * node (a correlated subquery, a nested loop) needs a reservation of its own
 * (see jl_agg_charge); grouping sets and window use are refused.
 */
#include "postgres.h"

#include "fmgr.h"

#include "access/parallel.h"
#include "executor/executor.h"
#include "executor/nodeAgg.h"
#include "nodes/execnodes.h"
#include "nodes/plannodes.h"

#include "math/mechanism.h"

#include "pg/agg_charge.h"
#include "pg/reservation.h"

void
jl_agg_refuse_window(FunctionCallInfo fcinfo)
{
	if (AggCheckCallContext(fcinfo, NULL) != AGG_CONTEXT_AGGREGATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("jl_private_release_agg cannot be used as a window function"),
				 errdetail("Each window frame would be released with fresh noise, spending epsilon again.")));
}

/* the aggregate node's output expression context was reset */
static void
agg_context_reset(Datum arg)
{
	JlAggCharge *c = (JlAggCharge *) DatumGetPointer(arg);

	c->reset_seen = true;
	c->armed = false;			/* callbacks fire once */
}

/*
 * One reservation per scan of the plan node, consumed before the scan's
 * first group is output.  A rescan (ExecReScan) resets the node's output
 * expression context, which runs our callback; hashed aggregation never
 * resets it otherwise.  Sorted aggregation also resets it before every
 * group, but only a rescan clears the node's aggregate values, where our
 * previous result still sits while a scan goes on.  Plain aggregation has
 * one group per scan.  When unsure, charge: a spurious charge refuses a
 * query, a missed one would release the same rows twice.
 */
void
jl_agg_charge(FunctionCallInfo fcinfo, JlAggCharge *c, Oid nsp,
			  const JlAggParams *p)
{
	AggState   *aggstate = (AggState *) fcinfo->context;
	ExprContext *econtext = aggstate->ss.ps.ps_ExprContext;
	bool		new_scan;

	if (!c->charged || aggstate->aggstrategy == AGG_PLAIN)
		new_scan = true;
	else if (!c->reset_seen)
		new_scan = false;
	else if (aggstate->aggstrategy == AGG_HASHED)
		new_scan = true;
	else
	{
		int			slot = aggstate->curperagg - aggstate->peragg;

		new_scan = !(aggstate->curperagg != NULL && slot >= 0 &&
					 slot < aggstate->numaggs &&
					 !econtext->ecxt_aggnulls[slot] &&
					 econtext->ecxt_aggvalues[slot] == c->last_result);
	}
	if (new_scan)
	{
		c->charged = false;
		/*
		 * an accepted Laplace release is pure epsilon-DP: charged with
		 * delta 0; a Gaussian one with the requested delta
		 */
		jl_budget_consume_reservation(nsp, p->dataset, p->epsilon,
									  p->noise == JL_NOISE_GAUSSIAN ?
									  p->delta : 0.0);
		c->charged = true;
	}
	c->reset_seen = false;
	if (!c->armed)
	{
		RegisterExprContextCallback(econtext, agg_context_reset,
									PointerGetDatum(c));
		c->armed = true;
	}
}

/*
 * Plans whose groups are not disjoint in rows, or where the budget cannot
 * be consumed safely, are refused before anything is released.
 */
void
jl_agg_check_plan(FunctionCallInfo fcinfo)
{
	AggState   *aggstate = (AggState *) fcinfo->context;
	Agg		   *plan = (Agg *) aggstate->ss.ps.plan;

	/* grouping sets release the same rows once per set */
	if (list_length(plan->groupingSets) > 1 || plan->chain != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("jl_private_release_agg cannot be used with GROUPING SETS, ROLLUP or CUBE"),
				 errdetail("Every grouping set would release the same rows again under one charge."),
				 errhint("Release each grouping in a statement of its own.")));

	/*
	 * The final step runs in a parallel worker only under partitionwise
	 * aggregation; a worker cannot tell which reservations the others used.
	 */
	if (IsParallelWorker())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("jl_private_release_agg cannot finish in a parallel worker"),
				 errhint("SET enable_partitionwise_aggregate = off for the release.")));
}
