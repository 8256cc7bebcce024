// SPDX-License-Identifier: MIT
// Factorisation of principal submatrices A_FF (seed 000 Eqs. 27-28); the
// choice of path is explained in chol.h.
#include "linalg/chol.h"

#include <cholmod.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// LAPACK (Fortran interface).
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
                    const int *ldb, int *info);
extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
                    const int *ipiv, double *b, const int *ldb, int *info);
// Present when the BLAS is OpenBLAS (resolved at run time; NULL otherwise).
extern void openblas_set_num_threads(int n) __attribute__((weak));

struct TsrChol {
  cholmod_common cc;
  // The matrix (referenced).
  int m;
  const int *Ap, *Ai;
  const double *Ax;
  int symmetric;
  // Copy of the pattern the ordering was computed for.
  int *pat_p, *pat_i;
  int pat_m, pat_nnz, cap_pat_m, cap_pat_nnz;
  int have_order;
  int *perm;  // [m] AMD order of the whole A
  // The submatrix.
  int *loc;  // [m] local index in F or -1
  int *perm_F;
  int cap_m;
  int nf;
  int method;
  cholmod_sparse *AFF;  // upper triangle (stype = 1), capacity grows
  size_t aff_cap_n;     // columns allocated in AFF (its ncol is the current nf)
  int *sym_p, *sym_i;   // pattern of A_FF that L was analysed for
  int sym_n, sym_nnz, cap_sym_n, cap_sym_nnz;
  cholmod_factor *L;
  cholmod_dense *X, *Y, *E;
  // Dense path.
  double *D;
  int *ipiv;
  size_t cap_D;
  int cap_ipiv;
  TsrCholStats stats;
};

void tsr_chol_blas_single_thread(void) {
  if (openblas_set_num_threads) openblas_set_num_threads(1);
}

TsrChol *tsr_chol_create(void) {
  TsrChol *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  cholmod_start(&c->cc);
  c->cc.print = 0;  // report through return values, never on stdout
  c->cc.nmethods = 1;
  c->cc.method[0].ordering = CHOLMOD_GIVEN;  // the induced AMD order (see chol.h)
  c->cc.postorder = 1;
  c->cc.final_ll = 1;
  c->cc.quick_return_if_not_posdef = 1;
  tsr_chol_blas_single_thread();
  return c;
}

void tsr_chol_free(TsrChol **pc) {
  TsrChol *c = pc ? *pc : NULL;
  if (!c) return;
  if (c->L) cholmod_free_factor(&c->L, &c->cc);
  if (c->AFF) {
    c->AFF->nrow = c->AFF->ncol = c->aff_cap_n;
    cholmod_free_sparse(&c->AFF, &c->cc);
  }
  if (c->X) cholmod_free_dense(&c->X, &c->cc);
  if (c->Y) cholmod_free_dense(&c->Y, &c->cc);
  if (c->E) cholmod_free_dense(&c->E, &c->cc);
  cholmod_finish(&c->cc);
  free(c->pat_p);
  free(c->pat_i);
  free(c->perm);
  free(c->loc);
  free(c->perm_F);
  free(c->sym_p);
  free(c->sym_i);
  free(c->D);
  free(c->ipiv);
  free(c);
  *pc = NULL;
}

int tsr_chol_method(const TsrChol *c) { return c->method; }
const TsrCholStats *tsr_chol_stats(const TsrChol *c) { return &c->stats; }

static int grow_int(int **a, int *cap, int need) {
  if (need <= *cap) return 0;
  int n = need + need / 2 + 16;
  int *p = realloc(*a, (size_t)n * sizeof *p);
  if (!p) return -1;
  *a = p;
  *cap = n;
  return 0;
}

int tsr_chol_set_matrix(int m, const int *Ap, const int *Ai, const double *Ax, int symmetric, TsrChol *c) {
  c->m = m;
  c->Ap = Ap;
  c->Ai = Ai;
  c->Ax = Ax;
  c->symmetric = symmetric;
  c->method = TSR_CHOL_NONE;
  int nnz = m > 0 ? Ap[m] : 0;
  if (m > c->cap_m) {
    int n = m + m / 2 + 16;
    int *a = realloc(c->loc, (size_t)n * sizeof *a);
    if (!a) return -1;
    c->loc = a;
    a = realloc(c->perm_F, (size_t)n * sizeof *a);
    if (!a) return -1;
    c->perm_F = a;
    a = realloc(c->perm, (size_t)n * sizeof *a);
    if (!a) return -1;
    c->perm = a;
    c->cap_m = n;
  }
  for (int i = 0; i < m; i++) c->loc[i] = -1;
  int same = c->have_order && c->pat_m == m && c->pat_nnz == nnz &&
             !memcmp(c->pat_p, Ap, (size_t)(m + 1) * sizeof *Ap) && !memcmp(c->pat_i, Ai, (size_t)nnz * sizeof *Ai);
  if (!same) {
    c->have_order = 0;
    if (grow_int(&c->pat_p, &c->cap_pat_m, m + 1) || grow_int(&c->pat_i, &c->cap_pat_nnz, nnz)) return -1;
    memcpy(c->pat_p, Ap, (size_t)(m + 1) * sizeof *Ap);
    if (nnz) memcpy(c->pat_i, Ai, (size_t)nnz * sizeof *Ai);
    c->pat_m = m;
    c->pat_nnz = nnz;
  }
  return 0;
}

