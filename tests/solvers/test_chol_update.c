// SPDX-License-Identifier: MIT
// The dense Cholesky of linalg/chol_dense.c follows a changing free set F by
// removing and appending rows of its factor. Whatever the sequence of F, a
// factorisation must solve A_FF x = r and give G A_FF^-1 G^T as a fresh
// LAPACK factorisation of the same A_FF does, up to rounding amplified by
// cond(A_FF): here cond(A) = 1e4, and the tolerance 1e-9 (relative to the
// solution) leaves a margin of 1e3 over cond * eps * (updates in a row).
// The walk below changes F by 1 or 2 rows at a time (updates) and, now and
// then, by many (a fresh factorisation), and checks that updates happened.
// And the sparse path's gather of A_FF + shift I (test_sparse_gather).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/chol.h"
#include "test_util.h"
#include "chol_reference.h"
#include "tsr_test.h"

// grow: F starts with 10 rows and gains one or two per step (so the factor
// outgrows the room it was given and moves to a larger leading dimension).
static void walk(int m, uint64_t seed, int grow) {
  Rng r = {seed};
  double *A = malloc((size_t)m * m * sizeof *A);
  random_spd(&r, m, 1e4, A);
  // CSC of the dense matrix (both triangles).
  int *Ap = malloc((size_t)(m + 1) * sizeof *Ap), *Ai = malloc((size_t)m * m * sizeof *Ai);
  double *Ax = malloc((size_t)m * m * sizeof *Ax);
  for (int j = 0, z = 0; j <= m; j++) {
    Ap[j] = z;
    if (j == m) break;
    for (int i = 0; i < m; i++) Ai[z] = i, Ax[z++] = A[(size_t)i * m + j];
  }
  TsrChol *c = tsr_chol_create();
  ENSURE(c != NULL);
  ENSURE(tsr_chol_set_matrix(m, Ap, Ai, Ax, 1, c) == 0);
  int8_t *in = calloc((size_t)m, 1);
  for (int i = 0; i < m; i++) in[i] = grow ? i < 10 : rng_uniform(&r) < 0.7;
  int *F = malloc((size_t)m * sizeof *F), ng = 5;
  double *rhs = malloc((size_t)m * sizeof *rhs), *x = malloc((size_t)m * sizeof *x),
         *xr = malloc((size_t)m * sizeof *xr);
  double *Gt = malloc((size_t)m * ng * sizeof *Gt), *G0 = malloc((size_t)m * ng * sizeof *G0);
  double *S = malloc((size_t)ng * ng * sizeof *S), *K = malloc((size_t)m * sizeof *K);
  double worst_x = 0, worst_s = 0;
  for (int step = 0; step < (grow ? 100 : 120); step++) {
    int changes = grow ? 1 + rng_int(&r, 2) : step % 17 == 16 ? m / 3 : 1 + rng_int(&r, 2);
    for (int k = 0; k < changes; k++) {
      int i = rng_int(&r, m);
      if (grow)
        while (in[i]) i = (i + 1) % m;
      in[i] ^= 1;
    }
    int nf = 0;
    for (int i = 0; i < m; i++)
      if (in[i]) F[nf++] = i;
    if (nf == 0) continue;
    ENSURE(tsr_chol_factor(F, nf, c) == 0);
    ENSURE(tsr_chol_method(c) == TSR_CHOL_DENSE_LLT);
    for (int k = 0; k < nf; k++) rhs[k] = rng_range(&r, -1, 1);
    ENSURE(tsr_chol_solve(rhs, x, c) == 0);
    reference_solve(A, m, F, nf, 0.0, rhs, xr);
    for (int k = 0; k < nf; k++) xr[k] -= x[k];
    double ex = max_abs(xr, nf) / max_abs(x, nf);
    worst_x = fmax(worst_x, ex);
    // S = G A_FF^-1 G^T against G (A_FF^-1 G^T) column by column.
    for (int q = 0; q < nf * ng; q++) Gt[q] = G0[q] = rng_uniform(&r) < 0.3 ? rng_range(&r, -1, 1) : 0.0;
    ENSURE(tsr_chol_schur(Gt, ng, S, c) == 0);
    double smax = max_abs(S, ng * ng), es = 0;
    for (int b = 0; b < ng; b++) {
      reference_solve(A, m, F, nf, 0.0, G0 + (size_t)b * nf, K);
      for (int a = 0; a < ng; a++) {
        double v = 0;
        for (int k = 0; k < nf; k++) v += G0[(size_t)a * nf + k] * K[k];
        es = fmax(es, fabs(v - S[a + (size_t)b * ng]));
      }
    }
    worst_s = fmax(worst_s, es / smax);
  }
  int updates = tsr_chol_stats(c)->dense_updates, total = tsr_chol_stats(c)->factorizations;
  printf("  m=%d seed=%llu%s: %d factorisations, %d of them updates; worst relative error: solve %.2e, Schur %.2e\n", m,
         (unsigned long long)seed, grow ? " (growing F)" : "", total, updates, worst_x, worst_s);
  ENSURE(updates > total / 2);  // the walk is mostly small changes
  ENSURE(updates < total);      // and sometimes large ones (or 64 updated rows)
  ENSURE(worst_x < 1e-9);
  ENSURE(worst_s < 1e-9);
  tsr_chol_free(&c);
  free(A), free(Ap), free(Ai), free(Ax), free(in), free(F), free(rhs), free(x), free(xr), free(Gt), free(G0), free(S),
      free(K);
}

