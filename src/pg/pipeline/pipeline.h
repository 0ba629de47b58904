/*
 * pipeline.h - the one release pipeline (pipeline.c) and the mechanisms it
 * runs.  pipeline.c owns the steps every budgeted release takes, in order:
 * the arguments, the declaration (locked and checked), the calibration,
 * the target's name, the charge, the read, the record.  A mechanism
 * supplies only what is its own, through JlMechanismOps: its calibration
 * from the declaration (before the charge, no row read), its arithmetic on
 * the rows the pipeline's reader gives it (after the charge), the
 * guarantee it states and its registry record.
 */
#ifndef JLDP_PG_PIPELINE_PIPELINE_H
#define JLDP_PG_PIPELINE_PIPELINE_H

#include "postgres.h"

#include "pg/budget/budget.h"
#include "pg/keys/keystore.h"
#include "pg/keys/projection_cache.h"
#include "pg/pipeline/declaration.h"
#include "pg/pipeline/mechanism.h"

typedef struct JlPipeline
{
	Oid			nsp;
	char	   *target_name;
	double		epsilon;
	char	   *keyname;
	JlMechanismSpec spec;
	JlDeclaration decl;
	JlKey		key;
	Oid			target_nsp;
	char	   *target_rel;
	char	   *target_q;
	Oid			target;
	double		delta_charged;	/* set by the calibration */
	JlProfile	profile;		/* the release's privacy profile, set by the
								 * calibration when it says more than
								 * (epsilon, delta_charged), whose are its
								 * epsilon and delta: its kind (0: not set)
								 * and rho */
	int64		ledger_id;
	int64		nrows;
	double		noise_variance; /* of the release, for the caller */
	void	   *state;			/* the mechanism's own */
	char	   *advice_json;	/* jl_advised: what was chosen and why */
	/* a shard's part of a distributed release (jl_release_part) */
	bool		part;
	char	   *part_lower;		/* the partition's range, NULL unbounded */
	char	   *part_upper;
	int			part_nmembers;	/* its list, or -1 for a range */
	char	  **part_members;
} JlPipeline;

typedef struct JlMechanismOps
{
	bool		writes_target;	/* a table (else a value the caller returns) */
	bool		target_has_unit;	/* the table's id column has the unit's type */
	bool		needs_key;
	/* before the charge: everything the release will use, or ERROR */
	void		(*calibrate) (JlPipeline *pl);
	/* after it, SPI connected: create pl->target and fill it from the rows
	 * (or compute the value) */
	void		(*write) (JlPipeline *pl);
	/* what holds, for whom, and what is not protected */
	char	   *(*guarantee) (JlPipeline *pl);
	/* the registry record with the guarantee; returns its id (0: none) */
	int64		(*record) (JlPipeline *pl, const char *guarantee);
} JlMechanismOps;

extern const JlMechanismOps jl_sketch_ops;
extern const JlMechanismOps jl_covariance_ops;
extern const JlMechanismOps jl_dist2_ops;
extern const JlMechanismOps jl_graph_ops;
extern const JlMechanismOps jl_advised_ops;
extern const JlMechanismOps jl_kmeans_ops;

/*
 * The sketch's calibration of m (noise, epsilon, delta and calibration set)
 * to p, the P (d x k; P NULL for the identity) of a release of the
 * declaration: row neighbours at the L2 distance of two encoded rows,
 * attribute neighbours at the largest move of one declared attribute.
 * *scale is that distance or that move.  strict: errors as ERROR (a
 * release); otherwise a status (the advisor ranking candidates).
 */
extern JlStatus jl_sketch_calibrate_declared(JlMechanism *m, const JlDeclaration *decl,
											 JlProjection *p, int k, bool strict,
											 double *scale);


/* dist2's value (dist2.c), for jl_release_dist2 over a protected table */
typedef struct JlDist2Value
{
	double		dist2;			/* NaN with fewer than two rows */
	double		stddev;
	int64		n;
	double		epsilon;		/* what holds */
} JlDist2Value;
extern const JlDist2Value *jl_dist2_value(const JlPipeline *pl);

/*
 * The rows of the protected table as the pipeline's reader gives them:
 * SELECT unit, the encoded row (float8[] of d) FROM the table.
 */
extern char *jl_pipeline_rows_sql(const JlPipeline *pl);

/*
 * A shard's part: "part": {"lower": ..., "upper": ..., "in": [...]}, the
 * bounds it applied in their canonical text (for the registry's info, which
 * the coordinator compares with its partition's bounds); NULL otherwise.
 */
extern char *jl_pipeline_part_json(const JlPipeline *pl);

/* The sentence every guarantee ends with: what is not protected. */
extern void jl_pipeline_not_protected(StringInfo b, const JlPipeline *pl);

/* The steps (pipeline.c), for the entry points of api/release/protected.c */

/* The mechanism's operations for pl->spec. */
extern const JlMechanismOps *jl_pipeline_ops(const JlPipeline *pl);

/* ERROR unless a release may run now: read-write, at read committed. */
extern void jl_pipeline_require_read_committed(const char *who);

/* Everything before the charge: the declaration, the checks, the calibration. */
extern void jl_pipeline_prepare(JlPipeline *pl, const JlMechanismOps *ops);

/*
 * The whole release of the arguments read into pl: prepare, charge, read,
 * record.  Returns the guarantee (in the caller's memory) and sets
 * *release_id.
 */
extern char *jl_pipeline_run(JlPipeline *pl, const JlMechanismOps *ops, int64 *release_id);

#endif
