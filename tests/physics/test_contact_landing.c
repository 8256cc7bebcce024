// SPDX-License-Identifier: MIT
// Fast landings of boxes and cylinders on the ground, a plane or a fixed
// box. Dropped from 3 m, a body meets the ground at 7.3 m/s and travels
// 12 cm in a step of 1/60 s, 24 times the 5 mm contact margin: a contact
// found only once the shapes overlap comes up to a step's travel too late.
// A moving box or cylinder therefore gets contacts with a plane or a fixed
// box from as far as each of its corners or rim points moves toward it in
// the step (collide.c, solid_plane, solid_fixed_box), with exact gaps, so
// each is met before it reaches the ground. Truth checked: whatever the
// orientation (flat, on an edge, on a corner, tilted 10 degrees), spinning
// or not, no point of the body goes more than 1 cm into the ground
// (before: 3-14 cm), and every body ends on it, within 0.1 mm (no hovering
// on a speculative gap), and at rest, unless it was spun and rolls (a
// cylinder standing on a box floor crept at 0.05 m/s before).
#include <math.h>
#include <string.h>

#include "sim_helpers.h"
#include "tsr_test.h"

// The lowest point of the body's shape: a box's corners, or a cylinder's two
// rims sampled every degree (half-sizes hx, hy, hz; cylinder: radius hx,
// half-length hz).
static double lowest(const TsrWorld *w, int body, int cylinder, double hx, double hy, double hz) {
  double low = INFINITY;
  for (int k = 0; k < (cylinder ? 720 : 8); k++) {
    TsrVec3 p;
    if (cylinder) {
      double t = (k / 2) * M_PI / 180.0;
      p = tsr_v3(hx * cos(t), hx * sin(t), (k & 1) ? hz : -hz);
    } else {
      p = tsr_v3((k & 1) ? hx : -hx, (k & 2) ? hy : -hy, (k & 4) ? hz : -hz);
    }
    TsrVec3 x = tsr_v3_add(w->bodies.x[body], tsr_q_rotate(w->bodies.q[body], p));
    if (x.z < low) low = x.z;
  }
  return low;
}

static void drop(int box_ground, int cylinder, const char *name, TsrQuat q, double spin) {
  char yaml[1024];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\n"
           "name: landing\n"
           "settings: {step: 0.016666666666666666, duration: 3.0}\n"
           "materials: [{name: m, friction: 0.5}]\n"
           "bodies:\n"
           "  - {name: ground, fixed: true, %s}\n"
           "  - {name: body, mass: 10.0, shape: %s, position: [0, 0, 3.0],\n"
           "     orientation: [%.17g, %.17g, %.17g, %.17g], angular_velocity: [0, %g, 0]}\n",
           box_ground ? "shape: {type: box, size: [20, 20, 1]}, position: [0, 0, -0.5]"
                      : "shape: {type: plane, normal: [0, 0, 1], offset: 0.0}",
           cylinder ? "{type: cylinder, radius: 0.2, length: 0.6}" : "{type: box, size: [0.6, 0.4, 0.3]}", q.w, q.x,
           q.y, q.z, spin);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  double hx = cylinder ? 0.2 : 0.3, hy = 0.2, hz = cylinder ? 0.3 : 0.15, deepest = INFINITY;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    deepest = fmin(deepest, lowest(&w, 1, cylinder, hx, hy, hz));
  }
  double rest = lowest(&w, 1, cylinder, hx, hy, hz), v = tsr_v3_norm(w.bodies.v[1]);
  const char *what = cylinder ? "cylinder" : "box", *on = box_ground ? "box" : "plane";
  fprintf(stderr, "%-8s on a %-5s %-7s spin %g: deepest point %+.2f mm, at rest %+.3f mm (|v| %.1e)\n", what, on, name,
          spin, 1e3 * deepest, 1e3 * rest, v);
  ENSURE_MSG(deepest > -0.01, "%s on a %s, %s, spin %g: %.1f mm into the ground", what, on, name, spin, -1e3 * deepest);
  // Landing flat without spin, the speculative contacts stop every corner
  // or rim point at the ground in one step, and the next step's rows (now
  // violated by rounding or by compliance x the stopping impulse) stop the
  // closing speed they still see: a few compliance-sized deflections deep
  // (compliance 1e-9 m/N here, lambda / h ~ 1e4 N). SPOOK's beta J v let a
  // ninth of the 7.3 m/s through for a step, and the box went 3.3 mm in
  // (src/joints/spook.h).
  if (!strcmp(name, "flat") && spin == 0.0)
    ENSURE_MSG(deepest > -1e-5, "%s on a %s, flat: %.4f mm into the ground", what, on, -1e3 * deepest);
  if (!(cylinder && spin != 0.0)) ENSURE(v < 1e-3);  // a spun cylinder may end up rolling on its side
  ENSURE_MSG(fabs(rest) < 1e-4, "%s on a %s, %s: ends %.3f mm from the ground", what, on, name, 1e3 * rest);
  tsr_test_world_free(&m, &w);
}

