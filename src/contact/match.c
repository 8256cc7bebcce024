// SPDX-License-Identifier: MIT
// Contacts across steps: matching and warm start.
//
// Matching rule. A contact of this step continues a contact of the previous
// step when both come from the same pair of shapes (hence the same body pair)
// and their points are close in the frame of either body:
//
//   d(i, j) = min_s | local_s(i) - local_s(j) |,   s = 0, 1,
//   match when d <= r = max(margin, 0.1 x min(size of the two shapes)),
//
// where `size` is a shape's smallest full dimension (sphere and capsule:
// diameter, box: shortest edge, cylinder: min(diameter, length); planes do
// not count). Comparing in body frames keeps the corners of a sliding box
// matched however fast it slides (they are fixed in the box's frame), and a
// point fixed on a rolling body matches in the other body's frame. Within a
// shape pair the assignment is greedy nearest-first and one-to-one. A shape
// pair with exactly one contact in both steps (sphere on anything, capsule
// tip) is matched whatever the distance: there is nothing else it could be.
// A contact without a match is new: its impulses start at 0, and the first
// bound of its friction follows rows.c, which also gets the normal impulse of
// its shape pair's previous contacts that no matched contact continues
// (`carried`: the load on a rolling wheel, whose points never match).
//
// Warm start. Joint rows map 1:1 (world.c: their order never changes).
// Contact rows take the matched contact's impulses: lambda_n as it was; the
// friction impulse as the vector lambda_t1 t1' + lambda_t2 t2' of the old
// basis, projected onto the new one and clamped to this step's box; index
// sets copied when the tangent basis turned by less than ~8 degrees (else the
// friction rows start free). New contacts start at 0, with the index set
// guessed from the first-bound estimate: free when approaching, else at the
// lower bound (a separated contact usually stays inactive); this saves a
// pivoting solver most of its pivots when hundreds of contacts appear at once.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact_internal.h"

static double shape_size(const TsrShapeDef *s) {
  const double *p = s->params;
  switch (s->type) {
    case TSR_SHAPE_SPHERE:
      return 2.0 * p[0];
    case TSR_SHAPE_BOX:
      return fmin(p[0], fmin(p[1], p[2]));
    case TSR_SHAPE_CAPSULE:
      return 2.0 * p[0];
    case TSR_SHAPE_CYLINDER:
      return fmin(2.0 * p[0], p[1]);
    case TSR_SHAPE_PLANE:
      return INFINITY;
  }
  return INFINITY;
}

int tsr_contact_materials(TsrContacts *cs, const TsrModel *m);  // rows.c

int tsr_contact_init(TsrContacts *cs, const TsrModel *m, char *err, int errlen) {
  memset(cs, 0, sizeof *cs);
  cs->margin = m->settings.contact.margin > 0 ? m->settings.contact.margin : 0.0;
  cs->shape_size = malloc(((size_t)m->n_shapes + 1) * sizeof *cs->shape_size);
  if (!cs->shape_size || tsr_contact_materials(cs, m)) {
    snprintf(err, (size_t)errlen, "out of memory");
    return -1;
  }
  for (int k = 0; k < m->n_shapes; k++) cs->shape_size[k] = shape_size(&m->shapes[k]);
  return tsr_contact_collider_create(&cs->collider, m, err, errlen);
}

void tsr_contact_free(TsrContacts *cs) {
  tsr_contact_collider_free(&cs->collider);
  free(cs->c);
  free(cs->prev);
  free(cs->material);
  free(cs->shape_size);
  free(cs->scratch);
  free(cs->first);
  free(cs->fresh);
  free(cs->ahead);
  memset(cs, 0, sizeof *cs);
}

int tsr_contact_detect_ahead(TsrContacts *cs, const TsrModel *m, const TsrBodies *b) {
  // Detect into the ahead buffer in c's place (tsr_contact_detect writes c),
  // this step's contacts set aside meanwhile.
  TsrContact *keep = cs->c;
  int keep_n = cs->n, keep_cap = cs->cap;
  cs->c = cs->ahead, cs->cap = cs->cap_ahead, cs->n = 0;
  int rc = tsr_contact_detect(cs, m, b);
  if (!rc) tsr_contact_collider_cover(cs->collider, m, b, 1);
  cs->ahead = cs->c, cs->cap_ahead = cs->cap, cs->n_ahead = rc ? 0 : cs->n;
  cs->c = keep, cs->n = keep_n, cs->cap = keep_cap;
  cs->have_ahead = rc == 0;
  return rc;
}

