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
 *
 * Partitionwise aggregation (enable_partitionwise_aggregate, grouped by
 * the partition key) runs one aggregate node per partition under an
 * Append of the partitioned table: each group lies in one partition, so
 * the nodes together release exactly the groups of one unpartitioned
 * aggregate, and share one reservation.  Safety rests on one rule: under
 * one charge, no partition is read twice.  A node joins the current
 * charge of its Append only if every relation below it is a partition of
 * the Append's partitioned tables and none of them was read under that
 * charge yet (a node scanned again, an Append rescanned, or UNION ALL
 * branches flattened into one Append read a partition again); otherwise
 * it consumes a new reservation, which then starts a new charge.
 */
#include "postgres.h"

#include "fmgr.h"

#include "access/parallel.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "executor/nodeAgg.h"
#include "nodes/execnodes.h"
#include "nodes/plannodes.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

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

/*
 * The charge the aggregate nodes under one Append of a partitioned table
 * share in one execution of a query.
 */
typedef struct JlAggShared
{
	EState	   *estate;
	Plan	   *append;
	bool		charged;
	List	   *read;			/* OIDs of the partitions read under it */
	List	   *roots;			/* and of their partitioned tables */
	char	   *dataset;		/* what it was charged for */
	double		epsilon;
	double		delta;
	JlNoise		noise;
	struct JlAggShared *next;
} JlAggShared;

/* the shared charges of the executions running in this backend */
static JlAggShared *shared_charges = NULL;

/* an execution's memory goes: its shared charges go from the list */
static void
forget_shared(void *arg)
{
	EState	   *estate = (EState *) arg;
	JlAggShared **p = &shared_charges;

	while (*p != NULL)
	{
		if ((*p)->estate == estate)
			*p = (*p)->next;
		else
			p = &(*p)->next;
	}
}

/* the Append or MergeAppend whose direct child is target, or NULL */
static Plan *
parent_append(Plan *node, Plan *target)
{
	List	   *children = NIL;
	ListCell   *lc;
	Plan	   *found;

	if (node == NULL)
		return NULL;
	if (IsA(node, Append))
		children = ((Append *) node)->appendplans;
	else if (IsA(node, MergeAppend))
		children = ((MergeAppend *) node)->mergeplans;
	foreach(lc, children)
	{
		if (lfirst(lc) == target)
			return node;
		if ((found = parent_append(lfirst(lc), target)) != NULL)
			return found;
	}
	if (IsA(node, SubqueryScan) &&
		(found = parent_append(((SubqueryScan *) node)->subplan, target)) != NULL)
		return found;
	if ((found = parent_append(node->lefttree, target)) != NULL)
		return found;
	return parent_append(node->righttree, target);
}

/* a and b have the same members */
static bool
same_oids(List *a, List *b)
{
	ListCell   *lc;

	if (list_length(a) != list_length(b))
		return false;
	foreach(lc, a)
		if (!list_member_oid(b, lfirst_oid(lc)))
			return false;
	return true;
}

static bool
oids_overlap(List *a, List *b)
{
	ListCell   *lc;

	foreach(lc, a)
		if (list_member_oid(b, lfirst_oid(lc)))
			return true;
	return false;
}

/*
 * Add to *read the relations the plan below node scans, all partitions,
 * and to *roots the partitioned tables at the top of their trees; false if
 * something else is read (or cannot be told).
 */
static bool
partitions_read(EState *estate, Plan *node, List **read, List **roots)
{
	List	   *children = NIL;
	ListCell   *lc;

	if (node == NULL)
		return true;
	if (IsA(node, SubqueryScan))
		return partitions_read(estate, ((SubqueryScan *) node)->subplan, read, roots);
	if (nodeTag(node) >= T_Scan && nodeTag(node) <= T_CustomScan)
	{
		Index		scanrelid = ((Scan *) node)->scanrelid;
		RangeTblEntry *rte;

		if (scanrelid == 0)
			return false;
		rte = rt_fetch(scanrelid, estate->es_range_table);
		if (rte->rtekind != RTE_RELATION || !get_rel_relispartition(rte->relid))
			return false;
		*read = list_append_unique_oid(*read, rte->relid);
		*roots = list_append_unique_oid(*roots,
										llast_oid(get_partition_ancestors(rte->relid)));
	}
	if (IsA(node, Append))
		children = ((Append *) node)->appendplans;
	else if (IsA(node, MergeAppend))
		children = ((MergeAppend *) node)->mergeplans;
	else if (IsA(node, BitmapAnd))
		children = ((BitmapAnd *) node)->bitmapplans;
	else if (IsA(node, BitmapOr))
		children = ((BitmapOr *) node)->bitmapplans;
	foreach(lc, children)
		if (!partitions_read(estate, lfirst(lc), read, roots))
			return false;
	return partitions_read(estate, node->lefttree, read, roots) &&
		partitions_read(estate, node->righttree, read, roots);
}

