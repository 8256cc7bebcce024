// SPDX-License-Identifier: MIT
// Shapes that start inside one another (contact.h, tsr_contact_overlaps).
//
// A model that places bodies inside each other at t = 0 (a forgotten
// `stride`, so that forty links share one place; a load below the ground)
// is almost always a mistake. The first steps push the bodies apart with
// large impulses, and where many share one place the MLCP is nearly dense:
// a hundred capsules in one spot made 30,000 contact rows and a first step
// of 9 minutes with direct-bpp. `check` and `run` warn before simulating.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contact/contact.h"
#include "contact/contact_internal.h"
#include "dynamics/bodies.h"

// Keeps out[0..*n) sorted by decreasing depth / size, at most max_out long.
static void keep_deepest(TsrOverlap o, TsrOverlap *out, int max_out, int *n) {
  double r = o.depth / o.size;
  int k = *n;
  if (k < max_out) {
    (*n)++;
  } else {
    if (r <= out[k - 1].depth / out[k - 1].size) return;
    k--;  // o replaces the shallowest kept
  }
  for (; k > 0 && r > out[k - 1].depth / out[k - 1].size; k--) out[k] = out[k - 1];
  out[k] = o;
}

int tsr_contact_overlaps(const TsrModel *m, TsrOverlap *out, int max_out, char *err, int errlen) {
  TsrBodies b;
  TsrContacts cs;
  memset(&cs, 0, sizeof cs);
  if (tsr_bodies_init(&b, m)) {
    snprintf(err, (size_t)errlen, "out of memory");
    return -1;
  }
  int pairs = -1, n = 0;
  if (tsr_contact_init(&cs, m, err, errlen) == 0) {
    if (tsr_contact_collide(&cs, m, &b) == 0) {
      pairs = 0;
      // Contacts come sorted by (shape[0], shape[1]): one entry per pair of
      // shapes, with its deepest contact.
      for (int i = 0; i < cs.n;) {
        const TsrContact *c = &cs.c[i];
        TsrOverlap o = {
            {c->body[0], c->body[1]}, -INFINITY, fmin(cs.shape_size[c->shape[0]], cs.shape_size[c->shape[1]])};
        int j = i;
        for (; j < cs.n && cs.c[j].shape[0] == c->shape[0] && cs.c[j].shape[1] == c->shape[1]; j++)
          o.depth = fmax(o.depth, cs.c[j].depth);
        i = j;
        if (!(o.depth > TSR_OVERLAP_FRACTION * o.size)) continue;
        pairs++;
        if (max_out > 0) keep_deepest(o, out, max_out, &n);
      }
    } else {
      snprintf(err, (size_t)errlen, "%s", tsr_contact_error(&cs));
      if (cs.collider && tsr_contact_collider_crowded(cs.collider)) pairs = -2;
    }
  }
  tsr_contact_free(&cs);
  tsr_bodies_free(&b);
  return pairs;
}