// AMD order of the whole (symmetric) pattern, once per pattern.
static int ensure_order(TsrChol *c) {
  if (c->have_order) return 0;
  cholmod_sparse A = {0};
  A.nrow = A.ncol = (size_t)c->m;
  A.nzmax = (size_t)c->pat_nnz;
  A.p = c->pat_p;
  A.i = c->pat_i;
  A.stype = 1;  // upper part used, lower ignored
  A.itype = CHOLMOD_INT;
  A.xtype = CHOLMOD_PATTERN;
  A.dtype = CHOLMOD_DOUBLE;
  A.sorted = 1;
  A.packed = 1;
  if (!cholmod_amd(&A, NULL, 0, c->perm, &c->cc)) return -1;
  c->have_order = 1;
  c->stats.orderings++;
  return 0;
}

// Gathers A_FF densely (column-major, nf x nf) into c->D.
static int gather_dense(const int *F, int nf, double shift, TsrChol *c) {
  size_t need = (size_t)nf * (size_t)nf;
  if (need > c->cap_D) {
    double *d = realloc(c->D, need * sizeof *d);
    if (!d) return -1;
    c->D = d;
    c->cap_D = need;
  }
  memset(c->D, 0, need * sizeof *c->D);
  for (int col = 0; col < nf; col++) {
    int j = F[col];
    for (int p = c->Ap[j]; p < c->Ap[j + 1]; p++) {
      int r = c->loc[c->Ai[p]];
      if (r >= 0) c->D[(size_t)col * nf + r] += c->Ax[p];
    }
    c->D[(size_t)col * nf + col] += shift;
  }
  return 0;
}

static int factor_dense_lu(const int *F, int nf, double shift, TsrChol *c) {
  if (gather_dense(F, nf, shift, c)) return -1;
  if (grow_int(&c->ipiv, &c->cap_ipiv, nf)) return -1;
  int info = 0;
  dgetrf_(&nf, &nf, c->D, &nf, c->ipiv, &info);
  c->stats.factorizations++;
  c->stats.dense_lu++;
  c->method = TSR_CHOL_DENSE_LU;
  if (info != 0) {
    c->method = TSR_CHOL_NONE;
    return -2;  // exactly singular pivot
  }
  return 0;
}

// 0 OK, 1 not positive definite, < 0 failure.
static int factor_dense_llt(const int *F, int nf, double shift, TsrChol *c) {
  if (gather_dense(F, nf, shift, c)) return -1;
  int info = 0;
  dpotrf_("L", &nf, c->D, &nf, &info);
  c->stats.factorizations++;
  if (info != 0) {
    c->stats.not_posdef++;
    return 1;
  }
  c->method = TSR_CHOL_DENSE_LLT;
  return 0;
}

// Builds the upper triangle of A_FF in c->AFF (local numbering, F increasing so
// row indices stay sorted). Returns its nnz or < 0.
static int build_AFF(const int *F, int nf, TsrChol *c) {
  size_t cap = 0;
  for (int col = 0; col < nf; col++) cap += (size_t)(c->Ap[F[col] + 1] - c->Ap[F[col]]);
  if (cap < 1) cap = 1;
  if (c->AFF && (c->aff_cap_n < (size_t)nf || c->AFF->nzmax < cap)) {
    c->AFF->nrow = c->AFF->ncol = c->aff_cap_n;
    cholmod_free_sparse(&c->AFF, &c->cc);
  }
  if (!c->AFF) {
    size_t ncap = (size_t)nf + (size_t)nf / 2 + 16;
    c->AFF = cholmod_allocate_sparse(ncap, ncap, cap + cap / 2 + 16, 1, 1, 1, CHOLMOD_REAL, &c->cc);
    if (!c->AFF) return -1;
    c->aff_cap_n = ncap;
  }
  cholmod_sparse *S = c->AFF;
  S->nrow = S->ncol = (size_t)nf;
  int *Sp = S->p, *Si = S->i;
  double *Sx = S->x;
  int nz = 0;
  for (int col = 0; col < nf; col++) {
    int j = F[col];
    Sp[col] = nz;
    for (int p = c->Ap[j]; p < c->Ap[j + 1]; p++) {
      int r = c->loc[c->Ai[p]];
      if (r < 0) continue;
      if (r > col) break;  // rows sorted: the rest is below the diagonal
      Si[nz] = r;
      Sx[nz] = c->Ax[p];
      nz++;
    }
  }
  Sp[nf] = nz;
  return nz;
}

