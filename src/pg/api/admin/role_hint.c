/*
 * role_hint.c - "permission denied for function jl_release" says which of
 * jldp's roles has the function, and "function jl_release(...) does not
 * exist" how it is called.
 *
 * PostgreSQL checks EXECUTE (and SELECT on a view) before any of jldp's
 * code runs, so the hint is added where the error is reported: an
 * emit_log_hook that recognises the message of a permission error on one
 * of jldp's names and, if the error has no hint, adds the role.  The
 * message names no schema, so an object of another schema with one of
 * jldp's names gets the hint too: it says "jldp's jl_release".  The table
 * below repeats the grant lists at the end of the install script; the
 * roles test (sql/roles.sql) compares the two through jl_role_hint, so
 * that neither can change alone.  The hook does no catalog access: it runs
 * while an error is being reported.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/elog.h"
#include "utils/memutils.h"

#include "pg/api/admin/role_hint.h"

PG_FUNCTION_INFO_V1(jl_role_hint);

#define ANALYST "jldp_analyst"
#define CURATOR "jldp_curator"
#define BUDGET_ADMIN "jldp_budget_admin"

typedef struct RoleOf
{
	const char *name;
	const char *role;
} RoleOf;

static const RoleOf roles[] = {
	/* an analyst's: reading releases, recovery and analytics */
	{"jl_recover_dist", ANALYST}, {"jl_recover_dist_stddev", ANALYST},
	{"jl_recover_inner", ANALYST}, {"jl_recover_inner_stddev", ANALYST},
	{"jl_recover_norm2", ANALYST}, {"jl_recover_norm2_stddev", ANALYST},
	{"jl_recover_dist_rr", ANALYST}, {"jl_recover_dist_rr_stddev", ANALYST},
	{"jl_knn", ANALYST}, {"jl_kmeans", ANALYST}, {"jl_kmeans_lloyd", ANALYST},
	{"jl_kmeans_labels", ANALYST},
	{"jl_nearest_centroid", ANALYST}, {"jl_lloyd_step", ANALYST},
	{"jl_vector_sum", ANALYST}, {"jl_lloyd_update", ANALYST}, {"jl_pca", ANALYST},
	{"jl_covariance", ANALYST}, {"jl_directional_variance", ANALYST},
	{"jl_directional_variance_stddev", ANALYST}, {"jl_least_squares", ANALYST},
	{"jl_cut_size", ANALYST}, {"jl_cut_size_stddev", ANALYST},
	{"jl_cut_estimate", ANALYST}, {"jl_cut_estimate_stddev", ANALYST},
	{"jl_linear_fit", ANALYST}, {"jl_linear_fit_intercept", ANALYST},
	{"jl_kmeans_options", ANALYST}, {"jl_linear_options", ANALYST},
	{"jl_kmeans_options_checked", ANALYST}, {"jl_kmeans_options_of", ANALYST},
	{"jl_linear_options_checked", ANALYST},
	{"jl_linear_predict", ANALYST}, {"jl_nullspace_clean", ANALYST},
	{"jl_min_dim", ANALYST}, {"jl_discrete_laplace_variance", ANALYST},
	{"jl_rr_flip_probability", ANALYST}, {"jldp_version", ANALYST},
	{"jl_releases", ANALYST}, {"jl_distributed_releases", ANALYST},
	/* a curator's: keys, declarations, releases, the advisor, primitives */
	{"jl_key_create", CURATOR}, {"jl_key_drop", CURATOR}, {"jl_key_export", CURATOR},
	{"jl_master_key_id", CURATOR}, {"jl_keys", CURATOR},
	{"jl_key_grant", CURATOR}, {"jl_key_revoke", CURATOR},
	{"jl_protect", CURATOR}, {"jl_numeric", CURATOR}, {"jl_category", CURATOR},
	{"jl_vector", CURATOR}, {"jl_long", CURATOR}, {"jl_edge", CURATOR},
	{"jl_protect_grant", CURATOR}, {"jl_protect_revoke", CURATOR},
	{"jl_sketch", CURATOR}, {"jl_advised", CURATOR},
	{"jl_covariance_mechanism", CURATOR}, {"jl_graph", CURATOR}, {"jl_kmeans_mechanism", CURATOR},
	{"jl_release", CURATOR}, {"jl_release_dist2", CURATOR},
	{"jl_release_distributed", CURATOR}, {"jl_distributed_resolve", CURATOR},
	{"jl_budget_book", CURATOR}, {"jl_advise", CURATOR}, {"jl_suggest_k", CURATOR},
	{"jl_suggest_k_info", CURATOR}, {"jl_release_info", CURATOR},
	{"jl_private_release", CURATOR}, {"jl_private_release_agg", CURATOR},
	{"jl_project", CURATOR}, {"jl_project_agg", CURATOR},
	{"jl_randomized_response", CURATOR}, {"jl_add_discrete_laplace", CURATOR},
	{"jl_attribute_checked", CURATOR}, {"jl_mechanism_checked", CURATOR},
	{"jl_encode_number", CURATOR}, {"jl_encode_category", CURATOR},
	{"jl_encode_vector", CURATOR}, {"jl_distributed_run", CURATOR},
	{"jl_declaration_info", CURATOR}, {"jl_shard_bounds", CURATOR},
	{"jl_release_part", CURATOR}, {"jl_release_part_check", CURATOR},
	{"jl_distributed_begin_declared", CURATOR}, {"jl_distributed_charge_declared", CURATOR},
	{"jl_distributed_decide_declared", CURATOR}, {"jl_distributed_decision", CURATOR},
	{"jl_distributed_pending", CURATOR}, {"jl_distributed_committed", CURATOR},
	{"jldp_internal", CURATOR},
	/* both: the budgets' views, and caps (an owner lowers, an administrator raises) */
	{"jl_protected", CURATOR " or " BUDGET_ADMIN}, {"jl_budgets", CURATOR " or " BUDGET_ADMIN},
	{"jl_ledger", CURATOR " or " BUDGET_ADMIN},
	{"jl_set_cap", CURATOR " or " BUDGET_ADMIN},
	/* a budget administrator's */
	{"jl_reset", BUDGET_ADMIN},
	/* a superuser's */
	{"jl_key_import", "a superuser"}, {"jl_key_import_wrapped", "a superuser"},
	{"jl_key_rewrap", "a superuser"},
};