static void test_landings(void) {
  const TsrQuat edge = tsr_q_axis_angle(tsr_v3(1, 0, 0), M_PI / 4);
  const TsrQuat corner = tsr_q_mul(tsr_q_axis_angle(tsr_v3(0, 1, 0), atan(1 / sqrt(2.0))), edge);
  const TsrQuat tilt = tsr_q_axis_angle(tsr_v3(1, 0, 0), 10 * M_PI / 180);
  const struct {
    const char *name;
    TsrQuat q;
  } cases[] = {{"flat", tsr_q_identity()}, {"edge", edge}, {"corner", corner}, {"tilt10", tilt}};
  for (int box_ground = 0; box_ground < 2; box_ground++)
    for (int cyl = 0; cyl < 2; cyl++)
      for (int c = 0; c < 4; c++)
        for (int s = 0; s < 2; s++) drop(box_ground, cyl, cases[c].name, cases[c].q, s ? 8.0 : 0.0);
}

// Boxes dropped from 3 m onto round shapes: a plank onto two logs
// (capsules) and a cube onto a ball. A sphere or capsule met by a moving
// box is grown by the box's reach for that pair (collide.c), so the box is
// met before it reaches them: it sinks at most 1 cm into them (before:
// 19.5 cm into the logs, 11 cm into the ball) and ends resting on them,
// its bottom within 0.1 mm of the logs' tops and of the ball's top.
static void test_box_on_round_shapes(void) {
  const char *yaml =
      "format: tessera-model/1\n"
      "name: boxlog\n"
      "settings: {step: 0.016666666666666666, duration: 0.9}\n"
      "materials: [{name: m, friction: 0.5}]\n"
      "bodies:\n"
      "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0.0}}\n"
      "  - {name: log1, fixed: true, shape: {type: capsule, radius: 0.1, length: 2.0}, position: [0, -0.5, 0.1],\n"
      "     orientation: {axis: [0, 1, 0], angle_deg: 90}}\n"
      "  - {name: log2, fixed: true, shape: {type: capsule, radius: 0.1, length: 2.0}, position: [0, 0.5, 0.1],\n"
      "     orientation: {axis: [0, 1, 0], angle_deg: 90}}\n"
      "  - {name: ball, fixed: true, shape: {type: sphere, radius: 0.2}, position: [3, 0, 0.2]}\n"
      "  - {name: plank, mass: 500.0, shape: {type: box, size: [1.5, 1.5, 0.2]}, position: [0, 0, 3.0]}\n"
      "  - {name: cube, mass: 50.0, shape: {type: box, size: [0.5, 0.5, 0.5]}, position: [3, 0, 3.0]}\n";
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  int plank = tsr_model_find_body(&m, "plank"), cube = tsr_model_find_body(&m, "cube");
  double low_plank = INFINITY, low_cube = INFINITY;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    low_plank = fmin(low_plank, w.bodies.x[plank].z), low_cube = fmin(low_cube, w.bodies.x[cube].z);
  }
  // Resting heights: the plank's bottom on the logs' tops (0.2 m), the
  // cube's on the ball's top (0.4 m).
  double rest_plank = 0.2 + 0.1, rest_cube = 0.4 + 0.25;
  fprintf(stderr, "plank on logs: lowest %+.2f mm, end %+.2f mm; cube on ball: lowest %+.2f mm, end %+.2f mm\n",
          1e3 * (low_plank - rest_plank), 1e3 * (w.bodies.x[plank].z - rest_plank), 1e3 * (low_cube - rest_cube),
          1e3 * (w.bodies.x[cube].z - rest_cube));
  ENSURE(low_plank > rest_plank - 0.01);
  ENSURE(low_cube > rest_cube - 0.01);
  ENSURE(fabs(w.bodies.x[plank].z - rest_plank) < 1e-4);
  ENSURE(fabs(w.bodies.x[cube].z - rest_cube) < 1e-4);
  tsr_test_world_free(&m, &w);
}

