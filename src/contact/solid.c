// SPDX-License-Identifier: MIT
// Corner and rim-point contacts of boxes and cylinders (solid.h).
#include "contact/solid.h"
#include "contact/contact_internal.h"

#include <math.h>
#include <string.h>

// The points of a box (its eight corners) or of a cylinder (four on each
// rim, 90 degrees apart, from the rim's lowest along -n) that can first
// touch a surface whose outward normal is n; ax: the shape's axes.
static int solid_points(dGeomID g, TsrVec3 n, TsrVec3 ax[3], TsrVec3 p[8]) {
  const dReal *o = dGeomGetPosition(g), *R = dGeomGetRotation(g);  // 3x4 row-major: column i is axis i
  TsrVec3 ctr = tsr_v3(o[0], o[1], o[2]);
  for (int i = 0; i < 3; i++) ax[i] = tsr_v3(R[i], R[4 + i], R[8 + i]);
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
  TsrVec3 a = ax[2], u = tsr_v3_sub(tsr_v3_scale(a, tsr_v3_dot(n, a)), n);  // -n less its axial part
  double un = tsr_v3_norm(u);
  u = un > 1e-9 ? tsr_v3_scale(u, 1.0 / un) : ax[0];  // standing: any radius
  TsrVec3 v = tsr_v3_cross(a, u);
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

// How far point p of a moving box or cylinder can go along -n in this
// step, toward a plane or box (other: its shape, or -1 for a plane):
// h times p's velocity along -n relative to the other's material point
// there, plus |g| h^2 (as a sphere's inflation: the tolerance that makes
// shapes resting exactly on one another touch whatever the rounding), at
// most the two shapes' sweep margins. A cylinder's spin about its own axis
// (ax[2]) only moves points along its rims, never below a rim's lowest
// point, so it is left out. 0 when the shape has no sweep margin.
static double point_reach(const TsrSolidCtx *x, int shape, dGeomID g, const TsrVec3 ax[3], int other, TsrVec3 n,
                          TsrVec3 p) {
  double bound = x->extra[shape];
  if (!(bound > 0.0)) return 0.0;
  const TsrBodies *b = x->b;
  const int body = x->m->shapes[shape].body;
  const double h = x->m->settings.step;
  TsrVec3 vp = tsr_contact_state_velocity(b, body, tsr_v3_sub(p, b->x[body]));
  // less the spin about a cylinder's own axis through its centre (the
  // centre itself moves with the whole w: a wheel that is part of a
  // compound body orbits its origin)
  const dReal *o = dGeomGetPosition(g);
  vp = tsr_v3_sub(vp, tsr_v3_cross(axial_spin(x, shape, ax[2]), tsr_v3_sub(p, tsr_v3(o[0], o[1], o[2]))));
  if (other >= 0 && !b->fixed[x->m->shapes[other].body]) {
    int ob = x->m->shapes[other].body;
    vp = tsr_v3_sub(vp, tsr_contact_state_velocity(b, ob, tsr_v3_sub(p, b->x[ob])));
    bound += x->extra[other];
  }
  double toward = -tsr_v3_dot(n, vp);
  return fmin(bound, h * fmax(toward, 0.0) + tsr_v3_norm(x->m->settings.gravity) * h * h);
}

double tsr_solid_reach(const TsrSolidCtx *x, int shape, dGeomID g) {
  const TsrShapeDef *s = &x->m->shapes[shape];
  const double bound = x->extra[shape];
  if (s->type != TSR_SHAPE_CYLINDER || !(bound > 0.0)) return bound;
  const TsrBodies *b = x->b;
  const dReal *R = dGeomGetRotation(g), *o = dGeomGetPosition(g);
  TsrVec3 w = tsr_v3_sub(b->w[s->body], axial_spin(x, shape, tsr_v3(R[2], R[6], R[10])));
  // the centre moves with the whole w (a compound's wheel orbits its origin)
  TsrVec3 vc = tsr_contact_state_velocity(b, s->body, tsr_v3_sub(tsr_v3(o[0], o[1], o[2]), b->x[s->body]));
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

// Sorts contacts by decreasing depth, stably (ties keep their order).
static void sort_deepest_first(dContactGeom *pts, int m) {
  for (int i = 1; i < m; i++)
    for (int j = i; j > 0 && pts[j].depth > pts[j - 1].depth; j--) {
      dContactGeom t = pts[j];
      pts[j] = pts[j - 1];
      pts[j - 1] = t;
    }
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
  const dReal *o = dGeomGetPosition(f), *R = dGeomGetRotation(f);
  dVector3 side;
  dGeomBoxGetLengths(f, side);
  TsrVec3 ctr = tsr_v3(o[0], o[1], o[2]), q = ctr, d = tsr_v3_sub(p, ctr), u[3];
  int inside = 1;
  double l[3], hl[3], in[3], nearest = INFINITY;
  for (int i = 0; i < 3; i++) {
    u[i] = tsr_v3(R[i], R[4 + i], R[8 + i]);
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

int tsr_solid_box(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID f, int fshape, int g_first, dContactGeom *buf,
                  int n, int max, double dedup) {
  const int own = dGeomGetClass(g) == dCylinderClass;
  if (!own && (!(x->extra[shape] > 0.0) || n >= max)) return n;
  const dReal *o = dGeomGetPosition(g);
  TsrVec3 ctr = tsr_v3(o[0], o[1], o[2]), dir;
  const dReal *fo = dGeomGetPosition(f);
  TsrVec3 hint = tsr_v3_sub(ctr, tsr_v3(fo[0], fo[1], fo[2]));
  if (!(box_distance(f, ctr, hint, &dir) > 0.0)) return n;  // the centre inside f: ODE's
  TsrVec3 ax[3], p[8];
  int np = solid_points(g, dir, ax, p), m = 0, touching = 0;
  dContactGeom pts[8];
  for (int k = 0; k < np; k++) {
    TsrVec3 nk;
    double sd = box_distance(f, p[k], dir, &nk);
    if (sd <= 0.0) {
      if (!own && n > 0) continue;  // overlapping: ODE's (unless it found none: touching to the last bit)
      touching += own;
    } else if (!(sd < point_reach(x, shape, g, ax, fshape, nk, p[k]))) {
      continue;
    }
    set_contact(&pts[m++], p[k], nk, -sd, g, f, g_first);
  }
  sort_deepest_first(pts, m);
  if (touching) n = 0;  // a cylinder's own points instead of ODE's
  for (int k = 0; k < m && n < max; k++) {
    int near = 0;
    for (int j = 0; j < n && !near; j++) {
      TsrVec3 q = tsr_v3(buf[j].pos[0], buf[j].pos[1], buf[j].pos[2]);
      near = tsr_v3_norm(tsr_v3_sub(q, tsr_v3(pts[k].pos[0], pts[k].pos[1], pts[k].pos[2]))) < dedup;
    }
    if (!near) buf[n++] = pts[k];
  }
  return n;
}
