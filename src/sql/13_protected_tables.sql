-- protected tables: the declaration, the mechanisms, the release pipeline

CREATE FUNCTION jldp_internal.jl_attribute_checked(a jldp.jl_attribute)
RETURNS jldp.jl_attribute
AS 'MODULE_PATHNAME', 'jl_attribute_checked'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_attribute_checked(jldp.jl_attribute) IS
  'Used by jl_numeric, jl_category and jl_vector: a declared attribute, or an error naming what is wrong with it (the checks jl_protect and jl_release make again).';

CREATE FUNCTION jldp.jl_numeric(column_name text, lo float8, hi float8, weight float8 DEFAULT 1)
RETURNS jldp.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_attribute_checked(ROW(column_name, 'numeric', lo, hi, weight, NULL, NULL, NULL)::jldp.jl_attribute);

COMMENT ON FUNCTION jldp.jl_numeric(text, float8, float8, float8) IS
  'A numeric attribute of a protected table: every read clamps it to [lo, hi] (NULL and NaN read as lo) and maps it to [0, weight].';

CREATE FUNCTION jldp.jl_category(column_name text, categories text[], weight float8 DEFAULT 1)
RETURNS jldp.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_attribute_checked(ROW(column_name, 'category', NULL, NULL, weight, categories, NULL, NULL)::jldp.jl_attribute);

COMMENT ON FUNCTION jldp.jl_category(text, text[], float8) IS
  'A categorical attribute of a protected table: one coordinate per listed category, weight for the row''s (compared as text), 0 elsewhere; a value not listed, or NULL, reads as all zeros.';

CREATE FUNCTION jldp.jl_vector(column_name text, length int, lo float8, hi float8, weight float8 DEFAULT 1)
RETURNS jldp.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_attribute_checked(ROW(column_name, 'vector', lo, hi, weight, NULL, length, NULL)::jldp.jl_attribute);

COMMENT ON FUNCTION jldp.jl_vector(text, int, float8, float8, float8) IS
  'A float8[] attribute of a protected table, each of its length elements an attribute of its own: clamped to [lo, hi] and mapped to [0, weight] (missing, NULL or NaN elements read as lo; elements past length are not read).';

CREATE FUNCTION jldp.jl_long(attribute_column text, value_column text, d int, lo float8, hi float8,
    weight float8 DEFAULT 1)
RETURNS jldp.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_attribute_checked(ROW(value_column, 'long', lo, hi, weight, NULL, d, attribute_column)::jldp.jl_attribute);

COMMENT ON FUNCTION jldp.jl_long(text, text, int, float8, float8, float8) IS
  'Long-format rows (unit, attribute, value) of a protected table, the only attribute of its declaration: the unit''s values form a vector of d elements (attribute 1 to d; others not read), each clamped to [lo, hi] and mapped to [0, weight]; the unit and the attribute are unique together by a constraint.';

CREATE FUNCTION jldp_internal.jl_mechanism_checked(m jldp.jl_mechanism)
RETURNS jldp.jl_mechanism
AS 'MODULE_PATHNAME', 'jl_mechanism_checked'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_mechanism_checked(jldp.jl_mechanism) IS
  'Used by jl_sketch: a mechanism, or an error naming what is wrong with it (the checks jl_release makes again).';

CREATE FUNCTION jldp.jl_sketch(k int DEFAULT NULL, kind jldp.jl_kind DEFAULT 'rademacher',
    noise jldp.jl_noise DEFAULT 'laplace', delta float8 DEFAULT NULL,
    calibration jldp.jl_calibration DEFAULT NULL, density float8 DEFAULT NULL)
RETURNS jldp.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_mechanism_checked(ROW('sketch', k, kind, noise, delta, calibration, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, density)::jldp.jl_mechanism);

