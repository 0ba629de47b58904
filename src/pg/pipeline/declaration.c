/*
 * declaration.c - a protected table's declaration, read and checked
 * (declaration.h).
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

/* ---- one attribute ---- */

static Datum
field(HeapTupleHeader th, const char *name, bool *isnull)
{
	return GetAttributeByName(th, name, isnull);
}

static void
refuse_attr(const JlAttrDecl *a, const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("attribute \"%s\": %s", jl_msg_str(a->column), msg),
			 hint ? errhint("%s", hint) : 0));
}

/* a field that must be given, named label in the message after who */
static Datum
required_field(HeapTupleHeader th, const char *name, const char *who, const char *label)
{
	bool		isnull;
	Datum		v = field(th, name, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: %s must not be NULL", who, label)));
	return v;
}

/* a number that must be given (not NULL) */
static double
required_float(HeapTupleHeader th, const JlAttrDecl *a, const char *name)
{
	return DatumGetFloat8(required_field(th, name, psprintf("attribute \"%s\"", jl_msg_str(a->column)),
										 name));
}

/* a field that belongs to another encoding must be NULL */
static void
absent(HeapTupleHeader th, const JlAttrDecl *a, const char *name, const char *encoding)
{
	bool		isnull;

	(void) field(th, name, &isnull);
	if (!isnull)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attribute \"%s\": %s %s attribute has no %s", jl_msg_str(a->column),
						encoding[0] == 'e' ? "an" : "a", encoding, name),
				 errhint("Build attributes with jl_numeric, jl_category or jl_vector.")));
}

/* the public bounds: finite, lo < hi, within the scales every release accepts */
static void
read_bounds(HeapTupleHeader th, JlAttrDecl *a)
{
	a->lo = required_float(th, a, "lo");
	a->hi = required_float(th, a, "hi");
	if (!(isfinite(a->lo) && isfinite(a->hi) && a->lo < a->hi))
		refuse_attr(a, "lo and hi must be finite with lo < hi", NULL);
	if (fabs(a->lo) > JL_MAX_BOUND || fabs(a->hi) > JL_MAX_BOUND ||
		!(a->hi - a->lo >= JL_MIN_BOUND && a->hi - a->lo <= JL_MAX_BOUND))
		refuse_attr(a, psprintf("lo and hi must lie within [-%g, %g] and at least %g apart",
								JL_MAX_BOUND, JL_MAX_BOUND, JL_MIN_BOUND),
					"Declare bounds in the attribute's own units; the release maps them to [0, weight].");
}

static void
read_weight(HeapTupleHeader th, JlAttrDecl *a)
{
	a->weight = required_float(th, a, "weight");
	if (!(isfinite(a->weight) && a->weight >= JL_MIN_BOUND && a->weight <= JL_MAX_BOUND))
		refuse_attr(a, psprintf("weight must lie within [%g, %g]", JL_MIN_BOUND, JL_MAX_BOUND),
					"The weight is the width of the attribute's coordinates (1 by default).");
}

static void
read_categories(HeapTupleHeader th, JlAttrDecl *a)
{
	bool		isnull;
	Datum		v = field(th, "categories", &isnull);
	ArrayType  *arr;
	Datum	   *elems;
	int			n,
				i,
				j;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("attribute \"%s\": categories must not be NULL", jl_msg_str(a->column))));
	arr = DatumGetArrayTypeP(v);
	if (ARR_ELEMTYPE(arr) != TEXTOID || ARR_NDIM(arr) != 1 || array_contains_nulls(arr))
		refuse_attr(a, "categories must be a one-dimensional text[] without NULLs", NULL);
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, NULL, &n);
	if (n < 1 || n > JL_MAX_CATEGORIES)
		refuse_attr(a, psprintf("a category lists 1 to %d values", JL_MAX_CATEGORIES), NULL);
	a->ncategories = n;
	a->categories = palloc(sizeof(char *) * n);
	for (i = 0; i < n; i++)
	{
		a->categories[i] = TextDatumGetCString(elems[i]);
		for (j = 0; j < i; j++)
			if (strcmp(a->categories[i], a->categories[j]) == 0)
				refuse_attr(a, psprintf("category \"%s\" is listed twice", jl_msg_str(a->categories[i])),
							NULL);
	}
}

