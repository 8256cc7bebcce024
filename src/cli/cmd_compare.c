// SPDX-License-Identifier: MIT
// `tessera compare MODEL.yaml --solvers a,b,c [run options]`: runs the model
// in-process once per solver (no files) and prints one table shaped like
// seed 000 Table 3: mean and median MLCP solve time, speedup of the mean over
// direct-bpp (when it is in the list), mean coupling iterations k, % of steps
// at k_max, median MLCP error (Eq. 29), max joint error, max penetration.
// A second table splits the substructured solvers' time per step into
// partition, subsystem extraction, S_Gamma, interface and subsystem solves;
// a third gives the critical paths of the two parallel phases (the longest
// S_Gamma block and the longest subsystem solve of each coupling iteration)
// and the time spent in merged re-runs (part of the phases above).
// --replay S times the solvers on the MLCPs of one run instead
// (compare_replay.c).
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "solvers/stop.h"
#include "cli/compare.h"
#include "cli/options.h"
#include "model/model.h"
#include "sim/world.h"

static const char compare_usage[] =
    "usage: tessera compare MODEL.yaml --solvers S1,S2,... [options]\n"
    "\n"
    "  --solvers LIST        comma-separated: direct-bpp, pgs, pgs-sm, schur-bpp,\n"
    "                        schur-pgs-sm, fbic (default: all six)\n"
    "  --partition M         semantic | mindp | maxdp | bfs | mass-ratio | mix | metis | none\n"
    "                        (substructured solvers)\n"
    "  --refine R            none | kl | fm (after an automatic method)\n"
    "  --max-bodies N        bodies per subsystem for the automatic methods\n"
    "  --threads N           OpenMP threads (0 = every core; at most 1024)\n"
    "  --steps N             number of steps to simulate (default: the model's whole\n"
    "                        duration; see BENCHMARKS.md, \"Whole runs\")\n"
    "  --duration T          simulated time, s\n"
    "  --set KEY=VALUE       override any model field; may be repeated\n"
    "  --json FILE           also write every number of the table (and the phase\n"
    "                        split, fallbacks, subsystem sizes) to FILE as JSON\n"
    "  --cond                measure cond(S_Gamma) at every coupling iteration of the\n"
    "                        substructured solvers (dense eigenvalues: slow; the\n"
    "                        times then include it); its mean is printed after the\n"
    "                        table and written to the JSON as cond_mean\n"
    "  --replay S            time every solver on the same MLCPs: the model runs once\n"
    "                        with solver S, and at each step every listed solver\n"
    "                        solves the MLCP S was given, from the same warm start.\n"
    "                        On chaotic scenes (piles, collapses) whole runs part\n"
    "                        trajectories; this compares the solvers alone\n"
    "  --progress S          when stderr is not a terminal (a batch job's log), a\n"
    "                        progress line every S seconds (default 60; 0 = none),\n"
    "                        also while one step runs longer than S\n"
    "  -q, --quiet           no progress lines\n"
    "\n"
    "k_max is settings.solver.max_coupling_iterations where the model sets it, else each\n"
    "solver's own (seed 000 Table 1): 250 for fbic, 10 for schur-bpp and schur-pgs-sm.\n";

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef TsrCompareRow Row;

void tsr_compare_count_bodies(const TsrPartition *part, int ns, int *per, TsrCompareRow *row) {
  if (!per || ns <= 0 || ns > part->n_bodies) return;
  memset(per, 0, (size_t)ns * sizeof *per);
  for (int b = 0; b < part->n_bodies; b++) {
    int k = part->body_subsystem[b];
    if (k >= 0 && k < ns) per[k]++;
  }
  for (int k = 0; k < ns; k++) {
    if (per[k] < row->min_bodies) row->min_bodies = per[k];
    if (per[k] > row->max_bodies) row->max_bodies = per[k];
  }
}

