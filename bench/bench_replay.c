// SPDX-License-Identifier: MIT
// Solvers side by side on the same problems: the model runs with a reference
// solver, and at every step of a window each candidate solver solves the very
// MLCP the reference saw, from the same warm start (the reference's previous
// solution). Trajectories then cannot diverge between solvers, which
// `tessera compare` cannot avoid on chaotic scenes (a chain piling up), so
// per-step times and failures can be compared one to one.
//
//   bench_replay MODEL.yaml --solvers S1,S2,... [--ref S] [--from N] [--to N]
//                [--threads N] [--partition M] [--max-bodies N] [--csv FILE]
//                [--set KEY=VALUE]... [--ref-face on|off]
//
// --ref-face: the reference runs with projected Newton's face step on or off
// (solvers/pn.h), the candidates as TSR_PN_NO_FACE says: candidates with and
// without it then solve the same trajectory.
//
// Each candidate keeps its own solver instance from step to step (workspace,
// cached symbolic analyses), as in a run. Substructured candidates get the
// model's partition, built every step (its time is reported apart). The
// reference drives the trajectory; its own solves are not timed here.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "linalg/chol.h"
#include "model/model.h"
#include "partition/partition.h"
#include "sim/world.h"
#include "solvers/pn.h"
#include "solvers/solver.h"
#include "util/clock.h"

enum { MAX_CAND = 8 };

typedef struct {
  TsrSolverType type;
  TsrSolver *solver;
  int n;                   // steps recorded
  double *ms, *res, *rel;  // rel: tsr_mlcp_relative_residual
  int *conv, *k, *piv;
} Cand;

typedef struct {
  const TsrModel *model;
  int from, to, method, max_bodies, threads;
  Cand c[MAX_CAND];
  int nc;
  TsrPartition part;
  double part_s;
  int part_n;
  double *lam, *w, *sigma;
  int8_t *set;
  int cap;
  FILE *csv;
  int ref_face, cand_face;  // pn face step for the reference, the candidates
} Bench;

static void hook(const TsrWorld *w, void *ctx) {
  Bench *b = ctx;
  if (w->step < b->from || w->step >= b->to) return;
  const TsrMlcp *p = &w->mlcp;
  int m = p->m;
  if (m > b->cap) {
    b->lam = realloc(b->lam, (size_t)m * sizeof *b->lam);
    b->set = realloc(b->set, (size_t)m);
    b->w = realloc(b->w, (size_t)m * sizeof *b->w);
    b->sigma = realloc(b->sigma, (size_t)m * sizeof *b->sigma);
    if (!b->lam || !b->set || !b->w || !b->sigma) exit(1);
    b->cap = m;
  }
  int any_sub = 0;
  for (int i = 0; i < b->nc; i++) any_sub |= tsr_solver_substructured(b->c[i].type);
  if (any_sub) {
    double t0 = tsr_now_seconds();
    if (tsr_partition_build(b->model, &w->rows, (TsrPartitionMethod)b->method, b->max_bodies, &b->part)) exit(1);
    b->part_s += tsr_now_seconds() - t0;
    b->part_n++;
  }
  if (b->csv) fprintf(b->csv, "%ld,%d", w->step, m);
  tsr_pn_set_face(b->cand_face);
  for (int i = 0; i < b->nc; i++) {
    Cand *c = &b->c[i];
    memcpy(b->lam, w->lambda, (size_t)m * sizeof *b->lam);
    memcpy(b->set, w->index_set, (size_t)m);
    TsrSolveStats st;
    double t0 = tsr_now_seconds();
    int rc = tsr_solver_solve(c->solver, p, tsr_solver_substructured(c->type) ? &b->part : NULL, b->lam, b->set, &st);
    double dt = tsr_now_seconds() - t0;
    int j = c->n++;
    c->ms[j] = 1e3 * dt;
    c->res[j] = st.residual;
    c->rel[j] = tsr_mlcp_relative_residual_of(p, b->lam, b->w, b->sigma);
    c->conv[j] = rc == 0;
    c->k[j] = st.coupling_iterations;
    c->piv[j] = st.iterations;
    if (b->csv) fprintf(b->csv, ",%.4f,%.3e,%d,%d,%.3e", c->ms[j], c->res[j], c->k[j], c->piv[j], c->rel[j]);
  }
  if (b->csv) fputc('\n', b->csv);
  tsr_pn_set_face(b->ref_face);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(const double *v, int n) {
  if (n <= 0) return 0.0;
  double *s = malloc((size_t)n * sizeof *s);
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp);
  double r = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return r;
}

