// SPDX-License-Identifier: MIT
// Where the time of a direct-bpp step goes, next to the floor a direct solver
// can reach: one CHOLMOD factorisation and solve of the same A (called here
// directly, supernodal, AMD ordering analysed once), on the same matrix the
// solver saw at each sampled step.
//
//   bench_direct MODEL.yaml [STEPS] [--set KEY=VALUE]...
//
// Prints medians (ms) over the steps: whole step, solve stage (assembly +
// BPP), assembly alone, BPP alone, and the CHOLMOD floor (numeric factorisation
// + solve; the one-off symbolic analysis is reported apart).
#include <cholmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "linalg/chol.h"
#include "model/model.h"
#include "sim/world.h"
#include "util/clock.h"

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n ? (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_direct MODEL.yaml [STEPS] [--set KEY=VALUE]...\n");
    return 2;
  }
  tsr_chol_blas_single_thread();
  int steps = argc > 2 && argv[2][0] != '-' ? atoi(argv[2]) : 60;
  const char *sets[64];
  int n_sets = 0;
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--set") && i + 1 < argc && n_sets < 64) sets[n_sets++] = argv[++i];
  TsrModel m;
  if (bench_load_model(argv[1], sets, n_sets, &m)) return 2;
  m.settings.solver.type = TSR_SOLVER_DIRECT_BPP;
  TsrWorld w;
  char err[256];
  if (tsr_world_create(&w, &m, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  double *t_step = calloc((size_t)steps, sizeof(double)), *t_solve = calloc((size_t)steps, sizeof(double));
  double *t_asm = calloc((size_t)steps, sizeof(double)), *t_bpp = calloc((size_t)steps, sizeof(double));
  double *t_floor = calloc((size_t)steps, sizeof(double));
  cholmod_common c;
  cholmod_start(&c);
  c.supernodal = CHOLMOD_AUTO;
  cholmod_factor *L = NULL;
  double t_analyse = 0;
  int rows = 0;
  long nnz = 0;
  for (int s = 0; s < steps; s++) {
    if (tsr_world_step(&w)) {
      fprintf(stderr, "step %d failed\n", s + 1);
      return 1;
    }
    t_step[s] = w.stats.step_seconds;
    t_asm[s] = w.assemble_seconds;
    t_bpp[s] = w.stats.solve_seconds;  // the MLCP solve alone
    t_solve[s] = t_asm[s] + t_bpp[s];
    // The floor: factorise and solve the same A once, with CHOLMOD alone.
    const TsrMlcp *p = &w.mlcp;
    rows = p->m;
    nnz = p->Ap[p->m];
    cholmod_sparse A = {0};
    A.nrow = A.ncol = (size_t)p->m;
    A.nzmax = (size_t)nnz;
    A.p = p->Ap;
    A.i = p->Ai;
    A.x = p->Ax;
    A.stype = -1;  // use the lower triangle of the full storage
    A.itype = CHOLMOD_INT;
    A.xtype = CHOLMOD_REAL;
    A.dtype = CHOLMOD_DOUBLE;
    A.sorted = 1;
    A.packed = 1;
    if (!L) {
      double t0 = tsr_now_seconds();
      L = cholmod_analyze(&A, &c);
      t_analyse = tsr_now_seconds() - t0;
    }
    cholmod_dense *B = cholmod_zeros(A.nrow, 1, CHOLMOD_REAL, &c);
    memcpy(B->x, p->b, (size_t)p->m * sizeof(double));
    double t0 = tsr_now_seconds();
    cholmod_factorize(&A, L, &c);
    cholmod_dense *X = cholmod_solve(CHOLMOD_A, L, B, &c);
    t_floor[s] = tsr_now_seconds() - t0;
    cholmod_free_dense(&X, &c);
    cholmod_free_dense(&B, &c);
  }
  printf("model: %s, %d bodies, %d rows, nnz(A) = %ld, %d steps\n", m.name, m.n_bodies, rows, nnz, steps);
  printf(
      "median ms: step %.3f | solve stage %.3f = assembly %.3f + BPP %.3f | CHOLMOD floor (factor+solve) %.3f "
      "(analysis once: %.3f)\n",
      1e3 * median(t_step, steps), 1e3 * median(t_solve, steps), 1e3 * median(t_asm, steps), 1e3 * median(t_bpp, steps),
      1e3 * median(t_floor, steps), 1e3 * t_analyse);
  cholmod_free_factor(&L, &c);
  cholmod_finish(&c);
  tsr_world_free(&w);
  tsr_model_free(&m);
  free(t_step), free(t_solve), free(t_asm), free(t_bpp), free(t_floor);
  return 0;
}
