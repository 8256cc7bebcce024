// SPDX-License-Identifier: MIT
// Primal active-set method for the symmetric box MLCP (pas.h).
//
// For symmetric positive semidefinite A the box MLCP
//   w = A lambda + b,  lo <= lambda <= hi,  complementarity (seed 000 Eq. 10)
// is the optimality system of the box QP
//   min f(lambda) = 1/2 lambda^T A lambda + b^T lambda,  lo <= lambda <= hi,
// with w = grad f. The method keeps lambda feasible and a working set W of
// rows held at a bound (every row with lo = hi is in it); F is the rest.
// Each iteration either
//   - minimises f over the face of W: the Newton step d_F = -A_FF^-1 w_F
//     (d = 0 on W), cut by the ratio test at the first free row that reaches
//     a bound, which then joins W (Nocedal and Wright, Numerical
//     Optimization, 2nd ed., Algorithm 16.3); or
//   - at the face's minimiser (w_F = 0), releases the row of W whose
//     multiplier has the wrong sign by the most (w_i < 0 at its lower
//     bound, w_i > 0 at its upper one), Dantzig's rule.
// Every step is a descent step of the convex f (its length at most the
// exact minimiser along d, -w^T d / d^T A d), so f never increases, and the
// method ends at the solution in finitely many working sets in exact
// arithmetic. W changes by one row per iteration, so the factorisation of
// A_FF is a row update of the last one (linalg/chol_rowmod.c) wherever the
// sparse path holds it.
//
// Why it is here: at a degenerate point of a pile (friction rows on their
// bounds whose multipliers are -1e-7, redundant contacts making A_FF nearly
// singular) projected Newton (pn.c) frees those rows, takes a Newton step
// the projection arc cuts to a ~ 1e-5, binds them again, and cycles; block
// pivoting cycles there too. chain_drop with gravity scaled by 1 + 5e-5
// (direct-bpp) left step 515 at residual 1.0e-6 after 470 factorisations.
// This method moves by whole steps along the face and releases one row at a
// time, which is what that point needs.
#include "solvers/pas.h"
#include "solvers/bpp.h"
#include "solvers/stop.h"
#include "math/tsr_math.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/chol.h"

// The per-row stop of pn.c (PN_ROW, PN_ROW_STEPS): past the global
// round-off stop, up to PAS_ROW_STEPS more iterations with a finer decision
// tolerance while some row's residual exceeds PAS_ROW of its own scale. Unlike
// projected Newton, the result counts as solved only when every row is
// within PAS_ROW: the restarts then go on to projected Newton from it.
#define PAS_ROW TSR_BPP_POLISH_ROW  // 1e-10; bpp_retry.c polishes no result of this method
#define PAS_ROW_STEPS 20
// Round-off of a computed w_i relative to its terms (sigma_i of
// tsr_mlcp_relative_residual).
#define PAS_NOISE (64.0 * DBL_EPSILON)
// Step lengths, in Newton lengths, beyond which a direction of the shifted
// factorisation is taken as one of zero curvature (see face_direction's
// caller).
#define PAS_RUNAWAY 1e3
// The largest |a - 1| of a step from an unshifted factorisation that counts
// as Newton's (see face_direction's caller); a singular A_FF's noise gave
// a = 0.53.
#define PAS_NEWTON 1e-3
// Newton steps on one face at most before its multipliers are examined: the
// first reaches the face's minimiser up to the factorisation's accuracy, the
// others refine it with the same factor (a nearly singular or shifted A_FF)
// while each halves max |w_F| and it is above round-off. Without them, a
// random chain model pushed out of the ground (213 rows, impulses up to 470
// N s) was accepted at a residual of 3.5e-7 where projected Newton reached
// 2.3e-11.
#define PAS_REFINE 8
// w = A lambda + b is carried from one iterate to the next instead of being
// formed again (a product with A each time was a third of this method's
// time on chain_drop's pile-up): a release leaves lambda, hence w, as it
// is, and a step cut by the ratio test updates it as w + a A d from the
// product A d the step's curvature needs anyway, plus the columns of the
// rows the step clamped or the block row it put on its bound. Such a w
// carries the rounding of each update, so it is formed again from lambda
// wherever it decides the outcome: after a step that reaches the face's
// minimiser (its w_F is what refinement and the release rule read, and it
// is round-off there, which an update cannot resolve), near or past the
// global stop, and after PAS_W_UPDATES updates in a row.
#define PAS_W_UPDATES 16

enum { AT_NONE = 0, AT_LO = -1, AT_HI = 1, AT_FIXED = 2 };

struct TsrPas {
  TsrChol *chol;
  int cap;
  double *w, *d, *Ad, *rhs, *x, *sigma, *keep;
  int *F;
  int8_t *at;    // AT_*: where row i is held (AT_NONE: in F)
  int shifted;   // the factorisation held is of A_FF + shift I
  int trace;     // TSR_PAS_TRACE: a line per iteration on stderr
  int8_t *hold;  // released rows a zero step put back at once: not released again until lambda moves
};

