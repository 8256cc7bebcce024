// SPDX-License-Identifier: MIT
// Projected Newton for the symmetric box MLCP (Bertsekas, "Projected Newton
// methods for optimization problems with simple constraints", SIAM J.
// Control Optim. 20, 1982).
//
// With A symmetric positive definite, the MLCP of seed 000 Eqs. 8 and 12
// (w = A lambda + b, lo <= lambda <= hi, complementarity) is the optimality
// system of the strictly convex box QP
//
//   min f(lambda) = 1/2 lambda^T A lambda + b^T lambda,  lo <= lambda <= hi,
//
// whose gradient is the slack w. Its unique solution is the MLCP's. Block
// pivoting is Newton's method on the same system without a merit function,
// so on nearly singular A (redundant contacts in piles) it can wander for
// hundreds of pivots. Projected Newton adds the merit function f: every
// step decreases f, so it converges from any start (Bertsekas, Prop. 2-3),
// and once the binding set is right the full step lands on the solution (as
// a BPP pivot would).
//
// Iteration, from lambda projected onto the box:
//   w = A lambda + b; stop when the natural residual (Eq. 29) is at round-off,
//     globally and row by row (PN_ROW);
//   eps = min(eps0, |lambda - P[lambda - w]|)        (Bertsekas' eps^k)
//   binding B: rows with lambda within eps of a bound and w pushing out of the
//              box there (lo == hi rows always); free F: the others;
//   d_F = -A_FF^-1 w_F (Newton on F),  d_B = -w_B / diag(A)_B;
//   lambda(a) = P[lambda + a d], a = 1, 1/2, ... until the Armijo test
//     f(lambda) - f(lambda(a)) >= sigma (a w_F^T A_FF^-1 w_F + w_B^T (lambda - lambda(a))_B),
//   with the decrease computed as -(w^T D + 1/2 D^T A D), D = lambda(a) - lambda
//   (no cancellation between two large values of f).
//
// Face step. When the full step fails the Armijo test because free rows
// leave the box, the arc search crawls: a ~ 1e-3, a row or two reaching
// their bound per iteration (and per factorisation). The face step (see
// face_step) fixes the rows the full step clipped and minimises f over the
// remaining free rows, as a BPP pivot would, and is taken when it decreases
// f by the Armijo amount of the full step, or by more than the arc's step.
// Every step still decreases f. chain_drop's pile-up (steps 480-600, one
// reference trajectory, 2 threads): direct-bpp 31.3 -> 26.1 ms per step and
// 96.7% -> 98.3% of steps converged, schur-bpp 17.7 -> 14.2; the random
// planted problems of tests/solvers/test_pn.c: at most 179 -> 43 Newton steps.
// TSR_PN_NO_FACE=1 turns it off.
//
// Shift. On nearly singular A_FF (redundant contacts in piles: cond ~1e11)
// the Newton direction is dominated by its nearly singular directions, the
// projection arc cuts it to a ~ 1e-7, and the iteration crawls or stops. When
// a step is accepted only below a = 1e-4 (or not at all), the next ones use
// A_FF + mu I (mu from 1e-8 max|A_ij|, times 10 each time), a Levenberg-
// Marquardt shift toward a scaled gradient; a full step divides mu by 10 back
// to 0, so Newton's local convergence is kept. The Armijo test uses the same
// shifted matrix (any positive definite scaling on F keeps Bertsekas'
// convergence). Whole runs, direct-bpp, shift off -> on: chain_drop 96.5% ->
// 99.2% of steps converged, largest residual 1.7 -> 2.3e-3, 16.0 -> 8.9 ms per
// step; rock_pile 98.1% -> 99.4%, 6.0 -> 4.9 ms. TSR_PN_NO_SHIFT=1 turns it off.
#include "solvers/pn.h"
#include "solvers/stop.h"
#include "math/tsr_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/chol.h"
#include "util/env.h"
#include "util/fnv.h"

