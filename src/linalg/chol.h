// SPDX-License-Identifier: MIT
// Factorisation of principal submatrices A_FF of a sparse CSC matrix A, the
// linear algebra under every pivoting solver (seed 000 Eqs. 27-28):
//
//   A_FF lambda_F = rhs_F,   F = free index set (increasing global indices).
//
// One TsrChol per solver instance (and, for the substructured solvers, one per
// subsystem / thread): it owns its cholmod_common, so nothing is global and
// instances may be used from different OpenMP threads at the same time.
//
// Paths, chosen per factorisation:
//   * symmetric A, |F| <= TSR_CHOL_DENSE_MAX, or A_FF at least a quarter
//     full, or a sparse factor of it that would fill in (its flops a tenth
//     of a dense one's or more: S_Gamma of a net; decided once for a matrix
//     and the matrices like it, chol.c FILL_FRACTION), and |F| <=
//     TSR_CHOL_DENSE_LARGE                    : dense Cholesky (LAPACK dpotrf),
//     updated row by row while F changes by a few rows between calls on the
//     same matrix (chol_dense.c);
//   * symmetric A, larger F                  : sparse, with the fill-reducing
//     AMD ordering of the WHOLE A computed once per sparsity pattern of A and
//     restricted to F (the induced order of a good ordering is a good ordering
//     of a principal submatrix: the filled graph of A_FF is a subgraph of the
//     filled graph of A). The symbolic analysis (elimination tree and column
//     counts, LDL's ldl_symbolic, O(|L|)) is kept and reused while F repeats.
//     A factor with few flops per entry (chains, trees, the subsystems of the
//     substructured solvers) is computed by LDL's up-looking LDL^T; a denser
//     one (piles of contacts) by CHOLMOD's supernodal Cholesky. CHOLMOD's own
//     analysis costs more than a whole LDL factorisation of a subsystem (its
//     permuted transposes were 16-30% of a step), hence the two paths. When
//     F differs from the last LDL^T's set by a few rows (projected Newton's
//     steps, late pivots), that factor is updated by CHOLMOD's row deletions
//     and additions instead (chol_rowmod.c);
//   * A not symmetric, or A_FF not positive definite (Cholesky fails): dense LU
//     with partial pivoting (LAPACK dgetrf / dgetrs). O(|F|^3), intended for
//     the small nonsymmetric problems of the Siconos collection and for
//     semidefinite corner cases.
// BLAS is kept single-threaded (tsr_chol_blas_single_thread).
#ifndef TSR_CHOL_H
#define TSR_CHOL_H

#include <stddef.h>
#include <stdint.h>

// Below this size a symmetric A_FF is factorised densely (dpotrf).
#define TSR_CHOL_DENSE_MAX 48
// Up to this size, an A_FF with at least nf^2 / 4 nonzeros is factorised
// densely too (the interface matrices of piles).
#define TSR_CHOL_DENSE_LARGE 3000
// The dense LU fallback refuses larger A_FF (tsr_chol_factor returns -3):
// 8,000 rows take 512 MB and ~3e11 flops per factorisation, and an
// unbounded one lets a bad problem exhaust memory or run for hours.
#define TSR_CHOL_LU_MAX 8000

enum {
  TSR_CHOL_NONE = 0,
  TSR_CHOL_SPARSE = 1,  // CHOLMOD
  TSR_CHOL_DENSE_LLT = 2,
  TSR_CHOL_DENSE_LU = 3,
  TSR_CHOL_SPARSE_LDL = 4,  // LDL (up-looking LDL^T)
  TSR_CHOL_SPARSE_MOD = 5   // the last sparse LDL^T, updated row by row (chol_rowmod.c)
};

typedef struct TsrChol TsrChol;

typedef struct {
  int analyses;        // symbolic analyses of A_FF (CHOLMOD)
  int orderings;       // AMD orderings of the whole A
  int factorizations;  // numeric factorisations, any path
  int dense_lu;        // of which dense LU (fallback)
  int not_posdef;      // Cholesky attempts that found A_FF not positive definite
  int dense_updates;   // of the factorizations: dense factors updated for a changed F (chol_dense.c)
  int lu_refused;      // dense LU fallbacks refused for size (TSR_CHOL_LU_MAX)
  int row_updates;     // of the factorizations: sparse factors updated for a changed F (chol_rowmod.c)
} TsrCholStats;

TsrChol *tsr_chol_create(void);
void tsr_chol_free(TsrChol **c);

// Sets the matrix later calls factor submatrices of: CSC, m x m, row indices
// sorted within each column, both triangles stored when symmetric. The arrays
// are referenced, not copied: they must stay valid and unchanged until the
// next tsr_chol_set_matrix. Recomputes the ordering only when the pattern
// differs from the previous matrix's. Returns 0, or < 0 on allocation failure.
int tsr_chol_set_matrix(int m, const int *Ap, const int *Ai, const double *Ax, int symmetric, TsrChol *c);

