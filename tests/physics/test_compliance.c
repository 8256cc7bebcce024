// SPDX-License-Identifier: MIT
// A compliant joint under a static load stretches by compliance x load
// (ARCHITECTURE.md: the SPOOK mapping of joints/spook.h). A 10 kg body hangs
// from the world by a ball joint (and, separately, a distance joint) of
// compliance eps; at rest the joint carries m g and must stretch by eps m g,
// whatever the step h and the damping d. Once the transient has decayed (its
// per-step factor is sqrt(4d/(1+4d)) < 1) the match is to round-off: after
// the 6 s, the slowest case (h = 1/60, d = 2: 360 steps of sqrt(8/9)) keeps
// 6.6e-10 of its initial stretch error; 1e-8 relative.
#include "sim_helpers.h"
#include "tsr_test.h"

static double settled_stretch(const char *type, double eps, double h, double d) {
  char yaml[2048];
  const char *extra =
      !strcmp(type, "distance") ? "    anchors: [[0, 0, 0], [0, 0, -0.5]]\n" : "    anchor: [0, 0, 0]\n";
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: spring\n"
           "settings: {step: %.17g, duration: 6.0}\n"
           "bodies:\n"
           "  - name: weight\n"
           "    mass: 10.0\n"
           "    shape: {type: sphere, radius: 0.1}\n"
           "    position: [0, 0, -0.5]\n"
           "joints:\n"
           "  - name: j\n"
           "    type: %s\n"
           "    bodies: [world, weight]\n"
           "%s"
           "    compliance: %.17g\n"
           "    damping: %.17g\n",
           h, type, extra, eps, d);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  while (w.step < m.settings.steps) ENSURE(tsr_world_step(&w) == 0);
  double s = -0.5 - w.bodies.x[0].z;
  tsr_test_world_free(&m, &w);
  return s;
}

static void test_static_stretch(void) {
  const double F = 10.0 * 9.81;
  const char *types[] = {"ball", "distance"};
  const double eps[] = {1e-5, 1e-7};
  const double hs[] = {1.0 / 60, 1.0 / 240};
  const double ds[] = {2.0, 0.5};
  for (int t = 0; t < 2; t++)
    for (int e = 0; e < 2; e++)
      for (int k = 0; k < 2; k++) {
        double s = settled_stretch(types[t], eps[e], hs[k], ds[k]);
        fprintf(stderr, "%-8s eps %.0e h %.4f d %.1f: stretch %.6e m, eps F = %.6e m\n", types[t], eps[e], hs[k], ds[k],
                s, eps[e] * F);
        ENSURE(fabs(s - eps[e] * F) < 1e-8 * eps[e] * F);
      }
}

// Two distance joints between the world and the weight along the same line,
// of rest lengths L1 < L2: compliant, they act as two springs that fight, and
// at rest (L - L1) / eps + (L - L2) / eps = m g puts the weight at L =
// (L1 + L2) / 2 + eps m g / 2, every step solved. Without compliance they
// ask for two lengths at once, A = J M^-1 J^T is singular with b outside its
// range, and no impulses solve the MLCP: no exact solver may report a step
// converged (solver.c, SOLVED_AT_DATA; before it, direct-bpp, schur-bpp and
// fbic reported every step solved with impulses of 1e12 N s).
static void fighting_springs(const char *solver, double eps, int steps, double *length, int *converged) {
  char yaml[2048];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: fighting_springs\n"
           "settings: {step: 0.01, duration: %.17g, solver: {type: %s}}\n"
           "bodies:\n"
           "  - {name: weight, mass: 10.0, shape: {type: sphere, radius: 0.1}, position: [0, 0, -0.5]}\n"
           "joints:\n"
           "  - {name: short, type: distance, bodies: [world, weight], anchors: [[0, 0, 0], [0, 0, -0.5]],\n"
           "     length: 0.5, compliance: %.17g}\n"
           "  - {name: long, type: distance, bodies: [world, weight], anchors: [[0, 0, 0], [0, 0, -0.5]],\n"
           "     length: 0.6, compliance: %.17g}\n",
           0.01 * steps, solver, eps, eps);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  *converged = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    *converged += w.solve_stats.converged != 0;
  }
  *length = -w.bodies.x[0].z;
  tsr_test_world_free(&m, &w);
}

