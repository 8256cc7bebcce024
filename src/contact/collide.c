// SPDX-License-Identifier: MIT
// Collision detection with ODE's collision library, for geometry only: one
// ODE geom per shape (compound parts are separate shapes, each placed at
// body pose x part pose, so no geom transforms are needed), a sweep-and-prune space for
// the broad phase, dCollide for the narrow phase with at most
// contact.max_per_pair points per pair of shapes. No ODE bodies or world.
//
// Margin. ODE reports overlaps only. To get contacts up to a separation of
// `margin`, every geom is inflated by margin/2 (sphere, capsule, cylinder
// radius + margin/2; box edges and cylinder length + margin; plane offset +
// margin/2), and margin is subtracted from ODE's depth: two shapes a distance
// s apart overlap by margin - s once inflated. Inflation rounds nothing (a
// box stays a box), so near edges and corners the reported separation of a
// contact can be off by O(margin); points move outward by up to margin/2.
// Both are negligible for margins of a few millimetres. Moving spheres and
// capsules are inflated further, each step, by the distance they can travel
// in it (sweep_margin), so fast ones are met before they sink in; moving
// boxes and cylinders get that reach against planes and boxes (solid.h).
//
// Normal. ODE's dContactGeom normal for dCollide(g1, g2) is such that moving
// g1 along it by `depth` separates the geoms (it points into g1). We always
// pass the shape with the lower index first, so the normal pushes body[0]
// along +normal, as OUTPUT.md wants.
//
// Pairs. Skipped: parts of one body, pairs of fixed bodies (category bits
// stop them in the broad phase), and bodies joined by a joint without
// `collide: true`. ODE 0.16 (with libccd) collides every pair of sphere,
// box, capsule, cylinder and plane except plane-plane; which pairs it does
// is probed at start-up (dCollide returns 0 contacts for a pair it cannot do,
// silently), and a model whose bodies could meet in an unsupported pairing is
// refused when the world is created.
#include "contact/contact_internal.h"
#include "contact/ode_trap.h"
#include "contact/solid.h"

#include <ode/ode.h>
#include <pthread.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct TsrCollider {
  dSpaceID space;
  dSpaceID spec_space;  // speculative broad phase with fixed boxes (spec_callback), or 0
  dGeomID *spec;        // [n_shapes]: the shape's proxy or copy in spec_space, or 0
  long broad_pairs;     // pairs the sweep and prunes gave last step (refuse_crowded's hint)
  int crowded;          // the last detection was refused (c->error says why)
  int crowd_checked;    // crowded_space has run once (the first detection)
  int n_seen, cap_seen;
  int64_t *seen;  // this step's pairs of spec shapes the main broad phase gave (sorted before spec_callback)
  int sap_axes;   // the sweep-and-prune space's axis order (a dSAP_AXES_* value)
  int n_geoms;
  dGeomID *geoms;  // [n_shapes], one per shape
  int max_per_pair;
  dContactGeom *buf;  // [max_per_pair]
  int n_excluded;
  int64_t *excluded;  // sorted body-pair keys (b0 * n + b1, b0 < b1) that do not collide
  int n_bodies;
  int ode_ready;
  int ode_broken;      // ODE raised an internal error in a detection (ode_trap.h): its objects are not used again
  char error[256];     // why the last detection failed
  dGeomID end_sphere;  // capsule end caps and core point (see end_caps)
  dGeomID grow_sphere, grow_capsule;  // grown copies of a sphere or capsule (collide_pair)
  dContactGeom *cap_buf;              // [max_per_pair + 8]: end-cap points and ODE's
  double *extra;                      // [n_shapes] speculative inflation of this step (see sweep_margin)
  double *covered;                    // [n_shapes] the largest reach of this step's detections (recollide.c)
  int n_planes, *planes;              // the plane shapes, outside the sweep and prune (collide_planes)
  int n_fixed, *fixed;                // the shapes of fixed bodies, planes included (push_to_fixed)
  double *push;                       // [n_bodies] how much farther a body closing in on it can drive it (pushers)
  double margin;
  // Joints between two bodies that do not collide, for drop_joint_duplicates:
  // the anchor in each body's frame, and per body the joints it is in (CSR).
  int n_links;
  int (*link_body)[2];
  TsrVec3 (*link_local)[2];
  int *body_link_p, *body_link_j;
  double *reach;  // [n_shapes] half of each shape's largest extent
  // scratch: (body, other body, contact) triples, sorted
  int cap_keys;
  int (*keys)[3];
  unsigned char *dropped;
};

enum { CAT_FIXED = 1, CAT_MOVING = 2, CAT_ROUND = 4 };  // CAT_ROUND: spheres and capsules in spec_space

static const char *const shape_names[] = {"sphere", "box", "capsule", "cylinder", "plane"};

const char *tsr_contact_shape_name(TsrShapeType t) {
  return (unsigned)t < sizeof shape_names / sizeof *shape_names ? shape_names[t] : "?";
}

// ---------------------------------------------------------------------------
// Which type pairs ODE collides: probed once with two overlapping geoms.

static int supported[5][5];
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static dGeomID probe_geom(int t) {
  switch (t) {
    case TSR_SHAPE_SPHERE:
      return dCreateSphere(0, 0.5);
    case TSR_SHAPE_BOX:
      return dCreateBox(0, 1, 1, 1);
    case TSR_SHAPE_CAPSULE:
      return dCreateCapsule(0, 0.3, 1);
    case TSR_SHAPE_CYLINDER:
      return dCreateCylinder(0, 0.3, 1);
    default:
      return dCreatePlane(0, 0, 0, 1, 0);
  }
}

static void probe(void) {
  dInitODE2(0);
  dAllocateODEDataForThread(dAllocateMaskAll);
  for (int a = 0; a < 5; a++)
    for (int b = 0; b < 5; b++) {
      dGeomID g1 = probe_geom(a), g2 = probe_geom(b);
      // Clearly overlapping, centres apart (some colliders dislike coincident centres).
      if (a != TSR_SHAPE_PLANE) dGeomSetPosition(g1, 0.01, 0.02, 0.3);
      if (b != TSR_SHAPE_PLANE) dGeomSetPosition(g2, 0.03, -0.01, -0.1);
      dContactGeom c[8];
      supported[a][b] = dCollide(g1, g2, 8, c, sizeof c[0]) > 0;
      dGeomDestroy(g1);
      dGeomDestroy(g2);
    }
  dCloseODE();
}

int tsr_contact_pair_supported(TsrShapeType a, TsrShapeType b) {
  pthread_once(&probe_once, probe);
  if ((unsigned)a > 4 || (unsigned)b > 4) return 0;
  return supported[a][b] && supported[b][a];
}

// ---------------------------------------------------------------------------

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int64_t pair_key(int b0, int b1, int n) {
  if (b0 > b1) {
    int t = b0;
    b0 = b1;
    b1 = t;
  }
  return (int64_t)b0 * n + b1;
}

static int excluded(const TsrCollider *c, int b0, int b1) {
  if (!c->n_excluded) return 0;
  int64_t k = pair_key(b0, b1, c->n_bodies);
  return bsearch(&k, c->excluded, (size_t)c->n_excluded, sizeof k, cmp_i64) != NULL;
}

// Whether two shapes may ever be tested against each other.
static int may_meet(const TsrCollider *c, const TsrModel *m, int s0, int s1) {
  int b0 = m->shapes[s0].body, b1 = m->shapes[s1].body;
  if (b0 == b1) return 0;
  if (m->bodies[b0].fixed && m->bodies[b1].fixed) return 0;
  return !excluded(c, b0, b1);
}

// ---------------------------------------------------------------------------
// Sweep-and-prune axis order. ODE's SAP space sorts the boxes along its
// first axis and tests every pair whose intervals overlap there against the
// other two: with every body stacked along z at the same x (a hanging chain,
// a tower), sorting on x tests all n^2/2 pairs (a 4,000-link vertical chain
// spent 18 ms a step there, three times its whole solve). The first axis is
// therefore the one along which the shapes' box centres spread most, the
// others in decreasing spread, and the space is rebuilt when the best order
// spreads twice as much as the current one on its first axis (the factor
// keeps a scene near a tie from rebuilding every step). Results do not
// depend on the order: contacts are sorted by shape pair afterwards.

static const int sap_orders[3][3] = {
    {dSAP_AXES_XYZ, dSAP_AXES_XZY, 0}, {dSAP_AXES_YXZ, dSAP_AXES_YZX, 0}, {dSAP_AXES_ZXY, dSAP_AXES_ZYX, 0}};

static void choose_sweep_axes(TsrCollider *c) {
  double n = 0, mean[3] = {0, 0, 0}, m2[3] = {0, 0, 0};
  for (int k = 0; k < c->n_geoms; k++) {
    if (dGeomGetClass(c->geoms[k]) == dPlaneClass) continue;  // infinite: ODE keeps it apart
    dReal bb[6];
    dGeomGetAABB(c->geoms[k], bb);
    double x[3];
    for (int a = 0; a < 3; a++) x[a] = 0.5 * ((double)bb[2 * a] + (double)bb[2 * a + 1]);
    if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2])) continue;
    n += 1;
    for (int a = 0; a < 3; a++) {  // Welford: centres far from the origin lose no digits
      double d = x[a] - mean[a];
      mean[a] += d / n;
      m2[a] += d * (x[a] - mean[a]);
    }
  }
  if (n < 2) return;
  int first = 0;
  for (int a = 1; a < 3; a++)
    if (m2[a] > m2[first]) first = a;
  int current = c->sap_axes & 3;
  if (!(m2[first] > 2.0 * m2[current])) return;
  int b = (first + 1) % 3, d = (first + 2) % 3;
  int order = sap_orders[first][m2[b] >= m2[d] ? (b < d ? 0 : 1) : (b < d ? 1 : 0)];
  dSpaceID space = dSweepAndPruneSpaceCreate(0, order);
  if (!space) return;  // keep the current space: slower, not wrong
  for (int k = 0; k < c->n_geoms; k++) {
    if (dGeomGetClass(c->geoms[k]) == dPlaneClass) continue;  // in no space (collide_planes)
    dSpaceRemove(c->space, c->geoms[k]);
    dSpaceAdd(space, c->geoms[k]);
  }
  dSpaceDestroy(c->space);
  c->space = space;
  c->sap_axes = order;
  if (!c->spec_space || !(space = dSweepAndPruneSpaceCreate(0, order))) return;  // spec_callback's, likewise
  for (int k = 0; k < c->n_geoms; k++)
    if (c->spec[k]) {
      dSpaceRemove(c->spec_space, c->spec[k]);
      dSpaceAdd(space, c->spec[k]);
    }
  dSpaceDestroy(c->spec_space);
  c->spec_space = space;
}

static dGeomID make_geom(dSpaceID space, const TsrShapeDef *s, double margin) {
  const double *p = s->params, e = 0.5 * margin;
  switch (s->type) {
    case TSR_SHAPE_SPHERE:
      return dCreateSphere(space, p[0] + e);
    case TSR_SHAPE_BOX:
      return dCreateBox(space, p[0] + margin, p[1] + margin, p[2] + margin);
    case TSR_SHAPE_CAPSULE:
      return dCreateCapsule(space, p[0] + e, p[1]);
    case TSR_SHAPE_CYLINDER:
      return dCreateCylinder(space, p[0] + e, p[1] + margin);
    case TSR_SHAPE_PLANE:
      return dCreatePlane(space, p[0], p[1], p[2], p[3] + e);
  }
  return NULL;
}

