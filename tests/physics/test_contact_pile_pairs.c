// SPDX-License-Identifier: MIT
// Pairs with a cylinder taken from a pile of mixed shapes (boxes, cylinders,
// capsules and spheres dropped into a bin), at the moment the collider
// missed how far they overlapped. At rest (one call of the collider): the
// pair's deepest contact against the overlap computed here by brute force.
//   - a capsule 9.5 cm into a cylinder: ODE's capsule-cylinder (libccd's
//     MPR) gave one contact 15.2 cm deep with a normal 69 degrees off, and
//     the two went on into each other; now the capsule's core point
//     (tsr_solid_capsule_core): the exact overlap, along the cylinder's
//     normal at the capsule's deepest axis point;
//   - a cylinder rim-first 6.2 cm into a box lying on the ground: ODE's
//     cylinder-box gave one contact 1.4 cm deep with a sideways normal;
//     now the deepest of the sample points (tsr_solid_deepest), within the
//     samples' spacing of the overlap;
//   - a log's end 3.5 cm into a disc's face (a short, wide cylinder), their
//     axes 26 degrees apart: the rim points toward the other's axis gave
//     1.4 mm; the sample points, within their spacing;
//   - a step later, the log's side across the disc near its face, 3.6 cm
//     in: the crossing sides gave r_a + r_b - d = 12.2 cm; now the disc's
//     face, nearer than its rim's side (crossing_cylinders).
// Truth: the overlap is the depth of the deepest point of either shape's
// surface inside the other (for the capsule, of its axis less its radius),
// from the exact signed distance to the other shape.
#include "tsr_test.h"
#include "sim_helpers.h"

#include "contact/contact.h"

static void world_of(const char *a, const char *b, TsrModel *m, TsrWorld *w) {
  char yaml[1400];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: pair\n"
           "settings: {step: 0.016666666666666666, duration: 0.1, gravity: [0, 0, 0],\n"
           "           contact: {max_per_pair: 4, margin: 0.005}}\n"
           "materials: [{name: m, friction: 0.5, compliance: 1.0e-9, damping: 2.0}]\n"
           "bodies:\n"
           "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: -50.0}}\n"
           "  - %s\n"
           "  - %s\n",
           a, b);
  tsr_test_world(yaml, NULL, 0, m, w);
  ENSURE(tsr_contact_collide(&w->contacts, m, &w->bodies) == 0);
}

// Signed distance from world point p to a cylinder (radius r, half length
// h, axis z of the body at x, q), with its outward normal (inside: of the
// nearest of side and end).
static double cylinder_sd(TsrVec3 x, TsrQuat q, double r, double h, TsrVec3 p, TsrVec3 *n) {
  TsrVec3 y = tsr_q_rotate_inv(q, tsr_v3_sub(p, x));
  double rho = hypot(y.x, y.y), dr = rho - r, dz = fabs(y.z) - h;
  TsrVec3 radial = rho > 0.0 ? tsr_v3(y.x / rho, y.y / rho, 0.0) : tsr_v3(1, 0, 0),
          end = tsr_v3(0, 0, y.z < 0 ? -1 : 1);
  if (dr <= 0.0 && dz <= 0.0) {
    *n = tsr_q_rotate(q, dr > dz ? radial : end);
    return fmax(dr, dz);
  }
  TsrVec3 l = tsr_v3_add(tsr_v3_scale(radial, fmax(dr, 0.0)), tsr_v3_scale(end, fmax(dz, 0.0)));
  *n = tsr_q_rotate(q, tsr_v3_normalize(l));
  return tsr_v3_norm(l);
}