void
jl_attribute_read(Datum composite, JlAttrDecl *a)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(composite);
	bool		isnull;
	Datum		v;
	char	   *enc,
			   *who,
			   *edge;

	memset(a, 0, sizeof(*a));
	a->lo = a->hi = NAN;
	v = field(th, "column_name", &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("an attribute's column_name must not be NULL")));
	a->column = TextDatumGetCString(v);
	who = psprintf("attribute \"%s\"", jl_msg_str(a->column));
	if (a->column[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an attribute's column_name must not be empty")));
	v = field(th, "encoding", &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("attribute \"%s\": encoding must not be NULL", jl_msg_str(a->column)),
				 errhint("Build attributes with jl_numeric, jl_category or jl_vector.")));
	enc = DatumGetCString(DirectFunctionCall1(enum_out, v));
	read_weight(th, a);
	if (strcmp(enc, "long") != 0 && strcmp(enc, "edge") != 0)
		absent(th, a, "attribute_column", enc);
	if (strcmp(enc, "numeric") == 0)
	{
		a->kind = JL_ATTR_NUMERIC;
		read_bounds(th, a);
		absent(th, a, "categories", enc);
		absent(th, a, "length", enc);
	}
	else if (strcmp(enc, "category") == 0)
	{
		a->kind = JL_ATTR_CATEGORY;
		read_categories(th, a);
		absent(th, a, "lo", enc);
		absent(th, a, "hi", enc);
		absent(th, a, "length", enc);
	}
	else if (strcmp(enc, "long") == 0)
	{
		a->kind = JL_ATTR_LONG;
		read_bounds(th, a);
		absent(th, a, "categories", enc);
		a->length = DatumGetInt32(required_field(th, "length", who, "d"));
		if (a->length < 1)
			refuse_attr(a, "d must be at least 1", NULL);
		a->attr_column = TextDatumGetCString(required_field(th, "attribute_column", who, "attribute_column"));
		return;
	}
	else if (strcmp(enc, "edge") == 0)
	{
		a->kind = JL_ATTR_EDGE;
		absent(th, a, "lo", enc);
		absent(th, a, "hi", enc);
		absent(th, a, "categories", enc);
		if (a->weight != 1.0)
			refuse_attr(a, "an edge has weight 1", "Build edges with jl_edge(u, v, vertices).");
		edge = psprintf("edge (%s, ...)", jl_msg_str(a->column));
		a->length = DatumGetInt32(required_field(th, "length", edge, "vertices"));
		if (a->length < 2 || a->length > JL_MAX_VECTOR_LENGTH)
			refuse_attr(a, psprintf("vertices must lie within [2, %d]", JL_MAX_VECTOR_LENGTH),
						"The graph's vertices are 1 to vertices, public by declaration.");
		a->attr_column = TextDatumGetCString(required_field(th, "attribute_column", edge,
															"the second endpoint"));
	}
	else
	{
		a->kind = JL_ATTR_VECTOR;
		read_bounds(th, a);
		absent(th, a, "categories", enc);
		a->length = DatumGetInt32(required_field(th, "length", who, "length"));
		if (a->length < 1 || a->length > JL_MAX_VECTOR_LENGTH)
			refuse_attr(a, psprintf("length must lie within [1, %d]", JL_MAX_VECTOR_LENGTH), NULL);
	}
}

/* ---- the relation ---- */

