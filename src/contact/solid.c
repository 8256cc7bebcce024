// SPDX-License-Identifier: MIT
// Corner and rim-point contacts of boxes and cylinders (solid.h).
#include "contact/solid.h"
#include "contact/contact_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// A geom's position, and its axes (the columns of ODE's 3x4 row-major
// rotation).
static TsrVec3 geom_pos(dGeomID g) {
  const dReal *o = dGeomGetPosition(g);
  return tsr_v3(o[0], o[1], o[2]);
}

static void geom_axes(dGeomID g, TsrVec3 ax[3]) {
  const dReal *R = dGeomGetRotation(g);
  for (int i = 0; i < 3; i++) ax[i] = tsr_v3(R[i], R[4 + i], R[8 + i]);
}

// How far shapes s0 and s1 can close in on each other in this step: the
// sum of their sweep margins, a fixed shape's being 0.
static double pair_motion(const TsrSolidCtx *x, int s0, int s1) {
  const TsrBodies *b = x->b;
  return (b->fixed[x->m->shapes[s0].body] ? 0.0 : x->extra[s0]) +
         (b->fixed[x->m->shapes[s1].body] ? 0.0 : x->extra[s1]);
}

// Whether p lies within d of one of the n contacts in buf.
// A contact's point and normal as vectors.
static TsrVec3 cg_pos(const dContactGeom *c) { return tsr_v3(c->pos[0], c->pos[1], c->pos[2]); }
static TsrVec3 cg_normal(const dContactGeom *c) { return tsr_v3(c->normal[0], c->normal[1], c->normal[2]); }

static int near_any(const dContactGeom *buf, int n, TsrVec3 p, double d) {
  for (int j = 0; j < n; j++)
    if (tsr_v3_norm(tsr_v3_sub(cg_pos(&buf[j]), p)) < d) return 1;
  return 0;
}

// The face pair of a box (axes u) most nearly along dir, with in *sgn the
// side of it that dir points to.
static int face_toward(const TsrVec3 u[3], TsrVec3 dir, double *sgn) {
  int face = 0;
  for (int i = 1; i < 3; i++)
    if (fabs(tsr_v3_dot(dir, u[i])) > fabs(tsr_v3_dot(dir, u[face]))) face = i;
  *sgn = tsr_v3_dot(dir, u[face]) < 0.0 ? -1.0 : 1.0;
  return face;
}

// Box f's edge lengths and axes, and its face pair most nearly along dir
// (face_toward).
static int box_face(dGeomID f, TsrVec3 dir, dVector3 side, TsrVec3 u[3], double *sgn) {
  dGeomBoxGetLengths(f, side);
  geom_axes(f, u);
  return face_toward(u, dir, sgn);
}

// A cylinder's rim points start at its lowest along -n once it is tilted
// off n by this sine or more; level, they are fixed on the cylinder (its x
// axis), and in between they turn smoothly from one to the other
// (rim_phase).
#define RIM_LEVEL_SIN 1e-3

// The angle from a cylinder's x axis (ax[0]) to the first of its four rim
// points, 90 degrees apart, for a surface toward -n. The rim's lowest point
// lies along u = a (n . a) - n, |u| the sine of the tilt off n. Nearly
// level, the tilt is the contacts' compliance under a sliding cylinder's
// friction torque (1e-7 rad) or round-off, and u's axial part a_z^2 - 1
// cancels: points taken along u turned from the x axis to the sliding
// direction at the first step, swung with the tilt after that, and lay
// 5e-10 m off the rim (tsr_solid_deepest's samples of the true rim beat
// them). So the points' set, which repeats every 90 degrees, takes the
// phase of s e^(4 i alpha) + max(0, RIM_LEVEL_SIN - s), alpha the lowest
// point's angle and s = |u|, and is built from the cylinder's own axes:
// fixed on the cylinder when level, at the lowest point from a tilt of
// RIM_LEVEL_SIN on (exactly: a wheel's rim point 1e-8 m above its lowest,
// turned by RIM_LEVEL_SIN / 4, halved its traction), and continuous in the
// pose between, where a rim point lies at most 0.3 r RIM_LEVEL_SIN above
// the lowest.
static double rim_phase(const TsrVec3 ax[3], TsrVec3 n) {
  const TsrVec3 u = tsr_v3_sub(tsr_v3_scale(ax[2], tsr_v3_dot(n, ax[2])), n);
  const double x = tsr_v3_dot(u, ax[0]), y = tsr_v3_dot(u, ax[1]), s = hypot(x, y);
  if (!(s > 0.0)) return 0.0;
  // s e^(4 i alpha) = s (c + i sn)^4 from the unit c + i sn: (x + i y)^4 / s^3
  // underflowed to 0 / 0 for s below ~1e-108 (a tilt of 1e-150 rad gave NaN
  // rim points, no contacts, and the cylinder fell through the ground)
  const double c = x / s, sn = y / s, c2 = c * c - sn * sn, s2 = 2.0 * c * sn;
  const double x4 = s * (c2 * c2 - s2 * s2), y4 = s * 2.0 * c2 * s2;
  const double phase = 0.25 * atan2(y4, x4 + fmax(0.0, RIM_LEVEL_SIN - s)), alpha = atan2(y, x);
  // of the four, the point nearest the lowest first (the order the points
  // had when they started from the lowest)
  return phase + 0.5 * M_PI * round((alpha - phase) / (0.5 * M_PI));
}

// The points of a box (its eight corners) or of a cylinder (four on each
// rim, 90 degrees apart, from the rim's lowest along -n once it is tilted:
// rim_phase) that can first touch a surface whose outward normal is n; ax:
// the shape's axes.
static int solid_points(dGeomID g, TsrVec3 n, TsrVec3 ax[3], TsrVec3 p[8]) {
  const TsrVec3 ctr = geom_pos(g);
  geom_axes(g, ax);
  int np = 0;
  if (dGeomGetClass(g) == dBoxClass) {
    dVector3 side;
    dGeomBoxGetLengths(g, side);
    for (int k = 0; k < 8; k++) {
      p[np] = ctr;
      for (int i = 0; i < 3; i++) p[np] = tsr_v3_madd(p[np], ax[i], ((k >> i) & 1 ? 0.5 : -0.5) * side[i]);
      np++;
    }
    return np;
  }
  dReal r, len;
  dGeomCylinderGetParams(g, &r, &len);
  const TsrVec3 a = ax[2];
  const double phase = rim_phase(ax, n);
  const TsrVec3 u = tsr_v3_add(tsr_v3_scale(ax[0], cos(phase)), tsr_v3_scale(ax[1], sin(phase)));
  const TsrVec3 v = tsr_v3_cross(a, u);
  const TsrVec3 dirs[4] = {u, v, tsr_v3_neg(u), tsr_v3_neg(v)};
  for (int cap = 0; cap < 2; cap++)
    for (int k = 0; k < 4; k++) p[np++] = tsr_v3_madd(tsr_v3_madd(ctr, a, (cap ? 0.5 : -0.5) * len), dirs[k], r);
  return np;
}

// A cylinder's spin about its own axis a (unit): the part of its body's w
// along a, which moves its surface only along itself; zero for a box.
static TsrVec3 axial_spin(const TsrSolidCtx *x, int shape, TsrVec3 a) {
  if (x->m->shapes[shape].type != TSR_SHAPE_CYLINDER) return tsr_v3(0, 0, 0);
  return tsr_v3_scale(a, tsr_v3_dot(x->b->w[x->m->shapes[shape].body], a));
}

// How far point p of a box or cylinder can go along -n in this step,
// toward a plane, box or cylinder (other: its shape, or -1 for a plane):
// h times p's velocity along -n relative to the other's material point
// there, plus |g| h^2 (as a sphere's inflation: the tolerance that makes
// shapes resting exactly on one another touch whatever the rounding), at
// most the two shapes' sweep margins (a fixed shape's is 0); plus its
// body's push (collide.c: how much farther a body closing in on it can
// drive it; non-zero only against fixed shapes), whichever way p itself
// moves. A cylinder's spin about its own axis (ax[2]) only moves points
// along its rims, never below a rim's lowest point, so it is left out. 0
// when neither shape moves.
static double point_reach(const TsrSolidCtx *x, int shape, dGeomID g, const TsrVec3 ax[3], int other, TsrVec3 n,
                          TsrVec3 p) {
  const TsrBodies *b = x->b;
  const int other_moves = other >= 0 && !b->fixed[x->m->shapes[other].body];
  const double bound = x->extra[shape] + (other_moves ? x->extra[other] : 0.0);  // 0 for a fixed shape
  if (!(bound > 0.0)) return 0.0;
  const int body = x->m->shapes[shape].body;
  const double h = x->m->settings.step;
  TsrVec3 vp = tsr_contact_state_velocity(b, body, tsr_v3_sub(p, b->x[body]));
  // less the spin about a cylinder's own axis through its centre (the
  // centre itself moves with the whole w: a wheel that is part of a
  // compound body orbits its origin)
  vp = tsr_v3_sub(vp, tsr_v3_cross(axial_spin(x, shape, ax[2]), tsr_v3_sub(p, geom_pos(g))));
  if (other_moves) {
    int ob = x->m->shapes[other].body;
    vp = tsr_v3_sub(vp, tsr_contact_state_velocity(b, ob, tsr_v3_sub(p, b->x[ob])));
  }
  double toward = -tsr_v3_dot(n, vp), own = h * fmax(toward, 0.0) + tsr_v3_norm(x->m->settings.gravity) * h * h;
  return fmin(bound, own + (x->push ? x->push[body] : 0.0));
}

// Whether point p of shape g, at signed gap `gap` from shape f along nrm,
// makes a contact: touching (gap <= 0) or able to reach f in this step
// (point_reach), and not within dedup of one of the n contacts in buf.
static int reaches(const TsrSolidCtx *x, int shape, dGeomID g, const TsrVec3 ax[3], int fshape, TsrVec3 nrm, TsrVec3 p,
                   double gap, const dContactGeom *buf, int n, double dedup) {
  if (gap > 0.0 && !(gap < point_reach(x, shape, g, ax, fshape, nrm, p))) return 0;
  return !near_any(buf, n, p, dedup);
}

double tsr_solid_reach(const TsrSolidCtx *x, int shape, dGeomID g) {
  const TsrShapeDef *s = &x->m->shapes[shape];
  const double bound = x->extra[shape];
  if (s->type != TSR_SHAPE_CYLINDER || !(bound > 0.0)) return bound;
  const TsrBodies *b = x->b;
  TsrVec3 ax[3];
  geom_axes(g, ax);
  TsrVec3 w = tsr_v3_sub(b->w[s->body], axial_spin(x, shape, ax[2]));
  // the centre moves with the whole w (a compound's wheel orbits its origin)
  TsrVec3 vc = tsr_contact_state_velocity(b, s->body, tsr_v3_sub(geom_pos(g), b->x[s->body]));
  double h = x->m->settings.step;
  double e = h * (tsr_v3_norm(vc) + tsr_v3_norm(x->m->settings.gravity) * h +
                  tsr_v3_norm(w) * hypot(s->params[0], 0.5 * s->params[1]));  // its bounding radius
  return fmin(e, bound);
}