// m <= TSR_CHOL_DENSE_MAX takes the dense path at any nf; a full A also
// takes it above (dense_enough).
static void test_update_walks(void) {
  walk(40, 1, 0);
  walk(120, 2, 0);
  walk(200, 3, 0);
  walk(240, 4, 1);
}

// A diagonally dominant (SPD) m x m CSC matrix, both triangles: a random
// pattern with off-diagonal density p (band = 0), or a band of half-width
// band (p ignored). Returns nnz; A dense row-major too.
static int sparse_spd(Rng *r, int m, double p, int band, double *A, int *Ap, int *Ai, double *Ax) {
  memset(A, 0, (size_t)m * m * sizeof *A);
  for (int i = 0; i < m; i++)
    for (int j = i + 1; j < m; j++)
      if (band ? j - i <= band : rng_uniform(r) < p) A[(size_t)i * m + j] = A[(size_t)j * m + i] = rng_range(r, -1, 1);
  for (int i = 0; i < m; i++) {
    double d = 1.0;
    for (int j = 0; j < m; j++) d += j != i ? fabs(A[(size_t)i * m + j]) : 0.0;
    A[(size_t)i * m + i] = d;
  }
  return dense_to_csc(A, m, Ap, Ai, Ax);
}

// Which path factorises a matrix that is below dense_enough's quarter of
// nonzeros: one whose sparse factor fills in (a random pattern, 8% nonzero:
// nearly every entry of L is nonzero under any ordering) is factorised
// densely, and so is the next matrix like it, without an ordering or an
// analysis; a banded one of the same order stays on the sparse path. Either
// way the solve agrees with LAPACK's to 1e-10 (cond ~ 1 here: diagonally
// dominant).
static void test_fill_routing(void) {
  int m = 300;
  Rng r = {77};
  double *A = malloc((size_t)m * m * sizeof *A), *rhs = malloc((size_t)m * sizeof *rhs),
         *x = malloc((size_t)m * sizeof *x), *xr = malloc((size_t)m * sizeof *xr);
  int *Ap = malloc((size_t)(m + 1) * sizeof *Ap), *Ai = malloc((size_t)m * m * sizeof *Ai);
  double *Ax = malloc((size_t)m * m * sizeof *Ax);
  int *F = malloc((size_t)m * sizeof *F);
  for (int i = 0; i < m; i++) F[i] = i;
  TsrChol *c = tsr_chol_create();
  ENSURE(c != NULL);
  // kind 0, 1: random patterns (the second like the first); 2: a band.
  const int expect[3] = {TSR_CHOL_DENSE_LLT, TSR_CHOL_DENSE_LLT, TSR_CHOL_SPARSE_LDL};
  for (int kind = 0; kind < 3; kind++) {
    int nnz = sparse_spd(&r, m, 0.08, kind == 2 ? 3 : 0, A, Ap, Ai, Ax);
    ENSURE(4 * nnz < m * m);  // not dense_enough
    int analyses = tsr_chol_stats(c)->analyses, orderings = tsr_chol_stats(c)->orderings;
    ENSURE(tsr_chol_set_matrix(m, Ap, Ai, Ax, 1, c) == 0);
    ENSURE(tsr_chol_factor(F, m, c) == 0);
    ENSURE_MSG(tsr_chol_method(c) == expect[kind], "kind %d: method %d", kind, tsr_chol_method(c));
    if (kind == 1)
      ENSURE_MSG(tsr_chol_stats(c)->analyses == analyses && tsr_chol_stats(c)->orderings == orderings,
                 "kind 1 was ordered or analysed again");
    else
      ENSURE_MSG(tsr_chol_stats(c)->analyses == analyses + 1, "kind %d: %d analyses", kind,
                 tsr_chol_stats(c)->analyses - analyses);
    for (int k = 0; k < m; k++) rhs[k] = rng_range(&r, -1, 1);
    ENSURE(tsr_chol_solve(rhs, x, c) == 0);
    reference_solve(A, m, F, m, 0.0, rhs, xr);
    for (int k = 0; k < m; k++) xr[k] -= x[k];
    double e = max_abs(xr, m) / max_abs(x, m);
    printf("  kind %d: nnz %d (%.1f%%), method %d, relative error %.2e\n", kind, nnz, 100.0 * nnz / ((double)m * m),
           tsr_chol_method(c), e);
    ENSURE(e < 1e-10);
  }
  tsr_chol_free(&c);
  free(A), free(rhs), free(x), free(xr), free(Ap), free(Ai), free(Ax), free(F);
}

