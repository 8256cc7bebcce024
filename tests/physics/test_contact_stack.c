// SPDX-License-Identifier: MIT
// Stacks: ten boxes stand for 5 s, each sunk by exactly the compliance of the
// contacts under it times their load, no drift, no tilt (direct-bpp), and a
// 1,000 kg box resting on a 0.1 kg box (10,000:1) sinks by its contacts'
// compliance times the load with direct-bpp. A contact's compliance is the
// sum of its two materials' (rows.c), 2e-9 m/N here; four corners in
// parallel make 5e-10 m/N a layer. The same heavy-on-light scene with pgs is run and
// printed, not checked: the mass ratio is what iterative solvers fail at.
#include <math.h>
#include <stdio.h>

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
          "stack of 10: horizontal drift %.3e m, sink %.6e m, tilt %.3e rad, max penetration %.3e m, %d contacts\n",
          drift, sink, tilt, pen, w.contacts.n);
  // The top box sinks by every layer's deflection: layer k carries 11 - k
  // boxes, 55 box weights in all. Its settling (damped in a few steps)
  // is long over; 1e-3 relative is the contact damping's leftover and
  // round-off in a sum of 10 layers.
  double weight = 10.0 * tsr_v3_norm(m.settings.gravity), layer = 2e-9 / 4;
  ENSURE_NEAR(sink, 55 * weight * layer, 1e-3 * 55 * weight * layer);
  ENSURE(drift < 1e-9 && tilt < 1e-9);
  ENSURE(pen < 1e-5);  // below a layer's deflection x 10 layers
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
          "1000 kg on 0.1 kg: direct-bpp max penetration %.3e m (heavy box sank %.6e m); "
          "pgs max penetration %.3e m (sank %.3e m)\n",
          bpp, sink_bpp, pgs, sink_pgs);
  // The heavy box sinks by both layers' deflection: 1000 g on the light box,
  // 1000.1 g under it, each through four corners of 5e-10 m/N.
  double g = 9.81, want = (1000.0 + 1000.1) * g * 2e-9 / 4;
  ENSURE_NEAR(sink_bpp, want, 1e-3 * want);
  ENSURE(bpp < 2 * want);
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

// A pyramid of three logs (cylinders of radius r lying side by side, the
// third on the two), default margin 0. Statics: the bottom logs are held
// apart by friction alone, and the pyramid stands exactly when the
// log-on-log friction is at least 2 - sqrt(3) = 0.268 (torque balance on a
// bottom log makes its ground and log friction equal; with the two force
// balances, F/N = 1 / (2 + sqrt 3) at the upper contacts, and 0.089 at the
// ground). So with mu = 0.5 it stands: the top log settles by compliance
// alone (< 2 mm) and then stays (< 0.1 mm from 1 s to 5 s); with mu = 0.2
// it comes down the whole 2 r sin 60 = 0.346 m onto the ground (> 0.3 m).
// Cases: equal lengths, a top log longer than the others and shifted along
// its axis, the whole pile turned 37 degrees about z. Before, with ODE's one
// point for parallel cylinders, the pyramid rolled apart at mu = 0.5 too.
static void pyramid(double mu, double top_len, double shift, double yaw_deg) {
  const double r = 0.2, rad = yaw_deg * M_PI / 180.0, c = cos(rad), s = sin(rad);
  const double top_z = r + 2 * r * sin(M_PI / 3);
  char yaml[2048];
  // logs along the pile's y axis, turned by yaw about z: bottom ones at
  // x = -+r, the top one at x = 0 and shifted along its axis
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: pyramid\n"
           "settings: {step: 0.016666666666666666, duration: 5.0}\n"
           "materials: [{name: m, friction: %g}]\n"
           "bodies:\n"
           "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0.0}}\n"
           "  - {name: a, mass: 100, shape: {type: cylinder, radius: %g, length: 1.0}, position: [%.17g, %.17g, %g],\n"
           "     orientation: {axis: [%.17g, %.17g, 0], angle_deg: 90}}\n"
           "  - {name: b, mass: 100, shape: {type: cylinder, radius: %g, length: 1.0}, position: [%.17g, %.17g, %g],\n"
           "     orientation: {axis: [%.17g, %.17g, 0], angle_deg: 90}}\n"
           "  - {name: top, mass: 100, shape: {type: cylinder, radius: %g, length: %g},\n"
           "     position: [%.17g, %.17g, %.17g], orientation: {axis: [%.17g, %.17g, 0], angle_deg: 90}}\n",
           mu, r, -r * c, -r * s, r, c, s, r, r * c, r * s, r, c, s, r, top_len, -shift * s, shift * c, top_z, c, s);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  const int top = tsr_model_find_body(&m, "top");
  double at_1s = 0.0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    if (w.step == 60) at_1s = w.bodies.x[top].z;
  }
  double drop = top_z - w.bodies.x[top].z, creep = at_1s - w.bodies.x[top].z;
  fprintf(stderr, "mu %.2f, top log %.1f m shifted %.1f m, yaw %g: top log down %.4f mm (%.4f mm after 1 s)\n", mu,
          top_len, shift, yaw_deg, 1e3 * drop, 1e3 * creep);
  if (mu > 0.268) {
    ENSURE_MSG(drop < 2e-3, "mu %g: the pyramid fell %.1f mm", mu, 1e3 * drop);
    ENSURE_MSG(fabs(creep) < 1e-4, "mu %g: it kept moving after 1 s (%.3f mm)", mu, 1e3 * creep);
  } else {
    ENSURE_MSG(drop > 0.3, "mu %g (< 2 - sqrt 3): the pyramid stood (down %.1f mm)", mu, 1e3 * drop);
  }
  tsr_test_world_free(&m, &w);
}

