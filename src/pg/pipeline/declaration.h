/*
 * declaration.h - a protected table's declaration: the relation, its unit,
 * its attributes with their public bounds and encodings, the neighbour
 * notion and the row clip (docs/design/api-1.0.md).  Everything a release
 * knows about the data before its charge comes from here, checked against
 * the catalog under a lock; nothing is learnt from a row.
 *
 * The pipeline (pipeline.h) reads a declaration with jl_declaration_load;
 * jl_protect (protect.c) writes one.  The checks of one attribute are the
 * same in its constructor (jl_numeric, jl_category, jl_vector), in
 * jl_protect and in every release.
 */
#ifndef JLDP_PG_PIPELINE_DECLARATION_H
#define JLDP_PG_PIPELINE_DECLARATION_H

#include "postgres.h"

#include "access/attnum.h"

#include "math/projection/attribute_sensitivity.h"
#include "math/projection/mechanism.h"

typedef enum JlAttrKind
{
	JL_ATTR_NUMERIC,
	JL_ATTR_CATEGORY,
	JL_ATTR_VECTOR,
	JL_ATTR_LONG,				/* long-format rows: column is the value
								 * column, attr_column the attribute's */
	JL_ATTR_EDGE				/* an edge table: column and attr_column
								 * are its endpoints, length the vertices */
} JlAttrKind;

/* one declared attribute */
typedef struct JlAttrDecl
{
	char	   *column;
	JlAttrKind	kind;
	double		lo,
				hi;				/* numeric and vector */
	double		weight;
	int			ncategories;	/* category */
	char	  **categories;
	int			length;			/* vector; long: d; edge: the vertices */
	char	   *attr_column;	/* long; edge: the second endpoint */
	/* bound to the relation */
	AttrNumber	att;
	Oid			type;
	AttrNumber	attr_att;		/* long, edge */
	Oid			attr_type;
} JlAttrDecl;

/* the most elements one vector attribute may have */
#define JL_MAX_VECTOR_LENGTH 1000000
/* the most attributes of long-format rows (rows of P are made on demand) */
#define JL_MAX_LONG_D 2147483647

typedef struct JlDeclaration
{
	Oid			relid;
	char	   *relation_q;		/* qualified, quoted */
	char	   *dataset;		/* the ledger's name for it */
	char	   *unit;
	AttrNumber	unit_att;
	Oid			unit_type;
	int			nattrs;
	JlAttrDecl *attrs;
	JlAttrSpan *spans;			/* one per attribute, in order */
	int64		d;				/* encoded width: the sum of the spans */
	bool		long_format;	/* one jl_long attribute: a unit is its rows */
	bool		edges;			/* one jl_edge attribute: a unit is an edge */
	bool		sharded;		/* a partitioned table of foreign tables on
								 * shards (jl_release_distributed) */
	char	   *unit_filter;	/* the reader's condition on the unit (a
								 * shard's part: its partition's bounds), or
								 * NULL */
	bool		row;			/* neighbours: a unit's row (else one attribute) */
	double		row_clip;		/* L2 norm of the encoded row, NaN if none */
	int			ncolumns;		/* the columns' numbers when declared (0: */
	int16	   *columns;		/* not recorded, a declaration of 0.4.1) */
} JlDeclaration;

/* the most columns a declaration names: the unit and two per attribute */
#define JL_DECLARATION_MAX_COLUMNS(nattrs) (1 + 2 * (nattrs))

/*
 * The numbers of the columns a bound declaration reads, in order: the
 * unit, then each attribute's column (and its attribute or second endpoint
 * column).  out has room for JL_DECLARATION_MAX_COLUMNS(nattrs); returns
 * how many.
 */
extern int	jl_declaration_columns(const JlDeclaration *decl, int16 *out);

/*
 * A jl_attribute value, checked as its constructor checks it (ERROR naming
 * what is wrong, 22004/22023).
 */
extern void jl_attribute_read(Datum composite, JlAttrDecl *a);

/*
 * decl's attributes from a jl_attribute[] (one-dimensional, not empty, no
 * NULLs), each checked by jl_attribute_read.
 */
