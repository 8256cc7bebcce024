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
        double *A = malloc((size_t)n * n * sizeof *A), *ls = malloc((size_t)n * sizeof *ls);
        double *lambda = malloc((size_t)n * sizeof *lambda);
        int8_t *ss = malloc((size_t)n), *set = malloc((size_t)n);
        random_spd(&r, n, conds[ci], A);
        TsrMlcp p;
        tsr_mlcp_init(&p);
        tsr_mlcp_from_dense(n, A, NULL, NULL, NULL, &p);
        plant(&r, &p, 1.0, ls, ss);
        // Block pivoting alone with the same budget, from the same start.
        TsrSolveStats pst = {0};
        memset(set, 0, (size_t)n);
        plain_failed += tsr_bpp_solve(&p, &prm, lambda, set, &pst, plain) != 0;
        // With restarts; the caller's counters start non-zero.
        for (int i = 0; i < n; i++) lambda[i] = 0.0;
        TsrSolveStats st = {0};
        st.iterations = 1000, st.factorizations = 2000;
        int rc = tsr_bpp_retry_solve(&p, &prm, lambda, set, &st, bpp, retry);
        double res = tsr_mlcp_residual(&p, lambda, NULL), rel = res / fmax(1.0, norm2(p.b, n));
        double err = 0, lsmax = 0;
        int set_diff = 0;
        for (int i = 0; i < n; i++) {
          err = fmax(err, fabs(lambda[i] - ls[i]));
          lsmax = fmax(lsmax, fabs(ls[i]));
          set_diff += set[i] != ss[i];
        }
        double tol = 1e-12 + 1e-13 * conds[ci] * fmax(1.0, lsmax);
        int ok = rc == 0 && st.converged && rel < 1e-9 && err <= tol && !set_diff;
        if (!ok)
          fprintf(stderr, "  n=%d cond=%.0e seed=%d: rc %d pivots %d rel %.2e err %.2e (tol %.1e) sets %d\n", n,
                  conds[ci], seed, rc, st.iterations - 1000, rel, err, tol, set_diff);
        ENSURE_MSG(st.iterations > 1000 && st.factorizations > 2000, "counts not added: %d %d", st.iterations,
                   st.factorizations);
        ENSURE_NEAR(st.residual, res, 1e-12 * fmax(1.0, res) + 1e-14 * norm2(p.b, n));
        cases++;
        passed += ok;
        tsr_mlcp_free(&p);
        free(A), free(ls), free(lambda), free(ss), free(set);
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

int main(void) {
  RUN_TEST(test_retry_planted);
  return TSR_TEST_RESULT();
}
