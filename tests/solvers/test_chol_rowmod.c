// SPDX-License-Identifier: MIT
// The sparse LDL^T of linalg/chol_rowmod.c follows a changing free set F by
// CHOLMOD's row deletions and additions. Whatever the sequence of F, shift
// and matrix, a factorisation must solve (A + shift I)_FF x = r and give
// G A_FF^-1 G^T as a fresh LAPACK factorisation of the same matrix does, up
// to rounding amplified by cond: here cond(A) ~ 1e3 (a weighted grid
// Laplacian plus 1e-2 I, the sparse pattern of a pile's contacts), and the
// tolerance 1e-9 (relative to the solution) leaves a margin of ~1e3 over
// cond * eps * (rows updated in a row, at most 256). The walk changes F by
// 1-3 rows at a time (updates), now and then by many, shifts it, sets the
// matrix again, and orders some rows last (tsr_chol_order_last, as the
// substructured solvers do); it checks that updates happened and that a
// chol with TSR_CHOL_NO_ROWMOD=1 made none. A row that makes A_FF
// indefinite is refused as the fresh factorisation refuses it.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/chol.h"
#include "test_util.h"
#include "chol_reference.h"
#include "tsr_test.h"

// A weighted n x n grid Laplacian (edge weights in [0.5, 1.5]) plus 1e-2 I,
// dense (A) and CSC with both triangles (Ap, Ai, Ax; nnz returned).
static int grid(Rng *r, int n, double *A, int *Ap, int *Ai, double *Ax) {
  int m = n * n;
  memset(A, 0, (size_t)m * m * sizeof *A);
  for (int i = 0; i < m; i++) A[(size_t)i * m + i] = 1e-2;
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++) {
      int i = y * n + x, nb[2] = {x + 1 < n ? i + 1 : -1, y + 1 < n ? i + n : -1};
      for (int k = 0; k < 2; k++) {
        int j = nb[k];
        if (j < 0) continue;
        double w = rng_range(r, 0.5, 1.5);
        A[(size_t)i * m + j] = A[(size_t)j * m + i] = -w;
        A[(size_t)i * m + i] += w;
        A[(size_t)j * m + j] += w;
      }
    }
  return dense_to_csc(A, m, Ap, Ai, Ax);
}

// The same on an n x n x n grid with the 26 neighbours of each node (27
// nonzeros a row): its factor is dense enough (flops per entry of L) for
// CHOLMOD's supernodal path, whose factor the updates start from as well.
static int grid3(Rng *r, int n, double *A, int *Ap, int *Ai, double *Ax) {
  int m = n * n * n;
  memset(A, 0, (size_t)m * m * sizeof *A);
  for (int i = 0; i < m; i++) A[(size_t)i * m + i] = 1e-2;
  for (int i = 0; i < m; i++)
    for (int dz = 0; dz <= 1; dz++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          int x = i % n + dx, y = i / n % n + dy, z = i / (n * n) + dz;
          if ((dz == 0 && (dy < 0 || (dy == 0 && dx <= 0))) || x < 0 || x >= n || y < 0 || y >= n || z >= n) continue;
          int j = (z * n + y) * n + x;  // each pair once: j after i
          double w = rng_range(r, 0.5, 1.5);
          A[(size_t)i * m + j] = A[(size_t)j * m + i] = -w;
          A[(size_t)i * m + i] += w;
          A[(size_t)j * m + j] += w;
        }
  return dense_to_csc(A, m, Ap, Ai, Ax);
}

typedef struct {
  int total, updates, supernodal;  // supernodal: factorisations on CHOLMOD's supernodal path
  int from_super;                  // updates that started from such a factor
  double worst_x, worst_s;
} WalkResult;

