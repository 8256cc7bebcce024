// SPDX-License-Identifier: MIT
// The primal active-set method (solvers/pas.c) on random symmetric box MLCPs
// with PLANTED solutions (test_util.h). For SPD A the MLCP is the optimality
// system of a strictly convex box QP with exactly one solution lambda*, and
// the active-set method reaches it from any feasible start in finitely many
// working sets: here from zero and from far-off random starts (projected
// onto the box). Tolerances as in test_pn.c: relative residual < 1e-9 and
// |lambda - lambda*|_inf <= 1e-12 + 1e-13 cond |lambda*|_inf.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp/mlcp.h"
#include "solvers/pas.h"
#include "solvers/solver.h"
#include "test_util.h"
#include "box_qp_problems.h"
#include "tsr_test.h"

typedef struct {
  int cases, passed, max_changes;
} Tally;

// Budgets: every row may need to enter and leave the working set a few
// times from a far-off start; no factorisation budget.
static int budget(int n) { return 10 * n + 50; }

// Solves q from zero and from a far-off random start (100 N(0,1)); each must
// return the planted solution with rc 0 and a relative residual below 1e-9.
static void solve_planted_twice(Planted *q, Rng *r, double cond, const char *what, TsrPas *pas, Tally *t) {
  int n = q->n;
  for (int start = 0; start < 2; start++) {
    for (int i = 0; i < n; i++) q->lambda[i] = start ? 100.0 * rng_normal(r) : 0.0;
    TsrSolveStats st = {0};
    int rc = tsr_pas_solve(&q->p, budget(n), -1, q->lambda, q->set, &st, pas);
    double res = tsr_mlcp_residual(&q->p, q->lambda, NULL), rel = res / fmax(1.0, norm2(q->p.b, n));
    double err, tol;
    int set_diff;
    int ok = planted_exact(q, cond, &err, &tol, &set_diff) && rc == 0 && st.converged && rel < 1e-9;
    if (!ok)
      fprintf(stderr, "  %s n=%d cond=%.1e start=%d: rc %d changes %d rel %.2e err %.2e (tol %.1e) sets %d\n", what, n,
              cond, start, rc, st.iterations, rel, err, tol, set_diff);
    t->cases++;
    t->passed += ok;
    if (st.iterations > t->max_changes) t->max_changes = st.iterations;
  }
}

// Dense SPD matrices of condition 1..1e8 (the dense factorisation paths).
static void test_pas_dense_planted(void) {
  static const int sizes[] = {1, 5, 20, 60, 150};
  static const double conds[] = {1.0, 1e2, 1e4, 1e6, 1e8};
  TsrPas *pas = tsr_pas_create();
  ENSURE(pas != NULL);
  Tally t = {0};
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
    for (size_t ci = 0; ci < sizeof conds / sizeof *conds; ci++)
      for (int seed = 0; seed < 4; seed++) {
        int n = sizes[si];
        Rng r = {7000003ULL * (uint64_t)n + 104729ULL * ci + (uint64_t)seed};
        Planted q;
        planted_dense(&r, n, conds[ci], &q);
        solve_planted_twice(&q, &r, conds[ci], "dense", pas, &t);
        planted_free(&q);
      }
  fprintf(stderr, "  pas dense planted: %d of %d solved exactly, at most %d working-set changes\n", t.passed, t.cases,
          t.max_changes);
  ENSURE_MSG(t.passed == t.cases, "%d of %d", t.passed, t.cases);
  tsr_pas_free(&pas);
}

// Banded SPD A = B B^T + 1e-4 I (test_pn.c's): 400 and 784 rows take the
// sparse LDL^T path, where the working set's one-row changes are row updates
// of the factor (linalg/chol_rowmod.c, from 128 free rows).
static void test_pas_sparse_planted(void) {
  static const int sizes[] = {120, 400, 784};
  TsrPas *pas = tsr_pas_create();
  ENSURE(pas != NULL);
  Tally t = {0};
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
    for (int seed = 0; seed < 4; seed++) {
      int n = sizes[si];
      Rng r = {99991ULL * (uint64_t)n + (uint64_t)seed};
      double *A = malloc((size_t)n * n * sizeof *A);
      ENSURE(A != NULL);
      banded_spd(&r, n, A);
      double cond = sym_cond(n, A);
      Planted q;
      planted_from_dense(&r, n, A, &q);
      free(A);
      ENSURE(q.p.symmetric && q.p.Ap[n] <= 9 * n);
      solve_planted_twice(&q, &r, cond, "sparse", pas, &t);
      planted_free(&q);
    }
  fprintf(stderr, "  pas sparse planted: %d of %d solved exactly, at most %d working-set changes\n", t.passed, t.cases,
          t.max_changes);
  ENSURE_MSG(t.passed == t.cases, "%d of %d", t.passed, t.cases);
  tsr_pas_free(&pas);
}

