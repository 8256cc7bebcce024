// SPDX-License-Identifier: MIT
// The factorisation cost limit (linalg/chol.h, TSR_FACTOR_FLOPS): a sparse
// A_FF whose factor would cost more flops than the limit is refused, and
// every factorisation after it until the refusal is cleared. The cost is the
// symbolic analysis's sum over the columns of L of nnz^2 (off the diagonal),
// which two matrices fix whatever the ordering:
//   * tridiagonal (a path graph): minimum degree eliminates an end each time,
//     no fill, one entry below the diagonal in every column but the last:
//     n - 1 flops;
//   * every entry nonzero (a complete graph, what bodies placed in one spot
//     make of A): column q holds n - 1 - q entries in any order:
//     sum q^2 = (n - 1) n (2n - 1) / 6.
#include <stdlib.h>
#include <string.h>

#include "linalg/chol.h"
#include "tsr_test.h"

typedef struct {
  int m, *Ap, *Ai;
  double *Ax;
} Csc;

static void csc_free(Csc *s) {
  free(s->Ap), free(s->Ai), free(s->Ax);
  memset(s, 0, sizeof *s);
}

// SPD tridiagonal: 4 on the diagonal, -1 beside it.
static Csc tridiagonal(int n) {
  Csc s = {n, malloc((size_t)(n + 1) * sizeof(int)), malloc((size_t)(3 * n) * sizeof(int)),
           malloc((size_t)(3 * n) * sizeof(double))};
  int z = 0;
  for (int j = 0; j < n; j++) {
    s.Ap[j] = z;
    for (int i = j - 1; i <= j + 1; i++)
      if (i >= 0 && i < n) s.Ai[z] = i, s.Ax[z++] = i == j ? 4.0 : -1.0;
  }
  s.Ap[n] = z;
  return s;
}

// SPD and full: n on the diagonal, 1 elsewhere (diagonally dominant).
static Csc full(int n) {
  size_t nn = (size_t)n * (size_t)n;
  Csc s = {n, malloc((size_t)(n + 1) * sizeof(int)), malloc(nn * sizeof(int)), malloc(nn * sizeof(double))};
  size_t z = 0;
  for (int j = 0; j < n; j++) {
    s.Ap[j] = (int)z;
    for (int i = 0; i < n; i++) s.Ai[z] = i, s.Ax[z++] = i == j ? (double)n : 1.0;
  }
  s.Ap[n] = (int)z;
  return s;
}

static int *all_rows(int n) {
  int *F = malloc((size_t)n * sizeof *F);
  for (int k = 0; k < n; k++) F[k] = k;
  return F;
}

// The limit is a strict bound: n - 1 flops pass a limit of n - 1 and are
// refused by n - 2, with the rows and the cost recorded; the path of n - 1
// rows (n - 2 flops) passes n - 2. (Fresh TsrChols: a factorisation of the
// set analysed last reuses that analysis, one a row away from it may be a
// row update, chol_rowmod.c, and neither is a new factorisation's cost.)
static void test_threshold(void) {
  const int n = 500;  // above TSR_CHOL_DENSE_MAX, sparse: the sparse path
  Csc s = tridiagonal(n);
  int *F = all_rows(n);
  tsr_chol_refusal_clear();
  for (int k = 0; k < 3; k++) {
    int nf = k == 2 ? n - 1 : n;
    double limit = k == 0 ? n - 1 : n - 2;
    TsrChol *c = tsr_chol_create();
    ENSURE(c && tsr_chol_set_matrix(n, s.Ap, s.Ai, s.Ax, 1, c) == 0);
    tsr_chol_set_flops_limit(limit);
    int rc = tsr_chol_factor(F + (n - nf), nf, c);
    ENSURE_MSG(rc == (k == 1 ? TSR_CHOL_REFUSED : 0), "case %d: rc %d", k, rc);
    ENSURE(tsr_chol_refused() == (k == 1));
    if (k == 1) {
      int rn = 0;
      double flops = 0.0;
      tsr_chol_refusal(&rn, &flops);
      ENSURE(rn == n);
      ENSURE(flops == (double)(n - 1));
      tsr_chol_refusal_clear();
    }
    tsr_chol_free(&c);
  }
  tsr_chol_set_flops_limit(TSR_CHOL_FLOPS_LIMIT);
  free(F);
  csc_free(&s);
}

// A full A above TSR_CHOL_DENSE_LARGE rows (the sparse path; below it a full
// A is factorised densely, never refused): the cost is the complete graph's,
// and once refused, every factorisation is, in any TsrChol and on any path,
// until cleared; then a small one is computed again.
static void test_full_and_sticky(void) {
  const int n = TSR_CHOL_DENSE_LARGE + 200;
  const double expect = (double)(n - 1) * n * (2.0 * n - 1) / 6.0;
  Csc s = full(n);
  int *F = all_rows(n);
  TsrChol *c = tsr_chol_create();
  ENSURE(c && tsr_chol_set_matrix(n, s.Ap, s.Ai, s.Ax, 1, c) == 0);
  tsr_chol_refusal_clear();
  tsr_chol_set_flops_limit(1e10);  // TSR_FACTOR_FLOPS's least value; expect is 1.1e10
  ENSURE(tsr_chol_factor(F, n, c) == TSR_CHOL_REFUSED);
  int nf = 0;
  double flops = 0.0;
  tsr_chol_refusal(&nf, &flops);
  ENSURE(nf == n);
  ENSURE_NEAR(flops, expect, 0.0);
  // A small dense factorisation elsewhere: refused while the flag stands.
  Csc t = tridiagonal(8);
  int *G = all_rows(8);
  TsrChol *d = tsr_chol_create();
  ENSURE(d && tsr_chol_set_matrix(8, t.Ap, t.Ai, t.Ax, 1, d) == 0);
  ENSURE(tsr_chol_factor(G, 8, d) == TSR_CHOL_REFUSED);
  ENSURE(tsr_chol_factor_shifted(G, 8, 1e-3, d) == TSR_CHOL_REFUSED);
  tsr_chol_refusal(&nf, &flops);
  ENSURE(nf == n);  // the first refusal is the one recorded
  tsr_chol_refusal_clear();
  ENSURE(!tsr_chol_refused());
  ENSURE(tsr_chol_factor(G, 8, d) == 0);
  double x[8], rhs[8] = {3, 2, 2, 2, 2, 2, 2, 3};  // A 1 = rhs
  ENSURE(tsr_chol_solve(rhs, x, d) == 0);
  for (int k = 0; k < 8; k++) ENSURE_NEAR(x[k], 1.0, 1e-14);
  tsr_chol_set_flops_limit(TSR_CHOL_FLOPS_LIMIT);
  tsr_chol_free(&d);
  tsr_chol_free(&c);
  free(G), free(F);
  csc_free(&t), csc_free(&s);
}

int main(void) {
  RUN_TEST(test_threshold);
  RUN_TEST(test_full_and_sticky);
  return TSR_TEST_RESULT();
}
