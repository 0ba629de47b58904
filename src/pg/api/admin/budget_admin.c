/*
 * budget_admin.c - the SQL functions that manage a protected table's
 * budget: its caps (jl_set_cap), a reset (jl_reset), and who may spend it
 * (jl_protect_grant, jl_protect_revoke).
 *
 * The acting role is read before switching to the extension owner
 * (jl_budget_actor).  A dataset's owner (or a member of the owner's role)
 * may lower its caps and grant spending; raising a cap or resetting the
 * spent budget is a budget administrator's (a member of jldp_budget_admin,
 * or a superuser), on any dataset: the role that spends a budget cannot
 * refill it.  Only a relation's owner (or a member, or a superuser) binds a
 * dataset to the relation (docs/design/threat_model.md).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pg/budget/budget.h"
#include "pg/common/options.h"
#include "pg/common/messages.h"
#include "pg/catalog/owner.h"
#include "pg/catalog/source_relation.h"

PG_FUNCTION_INFO_V1(jl_set_cap_relation);
PG_FUNCTION_INFO_V1(jl_reset_relation);
PG_FUNCTION_INFO_V1(jl_protect_grant_relation);
PG_FUNCTION_INFO_V1(jl_protect_revoke_relation);

/* caps are finite numbers >= 0, delta_cap below 1 (as jl_protect's) */
static void
check_caps(double eps_cap, double delta_cap)
{
	if (!(eps_cap >= 0.0 && isfinite(eps_cap)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon_cap must be a finite number >= 0"),
				 errhint("A protected table has a finite privacy budget.")));
	jl_budget_check_epsilon_delta(0.0, delta_cap);
}

/* ERROR unless the actor may bind a dataset to the relation: no squatting */
void
jl_budget_check_relation_owner(const JlActor *a, Oid relid)
{
	if (!superuser_arg(a->role) && !has_privs_of_role(a->role, jl_relation_owner(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only the owner of relation %s (or a member of its role) or a superuser may declare its dataset",
						get_rel_name(relid))));
}

/* a member of jldp_budget_admin, or a superuser */
static bool
is_budget_admin(const JlActor *a)
{
	Oid			admin = get_role_oid("jldp_budget_admin", true);

	return superuser_arg(a->role) || (OidIsValid(admin) && has_privs_of_role(a->role, admin));
}

static void
refuse_not_admin(const char *what, const char *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s of dataset \"%s\" needs role jldp_budget_admin", what, jl_msg_str(name)),
			 errdetail("The role that spends a budget cannot refill it."),
			 errhint("A budget administrator does it: GRANT jldp_budget_admin TO a role of its own.")));
}

/* who may make a change: a budget administrator always; else the owner, when */
typedef enum JlManageRule
{
	JL_OWNER_ONLY,				/* the owner, never a budget administrator as
								 * such: who may spend is the owner's call */
	JL_OWNER_MAY_LOWER,			/* the change lowers the caps (the sql's guard) */
	JL_ADMIN_ONLY				/* never */
} JlManageRule;

/*
 * Within SPI as owner: lock a dataset the actor may manage, run sql on it
 * ($1 the name, $2 and $3 as given, either may go unused; guard, ANDed to
 * its WHERE for an owner who is not a budget administrator, must hold) and
 * write the ledger row.
 */
static void
change_dataset(Oid nsp, const JlActor *a, const char *name, const char *sql,
			   Oid type2, Datum v2, bool null2, Datum v3, bool null3,
			   const char *event, const char *what, JlManageRule rule, const char *guard)
{
	JlDataset	ds;
	Oid			types[3] = {TEXTOID, type2, NUMERICOID};
	Datum		values[3] = {CStringGetTextDatum(name), v2, v3};
	char		nulls[3] = {' ', null2 ? 'n' : ' ', null3 ? 'n' : ' '};
	bool		admin = is_budget_admin(a);
	char	   *q = psprintf(sql, jl_qualified(nsp, "jldp_dataset"));

	jl_budget_lock_existing(nsp, name, &ds);
	if (rule == JL_OWNER_ONLY)
		jl_budget_check_manage(a, &ds, name);
	else if (!admin)
	{
		if (rule == JL_ADMIN_ONLY)
			refuse_not_admin(event, name);
		jl_budget_check_manage(a, &ds, name);
		if (rule == JL_OWNER_MAY_LOWER)
			q = psprintf("%s AND %s", q, guard);
	}
	if (SPI_execute_with_args(q, 3, types, values, nulls, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not change dataset \"%s\"", name);
	if (SPI_processed != 1)
		refuse_not_admin("raising the cap", name);
	jl_budget_ledger_insert(nsp, name, event,
							type2 == NUMERICOID ? v2 : (Datum) 0, type2 != NUMERICOID || null2,
							v3, type2 != NUMERICOID || null3, what, a);
}

/*
 * Within SPI as owner: the dataset of protected table relid, for an actor
 * who may see it in jl_protected (its owner or a member of the owner's
 * role, a budget administrator, a superuser); for anyone else the same
 * ERROR (55000) as for a table that is not protected.
 */
static char *
protected_dataset(Oid nsp, const JlActor *a, Oid relid, const char *hint)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	char	   *name = NULL;

	if (SPI_execute_with_args(psprintf("SELECT name, owner FROM %s WHERE source = $1 AND attributes IS NOT NULL",
									   jl_qualified(nsp, "jldp_dataset")),
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the declarations");
	if (SPI_processed == 1)
	{
		char	   *owner = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
		Oid			owner_oid = owner ? get_role_oid(owner, true) : InvalidOid;

		if (is_budget_admin(a) ||
			(OidIsValid(owner_oid) && has_privs_of_role(a->role, owner_oid)))
			name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	}
	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s is not a protected table whose budget you manage",
						DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)))),
				 hint ? errhint("%s", hint) : 0));
	return name;
}

