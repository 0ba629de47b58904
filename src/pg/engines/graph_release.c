/*
 * graph_release.c - the arithmetic of the graph mechanism
 * (pipeline/graph.c), Blocki et al.'s release for cut queries: R = Y E with
 * E the edge-vertex incidence matrix of the graph overlaid with the
 * complete graph, written as one sketch (a column of R, r entries) per
 * vertex to a new table (vertex, sketch) (docs/design/graph_cuts.md).
 *
 * The pipeline refuses n r beyond the memory bound before allocating
 * (jl_graph_check_memory) and sets the overlay weight from public inputs
 * (jl_graph_set_weight), charges, then this file draws the overlay, streams
 * the edges once in the order of their unordered pair (so that repeats and
 * reversed pairs are adjacent and merged) adding one fresh term per
 * distinct edge, rounds to the grid, writes the sketches (jl_graph_write)
 * and records the release (jl_graph_record).
 */
#include "postgres.h"

#include "fmgr.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "math/covariance/covariance.h"
#include "math/covariance/covariance_accountant.h"
#include "math/graph/graph_accountant.h"
#include "math/graph/graph_sampler.h"

#include "pg/common/arrays.h"
#include "pg/budget/budget.h"
#include "pg/catalog/source_relation.h"
#include "pg/common/calibration_json.h"
#include "pg/common/messages.h"
#include "pg/catalog/registry.h"
#include "pg/catalog/release_names.h"
#include "pg/keys/strong_random.h"
#include "pg/engines/graph_release.h"

#define PROGRESS_SECONDS 5.0


void
jl_graph_check_memory(const GraphRelease *gr)
{
	if ((Size) gr->n * (Size) gr->r > JL_COV_MAX_ENTRIES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("n * r = %lld exceeds the limit of %lld values (256 MB) of a graph release",
						(long long) gr->n * gr->r, (long long) JL_COV_MAX_ENTRIES),
				 errhint("Use a smaller r: the error of a cut estimate hardly depends on r beyond a few hundred.")));
}

void
jl_graph_set_weight(GraphRelease *gr, double rho, double (*delta) (int r, double rho, double eps))
{
	if (!(rho > 0.0 && isfinite(rho)))
		elog(ERROR, "the graph accountant found no weight");
	gr->rho = rho;
	/* a hair up, so that rounding cannot cross the bisection's end */
	gr->w0 = jl_graph_w0(rho) * (1.0 + 1e-12);
	gr->w_paper = jl_graph_w_paper(gr->r, gr->epsilon, gr->delta);
	if (!(gr->w0 < gr->n))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the overlay weight w = %.4g needed for r = %d, epsilon = %g, delta = %g is not below n = %d",
						gr->w0, gr->r, gr->epsilon, gr->delta, gr->n),
				 errhint("The complete-graph overlay needs w < n.  w grows like sqrt(r ln(1/delta)) / epsilon: use a smaller r, a larger epsilon or delta, or a graph of more than %.0f vertices.",
						 ceil(gr->w0))));
	gr->w = jl_graph_weight(gr->n, gr->w0);
	gr->c = sqrt(1.0 - gr->w / gr->n);
	/* checked again for this release: the bound holds at the weight used */
	gr->w_delta = delta(gr->r, jl_graph_edge_rho(gr->n, gr->w), gr->epsilon);
	if (!(gr->w_delta <= gr->delta))
		elog(ERROR, "the graph accountant's weight does not meet delta");
}

/* ---------- streaming the edges ---------- */

typedef struct EdgeReceiver
{
	DestReceiver pub;
	GraphRelease *gr;
} EdgeReceiver;

static void
edge_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
edge_shutdown(DestReceiver *self)
{
}

static void
edge_destroy(DestReceiver *self)
{
}

static int64
endpoint(TupleTableSlot *slot, int att, GraphRelease *gr, const char *col)
{
	bool		isnull;
	int64		x = DatumGetInt64(slot_getattr(slot, att, &isnull));

	if (gr->skip_invalid)
		return isnull || x < 1 || x > gr->n ? 0 : x;
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("edge endpoint %s must not be NULL", jl_msg_str(col)),
				 errhint("Filter NULLs out of the edge table, e.g. with a view.")));
	if (x < 1 || x > gr->n)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("edge endpoint %s = %lld is outside the vertices 1..%d",
						jl_msg_str(col), (long long) x, gr->n)));
	return x;
}

static void
report_progress(GraphRelease *gr)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, gr->last_report);
	if (INSTR_TIME_GET_DOUBLE(now) >= PROGRESS_SECONDS)
	{
		INSTR_TIME_SET_CURRENT(gr->last_report);
		now = gr->last_report;
		INSTR_TIME_SUBTRACT(now, gr->start);
		ereport(NOTICE,
				(errmsg("jl_release_graph: %lld edge rows read in %.1f s",
						(long long) gr->rows, INSTR_TIME_GET_DOUBLE(now))));
	}
}

