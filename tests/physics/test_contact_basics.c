// SPDX-License-Identifier: MIT
// Contact basics: ODE's pair table and normal convention, a sphere dropped on
// a plane comes to rest without sinking (resting depth = compliance x weight),
// material combination and pair overrides, frame output, and pairs that do
// not collide (jointed bodies, parts of one body).
#include "contact/contact.h"
#include "sim_helpers.h"
#include "tsr_test.h"

static void test_pair_table(void) {
  for (int a = 0; a < 5; a++)
    for (int b = 0; b < 5; b++) {
      int want = !(a == TSR_SHAPE_PLANE && b == TSR_SHAPE_PLANE);
      ENSURE_MSG(tsr_contact_pair_supported((TsrShapeType)a, (TsrShapeType)b) == want, "%s-%s",
                 tsr_contact_shape_name((TsrShapeType)a), tsr_contact_shape_name((TsrShapeType)b));
    }
}

static const char *drop_yaml =
    "format: tessera-model/1\n"
    "name: drop\n"
    "settings: {duration: 3.0, contact: {margin: 0.01}}\n"
    "materials: [{name: m, friction: 0.5, compliance: 1.0e-8, damping: 2.0}]\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0.0}}\n"
    "  - {name: ball, mass: 10.0, shape: {type: sphere, radius: 0.2}, position: [0, 0, 1.0]}\n";

static void test_sphere_drop(void) {
  TsrModel m;
  TsrWorld w;
  tsr_test_world(drop_yaml, NULL, 0, &m, &w);
  double lowest = 1e9, pen = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    if (w.bodies.x[1].z < lowest) lowest = w.bodies.x[1].z;
    if (w.step > 120 && w.stats.penetration > pen) pen = w.stats.penetration;
  }
  // Resting depth: compliance x weight, with the two surfaces' compliances
  // in series (1e-8 + 1e-8).
  double rest = 0.2 - 2e-8 * 10 * 9.81;
  fprintf(stderr, "sphere: z %.9f (rest %.9f), lowest %.6f, v %.2e, penetration after 2 s %.2e, contacts %d\n",
          w.bodies.x[1].z, rest, lowest, tsr_v3_norm(w.bodies.v[1]), pen, w.contacts.n);
  ENSURE_NEAR(w.bodies.x[1].z, rest, 1e-6);
  ENSURE(tsr_v3_norm(w.bodies.v[1]) < 1e-5);
  ENSURE(lowest > 0.2 - 0.02);  // the landing at 4 m/s costs at most 2 cm for a step or two
  ENSURE(w.contacts.n == 1);
  // Normal convention: body 0 = ground (shape 0), pushed along +normal, so the
  // normal points down (-z) and the ball is pushed up by a positive impulse.
  TsrFrame f;
  tsr_world_frame(&w, 0, &f);
  ENSURE(f.n_contacts == 1);
  ENSURE(f.contact_body[0] == 0 && f.contact_body[1] == 1);
  ENSURE_NEAR(f.contact_normal[2], -1.0, 1e-12);
  ENSURE_NEAR(f.contact_impulse[0], 10 * 9.81 / 60, 1e-6);
  ENSURE(f.n_rows == 3 && f.row_type[0] == TSR_ROW_CONTACT_NORMAL && f.row_type[1] == TSR_ROW_CONTACT_FRICTION &&
         f.row_type[2] == TSR_ROW_CONTACT_FRICTION && f.row_source[2] == 0);
  tsr_test_world_free(&m, &w);
}

static void test_materials(void) {
  const char *yaml =
      "format: tessera-model/1\n"
      "name: mats\n"
      "materials:\n"
      "  - {name: a, friction: 0.4, compliance: 1.0e-9, damping: 2.0}\n"
      "  - {name: b, friction: 0.9, compliance: 3.0e-9, damping: 4.0}\n"
      "  - {name: c, friction: 0.1, compliance: 1.0e-8, damping: 1.0}\n"
      "material_pairs:\n"
      "  - {materials: [c, a], friction: 0.7}\n"
      "bodies:\n"
      "  - {name: x, mass: 1.0, shape: {type: sphere, radius: 0.1}}\n";
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  const TsrContactMaterial *t = w.contacts.material;
  ENSURE_NEAR(t[0 * 3 + 1].friction, sqrt(0.4 * 0.9), 1e-15);
  ENSURE_NEAR(t[0 * 3 + 1].compliance, 4e-9, 1e-24);
  ENSURE_NEAR(t[1 * 3 + 0].damping, 4.0, 0);
  ENSURE_NEAR(t[0 * 3 + 2].friction, 0.7, 0);  // override, either order
  ENSURE_NEAR(t[2 * 3 + 0].friction, 0.7, 0);
  ENSURE_NEAR(t[2 * 3 + 0].compliance, 1.1e-8, 1e-22);  // not overridden: combined
  ENSURE_NEAR(t[0].friction, 0.4, 1e-15);
  tsr_test_world_free(&m, &w);
}