COMMENT ON FUNCTION jldp.jl_sketch(int, jldp.jl_kind, jldp.jl_noise, float8, jldp.jl_calibration, float8) IS
  'The sketch mechanism for jl_release and jl_private_release: each row projected to k dimensions by the key''s P of the kind (''sparse'': density 1/sqrt(d) unless given; ''identity'': not projected, k = d) plus noise calibrated to the realized P (Laplace: pure epsilon; Gaussian: give delta). calibration: the noise''s default (''exact'', ''analytic''), ''classic'' (Gaussian), or ''paper'' (Dhaliwal et al.''s constants, for the unbudgeted primitives only).';

CREATE FUNCTION jldp.jl_advised(goal jldp.jl_goal DEFAULT 'distance', dist2 float8 DEFAULT NULL,
    dist2_hi float8 DEFAULT NULL, cluster_var float8 DEFAULT NULL,
    noise jldp.jl_noise DEFAULT NULL, delta float8 DEFAULT NULL, force boolean DEFAULT false)
RETURNS jldp.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_mechanism_checked(ROW('advised', NULL, NULL, noise, delta, NULL, NULL, NULL, NULL, goal, dist2, dist2_hi, cluster_var, force, NULL, NULL)::jldp.jl_mechanism);

COMMENT ON FUNCTION jldp.jl_advised(jldp.jl_goal, float8, float8, float8, jldp.jl_noise, float8, boolean) IS
  'The sketch mechanism the advisor ranks first for the goal (jl_advise: no projection or a kind at its best k; Laplace noise, and Gaussian when delta is given), every option calibrated to the declaration as jl_sketch would be; dist2 (required) is the squared distance of interest between encoded rows, or between two clusters'' centres with cluster_var for goal clustering, or a nearest neighbour''s with dist2_hi a non-neighbour''s for goal neighbors.  A release refuses before its charge, with the epsilon that would serve the goal, when the best option would not (distance: the recovered squared distance''s standard deviation not below dist2; clustering: a misclassification of 0.25 or more; neighbors: a non-neighbour at dist2_hi ranked before a neighbour at dist2 with probability 0.25 or more), unless force => true.';

CREATE FUNCTION jldp.jl_covariance_mechanism(r int, delta float8,
    lift jldp.jl_lift DEFAULT 'always', method jldp.jl_covariance_method DEFAULT 'gram',
    origin jldp.jl_origin DEFAULT 'lo')
RETURNS jldp.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_mechanism_checked(ROW('covariance', NULL, NULL, NULL, delta, NULL, r, lift, method, NULL, NULL, NULL, NULL, NULL, origin, NULL)::jldp.jl_mechanism);

COMMENT ON FUNCTION jldp.jl_covariance_mechanism(int, float8, jldp.jl_lift, jldp.jl_covariance_method, jldp.jl_origin) IS
  'The covariance mechanism for jl_release (Blocki et al.): r rows of R = Y [A; l I], A the encoded rows (each of L2 norm at most the row clip, or the largest the declaration allows), Y fresh Gaussian, the lift l from an exact accountant for (epsilon, delta); jl_covariance and jl_directional_variance read it.  origin => ''zero'' releases the second moments of the numbers about their zero (x weight / (hi - lo), signed) instead of about lo, the norm bound then the largest norm of such a row.';