static void set_contact(dContactGeom *q, TsrVec3 p, TsrVec3 n, double depth, dGeomID g, dGeomID other, int g_first) {
  const double sgn = g_first ? 1.0 : -1.0;  // the normal points into the first geom
  memset(q, 0, sizeof *q);
  q->pos[0] = p.x, q->pos[1] = p.y, q->pos[2] = p.z;
  q->normal[0] = sgn * n.x, q->normal[1] = sgn * n.y, q->normal[2] = sgn * n.z;
  q->depth = depth;
  q->g1 = g_first ? g : other;
  q->g2 = g_first ? other : g;
}

// Where a speculative contact at depth `depth` goes in buf (n of max
// taken): the next place while there is room, else in place of the
// shallowest when it is deeper than that one; -1 when it is not. The
// points that fill a pair's places first (each shape's corners or rim
// points) need not be the nearest: a box falling at 5.4 m/s edge-first
// across a cylinder's side, 9.6 mm above it, had four of them 34 to 76 mm
// away and no place left for the side's point under its edge; the edge
// went 56 mm into the cylinder in the step (test_contact_edge_on_side).
static int speculative_slot(const dContactGeom *buf, int *n, int max, double depth) {
  if (*n < max) return (*n)++;
  int at = 0;
  for (int k = 1; k < *n; k++)
    if (buf[k].depth < buf[at].depth) at = k;
  return *n > 0 && depth > buf[at].depth ? at : -1;
}

// Sorts contacts by decreasing depth, stably (ties keep their order).
// Whether p goes before q: deeper, or as deep and first in its coordinates
// (so that the order of equal depths does not depend on the order made).
static int deeper_first(const dContactGeom *p, const dContactGeom *q) {
  if (p->depth != q->depth) return p->depth > q->depth;
  for (int k = 0; k < 3; k++)
    if (p->pos[k] != q->pos[k]) return p->pos[k] < q->pos[k];
  return 0;
}

static void sort_deepest_first(dContactGeom *pts, int m) {
  for (int i = 1; i < m; i++)
    for (int j = i; j > 0 && deeper_first(&pts[j], &pts[j - 1]); j--) {
      dContactGeom t = pts[j];
      pts[j] = pts[j - 1];
      pts[j - 1] = t;
    }
}

int tsr_solid_keep_deepest(dContactGeom *cand, int nc, dContactGeom *out, int max, double dedup) {
  sort_deepest_first(cand, nc);
  int m = 0;
  for (int k = 0; k < nc && m < max; k++)
    if (!near_any(out, m, cg_pos(&cand[k]), dedup)) out[m++] = cand[k];
  return m;
}

int tsr_solid_plane(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID plane, int g_first, int max,
                    dContactGeom *out) {
  dReal pl[4];
  dGeomPlaneGetParams(plane, pl);
  TsrVec3 n = tsr_v3(pl[0], pl[1], pl[2]), ax[3], p[8];
  int np = solid_points(g, n, ax, p), m = 0;
  dContactGeom pts[8];
  for (int k = 0; k < np; k++) {
    double depth = pl[3] - tsr_v3_dot(n, p[k]), reach = point_reach(x, shape, g, ax, -1, n, p[k]);
    if (!(depth > -reach) || (reach == 0.0 && depth < 0.0)) continue;
    set_contact(&pts[m++], p[k], n, depth, g, plane, g_first);
  }
  sort_deepest_first(pts, m);
  if (m > max) m = max;
  memcpy(out, pts, (size_t)m * sizeof *pts);
  return m;
}

// Signed distance from p to box f (as grown by the margin): outside, the
// distance to its closest point, with *normal from there to p; inside,
// minus the distance to the nearest face, with that face's outward normal.
// A point on several faces at once to the last bit (the corners of boxes
// stacked exactly: every face at distance 0) takes the one of them most
// nearly along `hint` (the direction from f to the other shape): the first
// face found, a side, let a stacked box fall a step.
static double box_distance(dGeomID f, TsrVec3 p, TsrVec3 hint, TsrVec3 *normal) {
  dVector3 side;
  dGeomBoxGetLengths(f, side);
  TsrVec3 ctr = geom_pos(f), q = ctr, d = tsr_v3_sub(p, ctr), u[3];
  geom_axes(f, u);
  int inside = 1;
  double l[3], hl[3], in[3], nearest = INFINITY;
  for (int i = 0; i < 3; i++) {
    l[i] = tsr_v3_dot(d, u[i]), hl[i] = 0.5 * side[i];
    double lc = l[i] < -hl[i] ? -hl[i] : l[i] > hl[i] ? hl[i] : l[i];
    if (lc != l[i]) inside = 0;
    q = tsr_v3_madd(q, u[i], lc);
    in[i] = hl[i] - fabs(l[i]);  // how far inside face pair i (< 0: outside)
    if (in[i] < nearest) nearest = in[i];
  }
  int face = -1;
  for (int i = 0; i < 3; i++)  // the faces at the nearest distance, within rounding
    if (in[i] <= nearest + 1e-12 * (hl[i] + fabs(l[i])) &&
        (face < 0 || fabs(tsr_v3_dot(hint, u[i])) > fabs(tsr_v3_dot(hint, u[face]))))
      face = i;
  TsrVec3 e = tsr_v3_sub(p, q), facing = tsr_v3_scale(u[face], l[face] < 0.0 ? -1.0 : 1.0);
  if (inside) {
    *normal = facing;
    return -nearest;
  }
  double dist = tsr_v3_norm(e);
  *normal = dist > 0.0 ? tsr_v3_scale(e, 1.0 / dist) : facing;  // on the surface to the last bit
  return dist;
}

// Signed distance from p to cylinder f (as grown by the margin), as
// box_distance: outside, to its closest point (rim, side or cap), with the
// normal from there; inside, minus the distance to the nearer of the side
// and the cap on p's side, a tie within rounding going to the one more
// nearly along hint. Outside, the distance and its normal are continuous:
// no choice between side and cap is made for a point beyond a cap's edge.
static double cylinder_distance(dGeomID f, TsrVec3 p, TsrVec3 hint, TsrVec3 *normal) {
  dReal r, len;
  dGeomCylinderGetParams(f, &r, &len);
  TsrVec3 ax[3];
  geom_axes(f, ax);
  const TsrVec3 a = ax[2], ctr = geom_pos(f), d = tsr_v3_sub(p, ctr);
  const double hl = 0.5 * len, t = tsr_v3_dot(d, a);
  TsrVec3 radial = tsr_v3_madd(d, a, -t);
  double rho = tsr_v3_norm(radial);
  TsrVec3 u = rho > 0.0 ? tsr_v3_scale(radial, 1.0 / rho) : ax[0];  // on the axis: any radius
  const TsrVec3 cap = tsr_v3_scale(a, t < 0.0 ? -1.0 : 1.0);
  const double in_side = r - rho, in_cap = hl - fabs(t);
  if (in_side >= 0.0 && in_cap >= 0.0) {
    const double tie = 1e-12 * (r + hl + fabs(t) + rho);
    int side = in_side < in_cap - tie   ? 1
               : in_cap < in_side - tie ? 0
                                        : fabs(tsr_v3_dot(hint, u)) >= fabs(tsr_v3_dot(hint, a));
    *normal = side ? u : cap;
    return -(side ? in_side : in_cap);
  }
  const double tc = t < -hl ? -hl : t > hl ? hl : t;
  TsrVec3 q = tsr_v3_madd(tsr_v3_madd(ctr, a, tc), u, fmin(rho, r)), e = tsr_v3_sub(p, q);
  double dist = tsr_v3_norm(e);
  *normal = dist > 0.0 ? tsr_v3_scale(e, 1.0 / dist) : in_cap < 0.0 ? cap : u;
  return dist;
}

// Signed distance from p to capsule f (as grown), with the normal from its
// axis segment toward p.
static double capsule_distance(dGeomID f, TsrVec3 p, TsrVec3 *normal) {
  dReal r, len;
  dGeomCapsuleGetParams(f, &r, &len);
  TsrVec3 ax[3];
  geom_axes(f, ax);
  const TsrVec3 d = tsr_v3_sub(p, geom_pos(f));
  const double t = fmax(-0.5 * len, fmin(0.5 * len, tsr_v3_dot(d, ax[2])));
  const TsrVec3 e = tsr_v3_madd(d, ax[2], -t);
  const double dist = tsr_v3_norm(e);
  *normal = dist > 0.0 ? tsr_v3_scale(e, 1.0 / dist) : ax[0];
  return dist - r;
}

// Signed distance from p to a box, cylinder or capsule f (box_distance,
// cylinder_distance, capsule_distance).
static double solid_distance(dGeomID f, TsrVec3 p, TsrVec3 hint, TsrVec3 *normal) {
  const int cls = dGeomGetClass(f);
  return cls == dBoxClass       ? box_distance(f, p, hint, normal)
         : cls == dCapsuleClass ? capsule_distance(f, p, normal)
                                : cylinder_distance(f, p, hint, normal);
}

// The face of box f that faces g (its outward normal most nearly along
// dir, from f toward g's centre), when p lies level with f, under that
// face's plane, and beside f's rectangle there, each by at most `window`
// (deeper, a corner beside a box in a pile got the depth of half the
// box and was thrown at 80 m/s): returns p's signed distance from the
// plane (< 0) with that normal; NAN otherwise. A box or log exactly as long as f is wide, slid by 0.5 mm,
// has its corners or rim points just beside f; their closest points on f
// are on its side faces, and the side normals held nothing up (a 2.4 m
// box on 2.4 m logs sank into them and was thrown 1.3 m), while the logs'
// top lines, under f, had no point at all.
static double level_face(dGeomID f, TsrVec3 dir, TsrVec3 p, double window, TsrVec3 *normal) {
  dVector3 side;
  TsrVec3 d = tsr_v3_sub(p, geom_pos(f)), u[3];
  double l[3], out[3], sgn;
  const int face = box_face(f, dir, side, u, &sgn);
  for (int i = 0; i < 3; i++) {
    l[i] = tsr_v3_dot(d, u[i]);
    out[i] = fmax(fabs(l[i]) - 0.5 * side[i], 0.0);  // how far beside face pair i
  }
  const double h = sgn * l[face] - 0.5 * side[face];
  if (!(h < 0.0) || -h > window || hypot(out[(face + 1) % 3], out[(face + 2) % 3]) > window) return NAN;
  *normal = tsr_v3_scale(u[face], sgn);
  return h;
}

// Whether cylinder g (axes ax) lies along face pair `face` of box f (edge
// lengths side, axes u: box_face): its axis within ~11 degrees of parallel
// to it. Then the line c + t a, t in [*lo, *hi] within [-len/2, len/2] (c:
// the cylinder's centre, or a point beside it at right angles to a), is its
// part within f's extent along that face, over the face or beside it
// (*beside: along one of its edges, parallel to a pair of f's sides and
// outside them).
static int along_face(dGeomID g, const TsrVec3 ax[3], dGeomID f, const dReal side[3], const TsrVec3 u[3], int face,
                      TsrVec3 c, double *lo, double *hi, int *beside) {
  dReal r, len;
  dGeomCylinderGetParams(g, &r, &len);
  const TsrVec3 a = ax[2], d = tsr_v3_sub(c, geom_pos(f));
  if (fabs(tsr_v3_dot(a, u[face])) > TSR_ALONG_SIN) return 0;
  *lo = -0.5 * len, *hi = 0.5 * len, *beside = 0;
  for (int j = 0; j < 3; j++) {
    if (j == face) continue;
    const double cj = tsr_v3_dot(d, u[j]), aj = tsr_v3_dot(a, u[j]), L = 0.5 * side[j];
    if (fabs(aj) < 1e-12) {
      *beside |= fabs(cj) > L;
      continue;
    }
    double s0 = (-L - cj) / aj, s1 = (L - cj) / aj;
    *lo = fmax(*lo, fmin(s0, s1)), *hi = fmin(*hi, fmax(s0, s1));
  }
  return *lo < *hi;
}

