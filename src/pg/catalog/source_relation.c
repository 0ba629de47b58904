/*
 * source_relation.c - the base relation a release's source reads.
 *
 * A release is charged to the dataset of the relation whose rows it
 * reads, never to one of a view or a partition of it (that would give
 * every view and partition a fresh budget).  Only sources whose rows are
 * a subset of one base relation's rows, each at most once, are resolved:
 * a simple view (PostgreSQL's automatically updatable views, which select
 * from one relation with no joins, grouping or set-returning functions,
 * and besides no subqueries), a partition.  Anything else that could mix
 * or repeat rows is refused (docs/design/threat_model.md, attacks 10 and 11).
 *
 * Every relation on the way, the source, its views and the base relation,
 * is locked (AccessShareLock) until the transaction ends: what was checked
 * here is what the release reads after its charge, which may wait.  A view
 * cannot be redefined, nor an index or constraint dropped, in between
 * (attack 18).
 */
#include "postgres.h"

#include "fmgr.h"

#include "access/table.h"
#include "storage/lmgr.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_index.h"
#include "commands/defrem.h"
#include "catalog/pg_inherits.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteHandler.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"
#include "access/htup_details.h"
#include "access/xact.h"
#include "executor/spi.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/resowner.h"

#include "pg/common/messages.h"
#include "pg/common/options.h"
#include "pg/catalog/source_relation.h"

/* views nest at most this deep (PostgreSQL has no limit; loops cannot be) */
#define JL_MAX_VIEW_DEPTH 64

static void
refuse_view(Oid relid, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("view %s cannot be released with a budget: %s",
					jl_msg_str(get_rel_name(relid)), why),
			 errdetail("A release through a view is charged to the relation it reads; only a view of one relation's rows, each at most once, can be."),
			 errhint("Release the base relation, or a simple view of it (one relation in FROM, no joins, grouping, set operations, subqueries or set-returning functions).")));
}

/*
 * The one relation a simple view selects from, and *att the column of
 * it that the view's column att is (InvalidAttrNumber: an expression).
 */
static Oid
view_base(Oid view, AttrNumber *att)
{
	Relation	rel = table_open(view, AccessShareLock);
	Query	   *q = get_view_query(rel);
	const char *why = view_query_is_auto_updatable(q, false);
	RangeTblRef *rtr;
	RangeTblEntry *rte;
	Oid			base;

	if (why == NULL && q->hasSubLinks)
		why = "it has a subquery";
	if (why != NULL)
		refuse_view(view, why);
	rtr = linitial_node(RangeTblRef, q->jointree->fromlist);
	rte = rt_fetch(rtr->rtindex, q->rtable);
	base = rte->relid;
	if (*att != InvalidAttrNumber)
	{
		TargetEntry *te = get_tle_by_resno(q->targetList, *att);
		Var		   *v = (te && IsA(te->expr, Var)) ? (Var *) te->expr : NULL;

		*att = (v && v->varno == rtr->rtindex && v->varlevelsup == 0) ?
			v->varattno : InvalidAttrNumber;
	}
	/* the lock is kept: the view's definition stays what was checked */
	table_close(rel, NoLock);
	return base;
}

void
jl_source_lock(Oid relid)
{
	jl_check_relation(relid);
}

