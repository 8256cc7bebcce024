// SPDX-License-Identifier: MIT
// BPP (and PGS) on random MLCPs with PLANTED solutions (test_util.h: plant()).
// For SPD A the box MLCP has exactly one solution, so a solver that reports
// success must return lambda*, its index set, and a natural residual (Eq. 29)
// at roundoff. Tolerances:
//   * relative residual ||r|| / max(1, ||b||) < 1e-9 (roundoff is ~1e-15; the
//     margin covers the cond = 1e10 cases);
//   * ||lambda - lambda*||_inf <= 1e-12 + 1e-13 * cond * ||lambda*||_inf: the
//     forward error of a backward-stable solve is cond x (n eps ~ 1e-13).
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mlcp/mlcp.h"
#include "solvers/bpp.h"
#include "solvers/solver.h"
#include "test_util.h"
#include "tsr_test.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

// Checks a solve of a planted problem; returns 1 when all held.
static int check_planted(const TsrMlcp *p, const double *lambda, const int8_t *set, const double *ls, const int8_t *ss,
                         double cond, int rc, const TsrSolveStats *st, const char *what) {
  int m = p->m, ok = 1;
  double res = tsr_mlcp_residual(p, lambda, NULL), rel = res / fmax(1.0, norm2(p->b, m));
  double err = 0, lsmax = 0;
  int set_diff = 0;
  for (int i = 0; i < m; i++) {
    err = fmax(err, fabs(lambda[i] - ls[i]));
    lsmax = fmax(lsmax, fabs(ls[i]));
    if (set && set[i] != ss[i]) set_diff++;
  }
  double tol = 1e-12 + 1e-13 * cond * fmax(1.0, lsmax);
  if (rc != 0 || !st->converged) {
    fprintf(stderr, "  %s: rc %d, pivots %d\n", what, rc, st->iterations);
    ok = 0;
  }
  if (!(rel < 1e-9)) {
    fprintf(stderr, "  %s: relative residual %.3e\n", what, rel);
    ok = 0;
  }
  if (!(fabs(st->residual - res) <= 1e-12 * fmax(1.0, res) + 1e-15 * norm2(p->b, m))) {
    fprintf(stderr, "  %s: reported residual %.3e, actual %.3e\n", what, st->residual, res);
    ok = 0;
  }
  if (!(err <= tol)) {
    fprintf(stderr, "  %s: |lambda - lambda*| = %.3e > %.3e\n", what, err, tol);
    ok = 0;
  }
  if (set_diff) {
    fprintf(stderr, "  %s: %d rows in the wrong index set\n", what, set_diff);
    ok = 0;
  }
  return ok;
}

// Any pivot budget, up to INT_MAX (a model's max_pivots reaches
// TSR_MAX_PIVOTS), changes nothing for a solve that converges within the
// default's: the same pivots, the same solution bit for bit. The cycling
// guard's table was sized 4 x the budget: for a model's 1e8 it took 4.3 GB,
// cleared at every solve, and for 3e8 or more its sizing overflowed int and
// the solve never returned.
static void test_bpp_largest_budget(void) {
  static const int budgets[] = {100000000, 300000000, INT_MAX};
  TsrSolverParams small, large;
  tsr_solver_default_params(TSR_SOLVER_DIRECT_BPP, &small);
  small.warm_start = 0;
  TsrBpp *bpp = tsr_bpp_create();
  for (int seed = 0; seed < 8; seed++) {
    Rng r = {4242ULL + (uint64_t)seed};
    Planted q;
    planted_dense(&r, 40, 1e4, &q);
    int n = q.p.m;
    double *l1 = malloc((size_t)n * sizeof *l1), *l2 = malloc((size_t)n * sizeof *l2);
    int8_t *s1 = malloc((size_t)n), *s2 = malloc((size_t)n);
    memcpy(l1, q.lambda, (size_t)n * sizeof *l1), memcpy(s1, q.set, (size_t)n);
    TsrSolveStats st1 = {0};
    int rc1 = tsr_bpp_solve(&q.p, &small, l1, s1, &st1, bpp);
    ENSURE_MSG(rc1 == 0, "seed %d: rc %d", seed, rc1);
    for (int b = 0; b < 3; b++) {
      large = small;
      large.max_pivots = budgets[b];
      memcpy(l2, q.lambda, (size_t)n * sizeof *l2), memcpy(s2, q.set, (size_t)n);
      TsrSolveStats st2 = {0};
      int rc2 = tsr_bpp_solve(&q.p, &large, l2, s2, &st2, bpp);
      ENSURE_MSG(rc2 == 0 && st1.iterations == st2.iterations, "seed %d: %d pivots, rc %d and %d pivots with %d", seed,
                 st1.iterations, rc2, st2.iterations, budgets[b]);
      ENSURE(!memcmp(l1, l2, (size_t)n * sizeof *l1) && !memcmp(s1, s2, (size_t)n));
    }
    free(l1), free(l2), free(s1), free(s2);
    planted_free(&q);
  }
  tsr_bpp_free(&bpp);
}

