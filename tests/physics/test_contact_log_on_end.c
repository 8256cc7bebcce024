// SPDX-License-Identifier: MIT
// A short log lying across the top end of an upright one, from a pile of
// mixed shapes (tests/scenes/test_mixed_pile.py, pile(8) run with a
// candidate change to tsr_solid_deepest that moved it off the released
// path from frame 23: bodies b10 and b26 at frame 30, poses and velocities
// as written). The log (r 101 mm, 239 mm long), tilted 5.6 degrees, comes
// down at 1.05 m/s spinning at 15 rad/s, its side 2.8 mm above the upright
// log's top (r 171 mm), one end just beyond the top's centre. The upright
// log's axis passed over the lying log's end face for its last 8 mm, and
// face_on_side took the upright's side line there, beside that axis by
// r sin(5.6 deg) = 17 mm, 12 mm outside the lying log's side, for a line
// 173 mm behind its end face: a contact 168 mm deep along the lying log's
// axis, which threw it sideways at 2.0 m/s (0.83 of its radius into the
// upright one in the pile). Now the chord over the face is the side
// line's own (solid.c, face_on_side).
#include "tsr_test.h"
#include "sim_helpers.h"

#include "contact/contact.h"

static const char *const model =
    "format: tessera-model/1\n"
    "name: log_on_end\n"
    "settings: {step: 0.016666666666666666, duration: 0.1, contact: {max_per_pair: 4, margin: 0.005}}\n"
    "materials: [{name: m, friction: 0.5, compliance: 1.0e-9, damping: 2.0}]\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0.0}}\n"
    "  - {name: upright, mass: 7.1, shape: {type: cylinder, radius: 0.171, length: 0.453},\n"
    "     position: [0.28770023700527864, 0.20708285996430226, 0.2265000351816683],\n"
    "     orientation: [4.95415629893835e-08, -0.9971907836562702, 0.07490354458160416, -3.207020341776085e-07],\n"
    "     velocity: [-0.12622524730994789, -0.1513819252825328, -0.003480161698434895],\n"
    "     angular_velocity: [0.035619093348174584, -0.09129205440917983, 0.8410839815551077]}\n"
    "  - {name: log, mass: 7.6, shape: {type: cylinder, radius: 0.101, length: 0.239},\n"
    "     position: [0.35508743340506776, 0.2964726686883496, 0.5678726498641572],\n"
    "     orientation: [0.09684668001828492, -0.5016697673433836, -0.4471081433546769, -0.7341951193306894],\n"
    "     velocity: [0.5396542860276642, -0.042100310032077634, -1.052683247384331],\n"
    "     angular_velocity: [-15.418890421231803, -0.3137116443758002, 0.693849463837312]}\n";

static const double R[3] = {0.0, 0.171, 0.101}, HALF_LEN[3] = {0.0, 0.2265, 0.1195};

// Signed distance from p to body b's cylinder.
static double cylinder_sd(const TsrWorld *w, int b, TsrVec3 p) {
  TsrVec3 y = tsr_q_rotate_inv(w->bodies.q[b], tsr_v3_sub(p, w->bodies.x[b]));
  double dr = hypot(y.x, y.y) - R[b], dz = fabs(y.z) - HALF_LEN[b];
  if (dr <= 0.0 && dz <= 0.0) return fmax(dr, dz);
  return hypot(fmax(dr, 0.0), fmax(dz, 0.0));
}

// The overlap of the two (< 0: apart): the deepest sample of either's
// surface inside the other (the side every 1 degree at 81 stations, the
// ends on 24 rings).
static double overlap(const TsrWorld *w) {
  double best = -INFINITY;
  for (int g = 1; g <= 2; g++)
    for (int s = 0; s <= 80; s++)
      for (int t = 0; t < 360; t++)
        for (int ring = 0; ring <= ((s % 80) ? 0 : 24); ring++) {
          double rr = R[g] * (1.0 - ring / 24.0), th = t * M_PI / 180;
          TsrVec3 l = tsr_v3(rr * cos(th), rr * sin(th), (s / 40.0 - 1) * HALF_LEN[g]);
          best = fmax(best, -cylinder_sd(w, 3 - g, tsr_v3_add(w->bodies.x[g], tsr_q_rotate(w->bodies.q[g], l))));
        }
  return best;
}

static void test_log_across_upright_end(void) {
  TsrModel m;
  TsrWorld w;
  tsr_test_world(model, NULL, 0, &m, &w);
  const double before = overlap(&w);
  ENSURE_MSG(before > -0.0030 && before < -0.0026, "overlap %.1f mm at the start", 1e3 * before);
  // Apart by 2.8 mm: no contact of the two deeper than they overlap, but
  // for 1 mm (the samples, 3 mm apart round a rim and 5.7 mm along the
  // upright's side, miss the deepest point of a line tilted 5.6 degrees to
  // a face by at most 0.3 mm); before: 168 mm.
  ENSURE(tsr_contact_collide(&w.contacts, &m, &w.bodies) == 0);
  double deepest = -INFINITY;
  for (int i = 0; i < w.contacts.n; i++) {
    const TsrContact *c = &w.contacts.c[i];
    if (c->body[0] == 0 || c->body[1] == 0) continue;
    fprintf(stderr, "  contact %d-%d depth %.1f mm normal (%.3f %.3f %.3f)\n", c->body[0], c->body[1], 1e3 * c->depth,
            c->normal.x, c->normal.y, c->normal.z);
    deepest = fmax(deepest, c->depth);
  }
  ENSURE_MSG(deepest < before + 0.001, "a contact %.1f mm deep between logs %.1f mm apart", 1e3 * deepest,
             -1e3 * before);
  tsr_test_world_free(&m, &w);
  tsr_test_world(model, NULL, 0, &m, &w);
  // Landing on the top, the log is not thrown sideways: friction can take
  // from its 1.05 m/s fall and its weight over three steps at most mu (1.05
  // + g 3 dt) = 0.77 m/s into its level speed, from 0.54 (before: 2.0 after
  // one step), and it rests on the top, not in it: 1 mm (before: 4.1 mm
  // after one step; under its weight the compliance gives 1e-7 m).
  const double mu = 0.5, dt = 1.0 / 60.0, g = 9.81;
  const double v0 = hypot(w.bodies.v[2].x, w.bodies.v[2].y);
  const double bound = v0 + mu * (fabs(w.bodies.v[2].z) + 3 * g * dt);
  double fastest = 0.0, worst = -INFINITY;
  for (int s = 0; s < 3; s++) {
    ENSURE(tsr_world_step(&w) == 0);
    const double o = overlap(&w), v = hypot(w.bodies.v[2].x, w.bodies.v[2].y);
    fprintf(stderr, "step %d: overlap %.2f mm, level speed %.2f m/s\n", s + 1, 1e3 * o, v);
    worst = fmax(worst, o), fastest = fmax(fastest, v);
  }
  ENSURE_MSG(fastest < bound, "the log was thrown at %.2f m/s (at most %.2f)", fastest, bound);
  ENSURE_MSG(worst < 0.001, "the log went %.2f mm into the upright one", 1e3 * worst);
  tsr_test_world_free(&m, &w);
}

int main(void) {
  RUN_TEST(test_log_across_upright_end);
  return TSR_TEST_RESULT();
}
