/*
 * graph.c - the graph mechanism of the pipeline (jl_graph): Blocki et
 * al.'s cut release R = Y E of a table declared with jl_edge, one sketch
 * (a column of R, r entries) per vertex (pg/engines/graph_release.c does the
 * arithmetic; docs/design/graph_cuts.md).
 *
 * A protected table's neighbours replace one unit's row: here one edge
 * row by any other (or by a row that is no edge).  The edge set then
 * loses one edge and gains another, which the covariance accountant's
 * replacement bound covers: every whitened edge row has norm at most
 * sqrt(2 (1 - w/n) / w), and jl_cov_delta bounds delta(epsilon) over
 * every pair of rows within that norm.  So w0 = 2 l^2 with l the lift of
 * rows of norm 1, about 1.2 times 0.3's add/remove weight (the edge
 * neighbour of jl_release_graph).  The number of rows (units) is public
 * as for every protected table; which of them are edges is not.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/json.h"

#include "math/covariance/covariance_accountant.h"
#include "math/graph/graph_accountant.h"

#include "pg/engines/covariance_release.h"
#include "pg/engines/graph_release.h"
#include "pg/pipeline/pipeline.h"

static void
graph_calibrate(JlPipeline *pl)
{
	const JlGraphSpec *spec = &pl->spec.graph;
	const JlAttrDecl *a = &pl->decl.attrs[0];
	GraphRelease *gr = palloc0(sizeof(GraphRelease));
	double		l;

	pl->state = gr;
	if (!(pl->epsilon <= JL_COV_MAX_EPSILON))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be at most %g for the graph mechanism, not %g",
						JL_COV_MAX_EPSILON, pl->epsilon),
				 errhint("The accountant computes e^epsilon; an epsilon above %g protects nothing.",
						 JL_COV_MAX_EPSILON)));
	gr->nsp = pl->nsp;
	gr->source = pl->decl.relid;
	gr->source_q = pl->decl.relation_q;
	gr->u = a->column;
	gr->v = a->attr_column;
	gr->n = a->length;
	gr->r = spec->r;
	gr->epsilon = pl->epsilon;
	gr->delta = spec->delta;
	gr->skip_invalid = true;
	gr->neighbor = "edge row replaced";
	gr->calibration = "exact accountant, replacement";
	jl_graph_check_memory(gr);
	/*
	 * The lift of rows of norm 1: whitened rows of norm 1 / l are private
	 * against any replacement (jl_cov_delta bounds every such pair).
	 */
	l = jl_cov_unit_lift(gr->r, gr->epsilon, gr->delta);
	jl_graph_set_weight(gr, l > 0.0 ? 1.0 / l : NAN, jl_cov_delta);
	pl->delta_charged = spec->delta;
	pl->noise_variance = gr->w;
}

static void
graph_write(JlPipeline *pl)
{
	GraphRelease *gr = pl->state;

	gr->target_name = pl->target_name;
	gr->target_nsp = pl->target_nsp;
	gr->target_rel = pl->target_rel;
	gr->target_q = pl->target_q;
	/* the reader's edges, each pair once in order; every row counted */
	jl_graph_write(gr, psprintf("SELECT a, b FROM (%s) AS s (u, a, b) ORDER BY a, b",
								jl_pipeline_rows_sql(pl)));
	pl->target = gr->target;
	pl->nrows = gr->rows;
}

static char *
graph_guarantee(JlPipeline *pl)
{
	GraphRelease *gr = pl->state;
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfo(&b, "(epsilon = %g, delta = %g) differential privacy (Blocki et al.'s cut release, r = %d, overlay weight %.6g; the accountant's delta %.3g) for each unit (%s) of %s, an edge of vertices 1..%d, against its row replaced by any other; a row that is not an edge (an endpoint NULL or outside 1..%d, or a self-loop) adds nothing, and repeated or reversed pairs are one edge",
					 pl->epsilon, pl->delta_charged, gr->r, gr->w, gr->w_delta, pl->decl.unit,
					 pl->decl.relation_q, gr->n, gr->n);
	jl_pipeline_not_protected(&b, pl);
	return b.data;
}

static int64
graph_record(JlPipeline *pl, const char *guarantee)
{
	GraphRelease *gr = pl->state;
	StringInfoData extra;

	initStringInfo(&extra);
	appendStringInfo(&extra, "\"release\": \"jl_release\", \"release_mechanism\": \"graph\", %s, \"guarantee\": ",
					 jl_declaration_json(&pl->decl));
	escape_json(&extra, guarantee);
	gr->extra_info = extra.data;
	gr->ledger_id = pl->ledger_id;
	gr->dataset = pl->decl.dataset;
	return jl_graph_record(gr);
}

const JlMechanismOps jl_graph_ops = {
	true, false, false, graph_calibrate, graph_write, graph_guarantee, graph_record
};