// Dense SPD problems, cond 1e0..1e10, sizes 10..300, many seeds.
static void test_bpp_dense_planted(void) {
  static const int sizes[] = {1, 2, 10, 30, 60, 120, 300};
  static const double conds[] = {1.0, 1e2, 1e4, 1e6, 1e8, 1e10};
  TsrSolverParams prm;
  tsr_solver_default_params(TSR_SOLVER_DIRECT_BPP, &prm);
  prm.warm_start = 0;
  TsrBpp *bpp = tsr_bpp_create();
  int cases = 0, passed = 0, max_piv = 0;
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
    for (size_t ci = 0; ci < sizeof conds / sizeof *conds; ci++) {
      int n = sizes[si], seeds = n >= 300 ? 2 : n >= 100 ? 4 : 8;
      for (int seed = 0; seed < seeds; seed++) {
        Rng r = {1000003ULL * (uint64_t)n + 7919ULL * ci + (uint64_t)seed};
        Planted q;
        planted_dense(&r, n, conds[ci], &q);
        TsrMlcp p = q.p;
        double *lambda = q.lambda;
        int8_t *set = q.set;
        TsrSolveStats st = {0};
        int rc = tsr_bpp_solve(&p, &prm, lambda, set, &st, bpp);
        char what[96];
        snprintf(what, sizeof what, "dense n=%d cond=%.0e seed=%d", n, conds[ci], seed);
        cases++;
        if (check_planted(&p, lambda, set, q.ls, q.ss, conds[ci], rc, &st, what)) passed++;
        if (st.iterations > max_piv) max_piv = st.iterations;
        // Warm start from the solution's own index set: one solve, no pivot.
        if (rc == 0) {
          TsrSolverParams warm = prm;
          warm.warm_start = 1;
          TsrSolveStats st2 = {0};
          int rc2 = tsr_bpp_solve(&p, &warm, lambda, set, &st2, bpp);
          ENSURE_MSG(rc2 == 0 && st2.iterations == 1, "%s: warm start took %d solves", what, st2.iterations);
        }
        planted_free(&q);
      }
    }
  fprintf(stderr, "  dense planted: %d of %d solved exactly, at most %d pivots\n", passed, cases, max_piv);
  ENSURE_MSG(passed == cases, "%d of %d", passed, cases);
  tsr_bpp_free(&bpp);
}

