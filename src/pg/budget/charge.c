/*
 * charge.c - what a release calls to be charged: refuse a declaration not
 * yet committed, try a charge without keeping it, and commit a charge on
 * its own before the release reads a row (by the charge worker, or in the
 * transaction for a superuser's audit).  Above ledger.c, which checks and
 * writes, and charge_worker.c, which commits.
 */
#include "postgres.h"

#include <math.h>

#include "access/transam.h"
#include "access/xact.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/resowner.h"

#include "pg/budget/budget.h"
#include "pg/budget/charge_worker.h"
#include "pg/catalog/owner.h"
#include "pg/common/messages.h"

void
jl_budget_refuse_uncommitted(Oid nsp, const char *dataset, Oid source_relid)
{
	JlOwnerScope scope;
	Oid			types[2] = {TEXTOID, OIDOID};
	Datum		values[2] = {CStringGetTextDatum(dataset), ObjectIdGetDatum(source_relid)};
	uint64		i;

	/* a charge written in this transaction sees its changes */
	if (jl_charge_in_transaction())
		return;

	SPI_connect();
	jl_become_owner(nsp, &scope);
	if (SPI_execute_with_args(psprintf("SELECT name, xmin FROM %s WHERE name = $1 OR source = $2",
									   jl_qualified(nsp, "jldp_dataset")),
							  2, types, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the budget");
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		TransactionId xmin = DatumGetTransactionId(SPI_getbinval(SPI_tuptable->vals[i],
																 SPI_tuptable->tupdesc, 2, &isnull));

		if (TransactionIdIsCurrentTransactionId(xmin))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("dataset \"%s\" was declared or changed in this transaction, which has not committed",
							jl_msg_str(SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1))),
					 errhint("Commit the declaration (or the change of its cap, spent budget or spenders) first: "
							 "a release's charge is committed on its own, before the release, and cannot see it.")));
	}
	jl_restore_user(&scope);
	SPI_finish();
}

void
jl_budget_request(JlChargeRequest *r, Oid nsp, const char *dataset, Oid source_relid,
				  const char *unit, double epsilon, double delta, const char *what)
{
	memset(r, 0, sizeof(*r));
	r->actor = jl_budget_actor();
	r->nsp = nsp;
	r->dataset = dataset;
	r->source = source_relid;
	if (OidIsValid(source_relid))
	{
		r->source_q = quote_qualified_identifier(get_namespace_name(get_rel_namespace(source_relid)),
												 get_rel_name(source_relid));
	}
	r->epsilon = epsilon;
	r->delta = delta;
	r->what = what;
	r->unit = unit;
	/* what any release with these (epsilon, delta) is, until told more */
	r->profile = delta > 0.0 ? JL_PROFILE_APPROX : JL_PROFILE_PURE;
	r->rho = NAN;
	r->mu = NAN;
}

/*
 * The release's own profile, when its mechanism says more than its
 * (epsilon, delta) (a Gaussian sketch: the rho of the noise it samples and the
 * Gaussian shift that dominates it); a
 * pure profile only for a release of delta 0
 */
static void
request_profile(JlChargeRequest *r, const JlProfile *profile)
{
	if (profile == NULL)
		return;
	if (profile->kind == JL_PROFILE_ZCDP && isfinite(profile->rho) && profile->rho >= 0.0)
	{
		r->profile = JL_PROFILE_ZCDP;
		r->rho = profile->rho;
		/* its dominating Gaussian shift, when the calibration found one */
		r->mu = isfinite(profile->mu) && profile->mu > 0.0 ? profile->mu : NAN;
	}
	else if (profile->kind == JL_PROFILE_APPROX)
		r->profile = JL_PROFILE_APPROX;
}

void
jl_budget_trial_charge(const JlChargeRequest *req)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		(void) jl_budget_charge_now(req);
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		ReThrowError(e);
	}
	PG_END_TRY();
}

void
jl_budget_trial_charge_declared(Oid nsp, const char *dataset, Oid source_relid, const char *unit,
								double epsilon, double delta, const JlProfile *profile)
{
	JlChargeRequest r;

	jl_budget_check_epsilon_delta(epsilon, delta);
	jl_budget_refuse_uncommitted(nsp, dataset, source_relid);
	jl_budget_request(&r, nsp, dataset, source_relid, unit, epsilon, delta, "(trial)");
	request_profile(&r, profile);
	jl_budget_trial_charge(&r);
}

int64
jl_budget_charge_declared(Oid nsp, const char *dataset, Oid source_relid, const char *unit,
						  double epsilon, double delta, const char *what,
						  const JlProfile *profile)
{
	JlChargeRequest r;

	jl_budget_check_epsilon_delta(epsilon, delta);
	jl_budget_refuse_uncommitted(nsp, dataset, source_relid);
	jl_budget_request(&r, nsp, dataset, source_relid, unit, epsilon, delta, what);
	request_profile(&r, profile);
	return jl_charge_committed(&r);
}
