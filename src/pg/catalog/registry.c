/*
 * registry.c - the release registry (jldp_release): what a table release
 * wrote, recorded by the release and read back for recovery.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "pg/catalog/owner.h"
#include "math/projection/projection.h"
#include "pg/common/options.h"
#include "pg/catalog/registry.h"

/*
 * The release that wrote the table target, from the registry: its k, noise
 * variance, noise (info->>'noise', "laplace" if absent) and kind (projection), cached
 * per call site.  The caller must be able to read target.
 */
const JlReleaseNoise *
jl_release_noise(FunctionCallInfo fcinfo, Oid target)
{
	JlReleaseNoise *rn = (JlReleaseNoise *) fcinfo->flinfo->fn_extra;

	if (rn == NULL || rn->target != target)
	{
		Oid			nsp = JL_CATALOG_NSP(fcinfo);
		HeapTuple	row;
		char	   *noise,
				   *kind,
				   *mechanism;

		if (rn == NULL)
			rn = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(*rn));
		rn->target = InvalidOid;
		SPI_connect();
		row = jl_registry_latest(nsp, target,
								 "noise_variance, k, info->>'noise', projection, info->>'mechanism'",
								 "Pass the release's noise_variance instead.");
		mechanism = SPI_getvalue(row, SPI_tuptable->tupdesc, 5);
		if (mechanism != NULL && strcmp(mechanism, "covariance") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("table %s is a covariance release, not sketches", get_rel_name(target)),
					 errhint("Use jl_directional_variance, jl_covariance, jl_pca or jl_least_squares.")));
		if (mechanism != NULL && strcmp(mechanism, "graph") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("table %s is a graph release, not sketches", get_rel_name(target)),
					 errhint("Use jl_cut_size or jl_cut_estimate.")));
		if (mechanism != NULL && strcmp(mechanism, "kmeans") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("table %s is a k-means release, not sketches", get_rel_name(target)),
					 errhint("Its rows are the clusters (cluster, size, centroid, encoded); label sketches by the nearest of the centroids projected with jl_project(encoded, mechanism, key).")));
		rn->noise_variance = jl_registry_float(row, 1, NAN);
		rn->k = jl_registry_int(row, 2, 0);
		/* the record as a release writes it (a forged one is refused) */
		if (!(isfinite(rn->noise_variance) && rn->noise_variance >= 0.0 &&
			  rn->k >= 1 && rn->k <= JL_MAX_K))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("the registry record of release %s is not one a release writes",
							get_rel_name(target)),
					 errdetail("k = %d, noise variance %g.", rn->k, rn->noise_variance)));
		noise = SPI_getvalue(row, SPI_tuptable->tupdesc, 3);
		strlcpy(rn->noise, noise == NULL ? "laplace" : noise, sizeof(rn->noise));
		kind = SPI_getvalue(row, SPI_tuptable->tupdesc, 4);
		rn->identity = kind != NULL && strcmp(kind, "identity") == 0;
		SPI_finish();
		rn->target = target;
		fcinfo->flinfo->fn_extra = rn;
	}
	return rn;
}

int64
jl_registry_write(Oid nsp, const JlRegistryRecord *r)
{
	Oid			types[10] = {TEXTOID, OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, JSONBOID, INT8OID, TEXTOID, TEXTOID};
	Datum		values[10];
	JlOwnerScope scope;
	bool		isnull;
	int64		id;

	values[0] = CStringGetTextDatum(r->source);
	values[1] = ObjectIdGetDatum(r->target);
	values[2] = CStringGetTextDatum(r->id_column);
	values[3] = CStringGetTextDatum(r->vector);
	values[4] = CStringGetTextDatum(r->clipping);
	values[5] = CStringGetTextDatum(r->key_fingerprint);
	values[6] = DirectFunctionCall1(jsonb_in, CStringGetDatum(r->info));
	values[7] = Int64GetDatum(r->ledger_id);
	values[8] = CStringGetTextDatum(r->dataset);
	/* by name, as the budget records roles; read before acting as the owner */
	values[9] = CStringGetTextDatum(GetUserNameFromId(GetUserId(), false));

	/* the columns that summarise the release are read from its JSON */
	jl_become_owner(nsp, &scope);
	if (SPI_execute_with_args(psprintf("INSERT INTO %s (source, target, id_column, vector, d, k, projection, "
									   "neighbor, bound, clipping, calibration, epsilon, delta, noise_variance, "
									   "grid, key_fingerprint, dataset, ledger_id, info, released_by) "
									   "SELECT $1, $2, $3, $4, (i->>'d')::pg_catalog.int4, (i->>'k')::pg_catalog.int4, i->>'kind', "
									   "i->>'neighbor', (i->>'bound')::pg_catalog.float8, $5, i->>'calibration', "
									   "(i->>'epsilon')::pg_catalog.float8, (i->>'delta')::pg_catalog.float8, (i->>'noise_variance')::pg_catalog.float8, "
									   "(i->>'grid')::pg_catalog.float8, $6, $9, $8, i, $10::pg_catalog.name FROM (SELECT $7 AS i) s RETURNING id",
									   jl_qualified(nsp, "jldp_release")),
							  10, types, values, NULL, false, 0) != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "could not write the release registry");
	id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	jl_restore_user(&scope);
	return id;
}

HeapTuple
jl_registry_latest(Oid nsp, Oid target, const char *select, const char *hint)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(target)};
	JlOwnerScope scope;
	int			rc;

	jl_check_relation(target);
	if (pg_class_aclcheck(target, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(target))));
	jl_become_owner(nsp, &scope);
	rc = SPI_execute_with_args(psprintf("SELECT %s FROM %s WHERE target = $1 ORDER BY id DESC LIMIT 1",
										select, jl_qualified(nsp, "jldp_release")),
							   1, types, values, NULL, true, 1);
	jl_restore_user(&scope);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "could not read the release registry");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table %s was not written by a jldp release", get_rel_name(target)),
				 hint ? errhint("%s", hint) : 0));
	return SPI_tuptable->vals[0];
}

int32
jl_registry_int(HeapTuple row, int col, int32 dflt)
{
	bool		isnull;
	Datum		d = SPI_getbinval(row, SPI_tuptable->tupdesc, col, &isnull);

	return isnull ? dflt : DatumGetInt32(d);
}

double
jl_registry_float(HeapTuple row, int col, double dflt)
{
	bool		isnull;
	Datum		d = SPI_getbinval(row, SPI_tuptable->tupdesc, col, &isnull);

	return isnull ? dflt : DatumGetFloat8(d);
}

void
jl_registry_require_mechanism(HeapTuple row, int col, Oid target, const char *want,
							  const char *hint)
{
	char	   *mech = SPI_getvalue(row, SPI_tuptable->tupdesc, col);

	if (mech == NULL || strcmp(mech, want) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("table %s is not a %s release", get_rel_name(target), want),
				 errhint("%s", hint)));
}