// The sparse path gathers A_FF + shift I from A's columns (chol.c
// build_AFF), writing every entry and keeping the free rows', and inserting
// the shift where a column stores no diagonal. A banded matrix whose odd
// columns store no diagonal (a structural zero, made positive definite by
// the shift: the off-diagonals sum to at most 6 in a row, the shift is 7),
// and one that stores its whole diagonal (shift 0 and 7), factorised on
// random free sets of about 70% of the rows: each solve agrees with LAPACK's
// on the same (A + shift I)_FF to 1e-10 (diagonally dominant: cond ~ 10).
static void test_sparse_gather(void) {
  int m = 300;
  Rng r = {4711};
  double *A = malloc((size_t)m * m * sizeof *A), *As = malloc((size_t)m * m * sizeof *As);
  double *rhs = malloc((size_t)m * sizeof *rhs), *x = malloc((size_t)m * sizeof *x),
         *xr = malloc((size_t)m * sizeof *xr);
  int *Ap = malloc((size_t)(m + 1) * sizeof *Ap), *Ai = malloc((size_t)m * m * sizeof *Ai),
      *F = malloc((size_t)m * sizeof *F);
  double *Ax = malloc((size_t)m * m * sizeof *Ax);
  for (int kind = 0; kind < 3; kind++) {  // 0: odd diagonals missing, shift 7; 1: full diagonal, shift 0; 2: shift 7
    double shift = kind == 1 ? 0.0 : 7.0;
    memset(A, 0, (size_t)m * m * sizeof *A);
    for (int i = 0; i < m; i++)
      for (int j = i + 1; j < m && j - i <= 3; j++) A[(size_t)i * m + j] = A[(size_t)j * m + i] = rng_range(&r, -1, 1);
    for (int i = 0; i < m; i++) A[(size_t)i * m + i] = kind == 0 && i % 2 ? 0.0 : 7.0 + rng_uniform(&r);
    dense_to_csc(A, m, Ap, Ai, Ax);
    for (int q = 0; q < m * m; q++) As[q] = A[q];
    for (int i = 0; i < m; i++) As[(size_t)i * m + i] += shift;
    TsrChol *c = tsr_chol_create();
    ENSURE(c != NULL && tsr_chol_set_matrix(m, Ap, Ai, Ax, 1, c) == 0);
    double worst = 0.0;
    for (int trial = 0; trial < 20; trial++) {
      int nf = 0;
      for (int i = 0; i < m; i++)
        if (rng_uniform(&r) < 0.7) F[nf++] = i;
      ENSURE(tsr_chol_factor_shifted(F, nf, shift, c) == 0);
      ENSURE_MSG(tsr_chol_method(c) == TSR_CHOL_SPARSE_LDL, "kind %d: method %d", kind, tsr_chol_method(c));
      for (int k = 0; k < nf; k++) rhs[k] = rng_range(&r, -1, 1);
      ENSURE(tsr_chol_solve(rhs, x, c) == 0);
      reference_solve(As, m, F, nf, 0.0, rhs, xr);
      for (int k = 0; k < nf; k++) xr[k] -= x[k];
      worst = fmax(worst, max_abs(xr, nf) / max_abs(x, nf));
    }
    printf("  kind %d (shift %g%s): worst relative error %.2e\n", kind, shift,
           kind == 0 ? ", odd diagonals not stored" : "", worst);
    ENSURE(worst < 1e-10);
    tsr_chol_free(&c);
  }
  free(A), free(As), free(rhs), free(x), free(xr), free(Ap), free(Ai), free(F), free(Ax);
}

int main(void) {
  RUN_TEST(test_update_walks);
  RUN_TEST(test_fill_routing);
  RUN_TEST(test_sparse_gather);
  return TSR_TEST_RESULT();
}