// A chain of n_bodies rigid bodies: body 0 welded to the world, each next one
// welded to the previous (6 bilateral rows, given compliance; contacts 10x), plus contacts of
// random bodies with the ground (normal [0, inf) and two friction rows
// [-mu, mu] that are then redundant with the welds: hence the compliance).
// The planted solution keeps these bounds (welds bilateral, contacts at
// random states).
// Masses span mass_decades decades. A is assembled body-wise and
// sparse, so large free sets go through CHOLMOD.
static void build_chain(Rng *r, int n_bodies, int n_contacts, double compliance, double mass_decades, TsrRowSet *rows,
                        TsrMlcp *p) {
  double *inv_mass = malloc((size_t)n_bodies * sizeof(double)), *I = calloc((size_t)n_bodies * 9, sizeof(double));
  double *v = calloc((size_t)n_bodies * 6, sizeof(double));
  for (int k = 0; k < n_bodies; k++) {
    double mass = pow(10.0, rng_range(r, -0.5 * mass_decades, 0.5 * mass_decades));
    inv_mass[k] = 1.0 / mass;
    for (int a = 0; a < 3; a++) I[9 * k + 4 * a] = 1.0 / (mass * rng_range(r, 0.05, 0.5));
  }
  tsr_rowset_clear(rows);
  for (int k = 0; k < n_bodies; k++)
    for (int a = 0; a < 6; a++) {
      TsrRow *row = tsr_rowset_push(rows);
      row->body[0] = k;
      row->body[1] = k - 1;
      row->J[0][a] = 1.0;
      if (a < 3) {  // point constraint at an offset: the angular part couples
        double arm[3] = {rng_range(r, -0.5, 0.5), rng_range(r, -0.5, 0.5), rng_range(r, -0.5, 0.5)};
        int b1 = (a + 1) % 3, b2 = (a + 2) % 3;
        row->J[0][3 + b1] = arm[b2];
        row->J[0][3 + b2] = -arm[b1];
      }
      for (int c = 0; c < 6; c++) row->J[1][c] = -row->J[0][c];
      row->compliance = compliance;
      row->lo = -INFINITY, row->hi = INFINITY;
    }
  for (int c = 0; c < n_contacts; c++) {
    int k = rng_int(r, n_bodies);
    for (int d = 0; d < 3; d++) {
      TsrRow *row = tsr_rowset_push(rows);
      row->body[0] = k;
      row->J[0][d] = 1.0;
      row->J[0][3 + (d + 1) % 3] = rng_range(r, -0.3, 0.3);
      row->compliance = 10 * compliance;
      double mu = rng_range(r, 0.3, 1.0);
      row->lo = d == 0 ? 0 : -mu, row->hi = d == 0 ? INFINITY : mu;  // normal, then box friction
    }
  }
  tsr_mlcp_assemble(rows, n_bodies, inv_mass, I, v, p);
  free(inv_mass), free(I), free(v);
}