// 0 OK, 1 not positive definite, < 0 failure.
static int factor_sparse(const int *F, int nf, double shift, TsrChol *c) {
  if (ensure_order(c)) return -1;
  int nz = build_AFF(F, nf, c);
  if (nz < 0) return -1;
  const int *Sp = c->AFF->p, *Si = c->AFF->i;
  int same = c->L && c->sym_n == nf && c->sym_nnz == nz && !memcmp(c->sym_p, Sp, (size_t)(nf + 1) * sizeof *Sp) &&
             !memcmp(c->sym_i, Si, (size_t)nz * sizeof *Si);
  if (!same) {
    if (c->L) cholmod_free_factor(&c->L, &c->cc);
    int k = 0;
    for (int q = 0; q < c->m; q++) {
      int r = c->loc[c->perm[q]];
      if (r >= 0) c->perm_F[k++] = r;
    }
    c->L = cholmod_analyze_p(c->AFF, c->perm_F, NULL, 0, &c->cc);
    if (!c->L) return -1;
    c->stats.analyses++;
    if (grow_int(&c->sym_p, &c->cap_sym_n, nf + 1) || grow_int(&c->sym_i, &c->cap_sym_nnz, nz)) return -1;
    memcpy(c->sym_p, Sp, (size_t)(nf + 1) * sizeof *Sp);
    if (nz) memcpy(c->sym_i, Si, (size_t)nz * sizeof *Si);
    c->sym_n = nf;
    c->sym_nnz = nz;
  }
  double beta[2] = {shift, 0.0};  // factorises A_FF + shift I
  int ok = cholmod_factorize_p(c->AFF, beta, NULL, 0, c->L, &c->cc);
  c->stats.factorizations++;
  if (!ok && c->cc.status != CHOLMOD_NOT_POSDEF) return -1;
  if (c->cc.status == CHOLMOD_NOT_POSDEF || c->L->minor < c->L->n) {
    c->stats.not_posdef++;
    // The numeric values in L are now partial; the symbolic part stays valid.
    return 1;
  }
  c->method = TSR_CHOL_SPARSE;
  return 0;
}

int tsr_chol_factor(const int *F, int nf, TsrChol *c) { return tsr_chol_factor_shifted(F, nf, 0.0, c); }

int tsr_chol_factor_shifted(const int *F, int nf, double shift, TsrChol *c) {
  c->method = TSR_CHOL_NONE;
  for (int i = 0; i < c->m; i++) c->loc[i] = -1;
  for (int k = 0; k < nf; k++) c->loc[F[k]] = k;
  c->nf = nf;
  if (nf == 0) {
    c->method = TSR_CHOL_DENSE_LLT;
    return 0;
  }
  if (c->symmetric) {
    int rc = nf <= TSR_CHOL_DENSE_MAX ? factor_dense_llt(F, nf, shift, c) : factor_sparse(F, nf, shift, c);
    if (rc <= 0) return rc;
  }
  return factor_dense_lu(F, nf, shift, c);
}

int tsr_chol_solve(const double *rhs, double *x, TsrChol *c) {
  int nf = c->nf, one = 1, info = 0;
  if (nf == 0) return 0;
  switch (c->method) {
  case TSR_CHOL_DENSE_LLT:
    if (x != rhs) memcpy(x, rhs, (size_t)nf * sizeof *x);
    dpotrs_("L", &nf, &one, c->D, &nf, x, &nf, &info);
    return info ? -1 : 0;
  case TSR_CHOL_DENSE_LU:
    if (x != rhs) memcpy(x, rhs, (size_t)nf * sizeof *x);
    dgetrs_("N", &nf, &one, c->D, &nf, c->ipiv, x, &nf, &info);
    return info ? -1 : 0;
  case TSR_CHOL_SPARSE: {
    cholmod_dense B = {0};
    B.nrow = (size_t)nf;
    B.ncol = 1;
    B.nzmax = (size_t)nf;
    B.d = (size_t)nf;
    B.x = (void *)rhs;
    B.xtype = CHOLMOD_REAL;
    B.dtype = CHOLMOD_DOUBLE;
    if (!cholmod_solve2(CHOLMOD_A, c->L, &B, NULL, &c->X, NULL, &c->Y, &c->E, &c->cc)) return -1;
    memcpy(x, c->X->x, (size_t)nf * sizeof *x);
    return 0;
  }
  default:
    return -1;
  }
}

int tsr_chol_solve_many(double *X, int nrhs, TsrChol *c) {
  int nf = c->nf, info = 0;
  if (nf == 0 || nrhs <= 0) return 0;
  switch (c->method) {
  case TSR_CHOL_DENSE_LLT:
    dpotrs_("L", &nf, &nrhs, c->D, &nf, X, &nf, &info);
    return info ? -1 : 0;
  case TSR_CHOL_DENSE_LU:
    dgetrs_("N", &nf, &nrhs, c->D, &nf, c->ipiv, X, &nf, &info);
    return info ? -1 : 0;
  default:
    for (int k = 0; k < nrhs; k++)
      if (tsr_chol_solve(X + (size_t)k * nf, X + (size_t)k * nf, c)) return -1;
    return 0;
  }
}
