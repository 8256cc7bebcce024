// SPDX-License-Identifier: MIT
// Block principal pivoting with restarts (bpp_retry.h).
//
// BPP warm-started from the given index set; a solve that runs out of pivots
// gets more chances from other starts, and the result with the lowest
// residual is kept:
//   0. (symmetric A, every multibody step) from the caller's warm start
//      after a few sweeps of projected Gauss-Seidel (PN_PGS_SWEEPS): the
//      primal active-set method on the box QP the MLCP is the optimality
//      system of (solvers/pas.c), while its factorisations are row updates
//      (PAS_FIRST_*); then projected Newton (solvers/pn.c) from the same
//      start, with PN_BUDGET times the pivot budget in Newton steps; then
//      the active-set method from where projected Newton stopped. Both
//      decrease the QP's objective at every step, so they converge where
//      block pivoting wanders. The last iterate's index set then re-seeds
//      BPP;
//   1. BPP from all-free with twice the pivot budget: near a change of
//      contact topology the previous step's set can be a poor start
//      (chain_drop: 50 pivots failed warm, 19 sufficed cold);
//   2. projected Gauss-Seidel from zero (params.iterations sweeps at most):
//      the failed iterates can be far off (huge impulses of a nearly
//      singular A_FF). From its approximate solution, projected Newton
//      again (symmetric A, PN_BUDGET times the pivot budget), and from where
//      that ends (or from PGS's), BPP seeded with the index set (Eq. 12) and
//      four times the budget. Projected Newton from the warm start can crawl
//      on a pile (chain_drop step 578: 400 steps cut to a ~ 1e-3 by the
//      bounds, residual 137 -> 3.2, and every later stage failed), while from
//      PGS's solution it converged in 122.
// Stiff over-constrained contact sets (a sphere chain sliding on a slope: 9
// rows on 6 DOF per sphere) make A_FF nearly singular for most trial sets,
// and block pivoting can wander for hundreds of pivots there (seen: 1,400
// from all-free on 138 rows), whereas from the set of 500 PGS sweeps it
// needed 3. The restarts cost nothing on solves that converge. Where block
// pivoting keeps stalling from one solve to the next (a pile-up), the solves
// after such a stall start with stage 0's first active-set attempt instead
// (SKIP_MIN_ROWS).
#include "solvers/bpp_retry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/pas.h"
#include "solvers/pgs.h"
#include "solvers/pn.h"
#include "util/clock.h"
#include "util/env.h"
#include "util/grow.h"

// Projected Newton's Newton steps, in units of the pivot budget. It
// decreases f at every step and converges from any start, so a step it has
// not finished goes to stages that fail more often and cost as much
// (chain_drop's pile-up, direct-bpp on its own trajectory, with the face
// step of pn.c: with 2x and 4x, a few steps of the last 40 ended with
// residuals up to 4e2 and 6e2, each after ~460 factorisations in the later
// stages, and the chain tore (joint error 3.6 and 3.2 m); with 8x every step
// converged, and the run took 7.2 ms per step instead of 10.3 and 9.5).
#define PN_BUDGET 8

// Projected Gauss-Seidel sweeps from the warm start before stage 0's
// projected Newton. PGS is coordinate descent on the same box QP (each sweep
// lowers f for SPD A) and moves many rows onto or off their bounds in one
// pass over A, a few percent of a factorisation's cost; projected Newton
// from a stale warm start (a pile whose contacts changed since the last
// step: natural residual 165 at its start) has its steps cut to a ~ 1e-6 ..
// 1e-2 by the projection arc while it finds those rows a few per
// factorisation. A few sweeps first is the gradient-projection phase of
// GPCG (More and Toraldo, "On the solution of large quadratic programming
// problems with bound constraints", SIAM J. Optim. 1, 1991) in PGS's form;
// projected Newton converges from any start, so it stays exact. Whole runs,
// 1 thread, factorisations in the restarts (TSR_RETRY_TRACE), without ->
// with: chain_drop direct-bpp 6,805 -> 5,074, schur-bpp 10,977 -> 9,025;
// rock_pile direct-bpp 11,536 -> 11,007, schur-bpp 19,962 -> 12,338;
// log_tower schur-bpp 3,417 -> 2,078 (20 sweeps did not do better on all).
// Solve ms a step: chain_drop (2 threads, means of 3 whole runs each)
// direct-bpp 6.66 -> 5.61, schur-bpp 4.51 -> 3.87; rock_pile direct-bpp,
// 1 thread, over six piles (gravity scaled by 1 + k 1e-5, k = -2..3: a
// pile is chaotic, and the model's own one alone went 4.2 -> 4.9) 5.23 ->
// 4.26, fewer pivots and Newton steps in five of the six. TSR_RETRY_NO_PGS=1
// turns them off.
#define PN_PGS_SWEEPS 10

