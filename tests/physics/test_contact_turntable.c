// SPDX-License-Identifier: MIT
// A box riding a moving support, with direct-bpp and schur-bpp at h = 1/60
// and 1/240 (materials: eps 1e-9 m/N and damping d = 2 each, so the pair
// has eps = 2e-9, d = 2; rows.c).
//
//  1. Turntable: a plank on a hinge to the world about z, its motor (a
//     servo: tests/physics/test_motor.c) turning it at omega; a 10 kg box
//     at radius R = 1 m, at a heading skew to the world axes, riding with
//     it from the start. With omega = 0.8 of the speed at which mu g =
//     omega^2 R the box sticks, and in the turntable's frame it stays where
//     it was put, to within
//       - eps F, the friction rows' deflection under the centripetal load
//         F = m omega^2 R (their compliance; the four corners share F, so
//         this is an upper bound);
//       - (1 + 4 d) omega^2 R h^2 / 8: each step the box's centre of mass
//         moves on the tangent while the turntable's point under it moves
//         on the chord, a radial gap delta = omega^2 R h^2 / 2 that the
//         stiction anchor (rows.c) takes back at a = 4 / (h (1 + 4 d)) a
//         step: the slip settles where h a s = delta, s = (1 + 4 d) delta /
//         4 (SPOOK's lag behind a gap opened every step; it goes with h^2,
//         and does not grow);
//       - omega^2 R h^2: friction starts one step late on a support held by
//         a joint (the first-bound estimate of rows.c sees the turntable
//         fall with gravity in v_free, like the box, and no approach), and
//         in that step the box goes on the tangent, one step's gap delta,
//         and leaves with the relative velocity omega^2 R h, another;
//       - round-off, 1e-9 m.
//     Measured: 1.42e-3 m at h = 1/60, 8.9e-5 m at 1/240 (h^2), the same
//     for both solvers. It does not creep: from 2 s to 4 s it moves less
//     than 1e-6 m on the turntable (measured 7e-16).
//     It went outward at omega^2 R h / 2 (2.6 cm/s at h = 1/60: 10 cm in
//     4 s) when the anchor summed h J v+ along the step's tangents, which
//     is 0 for a sticking contact and does not see the chord, and was
//     cleared at every contact whose friction reached its bound, though the
//     other corners held the box.
//  2. Below the threshold (omega 1.2 times that speed) it slides outward:
//     more than 0.1 m in 1 s (it reaches the turntable's edge, 2 m).
//  3. A plank on a prismatic joint driven at a constant 1.5 m/s along a
//     skew heading, the box riding on it: no acceleration, no load, and the
//     box does not move on the plank (1e-9 m over 4 s).
#include <math.h>
#include <string.h>

#include "sim_helpers.h"
#include "tsr_test.h"

static const char *const SOLVERS[] = {"direct-bpp", "schur-bpp"};
static const double G = 9.81, M = 10.0, R = 1.0, EPS = 2e-9, D = 2.0;

// The box's (body 1) centre in the support's (body 0) frame.
static TsrVec3 on_support(const TsrWorld *w) {
  return tsr_q_rotate_inv(w->bodies.q[0], tsr_v3_sub(w->bodies.x[1], w->bodies.x[0]));
}

// The box set at radius R, heading phi, riding a turntable that turns at
// omega; returns the largest distance it moved in the turntable's frame
// over `duration` s (and its radius at the end in *r_end).
// *creep: how far it moved on the turntable in the second half.
static double turntable(double mu, double omega, double h, double duration, const char *solver, double *r_end,
                        double *creep) {
  const double phi = 0.7;
  const TsrVec3 x = tsr_v3(R * cos(phi), R * sin(phi), 0.1), v = tsr_v3(-omega * x.y, omega * x.x, 0);
  char yaml[4096];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\nname: turntable\n"
           "settings: {step: %.17g, duration: %.17g, gravity: [0, 0, %.17g], solver: {type: %s}}\n"
           "materials: [{name: m, friction: %.17g, compliance: 1.0e-9, damping: %.17g}]\n"
           "bodies:\n"
           "  - {name: table, mass: 50, shape: {type: box, size: [5, 5, 0.1]}, position: [0, 0, -0.05],\n"
           "     angular_velocity: [0, 0, %.17g]}\n"
           "  - {name: box, mass: %.17g, shape: {type: box, size: [0.2, 0.2, 0.2]},\n"
           "     position: [%.17g, %.17g, %.17g], orientation: {axis: [0, 0, 1], angle: 0.3},\n"
           "     velocity: [%.17g, %.17g, 0], angular_velocity: [0, 0, %.17g]}\n"
           "joints:\n"
           "  - {name: spindle, type: hinge, bodies: [world, table], anchor: [0, 0, -0.05], axis: [0, 0, 1],\n"
           "     motor: {speed: %.17g, max_torque: 1.0e6}}\n",
           h, duration, -G, solver, mu, D, omega, M, x.x, x.y, x.z, v.x, v.y, omega, omega);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  const TsrVec3 p0 = on_support(&w);
  TsrVec3 half = p0;
  double worst = 0.0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    worst = fmax(worst, tsr_v3_norm(tsr_v3_sub(on_support(&w), p0)));
    if (w.step == m.settings.steps / 2) half = on_support(&w);
  }
  TsrVec3 p = on_support(&w);
  *r_end = hypot(p.x, p.y);
  *creep = tsr_v3_norm(tsr_v3_sub(p, half));
  tsr_test_world_free(&m, &w);
  return worst;
}