double tsr_compare_median(double *v, long n) {
  if (n <= 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double tsr_compare_relative(const TsrMlcp *p, const double *lambda, TsrCompareScratch *s) {
  if (p->m > s->cap) {
    double *w = realloc(s->w, (size_t)p->m * sizeof *w);
    if (w) s->w = w;
    double *g = realloc(s->sigma, (size_t)p->m * sizeof *g);
    if (g) s->sigma = g;
    if (!w || !g) return NAN;
    s->cap = p->m;
  }
  return tsr_mlcp_relative_residual_of(p, lambda, s->w, s->sigma);
}

void tsr_compare_scratch_free(TsrCompareScratch *s) {
  free(s->w), free(s->sigma);
  memset(s, 0, sizeof *s);
}

// warn: the model's warnings (tsr_cli_prepare_model), given for the first
// solver only: every solver runs the same model.
static int run_one(const TsrRunOptions *o, const char *solver, int cond, int warn, Row *row) {
  TsrModel model;
  memset(row, 0, sizeof *row);
  row->name = solver;
  if (tsr_load_model_for_cli(o, &model)) return 2;
  int t = tsr_solver_type_from_name(solver);
  model.settings.solver.type = (TsrSolverType)t;
  int kmax = tsr_world_kmax(&model, (TsrSolverType)t);
  if (tsr_cli_prepare_model(&model, warn)) {
    tsr_model_free(&model);
    return 2;
  }
  TsrWorld w;
  char err[512] = "";
  if (tsr_world_create(&w, &model, err, sizeof err)) {
    tsr_cli_error("%s: %s", solver, err);
    tsr_world_free(&w);
    tsr_model_free(&model);
    return 2;
  }
  if (cond) tsr_solver_measure_cond(w.solver, 1);
  tsr_cli_partition_label(&model.settings, row->partition, sizeof row->partition);
  row->min_bodies = 1 << 30;
  double sum_sub = 0.0, sum_gam = 0.0;
  int *per = calloc((size_t)w.bodies.n + 1, sizeof *per);
  long steps = row->steps_asked = model.settings.steps;
  double *ms = malloc((size_t)(steps > 0 ? steps : 1) * sizeof *ms);
  double *errs = malloc((size_t)(steps > 0 ? steps : 1) * sizeof *errs);
  if (!ms || !errs) {
    free(ms), free(errs);
    tsr_world_free(&w);
    tsr_model_free(&model);
    return 1;
  }
  int status = 0;
  TsrCompareScratch scratch = {0};
  double sum_ms = 0, sum_k = 0, part = 0;
  long at_kmax = 0, conv = 0, n = 0;
  row->substructured = tsr_solver_substructured((TsrSolverType)t);
  TsrCliProgress progress;
  tsr_cli_progress_start(&progress, o->quiet, o->progress);
  while (w.step < steps && !tsr_interrupt_requested()) {
    int s = tsr_cli_step(&progress, solver, steps, &w);
    if (tsr_interrupt_requested()) break;  // its solve was cut short: not counted
    const TsrStepStats *st = &w.stats;
    tsr_cli_world_notice(&model, &w);
    if (s) {
      // The failed step's statistics are not counted: its time and error
      // are those of no answer (a failure at step 1 read 0.000 ms, error 0).
      tsr_cli_error("%s: step %ld failed (%s)", solver, w.step, tsr_cli_step_failure(&w, s));
      status = 1;
      break;
    }
    ms[n] = 1e3 * st->solve_seconds;
    errs[n] = st->mlcp_error;
    if (!isnan(row->max_err) && !(errs[n] <= row->max_err)) row->max_err = errs[n];  // a NaN sticks
    tsr_compare_note_rel(tsr_compare_relative(&w.mlcp, w.lambda, &scratch), row);
    sum_ms += ms[n];
    sum_k += st->coupling_iterations;
    part += st->partition_seconds;
    at_kmax += row->substructured && st->coupling_iterations >= kmax;
    conv += st->converged != 0;
    if (st->joint_error > row->max_joint || isnan(st->joint_error)) row->max_joint = st->joint_error;
    if (st->penetration > row->max_pen) row->max_pen = st->penetration;
    row->subsystems = st->subsystems;
    row->interface_rows = st->interface_rows;
    sum_sub += st->subsystems;
    sum_gam += st->interface_rows;
    if (row->substructured && w.partition.n_bodies == w.bodies.n)
      tsr_compare_count_bodies(&w.partition, st->subsystems, per, row);
    n++;
    tsr_cli_progress(&progress, solver, n, steps, NAN, NULL);
  }
  tsr_cli_progress_end(&progress, 0);
  row->steps = n;
  if (!n) tsr_compare_no_figures(row);
  row->mean_ms = n ? sum_ms / (double)n : NAN;
  // Coupling iterations are the substructured solvers' (seed 000 Table 3's
  // Avg. k and Max. k): "-" and null for a whole-system solver, not 0.00.
  row->mean_k = n && row->substructured ? sum_k / (double)n : NAN;
  row->pct_kmax = n && row->substructured ? 100.0 * (double)at_kmax / (double)n : NAN;
  row->pct_conv = n ? 100.0 * (double)conv / (double)n : NAN;
  row->median_ratio = NAN;
  row->median_ms = tsr_compare_median(ms, n);
  row->median_err = tsr_compare_median(errs, n);
  double setup, schur, iface, subs;
  if (n && !tsr_solver_phase_seconds(w.solver, &setup, &schur, &iface, &subs)) {
    row->part_ms = 1e3 * part / (double)n;
    row->setup_ms = 1e3 * setup / (double)n;
    row->schur_ms = 1e3 * schur / (double)n;
    row->iface_ms = 1e3 * iface / (double)n;
    row->subs_ms = 1e3 * subs / (double)n;
  }
  double sl, bl, mg;
  if (n && !tsr_solver_critical_seconds(w.solver, &sl, &bl, &mg)) {
    row->schur_longest_ms = 1e3 * sl / (double)n;
    row->subs_longest_ms = 1e3 * bl / (double)n;
    row->merged_ms = 1e3 * mg / (double)n;
  }
  tsr_compare_set_bound(w.solver, n, row);
  row->mean_subsystems = n ? sum_sub / (double)n : NAN;
  row->mean_interface_rows = n ? sum_gam / (double)n : NAN;
  if (row->min_bodies > row->max_bodies) row->min_bodies = row->max_bodies = 0;
  row->fallbacks = tsr_solver_fallbacks(w.solver);
  if (n) row->fallback_ms = 1e3 * tsr_solver_fallback_seconds(w.solver) / (double)n;  // (else NaN: no figures)
  tsr_solver_cond_mean(w.solver, &row->cond_mean);
  row->ok = status == 0 && n == steps;  // (a stop leaves it short)
  free(per);
  free(ms), free(errs);
  tsr_compare_scratch_free(&scratch);
  tsr_world_free(&w);
  tsr_model_free(&model);
  return status;
}

static void json_num(FILE *f, const char *key, double v, int last) {
  if (isfinite(v))
    fprintf(f, "\"%s\": %.17g%s", key, v, last ? "" : ", ");
  else
    fprintf(f, "\"%s\": null%s", key, last ? "" : ", ");
}

// The table as JSON (postproc/benchmarks.py reads it): written to a temporary
// name and renamed, so a reader never sees half a file.
// Opens PATH.tmp for writing, its name into *tmp (the caller frees it);
// NULL, said, when it cannot.
static FILE *open_json_tmp(const char *path, char **tmp) {
  size_t len = strlen(path) + 32;
  FILE *f = NULL;
  // "" or a folder would pass the .tmp file's test and fail the rename after
  // every run.
  struct stat st;
  if (!path[0] || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
    *tmp = NULL;
    tsr_cli_error("--json: '%s' is %s, not a file name", path, path[0] ? "a folder" : "empty");
    return NULL;
  }
  if ((*tmp = malloc(len))) {
    snprintf(*tmp, len, "%s.%ld.tmp", path, (long)getpid());  // (two compares onto one FILE: one name each)
    f = fopen(*tmp, "w");
  }
  if (!f) tsr_cli_error("--json: cannot write %s: %s", path, *tmp ? strerror(errno) : "out of memory");
  return f;
}

// Mean of direct-bpp's times when it is in the list and ran; else NaN.
static double base_ms(int ns, const Row *rows) {
  for (int k = 0; k < ns; k++)
    if (!strcmp(rows[k].name, "direct-bpp") && rows[k].ok) return rows[k].mean_ms;
  return NAN;
}

static int write_json(const char *path, const char *model, const char *replay, int ns, const Row *rows) {
  double base = base_ms(ns, rows);
  char *tmp;
  FILE *f = open_json_tmp(path, &tmp);
  if (!f) {
    free(tmp);
    return -1;
  }
  fprintf(f, "{\"model\": \"");
  for (const char *c = model; *c; c++) fprintf(f, (*c == '"' || *c == '\\') ? "\\%c" : "%c", *c);
  fprintf(f, "\", \"threads\": %d, \"replay\": ", omp_get_max_threads());
  fprintf(f, replay ? "\"%s\"" : "null", replay);
  fprintf(f, ", \"rows\": [\n");
  for (int k = 0; k < ns; k++) {
    const Row *r = &rows[k];
    fprintf(f, "  {\"solver\": \"%s\", \"ok\": %s, \"steps\": %ld, \"partition\": \"%s\", ", r->name,
            r->ok ? "true" : "false", r->steps, r->partition);
    json_num(f, "mean_ms", r->mean_ms, 0);
    json_num(f, "median_ms", r->median_ms, 0);
    json_num(f, "speedup", r->mean_ms > 0 ? base / r->mean_ms : NAN, 0);  // the table's column (NaN: null)
    json_num(f, "mean_k", r->mean_k, 0);
    json_num(f, "pct_kmax", r->pct_kmax, 0);
    json_num(f, "pct_converged", r->pct_conv, 0);
    json_num(f, "median_ratio", r->median_ratio, 0);
    json_num(f, "median_err", r->median_err, 0);
    json_num(f, "max_err", r->max_err, 0);
    json_num(f, "max_rel", r->max_rel, 0);
    json_num(f, "max_joint", r->max_joint, 0);
    json_num(f, "max_pen", r->max_pen, 0);
    fprintf(f, "\"subsystems\": %d, \"interface_rows\": %d, ", r->subsystems, r->interface_rows);
    json_num(f, "mean_subsystems", r->mean_subsystems, 0);
    json_num(f, "mean_interface_rows", r->mean_interface_rows, 0);
    if (r->substructured && r->max_bodies > 0)
      fprintf(f, "\"bodies_per_subsystem\": \"%d-%d\", ", r->min_bodies, r->max_bodies);
    else  // one subsystem, or none counted
      fprintf(f, "\"bodies_per_subsystem\": null, ");
    fprintf(f, "\"fallbacks\": %d, ", r->fallbacks);
    json_num(f, "cond_mean", r->cond_mean, 0);
    fprintf(f, "\"phase_ms\": {");
    json_num(f, "partition", r->part_ms, 0);
    json_num(f, "extract", r->setup_ms, 0);
    json_num(f, "schur", r->schur_ms, 0);
    json_num(f, "interface", r->iface_ms, 0);
    json_num(f, "subsystems", r->subs_ms, 0);
    json_num(f, "schur_longest", r->schur_longest_ms, 0);
    json_num(f, "subsystems_longest", r->subs_longest_ms, 0);
    json_num(f, "merged", r->merged_ms, 0);
    json_num(f, "any_threads_bound", r->bound_ms, 0);
    json_num(f, "fallback", r->fallback_ms, 1);
    fprintf(f, "}}%s\n", k + 1 < ns ? "," : "");
  }
  fprintf(f, "]}\n");
  errno = 0;
  int bad = ferror(f);
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path)) {
    tsr_cli_error("--json: cannot write %s: %s", path, strerror(errno ? errno : EIO));
    remove(tmp);
    free(tmp);
    return -1;
  }
  free(tmp);
  return 0;
}

