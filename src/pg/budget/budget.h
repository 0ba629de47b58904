/*
 * budget.h - the privacy budget: protected datasets with caps, charged by
 * basic composition, owned by roles (docs/design/threat_model.md).
 */
#ifndef JLDP_PG_BUDGET_H
#define JLDP_PG_BUDGET_H

#include "postgres.h"

#include "math/accounting/accountant.h"

#include "fmgr.h"
#include "nodes/pg_list.h"

/*
 * The role on whose behalf a budget function acts: the current user as SQL
 * sees it, read before any switch to the extension owner.
 */
typedef struct JlActor
{
	Oid			role;
	char	   *name;
} JlActor;

/* The acting role; call before jl_become_owner. */
extern JlActor jl_budget_actor(void);

/*
 * Charge (epsilon, delta) to the dataset of a protected table (the
 * pipeline's releases, a booking), refusing (ERROR, nothing written) past
 * its cap, when the acting role may not spend it (its owner, a member of
 * the owner's role, a superuser, or a role the owner granted), when the
 * dataset is not bound to source_relid or declares no protected table, or
 * when its unit is not unit.  The charge is committed by a background
 * worker in a transaction of its own before this returns
 * (charge_worker.c): a later ROLLBACK of the caller's transaction leaves it
 * standing.  Serialised by a row lock on the dataset, so concurrent charges
 * cannot together pass the cap.  A dataset declared or changed in the
 * caller's open transaction is refused (the worker cannot see it).
 * Returns the ledger id.
 */
extern int64 jl_budget_charge_declared(Oid nsp, const char *dataset, Oid source_relid,
									   const char *unit, double epsilon, double delta,
									   const char *what, const JlProfile *profile);

/* What a background worker charges, in its own transaction. */
typedef struct JlChargeRequest
{
	Oid			nsp;			/* the extension's schema */
	const char *dataset;
	Oid			source;			/* the relation the dataset is bound to */
	const char *source_q;		/* its qualified name */
	double		epsilon;
	double		delta;
	const char *what;			/* the ledger's note */
	const char *unit;			/* the declaration's unit */
	JlActor		actor;
	/* the release's privacy profile (its kind, rho and dominating
	 * Gaussian shift mu; the epsilon and delta above), what the accountant
	 * composes */
	JlProfileKind profile;
	double		rho;
	double		mu;
} JlChargeRequest;

/*
 * The request of a charge as jl_budget_charge_declared makes it (the
 * acting role read now, the source's qualified name), without charging:
 * for jl_budget_charge_now in the caller's own transaction.
 */
extern void jl_budget_request(JlChargeRequest *r, Oid nsp, const char *dataset,
							  Oid source_relid, const char *unit,
							  double epsilon, double delta, const char *what);

/*
 * Run by the worker, in its own transaction: lock the dataset, check it,
 * the spender and the cap, write the charge and the ledger row.  Returns
 * the ledger id.
 */
extern int64 jl_budget_charge_now(const JlChargeRequest *r);

/*
 * Every refusal jl_budget_charge_now(req) would make, made now without
 * charging: the charge in a subtransaction of the caller's, rolled back.
 * For a step that must be refused before another server is charged (a
 * distributed release).
 */
extern void jl_budget_trial_charge(const JlChargeRequest *req);

/* The same for jl_budget_charge_declared's charge. */
extern void jl_budget_trial_charge_declared(Oid nsp, const char *dataset, Oid source_relid,
											const char *unit, double epsilon, double delta,
											 const JlProfile *profile);

/*
 * ERROR if a dataset named dataset, or bound to source_relid, was declared
 * or changed in the caller's still-open transaction: a charge committed on
 * its own cannot see (or would wait for) that change.
 */
extern void jl_budget_refuse_uncommitted(Oid nsp, const char *dataset, Oid source_relid);

/* ---- shared by budget.c, budget_admin.c and reservation.c ---- */

/* A dataset's row, locked FOR UPDATE. */
typedef struct JlDataset
{
	char	   *owner;			/* role name */
	List	   *spenders;		/* role names (char *) */
	Oid			source;			/* InvalidOid if not bound */
	char	   *unit;			/* the privacy unit's column of source, or NULL */
	bool		declared;		/* a protected table's declaration (jl_protect) */
} JlDataset;

/*
 * Within SPI, as the extension owner: lock dataset's row and read it;
 * false if it does not exist.
 */
extern bool jl_budget_lock(Oid nsp, const char *dataset, JlDataset *ds);

/* ERROR unless the dataset exists; then lock it (SPI, as owner). */
extern void jl_budget_lock_existing(Oid nsp, const char *dataset, JlDataset *ds);

/*
 * ERROR unless the actor may bind a dataset (or a declaration) to relid:
 * its owner, a member of the owner's role, or a superuser.
 */
extern void jl_budget_check_relation_owner(const JlActor *a, Oid relid);

/* The actor may change the dataset: its owner, a member of it, a superuser. */
extern bool jl_budget_may_manage(const JlActor *a, const JlDataset *ds);

/* ERROR unless the actor may change the dataset's cap, spent or grants. */
extern void jl_budget_check_manage(const JlActor *a, const JlDataset *ds,
								   const char *dataset);

/*
 * ERROR unless the acting role may spend dataset (read without a lock,
 * SPI as the owner): a release checks it before its calibration; the
 * charge checks it again under the dataset's lock.
 */
extern void jl_budget_check_spender(Oid nsp, const char *dataset);

/* ERROR unless the actor may spend the dataset (manage, or granted). */
extern void jl_budget_check_spend(const JlActor *a, const JlDataset *ds,
								  const char *dataset);

/*
 * Charge a locked dataset (SPI, as owner), writing a ledger row of event;
 * the refusal past the cap shows caps and remaining only if show_budget.
 */
extern int64 jl_budget_charge_locked(Oid nsp, const char *dataset, double epsilon,
									 double delta, const char *event, const char *what,
									 const JlActor *a, bool show_budget,
									 JlProfileKind profile, double rho, double mu);

/* Insert a ledger row (SPI, as owner); returns its id. */
extern int64 jl_budget_ledger_insert(Oid nsp, const char *dataset, const char *event,
									 Datum eps, bool eps_null, Datum delta, bool delta_null,
									 const char *what, const JlActor *a);

/*
 * Declare a dataset (SPI, as owner) owned by owner; false if a concurrent
 * or earlier declaration holds the name or the source and conflict_error
 * is false, else ERROR.
 */
extern bool jl_budget_declare(Oid nsp, const char *dataset, const char *eps_cap,
							  const char *delta_cap, Oid source_relid, const char *unit,
							  const char *owner, const JlActor *a, bool conflict_error);

/* argument n of a budget function, ERROR if NULL (what names it) */
extern Datum jl_budget_arg_datum(FunctionCallInfo fcinfo, int n, const char *what);
extern double jl_budget_arg_float(FunctionCallInfo fcinfo, int n, const char *what);


/* epsilon finite >= 0, delta in [0, 1) */
extern void jl_budget_check_epsilon_delta(double epsilon, double delta);

/* v as a numeric that reads back as v (see budget.c) */
extern Datum jl_budget_numeric(double v);
extern char *jl_budget_numeric_text(Datum d);

#endif