// Rounds of block pivoting continued from the best iterate (stage 3 of
// tsr_bpp_retry_solve), kappa_iter pivots each.
#define CONTINUE_ROUNDS 8

// The primal active-set method (solvers/pas.c) of stage 0. It changes its
// working set by one row per factorisation, so it pays where those are row
// updates of one factor (linalg/chol_rowmod.c: the sparse LDL^T path,
// chains and piles of capsules) and the warm start is a few rows off: from
// the swept warm start, chain_drop's restarted solves (direct-bpp, 1,700-
// 1,900 rows) needed 0-60 changes, about 2 ms each solve, where projected
// Newton took 20-60 factorisations; and it does not cycle at degenerate
// points where projected Newton and block pivoting do (pas.c). Where the
// factor is CHOLMOD's supernodal one (log_tower: dense factors, working sets
// that change by 100 rows and more), the first attempt stops before its
// second factorisation, and after PAS_FIRST_FRESH fresh ones beyond the
// first elsewhere, and projected Newton goes on from the swept start; it
// also stops at PAS_FIRST_BUDGET kappa_iter changes (log_tower_256: 200
// updated changes, 130 ms, and no solution).
// After projected Newton, PAS_BUDGET kappa_iter changes of either kind.
// Gravity ensembles (8 and 6 draws, 1 thread), median solve ms a step
// without -> with: chain_drop direct-bpp 3.97 -> 2.81, schur-bpp 3.91 ->
// 3.52; rock_pile direct-bpp 4.40 -> 3.11, schur-bpp 5.04 -> 4.15; the one
// unconverged chain_drop step of those 16 runs (a projected Newton cycle,
// residual 1.0e-6) solved. TSR_RETRY_NO_PAS=1 turns it off.
#define PAS_BUDGET 4
#define PAS_FIRST_BUDGET 2
#define PAS_FIRST_FRESH 1
// Skipping the first block pivoting. In a pile-up consecutive solves stall
// block pivoting alike (degenerate contacts), and its stalled attempt was
// 41% of direct-bpp's restarted solves on chain_drop (568 of 1,369 ms: 5
// fresh factorisations of 1,850 rows each) before the first active-set
// attempt solved every one of them. So after a solve where block pivoting
// stalled and that attempt solved, the next 2^L - 1 solves of the object
// start with the attempt (L: such solves in a row, at most SKIP_LEVELS),
// then one starts with block pivoting again to see whether it still stalls
// (a solve where it does not sets L to 0): an isolated stall (chain_wrap: 9
// in 2,400 steps) costs one skipped solve, not the run's every later one,
// which doubled chain_wrap's solve time. Systems of SKIP_MIN_ROWS rows and
// more only: the attempt's factorisations are row updates from there
// (linalg/chol_rowmod.c), and a small system's block pivoting costs
// little. The substructured solvers skip in the subsystems' solves of a
// step's first coupling iteration only (schur.c). Gravity ensembles, 1
// thread, median solve ms a step without -> with: chain_drop direct-bpp
// 2.66 -> 1.97 (8 draws), schur-bpp 3.34 -> 3.25; the first 120 steps of
// the other scenes within this machine's noise. TSR_RETRY_NO_SKIP=1 turns
// it off.
#define SKIP_MIN_ROWS 128
#define SKIP_LEVELS 4

struct TsrBppRetry {
  TsrPn *pn;
  TsrPas *pas;
  TsrPgs *pgs;
  int cap_lambda, cap_set, cap_start, cap_swept;
  double *best_lambda;  // the best iterate so far
  int8_t *best_set;
  double *start;      // the caller's warm start (BPP does not read lambda)
  double *swept;      // the warm start after PN_PGS_SWEEPS, where stage 0's methods start
  double *w, *sigma;  // polish's scratch
  int cap_w, cap_sigma;
  int stall;   // the stall exit on the first BPP (TSR_RETRY_STALL=0: off)
  int trace;   // TSR_RETRY_TRACE
  int sweeps;  // PN_PGS_SWEEPS, 0 with TSR_RETRY_NO_PGS=1
  int use_pas;
  int skip_left;   // solves of the skip's class left that start with the first active-set attempt
  int skip_level;  // consecutive stalls of block pivoting that the attempt then solved (SKIP_LEVELS at most)
  int skip_on;     // 0 with TSR_RETRY_NO_SKIP=1
  int skip_class;  // tsr_bpp_retry_set_skip: this solve may skip, and its outcome sets skip_left
};

