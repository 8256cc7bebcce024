// SPDX-License-Identifier: MIT
// Projected Gauss-Seidel for the MLCP of seed 000 Eq. 8: sweep i = 0..m-1,
//
//   w_i = b_i + sum_j A_ij lambda_j,   lambda_i <- clamp(lambda_i - w_i / A_ii, lo_i, hi_i),
//
// using the newest lambda_j (Gauss-Seidel). Rows of A are read from the CSC
// columns when A is symmetric, else from a CSR copy made per solve.
// Stopping rule (seed 000 Table 1: epsilon = 1e-9): after each sweep,
//   max_i |lambda_i^new - lambda_i^old| <= epsilon * ||lambda^new||_inf,
// a change relative to the size of the impulses (unit free); a sweep that
// changes nothing stops it too. The cap is params->iterations sweeps (1000).
// PGS needs A_ii > 0; a problem with a zero or negative diagonal entry (the
// Siconos MLCPs' equality rows) is reported as a failure, never divided by.
#include "solvers/pgs.h"
#include "solvers/stop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct TsrPgs {
  int cap_m, cap_nnz;
  int *Rp, *Ri;  // CSR of A (nonsymmetric problems)
  double *Rx, *diag, *w;
};

TsrPgs *tsr_pgs_create(void) { return calloc(1, sizeof(TsrPgs)); }

void tsr_pgs_free(TsrPgs **pg) {
  TsrPgs *g = pg ? *pg : NULL;
  if (!g) return;
  free(g->Rp), free(g->Ri), free(g->Rx), free(g->diag), free(g->w);
  free(g);
  *pg = NULL;
}

static int reserve(TsrPgs *g, int m, int nnz) {
  if (m + 1 > g->cap_m) {
    int n = m + m / 4 + 8;
    free(g->Rp), free(g->diag), free(g->w);
    g->Rp = malloc((size_t)(n + 1) * sizeof(int));
    g->diag = malloc((size_t)n * sizeof(double));
    g->w = malloc((size_t)n * sizeof(double));
    g->cap_m = (g->Rp && g->diag && g->w) ? n : 0;
    if (!g->cap_m) return -1;
  }
  if (nnz > g->cap_nnz) {
    int n = nnz + nnz / 4 + 8;
    free(g->Ri), free(g->Rx);
    g->Ri = malloc((size_t)n * sizeof(int));
    g->Rx = malloc((size_t)n * sizeof(double));
    g->cap_nnz = (g->Ri && g->Rx) ? n : 0;
    if (!g->cap_nnz) return -1;
  }
  return 0;
}

int tsr_pgs_solve(const TsrMlcp *p, const TsrSolverParams *params, double *lambda, TsrSolveStats *stats, TsrPgs *g) {
  int m = p->m;
  stats->iterations = 0;
  stats->converged = 0;
  stats->residual = 0.0;
  if (m == 0) {
    stats->converged = 1;
    return 0;
  }
  int nnz = p->Ap[m];
  if (reserve(g, m, p->symmetric ? 0 : nnz)) return -1;
  const int *Rp = p->Ap, *Ri = p->Ai;
  const double *Rx = p->Ax;
  if (!p->symmetric) {  // CSR = transpose of the CSC arrays
    int *Tp = g->Rp;
    memset(Tp, 0, (size_t)(m + 1) * sizeof *Tp);
    for (int q = 0; q < nnz; q++) Tp[p->Ai[q] + 1]++;
    for (int i = 0; i < m; i++) Tp[i + 1] += Tp[i];
    for (int j = 0; j < m; j++)
      for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) {
        int i = p->Ai[q], d = Tp[i]++;
        g->Ri[d] = j;
        g->Rx[d] = p->Ax[q];
      }
    for (int i = m; i > 0; i--) Tp[i] = Tp[i - 1];
    Tp[0] = 0;
    Rp = Tp, Ri = g->Ri, Rx = g->Rx;
  }
  int rc = 0;
  for (int i = 0; i < m; i++) {
    g->diag[i] = 0.0;
    for (int q = Rp[i]; q < Rp[i + 1]; q++)
      if (Ri[q] == i) g->diag[i] += Rx[q];
    if (!(g->diag[i] > 0.0)) rc = -1;
  }
  if (!params->warm_start)
    for (int i = 0; i < m; i++) lambda[i] = 0.0;
  for (int i = 0; i < m; i++) lambda[i] = fmin(fmax(lambda[i], p->lo[i]), p->hi[i]);
  if (rc < 0) {
    stats->residual = tsr_mlcp_residual_ws(p, lambda, g->w, NULL);
    return -1;
  }
  int sweeps = params->iterations > 0 ? params->iterations : 1000;
  double eps = params->tolerance > 0 ? params->tolerance : 1e-9;
  int k;
  for (k = 0; k < sweeps && !tsr_stop_requested(); k++) {
    double max_change = 0.0, lam_inf = 0.0;
    for (int i = 0; i < m; i++) {
      double wi = p->b[i];
      for (int q = Rp[i]; q < Rp[i + 1]; q++) wi += Rx[q] * lambda[Ri[q]];
      double old = lambda[i], l = old - wi / g->diag[i];
      l = fmin(fmax(l, p->lo[i]), p->hi[i]);
      lambda[i] = l;
      max_change = fmax(max_change, fabs(l - old));
      lam_inf = fmax(lam_inf, fabs(l));
    }
    // A diverging iteration (A not positive semidefinite) reaches inf, and
    // inf <= eps * inf held: lambda = inf was reported converged.
    if (!isfinite(lam_inf)) {
      k++;
      break;
    }
    if (max_change <= eps * lam_inf) {
      k++;
      stats->converged = 1;
      break;
    }
  }
  stats->iterations = k;
  stats->residual = tsr_mlcp_residual_ws(p, lambda, g->w, NULL);
  return stats->converged ? 0 : 1;
}
