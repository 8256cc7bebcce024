// SPDX-License-Identifier: MIT
// Contact and joints together: a chain of 30 capsule links (ball joints)
// draped over a fixed box stays on it: after 4 s its
// middle rests on the top face, it has not slid off to either side, no link
// has sunk into the box, and the joints hold. The hanging sides keep swinging
// against the box's walls (nothing damps a hanging chain but contact), so
// speeds are printed, not checked. The joint error peaks (~1 mm) as the top
// links drop the 1 mm onto the box: the position-level drift of a
// velocity-level step, O(h^2 w^2 L).
#include "sim_helpers.h"
#include "tsr_test.h"

// Appends one link (capsule along x or z) to the YAML text.
static void add_link(char *y, size_t cap, int i, double x, double z, int vertical) {
  size_t n = strlen(y);
  snprintf(
      y + n, cap - n,
      "  - {name: l%d, mass: 0.25, shape: {type: capsule, radius: 0.02, length: 0.06}, position: [%.6f, 0, %.6f]%s}\n",
      i, x, z, vertical ? "" : ", orientation: {axis: [0, 1, 0], angle_deg: 90}");
}

static void test_chain_drape(void) {
  // 10 links across the top of a 1 m box (top face z = 1), 10 down each side
  // (sides x = +-0.5), 1 mm clear of the surfaces; ball joints at the link
  // ends, the two corner joints at the box's edges.
  static char yaml[16384];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: drape\n"
           "settings: {duration: 4.0, solver: {type: direct-bpp}, contact: {margin: 0.005}}\n"
           "materials: [{name: m, friction: 0.5, compliance: 1.0e-9, damping: 2.0}]\n"
           "bodies:\n"
           "  - {name: table, fixed: true, shape: {type: box, size: [1.0, 1.0, 1.0]}, position: [0, 0, 0.5]}\n");
  int k = 0;
  for (int i = 9; i >= 0; i--) add_link(yaml, sizeof yaml, k++, -0.521, 0.95 - 0.1 * i, 1);
  for (int i = 0; i < 10; i++) add_link(yaml, sizeof yaml, k++, -0.45 + 0.1 * i, 1.021, 0);
  for (int i = 0; i < 10; i++) add_link(yaml, sizeof yaml, k++, 0.521, 0.95 - 0.1 * i, 1);
  size_t n = strlen(yaml);
  n += (size_t)snprintf(yaml + n, sizeof yaml - n, "joints:\n");
  for (int j = 0; j < 29; j++) {
    double ax, az;
    if (j < 9)
      ax = -0.521, az = 0.0 + 0.1 * (j + 1);  // left side, going up
    else if (j == 9)
      ax = -0.521, az = 1.021;  // left edge
    else if (j < 19)
      ax = -0.5 + 0.1 * (j - 9), az = 1.021;  // top
    else if (j == 19)
      ax = 0.521, az = 1.021;  // right edge
    else
      ax = 0.521, az = 0.9 - 0.1 * (j - 20);  // right side, going down
    n += (size_t)snprintf(yaml + n, sizeof yaml - n,
                          "  - {name: j%d, type: ball, bodies: [l%d, l%d], anchor: [%.6f, 0, %.6f]}\n", j, j, j + 1, ax,
                          az);
  }
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  double pen = 0, jerr = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    if (w.step > 10 && w.stats.penetration > pen) pen = w.stats.penetration;
    if (w.stats.joint_error > jerr) jerr = w.stats.joint_error;
  }
  double xmid = 0.5 * (w.bodies.x[15].x + w.bodies.x[16].x), zmid = w.bodies.x[15].z, zmin = INFINITY;
  // bodies: 0 table, 1-10 left side, 11-20 top, 21-30 right side
  for (int k = 1; k <= 30; k++) zmin = fmin(zmin, w.bodies.x[k].z);
  double vmax = 0;
  for (int k = 1; k <= 30; k++) vmax = fmax(vmax, tsr_v3_norm(w.bodies.v[k]));
  fprintf(stderr,
          "drape: middle at x %.4f z %.4f, ends at z %.3f %.3f, lowest link z %.3f, max penetration %.2e m, joint "
          "error %.2e m, "
          "max speed %.2e m/s, %d contacts\n",
          xmid, zmid, w.bodies.x[1].z, w.bodies.x[30].z, zmin, pen, jerr, vmax, w.contacts.n);
  ENSURE(fabs(xmid) < 0.05);
  ENSURE(zmid > 1.0 && zmid < 1.03);
  // The ends hang where they started (they settle by ~1.5 cm as the top links
  // drop onto the box); a chain sliding off would pull one end up.
  ENSURE(fabs(w.bodies.x[1].z - 0.05) < 0.03 && fabs(w.bodies.x[30].z - 0.05) < 0.03);
  ENSURE(pen < 5e-3);
  ENSURE(jerr < 2e-3);
  tsr_test_world_free(&m, &w);
}