TsrBppRetry *tsr_bpp_retry_create(void) {
  TsrBppRetry *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  const char *e = getenv("TSR_RETRY_STALL");
  r->stall = !(e && !strcmp(e, "0"));
  r->trace = getenv("TSR_RETRY_TRACE") != NULL;
  r->sweeps = tsr_env_flag("TSR_RETRY_NO_PGS") ? 0 : PN_PGS_SWEEPS;
  r->use_pas = !tsr_env_flag("TSR_RETRY_NO_PAS");
  r->skip_on = !tsr_env_flag("TSR_RETRY_NO_SKIP");
  r->skip_class = 1;
  return r;
}

void tsr_bpp_retry_set_skip(TsrBppRetry *r, int on) { r->skip_class = on != 0; }

void tsr_bpp_retry_free(TsrBppRetry **pr) {
  TsrBppRetry *r = pr ? *pr : NULL;
  if (!r) return;
  tsr_pn_free(&r->pn);
  tsr_pas_free(&r->pas);
  tsr_pgs_free(&r->pgs);
  free(r->best_lambda);
  free(r->best_set);
  free(r->start);
  free(r->swept);
  free(r->w), free(r->sigma);
  free(r);
  *pr = NULL;
}

// Keeps lambda / index_set as the best iterate when a solve that ran out of
// its budget (rc > 0) left a lower residual than *best.
static void keep_if_better(TsrBppRetry *r, const TsrMlcp *p, int rc, const TsrSolveStats *st, const double *lambda,
                           const int8_t *index_set, TsrSolveStats *best) {
  if (rc <= 0 || !(st->residual < best->residual)) return;
  *best = *st;
  memcpy(r->best_lambda, lambda, (size_t)p->m * sizeof *lambda);
  if (index_set) memcpy(r->best_set, index_set, (size_t)p->m);
}

// Adds a stage's pivots and factorisations to the solve's; when the stage
// solved p (src 0), its stats become the result.
static int stage_solved(int src, const TsrSolveStats *st, int *spent, int *facts, TsrSolveStats *stats) {
  *spent += st->iterations, *facts += st->factorizations;
  if (src != 0) return 0;
  *stats = *st;
  return 1;
}

// Projected Newton from lambda, PN_BUDGET kappa_iter Newton steps at most.
// Returns 0 when it solved p (its stats are then the result), else its
// return code; its iterate is kept in *best when better.
static int pn_stage(TsrBppRetry *r, const TsrMlcp *p, const TsrSolverParams *params, double *lambda, int8_t *index_set,
                    int *spent, int *facts, TsrSolveStats *stats, TsrSolveStats *best) {
  TsrSolveStats st = {0};
  int prc = tsr_pn_solve(p, PN_BUDGET * params->max_pivots, lambda, index_set, &st, r->pn);
  if (stage_solved(prc, &st, spent, facts, stats)) return 0;
  keep_if_better(r, p, prc, &st, lambda, index_set, best);
  return prc;
}

// The primal active-set method (pas.c) from lambda, max_iter changes of its
// working set and max_fresh fresh factorisations at most (tsr_pas_solve); as
// pn_stage. Returns 1 without running where it is turned off.
static int pas_stage(TsrBppRetry *r, const TsrMlcp *p, int max_iter, int max_fresh, double *lambda, int8_t *index_set,
                     int *spent, int *facts, TsrSolveStats *stats, TsrSolveStats *best) {
  if (!r->use_pas || !(r->pas || (r->pas = tsr_pas_create()))) return 1;
  TsrSolveStats st = {0};
  double t0 = r->trace ? tsr_now_seconds() : 0.0;
  int arc = tsr_pas_solve(p, max_iter, max_fresh, lambda, index_set, &st, r->pas);
  if (r->trace)
    fprintf(stderr, "active set, %d rows: rc %d, %d changes, %d factorisations, residual %.3e, %.0f us\n", p->m, arc,
            st.iterations, st.factorizations, st.residual, 1e6 * (tsr_now_seconds() - t0));
  if (stage_solved(arc, &st, spent, facts, stats)) return 0;
  keep_if_better(r, p, arc, &st, lambda, index_set, best);
  return arc;
}