void
jl_declaration_check_relation(Oid relid)
{
	const char *name;
	char		kind;

	jl_check_relation(relid);
	name = jl_msg_str(get_rel_name(relid));
	kind = get_rel_relkind(relid);
	if (get_rel_relispartition(relid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s is a partition: only whole relations are protected", name),
				 errdetail("A release of one partition would publish which rows are in it."),
				 errhint("Protect its partitioned table %s.",
						 jl_msg_str(get_rel_name(llast_oid(get_partition_ancestors(relid)))))));
	if (kind == RELKIND_VIEW || kind == RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s is a view: only tables are protected", name),
				 errdetail("A view may select rows by a secret predicate; a release would publish which rows pass it."),
				 errhint("Protect the table the view reads, whole.")));
	if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s is not a table: only tables and partitioned tables are protected", name)));
	if (kind == RELKIND_RELATION &&
		(find_inheritance_children(relid, NoLock) != NIL || has_superclass(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s is in an inheritance hierarchy: only whole relations are protected", name),
				 errdetail("A scan of an inheritance parent reads its children's rows; a child holds some of its parent's."),
				 errhint("Use declarative partitioning, and protect the partitioned table.")));
	if (jl_relation_row_security(relid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s has row level security enabled: it cannot be protected", name),
				 errdetail("A policy chooses the rows each role reads; a release would publish which rows passed it."),
				 errhint("ALTER TABLE %s DISABLE ROW LEVEL SECURITY, or protect a table of the rows to release.", name)));
}

/* ---- binding to the columns ---- */

/* a column of the relation that a declaration may name */
static AttrNumber
declared_column(Oid relid, const char *column, const char *what, Oid *type)
{
	AttrNumber	att = get_attnum(relid, column);

	if (att == InvalidAttrNumber || att < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation %s does not exist", jl_msg_str(column),
						jl_msg_str(get_rel_name(relid)))));
	if (get_attgenerated(relid, att) != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s \"%s\" of %s is a generated column", what, jl_msg_str(column),
						jl_msg_str(get_rel_name(relid))),
				 errdetail("A generated column is computed from other columns: one change of a row would move it and them together, past the declared sensitivity."),
				 errhint("Declare the columns it is computed from.")));
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
		pg_attribute_aclcheck(relid, att, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for column \"%s\" of %s", jl_msg_str(column),
						jl_msg_str(get_rel_name(relid))),
				 errdetail("A release reads every declared column as the role that calls it; checked before anything is charged.")));
	*type = get_atttype(relid, att);
	return att;
}

static void
bind_attribute(const JlDeclaration *decl, JlAttrDecl *a)
{
	a->att = declared_column(decl->relid, a->column, "attribute", &a->type);
	if (a->kind == JL_ATTR_NUMERIC && !jl_numeric_type(a->type))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("attribute \"%s\" is %s, not a number", jl_msg_str(a->column),
						format_type_be(a->type)),
				 errhint("Declare text and other values with jl_category, float8[] with jl_vector.")));
	if (a->kind == JL_ATTR_VECTOR && a->type != FLOAT8ARRAYOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("attribute \"%s\" is %s, not float8[]", jl_msg_str(a->column),
						format_type_be(a->type))));
}

/*
 * Long-format rows: the declaration's only attribute; a number as the
 * value, an integer as the attribute, unique with the unit by the schema
 * (so that a unit holds each attribute once); the unit sortable, so that
 * its rows can be read together.
 */
