// SPDX-License-Identifier: MIT
// A box falling edge-first onto the rim of a standing cylinder's cap, taken
// from a pile of mixed shapes (tests/scenes/test_mixed_pile.py, pile(11):
// bodies b22 and b38 at frame 30, poses and velocities as written). The
// box's edge (between its bottom face and a side face) crosses the rim
// 0.5 mm above it, approaching at 4.4 m/s along the edge-on-rim normal.
// The cylinder's rim point that touches (within the margin) lies just
// beside the box's side face, whose sideways normal it took; its points
// replaced ODE's, whose edge-on-rim contact had the normal along the
// approach, and the box's corners lay 4 cm above the cap: the box went
// 42 mm into the cylinder in one step and 92 mm in two. Now ODE's contact
// is kept beside the rim point (solid.c, tsr_solid_pair).
#include <string.h>

#include "tsr_test.h"
#include "sim_helpers.h"
#include "shape_overlap.h"

#include "contact/contact.h"

static const char *const model =
    "format: tessera-model/1\n"
    "name: box_on_rim\n"
    "settings: {step: 0.016666666666666666, duration: 0.1, contact: {max_per_pair: 4, margin: 0.005}}\n"
    "materials: [{name: m, friction: 0.5, compliance: 1.0e-9, damping: 2.0}]\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: -50.0}}\n"
    "  - {name: cyl, mass: 17.7, shape: {type: cylinder, radius: 0.108, length: 0.508},\n"
    "     position: [0.36317286561773965, -0.25653051347565264, 0.3918971539952268],\n"
    "     orientation: [0.05172106606534619, 0.4488117494061295, -0.8715086610762649, 0.1906976627783619],\n"
    "     velocity: [-0.05444991050139872, -0.20877116941610752, -0.28172267067689954],\n"
    "     angular_velocity: [-2.4030020420822154, 2.7816441736142745, 5.342435023352872]}\n"
    "  - {name: box, mass: 12.5, shape: {type: box, size: [0.114, 0.162, 0.105]},\n"
    "     position: [0.333, -0.29, 0.732875],\n"
    "     orientation: [-0.17140475997627774, 0.7881218864486843, 0.020500569308714668, 0.5908164071994452],\n"
    "     velocity: [0, 0, -4.905]}\n";

// The overlap of the two (shape_overlap.h; the cylinder's side at 141
// stations).
static double overlap(const TsrWorld *w) {
  return test_box_cylinder_overlap(w->bodies.x[2], w->bodies.q[2], tsr_v3(0.057, 0.081, 0.0525), w->bodies.x[1],
                                   w->bodies.q[1], 0.108, 0.254, 140, 144);
}

// The closest point of the cylinder (radius r, half length h, at (x, q)) to
// p outside it.
static TsrVec3 cylinder_nearest(TsrVec3 x, TsrQuat q, double r, double h, TsrVec3 p) {
  TsrVec3 y = tsr_q_rotate_inv(q, tsr_v3_sub(p, x));
  double rho = hypot(y.x, y.y), k = rho > r ? r / rho : 1.0;
  TsrVec3 c = tsr_v3(y.x * k, y.y * k, fmin(fmax(y.z, -h), h));
  return tsr_v3_add(x, tsr_q_rotate(q, c));
}