// f(lambda) = 1/2 lambda^T A lambda + b^T lambda.
static double objective(const TsrMlcp *p, const double *l, double *Al) {
  tsr_mlcp_matvec(p, l, Al);
  double f = 0.0;
  for (int i = 0; i < p->m; i++) f += l[i] * (0.5 * Al[i] + p->b[i]);
  return f;
}

// The objective never increases: run with a cap of k working-set changes for
// k = 0, 1, 2, ... from one far-off start and compare; every iterate is
// feasible.
static void test_pas_monotone(void) {
  int n = 80;
  Rng r = {4242};
  double *A = malloc((size_t)n * n * sizeof *A), *ls = malloc((size_t)n * sizeof *ls);
  double *l0 = malloc((size_t)n * sizeof *l0), *l = malloc((size_t)n * sizeof *l), *Al = malloc((size_t)n * sizeof *Al);
  int8_t *ss = malloc((size_t)n);
  ENSURE(A && ls && l0 && l && Al && ss);
  random_spd(&r, n, 1e6, A);
  TsrMlcp p;
  tsr_mlcp_init(&p);
  tsr_mlcp_from_dense(n, A, NULL, NULL, NULL, &p);
  plant(&r, &p, 1.0, ls, ss);
  for (int i = 0; i < n; i++) l0[i] = 10.0 * rng_normal(&r);
  TsrPas *pas = tsr_pas_create();
  ENSURE(pas != NULL);
  memcpy(l, l0, (size_t)n * sizeof *l);
  for (int i = 0; i < n; i++) l[i] = fmin(fmax(l[i], p.lo[i]), p.hi[i]);
  double prev = objective(&p, l, Al);
  int last = -1;
  for (int k = 0; k <= 200; k++) {
    memcpy(l, l0, (size_t)n * sizeof *l);
    TsrSolveStats st = {0};
    int rc = tsr_pas_solve(&p, k, -1, l, NULL, &st, pas);
    ENSURE(rc >= 0);
    for (int i = 0; i < n; i++) ENSURE_MSG(l[i] >= p.lo[i] && l[i] <= p.hi[i], "row %d outside its bounds", i);
    double f = objective(&p, l, Al);
    ENSURE_MSG(f <= prev + 1e-12 * fabs(prev), "after %d changes: f %.15e after %.15e", k, f, prev);
    prev = f;
    if (rc == 0) {
      last = k;
      break;
    }
  }
  fprintf(stderr, "  pas monotone: solved after %d working-set changes\n", last);
  ENSURE_MSG(last > 10, "solved after %d changes: the far-off start should need more", last);
  tsr_pas_free(&pas);
  tsr_mlcp_free(&p);
  free(A), free(ls), free(l0), free(l), free(Al), free(ss);
}

// test_pn.c's degenerate planted problems (a pile's: A = B B^T + 1e-6 I with
// B banded of rank 0.6 n, cond ~4e7, half the tight rows with w* = 0):
// projected Newton needs up to ~400 steps there; the active-set method must
// reach lambda* too.
static void test_pas_degenerate(void) {
  TsrPas *pas = tsr_pas_create();
  ENSURE(pas != NULL);
  int cases = 0, passed = 0, max_changes = 0;
  for (int seed = 0; seed < 24; seed++) {
    int n = 250 + (seed % 3) * 100;
    Rng r = {777ULL * (uint64_t)seed + 13ULL};
    Planted q;
    double cond = degenerate_planted(&r, n, &q);
    TsrSolveStats st = {0};
    int rc = tsr_pas_solve(&q.p, budget(n), -1, q.lambda, q.set, &st, pas);
    int ok = degenerate_solved(&q, cond, rc, &st, "changes");
    cases++, passed += ok;
    if (st.iterations > max_changes) max_changes = st.iterations;
    planted_free(&q);
  }
  fprintf(stderr, "  pas degenerate planted: %d of %d solved, at most %d working-set changes\n", passed, cases,
          max_changes);
  ENSURE_MSG(passed == cases, "%d of %d", passed, cases);
  tsr_pas_free(&pas);
}

