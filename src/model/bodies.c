// SPDX-License-Identifier: MIT
// `bodies:` -> TsrBodyDef (arrays expanded) and their shapes.
//
// Mass properties: `mass` or `density` (mass = density x total shape
// volume); inertia given as principal moments [a, b, c], a full 3x3 list, or
// by default that of the solid shapes (shapes.c). Fixed bodies have zero mass
// and inertia and need neither.
#include "model/model_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Guards against a typo like `count: 1000000000` eating all memory.
#define MAX_EXPANDED 10000000L

static const char *const body_keys[] = {
    "name",        "count",    "stride",           "fixed",    "mass",  "density",     "inertia", "shape", "position",
    "orientation", "velocity", "angular_velocity", "material", "group", "group_every", NULL};
static const char *const body_stride_keys[] = {"position", "velocity", NULL};

// Names become references ("link[3]") and --set paths ("bodies.box.mass"),
// so brackets and dots would make them ambiguous.
int tsr_model_check_name(TsrLoadCtx *c, const TsrYNode *n, const char *kind, const char **out) {
  const char *s;
  if (!tsr_model_string(c, n, "name", &s)) return 0;
  if (!s[0] || strpbrk(s, "[].")) {
    tsr_model_error(c, n, "%s name '%s' must be non-empty and contain no '[', ']' or '.'", kind, s);
    return 0;
  }
  *out = s;
  return 1;
}

// The inertia tensor of a body is I = tr(S) 1 - S with S = sum m r r^T its
// second moment of mass, positive semidefinite: S = tr(I)/2 1 - I, so each
// principal moment is at most the sum of the other two (equal for a flat
// body). A tensor without a PSD S is no body's (a typo: [1, 1, 5]); with a
// 1e-5 relative slack for flat or slender bodies whose moments were rounded
// (a 1 mm plate written to 6 digits, [0.0833334, 0.0833334, 0.166667], is
// 3e-7 past equality). Returns 1 when S is PSD to that slack: every
// principal minor of S at least -slack in its own units.
static int inertia_physical(TsrMat3 I) {
  double h = 0.5 * (I.m[0][0] + I.m[1][1] + I.m[2][2]), tol = 1e-5 * h;
  TsrMat3 S;
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 3; k++) S.m[r][k] = (r == k ? h : 0.0) - I.m[r][k];
  for (int r = 0; r < 3; r++)
    if (S.m[r][r] < -tol) return 0;
  for (int r = 0; r < 3; r++)
    for (int k = r + 1; k < 3; k++)
      if (S.m[r][r] * S.m[k][k] - S.m[r][k] * S.m[k][r] < -tol * h) return 0;
  return tsr_m3_det(S) >= -tol * h * h;
}

// The simulation inverts a moving body's inertia (dynamics/bodies.c,
// tsr_m3_inverse, which gives 0 for a singular tensor). 1 when every
// diagonal entry is at least DBL_MIN (a subnormal moment has lost digits,
// and 1 / 1e-320 is inf) and the inverse is finite, with a positive
// diagonal: a body that can turn, by a finite amount.
static int inertia_invertible(TsrMat3 I) {
  TsrMat3 inv = tsr_m3_inverse(I);
  for (int r = 0; r < 3; r++) {
    if (!(I.m[r][r] >= DBL_MIN && inv.m[r][r] > 0)) return 0;
    for (int k = 0; k < 3; k++)
      if (!isfinite(inv.m[r][k])) return 0;
  }
  return 1;
}

