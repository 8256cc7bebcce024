// SPDX-License-Identifier: MIT
// The narrow phase of cylinders against cylinders (src/contact/solid.c),
// against geometry computed here. Two crossing cylinders whose axes'
// closest points lie inside both axis segments touch side to side exactly
// as two capsules would: one contact, depth r_a + r_b - d (d: the axes'
// distance), normal along the axes' common perpendicular. Checked on 200
// random crossings (angles 12-90 degrees, depths 0-3 cm, any point along
// either log) to 1e-9 m and 1e-9 in the normal. ODE's cylinder-cylinder
// (libccd) made contacts 30-40 cm deep with sideways normals for the
// crossing logs of a falling cylinder tower. Parallel cylinders side by
// side: two contacts, at the ends of the overlap of their lengths. Two
// boxes face to face, apart: contacts on the patch where the faces
// overlap, with the faces' normal and the exact gap.
#include <math.h>
#include <stdio.h>

#include "sim_helpers.h"
#include "tsr_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double uniform(double lo, double hi) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

// The rotation taking body z onto the unit vector u.
static TsrQuat z_onto(TsrVec3 u) {
  TsrVec3 axis = tsr_v3_cross(tsr_v3(0, 0, 1), u);
  double sn = tsr_v3_norm(axis);
  if (sn < 1e-12) return u.z > 0 ? tsr_q_identity() : tsr_q_axis_angle(tsr_v3(1, 0, 0), M_PI);
  return tsr_q_axis_angle(tsr_v3_scale(axis, 1.0 / sn), atan2(sn, u.z));
}

static void test_crossing_cylinders(void) {
  const double ra = 0.1, rb = 0.15, la = 2.0, lb = 1.5;
  double worst_depth = 0.0, worst_normal = 0.0;
  for (int trial = 0; trial < 200; trial++) {
    // a along x through the origin; b's axis at angle ang to it in a
    // plane turned by phi about x, crossing at a's point s, at b's point t,
    // its axis offset from a's by d along the common perpendicular
    const double ang = uniform(12.0, 90.0) * M_PI / 180.0, phi = uniform(0.0, 2 * M_PI);
    const double s = uniform(-0.45, 0.45) * la, t = uniform(-0.45, 0.45) * lb, depth = uniform(0.0, 0.03);
    const double d = ra + rb - depth;
    TsrVec3 ub = tsr_v3(cos(ang), sin(ang) * cos(phi), sin(ang) * sin(phi));
    TsrVec3 nrm = tsr_v3_normalize(tsr_v3_cross(tsr_v3(1, 0, 0), ub));  // common perpendicular
    TsrVec3 cb = tsr_v3_madd(tsr_v3_madd(tsr_v3(s, 0, 0), nrm, d), ub, -t);
    // b's orientation: body z onto ub
    TsrQuat qb = z_onto(ub);
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: tessera-model/1\n"
             "name: crossing\n"
             "settings: {gravity: [0, 0, 0]}\n"
             "materials: [{name: m, friction: 0.5}]\n"
             "bodies:\n"
             "  - {name: a, mass: 10, shape: {type: cylinder, radius: %g, length: %g},\n"
             "     orientation: {axis: [0, 1, 0], angle_deg: 90}}\n"
             "  - {name: b, mass: 10, shape: {type: cylinder, radius: %g, length: %g},\n"
             "     position: [%.17g, %.17g, %.17g], orientation: [%.17g, %.17g, %.17g, %.17g]}\n",
             ra, la, rb, lb, cb.x, cb.y, cb.z, qb.w, qb.x, qb.y, qb.z);
    TsrModel m;
    TsrWorld w;
    tsr_test_world(yaml, NULL, 0, &m, &w);
    ENSURE(tsr_contact_collide(&w.contacts, &m, &w.bodies) == 0);
    ENSURE_MSG(w.contacts.n == 1, "trial %d: %d contacts", trial, w.contacts.n);
    if (w.contacts.n == 1) {
      const TsrContact *c = &w.contacts.c[0];
      // the normal pushes body 0 (a) away from b: along -nrm (b lies along +nrm)
      double dn = tsr_v3_norm(tsr_v3_add(c->normal, nrm));
      worst_depth = fmax(worst_depth, fabs(c->depth - depth));
      worst_normal = fmax(worst_normal, dn);
      ENSURE_MSG(fabs(c->depth - depth) < 1e-9, "trial %d: depth %.6f, true %.6f", trial, c->depth, depth);
      ENSURE_MSG(dn < 1e-9, "trial %d: normal off by %.2e", trial, dn);
    }
    tsr_test_world_free(&m, &w);
  }
  fprintf(stderr, "200 crossings: depth within %.1e m, normal within %.1e\n", worst_depth, worst_normal);
}

