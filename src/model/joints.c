// SPDX-License-Identifier: MIT
// `joints:` -> TsrJointDef, with arrays expanded and body references
// resolved: world, NAME, NAME[K], NAME[i], NAME[i+K], NAME[i-K], where i
// runs over 0..count-1 of a joint array. Anchors and axes stay in world
// coordinates (model.h); axes are normalised here.
#include "model/model_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const joint_types[] = {"ball", "hinge", "universal", "prismatic", "fixed", "cable", "distance"};
enum { N_JOINT_TYPES = 7 };

#define COMMON "name", "type", "bodies", "count", "stride", "compliance", "damping", "collide"
static const char *const keys_by_type[N_JOINT_TYPES][16] = {
    [TSR_JOINT_BALL] = {COMMON, "anchor", NULL},
    [TSR_JOINT_HINGE] = {COMMON, "anchor", "axis", "limits", "motor", NULL},
    [TSR_JOINT_UNIVERSAL] = {COMMON, "anchor", "axes", NULL},
    [TSR_JOINT_PRISMATIC] = {COMMON, "anchor", "axis", "limits", "motor", NULL},
    [TSR_JOINT_FIXED] = {COMMON, "anchor", NULL},
    [TSR_JOINT_CABLE] = {COMMON, "anchor", NULL},
    [TSR_JOINT_DISTANCE] = {COMMON, "anchors", "length", "unilateral", NULL},
};
static const char *const keys_any[] = {COMMON,   "anchor", "anchors", "axis",       "axes",
                                       "limits", "motor",  "length",  "unilateral", NULL};
static const char *const stride_keys_any[] = {"anchor", "anchors", NULL};
static const char *const stride_keys_anchor[] = {"anchor", NULL};
static const char *const cable_keys[] = {"stretch", "bend", "twist", NULL};
static const char *const motor_torque_keys[] = {"speed", "max_torque", NULL};
static const char *const motor_force_keys[] = {"speed", "max_force", NULL};

#define DEFAULT_COMPLIANCE 1e-10
#define DEFAULT_DAMPING 2.0

typedef enum { REF_WORLD, REF_BODY, REF_RELATIVE } RefKind;

typedef struct {
  RefKind kind;
  int decl;  // body declaration
  int k;     // REF_BODY: element index (0 for single bodies); REF_RELATIVE: offset from i
} Ref;

// Parses "K", "i", "i+K", "i-K" (spaces allowed). Returns 1 and sets
// *relative, *k; 0 when malformed.
static int parse_index(const char *s, const char *end, int *relative, int *k) {
  char buf[64];
  size_t n = 0;
  for (const char *p = s; p < end; p++)
    if (!isspace((unsigned char)*p)) {
      if (n + 1 >= sizeof buf) return 0;
      buf[n++] = *p;
    }
  buf[n] = '\0';
  const char *p = buf;
  long sign = 1, val = 0;
  *relative = 0;
  if (*p == 'i') {
    *relative = 1;
    p++;
    if (!*p) {
      *k = 0;
      return 1;
    }
    if (*p != '+' && *p != '-') return 0;
    sign = *p == '-' ? -1 : 1;
    p++;
  }
  if (!isdigit((unsigned char)*p)) return 0;
  for (; isdigit((unsigned char)*p); p++) {
    val = val * 10 + (*p - '0');
    if (val > 100000000) return 0;
  }
  if (*p) return 0;
  *k = (int)(sign * val);
  return 1;
}

static int find_decl(const TsrBodyDecl *decls, int n, const char *name, size_t len) {
  for (int i = 0; i < n; i++)
    if (strlen(decls[i].name) == len && strncmp(decls[i].name, name, len) == 0) return i;
  return -1;
}