// Moderately conditioned chains (compliance 1e-6, masses over 2 decades:
// cond ~1e8) must give back lambda* and its index set; stiff ones
// (compliance 1e-8, mass ratio 1e4: cond beyond 1e12, where many lambda give
// a roundoff residual) a converged solve at roundoff residual.
// Both sparse paths of linalg/chol.c (LDL's LDL^T and CHOLMOD's Cholesky,
// forced by TSR_CHOL_SPARSE when the context is created) must pass.
static void sparse_planted(const char *path) {
  static const int bodies[] = {20, 100, 400, 800};
  TsrSolverParams prm;
  tsr_solver_default_params(TSR_SOLVER_DIRECT_BPP, &prm);
  prm.warm_start = 0;
  setenv("TSR_CHOL_SPARSE", path, 1);
  TsrBpp *bpp = tsr_bpp_create();
  unsetenv("TSR_CHOL_SPARSE");
  fprintf(stderr, "  sparse path: %s\n", path);
  TsrRowSet rows = {0};
  for (int stiff = 0; stiff < 2; stiff++)
    for (size_t bi = 0; bi < sizeof bodies / sizeof *bodies; bi++)
      for (int seed = 0; seed < 3; seed++) {
        Rng r = {77ULL * (uint64_t)bodies[bi] + (uint64_t)seed + 1000ULL * (uint64_t)stiff};
        TsrMlcp p;
        tsr_mlcp_init(&p);
        build_chain(&r, bodies[bi], bodies[bi] / 2, stiff ? 1e-8 : 1e-6, stiff ? 4 : 2, &rows, &p);
        int m = p.m;
        double *ls = malloc((size_t)m * sizeof *ls), *lambda = malloc((size_t)m * sizeof *lambda);
        int8_t *ss = malloc((size_t)m), *set = malloc((size_t)m);
        plant_ex(&r, &p, 1.0, 1, ls, ss);
        TsrSolveStats st = {0};
        double t0 = now_ms();
        int rc = tsr_bpp_solve(&p, &prm, lambda, set, &st, bpp);
        double t1 = now_ms();
        char what[96];
        snprintf(what, sizeof what, "%s chain bodies=%d m=%d seed=%d", stiff ? "stiff" : "moderate", bodies[bi], m,
                 seed);
        double rel = tsr_mlcp_residual(&p, lambda, NULL) / fmax(1.0, norm2(p.b, m));
        if (!stiff)
          ENSURE_MSG(check_planted(&p, lambda, set, ls, ss, 1e8, rc, &st, what), "%s", what);
        else
          ENSURE_MSG(rc == 0 && rel < 1e-9, "%s: rc %d, relative residual %.3e", what, rc, rel);
        const TsrCholStats *cs = tsr_chol_stats(tsr_bpp_chol(bpp));
        fprintf(stderr,
                "  %s nnz=%d: %d pivots, %.2f ms, rel. residual %.1e (cumulative: %d analyses, %d factorizations, %d "
                "dense LU)\n",
                what, p.Ap[m], st.iterations, t1 - t0, rel, cs->analyses, cs->factorizations, cs->dense_lu);
        // Warm start from the returned index set (the per-step situation of
        // the simulator): one factorisation, the symbolic analysis reused.
        if (!stiff) {
          int analyses = cs->analyses;
          TsrSolverParams warm = prm;
          warm.warm_start = 1;
          TsrSolveStats st2 = {0};
          t0 = now_ms();
          int rc2 = tsr_bpp_solve(&p, &warm, lambda, set, &st2, bpp);
          t1 = now_ms();
          ENSURE_MSG(rc2 == 0 && st2.iterations == 1, "%s: warm start %d solves", what, st2.iterations);
          ENSURE_MSG(m <= TSR_CHOL_DENSE_MAX || tsr_chol_stats(tsr_bpp_chol(bpp))->analyses == analyses,
                     "%s: symbolic factor reused", what);
          fprintf(stderr, "    warm-started re-solve: %.2f ms\n", t1 - t0);
        }
        tsr_mlcp_free(&p);
        free(ls), free(lambda), free(ss), free(set);
      }
  tsr_rowset_free(&rows);
  tsr_bpp_free(&bpp);
}

static void test_bpp_sparse_planted(void) {
  sparse_planted("ldl");
  sparse_planted("cholmod");
}

// The largest problem: ~5000 rows, timed (median of 5 warm-started and cold solves).
static void test_bpp_sparse_timing(void) {
  TsrSolverParams prm;
  tsr_solver_default_params(TSR_SOLVER_DIRECT_BPP, &prm);
  TsrRowSet rows = {0};
  TsrMlcp p;
  tsr_mlcp_init(&p);
  Rng r = {2024};
  build_chain(&r, 640, 400, 1e-6, 2, &rows, &p);
  int m = p.m;
  double *ls = malloc((size_t)m * sizeof *ls), *lambda = malloc((size_t)m * sizeof *lambda);
  int8_t *ss = malloc((size_t)m), *set = malloc((size_t)m);
  plant_ex(&r, &p, 1.0, 1, ls, ss);
  TsrSolver *s = tsr_solver_create(&prm, NULL, 0);
  double cold[5], warm[5];
  int piv = 0, rc = 0;
  for (int k = 0; k < 5; k++) {
    TsrSolveStats st;
    memset(set, 0, (size_t)m);
    double t0 = now_ms();
    rc |= tsr_solver_solve(s, &p, NULL, lambda, set, &st);  // set all free: cold
    cold[k] = now_ms() - t0;
    piv = st.iterations;
    t0 = now_ms();
    rc |= tsr_solver_solve(s, &p, NULL, lambda, set, &st);  // from the solution's set
    warm[k] = now_ms() - t0;
  }
  for (int a = 0; a < 5; a++)
    for (int b = a + 1; b < 5; b++) {
      if (cold[b] < cold[a]) {
        double t = cold[a];
        cold[a] = cold[b];
        cold[b] = t;
      }
      if (warm[b] < warm[a]) {
        double t = warm[a];
        warm[a] = warm[b];
        warm[b] = t;
      }
    }
  TsrSolveStats st;
  tsr_solver_solve(s, &p, NULL, lambda, set, &st);
  ENSURE(rc == 0);
  ENSURE(check_planted(&p, lambda, set, ls, ss, 1e8, 0, &st, "timing problem"));
  fprintf(stderr, "  TIMING direct-bpp m=%d nnz=%d: cold (all free) median %.2f ms (%d pivots), warm median %.2f ms\n",
          m, p.Ap[m], cold[2], piv, warm[2]);
  tsr_solver_free(&s);
  tsr_mlcp_free(&p);
  tsr_rowset_free(&rows);
  free(ls), free(lambda), free(ss), free(set);
}

