// SPDX-License-Identifier: MIT
// Projected Gauss-Seidel with subspace minimisation (Silcowitz, Niebe and
// Erleben 2011; seed 000 §5.1), for the MLCP w = A lambda + b, lo <= lambda <= hi.
//
// One outer iteration:
//   1. SWEEPS sweeps of PGS (pgs.c's update, lambda_i <- clamp(lambda_i - w_i / A_ii))
//      guess the index set: a row clamped exactly to a bound is tight there,
//      every other row is free;
//   2. subspace minimisation: with lambda_T at its bounds, solve the free rows
//      exactly (Eq. 27),  A_FF lambda_F = -b_F - A_FT lambda_T,  by Cholesky
//      (linalg/chol.h through the BPP context's factorisation cache), project
//      the free rows that left [lo, hi] onto the bound they crossed (they
//      become tight) and solve again, until no row leaves its box;
//   3. stop when the set is feasible: free rows inside their bounds (true
//      after 2) and every tight row's slack of the right sign (at lower
//      w >= -tol, at upper w <= tol), tol = params->pivot_tolerance (tau,
//      1e-10, as BPP) * ||b||_inf (a scale that cannot grow with the iterate;
//      with max|A| ||lambda|| the bridge's cable impulses let wrong sets pass);
//      or when the set equals the previous outer iteration's (PGS cannot move
//      it any more); or after params->max_pivots outer iterations.
// Step 1 frees the tight rows whose slack has the wrong sign (the PGS update
// moves them off the bound); step 2 fixes the rows that must be tight. On
// bilateral problems the first subspace solve is the exact solution.
#include "solvers/pgs_sm.h"
#include "solvers/stop.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/bpp.h"

#define SWEEPS 8            // PGS sweeps per outer iteration
#define MAX_PROJECTIONS 50  // subspace solves per outer iteration

struct TsrPgsSm {
  TsrBpp *bpp;  // factorisation cache (tsr_bpp_factor)
  int cap;
  int8_t *s, *prev;
  int *loc;
  double *diag, *w, *rhs, *x, *r, *scale;
};

TsrPgsSm *tsr_pgs_sm_create(void) {
  TsrPgsSm *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  if (!(g->bpp = tsr_bpp_create())) {
    free(g);
    return NULL;
  }
  tsr_bpp_enable_reuse(g->bpp, 1);
  return g;
}

static void free_arrays(TsrPgsSm *g) {
  free(g->s), free(g->prev), free(g->loc), free(g->diag), free(g->w), free(g->rhs), free(g->x), free(g->r),
      free(g->scale);
}

void tsr_pgs_sm_free(TsrPgsSm **pg) {
  TsrPgsSm *g = pg ? *pg : NULL;
  if (!g) return;
  tsr_bpp_free(&g->bpp);
  free_arrays(g);
  free(g);
  *pg = NULL;
}

static int reserve(TsrPgsSm *g, int m) {
  if (m <= g->cap && g->s) return 0;
  free_arrays(g);
  int n = m + m / 4 + 8;
  g->s = malloc((size_t)n);
  g->prev = malloc((size_t)n);
  g->loc = malloc((size_t)n * sizeof(int));
  double **d[] = {&g->diag, &g->w, &g->rhs, &g->x, &g->r, &g->scale};
  for (size_t k = 0; k < sizeof d / sizeof *d; k++)
    *d[k] = malloc((d[k] == &g->r ? 2 : 1) * (size_t)n * sizeof(double));  // r: tsr_bpp_refine's, 2 nf
  g->cap = (g->s && g->prev && g->loc && g->diag && g->w && g->rhs && g->x && g->r && g->scale) ? n : 0;
  return g->cap ? 0 : -1;
}

// Solves the free rows of g->s exactly (Eq. 27) with lambda_T at the bounds.
static int subspace_solve(const TsrMlcp *p, double shift, double *lambda, int *factorizations, TsrPgsSm *g) {
  int m = p->m;
  const int *F;
  int nf;
  for (int i = 0; i < m; i++)
    if (g->s[i] != TSR_INDEX_FREE) lambda[i] = g->s[i] == TSR_INDEX_UPPER ? p->hi[i] : p->lo[i];
  int before = tsr_chol_stats(tsr_bpp_chol(g->bpp))->factorizations;
  int rc = tsr_bpp_factor(p, g->s, shift, &F, &nf, g->bpp);
  *factorizations += tsr_chol_stats(tsr_bpp_chol(g->bpp))->factorizations - before;
  if (rc < 0) return rc;
  if (nf == 0) return 0;
  TsrChol *ch = tsr_bpp_chol(g->bpp);
  for (int i = 0; i < m; i++) g->loc[i] = -1;
  for (int k = 0; k < nf; k++) g->loc[F[k]] = k, g->rhs[k] = -p->b[F[k]];
  for (int j = 0; j < m; j++) {
    if (g->loc[j] >= 0 || lambda[j] == 0.0) continue;
    for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) {
      int k = g->loc[p->Ai[q]];
      if (k >= 0) g->rhs[k] -= p->Ax[q] * lambda[j];
    }
  }
  if (tsr_chol_solve(g->rhs, g->x, ch)) return -1;
  // rc 1: A_FF singular, factorised with a shift (bpp.h)
  int nosol = tsr_bpp_refine(p, F, nf, g->loc, g->rhs, g->x, g->r, g->scale, ch, rc == 1);
  if (nosol < 0) return -1;
  for (int k = 0; k < nf; k++) lambda[F[k]] = g->x[k];
  return nosol;
}

