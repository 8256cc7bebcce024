// SPDX-License-Identifier: MIT
// `tessera compare --replay S`: the solvers side by side on the same MLCPs.
// A whole run per solver puts each solver on its own trajectory, and on a
// chaotic scene (a chain piling up, a tower collapsing) the trajectories part
// within a second: one solver then meets a harder pile than the other, and a
// ratio of whole-run times measures the piles as much as the solvers (chain_drop:
// direct-bpp needs 5.4 ms per step on schur-bpp's trajectory, 6.9 on its
// own). Here the model runs once with the reference solver S; at every step,
// just before S solves, each listed solver solves the very MLCP S was given,
// from the same warm start, with its own solver instance (workspace, cached
// analyses, warm index sets of its own are not carried: the warm start is
// the reference's) and its own partition (the world's policy,
// tsr_world_partition). Each solver's answer is then thrown away, and S's
// drives the trajectory.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/compare.h"
#include "solvers/stop.h"
#include "cli/options.h"
#include "model/model.h"
#include "partition/partition.h"
#include "sim/world.h"
#include "util/clock.h"

typedef struct {
  TsrSolverType type;
  TsrSolver *solver;
  int kmax;
  double *ms, *err;
  double sum_k, sum_sub, sum_gam, part_s;
  long n, at_kmax, conv;
} Cand;

typedef struct {
  const TsrModel *model;
  Cand *c;
  int nc, any_sub, any_whole;
  long steps;
  TsrPartition part_sub, part_whole;  // one per policy (substructured or not)
  double part_sub_s;                  // time of the last step's part_sub
  double *lam;
  int8_t *set;
  int cap, failed;
  TsrCompareScratch scratch;  // of tsr_compare_relative
  int *per;                   // bodies per subsystem, scratch
  TsrCompareRow *rows;
} Replay;

// Bodies per subsystem of this step's partition, into every substructured row.
static void count_bodies(Replay *r) {
  for (int i = 0; i < r->nc; i++)
    if (tsr_solver_substructured(r->c[i].type))
      tsr_compare_count_bodies(&r->part_sub, r->part_sub.n_subsystems, r->per, &r->rows[i]);
}

static void hook(const TsrWorld *w, void *ctx) {
  Replay *r = ctx;
  if (r->failed) return;
  const TsrMlcp *p = &w->mlcp;
  int m = p->m;
  if (m > r->cap) {
    double *l = realloc(r->lam, (size_t)m * sizeof *l);
    if (l) r->lam = l;
    int8_t *s = realloc(r->set, (size_t)m);
    if (s) r->set = s;
    if (!l || !s) {
      r->failed = 1;
      return;
    }
    r->cap = m;
  }
  if (r->any_sub) {
    double t0 = tsr_now_seconds();
    int rc = tsr_world_partition(r->model, w->step, &w->rows, TSR_SOLVER_SCHUR_BPP, &r->part_sub);
    r->part_sub_s = tsr_now_seconds() - t0;
    if (rc) {
      r->failed = 1;
      return;
    }
    count_bodies(r);
  }
  if (r->any_whole && tsr_world_partition(r->model, w->step, &w->rows, TSR_SOLVER_DIRECT_BPP, &r->part_whole)) {
    r->failed = 1;
    return;
  }
  for (int i = 0; i < r->nc; i++) {
    Cand *c = &r->c[i];
    if (c->n >= r->steps) continue;
    int sub = tsr_solver_substructured(c->type);
    if (m > 0) {  // no rows (every body free): NULL arrays
      memcpy(r->lam, w->lambda, (size_t)m * sizeof *r->lam);
      memcpy(r->set, w->index_set, (size_t)m);
    }
    TsrSolveStats st;
    memset(&st, 0, sizeof st);
    double t0 = tsr_now_seconds();
    int rc = tsr_solver_solve(c->solver, p, sub ? &r->part_sub : &r->part_whole, r->lam, r->set, &st);
    double dt = tsr_now_seconds() - t0;
    c->ms[c->n] = 1e3 * dt;
    // A failed solve (its factorisation refused, an error) has no solution:
    // its error is infinite, not the 0 its cleared statistics hold.
    c->err[c->n] = rc < 0 ? INFINITY : st.residual;
    tsr_compare_note_rel(tsr_compare_relative(p, r->lam, &r->scratch), &r->rows[i]);
    c->n++;
    c->conv += rc >= 0 && st.converged;
    c->sum_k += st.coupling_iterations;
    c->at_kmax += sub && st.coupling_iterations >= c->kmax;
    if (sub) {
      c->part_s += r->part_sub_s;
      c->sum_sub += st.subsystems;
      c->sum_gam += st.interface_rows;
      r->rows[i].subsystems = st.subsystems;
      r->rows[i].interface_rows = st.interface_rows;
    }
  }
}

