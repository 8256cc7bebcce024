// SPDX-License-Identifier: MIT
// PGS with subspace minimisation (solvers/pgs_sm.c), the interface solver of
// schur-pgs-sm and a whole-system solver of its own.
//
//   planted: on random SPD MLCPs with a planted solution (test_util.h) the
//     solution is unique, so a solve that reports convergence must return
//     it, to the forward error of a backward-stable solve;
//   redundant interface row: S_Gamma = A_GG - A_Gi A_ii^-1 A_iG of a system
//     whose interface row is a combination of the internal rows (a rigid
//     closed loop) is positive semidefinite with that row's diagonal zero in
//     exact arithmetic; computed, it is round-off of either sign (schur-pgs-sm
//     once failed a step on S_ii = -8e-7 against max 2.2). PGS-SM must still
//     solve the interface MLCP (Eq. 29 residual at round-off), as BPP does.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp/mlcp.h"
#include "solvers/pgs_sm.h"
#include "solvers/solver.h"
#include "test_util.h"
#include "tsr_test.h"

static TsrSolverParams params(void) {
  TsrSolverParams sp;
  tsr_solver_default_params(TSR_SOLVER_PGS_SM, &sp);
  sp.warm_start = 0;
  sp.max_pivots = 200;
  return sp;
}

static void test_planted(void) {
  static const int sizes[] = {1, 3, 10, 40, 100};
  static const double conds[] = {1.0, 1e2, 1e4, 1e6};
  TsrSolverParams sp = params();
  TsrPgsSm *g = tsr_pgs_sm_create();
  int solved = 0, cases = 0;
  for (int si = 0; si < 5; si++)
    for (int ci = 0; ci < 4; ci++)
      for (int rep = 0; rep < 4; rep++) {
        Rng r = {(uint64_t)(1000 * si + 100 * ci + rep + 1)};
        Planted q;
        planted_dense(&r, sizes[si], conds[ci], &q);
        TsrSolveStats st = {0};
        int rc = tsr_pgs_sm_solve(&q.p, &sp, q.lambda, q.set, &st, g);
        double err, tol;
        int set_diff;
        int exact = planted_exact(&q, conds[ci], &err, &tol, &set_diff);
        cases++;
        ENSURE_MSG(rc >= 0, "n %d cond %.0e rep %d: rc %d", sizes[si], conds[ci], rep, rc);
        ENSURE_MSG(rc == 0 || conds[ci] > 1.0, "n %d cond 1 rep %d: not converged", sizes[si], rep);
        if (rc == 0) {
          solved++;
          ENSURE_MSG(exact, "n %d cond %.0e rep %d: converged, but |lambda - lambda*| %.3e (tol %.3e), %d rows off",
                     sizes[si], conds[ci], rep, err, tol, set_diff);
        }
        planted_free(&q);
      }
  // PGS guesses the index set and the subspace step solves on it. On an SPD
  // MLCP, the optimality system of a strictly convex box QP, projected
  // Gauss-Seidel converges (each row's update lowers the objective), so
  // within the pivot budget the set is found at every condition number
  // tried: all of them must converge, and (above) to the planted solution.
  fprintf(stderr, "  planted: %d of %d converged\n", solved, cases);
  ENSURE_MSG(solved == cases, "%d of %d planted problems not converged", cases - solved, cases);
  tsr_pgs_sm_free(&g);
}

extern void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b,
                   const int *ldb, int *info);

