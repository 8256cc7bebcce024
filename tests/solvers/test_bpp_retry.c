// SPDX-License-Identifier: MIT
// Block pivoting with restarts (solvers/bpp_retry.c) on random symmetric box
// MLCPs with PLANTED solutions (test_util.h). For SPD A there is exactly one
// solution lambda*, so whatever the restarts do, a solve reported converged
// must return lambda* and its index set. The pivot budget is cut to 3 so that
// block pivoting alone runs out on many of them (counted: the test fails if
// it never does, i.e. if the restarts were not exercised), and with the stall
// exit on (the default) BPP hands over even earlier. Tolerances as in
// test_bpp_random.c: relative residual < 1e-9, and |lambda - lambda*|_inf <=
// 1e-12 + 1e-13 cond |lambda*|_inf.
// Also: the pivot and factorisation counts of the restarts are added to the
// caller's statistics, as tsr_bpp_solve's are.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp/mlcp.h"
#include "solvers/bpp.h"
#include "solvers/bpp_retry.h"
#include "solvers/solver.h"
#include "test_util.h"
#include "tsr_test.h"

static void test_retry_planted(void) {
  static const int sizes[] = {5, 20, 60, 150};
  static const double conds[] = {1.0, 1e3, 1e6, 1e8};
  TsrBpp *bpp = tsr_bpp_create(), *plain = tsr_bpp_create();
  TsrBppRetry *retry = tsr_bpp_retry_create();
  ENSURE(bpp && plain && retry);
  TsrSolverParams prm;
  tsr_solver_default_params(TSR_SOLVER_DIRECT_BPP, &prm);
  prm.max_pivots = 3;
  prm.warm_start = 0;
  int cases = 0, passed = 0, plain_failed = 0;
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
    for (size_t ci = 0; ci < sizeof conds / sizeof *conds; ci++)
      for (int seed = 0; seed < 4; seed++) {
        int n = sizes[si];
        Rng r = {9000011ULL * (uint64_t)n + 7919ULL * ci + (uint64_t)seed};
        Planted q;
        planted_dense(&r, n, conds[ci], &q);
        // Block pivoting alone with the same budget, from the same start.
        TsrSolveStats pst = {0};
        plain_failed += tsr_bpp_solve(&q.p, &prm, q.lambda, q.set, &pst, plain) != 0;
        // With restarts; the caller's counters start non-zero.
        memset(q.lambda, 0, (size_t)n * sizeof *q.lambda);
        memset(q.set, 0, (size_t)n);
        TsrSolveStats st = {0};
        st.iterations = 1000, st.factorizations = 2000;
        int rc = tsr_bpp_retry_solve(&q.p, &prm, q.lambda, q.set, &st, bpp, retry);
        double res = tsr_mlcp_residual(&q.p, q.lambda, NULL), rel = res / fmax(1.0, norm2(q.p.b, n));
        double err, tol;
        int set_diff;
        int ok = planted_exact(&q, conds[ci], &err, &tol, &set_diff) && rc == 0 && st.converged && rel < 1e-9;
        if (!ok)
          fprintf(stderr, "  n=%d cond=%.0e seed=%d: rc %d pivots %d rel %.2e err %.2e (tol %.1e) sets %d\n", n,
                  conds[ci], seed, rc, st.iterations - 1000, rel, err, tol, set_diff);
        // (a solve that starts with the active-set method, after the last one
        // stalled in block pivoting, may need no change of its working set)
        ENSURE_MSG(st.iterations >= 1000 && st.factorizations > 2000, "counts not added: %d %d", st.iterations,
                   st.factorizations);
        ENSURE_NEAR(st.residual, res, 1e-12 * fmax(1.0, res) + 1e-14 * norm2(q.p.b, n));
        cases++;
        passed += ok;
        planted_free(&q);
      }
  fprintf(stderr, "  bpp with restarts, 3 pivots: %d of %d solved exactly; block pivoting alone: %d ran out\n", passed,
          cases, plain_failed);
  ENSURE_MSG(plain_failed > cases / 4, "only %d of %d needed a restart: the test does not exercise them", plain_failed,
             cases);
  ENSURE_MSG(passed == cases, "%d of %d", passed, cases);
  tsr_bpp_free(&bpp);
  tsr_bpp_free(&plain);
  tsr_bpp_retry_free(&retry);
}

