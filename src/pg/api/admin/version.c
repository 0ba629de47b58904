/*
 * version.c - jldp_version() and the helper the update from 0.2.0 calls.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "pg/catalog/source_relation.h"
#include "pg/common/args.h"

/*
 * The version of the loaded library.  JLDP_VERSION comes from the control
 * file's default_version (see the Makefile), its only source.
 */
PG_FUNCTION_INFO_V1(jldp_version);
Datum
jldp_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(JLDP_VERSION));
}

/*
 * jl_upgrade_base_relation(regclass) RETURNS regclass: the base relation a
 * release of the relation reads, for the update from 0.2.0 only (which
 * creates it, rebinds the datasets 0.2.0 bound to views and partitions,
 * and drops it again).  ERROR where a release would be refused.
 */
PG_FUNCTION_INFO_V1(jl_upgrade_base_relation);
Datum
jl_upgrade_base_relation(PG_FUNCTION_ARGS)
{
	PG_RETURN_OID(jl_source_base_relation(jl_regclass_arg(fcinfo, 0, "relation"), NULL, NULL));
}