// Two equal logs side by side, ends level, the pair turned at random: the
// rim points at each end lie on the other's end to rounding, and where both
// fell beyond it the pair kept one contact, at its other end (it rocked).
// Two contacts, a length apart along the axes, each r_a + r_b - d deep.
static void test_equal_logs_aligned(void) {
  const double r = 0.1, len = 1.0;
  int ok = 0;
  for (int trial = 0; trial < 200; trial++) {
    const TsrVec3 axis = tsr_v3_normalize(tsr_v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)));
    const TsrQuat q = tsr_q_axis_angle(axis, uniform(0, 2 * M_PI));
    const TsrVec3 z = tsr_q_rotate(q, tsr_v3(0, 0, 1));
    TsrVec3 across = tsr_v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    across = tsr_v3_normalize(tsr_v3_madd(across, z, -tsr_v3_dot(across, z)));
    const double depth = uniform(0.001, 0.01);
    const TsrVec3 xb = tsr_v3_scale(across, 2 * r - depth);
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: tessera-model/1\n"
             "name: logs\n"
             "settings: {gravity: [0, 0, 0]}\n"
             "materials: [{name: m, friction: 0.5}]\n"
             "bodies:\n"
             "  - {name: a, mass: 10, shape: {type: cylinder, radius: %g, length: %g},\n"
             "     orientation: [%.17g, %.17g, %.17g, %.17g]}\n"
             "  - {name: b, mass: 10, shape: {type: cylinder, radius: %g, length: %g},\n"
             "     position: [%.17g, %.17g, %.17g], orientation: [%.17g, %.17g, %.17g, %.17g]}\n",
             r, len, q.w, q.x, q.y, q.z, r, len, xb.x, xb.y, xb.z, q.w, q.x, q.y, q.z);
    TsrModel m;
    TsrWorld w;
    tsr_test_world(yaml, NULL, 0, &m, &w);
    ENSURE(tsr_contact_collide(&w.contacts, &m, &w.bodies) == 0);
    int good = w.contacts.n == 2;
    for (int k = 0; good && k < 2; k++) good = fabs(w.contacts.c[k].depth - depth) < 1e-9;
    if (good)  // at the two ends: a length apart along the axes
      good = fabs(fabs(tsr_v3_dot(tsr_v3_sub(w.contacts.c[0].point, w.contacts.c[1].point), z)) - len) < 1e-9;
    ENSURE_MSG(good, "trial %d: %d contacts (%.4f mm deep first), want 2 at the ends, %.4f mm deep", trial,
               w.contacts.n, w.contacts.n ? 1e3 * w.contacts.c[0].depth : 0.0, 1e3 * depth);
    ok += good;
    tsr_test_world_free(&m, &w);
  }
  fprintf(stderr, "equal logs side by side, turned at random: %d of 200 with both end contacts\n", ok);
}

// Two parallel cylinders side by side (logs in a pile), b shifted along
// the common axis direction: they touch along the overlap of their
// lengths, and the contacts are its two ends (at b's or a's rims), each
// with depth r_a + r_b - d and the normal across the axes. Equal lengths
// and no shift included (a rim point then lies on the other's cap edge).
static void test_parallel_cylinders(void) {
  const double ra = 0.1, rb = 0.12, la = 2.0;
  for (int trial = 0; trial < 60; trial++) {
    const double lb = trial < 10 ? la : uniform(0.5, 3.0), shift = trial < 5 ? 0.0 : uniform(-0.8, 0.8);
    const double phi = uniform(0.0, 2 * M_PI), depth = uniform(0.0, 0.02), d = ra + rb - depth;
    const TsrVec3 across = tsr_v3(0, cos(phi), sin(phi));
    const double lo = fmax(-0.5 * la, shift - 0.5 * lb), hi = fmin(0.5 * la, shift + 0.5 * lb);
    if (!(hi - lo > 0.05)) continue;
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: tessera-model/1\n"
             "name: parallel\n"
             "settings: {gravity: [0, 0, 0]}\n"
             "materials: [{name: m, friction: 0.5}]\n"
             "bodies:\n"
             "  - {name: a, mass: 10, shape: {type: cylinder, radius: %g, length: %g},\n"
             "     orientation: {axis: [0, 1, 0], angle_deg: 90}}\n"
             "  - {name: b, mass: 10, shape: {type: cylinder, radius: %g, length: %.17g},\n"
             "     position: [%.17g, %.17g, %.17g], orientation: {axis: [0, 1, 0], angle_deg: 90}}\n",
             ra, la, rb, lb, shift, d * across.y, d * across.z);
    TsrModel m;
    TsrWorld w;
    tsr_test_world(yaml, NULL, 0, &m, &w);
    ENSURE(tsr_contact_collide(&w.contacts, &m, &w.bodies) == 0);
    ENSURE_MSG(w.contacts.n == 2, "trial %d: %d contacts", trial, w.contacts.n);
    double xs[2] = {0, 0};
    for (int k = 0; k < w.contacts.n && k < 2; k++) {
      const TsrContact *c = &w.contacts.c[k];
      ENSURE_MSG(fabs(c->depth - depth) < 1e-9, "trial %d: depth %.6f, true %.6f", trial, c->depth, depth);
      ENSURE_MSG(tsr_v3_norm(tsr_v3_add(c->normal, across)) < 1e-9, "trial %d: normal (%g %g %g)", trial, c->normal.x,
                 c->normal.y, c->normal.z);
      xs[k] = c->point.x;
    }
    // the contacts at the ends of the overlap [lo, hi]
    const double a0 = fmin(xs[0], xs[1]), a1 = fmax(xs[0], xs[1]);
    ENSURE_MSG(fabs(a0 - lo) < 1e-9 && fabs(a1 - hi) < 1e-9,
               "trial %d: contacts at x = %.4f, %.4f, overlap [%.4f, %.4f]", trial, a0, a1, lo, hi);
    tsr_test_world_free(&m, &w);
  }
}