// The walk on a chol made with TSR_CHOL_NO_ROWMOD set to no_rowmod, on the
// 2-D (dims 2) or 3-D grid of side n; x_out (steps x m) receives each
// step's solution.
static WalkResult walk(int n, int dims, uint64_t seed, int no_rowmod, double *x_out) {
  Rng r = {seed};
  int m = dims == 3 ? n * n * n : n * n, steps = 160, ng = 6;
  double *A = malloc((size_t)m * m * sizeof *A), *Ax = malloc((size_t)27 * m * sizeof *Ax);
  int *Ap = malloc((size_t)(m + 1) * sizeof *Ap), *Ai = malloc((size_t)27 * m * sizeof *Ai);
  if (dims == 3)
    grid3(&r, n, A, Ap, Ai, Ax);
  else
    grid(&r, n, A, Ap, Ai, Ax);
  if (no_rowmod) setenv("TSR_CHOL_NO_ROWMOD", "1", 1);
  TsrChol *c = tsr_chol_create();
  unsetenv("TSR_CHOL_NO_ROWMOD");
  ENSURE(c != NULL);
  ENSURE(tsr_chol_set_matrix(m, Ap, Ai, Ax, 1, c) == 0);
  int8_t *in = calloc((size_t)m, 1), *last = calloc((size_t)m, 1);
  for (int i = 0; i < m; i++) in[i] = rng_uniform(&r) < 0.7;
  int *F = malloc((size_t)m * sizeof *F);
  double *rhs = malloc((size_t)m * sizeof *rhs), *xr = malloc((size_t)m * sizeof *xr);
  double *Gt = malloc((size_t)m * ng * sizeof *Gt), *G0 = malloc((size_t)m * ng * sizeof *G0);
  double *S = malloc((size_t)ng * ng * sizeof *S), *K = malloc((size_t)m * sizeof *K);
  WalkResult res = {0};
  double shift = 0.0;
  int prev_method = -1;
  for (int step = 0; step < steps; step++) {
    int changes = step % 23 == 22 ? m / 4 : 1 + rng_int(&r, 3);
    for (int k = 0; k < changes; k++) in[rng_int(&r, m)] ^= 1;
    if (step % 31 == 30) shift = shift > 0.0 ? 0.0 : 1e-3;  // PN's Levenberg-Marquardt shift
    if (step % 47 == 46) ENSURE(tsr_chol_set_matrix(m, Ap, Ai, Ax, 1, c) == 0);
    if (step == 80) {  // the rows of one grid column last (a subsystem's coupled rows)
      for (int i = 0; i < m; i++) last[i] = i % n == n - 1;
      ENSURE(tsr_chol_order_last(m, last, c) == 0);
    }
    int nf = 0;
    for (int i = 0; i < m; i++)
      if (in[i]) F[nf++] = i;
    ENSURE(tsr_chol_factor_shifted(F, nf, shift, c) == 0);
    int method = tsr_chol_method(c);
    ENSURE_MSG(method == TSR_CHOL_SPARSE_LDL || method == TSR_CHOL_SPARSE_MOD || method == TSR_CHOL_SPARSE,
               "step %d: method %d", step, method);
    res.supernodal += method == TSR_CHOL_SPARSE;
    res.from_super += method == TSR_CHOL_SPARSE_MOD && prev_method == TSR_CHOL_SPARSE;
    prev_method = method;
    double *x = x_out + (size_t)step * m;
    for (int k = 0; k < nf; k++) rhs[k] = rng_range(&r, -1, 1);
    ENSURE(tsr_chol_solve(rhs, x, c) == 0);
    reference_solve(A, m, F, nf, shift, rhs, xr);
    for (int k = 0; k < nf; k++) xr[k] -= x[k];
    res.worst_x = fmax(res.worst_x, max_abs(xr, nf) / max_abs(x, nf));
    // S = G A_FF^-1 G^T against G (A_FF^-1 G^T), G over the rows near the
    // last grid column (those ordered last from step 80 on) and a few others.
    for (int a = 0; a < ng; a++)
      for (int k = 0; k < nf; k++)
        Gt[(size_t)a * nf + k] = G0[(size_t)a * nf + k] =
            F[k] % n >= n - 2 || rng_uniform(&r) < 0.01 ? rng_range(&r, -1, 1) : 0.0;
    ENSURE(tsr_chol_schur(Gt, ng, S, c) == 0);
    double smax = max_abs(S, ng * ng), es = 0;
    for (int b = 0; b < ng; b++) {
      reference_solve(A, m, F, nf, shift, G0 + (size_t)b * nf, K);
      for (int a = 0; a < ng; a++) {
        double v = 0;
        for (int k = 0; k < nf; k++) v += G0[(size_t)a * nf + k] * K[k];
        es = fmax(es, fabs(v - S[a + (size_t)b * ng]));
      }
    }
    res.worst_s = fmax(res.worst_s, es / smax);
  }
  res.total = tsr_chol_stats(c)->factorizations;
  res.updates = tsr_chol_stats(c)->row_updates;
  tsr_chol_free(&c);
  free(A), free(Ap), free(Ai), free(Ax), free(in), free(last), free(F), free(rhs), free(xr), free(Gt), free(G0),
      free(S), free(K);
  return res;
}

