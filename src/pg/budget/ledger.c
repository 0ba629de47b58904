/*
 * ledger.c - privacy budget: datasets, their owners, charges, the ledger,
 * each checked and written in the caller's transaction (charge.c commits a
 * release's charge on its own, through charge_worker.c).
 *
 * The tables belong to the extension's owner and are not readable by
 * PUBLIC; jldp's functions write them through SPI under the owner's
 * identity (as PostgreSQL's referential-integrity triggers do), so a
 * curator can spend budget only through a release.  Who acts is read
 * before that switch (jl_budget_actor) and passed down: owners, spenders
 * and the ledger's roles are role names, which survive a dump restored into
 * another cluster (docs/design/threat_model.md).
 */
#include "postgres.h"

#include <math.h>
#include <limits.h>
#include <stdlib.h>

#include "access/transam.h"
#include "access/xact.h"
#include "utils/resowner.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "math/projection/mechanism.h"
#include "pg/budget/budget.h"
#include "pg/catalog/owner.h"
#include "pg/common/messages.h"
#include "pg/catalog/source_relation.h"

#define ERRCODE_BUDGET_EXCEEDED ERRCODE_CONFIGURATION_LIMIT_EXCEEDED

JlActor
jl_budget_actor(void)
{
	JlActor		a;

	a.role = GetUserId();
	a.name = GetUserNameFromId(a.role, false);
	return a;
}

void
jl_budget_check_epsilon_delta(double epsilon, double delta)
{
	if (!(isfinite(epsilon) && epsilon >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a finite number >= 0")));
	if (!(delta >= 0.0 && delta < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must lie in [0, 1)")));
}

/*
 * v as a numeric that reads back as v: float8_numeric's 15 significant
 * digits when they do (what was typed, e.g. 1e-05), else 17.  Rounding to 15
 * digits would charge 0.3 for 0.1 + 0.2 = 0.30000000000000004, and a
 * release calibrated to the larger epsilon would pass a cap of 0.3.
 */
Datum
jl_budget_numeric(double v)
{
	char		buf[64];

	snprintf(buf, sizeof(buf), "%.15g", v);
	if (!isfinite(v) || strtod(buf, NULL) == v)
		return DirectFunctionCall1(float8_numeric, Float8GetDatum(v));
	snprintf(buf, sizeof(buf), "%.17g", v);
	return DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

char *
jl_budget_numeric_text(Datum d)
{
	return DatumGetCString(DirectFunctionCall1(numeric_out, d));
}

int64
jl_budget_ledger_insert(Oid nsp, const char *dataset, const char *event, Datum eps,
						bool eps_null, Datum delta, bool delta_null, const char *what,
						const JlActor *a)
{
	Oid			types[6] = {TEXTOID, TEXTOID, NUMERICOID, NUMERICOID, TEXTOID, TEXTOID};
	Datum		values[6];
	char		nulls[6] = {' ', ' ', eps_null ? 'n' : ' ', delta_null ? 'n' : ' ',
	what ? ' ' : 'n', ' '};
	bool		isnull;
	int			rc;

	values[0] = CStringGetTextDatum(dataset);
	values[1] = CStringGetTextDatum(event);
	values[2] = eps;
	values[3] = delta;
	values[4] = what ? CStringGetTextDatum(what) : (Datum) 0;
	values[5] = CStringGetTextDatum(a->name);
	rc = SPI_execute_with_args(psprintf("INSERT INTO %s (dataset, event, epsilon, delta, epsilon_spent, delta_spent, what, role, "
										"epsilon_composed, delta_composed, composed_by) "
										"SELECT $1, $2, $3, $4, epsilon_spent, delta_spent, $5, %s, epsilon_composed, "
										"delta_composed, composed_by FROM %s WHERE name = $1 "
										"RETURNING id",
										jl_qualified(nsp, "jldp_ledger"), "$6::pg_catalog.name",
										jl_qualified(nsp, "jldp_dataset")),
							   6, types, values, nulls, false, 0);
	if (rc != SPI_OK_INSERT_RETURNING || SPI_processed != 1)
		elog(ERROR, "could not write the budget ledger");
	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
									   SPI_tuptable->tupdesc, 1, &isnull));
}

/* the names of a name[] */
static List *
name_array_list(Datum d)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i;
	List	   *result = NIL;

	deconstruct_array(DatumGetArrayTypeP(d), NAMEOID, NAMEDATALEN, false,
					  TYPALIGN_CHAR, &elems, &nulls, &n);
	for (i = 0; i < n; i++)
		if (!nulls[i])
			result = lappend(result, pstrdup(NameStr(*DatumGetName(elems[i]))));
	return result;
}

bool
jl_budget_lock(Oid nsp, const char *dataset, JlDataset *ds)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(dataset)};
	bool		isnull;
	Datum		d;
	int			rc;

	rc = SPI_execute_with_args(psprintf("SELECT owner, spenders, source::oid, unit, attributes IS NOT NULL FROM %s WHERE name = $1 FOR UPDATE",
										jl_qualified(nsp, "jldp_dataset")),
							   1, types, values, NULL, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "could not read the budget");
	if (SPI_processed == 0)
		return false;
	ds->owner = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	ds->spenders = isnull ? NIL : name_array_list(d);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull);
	ds->source = isnull ? InvalidOid : DatumGetObjectId(d);
	ds->unit = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 5, &isnull);
	ds->declared = !isnull && DatumGetBool(d);
	return true;
}