static void
bind_long(JlDeclaration *decl)
{
	JlAttrDecl *a = &decl->attrs[0];
	TypeCacheEntry *tc;

	if (decl->nattrs != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("long-format rows (jl_long) are the only attribute of their declaration")));
	a->att = declared_column(decl->relid, a->column, "value column", &a->type);
	if (!jl_numeric_type(a->type))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("value column \"%s\" is %s, not a number", jl_msg_str(a->column),
						format_type_be(a->type))));
	a->attr_att = declared_column(decl->relid, a->attr_column, "attribute column", &a->attr_type);
	if (!jl_integer_type(a->attr_type))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("attribute column \"%s\" is %s, not an integer", jl_msg_str(a->attr_column),
						format_type_be(a->attr_type)),
				 errhint("The attribute is the element's number, 1 to d.")));
	if (a->att == decl->unit_att || a->attr_att == decl->unit_att || a->att == a->attr_att)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the unit, the attribute column and the value column must be three columns")));
	if (!jl_columns_unique(decl->relid, (AttrNumber[]) {decl->unit_att, a->attr_att}, 2))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("unit \"%s\" and attribute \"%s\" of %s are not unique together by a constraint",
						jl_msg_str(decl->unit), jl_msg_str(a->attr_column),
						jl_msg_str(get_rel_name(decl->relid))),
				 errdetail("A unit's element is one row only if a primary key, or a unique constraint on the two NOT NULL columns, promises it."),
				 errhint("ALTER TABLE %s ADD PRIMARY KEY (%s, %s).", jl_msg_str(get_rel_name(decl->relid)),
						 jl_msg_str(decl->unit), jl_msg_str(a->attr_column))));
	tc = lookup_type_cache(decl->unit_type, TYPECACHE_LT_OPR | TYPECACHE_EQ_OPR_FINFO);
	if (!OidIsValid(tc->lt_opr) || !OidIsValid(tc->eq_opr_finfo.fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("unit \"%s\" of type %s cannot be sorted", jl_msg_str(decl->unit),
						format_type_be(decl->unit_type)),
				 errdetail("A unit's long-format rows are read together, in the order of the unit.")));
	decl->spans = palloc(sizeof(JlAttrSpan));
	decl->spans[0].encoding = JL_ENCODING_NUMERIC;
	decl->spans[0].offset = 0;
	decl->spans[0].width = a->length;
	decl->spans[0].weight = a->weight;
	decl->d = a->length;
}

/*
 * An edge table: the declaration's only attribute, two integer columns
 * (the endpoints) apart from the unit; the unit unique, so that each edge
 * row is one unit and a release protects one edge row replaced.  d is the
 * vertices: an edge's encoded row is its incidence vector.
 */
static void
bind_edge(JlDeclaration *decl)
{
	JlAttrDecl *a = &decl->attrs[0];

	if (decl->nattrs != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an edge (jl_edge) is the only attribute of its declaration")));
	a->att = declared_column(decl->relid, a->column, "endpoint", &a->type);
	a->attr_att = declared_column(decl->relid, a->attr_column, "endpoint", &a->attr_type);
	if (!jl_integer_type(a->type) || !jl_integer_type(a->attr_type))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the endpoints \"%s\" and \"%s\" must be smallint, integer or bigint",
						jl_msg_str(a->column), jl_msg_str(a->attr_column)),
				 errhint("The vertices are numbered 1 to vertices.")));
	if (a->att == decl->unit_att || a->attr_att == decl->unit_att || a->att == a->attr_att)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the unit and the two endpoints must be three columns")));
	if (!decl->row || !isnan(decl->row_clip))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an edge table's neighbours are rows, without a row clip"),
				 errdetail("A release protects one edge row replaced by any other; an edge's incidence row has a fixed norm."),
				 errhint("Leave neighbor and row_clip out.")));
	decl->spans = palloc(sizeof(JlAttrSpan));
	decl->spans[0].encoding = JL_ENCODING_NUMERIC;
	decl->spans[0].offset = 0;
	decl->spans[0].width = a->length;
	decl->spans[0].weight = 1.0;
	decl->d = a->length;
}

/* the unit: one row each, by a constraint */
static void
require_unique_unit(const JlDeclaration *decl)
{
	if (!jl_column_unique(decl->relid, decl->unit_att))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("unit \"%s\" of %s is not unique by a constraint", jl_msg_str(decl->unit),
						jl_msg_str(get_rel_name(decl->relid))),
				 errdetail("Each row is one privacy unit only if a primary key, or a unique constraint or index on a NOT NULL column, promises it."),
				 errhint("ALTER TABLE %s ADD PRIMARY KEY (%s).", jl_msg_str(get_rel_name(decl->relid)),
						 jl_msg_str(decl->unit))));
}