int tsr_pgs_sm_solve(const TsrMlcp *p, const TsrSolverParams *params, double *lambda, int8_t *index_set,
                     TsrSolveStats *stats, TsrPgsSm *g) {
  int m = p->m;
  stats->converged = 0;
  stats->residual = 0.0;
  if (m == 0) {
    stats->converged = 1;
    return 0;
  }
  if (reserve(g, m)) return -1;
  tsr_bpp_invalidate(g->bpp);
  int rc = 0;
  double amax = 0.0, b_inf = 0.0;
  for (int q = 0; q < p->Ap[m]; q++) amax = fmax(amax, fabs(p->Ax[q]));
  if (!(amax > 0.0)) amax = 1.0;
  const double shift = 1e-10 * amax;  // of a singular A_FF's factorisation (tsr_bpp_factor), as BPP's
  for (int i = 0; i < m; i++) {
    b_inf = fmax(b_inf, fabs(p->b[i]));
    g->diag[i] = 0.0;
    for (int q = p->Ap[i]; q < p->Ap[i + 1]; q++)
      if (p->Ai[q] == i) g->diag[i] += p->Ax[q];
    if (isnan(g->diag[i])) rc = -1;
  }
  double eps = params->pivot_tolerance > 0 ? params->pivot_tolerance : 1e-10;
  if (!params->warm_start)
    for (int i = 0; i < m; i++) lambda[i] = 0.0;
  for (int i = 0; i < m; i++) lambda[i] = fmin(fmax(lambda[i], p->lo[i]), p->hi[i]);
  if (rc < 0 || !p->symmetric) {
    stats->residual = tsr_mlcp_residual_ws(p, lambda, g->w, NULL);
    return -1;
  }
  int outer_max = params->max_pivots > 0 ? params->max_pivots : 50;
  int outer = 0, converged = 0, factorizations = 0;
  memset(g->prev, 2, (size_t)m);  // no previous set
  while (outer < outer_max && !tsr_stop_requested()) {
    outer++;
    // 1. PGS sweeps (A symmetric: row i = column i). A row whose diagonal is
    // not above the factorisation's shift has no Gauss-Seidel update: in a
    // positive semidefinite A it is (to round-off) redundant, since |A_ij| <=
    // sqrt(A_ii A_jj). Such rows occur in S_Gamma when the subsystems already
    // determine an interface row (rigid closed loops: S_ii computed as -8e-7
    // against max 2.2); the sweeps leave them and the subspace solve, which
    // factorises with the shift as BPP does, finds them.
    for (int sweep = 0; sweep < SWEEPS; sweep++)
      for (int i = 0; i < m; i++) {
        if (!(g->diag[i] > shift)) continue;
        double wi = p->b[i];
        for (int q = p->Ap[i]; q < p->Ap[i + 1]; q++) wi += p->Ax[q] * lambda[p->Ai[q]];
        lambda[i] = fmin(fmax(lambda[i] - wi / g->diag[i], p->lo[i]), p->hi[i]);
      }
    for (int i = 0; i < m; i++)
      g->s[i] = p->lo[i] == p->hi[i] || lambda[i] <= p->lo[i] ? TSR_INDEX_LOWER
                : lambda[i] >= p->hi[i]                       ? TSR_INDEX_UPPER
                                                              : TSR_INDEX_FREE;
    // 2. Subspace minimisation with projection.
    int no_solution = 0;  // the last subspace solve's free rows have none (subspace_solve)
    for (int proj = 0; proj < MAX_PROJECTIONS; proj++) {
      int src = subspace_solve(p, shift, lambda, &factorizations, g);
      if (src < 0) return -1;
      no_solution = src == 1;
      int moved = 0;
      for (int i = 0; i < m; i++) {
        if (g->s[i] != TSR_INDEX_FREE) continue;
        if (lambda[i] < p->lo[i])
          g->s[i] = TSR_INDEX_LOWER, lambda[i] = p->lo[i], moved++;
        else if (lambda[i] > p->hi[i])
          g->s[i] = TSR_INDEX_UPPER, lambda[i] = p->hi[i], moved++;
      }
      if (!moved) break;
    }
    // 3. Feasibility of the tight rows, stagnation.
    tsr_mlcp_slack(p, lambda, g->w);
    double tol = eps * fmax(b_inf, DBL_MIN);
    // A set whose free rows' equations have no solution is not one: the
    // shifted solve's lambda_F grew like 1 / shift (a bilateral row reading
    // 0 lambda + 0.9 = 0 was returned as solved with lambda = -1.9e11).
    int bad = no_solution;
    for (int i = 0; i < m && !bad; i++) {
      if (g->s[i] == TSR_INDEX_FREE || p->lo[i] == p->hi[i]) continue;
      bad = g->s[i] == TSR_INDEX_LOWER ? g->w[i] < -tol : g->w[i] > tol;
    }
    if (!bad) {
      converged = 1;
      break;
    }
    if (!memcmp(g->s, g->prev, (size_t)m)) break;
    memcpy(g->prev, g->s, (size_t)m);
  }
  if (index_set) memcpy(index_set, g->s, (size_t)m);
  stats->iterations += outer;
  stats->factorizations += factorizations;
  stats->converged = converged;
  stats->residual = tsr_mlcp_residual_ws(p, lambda, g->w, NULL);
  return converged ? 0 : 1;
}