// The global stop (Eq. 29 at 1e-12 of max(|b|_inf, max|A_ij| |lambda|_inf))
// is loose for rows whose terms are far smaller than the largest row's: it
// accepted steps of chain_drop's pile-up with rows wrong by 1e-7..5e-7 of
// their own scale. Past it, up to PN_ROW_STEPS more Newton steps are taken
// while some row's residual exceeds PN_ROW of its own scale
// (tsr_mlcp_relative_residual), and the best such iterate is returned.
// There the arc search can crawl (a ~ 1e-4) until the shift below sets in,
// a few steps later: with 5 steps, random contact seed 6373 (a 0.01 kg link
// beside 98 kg bodies) stopped at 2.8e-8 and every polish after it ended at
// 2.3e-8; with 20 it reaches 8e-16, and its step took 0.25 -> 0.16 ms (no
// polish). Over the example scenes' whole runs the extra steps never run
// (the same largest row residual, direct-bpp and schur-bpp).
#define PN_ROW 1e-10
#define PN_ROW_STEPS 20
// The best iterate that met the global stop is a solution only when no row
// is wrong by more than PN_SOLVED of its own scale. The global stop scales
// with max|A_ij| |lambda|_inf, so an iterate running off to infinity along a
// direction the QP is unbounded in (a singular A with b outside its range:
// a bilateral row 0 lambda + 0.74 = 0) met it once |lambda| reached 7e11,
// with that row wrong by 100%, and was returned as solved. Over every scene
// (direct-bpp and schur-bpp, whole runs) the iterates accepted after
// PN_ROW_STEPS were within 8.6e-9 of their rows' scales (chain_drop), and
// 1,500 of 1,600 within 1e-10.
#define PN_SOLVED 1e-6
// Cycling. Near a pile's solution the iteration can cycle: a degenerate
// row enters and leaves the binding set at alternate steps (a face step,
// then a step cut to a = 6e-5), and the natural residual swings between
// ~1e-6 and ~6e-5 without reaching the round-off stop. chain_drop step 595
// (direct-bpp, 2,004 rows) did so from Newton step 60 to its budget, 400,
// one factorisation each; the restarts after it (PGS, projected Newton from
// its solution) then solved it in ~190 more. So the solve returns 1, as at
// its budget, when the best natural residual has not halved in
// PN_STALL_STEPS steps and at least PN_CYCLE_SHARE of those steps met a
// binding set that one of the PN_CYCLE_RING steps before had. The second
// test keeps the slow global phase that wanders through new binding sets
// (rock_pile: 60-115 steps without halving the residual, then converging;
// tests/solvers/test_pn.c has such problems). Whole runs, direct-bpp and
// schur-bpp (TSR_PN_TRACE), before the PGS sweeps of bpp_retry.c: the exit
// fired at chain_drop steps 595 and 599 (direct-bpp; those steps' pivots
// and Newton steps 612 -> 105 and 613 -> 90, the trajectory the same to
// 1.4e-10 m after them) and on one solve of rock_pile's schur-bpp run (the
// same run file but for solver_iterations), and on no other solve of those
// four runs (log_tower's solves never went 20 steps without halving it);
// with the sweeps, on one solve of chain_drop's direct-bpp run and two of
// rock_pile's. TSR_PN_NO_STALL=1 turns this off.
#define PN_STALL_STEPS 40
#define PN_CYCLE_SHARE 0.75
#define PN_CYCLE_RING 8

struct TsrPn {
  TsrChol *chol;
  int cap;
  double *w, *d, *trial, *delta, *Ad, *Ad1, *rhs, *x, *diag, *face, *face_w;
  double *sigma, *keep;  // the per-row stop (see PN_ROW)
  int *F, *F2, *clipped;
  int8_t *binding;
  // the dense line search's column sums over the clipped rows (arc_search)
  double *arcP, *arcQ, *arcB;
  int *arcC;
  int8_t *inC;  // row's column is in arcP / arcQ; all 0 between calls
  double eps0;
  int trace;  // TSR_PN_TRACE: one line per iteration on stderr
  int lm;     // shift A_FF when steps are cut short (TSR_PN_NO_SHIFT=1: never)
  int stall;  // the stall exit (PN_STALL_STEPS; TSR_PN_NO_STALL=1: off)
};