// Whether t, along a cylinder of length len from its centre, is at a rim.
static int at_rim(double t, double len) { return fabs(fabs(t) - 0.5 * len) <= 1e-9 * len; }

// A cylinder g lying on a face of box f (along_face, not beside it): the
// ends of the part of its side line facing f that lies over the face, as up
// to two points in q with their signed heights above the face's plane. A
// log lying over a box's edge touches it along its side up to the edge,
// not at its far rim: with its rim points alone, one inside and one beyond
// the edge, a falling tower's log pivoted on one point and sank 18 cm into
// the 2.5 t box on it. The ends are kept at the rims too, where
// solid_points has points of its own (the deeper of two coinciding points
// is kept): a rim point level with f's side takes that side as its nearest
// face, and a log exactly as long as the box on it is wide then had
// contacts only along its axis at both ends; nothing held it under the
// box's face, and the box came 90 mm into it (test_contact_landing,
// test_wide_box_on_logs). A line deeper under the face than `touch` and
// than it is long over it gives none (below). (capsules: collide.c,
// clip_to_face; beside the face, along its edge: tsr_solid_cylinder_side.)
static int side_on_face(dGeomID g, const TsrVec3 ax[3], dGeomID f, TsrVec3 dir, double touch, TsrVec3 q[2], double h[2],
                        TsrVec3 *normal) {
  dVector3 side;
  TsrVec3 u[3];
  double sgn;
  const int face = box_face(f, dir, side, u, &sgn);
  dReal r, len;
  dGeomCylinderGetParams(g, &r, &len);
  const TsrVec3 a = ax[2], nf = tsr_v3_scale(u[face], sgn);
  if (fabs(tsr_v3_dot(a, nf)) > TSR_ALONG_SIN) return 0;  // along_face's test, before w is normalised
  TsrVec3 w = tsr_v3_normalize(tsr_v3_madd(nf, a, -tsr_v3_dot(nf, a)));
  // the side line facing f: c + t a, t in [-len/2, len/2]
  const TsrVec3 c = tsr_v3_madd(geom_pos(g), w, -r), fc = geom_pos(f);
  double lo, hi;
  int beside;
  if (!along_face(g, ax, f, side, u, face, c, &lo, &hi, &beside) || beside) return 0;
  int m = 0;
  const double ends[2] = {lo, hi};
  for (int e = 0; e < 2; e++) {
    q[m] = tsr_v3_madd(c, a, ends[e]);
    h[m] = sgn * tsr_v3_dot(tsr_v3_sub(q[m], fc), u[face]) - 0.5 * side[face];
    m++;
  }
  // A side line deeper under the face than it is long over it does not lie
  // on that face: the cylinder's end is across the face's edge, and the way
  // out along its axis, through the face at that edge, is the shorter. The
  // face is box_face's pick from the direction of g's centre, which off an
  // edge is nearly a tie: a disc (r 158 mm, 172 mm long) on its cap 28 mm
  // into a box's top, its centre 70 mm beyond the box's side, had its side
  // line taken as lying on that side, 27 mm of it over the side and 86 mm
  // under it; the two contacts, with the side's normal, hid the rim point
  // under the top, nothing held the disc up, and it went on to 48 mm in a
  // mixed pile (test_contact_disc_over_edge). A line that only just touches
  // (within touch) keeps the face's normal, as before: a log's end a few mm
  // over a box's edge, whose rim point there takes the side for its nearest
  // face.
  if (fmax(-h[0], -h[1]) > fmax(touch, hi - lo)) return 0;
  *normal = nf;
  return m;
}

// ODE's contact of a cylinder and a box is kept beside the cylinder's own
// points when its normal is more than ~30 degrees from each of theirs.
#define OWN_NORMAL_COS 0.866

int tsr_solid_pair(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID f, int fshape, int g_first, dContactGeom *buf,
                   int n, int max, double dedup) {
  // a moving cylinder's own points replace ODE's against a box (solid.h)
  const int own =
      !x->b->fixed[x->m->shapes[shape].body] && dGeomGetClass(g) == dCylinderClass && dGeomGetClass(f) == dBoxClass;
  const double motion = pair_motion(x, shape, fshape);
  if (!own && (!(motion > 0.0) || n >= max)) return n;
  TsrVec3 ctr = geom_pos(g), dir, hint = tsr_v3_sub(ctr, geom_pos(f));
  const double centre = solid_distance(f, ctr, hint, &dir);
  if (!(centre > 0.0)) return n;  // the centre inside f: ODE's
  // every point of g farther from f than either can move: none (most pairs
  // of a pile's speculative broad phase)
  if (centre - tsr_model_shape_bounding_radius(&x->m->shapes[shape], 0.5 * x->m->settings.contact.margin) > motion)
    return n;
  TsrVec3 ax[3], p[8];
  int np = solid_points(g, dir, ax, p), m = 0, touching = 0;
  dContactGeom pts[10];
  for (int k = 0; k < np; k++) {
    TsrVec3 nk;
    double sd = solid_distance(f, p[k], dir, &nk);
    // level with a box f and just beside it (level_face): under the face
    // toward g, not beside its side
    if (dGeomGetClass(f) == dBoxClass) {
      TsrVec3 nl;
      double h = level_face(f, dir, p[k], 0.5 * dedup, &nl);
      if (!isnan(h)) sd = h, nk = nl;
    }
    if (sd <= 0.0) {
      // overlapping: ODE's (unless it found none: touching to the last
      // bit), where ODE has a contact near it; a corner that only just
      // touches, far from ODE's points, keeps its own (ODE's box-box gives
      // one point for boxes whose edges cross: a box spinning at 20 rad/s
      // in a mixed pile swung such a corner 80 mm into the other box in a
      // step, test_contact_box_corner)
      if (!own && n > 0 &&
          (sd < -fmax(2.0 * x->m->settings.contact.margin, 0.25 * dedup) || near_any(buf, n, p[k], dedup)))
        continue;
      touching += own;
    } else if (!(sd < motion) || !(sd < point_reach(x, shape, g, ax, fshape, nk, p[k]))) {
      continue;
    }
    set_contact(&pts[m++], p[k], nk, -sd, g, f, g_first);
  }
  if (own) {
    TsrVec3 q[2], nq;
    double hq[2];
    int mq = side_on_face(g, ax, f, dir, fmax(2.0 * x->m->settings.contact.margin, 0.25 * dedup), q, hq, &nq);
    for (int k = 0; k < mq && m < 10; k++) {
      if (hq[k] > 0.0 && !(hq[k] < point_reach(x, shape, g, ax, fshape, nq, q[k]))) continue;
      touching += hq[k] <= 0.0;
      set_contact(&pts[m++], q[k], nq, -hq[k], g, f, g_first);
    }
  }
  sort_deepest_first(pts, m);
  int first = 0;  // buf[first..n): the points that a new one must not lie near
  if (touching) {
    // A cylinder's own points instead of ODE's, except ODE's whose normal
    // none of them has (within OWN_NORMAL_COS): a box's edge across the
    // cylinder's rim, with the rim point that touches beside the box's
    // side face and taking that face's normal. ODE's edge-on-rim contact,
    // its normal along the approach, was dropped, and a box falling onto
    // a standing cylinder's cap rim at 4.6 m/s in a mixed pile went 92 mm
    // into it (test_contact_box_on_rim: the sideways row let it slide
    // down past the rim point; the box's corners, 4 cm above the cap, let
    // it close 4 cm). The deepest of them only, ahead of the own points,
    // and only while the shapes touch or nearly so.
    int keep = -1;
    const double margin = x->m->settings.contact.margin;
    for (int j = 0; j < n; j++) {
      int matched = 0;
      for (int k = 0; k < m && !matched; k++) {
        matched = tsr_v3_dot(cg_normal(&buf[j]), cg_normal(&pts[k])) > OWN_NORMAL_COS;
      }
      // not once they overlap: there ODE's depth and normal are not to be
      // trusted (test_contact_pile_pairs, test_cylinder_into_box: 80 mm for
      // an overlap of 62)
      if (!matched && buf[j].depth <= margin + 0.25 * dedup && (keep < 0 || buf[j].depth > buf[keep].depth)) keep = j;
    }
    n = 0;
    if (keep >= 0 && max > 1) buf[n++] = buf[keep], first = 1;
  }
  for (int k = 0; k < m && n < max; k++)
    if (!near_any(buf + first, n - first, cg_pos(&pts[k]), dedup)) buf[n++] = pts[k];
  return n;
}

// Closest points of segments p1 + s d1 and p2 + t d2, s, t in [0, 1]
// (Ericson, Real-Time Collision Detection, 5.1.9); *s, *t and the squared
// distance. Parallel segments give s = 0 (their closest points are not
// unique).
static double segment_segment(TsrVec3 p1, TsrVec3 d1, TsrVec3 p2, TsrVec3 d2, double *s, double *t) {
  TsrVec3 r = tsr_v3_sub(p1, p2);
  double a = tsr_v3_dot(d1, d1), e = tsr_v3_dot(d2, d2), f = tsr_v3_dot(d2, r), c = tsr_v3_dot(d1, r);
  double bb = tsr_v3_dot(d1, d2), den = a * e - bb * bb;
  double sc = den > 1e-12 * a * e ? (bb * f - c * e) / den : 0.0;
  sc = sc < 0.0 ? 0.0 : sc > 1.0 ? 1.0 : sc;
  double tc = (bb * sc + f) / e;
  if (tc < 0.0) {
    tc = 0.0, sc = -c / a;
  } else if (tc > 1.0) {
    tc = 1.0, sc = (bb - c) / a;
  }
  sc = sc < 0.0 ? 0.0 : sc > 1.0 ? 1.0 : sc;
  *s = sc, *t = tc;
  TsrVec3 q = tsr_v3_sub(tsr_v3_madd(p1, d1, sc), tsr_v3_madd(p2, d2, tc));
  return tsr_v3_dot(q, q);
}

