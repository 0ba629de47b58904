/*
 * distributed.c - what the coordinator of a sharded protected table asks
 * before a distributed release (jl_release_distributed): each partition's
 * bounds, which the shard's part applies to its units (jl_release_part),
 * and a declaration as JSON, which must be the same on the coordinator
 * and on every shard before any shard is charged.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "nodes/parsenodes.h"
#include "partitioning/partdesc.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/partcache.h"
#include "utils/syscache.h"

#include "pg/common/messages.h"
#include "pg/common/options.h"
#include "pg/pipeline/declaration.h"
#include "pg/catalog/owner.h"

/* a bound's value as its type's output function writes it */
static char *
const_text(Node *n)
{
	Const	   *c = castNode(Const, n);
	Oid			typoutput;
	bool		varlena;

	if (c->constisnull)
		return NULL;
	getTypeOutputInfo(c->consttype, &typoutput, &varlena);
	return OidOutputFunctionCall(typoutput, c->constvalue);
}

/* a range bound's one datum: its value, or NULL for MINVALUE / MAXVALUE */
static char *
range_text(List *datums)
{
	PartitionRangeDatum *d = castNode(PartitionRangeDatum, linitial(datums));

	return d->kind == PARTITION_RANGE_DATUM_VALUE ? const_text(d->value) : NULL;
}

/*
 * jl_shard_bounds(protected regclass) RETURNS TABLE (partition regclass,
 * unit_lower text, unit_upper text, unit_in text[]): the bounds of each
 * partition of a sharded protected table, as jl_release_part takes them,
 * written under jl_fixed_text_settings (a DateStyle of the caller's could
 * make a shard read another date).
 */
PG_FUNCTION_INFO_V1(jl_shard_bounds);
Datum
jl_shard_bounds(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = jl_regclass_arg(fcinfo, 0, "protected");
	Relation	rel;
	PartitionDesc pd;
	AttrNumber	unit_att;
	int			level;

	InitMaterializedSRF(fcinfo, 0);
	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s is not a partitioned table", jl_msg_str(get_rel_name(relid)))));
	rel = relation_open(relid, AccessShareLock);
	unit_att = RelationGetPartitionKey(rel)->partattrs[0];
	if (!jl_declaration_sharded(relid, unit_att, get_atttype(relid, unit_att)))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s is not a sharded table", jl_msg_str(get_rel_name(relid))),
				 errdetail("A sharded table is partitioned by its unit alone, by range or list, without a default partition, each partition a foreign table of postgres_fdw.")));
	pd = RelationGetPartitionDesc(rel, true);
	/* written as every shard reads them, whatever this session's settings */
	level = jl_fixed_text_settings();
	for (int i = 0; i < pd->nparts; i++)
	{
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(pd->oids[i]));
		bool		isnull;
		Datum		b;
		PartitionBoundSpec *spec;
		Datum		values[4];
		bool		nulls[4] = {false, true, true, true};

		if (!HeapTupleIsValid(tup))
			elog(ERROR, "cache lookup failed for relation %u", pd->oids[i]);
		b = SysCacheGetAttr(RELOID, tup, Anum_pg_class_relpartbound, &isnull);
		if (isnull)
			elog(ERROR, "partition %u has no bound", pd->oids[i]);
		spec = castNode(PartitionBoundSpec, stringToNode(TextDatumGetCString(b)));
		ReleaseSysCache(tup);
		values[0] = ObjectIdGetDatum(pd->oids[i]);
		if (spec->strategy == PARTITION_STRATEGY_RANGE)
		{
			char	   *lo = range_text(spec->lowerdatums),
					   *hi = range_text(spec->upperdatums);

			nulls[1] = lo == NULL;
			nulls[2] = hi == NULL;
			if (lo)
				values[1] = CStringGetTextDatum(lo);
			if (hi)
				values[2] = CStringGetTextDatum(hi);
		}
		else
		{
			ListCell   *lc;
			Datum	   *m = palloc(sizeof(Datum) * Max(list_length(spec->listdatums), 1));
			int			n = 0;

			/* a NULL unit is no unit: a shard's unit is NOT NULL */
			foreach(lc, spec->listdatums)
			{
				char	   *t = const_text(lfirst(lc));

				if (t)
					m[n++] = CStringGetTextDatum(t);
			}
			if (n > 0)
			{
				values[3] = PointerGetDatum(construct_array(m, n, TEXTOID, -1, false, TYPALIGN_INT));
				nulls[3] = false;
			}
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	jl_restore_settings(level);
	relation_close(rel, NoLock);
	return (Datum) 0;
}

/*
 * jl_declaration_info(protected regclass) RETURNS jsonb: the declaration
 * of a protected table (checked against the catalog, as a release checks
 * it) as the registry records it; the same on the coordinator of a
 * sharded table and on each shard, or a distributed release is refused.
 */
PG_FUNCTION_INFO_V1(jl_declaration_info);
Datum
jl_declaration_info(PG_FUNCTION_ARGS)
{
	JlDeclaration decl;
	Oid			relid = jl_regclass_arg(fcinfo, 0, "protected");

	jl_declaration_load(JL_CATALOG_NSP(fcinfo), relid, &decl);
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(psprintf("{%s}", jl_declaration_json(&decl))));
}
