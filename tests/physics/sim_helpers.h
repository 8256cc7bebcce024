// SPDX-License-Identifier: MIT
// Build a world from an inline YAML model for physics tests.
#ifndef TSR_SIM_HELPERS_H
#define TSR_SIM_HELPERS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/tsr_math.h"
#include "model/model.h"
#include "sim/world.h"

// The world of a model loaded with status rc (tsr_model_load*, diagnostics
// in d); exits the test with the loader's messages or the world's error when
// either fails, since nothing else can be checked then.
static inline void tsr_test_world_from(int rc, TsrDiag *d, const char *what, TsrModel *m, TsrWorld *w) {
  if (rc) {
    for (int i = 0; i < d->count; i++) fprintf(stderr, "%s\n", d->messages[i]);
    fprintf(stderr, "%s failed to load\n", what);
    exit(1);
  }
  tsr_diag_free(d);
  char err[256];
  if (tsr_world_create(w, m, err, sizeof err)) {
    fprintf(stderr, "world: %s\n", err);
    exit(1);
  }
}

// Loads `yaml` (with optional overrides) and creates a world.
static inline void tsr_test_world(const char *yaml, const char *const *sets, int n_sets, TsrModel *m, TsrWorld *w) {
  TsrDiag d;
  tsr_diag_init(&d);
  tsr_test_world_from(tsr_model_load_string("test.yaml", yaml, strlen(yaml), sets, n_sets, m, &d), &d, "model", m, w);
}

// The same for examples/NAME (the directory in TSR_EXAMPLES, which meson
// sets): the test is skipped (exit 77) when TSR_EXAMPLES is not set.
static inline void tsr_test_example_world(const char *name, const char *const *sets, int n_sets, TsrModel *m,
                                          TsrWorld *w) {
  const char *dir = getenv("TSR_EXAMPLES");
  if (!dir) {
    fprintf(stderr, "SKIP: TSR_EXAMPLES not set\n");
    exit(77);
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  TsrDiag d;
  tsr_diag_init(&d);
  tsr_test_world_from(tsr_model_load(path, sets, n_sets, m, &d), &d, path, m, w);
}

static inline void tsr_test_world_free(TsrModel *m, TsrWorld *w) {
  tsr_world_free(w);
  tsr_model_free(m);
}

// The lowest and highest points of a single-shape body k along z.
static inline void tsr_test_z_range(const TsrWorld *w, const TsrModel *m, int k, double *lo, double *hi) {
  const TsrShapeDef *s = &m->shapes[m->bodies[k].first_shape];
  const double *p = s->params;
  *lo = INFINITY, *hi = -INFINITY;
  TsrVec3 x = w->bodies.x[k];
  TsrQuat q = w->bodies.q[k];
  if (s->type == TSR_SHAPE_SPHERE) {
    *lo = x.z - p[0], *hi = x.z + p[0];
    return;
  }
  if (s->type == TSR_SHAPE_CAPSULE) {
    for (int e = 0; e < 2; e++) {
      double z = tsr_v3_add(x, tsr_q_rotate(q, tsr_v3(0, 0, (e ? 0.5 : -0.5) * p[1]))).z;
      *lo = fmin(*lo, z - p[0]), *hi = fmax(*hi, z + p[0]);
    }
    return;
  }
  int cyl = s->type == TSR_SHAPE_CYLINDER;
  for (int k2 = 0; k2 < (cyl ? 720 : 8); k2++) {
    TsrVec3 l;
    if (cyl) {
      double t = (k2 / 2) * M_PI / 180.0;
      l = tsr_v3(p[0] * cos(t), p[0] * sin(t), (k2 & 1) ? 0.5 * p[1] : -0.5 * p[1]);
    } else {
      l = tsr_v3((k2 & 1 ? 0.5 : -0.5) * p[0], (k2 & 2 ? 0.5 : -0.5) * p[1], (k2 & 4 ? 0.5 : -0.5) * p[2]);
    }
    double z = tsr_v3_add(x, tsr_q_rotate(q, l)).z;
    *lo = fmin(*lo, z), *hi = fmax(*hi, z);
  }
}

#endif