static void test_rowmod_walks(void) {
  const int sizes[3] = {20, 28, 8}, dims[3] = {2, 2, 3};
  for (int t = 0; t < 3; t++) {
    int n = sizes[t], m = dims[t] == 3 ? n * n * n : n * n;
    double *x1 = malloc((size_t)160 * m * sizeof *x1), *x0 = malloc((size_t)160 * m * sizeof *x0);
    WalkResult on = walk(n, dims[t], 11 + t, 0, x1), off = walk(n, dims[t], 11 + t, 1, x0);
    printf(
        "  m=%d (%d-D grid): %d factorisations, %d of them row updates (%d from a supernodal factor); worst "
        "relative error: solve %.2e, Schur %.2e\n",
        m, dims[t], on.total, on.updates, on.from_super, on.worst_x, on.worst_s);
    // the 3-D grid's factors take CHOLMOD's supernodal path, and updates
    // start from them
    if (dims[t] == 3) ENSURE_MSG(on.from_super > 0 && off.supernodal > 0, "%d, %d", on.from_super, off.supernodal);
    printf("  m=%d, TSR_CHOL_NO_ROWMOD=1: %d factorisations, %d row updates, %d supernodal; solve %.2e, Schur %.2e\n",
           m, off.total, off.updates, off.supernodal, off.worst_x, off.worst_s);
    ENSURE(on.updates > on.total / 2);  // the walk is mostly small changes
    ENSURE(on.updates < on.total);      // and sometimes large ones, shifts, new matrices
    ENSURE(off.updates == 0);
    ENSURE(on.worst_x < 1e-9 && on.worst_s < 1e-9);
    ENSURE(off.worst_x < 1e-9 && off.worst_s < 1e-9);
    free(x1), free(x0);
  }
}

// Row p (weakly tied to the grid: diagonal 1e-3, coupling -1 to row q, whose
// diagonal is ~4) makes A_FF indefinite whenever q is free too. Adding p to
// a free set holding q, one row more than the factor held, must be refused
// as the fresh factorisation refuses it (-2: not positive definite above
// TSR_CHOL_DENSE_MAX rows), and the factorisations after it, without p,
// must solve again.
static void test_rowmod_indefinite(void) {
  Rng r = {5};
  int n = 16, m = n * n, p = 5 * n + 5, q = p + 1;
  double *A = malloc((size_t)m * m * sizeof *A), *Ax = malloc((size_t)5 * m * sizeof *Ax);
  int *Ap = malloc((size_t)(m + 1) * sizeof *Ap), *Ai = malloc((size_t)5 * m * sizeof *Ai), *F = malloc(m * sizeof *F);
  grid(&r, n, A, Ap, Ai, Ax);
  for (int j = 0; j < m; j++)  // row and column p: only the diagonal and q
    for (int k = Ap[j]; k < Ap[j + 1]; k++) {
      int i = Ai[k];
      if (i == p && j == p)
        Ax[k] = 1e-3;
      else if ((i == p && j == q) || (i == q && j == p))
        Ax[k] = -1.0;
      else if (i == p || j == p)
        Ax[k] = 0.0;
    }
  double *rhs = malloc((size_t)m * sizeof *rhs), *x = malloc((size_t)m * sizeof *x);
  for (int k = 0; k < m; k++) rhs[k] = 1.0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass) setenv("TSR_CHOL_NO_ROWMOD", "1", 1);
    TsrChol *c = tsr_chol_create();
    unsetenv("TSR_CHOL_NO_ROWMOD");
    ENSURE(tsr_chol_set_matrix(m, Ap, Ai, Ax, 1, c) == 0);
    int rcs[4];
    for (int s = 0; s < 4; s++) {  // without p (twice: the second is an update), with p, without p
      int nf = 0;
      for (int i = 0; i < m; i++)
        if ((i != p || s == 2) && (s != 1 || i != 3)) F[nf++] = i;
      rcs[s] = tsr_chol_factor(F, nf, c);
      if (rcs[s] == 0) ENSURE(tsr_chol_solve(rhs, x, c) == 0 && isfinite(max_abs(x, nf)));
    }
    printf("  %s: return codes %d %d %d %d, %d row updates\n", pass ? "TSR_CHOL_NO_ROWMOD=1" : "row updates", rcs[0],
           rcs[1], rcs[2], rcs[3], tsr_chol_stats(c)->row_updates);
    ENSURE(rcs[0] == 0 && rcs[1] == 0 && rcs[2] == -2 && rcs[3] == 0);
    if (!pass) ENSURE(tsr_chol_stats(c)->row_updates >= 1);
    tsr_chol_free(&c);
  }
  free(A), free(Ax), free(Ap), free(Ai), free(F), free(rhs), free(x);
}

