/*
 * release_names.h - the names a table release reads and writes: the
 * source's columns checked against the catalog, and the target's schema
 * and name resolved for CREATE TABLE.
 */
#ifndef JLDP_PG_RELEASE_NAMES_H
#define JLDP_PG_RELEASE_NAMES_H

#include "postgres.h"


/* A numeric type a vector element can be cast from to float8. */
extern bool jl_numeric_type(Oid t);

/* smallint, integer or bigint */
extern bool jl_integer_type(Oid t);

/*
 * The schema and name a target table (name as given, optionally
 * schema-qualified) is created with, and the name quoted; ERROR on a name
 * of more than two parts.
 */
extern void jl_resolve_target(const char *name, Oid *nsp, char **rel, char **quoted);

/*
 * CREATE TABLE quoted (id_col int4 PRIMARY KEY, vec_col float8[] NOT NULL),
 * owned by the caller, every type schema-qualified; returns its OID.
 */
extern Oid	jl_create_vector_table(const char *quoted, Oid nsp, const char *rel,
								   const char *id_col, const char *vec_col);

/*
 * Rows (i, rows[i - 1]) for i = 1..count into that table, each vector of
 * width values, stored row after row in rows.
 */
extern void jl_fill_vector_table(const char *quoted, const char *id_col, const char *vec_col,
								 const double *rows, int count, int width);

#endif