// PGS on well-conditioned planted problems (cond <= 10, diagonally heavy):
// relative residual < 1e-6 within its 1000 sweeps.
static void test_pgs_planted(void) {
  TsrSolverParams prm;
  tsr_solver_default_params(TSR_SOLVER_PGS, &prm);
  prm.warm_start = 0;
  TsrSolver *s = tsr_solver_create(&prm, NULL, 0);
  ENSURE(s != NULL);
  for (int seed = 0; seed < 10; seed++) {
    int n = 5 + 5 * seed;
    Rng r = {5000ULL + (uint64_t)seed};
    double *A = malloc((size_t)n * n * sizeof *A), *ls = malloc((size_t)n * sizeof *ls);
    double *lambda = calloc((size_t)n, sizeof *lambda);
    int8_t *ss = malloc((size_t)n), *set = malloc((size_t)n);
    random_spd(&r, n, 3.0, A);
    TsrMlcp p;
    tsr_mlcp_init(&p);
    tsr_mlcp_from_dense(n, A, NULL, NULL, NULL, &p);
    plant(&r, &p, 1.0, ls, ss);
    TsrSolveStats st;
    int rc = tsr_solver_solve(s, &p, NULL, lambda, set, &st);
    double rel = tsr_mlcp_residual(&p, lambda, NULL) / fmax(1.0, norm2(p.b, n));
    ENSURE_MSG(rc == 0 && st.converged && rel < 1e-6, "PGS n=%d: rc %d, %d sweeps, relative residual %.3e", n, rc,
               st.iterations, rel);
    tsr_mlcp_free(&p);
    free(A), free(ls), free(lambda), free(ss), free(set);
  }
  // A zero diagonal: PGS must refuse, not divide by zero.
  TsrMlcp p;
  tsr_mlcp_init(&p);
  double Z[4] = {0, 1, -1, 1}, b[2] = {1, 1}, l[2] = {0, 0};
  tsr_mlcp_from_dense(2, Z, b, NULL, NULL, &p);
  TsrSolveStats st;
  ENSURE(tsr_solver_solve(s, &p, NULL, l, NULL, &st) < 0);
  ENSURE(isfinite(l[0]) && isfinite(l[1]));
  tsr_mlcp_free(&p);
  tsr_solver_free(&s);
}