static void test_log_pyramid(void) {
  const double yaws[] = {0.0, 37.0};
  for (int k = 0; k < 2; k++) {
    pyramid(0.5, 1.0, 0.0, yaws[k]);
    pyramid(0.5, 1.6, 0.2, yaws[k]);
    pyramid(0.2, 1.0, 0.0, yaws[k]);
  }
}

// A 2,500 kg box 2.4 m wide dropped 2.5 cm onto four logs (cylinders)
// 2.4 m long lying on the ground, the logs slid along their axes by 0, 0.5
// mm and 2 cm: the logs' rims lie on, just beside or 2 cm beyond the box's
// side faces. It comes to rest on them: its bottom within 1 mm of the logs'
// tops, having moved at most 3 cm on the way. Before, with the rims just
// beside the box, their closest points were on its side faces, whose
// normals held nothing up: it sank into the logs and was thrown 1.3 m.
static void test_box_on_equal_logs(void) {
  const double offsets[] = {0.0, 0.0005, 0.02};
  for (int k = 0; k < 3; k++) {
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: tessera-model/1\n"
             "name: boxlogs\n"
             "settings: {step: 0.016666666666666666, duration: 3.0, contact: {margin: 0.005}}\n"
             "materials: [{name: m, friction: 0.5}]\n"
             "bodies:\n"
             "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0.0}}\n"
             "  - {name: log, count: 4, mass: 50, shape: {type: cylinder, radius: 0.1, length: 2.4},\n"
             "     position: [-0.9, %g, 0.1], stride: {position: [0.6, 0, 0]},\n"
             "     orientation: {axis: [1, 0, 0], angle_deg: 90}}\n"
             "  - {name: box, mass: 2500, shape: {type: box, size: [2.4, 2.4, 0.45]}, position: [0, 0, 0.45]}\n",
             offsets[k]);
    TsrModel m;
    TsrWorld w;
    tsr_test_world(yaml, NULL, 0, &m, &w);
    const int box = tsr_model_find_body(&m, "box");
    const TsrVec3 x0 = w.bodies.x[box];
    double moved = 0.0;
    while (w.step < m.settings.steps) {
      ENSURE(tsr_world_step(&w) == 0);
      moved = fmax(moved, tsr_v3_norm(tsr_v3_sub(w.bodies.x[box], x0)));
    }
    const double rest = w.bodies.x[box].z - (0.2 + 0.225);
    fprintf(stderr, "logs slid %.4f m: box ends %+.3f mm from resting on them, moved at most %.1f mm\n", offsets[k],
            1e3 * rest, 1e3 * moved);
    ENSURE_MSG(fabs(rest) < 1e-3, "offset %g: the box ends %.1f mm from the logs' tops", offsets[k], 1e3 * rest);
    ENSURE_MSG(moved < 0.03, "offset %g: the box moved %.0f mm", offsets[k], 1e3 * moved);
    tsr_test_world_free(&m, &w);
  }
}

// Kinetic plus potential energy of every moving body.
static double total_energy(const TsrWorld *w, TsrVec3 g) {
  const TsrBodies *b = &w->bodies;
  double e = 0.0;
  for (int k = 0; k < b->n; k++) {
    if (b->fixed[k]) continue;
    double mk = 1.0 / b->inv_mass[k];
    TsrVec3 L = tsr_bodies_angular_momentum(b, k);
    e += 0.5 * mk * tsr_v3_dot(b->v[k], b->v[k]) + 0.5 * tsr_v3_dot(L, b->w[k]) - mk * tsr_v3_dot(g, b->x[k]);
  }
  return e;
}