static void fill_row(const Replay *r, int i, const char *label, TsrCompareRow *row) {
  const Cand *c = &r->c[i];
  long n = c->n;
  double sum = 0.0;
  for (long j = 0; j < n; j++) {
    sum += c->ms[j];
    if (!isnan(row->max_err) && !(c->err[j] <= row->max_err)) row->max_err = c->err[j];  // a NaN sticks
  }
  row->steps = n;
  if (!n) tsr_compare_no_figures(row);
  row->mean_ms = n ? sum / (double)n : NAN;
  int sub = tsr_solver_substructured(c->type);  // "-" for a whole-system solver (cmd_compare.c)
  row->mean_k = n && sub ? c->sum_k / (double)n : NAN;
  row->pct_kmax = n && sub ? 100.0 * (double)c->at_kmax / (double)n : NAN;
  row->pct_conv = n ? 100.0 * (double)c->conv / (double)n : NAN;
  double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
  if (v) {
    memcpy(v, c->ms, (size_t)n * sizeof *v);
    row->median_ms = tsr_compare_median(v, n);
    memcpy(v, c->err, (size_t)n * sizeof *v);
    row->median_err = tsr_compare_median(v, n);
    // Median of the per-step ratios against direct-bpp (when listed): the
    // same MLCP in numerator and denominator, so one slow pile-up step does
    // not weigh more than a quiet one.
    row->median_ratio = NAN;
    for (int b = 0; b < r->nc; b++) {
      if (r->c[b].type != TSR_SOLVER_DIRECT_BPP || r->c[b].n != n) continue;
      long k = 0;
      for (long j = 0; j < n; j++)
        if (c->ms[j] > 0.0) v[k++] = r->c[b].ms[j] / c->ms[j];
      row->median_ratio = tsr_compare_median(v, k);
      break;
    }
    free(v);
  }
  if (tsr_solver_substructured(c->type)) {
    row->substructured = 1;
    row->mean_subsystems = n ? c->sum_sub / (double)n : NAN;
    row->mean_interface_rows = n ? c->sum_gam / (double)n : NAN;
    snprintf(row->partition, sizeof row->partition, "%s", label);
  } else {
    snprintf(row->partition, sizeof row->partition, "none");
    row->mean_subsystems = n ? 1.0 : NAN;
    row->mean_interface_rows = n ? 0.0 : NAN;
    row->subsystems = 1;
  }
  double setup, schur, iface, subs, sl, bl, mg;
  if (n && !tsr_solver_phase_seconds(c->solver, &setup, &schur, &iface, &subs)) {
    row->part_ms = 1e3 * c->part_s / (double)n;
    row->setup_ms = 1e3 * setup / (double)n;
    row->schur_ms = 1e3 * schur / (double)n;
    row->iface_ms = 1e3 * iface / (double)n;
    row->subs_ms = 1e3 * subs / (double)n;
  }
  if (n && !tsr_solver_critical_seconds(c->solver, &sl, &bl, &mg)) {
    row->schur_longest_ms = 1e3 * sl / (double)n;
    row->subs_longest_ms = 1e3 * bl / (double)n;
    row->merged_ms = 1e3 * mg / (double)n;
  }
  tsr_compare_set_bound(c->solver, n, row);
  if (row->min_bodies > row->max_bodies) row->min_bodies = row->max_bodies = 0;
  row->fallbacks = tsr_solver_fallbacks(c->solver);
  if (n) row->fallback_ms = 1e3 * tsr_solver_fallback_seconds(c->solver) / (double)n;  // (else NaN: no figures)
  tsr_solver_cond_mean(c->solver, &row->cond_mean);
}

