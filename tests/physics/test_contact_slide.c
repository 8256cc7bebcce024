// SPDX-License-Identifier: MIT
// A cylinder standing on its flat end, launched sideways over a fixed box
// floor without spin, slides to rest at exactly mu g: its contacts' normal
// impulses add up to its weight whatever their split (it does not tip),
// and box friction along the sliding direction is Coulomb's for the
// sliding part (rows.c), so the friction is mu m g. A box is the control.
// The cylinder's four rim points on the floor were taken from its lowest
// along the floor's normal at a tilt of 1e-7 rad (the contacts' compliance
// under the friction's torque), where round-off put them 5e-10 m off the
// rim, and the deepest-sample check (tsr_solid_deepest, box floors only)
// took a point between them, deeper by that much, in place of the
// shallowest: a new contact at every wobble of the tilt, whose friction
// was bounded by a first-step estimate beyond the load. On the box floor
// it slowed at up to 1.18 mu g (5 of these 48 cases beyond 1%), and one
// turned at 0.15 rad/s and drifted sideways at 4.5 mm/s; on the plane it
// held. Headings 0, 30, 45 and 77 degrees to the x axis, the body turned
// 0, 20, 45 and 70 degrees about the vertical, mu 0.3, 0.5 and 0.8,
// masses 1, 10 and 1000 kg, on a box floor and on a plane. Truths: the
// deceleration, fitted over 10-80% of the slide, within 1e-4 of mu g
// (measured: within 4e-6; the 1.18 mu g above was 0.18); the heading kept
// (sideways speed below 1e-4 m/s; measured: 4.3e-6) and no spin up (|w|
// below 5e-3 rad/s; measured: 5.2e-4).
#include <math.h>

#include "sim_helpers.h"
#include "tsr_test.h"

static void slide(int box, int plane, double heading_deg, double yaw_deg, double mu, double mass) {
  const double psi = heading_deg * M_PI / 180.0, v0 = 5.0, g = 9.81;
  char yaml[2048];
  int n = snprintf(yaml, sizeof yaml,
                   "format: tessera-model/1\n"
                   "name: slide\n"
                   "settings: {step: 0.016666666666666666, duration: 1.5}\n"
                   "materials: [{name: m, friction: %g}]\n"
                   "bodies:\n"
                   "  - {name: floor, fixed: true, material: m, %s}\n"
                   "  - {name: slider, mass: %g, material: m, shape: %s, position: [0, 0, 0.2],\n"
                   "     orientation: {axis: [0, 0, 1], angle_deg: %g}, velocity: [%.17g, %.17g, 0]}\n",
                   mu,
                   plane ? "shape: {type: plane, normal: [0, 0, 1], offset: 0}"
                         : "shape: {type: box, size: [100, 100, 1]}, position: [0, 0, -0.5]",
                   mass, box ? "{type: box, size: [0.6, 0.5, 0.4]}" : "{type: cylinder, radius: 0.3, length: 0.4}",
                   yaw_deg, v0 * cos(psi), v0 * sin(psi));
  ENSURE(n < (int)sizeof yaml);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  const TsrVec3 d = tsr_v3(cos(psi), sin(psi), 0);
  const double h = m.settings.step, stop = v0 / (mu * g);
  double st = 0, sv = 0, stt = 0, stv = 0, side = 0, spin = 0;
  int cnt = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    const double t = w.step * h, v = tsr_v3_dot(w.bodies.v[1], d);
    side = fmax(side, fabs(tsr_v3_dot(w.bodies.v[1], tsr_v3(-d.y, d.x, 0))));
    spin = fmax(spin, tsr_v3_norm(w.bodies.w[1]));
    if (t >= 0.1 * stop && t <= 0.8 * stop) st += t, sv += v, stt += t * t, stv += t * v, cnt++;
  }
  const double a = -(cnt * stv - st * sv) / (cnt * stt - st * st);
  fprintf(stderr,
          "%-8s on a %-5s heading %2.0f, yaw %2.0f, mu %.1f, %4g kg: a / (mu g) = %.5f, sideways %.1e m/s, |w| "
          "%.1e rad/s\n",
          box ? "box" : "cylinder", plane ? "plane" : "box", heading_deg, yaw_deg, mu, mass, a / (mu * g), side, spin);
  ENSURE(cnt >= 10);
  ENSURE_NEAR(a, mu * g, 1e-4 * mu * g);
  ENSURE(side < 1e-4);
  ENSURE(spin < 5e-3);
  tsr_test_world_free(&m, &w);
}

static void test_sliding_cylinder(void) {
  const double headings[4] = {0, 30, 45, 77}, yaws[4] = {0, 20, 45, 70};
  const double mus[3] = {0.3, 0.5, 0.8}, masses[3] = {1, 10, 1000};
  for (int plane = 0; plane < 2; plane++)
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++) slide(0, plane, headings[i], yaws[j], mus[k], masses[(i + j + k) % 3]);
}

static void test_sliding_box(void) {
  const double headings[4] = {0, 30, 45, 77}, yaws[4] = {0, 20, 45, 70};
  for (int i = 0; i < 4; i++) slide(1, 0, headings[i], yaws[(i + 1) % 4], 0.5, 10);
}

int main(void) {
  RUN_TEST(test_sliding_cylinder);
  RUN_TEST(test_sliding_box);
  return TSR_TEST_RESULT();
}
