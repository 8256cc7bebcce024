// SPDX-License-Identifier: MIT
// Shared between the files of src/contact.
#ifndef TSR_CONTACT_INTERNAL_H
#define TSR_CONTACT_INTERNAL_H

#include "contact/contact.h"

// collide.c
int tsr_contact_collider_create(TsrCollider **out, const TsrModel *m, char *err, int errlen);
void tsr_contact_collider_free(TsrCollider **c);
// This step's contacts into cs->c (sorted, unmatched).
int tsr_contact_detect(TsrContacts *cs, const TsrModel *m, const TsrBodies *b);

// match.c: sets c[i].match against cs->prev.
int tsr_contact_match(TsrContacts *cs);

// Velocity of body k's material point at world point p ([6] linear, angular
// of v; zero for fixed bodies).
static inline TsrVec3 tsr_contact_point_velocity(const TsrBodies *b, const double *v6, int k, TsrVec3 p) {
  if (b->fixed[k]) return tsr_v3(0, 0, 0);
  const double *v = &v6[6 * k];
  TsrVec3 r = tsr_v3_sub(p, b->x[k]);
  return tsr_v3_add(tsr_v3(v[0], v[1], v[2]), tsr_v3_cross(tsr_v3(v[3], v[4], v[5]), r));
}

#endif