// Boxes dropped from 3 m (7.3 m/s at impact, 12 cm a step) onto fixed
// solids where no corner of the falling box is the first point to touch:
// edge-first across the top edge of a ridge (a box turned 45 degrees
// about y: crossing edges, tsr_solid_box_edges), and face-down onto a drum
// (a cylinder lying along y, shorter than the box: the drum's rim points
// meet the box's face, tsr_solid_pair). Truth checked: the first landing
// goes at most 5 mm deep (before: 2.5 cm across the ridge, a step's travel
// into the drum); the depths are measured here from the shapes' geometry:
// the distance between the two edges' lines along their common normal,
// and the drum's support point against the box's lowest face.
static TsrVec3 body_axis(const TsrWorld *w, int body, TsrVec3 local) { return tsr_q_rotate(w->bodies.q[body], local); }

static void test_box_on_edges_and_drums(void) {
  const char *yaml =
      "format: tessera-model/1\n"
      "name: edges\n"
      "settings: {step: 0.016666666666666666, duration: 0.9}\n"
      "materials: [{name: m, friction: 0.5}]\n"
      "bodies:\n"
      "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: -2.0}}\n"
      "  - {name: ridge, fixed: true, shape: {type: box, size: [0.6, 2.0, 0.6]}, position: [0, 0, 0],\n"
      "     orientation: {axis: [0, 1, 0], angle_deg: 45}}\n"
      "  - {name: drum, fixed: true, shape: {type: cylinder, radius: 0.3, length: 0.4}, position: [5, 0, 0],\n"
      "     orientation: {axis: [1, 0, 0], angle_deg: 90}}\n"
      "  - {name: wedge, mass: 20.0, shape: {type: box, size: [1.0, 0.5, 0.5]}, position: [0.05, 0.03, 3.0],\n"
      "     orientation: {axis: [1, 0, 0], angle_deg: 45}}\n"
      "  - {name: lid, mass: 20.0, shape: {type: box, size: [0.8, 0.8, 0.2]}, position: [5.02, 0.01, 3.0]}\n";
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  const int ridge = tsr_model_find_body(&m, "ridge"), wedge = tsr_model_find_body(&m, "wedge");
  const int drum = tsr_model_find_body(&m, "drum"), lid = tsr_model_find_body(&m, "lid");
  const double H = 0.3 * sqrt(2.0);  // the ridge's top edge: its centre plus H along z
  double edge_gap = INFINITY, drum_gap = INFINITY;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    // the wedge's lowest edge along its local x: the one of (y, z) = (+-0.25, +-0.25) lowest
    TsrVec3 u = body_axis(&w, wedge, tsr_v3(1, 0, 0)), low = tsr_v3(0, 0, INFINITY);
    for (int k = 0; k < 4; k++) {
      TsrVec3 mid =
          tsr_v3_add(w.bodies.x[wedge], body_axis(&w, wedge, tsr_v3(0, k & 1 ? 0.25 : -0.25, k & 2 ? 0.25 : -0.25)));
      if (mid.z < low.z) low = mid;
    }
    TsrVec3 top = tsr_v3_add(w.bodies.x[ridge], tsr_v3(0, 0, H)), v = tsr_v3(0, 1, 0);
    TsrVec3 nrm = tsr_v3_normalize(tsr_v3_cross(u, v));
    if (nrm.z < 0) nrm = tsr_v3_neg(nrm);
    edge_gap = fmin(edge_gap, tsr_v3_dot(tsr_v3_sub(low, top), nrm));
    // the lid's lowest face: outward normal -d; the drum's support point along d
    TsrVec3 d = body_axis(&w, lid, tsr_v3(0, 0, 1));
    if (d.z < 0) d = tsr_v3_neg(d);
    TsrVec3 a = tsr_v3(0, 1, 0), radial = tsr_v3_normalize(tsr_v3_madd(d, a, -tsr_v3_dot(d, a)));
    TsrVec3 sup = tsr_v3_madd(tsr_v3_madd(w.bodies.x[drum], a, tsr_v3_dot(d, a) < 0 ? -0.2 : 0.2), radial, 0.3);
    double face = tsr_v3_dot(w.bodies.x[lid], d) - 0.1;
    drum_gap = fmin(drum_gap, face - tsr_v3_dot(sup, d));
  }
  fprintf(stderr, "wedge across the ridge: deepest %+.2f mm; lid on the drum: deepest %+.2f mm\n", 1e3 * edge_gap,
          1e3 * drum_gap);
  ENSURE_MSG(edge_gap > -0.005, "the wedge went %.1f mm into the ridge", -1e3 * edge_gap);
  ENSURE_MSG(drum_gap > -0.005, "the lid went %.1f mm into the drum", -1e3 * drum_gap);
  tsr_test_world_free(&m, &w);
}