int tsr_compare_replay(const TsrRunOptions *o, const char *ref, const char *const *names, int ns, int cond,
                       TsrCompareRow *rows) {
  if (ns < 1) return 2;  // the caller says why (an empty list)
  int rt = tsr_solver_type_from_name(ref);
  if (rt < 0) {
    tsr_cli_error("--replay: unknown solver '%s' (direct-bpp, pgs, pgs-sm, schur-bpp, schur-pgs-sm, fbic)", ref);
    return 2;
  }
  TsrModel model;
  if (tsr_load_model_for_cli(o, &model)) return 2;
  // Each solver's k_max: the model's, or its own (tsr_world_kmax), for the
  // reference and each candidate alike.
  model.settings.solver.type = (TsrSolverType)rt;
  if (tsr_cli_prepare_model(&model, 1)) {
    tsr_model_free(&model);
    return 2;
  }
  long steps = model.settings.steps;
  Replay r = {.model = &model, .nc = ns, .steps = steps, .rows = rows};
  tsr_partition_init(&r.part_sub);
  tsr_partition_init(&r.part_whole);
  for (int i = 0; i < ns; i++) {
    memset(&rows[i], 0, sizeof rows[i]);
    rows[i].name = names[i];
    rows[i].steps_asked = steps;
    rows[i].min_bodies = 1 << 30;
  }
  r.c = calloc((size_t)ns, sizeof *r.c);
  r.per = calloc((size_t)model.n_bodies + 1, sizeof *r.per);
  int status = r.c && r.per ? 0 : -1;
  char label[64];
  tsr_partition_label(&model.settings, label, sizeof label);
  for (int i = 0; i < ns && !status; i++) {
    Cand *c = &r.c[i];
    c->type = (TsrSolverType)tsr_solver_type_from_name(names[i]);
    TsrSolverParams p;
    tsr_world_solver_params(&model, c->type, &p);
    c->kmax = p.max_coupling_iterations;
    char err[512] = "";
    if (!(c->solver = tsr_solver_create(&p, err, sizeof err))) {
      tsr_cli_error("%s: %s", names[i], err);
      status = 2;
      break;
    }
    if (cond) tsr_solver_measure_cond(c->solver, 1);
    c->ms = malloc((size_t)(steps > 0 ? steps : 1) * sizeof *c->ms);
    c->err = malloc((size_t)(steps > 0 ? steps : 1) * sizeof *c->err);
    if (!c->ms || !c->err) status = -1;
    if (tsr_solver_substructured(c->type))
      r.any_sub = 1;
    else
      r.any_whole = 1;
  }
  TsrWorld w;
  memset(&w, 0, sizeof w);
  char err[512] = "";
  int have_world = 0;
  if (!status) {
    if (tsr_world_create(&w, &model, err, sizeof err)) {
      tsr_cli_error("%s: %s", ref, err);
      status = 2;
    }
    have_world = 1;
  }
  double max_joint = 0.0, max_pen = 0.0;
  long ref_steps = 0;
  if (!status) {
    w.solve_hook = hook;
    w.solve_hook_ctx = &r;
    TsrCliProgress progress;
    tsr_cli_progress_start(&progress, o->quiet, o->progress);
    char what[64];
    snprintf(what, sizeof what, "replay of %s", ref);
    while (w.step < steps && !tsr_interrupt_requested()) {
      int s = tsr_cli_step(&progress, what, steps, &w);
      if (r.failed) {
        tsr_cli_error("--replay: out of memory, or the partition failed, at step %ld", w.step);
        status = 1;
        break;
      }
      tsr_cli_world_notice(&model, &w);
      if (s) {
        tsr_cli_error("--replay: the reference %s failed at step %ld (%s); the table holds the steps up to it", ref,
                      w.step, tsr_cli_step_failure(&w, s));
        status = 1;
        break;
      }
      // (the reference's trajectory: its failed step, which has none, not counted)
      const TsrStepStats *st = &w.stats;
      if (st->joint_error > max_joint || isnan(st->joint_error)) max_joint = st->joint_error;
      if (st->penetration > max_pen) max_pen = st->penetration;
      ref_steps++;
      tsr_cli_progress(&progress, what, w.step, steps, NAN, NULL);
    }
    tsr_cli_progress_end(&progress, 0);
  }
  if (status == -1) tsr_cli_error("compare --replay: out of memory");
  if (status == 0 || status == 1) {
    for (int i = 0; i < ns; i++) {
      fill_row(&r, i, label, &rows[i]);
      rows[i].max_joint = ref_steps ? max_joint : NAN;  // no step: no figures ("-")
      rows[i].max_pen = ref_steps ? max_pen : NAN;
      rows[i].ok = status == 0;
    }
  }
  if (have_world) tsr_world_free(&w);
  for (int i = 0; r.c && i < ns; i++) {
    tsr_solver_free(&r.c[i].solver);
    free(r.c[i].ms), free(r.c[i].err);
  }
  free(r.c);
  free(r.per);
  free(r.lam), free(r.set);
  tsr_compare_scratch_free(&r.scratch);
  tsr_partition_free(&r.part_sub);
  tsr_partition_free(&r.part_whole);
  tsr_model_free(&model);
  return status;
}
