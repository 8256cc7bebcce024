// SPDX-License-Identifier: MIT
// Shapes of a body: parsing, volume and solid inertia.
//
// Inertia of solids of mass m about their own centre (shape frame; capsule
// and cylinder axis = z, r radius, h length of the cylindrical part):
//   sphere    I = 2/5 m r^2
//   box       Ixx = m/12 (sy^2 + sz^2), and cyclic (full edges sx, sy, sz)
//   cylinder  Ixx = Iyy = m (3 r^2 + h^2) / 12,  Izz = m r^2 / 2
//   capsule   cylinder part of mass mc = m Vc/V plus two hemispheres of total
//             mass ms = m Vs/V (Vc = pi r^2 h, Vs = 4/3 pi r^3):
//             Izz = mc r^2/2 + 2/5 ms r^2
//             Ixx = mc (3 r^2 + h^2)/12 + ms (2/5 r^2 + h^2/4 + 3/8 h r)
//             (a hemisphere's centre is 3r/8 from its flat face; the last
//             term is its own inertia plus the parallel-axis shift to h/2+3r/8)
// A compound splits the body mass over its parts by volume; each part's
// tensor is rotated into the body frame, R I R^T, and moved to the body
// origin (the declared centre of mass) with m_k (|p|^2 1 - p p^T).
#include "model/model_internal.h"

#include <math.h>
#include <string.h>

static const char *const shape_types[] = {"sphere", "box", "capsule", "cylinder", "plane", "compound"};
enum { SHAPE_COMPOUND = 5, N_SHAPE_TYPES = 6 };

double tsr_model_shape_volume(const TsrShapeDef *s) {
  const double *p = s->params;
  switch (s->type) {
    case TSR_SHAPE_SPHERE:
      return 4.0 / 3.0 * M_PI * p[0] * p[0] * p[0];
    case TSR_SHAPE_BOX:
      return p[0] * p[1] * p[2];
    case TSR_SHAPE_CAPSULE:
      return M_PI * p[0] * p[0] * p[1] + 4.0 / 3.0 * M_PI * p[0] * p[0] * p[0];
    case TSR_SHAPE_CYLINDER:
      return M_PI * p[0] * p[0] * p[1];
    case TSR_SHAPE_PLANE:
      return INFINITY;
  }
  return 0;
}

TsrMat3 tsr_model_shape_unit_inertia(const TsrShapeDef *s) {
  const double *p = s->params;
  double r = p[0], r2 = r * r;
  switch (s->type) {
    case TSR_SHAPE_SPHERE:
      return tsr_m3_diag(0.4 * r2, 0.4 * r2, 0.4 * r2);
    case TSR_SHAPE_BOX: {
      double x2 = p[0] * p[0], y2 = p[1] * p[1], z2 = p[2] * p[2];
      return tsr_m3_diag((y2 + z2) / 12.0, (x2 + z2) / 12.0, (x2 + y2) / 12.0);
    }
    case TSR_SHAPE_CYLINDER: {
      double h = p[1];
      double t = (3.0 * r2 + h * h) / 12.0;
      return tsr_m3_diag(t, t, 0.5 * r2);
    }
    case TSR_SHAPE_CAPSULE: {
      double h = p[1];
      double vc = M_PI * r2 * h, vs = 4.0 / 3.0 * M_PI * r2 * r;
      double fc = vc / (vc + vs), fs = vs / (vc + vs);
      double t = fc * (3.0 * r2 + h * h) / 12.0 + fs * (0.4 * r2 + 0.25 * h * h + 0.375 * h * r);
      return tsr_m3_diag(t, t, fc * 0.5 * r2 + fs * 0.4 * r2);
    }
    case TSR_SHAPE_PLANE:
      break;
  }
  return tsr_m3_zero();
}

TsrMat3 tsr_model_shapes_inertia(const TsrShapeDef *shapes, int n, double mass) {
  double total = 0;
  for (int k = 0; k < n; k++) total += tsr_model_shape_volume(&shapes[k]);
  TsrMat3 I = tsr_m3_zero();
  if (!(total > 0) || !isfinite(total)) return I;
  for (int k = 0; k < n; k++) {
    const TsrShapeDef *s = &shapes[k];
    double mk = mass * tsr_model_shape_volume(s) / total;
    TsrMat3 R = tsr_m3_from_quat(s->orientation);
    TsrMat3 Ik = tsr_m3_rotate_tensor(R, tsr_model_shape_unit_inertia(s));
    TsrVec3 p = s->position;
    double pp = tsr_v3_dot(p, p);
    double pv[3] = {p.x, p.y, p.z};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) I.m[i][j] += mk * (Ik.m[i][j] + (i == j ? pp : 0.0) - pv[i] * pv[j]);
  }
  return I;
}