// Is p within the rectangle of half-sizes (hx, hy) centred at c with
// in-plane axes u, v (to rounding)?
static int in_rectangle(TsrVec3 p, TsrVec3 c, TsrVec3 u, TsrVec3 v, double hx, double hy) {
  TsrVec3 d = tsr_v3_sub(p, c);
  return fabs(tsr_v3_dot(d, u)) <= hx + 1e-9 && fabs(tsr_v3_dot(d, v)) <= hy + 1e-9;
}

// Box b above box a, apart by a gap g along a's top face normal n, each
// turned its own way about n, b shifted across so the faces overlap; the
// whole pair turned to a random orientation. b moves toward a at 5 m/s, so
// the gap is within this step's reach (tsr_solid_box_faces). Truths: at
// least three contacts (the overlap of two rectangles is a polygon) and at
// most max_per_pair; each with the normal -n (it pushes a, body 0, away
// from b), depth -g, and its point on a's top face or b's bottom face,
// inside both faces' rectangles, to 1e-9. Before, where no corner of
// either lay over the other's face, the corners' contacts had normals
// from the other's edges.
static void test_box_faces(void) {
  int cases = 0;
  for (int trial = 0; trial < 200; trial++) {
    const double ax = uniform(0.3, 2.0), ay = uniform(0.1, 0.6), bx = uniform(0.3, 2.0), by = uniform(0.1, 0.6);
    const double ta = uniform(0.0, M_PI), tb = uniform(0.0, M_PI), g = uniform(1e-4, 0.03);
    const double ox = uniform(-0.03, 0.03), oy = uniform(-0.03, 0.03);  // b's centre over a's face
    TsrQuat R = tsr_q_normalize((TsrQuat){uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)});
    TsrVec3 n = tsr_q_rotate(R, tsr_v3(0, 0, 1));
    TsrQuat qa = tsr_q_mul(R, tsr_q_axis_angle(tsr_v3(0, 0, 1), ta));
    TsrQuat qb = tsr_q_mul(R, tsr_q_axis_angle(tsr_v3(0, 0, 1), tb));
    TsrVec3 cb = tsr_q_rotate(R, tsr_v3(ox, oy, 0.1 + g + 0.15));  // a is 0.2 thick, b 0.3
    TsrVec3 vb = tsr_v3_scale(n, -5.0);
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: tessera-model/1\n"
             "name: faces\n"
             "settings: {gravity: [0, 0, 0]}\n"
             "bodies:\n"
             "  - {name: a, fixed: true, shape: {type: box, size: [%.17g, %.17g, 0.2]},\n"
             "     orientation: [%.17g, %.17g, %.17g, %.17g]}\n"
             "  - {name: b, mass: 10, shape: {type: box, size: [%.17g, %.17g, 0.3]},\n"
             "     position: [%.17g, %.17g, %.17g], orientation: [%.17g, %.17g, %.17g, %.17g],\n"
             "     velocity: [%.17g, %.17g, %.17g]}\n",
             ax, ay, qa.w, qa.x, qa.y, qa.z, bx, by, cb.x, cb.y, cb.z, qb.w, qb.x, qb.y, qb.z, vb.x, vb.y, vb.z);
    TsrModel m;
    TsrWorld w;
    tsr_test_world(yaml, NULL, 0, &m, &w);
    ENSURE(tsr_contact_collide(&w.contacts, &m, &w.bodies) == 0);
    const int nc = w.contacts.n;
    ENSURE_MSG(nc >= 3 && nc <= m.settings.contact.max_per_pair, "trial %d: %d contacts", trial, nc);
    TsrVec3 ua = tsr_q_rotate(qa, tsr_v3(1, 0, 0)), va = tsr_q_rotate(qa, tsr_v3(0, 1, 0));
    TsrVec3 ub = tsr_q_rotate(qb, tsr_v3(1, 0, 0)), vb2 = tsr_q_rotate(qb, tsr_v3(0, 1, 0));
    TsrVec3 top = tsr_v3_scale(n, 0.1), bottom = tsr_v3_madd(cb, n, -0.15);  // the two faces' centres
    for (int k = 0; k < nc; k++) {
      const TsrContact *c = &w.contacts.c[k];
      ENSURE_MSG(tsr_v3_norm(tsr_v3_add(c->normal, n)) < 1e-9, "trial %d: normal off by %.2e", trial,
                 tsr_v3_norm(tsr_v3_add(c->normal, n)));
      ENSURE_MSG(fabs(c->depth + g) < 1e-9, "trial %d: depth %.9f, gap %.9f", trial, c->depth, g);
      double h = tsr_v3_dot(tsr_v3_sub(c->point, top), n);
      ENSURE_MSG(fabs(h) < 1e-9 || fabs(h - g) < 1e-9, "trial %d: point %.3e off a's top, gap %.3e", trial, h, g);
      TsrVec3 pa = tsr_v3_madd(c->point, n, -h), pb = tsr_v3_madd(pa, n, g);  // on a's face, on b's
      ENSURE_MSG(
          in_rectangle(pa, top, ua, va, 0.5 * ax, 0.5 * ay) && in_rectangle(pb, bottom, ub, vb2, 0.5 * bx, 0.5 * by),
          "trial %d: contact %d outside the overlap", trial, k);
    }
    cases++;
    tsr_test_world_free(&m, &w);
  }
  fprintf(stderr, "%d face-to-face box pairs checked\n", cases);
}