Oid
jl_source_base_relation(Oid source, const char *column, AttrNumber *base_att)
{
	Oid			relid = source;
	AttrNumber	att;
	int			depth;

	jl_source_lock(source);
	att = column ? get_attnum(source, column) : InvalidAttrNumber;
	if (att < 0)
		att = InvalidAttrNumber;
	for (depth = 0;; depth++)
	{
		char		kind;

		jl_source_lock(relid);
		kind = get_rel_relkind(relid);

		if (depth > JL_MAX_VIEW_DEPTH)
			refuse_view(source, "its views nest too deep");
		if (kind == RELKIND_VIEW)
		{
			relid = view_base(relid, &att);
			continue;
		}
		if (kind == RELKIND_MATVIEW)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("materialized view %s cannot be released with a budget",
							jl_msg_str(get_rel_name(relid))),
					 errdetail("Its rows are a copy, which no dataset of the relations it was made from would pay for."),
					 errhint("Release the relation it reads, or a simple view of it.")));
		if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE &&
			kind != RELKIND_FOREIGN_TABLE)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("%s is not a table, a foreign table or a view",
							jl_msg_str(get_rel_name(relid)))));
		if (get_rel_relispartition(relid))
		{
			List	   *ancestors = get_partition_ancestors(relid);
			Oid			root;
			ListCell   *lc;

			/* the ancestors too: a partition is not detached meanwhile */
			foreach(lc, ancestors)
				jl_source_lock(lfirst_oid(lc));
			root = llast_oid(ancestors);

			/* the same column by name: it may be numbered otherwise */
			if (att != InvalidAttrNumber)
				att = get_attnum(root, get_attname(relid, att, false));
			relid = root;
		}
		else if (kind == RELKIND_RELATION && (has_subclass(relid) || has_superclass(relid)))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("table %s is in an inheritance hierarchy and cannot be released with a budget",
							jl_msg_str(get_rel_name(relid))),
					 errdetail("A scan of a parent reads its children's rows, which their own datasets would not pay for."),
					 errhint("Use declarative partitioning, whose partitions are charged to the partitioned table.")));
		break;
	}
	if (base_att)
		*base_att = att;
	return relid;
}

/*
 * every key column of ix (its tuple tup) is one of atts (n of them), and it
 * has n, each compared as the column itself is: the column's collation
 * (deterministic: one value per unit under the column's own equality) and
 * the default operator class of its type for the index's method.  A unique
 * index under another collation or operator class lets two rows of one
 * unit, equal by the column's equality, both in.
 */
static bool
index_on(Oid relid, HeapTuple tup, Form_pg_index ix, const AttrNumber *atts, int n)
{
	bool		isnull;
	oidvector  *collations,
			   *classes;
	Oid			am = InvalidOid;
	int			i,
				j;

	if (ix->indnkeyatts != n)
		return false;
	{
		HeapTuple	ct = SearchSysCache1(RELOID, ObjectIdGetDatum(ix->indexrelid));

		if (!HeapTupleIsValid(ct))
			return false;
		am = ((Form_pg_class) GETSTRUCT(ct))->relam;
		ReleaseSysCache(ct);
	}
	collations = (oidvector *) DatumGetPointer(SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indcollation, &isnull));
	if (isnull)
		return false;
	classes = (oidvector *) DatumGetPointer(SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indclass, &isnull));
	if (isnull)
		return false;
	for (i = 0; i < n; i++)
	{
		Oid			type,
					collation;
		int32		typmod;

		for (j = 0; j < n; j++)
			if (ix->indkey.values[i] == atts[j])
				break;
		if (j == n)
			return false;
		get_atttypetypmodcoll(relid, atts[j], &type, &typmod, &collation);
		if (collations->values[i] != collation ||
			(OidIsValid(collation) && !get_collation_isdeterministic(collation)) ||
			classes->values[i] != GetDefaultOpClass(type, am))
			return false;
	}
	return true;
}

