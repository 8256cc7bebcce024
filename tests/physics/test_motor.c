// SPDX-License-Identifier: MIT
// A motor that is not saturated moves its joint at its speed, whatever the
// joint's compliance eps and the step h; the load only sets how far the
// joint lags behind its target, eps x load (the servo of
// src/joints/joints.c). Three truths, with direct-bpp and schur-bpp:
//  - lift: a prismatic joint along a skew axis lifts 10 kg at 0.4 m/s.
//    After the start (SPOOK's critically damped transient, 1/3 a step), the
//    slider moves at 0.4 m/s and has travelled 0.4 t - eps m g n_z. The
//    velocity row it replaced ran slow by 4 eps F / (h (1 + 4 d)): 5% at
//    eps = 1e-5, h = 1/60, and 1.9e-7 m/s at the default 1e-10.
//  - arm: a hinge about a horizontal, skew axis lifts an arm from level
//    through 60 degrees at 0.5 rad/s; its angle gains 0.5 t less the
//    change of the lag eps x gravity's torque m g L cos (and less what
//    the integrator's Cayley rotation takes off a pose's turn). The velocity row ran slow by 4 eps m g L cos
//    / (h (1 + 4 d)) (2.7e-7 rad/s at eps 1e-10, h 1/60).
//  - stall: the lift with max_force m g / 2 for a second (the slider falls
//    at g / 2), then 10 m g: it stops its fall, saturated for a few steps,
//    and lifts at 0.4 m/s without making up the 3 m it lost: from the end
//    of its last saturated step it travels 0.4 t plus what the spring gives
//    back as its load drops from max_force to m g, eps (10 m g - m g).
// Tolerances: 1e-9 m/s and 1e-9 m, far above the round-off of positions of
// a few metres over 480 steps (~1e-13) and far below what each truth's
// failure gives (>= 1.9e-7).
#include "sim_helpers.h"
#include "tsr_test.h"

static const double G = 9.81, M = 10.0, U = 0.4;

static void lift_model(char *yaml, size_t len, double eps, double h, TsrVec3 n, double max_force, const char *solver) {
  snprintf(yaml, len,
           "format: tessera-model/1\n"
           "name: lift\n"
           "settings: {step: %.17g, duration: 2.0, gravity: [0, 0, %.17g], solver: {type: %s}}\n"
           "bodies:\n"
           "  - {name: load, mass: %.17g, shape: {type: box, size: [0.3, 0.2, 0.25]}, position: [0.1, -0.2, 1.0]}\n"
           "joints:\n"
           "  - {name: lift, type: prismatic, bodies: [world, load], anchor: [0.1, -0.2, 1.0],\n"
           "     axis: [%.17g, %.17g, %.17g], compliance: %.17g,\n"
           "     motor: {speed: %.17g, max_force: %.17g}}\n",
           h, -G, solver, M, n.x, n.y, n.z, eps, U, max_force);
}

static TsrVec3 skew_axis(void) {
  const double el = 50 * M_PI / 180, az = 37 * M_PI / 180;
  return tsr_v3(cos(el) * cos(az), cos(el) * sin(az), sin(el));
}

static void lift(double eps, double h, const char *solver) {
  TsrVec3 n = skew_axis();
  char yaml[2048];
  lift_model(yaml, sizeof yaml, eps, h, n, 5000.0, solver);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  TsrVec3 x0 = w.bodies.x[0];
  while (w.step < m.settings.steps) ENSURE(tsr_world_step(&w) == 0);
  double t = (double)w.step * h, F = M * G * n.z;
  double v = tsr_v3_dot(w.bodies.v[0], n), s = tsr_v3_dot(tsr_v3_sub(w.bodies.x[0], x0), n);
  fprintf(stderr, "lift %s eps %g h 1/%.0f: speed %.12f (motor %g), travel %.12f (u t - eps F %.12f)\n", solver, eps,
          1 / h, v, U, s, U * t - eps * F);
  ENSURE_NEAR(v, U, 1e-9);
  ENSURE_NEAR(s, U * t - eps * F, 1e-9);
  tsr_test_world_free(&m, &w);
}

// The hinge angle of body 0 about the world axis a (its start: level).
static double arm_angle(const TsrWorld *w, TsrVec3 a, TsrVec3 out0) {
  TsrVec3 out = tsr_q_rotate(w->bodies.q[0], tsr_v3(1, 0, 0));  // the arm's length
  return atan2(tsr_v3_dot(tsr_v3_cross(out0, out), a), tsr_v3_dot(out0, out));
}