static void speedup(double base, double ms, char *sp, size_t n) {
  snprintf(sp, n, "-");
  if (isfinite(base) && ms > 0) snprintf(sp, n, "%.2fx", base / ms);
}

// v printed with printf's fmt (one conversion) right-aligned in width, or
// "-" when v is not a number (a solver that failed before any step).
static const char *cell(char *buf, size_t len, int width, const char *fmt, double v) {
  char num[64] = "-";
  if (!isnan(v)) snprintf(num, sizeof num, fmt, v);
  snprintf(buf, len, "%*s", width, num);
  return buf;
}

static void print_runs(const char *model, int ns, const Row *rows) {
  double base = base_ms(ns, rows);
  printf("model %s, %ld steps, %d threads\n", model, rows[0].steps_asked, omp_get_max_threads());
  printf("%-13s %10s %10s %8s %7s %7s %11s %9s %11s %11s %6s %8s\n", "solver", "mean ms", "median ms", "speedup",
         "avg k", "% kmax", "median err", "max rel", "max joint", "max pen", "avg N", "avg|Gam|");
  for (int k = 0; k < ns; k++) {
    const Row *r = &rows[k];
    char sp[32];
    speedup(base, r->mean_ms, sp, sizeof sp);
    // (the means over the steps, as --replay's table and the JSON give them;
    // this printed the last step's, labelled as if they were the run's)
    char c[11][32];
    printf("%-13s %s %s %8s %s %s %s %s %s %s %s %s%s\n", r->name, cell(c[0], 32, 10, "%.3f", r->mean_ms),
           cell(c[1], 32, 10, "%.3f", r->median_ms), sp, cell(c[2], 32, 7, "%.2f", r->mean_k),
           cell(c[3], 32, 7, "%.1f", r->pct_kmax), cell(c[4], 32, 11, "%.3e", r->median_err),
           cell(c[5], 32, 9, "%.1e", r->max_rel), cell(c[6], 32, 11, "%.3e", r->max_joint),
           cell(c[7], 32, 11, "%.3e", r->max_pen), cell(c[8], 32, 6, "%.1f", r->mean_subsystems),
           cell(c[9], 32, 8, "%.1f", r->mean_interface_rows),
           r->ok                       ? ""
           : tsr_interrupt_requested() ? "  (interrupted after these steps)"
           : r->steps                  ? "  (failed after these steps)"
                                       : "  (failed at its first step)");
  }
  printf("(median err: Eq. 29, N s; max rel: the largest residual of a row over its own terms, any step)\n");
}