double tsr_contact_ahead_depth(const TsrContacts *cs) {
  double worst = 0.0;
  for (int i = 0; cs->have_ahead && i < cs->n_ahead; i++)
    if (cs->ahead[i].depth > worst) worst = cs->ahead[i].depth;
  return worst;
}

// The contacts detected ahead become this step's, this step's the previous
// ones, and they are matched to them.
static int take_ahead(TsrContacts *cs) {
  TsrContact *t = cs->prev;
  int tc = cs->cap_prev;
  cs->prev = cs->c, cs->cap_prev = cs->cap, cs->n_prev = cs->n;
  cs->c = cs->ahead, cs->cap = cs->cap_ahead, cs->n = cs->n_ahead;
  cs->ahead = t, cs->cap_ahead = tc, cs->n_ahead = 0;
  cs->have_ahead = 0;
  return tsr_contact_match(cs);
}

int tsr_contact_collide(TsrContacts *cs, const TsrModel *m, const TsrBodies *b) {
  return tsr_contact_detect_ahead(cs, m, b) ? -1 : take_ahead(cs);
}

int tsr_contact_collide_at(TsrContacts *cs, const TsrModel *m, const TsrBodies *b, int take) {
  return take && cs->have_ahead ? take_ahead(cs) : tsr_contact_collide(cs, m, b);
}

const char *tsr_contact_error(const TsrContacts *cs) {
  const char *e = cs->collider ? tsr_contact_collider_error(cs->collider) : "";
  return e[0] ? e : "out of memory";
}

double tsr_contact_match_radius(const TsrContacts *cs, const TsrContact *k) {
  return fmax(cs->margin, 0.1 * fmin(cs->shape_size[k->shape[0]], cs->shape_size[k->shape[1]]));
}

static double local_distance(const TsrContact *a, const TsrContact *b) {
  double d0 = tsr_v3_norm(tsr_v3_sub(a->local[0], b->local[0]));
  double d1 = tsr_v3_norm(tsr_v3_sub(a->local[1], b->local[1]));
  return fmin(d0, d1);
}

// Greedy nearest-first one-to-one assignment of cur[0..nc) to prev[0..np).
static void match_group(TsrContacts *cs, int c0, int nc, int p0, int np) {
  TsrContact *cur = &cs->c[c0];
  if (nc == 1 && np == 1) {
    cur[0].match = p0;
    return;
  }
  double r = tsr_contact_match_radius(cs, &cur[0]);
  int *taken = cs->scratch;  // [np]
  for (int j = 0; j < np; j++) taken[j] = 0;
  for (;;) {
    double best = INFINITY;
    int bi = -1, bj = -1;
    for (int i = 0; i < nc; i++) {
      if (cur[i].match >= 0) continue;
      for (int j = 0; j < np; j++) {
        if (taken[j]) continue;
        double d = local_distance(&cur[i], &cs->prev[p0 + j]);
        if (d <= r && d < best) best = d, bi = i, bj = j;
      }
    }
    if (bi < 0) return;
    cur[bi].match = p0 + bj;
    taken[bj] = 1;
  }
}

int tsr_contact_match(TsrContacts *cs) {
  int i = 0, j = 0;
  while (i < cs->n && j < cs->n_prev) {
    const TsrContact *a = &cs->c[i], *p = &cs->prev[j];
    if (tsr_contact_pair_cmp(p, a) < 0) {
      j++;
      continue;
    }
    int ie = i + 1;
    while (ie < cs->n && !tsr_contact_pair_cmp(&cs->c[ie], a)) ie++;
    if (tsr_contact_pair_cmp(p, a)) {
      i = ie;
      continue;
    }
    int je = j + 1;
    while (je < cs->n_prev && !tsr_contact_pair_cmp(&cs->prev[je], p)) je++;
    if (je - j > cs->cap_scratch) {
      int *s = realloc(cs->scratch, (size_t)(je - j) * sizeof *s);
      if (!s) return -1;
      cs->scratch = s;
      cs->cap_scratch = je - j;
    }
    match_group(cs, i, ie - i, j, je - j);
    // The load this pair carried that no matched contact carries on: the
    // points of a rolling wheel or log move along both bodies by more than
    // the matching radius in a step (a wheel at 5 rad/s: 3 cm), so none
    // match, and each step's contacts would bound their friction by the
    // impulse stopping the wheel alone, not the chassis on it (rows.c).
    double total = 0.0, kept = 0.0;
    for (int q = j; q < je; q++) total += fmax(cs->prev[q].impulse[0], 0.0);
    for (int q = i; q < ie; q++)
      if (cs->c[q].match >= 0) kept += fmax(cs->prev[cs->c[q].match].impulse[0], 0.0);
    for (int q = i; q < ie; q++) cs->c[q].carried = fmax(total - kept, 0.0);
    i = ie;
    j = je;
  }
  return 0;
}

