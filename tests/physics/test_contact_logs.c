// SPDX-License-Identifier: MIT
// Logs against logs: two capsules or cylinders of radius 0.1 m and length
// 2.4 m (log_tower's logs), 50 kg each, in the configurations a collapsing
// tower makes, where the collider once missed where they meet.
//
// Geometry, at rest (one call of the collider, no step): the pair's
// contacts include its deepest point, at the exact overlap, with the
// normal that separates them there.
//   - two capsules crossing at 4 degrees, their middles 3 cm into each
//     other and their ends touching: the cap points filled max_per_pair
//     and the crossing point was dropped;
//   - a cylinder's flat end 2 cm into another's side: the rim point
//     toward the other's axis is the wrong one there (level with the
//     axis, every rim point is as near it), and the normals came from the
//     rim's top and bottom;
//   - two cylinders lying across each other at 3 degrees, 1 cm into each
//     other in the middle: the near-parallel case made contacts at the
//     rims only, 1.2 m away.
// Dynamics (no gravity): a log driven end-first at 5 m/s into another's
// side (level, yawed or tilted by a few degrees, off-centre), and a log
// dropped at 5 m/s across another at 3-8 degrees. Truth: no point of
// either log's surface goes farther into the other than SPOOK lets a
// contact that arrives touching go, plus 1 mm: its row keeps beta = 1 /
// (1 + 4 d) of the approach speed v for a step (joints/spook.h), beta v h
// = 9.3 mm here (d = 2); a step's travel is 8.3 cm, and the old collider
// let them in 2-10 cm. And the momentum of the pair is conserved.
#include "tsr_test.h"
#include "sim_helpers.h"

#include "contact/contact.h"

#define R 0.1
#define LEN 2.4

// The model: logs a (along y, at the origin) and b, with b's pose and
// velocity given; no gravity, the ground far away.
static void two_logs(const char *shape, int max_per_pair, TsrVec3 pb, TsrQuat qb, TsrVec3 vb, TsrModel *m,
                     TsrWorld *w) {
  char yaml[1600];
  const TsrQuat qa = tsr_q_axis_angle(tsr_v3(1, 0, 0), M_PI / 2);
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: logs\n"
           "settings: {step: 0.016666666666666666, duration: 0.5, gravity: [0, 0, 0],\n"
           "           contact: {max_per_pair: %d, margin: 0.005}}\n"
           "materials: [{name: wood, friction: 0.5, compliance: 1.0e-8, damping: 2.0}]\n"
           "bodies:\n"
           "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: -5.0}}\n"
           "  - {name: a, mass: 50, shape: {type: %s, radius: %g, length: %g},\n"
           "     orientation: [%.17g, %.17g, %.17g, %.17g]}\n"
           "  - {name: b, mass: 50, shape: {type: %s, radius: %g, length: %g},\n"
           "     position: [%.17g, %.17g, %.17g], orientation: [%.17g, %.17g, %.17g, %.17g],\n"
           "     velocity: [%.17g, %.17g, %.17g]}\n",
           max_per_pair, shape, R, LEN, qa.w, qa.x, qa.y, qa.z, shape, R, LEN, pb.x, pb.y, pb.z, qb.w, qb.x, qb.y, qb.z,
           vb.x, vb.y, vb.z);
  tsr_test_world(yaml, NULL, 0, m, w);
}

// Log b's orientation: along y, turned by yaw about z, then by tilt about
// the horizontal axis across it.
static TsrQuat log_pose(double yaw_deg, double tilt_deg) {
  const TsrQuat along_y = tsr_q_axis_angle(tsr_v3(1, 0, 0), M_PI / 2);
  const TsrQuat yaw = tsr_q_axis_angle(tsr_v3(0, 0, 1), yaw_deg * M_PI / 180);
  const TsrQuat tilt = tsr_q_axis_angle(tsr_v3(1, 0, 0), tilt_deg * M_PI / 180);
  return tsr_q_mul(yaw, tsr_q_mul(tilt, along_y));
}

static TsrVec3 axis_of(const TsrWorld *w, int k) { return tsr_q_rotate(w->bodies.q[k], tsr_v3(0, 0, 1)); }