static bool
edge_receive(TupleTableSlot *slot, DestReceiver *self)
{
	GraphRelease *gr = ((EdgeReceiver *) self)->gr;
	int64		x = endpoint(slot, 1, gr, gr->u),
				y = endpoint(slot, 2, gr, gr->v),
				a = Min(x, y),
				b = Max(x, y);

	if (gr->skip_invalid && (a == 0 || a == b))
		a = b = 0;				/* no edge; still a row */
	else if (a == b)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("edge (%lld, %lld) is a self-loop", (long long) x, (long long) y),
				 errdetail("A cut never separates a vertex from itself; the release is for simple undirected graphs."),
				 errhint("Filter self-loops out of the edge table, e.g. with a view.")));
	gr->rows++;
	/* rows arrive ordered by (least, greatest): a repeat follows its first */
	if (a != 0 && (a != gr->prev_a || b != gr->prev_b))
	{
		jl_graph_add_edge(jl_strong_random(), gr->S, gr->r, (int) (a - 1), (int) (b - 1), gr->c, gr->z);
		gr->distinct++;
		gr->prev_a = a;
		gr->prev_b = b;
	}
	if ((gr->rows & 1023) == 0)
	{
		CHECK_FOR_INTERRUPTS();
		report_progress(gr);
	}
	return true;
}

static void
stream_edges(GraphRelease *gr, const char *sql)
{
	EdgeReceiver er;
	SPIExecuteOptions opts;

	memset(&er, 0, sizeof(er));
	er.pub.receiveSlot = edge_receive;
	er.pub.rStartup = edge_startup;
	er.pub.rShutdown = edge_shutdown;
	er.pub.rDestroy = edge_destroy;
	er.pub.mydest = DestNone;
	er.gr = gr;
	INSTR_TIME_SET_CURRENT(gr->start);
	gr->last_report = gr->start;
	memset(&opts, 0, sizeof(opts));
	opts.read_only = true;
	opts.dest = &er.pub;
	if (SPI_execute_extended(sql, &opts) < 0)
		elog(ERROR, "could not read the edges");
}


void
jl_graph_write(GraphRelease *gr, const char *edges_sql)
{
	double	   *mean;

	gr->S = palloc(sizeof(double) * (Size) gr->n * gr->r);
	gr->z = palloc(sizeof(double) * (Size) gr->r);
	mean = palloc(sizeof(double) * (Size) gr->r);
	gr->target = jl_create_vector_table(gr->target_q, gr->target_nsp, gr->target_rel, "vertex", "sketch");
	jl_graph_overlay(jl_strong_random(), gr->S, gr->n, gr->r, gr->w, mean);
	explicit_bzero(mean, sizeof(double) * (Size) gr->r);
	stream_edges(gr, edges_sql);
	explicit_bzero(gr->z, sizeof(double) * (Size) gr->r);
	/* a power of two, so that the rounded values are exact multiples */
	gr->step = ldexp(1.0, ilogb(Max(sqrt(gr->w), 1.0)) - 30);
	jl_cov_round(gr->S, (Size) gr->n * gr->r, gr->step);
	jl_fill_vector_table(gr->target_q, "vertex", "sketch", gr->S, gr->n, gr->r);
}

int64
jl_graph_record(GraphRelease *gr)
{
	StringInfoData info;
	JlRegistryRecord rec;

	initStringInfo(&info);
	appendStringInfo(&info, "{\"mechanism\": \"graph\", \"kind\": \"blocki\", \"noise\": \"jl_graph\", "
					 "\"neighbor\": \"%s\", \"calibration\": \"%s\", "
					 "\"d\": %d, \"k\": %d, \"r\": %d, \"n\": %d",
					 gr->neighbor, gr->calibration, gr->n, gr->r, gr->r, gr->n);
	jl_json_num(&info, "epsilon", gr->epsilon);
	jl_json_num(&info, "delta", gr->delta);
	jl_json_num(&info, "bound", 1.0);
	jl_json_num(&info, "noise_variance", gr->w);
	jl_json_num(&info, "grid", gr->step);
	jl_json_num(&info, "w", gr->w);
	jl_json_num(&info, "w0", gr->w0);
	jl_json_num(&info, "rho", gr->rho);
	jl_json_num(&info, "w_delta_computed", gr->w_delta);
	jl_json_num(&info, "w_paper", gr->w_paper);
	jl_json_num(&info, "accountant_margin", JL_COV_DELTA_MARGIN);
	appendStringInfoString(&info, ", \"edges\": \"a set: repeats and reversed pairs merged; the number of edges is not recorded\""
						   ", \"y\": \"iid N(0,1) from pg_strong_random, Box-Muller, never stored\"");
	if (gr->extra_info)
		appendStringInfo(&info, ", %s", gr->extra_info);
	appendStringInfoChar(&info, '}');

	rec.source = gr->source_q;
	rec.target = gr->target;
	rec.id_column = "vertex";
	rec.vector = psprintf("%s, %s", gr->u, gr->v);
	rec.clipping = "edges as a set of unordered pairs of distinct vertices in 1..n, weight 1";
	rec.key_fingerprint = "none: Y is fresh for each release";
	rec.info = info.data;
	rec.ledger_id = gr->ledger_id;
	rec.dataset = gr->dataset;
	return jl_registry_write(gr->nsp, &rec);
}