// World pose of a shape: body pose x part pose.
static void place(dGeomID g, const TsrShapeDef *s, TsrVec3 x, TsrQuat q) {
  if (s->type == TSR_SHAPE_PLANE) return;  // planes are in world coordinates
  TsrVec3 p;
  TsrQuat r;
  tsr_contact_shape_pose(s, x, q, &p, &r);
  dQuaternion dq = {r.w, r.x, r.y, r.z};
  dGeomSetPosition(g, p.x, p.y, p.z);
  dGeomSetQuaternion(g, dq);
}

static int check_pairs(const TsrCollider *c, const TsrModel *m, char *err, int errlen) {
  int moving[5] = {0}, any[5] = {0};
  for (int k = 0; k < m->n_shapes; k++) {
    const TsrShapeDef *s = &m->shapes[k];
    any[s->type] = 1;
    if (!m->bodies[s->body].fixed) moving[s->type] = 1;
  }
  for (int a = 0; a < 5; a++)
    for (int b = 0; b < 5; b++) {
      if (!moving[a] || !any[b] || tsr_contact_pair_supported((TsrShapeType)a, (TsrShapeType)b)) continue;
      // Some pairing is unsupported: find two shapes that could meet with it.
      for (int i = 0; i < m->n_shapes; i++) {
        if (m->shapes[i].type != (TsrShapeType)a || m->bodies[m->shapes[i].body].fixed) continue;
        for (int j = 0; j < m->n_shapes; j++) {
          if (m->shapes[j].type != (TsrShapeType)b || !may_meet(c, m, i, j)) continue;
          const TsrBodyDef *bi = &m->bodies[m->shapes[i].body], *bj = &m->bodies[m->shapes[j].body];
          snprintf(err, (size_t)errlen,
                   "%s:%d:%d: contact between body '%s' (%s) and body '%s' (%s) is not supported by ODE's "
                   "collision library; join the two with a joint or change a shape",
                   m->path ? m->path : "model", m->shapes[i].mark.line, m->shapes[i].mark.col, bi->name,
                   tsr_contact_shape_name((TsrShapeType)a), bj->name, tsr_contact_shape_name((TsrShapeType)b));
          return -1;
        }
      }
    }
  return 0;
}

// The farthest point of a shape from its body's origin.
static double shape_rho(const TsrShapeDef *s) {
  return tsr_v3_norm(s->position) + tsr_model_shape_bounding_radius(s, 0.0);
}

// Half a shape's largest extent: how close to a joint's anchor a contact
// must be for drop_joint_duplicates. A capsule link's cap contact lies
// r sqrt(2) from an anchor at its tip, inside this for any capsule longer
// than 0.83 r; a sphere's contact under it (r sqrt(2) from an anchor on its
// surface, a lever arm as long as the body) is outside, as are a cube's.
static double shape_reach(const TsrShapeDef *s) {
  const double *p = s->params;
  switch (s->type) {
    case TSR_SHAPE_SPHERE:
      return p[0];
    case TSR_SHAPE_BOX:
      return 0.5 * fmax(p[0], fmax(p[1], p[2]));
    case TSR_SHAPE_CAPSULE:
      return 0.5 * (p[1] + 2.0 * p[0]);
    case TSR_SHAPE_CYLINDER:
      return 0.5 * fmax(2.0 * p[0], p[1]);
    case TSR_SHAPE_PLANE:
      return 0.0;
  }
  return 0.0;
}

static int links_init(TsrCollider *c, const TsrModel *m) {
  int nb = m->n_bodies;
  c->link_body = malloc(((size_t)m->n_joints + 1) * sizeof *c->link_body);
  c->link_local = malloc(((size_t)m->n_joints + 1) * sizeof *c->link_local);
  c->body_link_p = calloc((size_t)nb + 2, sizeof *c->body_link_p);
  c->body_link_j = malloc(2 * ((size_t)m->n_joints + 1) * sizeof *c->body_link_j);
  c->reach = malloc(((size_t)m->n_shapes + 1) * sizeof *c->reach);
  if (!c->link_body || !c->link_local || !c->body_link_p || !c->body_link_j || !c->reach) return -1;
  for (int k = 0; k < m->n_shapes; k++) c->reach[k] = shape_reach(&m->shapes[k]);
  for (int j = 0; j < m->n_joints; j++) {
    const TsrJointDef *d = &m->joints[j];
    int a = d->body[0], b = d->body[1];
    if (d->collide || a < 0 || b < 0 || a == b || m->bodies[a].fixed || m->bodies[b].fixed) continue;
    // Only joints that tie a point of A to a point of B (the anchor): a
    // distance joint keeps two points apart, a prismatic one lets them slide.
    if (d->type == TSR_JOINT_DISTANCE || d->type == TSR_JOINT_PRISMATIC) continue;
    int l = c->n_links++;
    c->link_body[l][0] = a, c->link_body[l][1] = b;
    TsrVec3 pa = d->anchor, pb = d->anchor_b;
    c->link_local[l][0] = tsr_q_rotate_inv(m->bodies[a].orientation, tsr_v3_sub(pa, m->bodies[a].position));
    c->link_local[l][1] = tsr_q_rotate_inv(m->bodies[b].orientation, tsr_v3_sub(pb, m->bodies[b].position));
    c->body_link_p[a + 2]++, c->body_link_p[b + 2]++;
  }
  for (int i = 0; i < nb; i++) c->body_link_p[i + 2] += c->body_link_p[i + 1];
  for (int l = 0; l < c->n_links; l++)
    for (int e = 0; e < 2; e++) c->body_link_j[c->body_link_p[c->link_body[l][e] + 1]++] = l;
  return 0;  // body_link_p[i] .. body_link_p[i+1]: the joints of body i
}

// Grows proxy g (spec_proxy) of shape s to the margin's half plus e.
static void spec_proxy_size(dGeomID g, const TsrShapeDef *s, double margin, double e) {
  const double *p = s->params, grow = 0.5 * margin + e;
  switch (s->type) {
    case TSR_SHAPE_SPHERE:
      dGeomSphereSetRadius(g, p[0] + grow);
      break;
    case TSR_SHAPE_BOX:
      dGeomBoxSetLengths(g, p[0] + 2 * grow, p[1] + 2 * grow, p[2] + 2 * grow);
      break;
    case TSR_SHAPE_CAPSULE:
      dGeomCapsuleSetParams(g, p[0] + grow, p[1]);
      break;
    case TSR_SHAPE_CYLINDER:
      dGeomCapsuleSetParams(g, p[0] + grow, p[1] + margin);
      break;
    case TSR_SHAPE_PLANE:
      break;
  }
}

// A shape's proxy in the speculative broad phase, covering the shape grown
// by the margin's half and by e: the shape itself for a sphere or box, a
// capsule on the same axis for a cylinder (it holds the rims). Bounding
// spheres were tried first: a 2.4 m log's reaches 1.2 m all round, and a
// cylinder tower's logs each met 30-50 others, collided in full every step
// (collision 6 ms of a 20 ms step).
static dGeomID spec_proxy(dSpaceID space, const TsrShapeDef *s, double margin, double e) {
  dGeomID g = s->type == TSR_SHAPE_SPHERE  ? dCreateSphere(space, 1.0)
              : s->type == TSR_SHAPE_BOX   ? dCreateBox(space, 1.0, 1.0, 1.0)
              : s->type == TSR_SHAPE_PLANE ? NULL
                                           : dCreateCapsule(space, 1.0, 1.0);  // capsule, or a cylinder's
  if (g) spec_proxy_size(g, s, margin, e);
  return g;
}

// The speculative broad phase (spec_callback): a proxy (spec_proxy) for
// each box, cylinder, sphere and capsule, grown by its sweep margin each
// step, in a space of their own; only when the model has a moving box
// or cylinder. Returns 0, or -1 out of memory.
static int spec_space_create(TsrCollider *c, const TsrModel *m) {
  int moving_solids = 0;
  for (int k = 0; k < m->n_shapes; k++) {
    TsrShapeType t = m->shapes[k].type;
    moving_solids += !m->bodies[m->shapes[k].body].fixed && (t == TSR_SHAPE_BOX || t == TSR_SHAPE_CYLINDER);
  }
  if (!moving_solids || m->n_shapes < 2) return 0;
  c->spec = calloc((size_t)m->n_shapes, sizeof *c->spec);
  c->spec_space = dSweepAndPruneSpaceCreate(0, c->sap_axes);
  if (!c->spec || !c->spec_space) return -1;
  const double mg = c->margin;
  for (int k = 0; k < m->n_shapes; k++) {
    const TsrShapeDef *s = &m->shapes[k];
    const TsrBodyDef *bd = &m->bodies[s->body];
    if (s->type == TSR_SHAPE_PLANE) continue;
    const int solid = s->type == TSR_SHAPE_BOX || s->type == TSR_SHAPE_CYLINDER;
    unsigned long cat, col;
    if (!solid)  // spheres and capsules, against moving solids only
      cat = CAT_ROUND, col = CAT_MOVING;
    else if (bd->fixed)
      cat = CAT_FIXED, col = CAT_MOVING;
    else
      cat = CAT_MOVING, col = CAT_FIXED | CAT_MOVING | CAT_ROUND;
    dGeomID g = spec_proxy(c->spec_space, s, mg, 0.0);
    if (g) {
      const dReal *o = dGeomGetPosition(c->geoms[k]);
      dGeomSetPosition(g, o[0], o[1], o[2]);
      dGeomSetRotation(g, dGeomGetRotation(c->geoms[k]));
    }
    if (!g) return -1;
    c->spec[k] = g;
    dGeomSetData(g, (void *)(intptr_t)k);
    dGeomSetCategoryBits(g, cat);
    dGeomSetCollideBits(g, col);
  }
  return 0;
}

