// SPDX-License-Identifier: MIT
// The contacts of a pair of shapes do not depend on which of the two the
// model lists first. Random pairs of solids (sphere, box, capsule, log: a
// cylinder longer than wide, disc: one wider than long), each turned at
// random, are placed along a random direction (by bisection) so that
// their deepest contact is between 4 mm apart (speculative, inside the
// 5 mm margin) and 2 cm deep, then collided listed as (A, B) and as
// (B, A): the same contacts (count, points, depths, and normals as they
// push A) to 1e-7 m, far below any length of the shapes (radii from 3 cm,
// the 5 mm margin) and above round-off, which the closest points of two
// nearly parallel capsules' axes amplify (1.3e-8 m seen at 0.002 degrees
// apart, where ODE's capsule-capsule takes its parallel branch). A
// second family has boxes, capsules and cylinders turned within 10 degrees
// of each other (logs side by side, stacked boxes), where the side-by-side
// and face-on-face contacts are made.
// Found: a disc listed before a log lying across it got a contact 12 cm
// deep where the log-first order gave 3.6 cm; ODE's cylinder-cylinder
// (libccd) gave rim-on-rim normals up to 20 degrees apart; and where a
// log's rim point and a disc's lay within the dedup distance, the first
// one made was kept, 2.5 mm deep in one order and 8 mm in the other.
#include <math.h>
#include <stdio.h>

#include "sim_helpers.h"
#include "tsr_test.h"

#include "contact/contact.h"

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static double uniform(double lo, double hi) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

enum { SPHERE, BOX, CAPSULE, LOG, DISC, KINDS };
static const char *const KIND[KINDS] = {"sphere", "box", "capsule", "log", "disc"};

static void shape_yaml(int k, char *out, size_t n) {
  double r;
  switch (k) {
    case SPHERE:
      snprintf(out, n, "{type: sphere, radius: %.4f}", uniform(0.05, 0.3));
      break;
    case BOX:
      snprintf(out, n, "{type: box, size: [%.4f, %.4f, %.4f]}", uniform(0.1, 0.6), uniform(0.1, 0.6),
               uniform(0.1, 0.6));
      break;
    case CAPSULE:
      snprintf(out, n, "{type: capsule, radius: %.4f, length: %.4f}", uniform(0.03, 0.2), uniform(0.1, 0.8));
      break;
    case LOG:
      r = uniform(0.05, 0.2);
      snprintf(out, n, "{type: cylinder, radius: %.4f, length: %.4f}", r, uniform(3.0 * r, 1.0));
      break;
    default:
      r = uniform(0.1, 0.4);
      snprintf(out, n, "{type: cylinder, radius: %.4f, length: %.4f}", r, uniform(0.2 * r, 1.5 * r));
  }
}

typedef struct {
  int n;
  TsrVec3 p[16], nrm[16];  // normal as it pushes A
  double depth[16];
} Contacts;

// Collides A and B (YAML bodies), listed B first when b_first.
static void collide(const char *a, const char *b, int b_first, Contacts *out) {
  char yaml[2048];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: pair\n"
           "settings: {step: 0.016666666666666666, gravity: [0, 0, 0],\n"
           "           contact: {max_per_pair: 4, margin: 0.005}}\n"
           "materials: [{name: m, friction: 0.5}]\n"
           "bodies:\n"
           "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: -50.0}}\n"
           "  - %s\n"
           "  - %s\n",
           b_first ? b : a, b_first ? a : b);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  ENSURE(tsr_contact_collide(&w.contacts, &m, &w.bodies) == 0);
  const int body_a = b_first ? 2 : 1;
  out->n = 0;
  for (int i = 0; i < w.contacts.n && out->n < 16; i++) {
    const TsrContact *c = &w.contacts.c[i];
    out->p[out->n] = c->point;
    out->nrm[out->n] = c->body[0] == body_a ? c->normal : tsr_v3_neg(c->normal);
    out->depth[out->n++] = c->depth;
  }
  tsr_test_world_free(&m, &w);
}

