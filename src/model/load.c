// SPDX-License-Identifier: MIT
// Model loading: read the file, parse it into a tree, apply --set
// overrides, then check every section and build the TsrModel. Checking
// carries on after an error, so one run reports every problem it can.
#include "model/model_internal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_ID "tessera-model/1"

static const char *const top_keys[] = {"format",         "name",   "description", "settings", "materials",
                                       "material_pairs", "bodies", "joints",      NULL};
static const char *const settings_keys[] = {"step",         "duration", "steps",  "gravity", "solver",
                                            "partitioning", "contact",  "output", NULL};
static const char *const solver_keys[] = {
    "type",    "max_coupling_iterations", "max_pivots", "index_tolerance", "iterations", "tolerance", "warm_start",
    "threads", "geometric_stiffness",     NULL};
static const char *const partitioning_keys[] = {"method",     "refine",    "max_bodies", "every",
                                                "mass_ratio", "mix_ratio", NULL};
static const char *const contact_keys[] = {"max_per_pair", "margin", "friction_refresh", NULL};
static const char *const output_keys[] = {"every", "constraints", "contacts", NULL};
static const char *const material_keys[] = {"name", "friction", "compliance", "damping", NULL};
static const char *const pair_keys[] = {"materials", "friction", "compliance", "damping", NULL};

// Defaults of a material not given, or of a key missing in one.
#define DEFAULT_FRICTION 0.5
#define DEFAULT_MATERIAL_COMPLIANCE 1e-9
#define DEFAULT_MATERIAL_DAMPING 2.0

static void default_settings(TsrSettings *s) {
  memset(s, 0, sizeof *s);
  s->step = 1.0 / 60.0;
  s->duration = 1.0;
  s->gravity = tsr_v3(0, 0, -9.81);
  s->solver.type = TSR_SOLVER_DIRECT_BPP;
  s->solver.max_coupling_iterations = 0;  // unset: the solver's own k_max
  s->solver.max_pivots = 50;
  s->solver.index_tolerance = 1e-5;
  s->solver.iterations = 1000;
  s->solver.tolerance = 1e-9;
  s->solver.warm_start = 1;
  s->solver.geometric_stiffness = 1;
  s->solver.threads = 0;
  s->partitioning.method = TSR_PARTITION_SEMANTIC;
  s->partitioning.max_bodies = 16;
  s->partitioning.every = 1;
  s->partitioning.refine = TSR_REFINE_NONE;
  s->partitioning.mass_ratio = 10.0;
  s->partitioning.mix_ratio = 0.5;
  s->contact.max_per_pair = 4;
  s->contact.margin = 0.0;
  s->contact.friction_refresh = TSR_FRICTION_REFRESH_DEFAULT;
  s->output.every = 1;
  s->output.constraints = 1;
  s->output.contacts = 1;
}

// Optional integer key into an int field (min..max, max at most TSR_MAX_INT).
static int opt_int_field(TsrLoadCtx *c, const TsrYNode *map, const char *key, long min, long max, int *field) {
  long v;
  int r = tsr_model_opt_int(c, map, key, min, max, &v);
  if (r == 1) *field = (int)v;
  return r != 0;
}