// After tsr_chol_set_matrix (which clears it): the same matrix as a dense
// column-major m x m array (TsrMlcp.dense), or NULL. Dense factors are then
// gathered from it. Referenced, not copied, like the CSC arrays.
void tsr_chol_set_dense(const double *dense, TsrChol *c);

// Factorises A_FF, F = F[0..nf) strictly increasing. Returns 0 on success,
// < 0 when A_FF is numerically singular (a symmetric A_FF that is not
// positive definite, above TSR_CHOL_DENSE_MAX rows: -2), when the dense LU
// it would need has more than TSR_CHOL_LU_MAX rows (-3), when it would cost
// more than the limit (TSR_CHOL_REFUSED, below), or on allocation failure
// (-1).
int tsr_chol_factor(const int *F, int nf, TsrChol *c);

// Factorises A_FF + shift * I instead (a regularisation for a singular A_FF;
// the caller refines against the true A_FF).
int tsr_chol_factor_shifted(const int *F, int nf, double shift, TsrChol *c);

// Solves A_FF x = rhs (both of length nf, local numbering of F) with the last
// factorisation. x may alias rhs. Returns 0 or < 0.
int tsr_chol_solve(const double *rhs, double *x, TsrChol *c);

// Solves A_FF X = B in place for nrhs columns (X column-major, nf x nrhs,
// leading dimension nf) with the last factorisation: one LAPACK call on the
// dense paths. Returns 0 or < 0.
int tsr_chol_solve_many(double *X, int nrhs, TsrChol *c);

// S = G A_FF^-1 G^T for the factorisation held (the Schur complement terms
// of seed 000 Eq. 24). Gt: nf x ng, column-major, holds G^T on entry and is
// overwritten (scratch). S: ng x ng, column-major, out, exactly symmetric.
// With A_FF = P^T L D L^T P (or L L^T), S = Y^T D^-1 Y with Y = L^-1 P G^T:
// forward solves only, half the work of forming A_FF^-1 G^T. Returns 0 or -1.
int tsr_chol_schur(double *Gt, int ng, double *S, TsrChol *c);
// Rows i with last[i] != 0 of the m x m matrices given to this chol are
// ordered after all others (CAMD instead of AMD) from the next
// factorisation on; NULL or none flagged: plain AMD. The substructured
// solvers flag a subsystem's rows coupled to the interface, so that
// tsr_chol_schur works on a trailing block of about |Gamma_i| rows. The
// ordering is recomputed only when the flags change. 0 or < 0.
int tsr_chol_order_last(int m, const int8_t *last, TsrChol *c);

// The cost limit. A sparse A_FF whose factor would take more flops than
// the limit (its symbolic analysis says how many: sum over columns of
// nnz^2), or a dense LU above it (2 nf^3 / 3), is not factorised:
// tsr_chol_factor returns TSR_CHOL_REFUSED, and so does every factorisation
// after it, in any thread, until tsr_chol_refusal_clear. The solvers' loops
// end at once then (solvers/stop.h), so a solve of an MLCP whose rows are
// coupled nearly densely fails in seconds, saying what it would have cost:
// 150 spheres placed in one spot make 33,525 rows and 5.5e12 flops a
// factorisation, and direct-bpp's first step had not ended after 10
// minutes (refused: 3 s); 90 of them, below the limit, took 54 s. Dense
// Cholesky factors, at most TSR_CHOL_DENSE_LARGE rows (9e9 flops), are
// never refused. The scenes' largest factorisation takes 1.4e7 flops
// (log_tower_256). Process-wide: one world solves at a time
// (TSR_FACTOR_FLOPS, sim/world.c).
#define TSR_CHOL_FLOPS_LIMIT 1e12
#define TSR_CHOL_REFUSED (-4)
void tsr_chol_set_flops_limit(double flops);
// Sets the limit from TSR_FACTOR_FLOPS (unset or empty: the default), read
// strictly from 1e10 on (dense factors, at most 9e9 flops, are never
// checked). 0, or -1 with err when the value is not a number in range.
int tsr_chol_flops_limit_from_env(char *err, int errlen);
double tsr_chol_flops_limit(void);
// 1 after a refusal, until tsr_chol_refusal_clear (tsr_solver_solve clears
// it as it starts).
int tsr_chol_refused(void);
void tsr_chol_refusal_clear(void);
// The first factorisation refused since the last clear: its rows and flops.
void tsr_chol_refusal(int *nf, double *flops);
// That refusal said, for the callers' messages: "factorising NF coupled rows
// (of ROWS) would take about F flops, more than TSR_FACTOR_FLOPS = L allows"
// (without "(of ROWS)" when rows < 0).
void tsr_chol_refusal_text(char *buf, size_t len, int rows);

// Path used by the last tsr_chol_factor (TSR_CHOL_*).
int tsr_chol_method(const TsrChol *c);
const TsrCholStats *tsr_chol_stats(const TsrChol *c);

// Asks OpenBLAS (when it is the BLAS in use) for one thread; otherwise the
// process must run with OPENBLAS_NUM_THREADS=1. Idempotent.
void tsr_chol_blas_single_thread(void);

#endif