static double deepest(const Contacts *c) {
  double d = -INFINITY;
  for (int i = 0; i < c->n; i++) d = fmax(d, c->depth[i]);
  return d;
}

static char body_a[512], body_b[512];
static double worst_seen;  // the largest difference between the orders, over the pairs

// B's body at offset t along dir from A's centre (0, 0, 1).
static void place_b(const char *shape, TsrVec3 axis, double angle, TsrVec3 dir, double t) {
  snprintf(body_b, sizeof body_b,
           "{name: B, mass: 7, shape: %s, position: [%.12f, %.12f, %.12f],\n"
           "     orientation: {axis: [%.9f, %.9f, %.9f], angle: %.9f}}",
           shape, t * dir.x, t * dir.y, 1.0 + t * dir.z, axis.x, axis.y, axis.z, angle);
}

// One pair: A given (body_a), B of shape sb turned by angle about axis,
// moved along dir until its deepest contact with A is `target` deep; then
// both orders compared. Returns 1 when they agree, 0 when not, and -1
// when no contact was found at the placement (not counted).
static int check_pair(const char *what, int trial, const char *sb, TsrVec3 axis, double angle, TsrVec3 dir,
                      double target) {
  double lo = 0.0, hi = 3.0;  // A and B overlap at 0 and are apart at 3 m
  Contacts c[2];
  for (int it = 0; it < 40; it++) {
    const double mid = 0.5 * (lo + hi);
    place_b(sb, axis, angle, dir, mid);
    collide(body_a, body_b, 0, &c[0]);
    if (deepest(&c[0]) > target)
      lo = mid;
    else
      hi = mid;
  }
  place_b(sb, axis, angle, dir, lo);
  collide(body_a, body_b, 0, &c[0]);
  collide(body_a, body_b, 1, &c[1]);
  if (c[0].n == 0 && c[1].n == 0) return -1;
  int ok = c[0].n == c[1].n;
  double worst = 0.0;
  for (int i = 0; i < c[0].n && ok; i++) {  // each contact of one order has its twin in the other
    double best = INFINITY;
    for (int j = 0; j < c[1].n; j++) {
      double e = fmax(tsr_v3_norm(tsr_v3_sub(c[0].p[i], c[1].p[j])), fabs(c[0].depth[i] - c[1].depth[j]));
      e = fmax(e, tsr_v3_norm(tsr_v3_sub(c[0].nrm[i], c[1].nrm[j])));
      best = fmin(best, e);
    }
    worst = fmax(worst, best);
  }
  if (c[0].n == c[1].n) worst_seen = fmax(worst_seen, worst);
  ok = ok && worst < 1e-7;
  ENSURE_MSG(ok, "%s trial %d: %d contacts (deepest %.2f mm) listed A first, %d (%.2f mm) B first, differ by %.2e",
             what, trial, c[0].n, 1e3 * deepest(&c[0]), c[1].n, 1e3 * deepest(&c[1]), worst);
  if (!ok) {
    fprintf(stderr, "  A: %s\n  B: %s\n", body_a, body_b);
    for (int o = 0; o < 2; o++)
      for (int i = 0; i < c[o].n; i++)
        fprintf(stderr, "  %s first: depth %.6f at (%.6f, %.6f, %.6f), normal on A (%.4f, %.4f, %.4f)\n", o ? "B" : "A",
                c[o].depth[i], c[o].p[i].x, c[o].p[i].y, c[o].p[i].z, c[o].nrm[i].x, c[o].nrm[i].y, c[o].nrm[i].z);
  }
  return ok;
}

static TsrVec3 random_unit(void) {
  for (;;) {
    TsrVec3 v = tsr_v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    double n = tsr_v3_norm(v);
    if (n > 0.1 && n <= 1.0) return tsr_v3_scale(v, 1.0 / n);
  }
}