bool
jl_shard_unit_type(Oid t)
{
	return t == INT2OID || t == INT4OID || t == INT8OID || t == NUMERICOID || t == UUIDOID ||
		t == DATEOID;
}

int
jl_fixed_text_settings(void)
{
	int			level = NewGUCNestLevel();

	(void) set_config_option("datestyle", "ISO, YMD", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	(void) set_config_option("extra_float_digits", "3", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	return level;
}

void
jl_restore_settings(int level)
{
	AtEOXact_GUC(true, level);
}

bool
jl_declaration_sharded(Oid relid, AttrNumber unit_att, Oid unit_type)
{
	Relation	rel;
	PartitionKey key;
	PartitionDesc pd;
	bool		ok;

	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE || unit_att <= 0)
		return false;
	rel = relation_open(relid, AccessShareLock);
	key = RelationGetPartitionKey(rel);
	pd = RelationGetPartitionDesc(rel, true);
	ok = key->partnatts == 1 && key->partattrs[0] != 0 && key->partattrs[0] == unit_att &&
		(key->strategy == PARTITION_STRATEGY_RANGE || key->strategy == PARTITION_STRATEGY_LIST) &&
		pd->nparts > 0 && !OidIsValid(get_default_oid_from_partdesc(pd));
	/* a partition being detached is a partition for some and not others */
	if (ok && RelationGetPartitionDesc(rel, false)->nparts != pd->nparts)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("a partition of sharded table %s is being detached", jl_msg_str(get_rel_name(relid))),
				 errhint("ALTER TABLE %s DETACH PARTITION ... FINALIZE.", jl_msg_str(get_rel_name(relid)))));
	/* a NULL is no unit: no shard reads it */
	if (ok && key->strategy == PARTITION_STRATEGY_LIST && pd->boundinfo != NULL &&
		pd->boundinfo->null_index >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a partition of sharded table %s holds the NULL unit", jl_msg_str(get_rel_name(relid))),
				 errdetail("Each shard reads the units its partition lists; a NULL unit is no unit.")));
	for (int i = 0; ok && i < pd->nparts; i++)
	{
		ForeignTable *ft;

		if (get_rel_relkind(pd->oids[i]) != RELKIND_FOREIGN_TABLE)
		{
			ok = false;
			break;
		}
		ft = GetForeignTable(pd->oids[i]);
		ok = strcmp(GetForeignDataWrapper(GetForeignServer(ft->serverid)->fdwid)->fdwname,
					"postgres_fdw") == 0;
	}
	relation_close(rel, NoLock);
	if (!ok)
		return false;
	if (!jl_shard_unit_type(unit_type))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the unit \"%s\" of sharded table %s is of type %s: a sharded unit is smallint, integer, bigint, numeric, uuid or date",
						jl_msg_str(get_attname(relid, unit_att, false)), jl_msg_str(get_rel_name(relid)),
						format_type_be(unit_type)),
				 errdetail("Each shard reads the units within its partition's bounds, written as text: the unit's order and its text must be the same on every server and in every session (a collation, an enum's order or a setting could differ, and a unit would be read twice)."),
				 errhint("Shard by an integer, date or uuid unit.")));
	return true;
}