TsrPn *tsr_pn_create(void) {
  TsrPn *pn = calloc(1, sizeof *pn);
  if (!pn) return NULL;
  pn->trace = getenv("TSR_PN_TRACE") != NULL;
  pn->lm = !tsr_env_flag("TSR_PN_NO_SHIFT");  // to measure what the shift does
  pn->stall = !tsr_env_flag("TSR_PN_NO_STALL");
  // Rows within eps0 |lambda|_inf of a bound count as there (Bertsekas' eps;
  // chain_drop's piled steps: 1e-3 left rows 4e-4 off their bound creeping
  // by diagonal steps, 1e-9 cut the projection arc into 1e-7 steps).
  pn->eps0 = 1e-6;
  if (!(pn->chol = tsr_chol_create())) {
    free(pn);
    return NULL;
  }
  return pn;
}

void tsr_pn_free(TsrPn **ppn) {
  TsrPn *pn = ppn ? *ppn : NULL;
  if (!pn) return;
  tsr_chol_free(&pn->chol);
  free(pn->w), free(pn->d), free(pn->trial), free(pn->delta), free(pn->Ad), free(pn->Ad1), free(pn->rhs), free(pn->x);
  free(pn->face), free(pn->face_w), free(pn->F2);
  free(pn->diag), free(pn->F), free(pn->clipped), free(pn->binding);
  free(pn->arcP), free(pn->arcQ), free(pn->arcB), free(pn->arcC), free(pn->inC);
  free(pn->sigma), free(pn->keep);
  free(pn);
  *ppn = NULL;
}

static int reserve(TsrPn *pn, int m) {
  if (m <= pn->cap && pn->w) return 0;
  int c = m + m / 4 + 8;
  double **dv[] = {&pn->w,    &pn->d,    &pn->trial,  &pn->delta, &pn->Ad,   &pn->Ad1,  &pn->rhs,   &pn->x,
                   &pn->diag, &pn->face, &pn->face_w, &pn->arcP,  &pn->arcQ, &pn->arcB, &pn->sigma, &pn->keep};
  for (size_t k = 0; k < sizeof dv / sizeof *dv; k++) {
    double *q = realloc(*dv[k], (size_t)c * sizeof *q);
    if (!q) return -1;
    *dv[k] = q;
  }
  int *f = realloc(pn->F, (size_t)c * sizeof *f);
  if (!f) return -1;
  pn->F = f;
  f = realloc(pn->F2, (size_t)c * sizeof *f);
  if (!f) return -1;
  pn->F2 = f;
  f = realloc(pn->clipped, 2 * (size_t)c * sizeof *f);  // Q and C of the line search
  if (!f) return -1;
  pn->clipped = f;
  int8_t *b = realloc(pn->binding, (size_t)c);
  if (!b) return -1;
  pn->binding = b;
  f = realloc(pn->arcC, (size_t)c * sizeof *f);
  if (!f) return -1;
  pn->arcC = f;
  free(pn->inC);
  if (!(pn->inC = calloc((size_t)c, 1))) return -1;
  pn->cap = c;
  return 0;
}

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

#define FACE_MAX_CLIPPED 3

static int face_setting = -1;  // -1: from TSR_PN_NO_FACE at the first solve

void tsr_pn_set_face(int on) { face_setting = on != 0; }

int tsr_pn_face(void) {
  if (face_setting < 0) face_setting = !tsr_env_flag("TSR_PN_NO_FACE");
  return face_setting;
}

