// SPDX-License-Identifier: MIT
// `tessera compare`: one row of its table per solver, from whole runs
// (cmd_compare.c) or from a replay of one reference run's MLCPs
// (compare_replay.c).
#ifndef TSR_COMPARE_H
#define TSR_COMPARE_H

#include <math.h>

#include "cli/options.h"
#include "mlcp/mlcp.h"
#include "partition/partition.h"
#include "solvers/solver.h"

typedef struct {
  const char *name;
  int ok;
  long steps;        // the steps solved (a failed step is not counted)
  long steps_asked;  // the run's length
  double mean_ms, median_ms, mean_k, pct_kmax, median_err, max_err, max_joint, max_pen;  // err: Eq. 29
  double max_rel;       // largest row of Eq. 29 over its own scale, any step (tsr_mlcp_relative_residual)
  double pct_conv;      // % of steps on which the solver met its own stopping rule
  double median_ratio;  // replay: median over steps of direct-bpp's time / this one's (NaN otherwise)
  double part_ms, setup_ms, schur_ms, iface_ms, subs_ms, fallback_ms;
  double schur_longest_ms, subs_longest_ms, merged_ms;  // tsr_solver_critical_seconds
  // Substructured solvers: mean_ms less the parallel slack per step
  // (tsr_solver_slack_seconds): no thread count takes a step's solve below it
  // on these partitions. NaN for the others.
  double bound_ms;
  int substructured, subsystems, interface_rows;
  double mean_subsystems, mean_interface_rows, cond_mean;
  int min_bodies, max_bodies;  // bodies per subsystem over every step
  int fallbacks;
  char partition[64];
} TsrCompareRow;

// Median of v[0..n) (sorts v in place); NaN when n <= 0.
double tsr_compare_median(double *v, long n);

// Scratch of tsr_compare_relative, grown as needed.
typedef struct {
  double *w, *sigma;
  int cap;
} TsrCompareScratch;

// tsr_mlcp_relative_residual of lambda on p: the largest residual of a row
// (Eq. 29) relative to that row's own terms; NaN when scratch cannot grow.
double tsr_compare_relative(const TsrMlcp *p, const double *lambda, TsrCompareScratch *s);
void tsr_compare_scratch_free(TsrCompareScratch *s);

// row->max_rel widened by rel (a NaN sticks).
static inline void tsr_compare_note_rel(double rel, TsrCompareRow *row) {
  if (!isnan(row->max_rel) && !(rel <= row->max_rel)) row->max_rel = rel;
}

// A row of no step (its solver failed at the first): the figures that are
// not means (NaN already, as n = 0 makes them) are NaN too, printed "-"
// and written null, not 0.
static inline void tsr_compare_no_figures(TsrCompareRow *row) {
  row->max_err = row->max_rel = row->max_joint = row->max_pen = NAN;
  row->part_ms = row->setup_ms = row->schur_ms = row->iface_ms = row->subs_ms = row->fallback_ms = NAN;
  row->schur_longest_ms = row->subs_longest_ms = row->merged_ms = row->bound_ms = NAN;
}

// row->bound_ms from solver's parallel slack over n steps (mean_ms set);
// NaN for a solver without one or without steps.
static inline void tsr_compare_set_bound(const TsrSolver *solver, long n, TsrCompareRow *row) {
  double slack;
  row->bound_ms = n > 0 && !tsr_solver_slack_seconds(solver, &slack) ? row->mean_ms - 1e3 * slack / (double)n : NAN;
}

// Bodies per subsystem of a partition with ns subsystems (per: room for ns
// counts, scratch) widen row->min_bodies / max_bodies. Nothing when ns is out
// of range (0, or above the partition's bodies) or per is NULL.
void tsr_compare_count_bodies(const TsrPartition *part, int ns, int *per, TsrCompareRow *row);

// Runs the model once with solver `ref` and, at every step, times each of
// the ns solvers on the MLCP that run assembled, from the same warm start
// (the reference's), each with its own solver instance and partition
// (tsr_world_partition). Fills rows[0..ns); max_joint and max_pen are the
// reference trajectory's. Returns 0, 1 (the reference run failed part way:
// rows hold the steps up to the failing one), 2 (bad input) or -1 (out of memory before the
// first step: no rows); every failure is said on stderr.
int tsr_compare_replay(const TsrRunOptions *o, const char *ref, const char *const *names, int ns, int cond,
                       TsrCompareRow *rows);

#endif
