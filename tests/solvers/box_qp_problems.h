// SPDX-License-Identifier: MIT
// Box-QP test problems shared by the projected Newton and active-set tests
// (test_pn.c, test_pas.c): a banded sparse SPD matrix, a pile-like nearly
// singular one with degenerate rows, and cond_2 for their tolerances.
#ifndef TSR_BOX_QP_PROBLEMS_H
#define TSR_BOX_QP_PROBLEMS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp/mlcp.h"
#include "solvers/solver.h"
#include "test_util.h"

extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w, double *work,
                   const int *lwork, int *info);

// cond_2 of a dense symmetric n x n matrix (LAPACK), for the tolerance.
static inline double sym_cond(int n, const double *A) {
  double *M = malloc((size_t)n * n * sizeof *M), *w = malloc((size_t)n * sizeof *w);
  int lwork = 64 * n, info = 0;
  double *work = malloc((size_t)lwork * sizeof *work);
  memcpy(M, A, (size_t)n * n * sizeof *M);
  dsyev_("N", "U", &n, M, &n, w, work, &lwork, &info);
  double c = info == 0 && w[0] > 0.0 ? w[n - 1] / w[0] : INFINITY;
  free(M), free(w), free(work);
  return c;
}

// Banded SPD A = B B^T + 1e-4 I (dense, n x n), B lower triangular with two
// random subdiagonals: 5 nonzeros per row, cond ~1e5.
static inline void banded_spd(Rng *r, int n, double *A) {
  double *B = calloc((size_t)n * n, sizeof *B);
  memset(A, 0, (size_t)n * n * sizeof *A);
  for (int i = 0; i < n; i++)
    for (int j = i - 2 < 0 ? 0 : i - 2; j <= i; j++) B[(size_t)i * n + j] = rng_normal(r);
  for (int i = 0; i < n; i++)
    for (int j = i - 4 < 0 ? 0 : i - 4; j <= i; j++) {
      double v = i == j ? 1e-4 : 0.0;
      for (int k = j - 2 < 0 ? 0 : j - 2; k <= j; k++) v += B[(size_t)i * n + k] * B[(size_t)j * n + k];
      A[(size_t)i * n + j] = A[(size_t)j * n + i] = v;
    }
  free(B);
}

// A planted problem like a pile's (q, n rows): A = B B^T + 1e-6 I with B
// banded and of rank 0.6 n (nearly singular, cond ~4e7), half the tight
// rows degenerate (lambda* on its bound with w* = 0). A is SPD, so lambda*
// is the one solution (its index set is not unique: degenerate rows may be
// called free). Returns cond_2(A).
static inline double degenerate_planted(Rng *r, int n, Planted *q) {
  int k = (int)(0.6 * n);
  double *B = calloc((size_t)n * k, sizeof *B), *A = calloc((size_t)n * n, sizeof *A);
  for (int i = 0; i < n; i++)
    for (int c = 0; c < k; c++)
      if (abs((int)((double)i * k / n) - c) <= 3) B[(size_t)i * k + c] = rng_normal(r);
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double v = i == j ? 1e-6 : 0.0;
      for (int c = 0; c < k; c++) v += B[(size_t)i * k + c] * B[(size_t)j * k + c];
      A[(size_t)i * n + j] = A[(size_t)j * n + i] = v;
    }
  double cond = sym_cond(n, A);
  planted_from_dense(r, n, A, q);
  free(A), free(B);
  double *Al = malloc((size_t)n * sizeof *Al);
  tsr_mlcp_matvec(&q->p, q->ls, Al);
  for (int i = 0; i < n; i++)
    if (q->ss[i] != TSR_INDEX_FREE && rng_uniform(r) < 0.5) q->p.b[i] = -Al[i];  // w*_i = 0
  free(Al);
  return cond;
}

// A solve of a degenerate_planted problem (rc, its stats) against lambda*:
// converged, Eq. 29 below 1e-9 relative to max(1, |b|_2), and
// |lambda - lambda*|_inf <= 1e-12 + 1e-13 cond max(1, |lambda*|_inf) (the
// index sets are not compared: degenerate rows may be called free). Says
// why on stderr when not, `what` naming the solver's count of steps.
static inline int degenerate_solved(const Planted *q, double cond, int rc, const TsrSolveStats *st, const char *what) {
  int n = q->n;
  double res = tsr_mlcp_residual(&q->p, q->lambda, NULL), rel = res / fmax(1.0, norm2(q->p.b, n));
  double err = 0.0, lsmax = 0.0;
  for (int i = 0; i < n; i++) err = fmax(err, fabs(q->lambda[i] - q->ls[i])), lsmax = fmax(lsmax, fabs(q->ls[i]));
  double tol = 1e-12 + 1e-13 * cond * fmax(1.0, lsmax);
  int ok = rc == 0 && st->converged && rel < 1e-9 && err <= tol;
  if (!ok)
    fprintf(stderr, "  degenerate n=%d cond=%.1e: rc %d %s %d rel %.2e err %.2e (tol %.1e)\n", n, cond, rc, what,
            st->iterations, rel, err, tol);
  return ok;
}

#endif