// How far the point p lies inside the log at x with axis u (> 0: inside;
// the distance to its nearest surface).
static double inside(int capsule, TsrVec3 x, TsrVec3 u, TsrVec3 p) {
  TsrVec3 d = tsr_v3_sub(p, x);
  double t = tsr_v3_dot(d, u);
  if (capsule) {
    double tc = fmax(-0.5 * LEN, fmin(0.5 * LEN, t));
    return R - tsr_v3_norm(tsr_v3_madd(d, u, -tc));
  }
  return fmin(R - tsr_v3_norm(tsr_v3_madd(d, u, -t)), 0.5 * LEN - fabs(t));
}

// The deepest point of either log's surface inside the other, sampled every
// 2.5 cm along the axis and every 5 degrees round it, and across the flat
// ends of cylinders (for capsules, exact from the axes' closest points).
static double overlap(const TsrWorld *w, int capsule) {
  double deepest = -INFINITY;
  for (int s = 0; s < 2; s++) {
    const int g = 1 + s, f = 2 - s;
    const TsrVec3 xg = w->bodies.x[g], ug = axis_of(w, g), xf = w->bodies.x[f], uf = axis_of(w, f);
    TsrVec3 e1 = tsr_v3_cross(ug, fabs(ug.x) < 0.9 ? tsr_v3(1, 0, 0) : tsr_v3(0, 1, 0));
    e1 = tsr_v3_scale(e1, 1.0 / tsr_v3_norm(e1));
    const TsrVec3 e2 = tsr_v3_cross(ug, e1);
    if (capsule) {  // the axis points of g, each at its exact depth in f less R
      for (int i = 0; i <= 960; i++) {
        TsrVec3 p = tsr_v3_madd(xg, ug, (i / 960.0 - 0.5) * LEN);
        deepest = fmax(deepest, inside(1, xf, uf, p) + R);
      }
      continue;
    }
    for (int i = 0; i <= 96; i++)
      for (int k = 0; k < 72; k++) {
        double th = k * M_PI / 36;
        TsrVec3 rad = tsr_v3_add(tsr_v3_scale(e1, cos(th)), tsr_v3_scale(e2, sin(th)));
        TsrVec3 p = tsr_v3_madd(tsr_v3_madd(xg, ug, (i / 96.0 - 0.5) * LEN), rad, R);
        deepest = fmax(deepest, inside(0, xf, uf, p));
        if (i == 0 || i == 96)  // the flat end, rings 2 cm apart
          for (int j = 0; j < 5; j++) deepest = fmax(deepest, inside(0, xf, uf, tsr_v3_madd(p, rad, -0.02 * j)));
      }
  }
  return deepest;
}

// The deepest contact of the pair (a, b), with its normal in *n.
static double deepest_contact(const TsrWorld *w, TsrVec3 *n) {
  double best = -INFINITY;
  for (int i = 0; i < w->contacts.n; i++) {
    const TsrContact *c = &w->contacts.c[i];
    if (c->body[0] == 1 && c->body[1] == 2 && c->depth > best) best = c->depth, *n = c->normal;
  }
  return best;
}

static void check_geometry(const char *what, const char *shape, int max_per_pair, TsrVec3 pb, TsrQuat qb,
                           TsrVec3 expect_n) {
  TsrModel m;
  TsrWorld w;
  two_logs(shape, max_per_pair, pb, qb, tsr_v3(0, 0, 0), &m, &w);
  ENSURE(tsr_contact_collide(&w.contacts, &m, &w.bodies) == 0);
  TsrVec3 n = tsr_v3(0, 0, 0);
  const double got = deepest_contact(&w, &n), want = overlap(&w, shape[1] == 'a');
  fprintf(stderr, "%-40s overlap %.2f mm, deepest contact %.2f mm, normal (%.3f %.3f %.3f)\n", what, 1e3 * want,
          1e3 * got, n.x, n.y, n.z);
  // the sampled overlap is exact to within the samples' spacing for these
  // configurations (the deepest point lies on a sample line); 0.2 mm
  ENSURE_MSG(fabs(got - want) < 2e-4, "%s: deepest contact %.2f mm, overlap %.2f mm", what, 1e3 * got, 1e3 * want);
  ENSURE_MSG(fabs(tsr_v3_dot(n, expect_n)) > 0.999, "%s: normal (%.3f %.3f %.3f)", what, n.x, n.y, n.z);
  tsr_test_world_free(&m, &w);
}

