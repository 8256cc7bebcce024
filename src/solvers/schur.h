// SPDX-License-Identifier: MIT
// Substructuring solvers of seed 000 §4-§5: the Schur complement method
// (Algorithm 1, "schur-bpp" and "schur-pgs-sm") and, sharing the same
// subsystem data, force-based interface coupling ("fbic", fbic.c).
#ifndef TSR_SCHUR_H
#define TSR_SCHUR_H

#include <stdint.h>

#include "mlcp/mlcp.h"
#include "partition/partition.h"
#include "solvers/bpp.h"
#include "solvers/bpp_retry.h"
#include "solvers/pgs_sm.h"
#include "solvers/solver.h"
#include "solvers/team.h"

// Interface solvers of Algorithm 1 (INTERFACESOLVE).
enum { TSR_SCHUR_IFACE_BPP = 0, TSR_SCHUR_IFACE_PGS_SM = 1 };

// Cumulative wall time of the phases of the substructured solvers (seconds).
typedef struct {
  double setup;       // extraction of A_i, G_i, A_Gamma from A
  double schur;       // S_Gamma and z_Gamma (Eqs. 24-25), blocks and assembly
  double iface;       // interface MLCP
  double subsystems;  // subsystem MLCPs (parallel)
  // The critical paths of the two parallel phases: for every coupling
  // iteration, the longest single block (S_Gamma) and the longest single
  // subsystem solve, summed. No thread count takes a phase below its
  // longest: when subsystems is close to subsystems_longest, one subsystem
  // (a pile, a merged re-run) holds the step and more threads cannot help.
  double schur_longest;
  double subsystems_longest;
  double merged;  // wall time of the merged re-runs (also in the phases above)
  // Parallel slack: the wall time of every loop that more threads could
  // split (over several subsystems, or over PARALLEL_IFACE_COLUMNS interface
  // columns and more) beyond its longest single item. The solve time less
  // this is what the solve would take if every such loop took only its
  // longest item and the serial code stayed as it is: a lower bound on its
  // time at any thread count, for this partition (tsr_solver_slack_seconds).
  double slack;
  long solves;
  long merges;  // schur-bpp steps re-run on a merged partition (schur.c)
  // With tsr_schur_measure_cond on: cond_2(S_Gamma) summed over the coupling
  // iterations (Table 2 of seed 000), and their count.
  double cond_sum;
  long cond_n;
} TsrSchurTimes;

// One subsystem i: its rows, A_i (a TsrMlcp whose b is b_i^k), b_i^0, the
// coupling block G_i^T (CSC over the subsystem's rows, row indices are
// interface indices), and its workspace, kept from step to step.
typedef struct {
  int n, cap_n;
  int *rows;          // global rows, increasing [n]
  TsrMlcp mlcp;       // A_i, b_i = b_i0 + G_i^T lambda_Gamma, l_i, u_i
  double *b0;         // b_i0 [n]
  int *Gp, *Gg, *Gl;  // G_i^T: [n+1]; interface index; position in gam[]
  double *Gx;
  int cap_g;
  int ng, cap_ng;
  int *gam;             // Gamma_i: interface indices coupled to i, increasing
  double *Sblk, *zblk;  // G_F A_FF^-1 G_F^T (ng x ng, column-major), z part
  size_t cap_S;
  double *K;  // nF x ng
  size_t cap_K;
  double *t;               // [n] scratch
  int *fpos;               // [n] position in F, or -1 (sub_schur)
  double *ry;              // [2n] scratch of schur.c's refine_interface
  double *lambda;          // [n]
  int8_t *set, *prev_set;  // index sets I_i^k, I_i^(k-1)
  int8_t *blk_set;         // the set Sblk / zblk were formed for (valid when blk_ok)
  int blk_ok;
  int blk_new;         // Sblk was formed anew in this coupling iteration (S_Gamma's columns it touches change)
  TsrBpp *bpp;         // SUBSYSTEMSOLVE; its chol also gives A_FF,i for S (§5.2)
  TsrBppRetry *retry;  // its restarts when BPP runs out of pivots (bpp_retry.h)
  TsrSolveStats st;
  int rc;
  int changed_at;  // last coupling iteration whose solve changed I_i
  // linear: every row bilateral (no finite bound), so I_i is all free at
  // every coupling iteration. deferred: schur-bpp solves it only once, after
  // the coupling loop (schur.c, "Linear subsystems"); set per step.
  int linear, deferred;
} TsrSchurSub;

