/*
 * registry.h - the release registry (jldp_release): what a table release
 * wrote, recorded by the release and read back for recovery.
 */
#ifndef JLDP_PG_REGISTRY_H
#define JLDP_PG_REGISTRY_H

#include "postgres.h"

#include "fmgr.h"
#include "access/htup.h"

typedef struct JlReleaseNoise
{
	Oid			target;
	int			k;
	double		noise_variance;
	char		noise[NAMEDATALEN];	/* info->>'noise', "laplace" if absent */
	bool		identity;		/* kind 'identity': P = I, k = d */
} JlReleaseNoise;

/*
 * The release that wrote the table target: its k, noise variance, noise
 * and whether it projected (kind), cached per call site.  The caller must be able to read target.
 */
extern const JlReleaseNoise *jl_release_noise(FunctionCallInfo fcinfo, Oid target);

/* one table release, as the registry records it */
typedef struct JlRegistryRecord
{
	const char *source;			/* qualified, quoted name */
	Oid			target;
	const char *id_column;
	const char *vector;			/* the vector's column(s) */
	const char *clipping;		/* how the bound was made true, in words */
	const char *key_fingerprint;
	const char *info;			/* JSON: the calibration (its d, k, kind,
								 * epsilon, ... fill the columns) and more */
	int64		ledger_id;
	const char *dataset;
} JlRegistryRecord;

/*
 * Write the record as the owner of the extension in schema nsp, with the
 * current user as released_by; returns its id.  The caller is connected to
 * SPI.
 */
extern int64 jl_registry_write(Oid nsp, const JlRegistryRecord *r);

/*
 * The registry's latest record of the table target, as the extension's
 * owner (the caller connected to SPI): the columns select names (SQL over
 * the registry's row), in SPI_tuptable->vals[0]; ERROR 42704 (with hint)
 * when no release wrote target.  Checks first that target exists and the
 * caller may read it (42501).
 */
extern HeapTuple jl_registry_latest(Oid nsp, Oid target, const char *select, const char *hint);

/* The value of column col of that row, or dflt when NULL. */
extern int32 jl_registry_int(HeapTuple row, int col, int32 dflt);
extern double jl_registry_float(HeapTuple row, int col, double dflt);

/*
 * ERROR 42809 unless the record's mechanism (column col, NULL for sketches)
 * is want ("covariance", "graph"), hint naming what reads such a table.
 */
extern void jl_registry_require_mechanism(HeapTuple row, int col, Oid target, const char *want,
										  const char *hint);

#endif