TsrPas *tsr_pas_create(void) {
  TsrPas *pas = calloc(1, sizeof *pas);
  if (!pas) return NULL;
  pas->trace = getenv("TSR_PAS_TRACE") != NULL;
  if (!(pas->chol = tsr_chol_create())) {
    free(pas);
    return NULL;
  }
  return pas;
}

void tsr_pas_free(TsrPas **ppas) {
  TsrPas *pas = ppas ? *ppas : NULL;
  if (!pas) return;
  tsr_chol_free(&pas->chol);
  free(pas->w), free(pas->d), free(pas->Ad), free(pas->rhs), free(pas->x), free(pas->sigma), free(pas->keep);
  free(pas->F), free(pas->at), free(pas->hold);
  free(pas);
  *ppas = NULL;
}

static int reserve(TsrPas *pas, int m) {
  if (m <= pas->cap && pas->w) return 0;
  int c = m + m / 4 + 8;
  double **dv[] = {&pas->w, &pas->d, &pas->Ad, &pas->rhs, &pas->x, &pas->sigma, &pas->keep};
  for (size_t k = 0; k < sizeof dv / sizeof *dv; k++) {
    double *q = realloc(*dv[k], (size_t)c * sizeof *q);
    if (!q) return -1;
    *dv[k] = q;
  }
  int *f = realloc(pas->F, (size_t)c * sizeof *f);
  if (!f) return -1;
  pas->F = f;
  int8_t *a = realloc(pas->at, (size_t)c);
  if (!a) return -1;
  pas->at = a;
  a = realloc(pas->hold, (size_t)c);
  if (!a) return -1;
  pas->hold = a;
  pas->cap = c;
  return 0;
}

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

// Factorises A_FF, with the regularising shift of pn.c where A_FF is not
// numerically positive definite. Returns 0, or < 0 when neither works.
static int factor_face(const int *F, int nf, double shift, double amax, TsrPas *pas, TsrSolveStats *stats) {
  int frc = tsr_chol_factor_shifted(F, nf, shift, pas->chol);
  stats->factorizations++;
  pas->shifted = shift > 0.0;
  if (frc == 0) return 0;
  frc = tsr_chol_factor_shifted(F, nf, 1e-10 * amax, pas->chol);
  stats->factorizations++;
  pas->shifted = 1;
  return frc < 0 ? -1 : 0;
}

// The Newton direction on F (d_F = -A_FF^-1 w_F; d is 0 elsewhere on
// entry) with the factorisation held, and Ad = A d: *g = w^T d and
// *c = d^T A d. Returns 0, or < 0 when the solve fails.
static int face_direction(const TsrMlcp *p, const double *w, int nf, TsrPas *pas, double *g, double *c) {
  double *d = pas->d;
  for (int k = 0; k < nf; k++) pas->rhs[k] = w[pas->F[k]];
  if (tsr_chol_solve(pas->rhs, pas->x, pas->chol)) return -1;
  *g = 0.0;
  for (int k = 0; k < nf; k++) {
    d[pas->F[k]] = -pas->x[k];
    *g -= pas->rhs[k] * pas->x[k];
  }
  tsr_mlcp_matvec(p, d, pas->Ad);
  *c = 0.0;
  for (int k = 0; k < nf; k++) *c += d[pas->F[k]] * pas->Ad[pas->F[k]];
  return 0;
}

