/*
 * mechanism.h - the mechanisms a protected table is released with, as
 * their constructors build them (jl_sketch, jl_covariance_mechanism,
 * jl_graph, jl_kmeans_mechanism) and as the pipeline reads them
 * back: every check made in one place, when the value is built and again
 * when it is used (a composite can be written by hand).
 */
#ifndef JLDP_PG_PIPELINE_MECHANISM_H
#define JLDP_PG_PIPELINE_MECHANISM_H

#include "postgres.h"

#include "math/projection/mechanism.h"
#include "math/projection/projection.h"

/* jl_sketch: x P plus noise */
typedef struct JlSketchSpec
{
	JlKind		kind;
	int			k;				/* 0: k = d (kind 'identity' only) */
	JlNoise		noise;
	double		delta;			/* NaN for Laplace noise */
	JlCalibration calibration;
} JlSketchSpec;

/* jl_covariance_mechanism: Blocki et al.'s R = Y [A; l I] */
typedef struct JlCovarianceSpec
{
	int			r;
	double		delta;
	bool		auto_lift;
	bool		gram;
	bool		origin_zero;	/* origin 'zero': numbers keep their zero */
} JlCovarianceSpec;

/* jl_graph: Blocki et al.'s cut release of an edge table (jl_edge) */
typedef struct JlGraphSpec
{
	int			r;
	double		delta;
} JlGraphSpec;

/* jl_kmeans_mechanism: differentially private k-means (noisy Lloyd) */
typedef struct JlKmeansSpec
{
	int			k;
	double		delta;
	int			iterations;		/* 0: chosen from the number of units */
} JlKmeansSpec;

/*
 * jl_advised: the sketch the advisor ranks first for the goal, refused
 * when it would not serve the goal unless forced
 */
typedef struct JlAdvisedSpec
{
	int			goal;			/* JlAdviseGoal */
	double		dist2,
				dist2_hi;
	double		cluster_var;	/* NaN for goal distance */
	bool		noise_given;
	JlNoise		noise;
	double		delta;			/* NaN when not given */
	bool		force;
} JlAdvisedSpec;

typedef enum JlMechanismKind
{
	JL_MECHANISM_SKETCH,
	JL_MECHANISM_COVARIANCE,
	JL_MECHANISM_GRAPH,
	JL_MECHANISM_ADVISED,
	JL_MECHANISM_KMEANS
} JlMechanismKind;

typedef struct JlMechanismSpec
{
	JlMechanismKind kind;
	JlSketchSpec sketch;
	JlCovarianceSpec covariance;
	JlGraphSpec graph;
	JlAdvisedSpec advised;
	JlKmeansSpec kmeans;
} JlMechanismSpec;

/* A jl_mechanism value, checked (ERROR naming what is wrong). */
extern void jl_mechanism_read(Datum composite, JlMechanismSpec *spec);

#endif
