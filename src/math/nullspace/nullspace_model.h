/*
 * nullspace_model.h - null-space cleaning of feature vectors for a known
 * linear predictor A_d (d x m_d): the decomposition of the model, done once,
 * and the cleaning of one vector x with the certified guarantee
 * ||A_d^T (x - x~)||^2 <= eps_utility.  docs/design/nullspace.md has the
 * derivation.
 *
 *   Algorithm 1: eigenvectors of B_d = A_d A_d^T, from the thin SVD of A_d
 *     (LAPACK dgesvd): B_d = U diag(sigma^2) U^T, its null space the
 *     complement of range(U), removed whole.  The budget goes over the
 *     components u_j^T x by water-filling (Theorem 2's objective, the
 *     default) or by the paper's augmented knapsack with G_j = 1.
 *   Algorithm 2: the pencil B_d v = gamma B_c v, B_c = A_c A_c^T, reduced to
 *     S = range([A_d A_c]) where B_d + B_c is definite (the common null
 *     space is removed whole), simultaneously diagonalised there (from
 *     the SVD of Z_d, so that mu_j = 0 comes out exactly 0); the
 *     coordinates of x are taken in the dual basis, so that
 *     e_utility = sum alpha_j^2 mu_j a_j^2 holds exactly.
 *
 * utility_error = 0.  In exact arithmetic the components A_d does not see
 * cost nothing and go whole.  In floating point A_d^T (x - x~) is not
 * exactly 0 for any x~ != x, so a certificate of "<= 0" can only accept
 * x~ = x, which removes nothing.  A budget of 0 therefore means "remove
 * what is free up to rounding", and 0 is replaced by a bound stated in
 * advance:
 *
 *   ||A_d^T (x - x~)||^2 <= rho(x) = (tau ||A_d||_F ||x||_2)^2 + 2^-1022,
 *   tau = JL_NS_ZERO_TAU (d + m_d) u,  u = 2^-53
 *
 * (16 (d + m_d) roundoffs of the scale of A_d^T x, the order of the
 * rounding in evaluating A_d^T x itself; 2^-1022 absorbs underflow).  The
 * plan takes whole components only, never a fraction of one, those whose
 * planned cost fits in rho/16 together: Algorithm 1 the complement of
 * range(U) and the u_j with sigma_j |u_j^T x| at rounding level (the
 * spurious singular values of a rank-deficient A_d); Algorithm 2 the
 * common null space, the cut directions if their cost h0 fits, and the
 * generalised eigenvectors with mu_j = 0 (seen by A_c only).  So
 * Algorithm 1 returns the orthogonal projection of x onto the numerical
 * range of A_d, Algorithm 2 the x~ in range([A_d A_c]) with
 * A_d^T x~ = A_d^T x and the least ||A_c^T x~||.  The output is certified
 * against rho(x), rounded down, exactly as against an eps > 0 (the report
 * gives both).  If that fails (Algorithm 2's oblique components amplify
 * rounding for an ill-conditioned pencil or an A_c much larger than A_d),
 * the orthogonal part of the null space goes alone (level 3), and failing
 * that x~ = x (level 4, e.g. where ||A_d^T x||^2 overflows).  For eps > 0
 * the bound stays eps, however small: an eps below rho(x) may certify
 * nothing but x~ = x, as before.
 *
 * Matrices are row-major, as PostgreSQL stores a float8[d][m].
 * Plain C: no postgres.h.
 */
#ifndef JLDP_MATH_NULLSPACE_MODEL_H
#define JLDP_MATH_NULLSPACE_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef enum JlNsMethod
{
	JL_NS_WATERFILL = 1,		/* Algorithm 1, exact maximiser of Theorem 2 */
	JL_NS_KNAPSACK = 2,			/* Algorithm 1 as published (G_j = 1) */
	JL_NS_CONFIDENTIAL = 3		/* Algorithm 2 (generalised eigenvectors) */
} JlNsMethod;

typedef enum JlNsStatus
{
	JL_NS_OK = 0,
	JL_NS_RANK_ZERO_DESIRED,	/* A_d == 0 */
	JL_NS_RANK_ZERO_CONFIDENTIAL,	/* A_c == 0 */
	JL_NS_NO_MEMORY,
	JL_NS_LAPACK_FAILED,
	JL_NS_OVERFLOW				/* a singular value of the model overflows */
} JlNsStatus;