// The normal of the pair's closest points (pushing the cylinder away from
// the box) while they are apart: the box surface point nearest the
// cylinder, from the 41 x 41 grid of each face refined on a 401 x 401 grid
// over the coarse cells around it (to 1e-4 of a side), and the cylinder's
// point nearest that.
static TsrVec3 closest_normal(const TsrWorld *w) {
  const TsrVec3 xc = w->bodies.x[1], xb = w->bodies.x[2], hs = tsr_v3(0.057, 0.081, 0.0525);
  const TsrQuat qc = w->bodies.q[1], qb = w->bodies.q[2];
  double best = INFINITY, u[3] = {0, 0, 0};
  for (int i = 0; i <= 40; i++)
    for (int j = 0; j <= 40; j++)
      for (int k = 0; k <= 40; k++) {
        if (i % 40 && j % 40 && k % 40) continue;
        double a[3] = {i / 20.0 - 1, j / 20.0 - 1, k / 20.0 - 1};
        TsrVec3 l = tsr_v3(a[0] * hs.x, a[1] * hs.y, a[2] * hs.z);
        double d = test_cylinder_sd(xc, qc, 0.108, 0.254, tsr_v3_add(xb, tsr_q_rotate(qb, l)));
        if (d < best) best = d, memcpy(u, a, sizeof u);
      }
  // Refine on the face (or edge) the coarse point lies on: coordinates at
  // +-1 stay there, the others move within a coarse cell either way.
  double f[3];
  memcpy(f, u, sizeof f);
  for (int i = 0; i <= 400; i++)
    for (int j = 0; j <= 400; j++) {
      double a[3];
      int free_axis = 0;
      for (int c = 0; c < 3; c++) {
        if (fabs(u[c]) == 1.0) {
          a[c] = u[c];
          continue;
        }
        double t = (free_axis++ ? j : i) / 200.0 - 1;  // -1..1 over two coarse cells
        a[c] = fmin(fmax(u[c] + t / 20.0, -1.0), 1.0);
      }
      TsrVec3 l = tsr_v3(a[0] * hs.x, a[1] * hs.y, a[2] * hs.z);
      double d = test_cylinder_sd(xc, qc, 0.108, 0.254, tsr_v3_add(xb, tsr_q_rotate(qb, l)));
      if (d < best) best = d, memcpy(f, a, sizeof f);
    }
  TsrVec3 pb = tsr_v3_add(xb, tsr_q_rotate(qb, tsr_v3(f[0] * hs.x, f[1] * hs.y, f[2] * hs.z)));
  return tsr_v3_normalize(tsr_v3_sub(cylinder_nearest(xc, qc, 0.108, 0.254, pb), pb));
}

static void test_box_edge_onto_rim(void) {
  TsrModel m;
  TsrWorld w;
  tsr_test_world(model, NULL, 0, &m, &w);
  const double before = overlap(&w);
  ENSURE_MSG(before < 0.0 && before > -0.002, "gap %.2f mm at the start", -1e3 * before);
  // The edge-on-rim normal (pushing the cylinder, body[0], away from the
  // box): the normal of the closest points, the cap's tilted toward the
  // box's edge.
  const TsrVec3 want = closest_normal(&w);
  fprintf(stderr, "closest points' normal (%.4f %.4f %.4f)\n", want.x, want.y, want.z);
  ENSURE(tsr_contact_collide(&w.contacts, &m, &w.bodies) == 0);
  double best = -1.0;
  for (int i = 0; i < w.contacts.n; i++) {
    const TsrContact *c = &w.contacts.c[i];
    fprintf(stderr, "  contact %d-%d depth %.2f mm normal (%.3f %.3f %.3f)\n", c->body[0], c->body[1], 1e3 * c->depth,
            c->normal.x, c->normal.y, c->normal.z);
    if (c->body[0] == 1 && c->body[1] == 2) best = fmax(best, tsr_v3_dot(c->normal, want));
  }
  fprintf(stderr, "nearest normal %.1f degrees off the edge-on-rim one\n", acos(fmin(1.0, best)) * 180 / M_PI);
  // 3 degrees: ODE's edge-on-rim contact comes from its polygonised rim.
  ENSURE_MSG(best > cos(3 * M_PI / 180), "no contact within 3 degrees of the edge-on-rim normal (%.1f off)",
             acos(fmin(1.0, best)) * 180 / M_PI);
  const double worst = fmax(before, test_worst_overlap(&w, 3, overlap));
  // before: 42 mm after one step
  ENSURE_MSG(worst < 0.005, "the box went %.1f mm into the cylinder", 1e3 * worst);
  tsr_test_world_free(&m, &w);
}

int main(void) {
  RUN_TEST(test_box_edge_onto_rim);
  return TSR_TEST_RESULT();
}