// Signed distance from p to a box of half sizes hs at (x, q).
static double box_sd(TsrVec3 x, TsrQuat q, TsrVec3 hs, TsrVec3 p) {
  TsrVec3 y = tsr_q_rotate_inv(q, tsr_v3_sub(p, x));
  double e[3] = {fabs(y.x) - hs.x, fabs(y.y) - hs.y, fabs(y.z) - hs.z};
  if (e[0] <= 0 && e[1] <= 0 && e[2] <= 0) return fmax(e[0], fmax(e[1], e[2]));
  return sqrt(pow(fmax(e[0], 0), 2) + pow(fmax(e[1], 0), 2) + pow(fmax(e[2], 0), 2));
}

// The deepest contact's depth, its normal in *n (pushing its body[0]) and
// its body[0] in *b0 (may be NULL).
static double deepest_contact(const TsrWorld *w, TsrVec3 *n, int *b0) {
  double best = -INFINITY;
  for (int i = 0; i < w->contacts.n; i++)
    if (w->contacts.c[i].depth > best) {
      best = w->contacts.c[i].depth, *n = w->contacts.c[i].normal;
      if (b0) *b0 = w->contacts.c[i].body[0];
    }
  return best;
}

static void test_capsule_into_cylinder(void) {
  TsrModel m;
  TsrWorld w;
  world_of(
      "{name: cyl, mass: 6, shape: {type: cylinder, radius: 0.077, length: 0.403},\n"
      "     position: [1.1860573200049973, -0.87589616847919249, 0.34263862731695938],\n"
      "     orientation: [0.67899735161324593, -0.28804336109545886, 0.66320915504119293, 0.12707177224142316]}",
      "{name: cap, mass: 14, shape: {type: capsule, radius: 0.114, length: 0.461},\n"
      "     position: [0.98049102938534527, -0.9220203418606423, 0.59050484312420448],\n"
      "     orientation: [-0.23685324998186752, -0.21714742537008772, 0.27836162519357427, 0.90513111715803996]}",
      &m, &w);
  // the capsule's axis point nearest the cylinder, 20,001 samples
  const TsrVec3 xc = w.bodies.x[1], xk = w.bodies.x[2], u = tsr_q_rotate(w.bodies.q[2], tsr_v3(0, 0, 1));
  double sd = INFINITY;
  TsrVec3 nrm = tsr_v3(0, 0, 0);
  for (int i = 0; i <= 20000; i++) {
    TsrVec3 nk, p = tsr_v3_madd(xk, u, (i / 20000.0 - 0.5) * 0.461);
    double d = cylinder_sd(xc, w.bodies.q[1], 0.077, 0.2015, p, &nk);
    if (d < sd) sd = d, nrm = nk;
  }
  TsrVec3 n = tsr_v3(0, 0, 0);
  const double want = 0.114 - sd, got = deepest_contact(&w, &n, NULL);
  // the contact normal pushes the cylinder (body 0) along +n: away from the capsule
  const double cosang = -tsr_v3_dot(n, nrm);
  fprintf(stderr, "capsule into a cylinder: overlap %.2f mm, deepest contact %.2f mm, normal %.1f degrees off\n",
          1e3 * want, 1e3 * got, acos(fmin(1.0, cosang)) * 180 / M_PI);
  ENSURE_MSG(fabs(got - want) < 5e-4, "deepest contact %.2f mm, overlap %.2f mm", 1e3 * got, 1e3 * want);
  ENSURE_MSG(cosang > cos(5 * M_PI / 180), "normal %.1f degrees off", acos(fmin(1.0, cosang)) * 180 / M_PI);
  tsr_test_world_free(&m, &w);
}