// Two overlapping boxes joined by a ball joint do not collide unless the
// joint says so; parts of one compound never collide with each other.
static void test_filters(void) {
  char yaml[1024];
  for (int collide = 0; collide < 2; collide++) {
    snprintf(yaml, sizeof yaml,
             "format: tessera-model/1\n"
             "name: filt\n"
             "settings: {gravity: [0, 0, 0]}\n"
             "bodies:\n"
             "  - {name: a, mass: 1.0, shape: {type: box, size: [1, 1, 1]}}\n"
             "  - {name: b, mass: 1.0, shape: {type: box, size: [1, 1, 1]}, position: [0.5, 0, 0]}\n"
             "  - name: c\n"
             "    mass: 1.0\n"
             "    position: [10, 0, 0]\n"
             "    shape: {type: compound, parts: [{type: box, size: [1, 1, 1]}, {type: sphere, radius: 0.5, position: "
             "[0.2, 0, 0]}]}\n"
             "joints:\n"
             "  - {name: j, type: ball, bodies: [a, b], anchor: [0.25, 0, 0], collide: %s}\n",
             collide ? "true" : "false");
    TsrModel m;
    TsrWorld w;
    tsr_test_world(yaml, NULL, 0, &m, &w);
    ENSURE(tsr_world_step(&w) == 0);
    ENSURE_MSG(w.contacts.n == (collide ? 4 : 0), "collide %d: %d contacts", collide, w.contacts.n);
    tsr_test_world_free(&m, &w);
  }
}

// The broad phase sorts along the axis the shapes spread most on and is
// rebuilt when that changes (collide.c, choose_sweep_axes). Whatever the
// axis, a row of overlapping spheres has contacts between neighbours only:
// the row is laid along x, then z, y and a diagonal, and every pair found
// must be (i, i+1), each once.
static void test_broad_phase_axes(void) {
  enum { N = 40 };
  const char *yaml =
      "format: tessera-model/1\n"
      "name: row\n"
      "settings: {gravity: [0, 0, 0], contact: {margin: 0.0}}\n"
      "bodies:\n"
      "  - {name: s, count: 40, mass: 1.0, shape: {type: sphere, radius: 0.1},\n"
      "     position: [0, 0, 0], stride: {position: [0.19, 0, 0]}}\n";
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  ENSURE(m.n_bodies == N);
  const TsrVec3 dirs[4] = {{1, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0.19 / sqrt(3.0), 0.19 / sqrt(3.0), 0.19 / sqrt(3.0)}};
  for (int d = 0; d < 4; d++) {
    TsrVec3 u = tsr_v3_normalize(dirs[d]);
    for (int i = 0; i < N; i++) {
      // 0.19 m apart: neighbours overlap 1 cm, the next but one are 18 cm apart
      w.bodies.x[i] = tsr_v3_add(tsr_v3(3.0, -2.0, 5.0), tsr_v3_scale(u, 0.19 * i));
      w.bodies.v[i] = tsr_v3(0, 0, 0);
    }
    ENSURE(tsr_contact_collide(&w.contacts, &m, &w.bodies) == 0);
    int seen[N] = {0};
    for (int k = 0; k < w.contacts.n; k++) {
      const TsrContact *c = &w.contacts.c[k];
      ENSURE_MSG(c->body[1] == c->body[0] + 1, "direction %d: contact between %d and %d", d, c->body[0], c->body[1]);
      if (c->body[1] == c->body[0] + 1) seen[c->body[0]]++;
    }
    for (int i = 0; i + 1 < N; i++)
      ENSURE_MSG(seen[i] == 1, "direction %d: pair (%d, %d) found %d times", d, i, i + 1, seen[i]);
  }
  tsr_test_world_free(&m, &w);
}

int main(void) {
  RUN_TEST(test_pair_table);
  RUN_TEST(test_sphere_drop);
  RUN_TEST(test_materials);
  RUN_TEST(test_filters);
  RUN_TEST(test_broad_phase_axes);
  return TSR_TEST_RESULT();
}
