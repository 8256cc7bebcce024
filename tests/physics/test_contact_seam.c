// SPDX-License-Identifier: MIT
// A floor laid from two fixed boxes edge to edge, their tops level (or a
// plate set flush into a ground plane): a shape sliding without friction,
// or a ball rolling, goes over the seam as over one floor. Nothing acts
// along the floor and nothing lifts, so its velocity stays what it was and
// its height over the floor with it. Before contact/seams.c the boxes'
// edges stopped it: a 2 kg box at 3 m/s tripped, rose 6.7 cm and kept a
// third of its speed; a sphere, a capsule and a cylinder on its side
// hopped 1.9 cm and lost 12% of theirs; a long flat plank stopped dead.
// Box, sphere, capsule, cylinder and plank;
// across the seam and 30 degrees to it; the whole scene (gravity too)
// turned three ways. Truths: velocity within 1e-5 m/s of the initial,
// angular velocity within 1e-4 rad/s, height within 1e-6 m (measured:
// 1.0e-6 m/s, 1.2e-6 rad/s and 3.9e-8 m: the shape settling into its
// contacts' compliance under its weight). The control: with the second box
// 15 cm higher its side is a wall, and the box slid at it stops there.
#include <math.h>

#include "sim_helpers.h"
#include "tsr_test.h"

static const char *const SHAPES[5] = {
    "{type: box, size: [0.2, 0.2, 0.2]}", "{type: sphere, radius: 0.1}", "{type: capsule, radius: 0.1, length: 0.3}",
    "{type: cylinder, radius: 0.1, length: 0.3}", "{type: box, size: [0.6, 0.3, 0.05]}"};
static const char *const NAMES[5] = {"box", "sphere", "capsule", "cylinder", "plank"};
// Each shape's centre height over the floor, and its start's distance from the seam.
static const double HEIGHT[5] = {0.1, 0.1, 0.1, 0.1, 0.025}, START[5] = {0.3, 0.3, 0.3, 0.3, 0.4};

typedef struct {
  double dv, dw, dz, x_end;
} Seam;

// Shape s on floor box a (x < 0) toward floor box b (x > 0, its top `step`
// higher), heading psi to the seam's normal, the scene turned by R; with
// plane = 1 a ground plane with b set flush into it instead of a. Rolling:
// the sphere starts rolling (w = v / r), mu 0.5; else mu 0.
static Seam cross(int s, double psi_deg, TsrQuat R, int plane, double step, int rolling) {
  const double v0 = 3.0, psi = psi_deg * M_PI / 180.0, r = HEIGHT[s], d0 = START[s];
  const TsrVec3 dir = tsr_v3(cos(psi), sin(psi), 0);
  const TsrVec3 g = tsr_q_rotate(R, tsr_v3(0, 0, -9.81));
  const TsrVec3 pa = tsr_q_rotate(R, tsr_v3(-1.0, 0, -0.1)), pb = tsr_q_rotate(R, tsr_v3(1.0, 0, -0.1 + step));
  const TsrVec3 n = tsr_q_rotate(R, tsr_v3(0, 0, 1));
  const TsrVec3 x0 = tsr_q_rotate(R, tsr_v3(-d0 * cos(psi), -d0 * sin(psi), r));
  const TsrVec3 v = tsr_q_rotate(R, tsr_v3_scale(dir, v0));
  // capsule and cylinder lie on their side, axis along the floor across dir
  TsrQuat q = R;
  if (s == 2 || s == 3)
    q = tsr_q_mul(R, tsr_q_mul(tsr_q_axis_angle(tsr_v3(0, 0, 1), psi), tsr_q_axis_angle(tsr_v3(1, 0, 0), M_PI / 2)));
  const TsrVec3 w = rolling ? tsr_q_rotate(R, tsr_v3_scale(tsr_v3(-dir.y, dir.x, 0), v0 / r)) : tsr_v3(0, 0, 0);
  char a[512], yaml[4096];
  if (plane)
    snprintf(a, sizeof a, "{name: a, fixed: true, shape: {type: plane, normal: [%.17g, %.17g, %.17g], offset: 0}}", n.x,
             n.y, n.z);
  else
    snprintf(a, sizeof a,
             "{name: a, fixed: true, shape: {type: box, size: [2, 2, 0.2]}, position: [%.17g, %.17g, %.17g], "
             "orientation: [%.17g, %.17g, %.17g, %.17g]}",
             pa.x, pa.y, pa.z, R.w, R.x, R.y, R.z);
  int len = snprintf(yaml, sizeof yaml,
                     "format: tessera-model/1\n"
                     "name: seam\n"
                     "settings: {step: 0.016666666666666666, duration: 0.5, gravity: [%.17g, %.17g, %.17g]}\n"
                     "materials: [{name: m, friction: %g, compliance: 1.0e-9, damping: 2.0}]\n"
                     "bodies:\n"
                     "  - %s\n"
                     "  - {name: b, fixed: true, shape: {type: box, size: [2, 2, 0.2]}, position: [%.17g, %.17g, "
                     "%.17g], orientation: [%.17g, %.17g, %.17g, %.17g]}\n"
                     "  - {name: s, mass: 2.0, shape: %s, position: [%.17g, %.17g, %.17g],\n"
                     "     orientation: [%.17g, %.17g, %.17g, %.17g], velocity: [%.17g, %.17g, %.17g],\n"
                     "     angular_velocity: [%.17g, %.17g, %.17g]}\n",
                     g.x, g.y, g.z, rolling ? 0.5 : 0.0, a, pb.x, pb.y, pb.z, R.w, R.x, R.y, R.z, SHAPES[s], x0.x, x0.y,
                     x0.z, q.w, q.x, q.y, q.z, v.x, v.y, v.z, w.x, w.y, w.z);
  ENSURE(len < (int)sizeof yaml);
  TsrModel m;
  TsrWorld wd;
  tsr_test_world(yaml, NULL, 0, &m, &wd);
  Seam out = {0, 0, 0, 0};
  while (wd.step < m.settings.steps) {
    ENSURE(tsr_world_step(&wd) == 0);
    out.dv = fmax(out.dv, tsr_v3_norm(tsr_v3_sub(wd.bodies.v[2], v)));
    out.dw = fmax(out.dw, tsr_v3_norm(tsr_v3_sub(wd.bodies.w[2], w)));
    out.dz = fmax(out.dz, fabs(tsr_v3_dot(tsr_v3_sub(wd.bodies.x[2], x0), n)));
  }
  out.x_end = tsr_v3_dot(tsr_q_rotate_inv(R, tsr_v3_sub(wd.bodies.x[2], x0)), dir) - d0;  // past the seam
  tsr_test_world_free(&m, &wd);
  return out;
}

