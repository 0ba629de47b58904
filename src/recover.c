/*
 * recover.c - SQL entry points of distance recovery (no key involved, so
 * executable by analysts).
 */
#include "jldp.h"

#include <math.h>

#include "distance.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"

#include "budget.h"

PG_FUNCTION_INFO_V1(jl_recover_dist);
PG_FUNCTION_INFO_V1(jl_recover_dist_stddev);
PG_FUNCTION_INFO_V1(jl_recover_dist_release);
PG_FUNCTION_INFO_V1(jl_recover_dist_stddev_release);

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

static void
read_sketches(FunctionCallInfo fcinfo, double **a, double **b, int *k)
{
	int			ka,
				kb;

	*a = jl_array_vector(PG_GETARG_ARRAYTYPE_P(0), "a", &ka);
	*b = jl_array_vector(PG_GETARG_ARRAYTYPE_P(1), "b", &kb);
	if (ka != kb)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have different dimensions %d and %d", ka, kb)));
	*k = ka;
}

static void
read_release_pair(FunctionCallInfo fcinfo, double **a, double **b, int *k, double *nv,
				  bool *gaussian)
{
	const JlReleaseNoise *rn;

	read_sketches(fcinfo, a, b, k);
	rn = jl_release_noise(fcinfo, PG_GETARG_OID(2));
	if (rn->k != *k)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sketches have %d dimensions, the release has k = %d", *k, rn->k)));
	*nv = rn->noise_variance;
	*gaussian = strcmp(rn->noise, "gaussian") == 0;
}

Datum
jl_recover_dist_release(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b,
				nv;
	int			k;
	bool		gaussian;

	read_release_pair(fcinfo, &a, &b, &k, &nv, &gaussian);
	PG_RETURN_FLOAT8(jl_recover_sqdist(a, b, k, nv));
}

Datum
jl_recover_dist_stddev_release(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b,
				nv;
	int			k;
	bool		gaussian;

	read_release_pair(fcinfo, &a, &b, &k, &nv, &gaussian);
	PG_RETURN_FLOAT8(jl_recover_stddev_noise(a, b, k, nv, gaussian));
}

static void
read_pair(FunctionCallInfo fcinfo, double **a, double **b, int *k, double *nv)
{
	read_sketches(fcinfo, a, b, k);
	*nv = PG_GETARG_FLOAT8(2);
	if (!(isfinite(*nv) && *nv >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("noise_variance must be a finite number >= 0")));
}

Datum
jl_recover_dist(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b,
				nv;
	int			k;

	read_pair(fcinfo, &a, &b, &k, &nv);
	PG_RETURN_FLOAT8(jl_recover_sqdist(a, b, k, nv));
}

Datum
jl_recover_dist_stddev(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b,
				nv;
	int			k;
	JlNoise		noise = JL_NOISE_LAPLACE;

	read_pair(fcinfo, &a, &b, &k, &nv);
	if (PG_NARGS() > 3)
		noise = jl_parse_noise(PG_GETARG_TEXT_PP(3));
	PG_RETURN_FLOAT8(jl_recover_stddev_noise(a, b, k, nv, noise == JL_NOISE_GAUSSIAN));
}