static void unknown_body(TsrLoadCtx *c, const TsrYNode *at, const char *ref, const char *name, const TsrBodyDecl *decls,
                         int n) {
  const char **cands = malloc((size_t)(n + 1) * sizeof *cands);
  if (!cands) abort();
  for (int i = 0; i < n; i++) cands[i] = decls[i].name;
  cands[n] = "world";
  char dym[160];
  tsr_model_did_you_mean(dym, sizeof dym, name, cands, n + 1);
  if (strcmp(ref, name) == 0)
    tsr_model_error(c, at, "unknown body '%s'%s", name, dym);
  else
    tsr_model_error(c, at, "unknown body '%s' in '%s'%s", name, ref, dym);
  free(cands);
}

// Resolves one entry of `bodies:`; `count` is the joint array's count (0
// for a single joint). Range errors of i+K are reported here, once, for the
// first i that falls outside.
static int parse_ref(TsrLoadCtx *c, const TsrYNode *n, long count, const TsrBodyDecl *decls, int n_decls, Ref *r) {
  const char *s;
  if (!tsr_model_string(c, n, "bodies", &s)) return 0;
  if (strcmp(s, "world") == 0) {
    *r = (Ref){REF_WORLD, -1, 0};
    return 1;
  }
  const char *br = strchr(s, '[');
  if (!br) {
    int d = find_decl(decls, n_decls, s, strlen(s));
    if (d < 0) {
      unknown_body(c, n, s, s, decls, n_decls);
      return 0;
    }
    if (decls[d].count) {
      tsr_model_error(c, n, "'%s' is an array of %d bodies; name one element, e.g. '%s[0]' or '%s[i]'", s,
                      decls[d].count, s, s);
      return 0;
    }
    *r = (Ref){REF_BODY, d, 0};
    return 1;
  }
  size_t len = strlen(s);
  int relative, k;
  if (s[len - 1] != ']' || !parse_index(br + 1, s + len - 1, &relative, &k)) {
    tsr_model_error(c, n, "bad body reference '%s': expected NAME, NAME[K], NAME[i], NAME[i+K] or NAME[i-K]", s);
    return 0;
  }
  char name[256];
  snprintf(name, sizeof name, "%.*s", (int)(br - s), s);
  int d = find_decl(decls, n_decls, s, (size_t)(br - s));
  if (d < 0) {
    unknown_body(c, n, s, name, decls, n_decls);
    return 0;
  }
  int size = decls[d].count;
  if (!size) {
    tsr_model_error(c, n, "'%s' is a single body, not an array: write '%s' without an index", name, name);
    return 0;
  }
  if (!relative) {
    if (k < 0 || k >= size) {
      tsr_model_error(c, n, "index out of range in '%s': %s has %d elements (0..%d)", s, name, size, size - 1);
      return 0;
    }
    *r = (Ref){REF_BODY, d, k};
    return 1;
  }
  if (!count) {
    tsr_model_error(c, n, "'%s' uses i, which needs 'count' on the joint", s);
    return 0;
  }
  long bad_i = k < 0 ? 0 : (count - 1 + k >= size ? size - k : -1);
  if (bad_i >= 0) {
    tsr_model_error(c, n, "index out of range in '%s': at i = %ld it is %ld, but %s has elements 0..%d", s, bad_i,
                    bad_i + k, name, size - 1);
    return 0;
  }
  *r = (Ref){REF_RELATIVE, d, k};
  return 1;
}

static int ref_body(const Ref *r, const TsrBodyDecl *decls, long i) {
  switch (r->kind) {
    case REF_WORLD:
      return -1;
    case REF_BODY:
      return decls[r->decl].first + r->k;
    default:
      return decls[r->decl].first + (int)(i + r->k);
  }
}

static int read_limits(TsrLoadCtx *c, const TsrYNode *n, double lim[2]) {
  if (n->kind != TSR_YNODE_SEQ || n->n != 2) {
    tsr_model_error(c, n, "limits: expected [lo, hi], got %s",
                    n->kind == TSR_YNODE_SEQ ? "a sequence of another length" : tsr_ytree_describe(n));
    return 0;
  }
  int ok = tsr_model_number(c, n->items[0], "limits", TSR_NUM_ANY, &lim[0]);
  ok &= tsr_model_number(c, n->items[1], "limits", TSR_NUM_ANY, &lim[1]);
  if (ok && lim[0] > lim[1]) {
    tsr_model_error(c, n, "limits: lower limit %g is greater than upper limit %g", lim[0], lim[1]);
    return 0;
  }
  return ok;
}