int tsr_contact_collider_create(TsrCollider **out, const TsrModel *m, char *err, int errlen) {
  *out = NULL;
  TsrCollider *c = calloc(1, sizeof *c);
  if (!c) goto oom;
  *out = c;
  tsr_ode_trap_install();
  pthread_once(&probe_once, probe);
  dInitODE2(0);
  c->ode_ready = 1;
  dAllocateODEDataForThread(dAllocateMaskAll);
  c->n_bodies = m->n_bodies;
  // Body pairs joined by a joint that does not ask for collision.
  c->excluded = malloc(((size_t)m->n_joints + 1) * sizeof *c->excluded);
  if (!c->excluded) goto oom;
  for (int j = 0; j < m->n_joints; j++) {
    const TsrJointDef *d = &m->joints[j];
    if (d->collide || d->body[0] < 0 || d->body[1] < 0 || d->body[0] == d->body[1]) continue;
    c->excluded[c->n_excluded++] = pair_key(d->body[0], d->body[1], m->n_bodies);
  }
  qsort(c->excluded, (size_t)c->n_excluded, sizeof *c->excluded, cmp_i64);
  if (check_pairs(c, m, err, errlen)) return -1;
  if (links_init(c, m)) goto oom;

  c->max_per_pair = m->settings.contact.max_per_pair;
  if (c->max_per_pair < 1) c->max_per_pair = 1;
  if (c->max_per_pair > 0xffff) c->max_per_pair = 0xffff;
  c->buf = calloc((size_t)c->max_per_pair, sizeof *c->buf);
  c->cap_buf = calloc((size_t)c->max_per_pair + 8, sizeof *c->cap_buf);
  c->geoms = calloc((size_t)m->n_shapes + 1, sizeof *c->geoms);
  c->extra = calloc((size_t)m->n_shapes + 1, sizeof *c->extra);
  c->covered = calloc((size_t)m->n_shapes + 1, sizeof *c->covered);
  c->push = calloc((size_t)m->n_bodies + 1, sizeof *c->push);
  c->planes = calloc((size_t)m->n_shapes + 1, sizeof *c->planes);
  c->fixed = calloc((size_t)m->n_shapes + 1, sizeof *c->fixed);
  if (!c->buf || !c->cap_buf || !c->geoms || !c->extra || !c->covered || !c->push || !c->planes || !c->fixed) goto oom;
  c->end_sphere = dCreateSphere(0, 1.0);
  c->grow_sphere = dCreateSphere(0, 1.0);
  c->grow_capsule = dCreateCapsule(0, 1.0, 1.0);
  if (!c->end_sphere || !c->grow_sphere || !c->grow_capsule) goto oom;
  // Sweep and prune on all three axes. ODE 0.16's hash space missed
  // overlapping pairs: two spheres (r 0.35 and 0.10 m) 8 cm deep into each
  // other were never reported at any cell levels (large_rock_pile: a 10 kg
  // rock flung at 11 m/s after a 1,000 kg rock sank 13 cm into it).
  c->sap_axes = dSAP_AXES_XYZ;
  c->space = dSweepAndPruneSpaceCreate(0, c->sap_axes);
  if (!c->space) goto oom;
  double margin = m->settings.contact.margin > 0 ? m->settings.contact.margin : 0.0;
  c->margin = margin;
  for (int k = 0; k < m->n_shapes; k++) {
    const TsrShapeDef *s = &m->shapes[k];
    const TsrBodyDef *bd = &m->bodies[s->body];
    const int plane = s->type == TSR_SHAPE_PLANE;
    dGeomID g = make_geom(plane ? 0 : c->space, s, margin);  // planes: collide_planes
    if (!g) goto oom;
    if (plane) c->planes[c->n_planes++] = k;
    if (bd->fixed) c->fixed[c->n_fixed++] = k;
    c->geoms[k] = g;
    c->n_geoms = k + 1;
    dGeomSetData(g, (void *)(intptr_t)k);
    dGeomSetCategoryBits(g, bd->fixed ? CAT_FIXED : CAT_MOVING);
    dGeomSetCollideBits(g, bd->fixed ? CAT_MOVING : (CAT_FIXED | CAT_MOVING));
    place(g, s, bd->position, bd->orientation);
  }
  choose_sweep_axes(c);
  if (spec_space_create(c, m)) goto oom;
  return 0;
oom:
  snprintf(err, (size_t)errlen, "out of memory");
  return -1;
}

void tsr_contact_collider_free(TsrCollider **pc) {
  TsrCollider *c = *pc;
  if (!c) return;
  // After an ODE internal error its spaces may be locked, and destroying
  // them would raise another (outside any trap: abort): they are left.
  if (!c->ode_broken) {
    for (int k = 0; k < c->n_geoms; k++)
      if (c->geoms[k]) dGeomDestroy(c->geoms[k]);
    if (c->space) dSpaceDestroy(c->space);
    if (c->spec_space) dSpaceDestroy(c->spec_space);  // and the proxies and copies in it
    if (c->end_sphere) dGeomDestroy(c->end_sphere);
    if (c->grow_sphere) dGeomDestroy(c->grow_sphere);
    if (c->grow_capsule) dGeomDestroy(c->grow_capsule);
    if (c->ode_ready) dCloseODE();
  }
  free(c->spec), free(c->seen);
  free(c->geoms);
  free(c->extra);
  free(c->covered);
  free(c->push);
  free(c->planes);
  free(c->fixed);
  free(c->cap_buf);
  free(c->buf);
  free(c->excluded);
  free(c->link_body), free(c->link_local), free(c->body_link_p), free(c->body_link_j), free(c->reach);
  free(c->keys), free(c->dropped);
  free(c);
  *pc = NULL;
}

// ---------------------------------------------------------------------------
// One step of detection.

typedef struct {
  TsrContacts *cs;
  const TsrModel *m;
  const TsrBodies *b;
  int failed;
} CollideCtx;

static int push_contact(TsrContacts *cs, TsrContact *c) {
  if (cs->n == cs->cap) {
    int cap = cs->cap ? 2 * cs->cap : 64;
    TsrContact *p = realloc(cs->c, (size_t)cap * sizeof *p);
    if (!p) return -1;
    cs->c = p;
    cs->cap = cap;
  }
  cs->c[cs->n++] = *c;
  return 0;
}

// Signed distance from p (box frame) to a box of half sizes L: > 0 outside
// (Euclidean), <= 0 inside (minus the distance to the nearest face).
static double box_signed_distance(const double L[3], const double p[3]) {
  double out2 = 0.0, in = -INFINITY;
  for (int i = 0; i < 3; i++) {
    double d = fabs(p[i]) - L[i];
    if (d > 0.0) out2 += d * d;
    if (d > in) in = d;
  }
  return out2 > 0.0 ? sqrt(out2) : in;
}

// A capsule's segment in a box's frame: from a to a + d (d = length x
// axis), its centre ctr and unit axis u, and the box's half sizes L.
static void segment_in_box(dGeomID cap, dGeomID box, double a[3], double d[3], double ctr[3], double u[3],
                           double L[3]) {
  dReal r, len;
  dGeomCapsuleGetParams(cap, &r, &len);
  const dReal *p = dGeomGetPosition(cap), *R = dGeomGetRotation(cap);
  const dReal *bc = dGeomGetPosition(box), *bR = dGeomGetRotation(box);
  dVector3 side;
  dGeomBoxGetLengths(box, side);
  // Box frame: local_j = sum_i R_ij world_i (ODE's dMatrix3 is 3x4, row-major).
  for (int j = 0; j < 3; j++) {
    L[j] = 0.5 * side[j];
    a[j] = d[j] = ctr[j] = u[j] = 0.0;
    for (int i = 0; i < 3; i++) {
      double dw = len * R[4 * i + 2];
      a[j] += bR[4 * i + j] * (p[i] - 0.5 * dw - bc[i]);
      d[j] += bR[4 * i + j] * dw;
      ctr[j] += bR[4 * i + j] * (p[i] - bc[i]);
      u[j] += bR[4 * i + j] * R[4 * i + 2];
    }
  }
}

// Signed distance to the box (half sizes L, its frame) of the point a + t d.
typedef struct {
  const double *L, *a, *d;
} SegmentInBox;
static double segment_box_distance(double t, const void *ctx) {
  const SegmentInBox *s = ctx;
  const double p[3] = {s->a[0] + t * s->d[0], s->a[1] + t * s->d[1], s->a[2] + t * s->d[2]};
  return box_signed_distance(s->L, p);
}

// ODE 0.16's sphere-box aborts the process (dNormalize3 of a zero vector in
// dCollideSphereBox) when the sphere's centre lies outside the box by
// rounding only: the centre clipped to the box, taken back to the world,
// coincides with it. Seen colliding a capsule's core point (capsule_box_core)
// whose segment just reached a box's face. Such a centre (within 1e-9 of
// the box's size of its surface, outside) is moved into the box by that
// much, where ODE's inside branch gives the nearest face and depth r (the
// depth changes by at most 1e-9 of the box's size). Returns the geom to
// collide: sphere, or spare (a sphere outside any space, set to sphere's
// radius; spare may be sphere itself).
static dGeomID sphere_off_box_surface(dGeomID sphere, dGeomID box, dGeomID spare) {
  dVector3 l;
  dGeomBoxGetLengths(box, l);
  const dReal *xs = dGeomGetPosition(sphere), *xb = dGeomGetPosition(box), *R = dGeomGetRotation(box);
  const double d[3] = {xs[0] - xb[0], xs[1] - xb[1], xs[2] - xb[2]};
  double p[3], q[3], out2 = 0.0, size = 0.0;
  for (int j = 0; j < 3; j++) {
    const double h = 0.5 * l[j];
    p[j] = R[j] * d[0] + R[4 + j] * d[1] + R[8 + j] * d[2];  // in the box's frame
    q[j] = p[j] < -h ? -h : p[j] > h ? h : p[j];
    out2 += (p[j] - q[j]) * (p[j] - q[j]);
    size = fmax(size, h);
  }
  const double tol = 1e-9 * size;
  if (out2 == 0.0 || out2 > tol * tol) return sphere;  // inside (ODE's inside branch), or clearly outside
  for (int j = 0; j < 3; j++)
    if (q[j] != p[j]) q[j] -= copysign(tol, q[j]);
  const dReal r = dGeomSphereGetRadius(sphere);
  dGeomSphereSetRadius(spare, r);
  dGeomSetPosition(spare, xb[0] + R[0] * q[0] + R[1] * q[1] + R[2] * q[2],
                   xb[1] + R[4] * q[0] + R[5] * q[1] + R[6] * q[2], xb[2] + R[8] * q[0] + R[9] * q[1] + R[10] * q[2]);
  if (spare != sphere) dGeomSetData(spare, dGeomGetData(sphere));
  return spare;
}

// dCollide(a, b) with sphere_off_box_surface's guard for a sphere and a box
// in either order (spare: a sphere outside any space, or the sphere
// itself); the contacts name a and b as given, not the spare.
static int collide_guarded(dGeomID a, dGeomID b, int max, dContactGeom *buf, dGeomID spare) {
  dGeomID ga = a, gb = b;
  const int ca = dGeomGetClass(a), cb = dGeomGetClass(b);
  if (ca == dSphereClass && cb == dBoxClass)
    ga = sphere_off_box_surface(a, b, spare);
  else if (cb == dSphereClass && ca == dBoxClass)
    gb = sphere_off_box_surface(b, a, spare);
  const int n = dCollide(ga, gb, max, buf, sizeof *buf);
  for (int k = 0; k < n; k++) {
    if (buf[k].g1 == ga) buf[k].g1 = a;
    if (buf[k].g2 == ga) buf[k].g2 = a;
    if (buf[k].g1 == gb) buf[k].g1 = b;
    if (buf[k].g2 == gb) buf[k].g2 = b;
  }
  return n;
}

// The point of pts[0..n) nearest p within r, or -1.
static int nearest_within(const dContactGeom *pts, int n, const dReal p[3], double r) {
  int at = -1;
  double d2min = r * r;
  for (int k = 0; k < n; k++) {
    const double dx = pts[k].pos[0] - p[0], dy = pts[k].pos[1] - p[1], dz = pts[k].pos[2] - p[2];
    const double d2 = dx * dx + dy * dy + dz * dz;
    if (d2 < d2min) d2min = d2, at = k;
  }
  return at;
}

