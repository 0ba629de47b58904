/*
 * binding.c - a declaration bound to its relation's columns: each declared
 * column exists, is not generated, has a type its encoding reads, and the
 * unit is unique (declaration.h).
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
