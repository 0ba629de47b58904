/*
 * release_names.c - the source's columns and the target's name of a table
 * release (jl_release_table, jl_release_covariance).
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"

#include "pg/messages.h"
#include "pg/release_names.h"

AttrNumber
jl_column_of(Oid relid, const char *name, Oid *type)
{
	AttrNumber	att = get_attnum(relid, name);

	if (att == InvalidAttrNumber || att < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation %s does not exist",
						jl_msg_str(name), get_rel_name(relid))));
	*type = get_atttype(relid, att);
	return att;
}

bool
jl_numeric_type(Oid t)
{
	return t == FLOAT8OID || t == FLOAT4OID || t == INT2OID || t == INT4OID ||
		t == INT8OID || t == NUMERICOID;
}

void
jl_resolve_target(const char *name, Oid *nsp, char **rel, char **quoted)
{
	List	   *names = textToQualifiedNameList(cstring_to_text(name));
	RangeVar   *rv;

	if (list_length(names) < 1 || list_length(names) > 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("target must be a table name, optionally schema-qualified")));
	/* create in an explicit schema, then open what was created by OID */
	rv = makeRangeVarFromNameList(names);
	*nsp = RangeVarGetCreationNamespace(rv);
	*rel = rv->relname;
	*quoted = quote_qualified_identifier(get_namespace_name(*nsp), *rel);
}