// A log-cabin crib of cylinders (8 layers of 3 logs, each layer across the
// one below) hit at its base by a rolling ball and brought down: contacts
// only take energy out (friction, damping), so kinetic plus potential
// energy never exceeds its start by more than 1% of the potential energy
// the collapse can release (the tower's height times its weight: what
// position correction may give back). Before, ODE's cylinder-cylinder gave
// crossing logs contacts 30-40 cm deep and threw logs at 80 m/s.
static void test_cylinder_crib_energy(void) {
  char yaml[16384];
  int len = snprintf(yaml, sizeof yaml,
                     "format: tessera-model/1\n"
                     "name: crib\n"
                     "settings: {step: 0.016666666666666666, duration: 4.0, contact: {margin: 0.005}}\n"
                     "materials: [{name: wood, friction: 0.5, compliance: 5.0e-8, damping: 0.5}]\n"
                     "bodies:\n"
                     "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0.0}}\n"
                     "  - {name: ball, mass: 500, shape: {type: sphere, radius: 0.3}, position: [-3, 0.3, 0.3],\n"
                     "     velocity: [5, 0, 0], angular_velocity: [0, 16.666666666666668, 0]}\n");
  const int layers = 8;
  for (int l = 0; l < layers; l++)
    for (int i = 0; i < 3; i++) {
      double off = -0.6 + 0.6 * i, z = 0.1 + 0.2 * l;
      len += snprintf(yaml + len, sizeof yaml - (size_t)len,
                      "  - {name: log_%d_%d, mass: 30, shape: {type: cylinder, radius: 0.1, length: 1.8},\n"
                      "     position: [%g, %g, %g], orientation: {axis: [%d, %d, 0], angle_deg: 90}}\n",
                      l, i, l % 2 ? off : 0.0, l % 2 ? 0.0 : off, z, l % 2 ? 1 : 0, l % 2 ? 0 : 1);
    }
  ENSURE(len < (int)sizeof yaml);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  const TsrVec3 g = m.settings.gravity;
  const double e0 = total_energy(&w, g), scale = 24 * 30 * tsr_v3_norm(g) * 0.2 * layers;
  double worst = -INFINITY, fastest = 0.0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    worst = fmax(worst, total_energy(&w, g) - e0);
    for (int k = 0; k < w.bodies.n; k++) fastest = fmax(fastest, tsr_v3_norm(w.bodies.v[k]));
  }
  fprintf(stderr, "cylinder crib: largest energy gain %.1f J (%.2f%% of %.0f J), fastest body %.2f m/s\n", worst,
          100 * worst / scale, scale, fastest);
  ENSURE_MSG(worst < 0.01 * scale, "the crib gained %.0f J", worst);
  tsr_test_world_free(&m, &w);
}

// Two boxes stacked exactly, the upper one turned about the vertical: their
// faces touch to round-off (0.15 + 0.3 = 0.44999999999999996 in double),
// where ODE's box-box clipping kept one point, outside both boxes, for most
// yaws between 20 and 85 degrees (collide.c, BOX_TOUCH): the top box sank
// 8 mm and tipped (direct-bpp), or threw the lower one 177 m (pgs-sm).
// Truth: the stack stands, each box within 0.1 mm of where it started over
// 1 s (the contact's compliance x weight is 1e-8 m), for every yaw, a 1:1
// and a 1:100 mass ratio, and each of direct-bpp, schur-bpp and pgs-sm.
static void test_yawed_boxes_touching(void) {
  const char *solvers[] = {"direct-bpp", "schur-bpp", "pgs-sm"};
  double worst = 0.0;
  for (int sv = 0; sv < 3; sv++)
    for (int yaw = 0; yaw <= 90; yaw += 5)
      for (int heavy = 0; heavy < 2; heavy++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "format: tessera-model/1\n"
                 "name: yawed\n"
                 "settings: {steps: 60, solver: {type: %s}}\n"
                 "bodies:\n"
                 "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0.0}}\n"
                 "  - {name: low, mass: 1, shape: {type: box, size: [0.6, 0.6, 0.3]}, position: [0, 0, 0.15]}\n"
                 "  - {name: top, mass: %g, shape: {type: box, size: [0.6, 0.6, 0.3]}, position: [0, 0, %.17g],\n"
                 "     orientation: {axis: [0, 0, 1], angle_deg: %d}}\n",
                 solvers[sv], heavy ? 100.0 : 1.0, 0.15 + 0.3, yaw);
        TsrModel m;
        TsrWorld w;
        tsr_test_world(yaml, NULL, 0, &m, &w);
        double moved = 0.0;
        int ok = 1;
        while (ok && w.step < m.settings.steps) {
          ok = tsr_world_step(&w) == 0;
          for (int k = 1; k <= 2; k++)
            moved = fmax(moved, tsr_v3_norm(tsr_v3_sub(w.bodies.x[k], m.bodies[k].position)));
        }
        ENSURE_MSG(ok && moved < 1e-4, "%s, yaw %d deg, top %s: a box moved %.3e m", solvers[sv], yaw,
                   heavy ? "100 kg" : "1 kg", moved);
        worst = fmax(worst, moved);
        tsr_test_world_free(&m, &w);
      }
  fprintf(stderr, "yawed boxes touching: largest motion %.3e m over 3 solvers x 19 yaws x 2 mass ratios\n", worst);
}

int main(void) {
  RUN_TEST(test_yawed_boxes_touching);
  RUN_TEST(test_stack_of_ten);
  RUN_TEST(test_mass_ratio);
  RUN_TEST(test_tower_margin_zero);
  RUN_TEST(test_log_pyramid);
  RUN_TEST(test_box_on_equal_logs);
  RUN_TEST(test_cylinder_crib_energy);
  return TSR_TEST_RESULT();
}