// The capsule's core point against a box: the point of the capsule's segment
// with the least signed distance to the box, collided as a sphere of the
// capsule's radius. Outside the box this is ODE's own capsule-box contact
// (closest points of segment and box, normal from the box to the segment).
// Once the segment touches or enters the box, ODE 0.16's dCollideCapsuleBox
// is degenerate: the closest points coincide up to rounding, and it returns
// depth = radius with the normal of the rounding error (seen on chain_drop:
// (0.970, 0, -0.243) and (1, 0, 0) at a plank's edge, pushing links into the
// plank), or, for exactly coincident points, a box-box fallback. Here the
// sphere's centre is then inside the box and ODE's sphere-box gives the
// nearest face and the depth to it, which are well defined. The signed
// distance to a convex set is convex along the segment, so a golden-section
// search finds its minimum (tsr_contact_convex_min); where it is flat (a segment parallel to a face)
// the point snaps to an end, which end_caps then drops as a duplicate of
// that end's cap. Returns 1 with the contact in *g (g1 = the sphere), or 0.
static int capsule_box_core(TsrCollider *c, dGeomID cap, dGeomID box, dContactGeom *g) {
  dReal r, len;
  dGeomCapsuleGetParams(cap, &r, &len);
  const dReal *p = dGeomGetPosition(cap), *R = dGeomGetRotation(cap);
  double a[3], d[3], ctr[3], u[3], L[3];
  segment_in_box(cap, box, a, d, ctr, u, L);
  const SegmentInBox seg = {L, a, d};
  const double t = tsr_contact_convex_min(segment_box_distance, &seg, 1e-9 * (1.0 + len));
  dGeomSphereSetRadius(c->end_sphere, r);
  double at[3];  // as segment_in_box's start + t (length x axis), in the world
  for (int i = 0; i < 3; i++) {
    double dw = len * R[4 * i + 2];
    at[i] = (p[i] - 0.5 * dw) + t * dw;
  }
  dGeomSetPosition(c->end_sphere, at[0], at[1], at[2]);
  return collide_guarded(c->end_sphere, box, 1, g, c->end_sphere) > 0;
}

// ODE's capsule-box and capsule-cylinder colliders return one point, at one
// end, for a capsule lying flat on a face, so a capsule rocks on it. For
// those pairs the two end caps are also collided as spheres (radius r plus
// the margin) and their points go first; the capsule's own points are kept
// where they are farther than r from every end-cap point (a capsule across
// an edge touches with its middle). For capsule-box the capsule's own point
// is capsule_box_core's, not ODE's (n is ignored).
// A capsule geom's own radius: without the margin and the sweep inflation
// (collide.c inflates round geoms; the distances that decide which points
// are duplicates must not grow with speed: inflated, a log moving at 4 m/s
// lost its 3.4 cm deep edge contact as a "duplicate" of a cap's 2 mm one).
static double true_radius(const TsrCollider *c, dGeomID g) {
  dReal r, len;
  dGeomCapsuleGetParams(g, &r, &len);
  int k = (int)(intptr_t)dGeomGetData(g);
  return r - 0.5 * c->margin - c->extra[k];
}

// Merges m end-cap points (caps) and the n points in c->buf into c->buf, at
// most max: the cap points first, then each own point that is not within r
// of a cap point (where it is, the nearest such cap point becomes the
// deeper of the two: a cap and the core point can reach one box edge, the
// cap shallower; deeper by more than rounding, 1e-9 r: a capsule lying
// level on a cylinder's end has its core point anywhere along the segment,
// as deep as a cap to 1e-17 m, and taking it moved a contact 14 mm inward
// at random and kicked the resting capsule to 4e-8 m/s). With both caps touching, an own point with both caps'
// normal is dropped: the three points lie on one face, and the middle one's
// rows are a convex combination of the caps' (J = [n, r x n] is linear in
// the point). Such a row adds no constraint, only a near-singular direction
// of A (the split of the load among collinear points is set by the
// compliance alone), which made the index sets of the substructured solver
// cycle between equivalent splits on chain_drop. g1, g2: the pair's geoms,
// in dCollide's order. The first max stay, as they are made: ODE's
// capsule-cylinder point is one end's (above; kept in place of a cap,
// chain_wrap's links on the cylinder gained 92 J), and a capsule_box_core
// point kept in place of a cap beside it on a plank made chain_drop's
// MLCP error 2e-8 N s, above the 1e-8 its scene test allows. (Two
// capsules keep their deepest points instead: capsule_pair.)
static int merge_caps(TsrCollider *c, const dContactGeom *caps, int m, int n, double r, int max, dGeomID g1,
                      dGeomID g2) {
  int out = 0;
  if (m > max) m = max;
  for (int i = 0; i < m; i++) c->cap_buf[out++] = caps[i];
  for (int i = 0; i < n && out < max; i++) {
    int near = 0;
    const int at = nearest_within(caps, m, c->buf[i].pos, r);  // takes it, if it is deeper
    if (at >= 0) {
      near = 1;
      if (c->buf[i].depth > c->cap_buf[at].depth + 1e-9 * r) c->cap_buf[at] = c->buf[i];
    }
    if (m == 2 && !near) {
      double c0 = 0.0, c1 = 0.0;
      for (int k = 0; k < 3; k++) {
        c0 += c->buf[i].normal[k] * caps[0].normal[k];
        c1 += c->buf[i].normal[k] * caps[1].normal[k];
      }
      near = c0 > 0.9999 && c1 > 0.9999;
    }
    if (!near) c->cap_buf[out++] = c->buf[i];
  }
  for (int i = 0; i < out; i++) {
    c->buf[i] = c->cap_buf[i];
    c->buf[i].g1 = g1;
    c->buf[i].g2 = g2;
  }
  return out;
}

// A capsule longer than the box face it lies across touches it along the
// part of its segment over the face, not at its end caps: ends[] (the
// segment's ends, along its axis from its centre) are clipped to the
// face's extent, so that end_caps collides the ends of that part (a plank
// lying across two logs had one contact per log, at its core point, and
// tipped 1 cm into them). A capsule parallel to the face and beside it
// lies along its edge: its ends are clipped to the edge's extent the same
// way (a box tilted 20 degrees landing edge-first along a log had one
// contact, turned about it and went 63 mm into the log; test_contact_landing
// test_box_edge_on_log). The face is the box's face most nearly facing
// along n, the core contact's normal; ends are left as they are when the
// segment does not lie along the face (within ~11 degrees: a chain link
// draped over a plank's edge keeps its caps and core point; clipped too,
// chain_drop's MLCP error reached 1.3e-8 N s at one step, above the 1e-8
// its scene test allows), does not cross the face's edges, or misses the
// face.
static void clip_to_face(dGeomID cap, dGeomID box, const dReal n[3], double ends[2]) {
  dReal r, len;
  dGeomCapsuleGetParams(cap, &r, &len);
  if (!(len > 0.0)) return;
  const dReal *bR = dGeomGetRotation(box);
  double start[3], span[3], a[3], d[3], L[3], nl[3];  // box frame: the centre a, unit axis d, the normal
  segment_in_box(cap, box, start, span, a, d, L);
  for (int j = 0; j < 3; j++) {
    nl[j] = 0.0;
    for (int i = 0; i < 3; i++) nl[j] += bR[4 * i + j] * n[i];
  }
  int face = 0;
  for (int j = 1; j < 3; j++)
    if (fabs(nl[j]) > fabs(nl[face])) face = j;
  if (fabs(d[face]) > TSR_ALONG_SIN) return;  // not lying on the face: a link over an edge
  double lo = ends[0], hi = ends[1];
  for (int j = 0; j < 3; j++) {
    if (j == face) continue;
    double h = L[j];
    if (fabs(d[j]) < 1e-12) {
      continue;  // parallel to this side (beside the face: the capsule lies along its edge)
    }
    double s0 = (-h - a[j]) / d[j], s1 = (h - a[j]) / d[j];
    if (s0 > s1) {
      double t = s0;
      s0 = s1;
      s1 = t;
    }
    lo = fmax(lo, s0), hi = fmin(hi, s1);
  }
  if (!(lo < hi)) return;
  ends[0] = lo, ends[1] = hi;
}

// A capsule lying on a cylinder's flat end (its axis within ~11 degrees of
// the end's plane, its centre beyond that plane) touches it along the part
// of its segment over the disc: ends[] are clipped to the disc's chord, as
// clip_to_face does for a box's face, so that end_caps collides the ends of
// that part. ODE's capsule-cylinder point and the core point are one point,
// at the middle or an end: a capsule longer than the disc is wide, lying
// across it, rocked on that point, and its end went 2.4 mm into the disc
// (tests/physics/test_contact_rest_pairs.c). Ends are left as they are
// when the segment does not lie along the end, or misses the disc.
static void clip_to_disc(dGeomID cap, dGeomID cyl, double ends[2]) {
  dReal r, len, rc, lc;
  dGeomCapsuleGetParams(cap, &r, &len);
  dGeomCylinderGetParams(cyl, &rc, &lc);
  if (!(len > 0.0)) return;
  const dReal *p = dGeomGetPosition(cap), *R = dGeomGetRotation(cap);
  const dReal *q = dGeomGetPosition(cyl), *Q = dGeomGetRotation(cyl);
  double d[3], e[3], a[3], tc = 0.0, ea = 0.0;
  for (int i = 0; i < 3; i++) d[i] = p[i] - q[i], e[i] = R[4 * i + 2], a[i] = Q[4 * i + 2];
  for (int i = 0; i < 3; i++) tc += d[i] * a[i], ea += e[i] * a[i];
  if (fabs(ea) > TSR_ALONG_SIN || !(fabs(tc) > 0.5 * lc)) return;  // not lying on an end
  // the segment's projection on the end's plane: u0 + s u1, within the rim
  double u0[3], u1[3], qa = 0.0, qb = 0.0, qc = -(double)rc * rc;
  for (int i = 0; i < 3; i++) {
    u0[i] = d[i] - tc * a[i], u1[i] = e[i] - ea * a[i];
    qa += u1[i] * u1[i], qb += 2.0 * u0[i] * u1[i], qc += u0[i] * u0[i];
  }
  const double disc = qb * qb - 4.0 * qa * qc;
  if (!(qa > 0.0) || !(disc > 0.0)) return;
  const double sq = sqrt(disc), lo = fmax(ends[0], (-qb - sq) / (2.0 * qa)),
               hi = fmin(ends[1], (-qb + sq) / (2.0 * qa));
  if (!(lo < hi)) return;
  ends[0] = lo, ends[1] = hi;
}

