// SPDX-License-Identifier: MIT
// Stacks: ten boxes stand for 5 s with under 2 mm of drift (direct-bpp), and a
// 1,000 kg box resting on a 0.1 kg box (10,000:1) keeps penetration under
// 2 mm with direct-bpp. The same heavy-on-light scene with pgs is run and
// printed, not checked: the mass ratio is what iterative solvers fail at.
#include "sim_helpers.h"
#include "tsr_test.h"

static void test_stack_of_ten(void) {
  const char *yaml =
      "format: tessera-model/1\n"
      "name: stack\n"
      "settings: {duration: 5.0, solver: {type: direct-bpp}, contact: {margin: 0.01}}\n"
      "materials: [{name: m, friction: 0.5, compliance: 1.0e-9, damping: 2.0}]\n"
      "bodies:\n"
      "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0.0}}\n"
      "  - name: box\n"
      "    count: 10\n"
      "    mass: 10.0\n"
      "    shape: {type: box, size: [0.4, 0.4, 0.4]}\n"
      "    position: [0, 0, 0.2]\n"
      "    stride: {position: [0, 0, 0.4]}\n";
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  double drift = 0, sink = 0, pen = 0, tilt = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    if (w.stats.penetration > pen) pen = w.stats.penetration;
  }
  for (int k = 1; k <= 10; k++) {
    TsrVec3 x0 = m.bodies[k].position, x = w.bodies.x[k];
    double d = hypot(x.x - x0.x, x.y - x0.y);
    if (d > drift) drift = d;
    if (x0.z - x.z > sink) sink = x0.z - x.z;
    double t = 2 * acos(fmin(1.0, fabs(w.bodies.q[k].w)));
    if (t > tilt) tilt = t;
  }
  fprintf(stderr,
          "stack of 10: horizontal drift %.3e m, sink %.3e m, tilt %.3e rad, max penetration %.3e m, %d contacts\n",
          drift, sink, tilt, pen, w.contacts.n);
  ENSURE(drift < 2e-3);
  ENSURE(sink < 2e-3);
  ENSURE(w.contacts.n == 40);
  tsr_test_world_free(&m, &w);
}

static double heavy_on_light(const char *solver, double *drift) {
  char yaml[1024];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: ratio\n"
           "settings: {duration: 3.0, solver: {type: %s}, contact: {margin: 0.01}}\n"
           "materials: [{name: m, friction: 0.5, compliance: 1.0e-9, damping: 2.0}]\n"
           "bodies:\n"
           "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0.0}}\n"
           "  - {name: light, mass: 0.1, shape: {type: box, size: [0.2, 0.2, 0.2]}, position: [0, 0, 0.1]}\n"
           "  - {name: heavy, mass: 1000.0, shape: {type: box, size: [0.6, 0.6, 0.3]}, position: [0, 0, 0.35]}\n",
           solver);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  double pen = 0;
  while (w.step < m.settings.steps) {
    int rc = tsr_world_step(&w);
    if (rc == 2) break;
    if (w.stats.penetration > pen) pen = w.stats.penetration;
  }
  *drift = 0.35 - w.bodies.x[2].z;
  tsr_test_world_free(&m, &w);
  return pen;
}

static void test_mass_ratio(void) {
  double sink_bpp, sink_pgs;
  double bpp = heavy_on_light("direct-bpp", &sink_bpp);
  double pgs = heavy_on_light("pgs", &sink_pgs);
  fprintf(stderr,
          "1000 kg on 0.1 kg: direct-bpp max penetration %.3e m (heavy box sank %.3e m); "
          "pgs max penetration %.3e m (sank %.3e m)\n",
          bpp, sink_bpp, pgs, sink_pgs);
  ENSURE(bpp < 2e-3);
  ENSURE(sink_bpp < 2e-3);
}

// A tower of 30 boxes stacked exactly (each resting on the one below at
// its computed height), with the default contact margin, 0: nothing moves
// but the compliance sink (~2 um at the bottom). Rounding leaves some
// boxes 4e-17 m apart and others touching; without contacts for the first
// ones, the tower sank 7 cm into itself and threw its top box 1.4 m up
// (collide.c: speculative contacts of boxes, within |g| h^2 of touching).
// On a plane and on a box floor; the largest drift of any box, 0.01 mm.
static void tower(int box_floor) {
  char yaml[8192];
  int n = snprintf(yaml, sizeof yaml,
                   "format: tessera-model/1\n"
                   "name: tower\n"
                   "settings: {step: 0.016666666666666666, duration: 2.0}\n"
                   "bodies:\n"
                   "  - {name: floor, fixed: true, %s}\n",
                   box_floor ? "shape: {type: box, size: [4, 4, 1]}, position: [0, 0, -0.5]"
                             : "shape: {type: plane, normal: [0, 0, 1], offset: 0}");
  for (int k = 0; k < 30; k++)
    n += snprintf(yaml + n, sizeof yaml - (size_t)n,
                  "  - {name: b%d, mass: 1.0, shape: {type: box, size: [0.3, 0.3, 0.3]}, position: [0, 0, %.17g]}\n", k,
                  0.15 + 0.3 * k);
  ENSURE(n < (int)sizeof yaml);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  ENSURE(m.settings.contact.margin == 0.0);
  double drift = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    for (int k = 0; k < 30; k++) drift = fmax(drift, fabs(w.bodies.x[1 + k].z - (0.15 + 0.3 * k)));
  }
  fprintf(stderr, "tower of 30 on a %s, margin 0: largest drift %.3e m\n", box_floor ? "box floor" : "plane", drift);
  ENSURE(drift < 1e-5);
  tsr_test_world_free(&m, &w);
}

static void test_tower_margin_zero(void) {
  tower(0);
  tower(1);
}

int main(void) {
  RUN_TEST(test_stack_of_ten);
  RUN_TEST(test_mass_ratio);
  RUN_TEST(test_tower_margin_zero);
  return TSR_TEST_RESULT();
}
