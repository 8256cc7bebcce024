// SPDX-License-Identifier: MIT
// Seams between level fixed boxes (contact_internal.h, tsr_contact_drop_seams).
//
// A floor laid from several fixed boxes, their top faces in one plane P,
// has seams where one box's top face meets the next. A shape sliding or
// rolling over a seam meets the next box's edge first: its corners level
// with P and just beside that box take the box's side face (solid.c), a
// sphere or a capsule the normal from the box's edge to its centre, and the
// row of that contact (speculative: it keeps the gap from closing more than
// it is) stops the shape at the seam. A 2 kg box slid at 3 m/s over two
// boxes laid edge to edge tripped over the seam, rose 6.7 cm and kept a
// third of its speed without friction; a sphere, a capsule and a cylinder
// on its side hopped 1.9 cm and lost 12% of theirs (the "internal edge" of
// game engines' triangle meshes).
//
// The box f lies wholly under P (P holds its top face u), so as long as the
// shape g stays over P, f can touch g only through that face: any other
// normal of f is a ghost. A contact of g with f is dropped when
//   * f and another shape A are fixed, f a box, A a box or a plane;
//   * g has a contact with A whose normal is f's face normal u (g is held
//     over P there), and A's face with that normal lies in f's face plane to
//     SEAM_LEVEL (the two are level: a real step, however small, stays a
//     step);
//   * the contact's point is beside f's face u, at or over its plane (to
//     SEAM_DIP below it: deeper, g has gone down past the seam, and f's side
//     is a wall again), and its normal is not u.
// Where the point moves over f's face, f's own face contact (normal u)
// holds it from then on.
#include "contact/contact_internal.h"

#include <math.h>
#include <string.h>

// Two faces are level when their planes are this close (m): floors laid
// from boxes whose positions and sizes come from one YAML file are level
// to rounding; a step of 1 um is a step.
#define SEAM_LEVEL 1e-6
// How far under P a point of g may lie and still be a ghost of f's edge (m):
// resting contacts sink by their compliance's share, 1e-8 m for 20 N at
// 1e-9 m/N.
#define SEAM_DIP 1e-4
// Normals this close to a face normal are that face's (1 - cos).
#define SEAM_PARALLEL 1e-9

typedef struct {
  TsrVec3 c, u[3];  // centre, world axes
  double half[3];
} Box;

static Box box_of(const TsrModel *m, const TsrBodies *b, int shape) {
  const TsrShapeDef *s = &m->shapes[shape];
  Box x;
  TsrQuat q;
  tsr_contact_shape_pose(s, b->x[s->body], b->q[s->body], &x.c, &q);
  const TsrVec3 e[3] = {tsr_v3(1, 0, 0), tsr_v3(0, 1, 0), tsr_v3(0, 0, 1)};
  for (int i = 0; i < 3; i++) x.u[i] = tsr_q_rotate(q, e[i]), x.half[i] = 0.5 * s->params[i];
  return x;
}

// The offset along u of A's face whose outward normal is u (box or plane
// shape A), or NAN when A has no such face.
static double face_offset(const TsrModel *m, const TsrBodies *b, int shape, TsrVec3 u) {
  const TsrShapeDef *s = &m->shapes[shape];
  if (s->type == TSR_SHAPE_PLANE) {
    TsrVec3 n = tsr_v3(s->params[0], s->params[1], s->params[2]);
    const double len = tsr_v3_norm(n);
    if (!(len > 0.0) || tsr_v3_dot(n, u) < (1.0 - SEAM_PARALLEL) * len) return NAN;
    return s->params[3] / len;
  }
  if (s->type != TSR_SHAPE_BOX) return NAN;
  const Box a = box_of(m, b, shape);
  for (int i = 0; i < 3; i++) {
    const double d = tsr_v3_dot(a.u[i], u);
    if (fabs(d) > 1.0 - SEAM_PARALLEL) return tsr_v3_dot(a.c, u) + a.half[i];
  }
  return NAN;
}

// The normal of contact k pointing out of its fixed shape (slot f) into the other.
static TsrVec3 outward(const TsrContact *k, int f) { return f == 0 ? tsr_v3_scale(k->normal, -1.0) : k->normal; }

// Whether g (moving shape, body gb) has a contact, other than with f, with a
// fixed box or plane whose outward normal is u and whose face along u lies
// at offset (level with f's face).
static int held_level(const TsrContacts *cs, const TsrModel *m, const TsrBodies *b, int g, int f, TsrVec3 u,
                      double offset) {
  for (int j = 0; j < cs->n; j++) {
    const TsrContact *k = &cs->c[j];
    int slot = k->shape[0] == g ? 1 : k->shape[1] == g ? 0 : -1;  // A's slot
    if (slot < 0 || k->shape[slot] == f || !b->fixed[k->body[slot]]) continue;
    if (tsr_v3_dot(outward(k, slot), u) < 1.0 - SEAM_PARALLEL) continue;
    const double o = face_offset(m, b, k->shape[slot], u);
    if (fabs(o - offset) <= SEAM_LEVEL) return 1;
  }
  return 0;
}

// Whether contact k (fixed box in slot f) is a ghost of a seam.
static int ghost(const TsrContacts *cs, const TsrModel *m, const TsrBodies *b, const TsrContact *k, int f) {
  const int fs = k->shape[f], gs = k->shape[1 - f];
  const TsrVec3 n = outward(k, f);
  const Box x = box_of(m, b, fs);
  const TsrVec3 d = tsr_v3_sub(k->point, x.c);
  double l[3];
  for (int i = 0; i < 3; i++) l[i] = tsr_v3_dot(d, x.u[i]);
  for (int i = 0; i < 3; i++)
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      const TsrVec3 u = tsr_v3_scale(x.u[i], sgn);
      if (tsr_v3_dot(n, u) > 1.0 - SEAM_PARALLEL) continue;  // face u's own contact
      if (sgn * l[i] < x.half[i] - SEAM_DIP) continue;       // under face u's plane
      const int a = (i + 1) % 3, c = (i + 2) % 3;
      // over face u (not beside it, nor on its rim)
      if (fabs(l[a]) < x.half[a] - SEAM_DIP && fabs(l[c]) < x.half[c] - SEAM_DIP) continue;
      if (held_level(cs, m, b, gs, fs, u, tsr_v3_dot(x.c, u) + x.half[i])) return 1;
    }
  return 0;
}

void tsr_contact_drop_seams(TsrContacts *cs, const TsrModel *m, const TsrBodies *b) {
  // decide every contact first (match is scratch here: detect sets it after),
  // then drop: the supports that decide stay in place meanwhile
  for (int i = 0; i < cs->n; i++) {
    TsrContact *k = &cs->c[i];
    const int f0 = b->fixed[k->body[0]] && m->shapes[k->shape[0]].type == TSR_SHAPE_BOX;
    const int f1 = b->fixed[k->body[1]] && m->shapes[k->shape[1]].type == TSR_SHAPE_BOX;
    // a moving shape against a fixed box
    k->match = f0 != f1 && !b->fixed[k->body[f0 ? 1 : 0]] && ghost(cs, m, b, k, f0 ? 0 : 1);
  }
  int out = 0;
  for (int i = 0; i < cs->n; i++)
    if (!cs->c[i].match) cs->c[out++] = cs->c[i];
  cs->n = out;
}
