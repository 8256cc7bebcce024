// SPDX-License-Identifier: MIT
// A disc on its cap across a box's top edge, from a pile of mixed shapes
// (tests/scenes/test_mixed_pile.py, pile(9): bodies b2 and b18 at frame
// 32, poses and velocities as written). The disc (r 158 mm, 172 mm long),
// struck from above by a falling capsule in the step before, stands nearly
// level 28 mm into the box's top, its centre 70 mm beyond the box's side
// and 68 mm above its top, moving down at 1.3 m/s and turning at 28 rad/s.
// Seen from its centre, off the box's edge, the side faced it a little
// more than the top did (0.72 against 0.70), and side_on_face took the
// disc's side line for one lying on that side: two contacts with the
// side's normal, 86 mm deep, which hid the rim point under the top. Nothing
// held the disc up: it went on to 42 mm in the next step (48 in the pile).
// Now a side line deeper under a face than it is long over it is not
// lying on that face (solid.c, side_on_face).
#include "tsr_test.h"
#include "sim_helpers.h"
#include "shape_overlap.h"

#include "contact/contact.h"

static const char *const model =
    "format: tessera-model/1\n"
    "name: disc_over_edge\n"
    "settings: {step: 0.016666666666666666, duration: 0.1, contact: {max_per_pair: 4, margin: 0.005}}\n"
    "materials: [{name: m, friction: 0.5, compliance: 1.0e-9, damping: 2.0}]\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0.0}}\n"
    "  - {name: box, mass: 11.3, shape: {type: box, size: [0.41, 0.253, 0.398]},\n"
    "     position: [0.21074767278941198, -0.9217190815637504, 0.12649979004224143],\n"
    "     orientation: [0.3087320824505825, 0.30873178803245116, -0.636148104588449, -0.636148389412829],\n"
    "     velocity: [-0.16367334955920965, 0.15641945563026854, -5.638316557310397e-06],\n"
    "     angular_velocity: [1.8685462053051821e-06, 1.813108001956976e-05, 0.10568936494778858]}\n"
    "  - {name: disc, mass: 5.8, shape: {type: cylinder, radius: 0.158, length: 0.172},\n"
    "     position: [0.43143890709032445, -1.0756412985734185, 0.3207011019983581],\n"
    "     orientation: [-0.012054009018225545, -0.5680442322597918, -0.8224181521794653, 0.028440007536674528],\n"
    "     velocity: [1.517508521404755, -1.535279652936868, -1.2646790959976923],\n"
    "     angular_velocity: [-16.961626004104005, -21.60874032687237, 0.57329305078096]}\n";

static const double R = 0.158, HALF_LEN = 0.086;
static const TsrVec3 HALF = {0.205, 0.1265, 0.199};

// The overlap of the two (shape_overlap.h).
static double overlap(const TsrWorld *w) {
  return test_box_cylinder_overlap(w->bodies.x[1], w->bodies.q[1], HALF, w->bodies.x[2], w->bodies.q[2], R, HALF_LEN,
                                   40, 144);
}

static void test_disc_across_top_edge(void) {
  TsrModel m;
  TsrWorld w;
  tsr_test_world(model, NULL, 0, &m, &w);
  const double before = overlap(&w);
  ENSURE_MSG(before > 0.027 && before < 0.029, "overlap %.1f mm at the start", 1e3 * before);
  // The box stands upright (its y axis up): the way out is up, through its
  // top, 28 mm, not sideways through its side, 86 mm.
  ENSURE(tsr_contact_collide(&w.contacts, &m, &w.bodies) == 0);
  double up = -1.0;
  for (int i = 0; i < w.contacts.n; i++) {
    const TsrContact *c = &w.contacts.c[i];
    if (c->body[0] == 0 || c->body[1] == 0) continue;
    // the normal as it pushes the disc
    const double z = c->body[0] == 2 ? c->normal.z : -c->normal.z;
    fprintf(stderr, "  contact %d-%d depth %.1f mm normal (%.3f %.3f %.3f)\n", c->body[0], c->body[1], 1e3 * c->depth,
            c->normal.x, c->normal.y, c->normal.z);
    up = fmax(up, z);
  }
  ENSURE_MSG(up > cos(20 * M_PI / 180), "no contact pushes the disc within 20 degrees of up (%.0f off)",
             acos(fmax(-1.0, fmin(1.0, up))) * 180 / M_PI);
  // A fresh world again, so that the steps' contacts follow on from none,
  // as in the pile (the collide above would stand for the step before).
  tsr_test_world_free(&m, &w);
  tsr_test_world(model, NULL, 0, &m, &w);
  // Held up from the first step, the disc comes no deeper than it started
  // (it moves down 21 mm a step); before: 42 mm after one step.
  const double worst = test_worst_overlap(&w, 3, overlap);
  ENSURE_MSG(worst < before, "the disc went %.1f mm into the box (%.1f at the start)", 1e3 * worst, 1e3 * before);
  tsr_test_world_free(&m, &w);
}

int main(void) {
  RUN_TEST(test_disc_across_top_edge);
  return TSR_TEST_RESULT();
}
