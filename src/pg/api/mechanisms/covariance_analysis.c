/*
 * covariance_analysis.c - the analyst's side of a covariance release, all
 * post-processing of R (no budget): directional variance and its standard
 * deviation, the estimate of A^T A, principal components and least
 * squares (docs/design/covariance.md).
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "math/covariance/covariance.h"
#include "math/covariance/covariance_accountant.h"
#include "math/base/fp.h"

#include "pg/common/arrays.h"
#include "pg/common/options.h"
#include "pg/catalog/owner.h"
#include "pg/catalog/registry.h"

PG_FUNCTION_INFO_V1(jl_directional_variance);
PG_FUNCTION_INFO_V1(jl_directional_variance_stddev);
PG_FUNCTION_INFO_V1(jl_covariance);
PG_FUNCTION_INFO_V1(jl_pca);
PG_FUNCTION_INFO_V1(jl_least_squares);

/* a release read back: R (r x d) and the lift squared */
typedef struct CovData
{
	Oid			target;
	int			r,
				d;
	double		l2;
	double	   *R;
} CovData;

/* r, d and l^2 from the registry, as the extension's owner */
static void
read_record(Oid nsp, Oid target, CovData *cd)
{
	HeapTuple	row = jl_registry_latest(nsp, target,
										 "info->>'mechanism', (info->>'r')::pg_catalog.int4, "
										 "(info->>'d')::pg_catalog.int4, (info->>'noise_variance')::pg_catalog.float8",
										 NULL);

	jl_registry_require_mechanism(row, 1, target, "covariance",
								  "Use a table written by jl_release_covariance.");
	cd->r = jl_registry_int(row, 2, 0);
	cd->d = jl_registry_int(row, 3, 0);
	cd->l2 = jl_registry_float(row, 4, NAN);
	/* the record as a release writes it (a forged one is refused, not read) */
	if (!(cd->r >= 1 && cd->r <= JL_COV_MAX_R && cd->d >= 1 &&
		  (double) cd->r * cd->d <= (double) JL_COV_MAX_ENTRIES &&
		  isfinite(cd->l2) && cd->l2 >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the registry record of covariance release %s is not one a release writes",
						get_rel_name(target)),
				 errdetail("r = %d, d = %d, noise variance %g.", cd->r, cd->d, cd->l2)));
}

static void
corrupted(Oid target, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("covariance release %s has been altered: %s", get_rel_name(target), what)));
}

/* R's rows, as the caller (who must be able to read the table), in order of i */
static void
read_rows(Oid target, CovData *cd, MemoryContext mcxt)
{
	uint64		k;

	if (SPI_execute(psprintf("SELECT i, y FROM %s ORDER BY i",
							 quote_qualified_identifier(get_namespace_name(get_rel_namespace(target)),
														get_rel_name(target))),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read %s", get_rel_name(target));
	jl_check_column_type(SPI_tuptable->tupdesc, 1, INT4OID, target);
	jl_check_column_type(SPI_tuptable->tupdesc, 2, FLOAT8ARRAYOID, target);
	if (SPI_processed != (uint64) cd->r)
		corrupted(target, "its number of rows is not r");
	cd->R = MemoryContextAlloc(mcxt, sizeof(double) * (Size) cd->r * cd->d);
	for (k = 0; k < SPI_processed; k++)
	{
		bool		isnull;
		Datum		i = SPI_getbinval(SPI_tuptable->vals[k], SPI_tuptable->tupdesc, 1, &isnull);
		Datum		y;
		double	   *v;
		int			n;

		if (isnull || DatumGetInt32(i) != (int32) (k + 1))
			corrupted(target, "its rows are not numbered 1..r");
		y = SPI_getbinval(SPI_tuptable->vals[k], SPI_tuptable->tupdesc, 2, &isnull);
		if (isnull)
			corrupted(target, "a row is NULL");
		v = jl_array_vector(DatumGetArrayTypeP(y), "a released row", &n);
		if (n != cd->d)
			corrupted(target, "a row's length is not d");
		memcpy(cd->R + k * (Size) cd->d, v, sizeof(double) * cd->d);
	}
}

/* The release target, read once per call site and query. */
static const CovData *
release_data(FunctionCallInfo fcinfo, Oid target)
{
	CovData    *cd = (CovData *) fcinfo->flinfo->fn_extra;

	if (cd == NULL || cd->target != target)
	{
		Oid			nsp = JL_CATALOG_NSP(fcinfo);

		if (cd == NULL)
			cd = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(*cd));
		else if (cd->R)
			pfree(cd->R);
		cd->target = InvalidOid;
		cd->R = NULL;
		SPI_connect();
		read_record(nsp, target, cd);
		read_rows(target, cd, fcinfo->flinfo->fn_mcxt);
		SPI_finish();
		cd->target = target;
		fcinfo->flinfo->fn_extra = cd;
	}
	return cd;
}

/* x: d finite values, not all zero */
static double *
direction(ArrayType *a, const CovData *cd)
{
	int			n,
				j;
	double	   *x = jl_array_vector(a, "x", &n);

	if (n != cd->d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("x has %d elements, the release has d = %d", n, cd->d)));
	for (j = 0; j < n; j++)
		if (x[j] != 0.0)
			return x;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("x must not be the zero vector")));
	return NULL;
}

