/*
 * release_names.c - the source's columns and the target's name of a table
 * release (the pipeline, the covariance and graph mechanisms).
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"

#include "pg/common/arrays.h"
#include "pg/common/messages.h"
#include "pg/catalog/release_names.h"

bool
jl_numeric_type(Oid t)
{
	return t == FLOAT8OID || t == FLOAT4OID || t == INT2OID || t == INT4OID ||
		t == INT8OID || t == NUMERICOID;
}

bool
jl_integer_type(Oid t)
{
	return t == INT2OID || t == INT4OID || t == INT8OID;
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

Oid
jl_create_vector_table(const char *quoted, Oid nsp, const char *rel,
					   const char *id_col, const char *vec_col)
{
	Oid			relid;

	if (SPI_execute(psprintf("CREATE TABLE %s (%s pg_catalog.int4 PRIMARY KEY, %s pg_catalog.float8[] NOT NULL)",
							 quoted, id_col, vec_col), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create the target table");
	relid = get_relname_relid(rel, nsp);
	if (!OidIsValid(relid))
		elog(ERROR, "created table %s not found", quoted);
	return relid;
}

void
jl_fill_vector_table(const char *quoted, const char *id_col, const char *vec_col,
					 const double *rows, int count, int width)
{
	Oid			types[2] = {INT4OID, FLOAT8ARRAYOID};
	SPIPlanPtr	plan;
	int			i;

	plan = SPI_prepare(psprintf("INSERT INTO %s (%s, %s) VALUES ($1, $2)", quoted, id_col, vec_col),
					   2, types);
	if (plan == NULL)
		elog(ERROR, "could not prepare the insert into %s", quoted);
	for (i = 0; i < count; i++)
	{
		Datum		values[2];

		values[0] = Int32GetDatum(i + 1);
		values[1] = PointerGetDatum(jl_vector_array(rows + (Size) i * width, width));
		if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not insert into %s", quoted);
		pfree(DatumGetPointer(values[1]));
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	SPI_freeplan(plan);
}