static int end_caps(TsrCollider *c, dGeomID cap, int cap_first, dGeomID other, int n, int max) {
  dReal r, len;
  dGeomCapsuleGetParams(cap, &r, &len);
  const double r0 = true_radius(c, cap);
  const dReal *p = dGeomGetPosition(cap), *R = dGeomGetRotation(cap);
  double ends[2] = {-0.5 * len, 0.5 * len};  // along the axis from the centre
  if (dGeomGetClass(other) == dBoxClass) {
    dContactGeom g;
    n = capsule_box_core(c, cap, other, &g);
    if (n) {
      c->buf[0] = g;
      if (!cap_first) {  // as if from dCollide(other, cap): the normal pushes `other`
        for (int k = 0; k < 3; k++) c->buf[0].normal[k] = -g.normal[k];
      }
      clip_to_face(cap, other, g.normal, ends);
    }
  } else if (dGeomGetClass(other) == dCylinderClass && n > 0) {
    // ODE's capsule-cylinder points where they agree with the capsule's
    // core point (tsr_solid_capsule_core: within 30 degrees, and within
    // the radius in depth), else the core point alone. The core point
    // always: chain_wrap's box gained 105 J in 600 steps (its links rest on
    // their end caps' contacts, ODE's point lying at an end; the core
    // point, at a link's middle, is 1-4 mm deeper than those).
    dContactGeom core;
    tsr_solid_capsule_core(cap, other, cap_first, &core);
    int off = 0;
    for (int k = 0; k < n; k++) {
      double cs = 0.0;
      for (int a = 0; a < 3; a++) cs += c->buf[k].normal[a] * core.normal[a];
      off |= cs < 0.866 || fabs(c->buf[k].depth - core.depth) > r0;
    }
    if (off) {
      c->buf[0] = core, n = 1;
    } else {  // the exact core point in place of ODE's nearest (MPR's depth moves with the frame: 1.1 mm at 1 cm)
      const int at = nearest_within(c->buf, n, core.pos, r0);
      if (at >= 0) c->buf[at] = core;
    }
  }
  if (dGeomGetClass(other) == dCylinderClass) clip_to_disc(cap, other, ends);
  dGeomSphereSetRadius(c->end_sphere, r);
  int m = 0;
  dContactGeom caps[8];
  for (int e = 0; e < 2 && m < 8; e++) {
    double s = ends[e];
    dGeomSetPosition(c->end_sphere, p[0] + s * R[2], p[1] + s * R[6], p[2] + s * R[10]);
    dContactGeom g;
    int k = cap_first ? collide_guarded(c->end_sphere, other, 1, &g, c->end_sphere)
                      : collide_guarded(other, c->end_sphere, 1, &g, c->end_sphere);
    if (k > 0) caps[m++] = g;
  }
  // as if from dCollide(o1, o2)
  return merge_caps(c, caps, m, n, r0, max, cap_first ? cap : other, cap_first ? other : cap);
}

// ODE's cylinder-cylinder contacts (libccd's MPR), taken both ways round
// and the shallower set kept: MPR's depth is the overlap along the
// direction its portal ends on, at least the least overlap, and that
// direction depends on which shape comes first, so the contact of two
// cylinders changed with the order the model lists them (rim on rim: normals
// up to 20 degrees apart, depths 0.4 mm; tests/physics/test_contact_invariance.c).
// Into c->buf; returns the count (c->cap_buf is scratch).
static int ode_cylinders(TsrCollider *c, dGeomID o1, dGeomID o2) {
  const int n = dCollide(o1, o2, c->max_per_pair, c->buf, sizeof *c->buf);
  const int m = dCollide(o2, o1, c->max_per_pair, c->cap_buf, sizeof *c->cap_buf);
  double dn = -INFINITY, dm = -INFINITY;
  for (int i = 0; i < n; i++) dn = fmax(dn, c->buf[i].depth);
  for (int i = 0; i < m; i++) dm = fmax(dm, c->cap_buf[i].depth);
  if (m == 0 || (n > 0 && !(dm < dn))) return n;
  memcpy(c->buf, c->cap_buf, (size_t)m * sizeof *c->buf);  // g1 = o2: the caller turns the normals round
  return m;
}

// ODE's capsule-capsule collider returns two points only for axes parallel
// to within ~0.2 degrees, else one, which alternates between the ends of two
// capsules lying side by side at a small angle (log_tower: fallen logs sank
// 18 cm into each other). For axes within 10 degrees of parallel, each
// capsule's end caps are also collided as spheres against the other capsule,
// and of those and ODE's points, the deepest are kept, each farther than r
// from every deeper one (tsr_solid_keep_deepest: whichever capsule comes
// first, the same points). Crossing capsules keep ODE's single point.
static int capsule_pair(TsrCollider *c, dGeomID a, dGeomID b, int n, int max) {
  const dReal *Ra = dGeomGetRotation(a), *Rb = dGeomGetRotation(b);
  double cosang = Ra[2] * Rb[2] + Ra[6] * Rb[6] + Ra[10] * Rb[10];
  if (fabs(cosang) < 0.985) return n;
  int m = 0;  // the cap points, into c->cap_buf (at most 4 of its max + 8)
  double rmin = INFINITY;
  for (int side = 0; side < 2; side++) {
    double r = true_radius(c, side ? b : a);
    if (r < rmin) rmin = r;
  }
  for (int side = 0; side < 2; side++) {
    dGeomID cap = side ? b : a, other = side ? a : b;
    dReal r, len;
    dGeomCapsuleGetParams(cap, &r, &len);
    const dReal *p = dGeomGetPosition(cap), *R = dGeomGetRotation(cap);
    dGeomSphereSetRadius(c->end_sphere, r);
    for (int e = 0; e < 2; e++) {
      double sgn = (e ? 0.5 : -0.5) * len;
      dGeomSetPosition(c->end_sphere, p[0] + sgn * R[2], p[1] + sgn * R[6], p[2] + sgn * R[10]);
      dContactGeom g;
      // the normal pushes a (the pair's first geom) in both cases
      int k = side ? dCollide(other, c->end_sphere, 1, &g, sizeof g) : dCollide(c->end_sphere, other, 1, &g, sizeof g);
      if (k <= 0) continue;
      c->cap_buf[m++] = g;
    }
  }
  // with ODE's points, deepest first, one of those within rmin of each other
  for (int i = 0; i < n; i++) c->cap_buf[m++] = c->buf[i];
  n = tsr_solid_keep_deepest(c->cap_buf, m, c->buf, max, rmin);
  for (int i = 0; i < n; i++) c->buf[i].g1 = a, c->buf[i].g2 = b;
  return n;
}

// The contact point on a round shape's true surface. Spheres and capsules
// are inflated (margin / 2 plus the sweep of sweep_margin), so ODE's point
// lies on or between inflated surfaces, up to the inflation (several cm for
// a fast body) away from the true one: a rolling sphere then got a friction
// lever arm of 0.097 m instead of its 0.05 m radius and slid instead of
// rolling. For a sphere the true point is centre - side r n; for a capsule
// the same from the point of its axis segment nearest ODE's point. side is
// +1 for body 0 (the normal pushes it along +n, so its surface facing the
// other shape is at -n) and -1 for body 1. Returns 0 for other shapes.
static int round_surface_point(const TsrModel *m, dGeomID g, int shape, double side, TsrVec3 pt, TsrVec3 n,
                               TsrVec3 *out) {
  const TsrShapeDef *sd = &m->shapes[shape];
  if (sd->type != TSR_SHAPE_SPHERE && sd->type != TSR_SHAPE_CAPSULE) return 0;
  const dReal *c = dGeomGetPosition(g);
  TsrVec3 core = tsr_v3(c[0], c[1], c[2]);
  if (sd->type == TSR_SHAPE_CAPSULE) {
    const dReal *R = dGeomGetRotation(g);  // 3x4 row-major: column 2 is the capsule axis
    TsrVec3 axis = tsr_v3(R[2], R[6], R[10]);
    double half = 0.5 * sd->params[1], t = tsr_v3_dot(tsr_v3_sub(pt, core), axis);
    t = t < -half ? -half : t > half ? half : t;
    core = tsr_v3_madd(core, axis, t);
  }
  *out = tsr_v3_madd(core, n, -side * sd->params[0]);
  return 1;
}

// How far ODE's geom of a shape is grown beyond the fixed margin this step.
static double inflation(const TsrModel *m, const TsrCollider *c, int shape) {
  TsrShapeType t = m->shapes[shape].type;
  return t == TSR_SHAPE_SPHERE || t == TSR_SHAPE_CAPSULE ? c->extra[shape] : 0.0;
}

// Gives geom g (shape s, a sphere or capsule) the radius of s grown by the
// margin's half and by e.
static void size_round(dGeomID g, const TsrShapeDef *s, double margin, double e) {
  double r = s->params[0] + 0.5 * margin + e;
  if (s->type == TSR_SHAPE_SPHERE)
    dGeomSphereSetRadius(g, r);
  else
    dGeomCapsuleSetParams(g, r, s->params[1]);
}

// Whether contact k of a pair repeats one made for it before (cs->c[first..
// cs->n)): the same point, to tol, with the same normal; the deeper of the
// two is kept there. The generators place their points differently (ODE's
// on one surface, a capsule's core point midway, a cap's...) and merge them
// by distance before round_surface_point takes each onto the round shape's
// true surface, so two of them could become one point twice over: two
// identical rows. net_with_truck had 476 such in its first 250 steps, and
// tandem_cranes' sling links on the pipe 2 a step once the capsule's core
// point took the place of ODE's (1.9 cm from the end cap it repeats, along
// the normal). tol: rounding, 1e-9 of the pair's smaller shape, 1e-9 m at
// least.
static int same_as_made(TsrContacts *cs, int first, const TsrContact *k, double tol) {
  for (int j = first; j < cs->n; j++) {
    TsrContact *o = &cs->c[j];
    if (!(tsr_v3_norm(tsr_v3_sub(o->point, k->point)) <= tol) || !(tsr_v3_dot(o->normal, k->normal) >= 1.0 - 1e-12))
      continue;  // (a NaN is no match)
    if (k->depth > o->depth) *o = *k;
    return 1;
  }
  return 0;
}

// The contacts of shapes s0 < s1 (geoms o1, o2), pushed to cs.
// Overlap of two boxes, over the smaller one's size, below which they are
// taken as touching (collide_pair).
#define BOX_TOUCH 1e-9

// The deepest of n contacts.
static double deepest(const dContactGeom *buf, int n) {
  double d = -INFINITY;
  for (int k = 0; k < n; k++) d = fmax(d, (double)buf[k].depth);
  return d;
}