typedef struct {
  int cap_sub, n_sub;
  int n_reported;  // the partition's subsystems (0 when nothing moves; n_sub is at least 1)
  TsrSchurSub *sub;
  int *order;  // schedule: largest subsystem first
  int cap_m;
  double *w;          // [m] slack scratch
  int *sub_of, *loc;  // [m]: subsystem (-1 Gamma), local index (or interface index)
  int ng, cap_ng;
  int *gamma;  // global rows of Gamma, increasing
  double *lam_g, *lam_g_old;
  double *w_def;  // [ng]: the deferred subsystems' part of w_Gamma (schur.c)
  int8_t *set_g;
  // interface MLCP (S_Gamma or A_Gamma) and its assembly scratch
  TsrMlcp iface;
  // S_Gamma by columns: for interface column g, the (subsystem, local
  // index) pairs that hold it (ip, ii, ib), a sparse accumulator per thread
  // (mark, list, spa: cap_spa_threads x cap_col; sub_extract's marks
  // and positions before that) and each column's first slot (coff).
  int *ip, *ii, *ib, *mark, *list, *coff;
  double *spa;
  int cap_inv, cap_col, cap_spa_threads;
  int iface_pattern;  // iface holds S_Gamma's pattern for this partition (tsr_substructure_interface)
  int whole_sums;     // TSR_SCHUR_NO_PARTIAL_SUMS=1: every column of S_Gamma summed at every coupling iteration
  int skip_class;     // the subsystem solves' tsr_bpp_retry_set_skip
  // iface as a dense array too when it is dense (iface.dense; schur.c
  // iface_dense)
  double *dense;
  size_t cap_dense;
  TsrBpp *ibpp;
  TsrBppRetry *iretry;
  TsrPgsSm *ipgs;
  int threads;
  // The team of the solve in progress (tsr_substructure_on_team: schur-bpp's,
  // schur-pgs-sm's and fbic's solves): its loops over the subsystems and the
  // interface columns run on it. NULL outside a solve, or with one thread.
  TsrTeam *team;
  TsrSchurTimes times;
  double *item_max;  // [cap_item_max] the longest item of the loop in progress, per thread (sub_for)
  int cap_item_max;
} TsrSubstructure;

typedef struct TsrSchur TsrSchur;

TsrSchur *tsr_schur_create(int iface_solver);
void tsr_schur_free(TsrSchur **s);
// Algorithm 1 on p with partition part (row_subsystem; NULL = one subsystem).
// lambda out; index_set in/out (warm start of I_Omega when params->warm_start).
// Fills stats (coupling_iterations, subsystems, interface_rows, converged,
// residual, iterations = pivots summed, factorizations). Returns 0 when the
// index sets repeated, 1 at k_max or after the cycling fallback, < 0 failure.
int tsr_schur_solve(const TsrMlcp *p, const TsrPartition *part, const TsrSolverParams *params, double *lambda,
                    int8_t *index_set, TsrSolveStats *stats, TsrSchur *s);
const TsrSchurTimes *tsr_schur_times(const TsrSchur *s);
// 1 when the last tsr_schur_solve converged with a row still above 1e-8 of
// its own terms after its refinement through a shifted (singular)
// subsystem: the caller may solve the step again on the whole system.
int tsr_schur_unpolished(const TsrSchur *s);
// Measures cond_2(S_Gamma) = |lambda|_max / |lambda|_min at every coupling
// iteration (dense eigenvalues, O(|Gamma|^3): for benchmarks, not for runs).
void tsr_schur_measure_cond(TsrSchur *s, int on);

// Shared with fbic.c. Extracts the subsystems, G_i, Gamma from p (parallel
// over subsystems); resets every factorisation. 0 or < 0.
int tsr_substructure_setup(const TsrMlcp *p, const TsrPartition *part, const TsrSolverParams *params,
                           TsrSubstructure *ss);
// I^0 and the starting impulses of every subsystem and of the interface:
// the caller's (lambda, index_set) when params->warm_start, else all free and
// zero. Sets are made consistent with the bounds.
void tsr_substructure_start(const TsrMlcp *p, const TsrSolverParams *params, const double *lambda,
                            const int8_t *index_set, TsrSubstructure *ss);
// b_i = b_i0 + G_i^T lambda_Gamma, then BPP (with its restarts, bpp_retry.h)
// on every subsystem in parallel, warm-started from sub->set and
// sub->lambda. Returns < 0 when a subsystem failed.
int tsr_substructure_solve_subsystems(const TsrSolverParams *params, TsrSubstructure *ss);
// The interface matrix into ss->iface: A_Gamma (with_schur = 0, FBIC) or
// S_Gamma of Eq. 24 from the subsystems' blocks, summed in subsystem order;
// iface.b = b_Gamma, plus the z_Gamma terms of Eq. 25 when with_schur.
int tsr_substructure_interface(const TsrMlcp *p, int with_schur, TsrSubstructure *ss);
// Gathers the subsystems' and the interface's impulses and sets into the
// whole-system arrays.
void tsr_substructure_gather(const TsrSubstructure *ss, double *lambda, int8_t *index_set);
void tsr_substructure_free(TsrSubstructure *ss);
double tsr_substructure_now(void);
// A substructured solve (schur.c's, fbic.c's) with its solver object.
typedef int (*TsrSubstructureSolve)(const TsrMlcp *p, const TsrPartition *part, const TsrSolverParams *params,
                                    double *lambda, int8_t *index_set, TsrSolveStats *stats, void *solver);
// Runs fn on a team of threads (team.h) held for the whole solve, ss->team
// set meanwhile: as many threads as params->threads (0: every core), but no
// more than part has subsystems. Returns fn's result.
int tsr_substructure_on_team(TsrSubstructureSolve fn, void *solver, TsrSubstructure *ss, const TsrMlcp *p,
                             const TsrPartition *part, const TsrSolverParams *params, double *lambda, int8_t *index_set,
                             TsrSolveStats *stats);

#endif