// A chain of N capsule links lying flat on a plane, ball joints at the link
// ends: each link touches with both end caps, and under each of the N - 1
// joints two caps (one per link) meet the plane with the same normal. One of
// each such pair adds no constraint (the joint ties the two points) and is
// not made (collide.c, drop_joint_duplicates): N + 1 contacts, not 2N. The
// chain still rests: no link sinks (penetration under 0.1 mm, the weight on
// a contact of compliance 1e-9 is ~1e-9 m), none moves, every step
// converged. With ball joints that ask for collision, with distance joints
// between the link centres (they tie no point), or with loose links, all 2N
// contacts with the plane are kept.
enum { BALL, BALL_COLLIDE, DISTANCE, LOOSE };

static void chain_on_plane(int n_links, int kind, int *contacts, double *pen, double *vmax, int *failed) {
  static char yaml[16384];
  size_t n = (size_t)snprintf(yaml, sizeof yaml,
                              "format: tessera-model/1\n"
                              "name: flat\n"
                              "settings: {duration: 1.0, solver: {type: direct-bpp}, contact: {margin: 0.005}}\n"
                              "materials: [{name: m, friction: 0.5, compliance: 1.0e-9, damping: 2.0}]\n"
                              "bodies:\n"
                              "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0}}\n");
  for (int i = 0; i < n_links; i++) add_link(yaml, sizeof yaml, i, 0.1 * i, 0.0201, 0);
  if (kind != LOOSE) {
    n = strlen(yaml);
    n += (size_t)snprintf(yaml + n, sizeof yaml - n, "joints:\n");
    for (int j = 0; j + 1 < n_links; j++) {
      if (kind == DISTANCE)
        n += (size_t)snprintf(
            yaml + n, sizeof yaml - n,
            "  - {name: j%d, type: distance, bodies: [l%d, l%d], anchors: [[%.6f, 0, 0.0201], [%.6f, 0, 0.0201]]}\n", j,
            j, j + 1, 0.1 * j, 0.1 * (j + 1));
      else
        n += (size_t)snprintf(yaml + n, sizeof yaml - n,
                              "  - {name: j%d, type: ball, bodies: [l%d, l%d], anchor: [%.6f, 0, 0.0201]%s}\n", j, j,
                              j + 1, 0.1 * j + 0.05, kind == BALL_COLLIDE ? ", collide: true" : "");
    }
  }
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  *pen = *vmax = 0.0;
  *failed = 0;
  *contacts = -1;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    if (*contacts < 0) {  // contacts with the plane (body 0) in the first step
      *contacts = 0;
      for (int i = 0; i < w.contacts.n; i++) *contacts += w.contacts.c[i].body[0] == 0 || w.contacts.c[i].body[1] == 0;
    }
    *failed += !w.stats.converged;
    if (w.stats.penetration > *pen) *pen = w.stats.penetration;
  }
  for (int k = 1; k <= n_links; k++) *vmax = fmax(*vmax, tsr_v3_norm(w.bodies.v[k]));
  tsr_test_world_free(&m, &w);
}

static void test_joint_duplicate_contacts(void) {
  const int N = 12;
  int c, failed;
  double pen, vmax;
  chain_on_plane(N, BALL, &c, &pen, &vmax, &failed);
  fprintf(stderr, "flat chain: %d contacts, penetration %.2e m, max speed %.2e m/s, %d steps not converged\n", c, pen,
          vmax, failed);
  ENSURE_MSG(c == N + 1, "%d contacts, expected %d", c, N + 1);
  ENSURE(pen < 1e-4);
  ENSURE(vmax < 1e-3);
  ENSURE(failed == 0);
  chain_on_plane(N, BALL_COLLIDE, &c, &pen, &vmax, &failed);
  ENSURE_MSG(c == 2 * N, "collide: true: %d contacts, expected %d", c, 2 * N);
  chain_on_plane(N, DISTANCE, &c, &pen, &vmax, &failed);
  ENSURE_MSG(c == 2 * N, "distance joints: %d contacts, expected %d", c, 2 * N);
  chain_on_plane(N, LOOSE, &c, &pen, &vmax, &failed);
  ENSURE_MSG(c == 2 * N, "loose links: %d contacts, expected %d", c, 2 * N);
}

int main(void) {
  RUN_TEST(test_chain_drape);
  RUN_TEST(test_joint_duplicate_contacts);
  return TSR_TEST_RESULT();
}