// A plank dropped from 1.5 m (5.1 m/s, 8.5 cm a step) across a fixed plank
// of the same size, turned 90, 60 and 35 degrees about the vertical: where
// the two faces meet, no corner of either lies over the other's face, and
// the corners' contacts (tsr_solid_pair) had normals from the other's
// edges: the plank went 7.6 cm into the fixed one and rested 2.3 mm inside
// it. The faces' patch (tsr_solid_box_faces) holds it. Truth checked: its
// centre never more than 1 cm below its resting height, 0.15 m (the
// landing bound of test_landings), and it ends there within 0.1 mm, at
// rest.
static void test_crossed_planks(void) {
  const double angles[] = {90, 60, 35};
  for (int a = 0; a < 3; a++) {
    char yaml[800];
    snprintf(yaml, sizeof yaml,
             "format: tessera-model/1\n"
             "name: crib\n"
             "settings: {step: 0.016666666666666666, duration: 1.0}\n"
             "materials: [{name: m, friction: 0.5}]\n"
             "bodies:\n"
             "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0}}\n"
             "  - {name: lower, fixed: true, shape: {type: box, size: [2, 0.3, 0.1]}, position: [0, 0, 0.05]}\n"
             "  - {name: upper, mass: 40, shape: {type: box, size: [2, 0.3, 0.1]}, position: [0.01, -0.02, 1.5],\n"
             "     orientation: {axis: [0, 0, 1], angle_deg: %g}}\n",
             angles[a]);
    TsrModel m;
    TsrWorld w;
    tsr_test_world(yaml, NULL, 0, &m, &w);
    double low = INFINITY;
    while (w.step < m.settings.steps) {
      ENSURE(tsr_world_step(&w) == 0);
      low = fmin(low, w.bodies.x[2].z);
    }
    double end = w.bodies.x[2].z, v = tsr_v3_norm(w.bodies.v[2]);
    fprintf(stderr, "plank across a plank at %2g degrees: lowest %+.2f mm, ends %+.3f mm (|v| %.1e)\n", angles[a],
            1e3 * (low - 0.15), 1e3 * (end - 0.15), v);
    ENSURE_MSG(low > 0.15 - 0.01, "at %g degrees: %.1f mm into the lower plank", angles[a], 1e3 * (0.15 - low));
    ENSURE_MSG(fabs(end - 0.15) < 1e-4, "at %g degrees: ends %.3f mm from its rest", angles[a], 1e3 * (end - 0.15));
    ENSURE(v < 1e-3);
    tsr_test_world_free(&m, &w);
  }
}