// --replay: every solver solved the same MLCPs, so a per-step ratio is
// meaningful; joint error and penetration are the reference trajectory's
// (printed once above the table).
static void print_replay(const char *model, const char *ref, int ns, const Row *rows) {
  double base = base_ms(ns, rows);
  char mj[32], mp[32];
  printf("model %s, %ld steps, %d threads, same MLCPs: those of the %s run (max joint %s, max pen %s)\n", model,
         rows[0].steps_asked, omp_get_max_threads(), ref, cell(mj, sizeof mj, 0, "%.3e", rows[0].max_joint),
         cell(mp, sizeof mp, 0, "%.3e", rows[0].max_pen));
  printf("%-13s %10s %10s %8s %9s %7s %7s %11s %9s %7s %6s %8s\n", "solver", "mean ms", "median ms", "speedup",
         "med ratio", "avg k", "% kmax", "median err", "max rel", "% conv", "avg N", "avg|Gam|");
  for (int k = 0; k < ns; k++) {
    const Row *r = &rows[k];
    char sp[32], mr[32] = "-";
    speedup(base, r->mean_ms, sp, sizeof sp);
    if (isfinite(r->median_ratio)) snprintf(mr, sizeof mr, "%.2fx", r->median_ratio);
    char c[9][32];
    printf("%-13s %s %s %8s %9s %s %s %s %s %s %s %s%s\n", r->name, cell(c[0], 32, 10, "%.3f", r->mean_ms),
           cell(c[1], 32, 10, "%.3f", r->median_ms), sp, mr, cell(c[2], 32, 7, "%.2f", r->mean_k),
           cell(c[3], 32, 7, "%.1f", r->pct_kmax), cell(c[4], 32, 11, "%.3e", r->median_err),
           cell(c[5], 32, 9, "%.1e", r->max_rel), cell(c[6], 32, 7, "%.1f", r->pct_conv),
           cell(c[7], 32, 6, "%.1f", r->mean_subsystems), cell(c[8], 32, 8, "%.1f", r->mean_interface_rows),
           r->ok ? "" : "  (reference failed)");
  }
  printf(
      "(speedup: direct-bpp's mean over this one's; med ratio: the median of the per-step ratios;\n"
      " max rel: the largest residual of a row over its own terms, any step)\n");
}