static int read_settings(TsrLoadCtx *c, const TsrYNode *n, TsrSettings *s) {
  tsr_model_where(c, "settings");
  int ok = 1;
  const TsrYNode *v;
  if (n && tsr_model_check_map(c, n, "settings", settings_keys)) {
    const TsrYNode *t_step = tsr_ytree_get(n, "step");
    if (tsr_model_opt_number(c, n, "step", TSR_NUM_POSITIVE, &s->step) == 0) {
      ok = 0;
    } else if (t_step && s->step * s->step < DBL_MIN) {
      // Every row divides by h^2 (joints/spook.h: C = 4 eps / (h^2 (1 + 4 d))):
      // below sqrt(DBL_MIN) h^2 is subnormal or 0, C is inf, and every joint
      // and contact infinitely soft (1e-200 ran, and held nothing).
      tsr_model_error(c, t_step,
                      "step must be at least %g s, got %g: every constraint row divides by h^2, and below that h^2 is "
                      "under %g (DBL_MIN, the smallest normal double)",
                      sqrt(DBL_MIN), s->step, DBL_MIN);
      ok = 0;
    }
    const TsrYNode *dur = tsr_ytree_get(n, "duration"), *steps = tsr_ytree_get(n, "steps");
    if (dur && steps) {
      tsr_model_error(c, steps, "give either 'duration' or 'steps', not both");
      ok = 0;
    } else if (steps) {
      if (tsr_model_int(c, steps, "steps", 1, TSR_MAX_INT, &s->steps))
        s->duration = (double)s->steps * s->step;
      else
        ok = 0;
    } else if (dur) {
      ok &= tsr_model_number(c, dur, "duration", TSR_NUM_POSITIVE, &s->duration);
    }
    ok &= tsr_model_opt_vec3(c, n, "gravity", 0, &s->gravity) != 0;
    if ((v = tsr_ytree_get(n, "solver"))) {
      tsr_model_where(c, "settings.solver");
      if (tsr_model_check_map(c, v, "settings.solver", solver_keys)) {
        const TsrYNode *t = tsr_ytree_get(v, "type");
        int type;
        if (t) {
          if (tsr_model_enum(c, t, "solver type", tsr_solver_names, TSR_SOLVER_COUNT, &type))
            s->solver.type = (TsrSolverType)type;
          else
            ok = 0;
        }
        ok &= opt_int_field(c, v, "max_coupling_iterations", 1, TSR_MAX_INT, &s->solver.max_coupling_iterations);
        ok &= opt_int_field(c, v, "max_pivots", 1, TSR_MAX_PIVOTS, &s->solver.max_pivots);
        ok &= tsr_model_opt_number(c, v, "index_tolerance", TSR_NUM_NONNEG, &s->solver.index_tolerance) != 0;
        ok &= opt_int_field(c, v, "iterations", 1, TSR_MAX_INT, &s->solver.iterations);
        ok &= tsr_model_opt_number(c, v, "tolerance", TSR_NUM_NONNEG, &s->solver.tolerance) != 0;
        ok &= tsr_model_opt_bool(c, v, "warm_start", &s->solver.warm_start) != 0;
        ok &= tsr_model_opt_bool(c, v, "geometric_stiffness", &s->solver.geometric_stiffness) != 0;
        ok &= opt_int_field(c, v, "threads", 0, TSR_MAX_THREADS, &s->solver.threads);
      } else {
        ok = 0;
      }
    }
    if ((v = tsr_ytree_get(n, "partitioning"))) {
      tsr_model_where(c, "settings.partitioning");
      if (tsr_model_check_map(c, v, "settings.partitioning", partitioning_keys)) {
        const TsrYNode *t = tsr_ytree_get(v, "method");
        int method;
        if (t) {
          if (tsr_model_enum(c, t, "partition method", tsr_partition_names, TSR_PARTITION_COUNT, &method))
            s->partitioning.method = (TsrPartitionMethod)method;
          else
            ok = 0;
        }
        const TsrYNode *r = tsr_ytree_get(v, "refine");
        int refine;
        if (r) {
          if (tsr_model_enum(c, r, "partition refinement", tsr_refine_names, TSR_REFINE_COUNT, &refine))
            s->partitioning.refine = (TsrPartitionRefine)refine;
          else
            ok = 0;
        }
        ok &= opt_int_field(c, v, "max_bodies", 1, TSR_MAX_INT, &s->partitioning.max_bodies);
        ok &= opt_int_field(c, v, "every", 1, TSR_MAX_INT, &s->partitioning.every);
        const TsrYNode *t_mr = tsr_ytree_get(v, "mass_ratio"), *t_mix = tsr_ytree_get(v, "mix_ratio");
        if (t_mr) {
          if (!tsr_model_number(c, t_mr, "mass_ratio", TSR_NUM_POSITIVE, &s->partitioning.mass_ratio))
            ok = 0;
          else if (!(s->partitioning.mass_ratio > 1.0)) {
            tsr_model_error(c, t_mr, "mass_ratio (tau_MR) must be > 1, got %g", s->partitioning.mass_ratio);
            ok = 0;
          }
        }
        if (t_mix) {
          if (!tsr_model_number(c, t_mix, "mix_ratio", TSR_NUM_POSITIVE, &s->partitioning.mix_ratio))
            ok = 0;
          else if (!(s->partitioning.mix_ratio < 1.0)) {
            tsr_model_error(c, t_mix, "mix_ratio (tau_mix) must lie in (0, 1), got %g", s->partitioning.mix_ratio);
            ok = 0;
          }
        }
      } else {
        ok = 0;
      }
    }
    if ((v = tsr_ytree_get(n, "contact"))) {
      tsr_model_where(c, "settings.contact");
      if (tsr_model_check_map(c, v, "settings.contact", contact_keys)) {
        ok &= opt_int_field(c, v, "max_per_pair", 1, TSR_MAX_INT, &s->contact.max_per_pair);
        const TsrYNode *t_mg = tsr_ytree_get(v, "margin");
        if (tsr_model_opt_number(c, v, "margin", TSR_NUM_NONNEG, &s->contact.margin) == 0) {
          ok = 0;
        } else if (t_mg && s->contact.margin > TSR_SHAPE_SIZE_MAX) {  // (1e150: an ODE assertion in cullPoints)
          tsr_model_error(c, t_mg, "margin must be at most %g m, as a shape's lengths, got %g", TSR_SHAPE_SIZE_MAX,
                          s->contact.margin);
          ok = 0;
        }
        const TsrYNode *t_fr = tsr_ytree_get(v, "friction_refresh");
        if (!opt_int_field(c, v, "friction_refresh", 0, TSR_MAX_INT, &s->contact.friction_refresh)) {
          ok = 0;
        } else if (t_fr && s->contact.friction_refresh > TSR_FRICTION_REFRESH_MAX) {
          tsr_model_error(c, t_fr, "friction_refresh must be at most %d re-solves per step, got %d",
                          TSR_FRICTION_REFRESH_MAX, s->contact.friction_refresh);
          ok = 0;
        }
      } else {
        ok = 0;
      }
    }
    if ((v = tsr_ytree_get(n, "output"))) {
      tsr_model_where(c, "settings.output");
      if (tsr_model_check_map(c, v, "settings.output", output_keys)) {
        ok &= opt_int_field(c, v, "every", 1, TSR_MAX_INT, &s->output.every);
        ok &= tsr_model_opt_bool(c, v, "constraints", &s->output.constraints) != 0;
        ok &= tsr_model_opt_bool(c, v, "contacts", &s->output.contacts) != 0;
      } else {
        ok = 0;
      }
    }
  } else if (n) {
    ok = 0;
  }
  if (!s->steps) {
    double steps;
    char why[160];
    if (tsr_model_steps_for(s->duration, s->step, &steps, why, (int)sizeof why)) {
      const TsrYNode *at = tsr_ytree_get(n, "duration");
      tsr_model_where(c, "settings");
      tsr_model_error(c, at ? at : n, "%s", why);
      ok = 0;
    } else {
      s->steps = (long)steps;
    }
  }
  c->where[0] = '\0';
  return ok;
}