// BPP from the caller's index set (warm) or all-free, max_pivots pivots, its
// statistics into st.
static int bpp_with(const TsrMlcp *p, const TsrSolverParams *params, int warm, int max_pivots, double *lambda,
                    int8_t *index_set, TsrSolveStats *st, TsrBpp *bpp) {
  TsrSolverParams bp = *params;
  bp.warm_start = warm;
  bp.max_pivots = max_pivots;
  *st = (TsrSolveStats){0};
  return tsr_bpp_solve(p, &bp, lambda, index_set, st, bpp);
}

// BPP warm-started from the index set (Eq. 12, tolerance eta) of an
// approximate solution in lambda. Without a caller's index set, best_set
// (unused then) is the scratch.
static int bpp_from_iterate(TsrBppRetry *r, const TsrMlcp *p, const TsrSolverParams *params, int max_pivots,
                            double *lambda, int8_t *index_set, TsrSolveStats *st, TsrBpp *bpp) {
  int8_t *seed = index_set ? index_set : r->best_set;
  tsr_mlcp_index_set(p, lambda, params->index_tolerance, seed);
  return bpp_with(p, params, 1, max_pivots, lambda, seed, st, bpp);
}

// Pivots of the exact pass after projected Newton (polish).
#define EXACT_PIVOTS 4

// Polishing of a converged result. The stages stop at global tolerances,
// and rows whose own terms are far smaller than the largest row's can be
// left wrong by 1e-7 of their own scale (a friction row of a light body
// beside a 75 t crane). BPP polishes its own results (bpp.c) by pivoting,
// a local search that can end short (tandem_cranes step 80: friction rows
// flipping between their bounds); projected Newton stops row by row but
// only a few Newton steps past its global tolerance (pn.c), and can crawl
// there. So when a result's relative residual (tsr_mlcp_relative_residual)
// is above TSR_BPP_POLISH_ROW, the other method gets PN_BUDGET kappa_iter more steps
// from it: BPP seeded with its index set (unless BPP made it), then projected
// Newton (symmetric A); if still above, projected Gauss-Seidel from zero,
// projected Newton and BPP from there. The result of lowest relative
// residual is kept. Random contact models (seeds 3060 and 3224 of
// tests/substructure/test_random_models.py) needed the last: rows stayed at
// 7.4e-7 and 2.4e-8 of their own terms without it, and reach 1.8e-16 and
// 6.2e-13 with it; no example scene's step needs it.
static double measured_rho(TsrBppRetry *r, const TsrMlcp *p, const double *lambda) {
  return tsr_mlcp_relative_residual_of(p, lambda, r->w, r->sigma);
}

// Copies an iterate (the index set when there is one).
static void copy_iterate(int m, double *dst_lambda, int8_t *dst_set, const double *lambda, const int8_t *set) {
  memcpy(dst_lambda, lambda, (size_t)m * sizeof *lambda);
  if (dst_set && set) memcpy(dst_set, set, (size_t)m);
}

// PN_PGS_SWEEPS sweeps of projected Gauss-Seidel from the warm start in
// lambda, in place; lambda is left as it was where PGS cannot run (a
// diagonal entry <= 0). None without a bound to find (every row
// bilateral): projected Newton's first step then solves the system, and
// sweeps before it on a singular A (doubled joints, tests/physics/
// test_redundant.c) left the motion 2.4e-9 m off, against 1.8e-12.
static void pgs_sweeps(TsrBppRetry *r, const TsrMlcp *p, const TsrSolverParams *params, double *lambda) {
  int bounded = 0;
  for (int i = 0; i < p->m && !bounded; i++)
    bounded = p->lo[i] != p->hi[i] && (isfinite(p->lo[i]) || isfinite(p->hi[i]));
  if (!bounded || r->sweeps <= 0 || !(r->pgs || (r->pgs = tsr_pgs_create()))) return;
  TsrSolverParams pp = *params;
  pp.warm_start = 1;
  pp.iterations = r->sweeps;
  TsrSolveStats st = {0};
  if (tsr_pgs_solve(p, &pp, lambda, &st, r->pgs) < 0) memcpy(lambda, r->start, (size_t)p->m * sizeof *lambda);
}

// Projected Gauss-Seidel from zero (params.iterations sweeps at most) into
// lambda: an approximate solution far from where a stalled local search
// ended. Returns tsr_pgs_solve's code.
static int pgs_from_zero(TsrBppRetry *r, const TsrMlcp *p, const TsrSolverParams *params, double *lambda) {
  TsrSolverParams pp = *params;
  pp.warm_start = 0;
  TsrSolveStats st = {0};
  memset(lambda, 0, (size_t)p->m * sizeof *lambda);
  return tsr_pgs_solve(p, &pp, lambda, &st, r->pgs);
}