// Armijo along the projection arc lambda(a) = P[lambda + a d], a = *pa,
// *pa / 2, ... (max_trials values): returns 1 with the accepted a in *pa, the
// decrease of f in *pdec and lambda(a) in pn->trial, or 0. The test (see the
// top) needs w^T D and D^T A D, D = lambda(a) - lambda. arc_prepare forms
// what depends on d only, once per direction (the full step and the rest of
// the arc are two searches).
//
// D = a d except in the rows the projection clips, where c = D - a d is
// nonzero; so A D = a (A d) + A c, with A d formed once per direction. Those
// rows are among Q, the rows that the full step a = 1 takes out of the box
// (lambda + a d is monotone in a, in floating point too). When Q is a small
// part of the rows (the subsystems and whole systems of piles), a trial
// sums over Q and the columns of the clipped rows only (A sparse):
//   w^T D   = a w_R^T d_R + w_Q^T D_Q                       (R: rows not in Q)
//   D^T A D = a^2 d_R^T (A d)_R + a D_Q^T (A d)_Q + sum_r D_r (A c)_r,
// the terms D_r (a (A d)_r + (A c)_r) of the row-by-row form, in another
// order. Otherwise (most rows leave the box, or A is a dense interface
// matrix whose clipped columns are whole columns) each trial sweeps all rows
// and forms A D by scattering the clipped columns, which costs less there
// than the gathers; from the second trial on, the scattered sums are kept
// and lose the columns of the rows that leave the clipped set (see the
// branch). The search halves a up to 40 times; on chain_drop's piles it
// was a fifth of both solvers' time with a sweep per trial.
// A d into pn->Ad1 and Q (the rows lambda + d leaves the box in) into
// pn->clipped; returns |Q|.
static int arc_prepare(const TsrMlcp *p, const double *lambda, const double *d, TsrPn *pn) {
  tsr_mlcp_matvec(p, d, pn->Ad1);
  int nq = 0;
  for (int i = 0; i < p->m; i++) {
    double v = lambda[i] + d[i];
    if (v < p->lo[i] || v > p->hi[i]) pn->clipped[nq++] = i;
  }
  return nq;
}