static void collide_pair(CollideCtx *x, int s0, int s1, dGeomID o1, dGeomID o2) {
  TsrContacts *cs = x->cs;
  TsrCollider *c = cs->collider;
  const TsrModel *m = x->m;
  const TsrSolidCtx sx = {m, x->b, c->extra, c->push};
  int t0 = dGeomGetClass(o1), t1 = dGeomGetClass(o2);
  // A sphere or capsule against a moving box or cylinder is grown, for this
  // pair, by the solid's reach (solid_reach) as well as its own: a round shape
  // grown by a ball is still that shape, so the speculative contacts are
  // exact, and the solid's motion is covered (a box falling on a log had
  // none and went up to a step's travel into it). Its entry in c->extra
  // grows with it (depth, true_radius) until the end of the pair.
  const int round0 = t0 == dSphereClass || t0 == dCapsuleClass, round1 = t1 == dSphereClass || t1 == dCapsuleClass;
  const int solid0 = t0 == dBoxClass || t0 == dCylinderClass, solid1 = t1 == dBoxClass || t1 == dCylinderClass;
  int grown = round0 && solid1 ? s0 : round1 && solid0 ? s1 : -1;
  double kept = 0.0;
  if (grown >= 0) {
    kept = c->extra[grown];
    double boost = tsr_solid_reach(&sx, grown == s0 ? s1 : s0, grown == s0 ? o2 : o1);
    if (boost > 0.0) {
      // The geoms are in the space being collided, which ODE locks: the
      // grown shape is a copy, outside any space.
      const TsrShapeDef *sd = &m->shapes[grown];
      dGeomID real = grown == s0 ? o1 : o2, copy = sd->type == TSR_SHAPE_SPHERE ? c->grow_sphere : c->grow_capsule;
      c->extra[grown] = kept + boost;
      size_round(copy, sd, c->margin, c->extra[grown]);
      const dReal *pos = dGeomGetPosition(real);
      dGeomSetPosition(copy, pos[0], pos[1], pos[2]);
      dGeomSetRotation(copy, dGeomGetRotation(real));
      dGeomSetData(copy, (void *)(intptr_t)grown);
      if (grown == s0)
        o1 = copy;
      else
        o2 = copy;
    } else {
      grown = -1;
    }
  }
  int n;
  if ((t0 == dCapsuleClass && t1 == dBoxClass) || (t1 == dCapsuleClass && t0 == dBoxClass))
    n = 0;  // end_caps does a capsule-box pair itself
  else if (solid0 && t1 == dPlaneClass)
    n = tsr_solid_plane(&sx, o1, s0, o2, 1, c->max_per_pair, c->buf);
  else if (solid1 && t0 == dPlaneClass)
    n = tsr_solid_plane(&sx, o2, s1, o1, 0, c->max_per_pair, c->buf);
  else if (t0 == dCylinderClass && t1 == dCylinderClass)
    n = 0;  // tsr_solid_cylinders and tsr_solid_pair below (ODE's libccd made contacts 30-40 cm deep)
  else
    n = collide_guarded(o1, o2, c->max_per_pair, c->buf, c->grow_sphere);
  // Speculative contacts of boxes and cylinders with each other, both ways
  // round (each one's corners or rim points against the other), the second
  // leaving out the points the first made (within a tenth of the smaller
  // shape: the corners of two stacked boxes coincide); then crossing edges
  // of two boxes, or a cylinder's side against a box, that do not touch.
  // Two cylinders have their own (tsr_solid_cylinders) before those.
  // Two boxes apart along a face's normal, not touching, have that face's
  // patch (tsr_solid_box_faces) instead.
  const double dedup = 0.1 * fmin(cs->shape_size[s0], cs->shape_size[s1]);
  // Two boxes whose faces touch to round-off: ODE's box-box clips the
  // incident face against the reference face and keeps the points on the
  // penetrating side, which rounding decides. Stacked exactly (z = 0.15 +
  // 0.3 written as 0.44999999999999996) with a relative yaw of 45 degrees,
  // it kept one point, outside both boxes: the top box tipped and sank 8 mm
  // (direct-bpp) or threw the lower one 177 m (pgs-sm). Within BOX_TOUCH of
  // the smaller size their face patch is ours (tsr_solid_box_faces) when a
  // face separates them that far.
  const double touch = BOX_TOUCH * fmin(cs->shape_size[s0], cs->shape_size[s1]);
  int own = -1;
  if (t0 == dCylinderClass && t1 == dCylinderClass)
    own = tsr_solid_cylinders(&sx, o1, s0, o2, s1, c->buf, c->max_per_pair, dedup);
  else if (t0 == dBoxClass && t1 == dBoxClass && (!n || deepest(c->buf, n) <= touch))
    own = tsr_solid_box_faces(&sx, o1, s0, o2, s1, touch, c->buf, c->max_per_pair);
  if (own >= 0) {
    n = own;
  } else if (solid0 && solid1) {
    const int ode = n;
    n = tsr_solid_pair(&sx, o1, s0, o2, s1, 1, c->buf, n, c->max_per_pair, dedup);
    n = tsr_solid_pair(&sx, o2, s1, o1, s0, 0, c->buf, n, c->max_per_pair, dedup);
    if (!ode && t0 == dBoxClass && t1 == dBoxClass)
      n = tsr_solid_box_edges(&sx, o1, s0, o2, s1, c->buf, n, c->max_per_pair, dedup);
    else if (!ode && t0 == dCylinderClass && t1 == dBoxClass)
      n = tsr_solid_cylinder_side(&sx, o1, s0, o2, s1, 1, c->buf, n, c->max_per_pair, dedup);
    else if (!ode && t1 == dCylinderClass && t0 == dBoxClass)
      n = tsr_solid_cylinder_side(&sx, o2, s1, o1, s0, 0, c->buf, n, c->max_per_pair, dedup);
    // two cylinders none of whose rim points, sides or crossings found the
    // other, yet touching (a cap lying flat on the other's side, rim on
    // rim): ODE's
    if (!n && t0 == dCylinderClass && t1 == dCylinderClass) n = ode_cylinders(c, o1, o2);
  }
  if (t0 == dCapsuleClass && solid1)
    n = end_caps(c, o1, 1, o2, n, c->max_per_pair);
  else if (t1 == dCapsuleClass && solid0)
    n = end_caps(c, o2, 0, o1, n, c->max_per_pair);
  else if (t0 == dCapsuleClass && t1 == dCapsuleClass)
    n = capsule_pair(c, o1, o2, n, c->max_per_pair);
  // a moving box's corners against a capsule (tsr_solid_box_on_capsule)
  if (t0 == dCapsuleClass && t1 == dBoxClass)
    n = tsr_solid_box_on_capsule(&sx, o2, s1, o1, s0, inflation(m, c, s0), 0, c->buf, n, c->max_per_pair, dedup);
  else if (t1 == dCapsuleClass && t0 == dBoxClass)
    n = tsr_solid_box_on_capsule(&sx, o1, s0, o2, s1, inflation(m, c, s1), 1, c->buf, n, c->max_per_pair, dedup);

  // The last check of a pair with a cylinder: deeper by 5% of the thinner
  // shape's least size (a log's end 3.5 cm into a disc's face, whose rim
  // points gave 1.4 mm, was left at a quarter); with a capsule, whose core
  // point is exact (end_caps), by a quarter (at a hundredth, chain_wrap's
  // links got their middles' contacts, as in end_caps, and the box gained
  // energy). A cylinder and a box: also a point deeper than every one made
  // by less than that, when it lies farther than dedup from each (ODE's
  // cylinder-box takes a polygon for the rim, turned with the box's frame,
  // and for a log across a box's edge made a 20 mm point in one frame and
  // only 13.5 mm ones in another: tests/physics/test_contact_invariance.c).
  if ((solid0 || t0 == dCapsuleClass) && (solid1 || t1 == dCapsuleClass)) {
    const int cyl_box = (t0 == dCylinderClass && t1 == dBoxClass) || (t0 == dBoxClass && t1 == dCylinderClass);
    n = tsr_solid_deepest(o1, o2, c->buf, n, c->max_per_pair,
                          (t0 == dCapsuleClass || t1 == dCapsuleClass ? 2.5 : 0.5) * dedup, cyl_box ? dedup : 0.0);
  }

  int b0 = m->shapes[s0].body, b1 = m->shapes[s1].body;
  const int first = cs->n;  // this pair's contacts: cs->c[first..cs->n)
  for (int i = 0; i < n; i++) {
    const dContactGeom *g = &c->buf[i];
    TsrContact k;
    memset(&k, 0, sizeof k);
    k.body[0] = b0, k.body[1] = b1;
    k.shape[0] = s0, k.shape[1] = s1;
    k.point = tsr_v3(g->pos[0], g->pos[1], g->pos[2]);
    k.normal = tsr_v3_normalize(tsr_v3(g->normal[0], g->normal[1], g->normal[2]));
    if (g->g1 != o1) k.normal = tsr_v3_neg(k.normal);  // ODE swapped the pair
    // The sweep inflation of a sphere or capsule comes off the depth (a box
    // or cylinder is not inflated: see solid.h).
    k.depth = g->depth - cs->margin - inflation(m, c, s0) - inflation(m, c, s1);
    TsrVec3 p0, p1;
    int r0 = round_surface_point(m, o1, s0, 1.0, k.point, k.normal, &p0);
    int r1 = round_surface_point(m, o2, s1, -1.0, k.point, k.normal, &p1);
    if (r0 && r1)
      k.point = tsr_v3_scale(tsr_v3_add(p0, p1), 0.5);
    else if (r0 || r1)
      k.point = r0 ? p0 : p1;
    for (int s = 0; s < 2; s++)
      k.local[s] = tsr_q_rotate_inv(x->b->q[k.body[s]], tsr_v3_sub(k.point, x->b->x[k.body[s]]));
    k.match = -1;
    k.kinetic = k.slid = 0;
    // (a plane's size is infinite; a shape's may be 0)
    if (same_as_made(cs, first, &k, 1e-9 * fmax(1.0, fmin(cs->shape_size[s0], cs->shape_size[s1])))) continue;
    if (push_contact(cs, &k)) x->failed = 1;
  }
  if (grown >= 0) c->extra[grown] = kept;
}

static void near_callback(void *data, dGeomID o1, dGeomID o2) {
  CollideCtx *x = data;
  x->cs->collider->broad_pairs++;
  int s0 = (int)(intptr_t)dGeomGetData(o1), s1 = (int)(intptr_t)dGeomGetData(o2);
  if (s0 > s1) {
    int t = s0;
    s0 = s1;
    s1 = t;
    dGeomID g = o1;
    o1 = o2;
    o2 = g;
  }
  TsrCollider *c = x->cs->collider;
  if (!may_meet(c, x->m, s0, s1)) return;
  if (c->spec_space && c->spec[s0] && c->spec[s1]) {  // spec_callback leaves it alone
    if (c->n_seen == c->cap_seen) {
      int cap = c->cap_seen ? 2 * c->cap_seen : 64;
      int64_t *p = realloc(c->seen, (size_t)cap * sizeof *p);
      if (!p) {
        x->failed = 1;
        return;
      }
      c->seen = p, c->cap_seen = cap;
    }
    c->seen[c->n_seen++] = pair_key(s0, s1, c->n_geoms);
  }
  collide_pair(x, s0, s1, o1, o2);
}

// Broad phase of the speculative contacts of moving boxes and cylinders,
// whose geoms are not grown by their reach: their proxies (spec_proxy,
// grown by it) against each other, the fixed boxes' and the spheres' and
// capsules', in a space of their own. A pair the
// main broad phase gave (near_callback lists them) is left alone; the
// others are collided here, in full (collide_pair).
static void spec_callback(void *data, dGeomID a, dGeomID b) {
  CollideCtx *x = data;
  TsrCollider *c = x->cs->collider;
  c->broad_pairs++;
  int s0 = (int)(intptr_t)dGeomGetData(a), s1 = (int)(intptr_t)dGeomGetData(b);
  if (s0 > s1) {
    int t = s0;
    s0 = s1;
    s1 = t;
  }
  if (!may_meet(c, x->m, s0, s1)) return;
  int64_t key = pair_key(s0, s1, c->n_geoms);
  if (c->n_seen && bsearch(&key, c->seen, (size_t)c->n_seen, sizeof key, cmp_i64)) return;
  // The proxies' boxes overlap (the sweep and prune); the proxies
  // themselves must too, or neither shape can reach the other this step.
  dContactGeom probe;
  if (collide_guarded(a, b, 1, &probe, c->grow_sphere) <= 0) return;
  collide_pair(x, s0, s1, c->geoms[s0], c->geoms[s1]);
}

// Orders contacts by shape pair, then ODE's order within the pair (kept in
// `match`, which is free until matching), so the order does not depend on the
// broad phase's traversal.
static int cmp_contact(const void *pa, const void *pb) {
  const TsrContact *a = pa, *b = pb;
  const int c = tsr_contact_pair_cmp(a, b);
  return c ? c : (a->match > b->match) - (a->match < b->match);
}