static void test_cylinder_into_box(void) {
  TsrModel m;
  TsrWorld w;
  world_of(
      "{name: box, mass: 12.9, shape: {type: box, size: [0.109, 0.360, 0.104]},\n"
      "     position: [0.4008309380542075, -1.0115882272426016, 0.054476753882169229],\n"
      "     orientation: [0.65654067959071305, -0.26252997972431347, 0.65656601072432463, 0.26258983101038441]}",
      "{name: cyl, mass: 6.5, shape: {type: cylinder, radius: 0.174, length: 0.709},\n"
      "     position: [0.30640501997132136, -0.9813589586807463, 0.42113590171252557],\n"
      "     orientation: [0.0089098532745777431, -0.84978690705023563, 0.50140163109728697, 0.16241684473477513]}",
      &m, &w);
  const TsrVec3 xb = w.bodies.x[1], xc = w.bodies.x[2], hs = tsr_v3(0.0545, 0.18, 0.052);
  const TsrQuat qb = w.bodies.q[1], qc = w.bodies.q[2];
  double want = 0.0;
  TsrVec3 nk;
  for (int i = 0; i <= 40; i++)  // the box's surface, 41 x 41 per face, in the cylinder
    for (int j = 0; j <= 40; j++)
      for (int k = 0; k <= 40; k++) {
        if (i % 40 && j % 40 && k % 40) continue;
        TsrVec3 l = tsr_v3((i / 20.0 - 1) * hs.x, (j / 20.0 - 1) * hs.y, (k / 20.0 - 1) * hs.z);
        want = fmax(want, -cylinder_sd(xc, qc, 0.174, 0.3545, tsr_v3_add(xb, tsr_q_rotate(qb, l)), &nk));
      }
  for (int s = 0; s <= 140; s++)  // the cylinder's side every 2.5 degrees, its ends on rings, in the box
    for (int t = 0; t < 144; t++)
      for (int ring = 0; ring <= ((s % 140) ? 0 : 12); ring++) {
        double rr = 0.174 * (1.0 - ring / 12.0), th = t * M_PI / 72;
        TsrVec3 l = tsr_v3(rr * cos(th), rr * sin(th), (s / 70.0 - 1) * 0.3545);
        want = fmax(want, -box_sd(xb, qb, hs, tsr_v3_add(xc, tsr_q_rotate(qc, l))));
      }
  TsrVec3 n = tsr_v3(0, 0, 0);
  const double got = deepest_contact(&w, &n, NULL);
  fprintf(stderr, "cylinder rim-first into a box: overlap %.2f mm, deepest contact %.2f mm\n", 1e3 * want, 1e3 * got);
  // The sample points lie at most a quarter of the box's 10.4 cm and
  // 22.5 degrees of the rim apart: they reach the overlap to within 1 cm,
  // and never beyond it (each is a true depth).
  ENSURE_MSG(got > want - 0.01 && got < want + 1e-4, "deepest contact %.2f mm, overlap %.2f mm", 1e3 * got, 1e3 * want);
  tsr_test_world_free(&m, &w);
}

// The deepest point of cylinder 1's surface (radius r1, half length h1)
// inside cylinder 2: its side every 2 degrees at 121 stations, its ends on
// rings 1/12 of the radius apart.
static double cylinder_in_cylinder(TsrVec3 x1, TsrQuat q1, double r1, double h1, TsrVec3 x2, TsrQuat q2, double r2,
                                   double h2) {
  double best = -INFINITY;
  TsrVec3 nk;
  for (int s = 0; s <= 120; s++)
    for (int t = 0; t < 180; t++)
      for (int ring = 0; ring <= ((s % 120) ? 0 : 12); ring++) {
        double rr = r1 * (1.0 - ring / 12.0), th = t * M_PI / 90;
        TsrVec3 l = tsr_v3(rr * cos(th), rr * sin(th), (s / 60.0 - 1) * h1);
        best = fmax(best, -cylinder_sd(x2, q2, r2, h2, tsr_v3_add(x1, tsr_q_rotate(q1, l)), &nk));
      }
  return best;
}