/*
 * How jldp's most used routines are called, for "function ... does not
 * exist" (arguments swapped, a number where a mechanism is meant, 0.4's
 * forms): PostgreSQL's own hint only suggests casts.
 */
static const RoleOf usages[] = {
	{"jl_release", "jl_release(protected, target, epsilon, mechanism [, key]), the mechanism built by its constructor: jl_release('customers', 'customers_private', 1.0, jl_sketch(k => 20))."},
	{"jl_private_release", "jl_private_release(x float8[], epsilon, bound, neighbor ('attribute' or 'row'), jl_sketch(k => 20) [, key])."},
	{"jl_private_release_agg", "jl_private_release_agg(attr, value, d, epsilon, bound, neighbor, jl_sketch(k => 20), key)."},
	{"jl_release_info", "jl_release_info(d, epsilon, bound, neighbor ('attribute' or 'row'), jl_sketch(k => 20) [, key])."},
	{"jl_project", "jl_project(x float8[], jl_sketch(k => 20, kind => 'gaussian') [, key])."},
	{"jl_project_agg", "jl_project_agg(attr, value, jl_sketch(k => 20), key)."},
	{"jl_sketch", "jl_sketch(k, kind, noise, delta, calibration, density), by name: jl_sketch(k => 20, noise => 'gaussian', delta => 1e-6)."},
	{"jl_protect", "jl_protect(table, unit => 'id', attributes => ARRAY[jl_numeric('age', 18, 95), jl_category('segment', '{a,b}')], epsilon_cap => 5 [, neighbor, row_clip, delta_cap])."},
	{"jl_release_dist2", "jl_release_dist2(protected, epsilon)."},
	{"jl_release_distributed", "CALL jl_release_distributed(protected, target, epsilon, jl_sketch(k => 20) [, key])."},
	{"jl_budget_book", "jl_budget_book(protected, epsilon [, delta, note])."},
	{"jl_recover_dist", "jl_recover_dist(a, b, release): the release's table or name ('customers_private'), or its noise variance as a float8."},
	{"jl_knn", "jl_knn(release, query float8[], n), or jl_knn(table, id_column, sketch_column, query, n, noise_variance)."},
	{"jl_kmeans", "jl_kmeans(release, n_clusters [, seed, max_iter, n_init, tol]), or the aggregate jl_kmeans(sketch, n_clusters), jl_kmeans(sketch, jl_kmeans_options(n_clusters [, seed, max_iter, n_init]))."},
	{"jl_linear_fit", "jl_linear_fit(x, y), or with options jl_linear_fit(x, y, jl_linear_options([ridge, intercept]))."},
	{"jl_linear_fit_intercept", "jl_linear_fit_intercept(x, y), or with options jl_linear_fit_intercept(x, y, jl_linear_options([ridge, intercept]))."},
	{"jl_kmeans_labels", "jl_kmeans_labels(release, n_clusters [, seed, max_iter, n_init, tol])."},
	{"jl_advise", "jl_advise(d, epsilon, dist2 [, dist2_hi, neighbor, bound, noise, delta, goal, cluster_var, n, key])."},
	{"jl_set_cap", "jl_set_cap(protected, epsilon_cap [, delta_cap])."},
	{"jl_dataset_declare", "jl_dataset_declare was removed in 1.0.0: jl_protect(table, unit, attributes, epsilon_cap => ...) declares a table and its budget."},
	{"jl_dataset_set_cap", "jl_dataset_set_cap was removed in 1.0.0: use jl_set_cap(protected, epsilon_cap [, delta_cap])."},
	{"jl_dataset_reset", "jl_dataset_reset was removed in 1.0.0: use jl_reset(protected)."},
	{"jl_reset", "jl_reset(protected)."},
};