int tsr_solid_box_edges(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID f, int fshape, dContactGeom *buf, int n,
                        int max, double dedup) {
  if (max <= 0) return n;
  const double motion = pair_motion(x, shape, fshape);
  if (!(motion > 0.0)) return n;
  // farther apart than either can move: nothing to find (the usual case
  // in a pile, so the 144 edge pairs are not tried)
  const TsrVec3 cg = geom_pos(g), cf = geom_pos(f);
  const TsrShapeDef *sg = &x->m->shapes[shape], *sf = &x->m->shapes[fshape];
  double apart = tsr_v3_norm(tsr_v3_sub(cg, cf)) -
                 tsr_model_shape_bounding_radius(sg, 0.5 * x->m->settings.contact.margin) -
                 tsr_model_shape_bounding_radius(sf, 0.5 * x->m->settings.contact.margin);
  if (apart > motion) return n;
  TsrVec3 ax[2][3], c[2][8], any = tsr_v3(0, 0, 1);
  solid_points(g, any, ax[0], c[0]);
  solid_points(f, any, ax[1], c[1]);
  // the closest corner of either box to the other: an edge pair must beat it
  double corner = INFINITY;
  for (int side = 0; side < 2; side++)
    for (int k = 0; k < 8; k++) {
      TsrVec3 nk;
      corner = fmin(corner, box_distance(side ? g : f, c[side][k], any, &nk));
    }
  if (!(corner > 0.0)) return n;  // overlapping: ODE's
  double best = INFINITY, bs = 0.0;
  TsrVec3 bp = any, bq = any, bd = any, bq_dir = any;
  for (int k = 0; k < 8; k++)
    for (int i = 0; i < 3; i++) {
      if ((k >> i) & 1) continue;
      TsrVec3 d1 = tsr_v3_sub(c[0][k | 1 << i], c[0][k]);
      for (int l = 0; l < 8; l++)
        for (int j = 0; j < 3; j++) {
          if ((l >> j) & 1) continue;
          TsrVec3 d2 = tsr_v3_sub(c[1][l | 1 << j], c[1][l]);
          double s, t, dd = segment_segment(c[0][k], d1, c[1][l], d2, &s, &t);
          if (!(dd < best) || s <= 1e-9 || s >= 1 - 1e-9 || t <= 1e-9 || t >= 1 - 1e-9) continue;
          best = dd, bs = s, bp = c[0][k], bd = d1, bq = tsr_v3_madd(c[1][l], d2, t), bq_dir = d2;
        }
    }
  if (!(best < INFINITY)) return n;
  // The normal from the edges' directions, not from the two points, which
  // are as close as the gap (a direction from points 3e-7 m apart is off by
  // 3e-11 rad, 3e-11 m at the far corner of a 1 m box); from f toward g.
  TsrVec3 p = tsr_v3_madd(bp, bd, bs), nrm = tsr_v3_cross(bd, bq_dir);
  double sn = tsr_v3_norm(nrm);
  if (!(sn > 1e-3 * tsr_v3_norm(bd) * tsr_v3_norm(bq_dir))) return n;  // near parallel: the corners' case
  nrm = tsr_v3_scale(nrm, 1.0 / sn);
  if (tsr_v3_dot(nrm, tsr_v3_sub(cg, cf)) < 0.0) nrm = tsr_v3_neg(nrm);
  best = tsr_v3_dot(nrm, tsr_v3_sub(p, bq));
  // edge-on-edge only when no corner comes as close (else the corners'
  // contacts hold it)
  if (!(best > 0.0 && best < corner)) return n;
  // The closest points of two disjoint convex bodies: the plane through bq
  // normal to nrm separates them (checked on the corners, to rounding).
  double lo = INFINITY, hi = -INFINITY,
         tol = 1e-12 * (tsr_model_shape_bounding_radius(sg, 0.0) + tsr_model_shape_bounding_radius(sf, 0.0));
  for (int k = 0; k < 8; k++) {
    lo = fmin(lo, tsr_v3_dot(nrm, tsr_v3_sub(c[0][k], bq)));
    hi = fmax(hi, tsr_v3_dot(nrm, tsr_v3_sub(c[1][k], bq)));
  }
  if (lo < best - tol || hi > tol || !reaches(x, shape, g, ax[0], fshape, nrm, p, best, buf, n, dedup)) return n;
  const int at = speculative_slot(buf, &n, max, -best);
  if (at >= 0) set_contact(&buf[at], p, nrm, -best, g, f, 1);
  return n;
}

int tsr_solid_box_on_capsule(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID f, int fshape, double inflation,
                             int g_first, dContactGeom *buf, int n, int max, double dedup) {
  if (n >= max || x->b->fixed[x->m->shapes[shape].body]) return n;
  dReal r, len;
  dGeomCapsuleGetParams(f, &r, &len);
  TsrVec3 fa[3], ax[3], p[8];
  geom_axes(f, fa);
  const TsrVec3 c = geom_pos(f), a0 = tsr_v3_madd(c, fa[2], -0.5 * len);
  const double surface = r - inflation;  // f's own radius (as grown by the margin's half)
  const int np = solid_points(g, fa[2], ax, p);
  for (int k = 0; k < np && n < max; k++) {
    // the closest point of f's axis segment
    double t = tsr_v3_dot(tsr_v3_sub(p[k], a0), fa[2]);
    t = t < 0.0 ? 0.0 : t > len ? len : t;
    TsrVec3 dv = tsr_v3_sub(p[k], tsr_v3_madd(a0, fa[2], t));
    double dist = tsr_v3_norm(dv), gap = dist - surface;
    if (!(gap > 0.0) || !(dist > 0.0)) continue;  // touching or inside: the pair's own contacts have it
    TsrVec3 nrm = tsr_v3_scale(dv, 1.0 / dist);
    if (reaches(x, shape, g, ax, fshape, nrm, p[k], gap, buf, n, dedup))
      set_contact(&buf[n++], p[k], nrm, inflation - gap, g, f, g_first);
  }
  return n;
}

// Half the extent of a box (axes u, lengths side) along unit direction d.
static double box_half_extent(const TsrVec3 u[3], const dReal side[3], TsrVec3 d) {
  return 0.5 * (side[0] * fabs(tsr_v3_dot(u[0], d)) + side[1] * fabs(tsr_v3_dot(u[1], d)) +
                side[2] * fabs(tsr_v3_dot(u[2], d)));
}

// Clips the convex polygon p (np points) to the half-space dot(a, q) <= c;
// the result in out (at most np + 1 points). Sutherland-Hodgman.
static int clip_polygon(const TsrVec3 *p, int np, TsrVec3 a, double c, TsrVec3 *out) {
  int m = 0;
  for (int i = 0; i < np; i++) {
    TsrVec3 s = p[i], e = p[(i + 1) % np];
    double ds = tsr_v3_dot(a, s) - c, de = tsr_v3_dot(a, e) - c;
    if (ds <= 0.0) out[m++] = s;
    if ((ds < 0.0 && de > 0.0) || (ds > 0.0 && de < 0.0)) out[m++] = tsr_v3_madd(s, tsr_v3_sub(e, s), ds / (ds - de));
  }
  return m;
}

int tsr_solid_box_faces(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID f, int fshape, double touch,
                        dContactGeom *buf, int max) {
  const double motion = pair_motion(x, shape, fshape);
  if (!(motion > 0.0) || max < 1) return -1;
  dGeomID box[2] = {g, f};
  const int sh[2] = {shape, fshape};
  TsrVec3 u[2][3], c[2];
  dVector3 side[2];
  for (int i = 0; i < 2; i++) {
    geom_axes(box[i], u[i]);
    c[i] = geom_pos(box[i]);
    dGeomBoxGetLengths(box[i], side[i]);
  }
  const TsrVec3 d = tsr_v3_sub(c[1], c[0]);  // g toward f
  // The separation along each face axis and each edge-edge axis
  // (separating axis theorem): the boxes are apart by the largest.
  double face_sep = -INFINITY, edge_sep = -INFINITY;
  int ref = 0, axis = 0;
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 3; k++) {
      TsrVec3 a = u[i][k];
      double s = fabs(tsr_v3_dot(a, d)) - box_half_extent(u[0], side[0], a) - box_half_extent(u[1], side[1], a);
      if (s > face_sep) face_sep = s, ref = i, axis = k;
    }
  for (int k = 0; k < 3; k++)
    for (int l = 0; l < 3; l++) {
      TsrVec3 a = tsr_v3_cross(u[0][k], u[1][l]);
      double la = tsr_v3_norm(a);
      if (!(la > 1e-6)) continue;  // parallel edges: the face axes cover them
      a = tsr_v3_scale(a, 1.0 / la);
      double s = fabs(tsr_v3_dot(a, d)) - box_half_extent(u[0], side[0], a) - box_half_extent(u[1], side[1], a);
      edge_sep = fmax(edge_sep, s);
    }
  // Apart along a face axis, unless an edge pair is clearly farther apart
  // (tsr_solid_box_edges' case); within reach of each other this step.
  const double size =
      fmin(fmin(side[0][0], side[0][1]), fmin(fmin(side[0][2], side[1][0]), fmin(side[1][1], side[1][2])));
  if (!(face_sep > -touch) || edge_sep > face_sep + 1e-3 * size || !(face_sep < motion)) return -1;
  // Reference face: box ref's face toward the other (outward normal n);
  // incident face: the other's face most nearly against n.
  const int inc = 1 - ref;
  TsrVec3 n = u[ref][axis];
  if (tsr_v3_dot(n, tsr_v3_sub(c[inc], c[ref])) < 0.0) n = tsr_v3_neg(n);
  double sgn;
  int fi = face_toward(u[inc], tsr_v3_neg(n), &sgn);
  TsrVec3 fc = tsr_v3_madd(c[inc], u[inc][fi], sgn * 0.5 * side[inc][fi]);
  int a1 = (fi + 1) % 3, a2 = (fi + 2) % 3;
  TsrVec3 poly[2][8];
  for (int k = 0; k < 4; k++) {
    double s1 = (k == 0 || k == 3) ? -0.5 : 0.5, s2 = k < 2 ? -0.5 : 0.5;
    poly[0][k] = tsr_v3_madd(tsr_v3_madd(fc, u[inc][a1], s1 * side[inc][a1]), u[inc][a2], s2 * side[inc][a2]);
  }
  // Clip the incident face to the reference face's four sides.
  int np = 4, cur = 0;
  const TsrVec3 rc = c[ref];
  for (int k = 0; k < 3 && np > 0; k++) {
    if (k == axis) continue;
    for (int s = -1; s <= 1 && np > 0; s += 2) {
      TsrVec3 a = tsr_v3_scale(u[ref][k], (double)s);
      np = clip_polygon(poly[cur], np, a, tsr_v3_dot(a, rc) + 0.5 * side[ref][k], poly[1 - cur]);
      cur = 1 - cur;
    }
  }
  // The clipped points within reach of the reference face this step.
  TsrVec3 ax[3];
  geom_axes(box[inc], ax);
  const double plane = tsr_v3_dot(n, rc) + 0.5 * side[ref][axis];
  TsrVec3 p[8];
  double gap[8];
  int m = 0;
  for (int k = 0; k < np && k < 8; k++) {
    double s = tsr_v3_dot(n, poly[cur][k]) - plane;
    if (!(s < point_reach(x, sh[inc], box[inc], ax, sh[ref], n, poly[cur][k]))) continue;
    p[m] = poly[cur][k], gap[m] = s, m++;
  }
  // At most max of them: the nearest, then each time the point farthest
  // from those kept, so they span the patch.
  int keep[8], nk = 0;
  unsigned char used[8] = {0};
  while (nk < m && nk < max) {
    int best = -1;
    double score = -INFINITY;
    for (int k = 0; k < m; k++) {
      if (used[k]) continue;
      double sc = -gap[k];  // the first: the nearest to the face
      if (nk > 0) {
        sc = INFINITY;
        for (int j = 0; j < nk; j++) sc = fmin(sc, tsr_v3_norm(tsr_v3_sub(p[k], p[keep[j]])));
      }
      if (sc > score) score = sc, best = k;
    }
    used[best] = 1, keep[nk++] = best;
  }
  // normals from f toward g (set_contact, g first)
  const TsrVec3 nf = ref == 1 ? n : tsr_v3_neg(n);
  for (int k = 0; k < nk; k++) set_contact(&buf[k], p[keep[k]], nf, -gap[keep[k]], g, f, 1);
  return nk;
}