static int usage(void) {
  fprintf(
      stderr,
      "usage: bench_replay MODEL.yaml --solvers S1,S2,... [--ref S] [--from N] [--to N] [--threads N]\n"
      "                    [--partition M] [--max-bodies N] [--csv FILE] [--set KEY=VALUE]... [--ref-face on|off]\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  tsr_chol_blas_single_thread();
  const char *sets[64], *solvers = NULL, *ref = NULL, *csv = NULL, *method = NULL;
  int ref_face = -1;
  int n_sets = 0, from = 0, to = -1, threads = 0, max_bodies = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return usage();
    if (!strcmp(a, "--set") && n_sets < 64)
      sets[n_sets++] = v;
    else if (!strcmp(a, "--solvers"))
      solvers = v;
    else if (!strcmp(a, "--ref"))
      ref = v;
    else if (!strcmp(a, "--ref-face") && (!strcmp(v, "on") || !strcmp(v, "off")))
      ref_face = !strcmp(v, "on");
    else if (!strcmp(a, "--from"))
      from = atoi(v);
    else if (!strcmp(a, "--to"))
      to = atoi(v);
    else if (!strcmp(a, "--threads"))
      threads = atoi(v);
    else if (!strcmp(a, "--max-bodies"))
      max_bodies = atoi(v);
    else if (!strcmp(a, "--partition"))
      method = v;
    else if (!strcmp(a, "--csv"))
      csv = v;
    else
      return usage();
    i++;
  }
  if (!solvers) return usage();
  TsrModel m;
  if (bench_load_model(argv[1], sets, n_sets, &m)) return 2;
  Bench b = {.model = &m, .from = from, .threads = threads};
  b.method = m.settings.partitioning.method;
  b.max_bodies = max_bodies > 0 ? max_bodies : m.settings.partitioning.max_bodies;
  if (method) {
    int k = tsr_partition_method_from_name(method);
    if (k < 0) return fprintf(stderr, "unknown partition method '%s'\n", method), 2;
    b.method = k;
  }
  long total = (long)(m.settings.duration / m.settings.step + 0.5);
  b.to = to > 0 && to < total ? to : (int)total;
  if (b.from >= b.to) return usage();
  int ns = b.to - b.from;
  char list[512];
  snprintf(list, sizeof list, "%s", solvers);
  for (char *tok = strtok(list, ","); tok && b.nc < MAX_CAND; tok = strtok(NULL, ",")) {
    int t = tsr_solver_type_from_name(tok);
    if (t < 0) return fprintf(stderr, "unknown solver '%s'\n", tok), 2;
    Cand *c = &b.c[b.nc++];
    c->type = t;
    TsrSolverParams p;
    tsr_world_solver_params(&m, t, &p);
    // fbic: seed 000 Table 1's k_max unless the model sets another (as in
    // tessera compare)
    if (t == TSR_SOLVER_FBIC && p.max_coupling_iterations == 10) p.max_coupling_iterations = 250;
    p.threads = threads;
    char err[256];
    if (!(c->solver = tsr_solver_create(&p, err, sizeof err))) return fprintf(stderr, "%s\n", err), 1;
    c->ms = calloc((size_t)ns, sizeof *c->ms);
    c->res = calloc((size_t)ns, sizeof *c->res);
    c->rel = calloc((size_t)ns, sizeof *c->rel);
    c->conv = calloc((size_t)ns, sizeof *c->conv);
    c->k = calloc((size_t)ns, sizeof *c->k);
    c->piv = calloc((size_t)ns, sizeof *c->piv);
  }
  m.settings.solver.type = ref ? tsr_solver_type_from_name(ref) : TSR_SOLVER_DIRECT_BPP;
  if ((int)m.settings.solver.type < 0) return fprintf(stderr, "unknown solver '%s'\n", ref), 2;
  m.settings.solver.threads = threads;
  if (csv && !(b.csv = fopen(csv, "w"))) return fprintf(stderr, "cannot write %s\n", csv), 1;
  if (b.csv) {
    fprintf(b.csv, "step,rows");
    for (int i = 0; i < b.nc; i++) {
      const char *n = tsr_solver_type_name(b.c[i].type);
      fprintf(b.csv, ",%s_ms,%s_res,%s_k,%s_pivots,%s_rel", n, n, n, n, n);
    }
    fputc('\n', b.csv);
  }
  b.cand_face = tsr_pn_face();
  b.ref_face = ref_face >= 0 ? ref_face : b.cand_face;
  tsr_pn_set_face(b.ref_face);
  tsr_partition_init(&b.part);
  TsrWorld w;
  char err[256];
  if (tsr_world_create(&w, &m, err, sizeof err)) return fprintf(stderr, "%s\n", err), 1;
  w.solve_hook = hook;
  w.solve_hook_ctx = &b;
  for (int s = 0; s < b.to; s++) {
    int rc = tsr_world_step(&w);
    if (rc) {
      fprintf(stderr, "reference step %d failed (%d); stopping there\n", s + 1, rc);
      break;
    }
  }
  printf("model %s, steps [%d, %d), reference %s, %d threads\n", m.name, b.from, b.to,
         tsr_solver_type_name(m.settings.solver.type), threads);
  if (b.part_n) printf("partition (built every step): %.3f ms per step\n", 1e3 * b.part_s / b.part_n);
  printf("%-14s %9s %9s %9s %9s %8s %10s %9s %8s %9s\n", "solver", "mean ms", "median", "vs first", "med ratio",
         "% conv", "max res", "max rel", "avg k", "avg piv");
  double *ratio = calloc((size_t)ns + 1, sizeof *ratio);
  double mean0 = 0.0;
  for (int i = 0; i < b.nc; i++) {
    Cand *c = &b.c[i];
    double sum = 0.0, rmax = 0.0, relmax = 0.0, ks = 0.0, ps = 0.0;
    int nconv = 0;
    for (int j = 0; j < c->n; j++) {
      sum += c->ms[j], nconv += c->conv[j], ks += c->k[j], ps += c->piv[j];
      if (c->res[j] > rmax) rmax = c->res[j];
      if (!(c->rel[j] <= relmax)) relmax = c->rel[j];
      ratio[j] = c->ms[j] > 0 ? b.c[0].ms[j] / c->ms[j] : 0.0;
    }
    int n = c->n > 0 ? c->n : 1;
    double mean = sum / n;
    if (i == 0) mean0 = mean;
    printf("%-14s %9.3f %9.3f %8.2fx %8.2fx %8.1f %10.2e %9.1e %8.2f %9.1f\n", tsr_solver_type_name(c->type), mean,
           median(c->ms, c->n), mean > 0 ? mean0 / mean : 0.0, median(ratio, c->n), 100.0 * nconv / n, rmax, relmax,
           ks / n, ps / n);
  }
  for (int i = 0; i < b.nc; i++) {
    double su, sc, in, sb;
    if (tsr_solver_phase_seconds(b.c[i].solver, &su, &sc, &in, &sb)) continue;
    int n = b.c[i].n > 0 ? b.c[i].n : 1;
    printf("%-14s per step ms: setup %.3f  S_Gamma %.3f  interface %.3f  subsystems %.3f  fallback %.3f (%d)\n",
           tsr_solver_type_name(b.c[i].type), 1e3 * su / n, 1e3 * sc / n, 1e3 * in / n, 1e3 * sb / n,
           1e3 * tsr_solver_fallback_seconds(b.c[i].solver) / n, tsr_solver_fallbacks(b.c[i].solver));
    double sl, bl, mg;
    if (!tsr_solver_critical_seconds(b.c[i].solver, &sl, &bl, &mg))
      printf("%-14s longest ms:  S_Gamma block %.3f  subsystem %.3f  merged re-runs %.3f\n",
             tsr_solver_type_name(b.c[i].type), 1e3 * sl / n, 1e3 * bl / n, 1e3 * mg / n);
  }
  printf(
      "(vs first: ratio of means, the first solver's over this one's; med ratio: median of the per-step ratios;\n"
      " max rel: largest residual of a row relative to its own scale, tsr_mlcp_relative_residual)\n");
  free(ratio);
  if (b.csv) fclose(b.csv);
  tsr_world_free(&w);
  for (int i = 0; i < b.nc; i++) {
    tsr_solver_free(&b.c[i].solver);
    free(b.c[i].ms), free(b.c[i].res), free(b.c[i].rel), free(b.c[i].conv), free(b.c[i].k), free(b.c[i].piv);
  }
  tsr_partition_free(&b.part);
  free(b.lam), free(b.set), free(b.w), free(b.sigma);
  tsr_model_free(&m);
  return 0;
}
