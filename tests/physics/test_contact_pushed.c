// SPDX-License-Identifier: MIT
// A light body driven into the ground by a heavy one within one step. A
// 500 kg block comes down at 12 m/s onto a 3 kg rod lying 8 cm above the
// ground: in the step it meets the rod, it drives the rod 8 cm down onto
// the ground. The rod's own motion reaches 3 mm in a step, so nothing met
// the ground first: the rod went 10 cm into it and the block was thrown
// back up (collide.c, "Pushers"). The push grows the rod's reach against
// fixed shapes by what the impact can add to its speed (the closing speed
// times m_block / (m_rod + m_block)), which finds the ground before the
// rod gets there. Over every shape that can lie under the block (a cylinder, a thin
// box, a capsule, a ball), a box floor and a plane, and mass ratios
// 167:1, 5000:1 and 10:1, with the rod's axis and the block turned about
// the vertical (no alignment with the world's axes), the truths checked
// are:
//   * the pushed body's lowest point never goes more than 5 mm into the
//     ground (before: 4.5-32 cm under the 500 and 5,000 kg blocks, 1.1-1.8
//     cm under the 200 kg one). It meets the ground at up to the 4.8 m/s
//     that closes its 8 cm gap in one step; its speculative contact stops
//     it at the surface, and a violated contact does not close further
//     (spook.h), so what is left is the block's load on the ground's
//     compliance and the step in which the two meet: measured 0.02-1.7 mm
//     (0.9-1.1 cm when this test was written);
//   * it ends on the ground: its lowest point within 0.1 mm of it (before:
//     a 1 kg rod was thrown 0.57 m up and away);
//   * under the block the thin box is not gone through: the block's lowest
//     corner never more than 5 mm below the box's top (measured 0.1-0.8 mm;
//     before: 4.5-14 cm, two
//     boxes face to face with no corner of either over the other's face,
//     tsr_solid_box_faces), and it ends resting on it within 0.1 mm, both
//     at rest.
#include <math.h>

#include "sim_helpers.h"
#include "tsr_test.h"

enum { ROD, PLATE, CAPSULE, BALL };

static void push(int plane, int shape, double mass, double block, double speed) {
  static const char *const names[] = {"rod", "plate", "capsule", "ball"};
  static const char *const shapes[] = {
      "{type: cylinder, radius: 0.05, length: 1.2}, orientation: {axis: [0.6, 0.8, 0], angle_deg: 90}",
      "{type: box, size: [0.8, 0.5, 0.04]}, orientation: {axis: [0, 0, 1], angle_deg: 23}",
      "{type: capsule, radius: 0.05, length: 1.0}, orientation: {axis: [0.6, 0.8, 0], angle_deg: 90}",
      "{type: sphere, radius: 0.08}"};
  static const double half[] = {0.05, 0.02, 0.05, 0.08};  // half height, lying as placed
  char shape_text[160];
  snprintf(shape_text, sizeof shape_text, "%s", shapes[shape]);
  // "shape: {...}, orientation: ..." : split the shape map from the rest
  char *rest = strstr(shape_text, "}, ");
  const char *tail = "";
  if (rest) rest[1] = '\0', tail = rest + 3;
  const double z1 = half[shape] + 0.08, z2 = z1 + half[shape] + 0.005 + 0.2;
  char yaml[1200];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: pushed\n"
           "settings: {step: 0.016666666666666666, duration: 1.0}\n"
           "materials: [{name: m, friction: 0.5}]\n"
           "bodies:\n"
           "  - {name: ground, fixed: true, %s}\n"
           "  - {name: pushed, mass: %g, shape: %s, position: [0.05, -0.03, %.17g]%s%s}\n"
           "  - {name: block, mass: %g, shape: {type: box, size: [0.6, 0.6, 0.4]}, position: [0, 0, %.17g],\n"
           "     orientation: {axis: [0, 0, 1], angle_deg: 37}, velocity: [0, 0, %g]}\n",
           plane ? "shape: {type: plane, normal: [0, 0, 1], offset: 0}"
                 : "shape: {type: box, size: [10, 10, 1]}, position: [0, 0, -0.5]",
           mass, shape_text, z1, *tail ? ", " : "", tail, block, z2, -speed);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  double deepest = INFINITY, through = INFINITY, lo, hi, blo, bhi;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    tsr_test_z_range(&w, &m, 1, &lo, &hi);
    tsr_test_z_range(&w, &m, 2, &blo, &bhi);
    deepest = fmin(deepest, lo);
    through = fmin(through, blo - hi);
  }
  tsr_test_z_range(&w, &m, 1, &lo, &hi);
  tsr_test_z_range(&w, &m, 2, &blo, &bhi);
  double v = tsr_v3_norm(w.bodies.v[1]);
  const char *on = plane ? "plane" : "box floor";
  fprintf(stderr, "%-7s %4g kg under %4g kg at %2g m/s on a %-9s: deepest %+.2f mm, rests %+.3f mm (|v| %.1e)",
          names[shape], mass, block, speed, on, 1e3 * deepest, 1e3 * lo, v);
  if (shape == PLATE) fprintf(stderr, "; block %+.2f mm, rests %+.3f mm", 1e3 * through, 1e3 * (blo - hi));
  fprintf(stderr, "\n");
  ENSURE_MSG(deepest > -5e-3, "%s under %g kg on a %s: %.1f mm into the ground", names[shape], block, on,
             -1e3 * deepest);
  ENSURE_MSG(fabs(lo) < 1e-4, "%s under %g kg on a %s: ends %.3f mm from the ground", names[shape], block, on,
             1e3 * lo);
  if (shape == PLATE) {  // a block on a round body rolls it away, and may go on rolling
    ENSURE_MSG(v < 1e-3, "plate under %g kg on a %s: still moving at %.3g m/s", block, on, v);
    ENSURE_MSG(through > -5e-3, "the block went %.1f mm into the plate", -1e3 * through);
    ENSURE_MSG(fabs(blo - hi) < 1e-4, "the block ends %.3f mm from the plate's top", 1e3 * (blo - hi));
  }
  tsr_test_world_free(&m, &w);
}

static void test_pushed_to_the_ground(void) {
  const double cases[][3] = {{3, 500, 12}, {1, 5000, 8}, {20, 200, 6}};  // pushed kg, block kg, m/s
  for (int plane = 0; plane < 2; plane++)
    for (int shape = ROD; shape <= BALL; shape++)
      for (int c = 0; c < 3; c++) push(plane, shape, cases[c][0], cases[c][1], cases[c][2]);
}

int main(void) {
  RUN_TEST(test_pushed_to_the_ground);
  return TSR_TEST_RESULT();
}
