// SPDX-License-Identifier: MIT
// The solver interface (solver.h): defaults of seed 000 Table 1, creation of
// the implemented solvers, dispatch. Each solver instance owns its workspace
// and its CHOLMOD context, reused from step to step.
#include "solvers/solver.h"
#include "math/tsr_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/chol.h"
#include "solvers/fbic.h"
#include "solvers/pgs.h"
#include "solvers/pgs_sm.h"
#include "solvers/islands.h"
#include "solvers/lemke.h"
#include "solvers/schur.h"
#include "util/clock.h"
#include "util/env.h"
#include "util/grow.h"

struct TsrSolver {
  TsrSolverParams params;
  TsrPgs *pgs;
  TsrPgsSm *pgs_sm;
  TsrSchur *schur;
  TsrFbic *fbic;
  TsrIslands *islands;  // direct-bpp, island by island, with its restarts (islands.h)
  TsrLemke *lemke;      // `mlcp solve --solver lemke` (lemke.h)
  char note[400];       // tsr_solver_note when the data-scale check overrules lemke
  int fallbacks;        // schur_with_fallback
  double fallback_seconds;
  int no_fallback;  // TSR_SCHUR_NO_FALLBACK=1 (to measure what it does)
  int trace;        // TSR_SCHUR_TRACE: one line per fallback
  int cap_keep_lambda, cap_keep_set;
  double *keep_lambda;  // schur_with_fallback: the warm start, then the best iterate
  int8_t *keep_set;
  int cap_check_w, cap_check_t;
  double *check_w, *check_t;  // holds_at_data_scale
};

int tsr_solver_substructured(TsrSolverType type) {
  return type == TSR_SOLVER_SCHUR_BPP || type == TSR_SOLVER_SCHUR_PGS_SM || type == TSR_SOLVER_FBIC;
}

int tsr_solver_default_kmax(TsrSolverType type) { return type == TSR_SOLVER_FBIC ? 250 : 10; }

void tsr_solver_default_params(TsrSolverType type, TsrSolverParams *params) {
  memset(params, 0, sizeof *params);
  params->type = type;
  params->max_pivots = 50;         // kappa_iter, Table 1 (BPP, Schur-*, FBIC)
  params->index_tolerance = 1e-5;  // eta
  params->iterations = 1000;       // PGS sweeps
  params->tolerance = 1e-9;        // epsilon
  params->warm_start = 1;
  params->max_coupling_iterations = tsr_solver_default_kmax(type);  // k_max
  params->threads = 0;
  params->pivot_tolerance = 1e-10;
  if (type == TSR_SOLVER_PGS) params->max_pivots = 0;
  if (type == TSR_SOLVER_LEMKE) params->max_pivots = 0;  // TSR_LEMKE_PIVOTS(n)
}

TsrSolver *tsr_solver_create(const TsrSolverParams *params, char *err, int errlen) {
  if (params->type < 0 || (params->type >= TSR_SOLVER_COUNT && params->type != TSR_SOLVER_LEMKE)) {
    if (err && errlen > 0)
      snprintf(err, (size_t)errlen, "solver '%s' is not available in this build yet",
               tsr_solver_type_name(params->type));
    return NULL;
  }
  TsrSolver *s = calloc(1, sizeof *s);
  if (!s) goto oom;
  s->params = *params;
  s->no_fallback = tsr_env_flag("TSR_SCHUR_NO_FALLBACK");
  s->trace = getenv("TSR_SCHUR_TRACE") != NULL;
  if (params->type == TSR_SOLVER_DIRECT_BPP && !(s->islands = tsr_islands_create())) goto oom;
  if (params->type == TSR_SOLVER_PGS && !(s->pgs = tsr_pgs_create())) goto oom;
  if (params->type == TSR_SOLVER_PGS_SM && !(s->pgs_sm = tsr_pgs_sm_create())) goto oom;
  if (params->type == TSR_SOLVER_SCHUR_BPP && !(s->schur = tsr_schur_create(TSR_SCHUR_IFACE_BPP))) goto oom;
  if (params->type == TSR_SOLVER_SCHUR_PGS_SM && !(s->schur = tsr_schur_create(TSR_SCHUR_IFACE_PGS_SM))) goto oom;
  if (params->type == TSR_SOLVER_FBIC && !(s->fbic = tsr_fbic_create())) goto oom;
  if (params->type == TSR_SOLVER_LEMKE && !(s->lemke = tsr_lemke_create())) goto oom;
  return s;
oom:
  tsr_solver_free(&s);
  if (err && errlen > 0)
    snprintf(err, (size_t)errlen, "out of memory creating solver '%s'", tsr_solver_type_name(params->type));
  return NULL;
}

