// SPDX-License-Identifier: MIT
// Two boxes whose edges cross, from a pile of mixed shapes
// (tests/scenes/test_mixed_pile.py, pile(1): bodies b37 and b53 at frame
// 36, poses and velocities as written): a small box spinning at 20 rad/s
// under a large one falling at 3.8 m/s, their edges crossing 11 mm deep,
// and a corner of the small box 0.4 mm from the large one's face, 20 cm
// from the crossing. ODE's box-box gives one point for crossing edges;
// the corner, inside the margin, was left to ODE (tsr_solid_pair:
// "overlapping: ODE's") and had no contact, and the small box's spin swung
// it 80 mm into the large box in one step. Now a corner that only just
// touches, farther than dedup from each of ODE's points, keeps its own.
#include "tsr_test.h"
#include "sim_helpers.h"

#include "contact/contact.h"

static const char *const model =
    "format: tessera-model/1\n"
    "name: box_corner\n"
    "settings: {step: 0.016666666666666666, duration: 0.1, contact: {max_per_pair: 4, margin: 0.005}}\n"
    "materials: [{name: m, friction: 0.5, compliance: 1.0e-9, damping: 2.0}]\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: -50.0}}\n"
    "  - {name: small, mass: 11.0, shape: {type: box, size: [0.125, 0.242, 0.155]},\n"
    "     position: [-0.31469090449490489, -0.37860392578984214, 0.70143332849135931],\n"
    "     orientation: [0.28191955260357165, 0.6760063853636713, 0.3432117082066809, -0.58799868720703596],\n"
    "     velocity: [-0.32793400343245482, -0.73924485199293222, -1.7906921725377052],\n"
    "     angular_velocity: [-14.359337965195978, 12.160343954517266, -8.2444433727064119]}\n"
    "  - {name: large, mass: 14.5, shape: {type: box, size: [0.297, 0.398, 0.356]},\n"
    "     position: [-0.27472461252885644, -0.29310734592626436, 0.93754607704506521],\n"
    "     orientation: [-0.50288263223825835, -0.55004036902178022, -0.54480620913507816, 0.38438372120495717],\n"
    "     velocity: [0.1779843478864489, 0.19242717451696914, -3.798448578507216],\n"
    "     angular_velocity: [-4.0292065012069651, -1.8979118539786737, 1.7371384802796082]}\n";

static void test_corner_beside_crossing_edges(void) {
  TsrModel m;
  TsrWorld w;
  tsr_test_world(model, NULL, 0, &m, &w);
  // the small box's corner (-, +, -) of its half sizes, 0.4 mm from the large box
  const TsrVec3 corner = tsr_v3_add(w.bodies.x[1], tsr_q_rotate(w.bodies.q[1], tsr_v3(-0.0625, 0.121, -0.0775)));
  ENSURE(tsr_contact_collide(&w.contacts, &m, &w.bodies) == 0);
  double nearest = INFINITY;
  for (int i = 0; i < w.contacts.n; i++) {
    const TsrContact *c = &w.contacts.c[i];
    fprintf(stderr, "  contact %d-%d at (%.4f %.4f %.4f) depth %.2f mm\n", c->body[0], c->body[1], c->point.x,
            c->point.y, c->point.z, 1e3 * c->depth);
    nearest = fmin(nearest, tsr_v3_norm(tsr_v3_sub(c->point, corner)));
  }
  fprintf(stderr, "nearest contact to the corner: %.1f mm\n", 1e3 * nearest);
  // dedup: a tenth of the smaller box's least size
  ENSURE_MSG(nearest < 0.0125, "no contact within 12.5 mm of the corner (nearest %.1f mm)", 1e3 * nearest);
  tsr_test_world_free(&m, &w);
}

int main(void) {
  RUN_TEST(test_corner_beside_crossing_edges);
  return TSR_TEST_RESULT();
}
