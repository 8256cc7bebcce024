// SPDX-License-Identifier: MIT
// direct-bpp island by island (islands.h).
#include "solvers/islands.h"

#include <stdlib.h>
#include <string.h>

#include "solvers/bpp.h"
#include "solvers/bpp_retry.h"
#include "util/env.h"
#include "util/grow.h"
#include "util/union_find.h"

struct TsrIslands {
  // Workspaces: [0] for the largest island (or the whole system), [1] for
  // the others, solved one after another. The largest keeps its own, so
  // that its fill-reducing ordering, computed once per sparsity pattern
  // (linalg/chol.h), survives from step to step while small islands come
  // and go (log_tower: its ~1,900-row pile and a second, small island at
  // most steps).
  TsrBpp *bpp[2];
  TsrBppRetry *retry[2];
  TsrMlcp sub;  // the island being solved
  int whole;    // TSR_DIRECT_WHOLE=1: one solve of the whole system (to measure what islands do)
  int count;
  int cap_up, cap_start, cap_rows, cap_loc, cap_w, cap_lam, cap_set;
  int *up;      // [m] union-find parent, then the island of each row
  int *start;   // [m + 1] first position of each island in rows
  int *rows;    // [m] rows grouped by island, increasing within each
  int *loc;     // [m] local index of each row within its island
  double *w;    // [m] slack, for the whole system's residual
  double *lam;  // the island's lambda
  int8_t *set;  // its index set
};

TsrIslands *tsr_islands_create(void) {
  TsrIslands *is = calloc(1, sizeof *is);
  if (!is) return NULL;
  tsr_mlcp_init(&is->sub);
  is->whole = tsr_env_flag("TSR_DIRECT_WHOLE");
  for (int k = 0; k < 2; k++) {
    is->bpp[k] = tsr_bpp_create();
    is->retry[k] = tsr_bpp_retry_create();
    if (!is->bpp[k] || !is->retry[k]) {
      tsr_islands_free(&is);
      break;
    }
  }
  return is;
}

void tsr_islands_free(TsrIslands **pis) {
  TsrIslands *is = pis ? *pis : NULL;
  if (!is) return;
  for (int k = 0; k < 2; k++) tsr_bpp_free(&is->bpp[k]), tsr_bpp_retry_free(&is->retry[k]);
  tsr_mlcp_free(&is->sub);
  free(is->up), free(is->start), free(is->rows), free(is->loc), free(is->w), free(is->lam), free(is->set);
  free(is);
  *pis = NULL;
}

int tsr_islands_count(const TsrIslands *is) { return is->count; }

// Groups p's rows by island (rows linked through a nonzero of A, in either
// triangle, so a nonsymmetric pattern links them too): is->start, is->rows,
// is->loc. Islands are numbered by their first row. Returns their count;
// with one island, only the count (the whole system is solved as it is).
static int find_islands(const TsrMlcp *p, TsrIslands *is) {
  int m = p->m, *up = is->up;
  for (int i = 0; i < m; i++) up[i] = i;
  for (int j = 0; j < m; j++) {
    // A symmetric pattern: the entries below the diagonal say it all (row
    // indices are sorted within a column).
    int q0 = p->Ap[j], q1 = p->Ap[j + 1];
    if (p->symmetric)
      while (q0 < q1 && p->Ai[q0] <= j) q0++;
    for (int q = q0; q < q1; q++) {
      int a = tsr_uf_root(up, p->Ai[q]), b = tsr_uf_root(up, j);
      if (a != b) up[a > b ? a : b] = a < b ? a : b;  // the smaller row is the root
    }
  }
  // Roots are the first rows of their islands: number them in row order.
  int n = 0;
  for (int i = 0; i < m; i++) up[i] = tsr_uf_root(up, i);  // every row points at its root
  for (int i = 0; i < m; i++) is->loc[i] = up[i] == i ? n++ : -1;
  if (n == 1) return 1;
  for (int i = 0; i < m; i++) up[i] = is->loc[up[i]];  // island of row i
  memset(is->start, 0, (size_t)(n + 1) * sizeof *is->start);
  for (int i = 0; i < m; i++) is->start[up[i] + 1]++;
  for (int k = 0; k < n; k++) is->start[k + 1] += is->start[k];
  // Counting sort, start[k] as island k's insertion point (increasing rows
  // within each island); then shifted back to the first positions.
  for (int i = 0; i < m; i++) is->rows[is->start[up[i]]++] = i;
  for (int k = n; k > 0; k--) is->start[k] = is->start[k - 1];
  is->start[0] = 0;
  for (int k = 0; k < n; k++)
    for (int t = is->start[k]; t < is->start[k + 1]; t++) is->loc[is->rows[t]] = t - is->start[k];
  return n;
}

