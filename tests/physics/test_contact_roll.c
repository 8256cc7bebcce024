// SPDX-License-Identifier: MIT
// A solid sphere on a slope steep enough to move but with friction enough to
// grip (tan(theta) < 7/2 mu) rolls without slipping: its centre accelerates
// at a = (5/7) g sin(theta), and v = w r. This checks the friction rows'
// lever arm (the contact point on the sphere's true surface, not on the
// margin-inflated geom) and that static friction is not capped below
// (2/7) m g sin(theta). Slopes facing several directions; 1e-6 relative,
// as the rolling constraint is velocity-level exact and the slope is a plane.
#include "sim_helpers.h"
#include "tsr_test.h"

static void roll(double theta_deg, double azimuth_deg) {
  double th = theta_deg * M_PI / 180, az = azimuth_deg * M_PI / 180;
  TsrVec3 n = tsr_v3(-sin(th) * cos(az), -sin(th) * sin(az), cos(th));
  char yaml[2048];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: roll\n"
           "settings: {step: 0.016666666666666666, duration: 2.0}\n"
           "materials: [{name: m, friction: 0.4, compliance: 1.0e-9, damping: 2.0}]\n"
           "bodies:\n"
           "  - {name: slope, fixed: true, shape: {type: plane, normal: [%.17g, %.17g, %.17g], offset: 0}}\n"
           "  - {name: ball, mass: 2.0, shape: {type: sphere, radius: 0.1}, position: [%.17g, %.17g, %.17g]}\n",
           n.x, n.y, n.z, 0.1 * n.x, 0.1 * n.y, 0.1 * n.z);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  double v1 = 0, t1 = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    if (w.step == 30) v1 = tsr_v3_norm(w.bodies.v[1]), t1 = w.time;
  }
  double v2 = tsr_v3_norm(w.bodies.v[1]), a = (v2 - v1) / (w.time - t1);
  double expect = 5.0 / 7.0 * 9.81 * sin(th);
  double slip = fabs(v2 - tsr_v3_norm(w.bodies.w[1]) * 0.1);
  fprintf(stderr, "slope %4.1f deg facing %5.1f deg: a = %.6f m/s^2 (5/7 g sin = %.6f), slip %.2e m/s\n", theta_deg,
          azimuth_deg, a, expect, slip);
  ENSURE(fabs(a - expect) < 1e-6 * expect);
  ENSURE(slip < 1e-6 * v2);
  tsr_test_world_free(&m, &w);
}

static void test_rolling_sphere(void) {
  roll(25, 0);
  roll(25, 130);
  roll(40, 250);
}

// A wheel (solid cylinder, lying on its side) and a ball spinning in place
// on flat ground (a plane, or a fixed box), set down at rest: friction at the contact drags them
// forward until they roll, and it is the only horizontal force, acting at
// the contact line, so the angular momentum about that line is conserved:
// I w0 = (I + m R^2) w_f, i.e. v_f = w0 R / 3 for the cylinder
// (I = m R^2 / 2) and 2/7 w0 R for the ball. Spins of 20 and 100 rad/s:
// at 100 the wheel's rim moves 58 cm in a step, more than its radius, and
// contacts made for points that only spin along the rim (rows linear in
// the velocity) braked it to 7.1 m/s instead of 11.7. 1e-6 relative: the
// rolling state is velocity-level exact.
static void spin_to_roll(double w0, int box_ground) {
  char yaml[1024];
  snprintf(
      yaml, sizeof yaml,
      "format: tessera-model/1\n"
      "name: spin\n"
      "settings: {step: 0.016666666666666666, duration: 3.0}\n"
      "materials: [{name: m, friction: 0.5}]\n"
      "bodies:\n"
      "  - {name: ground, fixed: true, %s}\n"
      "  - {name: wheel, mass: 20.0, shape: {type: cylinder, radius: 0.35, length: 0.25}, position: [0, 0, 0.35],\n"
      "     orientation: {axis: [1, 0, 0], angle_deg: -90}, angular_velocity: [0, %g, 0]}\n"
      "  - {name: ball, mass: 20.0, shape: {type: sphere, radius: 0.35}, position: [0, 5, 0.35],\n"
      "     angular_velocity: [0, %g, 0]}\n",
      box_ground ? "shape: {type: box, size: [200, 200, 1]}, position: [0, 0, -0.5]"
                 : "shape: {type: plane, normal: [0, 0, 1], offset: 0.0}",
      w0, w0);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  while (w.step < m.settings.steps) ENSURE(tsr_world_step(&w) == 0);
  double vc = w.bodies.v[1].x, vb = w.bodies.v[2].x, wc = w0 * 0.35 / 3, wbl = 2.0 / 7.0 * w0 * 0.35;
  fprintf(stderr, "%s, spin %5.1f rad/s: wheel rolls at %.6f m/s (w0 R / 3 = %.6f), ball at %.6f (2/7 w0 R = %.6f)\n",
          box_ground ? "box floor" : "plane", w0, vc, wc, vb, wbl);
  ENSURE_NEAR(vc, wc, 1e-6 * wc);
  ENSURE_NEAR(vb, wbl, 1e-6 * wbl);
  ENSURE_NEAR(w.bodies.w[1].y * 0.35, vc, 1e-6 * wc);  // rolling: v = w R
  tsr_test_world_free(&m, &w);
}

static void test_spin_to_roll(void) {
  for (int box_ground = 0; box_ground < 2; box_ground++) {
    spin_to_roll(20.0, box_ground);
    spin_to_roll(100.0, box_ground);
  }
}

int main(void) {
  RUN_TEST(test_rolling_sphere);
  RUN_TEST(test_spin_to_roll);
  return TSR_TEST_RESULT();
}
