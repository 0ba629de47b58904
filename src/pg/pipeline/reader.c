/*
 * reader.c - the one reader of a protected table: the query that gives
 * every release its rows, each declared attribute clamped to its bounds
 * and encoded (declaration.h).
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "storage/lmgr.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "storage/lock.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/guc.h"
#include "access/table.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "foreign/foreign.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "utils/partcache.h"

#include "pg/common/calibration_json.h"
#include "pg/common/messages.h"
#include "pg/common/options.h"
#include "pg/catalog/owner.h"
#include "pg/pipeline/declaration.h"
#include "pg/catalog/release_names.h"
#include "pg/catalog/source_relation.h"

/* ---- the reader's query ---- */

static void
append_float(StringInfo b, double v)
{
	appendStringInfo(b, "'%.17g'::pg_catalog.float8", v);
}

/* one attribute as a float8[] expression */
static void
append_encoded(StringInfo b, const char *fn, const JlAttrDecl *a)
{
	const char *col = quote_identifier(a->column);
	int			i;

	switch (a->kind)
	{
		case JL_ATTR_NUMERIC:
		case JL_ATTR_LONG:
			appendStringInfo(b, a->kind == JL_ATTR_LONG ? "%s.jl_encode_number(" : "ARRAY[%s.jl_encode_number(", fn);
			/*
			 * a numeric beyond float8's range is clamped before the cast;
			 * its NaN (which GREATEST would keep) reads as NULL, like float8's
			 */
			if (a->type == NUMERICOID)
				appendStringInfo(b, "LEAST(GREATEST(CASE WHEN %s OPERATOR(pg_catalog.=) 'NaN'::pg_catalog.numeric THEN NULL ELSE %s END, "
								 "'%.17g'::pg_catalog.numeric), '%.17g'::pg_catalog.numeric)::pg_catalog.float8",
								 col, col, a->lo, a->hi);
			else
				appendStringInfo(b, "%s::pg_catalog.float8", col);
			break;
		case JL_ATTR_CATEGORY:
			/*
			 * the value's text is its type's output function's (format's %s:
			 * no cast runs), passed to the encoder's exact signature (text,
			 * text[], float8), which no other function of the schema can
			 * have: a polymorphic call would resolve to an overload of
			 * someone else's for the column's type
			 */
			appendStringInfo(b, "%s.jl_encode_category(CASE WHEN %s IS NULL THEN NULL::pg_catalog.text "
							 "ELSE pg_catalog.format('%%s', %s) END, ARRAY[", fn, col, col);
			for (i = 0; i < a->ncategories; i++)
				appendStringInfo(b, "%s%s", i ? ", " : "", quote_literal_cstr(a->categories[i]));
			appendStringInfoString(b, "]::pg_catalog.text[], ");
			append_float(b, a->weight);
			appendStringInfoChar(b, ')');
			return;
		case JL_ATTR_VECTOR:
			appendStringInfo(b, "%s.jl_encode_vector(%s, %d", fn, col, a->length);
			break;
		case JL_ATTR_EDGE:
			elog(ERROR, "an edge is read by its own query");
	}
	appendStringInfoString(b, ", ");
	append_float(b, a->lo);
	appendStringInfoString(b, ", ");
	append_float(b, a->hi);
	appendStringInfoString(b, ", ");
	append_float(b, a->weight);
	appendStringInfoString(b, a->kind == JL_ATTR_NUMERIC ? ")]" : ")");
}

/*
 * ONLY for a plain table: an inheritance child created while a release
 * runs (which a release's lock does not keep out) is not read with it.  A
 * partitioned table is read whole: its unique unit spans its partitions.
 */
static const char *
from_only(const JlDeclaration *decl)
{
	return get_rel_relkind(decl->relid) == RELKIND_RELATION ? "ONLY " : "";
}