void
jl_declaration_bind(JlDeclaration *decl)
{
	int			i,
				j;
	int64		off = 0;

	decl->unit_att = declared_column(decl->relid, decl->unit, "unit", &decl->unit_type);
	if (decl->nattrs < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a protected table declares at least one attribute")));
	decl->long_format = decl->edges = false;
	for (i = 0; i < decl->nattrs; i++)
	{
		if (decl->attrs[i].kind == JL_ATTR_LONG)
			decl->long_format = true;
		if (decl->attrs[i].kind == JL_ATTR_EDGE)
			decl->edges = true;
	}
	if (decl->long_format && decl->edges)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("long-format rows and an edge cannot be declared together")));
	if (decl->long_format)
	{
		bind_long(decl);
		return;
	}
	decl->sharded = jl_declaration_sharded(decl->relid, decl->unit_att, decl->unit_type);
	if (!decl->sharded)
		require_unique_unit(decl);
	else if (decl->edges)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a sharded table cannot be declared as edges")));
	if (decl->edges)
	{
		bind_edge(decl);
		return;
	}
	decl->spans = palloc(sizeof(JlAttrSpan) * decl->nattrs);
	for (i = 0; i < decl->nattrs; i++)
	{
		JlAttrDecl *a = &decl->attrs[i];
		JlAttrSpan *s = &decl->spans[i];

		bind_attribute(decl, a);
		if (a->att == decl->unit_att)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("column \"%s\" is the unit: it cannot also be an attribute",
							jl_msg_str(a->column))));
		for (j = 0; j < i; j++)
			if (decl->attrs[j].att == a->att)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("column \"%s\" is declared twice", jl_msg_str(a->column)),
						 errdetail("One change of the column would move every copy: the sensitivity would be a multiple of the declared one."),
						 errhint("Declare each column once; give it a larger weight to weigh it more.")));
		s->encoding = a->kind == JL_ATTR_CATEGORY ? JL_ENCODING_CATEGORY : JL_ENCODING_NUMERIC;
		s->offset = off;
		s->width = a->kind == JL_ATTR_CATEGORY ? a->ncategories :
			(a->kind == JL_ATTR_VECTOR ? a->length : 1);
		s->weight = a->weight;
		off += s->width;
	}
	if (off > JL_MAX_VECTOR_LENGTH)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the declared attributes encode to %lld coordinates, more than %d",
						(long long) off, JL_MAX_VECTOR_LENGTH)));
	decl->d = off;
}

double
jl_declaration_largest_norm(const JlDeclaration *decl)
{
	double		s = 0.0;
	int			i;

	for (i = 0; i < decl->nattrs; i++)
	{
		const JlAttrSpan *a = &decl->spans[i];
		double		w2 = a->weight * a->weight;

		s += a->encoding == JL_ENCODING_CATEGORY ? w2 : (double) a->width * w2;
	}
	/* a sum of nattrs squares and its root, rounded up */
	return sqrt(s * (1.0 + 4.0 * (decl->nattrs + 2) * (DBL_EPSILON / 2.0))) * (1.0 + DBL_EPSILON);
}

double
jl_declaration_origin_offset(const JlDeclaration *decl, double *offset)
{
	double		s = 0.0;
	int64		c = 0;
	int			i;

	for (i = 0; i < decl->nattrs; i++)
	{
		const JlAttrDecl *a = &decl->attrs[i];
		const JlAttrSpan *sp = &decl->spans[i];
		double		scale,
					o,
					top;
		int64		j;

		if (sp->encoding == JL_ENCODING_CATEGORY)
		{
			for (j = 0; j < sp->width; j++)
				offset[c++] = 0.0;
			s += sp->weight * sp->weight;
			continue;
		}
		scale = a->weight / (a->hi - a->lo);
		o = a->lo * scale;
		/* the largest |x scale| of the clamped range, a hair up */
		top = fmax(fabs(a->lo), fabs(a->hi)) * scale * (1.0 + 4.0 * DBL_EPSILON);
		for (j = 0; j < sp->width; j++)
			offset[c++] = o;
		s += (double) sp->width * top * top;
	}
	Assert(c == decl->d);
	return sqrt(s * (1.0 + 4.0 * (decl->nattrs + 2) * (DBL_EPSILON / 2.0))) * (1.0 + DBL_EPSILON);
}

/* ---- reading a declaration ---- */