int tsr_model_steps_for(double duration, double step, double *steps, char *why, int whylen) {
  *steps = round(duration / step);
  if (!(*steps >= 1)) {  // NaN too
    snprintf(why, (size_t)whylen, "duration %g s with step %g s gives no step; need at least 1", duration, step);
    return -1;
  }
  if (!(*steps > (double)TSR_MAX_STEPS)) return 0;
  snprintf(why, (size_t)whylen, "duration %g s with step %g s gives %.3g steps; at most %ld", duration, step, *steps,
           TSR_MAX_STEPS);
  return 1;
}

int tsr_model_material_index(TsrLoadCtx *c, const TsrModel *m, const TsrYNode *n) {
  const char *s;
  if (!tsr_model_string(c, n, "material", &s)) return -1;
  for (int i = 0; i < m->n_materials; i++)
    if (strcmp(m->materials[i].name, s) == 0) return i;
  const char **names = malloc((size_t)(m->n_materials + 1) * sizeof *names);
  if (!names) abort();
  for (int i = 0; i < m->n_materials; i++) names[i] = m->materials[i].name;
  char dym[160];
  tsr_model_did_you_mean(dym, sizeof dym, s, names, m->n_materials);
  free(names);
  tsr_model_error(c, n, "unknown material '%s'%s", s, dym);
  return -1;
}