extern void jl_declaration_read_attributes(JlDeclaration *decl, Datum array);

/*
 * ERROR unless relid may be protected: a table or a partitioned table's
 * root, whole, without inheritance children or parents and without row
 * level security.  Locks it (AccessShareLock) until the transaction ends.
 */
extern void jl_declaration_check_relation(Oid relid);

/*
 * Bind decl's unit and attributes to its relation's columns: each exists,
 * is not generated, appears once (the unit is not an attribute), has a type
 * its encoding reads (numeric: a number; vector: float8[]; category: any),
 * and the unit is unique by a constraint.  Sets the spans and d.  The
 * caller may SELECT every column it names: checked here, before a charge.
 */
extern void jl_declaration_bind(JlDeclaration *decl);

/*
 * A unit type a sharded table may have: one whose order and text are the
 * same on every server and, under jl_fixed_text_settings, in every session
 * (smallint, integer, bigint, numeric, uuid, date).
 */
extern bool jl_shard_unit_type(Oid t);

/*
 * The settings a unit's text is written and read under between servers
 * (DateStyle ISO, YMD; extra_float_digits 3), until jl_restore_settings.
 */
extern int	jl_fixed_text_settings(void);
extern void jl_restore_settings(int level);

/*
 * relid is a sharded table for unit column unit_att: partitioned by the
 * unit alone, by range or list, without a default partition, every
 * partition a foreign table of postgres_fdw; ERROR if its unit's type is
 * not one jl_shard_unit_type allows.  Its unit is unique
 * by each shard's declaration and across shards by the bounds, which each
 * shard's part applies when it reads (jl_release_part).
 */
extern bool jl_declaration_sharded(Oid relid, AttrNumber unit_att, Oid unit_type);

/*
 * A protected table's declaration and its releases, serialized: a release
 * holds the lock shared from reading the declaration to its end, jl_protect
 * exclusive, so that a declaration cannot change between a release's
 * calibration and its charge (a transaction-scoped object lock on the
 * relation, sub-id JL_DECLARATION_LOCK, which no SQL function takes).
 */
#define JL_DECLARATION_LOCK 0x6a6c
extern void jl_declaration_lock(Oid relid, bool exclusive);

/*
 * The declaration of protected table relid (locked and checked, as above);
 * ERROR (55000 with the jl_protect call that would declare it) if there is
 * none, or only a 0.3 dataset without attributes.
 */
extern void jl_declaration_load(Oid nsp, Oid relid, JlDeclaration *decl);

/*
 * SELECT unit, the encoded row (float8[] of d) FROM the relation: every
 * attribute read through its encoding (jl_encode_number, _category,
 * _vector), names quoted, functions schema-qualified.  Long format:
 * SELECT unit, attribute (int8), the encoded value FROM the relation
 * ORDER BY unit, each unit's rows together.  Edges: SELECT unit, the
 * smaller endpoint, the larger (int8), both NULL unless the edge is two
 * distinct vertices within 1..n; every row, each unit once.
 */
extern char *jl_declaration_row_sql(Oid nsp, const JlDeclaration *decl);

/*
 * The largest L2 norm of an encoded row: each number (and vector element)
 * at its weight, each category one weight; rounded up.
 */
extern double jl_declaration_largest_norm(const JlDeclaration *decl);

/*
 * Rows about the origin (the covariance mechanism's origin 'zero'): each
 * number x read as x weight / (hi - lo) instead of (x - lo) weight /
 * (hi - lo), by adding the encoded row the offset lo weight / (hi - lo)
 * (0 for a category's coordinates).  offset: d doubles.  Returns the
 * largest L2 norm of such a row (each number at max(|lo|, |hi|) weight /
 * (hi - lo)), rounded up.  Wide declarations only.
 */
extern double jl_declaration_origin_offset(const JlDeclaration *decl, double *offset);

/* The attributes in words, for the registry ("age, segment (3), ...") */
extern char *jl_declaration_describe(const JlDeclaration *decl);

/* The declaration as JSON (no braces around), for the registry's info */
extern char *jl_declaration_json(const JlDeclaration *decl);

#endif