// Direct BPP, warm-started from the previous step's index set when asked,
// with the restarts of solvers/bpp_retry.c when it runs out of pivots, one
// independent block of A (island) at a time (solvers/islands.h).
static int bpp_with_restart(TsrSolver *s, const TsrMlcp *p, double *lambda, int8_t *index_set, TsrSolveStats *stats) {
  if (!s->islands && !(s->islands = tsr_islands_create())) return -1;
  return tsr_islands_solve(p, &s->params, lambda, index_set, stats, s->islands);
}

// Room for a copy of lambda and the index set (keep_lambda, keep_set).
static int keep_room(TsrSolver *s, int m) {
  return tsr_grow((void **)&s->keep_lambda, &s->cap_keep_lambda, m, sizeof *s->keep_lambda) ||
         tsr_grow((void **)&s->keep_set, &s->cap_keep_set, m, sizeof *s->keep_set);
}

static void keep(TsrSolver *s, int m, const double *lambda, const int8_t *index_set) {
  memcpy(s->keep_lambda, lambda, (size_t)m * sizeof *lambda);
  if (index_set) memcpy(s->keep_set, index_set, (size_t)m);
}

static void restore(const TsrSolver *s, int m, double *lambda, int8_t *index_set) {
  memcpy(lambda, s->keep_lambda, (size_t)m * sizeof *lambda);
  if (index_set) memcpy(index_set, s->keep_set, (size_t)m);
}

// The direct solver on the whole system from lambda / index_set, timed and
// counted as a fallback.
static int direct_fallback(TsrSolver *s, const TsrMlcp *p, double *lambda, int8_t *index_set, TsrSolveStats *st) {
  s->fallbacks++;
  double t0 = tsr_now_seconds();
  int drc = bpp_with_restart(s, p, lambda, index_set, st);
  s->fallback_seconds += tsr_now_seconds() - t0;
  return drc;
}

// Impulses that ran off along a null space: a singular interface (rigid
// joints doubled across two subsystems, without compliance: a fixed joint
// and a ball joint between the same two bodies, 9 interface rows of rank 6)
// is factorised with a shift, and S_Gamma's null space, perturbed by the
// rounding of Eq. 24, lets the interface impulses drift along it. Their
// terms then cancel in A lambda, which still looks solved (residual 9e-11,
// index sets repeated), but the velocities M^-1 J^T lambda lose every digit:
// |A||lambda| went from 40 |b|_inf to 4e10 on one step and 3e28 on the next,
// and the two bodies ended 496 m apart, every step "converged". A step is
// solved again by the direct solver, from the caller's warm start as after
// a breakdown, when |A||lambda| is above SCHUR_CANCEL_MAX |b|_inf and above
// SCHUR_CANCEL_JUMP times the warm start's: large alone is no sign (a 1e-4 kg
// body jointed to a 1e7 kg one keeps 8e10 |b|_inf step after step, solved
// well), a jump to it is. The examples, whole runs included, stay below 9e4.
#define SCHUR_CANCEL_MAX 1e10
#define SCHUR_CANCEL_JUMP 1e3

static int ran_off_null_space(TsrSolver *s, const TsrMlcp *p, const double *lambda, double bmax) {
  if (tsr_grow((void **)&s->check_t, &s->cap_check_t, p->m, sizeof *s->check_t)) return 0;
  double c = tsr_mlcp_abs_matvec(p, lambda, s->check_t);
  if (c <= SCHUR_CANCEL_MAX * bmax) return 0;                      // (NaN and inf go on)
  double c0 = tsr_mlcp_abs_matvec(p, s->keep_lambda, s->check_t);  // the warm start's
  return !(c <= SCHUR_CANCEL_JUMP * c0);
}

