// SPDX-License-Identifier: MIT
// Traction of rolling wheels. A car (800 kg box, four 20 kg cylinder wheels
// on hinges) stands on flat ground (a plane, or a fixed box) with every wheel driven by a motor far
// faster than the car can follow (50 rad/s, 17.5 m/s at the rim, torque
// enough to spin them): all four wheels slip, each pushes with mu times its
// normal load, and the normal loads add up to the car's weight whatever
// their split between the axles, so the car accelerates at exactly mu g
// (Coulomb friction, box friction rows along the sliding direction: exact
// for it). A wheel's contact points move along the wheel and along the
// ground by centimetres a step, so they never continue the previous step's
// contacts, and their friction was bounded by the impulse that stops the
// wheel alone: the car crawled at 6% of mu g. Headings 0 and 37 degrees
// (the result must not depend on the world axes); 1e-4 on the acceleration
// between 0.3 s and 0.8 s (after the start, while the rims still slip;
// measured within 1e-9).
#include <math.h>

#include "sim_helpers.h"
#include "tsr_test.h"

static void drive(double heading_deg, int box_road) {
  double psi = heading_deg * M_PI / 180.0, c = cos(psi), s = sin(psi);
  // Wheels: cylinder axis (local z) along the car's lateral axis.
  TsrQuat qw = tsr_q_mul(tsr_q_axis_angle(tsr_v3(0, 0, 1), psi), tsr_q_axis_angle(tsr_v3(1, 0, 0), -M_PI / 2));
  TsrQuat qc = tsr_q_axis_angle(tsr_v3(0, 0, 1), psi);
  char yaml[8192];
  int n =
      snprintf(yaml, sizeof yaml,
               "format: tessera-model/1\n"
               "name: traction\n"
               "settings: {step: 0.016666666666666666, duration: 0.8}\n"
               "materials: [{name: rubber, friction: 0.9}, {name: road, friction: 0.7}]\n"
               "bodies:\n"
               "  - {name: road, fixed: true, material: road, %s}\n"
               "  - {name: chassis, mass: 800.0, shape: {type: box, size: [3.0, 1.4, 0.3]}, position: [0, 0, 0.55],\n"
               "     orientation: [%.17g, %.17g, %.17g, %.17g]}\n",
               box_road ? "shape: {type: box, size: [100, 100, 1]}, position: [0, 0, -0.5]"
                        : "shape: {type: plane, normal: [0, 0, 1], offset: 0}",
               qc.w, qc.x, qc.y, qc.z);
  const double wx[4] = {1.2, 1.2, -1.2, -1.2}, wy[4] = {0.85, -0.85, 0.85, -0.85};
  for (int k = 0; k < 4; k++)
    n += snprintf(yaml + n, sizeof yaml - (size_t)n,
                  "  - {name: w%d, mass: 20.0, material: rubber, shape: {type: cylinder, radius: 0.35, length: 0.25},\n"
                  "     position: [%.17g, %.17g, 0.35], orientation: [%.17g, %.17g, %.17g, %.17g]}\n",
                  k, c * wx[k] - s * wy[k], s * wx[k] + c * wy[k], qw.w, qw.x, qw.y, qw.z);
  n += snprintf(yaml + n, sizeof yaml - (size_t)n, "joints:\n");
  for (int k = 0; k < 4; k++)
    n += snprintf(yaml + n, sizeof yaml - (size_t)n,
                  "  - {name: h%d, type: hinge, bodies: [chassis, w%d], anchor: [%.17g, %.17g, 0.35],\n"
                  "     axis: [%.17g, %.17g, 0], motor: {speed: 50.0, max_torque: 5000.0}}\n",
                  k, k, c * wx[k] - s * wy[k], s * wx[k] + c * wy[k], -s, c);
  ENSURE(n < (int)sizeof yaml);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  TsrVec3 d = tsr_v3(c, s, 0);
  double v03 = NAN, t03 = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    double t = w.step * m.settings.step;
    if (isnan(v03) && t >= 0.3 - 1e-9) v03 = tsr_v3_dot(w.bodies.v[1], d), t03 = t;
  }
  double t = w.step * m.settings.step, v = tsr_v3_dot(w.bodies.v[1], d);
  double a = (v - v03) / (t - t03), want = sqrt(0.9 * 0.7) * 9.81;
  double rim = 50.0 * 0.35;
  fprintf(stderr, "%s, heading %4.0f deg: acceleration %.4f m/s^2 (mu g = %.4f), speed %.2f m/s (rims %.1f m/s)\n",
          box_road ? "box road" : "plane", heading_deg, a, want, v, rim);
  ENSURE(v < rim);  // still slipping: the premise of a = mu g
  ENSURE_NEAR(a, want, 1e-4 * want);
  tsr_test_world_free(&m, &w);
}

static void test_driven_wheels(void) {
  for (int box_road = 0; box_road < 2; box_road++) {
    drive(0.0, box_road);
    drive(37.0, box_road);
  }
}

int main(void) {
  RUN_TEST(test_driven_wheels);
  return TSR_TEST_RESULT();
}
