/*
 * args.c - reading the arguments of an SQL entry point (args.h).
 */
#include "postgres.h"

#include <math.h>

#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg/common/args.h"
#include "pg/common/options.h"

void
jl_require_arg_hint(FunctionCallInfo fcinfo, int n, const char *name,
					const char *detail, const char *hint)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", name),
				 detail ? errdetail("%s", detail) : 0,
				 hint ? errhint("%s", hint) : 0));
}

void
jl_require_named(FunctionCallInfo fcinfo, const char *names)
{
	const char *p = names;

	for (int n = 0; *p != '\0'; n++)
	{
		size_t		len = strcspn(p, " ");

		if (!(len == 1 && *p == '-') && n < PG_NARGS() && PG_ARGISNULL(n))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not be NULL", pnstrdup(p, len))));
		p += len;
		p += strspn(p, " ");
	}
}

void
jl_require_args(FunctionCallInfo fcinfo, int nargs, const char *what)
{
	for (int i = 0; i < nargs; i++)
		jl_require_arg(fcinfo, i, what);
}

char *
jl_text_arg(FunctionCallInfo fcinfo, int n, const char *name)
{
	jl_require_arg(fcinfo, n, name);
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

char *
jl_text_arg_or_null(FunctionCallInfo fcinfo, int n)
{
	return PG_ARGISNULL(n) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(n));
}

double
jl_float8_arg(FunctionCallInfo fcinfo, int n, const char *name)
{
	jl_require_arg(fcinfo, n, name);
	return PG_GETARG_FLOAT8(n);
}

double
jl_epsilon_arg(FunctionCallInfo fcinfo, int n)
{
	double		epsilon = jl_float8_arg(fcinfo, n, "epsilon");

	if (!(isfinite(epsilon) && epsilon > 0.0))
		jl_report_status(JL_ERR_EPSILON);
	return epsilon;
}

void
jl_require_arg(FunctionCallInfo fcinfo, int n, const char *name)
{
	jl_require_arg_hint(fcinfo, n, name, NULL, NULL);
}

Oid
jl_regclass_arg(FunctionCallInfo fcinfo, int n, const char *name)
{
	Oid			relid;

	jl_require_arg(fcinfo, n, name);
	relid = PG_GETARG_OID(n);
	jl_check_relation(relid);
	return relid;
}

void
jl_check_relation(Oid relid)
{
	if (OidIsValid(relid) && get_rel_relkind(relid) != '\0')
	{
		/*
		 * Locked until the transaction ends, then checked again (taking the
		 * lock processes the invalidations of a drop that committed
		 * meanwhile): its names and rows stay there while they are read.
		 */
		LockRelationOid(relid, AccessShareLock);
		if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
			return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_TABLE),
			 errmsg("relation with OID %u does not exist", relid)));
}
