// SPDX-License-Identifier: MIT
// Typed reads of tree values, each reporting what was expected and what was
// found, at the offending node. All model checks are built from these.
#include "model/model_internal.h"

#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tsr_model_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *r = malloc(n);
  if (r) memcpy(r, s, n);
  return r;
}

char *tsr_model_sprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return NULL;
  char *s = malloc((size_t)n + 1);
  if (!s) return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

void tsr_model_where(TsrLoadCtx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->where, sizeof c->where, fmt, ap);
  va_end(ap);
}

void tsr_model_error(TsrLoadCtx *c, const TsrYNode *at, const char *fmt, ...) {
  c->errors++;
  if (c->errors > TSR_MODEL_MAX_ERRORS) return;
  char what[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const char *file = at && at->file ? at->file : c->path;
  const TsrMark *mark = at ? &at->mark : NULL;
  if (c->errors == TSR_MODEL_MAX_ERRORS)
    tsr_diag_error(&c->pending, file, mark, "too many errors; stopping here");
  else if (c->where[0])
    tsr_diag_error(&c->pending, file, mark, "%s: %s", c->where, what);
  else
    tsr_diag_error(&c->pending, file, mark, "%s", what);
  // Sort key: messages about the file first, then those about --set
  // overrides; by line, column; ties keep the order found (the index).
  int i = c->pending.count - 1;
  if (i < 0) return;
  c->order = tsr_model_grow(c->order, i, &c->order_cap, sizeof *c->order);
  long origin = file != c->path;
  long line = mark ? mark->line : 0, col = mark ? mark->col : 0;
  if (line > 9999999) line = 9999999;
  if (col > 99999) col = 99999;
  c->order[i] = ((origin * 10000000 + line) * 100000 + col) * 1024 + (i < 1023 ? i : 1023);
}

static int cmp_key(const void *a, const void *b) {
  long x = **(const long *const *)a, y = **(const long *const *)b;
  return x < y ? -1 : x > y;
}

void tsr_model_flush(TsrLoadCtx *c) {
  int n = c->pending.count;
  long **idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
  if (!idx) abort();
  for (int i = 0; i < n; i++) idx[i] = &c->order[i];
  qsort(idx, (size_t)n, sizeof *idx, cmp_key);
  TsrDiag *d = c->diag;
  for (int i = 0; i < n; i++) {
    // The pending messages are complete ("FILE:LINE:COL: error: ..."):
    // hand them over as they are.
    d->messages = tsr_model_grow(d->messages, d->count, &d->cap, sizeof *d->messages);
    d->messages[d->count++] = c->pending.messages[idx[i] - c->order];
    c->pending.messages[idx[i] - c->order] = NULL;
  }
  free(idx);
  tsr_diag_free(&c->pending);
  free(c->order);
  c->order = NULL;
  c->order_cap = 0;
}

int tsr_model_check_map(TsrLoadCtx *c, const TsrYNode *map, const char *what, const char *const *allowed) {
  if (!map || map->kind != TSR_YNODE_MAP) {
    tsr_model_error(c, map, "%s must be a mapping of keys, got %s", what, tsr_ytree_describe(map));
    return 0;
  }
  int n_allowed = 0;
  while (allowed[n_allowed]) n_allowed++;
  for (int i = 0; i < map->n; i++) {
    const char *key = map->keys[i]->value;
    int known = 0;
    for (int k = 0; k < n_allowed && !known; k++) known = strcmp(key, allowed[k]) == 0;
    if (known) continue;
    char dym[128];
    tsr_model_did_you_mean(dym, sizeof dym, key, allowed, n_allowed);
    tsr_model_error(c, map->keys[i], "unknown key '%s' in %s%s", key, what, dym);
  }
  return 1;
}

const TsrYNode *tsr_model_require(TsrLoadCtx *c, const TsrYNode *map, const char *key) {
  const TsrYNode *v = tsr_ytree_get(map, key);
  if (!v) tsr_model_error(c, map, "missing required key '%s'", key);
  return v;
}

// A scalar's text for messages, shortened.
static const char *shown(const TsrYNode *n, char *buf, size_t size) {
  snprintf(buf, size, "%s", n->value ? n->value : "");
  if (strlen(n->value) >= size - 1 && size > 4) strcpy(buf + size - 4, "...");
  return buf;
}

// Numbers are decimal only (yaml_tree.c). A plain scalar written in another
// base, 0x1f or 0o17 (YAML 1.2 core ints) or 0b101 (YAML 1.1), signed or
// not, is reported as such, with its decimal value when its digits are
// right: "expected a number, got a string '0x10'" would puzzle a reader of
// the YAML spec. Returns 1 when it reported.
static int non_decimal(TsrLoadCtx *c, const TsrYNode *n, const char *key) {
  if (n->kind != TSR_YNODE_SCALAR || !n->plain) return 0;
  const char *s = n->value, *p = s + (s[0] == '+' || s[0] == '-');
  if (p[0] != '0' || !p[1]) return 0;
  int base = p[1] == 'x' || p[1] == 'X' ? 16 : p[1] == 'o' || p[1] == 'O' ? 8 : p[1] == 'b' || p[1] == 'B' ? 2 : 0;
  if (!base || !(isdigit((unsigned char)p[2]) || (base == 16 && isxdigit((unsigned char)p[2])))) return 0;
  if (p[2] - '0' >= base && base < 16) return 0;  // 0o9, 0b2: not numbers of those bases at all
  const char *name = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
  unsigned long long v = 0;
  int right = 1;
  for (const char *q = p + 2; *q && right; q++) {
    int d = isdigit((unsigned char)*q)   ? *q - '0'
            : isalpha((unsigned char)*q) ? tolower((unsigned char)*q) - 'a' + 10
                                         : 99;
    right = d < base && v <= (ULLONG_MAX - (unsigned)d) / (unsigned)base;
    v = v * (unsigned)base + (unsigned)d;
  }
  char buf[48], dec[64] = "";
  if (right) snprintf(dec, sizeof dec, " (write %s%llu)", s[0] == '-' ? "-" : "", v);
  tsr_model_error(c, n, "%s: '%s' is written in %s; numbers in a model are decimal only%s", key,
                  shown(n, buf, sizeof buf), name, dec);
  return 1;
}

int tsr_model_number(TsrLoadCtx *c, const TsrYNode *n, const char *key, TsrNumRange range, double *out) {
  double v = 0;
  char buf[48];
  if (n->kind != TSR_YNODE_SCALAR || tsr_ytree_scalar_type(n, &v, NULL) != TSR_YSCALAR_NUMBER) {
    if (non_decimal(c, n, key)) return 0;
    if (n->kind == TSR_YNODE_SCALAR && tsr_ytree_scalar_type(n, NULL, NULL) == TSR_YSCALAR_STRING)
      tsr_model_error(c, n, "%s: expected a number, got a string '%s'", key, shown(n, buf, sizeof buf));
    else
      tsr_model_error(c, n, "%s: expected a number, got %s", key, tsr_ytree_describe(n));
    return 0;
  }
  if (!isfinite(v)) {
    tsr_model_error(c, n, "%s: non-finite number %s", key, shown(n, buf, sizeof buf));
    return 0;
  }
  if ((range == TSR_NUM_POSITIVE || range == TSR_NUM_INVERTIBLE) && !(v > 0)) {
    tsr_model_error(c, n, "%s must be positive, got %s", key, shown(n, buf, sizeof buf));
    return 0;
  }
  if (range == TSR_NUM_INVERTIBLE && v < DBL_MIN) {
    tsr_model_error(
        c, n, "%s must be at least %g (DBL_MIN, the smallest normal double): the simulation divides by it, got %s", key,
        DBL_MIN, shown(n, buf, sizeof buf));
    return 0;
  }
  if (range == TSR_NUM_NONNEG && !(v >= 0)) {
    tsr_model_error(c, n, "%s must not be negative, got %s", key, shown(n, buf, sizeof buf));
    return 0;
  }
  *out = v;
  return 1;
}

int tsr_model_int(TsrLoadCtx *c, const TsrYNode *n, const char *key, long min, long max, long *out) {
  double v;
  char buf[48];
  if (n->kind != TSR_YNODE_SCALAR || tsr_ytree_scalar_type(n, &v, NULL) != TSR_YSCALAR_NUMBER) {
    if (!non_decimal(c, n, key)) tsr_model_error(c, n, "%s: expected an integer, got %s", key, tsr_ytree_describe(n));
    return 0;
  }
  if (!isfinite(v) || v != floor(v)) {
    tsr_model_error(c, n, "%s: expected an integer, got %s", key, shown(n, buf, sizeof buf));
    return 0;
  }
  if (max > TSR_MAX_INT) max = TSR_MAX_INT;
  if (v > (double)max) {  // compared as doubles: v may be far beyond a long
    if (max == TSR_MAX_INT)
      tsr_model_error(c, n, "%s: expected an integer of at most 1e9, got %s", key, shown(n, buf, sizeof buf));
    else
      tsr_model_error(c, n, "%s: at most %ld, got %s", key, max, shown(n, buf, sizeof buf));
    return 0;
  }
  if (v < (double)min) {
    tsr_model_error(c, n, "%s must be at least %ld, got %s", key, min, shown(n, buf, sizeof buf));
    return 0;
  }
  *out = (long)v;
  return 1;
}

int tsr_model_bool(TsrLoadCtx *c, const TsrYNode *n, const char *key, int *out) {
  int b;
  if (n->kind != TSR_YNODE_SCALAR || tsr_ytree_scalar_type(n, NULL, &b) != TSR_YSCALAR_BOOL) {
    tsr_model_error(c, n, "%s: expected true or false, got %s", key, tsr_ytree_describe(n));
    return 0;
  }
  *out = b;
  return 1;
}

int tsr_model_string(TsrLoadCtx *c, const TsrYNode *n, const char *key, const char **out) {
  // Any scalar but null is accepted as text: `name: 42` is a fine name.
  if (n->kind != TSR_YNODE_SCALAR || tsr_ytree_scalar_type(n, NULL, NULL) == TSR_YSCALAR_NULL) {
    tsr_model_error(c, n, "%s: expected a string, got %s", key, tsr_ytree_describe(n));
    return 0;
  }
  *out = n->value;
  return 1;
}

int tsr_model_vec3(TsrLoadCtx *c, const TsrYNode *n, const char *key, int nonzero, TsrVec3 *out) {
  if (n->kind != TSR_YNODE_SEQ || n->n != 3) {
    if (n->kind == TSR_YNODE_SEQ)
      tsr_model_error(c, n, "%s: expected a sequence of 3 numbers [x, y, z], got %d item%s", key, n->n,
                      n->n == 1 ? "" : "s");
    else
      tsr_model_error(c, n, "%s: expected a sequence of 3 numbers [x, y, z], got %s", key, tsr_ytree_describe(n));
    return 0;
  }
  double v[3];
  int ok = 1;
  for (int i = 0; i < 3; i++) ok &= tsr_model_number(c, n->items[i], key, TSR_NUM_ANY, &v[i]);
  if (!ok) return 0;
  TsrVec3 r = tsr_v3(v[0], v[1], v[2]);
  if (nonzero && r.x == 0.0 && r.y == 0.0 && r.z == 0.0) {  // (not |r|: it underflows for 1e-200)
    tsr_model_error(c, n, "%s: zero-length axis vector", key);
    return 0;
  }
  *out = r;
  return 1;
}

int tsr_model_orientation(TsrLoadCtx *c, const TsrYNode *n, TsrQuat *out) {
  if (n->kind == TSR_YNODE_SEQ) {
    if (n->n != 4) {
      tsr_model_error(c, n, "orientation: expected a quaternion [w, x, y, z], got %d item%s", n->n,
                      n->n == 1 ? "" : "s");
      return 0;
    }
    double v[4];
    int ok = 1;
    for (int i = 0; i < 4; i++) ok &= tsr_model_number(c, n->items[i], "orientation", TSR_NUM_ANY, &v[i]);
    if (!ok) return 0;
    TsrQuat q = {v[0], v[1], v[2], v[3]};
    double s = fmax(fmax(fabs(q.w), fabs(q.x)), fmax(fabs(q.y), fabs(q.z)));
    if (!(s > 0)) {  // (the components are finite: tsr_model_number)
      tsr_model_error(c, n, "orientation: quaternion [%g, %g, %g, %g] cannot be normalised", v[0], v[1], v[2], v[3]);
      return 0;
    }
    // Any finite nonzero quaternion is a rotation. |q|^2 underflows or
    // overflows outside 1e-150..1e150 ([1e-170, 0, 0, 0] was refused, and
    // everything under 1e-12 with it): then by the largest component first,
    // divided (1 / s overflows for a subnormal s). Quaternions in range keep
    // the plain division, so their results do not change.
    double norm = tsr_q_norm(q);
    if (!(norm > 1e-150 && norm < 1e150)) q = (TsrQuat){q.w / s, q.x / s, q.y / s, q.z / s};
    *out = tsr_q_normalize(q);
    return 1;
  }
  static const char *const keys[] = {"axis", "angle", "angle_deg", NULL};
  if (n->kind != TSR_YNODE_MAP) {
    tsr_model_error(c, n, "orientation: expected a quaternion [w, x, y, z] or {axis: [x, y, z], angle: rad}, got %s",
                    tsr_ytree_describe(n));
    return 0;
  }
  int ok = tsr_model_check_map(c, n, "orientation", keys);
  TsrVec3 axis = tsr_v3(0, 0, 1);
  double angle = 0;
  const TsrYNode *a = tsr_model_require(c, n, "axis");
  if (!a || !tsr_model_vec3(c, a, "axis", 1, &axis)) ok = 0;
  const TsrYNode *rad = tsr_ytree_get(n, "angle"), *deg = tsr_ytree_get(n, "angle_deg");
  if (rad && deg) {
    tsr_model_error(c, deg, "orientation: give either 'angle' or 'angle_deg', not both");
    ok = 0;
  } else if (rad) {
    ok &= tsr_model_number(c, rad, "angle", TSR_NUM_ANY, &angle);
  } else if (deg) {
    if (tsr_model_number(c, deg, "angle_deg", TSR_NUM_ANY, &angle))
      angle *= M_PI / 180.0;
    else
      ok = 0;
  } else {
    tsr_model_error(c, n, "orientation: missing required key 'angle' (or 'angle_deg')");
    ok = 0;
  }
  if (!ok) return 0;
  *out = tsr_q_axis_angle(axis, angle);
  return 1;
}

int tsr_model_enum(TsrLoadCtx *c, const TsrYNode *n, const char *what, const char *const *names, int count, int *out) {
  const char *s;
  if (!tsr_model_string(c, n, what, &s)) return 0;
  for (int i = 0; i < count; i++) {
    if (strcmp(s, names[i]) == 0) {
      *out = i;
      return 1;
    }
  }
  char list[256] = "", dym[128];
  for (int i = 0; i < count; i++) {
    strncat(list, names[i], sizeof list - strlen(list) - 1);
    if (i + 1 < count) strncat(list, ", ", sizeof list - strlen(list) - 1);
  }
  tsr_model_did_you_mean(dym, sizeof dym, s, names, count);
  char buf[48];
  tsr_model_error(c, n, "unknown %s '%s'%s; expected one of: %s", what, shown(n, buf, sizeof buf), dym, list);
  return 0;
}

int tsr_model_opt_number(TsrLoadCtx *c, const TsrYNode *map, const char *key, TsrNumRange range, double *out) {
  const TsrYNode *n = tsr_ytree_get(map, key);
  return n ? tsr_model_number(c, n, key, range, out) : -1;
}

int tsr_model_opt_int(TsrLoadCtx *c, const TsrYNode *map, const char *key, long min, long max, long *out) {
  const TsrYNode *n = tsr_ytree_get(map, key);
  return n ? tsr_model_int(c, n, key, min, max, out) : -1;
}

int tsr_model_opt_bool(TsrLoadCtx *c, const TsrYNode *map, const char *key, int *out) {
  const TsrYNode *n = tsr_ytree_get(map, key);
  return n ? tsr_model_bool(c, n, key, out) : -1;
}

int tsr_model_opt_vec3(TsrLoadCtx *c, const TsrYNode *map, const char *key, int nonzero, TsrVec3 *out) {
  const TsrYNode *n = tsr_ytree_get(map, key);
  return n ? tsr_model_vec3(c, n, key, nonzero, out) : -1;
}
