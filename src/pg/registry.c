/*
 * registry.c - the release registry (jldp_release): what a release wrote,
 * read back for recovery.
 */
#include "postgres.h"

#include "fmgr.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "pg/owner.h"
#include "pg/registry.h"

/*
 * The release that wrote the table target, from the registry: its k, noise
 * variance and noise (info->>'noise', "laplace" if absent), cached per call
 * site.  The caller must be able to read target.
 */
const JlReleaseNoise *
jl_release_noise(FunctionCallInfo fcinfo, Oid target)
{
	JlReleaseNoise *rn = (JlReleaseNoise *) fcinfo->flinfo->fn_extra;

	if (rn == NULL || rn->target != target)
	{
		Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
		Oid			types[1] = {OIDOID};
		Datum		values[1] = {ObjectIdGetDatum(target)};
		JlOwnerScope scope;
		bool		isnull;
		char	   *noise;
		int			rc;

		if (pg_class_aclcheck(target, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for table %s", get_rel_name(target))));
		if (rn == NULL)
			rn = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(*rn));
		rn->target = InvalidOid;
		SPI_connect();
		jl_become_owner(nsp, &scope);
		rc = SPI_execute_with_args(psprintf("SELECT noise_variance, k, info->>'noise' FROM %s "
											"WHERE target = $1 ORDER BY id DESC LIMIT 1",
											jl_qualified(nsp, "jldp_release")),
								   1, types, values, NULL, true, 1);
		jl_restore_user(&scope);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "could not read the release registry");
		if (SPI_processed == 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("table %s was not written by a jldp release", get_rel_name(target)),
					 errhint("Pass the release's noise_variance instead.")));
		rn->noise_variance = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0],
														  SPI_tuptable->tupdesc, 1, &isnull));
		rn->k = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0],
											SPI_tuptable->tupdesc, 2, &isnull));
		noise = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);
		strlcpy(rn->noise, noise == NULL ? "laplace" : noise, sizeof(rn->noise));
		SPI_finish();
		rn->target = target;
		fcinfo->flinfo->fn_extra = rn;
	}
	return rn;
}
