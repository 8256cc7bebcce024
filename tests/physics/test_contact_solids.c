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
// side: two contacts, at the ends of the overlap of their lengths.
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

int main(void) {
  RUN_TEST(test_crossing_cylinders);
  RUN_TEST(test_parallel_cylinders);
  return TSR_TEST_RESULT();
}