// Speculative reach of a moving shape for this step: how far
// any point of it can move in one step, h (|v| + |g| h + |w| rho), rho the
// distance from the body's origin to the shape's farthest point. Contacts
// are then made before the shape can reach the other one within the step
// (a separated contact only keeps the gap from closing more than it is, see
// rows.c), rather than after it has sunk up to h |v| - margin into it: a link
// of chain_drop whipping over the plank's edge at ~16 rad/s closes 1.5 cm in
// a step, three times the 5 mm margin. Spheres and capsules are inflated
// by it (a radius: exact, so the depth only has the inflation taken off
// again); boxes and cylinders, whose inflation is not exact at edges, get
// it against planes and boxes only, from their true corners and rims
// (solid.h), and keep the fixed margin against other shapes. Capped at
// rho, so a body flung by a bad solve does not collect contacts with half
// the scene (chain_drop's links need ~2-3 cm, rho = 5 cm).
//
// Pushers. A body can also be driven within the step by another one
// closing in on it: a 500 kg block landing at 12 m/s on a 3 kg rod lying
// 8 cm above the floor drove the rod 10 cm into the floor, which the rod's
// own reach (3 mm) had found no contact with, and the floor's correction
// then threw the block back up at 2 m/s (tests/physics/test_contact_pushed.c).
// An inelastic impact at closing speed u (along the normal) changes body
// 0's velocity by at most u m1 / (m0 + m1), so a body's reach grows by
// `push`, h times the largest such change over its contacts with moving
// bodies this step (m; 0: none); bodies resting on one another close at
// ~0 and keep their own. The grown reach is used against fixed shapes only
// (push_to_fixed): there a missed contact lets the body through the world.
// Used between moving bodies too, it added contacts and cost where nothing
// went through: a collapsing tower of 256 logs took 1.02 ms per step to
// collide instead of 0.68 and 70 ms to solve instead of 52, and the 99th
// percentile of its steps' penetration rose from 2.99 to 3.39 cm. One
// level: a body driven by a body that is itself driven gets its own push
// only.
static double own_reach(const TsrModel *m, const TsrShapeDef *s, TsrVec3 v, TsrVec3 w) {
  double h = m->settings.step, rho = shape_rho(s);
  double e = h * (tsr_v3_norm(v) + tsr_v3_norm(m->settings.gravity) * h + tsr_v3_norm(w) * rho);
  return fmin(e, rho);  // at most the shape's reach, bounding the contacts a wild body makes
}

static double sweep_margin(const TsrModel *m, const TsrBodies *b, int k, double push) {
  const TsrShapeDef *s = &m->shapes[k];
  int body = s->body;
  if (b->fixed[body] || s->type == TSR_SHAPE_PLANE) return 0.0;
  return own_reach(m, s, b->v[body], b->w[body]) + push;
}