// Redundant rows, as in a pile (three collinear contacts sharing one load):
// A = K K^T, K of rank r < n, exactly singular. The impulses are not unique
// but w = A lambda + b is (every minimiser of the convex QP has the same
// K^T lambda), so the solve must return a feasible lambda whose w and
// complementarity match the planted solution's: |w - w*|_inf within 1e-9 of
// the problem's scale and Eq. 29 below 1e-9 relative.
static void test_pas_semidefinite(void) {
  TsrPas *pas = tsr_pas_create();
  ENSURE(pas != NULL);
  int cases = 0, passed = 0;
  for (int seed = 0; seed < 12; seed++) {
    int n = 30 + 40 * (seed % 4), rk = (int)(0.7 * n);
    Rng r = {31337ULL * (uint64_t)seed + 5ULL};
    double *K = malloc((size_t)n * rk * sizeof *K), *A = calloc((size_t)n * n, sizeof *A);
    ENSURE(K && A);
    for (int i = 0; i < n * rk; i++) K[i] = rng_normal(&r);
    for (int i = 0; i < n; i++)
      for (int j = 0; j <= i; j++) {
        double v = 0.0;
        for (int c = 0; c < rk; c++) v += K[(size_t)i * rk + c] * K[(size_t)j * rk + c];
        A[(size_t)i * n + j] = A[(size_t)j * n + i] = v;
      }
    Planted q;
    planted_from_dense(&r, n, A, &q);
    free(A), free(K);
    double *ws = malloc((size_t)n * sizeof *ws), *w = malloc((size_t)n * sizeof *w);
    ENSURE(ws && w);
    tsr_mlcp_slack(&q.p, q.ls, ws);  // w* (planted)
    for (int start = 0; start < 2; start++) {
      for (int i = 0; i < n; i++) q.lambda[i] = start ? 10.0 * rng_normal(&r) : 0.0;
      TsrSolveStats st = {0};
      int rc = tsr_pas_solve(&q.p, budget(n), -1, q.lambda, q.set, &st, pas);
      tsr_mlcp_slack(&q.p, q.lambda, w);
      double dw = 0.0, scale = 1.0, res = tsr_mlcp_residual(&q.p, q.lambda, NULL);
      for (int i = 0; i < n; i++) dw = fmax(dw, fabs(w[i] - ws[i])), scale = fmax(scale, fabs(q.p.b[i]));
      int feasible = 1;
      for (int i = 0; i < n; i++) feasible &= q.lambda[i] >= q.p.lo[i] && q.lambda[i] <= q.p.hi[i];
      int ok = rc == 0 && feasible && dw <= 1e-9 * scale && res <= 1e-9 * scale;
      if (!ok)
        fprintf(stderr, "  semidefinite n=%d rank %d start %d: rc %d changes %d |w - w*| %.2e residual %.2e\n", n, rk,
                start, rc, st.iterations, dw, res);
      cases++, passed += ok;
    }
    free(ws), free(w);
    planted_free(&q);
  }
  fprintf(stderr, "  pas semidefinite: %d of %d solved\n", passed, cases);
  ENSURE_MSG(passed == cases, "%d of %d", passed, cases);
  tsr_pas_free(&pas);
}

// No solution: A = K K^T singular (rank 0.6 n), every row bilateral, b
// with a component outside A's range. f is unbounded below along A's null
// space, so the solve must not report success (rc 1) and must return finite
// impulses: a runaway iterate (|lambda| ~ 1e20) once met every row's
// tolerance by dwarfing it.
static void test_pas_no_solution(void) {
  TsrPas *pas = tsr_pas_create();
  ENSURE(pas != NULL);
  for (int seed = 0; seed < 6; seed++) {
    int n = 2 + 11 * seed, rk = (int)(0.6 * n) > 0 ? (int)(0.6 * n) : 1;
    Rng r = {8675309ULL + (uint64_t)seed};
    double *K = malloc((size_t)n * rk * sizeof *K), *A = calloc((size_t)n * n, sizeof *A),
           *b = malloc((size_t)n * sizeof *b);
    double *lo = malloc((size_t)n * sizeof *lo), *hi = malloc((size_t)n * sizeof *hi),
           *l = calloc((size_t)n, sizeof *l);
    ENSURE(K && A && b && lo && hi && l);
    for (int i = 0; i < n * rk; i++) K[i] = rng_normal(&r);
    for (int i = 0; i < n; i++) {
      for (int j = 0; j <= i; j++) {
        double v = 0.0;
        for (int c = 0; c < rk; c++) v += K[(size_t)i * rk + c] * K[(size_t)j * rk + c];
        A[(size_t)i * n + j] = A[(size_t)j * n + i] = v;
      }
      b[i] = rng_normal(&r), lo[i] = -INFINITY, hi[i] = INFINITY;
    }
    TsrMlcp p;
    tsr_mlcp_init(&p);
    ENSURE(tsr_mlcp_from_dense(n, A, b, lo, hi, &p) == 0);
    TsrSolveStats st = {0};
    int rc = tsr_pas_solve(&p, budget(n), -1, l, NULL, &st, pas);
    double lmax = 0.0;
    for (int i = 0; i < n; i++) lmax = fmax(lmax, fabs(l[i]));
    ENSURE_MSG(rc == 1 && !st.converged, "n=%d rank %d: rc %d, converged %d", n, rk, rc, st.converged);
    ENSURE_MSG(isfinite(lmax), "n=%d: impulses not finite", n);
    tsr_mlcp_free(&p);
    free(K), free(A), free(b), free(lo), free(hi), free(l);
  }
  tsr_pas_free(&pas);
}

int main(void) {
  RUN_TEST(test_pas_dense_planted);
  RUN_TEST(test_pas_sparse_planted);
  RUN_TEST(test_pas_monotone);
  RUN_TEST(test_pas_degenerate);
  RUN_TEST(test_pas_semidefinite);
  RUN_TEST(test_pas_no_solution);
  return TSR_TEST_RESULT();
}