/* jl_set_cap(protected, epsilon_cap, delta_cap) */
Datum
jl_set_cap_relation(PG_FUNCTION_ARGS)
{
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	JlActor		a = jl_budget_actor();
	Oid			relid = jl_regclass_arg(fcinfo, 0, "protected");
	double		eps_cap = jl_float8_arg(fcinfo, 1, "epsilon_cap");
	bool		delta_given = !PG_ARGISNULL(2);
	double		delta_cap = delta_given ? PG_GETARG_FLOAT8(2) : 0.0;
	JlOwnerScope scope;
	char	   *name;

	check_caps(eps_cap, delta_cap);
	SPI_connect();
	jl_become_owner(nsp, &scope);
	name = protected_dataset(nsp, &a, relid,
							 "A budget administrator (jldp_budget_admin) sets the cap of any protected table; its owner may lower it.");
	change_dataset(nsp, &a, name,
				   "UPDATE %s SET epsilon_cap = $2, delta_cap = coalesce($3, delta_cap) WHERE name = $1",
				   NUMERICOID, jl_budget_numeric(eps_cap), false,
				   jl_budget_numeric(delta_cap), !delta_given, "cap", NULL,
				   JL_OWNER_MAY_LOWER,
				   "$2 OPERATOR(pg_catalog.<=) epsilon_cap AND "
				   "COALESCE($3, delta_cap) OPERATOR(pg_catalog.<=) delta_cap");
	jl_restore_user(&scope);
	SPI_finish();
	PG_RETURN_VOID();
}

/* jl_reset(protected): spent back to 0, recorded */
Datum
jl_reset_relation(PG_FUNCTION_ARGS)
{
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	JlActor		a = jl_budget_actor();
	Oid			relid = jl_regclass_arg(fcinfo, 0, "protected");
	JlOwnerScope scope;
	char	   *name;

	SPI_connect();
	jl_become_owner(nsp, &scope);
	name = protected_dataset(nsp, &a, relid,
							 "A budget administrator (jldp_budget_admin) resets a protected table's budget.");
	change_dataset(nsp, &a, name,
				   "UPDATE %s SET epsilon_spent = 0, delta_spent = 0, epsilon_composed = 0, "
				   "delta_composed = 0, composed_by = 'basic' WHERE name = $1",
				   NUMERICOID, (Datum) 0, true, (Datum) 0, true, "reset", NULL,
				   JL_ADMIN_ONLY, NULL);
	jl_restore_user(&scope);
	SPI_finish();
	PG_RETURN_VOID();
}

/* jl_protect_grant (protected, spender regrole) / jl_protect_revoke (protected, spender name) */
static Datum
grant_or_revoke(FunctionCallInfo fcinfo, bool grant)
{
	Oid			nsp = JL_CATALOG_NSP(fcinfo);
	JlActor		a = jl_budget_actor();
	Oid			relid = jl_regclass_arg(fcinfo, 0, "protected");
	char	   *spender;
	char	   *name;
	JlOwnerScope scope;

	/*
	 * a grant names an existing role; a revoke takes a name, so that the
	 * name of a role dropped since can still be taken off (a role created
	 * later under it would spend: found by a review)
	 */
	if (grant)
		spender = GetUserNameFromId((jl_require_arg(fcinfo, 1, "spender"), PG_GETARG_OID(1)), false);
	else
		spender = pstrdup(NameStr(*(jl_require_arg(fcinfo, 1, "spender"), PG_GETARG_NAME(1))));
	SPI_connect();
	jl_become_owner(nsp, &scope);
	name = protected_dataset(nsp, &a, relid,
							 "Declare it with jl_protect; its owner (or a member of the owner's role) grants spending.");
	change_dataset(nsp, &a, name,
				   grant ?
				   "UPDATE %s SET spenders = CASE WHEN $2 = ANY (spenders) THEN spenders "
				   "ELSE array_append(spenders, $2) END WHERE name = $1" :
				   "UPDATE %s SET spenders = array_remove(spenders, $2) WHERE name = $1",
				   NAMEOID, DirectFunctionCall1(namein, CStringGetDatum(spender)), false,
				   (Datum) 0, true, grant ? "grant" : "revoke",
				   psprintf("role %s", quote_identifier(spender)), JL_OWNER_ONLY, NULL);
	jl_restore_user(&scope);
	SPI_finish();
	PG_RETURN_VOID();
}

Datum
jl_protect_grant_relation(PG_FUNCTION_ARGS)
{
	return grant_or_revoke(fcinfo, true);
}

Datum
jl_protect_revoke_relation(PG_FUNCTION_ARGS)
{
	return grant_or_revoke(fcinfo, false);
}