static void print_phases(int ns, const Row *rows) {
  int any = 0;
  for (int k = 0; k < ns; k++) any |= rows[k].substructured;
  if (!any) return;
  printf("\nper step, ms:  %10s %10s %10s %10s %10s %10s   %s\n", "partition", "extract", "S_Gamma", "interface",
         "subsystems", "fallback", "fallbacks to direct");
  for (int k = 0; k < ns; k++)
    if (rows[k].substructured) {
      const Row *r = &rows[k];
      char c[6][32];
      printf("%-13s  %s %s %s %s %s %s   %d\n", r->name, cell(c[0], 32, 10, "%.3f", r->part_ms),
             cell(c[1], 32, 10, "%.3f", r->setup_ms), cell(c[2], 32, 10, "%.3f", r->schur_ms),
             cell(c[3], 32, 10, "%.3f", r->iface_ms), cell(c[4], 32, 10, "%.3f", r->subs_ms),
             cell(c[5], 32, 10, "%.3f", r->fallback_ms), r->fallbacks);
    }
  // A parallel phase takes at least its longest task whatever the thread
  // count: a phase near its longest is held by one subsystem. "any threads"
  // is the solve with every parallel loop at its longest item and the
  // serial code as it is (TsrCompareRow.bound_ms), and "at best" direct-bpp's
  // mean over it: the most any thread count could give on these partitions.
  double base = base_ms(ns, rows);
  printf("\nlongest, ms:   %14s %14s %14s %12s %8s\n", "S_Gamma block", "subsystem", "merged re-runs", "any threads",
         "at best");
  for (int k = 0; k < ns; k++)
    if (rows[k].substructured) {
      const Row *r = &rows[k];
      char c[4][32], sp[32];
      speedup(base, r->bound_ms, sp, sizeof sp);
      printf("%-13s  %s %s %s %s %8s\n", r->name, cell(c[0], 32, 14, "%.3f", r->schur_longest_ms),
             cell(c[1], 32, 14, "%.3f", r->subs_longest_ms), cell(c[2], 32, 14, "%.3f", r->merged_ms),
             cell(c[3], 32, 12, "%.3f", r->bound_ms), sp);
    }
  printf(
      "(any threads: the solve with each parallel loop at its longest item, the serial code as it is;\n"
      " no thread count goes below it on these partitions; at best: direct-bpp's mean over it)\n");
}

