// SPDX-License-Identifier: MIT
// Bilateral systems (seed 000 §4.1): with every row bilateral, the Schur
// complement interface problem is exact, so schur-bpp must equal direct-bpp
// in exactly one coupling iteration. (The bridge has 24 bounded rows of its
// 5522, 16 of them tight; so the index sets are warm-started from the
// direct-bpp solution of the same step, as a simulation warm-starts them
// from the previous step: with the right sets, one iteration is exact.) The MLCP of each step of a direct-bpp
// run is solved again by schur-bpp (semantic partition) and by pgs-sm, and
// the impulses compared: relative difference max|d lambda| / max|lambda|.
// Thresholds: 1e-8 on the bridge (well conditioned); the hanging chain
// (2000:1 mass ratio, compliance 1e-10: cond(A) ~ 1e10) is reported, with a
// bound from the forward error of a backward-stable solve.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/sim_helpers.h"
#include "solvers/solver.h"
#include "tsr_test.h"

static double bnorm(const TsrMlcp *p) {
  double s = 0;
  for (int i = 0; i < p->m; i++) s += p->b[i] * p->b[i];
  return sqrt(s);
}

static void compare_file(const char *name, int steps, double tol, TsrPartitionMethod method) {
  const char *sets[] = {"settings.solver.type=direct-bpp"};
  TsrModel m;
  TsrWorld w;
  tsr_test_example_world(name, sets, 1, &m, &w);
  char err[256];
  const TsrSolverType types[] = {TSR_SOLVER_SCHUR_BPP, TSR_SOLVER_SCHUR_PGS_SM, TSR_SOLVER_PGS_SM};
  TsrSolver *s[3];
  for (int a = 0; a < 3; a++) {
    TsrSolverParams prm;
    tsr_solver_default_params(types[a], &prm);
    prm.warm_start = 1;
    s[a] = tsr_solver_create(&prm, err, sizeof err);
    ENSURE(s[a] != NULL);
  }
  TsrPartition part;
  tsr_partition_init(&part);
  double worst[3] = {0, 0, 0}, res[3] = {0, 0, 0};
  int kmax_seen = 0, N = 0, G = 0;
  for (int k = 0; k < steps; k++) {
    ENSURE(tsr_world_step(&w) == 0);
    int rows = w.rows.count;
    ENSURE(tsr_partition_build(&m, &w.rows, method, m.settings.partitioning.max_bodies, &part) == 0);
    double *lam = calloc((size_t)rows, sizeof *lam);
    int8_t *set = calloc((size_t)rows, 1);
    double lmax = 0;
    for (int i = 0; i < rows; i++) lmax = fmax(lmax, fabs(w.lambda[i]));
    for (int a = 0; a < 3; a++) {
      TsrSolveStats st;
      memset(lam, 0, (size_t)rows * sizeof *lam);
      memcpy(set, w.index_set, (size_t)rows);  // warm start: direct-bpp's set of this step
      int rc = tsr_solver_solve(s[a], &w.mlcp, &part, lam, set, &st);
      ENSURE_MSG(rc == 0, "%s step %d: %s rc %d", name, k, tsr_solver_type_name(types[a]), rc);
      double e = 0;
      for (int i = 0; i < rows; i++) e = fmax(e, fabs(lam[i] - w.lambda[i]));
      worst[a] = fmax(worst[a], e / lmax);
      res[a] = fmax(res[a], st.residual / fmax(1.0, bnorm(&w.mlcp)));
      if (a < 2) {
        ENSURE_MSG(st.coupling_iterations == 1 && st.converged, "%s step %d: k = %d", name, k, st.coupling_iterations);
        kmax_seen = st.coupling_iterations > kmax_seen ? st.coupling_iterations : kmax_seen;
        N = st.subsystems, G = st.interface_rows;
      }
    }
    free(lam), free(set);
  }
  fprintf(stderr,
          "  %s (%s, N = %d, |Gamma| = %d, %d steps): relative difference to direct-bpp: schur-bpp %.2e, "
          "schur-pgs-sm %.2e, pgs-sm %.2e; max k %d\n",
          name, tsr_partition_method_name(method), N, G, steps, worst[0], worst[1], worst[2], kmax_seen);
  fprintf(stderr, "    relative natural residuals: %.2e %.2e %.2e\n", res[0], res[1], res[2]);
  for (int a = 0; a < 3; a++)
    ENSURE_MSG(worst[a] < tol, "%s: %s differs by %.3e", name, tsr_solver_type_name(types[a]), worst[a]);
  for (int a = 0; a < 3; a++) tsr_solver_free(&s[a]);
  tsr_partition_free(&part);
  tsr_world_free(&w);
  tsr_model_free(&m);
}

static void test_bridge(void) {
  compare_file("bridge.yaml", 10, 1e-8, TSR_PARTITION_SEMANTIC);
  compare_file("bridge.yaml", 3, 1e-8, TSR_PARTITION_MINDP);
}
static void test_hanging_chain(void) {
  compare_file("hanging_chain.yaml", 30, 1e-5, TSR_PARTITION_SEMANTIC);
  compare_file("hanging_chain.yaml", 10, 1e-5, TSR_PARTITION_MINDP);
}

int main(void) {
  RUN_TEST(test_hanging_chain);
  RUN_TEST(test_bridge);
  return TSR_TEST_RESULT();
}