static void test_over_the_seam(void) {
  const TsrQuat turns[3] = {tsr_q_identity(), tsr_q_axis_angle(tsr_v3(0, 0, 1), 1.1),
                            tsr_q_axis_angle(tsr_v3_scale(tsr_v3(1, 2, 3), 1.0 / sqrt(14.0)), 2.3)};
  for (int t = 0; t < 3; t++)
    for (int plane = 0; plane < 2; plane++)
      for (int s = 0; s < 5; s++)
        for (int k = 0; k < 2; k++) {
          const double psi = k ? 30.0 : 0.0;
          Seam r = cross(s, psi, turns[t], plane, 0.0, 0);
          fprintf(stderr,
                  "%-8s %s, turn %d, heading %2.0f: |dv| %.1e m/s, |dw| %.1e rad/s, height %.1e m, %.2f m past\n",
                  NAMES[s], plane ? "plane and plate" : "two boxes", t, psi, r.dv, r.dw, r.dz, r.x_end);
          ENSURE(r.x_end > 0.9);  // well over the seam
          ENSURE(r.dv < 1e-5);
          ENSURE(r.dw < 1e-4);
          ENSURE(r.dz < 1e-6);
        }
}

static void test_rolling_ball(void) {
  // rolling needs no friction on a level floor: it rolls on at v0, w = v0 / r
  const TsrQuat R = tsr_q_axis_angle(tsr_v3(0, 0, 1), 0.4);
  for (int plane = 0; plane < 2; plane++) {
    Seam r = cross(1, 10.0, R, plane, 0.0, 1);
    fprintf(stderr, "rolling sphere, %s: |dv| %.1e m/s, |dw| %.1e rad/s, height %.1e m\n",
            plane ? "plane and plate" : "two boxes", r.dv, r.dw, r.dz);
    ENSURE(r.dv < 1e-5);
    ENSURE(r.dw < 1e-4);
    ENSURE(r.dz < 1e-6);
  }
}

// A wall of two boxes edge to edge, a box on the floor pressed against it
// (gravity with 1 m/s^2 toward the wall) and slid along it without
// friction: it passes the wall's seam with its velocity kept and stays on
// the wall. Before contact/seams.c it lost 63% of its speed there and was
// thrown 0.4 m off the wall.
static void test_along_a_wall(void) {
  const char *yaml =
      "format: tessera-model/1\n"
      "name: wall\n"
      "settings: {step: 0.016666666666666666, duration: 0.5, gravity: [0, 1.0, -9.81]}\n"
      "materials: [{name: m, friction: 0.0, compliance: 1.0e-9, damping: 2.0}]\n"
      "bodies:\n"
      "  - {name: floor, fixed: true, shape: {type: box, size: [4, 4, 0.2]}, position: [0, 0, -0.1]}\n"
      "  - {name: w1, fixed: true, shape: {type: box, size: [2, 0.2, 1]}, position: [-1, 0.2, 0.5]}\n"
      "  - {name: w2, fixed: true, shape: {type: box, size: [2, 0.2, 1]}, position: [1, 0.2, 0.5]}\n"
      "  - {name: s, mass: 2.0, shape: {type: box, size: [0.2, 0.2, 0.2]}, position: [-0.3, 0, 0.1],\n"
      "     velocity: [3, 0, 0]}\n";
  TsrModel m;
  TsrWorld wd;
  tsr_test_world(yaml, NULL, 0, &m, &wd);
  double dv = 0.0, dy = 0.0;
  while (wd.step < m.settings.steps) {
    ENSURE(tsr_world_step(&wd) == 0);
    dv = fmax(dv, tsr_v3_norm(tsr_v3_sub(wd.bodies.v[3], tsr_v3(3, 0, 0))));
    dy = fmax(dy, fabs(wd.bodies.x[3].y));
  }
  fprintf(stderr, "box along a wall of two boxes: |dv| %.1e m/s, off the wall %.1e m, at x %.3f\n", dv, dy,
          wd.bodies.x[3].x);
  ENSURE(wd.bodies.x[3].x > 0.9);
  ENSURE(dv < 1e-5);
  ENSURE(dy < 1e-6);
  tsr_test_world_free(&m, &wd);
}

static void test_step_is_a_wall(void) {
  // b 15 cm higher (over the box's centre): its side stops the box, which
  // ends short of the seam
  Seam r = cross(0, 0.0, tsr_q_identity(), 0, 0.15, 0);
  fprintf(stderr, "box at a 15 cm step: %.3f m past the seam\n", r.x_end);
  ENSURE(r.x_end < 0.0);
}

int main(void) {
  test_over_the_seam();
  test_rolling_ball();
  test_along_a_wall();
  test_step_is_a_wall();
  return 0;
}
