/*
 * covariance_release.h - the covariance release (Blocki et al.) in steps,
 * shared by jl_release_covariance and the release pipeline's covariance
 * mechanism (pg/pipeline): the calibration from public inputs, then,
 * after the caller's charge, the target written from the rows of a query
 * of one float8[] column, and the registry record.
 */
#ifndef JLDP_PG_COVARIANCE_RELEASE_H
#define JLDP_PG_COVARIANCE_RELEASE_H

#include "postgres.h"

#include "lib/stringinfo.h"

#include "math/covariance/covariance.h"

typedef struct CovRelease
{
	Oid			nsp;
	Oid			source;
	char	   *source_q;
	char	   *target_name;
	Oid			target_nsp;
	char	   *target_rel;
	char	   *target_q;
	Oid			target;
	char	   *dataset;
	bool		dataset_given;
	int64		ledger_id;
	int			r;
	int			d;
	double		epsilon,
				delta,
				C;
	bool		auto_lift;
	bool		gram;			/* method 'gram': R = Z F, F^T F = A^T A + l^2 I */
	StringInfoData sql;			/* SELECT vector FROM source */
	bool		fresh_snapshot; /* read with a snapshot taken now */
	bool		allow_empty;	/* no rows: R is the lift alone (the
								 * pipeline); else refused after the charge */
	const char *extra_info;		/* JSON fields for the registry's info, or NULL */
	StringInfoData vec_desc;
	/* calibration, from public inputs */
	double		w,				/* the lift the accountant requires */
				w_paper,
				w_delta,		/* its computed delta (with the margin) */
				eps_w,			/* (epsilon, delta) w is calibrated for */
				delta_w,
				eps_sigma,		/* lift 'auto': sigma_min's share and failure */
				beta;
	/* the release */
	int64		nrows;
	double		l;				/* the lift applied */
	double		step;			/* R's grid */
	double		sigma_noisy,
				sigma_lcb;
	JlCovSigmaPlan plan;
	bool		sigma_skipped;	/* lift 'auto' whose sigma_min step n made infeasible */
	double	   *R;				/* r x d */
	const double *offset;		/* NULL, or d doubles added to each row before clipping */
} CovRelease;

/* r x d (and d x d for the Gram matrix) within the stated bound; ERROR if not */
extern void jl_cov_check_memory(const CovRelease *cr);

/* w from public inputs only: r, epsilon, delta, C (and the split of 'auto') */
extern void jl_cov_calibrate(CovRelease *cr);

/*
 * After the charge, SPI connected: create the target (i, y float8[]),
 * stream cr->sql once, lift, write R.
 */
extern void jl_cov_write(CovRelease *cr);

/* The registry record; returns its id (SPI connected). */
extern int64 jl_cov_record(CovRelease *cr);

/*
 * The accountant's lift for rows of norm 1 at (r, epsilon, delta), cached
 * per backend (a few quadratures, tens of milliseconds): it scales with the
 * norm bound exactly.
 */
extern double jl_cov_unit_lift(int r, double eps, double delta);

#endif