static void test_solver_interface(void) {
  TsrSolverParams prm;
  tsr_solver_default_params(TSR_SOLVER_DIRECT_BPP, &prm);
  ENSURE(prm.max_pivots == 50 && prm.index_tolerance == 1e-5 && prm.iterations == 1000 && prm.tolerance == 1e-9 &&
         prm.warm_start == 1);
  char err[128] = "";
  // Every solver type of the model format can be created.
  for (int t = 0; t < TSR_SOLVER_COUNT; t++) {
    TsrSolverParams sp;
    tsr_solver_default_params((TsrSolverType)t, &sp);
    TsrSolver *any = tsr_solver_create(&sp, err, sizeof err);
    ENSURE_MSG(any != NULL, "type %d: '%s'", t, err);
    tsr_solver_free(&any);
  }
  // m = 0.
  TsrSolver *s = tsr_solver_create(&prm, err, sizeof err);
  TsrMlcp p;
  tsr_mlcp_init(&p);
  tsr_mlcp_reserve(&p, 0, 0);
  p.Ap[0] = 0;
  TsrSolveStats st;
  ENSURE(tsr_solver_solve(s, &p, NULL, NULL, NULL, &st) == 0 && st.converged && st.residual == 0.0);
  // A 1x1 box problem at its upper bound: w = 2 lambda - 5, [0, 1] -> lambda = 1, w = -3.
  double A = 2, b = -5, lo = 0, hi = 1, l = 0;
  int8_t set = 0;
  tsr_mlcp_from_dense(1, &A, &b, &lo, &hi, &p);
  ENSURE(tsr_solver_solve(s, &p, NULL, &l, &set, &st) == 0);
  ENSURE(l == 1.0 && set == TSR_INDEX_UPPER);
  // lo = -inf, hi finite, free solution: w = lambda + 0.5 -> lambda = -0.5.
  A = 1, b = 0.5, lo = -INFINITY, hi = 1;
  tsr_mlcp_from_dense(1, &A, &b, &lo, &hi, &p);
  ENSURE(tsr_solver_solve(s, &p, NULL, &l, &set, &st) == 0);
  ENSURE_NEAR(l, -0.5, 1e-15);
  ENSURE(set == TSR_INDEX_FREE);
  tsr_mlcp_free(&p);
  tsr_solver_free(&s);
  ENSURE(s == NULL);
}

// Solves p cold with a new solver of the given type (the whole problem one
// subsystem for the substructured ones) into l. Returns its rc.
static int solve_with(TsrSolverType type, const TsrMlcp *p, double *l, TsrSolveStats *st) {
  TsrSolverParams prm;
  tsr_solver_default_params(type, &prm);
  prm.warm_start = 0;
  TsrSolver *s = tsr_solver_create(&prm, NULL, 0);
  ENSURE(s != NULL);
  int8_t set[8] = {0};
  for (int i = 0; i < p->m; i++) l[i] = 0.0;
  int rc = s ? tsr_solver_solve(s, p, NULL, l, set, st) : -100;
  tsr_solver_free(&s);
  return rc;
}

