/*
 * source_relation.h - the base relation a release's source reads, whose
 * dataset pays for the release (docs/design/threat_model.md, attack 11).
 */
#ifndef JLDP_PG_SOURCE_RELATION_H
#define JLDP_PG_SOURCE_RELATION_H

#include "postgres.h"

#include "access/attnum.h"

/*
 * Lock relid (AccessShareLock) until the transaction ends; ERROR if it was
 * dropped.  A release locks its source first, so that the definition it
 * checks before its charge is the one it reads after.
 */
extern void jl_source_lock(Oid relid);

/*
 * The base relation the rows of source come from: a table or foreign table
 * as it is, a partition (at any depth) as the root of its partitioned
 * table, a simple view (one relation in FROM, no joins, set operations,
 * grouping, aggregates, DISTINCT, LIMIT, subqueries or set-returning
 * functions) as the base relation of the relation it selects from.  ERROR
 * for every other view, a materialized view, and tables in an inheritance
 * hierarchy (their scans read other tables' rows).  If column is not NULL,
 * *base_att is set to the base relation's column that source's column
 * of that name is (InvalidAttrNumber if it is an expression).  Every
 * relation on the way is locked until the transaction ends.
 */
extern Oid	jl_source_base_relation(Oid source, const char *column,
									AttrNumber *base_att);

/*
 * Column att of relid is unique by the schema: NOT NULL and the only key
 * column of a valid, immediate, non-partial unique index (a primary key
 * or a unique constraint or index) that compares it as the column does
 * (its own deterministic collation, its type's default operator class).
 * Data are never looked at.  The
 * relation stays locked until the transaction ends.
 */
extern bool jl_column_unique(Oid relid, AttrNumber att);

/* The same for n columns together (each NOT NULL, the index's only keys). */
extern bool jl_columns_unique(Oid relid, const AttrNumber *atts, int n);

/*
 * ERROR unless the current user can create the table relname in schema
 * nsp: checked before a release is charged, so that a charge is not spent
 * on a release that cannot write its output.  The name is then reserved
 * for the transaction (created and dropped): another transaction creating
 * it waits for this one and fails; this one waits at most lock_timeout
 * (10 s without one) for another, and is refused (55P03) before its charge.
 */
extern void jl_check_target_creatable(Oid nsp, const char *relname);

/* ERROR unless relid may carry a dataset: not a partition, view or copy */
extern void jl_source_check_bindable(Oid relid);

#endif