// TsrMlcp.dense (the interface matrix of piles kept dense, solvers/schur.c):
// the loops that read it form the same sums in the same order as the CSC
// ones, so a solve (block pivoting, its projected Newton restarts, dense
// factors gathered from it) must return bit for bit what it returns without
// it, with the same pivots; and the product A x must be the same.
static void test_dense_representation(void) {
  static const int sizes[] = {5, 40, 120};
  static const double conds[] = {1.0, 1e4, 1e8};
  TsrSolverParams prm;
  tsr_solver_default_params(TSR_SOLVER_DIRECT_BPP, &prm);
  prm.max_pivots = 3;  // the restarts (projected Newton) run too
  prm.warm_start = 0;
  int cases = 0, same = 0, solved = 0;
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
    for (size_t ci = 0; ci < sizeof conds / sizeof *conds; ci++)
      for (int seed = 0; seed < 3; seed++) {
        int n = sizes[si];
        Rng r = {7000003ULL * (uint64_t)n + 104729ULL * ci + (uint64_t)seed};
        double *A = malloc((size_t)n * n * sizeof *A);
        random_spd(&r, n, conds[ci], A);
        Planted q;
        planted_from_dense(&r, n, A, &q);
        double *lam[2], *Ax[2], *x = malloc((size_t)n * sizeof *x);
        int8_t *set[2];
        TsrSolveStats st[2];
        int rc[2];
        for (int i = 0; i < n; i++) x[i] = rng_normal(&r);
        for (int k = 0; k < 2; k++) {
          q.p.dense = k ? A : NULL;
          TsrBpp *bpp = tsr_bpp_create();
          TsrBppRetry *retry = tsr_bpp_retry_create();
          ENSURE(bpp && retry);
          lam[k] = calloc((size_t)n, sizeof *lam[k]);
          set[k] = calloc((size_t)n, 1);
          Ax[k] = malloc((size_t)n * sizeof *Ax[k]);
          memset(&st[k], 0, sizeof st[k]);
          rc[k] = tsr_bpp_retry_solve(&q.p, &prm, lam[k], set[k], &st[k], bpp, retry);
          tsr_mlcp_matvec(&q.p, x, Ax[k]);
          tsr_bpp_retry_free(&retry);
          tsr_bpp_free(&bpp);
        }
        q.p.dense = NULL;
        int eq = rc[0] == rc[1] && !memcmp(lam[0], lam[1], (size_t)n * sizeof *lam[0]) &&
                 !memcmp(set[0], set[1], (size_t)n) && !memcmp(Ax[0], Ax[1], (size_t)n * sizeof *Ax[0]) &&
                 st[0].iterations == st[1].iterations && st[0].factorizations == st[1].factorizations;
        memcpy(q.lambda, lam[1], (size_t)n * sizeof *q.lambda);
        memcpy(q.set, set[1], (size_t)n);
        double err, tol;
        int set_diff;
        solved += rc[1] == 0 && planted_exact(&q, conds[ci], &err, &tol, &set_diff);
        if (!eq)
          fprintf(stderr, "  n=%d cond=%.0e seed=%d: the dense representation changed the solve\n", n, conds[ci], seed);
        cases++;
        same += eq;
        for (int k = 0; k < 2; k++) free(lam[k]), free(set[k]), free(Ax[k]);
        free(x), free(A);
        planted_free(&q);
      }
  fprintf(stderr, "  dense representation: %d of %d solves bit-identical, %d solved to the planted solution\n", same,
          cases, solved);
  ENSURE_MSG(same == cases && solved == cases, "%d identical, %d solved of %d", same, solved, cases);
}

// After block pivoting stalled and the restarts' first active-set attempt
// solved, the next solves of the same object start with that attempt
// (bpp_retry.c, SKIP_MIN_ROWS). The same sequence of problems, each of which
// stalls block pivoting with 3 pivots, through one object with the skip and
// one without (tsr_bpp_retry_set_skip): every solve exact either way, and
// the skipped block pivoting's factorisations are not made.
static void test_skip_first_bpp(void) {
  enum { N = 150, SOLVES = 12 };
  TsrSolverParams prm;
  tsr_solver_default_params(TSR_SOLVER_DIRECT_BPP, &prm);
  prm.max_pivots = 3;
  prm.warm_start = 0;
  int facts[2] = {0, 0}, solved[2] = {0, 0}, stalled = 0;
  for (int k = 0; k < 2; k++) {
    TsrBpp *bpp = tsr_bpp_create(), *plain = tsr_bpp_create();
    TsrBppRetry *retry = tsr_bpp_retry_create();
    ENSURE(bpp && plain && retry);
    tsr_bpp_retry_set_skip(retry, k == 0);
    for (int seed = 0; seed < SOLVES; seed++) {
      Rng r = {424243ULL + 31ULL * (uint64_t)seed};
      Planted q;
      planted_dense(&r, N, 1e3, &q);
      TsrSolveStats pst = {0};
      if (k == 0) stalled += tsr_bpp_solve(&q.p, &prm, q.lambda, q.set, &pst, plain) != 0;
      memset(q.lambda, 0, N * sizeof *q.lambda);
      memset(q.set, 0, N);
      TsrSolveStats st = {0};
      int rc = tsr_bpp_retry_solve(&q.p, &prm, q.lambda, q.set, &st, bpp, retry);
      double err, tol;
      int set_diff;
      solved[k] += rc == 0 && planted_exact(&q, 1e3, &err, &tol, &set_diff);
      facts[k] += st.factorizations;
      planted_free(&q);
    }
    tsr_bpp_retry_free(&retry);
    tsr_bpp_free(&bpp), tsr_bpp_free(&plain);
  }
  fprintf(
      stderr,
      "  skip: %d of %d stalled block pivoting; solved exactly %d / %d; factorisations %d with the skip, %d without\n",
      stalled, SOLVES, solved[0], solved[1], facts[0], facts[1]);
  ENSURE_MSG(stalled >= SOLVES / 2, "only %d of %d stalled: the test does not exercise the skip", stalled, SOLVES);
  ENSURE(solved[0] == SOLVES && solved[1] == SOLVES);
  ENSURE_MSG(facts[0] < facts[1], "%d factorisations with the skip, %d without", facts[0], facts[1]);
}

int main(void) {
  RUN_TEST(test_retry_planted);
  RUN_TEST(test_skip_first_bpp);
  RUN_TEST(test_dense_representation);
  return TSR_TEST_RESULT();
}