char *
jl_declaration_row_sql(Oid nsp, const JlDeclaration *decl)
{
	const char *fn = quote_identifier(get_namespace_name(nsp));	/* the encoders: jldp_internal */
	StringInfoData b;
	int			i;

	initStringInfo(&b);
	if (decl->long_format)
	{
		const JlAttrDecl *a = &decl->attrs[0];
		StringInfoData v;

		/* the value through the numbers' encoding, without its ARRAY[] */
		initStringInfo(&v);
		append_encoded(&v, fn, a);
		appendStringInfo(&b, "SELECT %s, %s::pg_catalog.int8, %s FROM %s%s ORDER BY 1",
						 quote_identifier(decl->unit), quote_identifier(a->attr_column),
						 v.data, from_only(decl), decl->relation_q);
		return b.data;
	}
	if (decl->edges)
	{
		const JlAttrDecl *a = &decl->attrs[0];
		char	   *u = psprintf("%s::pg_catalog.int8", quote_identifier(a->column)),
				   *v = psprintf("%s::pg_catalog.int8", quote_identifier(a->attr_column)),
				   *ok = psprintf("%s OPERATOR(pg_catalog.<>) %s AND %s OPERATOR(pg_catalog.>=) 1 AND %s OPERATOR(pg_catalog.>=) 1 "
								  "AND %s OPERATOR(pg_catalog.<=) %d AND %s OPERATOR(pg_catalog.<=) %d",
								  u, v, u, v, u, a->length, v, a->length);

		/* NULL endpoints make ok NULL: not an edge either */
		appendStringInfo(&b, "SELECT %s, CASE WHEN %s THEN pg_catalog.int8smaller(%s, %s) END, "
						 "CASE WHEN %s THEN pg_catalog.int8larger(%s, %s) END FROM %s%s",
						 quote_identifier(decl->unit), ok, u, v, ok, u, v, from_only(decl),
						 decl->relation_q);
		return b.data;
	}
	appendStringInfo(&b, "SELECT %s, ", quote_identifier(decl->unit));
	for (i = 1; i < decl->nattrs; i++)
		appendStringInfoString(&b, "pg_catalog.array_cat(");
	for (i = 0; i < decl->nattrs; i++)
	{
		if (i > 0)
			appendStringInfoString(&b, ", ");
		append_encoded(&b, fn, &decl->attrs[i]);
		if (i > 0)
			appendStringInfoChar(&b, ')');
	}
	appendStringInfo(&b, " FROM %s%s", from_only(decl), decl->relation_q);
	if (decl->unit_filter)
		appendStringInfo(&b, " WHERE %s", decl->unit_filter);
	return b.data;
}

char *
jl_declaration_describe(const JlDeclaration *decl)
{
	StringInfoData b;
	int			i;

	initStringInfo(&b);
	for (i = 0; i < decl->nattrs; i++)
	{
		const JlAttrDecl *a = &decl->attrs[i];

		if (i)
			appendStringInfoString(&b, ", ");
		if (a->kind == JL_ATTR_LONG)
			appendStringInfo(&b, "%s in [%g, %g] by %s (d = %d)", a->column, a->lo, a->hi,
							 a->attr_column, a->length);
		else if (a->kind == JL_ATTR_EDGE)
			appendStringInfo(&b, "edges (%s, %s) of vertices 1..%d", a->column, a->attr_column,
							 a->length);
		else if (a->kind == JL_ATTR_CATEGORY)
			appendStringInfo(&b, "%s (%d categories)", a->column, a->ncategories);
		else if (a->kind == JL_ATTR_VECTOR)
			appendStringInfo(&b, "%s[%d] in [%g, %g]", a->column, a->length, a->lo, a->hi);
		else
			appendStringInfo(&b, "%s in [%g, %g]", a->column, a->lo, a->hi);
	}
	return b.data;
}

char *
jl_declaration_json(const JlDeclaration *decl)
{
	StringInfoData b;
	int			i,
				j;

	initStringInfo(&b);
	appendStringInfoString(&b, "\"declaration\": {\"unit\": ");
	escape_json(&b, decl->unit);
	appendStringInfo(&b, ", \"neighbor\": \"%s\", \"d\": %lld", decl->row ? "row" : "attribute",
					 (long long) decl->d);
	jl_json_num(&b, "row_clip", decl->row_clip);
	appendStringInfoString(&b, ", \"attributes\": [");
	for (i = 0; i < decl->nattrs; i++)
	{
		const JlAttrDecl *a = &decl->attrs[i];

		appendStringInfoString(&b, i ? ", {\"column\": " : "{\"column\": ");
		escape_json(&b, a->column);
		appendStringInfo(&b, ", \"encoding\": \"%s\"", a->kind == JL_ATTR_NUMERIC ? "numeric" :
						 (a->kind == JL_ATTR_CATEGORY ? "category" :
						  (a->kind == JL_ATTR_LONG ? "long" :
						   (a->kind == JL_ATTR_EDGE ? "edge" : "vector"))));
		if (a->kind == JL_ATTR_CATEGORY)
		{
			appendStringInfoString(&b, ", \"categories\": [");
			for (j = 0; j < a->ncategories; j++)
			{
				if (j)
					appendStringInfoString(&b, ", ");
				escape_json(&b, a->categories[j]);
			}
			appendStringInfoChar(&b, ']');
		}
		else if (a->kind == JL_ATTR_EDGE)
		{
			appendStringInfo(&b, ", \"vertices\": %d, \"endpoint\": ", a->length);
			escape_json(&b, a->attr_column);
		}
		else
		{
			jl_json_num(&b, "lo", a->lo);
			jl_json_num(&b, "hi", a->hi);
		}
		if (a->kind == JL_ATTR_VECTOR)
			appendStringInfo(&b, ", \"length\": %d", a->length);
		if (a->kind == JL_ATTR_LONG)
		{
			appendStringInfo(&b, ", \"d\": %d, \"attribute_column\": ", a->length);
			escape_json(&b, a->attr_column);
		}
		jl_json_num(&b, "weight", a->weight);
		appendStringInfoChar(&b, '}');
	}
	appendStringInfoString(&b, "]}");
	return b.data;
}
