// SPDX-License-Identifier: MIT
// Free fall and a projectile. With no constraints the step is symplectic
// Euler, v_n = v_0 + n h g, x_n = x_0 + n h v_0 + h^2 g n (n + 1) / 2 (the sum
// of the velocities), which the simulator must reproduce to round-off; the
// closed-form continuous trajectory differs from it by exactly h g t / 2.
#include "sim_helpers.h"
#include "tsr_test.h"

static const char *model_yaml =
    "format: tessera-model/1\n"
    "name: projectile\n"
    "settings: {step: 0.01, steps: 300, gravity: [0.3, -0.2, -9.81]}\n"
    "bodies:\n"
    "  - name: ball\n"
    "    mass: 2.0\n"
    "    shape: {type: sphere, radius: 0.1}\n"
    "    position: [1, 2, 3]\n"
    "    velocity: [4, -1, 12]\n"
    "    angular_velocity: [0, 0, 3]\n"
    "  - name: still\n"
    "    mass: 1.0\n"
    "    shape: {type: box, size: [1, 1, 1]}\n"
    "    position: [0, 0, 10]\n";

static void test_projectile(void) {
  TsrModel m;
  TsrWorld w;
  tsr_test_world(model_yaml, NULL, 0, &m, &w);
  const double h = 0.01, g[3] = {0.3, -0.2, -9.81}, x0[3] = {1, 2, 3}, v0[3] = {4, -1, 12};
  double worst = 0, worst_cont = 0;
  for (int n = 1; n <= 300; n++) {
    ENSURE(tsr_world_step(&w) == 0);
    const double xs[3] = {w.bodies.x[0].x, w.bodies.x[0].y, w.bodies.x[0].z};
    const double vs[3] = {w.bodies.v[0].x, w.bodies.v[0].y, w.bodies.v[0].z};
    double t = n * h;
    for (int a = 0; a < 3; a++) {
      double x_disc = x0[a] + n * h * v0[a] + h * h * g[a] * n * (n + 1) / 2.0;
      double v_disc = v0[a] + n * h * g[a];
      double e = fabs(xs[a] - x_disc) / (1 + fabs(x_disc));
      if (e > worst) worst = e;
      e = fabs(vs[a] - v_disc) / (1 + fabs(v_disc));
      if (e > worst) worst = e;
      double x_cont = x0[a] + v0[a] * t + 0.5 * g[a] * t * t;
      double d = fabs(xs[a] - x_cont - 0.5 * h * g[a] * t);
      if (d > worst_cont) worst_cont = d;
    }
  }
  fprintf(stderr, "projectile: max relative error vs discrete closed form %.3g, vs continuous (+h g t/2) %.3g m\n",
          worst, worst_cont);
  // 300 steps of additions in double: a few hundred ulps at most.
  ENSURE(worst < 1e-12);
  ENSURE(worst_cont < 1e-10);
  // The spin about z of a sphere is torque-free and stays constant.
  ENSURE_NEAR(w.bodies.w[0].z, 3.0, 1e-12);
  tsr_test_world_free(&m, &w);
}

int main(void) {
  RUN_TEST(test_projectile);
  return TSR_TEST_RESULT();
}
