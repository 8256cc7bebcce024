// SPDX-License-Identifier: MIT
// model_lint MODEL.yaml [--set KEY=VALUE]...
// Loads a model with tsr_model_load and prints every diagnostic to stderr.
// Exit status as `tessera check`: 0 valid, 2 invalid or bad usage. Used by
// test_schema.py until the CLI's check command exists, and handy by hand.
#include <stdio.h>
#include <string.h>

#include "model/model.h"

int main(int argc, char **argv) {
  const char *path = NULL;
  const char *sets[64];
  int n_sets = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--set") == 0 && i + 1 < argc && n_sets < 64) {
      sets[n_sets++] = argv[++i];
    } else if (!path && argv[i][0] != '-') {
      path = argv[i];
    } else {
      fprintf(stderr, "usage: model_lint MODEL.yaml [--set KEY=VALUE]...\n");
      return 2;
    }
  }
  if (!path) {
    fprintf(stderr, "usage: model_lint MODEL.yaml [--set KEY=VALUE]...\n");
    return 2;
  }
  TsrModel m;
  TsrDiag d;
  tsr_diag_init(&d);
  int r = tsr_model_load(path, sets, n_sets, &m, &d);
  for (int i = 0; i < d.count; i++) fprintf(stderr, "%s\n", d.messages[i]);
  tsr_diag_free(&d);
  if (r != 0) return 2;
  printf("%s: %d bodies, %d shapes, %d joints, %d materials, %ld steps of %g s, solver %s\n", m.name, m.n_bodies,
         m.n_shapes, m.n_joints, m.n_materials, m.settings.steps, m.settings.step,
         tsr_solver_type_name(m.settings.solver.type));
  tsr_model_free(&m);
  return 0;
}
