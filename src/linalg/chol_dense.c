// SPDX-License-Identifier: MIT
// Dense Cholesky of A_FF + shift I that follows the free set F by updates.
//
// Every pivot of block pivoting and every step of projected Newton
// factorises A_FF for a new F, and on a dense matrix (the interface matrix
// S_Gamma of a pile) F usually differs from the last one by a few rows:
// replaying chain_drop's pile-up, 60% of the interface factorisations
// differed from the previous one by at most 8 rows. With A_FF = L L^T:
//
//   * removing the row at position p: with L = [L11 0 0; l21^T d 0; L31 l32
//     L33], the factor without row and column p is [L11 0; L31 L33'] where
//     L33' L33'^T = L33 L33^T + l32 l32^T, a rank-one update (Golub & Van
//     Loan, Matrix Computations, 4th ed., §6.5.4): O((n - p)^2);
//   * appending row g: y = L^-1 A_{F,g}, d^2 = A_gg + shift - y^T y, the new
//     last row is [y^T d]: O(n^2).
//
// against n^3 / 3 for a new factorisation. So the factor's rows are kept in
// their own order (dord), not in F's increasing order, and solves permute.
// A new factorisation is made instead when A may have changed (every
// tsr_chol_set_matrix), when the shift changed, when more rows changed than
// an update saves (UPDATE_FRACTION), after UPDATE_MAX updates (rounding), or
// when an appended pivot is not clearly positive (the full factorisation
// then decides whether A_FF is positive definite, as before).
// TSR_CHOL_NO_UPDATE=1 turns the updates off (to measure them). Replaying
// log_tower (steps 0-120, 2 threads), schur-bpp's interface solves took 5.8
// ms per step without them and 4.8 with them.
#include "linalg/chol_internal.h"
#include "util/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Updates are made while the rows removed and appended number at most
// nf / UPDATE_FRACTION + 1 (an update of k rows costs ~k n^2 in BLAS-2
// loops, a factorisation n^3 / 3 in BLAS 3).
#define UPDATE_FRACTION 16
// Rows updated since the last full factorisation before a new one.
#define UPDATE_MAX 64
// An appended pivot d^2 below this fraction of its diagonal entry asks for a
// full factorisation.
#define PIVOT_FLOOR 1e-8
// Matrices up to this order keep a factor with room for appended rows (a
// leading dimension above nf, grown by copying when rows run out); larger
// ones are factorised densely only afresh.
#define UPDATE_MAX_ORDER 2048

// Room for n rows and columns with leading dimension ld, for matrix order m.
static int room(int n, TsrChol *c) {
  int m = c->m, ld = n + n / 2 + 16;
  if (ld > m) ld = m;
  if (ld < n) ld = n;
  if (ld < 1) ld = 1;
  if (tsr_grow_size((void **)&c->D, &c->cap_D, (size_t)ld * (size_t)ld, sizeof *c->D)) return -1;
  if (tsr_grow((void **)&c->dscr, &c->cap_dscr, ld + 1, sizeof *c->dscr)) return -1;
  return ld;
}

// Full factorisation of A_FF + shift I in F's order.
static int factor_full(const int *F, int nf, double shift, TsrChol *c) {
  int m = c->m;
  c->dvalid = 0;
  int ld = room(nf, c);
  if (ld < 0) return -1;
  double *D = c->D;
  tsr_chol_gather_dense(F, nf, shift, ld, c);
  int info = 0;
  dpotrf_("L", &nf, D, &ld, &info);
  c->stats.factorizations++;
  if (info != 0) {
    c->stats.not_posdef++;
    return 1;
  }
  if (c->dm != m || !c->dpos) {
    if (tsr_grow((void **)&c->dpos, &c->cap_dpos, m + 1, sizeof *c->dpos)) return -1;
    for (int i = 0; i < m; i++) c->dpos[i] = -1;
    c->dn = 0;
    c->dm = m;
  }
  for (int k = 0; k < c->dn; k++) c->dpos[c->dord[k]] = -1;
  if (tsr_grow((void **)&c->dord, &c->cap_dord, m + 1, sizeof *c->dord) ||
      tsr_grow((void **)&c->fperm, &c->cap_fperm, m + 1, sizeof *c->fperm))
    return -1;
  for (int k = 0; k < nf; k++) {
    c->dord[k] = F[k];
    c->dpos[F[k]] = k;
    c->fperm[k] = k;
  }
  c->dn = nf;
  c->dld = ld;
  c->dident = 1;
  c->dgen = c->gen;
  c->dshift = shift;
  c->dupdates = 0;
  c->dvalid = m <= UPDATE_MAX_ORDER;
  return 0;
}