static int cmp_key3(const void *pa, const void *pb) {
  const int *a = pa, *b = pb;
  for (int k = 0; k < 3; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

// Drops a contact of body B with body X when a contact of body A with X,
// earlier in the (deterministic) contact order, has the same normal (as X
// sees it), and A and B are joined by a joint that does not collide, with
// both points near the joint's anchor P (within half their shapes' largest
// extent, shape_reach). The rows of the two contacts then differ only by the
// small lever arms p - P: the joint moves both bodies' points at P together,
// so n.(v_A(p_A) - v_B(p_B)) = n.(w_A x (p_A - P) - w_B x (p_B - P)). The
// split of the load between them is set by the compliance alone, which is
// what made the direct solver run out of pivots and the substructured one
// cycle on a chain lying on the ground (every joint has one cap of each link
// under it, and at a subsystem boundary the two caps lie in different
// subsystems). The kept contact holds P; B's other contacts hold its far end.
// Normals within 10 degrees count as the same: on a curved obstacle (the
// cylinder of chain_wrap) the caps either side of a joint, 2 cm apart on a
// 0.5 m radius, differ by 2.3 degrees and are as redundant. B's contact is
// kept when it is deeper than A's by more than 5% of B's reach: A's row
// then does not hold B's point (their gaps differ, not only their lever
// arms). Dropped, it let a wheel of net_with_truck resting across a cable
// joint sink 1.3 cm into the second link until the normals parted by more
// than 10 degrees, and be pushed out with 450-660 N s on the 0.2 kg link:
// 35 contacts in the first 250 steps appeared 1.3-3.4 cm deep a step after
// their pair was apart; none do now (tests/scenes/test_net_with_truck.py),
// the largest penetration fell from 2.0 to 0.6 cm and direct-bpp's solve
// from 11.5 to 6.6 ms per step.
#define TSR_JOINT_DUP_COS 0.985
static int drop_joint_duplicates(TsrContacts *cs, const TsrBodies *b) {
  TsrCollider *c = cs->collider;
  if (!c->n_links || cs->n < 2) return 0;
  int n = cs->n;
  if (2 * n > c->cap_keys) {
    int cap = 2 * n + n + 16;
    int(*k)[3] = realloc(c->keys, (size_t)cap * sizeof *k);
    unsigned char *d = realloc(c->dropped, (size_t)cap);
    if (k) c->keys = k;
    if (d) c->dropped = d;
    if (!k || !d) return -1;
    c->cap_keys = cap;
  }
  int nk = 0;
  for (int i = 0; i < n; i++) {
    c->dropped[i] = 0;
    for (int e = 0; e < 2; e++) {
      int y = cs->c[i].body[e];
      if (c->body_link_p[y + 1] > c->body_link_p[y]) {
        c->keys[nk][0] = y, c->keys[nk][1] = cs->c[i].body[1 - e], c->keys[nk][2] = i;
        nk++;
      }
    }
  }
  qsort(c->keys, (size_t)nk, sizeof *c->keys, cmp_key3);
  for (int j = 0; j < n; j++) {
    const TsrContact *cj = &cs->c[j];
    for (int e = 0; e < 2 && !c->dropped[j]; e++) {
      int B = cj->body[e], X = cj->body[1 - e];
      double sj = e == 0 ? 1.0 : -1.0;  // normal as X sees it: contact pushes body[0] along +n
      for (int q = c->body_link_p[B]; q < c->body_link_p[B + 1] && !c->dropped[j]; q++) {
        int l = c->body_link_j[q], eb = c->link_body[l][1] == B, A = c->link_body[l][1 - eb];
        if (A == X) continue;
        TsrVec3 PB = tsr_v3_add(b->x[B], tsr_q_rotate(b->q[B], c->link_local[l][eb]));
        TsrVec3 PA = tsr_v3_add(b->x[A], tsr_q_rotate(b->q[A], c->link_local[l][1 - eb]));
        if (tsr_v3_norm(tsr_v3_sub(cj->point, PB)) > c->reach[cj->shape[e]]) continue;
        // contacts of A with X: keys (A, X, *)
        int lo = 0, hi = nk;
        while (lo < hi) {
          int mid = (lo + hi) / 2;
          if (c->keys[mid][0] < A || (c->keys[mid][0] == A && c->keys[mid][1] < X))
            lo = mid + 1;
          else
            hi = mid;
        }
        for (int t = lo; t < nk && c->keys[t][0] == A && c->keys[t][1] == X && c->keys[t][2] < j; t++) {
          int i = c->keys[t][2];
          if (c->dropped[i]) continue;
          const TsrContact *ci = &cs->c[i];
          int ea = ci->body[0] == A ? 0 : 1;
          double si = ea == 0 ? 1.0 : -1.0;
          if (si * sj * tsr_v3_dot(ci->normal, cj->normal) < TSR_JOINT_DUP_COS) continue;
          if (cj->depth > ci->depth + 0.05 * c->reach[cj->shape[e]]) continue;
          if (tsr_v3_norm(tsr_v3_sub(ci->point, PA)) > c->reach[ci->shape[ea]]) continue;
          c->dropped[j] = 1;
          break;
        }
      }
    }
  }
  int out = 0;
  for (int j = 0; j < n; j++)
    if (!c->dropped[j]) cs->c[out++] = cs->c[j];
  cs->n = out;
  return 0;
}

// Sets shape k's speculative reach to e. Spheres and capsules grow (exact:
// still a sphere or capsule); boxes and cylinders keep their geom, and
// their reach is used through their proxies (solid.h).
static void set_reach(TsrCollider *c, const TsrShapeDef *s, int k, double e) {
  if (e == c->extra[k]) return;
  c->extra[k] = e;
  if (s->type == TSR_SHAPE_SPHERE || s->type == TSR_SHAPE_CAPSULE) size_round(c->geoms[k], s, c->margin, e);
}

// How far the bounding sphere of moving shape k (grown by the margin's
// half) is from fixed shape f: above a plane, or apart from f's own
// bounding sphere. A shape whose reach is less cannot meet f this step.
static double bounding_gap(const TsrCollider *c, const TsrModel *m, int k, int f) {
  const double half = 0.5 * c->margin;
  const dReal *o = dGeomGetPosition(c->geoms[k]);
  const double rk = tsr_model_shape_bounding_radius(&m->shapes[k], half);
  if (m->shapes[f].type == TSR_SHAPE_PLANE) {
    dVector4 pl;
    dGeomPlaneGetParams(c->geoms[f], pl);
    return pl[0] * o[0] + pl[1] * o[1] + pl[2] * o[2] - pl[3] - rk;
  }
  const dReal *p = dGeomGetPosition(c->geoms[f]);
  return sqrt((o[0] - p[0]) * (o[0] - p[0]) + (o[1] - p[1]) * (o[1] - p[1]) + (o[2] - p[2]) * (o[2] - p[2])) - rk -
         tsr_model_shape_bounding_radius(&m->shapes[f], half);
}

// Planes are kept out of the sweep and prune. ODE bounds a plane whose
// normal is along an axis by a half-space box (z <= offset), and once the
// space sorts on that axis (shapes spread most along z: a tower, a stack)
// a shape above the plane met it only when its own box reached the
// half-space, however fast it fell: the speculative reach never came into
// play, and a rod driven down by a block went 12 cm into a plane that a
// box floor stopped it at. Each plane is tested here against every moving
// shape, whose bounding sphere, grown by its reach, must reach it.
static void collide_planes(CollideCtx *x) {
  TsrCollider *c = x->cs->collider;
  const TsrModel *m = x->m;
  for (int q = 0; q < c->n_planes && !x->failed; q++) {
    const int sp = c->planes[q];
    for (int k = 0; k < m->n_shapes && !x->failed; k++) {
      const TsrShapeDef *s = &m->shapes[k];
      if (s->type == TSR_SHAPE_PLANE || x->b->fixed[s->body]) continue;
      const int s0 = k < sp ? k : sp, s1 = k < sp ? sp : k;
      if (!may_meet(c, m, s0, s1) || bounding_gap(c, m, k, sp) > c->extra[k]) continue;
      collide_pair(x, s0, s1, c->geoms[s0], c->geoms[s1]);
    }
  }
}

// Shapes piled in one place (a `count` without a `stride`: 100,000 spheres
// at one point) give every pair to the sweep and prune: ODE's then builds a
// list of n^2 / 2 pairs and crashes (SIGSEGV in BoxPruning with 100,000;
// 15 GB and 49 s of `check` with 10,000). Such a space is counted first,
// by our own sweep along the space's first axis, and refused above
// BROAD_PAIRS_MAX pairs of overlapping boxes: with up to 4 contacts of 3
// rows each per pair, that is already 2.4e7 rows. Fewer shapes than
// CROWD_SHAPES cannot reach it (n^2 / 2 < BROAD_PAIRS_MAX), and after the
// first detection a space is counted again only when the last step's
// broad phases gave more than an eighth of the limit.
#define BROAD_PAIRS_MAX 2000000L
#define CROWD_SHAPES 2000

typedef struct {
  double lo, hi;  // along the first axis
  double b[6];    // the box
} SweepBox;

static int cmp_sweep(const void *a, const void *b) {
  double x = ((const SweepBox *)a)->lo, y = ((const SweepBox *)b)->lo;
  return (x > y) - (x < y);
}

// Pairs of overlapping boxes in space, counted up to just past limit; -1
// when unknown (no memory, or the sweep's tests ran past 64 x limit: a
// sheet of shapes across the first axis, which ODE's sweep meets too).
static long crowded_pairs(dSpaceID space, int axis, long limit) {
  int n = dSpaceGetNumGeoms(space);
  SweepBox *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
  if (!v) return -1;
  int k = 0;
  for (int i = 0; i < n; i++) {
    dReal bb[6];
    dGeomGetAABB(dSpaceGetGeom(space, i), bb);
    for (int a = 0; a < 6; a++) v[k].b[a] = (double)bb[a];
    v[k].lo = v[k].b[2 * axis], v[k].hi = v[k].b[2 * axis + 1];
    if (isfinite(v[k].lo) && isfinite(v[k].hi)) k++;  // (infinite boxes: ODE keeps them apart too)
  }
  qsort(v, (size_t)k, sizeof *v, cmp_sweep);
  long pairs = 0, tests = 0;
  for (int i = 0; i < k && pairs <= limit; i++)
    for (int j = i + 1; j < k && v[j].lo <= v[i].hi && pairs <= limit; j++) {
      if (++tests > 64 * limit) {
        free(v);
        return -1;
      }
      int meet = 1;
      for (int a = 0; a < 3 && meet; a++)
        if (a != axis) meet = v[j].b[2 * a] <= v[i].b[2 * a + 1] && v[i].b[2 * a] <= v[j].b[2 * a + 1];
      pairs += meet;
    }
  free(v);
  return pairs;
}

// 0, or -1 with c->error set when a space is too crowded to sweep.
static int refuse_crowded(TsrCollider *c, dSpaceID space, const char *what) {
  if (!space || dSpaceGetNumGeoms(space) < CROWD_SHAPES) return 0;
  if (c->crowd_checked && c->broad_pairs <= BROAD_PAIRS_MAX / 8) return 0;
  long pairs = crowded_pairs(space, c->sap_axes & 3, BROAD_PAIRS_MAX);
  if (pairs <= BROAD_PAIRS_MAX) return 0;
  snprintf(c->error, sizeof c->error,
           "more than %ld pairs of shapes%s have overlapping bounding boxes: many bodies share one place (an array "
           "`count` without a `stride`?); too many to detect contacts between",
           BROAD_PAIRS_MAX, what);
  c->crowded = 1;
  return -1;
}

// One detection at the reaches in c->extra: the main broad phase, the
// planes, then the speculative broad phase. 0, or -1 when out of memory.
static int detect_pass(TsrContacts *cs, const TsrModel *m, const TsrBodies *b) {
  TsrCollider *c = cs->collider;
  cs->n = 0;
  CollideCtx x = {cs, m, b, 0};
  c->n_seen = 0;
  if (refuse_crowded(c, c->space, "")) return -1;
  c->broad_pairs = 0;
  dSpaceCollide(c->space, &x, near_callback);
  if (!x.failed) collide_planes(&x);
  if (c->spec_space && !x.failed) {
    if (c->n_seen > 1) qsort(c->seen, (size_t)c->n_seen, sizeof *c->seen, cmp_i64);
    for (int k = 0; k < m->n_shapes; k++) {
      if (!c->spec[k] || m->bodies[m->shapes[k].body].fixed) continue;
      const dReal *o = dGeomGetPosition(c->geoms[k]);
      dGeomSetPosition(c->spec[k], o[0], o[1], o[2]);
      dGeomSetRotation(c->spec[k], dGeomGetRotation(c->geoms[k]));
      spec_proxy_size(c->spec[k], &m->shapes[k], c->margin, c->extra[k]);
    }
    if (refuse_crowded(c, c->spec_space, " (grown by their reach this step)")) return -1;
    dSpaceCollide(c->spec_space, &x, spec_callback);
  }
  return x.failed ? -1 : 0;
}

// A push must be PUSH_MIN (m) at least, and at least double a shape's own
// reach, to be worth colliding the shape again against the fixed ones: a
// body driven at under 0.6 m/s (h = 1/60 s; a pile settling, a chain
// falling as one) reaches the ground through its own contacts.
#define PUSH_MIN 1e-2

// Pushers (see sweep_margin): each moving body's push from this step's
// contacts, speculative ones included, into c->push. Returns how many
// bodies have one.
static int find_pushers(TsrContacts *cs, const TsrModel *m, const TsrBodies *b) {
  TsrCollider *c = cs->collider;
  const double h = m->settings.step;
  for (int i = 0; i < cs->n; i++) {
    const TsrContact *k = &cs->c[i];
    const int y0 = k->body[0], y1 = k->body[1];
    if (y0 < 0 || y1 < 0 || b->fixed[y0] || b->fixed[y1]) continue;  // a fixed body pushes nothing
    // the normal points from body 1 into body 0 (rows.c): closing when
    // body 0 moves against it relative to body 1
    TsrVec3 v0 = tsr_contact_state_velocity(b, y0, tsr_v3_sub(k->point, b->x[y0]));
    TsrVec3 v1 = tsr_contact_state_velocity(b, y1, tsr_v3_sub(k->point, b->x[y1]));
    double closing = -tsr_v3_dot(k->normal, tsr_v3_sub(v0, v1));
    if (!(closing > 0.0)) continue;
    // an inelastic impact at the closing speed u gives body 0 at most
    // u m1 / (m0 + m1), body 1 u m0 / (m0 + m1)
    const double im0 = b->inv_mass[y0], im1 = b->inv_mass[y1], sum = im0 + im1;
    if (!(sum > 0.0)) continue;
    c->push[y0] = fmax(c->push[y0], h * closing * im0 / sum);
    c->push[y1] = fmax(c->push[y1], h * closing * im1 / sum);
  }
  int pushed = 0;
  for (int i = 0; i < m->n_bodies; i++) {
    if (c->push[i] < PUSH_MIN) c->push[i] = 0.0;
    pushed += c->push[i] > 0.0;
  }
  return pushed;
}

// Drops this step's contacts of shape pair (s0, s1), s0 < s1.
static void drop_pair(TsrContacts *cs, int s0, int s1) {
  int out = 0;
  for (int i = 0; i < cs->n; i++)
    if (cs->c[i].shape[0] != s0 || cs->c[i].shape[1] != s1) cs->c[out++] = cs->c[i];
  cs->n = out;
}

// The shapes of pushed bodies whose reach the push at least doubles, grown
// by it, against every fixed shape they can now reach (bounding spheres):
// each such pair's contacts are made again. 0, or -1 when out of memory.
static int push_to_fixed(TsrContacts *cs, const TsrModel *m, const TsrBodies *b) {
  TsrCollider *c = cs->collider;
  CollideCtx x = {cs, m, b, 0};
  for (int k = 0; k < m->n_shapes && !x.failed; k++) {
    const TsrShapeDef *s = &m->shapes[k];
    if (b->fixed[s->body] || !(c->push[s->body] > 0.0)) continue;
    double e = sweep_margin(m, b, k, c->push[s->body]);
    if (!(e >= 2.0 * c->extra[k])) continue;
    set_reach(c, s, k, e);
    for (int q = 0; q < c->n_fixed && !x.failed; q++) {
      const int f = c->fixed[q], s0 = k < f ? k : f, s1 = k < f ? f : k;
      if (!may_meet(c, m, s0, s1) || bounding_gap(c, m, k, f) > e) continue;
      drop_pair(cs, s0, s1);
      collide_pair(&x, s0, s1, c->geoms[s0], c->geoms[s1]);
    }
  }
  return x.failed ? -1 : 0;
}

typedef struct {
  TsrContacts *cs;
  const TsrModel *m;
  const TsrBodies *b;
} DetectArgs;

static int detect(void *p) {
  const DetectArgs *a = p;
  TsrContacts *cs = a->cs;
  const TsrModel *m = a->m;
  const TsrBodies *b = a->b;
  TsrCollider *c = cs->collider;
  memset(c->push, 0, (size_t)m->n_bodies * sizeof *c->push);  // the first pass: none
  c->crowded = 0;
  for (int k = 0; k < m->n_shapes; k++) {
    const TsrShapeDef *s = &m->shapes[k];
    int body = s->body;
    if (b->fixed[body]) continue;
    place(c->geoms[k], s, b->x[body], b->q[body]);
    set_reach(c, s, k, sweep_margin(m, b, k, 0.0));
  }
  choose_sweep_axes(c);
  int rc = detect_pass(cs, m, b);
  c->crowd_checked = 1;
  if (rc) return -1;
  // Pushed bodies against the fixed shapes they can now reach.
  if (find_pushers(cs, m, b) > 0 && push_to_fixed(cs, m, b)) return -1;
  tsr_contact_drop_seams(cs, m, b);
  for (int i = 0; i < cs->n; i++) cs->c[i].match = i;
  if (cs->n > 1) qsort(cs->c, (size_t)cs->n, sizeof *cs->c, cmp_contact);  // cs->c may be NULL when n = 0
  for (int i = 0; i < cs->n; i++) cs->c[i].match = cs->c[i].solved = -1;
  return drop_joint_duplicates(cs, b);
}

int tsr_contact_detect(TsrContacts *cs, const TsrModel *m, const TsrBodies *b) {
  TsrCollider *c = cs->collider;
  if (c->ode_broken) return -1;  // c->error says why
  DetectArgs a = {cs, m, b};
  const int rc = tsr_ode_trapped(detect, &a, c->error, sizeof c->error);
  if (rc == -2) {
    c->ode_broken = 1;
    cs->n = 0;
    return -1;
  }
  if (rc && !c->crowded) snprintf(c->error, sizeof c->error, "out of memory");
  return rc ? -1 : 0;
}

void tsr_contact_collider_cover(TsrCollider *c, const TsrModel *m, const TsrBodies *b, int first) {
  // a shape's own reach, against every shape: not its push, which is used
  // against fixed shapes only (push_to_fixed)
  for (int k = 0; k < m->n_shapes; k++) {
    const double e = sweep_margin(m, b, k, 0.0);
    c->covered[k] = first ? e : fmax(c->covered[k], e);
  }
}

int tsr_contact_collider_struck(const TsrCollider *c, const TsrModel *m, const TsrBodies *b, const double *v6,
                                double tol) {
  int n = 0;
  for (int k = 0; k < m->n_shapes; k++) {
    const TsrShapeDef *s = &m->shapes[k];
    if (b->fixed[s->body] || s->type == TSR_SHAPE_PLANE) continue;
    const double *v = &v6[6 * s->body];
    n += own_reach(m, s, tsr_v3(v[0], v[1], v[2]), tsr_v3(v[3], v[4], v[5])) > c->covered[k] + tol;
  }
  return n;
}

const char *tsr_contact_collider_error(const TsrCollider *c) { return c->error; }
int tsr_contact_collider_crowded(const TsrCollider *c) { return c->crowded; }