// Three boxes falling onto a plane from 1, 2 and 3 m, side by side: their
// centres spread most along z, so the broad phase sorts on z, and ODE
// bounds a plane normal to z by a half-space box (z <= 0): a box met the
// plane only when its own box reached it, a step's travel too late (the
// one from 1 m went 5.7 cm in). Planes are kept out of the broad phase
// (collide.c, collide_planes). Truth checked: no box goes more than 1 cm
// into the plane (test_landings' bound), and each ends on it within 0.1 mm.
static void test_landing_sorted_on_z(void) {
  const char *yaml =
      "format: tessera-model/1\n"
      "name: zsweep\n"
      "settings: {step: 0.016666666666666666, duration: 1.2}\n"
      "bodies:\n"
      "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0}}\n"
      "  - {name: a, mass: 10, shape: {type: box, size: [0.2, 0.2, 0.2]}, position: [0, 0, 1.0]}\n"
      "  - {name: b, mass: 10, shape: {type: box, size: [0.2, 0.2, 0.2]}, position: [0.3, 0, 2.0]}\n"
      "  - {name: c, mass: 10, shape: {type: box, size: [0.2, 0.2, 0.2]}, position: [0.6, 0, 3.0]}\n";
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  double low[3] = {INFINITY, INFINITY, INFINITY};
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    for (int k = 0; k < 3; k++) low[k] = fmin(low[k], lowest(&w, 1 + k, 0, 0.1, 0.1, 0.1));
  }
  for (int k = 0; k < 3; k++) {
    double rest = lowest(&w, 1 + k, 0, 0.1, 0.1, 0.1);
    fprintf(stderr, "box from %d m: deepest %+.2f mm, ends %+.3f mm\n", k + 1, 1e3 * low[k], 1e3 * rest);
    ENSURE_MSG(low[k] > -0.01, "the box from %d m went %.1f mm into the plane", k + 1, -1e3 * low[k]);
    ENSURE(fabs(rest) < 1e-4);
  }
  tsr_test_world_free(&m, &w);
}

// Distance from point p to the box of half-sizes hx, hy, hz at x with
// orientation q (0 inside).
static double point_box(TsrVec3 p, TsrVec3 x, TsrQuat q, double hx, double hy, double hz) {
  TsrVec3 l = tsr_q_rotate_inv(q, tsr_v3_sub(p, x));
  double dx = fmax(fabs(l.x) - hx, 0.0), dy = fmax(fabs(l.y) - hy, 0.0), dz = fmax(fabs(l.z) - hz, 0.0);
  return sqrt(dx * dx + dy * dy + dz * dz);
}

// How far a log of radius r, its axis c + s a for |s| <= len / 2 (n + 1
// points), reaches into the box of half-sizes hx, hy, hz at x with
// orientation q: r less the axis' distance from the box.
static double log_in_box(TsrVec3 c, TsrVec3 a, double len, double r, int n, TsrVec3 x, TsrQuat q, double hx, double hy,
                         double hz) {
  double dist = INFINITY;
  for (int k = 0; k <= n; k++)
    dist = fmin(dist, point_box(tsr_v3_madd(c, a, ((double)k / n - 0.5) * len), x, q, hx, hy, hz));
  return r - dist;
}

