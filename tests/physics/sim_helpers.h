// SPDX-License-Identifier: MIT
// Build a world from an inline YAML model for physics tests.
#ifndef TSR_SIM_HELPERS_H
#define TSR_SIM_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "sim/world.h"

// Loads `yaml` (with optional overrides) and creates a world; exits the test
// with a message when either fails, since nothing else can be checked then.
static inline void tsr_test_world(const char *yaml, const char *const *sets, int n_sets, TsrModel *m, TsrWorld *w) {
  TsrDiag d;
  tsr_diag_init(&d);
  if (tsr_model_load_string("test.yaml", yaml, strlen(yaml), sets, n_sets, m, &d)) {
    for (int i = 0; i < d.count; i++) fprintf(stderr, "%s\n", d.messages[i]);
    fprintf(stderr, "model failed to load\n");
    exit(1);
  }
  tsr_diag_free(&d);
  char err[256];
  if (tsr_world_create(w, m, err, sizeof err)) {
    fprintf(stderr, "world: %s\n", err);
    exit(1);
  }
}

static inline void tsr_test_world_free(TsrModel *m, TsrWorld *w) {
  tsr_world_free(w);
  tsr_model_free(m);
}

#endif