// One chol serving two matrices of different orders in turn (a thread's
// chol solving the subsystems scheduled on it), a few factorisations of
// each between tsr_chol_set_matrix calls, each walking its own free set: a
// factor kept for one matrix must never be updated into the other's.
static void test_rowmod_two_matrices(void) {
  Rng r = {23};
  const int n[2] = {14, 19};
  double *A[2], *Ax[2];
  int *Ap[2], *Ai[2];
  int8_t *in[2];
  for (int t = 0; t < 2; t++) {
    int m = n[t] * n[t];
    A[t] = malloc((size_t)m * m * sizeof *A[t]);
    Ax[t] = malloc((size_t)5 * m * sizeof *Ax[t]);
    Ap[t] = malloc((size_t)(m + 1) * sizeof *Ap[t]);
    Ai[t] = malloc((size_t)5 * m * sizeof *Ai[t]);
    grid(&r, n[t], A[t], Ap[t], Ai[t], Ax[t]);
    in[t] = malloc((size_t)m);
    for (int i = 0; i < m; i++) in[t][i] = rng_uniform(&r) < 0.8;
  }
  int mmax = n[1] * n[1], *F = malloc((size_t)mmax * sizeof *F);
  double *rhs = malloc((size_t)mmax * sizeof *rhs), *x = malloc((size_t)mmax * sizeof *x),
         *xr = malloc((size_t)mmax * sizeof *xr), worst = 0.0;
  TsrChol *c = tsr_chol_create();
  for (int round = 0; round < 40; round++) {
    int t = round % 2, m = n[t] * n[t];
    ENSURE(tsr_chol_set_matrix(m, Ap[t], Ai[t], Ax[t], 1, c) == 0);
    for (int k = 0; k < 4; k++) {
      in[t][rng_int(&r, m)] ^= 1;
      int nf = 0;
      for (int i = 0; i < m; i++)
        if (in[t][i]) F[nf++] = i;
      ENSURE(tsr_chol_factor(F, nf, c) == 0);
      for (int q = 0; q < nf; q++) rhs[q] = rng_range(&r, -1, 1);
      ENSURE(tsr_chol_solve(rhs, x, c) == 0);
      reference_solve(A[t], m, F, nf, 0.0, rhs, xr);
      for (int q = 0; q < nf; q++) xr[q] -= x[q];
      worst = fmax(worst, max_abs(xr, nf) / max_abs(x, nf));
    }
  }
  int total = tsr_chol_stats(c)->factorizations, updates = tsr_chol_stats(c)->row_updates;
  printf("  %d factorisations, %d row updates; worst relative error %.2e\n", total, updates, worst);
  ENSURE(updates >= total / 2);  // 3 of each round's 4 while F keeps 128 rows or more
  ENSURE(worst < 1e-9);
  tsr_chol_free(&c);
  for (int t = 0; t < 2; t++) free(A[t]), free(Ax[t]), free(Ap[t]), free(Ai[t]), free(in[t]);
  free(F), free(rhs), free(x), free(xr);
}

int main(void) {
  RUN_TEST(test_rowmod_walks);
  RUN_TEST(test_rowmod_two_matrices);
  RUN_TEST(test_rowmod_indefinite);
  return TSR_TEST_RESULT();
}