// One way round of a cylinder pair (a, b): side 0 is a's points against b,
// side 1 b's against a.
typedef struct {
  dGeomID g, f;
  int gs, fs;                 // their shapes
  TsrVec3 ax[3], af, cf, cg;  // g's axes, f's axis and centre, g's centre
  double rg, lg, rf, lf;      // radii and lengths (as grown by the margin)
} CylSide;

static void cyl_side(dGeomID a, int sa, dGeomID b, int sb, int side, CylSide *c) {
  c->g = side ? b : a, c->f = side ? a : b;
  c->gs = side ? sb : sa, c->fs = side ? sa : sb;
  const dReal *Rf = dGeomGetRotation(c->f);
  geom_axes(c->g, c->ax);
  c->af = tsr_v3(Rf[2], Rf[6], Rf[10]), c->cf = geom_pos(c->f), c->cg = geom_pos(c->g);
  dReal rg, lg, rf, lf;
  dGeomCylinderGetParams(c->g, &rg, &lg);
  dGeomCylinderGetParams(c->f, &rf, &lf);
  c->rg = rg, c->lg = lg, c->rf = rf, c->lf = lf;
}

// Where point q (the other cylinder's surface point, inside disc d of axis
// ad) lies deeper below one of d's flat faces' planes than *depth: that
// face's outward normal in *n, the depth in *depth; returns 1.
static int disc_face(dGeomID d, TsrVec3 ad, TsrVec3 q, TsrVec3 hint, double *depth, TsrVec3 *n) {
  TsrVec3 nd;
  const double sd = cylinder_distance(d, q, hint, &nd);
  if (!(-sd < *depth) || !(fabs(tsr_v3_dot(nd, ad)) > 0.5)) return 0;
  *depth = -sd, *n = nd;
  return 1;
}

// Two crossing cylinders whose axes' closest points lie inside both axis
// segments meet side to side, where two capsules would: one contact on
// the line of the closest points, depth r_a + r_b - their distance, or a
// speculative one while a's point can reach b in this step. Returns the
// count (0 or 1), or -1 when a closest point is an end (a rim or cap is
// involved: rims_toward_axes).
static int crossing_cylinders(const TsrSolidCtx *x, dGeomID a, int sa, dGeomID b, int sb, dContactGeom *buf) {
  CylSide c;  // a's points against b
  cyl_side(a, sa, b, sb, 0, &c);
  const TsrVec3 *ax = c.ax, ab = c.af;
  const double ra = c.rg, la = c.lg, rb = c.rf, lb = c.lf;
  const TsrVec3 a0 = tsr_v3_madd(c.cg, ax[2], -0.5 * la), b0 = tsr_v3_madd(c.cf, ab, -0.5 * lb);
  double s, t;
  segment_segment(a0, tsr_v3_scale(ax[2], la), b0, tsr_v3_scale(ab, lb), &s, &t);
  if (s <= 0.0 || s >= 1.0 || t <= 0.0 || t >= 1.0) return -1;
  TsrVec3 pa = tsr_v3_madd(a0, ax[2], s * la), pb = tsr_v3_madd(b0, ab, t * lb);
  // the common normal of the axes, from b toward a (not from the two
  // points, which may coincide when the axes cross)
  TsrVec3 nrm = tsr_v3_cross(ax[2], ab);
  double sn = tsr_v3_norm(nrm);
  if (!(sn > 0.0)) return -1;
  nrm = tsr_v3_scale(nrm, 1.0 / sn);
  double dist = tsr_v3_dot(nrm, tsr_v3_sub(pa, pb));
  if (dist < 0.0) nrm = tsr_v3_neg(nrm), dist = -dist;
  double depth = ra + rb - dist;
  TsrVec3 p = tsr_v3_madd(pa, nrm, -ra);  // a's surface point toward b
  if (depth < 0.0 && !(-depth < point_reach(x, sa, a, ax, sb, nrm, p))) return 0;
  TsrVec3 pos = tsr_v3_madd(p, nrm, 0.5 * depth);
  if (depth > 0.0) {
    // A disc (shorter than wide), either of the pair: where the other's
    // surface point lies nearer one of its flat faces than its rim's side,
    // that face's normal and distance (a log across a disc near its face:
    // r_a + r_b - d gave 12 cm where the two overlapped 3.6). Not for logs:
    // with it, a collapsing tower's logs crossing near their ends got their
    // ends' normals and went 46 cm into each other.
    const TsrVec3 q = tsr_v3_madd(pb, nrm, rb);  // b's surface point toward a
    TsrVec3 nd;
    if (lb < 2.0 * rb && disc_face(b, ab, p, tsr_v3_sub(c.cg, c.cf), &depth, &nd))
      nrm = nd, pos = tsr_v3_madd(p, nrm, 0.5 * depth);
    if (la < 2.0 * ra && disc_face(a, ax[2], q, tsr_v3_sub(c.cf, c.cg), &depth, &nd))
      nrm = tsr_v3_neg(nd), pos = tsr_v3_madd(q, nd, 0.5 * depth);
  }
  set_contact(&buf[0], pos, nrm, depth, a, b, 1);
  return 1;
}

// The point of g's rim `cap` (0: at -len/2) nearest f's axis line: from
// the rim's centre against the direction from f's axis to it, less g's
// axial part. Returns 0 when the rim's centre lies on f's axis (coaxial).
static int rim_toward_axis(const CylSide *c, int cap, TsrVec3 *p) {
  const TsrVec3 cr = tsr_v3_madd(c->cg, c->ax[2], (cap ? 0.5 : -0.5) * c->lg), dr = tsr_v3_sub(cr, c->cf);
  TsrVec3 u = tsr_v3_madd(dr, c->af, -tsr_v3_dot(dr, c->af));
  u = tsr_v3_madd(u, c->ax[2], -tsr_v3_dot(u, c->ax[2]));
  const double un = tsr_v3_norm(u);
  if (!(un > 1e-9 * (c->rf + c->rg))) return 0;
  *p = tsr_v3_madd(cr, u, -c->rg / un);
  return 1;
}

// Each cylinder's rim points toward the other's axis (rim_toward_axis): a's
// against b (side 0), then b's against a (side 1), each with its side in
// side[]; c: the two sides (cyl_side). Returns their count (at most 4).
static int rims_toward(dGeomID a, int sa, dGeomID b, int sb, CylSide c[2], TsrVec3 p[4], int side[4]) {
  int m = 0;
  for (int s = 0; s < 2; s++) {
    cyl_side(a, sa, b, sb, s, &c[s]);
    for (int cap = 0; cap < 2; cap++)
      if (rim_toward_axis(&c[s], cap, &p[m])) side[m++] = s;
  }
  return m;
}

// The corners and tips of the lens in which two facing ends overlap (c:
// the two sides, cyl_side; their f's are b and a), as contacts into cand
// (at most 4); returns their count. The rim points (solid_points) are
// fixed on each cylinder when level: two equal cylinders 0.08 apart with
// no yaw had two, both on the line of the centres, and the upper one,
// its centre of mass over the lens, tipped about that line and fell off.
// The lens's two corners (where the rims cross) and its two tips (each
// rim's point toward the other's centre) span it whatever the yaw. They
// are found in the plane midway between the two ends (normal m, from a's
// end toward b's), each end's centre projected on it, and every step is
// written so that it gives the same bits with a and b swapped (m, e1 and
// the order of the two ends negated, e2 unchanged): the contacts must not
// depend on which cylinder is listed first (test_contact_invariance).
// Each point is carried along m to each end's plane (to within its rim:
// tilted ends are ellipses in the midplane); the contact lies midway, its
// depth is how far a's end lies beyond b's along m, its normal m. None
// when one disc lies within the other (its rim points are all inside),
// nor when they do not overlap.
static int lens_points(const TsrSolidCtx *x, dGeomID a, int sa, dGeomID b, int sb, const CylSide cs[2],
                       dContactGeom *cand) {
  TsrVec3 ctr[2], out[2];  // [0]: a's end toward b, [1]: b's toward a; centres and outward normals
  const double r[2] = {cs[0].rg, cs[0].rf}, len[2] = {cs[0].lg, cs[0].lf};
  for (int s = 0; s < 2; s++) {
    const CylSide *c = &cs[1 - s];  // its f is a (s = 0), b (s = 1)
    const double tc = tsr_v3_dot(tsr_v3_sub(c->cg, c->cf), c->af);
    if (tc == 0.0) return 0;
    out[s] = tsr_v3_scale(c->af, tc > 0.0 ? 1.0 : -1.0);
    ctr[s] = tsr_v3_madd(c->cf, out[s], 0.5 * c->lf);
  }
  TsrVec3 m = tsr_v3_sub(out[0], out[1]);
  const double mn = tsr_v3_norm(m);
  if (!(mn > 0.0)) return 0;
  m = tsr_v3_scale(m, 1.0 / mn);
  const TsrVec3 mid = tsr_v3_scale(tsr_v3_add(ctr[0], ctr[1]), 0.5);
  TsrVec3 pc[2];  // the ends' centres on the midplane
  for (int s = 0; s < 2; s++) pc[s] = tsr_v3_madd(ctr[s], m, -tsr_v3_dot(tsr_v3_sub(ctr[s], mid), m));
  const TsrVec3 d = tsr_v3_sub(pc[1], pc[0]);
  const double dist = tsr_v3_norm(d), ra = r[0], rb = r[1];
  if (!(dist > fabs(ra - rb)) || !(dist < ra + rb)) return 0;
  const TsrVec3 e1 = tsr_v3_scale(d, 1.0 / dist), e2 = tsr_v3_cross(m, e1);
  const double s2 = ((ra + rb) * (ra + rb) - dist * dist) * (dist * dist - (ra - rb) * (ra - rb));
  const double along = (ra * ra - rb * rb) / (2.0 * dist), half = sqrt(fmax(0.0, s2)) / (2.0 * dist);
  const TsrVec3 base = tsr_v3_madd(tsr_v3_scale(tsr_v3_add(pc[0], pc[1]), 0.5), e1, along);
  const TsrVec3 q[4] = {tsr_v3_madd(base, e2, half), tsr_v3_madd(base, e2, -half), tsr_v3_madd(pc[0], e1, ra),
                        tsr_v3_madd(pc[1], e1, -rb)};
  const double dm[2] = {tsr_v3_dot(m, out[0]), tsr_v3_dot(m, out[1])};
  if (!(fabs(dm[0]) > 0.5) || !(fabs(dm[1]) > 0.5)) return 0;  // not facing (parallel_cylinders: within 10 degrees)
  int nc = 0;
  for (int k = 0; k < 4; k++) {
    TsrVec3 p[2];  // q carried along m to a's end's plane, and to b's
    for (int s = 0; s < 2; s++) {
      p[s] = tsr_v3_madd(q[k], m, tsr_v3_dot(tsr_v3_sub(ctr[s], q[k]), out[s]) / dm[s]);
      const TsrVec3 e = tsr_v3_sub(p[s], ctr[s]);
      const double en = tsr_v3_norm(e);
      if (en > r[s]) p[s] = tsr_v3_madd(ctr[s], e, r[s] / en);
    }
    const double depth = tsr_v3_dot(tsr_v3_sub(p[0], p[1]), m);
    if (!(depth < len[0]) || !(depth < len[1])) continue;  // through a or b: not cap to cap
    const TsrVec3 pos = tsr_v3_scale(tsr_v3_add(p[0], p[1]), 0.5);
    // speculative while either can reach the other in this step
    if (depth < 0.0 && !(-depth < fmax(point_reach(x, sb, b, cs[1].ax, sa, m, p[1]),
                                       point_reach(x, sa, a, cs[0].ax, sb, tsr_v3_neg(m), p[0]))))
      continue;
    set_contact(&cand[nc++], pos, m, depth, b, a, 0);  // m from a toward b: the normal pushes a along -m
  }
  return nc;
}