void
jl_budget_check_spender(Oid nsp, const char *dataset)
{
	JlActor		a = jl_budget_actor();
	JlOwnerScope scope;
	JlDataset	ds;
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(dataset)};
	bool		isnull;
	Datum		d;

	memset(&ds, 0, sizeof(ds));
	SPI_connect();
	jl_become_owner(nsp, &scope);
	if (SPI_execute_with_args(psprintf("SELECT owner, spenders, source::oid FROM %s WHERE name = $1",
									   jl_qualified(nsp, "jldp_dataset")),
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the budget");
	jl_restore_user(&scope);
	if (SPI_processed == 1)
	{
		ds.owner = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
		ds.spenders = isnull ? NIL : name_array_list(d);
		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull);
		ds.source = isnull ? InvalidOid : DatumGetObjectId(d);
		jl_budget_check_spend(&a, &ds, dataset);
	}
	SPI_finish();
}

void
jl_budget_lock_existing(Oid nsp, const char *dataset, JlDataset *ds)
{
	if (!jl_budget_lock(nsp, dataset, ds))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("dataset \"%s\" does not exist", jl_msg_str(dataset)),
				 errhint("A budget is declared with its table by jl_protect.")));
}

/* the actor has the privileges of the role of that name (which exists) */
static bool
acts_as(const JlActor *a, const char *rolename)
{
	Oid			role = get_role_oid(rolename, true);

	return OidIsValid(role) && has_privs_of_role(a->role, role);
}

bool
jl_budget_may_manage(const JlActor *a, const JlDataset *ds)
{
	return superuser_arg(a->role) || acts_as(a, ds->owner);
}

void
jl_budget_check_manage(const JlActor *a, const JlDataset *ds, const char *dataset)
{
	if (!jl_budget_may_manage(a, ds))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only the owner of dataset \"%s\" (or a member of its role) or a superuser may change its budget",
						jl_msg_str(dataset))));
}

void
jl_budget_check_spend(const JlActor *a, const JlDataset *ds, const char *dataset)
{
	ListCell   *lc;

	if (jl_budget_may_manage(a, ds))
		return;
	foreach(lc, ds->spenders)
		if (acts_as(a, (const char *) lfirst(lc)))
			return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("role \"%s\" may not spend the budget of dataset \"%s\"", a->name, jl_msg_str(dataset)),
			 OidIsValid(ds->source) ?
			 errhint("Its owner can allow it with jl_protect_grant(%s, role).",
					 quote_literal_cstr(DatumGetCString(DirectFunctionCall1(regclassout,
																			ObjectIdGetDatum(ds->source))))) :
			 errhint("Its owner can allow it with jl_protect_grant(protected, role).")));
}

/* SQL text of a cap, as a numeric */
static Datum
numeric_of(const char *s)
{
	return DirectFunctionCall3(numeric_in, CStringGetDatum(s),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/* the explicit declaration's refusal: which of name and source is taken */
static void
report_conflict(Oid nsp, const char *dataset, Oid source_relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(source_relid)};
	char	   *existing = NULL;
	int			rc;

	if (OidIsValid(source_relid))
	{
		rc = SPI_execute_with_args(psprintf("SELECT name FROM %s WHERE source = $1",
											jl_qualified(nsp, "jldp_dataset")),
								   1, types, values, NULL, false, 1);
		if (rc == SPI_OK_SELECT && SPI_processed > 0)
			existing = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	}
	if (existing && strcmp(existing, dataset) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("relation %s already has a dataset, \"%s\"",
						get_rel_name(source_relid), jl_msg_str(existing)),
				 errhint("Set its cap with jl_set_cap(%s, ...).", quote_literal_cstr(get_rel_name(source_relid)))));
	ereport(ERROR,
			(errcode(ERRCODE_DUPLICATE_OBJECT),
			 errmsg("dataset \"%s\" already exists", jl_msg_str(dataset))));
}