static emit_log_hook_type prev_emit_log_hook = NULL;

const char *
jl_role_hint_of(const char *name)
{
	size_t		i;

	for (i = 0; i < lengthof(roles); i++)
		if (strcmp(roles[i].name, name) == 0)
			return roles[i].role;
	return NULL;
}

/* the object's name in "permission denied for <kind> <name>", or NULL */
static const char *
denied_name(const char *message)
{
	static const char *const kinds[] = {"function ", "procedure ", "aggregate ", "routine ",
	"view ", "schema "};
	const char *prefix = "permission denied for ";
	size_t		i;

	if (message == NULL || strncmp(message, prefix, strlen(prefix)) != 0)
		return NULL;
	message += strlen(prefix);
	for (i = 0; i < lengthof(kinds); i++)
		if (strncmp(message, kinds[i], strlen(kinds[i])) == 0)
			return message + strlen(kinds[i]);
	return NULL;
}

/* "function NAME(types) does not exist" of one of jldp's routines: its usage */
static const char *
usage_of_missing(const char *message)
{
	const char *prefix = "function ";
	const char *name;
	size_t		len,
				i;

	if (message == NULL || strncmp(message, prefix, strlen(prefix)) != 0)
		return NULL;
	name = message + strlen(prefix);
	if (strncmp(name, "jldp.", 5) == 0)
		name += 5;
	len = strcspn(name, "(");
	if (name[len] != '(' || strstr(name + len, ") does not exist") == NULL)
		return NULL;
	for (i = 0; i < lengthof(usages); i++)
		if (strlen(usages[i].name) == len && strncmp(usages[i].name, name, len) == 0)
			return usages[i].role;
	return NULL;
}

static void
add_role_hint(ErrorData *edata)
{
	const char *usage;
	const char *name;
	const char *role;

	/* PostgreSQL's hint for these only suggests casts: say how it is called */
	if (edata->elevel >= ERROR && edata->sqlerrcode == ERRCODE_UNDEFINED_FUNCTION &&
		(usage = usage_of_missing(edata->message)) != NULL)
		edata->hint = MemoryContextStrdup(ErrorContext, psprintf("jldp's %s", usage));

	if (edata->elevel >= ERROR && edata->sqlerrcode == ERRCODE_INSUFFICIENT_PRIVILEGE &&
		edata->hint == NULL && (name = denied_name(edata->message)) != NULL &&
		(role = jl_role_hint_of(name)) != NULL)
	{
		if (strcmp(role, "a superuser") == 0)
			edata->hint = MemoryContextStrdup(ErrorContext,
											  psprintf("jldp's %s is a superuser's only.", name));
		else if (strcmp(name, "jldp_internal") == 0)
			edata->hint = MemoryContextStrdup(ErrorContext,
											  "jldp_internal holds jldp's catalog and internal steps: use the functions of schema jldp.");
		else if (strchr(role, ' ') != NULL)
			edata->hint = MemoryContextStrdup(ErrorContext,
											  psprintf("jldp's %s needs role %s.", name, role));
		else
			edata->hint = MemoryContextStrdup(ErrorContext,
											  psprintf("jldp's %s needs role %s: GRANT %s TO the role that calls it.",
													   name, role, role));
	}
	if (prev_emit_log_hook)
		prev_emit_log_hook(edata);
}

void
jl_role_hint_init(void)
{
	prev_emit_log_hook = emit_log_hook;
	emit_log_hook = add_role_hint;
}

/*
 * jldp_internal.jl_role_hint(name text) RETURNS text: the role the hint
 * names for a routine or view (NULL for none), for the roles test.
 */
Datum
jl_role_hint(PG_FUNCTION_ARGS)
{
	const char *role = jl_role_hint_of(text_to_cstring(PG_GETARG_TEXT_PP(0)));

	if (role == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(role));
}