/* the jl_protect call that would declare relid, from its columns */
static char *
protect_hint(Oid relid)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	TupleDesc	td = RelationGetDescr(rel);
	StringInfoData b;
	int			i,
				shown = 0;

	initStringInfo(&b);
	appendStringInfo(&b, "Declare it first, with its unit, each attribute's public bounds and a cap: SELECT jl_protect('%s', unit => '<a unique column>', attributes => ARRAY[",
					 get_rel_name(relid));
	for (i = 0; i < td->natts && shown < 6; i++)
	{
		Form_pg_attribute att = TupleDescAttr(td, i);

		if (att->attisdropped || att->attgenerated)
			continue;
		if (shown++)
			appendStringInfoString(&b, ", ");
		if (jl_numeric_type(att->atttypid))
			appendStringInfo(&b, "jl_numeric('%s', <lo>, <hi>)", NameStr(att->attname));
		else if (att->atttypid == FLOAT8ARRAYOID)
			appendStringInfo(&b, "jl_vector('%s', <length>, <lo>, <hi>)", NameStr(att->attname));
		else
			appendStringInfo(&b, "jl_category('%s', '{...}')", NameStr(att->attname));
	}
	appendStringInfoString(&b, "], epsilon_cap => <cap>).");
	relation_close(rel, NoLock);
	return b.data;
}

void
jl_declaration_read_attributes(JlDeclaration *decl, Datum array)
{
	ArrayType  *a = DatumGetArrayTypeP(array);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("attributes must be a one-dimensional array")));
	get_typlenbyvalalign(ARR_ELEMTYPE(a), &typlen, &typbyval, &typalign);
	deconstruct_array(a, ARR_ELEMTYPE(a), typlen, typbyval, typalign, &elems, &nulls, &n);
	if (n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a protected table declares at least one attribute"),
				 errhint("attributes => ARRAY[jl_numeric('age', 18, 95), jl_category('segment', '{a,b,c}')]")));
	decl->nattrs = n;
	decl->attrs = palloc0(sizeof(JlAttrDecl) * n);
	for (i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("attribute %d is NULL", i + 1)));
		jl_attribute_read(elems[i], &decl->attrs[i]);
	}
}

void
jl_declaration_lock(Oid relid, bool exclusive)
{
	/*
	 * An object lock on the relation under a sub-id of jldp's own, held to
	 * the end of the transaction: no SQL function takes one (an advisory
	 * lock, which any role may take, let a role with no privilege on the
	 * table hold every release of it back)
	 */
	LockDatabaseObject(RelationRelationId, relid, JL_DECLARATION_LOCK,
					   exclusive ? ExclusiveLock : ShareLock);
}

static void check_same_columns(const JlDeclaration *decl);

