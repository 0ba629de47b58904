/*
 * type_checks.c - the checks of jldp's option types that SQL runs where a
 * value is built (the constructors jl_attribute_*, jl_sketch, jl_advised,
 * ...): jl_attribute_checked and jl_mechanism_checked read the value as a
 * release will (pg/pipeline/declaration.c, mechanism.c), so a bad value is
 * refused where it is written, not when it is used.
 */
#include "postgres.h"

#include "fmgr.h"

#include "pg/common/args.h"
#include "pg/pipeline/declaration.h"
#include "pg/pipeline/mechanism.h"

/* jl_attribute_checked(jl_attribute) RETURNS jl_attribute */
PG_FUNCTION_INFO_V1(jl_attribute_checked);
Datum
jl_attribute_checked(PG_FUNCTION_ARGS)
{
	JlAttrDecl	a;

	jl_require_arg(fcinfo, 0, "attribute");
	jl_attribute_read(PG_GETARG_DATUM(0), &a);
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* jl_mechanism_checked(jl_mechanism) RETURNS jl_mechanism */
PG_FUNCTION_INFO_V1(jl_mechanism_checked);
Datum
jl_mechanism_checked(PG_FUNCTION_ARGS)
{
	JlMechanismSpec spec;

	jl_require_arg(fcinfo, 0, "mechanism");
	jl_mechanism_read(PG_GETARG_DATUM(0), &spec);
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}
