/*
 * source_relation.h - the base relation a release's source reads, whose
 * dataset pays for the release (docs/threat_model.md, attack 11).
 */
#ifndef JLDP_PG_SOURCE_RELATION_H
#define JLDP_PG_SOURCE_RELATION_H

#include "postgres.h"

#include "access/attnum.h"

/*
 * The base relation the rows of source come from: a table or foreign table
 * as it is, a partition (at any depth) as the root of its partitioned
 * table, a simple view (one relation in FROM, no joins, set operations,
 * grouping, aggregates, DISTINCT, LIMIT, subqueries or set-returning
 * functions) as the base relation of the relation it selects from.  ERROR
 * for every other view, a materialized view, and tables in an inheritance
 * hierarchy (their scans read other tables' rows).  If column is not NULL,
 * *base_att is set to the base relation's column that source's column
 * of that name is (InvalidAttrNumber if it is an expression).
 */
extern Oid	jl_source_base_relation(Oid source, const char *column,
									AttrNumber *base_att);

/* ERROR unless relid may carry a dataset: not a partition, view or copy */
extern void jl_source_check_bindable(Oid relid);

#endif