// The best iterate of a polish so far (kept in r->best_lambda / best_set):
// its largest relative row residual and its Eq. 29 residual.
typedef struct {
  double rho, res;
} PolishBest;

// Keeps lambda / index_set when rho beats the best.
static void keep_polished(TsrBppRetry *r, int m, double rho, double res, const double *lambda, const int8_t *index_set,
                          PolishBest *best) {
  if (!(rho < best->rho)) return;
  best->rho = rho, best->res = res;
  copy_iterate(m, r->best_lambda, r->best_set, lambda, index_set);
}

// Projected Newton from lambda (PN_BUDGET kappa_iter steps), kept when better.
static void polish_pn(TsrBppRetry *r, const TsrMlcp *p, const TsrSolverParams *params, double *lambda,
                      int8_t *index_set, TsrSolveStats *stats, PolishBest *best) {
  TsrSolveStats pst = {0};
  int prc = tsr_pn_solve(p, PN_BUDGET * params->max_pivots, lambda, index_set, &pst, r->pn);
  stats->iterations += pst.iterations, stats->factorizations += pst.factorizations;
  keep_polished(r, p->m, prc == 0 ? measured_rho(r, p, lambda) : INFINITY, pst.residual, lambda, index_set, best);
}

// BPP seeded with lambda's index set (max_pivots), kept when better.
static void polish_bpp(TsrBppRetry *r, const TsrMlcp *p, const TsrSolverParams *params, int max_pivots, double *lambda,
                       int8_t *index_set, TsrSolveStats *stats, TsrBpp *bpp, PolishBest *best) {
  TsrSolveStats bst = {0};
  int brc = bpp_from_iterate(r, p, params, max_pivots, lambda, index_set, &bst, bpp);
  stats->iterations += bst.iterations, stats->factorizations += bst.factorizations;
  keep_polished(r, p->m, brc == 0 ? tsr_bpp_relative_residual(bpp) : INFINITY, bst.residual, lambda, index_set, best);
}