static const char *const keys_sphere[] = {"type", "radius", NULL};
static const char *const keys_box[] = {"type", "size", NULL};
static const char *const keys_round[] = {"type", "radius", "length", NULL};
static const char *const keys_plane[] = {"type", "normal", "offset", NULL};
static const char *const keys_compound[] = {"type", "parts", NULL};
static const char *const keys_part_sphere[] = {"type", "radius", "position", "orientation", NULL};
static const char *const keys_part_box[] = {"type", "size", "position", "orientation", NULL};
static const char *const keys_part_round[] = {"type", "radius", "length", "position", "orientation", NULL};
static const char *const keys_any[] = {"type", "radius", "size", "length", "normal", "offset", "parts", NULL};

// Parses one primitive (or, at the top level, a compound) into m->shapes.
// Sizes the contact detection can collide (ODE and libccd). A cylinder of
// length 1e-20 and radius 0.1 stopped ccdGeomToCyl ("invalid cylinder"), a
// box edge of 1e100 an assertion in dxNormalize3, and a cylinder 1e150 long
// beside another hung in ccdMPRPenetration (found by fuzzing): every length
// of a shape is at most TSR_SHAPE_SIZE_MAX (1,000 km) and at least
// 1 / TSR_SHAPE_ASPECT_MAX of the shape's largest (a capsule's length may be
// 0: it is then a sphere). Reported at the shape. 1 when they are.
static int collidable_size(TsrLoadCtx *c, const TsrYNode *n, const TsrShapeDef *s) {
  static const char *const names[5][3] = {
      [TSR_SHAPE_SPHERE] = {"radius"},
      [TSR_SHAPE_BOX] = {"size x", "size y", "size z"},
      [TSR_SHAPE_CAPSULE] = {"radius", "length"},
      [TSR_SHAPE_CYLINDER] = {"radius", "length"},
  };
  const int k = s->type == TSR_SHAPE_SPHERE ? 1 : s->type == TSR_SHAPE_BOX ? 3 : 2;
  double hi = 0.0;
  for (int i = 0; i < k; i++) hi = fmax(hi, s->params[i]);
  for (int i = 0; i < k; i++)
    if (s->params[i] > TSR_SHAPE_SIZE_MAX) {
      tsr_model_error(c, n, "%s %g m: at most %g m", names[s->type][i], s->params[i], TSR_SHAPE_SIZE_MAX);
      return 0;
    }
  for (int i = 0; i < k; i++) {
    const double v = s->params[i];
    if (s->type == TSR_SHAPE_CAPSULE && i == 1 && v == 0.0) continue;
    if (v * TSR_SHAPE_ASPECT_MAX < hi) {
      tsr_model_error(c, n, "%s %g m: at least %g m for contact detection (1/%g of the shape's largest length)",
                      names[s->type][i], v, hi / TSR_SHAPE_ASPECT_MAX, TSR_SHAPE_ASPECT_MAX);
      return 0;
    }
  }
  return 1;
}

