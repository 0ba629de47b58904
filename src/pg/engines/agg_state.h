/*
 * agg_state.h - the state of the aggregate releases (jl_private_release_agg,
 * jl_project_agg): their parameters, read from the transition function's
 * arguments and checked, and the (attr, value) pairs of one group.
 */
#ifndef JLDP_PG_AGG_STATE_H
#define JLDP_PG_AGG_STATE_H

#include "postgres.h"

#include "fmgr.h"

#include "math/projection/sparse.h"

typedef enum JlAggKind
{
	JL_AGG_RELEASE = 1,
	JL_AGG_PROJECT = 2
} JlAggKind;

typedef struct JlAggParams
{
	int32		kind;			/* JlAggKind */
	int32		d;				/* attribute domain (0 for project) */
	int32		k;
	int32		neighbor;		/* JlNeighbor */
	int32		calibration;	/* JlCalibration */
	uint32		proj;			/* JlKind, sparse density resolved */
	int32		noise;			/* JlNoise */
	double		epsilon;
	double		bound;
	double		delta;			/* NaN when NULL */
	char	   *key;
} JlAggParams;

typedef struct JlAggState
{
	JlAggParams p;
	JlSparsePair *pairs;
	int64		n;				/* pairs used */
	int64		ncompact;		/* pairs[0..ncompact-1]: sorted, distinct */
	int64		cap;
} JlAggState;

/* The aggregate's memory context; ERROR (naming fn) outside an aggregate. */
extern MemoryContext jl_agg_context(FunctionCallInfo fcinfo, const char *fn);

/* The first parameter in which a and b differ, or NULL. */
extern const char *jl_agg_params_differ(const JlAggParams *a,
										const JlAggParams *b);

/* ERROR unless p is a valid release, checked as the dense release does. */
extern void jl_agg_check_release_params(const JlAggParams *p);


/* A new state in mcxt for a group whose first row has these parameters. */
extern JlAggState *jl_agg_state_create(MemoryContext mcxt, const JlAggParams *p,
									   text *key);

/* ERROR unless a later row of the group has the state's parameters. */
extern void jl_agg_state_check_params(const JlAggState *st,
									  const JlAggParams *p, text *key);


/* Add value v of attribute attr, ERROR if either is out of range. */
extern void jl_agg_state_add(JlAggState *st, int32 attr, double v);

/*
 * The state's pairs sorted and distinct, without changing the state: its
 * own array or a palloc'd copy (*n pairs), freed by jl_agg_state_pairs_free.
 */
extern const JlSparsePair *jl_agg_state_pairs(const JlAggState *st, int64 *n);
extern void jl_agg_state_pairs_free(const JlAggState *st,
									const JlSparsePair *pairs);

/*
 * The aggregate's support functions' work (api/release/agg_support.c):
 * two partial states combined into one (either may be NULL), and a state
 * to bytes and back, the bytes checked as coming from outside.
 */
extern JlAggState *jl_agg_state_combine(MemoryContext aggcxt, JlAggState *s1, JlAggState *s2);
extern bytea *jl_agg_state_serialize(JlAggState *st);
extern JlAggState *jl_agg_state_deserialize(bytea *in);

#endif
