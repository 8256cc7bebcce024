// SPDX-License-Identifier: MIT
// A stiff chain under high tension in motion: the 50-link chain holding a
// 500 kg load (2000:1) starts straight down with gravity along +x, so the
// load swings as a 5.25 m pendulum released 90 degrees from its rest
// position. Truths checked over 5 s with direct-bpp:
//  - the joints hold: largest violation below 5 mm (what the velocity-level
//    step's drift allows at these speeds, ~ h^2 v^2 / L);
//  - the links move with the swing (a few rad/s), they do not spin up;
//  - energy: the load swings 180 degrees and rises on the far side to
//    within 1% of the 5.25 m drop of its release height (gravity is +x: to
//    x < 0.0525 m; measured 4.2 mm). The chain is 2.4% of the mass and SPOOK
//    damps only constraint violations. (The far side's z, 5.25 m less
//    x^2 / 10.5 m, barely tells: 4 cm short of the height is 0.15 mm of z.)
// Without geometric stiffness (sim/world.c) the same run tears the chain
// apart (links spinning at hundreds of rad/s); that is printed, not asserted.
#include "sim_helpers.h"
#include "tsr_test.h"

static void run(int geometric, double *max_err, double *max_spin, double *max_z, double *top) {
  char gs[64];
  snprintf(gs, sizeof gs, "settings.solver.geometric_stiffness=%s", geometric ? "true" : "false");
  const char *sets[] = {"settings.gravity=[9.81,0,0]", "settings.duration=5", gs};
  TsrModel m;
  TsrWorld w;
  tsr_test_example_world("hanging_chain.yaml", sets, 3, &m, &w);
  int load = tsr_model_find_body(&m, "load");
  *max_err = *max_spin = 0;
  *max_z = -1e300;
  *top = 1e300;  // the load's least x (gravity is +x) on the far side
  while (w.step < m.settings.steps) {
    if (tsr_world_step(&w) != 0) break;
    if (w.stats.joint_error > *max_err) *max_err = w.stats.joint_error;
    for (int k = 0; k < w.bodies.n; k++) *max_spin = fmax(*max_spin, tsr_v3_norm(w.bodies.w[k]));
    *max_z = fmax(*max_z, w.bodies.x[load].z);
    if (w.bodies.x[load].z > 0) *top = fmin(*top, w.bodies.x[load].x);
  }
  tsr_world_free(&w);
  tsr_model_free(&m);
}

static void test_swinging_chain(void) {
  double err, spin, z, top;
  run(1, &err, &spin, &z, &top);
  fprintf(stderr,
          "geometric stiffness on:  max joint error %.3e m, max spin %.2f rad/s, load rose to z = %.4f m, x = %.4f "
          "m\n",
          err, spin, z, top);
  ENSURE(err < 5e-3);
  ENSURE(spin < 20.0);
  ENSURE(z > 5.0 && top < 0.01 * 5.25);
  run(0, &err, &spin, &z, &top);
  fprintf(stderr, "geometric stiffness off: max joint error %.3e m, max spin %.2f rad/s\n", err, spin);
}

int main(void) {
  RUN_TEST(test_swinging_chain);
  return TSR_TEST_RESULT();
}
