// SPDX-License-Identifier: MIT
// A torque-free tumbling body keeps its angular momentum (world frame).
// The body is a box with three distinct moments spinning mostly about its
// intermediate axis, the unstable case (Dzhanibekov's tumbling), which is
// where an integrator's handling of the gyroscopic term shows. The step
// (dynamics/bodies.c: implicit midpoint in the body frame, Cayley rotation)
// conserves the world-frame angular momentum exactly in exact arithmetic, so
// the bound is round-off: 1e-10 relative over 120 steps. (An explicit
// gyroscopic term drifts by several percent here; backward Euler by ~5%.)
#include "sim_helpers.h"
#include "tsr_test.h"

static void test_angular_momentum(void) {
  const char *yaml =
      "format: tessera-model/1\n"
      "name: tumbler\n"
      "settings: {step: 0.016666666666666666, duration: 2.0, gravity: [0, 0, 0]}\n"
      "bodies:\n"
      "  - name: brick\n"
      "    mass: 5.0\n"
      "    shape: {type: box, size: [0.1, 0.3, 0.6]}\n"
      "    orientation: {axis: [1, 2, 3], angle: 0.7}\n"
      "    angular_velocity: [0.05, 4.0, 0.05]\n";
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  TsrVec3 L0 = tsr_bodies_angular_momentum(&w.bodies, 0);
  double worst = 0, worst_mag = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    TsrVec3 L = tsr_bodies_angular_momentum(&w.bodies, 0);
    double d = tsr_v3_norm(tsr_v3_sub(L, L0)) / tsr_v3_norm(L0);
    double dm = fabs(tsr_v3_norm(L) - tsr_v3_norm(L0)) / tsr_v3_norm(L0);
    if (d > worst) worst = d;
    if (dm > worst_mag) worst_mag = dm;
  }
  fprintf(stderr, "angular momentum over 2 s at h = 1/60: max relative drift %.3e (vector), %.3e (magnitude)\n", worst,
          worst_mag);
  ENSURE(worst < 1e-10);
  tsr_test_world_free(&m, &w);
}

// The same at any spin: 1, 2.5, 5 and 10 rad per step (60 to 600 rad/s at
// h = 1/60), mostly about the intermediate axis, for 10 s: kinetic energy
// and angular momentum within 1e-9 relative (round-off over 600 steps).
// Newton on the midpoint equation stopped short of its root from 5 rad per
// step on, and the brick gained 6 times its energy (dynamics/bodies.c).
static void test_fast_spin(void) {
  const double spins[] = {60.0, 150.0, 300.0, 600.0};
  for (int k = 0; k < 4; k++) {
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: tessera-model/1\n"
             "name: spinner\n"
             "settings: {step: 0.016666666666666666, duration: 10.0, gravity: [0, 0, 0]}\n"
             "bodies:\n"
             "  - {name: brick, mass: 1.0, shape: {type: box, size: [0.5, 0.3, 0.1]},\n"
             "     orientation: {axis: [1, 2, 3], angle: 0.7}, angular_velocity: [%.17g, %.17g, %.17g]}\n",
             0.01 * spins[k], spins[k], 0.02 * spins[k]);
    TsrModel m;
    TsrWorld w;
    tsr_test_world(yaml, NULL, 0, &m, &w);
    const TsrVec3 L0 = tsr_bodies_angular_momentum(&w.bodies, 0);
    const double E0 = 0.5 * tsr_v3_dot(w.bodies.w[0], L0);
    double dL = 0, dE = 0;
    while (w.step < m.settings.steps) {
      ENSURE(tsr_world_step(&w) == 0);
      const TsrVec3 L = tsr_bodies_angular_momentum(&w.bodies, 0);
      dL = fmax(dL, tsr_v3_norm(tsr_v3_sub(L, L0)) / tsr_v3_norm(L0));
      dE = fmax(dE, fabs(0.5 * tsr_v3_dot(w.bodies.w[0], L) - E0) / E0);
    }
    fprintf(stderr, "spin %3.0f rad/s (%.1f rad per step), 10 s: energy %.2e, angular momentum %.2e (relative)\n",
            spins[k], spins[k] * m.settings.step, dE, dL);
    ENSURE(dE < 1e-9);
    ENSURE(dL < 1e-9);
    tsr_test_world_free(&m, &w);
  }
}

// The inverse inertia is the inverse of the inertia at any scale the loader
// accepts: a body of moments 1e-120 kg m^2 had none (its determinant, 1e-360,
// is 0 in doubles: the body could not turn), one of 1e-105 an infinite one,
// and one of 1e110 none (1e330 is inf).
static void test_inverse_inertia_scales(void) {
  const double scales[] = {1e-120, 1e-105, 1e-20, 1.0, 1e20, 1e110};
  for (int k = 0; k < 6; k++) {
    char yaml[1024];
    const double c = scales[k];
    snprintf(yaml, sizeof yaml,
             "format: tessera-model/1\n"
             "name: scaled\n"
             "bodies:\n"
             "  - {name: brick, mass: 5.0, shape: {type: box, size: [0.1, 0.3, 0.6]},\n"
             "     inertia: [[%.17g, %.17g, 0], [%.17g, %.17g, %.17g], [0, %.17g, %.17g]]}\n",
             2 * c, 0.5 * c, 0.5 * c, 3 * c, 0.25 * c, 0.25 * c, 4 * c);
    TsrModel m;
    TsrWorld w;
    tsr_test_world(yaml, NULL, 0, &m, &w);
    const TsrMat3 P = tsr_m3_mul(m.bodies[0].inertia, w.bodies.inv_inertia_body[0]);
    double worst = 0;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) worst = fmax(worst, fabs(P.m[i][j] - (i == j)));
    fprintf(stderr, "inertia x %g: |I I^-1 - 1| = %.2e\n", c, worst);
    ENSURE(worst < 1e-14);
    tsr_test_world_free(&m, &w);
  }
}

int main(void) {
  RUN_TEST(test_angular_momentum);
  RUN_TEST(test_fast_spin);
  RUN_TEST(test_inverse_inertia_scales);
  return TSR_TEST_RESULT();
}