CREATE FUNCTION jldp.jl_kmeans_mechanism(k int, delta float8, iterations int DEFAULT NULL)
RETURNS jldp.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_mechanism_checked(ROW('kmeans', k, NULL, NULL, delta, NULL, iterations, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jldp.jl_mechanism);

COMMENT ON FUNCTION jldp.jl_kmeans_mechanism(int, float8, int) IS
  'The k-means mechanism for jl_release: differentially private k-means over the encoded rows, released as k clusters (cluster, size, centroid in the attributes'' units, encoded centroid); iterations noisy Lloyd steps (left out: Su et al.''s choice from n, k, d and epsilon, 2 to 7) from centroids spread over the public box, each releasing every cluster''s sum and count with discrete Gaussian noise, composed exactly for (epsilon, delta) (docs/design/dp_kmeans.md).  k at most the number of units.';

CREATE FUNCTION jldp_internal.jl_encode_number(x float8, lo float8, hi float8, weight float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'jl_encode_number'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_encode_number(float8, float8, float8, float8) IS
  'Used by jl_release to read a numeric attribute: x clamped to [lo, hi] and mapped to [0, weight]; NULL and NaN read as 0.';

CREATE FUNCTION jldp_internal.jl_encode_category(x anyelement, categories text[], weight float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_encode_category'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_encode_category(anyelement, text[], float8) IS
  'Used by jl_release to read a categorical attribute: one-hot over categories with value weight, the value compared as its type''s output function writes it (no cast runs); a value not listed, or NULL, as all zeros.';

CREATE FUNCTION jldp_internal.jl_encode_category(x text, categories text[], weight float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_encode_category'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_encode_category(text, text[], float8) IS
  'Used by jl_release to read a categorical attribute, given the value''s text as its type''s output function writes it (pg_catalog.format): its exact signature, which no other function in this schema can take, so that the reader resolves to it whatever overloads exist.';

CREATE FUNCTION jldp_internal.jl_encode_vector(x float8[], length int, lo float8, hi float8, weight float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'jl_encode_vector'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION jldp_internal.jl_encode_vector(float8[], int, float8, float8, float8) IS
  'Used by jl_release to read a float8[] attribute: length elements, each clamped to [lo, hi] and mapped to [0, weight]; missing, NULL or NaN elements as 0.';

CREATE FUNCTION jldp.jl_protect(relation regclass, unit text, attributes jldp.jl_attribute[],
    neighbor jldp.jl_neighbor DEFAULT 'row', row_clip float8 DEFAULT NULL,
    epsilon_cap float8 DEFAULT NULL, delta_cap float8 DEFAULT 0,
    OUT dataset text, OUT d int)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_protect'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_protect(regclass, text, jldp.jl_attribute[], jldp.jl_neighbor, float8, float8, float8) IS
  'Declare relation (a whole table or partitioned table, owned by the caller) protected: its unit (a column unique by a constraint), its attributes with their public bounds, what a release protects (row or attribute neighbours, row_clip for rows) and its caps (epsilon_cap required). jl_release reads it only through this declaration. Again on a protected table: the declaration is replaced, the spent budget kept, and a cap may only be lowered.';

CREATE FUNCTION jldp.jl_release(protected regclass, target text, epsilon float8,
    mechanism jldp.jl_mechanism, key text DEFAULT 'default',
    OUT release_id bigint, OUT released regclass, OUT epsilon_charged float8, OUT delta_charged float8,
    OUT noise_variance float8, OUT guarantee text)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_release'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_release(regclass, text, float8, jldp.jl_mechanism, text) IS
  'Release a protected table into a new table target (unit, sketch float8[]) with a mechanism (jl_sketch), charged to its budget before any row is read, read only through its declaration, recorded in jl_releases; returns what holds and what does not.';

CREATE FUNCTION jldp.jl_release_dist2(protected regclass, epsilon float8,
    OUT dist2 float8, OUT stddev float8, OUT n bigint, OUT epsilon_holding float8,
    OUT delta float8, OUT neighbor text, OUT guarantee text)
RETURNS record
AS 'MODULE_PATHNAME', 'jl_release_dist2_declared'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_release_dist2(regclass, float8) IS
  'The mean squared distance between two encoded rows of a protected table (for jl_advise''s dist2), epsilon-DP with exact discrete Laplace noise, through the release pipeline: charged before any row is read, the grid from the declaration; returns the value with what holds and what does not.';

-- Edge tables and the graph mechanism; booking an unbudgeted release (0.4.1)
CREATE FUNCTION jldp.jl_edge(u text, v text, vertices int)
RETURNS jldp.jl_attribute
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_attribute_checked(ROW(u, 'edge'::text, NULL, NULL, 1, NULL, vertices, v)::jldp.jl_attribute);

COMMENT ON FUNCTION jldp.jl_edge(text, text, int) IS
  'An edge table''s one attribute: integer columns u and v are an undirected edge of vertices 1 to vertices (public); a row whose endpoints are NULL, equal or outside 1..vertices is no edge, and repeated or reversed pairs are one edge. Released with jl_graph.';

CREATE FUNCTION jldp.jl_graph(r int, delta float8)
RETURNS jldp.jl_mechanism
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jldp_internal.jl_mechanism_checked(ROW('graph', NULL, NULL, NULL, delta, NULL, r, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::jldp.jl_mechanism);

COMMENT ON FUNCTION jldp.jl_graph(int, float8) IS
  'The graph mechanism for jl_release over a table declared with jl_edge (Blocki et al.): one sketch of r entries per vertex, R = Y E with E the edges overlaid with a weighted complete graph, the weight from an exact accountant for (epsilon, delta) against one edge row replaced; jl_cut_size estimates cuts from it.';

CREATE FUNCTION jldp.jl_budget_book(protected regclass, epsilon float8, delta float8 DEFAULT 0,
    note text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'jl_budget_book'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_budget_book(regclass, float8, float8, text) IS
  'Charge a protected table''s budget at once, durably and within its caps, for a release made with an unbudgeted primitive (jl_private_release, jl_private_release_agg, jl_project): returns the ledger row''s id. Nothing checks what the primitive reads.';

CREATE VIEW jldp.jl_protected WITH (security_barrier) AS
  SELECT source AS relation, name AS dataset, unit, neighbor, row_clip,
         (SELECT sum(CASE (a).encoding WHEN 'numeric' THEN 1
                                       WHEN 'category' THEN pg_catalog.cardinality((a).categories)
                                       ELSE (a).length END)::int
            FROM pg_catalog.unnest(attributes) a) AS d,
         attributes, epsilon_cap, delta_cap, epsilon_spent, delta_spent,
         epsilon_cap - epsilon_spent AS epsilon_remaining, delta_cap - delta_spent AS delta_remaining,
         owner, spenders, epsilon_composed, delta_composed, composed_by
  FROM jldp_internal.jldp_dataset
  WHERE attributes IS NOT NULL
    AND (pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole(pg_catalog.quote_ident(owner)), 'USAGE')
     OR pg_catalog.pg_has_role(current_user, pg_catalog.to_regrole('jldp_budget_admin'), 'USAGE')
         OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user));

COMMENT ON VIEW jldp.jl_protected IS
  'Protected tables (jl_protect) with their declaration (unit, neighbour notion, row clip, d, attributes), caps, spent and remaining by basic composition, the composed totals (jl_budgets), for the tables whose dataset the current role owns or inherits (budget administrators and superusers: all).';

-- a protected table's budget, managed by the table (1.0.0): who may spend
-- it, its caps and a reset.  The table's owner (or a member of its role)
-- grants spending and may lower a cap; raising a cap and resetting are a
-- budget administrator's (jldp_budget_admin), on any protected table
CREATE FUNCTION jldp.jl_protect_grant(protected regclass, spender regrole)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_protect_grant_relation'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_protect_grant(regclass, regrole) IS
  'Let role spender (and its members) release a protected table (charge its budget with jl_release, jl_release_dist2 or jl_budget_book): the declaration''s owner (or a member of its role) grants it, a budget administrator as such does not; recorded in the ledger.';

CREATE FUNCTION jldp.jl_protect_revoke(protected regclass, spender name)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_protect_revoke_relation'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_protect_revoke(regclass, name) IS
  'Take back what jl_protect_grant granted (by the role''s name: also a role dropped since, whose name a new role could take); recorded in the ledger.';

CREATE FUNCTION jldp.jl_set_cap(protected regclass, epsilon_cap float8, delta_cap float8 DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_set_cap_relation'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_set_cap(regclass, float8, float8) IS
  'Set a protected table''s caps (delta_cap NULL: unchanged): raising takes jldp_budget_admin; the table''s owner may lower them. Recorded in the ledger.';

CREATE FUNCTION jldp.jl_reset(protected regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'jl_reset_relation'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION jldp.jl_reset(regclass) IS
  'Set a protected table''s spent budget back to 0 (jldp_budget_admin); recorded in the ledger.';