static int arc_search(const TsrMlcp *p, const double *lambda, const double *w, const double *d, int nq, double model,
                      double sigma, int max_trials, double *pa, double *pdec, TsrPn *pn) {
  int m = p->m;
  const double *lo = p->lo, *hi = p->hi;
  const int8_t *binding = pn->binding;
  double *trial = pn->trial, *D = pn->delta, *Ad1 = pn->Ad1, *aux = pn->Ad;
  int *Q = pn->clipped, *C = Q + nq, accepted = 0;
  double a = *pa;
  if (4 * nq <= m && (double)p->Ap[m] < 0.25 * (double)m * (double)m) {
    double wdR = 0.0, wdRB = 0.0, dAdR = 0.0;
    double *dR = aux;  // d outside Q, 0 in Q; D is 0 outside Q
    for (int i = 0; i < m; i++) dR[i] = d[i], D[i] = 0.0;
    for (int k = 0; k < nq; k++) dR[Q[k]] = 0.0;
    for (int i = 0; i < m; i++) {
      wdR += w[i] * dR[i];
      dAdR += dR[i] * Ad1[i];
      if (binding[i]) wdRB += w[i] * dR[i];
    }
    for (int ls = 0; ls < max_trials && !accepted; ls++, a *= 0.5) {
      double lin = a * wdR, bterm = -a * wdRB, quad = a * a * dAdR;
      int nc = 0;
      for (int k = 0; k < nq; k++) {
        int i = Q[k];
        double v = lambda[i] + a * d[i], t = clamp(v, lo[i], hi[i]), Di = t - lambda[i];
        D[i] = Di;
        lin += w[i] * Di;
        if (binding[i]) bterm -= w[i] * Di;
        quad += Di * (a * Ad1[i]);
        if (t != v) C[nc++] = i;
      }
      for (int k = 0; k < nc; k++) {
        int j = C[k];
        double cj = D[j] - a * d[j];
        for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) {
          int r = p->Ai[q];  // D_r: a d_r outside Q, D_r in Q
          quad += (a * dR[r] + D[r]) * (p->Ax[q] * cj);
        }
      }
      double decrease = -(lin + 0.5 * quad);
      accepted = decrease >= sigma * (a * model + bterm) && decrease >= 0.0;
      if (accepted) {
        *pdec = decrease;
        break;
      }
    }
    if (accepted) {  // the step; rejected if it does not move lambda at this precision
      int moved = 0;
      for (int i = 0; i < m; i++) {
        trial[i] = clamp(lambda[i] + a * d[i], lo[i], hi[i]);
        moved |= trial[i] != lambda[i];
      }
      accepted = moved;
    }
  } else {
    // D = P[lambda + a d] - lambda is a d outside the clipped rows C(a) and
    // beta_j (the bound hit, less lambda_j) in them, so
    //   A D = a A d + sum_{j in C} A_j beta_j - a sum_{j in C} A_j d_j
    //       = a Ad1 + P - a Qs.
    // The first trial sums its clipped columns once, into P = A D. From the
    // second on, P and Qs hold the two sums, and since lambda is in the box
    // rows only leave C as a halves: the sums lose the columns of the rows
    // that leave instead of being formed again at every trial (that was 4.6
    // times the first trial's column work on chain_drop's dense interfaces;
    // pile-up replay, 2 threads: schur-bpp 18.1 -> 17.1 ms per step). They
    // are formed afresh when a row enters C (not expected) or when more rows
    // leave than remain (so the rounding of the removals stays below that of
    // a fresh sum).
    double *P = pn->arcP, *Qs = pn->arcQ, *B = pn->arcB;
    int *Cs = pn->arcC, ncs = -1;  // the rows summed in P and Qs (-1: none)
    int8_t *inC = pn->inC;
    for (int ls = 0; ls < max_trials; ls++, a *= 0.5) {
      double lin = 0.0, bterm = 0.0, moved = 0.0;
      int nc = 0, stay = 0;
      for (int i = 0; i < m; i++) {
        double v = lambda[i] + a * d[i];
        trial[i] = clamp(v, lo[i], hi[i]);
        D[i] = trial[i] - lambda[i];
        if (trial[i] != v) C[nc++] = i, stay += inC[i];
        lin += w[i] * D[i];
        moved = tsr_maxd(moved, fabs(D[i]));
        if (binding[i]) bterm -= w[i] * D[i];
      }
      if (moved == 0.0) break;
      double quad = 0.0;
      if (ls == 0) {
        for (int i = 0; i < m; i++) P[i] = a * Ad1[i];
        for (int k = 0; k < nc; k++) tsr_mlcp_add_column(p, C[k], D[C[k]] - a * d[C[k]], P);
        for (int i = 0; i < m; i++) quad += D[i] * P[i];
      } else {
        if (ncs >= 0 && stay == nc && ncs - stay <= nc) {
          int kept = 0;
          for (int k = 0; k < ncs; k++) {
            int j = Cs[k];
            if (trial[j] != lambda[j] + a * d[j]) {  // still clipped, at the same bound
              Cs[kept++] = j;
              continue;
            }
            inC[j] = 0;
            tsr_mlcp_add_column(p, j, -B[j], P);
            tsr_mlcp_add_column(p, j, -d[j], Qs);
          }
          ncs = kept;
        } else {
          for (int k = 0; k < ncs; k++) inC[Cs[k]] = 0;
          for (int i = 0; i < m; i++) P[i] = Qs[i] = 0.0;
          for (int k = 0; k < nc; k++) {
            int j = Cs[k] = C[k];
            B[j] = D[j];
            inC[j] = 1;
            tsr_mlcp_add_column(p, j, B[j], P);
            tsr_mlcp_add_column(p, j, d[j], Qs);
          }
          ncs = nc;
        }
        for (int i = 0; i < m; i++) quad += D[i] * (a * Ad1[i] + P[i] - a * Qs[i]);
      }
      double decrease = -(lin + 0.5 * quad);
      if (decrease >= sigma * (a * model + bterm) && decrease >= 0.0) {
        accepted = 1;
        *pdec = decrease;
        break;
      }
    }
    for (int k = 0; k < ncs; k++) inC[Cs[k]] = 0;
  }
  *pa = a;
  return accepted;
}