static void arm(double eps, double h, const char *solver) {
  // Axis horizontal at 37 degrees; the arm points along out0 = z x a (level,
  // perpendicular to the axis), and a positive turn about a lifts it: it
  // takes out0 towards a x out0 = z.
  const double az = 37 * M_PI / 180, L = 0.5, u = 0.5;
  TsrVec3 a = tsr_v3(cos(az), sin(az), 0), out0 = tsr_v3_cross(tsr_v3(0, 0, 1), a);
  TsrVec3 c = tsr_v3_scale(out0, L);  // centre of mass of the arm, hinge at the origin
  // Box of length 2 L along out0: its local x turned onto out0.
  double yaw = atan2(out0.y, out0.x);
  char yaml[2048];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: arm\n"
           "settings: {step: %.17g, duration: 2.0944, gravity: [0, 0, %.17g], solver: {type: %s}}\n"
           "bodies:\n"
           "  - {name: arm, mass: %.17g, shape: {type: box, size: [%.17g, 0.05, 0.05]},\n"
           "     position: [%.17g, %.17g, %.17g], orientation: {axis: [0, 0, 1], angle: %.17g}}\n"
           "joints:\n"
           "  - {name: shoulder, type: hinge, bodies: [world, arm], anchor: [0, 0, 0],\n"
           "     axis: [%.17g, %.17g, %.17g], compliance: %.17g,\n"
           "     motor: {speed: %.17g, max_torque: 1000}}\n",
           h, -G, solver, M, 2 * L, c.x, c.y, c.z, yaw, a.x, a.y, a.z, eps, u);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  // From step 60 on (the transient from rest is gone) the angle gains u t,
  // less the change of the lag, which follows eps x gravity's torque (m g L
  // cos, falling as the arm rises).
  double th1 = NAN, t1 = NAN, last = NAN;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    last = arm_angle(&w, a, out0);
    if (w.step == 60) th1 = last, t1 = (double)w.step * h;
  }
  double t = (double)w.step * h, gained = (last - th1) - u * (t - t1), mgl = eps * M * G * L;
  // The arm turns at the motor's speed u (its angular velocity); its pose
  // turns by Cayley's 2 atan(h u / 2) a step (bodies.c), the same less
  // u^3 h^2 / 12 a second.
  double want = mgl * (cos(th1) - cos(last)) - (u - 2 * atan(0.5 * h * u) / h) * (t - t1);
  fprintf(stderr, "arm %s eps %g h 1/%.0f: angle %.9f at %.4f s, gained %.4e past u t since %.3f s (want %.4e)\n",
          solver, eps, 1 / h, last, t, gained, t1, want);
  ENSURE(w.bodies.x[0].z > 0.4);  // the arm did rise (sin 60 deg x L = 0.43)
  // The lag follows the torque a few steps late: 2% of eps m g L allows a
  // delay of 0.03 rad of turn (measured: 0.7%).
  ENSURE_NEAR(gained, want, 0.02 * mgl);
  tsr_test_world_free(&m, &w);
}

static void stall(double eps, double h, const char *solver) {
  TsrVec3 n = tsr_v3(0, 0, 1);
  char yaml[2048];
  lift_model(yaml, sizeof yaml, eps, h, n, 0.5 * M * G, solver);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  long release = lround(1.0 / h);
  while (w.step < release) ENSURE(tsr_world_step(&w) == 0);
  double fell = w.bodies.x[0].z - 1.0;
  const double fmax = 10 * M * G;
  m.joints[0].motor_max = fmax;  // the motor gets its strength back
  double z_sat = NAN, t_sat = NAN;
  long saturated = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    for (int r = 0; r < w.rows.count; r++) {
      if (w.rows.rows[r].type != TSR_ROW_MOTOR || fabs(w.lambda[r]) < fmax * h * (1 - 1e-12)) continue;
      z_sat = w.bodies.x[0].z, t_sat = (double)w.step * h, saturated++;
    }
  }
  // From the end of its last saturated step, where the spring holds
  // -eps fmax, to the steady lag -eps m g.
  double t = (double)w.step * h, z = w.bodies.x[0].z, v = w.bodies.v[0].z;
  double want = U * (t - t_sat) + eps * (fmax - M * G);
  fprintf(stderr,
          "stall %s eps %g h 1/%.0f: fell %.3f m; saturated %ld steps after the release, the last ending at %.4f s; "
          "lifted %.12f m since (want %.12f), speed %.12f\n",
          solver, eps, 1 / h, fell, saturated, t_sat, z - z_sat, want, v);
  ENSURE(fell < -2.0);  // it did fall: g / 2 for 1 s, 2.45 m
  ENSURE(saturated >= 1 && t_sat < t - 0.5);
  ENSURE_NEAR(z - z_sat, want, 1e-9);
  ENSURE_NEAR(v, U, 1e-9);
  tsr_test_world_free(&m, &w);
}

int main(void) {
  const char *solvers[] = {"direct-bpp", "schur-bpp"};
  for (int k = 0; k < 2; k++) {
    for (int e = 0; e < 2; e++) {
      double eps = e ? 1e-5 : 1e-10;
      lift(eps, 1.0 / 60, solvers[k]);
      lift(eps, 1.0 / 240, solvers[k]);
      arm(eps, 1.0 / 60, solvers[k]);
      arm(eps, 1.0 / 240, solvers[k]);
      stall(eps, 1.0 / 60, solvers[k]);
    }
  }
  return tsr_test_failures ? 1 : 0;
}
