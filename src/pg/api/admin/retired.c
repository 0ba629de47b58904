/*
 * retired.c - the C entry points of functions that 0.4.2 and 1.0.0
 * removed.
 *
 * The install scripts of earlier versions still name these symbols (an
 * upgrade walks the chain from the version installed, and PostgreSQL looks
 * every C function's symbol up when it is created), and a server whose
 * library was replaced before ALTER EXTENSION jldp UPDATE still has the old
 * SQL functions.  Each answers with what replaced it; none reads or
 * charges anything.
 */
#include "postgres.h"

#include "fmgr.h"

static void
retired(const char *name, const char *version, const char *why, const char *instead)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s was removed in jldp %s", name, version),
			 errdetail("%s", why),
			 errhint("%s  Run ALTER EXTENSION jldp UPDATE if this database still has the old function.", instead)));
}

#define RETIRED_IN(fn, version, why, instead) \
	PG_FUNCTION_INFO_V1(fn); \
	Datum fn(PG_FUNCTION_ARGS); \
	Datum fn(PG_FUNCTION_ARGS) { retired(#fn, version, why, instead); PG_RETURN_NULL(); }

#define RETIRED(fn, instead) \
	RETIRED_IN(fn, "0.4.2", "Releases read a table only through its declaration, and every budgeted release runs one pipeline.", instead)

/* 1.0.0: budgets are a protected table's, managed by the table */
#define BY_TABLE "A budget belongs to a protected table and is managed by the table."

RETIRED_IN(jl_dataset_declare, "1.0.0", BY_TABLE,
		   "Declare the table with jl_protect(table, unit, attributes, epsilon_cap => ..., delta_cap => ...): its budget is declared with it.")
RETIRED_IN(jl_dataset_set_cap, "1.0.0", BY_TABLE,
		   "Use jl_set_cap(protected, epsilon_cap, delta_cap).")
RETIRED_IN(jl_dataset_reset, "1.0.0", BY_TABLE,
		   "Use jl_reset(protected).")
RETIRED_IN(jl_dataset_grant, "1.0.0", BY_TABLE,
		   "Use jl_protect_grant(protected, role).")
RETIRED_IN(jl_dataset_revoke, "1.0.0", BY_TABLE,
		   "Use jl_protect_revoke(protected, role).")

RETIRED(jl_release_table,
		"Declare the table once with jl_protect(table, unit, attributes, ...) and release it with jl_release(table, target, epsilon, jl_sketch(k => ...)).")
RETIRED(jl_release_long,
		"Declare the long-format table with jl_protect(table, unit, ARRAY[jl_long(attribute_column, value_column, d, lo, hi)], ...) and release it with jl_release(table, target, epsilon, jl_sketch(k => ...)).")
RETIRED(jl_release_covariance,
		"Declare the table with jl_protect and release it with jl_release(table, target, epsilon, jl_covariance_mechanism(r, delta)).")
RETIRED(jl_release_graph,
		"Declare the edge table with jl_protect(table, unit, ARRAY[jl_edge(u, v, vertices)], ...) and release it with jl_release(table, target, epsilon, jl_graph(r, delta)).")
RETIRED(jl_release_dist2,
		"Declare the table with jl_protect and call jl_release_dist2(table, epsilon).")
RETIRED(jl_budget_reserve,
		"Book the cost of an unbudgeted release with jl_budget_book(protected, epsilon, delta, note).")
RETIRED(jl_private_release_agg_trans,
		"Use jl_private_release_agg(attr, value, d, epsilon, bound, neighbor, jl_sketch(...), key), which charges nothing, and book its cost with jl_budget_book; or declare the table with jl_long and release it with jl_release.")
RETIRED(jl_distributed_begin,
		"Declare the sharded table with jl_protect on the coordinator and on each shard, and CALL jl_release_distributed(table, target, epsilon, jl_sketch(...), key).")
RETIRED(jl_distributed_decide,
		"Declare the sharded table with jl_protect on the coordinator and on each shard, and CALL jl_release_distributed(table, target, epsilon, jl_sketch(...), key).")