// a (argv[*i]) as option `name` ("--name VALUE" or "--name=VALUE"). Returns 1
// (taken: *out, *i past it), 0 (not this option) or -1 (no value: the error
// is printed).
static int option_value(const TsrCliArg *a, int argc, char **argv, int *i, const char *name, const char **out) {
  if (strcmp(a->name, name)) return 0;
  return (*out = tsr_cli_value(a, argc, argv, i)) ? 1 : -1;
}

int tsr_cmd_compare(int argc, char **argv) {
  tsr_cli_catch_stop_signals();  // Ctrl-C, SIGTERM: the table so far, no JSON, exit 130
  const char *solvers = "direct-bpp,pgs,pgs-sm,schur-bpp,schur-pgs-sm,fbic";
  const char *json = NULL, *replay = NULL;
  int cond = 0;
  char **args = calloc((size_t)argc + 1, sizeof *args);
  if (!args) return 1;
  int nargs = 0;
  for (int i = 0; i < argc; i++) {
    int got = 0;
    if (i > 0) {
      TsrCliArg a;
      tsr_cli_arg("compare", argv[i], &a);
      got = option_value(&a, argc, argv, &i, "--solvers", &solvers);
      const char *json_val = NULL;
      if (!got && (got = option_value(&a, argc, argv, &i, "--json", &json_val)) > 0 &&
          tsr_cli_output_once("compare", "--json", &json, json_val))
        got = -1;
      if (!got) got = option_value(&a, argc, argv, &i, "--replay", &replay);
      if (!got && (got = tsr_cli_flag(&a, "--cond", NULL)) > 0) cond = 1;
    }
    if (got < 0) {
      free(args);
      return 2;
    }
    if (!got) args[nargs++] = argv[i];
  }
  TsrRunOptions o;
  int rc = tsr_parse_run_options(nargs, args, compare_usage, 0, &o);
  if (rc >= 0) {
    free(args);
    return rc;
  }
  if (o.solver || o.steps == 0 || o.every >= 0) {  // --steps 0: a table of NaNs
    tsr_cli_error("compare: %s", o.solver       ? "use --solvers LIST, not --solver"
                                 : o.every >= 0 ? "--every has no effect here (compare writes no run file)"
                                                : "--steps 0: nothing to compare");
    tsr_run_options_free(&o);
    free(args);
    return 2;
  }
  // Split and validate the list first (bad input: exit 2 before any run).
  char *list = strdup(solvers);
  const char *names[64];
  int ns = 0;
  for (char *tok = strtok(list, ","); tok && ns < 64; tok = strtok(NULL, ",")) {
    if (tsr_solver_type_from_name(tok) < 0) {
      tsr_cli_error("--solvers: unknown solver '%s' (direct-bpp, pgs, pgs-sm, schur-bpp, schur-pgs-sm, fbic)", tok);
      free(list);
      tsr_run_options_free(&o);
      free(args);
      return 2;
    }
    names[ns++] = tok;
  }
  if (!o.model || ns == 0) {
    tsr_cli_error("compare: %s", !o.model ? "no model file" : "empty --solvers list");
    fputs(compare_usage, stderr);
    free(list);
    tsr_run_options_free(&o);
    free(args);
    return 2;
  }
  // An unwritable --json path is bad input: said before the runs, exit 2
  // (it was found after them, as a failure).
  char *json_file = NULL;  // --json's file when it is a symbolic link
  if (json) {
    // --json naming the model itself replaced the model with the table, and
    // --json /dev/null replaced the device with a regular file.
    if (tsr_cli_output_file("--json", json, o.model, &json_file)) {
      free(list);
      tsr_run_options_free(&o);
      free(args);
      return 2;
    }
    if (json_file) json = json_file;
    char *tmp;
    FILE *f = open_json_tmp(json, &tmp);
    if (f) fclose(f), remove(tmp);
    free(tmp);
    if (!f) {
      free(json_file);
      free(list);
      tsr_run_options_free(&o);
      free(args);
      return 2;
    }
  }
  Row rows[64];
  int status = 0;
  if (replay) {
    status = tsr_compare_replay(&o, replay, names, ns, cond, rows);
    if (status < 0) {
      free(json_file);
      free(list);
      tsr_run_options_free(&o);
      free(args);
      return 1;
    }
  } else {
    int run = 0;  // the rows filled: a stop leaves the later solvers without one
    for (int k = 0; k < ns && !tsr_interrupt_requested(); k++) {
      int r = run_one(&o, names[k], cond, k == 0, &rows[k]);
      run = k + 1;
      if (r == 2) {
        status = 2;
        break;
      }
      if (r) status = 1;
    }
    ns = run;
  }
  if (status != 2 && ns > 0) {
    if (replay)
      print_replay(o.model, replay, ns, rows);
    else
      print_runs(o.model, ns, rows);
    print_phases(ns, rows);
    if (cond) {
      printf("\nmean cond(S_Gamma) over coupling iterations:\n");
      for (int k = 0; k < ns; k++)
        if (rows[k].substructured && !isnan(rows[k].cond_mean))
          printf("%-13s  %10.3e\n", rows[k].name, rows[k].cond_mean);
        else if (rows[k].substructured)  // (it printed nan)
          printf("%-13s  %10s  (%s)\n", rows[k].name, "-",
                 strcmp(rows[k].name, "fbic") ? "no interface rows" : "fbic forms no S_Gamma");
    }
  }
  if (tsr_interrupt_requested() && status != 2) {
    // Ctrl-C or SIGTERM: the solvers not run have no row, the one stopped
    // part of one; no JSON is written (it would look like a whole table).
    tsr_cli_error("compare: interrupted%s%s%s", json ? "; " : "", json ? json : "", json ? " not written" : "");
    status = 130;
  }
  if (status != 2 && status != 130 && json && write_json(json, o.model, replay, ns, rows)) status = 1;
  free(json_file);
  free(list);
  tsr_run_options_free(&o);
  free(args);
  return status;
}