/*
 * The planned utility error is at most eps (1 - JL_NS_MARGIN); the rest is
 * room for rounding, which the certificate of every output checks.
 */
#define JL_NS_MARGIN 1e-6

/* relative cut-off below which a singular value of [A_d A_c] counts as 0 */
#define JL_NS_CUTOFF 1.4901161193847656e-08 /* 2^-26 */

/* tau / ((d + m_d) u) of the bound at utility_error 0 (see above) */
#define JL_NS_ZERO_TAU 16

typedef struct JlNsModel
{
	int			method;			/* JlNsMethod */
	int			d;
	int			md;
	int			mc;				/* 0 for Algorithm 1 */
	int			s;				/* directions kept (the budget's items) */
	int			s0;				/* Algorithm 2: directions of [A_d A_c]
								 * below the cut-off, removed whole */
	double	   *Ut;				/* s x d: orthonormal u_j (rows) */
	double	   *lam;			/* s: sigma_j^2 (Alg. 1); mu_j in [0,1],
								 * ascending (Alg. 2) */
	double	   *sig;			/* s: singular values of [A_d A_c] (Alg. 2) */
	double	   *W;				/* s x s: eigenvectors of Z_d^T Z_d (Alg. 2) */
	double	   *U0t;			/* s0 x d (Alg. 2) */
	double	   *T0;				/* s0 x md: U0^T A_d (Alg. 2) */
	double	   *AdT;			/* md x d: the desired model, transposed */
	double	   *amax;			/* d: max_k |A_d ik|, for the certificate */
	double		sigma_max;		/* largest singular value of A_d (Alg. 1) or
								 * of [A_d A_c] (Alg. 2) */
	double		ad_fro;			/* ||A_d||_F, computed (relative error at
								 * most gamma_(d md + 2)), for rho(x) */
	size_t		bytes;			/* of the one allocation holding it all */
} JlNsModel;

/* What one cleaning did. */
typedef struct JlNsReport
{
	double		planned;		/* the allocation's sum alpha_j^2 H_j */
	double		certified;		/* upper bound of ||A_d^T (x - x~)||^2 */
	double		budget;			/* what certified was checked against: eps,
								 * or rho(x) (rounded down) if eps = 0 */
	int			level;			/* 0: budget eps (1 - margin), or the free
								 * components if eps = 0; 1, 2: eps/4,
								 * eps/64 after a failed certificate; 3: the
								 * exact null space only, or its orthogonal
								 * part alone; 4: x~ = x */
} JlNsReport;

/* bytes the model of these sizes needs (0 if they overflow) */
extern size_t jl_ns_model_bytes(int method, int d, int md, int mc);

/*
 * Decompose the model: Ad (d x md) and, for JL_NS_CONFIDENTIAL, Ac
 * (d x mc), row-major, finite.  On JL_NS_OK *out is one malloc'd block;
 * free it with jl_ns_model_free.
 */
extern JlNsStatus jl_ns_model_build(int method, int d, int md, int mc,
									const double *Ad, const double *Ac,
									JlNsModel **out);

extern void jl_ns_model_free(JlNsModel *m);

/* doubles and ints of scratch jl_ns_clean needs */
extern size_t jl_ns_scratch_doubles(const JlNsModel *m);
extern size_t jl_ns_scratch_ints(const JlNsModel *m);

/*
 * x~ of x (d values) into out (d values, not aliasing x), with
 * ||A_d^T (x - x~)||^2 <= eps certified in floating point (eps > 0), or
 * <= rho(x) for eps = 0 (above); x finite.  rep may be NULL.
 */
extern void jl_ns_clean(const JlNsModel *m, const double *x, double eps,
						double *out, double *scratch, int *iscratch,
						JlNsReport *rep);

/* whether the n doubles are all finite (the per-row check of x, vectorised) */
extern int	jl_ns_all_finite(const double *v, int n);

/*
 * An upper bound of ||A^T (x - xt)||^2 in exact arithmetic on the given
 * doubles, from a floating-point evaluation (any summation order) and its
 * error bound; At is A^T (m x d).  With amax (max_k |A_ik|, d values) a
 * cheaper bound is tried first and returned if it is at most target;
 * otherwise, or without amax, the bound from each output's own sums.
 * r and g are m doubles of scratch, D 2 d.
 */
extern double jl_ns_certify(const double *At, const double *amax, int d,
							int m, const double *x, const double *xt,
							double target, double *r, double *g, double *D);

#endif