static int read_inertia(TsrLoadCtx *c, const TsrYNode *n, TsrMat3 *out) {
  if (n->kind == TSR_YNODE_SEQ && n->n == 3 && n->items[0]->kind == TSR_YNODE_SCALAR) {
    TsrVec3 d;
    if (!tsr_model_vec3(c, n, "inertia", 0, &d)) return 0;
    if (!(d.x > 0 && d.y > 0 && d.z > 0)) {
      tsr_model_error(c, n, "inertia: principal moments must be positive, got [%g, %g, %g]", d.x, d.y, d.z);
      return 0;
    }
    if (!inertia_invertible(tsr_m3_diag(d.x, d.y, d.z))) {
      tsr_model_error(c, n,
                      "inertia: principal moments must be at least %g (DBL_MIN, the smallest normal double): the "
                      "simulation inverts them, got [%g, %g, %g]",
                      DBL_MIN, d.x, d.y, d.z);
      return 0;
    }
    if (!inertia_physical(tsr_m3_diag(d.x, d.y, d.z))) {
      tsr_model_error(c, n,
                      "inertia: [%.9g, %.9g, %.9g] is no body's: each principal moment must be at most the sum of "
                      "the other two",
                      d.x, d.y, d.z);
      return 0;
    }
    *out = tsr_m3_diag(d.x, d.y, d.z);
    return 1;
  }
  if (n->kind == TSR_YNODE_SEQ && n->n == 3) {
    TsrMat3 I;
    int ok = 1;
    for (int r = 0; r < 3; r++) {
      TsrVec3 row = {0, 0, 0};
      ok &= tsr_model_vec3(c, n->items[r], "inertia row", 0, &row);
      I.m[r][0] = row.x, I.m[r][1] = row.y, I.m[r][2] = row.z;
    }
    if (!ok) return 0;
    double scale = fabs(I.m[0][0]) + fabs(I.m[1][1]) + fabs(I.m[2][2]);
    for (int r = 0; r < 3; r++)
      for (int k = r + 1; k < 3; k++)
        if (fabs(I.m[r][k] - I.m[k][r]) > 1e-9 * scale) {
          tsr_model_error(c, n, "inertia: the 3x3 tensor must be symmetric ([%d][%d] = %g, [%d][%d] = %g)", r, k,
                          I.m[r][k], k, r, I.m[k][r]);
          return 0;
        }
    // Sylvester's criterion: leading minors positive. Both tests are of the
    // tensor over the power of 2 at its scale (exact, tsr_m3_pow2_scaled):
    // a tensor of 1e-110 kg m^2 has a determinant of 1e-330, 0 in doubles.
    double s2;
    TsrMat3 U = tsr_m3_pow2_scaled(I, &s2);
    double m1 = U.m[0][0], m2 = U.m[0][0] * U.m[1][1] - U.m[0][1] * U.m[1][0], m3 = tsr_m3_det(U);
    if (!(m1 > 0 && m2 > 0 && m3 > 0)) {
      tsr_model_error(c, n, "inertia: the 3x3 tensor must be positive definite");
      return 0;
    }
    if (!inertia_physical(U)) {
      tsr_model_error(c, n,
                      "inertia: the 3x3 tensor is no body's: each principal moment must be at most the sum of the "
                      "other two");
      return 0;
    }
    if (!inertia_invertible(I)) {
      tsr_model_error(c, n,
                      "inertia: the simulation inverts the 3x3 tensor, and its inverse is not finite (diagonal [%g, "
                      "%g, %g]: each at least %g, DBL_MIN, the smallest normal double)",
                      I.m[0][0], I.m[1][1], I.m[2][2], DBL_MIN);
      return 0;
    }
    *out = I;
    return 1;
  }
  tsr_model_error(c, n, "inertia: expected principal moments [a, b, c] or a 3x3 list, got %s",
                  n->kind == TSR_YNODE_SEQ ? "a sequence of another length" : tsr_ytree_describe(n));
  return 0;
}

static int cmp_decl(const void *a, const void *b) {
  const TsrBodyDecl *x = *(const TsrBodyDecl *const *)a, *y = *(const TsrBodyDecl *const *)b;
  int r = strcmp(x->name, y->name);
  if (r) return r;
  return x->node->mark.line != y->node->mark.line ? x->node->mark.line - y->node->mark.line
                                                  : x->node->mark.col - y->node->mark.col;
}

// Reports every declaration whose name was used before. Sorting keeps this
// O(n log n) for generated models with many single bodies.
void tsr_model_check_duplicates(TsrLoadCtx *c, const char *kind, const char *const *names, const TsrYNode *const *nodes,
                                int n) {
  if (n < 2) return;
  TsrBodyDecl *tmp = malloc((size_t)n * sizeof *tmp);
  const TsrBodyDecl **order = malloc((size_t)n * sizeof *order);
  if (!tmp || !order) abort();
  for (int i = 0; i < n; i++) {
    tmp[i] = (TsrBodyDecl){.name = names[i], .node = nodes[i]};
    order[i] = &tmp[i];
  }
  qsort(order, (size_t)n, sizeof *order, cmp_decl);
  char save[sizeof c->where];
  memcpy(save, c->where, sizeof save);
  c->where[0] = '\0';
  for (int i = 1; i < n; i++) {
    if (strcmp(order[i]->name, order[i - 1]->name) != 0) continue;
    int first = i - 1;
    while (first > 0 && strcmp(order[first - 1]->name, order[i]->name) == 0) first--;
    tsr_model_error(c, order[i]->node, "duplicate %s name '%s' (first defined at line %d, column %d)", kind,
                    order[i]->name, order[first]->node->mark.line, order[first]->node->mark.col);
  }
  memcpy(c->where, save, sizeof save);
  free(order);
  free(tmp);
}

