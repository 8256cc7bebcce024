// SPDX-License-Identifier: MIT
// `tessera compare`: one row of its table per solver, from whole runs
// (cmd_compare.c) or from a replay of one reference run's MLCPs
// (compare_replay.c).
#ifndef TSR_COMPARE_H
#define TSR_COMPARE_H

#include "cli/options.h"
#include "partition/partition.h"

typedef struct {
  const char *name;
  int ok;
  long steps;
  double mean_ms, median_ms, mean_k, pct_kmax, median_err, max_err, max_joint, max_pen;  // err: Eq. 29
  double pct_conv;      // % of steps on which the solver met its own stopping rule
  double median_ratio;  // replay: median over steps of direct-bpp's time / this one's (NaN otherwise)
  double part_ms, setup_ms, schur_ms, iface_ms, subs_ms, fallback_ms;
  double schur_longest_ms, subs_longest_ms, merged_ms;  // tsr_solver_critical_seconds
  int substructured, subsystems, interface_rows;
  double mean_subsystems, mean_interface_rows, cond_mean;
  int min_bodies, max_bodies;  // bodies per subsystem over every step
  int fallbacks;
  char partition[64];
} TsrCompareRow;

// Median of v[0..n) (sorts v in place); NaN when n <= 0.
double tsr_compare_median(double *v, long n);

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