// Contact i's rows (at r) from p, the contact it continues (NULL: none).
static void warm_from(const TsrContact *c, const TsrContact *p, const TsrRowSet *rows, int r, double *lambda,
                      int8_t *index_set) {
  double *l = &lambda[r];
  int8_t *s = &index_set[r];
  if (!p) {
    // Index set guess for pivoting solvers: a contact that approaches
    // (first-bound estimate > 0, rows.c) is likely to push: free; one that
    // does not is likely to stay at lambda = 0: lower bound.
    l[0] = l[1] = l[2] = 0.0;
    int8_t guess = c->bound_normal > 0.0 ? TSR_INDEX_FREE : TSR_INDEX_LOWER;
    s[0] = s[1] = s[2] = guess;
    return;
  }
  l[0] = p->impulse[0];
  s[0] = p->index_set[0];
  TsrVec3 f = tsr_v3_add(tsr_v3_scale(p->t1, p->impulse[1]), tsr_v3_scale(p->t2, p->impulse[2]));
  const int keep = tsr_v3_dot(c->t1, p->t1) > 0.99;
  const double ft[2] = {tsr_v3_dot(f, c->t1), tsr_v3_dot(f, c->t2)};
  for (int k = 0; k < 2; k++) {
    const TsrRow *row = &rows->rows[r + 1 + k];
    double v = ft[k];
    int8_t idx = keep ? p->index_set[1 + k] : TSR_INDEX_FREE;
    if (v <= row->lo) v = row->lo, idx = TSR_INDEX_LOWER;
    if (v >= row->hi) v = row->hi, idx = TSR_INDEX_UPPER;
    l[1 + k] = v;
    s[1 + k] = idx;
  }
}

void tsr_contact_warm_start(const TsrContacts *cs, const TsrRowSet *rows, double *lambda, int8_t *index_set) {
  for (int i = 0; i < cs->n; i++) {
    const TsrContact *c = &cs->c[i];
    warm_from(c, c->match >= 0 ? &cs->prev[c->match] : NULL, rows, cs->first_row + 3 * i, lambda, index_set);
  }
}

void tsr_contact_warm_start_solved(const TsrContacts *cs, const TsrRowSet *rows, double *lambda, int8_t *index_set) {
  for (int i = 0; i < cs->n; i++) {
    const TsrContact *c = &cs->c[i];
    warm_from(c, c->solved >= 0 ? &cs->first[c->solved] : NULL, rows, cs->first_row + 3 * i, lambda, index_set);
  }
}

void tsr_contact_store(TsrContacts *cs, const double *lambda, const int8_t *index_set) {
  for (int i = 0; i < cs->n; i++) {
    TsrContact *c = &cs->c[i];
    for (int k = 0; k < 3; k++) {
      c->impulse[k] = lambda[cs->first_row + 3 * i + k];
      c->index_set[k] = index_set ? index_set[cs->first_row + 3 * i + k] : 0;
    }
  }
}

// A contact slides when a friction row misses the velocity its row asked
// for (w = J v+ + C lambda + rhs, 0 for a row inside its bounds) by more
// than this, the speed above which rows.c takes the sliding direction as t1.
#define SLIDING_SPEED 1e-5

// The displacement over the step of the material point at offset a from
// body k's centre of mass at its start: h v+ and the integrator's turn
// (tsr_bodies_turn), each small, so it keeps its relative precision.
static TsrVec3 step_displacement(const TsrBodies *b, const double *v_new, int k, TsrVec3 a, double h) {
  if (b->fixed[k]) return tsr_v3(0, 0, 0);
  const double *s = &v_new[6 * k];
  TsrVec3 d = tsr_v3(h * s[0], h * s[1], h * s[2]), wr;
  const double phi = tsr_bodies_turn(b, k, v_new, h, &wr);
  if (phi > 0) {
    const double half = sin(0.5 * phi);
    const TsrVec3 u = tsr_v3_scale(wr, 1.0 / tsr_v3_norm(wr)), ua = tsr_v3_cross(u, a);
    d = tsr_v3_madd(tsr_v3_madd(d, ua, sin(phi)), tsr_v3_cross(u, ua), 2.0 * half * half);
  }
  return d;
}