bool
jl_budget_declare(Oid nsp, const char *dataset, const char *eps_cap,
				  const char *delta_cap, Oid source_relid, const char *unit,
				  const char *owner, const JlActor *a, bool conflict_error)
{
	Oid			types[6] = {TEXTOID, TEXTOID, TEXTOID, OIDOID, TEXTOID, TEXTOID};
	Datum		values[6];
	char		nulls[6] = {' ', ' ', ' ', OidIsValid(source_relid) ? ' ' : 'n', ' ', unit ? ' ' : 'n'};
	int			rc;

	values[0] = CStringGetTextDatum(dataset);
	values[1] = CStringGetTextDatum(eps_cap);
	values[2] = CStringGetTextDatum(delta_cap);
	values[3] = ObjectIdGetDatum(source_relid);
	values[4] = CStringGetTextDatum(owner);
	values[5] = unit ? CStringGetTextDatum(unit) : (Datum) 0;

	/*
	 * No conflict target: a concurrent declaration of the same name or
	 * source is waited for, then this one inserts nothing.
	 */
	rc = SPI_execute_with_args(psprintf("INSERT INTO %s (name, epsilon_cap, delta_cap, source, owner, unit) "
										"VALUES ($1, $2::numeric, $3::numeric, $4::regclass, $5::pg_catalog.name, $6) "
										"ON CONFLICT DO NOTHING",
										jl_qualified(nsp, "jldp_dataset")),
							   6, types, values, nulls, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "could not declare dataset");
	if (SPI_processed == 0)
	{
		if (conflict_error)
			report_conflict(nsp, dataset, source_relid);
		return false;
	}
	jl_budget_ledger_insert(nsp, dataset, "declare", numeric_of(eps_cap), false,
							numeric_of(delta_cap), false,
							OidIsValid(source_relid) ?
							psprintf("source %s",
									 quote_qualified_identifier(get_namespace_name(get_rel_namespace(source_relid)),
																get_rel_name(source_relid))) : NULL,
							a);
	return true;
}

/*
 * What a charge is known as: pure only at delta 0, zCDP only with a rho
 * that is a number >= 0, else by its (epsilon, delta) alone
 */
static JlProfileKind
profile_kind(JlProfileKind kind, double delta, double rho)
{
	if (kind == JL_PROFILE_PURE && delta == 0.0)
		return JL_PROFILE_PURE;
	if (kind == JL_PROFILE_ZCDP && isfinite(rho) && rho >= 0.0)
		return JL_PROFILE_ZCDP;
	return JL_PROFILE_APPROX;
}

/*
 * The charges of the dataset since its last reset, and this one, composed
 * at the cap's delta by the tightest valid accounting (math/accounting);
 * the caller holds the dataset's row lock, so no other charge comes
 * between the composition and its record.
 */