static void test_fighting_springs(void) {
  const char *solvers[] = {"direct-bpp", "pgs-sm", "schur-bpp", "schur-pgs-sm", "fbic"};
  const double F = 10.0 * 9.81, eps = 1e-7, rest = 0.55 + 0.5 * eps * F;
  for (int k = 0; k < 5; k++) {
    double length;
    int conv;
    fighting_springs(solvers[k], eps, 600, &length, &conv);
    fprintf(stderr, "%-12s eps %.0e: length %.12f m, expected %.12f m, %d of 600 steps converged\n", solvers[k], eps,
            length, rest, conv);
    ENSURE_MSG(conv == 600, "%s: %d of 600 steps converged", solvers[k], conv);
    ENSURE_MSG(fabs(length - rest) < 1e-3 * 0.5 * eps * F, "%s: length %.12f", solvers[k], length);
    fighting_springs(solvers[k], 0.0, 20, &length, &conv);
    fprintf(stderr, "%-12s eps 0: %d of 20 steps converged\n", solvers[k], conv);
    ENSURE_MSG(conv == 0, "%s reported %d of 20 steps solved; no solution exists", solvers[k], conv);
  }
}

// Two bodies in different subsystems (groups A and B), a held by the world
// with a fixed joint and b held by a with a fixed joint and a ball joint,
// all without compliance: 9 interface rows of rank 6, a singular S_Gamma.
// Nothing moves, so b must stay where it is. schur-bpp let the interface
// impulses run off along S_Gamma's null space (|A||lambda| 3e28 |b|) and b
// jumped 1.76 m at step 4, every step "converged"; since solver.c
// SCHUR_CANCEL_MAX such a step is solved again by direct-bpp. Doubled rigid
// joints without compliance stay ill-posed for every solver over long runs
// (direct-bpp's own run of this model blows up after about a thousand
// steps; the default compliance, 1e-10, keeps it well posed): 20 steps.
// Run with geometric stiffness (the default) and without. With it, the
// rows' impulses are taken for forces, and here they run along the null
// space (a's inertia grew by 1e6 to 3e18 kg m^2 in some steps, which steps
// depending on rounding): schur-pgs-sm moved b 2e-7 or 9e-6 m by that
// luck, so 1e-4 m there, which still tells the fallback's work (without it
// schur-bpp moved b 0.13 m, schur-pgs-sm 0.015 m). Without geometric
// stiffness all three hold b within 2.0e-9 m: 1e-6.
static void test_doubled_rigid_joints(void) {
  static const char *const solvers[] = {"direct-bpp", "schur-bpp", "schur-pgs-sm"};
  for (int gs = 0; gs < 2; gs++)
    for (int k = 0; k < 3; k++) {
      char yaml[1400];
      snprintf(yaml, sizeof yaml,
               "format: tessera-model/1\n"
               "name: doubled\n"
               "settings: {steps: 20, solver: {type: %s, geometric_stiffness: %s}}\n"
               "bodies:\n"
               "  - {name: a, mass: 1.0, shape: {type: box, size: [0.1, 0.1, 0.1]}, position: [0, 0, -0.1], group: A}\n"
               "  - {name: b, mass: 1.0, shape: {type: box, size: [0.1, 0.1, 0.1]}, position: [0.2, 0, -0.1], "
               "group: B}\n"
               "joints:\n"
               "  - {name: top, type: fixed, bodies: [world, a]}\n"
               "  - {name: f, type: fixed, bodies: [a, b], compliance: 0}\n"
               "  - {name: g, type: ball, bodies: [a, b], anchor: [0.1, 0, -0.1], compliance: 0}\n",
               solvers[k], gs ? "true" : "false");
      TsrModel m;
      TsrWorld w;
      tsr_test_world(yaml, NULL, 0, &m, &w);
      double moved = 0.0;
      while (w.step < m.settings.steps) {
        ENSURE(tsr_world_step(&w) == 0);
        TsrVec3 d = tsr_v3_sub(w.bodies.x[1], tsr_v3(0.2, 0, -0.1));
        moved = fmax(moved, tsr_v3_norm(d));
      }
      fprintf(stderr, "%-13s geometric stiffness %-3s: b moved %.3e m in %ld steps\n", solvers[k], gs ? "on" : "off",
              moved, w.step);
      ENSURE(moved < (gs && k == 2 ? 1e-4 : 1e-6));
      tsr_test_world_free(&m, &w);
    }
}

int main(void) {
  RUN_TEST(test_static_stretch);
  RUN_TEST(test_fighting_springs);
  RUN_TEST(test_doubled_rigid_joints);
  return TSR_TEST_RESULT();
}