// Singular or indefinite A, small MLCPs (w = A lambda + b) whose truth is
// worked out by hand, every solver (the substructured ones with the whole
// problem as one subsystem; pgs-sm only on symmetric A):
//   * a solution is reported only where the residual is zero (to rounding);
//     PGS's own stop (a change of 1e-9 of |lambda|) gets its own tolerance;
//   * (a) lambda >= 0, row 0 reads w_0 = -1 whatever lambda is: no
//     solution. The shifted solve of the singular A_FF of set {free, lower}
//     returned lambda_0 = 1 / delta = 2e10 as solved (BPP; FBIC then claimed
//     convergence with no interface whatever its subsystem's BPP said);
//   * (b) lambda >= 0, degenerate (lambda = (0, 1) and others solve it); the
//     pivoting solvers do not find a solution through their sets' singular
//     blocks, and must not claim the iterate they return;
//   * (c) lambda >= 0, consistent singular: the unique solution (0, 2);
//   * (d) lambda >= 0, nonsymmetric, whose all-free block no factorisation
//     takes, not even shifted (LU meets an exact zero pivot; the structure of
//     Pang's example in the Siconos collection): direct-bpp pivots away from
//     that set; the substructured solvers failed (status -1) on their first
//     Schur block and now fall back to it;
//   * (e) one bilateral row 0 lambda + 0.74 = 0: no solution. Projected
//     Newton (direct-bpp's restart) met its global stop, which scales with
//     |lambda|, once lambda reached 7e11, and returned it as solved; PGS-SM's
//     shifted subspace solve did the same;
//   * (f) bilateral, symmetric indefinite, nonsingular: the solution
//     lambda = -A^-1 b = (1, -1) by pivoting; PGS diverges (its sweep
//     multiplies the error by 4) and reported lambda = inf as converged;
//   * (g) two bilateral rows with the same Jacobian that ask for different
//     velocities (two distance joints of different lengths, no compliance):
//     no solution. Every pivoting solver ran off along (1, -1) and reported
//     lambda ~ 1e15 solved, each row small beside |A||lambda| but wrong by
//     half of b (solver.c, SOLVED_AT_DATA).
static void test_singular_sets(void) {
  static const double Aa[4] = {0, 0, 1, 1}, ba[2] = {-1, -2};
  static const double Ab[4] = {0, 1, 0, 0}, bb[2] = {-1, 0};
  static const double Ac[4] = {0, 1, 0, 1}, bc[2] = {-1, -2};
  static const double Ad[9] = {0, 2, -2, -1, 0, 0, -1, 0, 0}, bd[3] = {0, 1, 1};
  static const double Ae[1] = {0}, be[1] = {0.74};
  static const double Af[4] = {1, 2, 2, 1}, bf[2] = {1, -1};
  static const double Ag[4] = {1, 1, 1, 1}, bg[2] = {-1, -2};
  static const double free_lo[2] = {-INFINITY, -INFINITY}, free_hi[2] = {INFINITY, INFINITY};
  const struct {
    int m;
    const double *A, *b, *lo, *hi;
    int solvable;   // 1: every pivoting solver must solve it
    double sol[2];  // (c), (f): the unique solution
  } cases[] = {{2, Aa, ba, NULL, NULL, 0, {0}},       {2, Ab, bb, NULL, NULL, 0, {0}},
               {2, Ac, bc, NULL, NULL, 1, {0, 2}},    {3, Ad, bd, NULL, NULL, 1, {0}},
               {1, Ae, be, free_lo, free_hi, 0, {0}}, {2, Af, bf, free_lo, free_hi, 1, {1, -1}},
               {2, Ag, bg, free_lo, free_hi, 0, {0}}};
  const TsrSolverType types[] = {TSR_SOLVER_DIRECT_BPP, TSR_SOLVER_SCHUR_BPP, TSR_SOLVER_SCHUR_PGS_SM,
                                 TSR_SOLVER_FBIC,       TSR_SOLVER_PGS,       TSR_SOLVER_PGS_SM};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    TsrMlcp p;
    tsr_mlcp_init(&p);
    ENSURE(tsr_mlcp_from_dense(cases[c].m, cases[c].A, cases[c].b, cases[c].lo, cases[c].hi, &p) == 0);
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
      int pgs = types[t] == TSR_SOLVER_PGS, pgs_sm = types[t] == TSR_SOLVER_PGS_SM;
      if (pgs_sm && !p.symmetric) continue;  // refused (tested in test_pgs_sm)
      const char *name = tsr_solver_type_name(types[t]);
      double l[3];
      TsrSolveStats st = {0};
      int rc = solve_with(types[t], &p, l, &st);
      double res = tsr_mlcp_residual(&p, l, NULL);
      // PGS refuses a zero diagonal (status -1); no other status < 0.
      ENSURE_MSG(rc >= 0 || (pgs && rc == -1), "case %zu, %s: status %d", c, name, rc);
      ENSURE_MSG((rc == 0) == (st.converged != 0), "case %zu, %s: status %d, converged %d", c, name, rc, st.converged);
      if (rc == 0)
        ENSURE_MSG(res < (pgs ? 1e-6 : 1e-12), "case %zu, %s: reported solved at residual %.3e", c, name, res);
      if (cases[c].solvable && !pgs) ENSURE_MSG(rc == 0, "case %zu, %s: status %d, residual %.3e", c, name, rc, res);
      if (c == 0 || c == 4 || c == 6) ENSURE_MSG(rc != 0, "case %zu has no solution; %s reported one", c, name);
      if ((c == 2 || c == 5) && rc == 0 && !pgs)
        ENSURE_MSG(fabs(l[0] - cases[c].sol[0]) < 1e-12 && fabs(l[1] - cases[c].sol[1]) < 1e-12,
                   "case %zu, %s: (%.17g, %.17g)", c, name, l[0], l[1]);
    }
    tsr_mlcp_free(&p);
  }
}