static void polish(TsrBppRetry *r, const TsrMlcp *p, const TsrSolverParams *params, int from_bpp, double *lambda,
                   int8_t *index_set, TsrSolveStats *stats, TsrBpp *bpp) {
  int m = p->m;
  // BPP's own result needs nothing here unless it is above the threshold
  // (the common case: every subsystem solve of the substructured solvers).
  if (from_bpp && !(tsr_bpp_relative_residual(bpp) > TSR_BPP_POLISH_ROW)) return;
  if (tsr_grow((void **)&r->best_lambda, &r->cap_lambda, m + 1, sizeof *r->best_lambda) ||
      tsr_grow((void **)&r->best_set, &r->cap_set, m + 1, sizeof *r->best_set) ||
      tsr_grow((void **)&r->w, &r->cap_w, m + 1, sizeof *r->w) ||
      tsr_grow((void **)&r->sigma, &r->cap_sigma, m + 1, sizeof *r->sigma))
    return;
  double rho0 = from_bpp ? tsr_bpp_relative_residual(bpp) : measured_rho(r, p, lambda);
  if (!(rho0 > TSR_BPP_POLISH_ROW)) {
    // Projected Newton's result within the threshold still stops at its own
    // tolerance: BPP from its index set solves that set exactly, kept when
    // its residual (Eq. 29) is lower and its rows stay within the
    // threshold. A compliance-0 chain of 23 links pushed out of the ground
    // was left at 1.8e-7 N s, its velocities 2.7e-6 (relative) from the
    // substructured solver's, which had refined to 2e-11.
    if (from_bpp) return;
    copy_iterate(m, r->best_lambda, r->best_set, lambda, index_set);
    TsrSolveStats bst = {0};
    // a few pivots at most: the set is projected Newton's, right or nearly
    int brc = bpp_from_iterate(r, p, params, EXACT_PIVOTS, lambda, index_set, &bst, bpp);
    stats->iterations += bst.iterations, stats->factorizations += bst.factorizations;
    if (brc == 0 && bst.residual < stats->residual && !(tsr_bpp_relative_residual(bpp) > TSR_BPP_POLISH_ROW)) {
      if (r->trace)
        fprintf(stderr, "bpp exact pass, %d rows: residual %.3e -> %.3e\n", m, stats->residual, bst.residual);
      stats->residual = bst.residual;
      return;
    }
    copy_iterate(m, lambda, index_set, r->best_lambda, r->best_set);
    return;
  }
  PolishBest best = {rho0, stats->residual};
  copy_iterate(m, r->best_lambda, r->best_set, lambda, index_set);
  int stalled = 0;  // BPP's first polish ran with the stall exit
  if (!from_bpp) {
    // Projected Newton follows on a symmetric A: BPP may stop where block
    // pivoting stalls (single pivots or a repeated set), as in the first
    // solve. Seeded from an iterate whose degenerate rows had cycled in and
    // out of the binding set (pn.c), it otherwise single-pivoted through its
    // whole budget, and projected Newton from the same best iterate then
    // polished the result: chain_drop step 578 (direct-bpp, 1,950 rows)
    // took 601 factorisations and 0.5 s, now 207 and 0.17 s, with the same
    // result (relative residual 2.0e-16). Where projected Newton does not
    // finish the polish, BPP runs again from the best iterate without the
    // exit (below).
    stalled = p->symmetric && r->stall;
    tsr_bpp_set_stall_exit(bpp, stalled);
    polish_bpp(r, p, params, PN_BUDGET * params->max_pivots, lambda, index_set, stats, bpp, &best);
    tsr_bpp_set_stall_exit(bpp, 0);
  }
  if (best.rho > TSR_BPP_POLISH_ROW && p->symmetric && (r->pn || (r->pn = tsr_pn_create()))) {
    memcpy(lambda, r->best_lambda, (size_t)m * sizeof *lambda);
    polish_pn(r, p, params, lambda, index_set, stats, &best);
  }
  if (stalled && best.rho > TSR_BPP_POLISH_ROW) {
    // Single pivots can finish what neither did (random contact seed 6373
    // of tests/substructure/test_random_models.py, projected Newton's
    // result after PGS sweeps: 2.3e-8 -> 6.3e-16 with this pass, 8.6e-9 without).
    memcpy(lambda, r->best_lambda, (size_t)m * sizeof *lambda);
    polish_bpp(r, p, params, PN_BUDGET * params->max_pivots, lambda, index_set, stats, bpp, &best);
  }
  // Both local searches can stall at a degenerate point (block pivoting
  // cycling among friction rows at their bounds, projected Newton cut to
  // steps of 1e-4 by the bounds): then the restarts' last stage, projected
  // Gauss-Seidel from zero, projected Newton from its solution and BPP from
  // where that ends, keeping the best.
  if (best.rho > TSR_BPP_POLISH_ROW && p->symmetric && r->pn && (r->pgs || (r->pgs = tsr_pgs_create()))) {
    if (pgs_from_zero(r, p, params, lambda) >= 0) {
      polish_pn(r, p, params, lambda, index_set, stats, &best);
      if (best.rho > TSR_BPP_POLISH_ROW)
        polish_bpp(r, p, params, 4 * params->max_pivots, lambda, index_set, stats, bpp, &best);
    }
  }
  copy_iterate(m, lambda, index_set, r->best_lambda, r->best_set);
  stats->residual = best.res;
  if (r->trace) fprintf(stderr, "bpp polish, %d rows: relative residual %.3e -> %.3e\n", m, rho0, best.rho);
}

// The best iterate's arrays (the restarts' workspaces: allocated on the
// first solve that needs them).
static int grow_best(TsrBppRetry *r, int m) {
  return tsr_grow((void **)&r->best_lambda, &r->cap_lambda, m + 1, sizeof *r->best_lambda) ||
         tsr_grow((void **)&r->best_set, &r->cap_set, m + 1, sizeof *r->best_set);
}

// The first active-set attempt of stage 0 (PGS sweeps from the warm start,
// then tsr_pas_solve within PAS_FIRST_*), shared by the skip below and by
// stage 0. Returns 0 when it solved p; lambda then holds the result, else
// the swept start (kept in r->swept).
static int pas_first(TsrBppRetry *r, const TsrMlcp *p, const TsrSolverParams *params, double *lambda, int8_t *index_set,
                     int *spent, int *facts, TsrSolveStats *stats, TsrSolveStats *best) {
  int m = p->m;
  memcpy(lambda, r->start, (size_t)m * sizeof *lambda);
  pgs_sweeps(r, p, params, lambda);
  if (tsr_grow((void **)&r->swept, &r->cap_swept, m + 1, sizeof *r->swept)) return -1;
  memcpy(r->swept, lambda, (size_t)m * sizeof *lambda);
  int arc = pas_stage(r, p, PAS_FIRST_BUDGET * params->max_pivots, PAS_FIRST_FRESH, lambda, index_set, spent, facts,
                      stats, best);
  if (arc != 0) memcpy(lambda, r->swept, (size_t)m * sizeof *lambda);
  return arc;
}