static void test_any_pair(void) {
  int pairs[KINDS][KINDS] = {{0}}, checked = 0;
  for (int trial = 0; trial < 2000; trial++) {
    const int ka = (int)uniform(0, KINDS), kb = (int)uniform(0, KINDS);
    char sa[200], sb[200];
    shape_yaml(ka, sa, sizeof sa), shape_yaml(kb, sb, sizeof sb);
    const TsrVec3 axa = random_unit(), axb = random_unit(), dir = random_unit();
    snprintf(body_a, sizeof body_a,
             "{name: A, mass: 5, shape: %s, position: [0, 0, 1],\n"
             "     orientation: {axis: [%.9f, %.9f, %.9f], angle: %.9f}}",
             sa, axa.x, axa.y, axa.z, uniform(0, 2 * M_PI));
    char what[32];
    snprintf(what, sizeof what, "%s-%s", KIND[ka], KIND[kb]);
    const double angle = uniform(0, 2 * M_PI), target = uniform(-0.004, 0.02);
    if (check_pair(what, trial, sb, axb, angle, dir, target) >= 0) pairs[ka][kb]++, checked++;
  }
  fprintf(stderr, "%d random pairs in both orders (sphere, box, capsule, log, disc), largest difference %.1e:\n",
          checked, worst_seen);
  for (int i = 0; i < KINDS; i++)
    fprintf(stderr, "  %-8s %4d %4d %4d %4d %4d\n", KIND[i], pairs[i][0], pairs[i][1], pairs[i][2], pairs[i][3],
            pairs[i][4]);
}

// Boxes, capsules and cylinders turned within 10 degrees of each other, B
// beside A (offset across A's z axis, and up to half a length along it):
// logs side by side, stacked boxes, a box on a log.
static void test_near_parallel(void) {
  const int kinds[4] = {BOX, CAPSULE, LOG, DISC};
  int checked = 0;
  worst_seen = 0.0;
  for (int trial = 0; trial < 800; trial++) {
    const int ka = kinds[(int)uniform(0, 4)], kb = kinds[(int)uniform(0, 4)];
    char sa[200], sb[200];
    shape_yaml(ka, sa, sizeof sa), shape_yaml(kb, sb, sizeof sb);
    // A's axis: body z turned by angle_a about axa
    const TsrVec3 axa = random_unit();
    const double angle_a = uniform(0, 2 * M_PI);
    const TsrQuat qa = tsr_q_axis_angle(axa, angle_a);
    snprintf(body_a, sizeof body_a,
             "{name: A, mass: 5, shape: %s, position: [0, 0, 1],\n"
             "     orientation: {axis: [%.9f, %.9f, %.9f], angle: %.9f}}",
             sa, axa.x, axa.y, axa.z, angle_a);
    // B: A's orientation, then tilted by up to 10 degrees about a random axis
    const TsrQuat qb = tsr_q_normalize(tsr_q_mul(tsr_q_axis_angle(random_unit(), uniform(0, 10) * M_PI / 180.0), qa));
    const double angle_b = 2.0 * acos(fmin(1.0, fabs(qb.w)));
    TsrVec3 axb = tsr_v3(qb.x, qb.y, qb.z);
    const double s = tsr_v3_norm(axb);
    axb = s > 0.0 ? tsr_v3_scale(axb, (qb.w < 0.0 ? -1.0 : 1.0) / s) : tsr_v3(0, 0, 1);
    const TsrVec3 za = tsr_q_rotate(qa, tsr_v3(0, 0, 1));
    TsrVec3 across = random_unit();
    across = tsr_v3_normalize(tsr_v3_madd(across, za, -tsr_v3_dot(across, za)));
    const TsrVec3 dir = tsr_v3_normalize(tsr_v3_madd(across, za, uniform(-0.5, 0.5)));
    char what[32];
    snprintf(what, sizeof what, "parallel %s-%s", KIND[ka], KIND[kb]);
    if (check_pair(what, trial, sb, axb, angle_b, dir, uniform(-0.004, 0.02)) >= 0) checked++;
  }
  fprintf(stderr, "%d near-parallel pairs of boxes, capsules and cylinders in both orders; largest difference %.1e\n",
          checked, worst_seen);
}

int main(void) {
  RUN_TEST(test_any_pair);
  RUN_TEST(test_near_parallel);
  return TSR_TEST_RESULT();
}