void tsr_contact_update_slip(TsrContacts *cs, const TsrBodies *b, const TsrRowSet *rows, const double *lambda,
                             const double *v_new, double h) {
  for (int i = 0; i < cs->n; i++) {
    TsrContact *c = &cs->c[i];
    const int r0 = cs->first_row + 3 * i;
    // (the friction rows' J v+: the points' relative velocity along t1, t2)
    const TsrVec3 v = tsr_v3_sub(tsr_contact_point_velocity(b, v_new, c->body[0], c->r[0]),
                                 tsr_contact_point_velocity(b, v_new, c->body[1], c->r[1]));
    int stuck = 1, slid = 0;
    double w[2];
    for (int k = 1; k <= 2; k++) {
      const TsrRow *row = &rows->rows[r0 + k];
      w[k - 1] = tsr_v3_dot(v, k == 1 ? c->t1 : c->t2) + row->compliance * lambda[r0 + k] + row->rhs;
      if (k == 1) slid = row->hi > row->lo && fabs(w[0]) > SLIDING_SPEED;
      stuck = stuck && row->hi > row->lo && fabs(w[k - 1]) <= SLIDING_SPEED;
      // (inside its bounds w is 0 but for the solve's round-off, which the
      // slip must not take in place of the motion that J v+ measures)
      const double tol = 1e-9 * (row->hi - row->lo);
      if (lambda[r0 + k] > row->lo + tol && lambda[r0 + k] < row->hi - tol) w[k - 1] = 0.0;
    }
    // A rolling contact (the bodies turn relative to each other about an
    // axis in the tangent plane) moves over both surfaces (below).
    const TsrVec3 w_rel = tsr_v3_sub(b->w[c->body[0]], b->w[c->body[1]]);
    double arm = INFINITY;
    for (int s = 0; s < 2; s++)
      if (!b->fixed[c->body[s]]) arm = fmin(arm, tsr_v3_norm(c->r[s]));
    const int rolling = tsr_v3_norm(tsr_v3_cross(c->normal, w_rel)) * arm > SLIDING_SPEED;
    c->slid = slid && !rolling;
    if (!stuck) {
      c->slip = tsr_v3(0, 0, 0);
      continue;
    }
    // The anchor gives way by what its rows at a bound did not get, h w
    // along t1, t2: a contact at its bound that creeps below
    // SLIDING_SPEED slides, and that slide is no slip to pull back. Kept,
    // it pinned the contact where it was when the bound held nothing (a
    // fresh contact's first-step bound of 1e-16 N s under a capsule lying
    // on a cylinder's end recorded 2 nm that its neighbour, new a step
    // later, did not: a rigid body cannot meet both anchors, and the pair
    // locked in 1.5e-3 N s of opposing friction for good).
    const TsrVec3 give = tsr_v3_madd(tsr_v3_scale(c->t1, h * w[0]), c->t2, h * w[1]);
    // A rolling contact's anchors are not the points in touch after the
    // step, and the poses' turn by the integrator's Cayley angle,
    // 2 atan(h w / 2) < h w, would show as a slip of (h w)^3 r / 4 a step
    // that the anchor then fought (a ball rolling down a slope lost 6% of
    // 5/7 g sin). It adds h J v+ along t1, t2.
    if (rolling) {
      c->slip = tsr_v3_sub(
          tsr_v3_madd(tsr_v3_madd(c->slip, c->t1, h * tsr_v3_dot(v, c->t1)), c->t2, h * tsr_v3_dot(v, c->t2)), give);
      continue;
    }
    // Where the two anchors went with their bodies (positions, rotations
    // and the integrator's own geometry: a point riding a turntable moves on
    // a chord, its centre of mass on a tangent), less the normal part. Summed
    // as the slip plus each anchor's own displacement, not as the difference
    // of the anchors' world positions: those carry the round-off of the
    // poses (ulp(x), 4e-16 m at 3 m), which the anchor then fed back as
    // forcing at every step; a stack at rest yawed by 1e-16 rad and box-box
    // clipping made a contact mid-edge that tipped its top (drift 1e-9 m).
    // The anchors: the material points of the two bodies that the slip
    // separates, half of it either side of the point, as offsets from each
    // body's centre of mass at the step's start.
    const TsrVec3 a0 = tsr_v3_madd(c->r[0], c->slip, 0.5), a1 = tsr_v3_madd(c->r[1], c->slip, -0.5);
    const TsrVec3 d = tsr_v3_sub(tsr_v3_add(c->slip, tsr_v3_sub(step_displacement(b, v_new, c->body[0], a0, h),
                                                                step_displacement(b, v_new, c->body[1], a1, h))),
                                 give);
    c->slip = tsr_v3_madd(d, c->normal, -tsr_v3_dot(d, c->normal));
  }
}
