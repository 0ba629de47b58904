/*
 * agg_charge.h - the privacy budget of jl_private_release_agg: one
 * reservation consumed per scan of the aggregate's plan node, and the plans
 * under which that charge would not cover what is released, refused.
 */
#ifndef JLDP_PG_AGG_CHARGE_H
#define JLDP_PG_AGG_CHARGE_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/pg_list.h"

#include "pg/agg_state.h"

struct JlAggShared;

/* What one call site of the final function knows about its charges. */
typedef struct JlAggCharge
{
	bool		charged;		/* this scan of the plan node is paid for */
	bool		armed;			/* reset callback registered */
	bool		reset_seen;		/* the node's expression context was reset */
	Datum		last_result;	/* what the last call returned */
	bool		shared_checked; /* shared below has been looked up */
	struct JlAggShared *shared; /* charge shared with sibling partitions, or NULL */
	List	   *read;			/* the partitions the node reads, for shared */
	List	   *roots;			/* their partitioned tables */
} JlAggCharge;

/* ERROR unless the final function runs as a plain (not window) aggregate. */
extern void jl_agg_refuse_window(FunctionCallInfo fcinfo);

/*
 * ERROR for plans whose groups are not disjoint in rows or where the budget
 * cannot be consumed safely; before the first group is released.
 */
extern void jl_agg_check_plan(FunctionCallInfo fcinfo);

/*
 * Before a group with parameters p is output: consume a reservation of
 * schema nsp's budget for p's dataset unless this scan is paid for already.
 * c must live as long as the call site (fn_mcxt).
 */
extern void jl_agg_charge(FunctionCallInfo fcinfo, JlAggCharge *c, Oid nsp,
						  const JlAggParams *p);

/* A group with no rows released nothing: the next group charges anew. */
static inline void
jl_agg_charge_none(JlAggCharge *c)
{
	c->charged = false;
}

/* The group's result, by which a later call tells a rescan from a group. */
static inline void
jl_agg_charge_returned(JlAggCharge *c, Datum result)
{
	c->last_result = result;
}

#endif