// Parallel cylinders a and b that meet cap to cap (parallel_cylinders; c:
// the two sides, cyl_side): each one's rim points on its end toward the
// other (solid_points) that lie within the other's radius, against the
// other's facing end, with that end's normal and the depth below its
// plane, or speculative while they can reach it (reaches); and where the
// two ends overlap in a lens, its corners and tips (lens_points); into pts
// (at most 4, deepest first, one of any two within dedup). Returns the count,
// or -1 when there is none (tsr_solid_pair's rim points). By nearest
// surface, a rim point of two equal cylinders stacked end on end lies on
// the other's side (distance 0) as well as just inside its end: stacked
// exactly, they took the side's normal once the upper one had sunk by
// rounding (4e-9 m), held nothing up, and the upper one fell 5 mm into the
// lower one, or off it (tests/physics/test_contact_rest_pairs.c).
static int caps_facing(const TsrSolidCtx *x, dGeomID a, int sa, dGeomID b, int sb, const CylSide cs[2],
                       dContactGeom pts[4], double dedup) {
  int nc = 0;
  // 4 rim points a side, and the lens's 4 points (lens_points); room for all
  // 8 of solid_points a side, as a disc whose ends round to one plane (length
  // 1e-30) has no far end to skip: cand[12] overflowed.
  enum { CAND = 2 * 8 + 4 };
  dContactGeom cand[CAND];
  for (int s = 0; s < 2; s++) {
    const CylSide *c = &cs[s];
    const TsrVec3 d = tsr_v3_sub(c->cg, c->cf);
    const double tc = tsr_v3_dot(d, c->af);
    if (tc == 0.0) continue;
    const TsrVec3 nf = tsr_v3_scale(c->af, tc > 0.0 ? 1.0 : -1.0);  // f's end toward g, outward
    const TsrVec3 face = tsr_v3_madd(c->cf, nf, 0.5 * c->lf);
    TsrVec3 ax[3], p[8];
    const int np = solid_points(c->g, nf, ax, p);
    for (int k = 0; k < np; k++) {
      const TsrVec3 e = tsr_v3_sub(p[k], c->cf);
      if (tsr_v3_dot(tsr_v3_sub(p[k], c->cg), nf) > 0.0) continue;  // g's far end
      const double t = tsr_v3_dot(e, c->af);
      if (tsr_v3_norm(tsr_v3_madd(e, c->af, -t)) > c->rf * (1.0 + 1e-9)) continue;  // beside f's end
      const double gap = tsr_v3_dot(tsr_v3_sub(p[k], face), nf);
      if (!(gap > -c->lf) || !(gap > -c->lg)) continue;  // through f or g: not cap to cap
      // one of two within dedup is dropped below, by depth (whichever is
      // made first would depend on which cylinder is listed first)
      if (reaches(x, c->gs, c->g, ax, c->fs, nf, p[k], gap, cand, 0, dedup))
        set_contact(&cand[nc++], p[k], nf, -gap, c->g, c->f, c->g == a);
    }
  }
  nc += lens_points(x, a, sa, b, sb, cs, &cand[nc]);
  if (!nc) return -1;
  // The deepest, then spread: the point farthest from it, the one farthest
  // from the line of those two, and the one farthest from the three. By
  // depth alone (ties by coordinates), the eight rim points of two equal
  // cylinders stacked exactly with a yaw of 0.3 rad kept four on one half
  // of the disc, and the upper one tipped over their chord.
  sort_deepest_first(cand, nc);
  int m = 0, used[CAND] = {0};
  TsrVec3 q[CAND];
  for (int k = 0; k < nc; k++) q[k] = cg_pos(&cand[k]);
  pts[m++] = cand[0], used[0] = 1;
  while (m < 4) {
    int best = -1;
    double far = 0.0;
    for (int k = 0; k < nc; k++) {
      if (used[k] || near_any(pts, m, q[k], dedup)) continue;
      const TsrVec3 e = tsr_v3_sub(q[k], cg_pos(&pts[0]));
      double score = INFINITY;
      if (m == 2) {  // from the line of the first two
        const TsrVec3 l = tsr_v3_sub(cg_pos(&pts[1]), cg_pos(&pts[0]));
        score = tsr_v3_norm(tsr_v3_cross(e, l));
      } else {
        for (int j = 0; j < m; j++) score = fmin(score, tsr_v3_norm(tsr_v3_sub(q[k], cg_pos(&pts[j]))));
      }
      if (score > far) far = score, best = k;
    }
    if (best < 0) break;
    pts[m++] = cand[best], used[best] = 1;
  }
  sort_deepest_first(pts, m);
  return m;
}

// Parallel cylinders a and b side by side (tsr_solid_cylinders): each
// one's rim point toward the other's axis, within the other's length, into
// pts (at most 4). Returns the count, or -1 when they are coaxial or meet
// cap to cap.
static int parallel_cylinders(const TsrSolidCtx *x, dGeomID a, int sa, dGeomID b, int sb, dContactGeom pts[4],
                              double dedup) {
  CylSide cs[2];
  TsrVec3 rim[4];
  int side[4];
  const int nr = rims_toward(a, sa, b, sb, cs, rim, side);
  for (int s = 0; s < 2; s++) {
    const CylSide *c = &cs[s];
    // g's centre from f's axis: on it (coaxial, end to end), or sides that
    // overlap along the axes less than they do across them (the caps meet
    // first: the smaller push is along the axes), ODE's cap contacts are right
    const TsrVec3 d = tsr_v3_sub(c->cg, c->cf);
    const double tc = tsr_v3_dot(d, c->af), reach_t = 0.5 * c->lg * fabs(tsr_v3_dot(c->ax[2], c->af));
    const double along = fmin(tc + reach_t, 0.5 * c->lf) - fmax(tc - reach_t, -0.5 * c->lf);
    const double across = c->rf + c->rg - tsr_v3_norm(tsr_v3_madd(d, c->af, -tc));
    if (!(along > across) || !(across < c->rf + c->rg)) return caps_facing(x, a, sa, b, sb, cs, pts, dedup);
  }
  int nc = 0;
  dContactGeom cand[4];
  for (int k = 0; k < nr; k++) {
    const CylSide *c = &cs[side[k]];
    const TsrVec3 p = rim[k], e = tsr_v3_sub(p, c->cf);
    double t = tsr_v3_dot(e, c->af);
    // beyond f's end: f's own rim point covers the overlap there (to
    // rounding: with equal lengths both rim points at an end lie on the
    // other's end, and both were dropped, leaving two aligned logs one
    // contact, at their other end)
    if (fabs(t) > 0.5 * c->lf * (1.0 + 1e-9)) continue;
    TsrVec3 radial = tsr_v3_madd(e, c->af, -t);
    double rho = tsr_v3_norm(radial), depth = c->rf - rho;
    if (!(rho > 0.0)) continue;
    TsrVec3 nrm = tsr_v3_scale(radial, 1.0 / rho);  // from f toward g
    // dContactGeom of the pair (a, b): the normal pushes a
    if (reaches(x, c->gs, c->g, c->ax, c->fs, nrm, p, -depth, cand, 0, dedup))
      set_contact(&cand[nc++], p, nrm, depth, c->g, c->f, c->g == a);
  }
  // not within dedup of the other's rim point at the same end (equal lengths)
  return tsr_solid_keep_deepest(cand, nc, pts, 4, dedup);
}

// A cap face of g (cap 0: at -len/2) against f's side, f's axis within ~11
// degrees of the face's plane and in front of it (a log driven end-first
// into another's side): the part of f's side line facing the face that
// lies over it (projected on its plane, within the rim and f's length)
// ends at two points, p[0..1], each at signed gap gap[] from the
// face's plane (< 0: inside g). The normal is the face's (from f toward g:
// nrm). rim_toward_axis finds no point here: with f's axis level with the
// rim's centre every rim point is as near it, and a log pushed at 5 m/s
// end-first into a lying one got normals from its rim's top and bottom,
// pushed it into the ground and went 10 cm into it. Returns 2, or 0.
static int face_on_side(const CylSide *c, int cap, TsrVec3 p[2], double gap[2], TsrVec3 *nrm) {
  const TsrVec3 ng = tsr_v3_scale(c->ax[2], cap ? 1.0 : -1.0);  // outward from g
  const TsrVec3 cr = tsr_v3_madd(c->cg, ng, 0.5 * c->lg), af = c->af;
  const double sa = tsr_v3_dot(af, ng);
  if (fabs(sa) > TSR_ALONG_SIN) return 0;
  TsrVec3 m = tsr_v3_madd(ng, af, -sa);  // across f's axis, toward f from the face
  m = tsr_v3_scale(m, 1.0 / tsr_v3_norm(m));
  // f's side line facing the face, projected on the face's plane: u0 + t
  // u1; the chord where it is within the rim, |u0 + t u1| <= rg, and within
  // f's length. Not f's axis: off the face's plane by up to TSR_ALONG_SIN,
  // the side line lies up to rf TSR_ALONG_SIN beside the axis there, and a
  // log across the end of an upright one, its axis over the end's rim for
  // 8 mm, took the upright one's side line there, 12 mm outside the log's
  // side, for one 173 mm behind its face (the two were 2.8 mm apart).
  const TsrVec3 d0 = tsr_v3_sub(c->cf, cr), l0 = tsr_v3_madd(d0, m, -c->rf);
  const TsrVec3 u0 = tsr_v3_madd(l0, ng, -tsr_v3_dot(l0, ng)), u1 = tsr_v3_madd(af, ng, -sa);
  const double qa = tsr_v3_dot(u1, u1), qb = 2.0 * tsr_v3_dot(u0, u1), qc = tsr_v3_dot(u0, u0) - c->rg * c->rg;
  const double disc = qb * qb - 4.0 * qa * qc;
  if (!(qa > 0.0) || !(disc > 0.0)) return 0;
  const double sq = sqrt(disc);
  const double t0 = fmax((-qb - sq) / (2.0 * qa), -0.5 * c->lf), t1 = fmin((-qb + sq) / (2.0 * qa), 0.5 * c->lf);
  if (!(t1 > t0)) return 0;
  // f's axis in front of the face (f more than half into g: not this case)
  if (!(tsr_v3_dot(tsr_v3_madd(d0, af, 0.5 * (t0 + t1)), ng) > 0.0)) return 0;
  for (int k = 0; k < 2; k++) {
    p[k] = tsr_v3_madd(tsr_v3_madd(c->cf, af, k ? t1 : t0), m, -c->rf);
    gap[k] = tsr_v3_dot(tsr_v3_sub(p[k], cr), ng);
    if (!(gap[k] > -c->lg)) return 0;  // through g
  }
  *nrm = tsr_v3_neg(ng);
  return 2;
}