// The data-scale check of tsr_solver_solve (solver.c SOLVED_AT_DATA) at its
// two edges, with every exact solver:
//   * infinite or NaN data has no solution: b = (inf, 1) gave residual inf
//     and lambda = inf reported solved (inf <= inf passed the check);
//   * A = 0.7 (d I + 1 1^T), d = 1e-10 (cond 2e10), whose solution
//     lambda_i = -(b_i - sum(b) / (2 + d)) / (0.7 d) is 5e9 for b of 0.4:
//     w = A lambda + b rounds to ~1e-6 of b there, as exact a solution as
//     doubles hold, and it must be reported solved (the rounding allowance
//     of tsr_mlcp_holds_at_data).
static void test_data_scale_edges(void) {
  const TsrSolverType types[] = {TSR_SOLVER_DIRECT_BPP, TSR_SOLVER_SCHUR_BPP, TSR_SOLVER_SCHUR_PGS_SM, TSR_SOLVER_FBIC,
                                 TSR_SOLVER_PGS_SM};
  static const double free_lo[2] = {-INFINITY, -INFINITY}, free_hi[2] = {INFINITY, INFINITY};
  const double d = 1e-10, A[4] = {0.7 * (1 + d), 0.7, 0.7, 0.7 * (1 + d)}, bs[2] = {-0.3, 0.4};
  const double bad[3][2] = {{INFINITY, 1}, {NAN, 1}, {-INFINITY, 1}};
  for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
    const char *name = tsr_solver_type_name(types[t]);
    TsrMlcp p;
    tsr_mlcp_init(&p);
    double l[2];
    TsrSolveStats st = {0};
    for (int k = 0; k < 3; k++) {
      ENSURE(tsr_mlcp_from_dense(2, A, bad[k], free_lo, free_hi, &p) == 0);
      int rc = solve_with(types[t], &p, l, &st);
      ENSURE_MSG(rc != 0 && !st.converged, "%s, b = (%g, 1): status %d, converged %d", name, bad[k][0], rc,
                 st.converged);
    }
    ENSURE(tsr_mlcp_from_dense(2, A, bs, free_lo, free_hi, &p) == 0);
    int rc = solve_with(types[t], &p, l, &st);
    double S = bs[0] + bs[1], want[2];
    for (int i = 0; i < 2; i++) want[i] = -(bs[i] - S / (2.0 + d)) / (0.7 * d);
    // forward error up to cond eps = 4e-6 of |lambda|
    ENSURE_MSG(rc == 0 && st.converged && fabs(l[0] - want[0]) < 1e-5 * fabs(want[0]) &&
                   fabs(l[1] - want[1]) < 1e-5 * fabs(want[1]),
               "%s, cond 2e10: status %d, converged %d, lambda (%.9e, %.9e) against (%.9e, %.9e), residual %.3e", name,
               rc, st.converged, l[0], l[1], want[0], want[1], st.residual);
    tsr_mlcp_free(&p);
  }
}

int main(void) {
  RUN_TEST(test_solver_interface);
  RUN_TEST(test_singular_sets);
  RUN_TEST(test_data_scale_edges);
  RUN_TEST(test_bpp_dense_planted);
  RUN_TEST(test_bpp_largest_budget);
  RUN_TEST(test_bpp_sparse_planted);
  RUN_TEST(test_bpp_sparse_timing);
  RUN_TEST(test_pgs_planted);
  return TSR_TEST_RESULT();
}
