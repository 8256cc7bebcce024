// SPDX-License-Identifier: MIT
// Struck bodies: a second detection within the step, at the solved
// velocities (contact.h tsr_contact_struck, tsr_contact_recollide).
//
// Contacts are made at the start of the step, each shape grown by the
// distance it can travel in the step at its velocity then (collide.c
// sweep_margin: h (|v| + |g| h + |w| rho), at most rho). A body at rest
// reaches |g| h^2 = 2.7 mm at h = 1/60 s. Struck within the step, it
// leaves at v+ and goes on into whatever it had no contact with: a 10 kg
// box under a 1,000 kg rock in large_rock_pile went 143 mm into its
// neighbour, a cylinder spun up from 13 to 91 rad/s by a falling capsule
// in a mixed pile 64 mm (0.58 of its thickness) into another.
//
// The test. Gravity alone raises a shape's reach by at most |g| h^2 from
// one step to the next (the reach counts one step of it already), so a
// shape whose reach at v+ exceeds the reach it was detected with by more
// than a tolerance has been driven by a contact within the step: struck.
// O(shapes), no geometry: most steps stop there.
//
// The remedy. The shapes are detected again at the same poses (the start
// of the step) with v+ in place of v, which grows each one's reach and its
// speculative points' travel to what the solved motion does; the contacts
// found that the first detection lacks (no contact of the same shape pair
// within the matching radius of match.c, so the same corner found twice is
// kept once) are added to the step's, the union matched to the previous
// step's contacts again, and the world solves the step again, warm-started
// from the first solve (sim/world.c). The contacts of the first detection
// all stay: the second solve changes v+ again, and dropping a contact the
// first v needed would let that body through instead. The depth of a new
// contact is its depth at the start of the step, as for any other.
#include <stdlib.h>
#include <string.h>

#include "contact/contact_internal.h"
#include "util/grow.h"

int tsr_contact_struck(const TsrContacts *cs, const TsrModel *m, const TsrBodies *b, const double *v_new, double tol) {
  return tsr_contact_collider_struck(cs->collider, m, b, v_new, tol);
}

// Whether the motion at v+ (b_plus) takes contact k's points into each
// other within the step: its depth at the start, less h times their
// separating speed, is positive. Only those are added: the others are
// speculative contacts the solution does not reach, whose rows would only
// cost a solve (they stay at 0).
static int violated(const TsrContact *k, const TsrBodies *b_plus, double h) {
  const int b0 = k->body[0], b1 = k->body[1];
  TsrVec3 v0 = tsr_contact_state_velocity(b_plus, b0, tsr_v3_sub(k->point, b_plus->x[b0]));
  TsrVec3 v1 = tsr_contact_state_velocity(b_plus, b1, tsr_v3_sub(k->point, b_plus->x[b1]));
  return k->depth - h * tsr_v3_dot(k->normal, tsr_v3_sub(v0, v1)) > 0.0;
}

int tsr_contact_recollide(TsrContacts *cs, const TsrModel *m, const TsrBodies *b_plus) {
  // The step's contacts so far (with their first solution) into cs->first.
  if (tsr_grow((void **)&cs->first, &cs->cap_first, cs->n, sizeof *cs->first)) return -1;
  if (cs->n > 0) memcpy(cs->first, cs->c, (size_t)cs->n * sizeof *cs->c);
  const int nf = cs->n;
  cs->n_first = nf;
  if (tsr_contact_detect(cs, m, b_plus)) return -1;
  tsr_contact_collider_cover(cs->collider, m, b_plus, 0);
  // The new detection into cs->fresh; the union into cs->c, by shape pair,
  // the first set's contacts of a pair before the new ones.
  TsrContact *t = cs->fresh;
  int tc = cs->cap_fresh;
  cs->fresh = cs->c, cs->cap_fresh = cs->cap;
  cs->c = t, cs->cap = tc;
  const int nn = cs->n;
  const TsrContact *first = cs->first, *fresh = cs->fresh;
  if (tsr_grow((void **)&cs->c, &cs->cap, nf + nn, sizeof *cs->c)) return -1;
  int n = 0;
  for (int i = 0, j = 0; i < nf || j < nn;) {
    const TsrContact *key =
        i < nf && (j >= nn || tsr_contact_pair_cmp(&first[i], &fresh[j]) <= 0) ? &first[i] : &fresh[j];
    int ie = i, je = j;
    while (ie < nf && tsr_contact_pair_cmp(&first[ie], key) == 0) ie++;
    while (je < nn && tsr_contact_pair_cmp(&fresh[je], key) == 0) je++;
    const double r = tsr_contact_match_radius(cs, key);
    for (int q = i; q < ie; q++) {
      cs->c[n] = first[q];
      cs->c[n].solved = q;
      cs->c[n++].match = -1;
    }
    for (int q = j; q < je; q++) {
      int known = 0;
      for (int p = i; p < ie && !known; p++) known = tsr_v3_norm(tsr_v3_sub(fresh[q].point, first[p].point)) <= r;
      if (known || !violated(&fresh[q], b_plus, m->settings.step)) continue;
      cs->c[n] = fresh[q];
      cs->c[n].solved = -1;
      cs->c[n++].match = -1;
    }
    i = ie, j = je;
  }
  cs->n = n;
  return tsr_contact_match(cs);
}