static int parse_shape(TsrLoadCtx *c, const TsrYNode *n, int body, int is_part, TsrModel *m, int *cap, int *has_plane) {
  if (!n || n->kind != TSR_YNODE_MAP) {
    tsr_model_error(c, n, "shape must be a mapping with a 'type', got %s", tsr_ytree_describe(n));
    return 0;
  }
  const TsrYNode *tn = tsr_model_require(c, n, "type");
  int type = -1;
  if (!tn || !tsr_model_enum(c, tn, "shape type", shape_types, N_SHAPE_TYPES, &type)) {
    // Still flag keys that no shape has.
    tsr_model_check_map(c, n, "shape", keys_any);
    return 0;
  }
  const char *what = is_part ? "compound part" : "shape";
  if (type == SHAPE_COMPOUND) {
    if (is_part) {
      tsr_model_error(c, tn, "a compound part cannot itself be a compound");
      return 0;
    }
    int ok = tsr_model_check_map(c, n, what, keys_compound);
    const TsrYNode *parts = tsr_model_require(c, n, "parts");
    if (!parts) return 0;
    if (parts->kind != TSR_YNODE_SEQ || parts->n == 0) {
      tsr_model_error(c, parts, "parts: expected a non-empty sequence of shapes, got %s",
                      parts->kind == TSR_YNODE_SEQ ? "an empty sequence" : tsr_ytree_describe(parts));
      return 0;
    }
    for (int i = 0; i < parts->n; i++) ok &= parse_shape(c, parts->items[i], body, 1, m, cap, has_plane);
    return ok;
  }
  if (type == TSR_SHAPE_PLANE && is_part) {
    tsr_model_error(c, tn, "a plane cannot be part of a compound");
    return 0;
  }
  const char *const *keys = type == TSR_SHAPE_SPHERE  ? (is_part ? keys_part_sphere : keys_sphere)
                            : type == TSR_SHAPE_BOX   ? (is_part ? keys_part_box : keys_box)
                            : type == TSR_SHAPE_PLANE ? keys_plane
                                                      : (is_part ? keys_part_round : keys_round);
  int ok = tsr_model_check_map(c, n, what, keys);
  TsrShapeDef s = {.body = body, .type = (TsrShapeType)type, .orientation = tsr_q_identity(), .mark = n->mark};
  const TsrYNode *v;
  switch (type) {
    case TSR_SHAPE_SPHERE:
      ok &= (v = tsr_model_require(c, n, "radius")) && tsr_model_number(c, v, "radius", TSR_NUM_POSITIVE, &s.params[0]);
      break;
    case TSR_SHAPE_BOX: {
      TsrVec3 size;
      if ((v = tsr_model_require(c, n, "size")) && tsr_model_vec3(c, v, "size", 0, &size)) {
        if (!(size.x > 0 && size.y > 0 && size.z > 0)) {
          tsr_model_error(c, v, "size: box edges must be positive, got [%g, %g, %g]", size.x, size.y, size.z);
          ok = 0;
        }
        s.params[0] = size.x, s.params[1] = size.y, s.params[2] = size.z;
      } else {
        ok = 0;
      }
      break;
    }
    case TSR_SHAPE_CAPSULE:
    case TSR_SHAPE_CYLINDER:
      ok &= (v = tsr_model_require(c, n, "radius")) && tsr_model_number(c, v, "radius", TSR_NUM_POSITIVE, &s.params[0]);
      // A capsule of length 0 is a sphere; a cylinder needs some length.
      ok &=
          (v = tsr_model_require(c, n, "length")) &&
          tsr_model_number(c, v, "length", type == TSR_SHAPE_CAPSULE ? TSR_NUM_NONNEG : TSR_NUM_POSITIVE, &s.params[1]);
      break;
    case TSR_SHAPE_PLANE: {
      TsrVec3 normal;
      if ((v = tsr_model_require(c, n, "normal")) && tsr_model_vec3(c, v, "normal", 1, &normal)) {
        normal = tsr_v3_normalize(normal);
        s.params[0] = normal.x, s.params[1] = normal.y, s.params[2] = normal.z;
      } else {
        ok = 0;
      }
      if (tsr_model_opt_number(c, n, "offset", TSR_NUM_ANY, &s.params[3]) == 0) ok = 0;
      *has_plane = 1;
      break;
    }
  }
  if (ok && type != TSR_SHAPE_PLANE && !collidable_size(c, n, &s)) ok = 0;
  if (is_part) {
    if (tsr_model_opt_vec3(c, n, "position", 0, &s.position) == 0) ok = 0;
    if ((v = tsr_ytree_get(n, "orientation")) && !tsr_model_orientation(c, v, &s.orientation)) ok = 0;
  }
  if (!ok) return 0;
  m->shapes = tsr_model_grow(m->shapes, m->n_shapes, cap, sizeof *m->shapes);
  m->shapes[m->n_shapes++] = s;
  return 1;
}

int tsr_model_shapes(TsrLoadCtx *c, const TsrYNode *shape, int body, TsrModel *m, double *volume, int *has_plane) {
  int first = m->n_shapes;
  *has_plane = 0;
  int ok = parse_shape(c, shape, body, 0, m, &c->shape_cap, has_plane);
  double v = 0;
  for (int k = first; k < m->n_shapes; k++) v += tsr_model_shape_volume(&m->shapes[k]);
  *volume = v;
  if (!ok) m->n_shapes = first;
  return ok;
}

int tsr_model_body_shapes_inertia(const TsrModel *m, int b, TsrMat3 *out) {
  const TsrBodyDef *bd = &m->bodies[b];
  for (int k = bd->first_shape; k < bd->first_shape + bd->shape_count; k++)
    if (m->shapes[k].type == TSR_SHAPE_PLANE) return -1;
  if (bd->shape_count == 0 || !(bd->mass > 0.0)) return -1;
  *out = tsr_model_shapes_inertia(&m->shapes[bd->first_shape], bd->shape_count, bd->mass);
  return 0;
}

int tsr_model_body_centroid(const TsrModel *m, int b, TsrVec3 *centroid, double *size) {
  const TsrBodyDef *bd = &m->bodies[b];
  double v = 0.0, reach = 0.0;
  TsrVec3 c = tsr_v3(0, 0, 0);
  for (int k = bd->first_shape; k < bd->first_shape + bd->shape_count; k++) {
    const TsrShapeDef *s = &m->shapes[k];
    if (s->type == TSR_SHAPE_PLANE) continue;
    double vk = tsr_model_shape_volume(s);
    c = tsr_v3_madd(c, s->position, vk);
    v += vk;
    reach = fmax(reach, tsr_v3_norm(s->position) + tsr_model_shape_bounding_radius(s, 0.0));
  }
  if (!(v > 0.0)) return -1;
  *centroid = tsr_v3_scale(c, 1.0 / v);
  *size = reach;
  return 0;
}