int tsr_pas_solve(const TsrMlcp *p, int max_iter, int max_fresh, double *lambda, int8_t *index_set,
                  TsrSolveStats *stats, TsrPas *pas) {
  int m = p->m;
  stats->converged = 0;
  if (!p->symmetric) return -1;
  if (m == 0) {
    stats->converged = 1;
    stats->residual = 0.0;
    return 0;
  }
  if (reserve(pas, m) || tsr_chol_set_matrix(m, p->Ap, p->Ai, p->Ax, 1, pas->chol)) return -1;
  tsr_chol_set_dense(p->dense, pas->chol);
  double amax = tsr_mlcp_a_max(p), bmax = tsr_mlcp_b_inf(p);
  if (!(amax > 0.0)) amax = 1.0;
  double *w = pas->w, *d = pas->d;
  int8_t *at = pas->at, *hold = pas->hold;
  // W at the start: the rows on a bound. A row whose multiplier has the
  // wrong sign is released by the iteration, one at a time.
  for (int i = 0; i < m; i++) {
    double lo = p->lo[i], hi = p->hi[i];
    lambda[i] = clamp(isfinite(lambda[i]) ? lambda[i] : 0.0, lo, hi);
    at[i] = lo == hi ? AT_FIXED : lambda[i] == lo ? AT_LO : lambda[i] == hi ? AT_HI : AT_NONE;
    hold[i] = 0;
    d[i] = 0.0;
  }
  const TsrCholStats *cs0 = tsr_chol_stats(pas->chol);
  int fresh0 = cs0->factorizations - cs0->row_updates - cs0->dense_updates;
  int rc = 1, changes = 0, face_ok = 0, refine = 0, released = -1, held = 0;
  double wf_last = INFINITY;  // max |w_F| before the last Newton step on this face
  int met = 0;                // iterates that met the global stop
  double met_rho = INFINITY;
  int fine = 0;      // past the global stop: thresholds at each row's round-off (pas->sigma)
  int updates = -1;  // w: -1 to be formed from lambda, 0 formed, > 0 updated that many times since
  for (;;) {
    if (tsr_stop_requested()) break;
    if (updates < 0 || updates >= PAS_W_UPDATES || fine) {
      tsr_mlcp_matvec(p, lambda, w);
      for (int i = 0; i < m; i++) w[i] += p->b[i];
      updates = 0;
    }
    double lmax = 0.0, rinf = 0.0;
    for (int i = 0; i < m; i++) {
      lmax = tsr_maxd(lmax, fabs(lambda[i]));
      rinf = tsr_maxd(rinf, fabs(lambda[i] - clamp(lambda[i] - w[i], p->lo[i], p->hi[i])));
    }
    double tol = 1e-12 * fmax(1.0, fmax(bmax, amax * lmax)), rho = INFINITY;
    if (updates > 0 && rinf <= 1e3 * tol) {  // near the stop: decide on w formed from lambda
      updates = -1;
      continue;
    }
    if (rinf <= tol) {
      rho = tsr_mlcp_relative_residual(p, lambda, w, pas->sigma, NULL);
      if (rho <= met_rho) {
        met_rho = rho;
        memcpy(pas->keep, lambda, (size_t)m * sizeof *lambda);
      }
      if (met++ >= PAS_ROW_STEPS) break;
      fine = 1;
    }
    if (changes >= max_iter) break;
    double wf = 0.0;
    for (int i = 0; i < m; i++)
      if (at[i] == AT_NONE) wf = tsr_maxd(wf, fabs(w[i]));
    if (pas->trace)
      fprintf(stderr, "pas changes %d refine %d: res_inf %.3e tol %.1e max|w_F| %.3e rho %.3e\n", changes, refine, rinf,
              tol, wf, rho);
    int step =
        refine == 0 ? wf > (fine ? 1e-3 * tol : tol) : refine < PAS_REFINE && wf > 1e-3 * tol && wf < 0.5 * wf_last;
    if (step) {
      wf_last = wf;
      // Minimise f over the face: the Newton step on F, then the ratio test.
      int nf = 0;
      for (int i = 0; i < m; i++)
        if (at[i] == AT_NONE) pas->F[nf++] = i;
      if (!face_ok) {
        const TsrCholStats *cs = tsr_chol_stats(pas->chol);
        int fresh = cs->factorizations - cs->row_updates - cs->dense_updates - fresh0, how = tsr_chol_method(pas->chol);
        // cheap updates: the LDL path's factors and dense Cholesky. The
        // supernodal path's are updated too (chol_rowmod.c), but log_tower's
        // first attempts then ran to 100 changes at ~0.6-1 ms each and
        // stopped unsolved (restarts 4.1 -> 5.2 s over the run).
        int updates = how == TSR_CHOL_SPARSE_LDL || how == TSR_CHOL_SPARSE_MOD || how == TSR_CHOL_DENSE_LLT;
        if (max_fresh >= 0 && fresh > 0 && (fresh > max_fresh || !updates)) break;
        if (factor_face(pas->F, nf, 0.0, amax, pas, stats)) return -1;
        face_ok = 1;
      }
      double g, c;  // w^T d (negative for a descent direction), d^T A d
      if (face_direction(p, w, nf, pas, &g, &c)) return -1;
      // An exact Newton step has -g = c (the minimiser along d at a = 1);
      // solves of an ill-conditioned A_FF keep the ratio within ~cond eps
      // (1e-5 at the cond ~1e11 of a pile's redundant contacts).
      int newton = g < 0.0 && c > 0.0 && fabs(-g / c - 1.0) < PAS_NEWTON;
      if (!newton && !pas->shifted) {
        // A_FF singular to working precision (more free rows than the rank
        // of redundant rows) with pivots that stayed positive by rounding:
        // the direction is noise (g > 0 and d^T A d < 0 on a semidefinite
        // A were seen, and steps of 1e10 Newton lengths). The shifted
        // factorisation's direction follows the near-null space, where f
        // decreases until a bound stops the step.
        if (factor_face(pas->F, nf, 1e-10 * amax, amax, pas, stats)) return -1;
        if (face_direction(p, w, nf, pas, &g, &c)) return -1;
      }
      double a = 0.0, a_block = INFINITY;
      int block = -1, block_at = AT_NONE;
      int descent = g < 0.0;
      if (descent) {
        // f's minimiser along d (1 for an exact Newton step); none where d
        // has no curvature (a singular A_FF: redundant rows), and the ratio
        // test alone bounds the step.
        a = c > 0.0 ? -g / c : INFINITY;
        for (int k = 0; k < nf; k++) {
          int i = pas->F[k];
          double t = d[i] < 0.0 && isfinite(p->lo[i])   ? (p->lo[i] - lambda[i]) / d[i]
                     : d[i] > 0.0 && isfinite(p->hi[i]) ? (p->hi[i] - lambda[i]) / d[i]
                                                        : INFINITY;
          if (t < a_block) a_block = t, block = i, block_at = d[i] < 0.0 ? AT_LO : AT_HI;
        }
        if (block >= 0 && a_block <= a)
          a = fmax(a_block, 0.0);
        else
          block = -1;
        // Along a near-null direction (shifted factor, a step of many
        // Newton lengths) that no bound stops, f is unbounded below on the
        // box: no solution (two distance joints of different lengths
        // between the same bodies, without compliance). Without this the
        // iterate ran off to |lambda| ~ 1e20, where every row's residual is
        // round-off of its own scale.
        if (block < 0 && (!isfinite(a) || (pas->shifted && a > PAS_RUNAWAY))) break;
      }
      if (pas->trace) fprintf(stderr, "   nf %d g %.3e c %.3e a %.3e block %d\n", nf, g, c, a, block);
      double lb = block < 0 ? 0.0 : block_at == AT_LO ? p->lo[block] : p->hi[block];  // the block row's bound
      if (a > 0.0) {
        // w + a A d where the step ends on a bound (see PAS_W_UPDATES);
        // corrections for the clamped rows below.
        int upd = block >= 0 && updates >= 0;
        if (upd) {
          for (int i = 0; i < m; i++) w[i] += a * pas->Ad[i];
          // the block row ends on its bound exactly (below)
          tsr_mlcp_add_column(p, block, (lb - lambda[block]) - a * d[block], w);
        }
        for (int k = 0; k < nf; k++) {
          int i = pas->F[k];
          double v = lambda[i] + a * d[i], c = clamp(v, p->lo[i], p->hi[i]);
          if (upd && c != v && i != block) tsr_mlcp_add_column(p, i, c - v, w);
          lambda[i] = c;
        }
        updates = upd ? updates + 1 : -1;
        if (held)
          for (int i = 0; i < m; i++) hold[i] = 0;
        held = 0;
      }
      for (int k = 0; k < nf; k++) d[pas->F[k]] = 0.0;
      if (block >= 0) {
        at[block] = (int8_t)block_at;
        if (a == 0.0 && lambda[block] != lb) updates = -1;  // (the update above is for a > 0)
        lambda[block] = lb;
        if (a == 0.0 && block == released) hold[block] = 1, held = 1;
        face_ok = 0, refine = 0, changes++;
      } else if (descent) {
        refine++;
      } else {
        refine = PAS_REFINE;  // no descent on this face at working precision
      }
      continue;
    }
    // At the face's minimiser: release the row of W whose multiplier has
    // the wrong sign by the most.
    // Past the global stop, a multiplier counts as wrong above its row's
    // round-off (PAS_NOISE sigma_i): a row left at -2e-7 under a global
    // tolerance of 2.6e-7 moved a light body's velocity by 2.6e-6 (relative).
    int rel = -1;
    double worst = 0.0;
    for (int i = 0; i < m; i++) {
      if (hold[i]) continue;
      double v = at[i] == AT_LO ? -w[i] : at[i] == AT_HI ? w[i] : 0.0;
      if (v > (fine ? PAS_NOISE * pas->sigma[i] : tol) && v > worst) worst = v, rel = i;
    }
    if (rel < 0) {  // nothing left to release: the face's minimiser is the solution
      if (rho <= PAS_ROW) rc = 0;
      break;
    }
    at[rel] = AT_NONE;
    released = rel;
    face_ok = 0, refine = 0, changes++;
  }
  if (met && rc != 0) {  // the best iterate that met the global stop
    memcpy(lambda, pas->keep, (size_t)m * sizeof *lambda);
    rc = met_rho <= PAS_ROW ? 0 : 1;
  }
  stats->iterations += changes;
  if (index_set) tsr_mlcp_index_set(p, lambda, 0.0, index_set);  // (eta 0: on a bound exactly)
  stats->residual = tsr_mlcp_residual_ws(p, lambda, w, NULL);
  stats->converged = rc == 0;
  return rc;
}