/*
 * The charge this aggregate node shares with its siblings when it is a
 * partition's aggregate under partitionwise aggregation (a direct child of
 * an Append reading only partitions), with into *read the partitions it
 * reads and into *roots their partitioned tables; else NULL.
 */
static JlAggShared *
find_shared(AggState *aggstate, List **read, List **roots)
{
	EState	   *estate = aggstate->ss.ps.state;
	Plan	   *self = aggstate->ss.ps.plan;
	Plan	   *append = NULL;
	JlAggShared *sh;
	ListCell   *lc;
	MemoryContextCallback *cb;
	bool		known = false;

	if (estate->es_plannedstmt == NULL)
		return NULL;
	append = parent_append(estate->es_plannedstmt->planTree, self);
	foreach(lc, estate->es_plannedstmt->subplans)
		if (append == NULL)
			append = parent_append(lfirst(lc), self);
	if (append == NULL || !partitions_read(estate, self->lefttree, read, roots) ||
		*read == NIL)
		return NULL;
	for (sh = shared_charges; sh != NULL; sh = sh->next)
	{
		if (sh->estate != estate)
			continue;
		if (sh->append == append)
			return sh;
		known = true;
	}
	sh = MemoryContextAllocZero(estate->es_query_cxt, sizeof(JlAggShared));
	sh->estate = estate;
	sh->append = append;
	if (!known)
	{
		cb = MemoryContextAlloc(estate->es_query_cxt, sizeof(*cb));
		cb->func = forget_shared;
		cb->arg = estate;
		MemoryContextRegisterResetCallback(estate->es_query_cxt, cb);
	}
	sh->next = shared_charges;
	shared_charges = sh;
	return sh;
}

/*
 * The node may release under the shared charge as it stands: the same
 * release of other partitions of the same tables.
 */
static bool
may_join(const JlAggShared *sh, const JlAggParams *p, const JlAggCharge *c)
{
	return sh->charged && strcmp(sh->dataset, p->dataset) == 0 &&
		sh->epsilon == p->epsilon && sh->noise == p->noise &&
		(sh->noise != JL_NOISE_GAUSSIAN || sh->delta == p->delta) &&
		same_oids(sh->roots, c->roots) && !oids_overlap(sh->read, c->read);
}

/*
 * A new scan of this node: consume a reservation, unless the node shares
 * the charge of its partitionwise siblings and reads no partition read
 * under it yet.
 */
static void
charge_scan(AggState *aggstate, JlAggCharge *c, Oid nsp, const JlAggParams *p)
{
	JlAggShared *sh;
	MemoryContext old = MemoryContextSwitchTo(aggstate->ss.ps.state->es_query_cxt);

	if (!c->shared_checked)
	{
		c->read = c->roots = NIL;
		c->shared = find_shared(aggstate, &c->read, &c->roots);
		c->shared_checked = true;
	}
	sh = c->shared;
	if (sh != NULL && may_join(sh, p, c))
	{
		sh->read = list_concat(sh->read, c->read);
		MemoryContextSwitchTo(old);
		return;
	}
	/*
	 * an accepted Laplace release is pure epsilon-DP: charged with delta 0;
	 * a Gaussian one with the requested delta
	 */
	jl_budget_consume_reservation(nsp, p->dataset, p->epsilon,
								  p->noise == JL_NOISE_GAUSSIAN ?
								  p->delta : 0.0);
	if (sh != NULL)
	{
		sh->charged = true;
		sh->read = list_copy(c->read);
		sh->roots = c->roots;
		sh->dataset = pstrdup(p->dataset);
		sh->epsilon = p->epsilon;
		sh->delta = p->delta;
		sh->noise = p->noise;
	}
	MemoryContextSwitchTo(old);
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
		charge_scan(aggstate, c, nsp, p);
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