// Removes the row and column at factor position p (rank-one update of the
// trailing block, then the rows and columns after p move up by one).
static void remove_at(int p, TsrChol *c) {
  int n = c->dn, ld = c->dld, r = n - p - 1;
  double *D = c->D, *x = c->dscr;
  const double *lp = D + (size_t)p * ld;
  for (int i = 0; i < r; i++) x[i] = lp[p + 1 + i];
  for (int k = 0; k < r; k++) {
    int kk = p + 1 + k;
    double *col = D + (size_t)kk * ld;
    double lkk = col[kk], rr = hypot(lkk, x[k]);
    double cs = rr / lkk, sn = x[k] / lkk;
    col[kk] = rr;
    for (int i = k + 1; i < r; i++) {
      int ii = p + 1 + i;
      col[ii] = (col[ii] + sn * x[i]) / cs;
      x[i] = cs * x[i] - sn * col[ii];
    }
  }
  // Columns before p lose their row p.
  for (int j = 0; j < p; j++) {
    double *col = D + (size_t)j * ld;
    memmove(col + p, col + p + 1, (size_t)(n - p - 1) * sizeof *col);
  }
  // Columns after p move one left and one up (their rows from the diagonal).
  for (int j = p + 1; j < n; j++)
    memmove(D + (size_t)(j - 1) * ld + (j - 1), D + (size_t)j * ld + j, (size_t)(n - j) * sizeof *D);
  c->dpos[c->dord[p]] = -1;
  for (int k = p + 1; k < n; k++) {
    c->dord[k - 1] = c->dord[k];
    c->dpos[c->dord[k - 1]] = k - 1;
  }
  c->dn = n - 1;
}

// Appends global row g (its entries of A + shift on the diagonal). 0, or 1
// when its pivot is not clearly positive.
static int append(int g, TsrChol *c) {
  int n = c->dn, ld = c->dld;
  double *D = c->D, *y = c->dscr, diag = c->dshift;
  for (int k = 0; k < n; k++) y[k] = 0.0;
  for (int q = c->Ap[g]; q < c->Ap[g + 1]; q++) {
    int r = c->Ai[q];
    if (r == g)
      diag += c->Ax[q];
    else if (c->dpos[r] >= 0)
      y[c->dpos[r]] += c->Ax[q];
  }
  // y = L^-1 a, by columns of L.
  for (int k = 0; k < n; k++) {
    const double *col = D + (size_t)k * ld;
    double yk = y[k] / col[k];
    y[k] = yk;
    if (yk != 0.0)
      for (int i = k + 1; i < n; i++) y[i] -= col[i] * yk;
  }
  double d2 = diag;
  for (int k = 0; k < n; k++) d2 -= y[k] * y[k];
  if (!(d2 > PIVOT_FLOOR * fabs(diag))) return 1;
  for (int k = 0; k < n; k++) D[(size_t)k * ld + n] = y[k];
  D[(size_t)n * ld + n] = sqrt(d2);
  c->dord[n] = g;
  c->dpos[g] = n;
  c->dn = n + 1;
  return 0;
}

static int cmp_desc(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x < y) - (x > y);
}

// The factor of the previous F turned into one of F (c->loc maps F), or 1
// when a full factorisation is needed.
static int update(const int *F, int nf, TsrChol *c) {
  int n = c->dn, nrem = 0, nadd = 0;
  int *pos = c->fperm;  // scratch until the end
  for (int k = 0; k < n; k++)
    if (c->loc[c->dord[k]] < 0) pos[nrem++] = k;
  for (int k = 0; k < nf; k++) nadd += c->dpos[F[k]] < 0;
  int changes = nrem + nadd;
  if (changes > nf / UPDATE_FRACTION + 1 || c->dupdates + changes > UPDATE_MAX) return 1;
  qsort(pos, (size_t)nrem, sizeof *pos, cmp_desc);  // later positions first: earlier ones stay put
  for (int k = 0; k < nrem; k++) remove_at(pos[k], c);
  if (nf > c->dld) {  // more rows than room: the factor moves to a larger leading dimension
    int old = c->dld, n = c->dn;
    double *t = malloc((size_t)n * (size_t)n * sizeof *t);
    if (!t) return 1;
    for (int j = 0; j < n; j++) memcpy(t + (size_t)j * n, c->D + (size_t)j * old, (size_t)n * sizeof *t);
    int ld = room(nf, c);
    if (ld < 0) {
      free(t);
      return 1;
    }
    for (int j = 0; j < n; j++) memcpy(c->D + (size_t)j * ld, t + (size_t)j * n, (size_t)n * sizeof *t);
    free(t);
    c->dld = ld;
  }
  for (int k = 0; k < nf; k++)
    if (c->dpos[F[k]] < 0 && append(F[k], c)) return 1;
  c->dident = 1;
  for (int k = 0; k < nf; k++) {
    c->fperm[k] = c->dpos[F[k]];
    c->dident &= c->fperm[k] == k;
  }
  c->dupdates += changes;
  if (changes) c->stats.factorizations++, c->stats.dense_updates++;  // counted as one (an updated factor)
  return 0;
}