static int read_materials(TsrLoadCtx *c, const TsrYNode *list, TsrModel *m) {
  int ok = 1;
  if (list && list->kind != TSR_YNODE_SEQ) {
    tsr_model_error(c, list, "materials: expected a sequence of materials, got %s", tsr_ytree_describe(list));
    ok = 0;
    list = NULL;
  }
  int n = list ? list->n : 0;
  m->materials = calloc((size_t)(n ? n : 1), sizeof *m->materials);
  if (!m->materials) abort();
  if (!n) {
    // MODEL.md: the first material is the default; a model with none gets one.
    m->materials[0] = (TsrMaterial){
        tsr_model_strdup("default"), DEFAULT_FRICTION, DEFAULT_MATERIAL_COMPLIANCE, DEFAULT_MATERIAL_DAMPING, {1, 1}};
    m->n_materials = 1;
    return ok;
  }
  const char **names = calloc((size_t)n, sizeof *names);
  const TsrYNode **nodes = calloc((size_t)n, sizeof *nodes);
  if (!names || !nodes) abort();
  int n_named = 0;
  for (int i = 0; i < n; i++) {
    const TsrYNode *item = list->items[i];
    tsr_model_where(c, "material #%d", i + 1);
    TsrMaterial mat = {NULL, DEFAULT_FRICTION, DEFAULT_MATERIAL_COMPLIANCE, DEFAULT_MATERIAL_DAMPING, item->mark};
    const char *name = NULL;
    if (item->kind != TSR_YNODE_MAP) {
      tsr_model_error(c, item, "a material must be a mapping of keys, got %s", tsr_ytree_describe(item));
      ok = 0;
    } else {
      const TsrYNode *v = tsr_model_require(c, item, "name");
      if (v && tsr_model_check_name(c, v, "material", &name)) {
        tsr_model_where(c, "material '%s'", name);
        names[n_named] = name;
        nodes[n_named++] = v;
      } else {
        ok = 0;
      }
      ok &= tsr_model_check_map(c, item, "a material", material_keys);
      ok &= tsr_model_opt_number(c, item, "friction", TSR_NUM_NONNEG, &mat.friction) != 0;
      ok &= tsr_model_opt_number(c, item, "compliance", TSR_NUM_NONNEG, &mat.compliance) != 0;
      ok &= tsr_model_opt_number(c, item, "damping", TSR_NUM_POSITIVE, &mat.damping) != 0;
    }
    // Unnamed materials keep a placeholder so indices stay aligned.
    mat.name = tsr_model_strdup(name ? name : "");
    m->materials[m->n_materials++] = mat;
  }
  c->where[0] = '\0';
  int before = c->errors;
  tsr_model_check_duplicates(c, "material", names, nodes, n_named);
  if (c->errors != before) ok = 0;
  free(names);
  free(nodes);
  return ok;
}

// One valid `material_pairs` entry, for finding repeats: the pair as
// indices, smaller first (a pair is unordered), and where it was given.
typedef struct {
  int lo, hi;
  int entry;
  const TsrYNode *node;  // its `materials: [A, B]`
} PairKey;

static int cmp_pair(const void *a, const void *b) {
  const PairKey *x = a, *y = b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
  return x->entry < y->entry ? -1 : x->entry > y->entry;
}

// Reports every entry whose pair an earlier entry gave ([steel, rubber]
// then [rubber, steel], or the same twice): the last one silently won.
// Sorted, as names are (tsr_model_check_duplicates), for generated models.
static void check_duplicate_pairs(TsrLoadCtx *c, PairKey *keys, int n) {
  qsort(keys, (size_t)n, sizeof *keys, cmp_pair);
  for (int i = 1, first = 0; i < n; i++) {
    if (keys[i].lo != keys[first].lo || keys[i].hi != keys[first].hi) {
      first = i;
      continue;
    }
    const TsrYNode *a = keys[i].node, *b = keys[first].node;
    int same_order = strcmp(a->items[0]->value, b->items[0]->value) == 0;
    char as[160] = "";
    if (!same_order)
      snprintf(as, sizeof as, ", as [%.60s, %.60s]: the order does not matter", b->items[0]->value, b->items[1]->value);
    tsr_model_error(c, a, "duplicate material pair [%s, %s] (first given at line %d, column %d%s)", a->items[0]->value,
                    a->items[1]->value, b->mark.line, b->mark.col, as);
  }
}