static void
compose_with(Oid nsp, const char *dataset, double epsilon, double delta,
			 JlProfileKind kind, double rho, double mu, double delta_cap, JlComposition *c)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(dataset)};
	JlProfile  *p;
	uint64		n,
				i;
	JlStatus	s;

	if (SPI_execute_with_args(psprintf("SELECT epsilon::pg_catalog.float8, delta::pg_catalog.float8, profile, rho, mu "
									   "FROM %s WHERE dataset = $1 AND event IN ('charge', 'reserve') "
									   "AND id > (SELECT COALESCE(pg_catalog.max(id), 0) FROM %s "
									   "WHERE dataset = $1 AND event = 'reset') ORDER BY id",
									   jl_qualified(nsp, "jldp_ledger"), jl_qualified(nsp, "jldp_ledger")),
							  /*
							   * not read-only: a snapshot taken now, after the
							   * dataset's lock, sees every charge committed
							   * before it (a read-only read keeps the
							   * transaction's first snapshot, which misses a
							   * charge that committed while this one waited
							   * for the lock: two would pass a cap that
							   * admits one)
							   */
							  1, types, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the budget ledger");
	n = SPI_processed;
	if (n + 1 > (uint64) INT_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dataset \"%s\" has too many charges to compose", jl_msg_str(dataset))));
	p = palloc0(sizeof(JlProfile) * (n + 1));
	for (i = 0; i < n; i++)
	{
		HeapTuple	row = SPI_tuptable->vals[i];
		TupleDesc	td = SPI_tuptable->tupdesc;
		bool		isnull;
		char	   *profile = SPI_getvalue(row, td, 3);
		Datum		r;

		p[i].epsilon = DatumGetFloat8(SPI_getbinval(row, td, 1, &isnull));
		p[i].delta = DatumGetFloat8(SPI_getbinval(row, td, 2, &isnull));
		r = SPI_getbinval(row, td, 4, &isnull);
		p[i].rho = isnull ? NAN : DatumGetFloat8(r);
		r = SPI_getbinval(row, td, 5, &isnull);
		p[i].mu = isnull ? NAN : DatumGetFloat8(r);
		/* a row without a profile (or with one it cannot hold) is known by its (epsilon, delta) */
		p[i].kind = profile_kind(profile == NULL ? JL_PROFILE_APPROX :
								 strcmp(profile, "pure") == 0 ? JL_PROFILE_PURE :
								 strcmp(profile, "zcdp") == 0 ? JL_PROFILE_ZCDP : JL_PROFILE_APPROX,
								 p[i].delta, p[i].rho);
	}
	p[n].kind = profile_kind(kind, delta, rho);
	p[n].epsilon = epsilon;
	p[n].delta = delta;
	p[n].rho = rho;
	p[n].mu = mu;
	s = jl_compose(p, (int) n + 1, delta_cap, c);
	if (s != JL_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the ledger of dataset \"%s\" holds a charge no release writes", jl_msg_str(dataset)),
				 errdetail("%s", jl_status_message(s))));
	pfree(p);
}

int64
jl_budget_charge_locked(Oid nsp, const char *dataset, double epsilon, double delta,
						const char *event, const char *what, const JlActor *a,
						bool show_budget, JlProfileKind profile, double rho, double mu)
{
	Oid			types[6] = {TEXTOID, NUMERICOID, NUMERICOID, FLOAT8OID, FLOAT8OID, TEXTOID};
	Datum		values[6];
	int			rc;
	bool		isnull;
	bool		fits_sum,
				fits_composed;
	double		eps_cap,
				delta_cap;
	JlComposition c;
	int64		id;

	values[0] = CStringGetTextDatum(dataset);
	values[1] = jl_budget_numeric(epsilon);
	values[2] = jl_budget_numeric(delta);
	rc = SPI_execute_with_args(psprintf("SELECT epsilon_spent + $2 <= epsilon_cap AND delta_spent + $3 <= delta_cap, "
										"(epsilon_cap - epsilon_spent)::text, (delta_cap - delta_spent)::text, "
										"epsilon_cap::text, delta_cap::text, "
										"epsilon_cap::pg_catalog.float8, delta_cap::pg_catalog.float8 "
										"FROM %s WHERE name = $1",
										jl_qualified(nsp, "jldp_dataset")),
							   3, types, values, NULL, false, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the budget of dataset \"%s\"", dataset);
	fits_sum = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	eps_cap = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 6, &isnull));
	delta_cap = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 7, &isnull));
	{
		/* the caps' texts, kept past the ledger's query */
		char	   *eps_left = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2),
				   *delta_left = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3),
				   *eps_cap_t = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4),
				   *delta_cap_t = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 5);

		/*
		 * The composition at the cap's delta.  The caps are numeric, read
		 * as float8 (to the nearest): the composed epsilon must stay below
		 * the float just under the cap's, its delta within the cap's.
		 */
		compose_with(nsp, dataset, epsilon, delta, profile, rho, mu,
					 delta_cap > 1.0 ? 1.0 : nextafter(delta_cap, 0.0), &c);
		/*
		 * basic composition is judged by the exact decimal sums (fits_sum):
		 * the double sums round to nearest, and could pass the cap by an ulp
		 */
		fits_composed = strcmp(c.method, "basic") != 0 &&
			c.epsilon <= nextafter(eps_cap, 0.0) && c.delta <= nextafter(delta_cap, 0.0);
		if (!fits_sum && !fits_composed && show_budget)
			ereport(ERROR,
					(errcode(ERRCODE_BUDGET_EXCEEDED),
					 errmsg("privacy budget of dataset \"%s\" would be exceeded", jl_msg_str(dataset)),
					 errdetail("This release needs epsilon %s, delta %s; the remaining budget is epsilon %s, delta %s (caps %s, %s)%s.",
							   jl_budget_numeric_text(values[1]), jl_budget_numeric_text(values[2]),
							   eps_left, delta_left, eps_cap_t, delta_cap_t,
							   strcmp(c.method, "basic") == 0 ? "" :
							   psprintf("; composed with the earlier charges (%s) it would be epsilon %.6g at delta %.3g",
										c.method, c.epsilon, c.delta)),
					 errhint("A budget administrator (jldp_budget_admin) can raise the cap with jl_set_cap(protected, epsilon_cap, delta_cap).")));
	}
	/* a role that does not see the dataset in jl_budgets learns no figures */
	if (!fits_sum && !fits_composed)
		ereport(ERROR,
				(errcode(ERRCODE_BUDGET_EXCEEDED),
				 errmsg("privacy budget of dataset \"%s\" would be exceeded", jl_msg_str(dataset)),
				 errdetail("This release needs epsilon %s, delta %s.",
						   jl_budget_numeric_text(values[1]), jl_budget_numeric_text(values[2])),
				 errhint("A budget administrator (jldp_budget_admin) can raise the cap with jl_set_cap(protected, epsilon_cap, delta_cap).")));
	/* the composed totals: the composition's, or the sums' where only they fit */
	if (!fits_composed)
	{
		c.epsilon = c.basic_epsilon;
		c.delta = c.basic_delta;
		c.method = "basic";
	}
	values[3] = Float8GetDatum(c.epsilon);
	values[4] = Float8GetDatum(c.delta);
	values[5] = CStringGetTextDatum(c.method);
	rc = SPI_execute_with_args(psprintf("UPDATE %s SET epsilon_spent = epsilon_spent + $2, "
										"delta_spent = delta_spent + $3, epsilon_composed = $4, "
										"delta_composed = $5, composed_by = $6 WHERE name = $1",
										jl_qualified(nsp, "jldp_dataset")),
							   6, types, values, NULL, false, 0);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "could not charge the budget");
	id = jl_budget_ledger_insert(nsp, dataset, event, values[1], false, values[2], false,
								 what, a);
	{
		JlProfileKind k = profile_kind(profile, delta, rho);
		bool		has_mu = k == JL_PROFILE_ZCDP && isfinite(mu) && mu > 0.0;
		Oid			ptypes[4] = {INT8OID, TEXTOID, FLOAT8OID, FLOAT8OID};
		Datum		pvalues[4] = {Int64GetDatum(id),
			CStringGetTextDatum(k == JL_PROFILE_ZCDP ? "zcdp" : k == JL_PROFILE_PURE ? "pure" : "approx"),
		Float8GetDatum(rho), Float8GetDatum(has_mu ? mu : 0.0)};
		char		pnulls[4] = {' ', ' ', k == JL_PROFILE_ZCDP ? ' ' : 'n', has_mu ? ' ' : 'n'};

		if (SPI_execute_with_args(psprintf("UPDATE %s SET profile = $2, rho = $3, mu = $4 WHERE id = $1",
										   jl_qualified(nsp, "jldp_ledger")),
								  4, ptypes, pvalues, pnulls, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "could not write the budget ledger");
	}
	return id;
}