int tsr_chol_dense_llt(const int *F, int nf, double shift, TsrChol *c) {
  c->dinv_ok = 0;
  if (!c->no_update && c->dvalid && c->dgen == c->gen && c->dshift == shift && c->dm == c->m) {
    int rc = update(F, nf, c);
    if (rc == 0) {
      c->method = TSR_CHOL_DENSE_LLT;
      return 0;
    }
  }
  int rc = factor_full(F, nf, shift, c);
  if (rc == 0) c->method = TSR_CHOL_DENSE_LLT;
  return rc;
}

#define SMALL_SOLVE 64

// L L^T x = x for a small factor: column sweeps (forward by axpy, backward by
// dot products with four partial sums), no packing. The diagonal's
// reciprocals (dinv, formed once per factor) replace the divisions, which
// sat on the sweeps' dependency chain: a tenth of a chain_wrap step went to
// these solves, most of it waiting on divisions.
static void small_solve(int n, const double *L, int ld, const double *dinv, double *x) {
  for (int j = 0; j < n; j++) {
    const double *l = L + (size_t)j * ld;
    double xj = x[j] *= dinv[j];
    for (int i = j + 1; i < n; i++) x[i] -= l[i] * xj;
  }
  for (int j = n - 1; j >= 0; j--) {
    const double *l = L + (size_t)j * ld;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int i = j + 1;
    for (; i + 3 < n; i += 4)
      s0 += l[i] * x[i], s1 += l[i + 1] * x[i + 1], s2 += l[i + 2] * x[i + 2], s3 += l[i + 3] * x[i + 3];
    for (; i < n; i++) s0 += l[i] * x[i];
    x[j] = (x[j] - ((s0 + s1) + (s2 + s3))) * dinv[j];
  }
}

int tsr_chol_dense_solve(const double *rhs, double *x, TsrChol *c) {
  int nf = c->nf, one = 1, info = 0, ld = c->dld;
  double *t = c->dident ? x : c->dscr;
  if (c->dident) {
    if (x != rhs) memcpy(x, rhs, (size_t)nf * sizeof *x);
  } else {
    for (int k = 0; k < nf; k++) t[c->fperm[k]] = rhs[k];
  }
  if (nf <= SMALL_SOLVE) {
    if (!c->dinv_ok) {
      if (tsr_grow((void **)&c->dinv, &c->cap_dinv, nf + 1, sizeof *c->dinv)) return -1;
      for (int j = 0; j < nf; j++) c->dinv[j] = 1.0 / c->D[(size_t)j * ld + j];
      c->dinv_ok = 1;
    }
    small_solve(nf, c->D, ld, c->dinv, t);
  } else
    dpotrs_("L", &nf, &one, c->D, &ld, t, &nf, &info);
  if (!c->dident)
    for (int k = 0; k < nf; k++) x[k] = t[c->fperm[k]];
  return info ? -1 : 0;
}

int tsr_chol_dense_solve_many(double *X, int nrhs, TsrChol *c) {
  int nf = c->nf, info = 0, ld = c->dld;
  if (c->dident) {
    dpotrs_("L", &nf, &nrhs, c->D, &ld, X, &nf, &info);
    return info ? -1 : 0;
  }
  for (int a = 0; a < nrhs; a++)
    if (tsr_chol_dense_solve(X + (size_t)a * nf, X + (size_t)a * nf, c)) return -1;
  return 0;
}

int tsr_chol_dense_schur(double *Gt, int ng, double *S, TsrChol *c) {
  int nf = c->nf, ld = c->dld;
  double one = 1.0;
  if (!c->dident) {  // rows of G^T into the factor's order, one column at a time
    double *t = c->dscr;
    for (int a = 0; a < ng; a++) {
      double *g = Gt + (size_t)a * nf;
      for (int k = 0; k < nf; k++) t[c->fperm[k]] = g[k];
      memcpy(g, t, (size_t)nf * sizeof *g);
    }
  }
  dtrsm_("L", "L", "N", "N", &nf, &ng, &one, c->D, &ld, Gt, &nf);  // Y = L^-1 P G^T
  tsr_chol_syrk_full(nf, ng, Gt, S);
  return 0;
}