typedef struct {
  const char *name;
  long count;  // 0: a single body
  int fixed;
  double mass;
  TsrMat3 inertia;
  TsrVec3 position, velocity, angular_velocity, stride_position, stride_velocity;
  TsrQuat orientation;
  int material;
  const char *group;
  long group_every;
} BodyItem;

// Checks one item of `bodies:`; fills *b with what could be read. The
// shapes are appended to m->shapes. Returns 1 when the item is valid.
static int read_body(TsrLoadCtx *c, const TsrYNode *n, int index, TsrModel *m, BodyItem *b, int *first_shape,
                     int *n_shapes) {
  *b = (BodyItem){.orientation = tsr_q_identity()};
  *first_shape = m->n_shapes;
  *n_shapes = 0;
  tsr_model_where(c, "body #%d", index + 1);
  if (n->kind != TSR_YNODE_MAP) {
    tsr_model_error(c, n, "a body must be a mapping of keys, got %s", tsr_ytree_describe(n));
    return 0;
  }
  const TsrYNode *v = tsr_model_require(c, n, "name");
  if (!v || !tsr_model_check_name(c, v, "body", &b->name)) {
    tsr_model_check_map(c, n, "a body", body_keys);
    return 0;
  }
  tsr_model_where(c, "body '%s'", b->name);
  int ok = tsr_model_check_map(c, n, "a body", body_keys);
  if (strcmp(b->name, "world") == 0) {
    tsr_model_error(c, v, "'world' is the fixed frame; choose another body name");
    ok = 0;
  }
  if (tsr_model_opt_int(c, n, "count", 1, TSR_MAX_COUNT, &b->count) == 0) ok = 0;
  if ((v = tsr_ytree_get(n, "stride"))) {
    if (!tsr_ytree_get(n, "count")) {
      tsr_model_error(c, v, "stride needs count (it applies to arrays)");
      ok = 0;
    } else if (tsr_model_check_map(c, v, "stride", body_stride_keys)) {
      if (tsr_model_opt_vec3(c, v, "position", 0, &b->stride_position) == 0) ok = 0;
      if (tsr_model_opt_vec3(c, v, "velocity", 0, &b->stride_velocity) == 0) ok = 0;
    } else {
      ok = 0;
    }
  }
  if (tsr_model_opt_bool(c, n, "fixed", &b->fixed) == 0) ok = 0;

  // Shapes first: density and the default inertia need them.
  double volume = 0;
  int has_plane = 0, shapes_ok = 0;
  if ((v = tsr_model_require(c, n, "shape"))) {
    shapes_ok = tsr_model_shapes(c, v, m->n_bodies, m, &volume, &has_plane);
    *n_shapes = m->n_shapes - *first_shape;
    if (has_plane && !b->fixed) {
      tsr_model_error(c, v, "a plane is only allowed on a fixed body (add 'fixed: true')");
      ok = 0;
      shapes_ok = 0;
    }
  }
  ok &= shapes_ok;

  const TsrYNode *mass = tsr_ytree_get(n, "mass"), *density = tsr_ytree_get(n, "density");
  if (mass && density) {
    tsr_model_error(c, density, "give either 'mass' or 'density', not both");
    ok = 0;
  } else if (mass) {
    ok &= tsr_model_number(c, mass, "mass", TSR_NUM_INVERTIBLE, &b->mass);
  } else if (density) {
    double rho = 0;
    if (tsr_model_number(c, density, "density", TSR_NUM_POSITIVE, &rho)) {
      b->mass = rho * volume;
      // (density 1e-300 on a 1e-10 m sphere gave 0 kg, on a 1e200 m one inf)
      if (shapes_ok && !b->fixed && !(isfinite(b->mass) && b->mass > 0)) {
        tsr_model_error(c, density, "density %g kg/m^3 x volume %g m^3 gives a mass of %g kg: not a positive number",
                        rho, volume, b->mass);
        ok = 0;
      } else if (shapes_ok && !b->fixed && b->mass < DBL_MIN) {  // (1 / mass: inf for 1e-320)
        tsr_model_error(c, density,
                        "density %g kg/m^3 x volume %g m^3 gives a mass of %g kg, below %g (DBL_MIN, the smallest "
                        "normal double): the simulation divides by it",
                        rho, volume, b->mass, DBL_MIN);
        ok = 0;
      }
    } else {
      ok = 0;
    }
  } else if (!b->fixed) {
    tsr_model_error(c, n, "missing required key 'mass' (or 'density'): a moving body needs one");
    ok = 0;
  }
  const TsrYNode *inertia = tsr_ytree_get(n, "inertia");
  if (inertia) {
    ok &= read_inertia(c, inertia, &b->inertia);
  } else if (shapes_ok && b->mass >= DBL_MIN && isfinite(b->mass)) {
    b->inertia = tsr_model_shapes_inertia(&m->shapes[*first_shape], *n_shapes, b->mass);
    const double *I = &b->inertia.m[0][0];
    int finite = 1;
    for (int k = 0; k < 9; k++) finite &= isfinite(I[k]) != 0;
    if (!b->fixed && !(finite && b->inertia.m[0][0] > 0 && b->inertia.m[1][1] > 0 && b->inertia.m[2][2] > 0)) {
      // (a 1e200 m sphere of a finite mass: m r^2 overflows)
      tsr_model_error(c, n,
                      "its shapes' inertia is not a positive finite number (%g, %g, %g kg m^2): give "
                      "`inertia`, or shapes of a sensible size",
                      b->inertia.m[0][0], b->inertia.m[1][1], b->inertia.m[2][2]);
      ok = 0;
    } else if (!b->fixed && !inertia_invertible(b->inertia)) {
      // (a mass of 1e-300 kg in a 1 mm sphere: 4e-307 kg m^2, inverted to inf)
      tsr_model_error(c, n,
                      "its shapes' inertia (%g, %g, %g kg m^2) is below %g (DBL_MIN, the smallest normal double), "
                      "and the simulation inverts it: give `inertia`, or a larger mass",
                      b->inertia.m[0][0], b->inertia.m[1][1], b->inertia.m[2][2], DBL_MIN);
      ok = 0;
    }
  }
  if (b->fixed) {
    // Fixed bodies never move: whatever mass was given is not used.
    b->mass = 0;
    b->inertia = tsr_m3_zero();
  }

  if (tsr_model_opt_vec3(c, n, "position", 0, &b->position) == 0) ok = 0;
  if ((v = tsr_ytree_get(n, "orientation")) && !tsr_model_orientation(c, v, &b->orientation)) ok = 0;
  if (tsr_model_opt_vec3(c, n, "velocity", 0, &b->velocity) == 0) ok = 0;
  if (tsr_model_opt_vec3(c, n, "angular_velocity", 0, &b->angular_velocity) == 0) ok = 0;
  if (b->fixed) {
    // A fixed body never moves: a velocity given to it would be dropped
    // without a word (a conveyor belt or a moving platform is not a fixed
    // body here). Zero is what it has anyway.
    const TsrYNode *stride = tsr_ytree_get(n, "stride");
    const struct {
      const char *key;
      const TsrYNode *map;
      TsrVec3 v;
    } given[] = {{"velocity", n, b->velocity},
                 {"angular_velocity", n, b->angular_velocity},
                 {"velocity", stride, b->stride_velocity}};
    for (size_t k = 0; k < sizeof given / sizeof *given; k++)
      if (given[k].map && (given[k].v.x != 0.0 || given[k].v.y != 0.0 || given[k].v.z != 0.0)) {
        tsr_model_error(c, tsr_ytree_get(given[k].map, given[k].key),
                        "%s%s: a fixed body does not move (remove it, or make the body move: fixed: false)",
                        given[k].map == stride ? "stride: " : "", given[k].key);
        ok = 0;
      }
  }

  if ((v = tsr_ytree_get(n, "material"))) {
    int k = tsr_model_material_index(c, m, v);
    if (k < 0) ok = 0;
    b->material = k < 0 ? 0 : k;
  }
  if ((v = tsr_ytree_get(n, "group")) && !tsr_model_string(c, v, "group", &b->group)) ok = 0;
  if ((v = tsr_ytree_get(n, "group_every"))) {
    if (!tsr_ytree_get(n, "count")) {
      tsr_model_error(c, v, "group_every needs count (it applies to arrays)");
      ok = 0;
    } else if (!tsr_model_int(c, v, "group_every", 1, TSR_MAX_INT, &b->group_every)) {
      ok = 0;
    }
  }
  return ok;
}