static void test_redundant_interface_row(void) {
  TsrSolverParams sp = params();
  TsrPgsSm *g = tsr_pgs_sm_create();
  int nonpositive = 0;
  for (int seed = 1; seed <= 40; seed++) {
    Rng r = {(uint64_t)seed};
    // Rows of J (velocity Jacobian, dof columns): ni internal rows, ng
    // interface rows, the last interface row a combination of internal ones.
    int ni = 6 + rng_int(&r, 10), ng = 2 + rng_int(&r, 5), dof = ni + 3, m = ni + ng;
    double *J = calloc((size_t)m * dof, sizeof *J), *A = calloc((size_t)m * m, sizeof *A);
    for (int i = 0; i < m - 1; i++)
      for (int k = 0; k < dof; k++) J[i * dof + k] = rng_normal(&r) * pow(10.0, rng_range(&r, -1.0, 1.0));
    for (int j = 0; j < ni; j++) {
      double c = rng_normal(&r);
      for (int k = 0; k < dof; k++) J[(m - 1) * dof + k] += c * J[j * dof + k];
    }
    for (int a = 0; a < m; a++)
      for (int b = 0; b < m; b++)
        for (int k = 0; k < dof; k++) A[a * m + b] += J[a * dof + k] * J[b * dof + k];
    // S = A_GG - A_Gi A_ii^-1 A_iG, computed as schur.c's blocks are.
    double *Aii = malloc((size_t)ni * ni * sizeof *Aii), *K = malloc((size_t)ni * ng * sizeof *K);
    double *S = malloc((size_t)ng * ng * sizeof *S);
    for (int i = 0; i < ni; i++) {
      for (int j = 0; j < ni; j++) Aii[i * ni + j] = A[i * m + j];
      for (int c = 0; c < ng; c++) K[c * ni + i] = A[i * m + ni + c];  // column-major, as LAPACK's B
    }
    int info, ln = ni, lr = ng;  // copies: LAPACK takes pointers
    dposv_("L", &ln, &lr, Aii, &ln, K, &ln, &info);
    ENSURE(info == 0);
    double smax = 0.0;
    for (int a = 0; a < ng; a++)
      for (int b = 0; b < ng; b++) {
        double s = A[(ni + a) * m + ni + b];
        for (int i = 0; i < ni; i++) s -= A[(ni + a) * m + i] * K[b * ni + i];
        S[a * ng + b] = s;
      }
    for (int a = 0; a < ng; a++)
      for (int b = 0; b < a; b++) S[a * ng + b] = S[b * ng + a] = 0.5 * (S[a * ng + b] + S[b * ng + a]);
    for (int k = 0; k < ng * ng; k++) smax = fmax(smax, fabs(S[k]));
    // The redundant row's diagonal is zero in exact arithmetic and round-off
    // here, of either sign (which one depends on the LAPACK): every other
    // seed takes the non-positive one, the case the old diagonal check
    // refused.
    if (seed % 2 == 0) S[ng * ng - 1] = -fabs(S[ng * ng - 1]);
    nonpositive += S[ng * ng - 1] <= 0.0;
    // Interface rows: bilateral and contact-like [0, inf); b consistent with
    // the redundancy (w of the redundant row is a combination of the others'
    // when lambda solves them), from a planted lambda.
    double *lo = malloc((size_t)ng * sizeof *lo), *hi = malloc((size_t)ng * sizeof *hi);
    double *b = calloc((size_t)ng, sizeof *b), *lam = calloc((size_t)ng, sizeof *lam);
    for (int a = 0; a < ng; a++) {
      lo[a] = a % 2 ? 0.0 : -INFINITY;
      hi[a] = INFINITY;
      lam[a] = a % 2 ? fabs(rng_normal(&r)) : rng_normal(&r);
    }
    lam[ng - 1] = 0.0;
    for (int a = 0; a < ng; a++)
      for (int c = 0; c < ng; c++) b[a] -= S[a * ng + c] * lam[c];
    TsrMlcp p;
    tsr_mlcp_init(&p);
    ENSURE(tsr_mlcp_from_dense(ng, S, b, lo, hi, &p) == 0);
    double *x = calloc((size_t)ng, sizeof *x);
    int8_t *set = calloc((size_t)ng, 1);
    TsrSolveStats st = {0};
    int rc = tsr_pgs_sm_solve(&p, &sp, x, set, &st, g);
    double res = tsr_mlcp_residual(&p, x, NULL), bn = norm2(b, ng);
    // Round-off of S is about 1e-16 cond(A_ii) smax; the residual of a
    // backward-stable solve of the shifted system is a few of those.
    ENSURE_MSG(rc == 0 && res <= 1e-8 * fmax(bn, smax), "seed %d: rc %d, residual %.3e (|b| %.3e, S_gg %.3e of %.3e)",
               seed, rc, res, bn, S[ng * ng - 1], smax);
    tsr_mlcp_free(&p);
    free(J), free(A), free(Aii), free(K), free(S), free(lo), free(hi), free(b), free(lam), free(x), free(set);
  }
  fprintf(stderr, "  redundant row: diagonal <= 0 in %d of 40\n", nonpositive);
  tsr_pgs_sm_free(&g);
}

int main(void) {
  RUN_TEST(test_planted);
  RUN_TEST(test_redundant_interface_row);
  return TSR_TEST_RESULT();
}