// Rim points of two crossing cylinders where an end is nearest
// (tsr_solid_cylinders): each rim's point nearest the other's axis, with
// its exact signed distance to the other (cylinder_distance), a contact
// when inside it or able to reach it in this step; where the other's side
// lies along that rim's face (face_on_side), the two ends of its line
// over the face instead. Into pts (at most 8), deepest first, one of any
// two within dedup (tsr_solid_keep_deepest); returns the count.
static int rims_toward_axes(const TsrSolidCtx *x, dGeomID a, int sa, dGeomID b, int sb, dContactGeom pts[8],
                            double dedup) {
  CylSide cs[2];
  TsrVec3 rim[4];
  int side[4], nc = 0;
  dContactGeom cand[12];  // 2 per face on a side, 1 per rim point (reaches: only whether it can reach)
  const int nr = rims_toward(a, sa, b, sb, cs, rim, side);
  int face[2][2] = {{0, 0}, {0, 0}};  // [side][cap]: the face's contacts were made
  for (int s = 0; s < 2; s++) {
    const CylSide *c = &cs[s];
    for (int cap = 0; cap < 2; cap++) {
      TsrVec3 p[2], nrm;
      double gap[2];
      if (!(face[s][cap] = face_on_side(c, cap, p, gap, &nrm))) continue;
      for (int k = 0; k < 2; k++)  // at the middle of the gap: on f's side line and g's face
        if (reaches(x, c->gs, c->g, c->ax, c->fs, nrm, p[k], gap[k], cand, 0, dedup))
          set_contact(&cand[nc++], tsr_v3_madd(p[k], nrm, 0.5 * gap[k]), nrm, -gap[k], c->g, c->f, c->g == a);
    }
  }
  for (int k = 0; k < nr; k++) {
    const CylSide *c = &cs[side[k]];
    if (face[side[k]][tsr_v3_dot(tsr_v3_sub(rim[k], c->cg), c->ax[2]) > 0.0]) continue;
    TsrVec3 nrm;
    double sd = cylinder_distance(c->f, rim[k], tsr_v3_sub(c->cg, c->cf), &nrm);  // nrm from f toward p
    if (reaches(x, c->gs, c->g, c->ax, c->fs, nrm, rim[k], sd, cand, 0, dedup))
      set_contact(&cand[nc++], rim[k], nrm, -sd, c->g, c->f, c->g == a);
  }
  return tsr_solid_keep_deepest(cand, nc, pts, 8, dedup);
}

int tsr_solid_cylinders(const TsrSolidCtx *x, dGeomID a, int sa, dGeomID b, int sb, dContactGeom *buf, int max,
                        double dedup) {
  if (max <= 0) return -1;
  const dReal *Ra = dGeomGetRotation(a), *Rb = dGeomGetRotation(b);
  dContactGeom pts[8];
  int m = -1;
  if (fabs(Ra[2] * Rb[2] + Ra[6] * Rb[6] + Ra[10] * Rb[10]) >= TSR_SOLID_PARALLEL_COS) {
    m = parallel_cylinders(x, a, sa, b, sb, pts, dedup);
    if (m < 0) return -1;  // coaxial or cap to cap: tsr_solid_pair's rim points
    // none: a pair skewed by a few degrees may cross between its ends
  }
  if (m <= 0) {
    int k = crossing_cylinders(x, a, sa, b, sb, buf);
    if (k >= 0) return k;
    m = rims_toward_axes(x, a, sa, b, sb, pts, dedup);
    if (m == 0) return -1;
  } else if (crossing_cylinders(x, a, sa, b, sb, &pts[m]) == 1 && !near_any(pts, m, cg_pos(&pts[m]), dedup)) {
    // Skewed by a few degrees, the sides cross between the rim points and
    // meet there first (two logs of a cylinder tower lying across each
    // other at 5 degrees had contacts at their ends only and went 10 cm
    // into each other in the middle).
    m++;
  }
  // The rim points span the line along which the sides meet (parallel), or
  // hold the ends that meet (crossing): ODE's contacts are not used.
  sort_deepest_first(pts, m);
  int out = 0;
  for (int k = 0; k < m && out < max; k++) buf[out++] = pts[k];
  return out;
}

// Signed distance to box f of the point a0 + t len axis (tsr_solid_cylinder_side).
typedef struct {
  dGeomID f;
  TsrVec3 a0, axis;
  double len;
  TsrVec3 hint;
} AxisToBox;
static double axis_box_distance(double t, const void *ctx) {
  const AxisToBox *s = ctx;
  TsrVec3 nrm;
  return box_distance(s->f, tsr_v3_madd(s->a0, s->axis, t * s->len), s->hint, &nrm);
}

// The speculative contact of cylinder g's side (radius r, axes ax) at its
// axis point c with box f: the side's point nearest f, along -nrm (f's
// closest point's normal) less its axial part, while it can reach f.
// Touching, or f's nearest point off the side (beyond a rim): ODE's.
static int side_point(const TsrSolidCtx *x, dGeomID g, int shape, const TsrVec3 ax[3], double r, dGeomID f, int fshape,
                      int g_first, TsrVec3 c, dContactGeom *buf, int n, int max, double dedup) {
  TsrVec3 nrm;
  const double d = box_distance(f, c, ax[0], &nrm);
  TsrVec3 u = tsr_v3_madd(nrm, ax[2], -tsr_v3_dot(nrm, ax[2]));
  double un = tsr_v3_norm(u);
  if (!(d > 0.0) || !(un > 0.5)) return n;  // the axis inside f, or f's nearest point off the side: ODE's
  const TsrVec3 p = tsr_v3_madd(c, u, -r / un);
  const double gap = d - r;  // f's closest point is beside the side's circle at c
  if (!(gap > 0.0) || !reaches(x, shape, g, ax, fshape, nrm, p, gap, buf, n, dedup)) return n;
  const int at = speculative_slot(buf, &n, max, -gap);
  if (at >= 0) set_contact(&buf[at], p, nrm, -gap, g, f, g_first);
  return n;
}

int tsr_solid_cylinder_side(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID f, int fshape, int g_first,
                            dContactGeom *buf, int n, int max, double dedup) {
  if (max <= 0 || !(pair_motion(x, shape, fshape) > 0.0)) return n;
  dReal r, len;
  dGeomCylinderGetParams(g, &r, &len);
  TsrVec3 ax[3];
  geom_axes(g, ax);
  const TsrVec3 a0 = tsr_v3_madd(geom_pos(g), ax[2], -0.5 * len), hint = ax[0];
  // The signed distance to a convex set is convex along the axis
  // (tsr_contact_convex_min); at an end (a rim is nearest: tsr_solid_pair's
  // points), nothing here. Lying along f (along_face: flat or nearly so
  // along the axis), the two ends of the part of the axis within f's
  // extent, over its face or beside it along an edge: a fixed log under a
  // box tilted 35 degrees whose face met the log's side along a line had
  // one contact there, the box turned about it and came 17.6 mm into the
  // log (test_contact_landing, test_box_edge_on_log).
  const AxisToBox at = {f, a0, ax[2], len, hint};
  const double t = tsr_contact_convex_min(axis_box_distance, &at, 1e-9 * (1.0 + len));
  TsrVec3 nrm;
  const TsrVec3 c = tsr_v3_madd(a0, ax[2], t * len);
  box_distance(f, c, hint, &nrm);
  dVector3 side;
  TsrVec3 u[3];
  double lo, hi, sgn;
  int beside;
  const int face = box_face(f, nrm, side, u, &sgn);
  if (along_face(g, ax, f, side, u, face, geom_pos(g), &lo, &hi, &beside)) {
    // a line contact: its two ends (where not at a rim)
    const double ends[2] = {lo, hi};
    for (int e = 0; e < 2; e++)
      if (!at_rim(ends[e], len))
        n = side_point(x, g, shape, ax, r, f, fshape, g_first, tsr_v3_madd(geom_pos(g), ax[2], ends[e]), buf, n, max,
                       dedup);
    return n;
  }
  if (t == 0.0 || t == 1.0) return n;
  return side_point(x, g, shape, ax, r, f, fshape, g_first, c, buf, n, max, dedup);
}

// The rim of cylinder g at end e (-0.5 or 0.5 of its length) inside box
// f, about its sample at angle th0 (deepest_sample's, every 22.5 degrees)
// of depth `depth`: the deepest point of the 45 degrees of rim about it
// (every 2.8 degrees, then every 0.35 about the deepest), deepest as the
// least of its distances behind f's faces. A cylinder falling rim-first
// across a box's edge, 7.8 mm in, had its deepest sample 0.4 mm outside
// the box with the side's normal, 90 degrees off, and went 46 mm in during
// the step. Within a face, that face's normal. Across an edge the least
// distance is largest where the two faces' tie, the rim on the edge's
// bisector (that cylinder's point lay 7.805 mm behind the top and 7.809
// behind the side), and which face's normal it gets is a hair's choice;
// there (within a step's change of the least, 2 r the step) the normal is
// the rim's and the edge's common one (the cross product of their
// directions, away from the box: 14 degrees from the top there), and the
// depth how far the point goes along it to leave the box (at most sqrt(2)
// times the least: the normal lies between the two faces'). Returns the
// depth, with the point into *q and the normal into *nrm, when deeper than
// `depth`; `depth` otherwise.
static double rim_in_box(dGeomID g, dGeomID f, double e, double th0, double depth, TsrVec3 *q, TsrVec3 *nrm) {
  dReal r, len;
  dVector3 side;
  dGeomCylinderGetParams(g, &r, &len);
  dGeomBoxGetLengths(f, side);
  TsrVec3 ax[3], u[3];
  geom_axes(g, ax);
  geom_axes(f, u);
  const TsrVec3 bc = geom_pos(f), rc = tsr_v3_madd(geom_pos(g), ax[2], e * len);
  double best = -INFINITY, at = th0, in[3] = {0.0, 0.0, 0.0};
  TsrVec3 l = {0};
  for (int pass = 0; pass < 2; pass++) {
    const double step = pass ? M_PI / 512 : M_PI / 64, mid = at;
    for (int j = -8; j <= 8; j++) {
      const double th = mid + j * step;
      const TsrVec3 lj = tsr_v3_sub(tsr_v3_madd(tsr_v3_madd(rc, ax[0], r * cos(th)), ax[1], r * sin(th)), bc);
      double ij[3], least = INFINITY;
      for (int i = 0; i < 3; i++) ij[i] = 0.5 * side[i] - fabs(tsr_v3_dot(lj, u[i])), least = fmin(least, ij[i]);
      if (least > best) best = least, at = th, l = lj, memcpy(in, ij, sizeof in);
    }
  }
  if (!(best > depth) || !(best >= 0.0)) return depth;
  int i = 0;  // the nearest face, and the next
  for (int k = 1; k < 3; k++)
    if (in[k] < in[i]) i = k;
  const int j = in[(i + 1) % 3] <= in[(i + 2) % 3] ? (i + 1) % 3 : (i + 2) % 3;
  const TsrVec3 ni = tsr_v3_scale(u[i], tsr_v3_dot(l, u[i]) < 0.0 ? -1.0 : 1.0);
  const TsrVec3 nj = tsr_v3_scale(u[j], tsr_v3_dot(l, u[j]) < 0.0 ? -1.0 : 1.0);
  *q = tsr_v3_add(bc, l), *nrm = ni;
  if (!(in[j] <= best + 2.0 * r * M_PI / 512)) return best;  // within a face: its normal
  // on the edge of faces i and j: the rim's and the edge's common normal,
  // and how far the point goes along it to leave the box
  TsrVec3 n = tsr_v3_cross(tsr_v3_add(tsr_v3_scale(ax[0], -sin(at)), tsr_v3_scale(ax[1], cos(at))), u[3 - i - j]);
  const double sn = tsr_v3_norm(n);
  if (!(sn > 1e-6)) return best;  // the rim along the edge: either face
  n = tsr_v3_scale(n, tsr_v3_dot(n, tsr_v3_add(ni, nj)) < 0.0 ? -1.0 / sn : 1.0 / sn);
  const double ci = tsr_v3_dot(n, ni), cj = tsr_v3_dot(n, nj);
  *nrm = n;
  return fmin(ci > 0.0 ? in[i] / ci : INFINITY, cj > 0.0 ? in[j] / cj : INFINITY);
}