static void test_turntable_sticks(void) {
  const double mu = 0.5, omega = 0.8 * sqrt(mu * G / R);
  const double steps[] = {1.0 / 60.0, 1.0 / 240.0};
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 2; k++) {
      const double h = steps[k], a_c = omega * omega * R;
      const double bound = EPS * M * a_c + (1 + 4 * D) * a_c * h * h / 8 + a_c * h * h + 1e-9;
      double r_end, creep;
      const double moved = turntable(mu, omega, h, 4.0, SOLVERS[s], &r_end, &creep);
      fprintf(stderr,
              "%-10s turntable mu %.2f omega %.4f h 1/%.0f: moved %.3e m on it (bound %.3e), %.1e m in the last 2 s, "
              "radius %.9f\n",
              SOLVERS[s], mu, omega, 1 / h, moved, bound, creep, r_end);
      ENSURE(moved <= bound);
      ENSURE(creep < 1e-6);
    }
}

static void test_turntable_slides(void) {
  const double mu = 0.5, omega = 1.2 * sqrt(mu * G / R);
  for (int s = 0; s < 2; s++) {
    double r_end, creep;
    turntable(mu, omega, 1.0 / 60.0, 1.0, SOLVERS[s], &r_end, &creep);
    fprintf(stderr, "%-10s turntable mu %.2f omega %.4f: radius %.4f after 1 s\n", SOLVERS[s], mu, omega, r_end);
    ENSURE(r_end > R + 0.1);
  }
}

static void test_plank(void) {
  const double U = 1.5, az = 0.83, steps[] = {1.0 / 60.0, 1.0 / 240.0};
  const TsrVec3 d = tsr_v3(cos(az), sin(az), 0);
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 2; k++) {
      const double h = steps[k];
      char yaml[4096];
      snprintf(yaml, sizeof yaml,
               "format: tessera-model/1\nname: plank\n"
               "settings: {step: %.17g, duration: 4.0, gravity: [0, 0, %.17g], solver: {type: %s}}\n"
               "materials: [{name: m, friction: 0.5, compliance: 1.0e-9, damping: %.17g}]\n"
               "bodies:\n"
               "  - {name: plank, mass: 30, shape: {type: box, size: [8, 1, 0.1]}, position: [0, 0, -0.05],\n"
               "     orientation: {axis: [0, 0, 1], angle: %.17g}, velocity: [%.17g, %.17g, 0]}\n"
               "  - {name: box, mass: %.17g, shape: {type: box, size: [0.3, 0.2, 0.2]}, position: [0, 0, 0.1],\n"
               "     orientation: {axis: [0, 0, 1], angle_deg: 21}, velocity: [%.17g, %.17g, 0]}\n"
               "joints:\n"
               "  - {name: belt, type: prismatic, bodies: [world, plank], anchor: [0, 0, -0.05],\n"
               "     axis: [%.17g, %.17g, 0], motor: {speed: %.17g, max_force: 1.0e6}}\n",
               h, -G, SOLVERS[s], D, az, U * d.x, U * d.y, M, U * d.x, U * d.y, d.x, d.y, U);
      TsrModel m;
      TsrWorld w;
      tsr_test_world(yaml, NULL, 0, &m, &w);
      const TsrVec3 p0 = on_support(&w);
      double worst = 0.0;
      while (w.step < m.settings.steps) {
        ENSURE(tsr_world_step(&w) == 0);
        TsrVec3 e = tsr_v3_sub(on_support(&w), p0);
        worst = fmax(worst, hypot(e.x, e.y));
      }
      fprintf(stderr, "%-10s plank at %.1f m/s h 1/%.0f: moved %.3e m on it\n", SOLVERS[s], U, 1 / h, worst);
      ENSURE(worst < 1e-9);
      tsr_test_world_free(&m, &w);
    }
}

int main(void) {
  RUN_TEST(test_turntable_sticks);
  RUN_TEST(test_turntable_slides);
  RUN_TEST(test_plank);
  return tsr_test_failures ? 1 : 0;
}