int tsr_model_bodies(TsrLoadCtx *c, const TsrYNode *list, TsrModel *m, TsrBodyDecl **decls_out, int *n_decls_out) {
  *decls_out = NULL;
  *n_decls_out = 0;
  if (!list) return 1;
  if (list->kind != TSR_YNODE_SEQ) {
    tsr_model_error(c, list, "bodies: expected a sequence of bodies, got %s", tsr_ytree_describe(list));
    return 0;
  }
  int ok = 1, n_decls = 0;
  TsrBodyDecl *decls = calloc((size_t)list->n + 1, sizeof *decls);
  if (!decls) abort();
  for (int i = 0; i < list->n; i++) {
    BodyItem b;
    int first_shape, n_shapes;
    int item_ok = read_body(c, list->items[i], i, m, &b, &first_shape, &n_shapes);
    c->where[0] = '\0';
    ok &= item_ok;
    if (!b.name) continue;  // nothing to refer to; already reported
    long count = b.count ? b.count : 1;
    if (m->n_bodies + count > MAX_EXPANDED) {
      tsr_model_error(c, list->items[i], "too many bodies (more than %ld)", MAX_EXPANDED);
      free(decls);
      return 0;
    }
    decls[n_decls++] = (TsrBodyDecl){
        .name = b.name, .count = (int)b.count, .first = m->n_bodies, .node = tsr_ytree_get(list->items[i], "name")};
    // Expand the array. The shapes parsed once for element 0 are copied for
    // the others, with the owner index updated.
    for (long e = 0; e < count; e++) {
      m->bodies = tsr_model_grow(m->bodies, m->n_bodies, &c->body_cap, sizeof *m->bodies);
      TsrBodyDef *d = &m->bodies[m->n_bodies];
      memset(d, 0, sizeof *d);
      d->name = b.count ? tsr_model_sprintf("%s[%ld]", b.name, e) : tsr_model_strdup(b.name);
      d->fixed = b.fixed;
      d->mass = b.mass;
      d->inertia = b.inertia;
      d->position = tsr_v3_madd(b.position, b.stride_position, (double)e);
      d->orientation = b.orientation;
      d->velocity = b.fixed ? tsr_v3(0, 0, 0) : tsr_v3_madd(b.velocity, b.stride_velocity, (double)e);
      if (!tsr_v3_isfinite(d->position) || !tsr_v3_isfinite(d->velocity)) {  // (position 1e308 + 1e308: inf)
        tsr_model_error(c, tsr_ytree_get(list->items[i], "stride"),
                        "element %ld's %s is not finite (stride x index overflows)", e,
                        tsr_v3_isfinite(d->position) ? "velocity" : "position");
        free(d->name);
        free(decls);
        return 0;
      }
      d->angular_velocity = b.fixed ? tsr_v3(0, 0, 0) : b.angular_velocity;
      d->material = b.material;
      if (b.group_every > 0)
        d->group = tsr_model_sprintf("%s/%ld", b.group ? b.group : b.name, e / b.group_every);
      else
        d->group = tsr_model_strdup(b.group);
      d->mark = list->items[i]->mark;
      if (e == 0) {
        d->first_shape = first_shape;
      } else {
        d->first_shape = m->n_shapes;
        for (int k = 0; k < n_shapes; k++) {
          m->shapes = tsr_model_grow(m->shapes, m->n_shapes, &c->shape_cap, sizeof *m->shapes);
          m->shapes[m->n_shapes] = m->shapes[first_shape + k];
          m->shapes[m->n_shapes].body = m->n_bodies;
          m->n_shapes++;
        }
      }
      d->shape_count = n_shapes;
      m->n_bodies++;
    }
  }
  const char **names = malloc((size_t)(n_decls + 1) * sizeof *names);
  const TsrYNode **nodes = malloc((size_t)(n_decls + 1) * sizeof *nodes);
  if (!names || !nodes) abort();
  for (int i = 0; i < n_decls; i++) names[i] = decls[i].name, nodes[i] = decls[i].node;
  int before = c->errors;
  tsr_model_check_duplicates(c, "body", names, nodes, n_decls);
  if (c->errors != before) ok = 0;
  free(names);
  free(nodes);
  *decls_out = decls;
  *n_decls_out = n_decls;
  return ok;
}

int tsr_model_find_body(const TsrModel *m, const char *name) {
  for (int i = 0; m && name && i < m->n_bodies; i++)
    if (strcmp(m->bodies[i].name, name) == 0) return i;
  return -1;
}