// Two discs of length 2e-9 m (the thinnest a radius of 1 m allows, model/
// shapes.c) 1e8 m from the origin, where a coordinate's rounding step is
// 1.5e-8 m, so that both ends of a disc round into one plane; coaxial,
// turned about their axis, one 1 mm over the other: every rim point of a disc
// is then on both its ends, none is skipped as a far end, and caps_facing
// (solid.c) took 16 rim candidates into room for 12 (seen: an ASan
// stack-buffer-overflow). The contacts are the facing ends': at most 4 (one
// pair's), normal along the axis, 1 mm apart (depth -1 mm) to 1e-7 m (a few
// rounding steps of the coordinates).
static void test_flat_discs(void) {
  for (int trial = 0; trial < 20; trial++) {
    const double yaw = trial ? uniform(0, 2 * M_PI) : 0.0;
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: tessera-model/1\n"
             "name: discs\n"
             "materials: [{name: m, friction: 0.5}]\n"
             "bodies:\n"
             "  - {name: a, mass: 1, shape: {type: cylinder, radius: 1, length: 2.0e-9}, position: [0, 0, 1.0e+8]}\n"
             "  - {name: b, mass: 1, shape: {type: cylinder, radius: 1, length: 2.0e-9},\n"
             "     position: [0, 0, 100000000.001], orientation: {axis: [0, 0, 1], angle: %.17g}}\n",
             yaw);
    TsrModel m;
    TsrWorld w;
    tsr_test_world(yaml, NULL, 0, &m, &w);
    ENSURE(tsr_contact_collide(&w.contacts, &m, &w.bodies) == 0);
    int good = w.contacts.n >= 1 && w.contacts.n <= 4;
    for (int k = 0; good && k < w.contacts.n; k++)
      good = fabs(fabs(w.contacts.c[k].normal.z) - 1.0) < 1e-9 && fabs(w.contacts.c[k].depth + 0.001) < 1e-7;
    ENSURE_MSG(good, "yaw %.3f: %d contacts (first: normal z %.6f, depth %.6g m), want 1 to 4 along z, 1 mm apart", yaw,
               w.contacts.n, w.contacts.n ? w.contacts.c[0].normal.z : 0.0, w.contacts.n ? w.contacts.c[0].depth : 0.0);
    tsr_test_world_free(&m, &w);
  }
}

int main(void) {
  RUN_TEST(test_crossing_cylinders);
  RUN_TEST(test_equal_logs_aligned);
  RUN_TEST(test_parallel_cylinders);
  RUN_TEST(test_box_faces);
  RUN_TEST(test_flat_discs);
  return TSR_TEST_RESULT();
}