// Algorithm 1 does not always converge (seed 000 §8.2): the index sets can
// cycle, or k_max can be reached, and its best iterate may then be far from
// the solution (chain_drop, a 250-link chain piling up on the ground:
// residual 0.1 on one step, and the chain exploded a step later). When the
// iterate's residual (Eq. 29) is above the iterative tolerance epsilon
// (scaled by |b|_inf), the step is solved again on the whole system by the
// direct solver (with its own fallbacks), warm-started from the best
// iterate's index set; the better of the two is kept. Counted in
// tsr_solver_fallbacks; TSR_SCHUR_NO_FALLBACK=1 disables it (to measure).
//
// A substructured solve can also break down (status < 0): an A_FF of a
// subsystem that no factorisation takes, not even shifted (a singular
// nonsymmetric or indefinite block: lcp_Pang_isolated_sol of the Siconos
// collection, all free, is one), where block pivoting on the whole system
// simply pivots away from that set. The direct solver then solves the step
// from the caller's warm start (kept before the attempt: a failed attempt
// leaves lambda and the sets half written), instead of the run ending. Out
// of memory, it fails as well, and the step fails as before.
static int schur_with_fallback(TsrSolver *s, const TsrMlcp *p, const TsrPartition *part, double *lambda,
                               int8_t *index_set, TsrSolveStats *stats, double bmax) {
  int m = p->m, kept = m > 0 && !s->no_fallback && !keep_room(s, m);
  if (kept) keep(s, m, lambda, index_set);
  int rc = tsr_schur_solve(p, part, &s->params, lambda, index_set, stats, s->schur);
  if (kept && (rc < 0 || ran_off_null_space(s, p, lambda, bmax))) {
    restore(s, m, lambda, index_set);
    TsrSolveStats sub = *stats, st = {0};
    int drc = direct_fallback(s, p, lambda, index_set, &st);
    if (s->trace)
      fprintf(stderr, "fallback: schur %s (%d, k %d) -> direct rc %d residual %.3e, %d pivots\n",
              rc < 0 ? "failed" : "ran off", rc, sub.coupling_iterations, drc, st.residual, st.iterations);
    *stats = st;  // the direct solve's, with the attempt's partition and work
    stats->subsystems = sub.subsystems, stats->interface_rows = sub.interface_rows;
    stats->coupling_iterations = sub.coupling_iterations;
    stats->iterations += sub.iterations, stats->factorizations += sub.factorizations;
    return drc;
  }
  if (rc < 0 || !kept) return rc;
  // A converged step whose rows stayed off round-off through a shifted
  // subsystem (tsr_schur_unpolished) is solved again too, and the better
  // kept: coplanar contacts of compliance 0 in one subsystem left rows at
  // 3.6e-7 of their own terms, marked converged, where direct-bpp reaches
  // 2e-16 on the same MLCP.
  int unpolished = rc == 0 && tsr_schur_unpolished(s->schur);
  if (!unpolished && (rc == 0 || stats->residual <= s->params.tolerance * fmax(1.0, bmax))) return rc;
  keep(s, m, lambda, index_set);
  TsrSolveStats sub = *stats, st = {0};
  double before = s->fallback_seconds;
  int drc = direct_fallback(s, p, lambda, index_set, &st);
  if (s->trace)
    fprintf(
        stderr,
        "fallback: schur residual %.3e (k %d) -> direct rc %d residual %.3e, %d pivots, %d factorisations, %.2f ms\n",
        sub.residual, sub.coupling_iterations, drc, st.residual, st.iterations, st.factorizations,
        1e3 * (s->fallback_seconds - before));
  *stats = sub;  // keep the coupling statistics, add the direct solve's
  stats->iterations += st.iterations;
  stats->factorizations += st.factorizations;
  if (drc >= 0 && st.residual < sub.residual && (drc == 0 || rc != 0)) {  // (never a converged step for one not)
    stats->residual = st.residual;
    stats->converged = drc == 0;
    return drc;
  }
  restore(s, m, lambda, index_set);
  return rc;
}

