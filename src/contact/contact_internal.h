// SPDX-License-Identifier: MIT
// Shared between the files of src/contact.
#ifndef TSR_CONTACT_INTERNAL_H
#define TSR_CONTACT_INTERNAL_H

#include <math.h>

#include "contact/contact.h"

// collide.c
int tsr_contact_collider_create(TsrCollider **out, const TsrModel *m, char *err, int errlen);
void tsr_contact_collider_free(TsrCollider **c);
// This step's contacts into cs->c (sorted, unmatched). 0, or -1 when out of
// memory or when ODE raised an internal error (ode_trap.h; the collider is
// then not used again): tsr_contact_collider_error says which.
int tsr_contact_detect(TsrContacts *cs, const TsrModel *m, const TsrBodies *b);
// 1 when the last detection was refused: too many shapes share one place.
int tsr_contact_collider_crowded(const TsrCollider *c);
const char *tsr_contact_collider_error(const TsrCollider *c);
// The reach each shape was detected with against every other (its own
// speculative inflation, sweep_margin's, at b's velocities): set from the
// last detection (first), or raised to it (a detection again within the
// step: recollide.c).
void tsr_contact_collider_cover(TsrCollider *c, const TsrModel *m, const TsrBodies *b, int first);
// How many moving shapes would reach farther than they were detected with,
// by more than tol (m), at the velocities v6 [6n] (tsr_contact_struck).
int tsr_contact_collider_struck(const TsrCollider *c, const TsrModel *m, const TsrBodies *b, const double *v6,
                                double tol);

// seams.c: drops the contacts of moving shapes with the edges of fixed
// boxes laid level with the fixed box or plane they are held on (a floor of
// several boxes). Uses c[i].match as scratch.
void tsr_contact_drop_seams(TsrContacts *cs, const TsrModel *m, const TsrBodies *b);

// match.c: sets c[i].match against cs->prev.
int tsr_contact_match(TsrContacts *cs);
// The order of contacts by shape pair (collide.c sorts them so): < 0, 0, > 0.
static inline int tsr_contact_pair_cmp(const TsrContact *a, const TsrContact *b) {
  if (a->shape[0] != b->shape[0]) return a->shape[0] < b->shape[0] ? -1 : 1;
  return (a->shape[1] > b->shape[1]) - (a->shape[1] < b->shape[1]);
}
// How far apart two contacts of k's shape pair may lie and still be one
// (match.c: a contact continues one of the previous step within it).
double tsr_contact_match_radius(const TsrContacts *cs, const TsrContact *k);

// World pose of shape s (position p, orientation r) on a body at x, q: body
// pose times the shape's pose in the body (not for planes, which are in
// world coordinates).
static inline void tsr_contact_shape_pose(const TsrShapeDef *s, TsrVec3 x, TsrQuat q, TsrVec3 *p, TsrQuat *r) {
  *p = tsr_v3_add(x, tsr_q_rotate(q, s->position));
  *r = tsr_q_normalize(tsr_q_mul(q, s->orientation));
}

// Velocity of body k's material point at r from its centre of mass, from
// its state (b->v, b->w); zero for fixed bodies.
static inline TsrVec3 tsr_contact_state_velocity(const TsrBodies *b, int k, TsrVec3 r) {
  if (b->fixed[k]) return tsr_v3(0, 0, 0);
  return tsr_v3_add(b->v[k], tsr_v3_cross(b->w[k], r));
}

// The least of a convex function f on [0, 1] (a signed distance to a
// convex set along a segment) by golden-section search, 60 steps (to
// rounding). Returns its argument, snapped to an end whose value is within
// tol of the least (where f is flat: a segment parallel to a face).
static inline double tsr_contact_convex_min(double (*f)(double t, const void *ctx), const void *ctx, double tol) {
  const double phi = 0.6180339887498949;
  double lo = 0.0, hi = 1.0, t1 = hi - phi * (hi - lo), t2 = lo + phi * (hi - lo);
  double f1 = f(t1, ctx), f2 = f(t2, ctx);
  for (int it = 0; it < 60; it++) {
    if (f1 <= f2) {
      hi = t2, t2 = t1, f2 = f1;
      t1 = hi - phi * (hi - lo), f1 = f(t1, ctx);
    } else {
      lo = t1, t1 = t2, f1 = f2;
      t2 = lo + phi * (hi - lo), f2 = f(t2, ctx);
    }
  }
  const double least = fmin(f1, f2);
  if (f(0.0, ctx) <= least + tol) return 0.0;
  if (f(1.0, ctx) <= least + tol) return 1.0;
  return f1 <= f2 ? t1 : t2;
}

// Velocity of body k's material point at r from its centre of mass, from
// the velocity array v6 ([6] linear, angular per body); zero for fixed
// bodies.
static inline TsrVec3 tsr_contact_point_velocity(const TsrBodies *b, const double *v6, int k, TsrVec3 r) {
  if (b->fixed[k]) return tsr_v3(0, 0, 0);
  const double *v = &v6[6 * k];
  return tsr_v3_add(tsr_v3(v[0], v[1], v[2]), tsr_v3_cross(tsr_v3(v[3], v[4], v[5]), r));
}

#endif
