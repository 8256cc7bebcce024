// SPDX-License-Identifier: MIT
// Internals of linalg/chol.c shared with chol_dense.c.
#ifndef TSR_CHOL_INTERNAL_H
#define TSR_CHOL_INTERNAL_H

#include <cholmod.h>
#include <stddef.h>
#include <stdint.h>

#include "linalg/chol.h"

// LAPACK (Fortran interface).
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
                    const int *ldb, int *info);
extern void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
                   const double *alpha, const double *a, const int *lda, double *b, const int *ldb);
extern void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
                   const double *a, const int *lda, const double *beta, double *c, const int *ldc);
extern void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                   const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
                   const double *beta, double *c, const int *ldc);
extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda, const int *ipiv,
                    double *b, const int *ldb, int *info);
// Present when the BLAS is OpenBLAS (resolved at run time; NULL otherwise).
extern void openblas_set_num_threads(int n) __attribute__((weak));
extern int blas_thread_shutdown_(void) __attribute__((weak));

struct TsrChol {
  cholmod_common cc;
  // The matrix (referenced).
  int m;
  const int *Ap, *Ai;
  const double *Ax;
  const double *Ad;  // the same matrix dense (column-major, ld = m), or NULL (tsr_chol_set_dense)
  int symmetric;
  // Copy of the pattern the ordering was computed for.
  int *pat_p, *pat_i;
  int pat_m, pat_nnz, cap_pat_m, cap_pat_nnz;
  int have_order;
  int pattern_checked;  // pat_p / pat_i compared with the matrix since tsr_chol_set_matrix
  int *perm;            // [m] AMD order of the whole A
  int *cmember;         // [m] tsr_chol_order_last: 1 = order last (CAMD), or NULL
  int cap_cmember, use_last, last_m;
  // The submatrix.
  int *loc;  // [m] local index in F or -1
  int *perm_F;
  int cap_m;
  int nf;
  int method;
  // A_FF + shift I, both triangles, local numbering (rows sorted).
  int *ffp, *ffi;
  double *ffx;
  int cap_ffp, cap_ffi, cap_ffx;
  int *sym_F;  // the free set the symbolic analysis is for
  int sym_nf, cap_sym_F, sym_valid, sym_ldl;
  double sym_flops;  // of the analysed factor: sum over columns of nnz^2
  // A matrix whose sparse factor filled in (factor_sparse): its order and
  // nonzeros. Later matrices like it are factorised densely at once.
  int fill_m, fill_nnz, fill_nf;
  // LDL^T path (Davis's LDL): up-looking, symbolic = etree + counts.
  int *Lp, *Parent, *Lnz, *Flag, *Pattern, *Li, *Pinv;
  double *Lx, *Dd, *Yw;
  int cap_ln, cap_li, cap_lx;
  int force_path;  // TSR_CHOL_SPARSE: 0 auto, 1 ldl, 2 cholmod
  double *G;       // tsr_chol_schur's copy of G^T (CHOLMOD and LU paths)
  size_t cap_G;
  // CHOLMOD path (supernodal when the factor is dense enough to pay).
  cholmod_factor *L;
  cholmod_dense *X, *Y, *E;
  // Dense paths. LU: D (ld nf) and ipiv. Cholesky (chol_dense.c): L in
  // the lower triangle of D with leading dimension dld; its rows are the
  // global rows dord[0..dn) in that order (dpos: the inverse, -1 when not
  // in the factor), so that rows can be removed and appended; fperm[k] is
  // the factor position of F[k] (identity when dident).
  double *D;
  int *ipiv;
  size_t cap_D;
  int cap_ipiv;
  int dld, dn, dm, dident, dvalid, dupdates, no_update;
  int *dord, *dpos, *fperm;
  int cap_dord, cap_dpos, cap_fperm;
  unsigned dgen, gen;  // gen: bumped by tsr_chol_set_matrix (values may change)
  double dshift;
  double *dscr;  // scratch [dld]
  int cap_dscr;
  double *dinv;  // 1 / diagonal of the dense factor, when dinv_ok (small_solve)
  int cap_dinv, dinv_ok;
  unsigned order_gen;  // bumped whenever perm is computed anew
  // The last fresh sparse factorisation, where row updates may start from:
  // fresh_kind TSR_CHOL_SPARSE_LDL (Lp ... for sym_F) or TSR_CHOL_SPARSE
  // (CHOLMOD's supernodal L), 0 none; of A_{sym_F} + fresh_shift I for the
  // matrix of generation fresh_gen and the order of fresh_order.
  int fresh_kind;
  unsigned fresh_gen, fresh_order;
  double fresh_shift;
  // Row modifications (chol_rowmod.c): U is the m x m LDL^T of M(F) in the
  // order of perm at uorder; uin: row in F (by row), uat: (by position);
  // upinv: position of a row; upos: F[k]'s position for the F factorised
  // last; zpos, uy: scratch; uR: the column being added.
  cholmod_factor *U;
  cholmod_sparse *uR;
  int8_t *uin, *uat;
  int *upinv, *upos, *zpos;
  double *uy;
  int cap_u, un, uvalid, uops, no_rowmod;
  unsigned ugen, uorder;
  double ushift;
  TsrCholStats stats;
};

// A_FF + shift I into the leading nf x nf block of c->D (column-major,
// leading dimension ld; c->D holds at least ld * nf). c->loc maps F.
void tsr_chol_gather_dense(const int *F, int nf, double shift, int ld, TsrChol *c);
// chol_dense.c: dense Cholesky of A_FF + shift I (0, 1 not positive
// definite, < 0 failure), solves and the Schur term in its row order.
int tsr_chol_dense_llt(const int *F, int nf, double shift, TsrChol *c);
int tsr_chol_dense_solve(const double *rhs, double *x, TsrChol *c);
int tsr_chol_dense_solve_many(double *X, int nrhs, TsrChol *c);
int tsr_chol_dense_schur(double *Gt, int ng, double *S, TsrChol *c);
// S = Z^T Z (ng x ng, both triangles) for Z nf x ng column-major (BLAS dsyrk).
void tsr_chol_syrk_full(int nf, int ng, const double *Z, double *S);

// CHOLMOD called with no active OpenMP level left when the caller is the
// only thread running (chol.c explains); end with the begin's value.
int tsr_chol_serial_begin(void);
void tsr_chol_serial_end(int levels);
// chol_rowmod.c: A_FF + shift I by row updates of the last sparse factor,
// when F differs from its set by a few rows. 0: done (method
// TSR_CHOL_SPARSE_MOD, or TSR_CHOL_SPARSE_LDL when the LDL factor held is
// A_FF's), 1: factorise afresh, < 0 failure. note_fresh after each fresh
// sparse factorisation (kind: its method); free with the chol.
int tsr_chol_rowmod(const int *F, int nf, double shift, TsrChol *c);
void tsr_chol_rowmod_note_fresh(int kind, double shift, TsrChol *c);
int tsr_chol_rowmod_solve(const double *rhs, double *x, TsrChol *c);
int tsr_chol_rowmod_schur(double *Gt, int ng, double *S, TsrChol *c);
void tsr_chol_rowmod_free(TsrChol *c);

#endif