/* jl_directional_variance(release regclass, x float8[]): ||Rx||^2/r - l^2 ||x||^2 */
Datum
jl_directional_variance(PG_FUNCTION_ARGS)
{
	const CovData *cd = release_data(fcinfo, PG_GETARG_OID(0));
	double	   *x = direction(PG_GETARG_ARRAYTYPE_P(1), cd),
				sq;

	PG_RETURN_FLOAT8(jl_cov_directional(cd->R, cd->r, cd->d, x, cd->l2, &sq));
}

/* jl_directional_variance_stddev(release regclass, x float8[]): sqrt(2/r) ||Rx||^2/r */
Datum
jl_directional_variance_stddev(PG_FUNCTION_ARGS)
{
	const CovData *cd = release_data(fcinfo, PG_GETARG_OID(0));
	double	   *x = direction(PG_GETARG_ARRAYTYPE_P(1), cd),
				sq;

	(void) jl_cov_directional(cd->R, cd->r, cd->d, x, cd->l2, &sq);
	PG_RETURN_FLOAT8(sqrt(2.0 / cd->r) * sq);
}

/* R^T R / r - l^2 I, d x d */
static double *
second_moments(const CovData *cd)
{
	double	   *C = palloc(sizeof(double) * (Size) cd->d * cd->d);

	jl_cov_matrix(cd->R, cd->r, cd->d, cd->l2, C);
	/* rows altered to huge values: a clear error, not LAPACK's */
	if (!jl_all_finite(C, (Size) cd->d * cd->d))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the second moments of release %s overflow", get_rel_name(cd->target)),
				 errdetail("Its rows hold values whose squares exceed double precision.")));
	return C;
}

/* jl_covariance(release regclass) RETURNS float8[][] */
Datum
jl_covariance(PG_FUNCTION_ARGS)
{
	const CovData *cd = release_data(fcinfo, PG_GETARG_OID(0));
	double	   *C = second_moments(cd);
	Size		n = (Size) cd->d * cd->d,
				i;
	Datum	   *elems = palloc(sizeof(Datum) * n);
	int			dims[2] = {cd->d, cd->d},
				lbs[2] = {1, 1};

	for (i = 0; i < n; i++)
		elems[i] = Float8GetDatum(C[i]);
	PG_RETURN_ARRAYTYPE_P(construct_md_array(elems, NULL, 2, dims, lbs, FLOAT8OID,
											 sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * jl_pca(release regclass, n_components int)
 *   RETURNS TABLE (component int, variance float8, direction float8[])
 */
Datum
jl_pca(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const CovData *cd = release_data(fcinfo, PG_GETARG_OID(0));
	int32		k = PG_GETARG_INT32(1);
	double	   *C,
			   *vals;
	int			i;

	if (k < 1 || k > cd->d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n_components must be between 1 and d = %d, not %d", cd->d, k)));
	C = second_moments(cd);
	vals = palloc(sizeof(double) * cd->d);
	if (jl_cov_eigen(C, cd->d, vals) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("could not compute the eigenvectors"),
				 errdetail("LAPACK or memory allocation failed.")));
	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < k; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int32GetDatum(i + 1);
		values[1] = Float8GetDatum(vals[i]);
		values[2] = PointerGetDatum(jl_vector_array(C + (Size) i * cd->d, cd->d));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* jl_least_squares(release regclass, target_attr int) RETURNS float8[] (d - 1) */
Datum
jl_least_squares(PG_FUNCTION_ARGS)
{
	const CovData *cd = release_data(fcinfo, PG_GETARG_OID(0));
	int32		t = PG_GETARG_INT32(1);
	double	   *C,
			   *beta;
	int			rc;

	if (cd->d < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("least squares needs at least 2 attributes, the release has d = %d", cd->d)));
	if (t < 1 || t > cd->d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target_attr must be between 1 and d = %d, not %d", cd->d, t)));
	C = second_moments(cd);
	beta = palloc(sizeof(double) * (cd->d - 1));
	rc = jl_cov_least_squares(C, cd->d, t - 1, beta);
	if (rc < 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory solving the least-squares system")));
	if (rc > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the estimated second moments of the other attributes are not positive definite"),
				 errhint("The lift dominates the data: release more rows, a larger r, or fewer attributes.")));
	PG_RETURN_ARRAYTYPE_P(jl_vector_array(beta, cd->d - 1));
}