int tsr_solver_fallbacks(const TsrSolver *s) { return s->fallbacks; }
const char *tsr_solver_note(const TsrSolver *s) {
  if (!s->lemke) return NULL;
  return s->note[0] ? s->note : tsr_lemke_note(s->lemke);
}
double tsr_solver_fallback_seconds(const TsrSolver *s) { return s->fallback_seconds; }

void tsr_solver_measure_cond(TsrSolver *s, int on) {
  if (s->schur) tsr_schur_measure_cond(s->schur, on);
}

long tsr_solver_cond_mean(const TsrSolver *s, double *mean) {
  *mean = NAN;
  if (!s->schur) return 0;
  const TsrSchurTimes *t = tsr_schur_times(s->schur);
  if (t->cond_n > 0) *mean = t->cond_sum / (double)t->cond_n;
  return t->cond_n;
}

// A solution claimed by a solver that solves exactly (all but PGS, whose
// "converged" means its sweeps stopped changing lambda) must also hold at the
// scale of the problem's data: Eq. 29 within SOLVED_AT_DATA of it, or at the
// rounding of its own terms (tsr_mlcp_holds_at_data). The solvers' own stops
// scale with |A||lambda|, the round-off of w = A lambda + b. Where A is
// singular and b outside its range no solution exists, and an iterate that
// runs off along A's null space meets those stops: two distance joints of
// different lengths between the same bodies, without compliance, were
// "solved" at every step by direct-bpp, schur-bpp, schur-pgs-sm and fbic
// with impulses of 2.6e12 N s and residual 3.2 against |b|_inf = 4.3. Over the example scenes (direct-bpp and
// schur-bpp, 100-1,200 steps each) and 240 random models, solved steps were
// within 5.4e-9 of |b|_inf (chain_wrap, schur-bpp), at cancellations
// |A||lambda| / |b|_inf up to 3e7 (tandem_cranes). A legitimate solution
// whose rounding exceeds a thousandth of the data (cond(A) ~ 1e13 with
// |lambda| ~ 1e13 |b|) is reported not converged, and a run with no solution
// whose rows are wrong by less than that is reported converged: the two
// cannot be told apart there.
#define SOLVED_AT_DATA 1e-6

static int holds_at_data_scale(TsrSolver *s, const TsrMlcp *p, const double *lambda, double residual, double bmax) {
  // The 2-norm bounds every row, and |b|_inf bounds the data scale from below
  // (finite both: inf <= inf would pass). The residual is the solver's own
  // Eq. 29 of the whole system (schur's from its subsystems' and interface
  // rows' residuals, coupled_residual).
  if (isfinite(residual) && isfinite(bmax) && residual <= SOLVED_AT_DATA * bmax) return 1;
  if (!isfinite(residual)) return 0;
  if (tsr_grow((void **)&s->check_w, &s->cap_check_w, p->m, sizeof *s->check_w) ||
      tsr_grow((void **)&s->check_t, &s->cap_check_t, p->m, sizeof *s->check_t))
    return 1;  // no memory for the check: the solver's own word stands
  return tsr_mlcp_holds_at_data(p, lambda, SOLVED_AT_DATA, s->check_w, s->check_t);
}

static int solve_by_type(TsrSolver *s, const TsrMlcp *p, const TsrPartition *part, double *lambda, int8_t *index_set,
                         TsrSolveStats *stats, double bmax);

