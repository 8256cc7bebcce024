// SPDX-License-Identifier: MIT
// Friction from the first step: a model set down at rest on a slope below its
// friction angle (and below its tipping angle) stays at rest, whatever holds
// it up.
//
// The first step has no lambda_n of a step before, so every friction bound
// is an estimate from the free velocities (src/contact/rows.c). Where both
// bodies of a contact fall together in v_free, the estimate sees no load:
// the upper boxes of a stack, a box on a plank held by a joint. Their
// friction was 0 in that step, and they slid g sin(theta) h^2 (0.93 mm at
// 20 degrees, h = 1/60) before the next step's bounds held them, for good.
// The first step is now solved again with the bounds of its own lambda_n
// (src/sim/world.c refresh_friction).
//
// What is checked, direct-bpp and schur-bpp (PGS stops at its own
// tolerance): over 1 s every box stays within 1 um of where it was set
// down. The contacts' compliance (1e-9 m/N) under these loads (at most 60 N
// through a contact) deflects them by 6e-8 m: the bound is 15 times that,
// and 900 times below the old first step's slip.
//   - two and three 2 kg boxes stacked on a plane slope of 20 and 10
//     degrees, mu 0.6 (tan 20 = 0.36; a stack of n boxes 0.2 m wide tips
//     at tan theta = 1 / n), at two azimuths;
//   - a 2 kg box on a 50 kg plank welded to the world (a fixed joint), and
//     on one hung from the world by a ball joint at its centre of mass and
//     a hinge whose axis runs through it (held as by a weld, by two
//     different joints).
#include <math.h>
#include <string.h>

#include "sim_helpers.h"
#include "tsr_test.h"

static const char *const SOLVERS[] = {"direct-bpp", "schur-bpp"};
#define BOUND 1e-6  // m

// The orientation that turns z onto the slope's normal n: about z x n.
static void tilt(double th, double az, char *buf, size_t len) {
  snprintf(buf, len, "{axis: [%.17g, %.17g, 0], angle: %.17g}", -sin(az), cos(az), th);
}

// Largest distance any moving body went from its start over the run.
static double largest_drift(TsrWorld *w, const TsrModel *m) {
  int n = w->bodies.n;
  TsrVec3 *x0 = malloc((size_t)n * sizeof *x0);
  ENSURE(x0 != NULL);
  for (int k = 0; k < n; k++) x0[k] = w->bodies.x[k];
  double worst = 0.0;
  while (w->step < m->settings.steps) {
    ENSURE(tsr_world_step(w) == 0);
    for (int k = 0; k < n; k++) worst = fmax(worst, tsr_v3_norm(tsr_v3_sub(w->bodies.x[k], x0[k])));
  }
  free(x0);
  return worst;
}

static void stack(int boxes, double th_deg, double az_deg, const char *solver) {
  const double th = th_deg * M_PI / 180, az = az_deg * M_PI / 180, hs = 0.1;
  const TsrVec3 n = tsr_v3(sin(th) * cos(az), sin(th) * sin(az), cos(th));
  char ori[160], yaml[4096];
  tilt(th, az, ori, sizeof ori);
  int len = snprintf(yaml, sizeof yaml,
                     "format: tessera-model/1\nname: stack\n"
                     "settings: {step: %.17g, steps: 60, solver: {type: %s}}\n"
                     "materials: [{name: m, friction: 0.6, compliance: 1.0e-9, damping: 2.0}]\n"
                     "bodies:\n"
                     "  - {name: slope, fixed: true, shape: {type: plane, normal: [%.17g, %.17g, %.17g], offset: 0}}\n",
                     1.0 / 60, solver, n.x, n.y, n.z);
  for (int k = 0; k < boxes; k++) {
    double d = hs + 2 * hs * k;
    len += snprintf(yaml + len, sizeof yaml - (size_t)len,
                    "  - {name: box%d, mass: 2.0, shape: {type: box, size: [0.2, 0.2, 0.2]}, position: [%.17g, %.17g, "
                    "%.17g], orientation: %s}\n",
                    k, d * n.x, d * n.y, d * n.z, ori);
  }
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  double drift = largest_drift(&w, &m);
  fprintf(stderr, "%-10s %d boxes on a %2.0f degree slope facing %3.0f: largest drift %.3e m\n", solver, boxes, th_deg,
          az_deg, drift);
  ENSURE(drift <= BOUND);
  tsr_test_world_free(&m, &w);
}

// A box on a tilted plank held by joints: "weld" (a fixed joint) or
// "ball+hinge" (a ball joint at the plank's centre and a hinge through it).
static void plank(const char *held, double th_deg, const char *solver) {
  const double th = th_deg * M_PI / 180, az = 0.7;
  const TsrVec3 n = tsr_v3(sin(th) * cos(az), sin(th) * sin(az), cos(th));
  const TsrVec3 c = tsr_v3(0.3, -0.2, 1.0);  // the plank's centre, in the air
  char ori[160], joints[512], yaml[4096];
  tilt(th, az, ori, sizeof ori);
  if (!strcmp(held, "weld"))
    snprintf(joints, sizeof joints,
             "  - {name: weld, type: fixed, bodies: [world, plank], anchor: [%.17g, %.17g, %.17g]}\n", c.x, c.y, c.z);
  else
    snprintf(joints, sizeof joints,
             "  - {name: ball, type: ball, bodies: [world, plank], anchor: [%.17g, %.17g, %.17g]}\n"
             "  - {name: hinge, type: hinge, bodies: [world, plank], anchor: [%.17g, %.17g, %.17g], axis: [%.17g, "
             "%.17g, %.17g]}\n",
             c.x, c.y, c.z, c.x, c.y, c.z, n.x, n.y, n.z);
  const double d = 0.05 + 0.1;  // the plank's half thickness and the box's half size
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\nname: plank\n"
           "settings: {step: %.17g, steps: 60, solver: {type: %s}}\n"
           "materials: [{name: m, friction: 0.6, compliance: 1.0e-9, damping: 2.0}]\n"
           "bodies:\n"
           "  - {name: plank, mass: 50.0, shape: {type: box, size: [2.0, 1.0, 0.1]}, position: [%.17g, %.17g, %.17g], "
           "orientation: %s}\n"
           "  - {name: box, mass: 2.0, shape: {type: box, size: [0.2, 0.2, 0.2]}, position: [%.17g, %.17g, %.17g], "
           "orientation: %s}\n"
           "joints:\n%s",
           1.0 / 60, solver, c.x, c.y, c.z, ori, c.x + d * n.x, c.y + d * n.y, c.z + d * n.z, ori, joints);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  double drift = largest_drift(&w, &m);
  fprintf(stderr, "%-10s box on a plank held by %-10s at %2.0f degrees: largest drift %.3e m\n", solver, held, th_deg,
          drift);
  ENSURE(drift <= BOUND);
  tsr_test_world_free(&m, &w);
}

static void test_stacks(void) {
  for (int s = 0; s < 2; s++) {
    stack(2, 20, 0, SOLVERS[s]);
    stack(2, 20, 143, SOLVERS[s]);
    stack(3, 10, 250, SOLVERS[s]);
  }
}

static void test_planks(void) {
  for (int s = 0; s < 2; s++) {
    plank("weld", 20, SOLVERS[s]);
    plank("ball+hinge", 20, SOLVERS[s]);
  }
}

int main(void) {
  RUN_TEST(test_stacks);
  RUN_TEST(test_planks);
  return tsr_test_failures ? 1 : 0;
}
