// SPDX-License-Identifier: MIT
// A light body struck within a step into a body it had no contact with
// (contact/recollide.c). A 1,000 kg block sliding at 6 m/s meets a 2 kg
// body 1 cm ahead of it, and a second 2 kg body waits 5 cm beyond. In the
// step they meet, the struck body leaves at the block's ~6 m/s, 10 cm in
// the step, but its contacts were made at its speed before (at rest: a
// reach of |g| h^2 = 2.7 mm), so nothing stood between it and the second
// body: it went 5 cm into it before the next step's contact pushed it out
// (the blow of a 10 kg box under a 1,000 kg rock in large_rock_pile, of
// rock_pile's 37 mm). Detecting again at the solved velocities finds the
// second body and the step is solved again with that contact. Over the
// struck and waiting bodies as boxes, cylinders lying across and spheres,
// the row turned about the vertical (no alignment with the world's axes),
// the truths checked are:
//   * the struck body never goes more than 5 mm into the waiting one (the
//     depth of their contacts, made at the start of each step). Their
//     speculative contact stops the gap closing beyond itself within the
//     step, so what is left is the contact's compliance under the block's
//     push and a step's gravity: measured 0.00 mm in every case; without
//     the second detection (TSR_RECOLLIDE=0) 39.8 mm in every case (the
//     struck body is driven 9 cm in the step whatever its shape);
//   * the waiting body is pushed on: it ends moving along with the block
//     (at least half its 6 m/s; there is no friction): measured 5.98 m/s.
#include <math.h>

#include "sim_helpers.h"
#include "tsr_test.h"

static void strike(const char *shape, double half, int lying, double turn_deg) {
  const double c = cos(turn_deg * M_PI / 180.0), s = sin(turn_deg * M_PI / 180.0);
  // the struck and waiting bodies' orientation: turned about the vertical,
  // after a quarter turn about x when lying (a cylinder's axis across the row)
  const double cz = cos(turn_deg * M_PI / 360.0), sz = sin(turn_deg * M_PI / 360.0);
  const double cx = lying ? sqrt(0.5) : 1.0, sx = lying ? sqrt(0.5) : 0.0;
  char q[160];
  snprintf(q, sizeof q, "[%.17g, %.17g, %.17g, %.17g]", cz * cx, cz * sx, sz * sx, sz * cx);
  // along the direction (c, s): the block's front face at 0, the struck
  // body 1 cm ahead, the waiting one 5 cm beyond it
  const double x1 = 0.01 + half, x2 = x1 + 2.0 * half + 0.05, xb = -0.3;
  char yaml[1600];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: struck\n"
           "settings: {step: 0.016666666666666666, duration: 0.25, contact: {margin: 0.005}}\n"
           "materials: [{name: m, friction: 0.0}]\n"
           "bodies:\n"
           "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0}}\n"
           "  - {name: block, mass: 1000, shape: {type: box, size: [0.6, 0.6, 0.6]}, position: [%.17g, %.17g, 0.3],\n"
           "     orientation: {axis: [0, 0, 1], angle_deg: %g}, velocity: [%.17g, %.17g, 0]}\n"
           "  - {name: struck, mass: 2, shape: %s, position: [%.17g, %.17g, %.17g], orientation: %s}\n"
           "  - {name: waiting, mass: 2, shape: %s, position: [%.17g, %.17g, %.17g], orientation: %s}\n",
           xb * c, xb * s, turn_deg, 6.0 * c, 6.0 * s, shape, x1 * c, x1 * s, half, q, shape, x2 * c, x2 * s, half, q);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  double deepest = 0.0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    for (int i = 0; i < w.contacts.n; i++) {
      const TsrContact *k = &w.contacts.c[i];
      if (k->body[0] == 2 && k->body[1] == 3) deepest = fmax(deepest, k->depth);
    }
  }
  const double along = w.bodies.v[3].x * c + w.bodies.v[3].y * s;
  fprintf(stderr, "%-48s turned %4g deg: deepest %.2f mm, waiting body at %.2f m/s\n", shape, turn_deg, 1e3 * deepest,
          along);
  ENSURE_MSG(deepest < 5e-3, "%s turned %g deg: the struck body went %.1f mm into the waiting one", shape, turn_deg,
             1e3 * deepest);
  ENSURE_MSG(along > 3.0, "%s turned %g deg: the waiting body moves at %.2f m/s", shape, turn_deg, along);
  tsr_test_world_free(&m, &w);
}

static void test_struck_into_a_neighbour(void) {
  static const struct {
    const char *shape;
    double half;  // half its extent along the row and its height
    int lying;
  } cases[] = {
      {"{type: box, size: [0.2, 0.3, 0.2]}", 0.1, 0},
      {"{type: cylinder, radius: 0.1, length: 0.5}", 0.1, 1},
      {"{type: sphere, radius: 0.1}", 0.1, 0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
    for (int t = 0; t < 2; t++) strike(cases[k].shape, cases[k].half, cases[k].lying, t ? 31.0 : 0.0);
}

int main(void) {
  RUN_TEST(test_struck_into_a_neighbour);
  return TSR_TEST_RESULT();
}