// Face step, tried when the arc search cut the step short. The full step
// lambda + d leaves the box in some free rows; the arc search then crawls
// (a ~ 1e-3, one or two rows reaching a bound per factorisation; seen on
// chain_drop's piles: 15 iterations to bring 18 released rows back). Instead,
// fix those rows where the full projected step put them, and move the other
// free rows F2 to the minimiser of f on that face: from l1 = P[lambda + d],
// l2_F2 = P[l1_F2 - A_F2F2^-1 w(l1)_F2] (BPP's step, Eq. 27, with the QP's
// merit function as the judge); nf: the number of free rows. Returns 1 with
// f(lambda) - f(l2) in *pdec and l2 in pn->face, 0 when no free row leaves
// the box, < 0 on failure.
// The caller takes whichever of the two steps decreases f more, so every
// step still decreases f at least as much as the Armijo step would.
static int face_step(const TsrMlcp *p, const double *lambda, const double *w, const double *d, int nf, double mu,
                     double amax, double *pdec, int *pnf2, TsrPn *pn, TsrSolveStats *stats) {
  int m = p->m, nf2 = 0, clipped = 0, shifted = 0;
  double *l2 = pn->face, *w1 = pn->face_w, *AD = pn->Ad;
  for (int i = 0; i < m; i++) {
    double v = lambda[i] + d[i];
    l2[i] = clamp(v, p->lo[i], p->hi[i]);
    if (pn->binding[i]) continue;
    if (l2[i] != v)
      clipped = 1;
    else
      pn->F2[nf2++] = i;
  }
  // A rejected face step costs a factorisation. Tried when it is likely to
  // be taken or cheap to reject: at most FACE_MAX_CLIPPED free rows leave the
  // box (chain_drop's piles, whole system: taken 3 times in 4 with one row,
  // 1 in 5 with more than three), or the factor is dense (no symbolic
  // analysis, and F2's factor is F's updated by row removals when few rows
  // leave: chol_dense.c).
  if (!clipped) return 0;
  if (nf - nf2 > FACE_MAX_CLIPPED && tsr_chol_method(pn->chol) != TSR_CHOL_DENSE_LLT) return 0;
  *pnf2 = nf2;
  if (nf2 > 0) {
    tsr_mlcp_matvec(p, l2, w1);
    int frc = tsr_chol_factor_shifted(pn->F2, nf2, mu, pn->chol);
    stats->factorizations++;
    if (frc != 0) {
      frc = tsr_chol_factor_shifted(pn->F2, nf2, 1e-10 * amax, pn->chol);
      stats->factorizations++;
      if (frc < 0) return -1;
      shifted = 1;
    }
    for (int k = 0; k < nf2; k++) pn->rhs[k] = w1[pn->F2[k]] + p->b[pn->F2[k]];
    if (tsr_chol_solve(pn->rhs, pn->x, pn->chol)) return -1;
    for (int k = 0; k < nf2; k++) {
      int i = pn->F2[k];
      l2[i] = clamp(l2[i] - pn->x[k], p->lo[i], p->hi[i]);
    }
  }
  // f(l2) - f(lambda) = w^T D + 1/2 D^T A D, D = l2 - lambda.
  double *D = pn->delta, lin = 0.0, quad = 0.0;
  for (int i = 0; i < m; i++) D[i] = l2[i] - lambda[i];
  tsr_mlcp_matvec(p, D, AD);
  for (int i = 0; i < m; i++) lin += w[i] * D[i], quad += D[i] * AD[i];
  *pdec = -(lin + 0.5 * quad);
  return shifted ? 2 : 1;
}