// A 500 kg box tilted 20 or 35 degrees about a fixed log (a capsule lying
// on the ground), dropped from 1.5 m so that its lowest edge, parallel to
// the log, lands along it; and tilted 20 degrees about a level axis 17
// degrees off the log's, so that its lowest corner meets the log first;
// the whole scene turned 30 degrees about the vertical. The capsule's contacts with a box were its
// core point and its end caps; the caps sit at the log's ends, beyond the box, unless the log lies along a face, so the
// edge had one contact, the box turned about it and its edge went 62.7 mm into the log at 20 degrees (18.9 at 35). The
// log's ends are now clipped to the edge as to a face (collide.c,
// clip_to_face). Tilted about the other axis, the box touches the log at
// one point, turns about it, and its far corner came down 61 mm into the
// log: the
// box's corners now have speculative contacts with a capsule
// (tsr_solid_box_on_capsule). The same with a cylinder log (flat ends,
// as long in all): tilted 35 degrees, the box's face meets the log's side
// along a line, which had one contact, so the box turned about it and came
// 17.6 mm into the log; a cylinder lying along a box now has the two ends
// of that line (tsr_solid_cylinder_side). Truth checked: the box never comes more than 1 cm into the
// log (test_landings' bound), measured here as the log's radius less the
// distance from its axis segment (2,001 points) to the box.
static void test_box_edge_on_log(void) {
  const double tilts[] = {20, 35, 20}, cross[] = {0, 0, 17};  // the tilt's axis to the log, degrees
  const TsrQuat turn = tsr_q_axis_angle(tsr_v3(0, 0, 1), 30 * M_PI / 180);
  const TsrVec3 along = tsr_q_rotate(turn, tsr_v3(1, 0, 0)), across = tsr_q_rotate(turn, tsr_v3(0, 1, 0));
  static const char *const logs[] = {"capsule, radius: 0.1, length: 2.2", "cylinder, radius: 0.1, length: 2.4"};
  for (int l = 0; l < 2; l++)
    for (int t = 0; t < 3; t++) {
      TsrQuat ql = tsr_q_mul(turn, tsr_q_axis_angle(tsr_v3(0, 1, 0), M_PI / 2));  // log: its z along `along`
      // the box square to the log, tilted about a level axis `cross` degrees off the log's
      TsrVec3 hinge = tsr_q_rotate(tsr_q_axis_angle(tsr_v3(0, 0, 1), cross[t] * M_PI / 180), along);
      TsrQuat qb = tsr_q_mul(tsr_q_axis_angle(hinge, tilts[t] * M_PI / 180), turn);
      TsrVec3 cb = tsr_v3_madd(tsr_v3(0, 0, 1.5), across, 0.45);
      char yaml[1200];
      snprintf(yaml, sizeof yaml,
               "format: tessera-model/1\n"
               "name: edgelog\n"
               "settings: {step: 0.016666666666666666, duration: 0.8}\n"
               "materials: [{name: m, friction: 0.5}]\n"
               "bodies:\n"
               "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0}}\n"
               "  - {name: log, fixed: true, shape: {type: %s}, position: [0, 0, 0.1],\n"
               "     orientation: [%.17g, %.17g, %.17g, %.17g]}\n"
               "  - {name: box, mass: 500, shape: {type: box, size: [1.0, 1.0, 0.2]},\n"
               "     position: [%.17g, %.17g, %.17g], orientation: [%.17g, %.17g, %.17g, %.17g]}\n",
               logs[l], ql.w, ql.x, ql.y, ql.z, cb.x, cb.y, cb.z, qb.w, qb.x, qb.y, qb.z);
      TsrModel m;
      TsrWorld w;
      tsr_test_world(yaml, NULL, 0, &m, &w);
      double deepest = -INFINITY;
      while (w.step < m.settings.steps) {
        ENSURE(tsr_world_step(&w) == 0);
        // the box stays within 0.71 m of the log's middle
        deepest = fmax(
            deepest, log_in_box(tsr_v3(0, 0, 0.1), along, 2.2, 0.1, 2000, w.bodies.x[2], w.bodies.q[2], 0.5, 0.5, 0.1));
      }
      const char *shape = l ? "cylinder" : "capsule";
      fprintf(stderr, "box tilted %g degrees about an axis %g degrees off the %s log's: deepest %+.2f mm into it\n",
              tilts[t], cross[t], shape, 1e3 * deepest);
      ENSURE_MSG(deepest < 0.01, "tilted %g degrees about %g off the %s log: %.1f mm into it", tilts[t], cross[t],
                 shape, 1e3 * deepest);
      tsr_test_world_free(&m, &w);
    }
}

