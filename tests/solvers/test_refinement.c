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

#include "mlcp/mlcp.h"
#include "physics/sim_helpers.h"
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

int main(void) {
  RUN_TEST(test_free_residual);
  RUN_TEST(test_net_rows_at_roundoff);
  return tsr_test_failures ? 1 : 0;
}