static int read_material_pairs(TsrLoadCtx *c, const TsrYNode *list, TsrModel *m) {
  if (!list) return 1;
  if (list->kind != TSR_YNODE_SEQ) {
    tsr_model_error(c, list, "material_pairs: expected a sequence, got %s", tsr_ytree_describe(list));
    return 0;
  }
  int ok = 1, n_keys = 0;
  m->material_pairs = calloc((size_t)list->n + 1, sizeof *m->material_pairs);
  PairKey *keys = calloc((size_t)list->n + 1, sizeof *keys);
  if (!m->material_pairs || !keys) abort();
  for (int i = 0; i < list->n; i++) {
    const TsrYNode *item = list->items[i];
    tsr_model_where(c, "material pair #%d", i + 1);
    if (!tsr_model_check_map(c, item, "a material pair", pair_keys)) {
      ok = 0;
      continue;
    }
    TsrMaterialPair p = {{-1, -1}, NAN, NAN, NAN, item->mark};
    const TsrYNode *v = tsr_model_require(c, item, "materials");
    if (v && (v->kind != TSR_YNODE_SEQ || v->n != 2)) {
      tsr_model_error(c, v, "materials: expected two material names [A, B], got %s",
                      v->kind == TSR_YNODE_SEQ ? "a sequence of another length" : tsr_ytree_describe(v));
      ok = 0;
    } else if (v) {
      p.material[0] = tsr_model_material_index(c, m, v->items[0]);
      p.material[1] = tsr_model_material_index(c, m, v->items[1]);
      if (p.material[0] >= 0 && p.material[1] >= 0)
        keys[n_keys++] = (PairKey){p.material[0] < p.material[1] ? p.material[0] : p.material[1],
                                   p.material[0] < p.material[1] ? p.material[1] : p.material[0], i, v};
      else
        ok = 0;
    } else {
      ok = 0;
    }
    ok &= tsr_model_opt_number(c, item, "friction", TSR_NUM_NONNEG, &p.friction) != 0;
    ok &= tsr_model_opt_number(c, item, "compliance", TSR_NUM_NONNEG, &p.compliance) != 0;
    ok &= tsr_model_opt_number(c, item, "damping", TSR_NUM_POSITIVE, &p.damping) != 0;
    m->material_pairs[m->n_material_pairs++] = p;
  }
  c->where[0] = '\0';
  int before = c->errors;
  check_duplicate_pairs(c, keys, n_keys);
  if (c->errors != before) ok = 0;
  free(keys);
  return ok;
}

// Checks the tree and fills m. Returns 1 when the model is valid.
static int build(TsrLoadCtx *c, const TsrYNode *root, TsrModel *m) {
  int ok = tsr_model_check_map(c, root, "the model", top_keys);
  const TsrYNode *v = tsr_model_require(c, root, "format");
  const char *s;
  if (v && tsr_model_string(c, v, "format", &s)) {
    if (strcmp(s, FORMAT_ID) != 0) {
      tsr_model_error(c, v, "format: expected '" FORMAT_ID "', got '%s'", s);
      ok = 0;
    }
  } else {
    ok = 0;
  }
  if ((v = tsr_model_require(c, root, "name")) && tsr_model_string(c, v, "name", &s)) {
    if (strlen(s) > TSR_MODEL_NAME_MAX) {
      tsr_model_error(c, v, "name: at most %d bytes, got %zu", TSR_MODEL_NAME_MAX, strlen(s));
      ok = 0;
    }
    m->name = tsr_model_strdup(s);
  } else {
    ok = 0;
  }
  if ((v = tsr_ytree_get(root, "description"))) {
    // An empty description is fine; anything but a scalar is not.
    if (v->kind == TSR_YNODE_SCALAR && tsr_ytree_scalar_type(v, NULL, NULL) == TSR_YSCALAR_NULL)
      m->description = tsr_model_strdup("");
    else if (tsr_model_string(c, v, "description", &s))
      m->description = tsr_model_strdup(s);
    else
      ok = 0;
  }
  default_settings(&m->settings);
  ok &= read_settings(c, tsr_ytree_get(root, "settings"), &m->settings);
  ok &= read_materials(c, tsr_ytree_get(root, "materials"), m);
  ok &= read_material_pairs(c, tsr_ytree_get(root, "material_pairs"), m);
  TsrBodyDecl *decls = NULL;
  int n_decls = 0;
  const TsrYNode *bodies = tsr_ytree_get(root, "bodies");
  m->bodies_mark = bodies ? bodies->mark : root->mark;
  ok &= tsr_model_bodies(c, bodies, m, &decls, &n_decls);
  ok &= tsr_model_joints(c, tsr_ytree_get(root, "joints"), decls, n_decls, m);
  free(decls);
  return ok && c->errors == 0;
}