// A 2,500 kg box 2.4 m wide, tilted 20 degrees about the direction of
// four moving cylinder logs 2.4 m long under it (the top layer of the log
// tower built of cylinders), dropped 2 m (6.3 m/s at impact), the whole
// scene turned 30 degrees about the vertical. The logs' ends lie in the
// planes of the box's sides, where a rim point's nearest face of the box is
// a side face: with the rim points alone, a log's ends had contacts pushing
// them along the log, nothing held it under the box's bottom face, and the
// box came 90 mm into a log. The side line's ends at the rims now take the
// bottom face too (side_on_face). Truth checked: no log's axis comes
// nearer the box than its radius less 2.5 cm: SPOOK lets a contact reached
// at speed v go beta v h deeper in its first step (beta = 1/9 at the
// default damping of 2 steps: 1.2 cm at 6.3 m/s), twice that is allowed.
// Measured 6.2 mm (12.9 mm when this test was written).
static void test_wide_box_on_logs(void) {
  const TsrQuat turn = tsr_q_axis_angle(tsr_v3(0, 0, 1), 30 * M_PI / 180);
  const TsrVec3 along = tsr_q_rotate(turn, tsr_v3(0, 1, 0)), across = tsr_q_rotate(turn, tsr_v3(1, 0, 0));
  char yaml[3000];
  int n = snprintf(yaml, sizeof yaml,
                   "format: tessera-model/1\n"
                   "name: widebox\n"
                   "settings: {step: 0.016666666666666666, duration: 1.5}\n"
                   "materials: [{name: m, friction: 0.5}]\n"
                   "bodies:\n"
                   "  - {name: ground, fixed: true, shape: {type: box, size: [10, 10, 1]}, position: [0, 0, -0.5]}\n");
  const TsrQuat ql = tsr_q_mul(turn, tsr_q_axis_angle(tsr_v3(1, 0, 0), M_PI / 2));  // log: its z along `along`
  for (int i = 0; i < 4; i++) {
    TsrVec3 c = tsr_v3_madd(tsr_v3(0, 0, 0.1005), across, -0.9 + 0.6 * i);
    n += snprintf(yaml + n, sizeof yaml - (size_t)n,
                  "  - {name: log%d, mass: 50, shape: {type: cylinder, radius: 0.1, length: 2.4},\n"
                  "     position: [%.17g, %.17g, %.17g], orientation: [%.17g, %.17g, %.17g, %.17g]}\n",
                  i, c.x, c.y, c.z, ql.w, ql.x, ql.y, ql.z);
  }
  const TsrQuat qb = tsr_q_mul(tsr_q_axis_angle(along, 20 * M_PI / 180), turn);
  const TsrVec3 cb = tsr_v3_madd(tsr_v3(0, 0, 2.425), across, 0.03);
  snprintf(yaml + n, sizeof yaml - (size_t)n,
           "  - {name: box, mass: 2500, shape: {type: box, size: [2.4, 2.4, 0.45]},\n"
           "     position: [%.17g, %.17g, %.17g], orientation: [%.17g, %.17g, %.17g, %.17g]}\n",
           cb.x, cb.y, cb.z, qb.w, qb.x, qb.y, qb.z);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  double deepest = -INFINITY;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    for (int l = 1; l <= 4; l++)
      deepest = fmax(deepest, log_in_box(w.bodies.x[l], tsr_q_rotate(w.bodies.q[l], tsr_v3(0, 0, 1)), 2.4, 0.1, 240,
                                         w.bodies.x[5], w.bodies.q[5], 1.2, 1.2, 0.225));
  }
  fprintf(stderr, "box as wide as the logs are long, tilted 20 degrees: deepest log %+.2f mm into it\n", 1e3 * deepest);
  ENSURE_MSG(deepest < 0.025, "a log went %.1f mm into the box", 1e3 * deepest);
  tsr_test_world_free(&m, &w);
}

int main(void) {
  RUN_TEST(test_landings);
  RUN_TEST(test_box_on_round_shapes);
  RUN_TEST(test_box_on_edges_and_drums);
  RUN_TEST(test_crossed_planks);
  RUN_TEST(test_landing_sorted_on_z);
  RUN_TEST(test_box_edge_on_log);
  RUN_TEST(test_wide_box_on_logs);
  return TSR_TEST_RESULT();
}