int tsr_bpp_retry_solve(const TsrMlcp *p, const TsrSolverParams *params, double *lambda, int8_t *index_set,
                        TsrSolveStats *stats, TsrBpp *bpp, TsrBppRetry *r) {
  int m = p->m;
  const double t_call = r->trace ? tsr_now_seconds() : 0.0;
  if (tsr_grow((void **)&r->start, &r->cap_start, m + 1, sizeof *r->start)) return -1;
  if (m) memcpy(r->start, lambda, (size_t)m * sizeof *lambda);
  // Counts are added to the caller's (as tsr_bpp_solve does).
  int it0 = stats->iterations, fa0 = stats->factorizations;
  int spent = 0, facts = 0, first_facts = 0, rc = 1;
  const char *stage = "best iterate kept";
  int by_pn = 0;   // the result is projected Newton's (polish: BPP from it first)
  int by_pas = 0;  // the active-set method's: within TSR_BPP_POLISH_ROW row by row, and exact on its face
  int pas_tried = 0;
  double t_first = t_call;  // (trace) when the first BPP ended
  TsrSolveStats first = {0};
  first.residual = INFINITY;
  // Solves in the skip's class after block pivoting stalled and the first
  // active-set attempt solved: that attempt first (SKIP_MIN_ROWS).
  int skip = r->skip_left > 0 && r->skip_class && r->skip_on && m >= SKIP_MIN_ROWS;
  if (r->skip_class) r->skip_left = skip ? r->skip_left - 1 : 0;
  if (skip && p->symmetric && r->use_pas && (r->pn || (r->pn = tsr_pn_create()))) {
    if (grow_best(r, m)) return -1;
    pas_tried = 1;
    int arc = pas_first(r, p, params, lambda, index_set, &spent, &facts, stats, &first);
    if (arc < 0) return -1;
    if (arc == 0) {
      stage = "active set, first BPP skipped";
      goto solved_by_pas;
    }
    r->skip_left = r->skip_level = 0;
    memcpy(lambda, r->start, (size_t)m * sizeof *lambda);
  }
  tsr_bpp_set_stall_exit(bpp, p->symmetric && r->stall);
  TsrSolveStats bfirst = {0};
  rc = tsr_bpp_solve(p, params, lambda, index_set, &bfirst, bpp);
  tsr_bpp_set_stall_exit(bpp, 0);
  t_first = r->trace ? tsr_now_seconds() : t_call;
  spent += bfirst.iterations, facts += bfirst.factorizations, first_facts = bfirst.factorizations;
  if (rc == 0 || m == 0) {
    if (r->skip_class) r->skip_level = 0;  // block pivoting did not stall
    *stats = bfirst;
    stats->iterations = it0 + spent, stats->factorizations = fa0 + facts;
    if (rc == 0 && m > 0) polish(r, p, params, 1, lambda, index_set, stats, bpp);
    return rc;
  }
  if (rc < 0 || grow_best(r, m)) return rc < 0 ? rc : -1;
  if (!(first.residual <= bfirst.residual)) {  // (the skipped attempt's iterate, when it was lower)
    first = bfirst;
    memcpy(r->best_lambda, lambda, (size_t)m * sizeof *lambda);
    if (index_set) memcpy(r->best_set, index_set, (size_t)m);
  }
  // 0. From the warm start after PN_PGS_SWEEPS sweeps of PGS: the primal
  // active-set method while it is cheap (PAS_FIRST_*), then projected
  // Newton from the same swept start (PN_BUDGET kappa_iter Newton steps at
  // most), then the active-set method again from projected Newton's
  // iterate (PAS_BUDGET kappa_iter changes of its working set at most).
  if (p->symmetric && (r->pn || (r->pn = tsr_pn_create()))) {
    if (pas_tried) {
      memcpy(lambda, r->swept, (size_t)m * sizeof *lambda);  // that attempt again would end where it did
    } else {
      int arc = pas_first(r, p, params, lambda, index_set, &spent, &facts, stats, &first);
      if (arc < 0) return -1;
      if (arc == 0) {
        stage = "active set";
        if (r->skip_class) {  // block pivoting stalled, the attempt solved p
          if (r->skip_level < SKIP_LEVELS) r->skip_level++;
          r->skip_left = (1 << r->skip_level) - 1;
        }
        goto solved_by_pas;
      }
    }
    if (r->skip_class) r->skip_level = 0;
    int prc = pn_stage(r, p, params, lambda, index_set, &spent, &facts, stats, &first);
    if (prc == 0) {
      rc = 0;
      stage = "projected Newton";
      by_pn = 1;
      goto done;
    }
    if (prc > 0 &&
        pas_stage(r, p, PAS_BUDGET * params->max_pivots, -1, lambda, index_set, &spent, &facts, stats, &first) == 0) {
      stage = "active set after projected Newton";
      goto solved_by_pas;
    }
    if (prc > 0) {  // near the minimiser: its index set seeds block pivoting again
      TsrSolveStats bst = {0};
      int brc = bpp_from_iterate(r, p, params, params->max_pivots, lambda, index_set, &bst, bpp);
      if (stage_solved(brc, &bst, &spent, &facts, stats)) {
        rc = 0;
        stage = "re-seeded BPP";
        goto done;
      }
      keep_if_better(r, p, brc, &bst, lambda, index_set, &first);
    }
  }
  if (!r->pgs && !(r->pgs = tsr_pgs_create())) goto keep_first;
  // 1. From all-free with twice the budget.
  TsrSolveStats cst;
  int rc1 = bpp_with(p, params, 0, 2 * params->max_pivots, lambda, index_set, &cst, bpp);
  if (stage_solved(rc1, &cst, &spent, &facts, stats)) {
    rc = 0;
    stage = "all-free BPP";
    goto done;
  }
  keep_if_better(r, p, rc1, &cst, lambda, index_set, &first);
  // 2. PGS from zero; projected Newton from its solution; BPP seeded from
  // where that ends, with four times the budget.
  if (pgs_from_zero(r, p, params, lambda) < 0) {
    // 3. No projected Gauss-Seidel (a zero or negative diagonal: the
    // equality rows of the Siconos MLCPs) and no projected Newton (not
    // symmetric): block pivoting again from the best iterate's index set, a
    // fresh pivoting history each time, while that improves the residual.
    // The Siconos deltasigma MLCPs (221 rows, nonsymmetric) were left at
    // relative residual 0.5 by the stages above; the substructured solvers,
    // whose coupling iterations do this, solved them.
    for (int round = 0; round < CONTINUE_ROUNDS && index_set; round++) {
      copy_iterate(m, lambda, index_set, r->best_lambda, r->best_set);
      TsrSolveStats wst;
      int rc3 = bpp_with(p, params, 1, params->max_pivots, lambda, index_set, &wst, bpp);
      if (stage_solved(rc3, &wst, &spent, &facts, stats)) {
        rc = 0;
        stage = "continued BPP";
        goto done;
      }
      if (rc3 < 0 || !(wst.residual < first.residual)) break;
      keep_if_better(r, p, rc3, &wst, lambda, index_set, &first);
    }
    goto keep_first;
  }
  if (p->symmetric && r->pn && pn_stage(r, p, params, lambda, index_set, &spent, &facts, stats, &first) == 0) {
    rc = 0;
    stage = "projected Newton from PGS";
    by_pn = 1;
    goto done;
  }
  TsrSolveStats gst = {0};
  int rc2 = bpp_from_iterate(r, p, params, 4 * params->max_pivots, lambda, index_set, &gst, bpp);
  spent += gst.iterations, facts += gst.factorizations;
  if (rc2 >= 0 && (rc2 == 0 || gst.residual <= first.residual)) {
    *stats = gst;
    rc = rc2;
    stage = "PGS-seeded BPP";
    goto done;
  }
keep_first:
  copy_iterate(m, lambda, index_set, r->best_lambda, r->best_set);
  *stats = first;
  goto done;
solved_by_pas:  // an active-set attempt solved p (stage names which)
  rc = 0;
  by_pas = 1;
done:
  stats->iterations = it0 + spent, stats->factorizations = fa0 + facts;
  // An active-set result needs no polish: it stops only with every row
  // within TSR_BPP_POLISH_ROW of its own terms (PAS_ROW), at the exact
  // minimiser of its face, which is what the polish's BPP pass would solve
  // for again.
  if (rc == 0 && !by_pas) polish(r, p, params, !by_pn, lambda, index_set, stats, bpp);
  if (r->trace)  // one line per solve that needed the restarts: its factorisations and time, polish included
    fprintf(stderr,
            "bpp restarts, %d rows: %s (%s), %d factorisations (%d in the first BPP), residual %.3e, %.0f us (%.0f in "
            "the first BPP)\n",
            m, rc == 0 ? "solved" : "not solved", stage, stats->factorizations - fa0, first_facts, stats->residual,
            1e6 * (tsr_now_seconds() - t_call), 1e6 * (t_first - t_call));
  return rc;
}
