// SPDX-License-Identifier: MIT
// schur-bpp with contact (seed 000 §4.2): a chain of 24 spheres, joined by
// distance joints between their centres, rolls down a plane inclined 25
// degrees (mu = 0.3), four semantic subsystems of 6 spheres. Every sphere
// has one contact, so the MLCP has no redundant rows and its solution is
// unique.
//  1. Same MLCP, two solvers: at every step of a direct-bpp run, the step's
//     MLCP is solved again by schur-bpp (cold start); on the steps where the
//     coupling iterations converge (index sets repeat), the impulses must
//     equal direct-bpp's to 1e-6 relative (max |d lambda| / max |lambda|):
//     the same index set gives the same linear system, so the difference is
//     round-off amplified by cond(A) ~ 1e6 here.
//  2. Trajectories: two runs, one with each solver, agree to 1e-6 m after
//     2 s of sliding (each step's solutions agree to round-off, and the
//     dynamics over 2 s does not amplify that beyond ~1e-9 m).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/sim_helpers.h"
#include "solvers/solver.h"
#include "tsr_test.h"

static const char *model_fmt =
    "format: tessera-model/1\n"
    "name: sphere_chain_slide\n"
    "settings: {step: 0.016666666666666666, duration: 2.0, solver: {type: %s},\n"
    "           partitioning: {method: semantic}}\n"
    "materials: [{name: m, friction: 0.3, compliance: 1.0e-9, damping: 2.0}]\n"
    "bodies:\n"
    "  - {name: slope, fixed: true, shape: {type: plane, normal: [-0.42261826174, 0, 0.90630778703], offset: 0}}\n"
    "  - name: s\n"
    "    count: 24\n"
    "    mass: 1.0\n"
    "    shape: {type: sphere, radius: 0.05}\n"
    "    position: [0, 0, 0.0551689]\n"
    "    stride: {position: [0.0906307787, 0, 0.0422618262]}\n"
    "    group: chain\n"
    "    group_every: 6\n"
    "joints:\n"
    "  - name: link\n"
    "    count: 23\n"
    "    type: distance\n"
    "    bodies: [\"s[i]\", \"s[i+1]\"]\n"
    "    anchors: [[0, 0, 0.0551689], [0.0906307787, 0, 0.0974307262]]\n"
    "    stride: {anchors: [[0.0906307787, 0, 0.0422618262], [0.0906307787, 0, 0.0422618262]]}\n";

static void test_same_mlcp(void) {
  char yaml[4096];
  snprintf(yaml, sizeof yaml, model_fmt, "direct-bpp");
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  TsrSolverParams prm;
  tsr_solver_default_params(TSR_SOLVER_SCHUR_BPP, &prm);
  prm.warm_start = 0;
  char err[256];
  TsrSolver *s = tsr_solver_create(&prm, err, sizeof err);
  ENSURE(s != NULL);
  TsrPartition part;
  tsr_partition_init(&part);
  int converged = 0, steps = 0, contacts = 0;
  double worst = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    int rows = w.rows.count;
    ENSURE(tsr_partition_build(&m, &w.rows, TSR_PARTITION_SEMANTIC, 16, &part) == 0);
    double *lam = calloc((size_t)rows + 1, sizeof *lam);
    int8_t *set = calloc((size_t)rows + 1, 1);
    TsrSolveStats st;
    tsr_solver_solve(s, &w.mlcp, &part, lam, set, &st);
    steps++;
    contacts += w.stats.contacts > 0;
    if (st.converged) {
      converged++;
      double dmax = 0, lmax = 0;
      for (int i = 0; i < rows; i++) {
        dmax = fmax(dmax, fabs(lam[i] - w.lambda[i]));
        lmax = fmax(lmax, fabs(w.lambda[i]));
      }
      if (lmax > 0 && dmax / lmax > worst) worst = dmax / lmax;
    }
    free(lam);
    free(set);
  }
  fprintf(stderr,
          "schur-bpp on direct-bpp's MLCPs: %d of %d steps converged (%d with contact), worst relative "
          "impulse difference on converged steps %.3e; subsystems %d, interface rows %d\n",
          converged, steps, contacts, worst, part.n_subsystems, part.n_interface_rows);
  ENSURE(contacts > steps / 2);   // the chain is on the slope
  ENSURE(converged > steps / 2);  // and the coupling iterations converge on most steps
  ENSURE(part.n_subsystems == 4);
  ENSURE(worst < 1e-6);
  tsr_solver_free(&s);
  tsr_partition_free(&part);
  tsr_test_world_free(&m, &w);
}

static void test_trajectories(void) {
  TsrVec3 end[2];
  double moved = 0;
  const char *solvers[2] = {"direct-bpp", "schur-bpp"};
  for (int a = 0; a < 2; a++) {
    char yaml[4096];
    snprintf(yaml, sizeof yaml, model_fmt, solvers[a]);
    TsrModel m;
    TsrWorld w;
    tsr_test_world(yaml, NULL, 0, &m, &w);
    TsrVec3 x0 = w.bodies.x[12];
    while (w.step < m.settings.steps) ENSURE(tsr_world_step(&w) == 0);
    end[a] = w.bodies.x[12];
    moved = tsr_v3_norm(tsr_v3_sub(end[a], x0));
    tsr_test_world_free(&m, &w);
  }
  double d = tsr_v3_norm(tsr_v3_sub(end[0], end[1]));
  fprintf(stderr, "after 2 s: the middle sphere moved %.4f m; direct-bpp and schur-bpp positions differ by %.3e m\n",
          moved, d);
  ENSURE(moved > 0.5);  // rolling: a = (5/7) g sin 25 = 2.96 m/s^2, ~5.9 m in 2 s
  ENSURE(d < 1e-6);
}

int main(void) {
  RUN_TEST(test_same_mlcp);
  RUN_TEST(test_trajectories);
  return TSR_TEST_RESULT();
}
