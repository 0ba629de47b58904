/*
 * graph_release.h - the graph release for cut queries (Blocki et al.) in
 * steps, shared by jl_release_graph and the release pipeline's graph
 * mechanism (pg/pipeline/graph.c): the overlay weight from the
 * accountant's w0, then, after the caller's charge, the target written
 * from a query of edges, and the registry record.
 */
#ifndef JLDP_PG_GRAPH_RELEASE_H
#define JLDP_PG_GRAPH_RELEASE_H

#include "postgres.h"

#include "portability/instr_time.h"

typedef struct GraphRelease
{
	Oid			nsp;
	Oid			source;
	char	   *source_q;
	char	   *u,
			   *v;
	char	   *target_name;
	Oid			target_nsp;
	char	   *target_rel;
	char	   *target_q;
	Oid			target;
	char	   *dataset;
	bool		dataset_given;
	int64		ledger_id;
	int			n,
				r;
	double		epsilon,
				delta;
	/* calibration, from public inputs */
	double		rho,			/* the accountant's whitened bound */
				w0,				/* the paper's w: 2 / rho^2 */
				w,				/* the overlay weight of the release */
				w_delta,		/* delta computed at w (with the margin) */
				w_paper,
				step;			/* the sketches' grid */
	/* the release */
	double	   *S;				/* n x r, vertex-major */
	double	   *z;				/* r scratch */
	double		c;				/* sqrt(1 - w/n): an edge's term */
	int64		rows,			/* edge rows read, and distinct edges (never recorded) */
				distinct;
	int64		prev_a,
				prev_b;
	bool		skip_invalid;	/* a NULL, out-of-range or self-loop edge
								 * row is no edge (the pipeline's reader
								 * writes such rows as NULLs); else ERROR */
	const char *neighbor;		/* the registry's neighbour notion */
	const char *calibration;	/* the accountant, in words */
	const char *extra_info;		/* JSON fields for the registry's info, or NULL */
	instr_time	start,
				last_report;
} GraphRelease;

/* n x r sketch entries within the stated bound, before any allocation */
extern void jl_graph_check_memory(const GraphRelease *gr);

/*
 * From rho, the largest whitened norm of an edge's row the accountant
 * allows for (r, epsilon, delta): w0 = 2 / rho^2, ERROR unless w0 < n; sets
 * the overlay weight w of the release and an edge's term c, and checks
 * delta(r, the edge's whitened norm at w, epsilon) <= delta again.
 */
extern void jl_graph_set_weight(GraphRelease *gr, double rho,
								double (*delta) (int r, double rho, double eps));

/*
 * After the charge, SPI connected: create the target (vertex, sketch),
 * draw the overlay, add a term for each distinct edge of edges_sql (rows
 * of two int8 endpoints, ordered by the smaller, then the larger), round
 * to the grid and write the sketches.
 */
extern void jl_graph_write(GraphRelease *gr, const char *edges_sql);

/* The registry record; returns its id. */
extern int64 jl_graph_record(GraphRelease *gr);

#endif
