/*
 * args.h - reading the arguments of an SQL entry point: the one set of
 * helpers every function of src/pg/api uses, so that a NULL, a missing
 * relation or an epsilon out of range is refused alike (22004, 42P01,
 * 22023) and before anything is charged.
 */
#ifndef JLDP_PG_ARGS_H
#define JLDP_PG_ARGS_H

#include "postgres.h"

#include "fmgr.h"

/* ERROR (22004, "name must not be NULL") if argument n is NULL. */
extern void jl_require_arg(FunctionCallInfo fcinfo, int n, const char *name);

/* The same, with the hint (and a detail, NULL for none) given. */
extern void jl_require_arg_hint(FunctionCallInfo fcinfo, int n, const char *name,
								const char *detail, const char *hint);

/*
 * The arguments that must not be NULL, by position: names holds one word
 * per argument from the first, "-" for one that may be NULL, e.g.
 * "d epsilon dist2 - neighbor"; ERROR (22004, "name must not be NULL") at
 * the first NULL one named.
 */
extern void jl_require_named(FunctionCallInfo fcinfo, const char *names);

/* ERROR (22004, "what must not be NULL") if any of arguments 0 .. nargs-1 is NULL. */
extern void jl_require_args(FunctionCallInfo fcinfo, int nargs, const char *what);

/* Argument n as text (a new C string), which must not be NULL. */
extern char *jl_text_arg(FunctionCallInfo fcinfo, int n, const char *name);

/* Argument n as text, NULL when it is NULL. */
extern char *jl_text_arg_or_null(FunctionCallInfo fcinfo, int n);

/* Argument n as float8, which must not be NULL. */
extern double jl_float8_arg(FunctionCallInfo fcinfo, int n, const char *name);

/* Argument n, an epsilon: not NULL, finite and > 0 (else 22023). */
extern double jl_epsilon_arg(FunctionCallInfo fcinfo, int n);

/*
 * Argument n, a pointer (an aggregate's internal state), NULL when the
 * argument is NULL (the first call of a group).
 */
#define JL_STATE_ARG(n) (PG_ARGISNULL(n) ? NULL : PG_GETARG_POINTER(n))

/*
 * A regclass argument: ERROR if it is NULL (22004) or names no relation
 * (42P01: an OID cast to regclass need not exist).
 */
extern Oid	jl_regclass_arg(FunctionCallInfo fcinfo, int n, const char *name);

/*
 * ERROR (42P01) unless relid is a relation that exists; then locked
 * (AccessShareLock) until the transaction ends, so that it cannot be
 * dropped while its names and rows are read.
 */
extern void jl_check_relation(Oid relid);

#endif
