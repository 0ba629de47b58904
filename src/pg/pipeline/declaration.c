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