static int read_vec_pair(TsrLoadCtx *c, const TsrYNode *n, const char *key, int nonzero, TsrVec3 out[2]) {
  if (n->kind != TSR_YNODE_SEQ || n->n != 2) {
    tsr_model_error(c, n, "%s: expected two vectors [[x, y, z], [x, y, z]], got %s", key,
                    n->kind == TSR_YNODE_SEQ ? "a sequence of another length" : tsr_ytree_describe(n));
    return 0;
  }
  int ok = tsr_model_vec3(c, n->items[0], key, nonzero, &out[0]);
  ok &= tsr_model_vec3(c, n->items[1], key, nonzero, &out[1]);
  return ok;
}

typedef struct {
  const char *name;
  long count;
  int type;  // -1 when unknown
  Ref ref[2];
  int refs_ok;
  int has_anchor;
  TsrVec3 anchor, anchors[2], stride_anchor, stride_anchors[2];
  TsrJointDef proto;  // everything that is the same for every element
  int has_length;
} JointItem;

static int read_joint(TsrLoadCtx *c, const TsrYNode *n, int index, const TsrBodyDecl *decls, int n_decls,
                      JointItem *j) {
  memset(j, 0, sizeof *j);
  j->type = -1;
  j->proto.compliance = DEFAULT_COMPLIANCE;
  j->proto.damping = DEFAULT_DAMPING;
  for (int k = 0; k < 3; k++) j->proto.cable_compliance[k] = DEFAULT_COMPLIANCE;
  tsr_model_where(c, "joint #%d", index + 1);
  if (n->kind != TSR_YNODE_MAP) {
    tsr_model_error(c, n, "a joint must be a mapping of keys, got %s", tsr_ytree_describe(n));
    return 0;
  }
  int ok = 1;
  const TsrYNode *v = tsr_model_require(c, n, "name");
  if (v && tsr_model_check_name(c, v, "joint", &j->name))
    tsr_model_where(c, "joint '%s'", j->name);
  else
    ok = 0;
  if ((v = tsr_model_require(c, n, "type"))) {
    if (!tsr_model_enum(c, v, "joint type", joint_types, N_JOINT_TYPES, &j->type)) ok = 0;
  } else {
    ok = 0;
  }
  int type = j->type;
  ok &= tsr_model_check_map(c, n, "a joint", type >= 0 ? keys_by_type[type] : keys_any);
  if (tsr_model_opt_int(c, n, "count", 1, TSR_MAX_COUNT, &j->count) == 0) ok = 0;

  j->refs_ok = 0;
  if ((v = tsr_model_require(c, n, "bodies"))) {
    if (v->kind != TSR_YNODE_SEQ || v->n != 2) {
      tsr_model_error(c, v, "bodies: expected two body names [A, B], got %s",
                      v->kind == TSR_YNODE_SEQ ? "a sequence of another length" : tsr_ytree_describe(v));
    } else {
      j->refs_ok = parse_ref(c, v->items[0], j->count, decls, n_decls, &j->ref[0]);
      j->refs_ok &= parse_ref(c, v->items[1], j->count, decls, n_decls, &j->ref[1]);
    }
  }
  ok &= j->refs_ok;

  if ((v = tsr_ytree_get(n, "stride"))) {
    const char *const *sk = type == TSR_JOINT_DISTANCE ? stride_keys_any : stride_keys_anchor;
    if (!tsr_ytree_get(n, "count")) {
      tsr_model_error(c, v, "stride needs count (it applies to arrays)");
      ok = 0;
    } else if (tsr_model_check_map(c, v, "stride", sk)) {
      if (tsr_model_opt_vec3(c, v, "anchor", 0, &j->stride_anchor) == 0) ok = 0;
      const TsrYNode *sa = tsr_ytree_get(v, "anchors");
      if (sa && !read_vec_pair(c, sa, "anchors", 0, j->stride_anchors)) ok = 0;
    } else {
      ok = 0;
    }
  }

  // Keys every joint has.
  TsrJointDef *p = &j->proto;
  const TsrYNode *comp = tsr_ytree_get(n, "compliance");
  if (comp && type == TSR_JOINT_CABLE && comp->kind == TSR_YNODE_MAP) {
    if (tsr_model_check_map(c, comp, "cable compliance", cable_keys)) {
      for (int k = 0; k < 3; k++)
        if (tsr_model_opt_number(c, comp, cable_keys[k], TSR_NUM_NONNEG, &p->cable_compliance[k]) == 0) ok = 0;
    } else {
      ok = 0;
    }
  } else if (comp) {
    if (tsr_model_number(c, comp, "compliance", TSR_NUM_NONNEG, &p->compliance)) {
      // A cable with one number: the same compliance for every direction.
      if (type == TSR_JOINT_CABLE)
        for (int k = 0; k < 3; k++) p->cable_compliance[k] = p->compliance;
    } else {
      ok = 0;
    }
  }
  if (tsr_model_opt_number(c, n, "damping", TSR_NUM_POSITIVE, &p->damping) == 0) ok = 0;
  if (tsr_model_opt_bool(c, n, "collide", &p->collide) == 0) ok = 0;
  if (type < 0) return 0;
  p->type = (TsrJointType)type;

  // Anchors.
  if (type == TSR_JOINT_DISTANCE) {
    if ((v = tsr_model_require(c, n, "anchors")))
      ok &= read_vec_pair(c, v, "anchors", 0, j->anchors);
    else
      ok = 0;
  } else {
    int need =
        type == TSR_JOINT_BALL || type == TSR_JOINT_HINGE || type == TSR_JOINT_UNIVERSAL || type == TSR_JOINT_CABLE;
    v = need ? tsr_model_require(c, n, "anchor") : tsr_ytree_get(n, "anchor");
    if (v) {
      j->has_anchor = tsr_model_vec3(c, v, "anchor", 0, &j->anchor);
      ok &= j->has_anchor;
    } else if (need) {
      ok = 0;
    }
  }

  // Axes.
  if (type == TSR_JOINT_HINGE || type == TSR_JOINT_PRISMATIC) {
    if ((v = tsr_model_require(c, n, "axis")) && tsr_model_vec3(c, v, "axis", 1, &p->axis[0]))
      p->axis[0] = tsr_v3_normalize(p->axis[0]);
    else
      ok = 0;
    p->axis[1] = p->axis[0];
    if ((v = tsr_ytree_get(n, "limits"))) {
      p->has_limits = read_limits(c, v, p->limits);
      ok &= p->has_limits;
    }
    if ((v = tsr_ytree_get(n, "motor"))) {
      int hinge = type == TSR_JOINT_HINGE;
      const char *max_key = hinge ? "max_torque" : "max_force";
      if (tsr_model_check_map(c, v, "motor", hinge ? motor_torque_keys : motor_force_keys)) {
        const TsrYNode *sp = tsr_model_require(c, v, "speed"), *mx = tsr_model_require(c, v, max_key);
        int mok = sp && tsr_model_number(c, sp, "speed", TSR_NUM_ANY, &p->motor_speed);
        mok &= mx && tsr_model_number(c, mx, max_key, TSR_NUM_NONNEG, &p->motor_max);
        p->has_motor = mok;
        ok &= mok;
      } else {
        ok = 0;
      }
    }
  } else if (type == TSR_JOINT_UNIVERSAL) {
    if ((v = tsr_model_require(c, n, "axes")) && read_vec_pair(c, v, "axes", 1, p->axis)) {
      p->axis[0] = tsr_v3_normalize(p->axis[0]);
      p->axis[1] = tsr_v3_normalize(p->axis[1]);
      double dot = tsr_v3_dot(p->axis[0], p->axis[1]);
      if (fabs(dot) > 1e-6) {
        tsr_model_error(c, v, "axes: universal joint axes must be perpendicular (they are %.6g degrees apart)",
                        acos(fmax(-1.0, fmin(1.0, dot))) * 180.0 / M_PI);
        ok = 0;
      }
    } else {
      ok = 0;
    }
  }

  if (type == TSR_JOINT_DISTANCE) {
    int r = tsr_model_opt_number(c, n, "length", TSR_NUM_NONNEG, &p->length);
    if (r == 0) ok = 0;
    j->has_length = r == 1;
    if (tsr_model_opt_bool(c, n, "unilateral", &p->unilateral) == 0) ok = 0;
  }
  return ok;
}