void
jl_declaration_load(Oid nsp, Oid relid, JlDeclaration *decl)
{
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext spi;
	JlOwnerScope scope;
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1];
	bool		isnull;
	HeapTuple	tup;
	TupleDesc	td;
	Datum		v;

	memset(decl, 0, sizeof(*decl));
	jl_declaration_check_relation(relid);
	/* the declaration stays as read until this transaction ends */
	jl_declaration_lock(relid, false);
	decl->relid = relid;
	decl->relation_q = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												  get_rel_name(relid));
	args[0] = ObjectIdGetDatum(relid);
	SPI_connect();
	jl_become_owner(nsp, &scope);

	/*
	 * Read with a snapshot taken now, after the lock (not read-only: SPI
	 * takes a fresh one at read committed, which every release requires).
	 * The statement's snapshot predates a wait for a re-declaration, whose
	 * ledger the release would charge while calibrating to the old one.
	 */
	if (SPI_execute_with_args(psprintf("SELECT name, unit, attributes, neighbor::pg_catalog.text, row_clip, columns "
									   "FROM %s WHERE source OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
									   jl_qualified(nsp, "jldp_dataset")),
							  1, argtypes, args, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the declaration of %s", decl->relation_q);
	if (SPI_processed == 0 &&
		SPI_execute_with_args(psprintf("SELECT 1 FROM %s WHERE target OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
									   jl_qualified(nsp, "jldp_release")),
							  1, argtypes, args, NULL, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s is a release's output, not a protected table", jl_msg_str(decl->relation_q)),
				 errdetail("Its sketches were charged to the table they were released from."),
				 errhint("Name the protected table the release was made from.")));
	jl_restore_user(&scope);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s is not protected", jl_msg_str(decl->relation_q)),
				 errdetail("Only declared tables are released or charged: their unit, attributes, bounds and caps come from the declaration."),
				 errhint("%s", protect_hint(relid))));
	tup = SPI_tuptable->vals[0];
	td = SPI_tuptable->tupdesc;
	spi = MemoryContextSwitchTo(caller);
	decl->dataset = TextDatumGetCString(SPI_getbinval(tup, td, 1, &isnull));
	v = SPI_getbinval(tup, td, 3, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the dataset \"%s\" of %s declares no attributes", jl_msg_str(decl->dataset),
						jl_msg_str(decl->relation_q)),
				 errdetail("It was declared before protected tables (jldp 0.3): its ledger and cap are kept."),
				 errhint("%s", protect_hint(relid))));
	jl_declaration_read_attributes(decl, v);
	v = SPI_getbinval(tup, td, 2, &isnull);
	if (isnull)
		elog(ERROR, "the declaration of %s has no unit", decl->relation_q);
	decl->unit = TextDatumGetCString(v);
	v = SPI_getbinval(tup, td, 4, &isnull);
	if (isnull)
		elog(ERROR, "the declaration of %s has no neighbour notion", decl->relation_q);
	decl->row = strcmp(TextDatumGetCString(v), "row") == 0;
	v = SPI_getbinval(tup, td, 5, &isnull);
	decl->row_clip = isnull ? NAN : DatumGetFloat8(v);
	v = SPI_getbinval(tup, td, 6, &isnull);
	if (!isnull)
	{
		ArrayType  *a = DatumGetArrayTypePCopy(v);
		Datum	   *elems;
		bool	   *nulls;
		int			i;

		if (ARR_ELEMTYPE(a) != INT2OID || ARR_NDIM(a) > 1)
			elog(ERROR, "the declaration of %s has invalid columns", decl->relation_q);
		deconstruct_array(a, INT2OID, 2, true, TYPALIGN_SHORT, &elems, &nulls, &decl->ncolumns);
		decl->columns = palloc(sizeof(int16) * Max(decl->ncolumns, 1));
		for (i = 0; i < decl->ncolumns; i++)
		{
			if (nulls[i])
				elog(ERROR, "the declaration of %s has invalid columns", decl->relation_q);
			decl->columns[i] = DatumGetInt16(elems[i]);
		}
	}
	MemoryContextSwitchTo(spi);
	SPI_finish();
	jl_declaration_bind(decl);
	check_same_columns(decl);
}

int
jl_declaration_columns(const JlDeclaration *decl, int16 *out)
{
	int			n = 0,
				i;

	out[n++] = decl->unit_att;
	for (i = 0; i < decl->nattrs; i++)
	{
		out[n++] = decl->attrs[i].att;
		if (decl->attrs[i].kind == JL_ATTR_LONG || decl->attrs[i].kind == JL_ATTR_EDGE)
			out[n++] = decl->attrs[i].attr_att;
	}
	return n;
}

/*
 * The columns are bound by name at every release: a column renamed (two
 * swapped, say: the unit and a long-format table's attribute column) or
 * dropped and added again since the declaration would be read as what the
 * declaration says it is, under the budget spent for the other.
 */
static void
check_same_columns(const JlDeclaration *decl)
{
	int16	   *now;
	int			n,
				i;

	if (decl->ncolumns == 0)
		return;
	now = palloc(sizeof(int16) * JL_DECLARATION_MAX_COLUMNS(decl->nattrs));
	n = jl_declaration_columns(decl, now);
	for (i = 0; i < n && n == decl->ncolumns; i++)
		if (now[i] != decl->columns[i])
			break;
	if (n != decl->ncolumns || i < n)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the columns of %s are not those it was declared with", jl_msg_str(decl->relation_q)),
				 errdetail("A column the declaration names was renamed, or dropped and added again, since jl_protect: the release would read another column as the unit or an attribute."),
				 errhint("Declare the table again with jl_protect (a unit other than the one its budget was spent for is refused).")));
	pfree(now);
}

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