int tsr_model_load_string(const char *path, const char *text, size_t len, const char *const *overrides, int n_overrides,
                          TsrModel *out, TsrDiag *diag) {
  memset(out, 0, sizeof *out);
  if (!path) path = "<model>";
  int before = diag->count;
  TsrYNode *root = NULL;
  if (tsr_ytree_parse(path, text, len, 0, 0, &root, diag) != 0) return -1;
  TsrLoadCtx c = {.diag = diag, .path = path};
  if (!root || (root->kind == TSR_YNODE_SCALAR && tsr_ytree_scalar_type(root, NULL, NULL) == TSR_YSCALAR_NULL)) {
    TsrMark first = {1, 1};
    tsr_diag_error(diag, path, &first, "empty model file");
    tsr_ytree_free(root);
    return -1;
  }
  if (root->kind != TSR_YNODE_MAP) {
    tsr_model_error(&c, root, "a model must be a mapping of keys (format, name, settings, bodies, ...), got %s",
                    tsr_ytree_describe(root));
    tsr_model_flush(&c);
    tsr_ytree_free(root);
    return -1;
  }
  char **labels = calloc((size_t)(n_overrides > 0 ? n_overrides : 1), sizeof *labels);
  if (!labels) abort();
  int override_errors = tsr_model_apply_overrides(root, overrides, n_overrides, labels, diag);
  TsrModel m = {0};
  int ok = build(&c, root, &m) && override_errors == 0 && diag->count == before;
  tsr_model_flush(&c);
  tsr_ytree_free(root);
  for (int i = 0; i < n_overrides; i++) free(labels[i]);
  free(labels);
  if (!ok) {
    tsr_model_free(&m);
    return -1;
  }
  m.path = tsr_model_strdup(path);
  m.source = malloc(len + 1);
  if (!m.source) abort();
  memcpy(m.source, text, len);
  m.source[len] = '\0';
  *out = m;
  return 0;
}

int tsr_model_load(const char *path, const char *const *overrides, int n_overrides, TsrModel *out, TsrDiag *diag) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) {
    tsr_diag_error(diag, path, NULL, "cannot open: %s", strerror(errno));
    return -1;
  }
  size_t cap = 1 << 16, len = 0;
  char *text = malloc(cap);
  if (!text) abort();
  for (;;) {
    size_t got = fread(text + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
    if (len == cap) {
      cap *= 2;
      char *t = realloc(text, cap);
      if (!t) abort();
      text = t;
    }
  }
  if (ferror(f)) {
    tsr_diag_error(diag, path, NULL, "cannot read: %s", strerror(errno));
    fclose(f);
    free(text);
    return -1;
  }
  fclose(f);
  int r = tsr_model_load_string(path, text, len, overrides, n_overrides, out, diag);
  free(text);
  return r;
}

void tsr_model_free(TsrModel *m) {
  if (!m) return;
  free(m->path);
  free(m->source);
  free(m->name);
  free(m->description);
  for (int i = 0; i < m->n_bodies; i++) {
    free(m->bodies[i].name);
    free(m->bodies[i].group);
  }
  free(m->bodies);
  free(m->shapes);
  for (int i = 0; i < m->n_joints; i++) free(m->joints[i].name);
  free(m->joints);
  for (int i = 0; i < m->n_materials; i++) free(m->materials[i].name);
  free(m->materials);
  free(m->material_pairs);
  memset(m, 0, sizeof *m);
}