static TsrVec3 body_pos(const TsrModel *m, int b) { return b < 0 ? tsr_v3(0, 0, 0) : m->bodies[b].position; }
static const char *body_label(const TsrModel *m, int b, char *buf, size_t size) {
  if (b < 0) return "world";
  snprintf(buf, size, "body '%s'", m->bodies[b].name);
  return buf;
}
static int moving(const TsrModel *m, int b) { return b >= 0 && !m->bodies[b].fixed; }

// The shortest rest length of a distance joint. Its one row (joints/
// distance.c) acts along u = (p0 - p1) / |p0 - p1|: at length 0 there is no
// such line (the row falls back to an arbitrary z, and the anchors drifted
// 7.8 cm apart under sideways gravity), and below 1e-12 m distance.c takes
// the separation as 0. Above that, u is only as good as p0 - p1, which is
// computed from world positions and body-frame arms rounded at the bodies'
// scale: a length of 1e-9 of the larger body's size (the same fraction
// below which a shape's own lengths are refused, TSR_SHAPE_ASPECT_MAX) still
// leaves u some 7 digits. A length below either has no direction to hold;
// two points held together are a ball joint.
#define DISTANCE_MIN_LENGTH 1e-12
#define DISTANCE_MIN_FRACTION 1e-9

static double distance_min_length(const TsrModel *m, int b0, int b1) {
  double size = 0.0;
  const int b[2] = {b0, b1};
  for (int k = 0; k < 2; k++) {
    TsrVec3 centroid;
    double s;
    if (b[k] >= 0 && tsr_model_body_centroid(m, b[k], &centroid, &s) == 0) size = fmax(size, s);
  }
  return fmax(DISTANCE_MIN_LENGTH, DISTANCE_MIN_FRACTION * size);
}