// Island k of p into is->sub, with its warm start gathered.
static int extract(const TsrMlcp *p, int k, const double *lambda, const int8_t *index_set, TsrIslands *is) {
  const int *rows = is->rows + is->start[k];
  int n = is->start[k + 1] - is->start[k], nnz = 0;
  for (int c = 0; c < n; c++) nnz += p->Ap[rows[c] + 1] - p->Ap[rows[c]];
  if (tsr_mlcp_reserve(&is->sub, n, nnz)) return -1;
  TsrMlcp *s = &is->sub;
  s->m = n;
  s->symmetric = p->symmetric;
  s->dense = NULL;
  int q = 0;
  s->Ap[0] = 0;
  for (int c = 0; c < n; c++) {
    int r = rows[c];
    // loc is increasing with the global row inside an island, so the local
    // row indices stay sorted within each column.
    for (int t = p->Ap[r]; t < p->Ap[r + 1]; t++, q++) s->Ai[q] = is->loc[p->Ai[t]], s->Ax[q] = p->Ax[t];
    s->Ap[c + 1] = q;
    s->b[c] = p->b[r], s->lo[c] = p->lo[r], s->hi[c] = p->hi[r];
    is->lam[c] = lambda[r];
    if (index_set) is->set[c] = index_set[r];
  }
  return 0;
}

int tsr_islands_solve(const TsrMlcp *p, const TsrSolverParams *params, double *lambda, int8_t *index_set,
                      TsrSolveStats *stats, TsrIslands *is) {
  int m = p->m;
  is->count = 1;
  if (m == 0 || p->dense || is->whole)
    return tsr_bpp_retry_solve(p, params, lambda, index_set, stats, is->bpp[0], is->retry[0]);
  if (tsr_grow((void **)&is->up, &is->cap_up, m, sizeof *is->up) ||
      tsr_grow((void **)&is->start, &is->cap_start, m + 1, sizeof *is->start) ||
      tsr_grow((void **)&is->rows, &is->cap_rows, m, sizeof *is->rows) ||
      tsr_grow((void **)&is->loc, &is->cap_loc, m, sizeof *is->loc))
    return -1;
  int n = find_islands(p, is);
  is->count = n;
  if (n == 1) return tsr_bpp_retry_solve(p, params, lambda, index_set, stats, is->bpp[0], is->retry[0]);
  int largest = 0, big = 0;  // the largest island (the first of them)
  for (int k = 0; k < n; k++)
    if (is->start[k + 1] - is->start[k] > largest) largest = is->start[k + 1] - is->start[k], big = k;
  if (tsr_grow((void **)&is->lam, &is->cap_lam, largest, sizeof *is->lam) ||
      tsr_grow((void **)&is->set, &is->cap_set, largest, sizeof *is->set) ||
      tsr_grow((void **)&is->w, &is->cap_w, m, sizeof *is->w))
    return -1;
  int rc = 0, converged = 1, iterations = stats->iterations, factorizations = stats->factorizations;
  for (int k = 0; k < n; k++) {
    if (extract(p, k, lambda, index_set, is)) return -1;
    TsrSolveStats st = {0};
    int w = k != big;
    int krc = tsr_bpp_retry_solve(&is->sub, params, is->lam, index_set ? is->set : NULL, &st, is->bpp[w], is->retry[w]);
    if (krc < 0) return krc;
    if (krc > rc) rc = krc;
    converged &= st.converged;
    iterations += st.iterations, factorizations += st.factorizations;
    const int *rows = is->rows + is->start[k];
    for (int c = 0; c < is->sub.m; c++) {
      lambda[rows[c]] = is->lam[c];
      if (index_set) index_set[rows[c]] = is->set[c];
    }
  }
  stats->iterations = iterations;
  stats->factorizations = factorizations;
  stats->converged = converged;
  stats->residual = tsr_mlcp_residual_ws(p, lambda, is->w, NULL);
  return rc;
}