static void test_deepest_point_kept(void) {
  // capsules crossing at 4 degrees, axes 0.17 m apart at their middles:
  // 3 cm deep there, 1.1 cm at the ends, whose two cap points fill
  // max_per_pair = 2
  check_geometry("capsules crossing at 4 degrees", "capsule", 2, tsr_v3(0.17, 0, 0), log_pose(0, 4), tsr_v3(1, 0, 0));
  // b along x, its flat end 2 cm into a's side (a's surface at x = 0.1),
  // its centre 4 cm above a's axis: the rim point nearest a's axis is the
  // rim's lowest, on a's surface, while the face is 2 cm in at z = 0
  const TsrQuat along_x = tsr_q_axis_angle(tsr_v3(0, 1, 0), M_PI / 2);
  check_geometry("cylinder end 2 cm into a side", "cylinder", 4, tsr_v3(0.08 + 0.5 * LEN, 0.03, 0.04), along_x,
                 tsr_v3(1, 0, 0));
  // b on top of a, turned 3 degrees about z: 1 cm deep where they cross,
  // the rims of each 0.2 mm from the other
  check_geometry("cylinders crossing at 3 degrees", "cylinder", 4, tsr_v3(0, 0, 0.19), log_pose(3, 0), tsr_v3(0, 0, 1));
}

// Runs the pair for 0.5 s: the deepest overlap, and the pair's momentum
// drift relative to b's initial momentum.
static void run_pair(const char *what, const char *shape, TsrVec3 pb, TsrQuat qb, TsrVec3 vb) {
  TsrModel m;
  TsrWorld w;
  two_logs(shape, 4, pb, qb, vb, &m, &w);
  const int capsule = shape[1] == 'a';
  double deepest = overlap(&w, capsule);
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    deepest = fmax(deepest, overlap(&w, capsule));
  }
  TsrVec3 p = tsr_v3_scale(tsr_v3_add(w.bodies.v[1], w.bodies.v[2]), 50.0);
  double drift = tsr_v3_norm(tsr_v3_sub(p, tsr_v3_scale(vb, 50.0))) / (50.0 * tsr_v3_norm(vb));
  const double spook = tsr_v3_norm(vb) * m.settings.step / (1.0 + 4.0 * 2.0) + 1e-3;
  fprintf(stderr, "%-44s deepest %+.2f mm (bound %.2f), momentum drift %.1e\n", what, 1e3 * deepest, 1e3 * spook,
          drift);
  ENSURE_MSG(deepest < spook, "%s: %.1f mm into each other", what, 1e3 * deepest);
  ENSURE_MSG(drift < 1e-9, "%s: momentum drift %.2e", what, drift);
  tsr_test_world_free(&m, &w);
}

static void test_end_into_side(void) {
  // b's end starts 25 cm from a's side, moving at 5 m/s along its axis
  const struct {
    double yaw, tilt, y, z;
  } cases[] = {{0, 0, 0.03, 0}, {0, 0, 1.15, 0}, {5, 0, 0.03, 0}, {0, 5, 0.5, 0.04}, {-4, 3, -0.3, -0.03}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    // along -x when yaw = tilt = 0: log_pose's y axis turned to -x
    TsrQuat q = tsr_q_mul(tsr_q_axis_angle(tsr_v3(0, 0, 1), M_PI / 2), log_pose(cases[k].yaw, cases[k].tilt));
    TsrVec3 u = tsr_q_rotate(q, tsr_v3(0, 0, 1));
    if (u.x < 0) u = tsr_v3_neg(u);
    TsrVec3 end = tsr_v3(0.35, cases[k].y, cases[k].z), pb = tsr_v3_madd(end, u, 0.5 * LEN);
    char what[96];
    snprintf(what, sizeof what, "end first, yaw %g tilt %g at y %g z %g", cases[k].yaw, cases[k].tilt, cases[k].y,
             cases[k].z);
    run_pair(what, "cylinder", pb, q, tsr_v3_scale(u, -5.0));
  }
}

static void test_dropped_across(void) {
  const double yaws[] = {3, 5, 8};
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 3; k++) {
      char what[96];
      snprintf(what, sizeof what, "%s dropped across at %g degrees", s ? "capsule" : "cylinder", yaws[k]);
      run_pair(what, s ? "capsule" : "cylinder", tsr_v3(0, 0, 0.45), log_pose(yaws[k], 0), tsr_v3(0, 0, -5));
    }
}

int main(void) {
  RUN_TEST(test_deepest_point_kept);
  RUN_TEST(test_end_into_side);
  RUN_TEST(test_dropped_across);
  return TSR_TEST_RESULT();
}
