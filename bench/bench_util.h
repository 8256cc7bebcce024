// SPDX-License-Identifier: MIT
// Shared by the benchmark programs of bench/.
#ifndef TSR_BENCH_UTIL_H
#define TSR_BENCH_UTIL_H

#include <stdio.h>

#include "model/model.h"

// Loads path with the --set overrides; prints the diagnostics and returns 2
// (the exit status) when it cannot, else 0.
static inline int bench_load_model(const char *path, const char *const *sets, int n_sets, TsrModel *m) {
  TsrDiag d;
  tsr_diag_init(&d);
  int rc = tsr_model_load(path, sets, n_sets, m, &d);
  if (rc)
    for (int i = 0; i < d.count; i++) fprintf(stderr, "%s\n", d.messages[i]);
  tsr_diag_free(&d);
  return rc ? 2 : 0;
}

#endif