int tsr_pn_solve(const TsrMlcp *p, int max_iter, double *lambda, int8_t *index_set, TsrSolveStats *stats, TsrPn *pn) {
  int m = p->m;
  stats->converged = 0;
  if (!p->symmetric) return -1;
  if (m == 0) {
    stats->converged = 1;
    stats->residual = 0.0;
    return 0;
  }
  if (reserve(pn, m) || tsr_chol_set_matrix(m, p->Ap, p->Ai, p->Ax, 1, pn->chol)) return -1;
  tsr_chol_set_dense(p->dense, pn->chol);
  double amax = tsr_mlcp_a_max(p), bmax = tsr_mlcp_b_inf(p);
  if (!(amax > 0.0)) amax = 1.0;
  for (int i = 0; i < m; i++) {  // diag(A), the scaling of the binding rows' steps
    pn->diag[i] = amax;
    for (int q = p->Ap[i]; q < p->Ap[i + 1]; q++)
      if (p->Ai[q] == i && p->Ax[q] > 0.0) pn->diag[i] = p->Ax[q];
  }
  const double sigma = 1e-4;
  double *w = pn->w, *d = pn->d, *trial = pn->trial;
  for (int i = 0; i < m; i++) lambda[i] = clamp(isfinite(lambda[i]) ? lambda[i] : 0.0, p->lo[i], p->hi[i]);
  int rc = 1, it = 0;
  double mu = 0.0;  // shift of A_FF (see the top of the file)
  // Iterates that met the global tolerance: how many, the best one's
  // relative residual (its copy in pn->keep).
  int met = 0;
  double met_rho = INFINITY;
  // The factorisation held by pn->chol: its free set is the previous
  // iteration's F (pn->F is rebuilt in place) when have_f, with shift f_mu.
  int have_f = 0, f_nf = -1, face_on = tsr_pn_face();
  double f_mu = 0.0;
  double stall_best = INFINITY;  // the best natural residual, halved last at step stall_it
  int stall_it = 0, recur = 0;   // recur: steps since then whose binding set recurred (ring)
  uint64_t ring[PN_CYCLE_RING];
  for (; it <= max_iter && !tsr_stop_requested(); it++) {
    tsr_mlcp_matvec(p, lambda, w);
    double lmax = 0.0, rn2 = 0.0, rinf = 0.0;
    for (int i = 0; i < m; i++) {
      w[i] += p->b[i];
      lmax = tsr_maxd(lmax, fabs(lambda[i]));
      double r = lambda[i] - clamp(lambda[i] - w[i], p->lo[i], p->hi[i]);
      rn2 += r * r;
      rinf = tsr_maxd(rinf, fabs(r));
    }
    // Round-off level of w = A lambda + b, then of each row (PN_ROW).
    double tol = 1e-12 * fmax(1.0, fmax(bmax, amax * lmax));
    if (rinf <= tol) {
      double rho = tsr_mlcp_relative_residual(p, lambda, w, pn->sigma, NULL);
      if (rho < met_rho) {
        met_rho = rho;
        memcpy(pn->keep, lambda, (size_t)m * sizeof *lambda);
      }
      if (!(rho > PN_ROW)) {
        rc = 0;
        break;
      }
      if (met++ >= PN_ROW_STEPS) break;
    }
    if (pn->trace) fprintf(stderr, "pn it %d res_inf %.3e tol %.1e lmax %.3e\n", it, rinf, tol, lmax);
    if (it == max_iter) break;
    if (rinf < 0.5 * stall_best) stall_best = rinf, stall_it = it, recur = 0;
    double eps = fmin(pn->eps0 * fmax(1.0, lmax), sqrt(rn2));
    int nf = 0, same_f = it > 0;
    for (int i = 0; i < m; i++) {
      double lo = p->lo[i], hi = p->hi[i];
      int8_t bd = lo == hi || (lambda[i] <= lo + eps && w[i] > 0.0) || (lambda[i] >= hi - eps && w[i] < 0.0);
      if (pn->trace && it > 0 && bd != pn->binding[i])
        fprintf(stderr, "   row %d binding %d->%d lambda %.4e lo %.4e hi %.4e w %.4e\n", i, pn->binding[i], bd,
                lambda[i], lo, hi, w[i]);
      same_f &= bd == pn->binding[i];
      pn->binding[i] = bd;
      if (!bd) pn->F[nf++] = i;
    }
    if (pn->stall) {
      uint64_t h = tsr_fnv1a(TSR_FNV_OFFSET, pn->binding, (size_t)m);
      for (int j = 1; j <= PN_CYCLE_RING && j <= it; j++)
        if (ring[(it - j) % PN_CYCLE_RING] == h) {
          recur += it > stall_it;
          break;
        }
      ring[it % PN_CYCLE_RING] = h;
      if (it - stall_it >= PN_STALL_STEPS && recur >= PN_CYCLE_SHARE * (it - stall_it)) {
        if (pn->trace) fprintf(stderr, "pn cycling: best res_inf %.3e at it %d\n", stall_best, stall_it);
        break;
      }
    }
    // Newton direction on F.
    double model = 0.0;  // w_F^T A_FF^-1 w_F
    if (nf > 0) {
      // A step cut short keeps the binding set: with the same shift, the
      // factorisation of the last iteration still holds (a tenth of the
      // factorisations of chain_drop's pile-up, both solvers).
      if (!(have_f && same_f && nf == f_nf && mu == f_mu)) {
        have_f = 0;
        f_mu = mu;
        int frc = tsr_chol_factor_shifted(pn->F, nf, mu, pn->chol);  // mu = 0: plain A_FF
        stats->factorizations++;
        if (frc < 0 || frc > 0) {
          frc = tsr_chol_factor_shifted(pn->F, nf, 1e-10 * amax, pn->chol);
          stats->factorizations++;
          if (frc < 0) return -1;
        }
        have_f = 1;
        f_nf = nf;
      }
      for (int k = 0; k < nf; k++) pn->rhs[k] = w[pn->F[k]];
      if (tsr_chol_solve(pn->rhs, pn->x, pn->chol)) return -1;
      for (int k = 0; k < nf; k++) {
        d[pn->F[k]] = -pn->x[k];
        model += pn->rhs[k] * pn->x[k];
      }
    }
    // Scaled gradient on B (diagonal of A).
    for (int i = 0; i < m; i++)
      if (pn->binding[i]) d[i] = p->lo[i] == p->hi[i] ? 0.0 : -w[i] / pn->diag[i];
    // The full step first; when it fails, the face step, then the rest of
    // the arc (a = 1/2, 1/4, ...) unless the face step already decreased f
    // by sigma w_F^T A_FF^-1 w_F (the full step's Armijo amount on F).
    double a = 1.0, dec = 0.0, fdec = 0.0;
    int nq = arc_prepare(p, lambda, d, pn);
    int accepted = arc_search(p, lambda, w, d, nq, model, sigma, 1, &a, &dec, pn), fr = 0, nf2 = 0;
    const double *step = trial;
    if (!accepted && face_on && nf > 0) {
      fr = face_step(p, lambda, w, d, nf, mu, amax, &fdec, &nf2, pn, stats);
      if (fr < 0) return -1;
      if (fr > 0) have_f = 0;  // pn->chol now holds F2
    }
    int face_ok = fr > 0 && fdec > 0.0 && fdec >= sigma * model;
    if (!accepted && !face_ok) {
      a = 0.5;
      accepted = arc_search(p, lambda, w, d, nq, model, sigma, 39, &a, &dec, pn);
      face_ok = fr > 0 && fdec > 0.0 && fdec > (accepted ? dec : 0.0);
    }
    if (face_ok) {
      step = pn->face;
      accepted = 1;
      a = 1.0;        // a full step, for the shift below
      if (fr == 1) {  // the next iteration reuses F2's factorisation if its free set is F2
        for (int k = 0; k < nf; k++) pn->binding[pn->F[k]] = 1;
        for (int k = 0; k < nf2; k++) pn->binding[pn->F2[k]] = 0;
        have_f = 1, f_nf = nf2, f_mu = mu;
      }
      if (pn->trace) fprintf(stderr, "   face step: nf %d -> %d, decrease %.3e\n", nf, nf2, fdec);
    }
    stats->iterations++;
    if (pn->trace) fprintf(stderr, "   nf %d a %.3e accepted %d model %.3e\n", nf, a, accepted, model);
    if (pn->lm) {
      // A step cut short by the projection arc: the Newton direction is
      // dominated by nearly singular directions of A_FF; shift toward a
      // scaled gradient. A full step: back toward Newton.
      if (!accepted || a < 1e-4)
        mu = mu > 0.0 ? 10.0 * mu : 1e-8 * amax;
      else if (a == 1.0)
        mu = mu > 1e-8 * amax ? 0.1 * mu : 0.0;
      if (!accepted && mu < amax) continue;
    }
    if (!accepted) break;  // no descent left at this precision: the best iterate stands
    memcpy(lambda, step, (size_t)m * sizeof *lambda);
  }
  if (met) {  // the best iterate that met the global tolerance
    memcpy(lambda, pn->keep, (size_t)m * sizeof *lambda);
    rc = met_rho <= PN_SOLVED ? 0 : 1;
  }
  if (index_set) tsr_mlcp_index_set(p, lambda, 0.0, index_set);  // (eta 0: on a bound exactly)
  stats->residual = tsr_mlcp_residual_ws(p, lambda, w, NULL);
  stats->converged = rc == 0;
  return rc;
}