int tsr_solver_solve(TsrSolver *s, const TsrMlcp *p, const TsrPartition *part, double *lambda, int8_t *index_set,
                     TsrSolveStats *stats) {
  double bmax = tsr_mlcp_b_inf(p);  // |b|_inf, once: the fallback's and the data-scale check's
  s->note[0] = 0;
  tsr_chol_refusal_clear();
  int rc = solve_by_type(s, p, part, lambda, index_set, stats, bmax);
  if (tsr_chol_refused()) {  // the loops ended early, with whatever they had
    stats->converged = 0;
    return TSR_SOLVER_REFUSED;
  }
  if (rc == 0 && stats->converged && s->params.type != TSR_SOLVER_PGS && p->m > 0 &&
      !holds_at_data_scale(s, p, lambda, stats->residual, bmax)) {
    stats->converged = 0;
    rc = 1;
    if (s->lemke)
      snprintf(s->note, sizeof s->note, "%s, but the solution does not hold at the scale of the data (residual %.3e)",
               tsr_lemke_note(s->lemke), stats->residual);
  }
  return rc;
}

static int solve_by_type(TsrSolver *s, const TsrMlcp *p, const TsrPartition *part, double *lambda, int8_t *index_set,
                         TsrSolveStats *stats, double bmax) {
  memset(stats, 0, sizeof *stats);
  stats->subsystems = p->m > 0;  // the whole system is one; none with no row (nothing moves), as schur says
  switch (s->params.type) {
    case TSR_SOLVER_DIRECT_BPP:
      return bpp_with_restart(s, p, lambda, index_set, stats);
    case TSR_SOLVER_PGS: {
      int rc = tsr_pgs_solve(p, &s->params, lambda, stats, s->pgs);
      if (index_set) tsr_mlcp_index_set(p, lambda, s->params.index_tolerance, index_set);
      return rc;
    }
    case TSR_SOLVER_PGS_SM:
      return tsr_pgs_sm_solve(p, &s->params, lambda, index_set, stats, s->pgs_sm);
    case TSR_SOLVER_SCHUR_BPP:
    case TSR_SOLVER_SCHUR_PGS_SM:
      return schur_with_fallback(s, p, part, lambda, index_set, stats, bmax);
    case TSR_SOLVER_FBIC:
      return tsr_fbic_solve(p, part, &s->params, lambda, index_set, stats, s->fbic);
    case TSR_SOLVER_LEMKE: {
      int rc = tsr_lemke_solve(p, &s->params, lambda, stats, s->lemke);
      if (index_set) tsr_mlcp_index_set(p, lambda, s->params.index_tolerance, index_set);
      return rc;
    }
    default:
      return -1;
  }
}

void tsr_solver_free(TsrSolver **ps) {
  TsrSolver *s = ps ? *ps : NULL;
  if (!s) return;
  tsr_islands_free(&s->islands);
  tsr_pgs_free(&s->pgs);
  tsr_pgs_sm_free(&s->pgs_sm);
  tsr_schur_free(&s->schur);
  tsr_fbic_free(&s->fbic);
  tsr_lemke_free(&s->lemke);
  free(s->keep_lambda);
  free(s->check_w);
  free(s->check_t);
  free(s->keep_set);
  free(s);
  *ps = NULL;
}

// The phase times of a substructured solver, NULL for the others.
static const TsrSchurTimes *substructure_times(const TsrSolver *s) {
  return s->schur ? tsr_schur_times(s->schur) : s->fbic ? tsr_fbic_times(s->fbic) : NULL;
}

int tsr_solver_phase_seconds(const TsrSolver *s, double *setup, double *schur, double *iface, double *subsystems) {
  const TsrSchurTimes *t = substructure_times(s);
  if (!t) return -1;
  *setup = t->setup, *schur = t->schur, *iface = t->iface, *subsystems = t->subsystems;
  return 0;
}

int tsr_solver_critical_seconds(const TsrSolver *s, double *schur_longest, double *subsystems_longest, double *merged) {
  const TsrSchurTimes *t = substructure_times(s);
  if (!t) return -1;
  *schur_longest = t->schur_longest, *subsystems_longest = t->subsystems_longest, *merged = t->merged;
  return 0;
}

int tsr_solver_slack_seconds(const TsrSolver *s, double *slack) {
  const TsrSchurTimes *t = substructure_times(s);
  if (!t) return -1;
  *slack = t->slack;
  return 0;
}