int tsr_model_joints(TsrLoadCtx *c, const TsrYNode *list, const TsrBodyDecl *decls, int n_decls, TsrModel *m) {
  if (!list) return 1;
  if (list->kind != TSR_YNODE_SEQ) {
    tsr_model_error(c, list, "joints: expected a sequence of joints, got %s", tsr_ytree_describe(list));
    return 0;
  }
  int ok = 1, n_named = 0;
  const char **names = malloc((size_t)(list->n + 1) * sizeof *names);
  const TsrYNode **name_nodes = malloc((size_t)(list->n + 1) * sizeof *name_nodes);
  if (!names || !name_nodes) abort();
  for (int i = 0; i < list->n; i++) {
    const TsrYNode *item = list->items[i];
    JointItem j;
    int item_ok = read_joint(c, item, i, decls, n_decls, &j);
    ok &= item_ok;
    if (j.name) {
      names[n_named] = j.name;
      name_nodes[n_named++] = tsr_ytree_get(item, "name");
    }
    if (!item_ok || !j.refs_ok) {
      c->where[0] = '\0';
      continue;
    }
    long count = j.count ? j.count : 1;
    int reported = 0;
    for (long e = 0; e < count; e++) {
      int b0 = ref_body(&j.ref[0], decls, e), b1 = ref_body(&j.ref[1], decls, e);
      // Checked per element (an array may pair link[i] with link[0]), but
      // reported once per joint entry.
      const TsrYNode *bn = tsr_ytree_get(item, "bodies");
      char l0[160], l1[160];
      if (b0 == b1 && !reported) {
        char at[48] = "";
        if (j.count) snprintf(at, sizeof at, " (at i = %ld)", e);
        tsr_model_error(c, bn, "joint connects %s to itself%s", body_label(m, b0, l0, sizeof l0), at);
        reported = 1;
      } else if (b0 != b1 && !moving(m, b0) && !moving(m, b1) && !reported) {
        tsr_model_error(c, bn, "joint connects no moving body (%s and %s are fixed)", body_label(m, b0, l0, sizeof l0),
                        body_label(m, b1, l1, sizeof l1));
        reported = 1;
      }
      if (reported) {
        ok = 0;
        break;
      }
      m->joints = tsr_model_grow(m->joints, m->n_joints, &c->joint_cap, sizeof *m->joints);
      TsrJointDef *d = &m->joints[m->n_joints++];
      *d = j.proto;
      d->name = j.count ? tsr_model_sprintf("%s[%ld]", j.name, e) : tsr_model_strdup(j.name);
      d->body[0] = b0;
      d->body[1] = b1;
      d->mark = item->mark;
      TsrVec3 p0 = body_pos(m, b0), p1 = body_pos(m, b1);
      if (j.type == TSR_JOINT_DISTANCE) {
        d->anchor = tsr_v3_madd(tsr_v3_madd(j.anchors[0], j.stride_anchor, (double)e), j.stride_anchors[0], (double)e);
        d->anchor_b =
            tsr_v3_madd(tsr_v3_madd(j.anchors[1], j.stride_anchor, (double)e), j.stride_anchors[1], (double)e);
        if (!j.has_length) d->length = tsr_v3_norm(tsr_v3_sub(d->anchor_b, d->anchor));
      } else {
        if (j.has_anchor) {
          d->anchor = tsr_v3_madd(j.anchor, j.stride_anchor, (double)e);
        } else if (j.type == TSR_JOINT_PRISMATIC) {
          // Midpoint of the two bodies; the world frame has no position of
          // its own, so a joint to the world sits at the body.
          d->anchor = b0 < 0 ? p1 : b1 < 0 ? p0 : tsr_v3_scale(tsr_v3_add(p0, p1), 0.5);
        } else {
          d->anchor = b1 >= 0 ? p1 : p0;  // fixed joint: at the second body
        }
        d->anchor_b = d->anchor;
      }
      if (!tsr_v3_isfinite(d->anchor) || !tsr_v3_isfinite(d->anchor_b)) {  // (anchor 1e308 + stride 1e308: inf)
        tsr_model_error(c, tsr_ytree_get(item, "stride") ? tsr_ytree_get(item, "stride") : item,
                        "element %ld's anchor is not finite (stride x index overflows)", e);
        ok = 0;
        break;
      }
      if (j.type == TSR_JOINT_DISTANCE && !j.has_length && !isfinite(d->length)) {  // (anchors 1e200 apart)
        tsr_model_error(c, tsr_ytree_get(item, "anchors") ? tsr_ytree_get(item, "anchors") : item,
                        "the anchors' distance (the default length) overflows; give 'length', or nearer anchors");
        ok = 0;
        break;
      }
      if (j.type == TSR_JOINT_DISTANCE) {
        double lmin = distance_min_length(m, b0, b1);
        if (!(d->length >= lmin)) {
          const TsrYNode *at = tsr_ytree_get(item, j.has_length ? "length" : "anchors");
          char what[96], at_i[48] = "";
          if (j.has_length)
            snprintf(what, sizeof what, "length %g m", d->length);
          else
            snprintf(what, sizeof what, "the anchors are %g m apart (the default length)", d->length);
          if (j.count) snprintf(at_i, sizeof at_i, " at i = %ld", e);
          tsr_model_error(c, at ? at : item,
                          "%s%s: a distance joint's one row acts along the line between its anchors, which needs a "
                          "length of at least %g m here (1e-9 of the larger body's size, at least 1e-12 m); to hold "
                          "two points together use a 'ball' joint",
                          what, at_i, lmin);
          ok = 0;
          break;
        }
      }
    }
    c->where[0] = '\0';
  }
  int before = c->errors;
  tsr_model_check_duplicates(c, "joint", names, name_nodes, n_named);
  if (c->errors != before) ok = 0;
  free(names);
  free(name_nodes);
  return ok;
}