int64
jl_budget_charge_now(const JlChargeRequest *r)
{
	const JlActor *a = &r->actor;
	JlOwnerScope scope;
	JlDataset	ds;
	int64		id;

	jl_budget_check_epsilon_delta(r->epsilon, r->delta);
	SPI_connect();
	jl_become_owner(r->nsp, &scope);
	jl_budget_lock_existing(r->nsp, r->dataset, &ds);

	/*
	 * Only a protected table's dataset is charged, as its declaration says:
	 * bound to the relation read, by the declared unit
	 */
	if (!ds.declared || (OidIsValid(r->source) && ds.source != r->source))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dataset \"%s\" is not the declaration of %s", jl_msg_str(r->dataset),
						jl_msg_str(r->source_q ? r->source_q : "a protected table")),
				 errhint("Declare the table with jl_protect.")));
	if (r->unit && ds.unit && strcmp(r->unit, ds.unit) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the privacy unit of dataset \"%s\" is column \"%s\", not \"%s\"",
						jl_msg_str(r->dataset), jl_msg_str(ds.unit), jl_msg_str(r->unit)),
				 errdetail("A release by another column could let one unit contribute several rows or groups."),
				 errhint("Release by the column \"%s\".", jl_msg_str(ds.unit))));
	jl_budget_check_spend(a, &ds, r->dataset);
	id = jl_budget_charge_locked(r->nsp, r->dataset, r->epsilon, r->delta,
								 "charge", r->what, a,
								 jl_budget_may_manage(a, &ds), r->profile, r->rho, r->mu);
	jl_restore_user(&scope);
	SPI_finish();
	return id;
}
