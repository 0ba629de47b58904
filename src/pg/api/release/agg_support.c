/*
 * agg_support.c - the support functions of the sketch aggregates
 * (jl_private_release_agg, jl_project_agg): combine two partial states,
 * and a state to bytes and back for parallel workers.  The state and its
 * format are pg/engines/agg_state.c's.
 */
#include "postgres.h"

#include "fmgr.h"

#include "pg/common/args.h"
#include "pg/engines/agg_state.h"

PG_FUNCTION_INFO_V1(jl_agg_combine);
PG_FUNCTION_INFO_V1(jl_agg_serialize);
PG_FUNCTION_INFO_V1(jl_agg_deserialize);

Datum
jl_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = jl_agg_context(fcinfo, "jl_agg_combine");
	JlAggState *st = jl_agg_state_combine(aggcxt, (JlAggState *) JL_STATE_ARG(0),
										  (JlAggState *) JL_STATE_ARG(1));

	if (st == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(st);
}

Datum
jl_agg_serialize(PG_FUNCTION_ARGS)
{
	jl_agg_context(fcinfo, "jl_agg_serialize");
	PG_RETURN_BYTEA_P(jl_agg_state_serialize((JlAggState *) PG_GETARG_POINTER(0)));
}

Datum
jl_agg_deserialize(PG_FUNCTION_ARGS)
{
	jl_agg_context(fcinfo, "jl_agg_deserialize");
	PG_RETURN_POINTER(jl_agg_state_deserialize(PG_GETARG_BYTEA_PP(0)));
}
