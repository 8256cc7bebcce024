// SPDX-License-Identifier: MIT
// Iterative refinement of the free-set solves (Eqs. 27-28), which BPP,
// PGS-SM and the Schur blocks skip when the componentwise backward error of
// the first solve is already at round-off (TSR_MLCP_REFINED_BERR, mlcp.h).
//
// 1. tsr_mlcp_free_residual against an independent dense computation of
//    r = rhs - A_FF x and of the Oettli-Prager backward error
//    max_k |r_k| / (|rhs_k| + sum_j |A_kj| |x_j|), on random sparse
//    symmetric matrices and random free sets, from the CSC arrays and from
//    p->dense (which must give the same sums in the same order).
// 3. The shifted refinement (a singular A_FF factorised as A_FF + delta I)
//    never returns an iterate whose residual |rhs - A_FF x|_inf, computed
//    here densely, exceeds that of its first solve: a step that raised it
//    is undone (on indefinite and nonsymmetric singular matrices the
//    shifted steps can diverge; the last of them was kept).
// 2. The refinement where it matters: net_with_truck (cables of 0.1-0.5 kg
//    knots holding an 8 t truck, compliance 1e-10) has first solves whose
//    backward error is 1e-14..1e-12. With refinement every row ends at
//    round-off of its own scale (tsr_mlcp_relative_residual at most 4.4e-16
//    over the first 60 steps); with no refinement at all it was 1.5e-11 to
//    4e-11 on steps 1-16. Checked on the first 6 steps with direct-bpp:
//    every row within 1e-13 of its own scale.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/chol.h"
#include "mlcp/mlcp.h"
#include "physics/sim_helpers.h"
#include "solvers/bpp.h"
#include "model/model.h"
#include "sim/world.h"
#include "test_util.h"
#include "tsr_test.h"

// Random symmetric m x m matrix with about `per_col` off-diagonal entries per
// column, as CSC (both triangles) and as a dense column-major array.
static void random_sym(Rng *r, int m, int per_col, TsrMlcp *p, double *dense) {
  memset(dense, 0, (size_t)m * m * sizeof *dense);
  for (int j = 0; j < m; j++) {
    dense[(size_t)j * m + j] = rng_range(r, 1e-3, 1e3);
    for (int k = 0; k < per_col; k++) {
      int i = rng_int(r, m);
      double v = rng_normal(r) * pow(10.0, rng_range(r, -4, 4));
      dense[(size_t)j * m + i] = dense[(size_t)i * m + j] = v;
    }
  }
  double *row_major = malloc((size_t)m * m * sizeof *row_major);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) row_major[(size_t)i * m + j] = dense[(size_t)j * m + i];
  ENSURE(tsr_mlcp_from_dense(m, row_major, NULL, NULL, NULL, p) == 0);
  free(row_major);
}

static void test_free_residual(void) {
  Rng r = {7};
  for (int trial = 0; trial < 50; trial++) {
    int m = 5 + rng_int(&r, 60);
    TsrMlcp p;
    tsr_mlcp_init(&p);
    double *dense = malloc((size_t)m * m * sizeof *dense);
    random_sym(&r, m, 1 + rng_int(&r, 4), &p, dense);
    int *F = malloc((size_t)m * sizeof *F), *loc = malloc((size_t)m * sizeof *loc), nf = 0;
    for (int i = 0; i < m; i++) loc[i] = rng_uniform(&r) < 0.7 ? (F[nf] = i, nf++) : -1;
    double *x = malloc((size_t)m * sizeof *x), *rhs = malloc((size_t)m * sizeof *rhs);
    double *res = malloc((size_t)m * sizeof *res), *res2 = malloc((size_t)m * sizeof *res2);
    double *sc = malloc((size_t)m * sizeof *sc);
    for (int k = 0; k < nf; k++) x[k] = rng_normal(&r) * pow(10.0, rng_range(&r, -3, 3)), rhs[k] = rng_normal(&r);
    if (trial % 5 == 0 && nf > 0) rhs[0] = 0.0, x[0] = 0.0;  // a row of zeros: no 0/0
    double berr = tsr_mlcp_free_residual(&p, F, nf, loc, x, rhs, res, sc);
    double want = 0.0;
    for (int k = 0; k < nf; k++) {
      long double rk = rhs[k], s = fabs(rhs[k]);
      for (int c = 0; c < nf; c++) {
        double a = dense[(size_t)F[c] * m + F[k]];
        rk -= (long double)a * x[c];
        s += fabsl((long double)a * x[c]);
      }
      ENSURE_NEAR(res[k], (double)rk, 1e-12 * (double)s + 1e-300);
      if (s > 0) want = fmax(want, (double)(fabsl(rk) / s));
    }
    // r is computed in double: |r_k| is known to within a few ulps of s_k
    ENSURE_NEAR(berr, want, 1e-14);
    p.dense = dense;
    double berr2 = tsr_mlcp_free_residual(&p, F, nf, loc, x, rhs, res2, sc);
    ENSURE(berr2 == berr);
    ENSURE(memcmp(res, res2, (size_t)nf * sizeof *res) == 0);
    p.dense = NULL;
    free(dense), free(F), free(loc), free(x), free(rhs), free(res), free(res2), free(sc);
    tsr_mlcp_free(&p);
  }
}