// The deepest of g's sample points inside f (tsr_solid_deepest): a box's
// surface on a 5 x 5 grid per face (corners, edge and face points), a
// cylinder's rims and side every 22.5 degrees at five stations along its
// axis and its flat ends' centres and rings at half the radius every 45
// degrees, a capsule's axis at nine stations (less its radius). Coarser
// (a box's corners, edge and face centres, a cylinder's rims every 30
// degrees), a log tower's largest depth stayed at 18 cm instead of 9.6.
// A cylinder's rim sample deepest in a box is refined (rim_in_box). Into
// *q (the point on g), *nrm (f's normal there, toward g) and the depth
// (> 0: inside); -INFINITY for other shapes.
static double deepest_sample(dGeomID g, dGeomID f, TsrVec3 *q, TsrVec3 *nrm) {
  TsrVec3 ax[3];
  geom_axes(g, ax);
  const TsrVec3 c = geom_pos(g), hint = tsr_v3_sub(c, geom_pos(f));
  const int cls = dGeomGetClass(g);
  double best = -INFINITY, rg = 0.0;
  TsrVec3 p[100];
  int np = 0;
  if (cls == dBoxClass) {
    dVector3 side;
    dGeomBoxGetLengths(g, side);
    for (int i = 0; i < 125; i++) {
      const int f3[3] = {i % 5 - 2, (i / 5) % 5 - 2, i / 25 - 2};
      if (abs(f3[0]) < 2 && abs(f3[1]) < 2 && abs(f3[2]) < 2) continue;  // the surface only
      TsrVec3 s = c;
      for (int a = 0; a < 3; a++) s = tsr_v3_madd(s, ax[a], 0.25 * f3[a] * side[a]);
      p[np++] = s;
    }
  } else if (cls == dCylinderClass) {
    dReal r, len;
    dGeomCylinderGetParams(g, &r, &len);
    double rc[16], rs[16];  // the side's 16 directions, the same at every station
    for (int k = 0; k < 16; k++) rc[k] = r * cos(k * M_PI / 8), rs[k] = r * sin(k * M_PI / 8);
    for (int st = 0; st < 5; st++) {
      const TsrVec3 s = tsr_v3_madd(c, ax[2], (0.25 * st - 0.5) * len);
      for (int k = 0; k < 16; k++) p[np++] = tsr_v3_madd(tsr_v3_madd(s, ax[0], rc[k]), ax[1], rs[k]);
    }
    for (int e = 0; e < 2; e++)
      for (int k = 0; k < 9; k++) {  // the end's centre and a ring at r / 2
        const double th = k * M_PI / 4, rr = k < 8 ? 0.5 * r : 0.0;
        TsrVec3 s = tsr_v3_madd(c, ax[2], (e ? 0.5 : -0.5) * len);
        p[np++] = tsr_v3_madd(tsr_v3_madd(s, ax[0], rr * cos(th)), ax[1], rr * sin(th));
      }
  } else if (cls == dCapsuleClass) {
    dReal len;
    dGeomCapsuleGetParams(g, &rg, &len);
    for (int st = 0; st < 9; st++) p[np++] = tsr_v3_madd(c, ax[2], (st / 8.0 - 0.5) * len);
  } else {
    return -INFINITY;
  }
  int kb = 80;  // none on a rim
  for (int k = 0; k < np; k++) {
    TsrVec3 nk;
    const double sd = solid_distance(f, p[k], hint, &nk);
    if (-(sd - rg) > best) best = -(sd - rg), *q = tsr_v3_madd(p[k], nk, -rg), *nrm = nk, kb = k;
  }
  // On a rim: stations 0 and 4 of the side's five, at -len/2 and len/2.
  if (cls == dCylinderClass && dGeomGetClass(f) == dBoxClass && (kb / 16 == 0 || kb / 16 == 4))
    best = rim_in_box(g, f, kb / 16 ? 0.5 : -0.5, (kb % 16) * M_PI / 8, best, q, nrm);
  return best;
}

// A shape's axis segment p + t d (t in [0, 1]) and the radius of the
// capsule around it that holds the shape: a cylinder's or capsule's own; a
// box's centre and half diagonal.
static void bounding_capsule(dGeomID g, TsrVec3 *p, TsrVec3 *d, double *r) {
  TsrVec3 ax[3];
  geom_axes(g, ax);
  const TsrVec3 c = geom_pos(g);
  dReal rr = 0.0, len = 0.0;
  if (dGeomGetClass(g) == dBoxClass) {
    dVector3 side;
    dGeomBoxGetLengths(g, side);
    rr = 0.5 * sqrt(side[0] * side[0] + side[1] * side[1] + side[2] * side[2]);
  } else if (dGeomGetClass(g) == dCylinderClass) {
    dGeomCylinderGetParams(g, &rr, &len);
  } else {
    dGeomCapsuleGetParams(g, &rr, &len);
  }
  *p = tsr_v3_madd(c, ax[2], -0.5 * len), *d = tsr_v3_scale(ax[2], len), *r = rr;
}

int tsr_solid_deepest(dGeomID a, dGeomID b, dContactGeom *buf, int n, int max, double tol, double far) {
  const int ca = dGeomGetClass(a), cb = dGeomGetClass(b);
  if (max <= 0 || (ca != dCylinderClass && cb != dCylinderClass)) return n;
  double have = -INFINITY;
  for (int k = 0; k < n; k++) have = fmax(have, buf[k].depth);
  // What a sample must pass. With far, any depth the rim points may leave
  // out by design (0.3 r RIM_LEVEL_SIN, rim_phase) is no miss: a sample
  // beside them beat a nearly level cylinder's by 5e-11 m (round-off put
  // them off the rim) to 4e-8 m (fixed on the cylinder, tilted 1e-5 rad)
  // and took the place of the shallowest, a new contact at every wobble of
  // the tilt, its friction bounded by a first-step estimate beyond the
  // load: a cylinder sliding on a box slowed at up to 1.18 mu g
  // (tests/physics/test_contact_slide.c). The allowance is relative to the
  // radius (1 mm for a cylinder of 1 m): a sample of a larger cylinder may
  // lie that much below its contacts and add none.
  double rim = 0.0;
  for (int side = 0; side < 2; side++) {
    dGeomID g = side ? b : a;
    dReal r, len;
    if (dGeomGetClass(g) == dCylinderClass) dGeomCylinderGetParams(g, &r, &len), rim = fmax(rim, (double)r);
  }
  const double need = far > 0.0 ? have + RIM_LEVEL_SIN * rim : have + tol;
  {  // apart: their bounding capsules do not meet (most pairs of a pile's broad phase),
    TsrVec3 pa, da, pb, db;
    double ra, rb, s, t;
    bounding_capsule(a, &pa, &da, &ra);
    bounding_capsule(b, &pb, &db, &rb);
    if (tsr_v3_dot(da, da) == 0.0) {  // a box's centre: the other's segment stands for both
      TsrVec3 tp = pa, td = da;
      pa = pb, da = db, pb = tp, db = td;
    }
    double d2;
    if (tsr_v3_dot(db, db) == 0.0) {
      const double tt = fmax(0.0, fmin(1.0, tsr_v3_dot(tsr_v3_sub(pb, pa), da) / tsr_v3_dot(da, da)));
      const TsrVec3 e = tsr_v3_sub(tsr_v3_madd(pa, da, tt), pb);
      d2 = tsr_v3_dot(e, e);
    } else {
      d2 = segment_segment(pa, da, pb, db, &s, &t);
    }
    // nor deeper than the contacts already made (the capsules hold the shapes)
    if (!(ra + rb - sqrt(d2) > fmax(need, 0.0))) return n;
  }
  TsrVec3 q = {0}, nrm = {0}, qs = {0}, ns = {0};
  double best = -INFINITY;
  int g_is_a = 1;
  for (int side = 0; side < 2; side++) {
    const double d = deepest_sample(side ? b : a, side ? a : b, &qs, &ns);
    if (d > best) best = d, q = qs, nrm = ns, g_is_a = !side;
  }
  if (!(best > 0.0) || !(best > need)) return n;
  const TsrVec3 pos = tsr_v3_madd(q, nrm, 0.5 * best);  // midway to f's surface
  if (!(best > have + tol) && near_any(buf, n, pos, far)) return n;
  int at = n;
  if (n >= max) {  // in place of the shallowest
    at = 0;
    for (int k = 1; k < n; k++)
      if (buf[k].depth < buf[at].depth) at = k;
  } else {
    n++;
  }
  dGeomID g = g_is_a ? a : b, f = g_is_a ? b : a;
  set_contact(&buf[at], pos, nrm, best, g, f, g_is_a);
  return n;
}

// A capsule's axis segment against a cylinder (tsr_solid_capsule_core).
typedef struct {
  dGeomID cyl;
  TsrVec3 a0, d, hint;  // the segment a0 + t d, t in [0, 1]
} SegmentToCylinder;
static double segment_cylinder_distance(double t, const void *ctx) {
  const SegmentToCylinder *s = ctx;
  TsrVec3 n;
  return cylinder_distance(s->cyl, tsr_v3_madd(s->a0, s->d, t), s->hint, &n);
}

void tsr_solid_capsule_core(dGeomID cap, dGeomID cyl, int cap_first, dContactGeom *g) {
  dReal r, len;
  dGeomCapsuleGetParams(cap, &r, &len);
  TsrVec3 ax[3];
  geom_axes(cap, ax);
  const TsrVec3 c = geom_pos(cap);
  const SegmentToCylinder s = {cyl, tsr_v3_madd(c, ax[2], -0.5 * len), tsr_v3_scale(ax[2], len),
                               tsr_v3_sub(c, geom_pos(cyl))};
  const double t = tsr_contact_convex_min(segment_cylinder_distance, &s, 1e-9 * (1.0 + len));
  const TsrVec3 at = tsr_v3_madd(s.a0, s.d, t);
  TsrVec3 n;  // from the cylinder toward the axis point
  const double sd = cylinder_distance(cyl, at, s.hint, &n);
  // the capsule's surface point toward the cylinder, moved half the depth out
  set_contact(g, tsr_v3_madd(at, n, -r + 0.5 * (r - sd)), n, r - sd, cap, cyl, cap_first);
}
