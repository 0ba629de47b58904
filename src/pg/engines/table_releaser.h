/*
 * table_releaser.h - the rows of a query released into a table: batched,
 * clipped, projected with one BLAS level-3 product per batch, noised on
 * the grid and bulk-inserted.
 */
#ifndef JLDP_PG_TABLE_RELEASER_H
#define JLDP_PG_TABLE_RELEASER_H

#include "postgres.h"

#include "math/projection/mechanism.h"
#include "math/projection/projection.h"

#include "pg/keys/keystore.h"

typedef enum JlClipKind
{
	JL_CLIP_NONE,
	JL_CLIP_ELEMENT,			/* clamp each element to [lo, hi] */
	JL_CLIP_NORM				/* scale each row to L2 norm <= c */
} JlClipKind;

typedef struct JlClip
{
	JlClipKind	kind;
	double		lo,
				hi,
				c;
} JlClip;

/* what the rows are released with */
typedef struct JlRowRelease
{
	const JlKey *key;
	JlKind		kind;			/* as parsed: 'sparse' resolved with d */
	int			k;
	int			d;				/* -1 until known, then set by the first row */
	JlMechanism m;				/* options in; calibrated once a row was read */
	JlClip		clip;
	bool		precalibrated;	/* m calibrated by the caller (to a
								 * declaration): not again to P's rows */
	bool		fresh_snapshot; /* read with a snapshot taken now, after
								 * the caller's lock and checks */
	const char *id_col;			/* for messages */
	Oid			id_type;
} JlRowRelease;

/*
 * Release the rows of sql, a query of (id, float8[] vector), into the table
 * target (id, sketch float8[]) in the current transaction; returns the
 * number of rows.  The first row fixes d (if unknown) and calibrates r->m
 * to the realized P, refusing a calibration that does not cover it.  The
 * caller is connected to SPI.
 */
extern int64 jl_release_rows(JlRowRelease *r, const char *sql, Oid target);

#endif