static void test_net_rows_at_roundoff(void) {
  const char *over[] = {"settings.solver.type=direct-bpp", "settings.solver.threads=1"};
  TsrModel m;
  TsrWorld w;
  tsr_test_example_world("net_with_truck.yaml", over, 2, &m, &w);
  double *slack = NULL, *sigma = NULL;
  for (int step = 0; step < 6; step++) {
    ENSURE(tsr_world_step(&w) == 0);
    int n = w.mlcp.m;
    slack = realloc(slack, (size_t)n * sizeof *slack);
    sigma = realloc(sigma, (size_t)n * sizeof *sigma);
    double rho = tsr_mlcp_relative_residual_of(&w.mlcp, w.lambda, slack, sigma);
    ENSURE_MSG(rho <= 1e-13, "step %d: a row at %.3e of its own scale", step + 1, rho);
  }
  free(slack), free(sigma);
  tsr_world_free(&w);
  tsr_model_free(&m);
}

// |rhs - A x|_inf, A dense column-major m x m.
static double dense_residual(int m, const double *A, const double *x, const double *rhs) {
  double worst = 0.0;
  for (int i = 0; i < m; i++) {
    double v = rhs[i];
    for (int j = 0; j < m; j++) v -= A[(size_t)j * m + i] * x[j];
    worst = fmax(worst, fabs(v));
  }
  return worst;
}

static void test_shifted_never_worse(void) {
  Rng r = {11};
  int raised = 0, trials = 600;
  for (int trial = 0; trial < trials; trial++) {
    int m = 2 + rng_int(&r, 11), kind = rng_int(&r, 3), rank = 1 + rng_int(&r, m - 1);
    double *A = calloc((size_t)m * m, sizeof *A), *rm = malloc((size_t)m * m * sizeof *rm);
    if (kind == 0) {  // symmetric positive semidefinite of rank < m
      for (int k = 0; k < rank; k++) {
        double u[16];
        for (int i = 0; i < m; i++) u[i] = rng_normal(&r);
        for (int i = 0; i < m; i++)
          for (int j = 0; j < m; j++) A[(size_t)j * m + i] += u[i] * u[j];
      }
    } else {  // rank-deficient indefinite symmetric (kind 1) or nonsymmetric (kind 2): U V^T
      double *U = malloc((size_t)m * rank * sizeof *U), *V = malloc((size_t)m * rank * sizeof *V);
      for (int k = 0; k < m * rank; k++) U[k] = rng_normal(&r), V[k] = rng_normal(&r);
      for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
          for (int k = 0; k < rank; k++)
            A[(size_t)j * m + i] += kind == 1 ? U[i * rank + k] * U[j * rank + k] * (k % 2 ? -1.0 : 1.0)
                                              : U[i * rank + k] * V[j * rank + k];
      free(U), free(V);
    }
    double amax = 0.0;
    for (int k = 0; k < m * m; k++) amax = fmax(amax, fabs(A[k]));
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++) rm[(size_t)i * m + j] = A[(size_t)j * m + i];
    TsrMlcp p;
    tsr_mlcp_init(&p);
    ENSURE(tsr_mlcp_from_dense(m, rm, NULL, NULL, NULL, &p) == 0);
    int F[16], loc[16];
    double rhs[16], x[16], res[32], scale[16];
    for (int i = 0; i < m; i++) F[i] = loc[i] = i, rhs[i] = rng_normal(&r);  // (in A's range or not)
    TsrChol *ch = tsr_chol_create();
    ENSURE(ch && tsr_chol_set_matrix(m, p.Ap, p.Ai, p.Ax, p.symmetric, ch) == 0);
    double shift = amax * pow(10.0, rng_range(&r, -10.0, -1.0));
    if (tsr_chol_factor_shifted(F, m, shift, ch) == 0 && tsr_chol_solve(rhs, x, ch) == 0) {
      double r0 = dense_residual(m, A, x, rhs);
      int rc = tsr_bpp_refine(&p, F, m, loc, rhs, x, res, scale, ch, 1);
      double r1 = dense_residual(m, A, x, rhs);
      ENSURE(rc >= 0);
      if (!(r1 <= r0 * (1.0 + 1e-12) + 1e-300)) {
        raised++;
        fprintf(stderr, "trial %d (kind %d, m %d, rank %d, shift %.1e amax): |r| %.3e -> %.3e\n", trial, kind, m, rank,
                shift / amax, r0, r1);
      }
    }
    tsr_chol_free(&ch);
    tsr_mlcp_free(&p);
    free(A), free(rm);
  }
  ENSURE_MSG(raised == 0, "%d of %d shifted refinements returned a larger residual than their first solve", raised,
             trials);
}

int main(void) {
  RUN_TEST(test_free_residual);
  RUN_TEST(test_shifted_never_worse);
  RUN_TEST(test_net_rows_at_roundoff);
  return tsr_test_failures ? 1 : 0;
}
