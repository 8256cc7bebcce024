// SPDX-License-Identifier: MIT
// The reference the factorisation tests (test_chol_update, test_chol_rowmod)
// check linalg/chol.c against: LAPACK's dense Cholesky of (A + shift I)_FF,
// factorised afresh.
#ifndef TSR_TEST_CHOL_REFERENCE_H
#define TSR_TEST_CHOL_REFERENCE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_test.h"

extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
                    const int *ldb, int *info);

// x = (A + shift I)_FF^-1 rhs by LAPACK (A dense, m x m, symmetric).
static inline void reference_solve(const double *A, int m, const int *F, int nf, double shift, const double *rhs,
                                   double *x) {
  double *D = malloc((size_t)nf * nf * sizeof *D);
  for (int b = 0; b < nf; b++)
    for (int a = 0; a < nf; a++) D[(size_t)b * nf + a] = A[(size_t)F[a] * m + F[b]] + (a == b ? shift : 0.0);
  int info = 0, one = 1;
  dpotrf_("L", &nf, D, &nf, &info);
  ENSURE(info == 0);
  memcpy(x, rhs, (size_t)nf * sizeof *x);
  dpotrs_("L", &nf, &one, D, &nf, x, &nf, &info);
  ENSURE(info == 0);
  free(D);
}

static inline double max_abs(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(v[i]));
  return s;
}

// The nonzeros of the dense row-major m x m matrix A as CSC (both
// triangles). Returns nnz.
static inline int dense_to_csc(const double *A, int m, int *Ap, int *Ai, double *Ax) {
  int z = 0;
  for (int j = 0; j < m; j++) {
    Ap[j] = z;
    for (int i = 0; i < m; i++)
      if (A[(size_t)i * m + j] != 0.0) Ai[z] = i, Ax[z++] = A[(size_t)i * m + j];
  }
  Ap[m] = z;
  return z;
}

#endif