bool
jl_columns_unique(Oid relid, const AttrNumber *atts, int n)
{
	Relation	rel;
	List	   *indexes;
	ListCell   *lc;
	bool		unique = false;
	HeapTuple	atup;
	int			i;

	for (i = 0; i < n; i++)
	{
		if (atts[i] <= 0)
			return false;
		atup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(atts[i]));
		if (!HeapTupleIsValid(atup))
			return false;
		unique = ((Form_pg_attribute) GETSTRUCT(atup))->attnotnull;
		ReleaseSysCache(atup);
		if (!unique)
			return false;
	}
	unique = false;
	rel = table_open(relid, AccessShareLock);
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index ix;

		if (!HeapTupleIsValid(tup))
			continue;
		ix = (Form_pg_index) GETSTRUCT(tup);
		if (ix->indisunique && ix->indimmediate && ix->indisvalid && index_on(relid, tup, ix, atts, n) &&
			heap_attisnull(tup, Anum_pg_index_indpred, NULL))
			unique = true;
		ReleaseSysCache(tup);
	}
	list_free(indexes);
	/* kept: the index stays until the release has read the rows */
	table_close(rel, NoLock);
	return unique;
}

bool
jl_column_unique(Oid relid, AttrNumber att)
{
	return jl_columns_unique(relid, &att, 1);
}

/*
 * Reserve the name relname in schema nsp for this transaction: create and
 * drop a table of that name, so that another transaction creating it
 * waits for this one to end and then fails, and this one waits for another
 * at most lock_timeout (10 s without one).  In a subtransaction, so that a
 * refusal is this function's own error.
 */
static void
reserve_target_name(Oid nsp, const char *relname)
{
	const char *q = quote_qualified_identifier(get_namespace_name(nsp), relname);
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	int			wait_ms = LockTimeout > 0 ? LockTimeout : 10000;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		int			level = NewGUCNestLevel();

		if (LockTimeout == 0)
			(void) set_config_option("lock_timeout", "10s", PGC_USERSET, PGC_S_SESSION,
									 GUC_ACTION_SAVE, true, 0, false);
		SPI_connect();
		if (SPI_execute(psprintf("CREATE TABLE %s ()", q), false, 0) != SPI_OK_UTILITY ||
			SPI_execute(psprintf("DROP TABLE %s", q), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not reserve the name %s", q);
		SPI_finish();
		AtEOXact_GUC(true, level);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (e->sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE)
			ereport(ERROR,
					(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
					 errmsg("another transaction is creating \"%s\"", jl_msg_str(relname)),
					 errdetail("It was waited for %d ms (lock_timeout, 10 s when not set).", wait_ms),
					 errhint("Nothing was charged.  A release into the same name may be in progress; choose another target, or try again when it has ended.")));
		if (e->sqlerrcode == ERRCODE_UNIQUE_VIOLATION || e->sqlerrcode == ERRCODE_DUPLICATE_TABLE ||
			e->sqlerrcode == ERRCODE_DUPLICATE_OBJECT)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_TABLE),
					 errmsg("relation \"%s\" already exists", jl_msg_str(relname)),
					 errhint("A relation or type of that name exists, or was created meanwhile; nothing was charged.")));
		ReThrowError(e);
	}
	PG_END_TRY();
}

void
jl_check_target_creatable(Oid nsp, const char *relname)
{
	AclResult	aclresult = pg_namespace_aclcheck(nsp, GetUserId(), ACL_CREATE);

	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_SCHEMA, get_namespace_name(nsp));
	if (OidIsValid(get_relname_relid(relname, nsp)))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" already exists", jl_msg_str(relname)),
				 errhint("Nothing was charged.")));
	reserve_target_name(nsp, relname);
}

void
jl_source_check_bindable(Oid relid)
{
	char		kind;

	jl_check_relation(relid);
	kind = get_rel_relkind(relid);

	if (kind == RELKIND_VIEW || kind == RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("a dataset is bound to a table, not to view %s",
						jl_msg_str(get_rel_name(relid))),
				 errhint("Bind it to the relation the view reads: a release of a simple view is charged to that relation's dataset.")));
	if (get_rel_relispartition(relid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("a dataset is bound to a partitioned table, not to its partition %s",
						jl_msg_str(get_rel_name(relid))),
				 errhint("Bind it to %s: a release of a partition is charged to the partitioned table's dataset.",
						 jl_msg_str(get_rel_name(llast_oid(get_partition_ancestors(relid)))))));
}