// The log and the disc at two poses a step apart: the log's end on the
// disc's face, then the log's side across the disc near its face.
static const char *const LOG_POSE[2] = {
    "{name: log, mass: 8.5, shape: {type: cylinder, radius: 0.089, length: 0.486},\n"
    "     position: [0.024345424682117218, -0.092139634108384841, 0.3743573808708629],\n"
    "     orientation: [-0.11151230926567846, 0.65027152052986648, -0.36245472793132993, 0.65828453169601142]}",
    "{name: log, mass: 8.5, shape: {type: cylinder, radius: 0.089, length: 0.486},\n"
    "     position: [0.024779653269001226, -0.092208914632977756, 0.34254793771613129],\n"
    "     orientation: [-0.11185330436812777, 0.66647003489643164, -0.34479165658971, 0.65147927398590655]}"};
static const char *const DISC_POSE[2] = {
    "{name: disc, mass: 10.6, shape: {type: cylinder, radius: 0.162, length: 0.159},\n"
    "     position: [-0.25119695576087053, 0.11128880028083342, 0.30253222999870816],\n"
    "     orientation: [0.11059265415975779, 0.69931043512842028, -0.42282219404728111, 0.56564615475352009]}",
    "{name: disc, mass: 10.6, shape: {type: cylinder, radius: 0.162, length: 0.159},\n"
    "     position: [-0.25231013555057297, 0.10369279522528199, 0.29756689742233627],\n"
    "     orientation: [0.087893921096429128, 0.70000520608566219, -0.4390679735652176, 0.5563152745310862]}"};

// Returns the deepest contact's normal as it pushes the log.
static TsrVec3 log_and_disc(int pose, int disc_first, const char *what) {
  TsrModel m;
  TsrWorld w;
  if (disc_first)
    world_of(DISC_POSE[pose], LOG_POSE[pose], &m, &w);
  else
    world_of(LOG_POSE[pose], DISC_POSE[pose], &m, &w);
  const int il = disc_first ? 2 : 1, id = disc_first ? 1 : 2;  // the log's and the disc's body
  const TsrVec3 x1 = w.bodies.x[il], x2 = w.bodies.x[id];
  const TsrQuat q1 = w.bodies.q[il], q2 = w.bodies.q[id];
  const double want = fmax(cylinder_in_cylinder(x1, q1, 0.089, 0.243, x2, q2, 0.162, 0.0795),
                           cylinder_in_cylinder(x2, q2, 0.162, 0.0795, x1, q1, 0.089, 0.243));
  TsrVec3 n = tsr_v3(0, 0, 0);
  int b0 = -1;
  const double got = deepest_contact(&w, &n, &b0);
  fprintf(stderr, "%s (%s first): overlap %.2f mm, deepest contact %.2f mm\n", what, disc_first ? "disc" : "log",
          1e3 * want, 1e3 * got);
  // sample points a quarter of the log's length and 22.5 degrees of its
  // rim apart: within 1 cm of the overlap, never beyond it
  ENSURE_MSG(got > want - 0.01 && got < want + 1e-4, "deepest contact %.2f mm, overlap %.2f mm", 1e3 * got, 1e3 * want);
  tsr_test_world_free(&m, &w);
  return b0 == il ? n : tsr_v3_neg(n);
}

// The pair listed either way round (either shape may come first to the
// collider): the same overlap, and the same normal on the log.
static void log_and_disc_both_ways(int pose, const char *what) {
  const TsrVec3 n0 = log_and_disc(pose, 0, what), n1 = log_and_disc(pose, 1, what);
  const double dn = tsr_v3_norm(tsr_v3_sub(n0, n1));
  ENSURE_MSG(dn < 1e-9, "%s: the log's normal differs by %.2e between the two orders", what, dn);
}

static void test_log_end_into_disc(void) { log_and_disc_both_ways(0, "a log's end into a disc's face"); }

static void test_log_across_disc(void) { log_and_disc_both_ways(1, "a log across a disc near its face"); }

int main(void) {
  RUN_TEST(test_capsule_into_cylinder);
  RUN_TEST(test_cylinder_into_box);
  RUN_TEST(test_log_end_into_disc);
  RUN_TEST(test_log_across_disc);
  return TSR_TEST_RESULT();
}
