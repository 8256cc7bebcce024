// SPDX-License-Identifier: MIT
// Lemke's complementary pivoting method (Lemke 1965), as in Cottle, Pang &
// Stone, The Linear Complementarity Problem (1992), §4.4 (Lemke's method,
// the scheme with a covering vector d), with the lexicographic degeneracy
// resolution of §4.9 (also Murty, Linear Complementarity, Linear and
// Nonlinear Programming (1988), ch. 2).
//
// The LCP w = M z + q, 0 <= z _|_ w >= 0 is augmented with an artificial
// variable z0 and the covering vector d = 1:
//
//   I w - M z - d z0 = q,   w, z, z0 >= 0,   w_i z_i = 0.
//
// Start: all w basic (B = I); when q >= 0, z = 0 solves it. Otherwise z0
// enters at the value max_i -q_i, and w_r, r = argmin q_i, leaves. From then
// on the complement of the variable that just left enters (w_i <-> z_i),
// and the minimum-ratio test picks the row that leaves, keeping x_B =
// B^-1 q >= 0. The method ends when z0 leaves (a solution), or when no row
// blocks the entering column (ray termination). For a copositive-plus M
// (positive semidefinite ones among them) a ray proves the LCP has no
// solution, and a P-matrix never ends on one (CPS §4.4); for other
// matrices the LCP may have a solution that the method does not reach.
//
// Degeneracy: ties of the ratio test are broken lexicographically on the
// rows of [x_B, B^-1] divided by the pivot column, which keeps every row of
// [x_B, B^-1] lexicographically positive, so no basis repeats and the method
// ends in finitely many pivots (CPS §4.9). The first pivot makes them
// positive when r is the LARGEST index of the minimal q_i: with B = I, row
// i becomes [q_i - q_r, e_i - e_r], which for a tied q_i starts with +1 at
// i only when i < r. (With the smallest index, the tied rows started with
// -1, and M = [[1, 2, 2], [0, -1, 2], [2, 2, 1]], q = -1, cycled to the
// pivot cap; it is solved in 2 pivots.) A row from which z0 can leave at
// the minimum ratio is always chosen (the method then ends).
//
// Scaling: the method runs on the LCP with rows and columns equilibrated
// (equilibrate below), so that d = 1 is of each row's own size.
//
// Numerics: B^-1 is kept explicitly (dense, row-major, updated by each pivot:
// O(n^2)), and recomputed from the basis columns every max(n, 50) pivots,
// and at the end, by pivoting them into the identity with partial pivoting
// (no second n x n array), so that rounding does not build up along a long
// path. The final x_B gets two steps of iterative refinement against the
// basis columns. Results of cancellation at the level of rounding are made
// exact zeros (ZERO_TOL below): pivoting on rounding would amplify it by
// its inverse.
#include "solvers/lemke.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/chol.h"
#include "util/grow.h"

// A sum (an entry of a pivot column, of x_B or of B^-1 after an update)
// within ZERO_TOL of the magnitude of its terms is rounding, and is set to
// exactly 0; rows of the ratio test tie when the pivot would make them such
// zeros (ties below). On a degenerate problem the lexicographic rule works
// on exact zeros and exact ties, which rounding otherwise breaks at random:
// lcp_tobenna (Siconos; 32 of its 40 q_i are 0, every pivot of the path
// degenerate) cycled to the pivot cap with exact comparisons, ended in an
// infeasible basis without the zeroing, and is solved in 127 pivots with
// both (ZERO_TOL in 1e-13..1e-10, reinverting every 50 pivots or never).
// Entries that survive the zeroing are pivot candidates whatever their size:
// a threshold relative to the column's largest entry (1e-11) skipped a true
// blocking row of deltasigma_mlcp's reduced LCP (|M| 2.5e4), and its w went
// to -1e-4.
#define ZERO_TOL 1e-12
#define REINVERT_MIN 50

struct TsrLemke {
  // The arrays below are carved from two blocks, each grown with
  // tsr_grow_size (util/grow.h): the tableau's (Binv .. cand, for n) and the
  // problem's (M .. loc, for m); X is a third.
  void *tab, *prob;
  size_t cap_tab, cap_prob;
  double *Binv;       // n x n, row-major: row i belongs to the variable basic at position i
  double *x;          // [n] values of the basic variables
  double *a;          // [n] pivot column B^-1 c
  double *r;          // [n] scratch (refinement)
  int *basis;         // [n] variable basic at position i: w_i = i, z_j = n + j, z0 = 2n
  int *pos;           // [2n + 1] position of a variable, -1 when nonbasic
  int *cand;          // [n] rows still tied in the ratio test
  double *M, *q, *z;  // the LCP solved (after eliminating free rows), dense
  double *rs, *cs;    // [m] its row and column scales (equilibrate)
  double *X;          // free rows: A_FF^-1 [A_FC, b_F], column-major nf x (nc + 1)
  int *loc;           // [m] position of a row within F or within C
  size_t cap_X;
  TsrChol *chol;
  int tableau_n;  // n of the LCP the tableau (basis, pos) holds; 0 when z = 0 needed none
  int reinversions;
  char note[256];
};

TsrLemke *tsr_lemke_create(void) { return calloc(1, sizeof(TsrLemke)); }

void tsr_lemke_free(TsrLemke **plk) {
  TsrLemke *lk = plk ? *plk : NULL;
  if (!lk) return;
  free(lk->tab), free(lk->prob), free(lk->X);
  tsr_chol_free(&lk->chol);
  free(lk);
  *plk = NULL;
}

const char *tsr_lemke_note(const TsrLemke *lk) { return lk ? lk->note : "no solve"; }
int tsr_lemke_reinversions(const TsrLemke *lk) { return lk ? lk->reinversions : 0; }

static int reserve_tableau(TsrLemke *lk, int n) {
  const size_t nn = (size_t)n, nd = nn * nn + 3 * nn, ni = 4 * nn + 1;  // doubles, then ints
  if (tsr_grow_size(&lk->tab, &lk->cap_tab, nd * sizeof(double) + ni * sizeof(int), 1)) return -1;
  lk->Binv = lk->tab, lk->x = lk->Binv + nn * nn, lk->a = lk->x + nn, lk->r = lk->a + nn;
  lk->basis = (int *)(lk->r + nn), lk->pos = lk->basis + nn, lk->cand = lk->pos + 2 * nn + 1;
  return 0;
}

// a = B^-1 c_v, c_v the column of variable v in [I, -M, -d], d = 1.
static void ftran(const TsrLemke *lk, int n, const double *M, int v, double *a) {
  const double *Bi = lk->Binv;
  const double zt = ZERO_TOL;
  if (v < n) {
    for (int i = 0; i < n; i++) a[i] = Bi[(size_t)i * (size_t)n + (size_t)v];
  } else if (v < 2 * n) {
    const double *col = M + (size_t)(v - n) * (size_t)n;
    for (int i = 0; i < n; i++) {
      const double *row = Bi + (size_t)i * (size_t)n;
      double s = 0.0, t = 0.0;
      for (int k = 0; k < n; k++) s += row[k] * col[k], t += fabs(row[k] * col[k]);
      a[i] = fabs(s) <= zt * t ? 0.0 : -s;
    }
  } else {
    for (int i = 0; i < n; i++) {
      const double *row = Bi + (size_t)i * (size_t)n;
      double s = 0.0, t = 0.0;
      for (int k = 0; k < n; k++) s += row[k], t += fabs(row[k]);
      a[i] = fabs(s) <= zt * t ? 0.0 : -s;
    }
  }
}

// u - d, or 0 where it is rounding of the two (ZERO_TOL).
static inline double cancel(double u, double d) {
  double v = u - d;
  return fabs(v) <= ZERO_TOL * (fabs(u) + fabs(d)) ? 0.0 : v;
}

// Makes the variable whose column is a basic at position r (a[r] != 0):
// row r of [x, B^-1] divided by a[r], a[i] times it taken from every other row.
static void pivot(TsrLemke *lk, int n, int r, const double *a) {
  size_t nn = (size_t)n;
  double *br = lk->Binv + (size_t)r * nn, inv = 1.0 / a[r];
  for (int k = 0; k < n; k++) br[k] *= inv;
  lk->x[r] *= inv;
  for (int i = 0; i < n; i++) {
    if (i == r || a[i] == 0.0) continue;
    double f = a[i], *bi = lk->Binv + (size_t)i * nn;
    for (int k = 0; k < n; k++) bi[k] = cancel(bi[k], f * br[k]);
    lk->x[i] = cancel(lk->x[i], f * lk->x[r]);
  }
}

static void set_basic(TsrLemke *lk, int r, int v) {
  int old = lk->basis[r];
  if (old >= 0) lk->pos[old] = -1;
  lk->basis[r] = v;
  lk->pos[v] = r;
}

// 1 when row i ties with a ratio t in the minimum-ratio test: when the pivot
// on the row of t leaves u - a t (x_i or an entry of B^-1 row i, a = a_i)
// exactly 0, which cancel() does within ZERO_TOL. The tie and the zeroing
// must be one test: with a separate relative tolerance on the quotients
// (1e-12), z0's row of a scaled PSD LCP lost the tie at 1.9e-12, was not
// chosen, and the pivot then zeroed it: z0 = 0 still basic, and the method
// ended on a ray from a point that solved the LCP.
static int ties(double u, double a, double t) { return u / a <= t || cancel(u, a * t) == 0.0; }

// x_i = (B^-1 q)_i set to exactly 0 when it is within ZERO_TOL of the
// terms it is made of, (|B^-1| |q|)_i: the rounding that pivots leave in a
// value that should be 0. cancel() sees only the two terms of one update, so
// a residue of 1e-12 on values of 1e4 (a degenerate PSD LCP, row-scaled)
// survived as a positive x_i, won later ratio tests at theta ~1e-12 instead
// of the lexicographic rule on exact zeros, and the path ended on a ray with
// z0 = 7e-13 on an LCP with a solution.
static void clear_rounding(TsrLemke *lk, int n, const double *q, int i) {
  double x = lk->x[i];
  if (x == 0.0) return;
  const double *row = lk->Binv + (size_t)i * (size_t)n;
  double t = 0.0;
  for (int k = 0; k < n; k++) t += fabs(row[k] * q[k]);
  if (fabs(x) <= ZERO_TOL * t) lk->x[i] = 0.0;
}

// Minimum-ratio test with lexicographic ties (CPS §4.9): among rows with
// a_i > 0 (rounding already made 0), the smallest x_i / a_i, then the smallest
// Binv_ik / a_i for k = 0, 1, ... among those still tied. z0's row wins any
// tie it is in, and whenever z0 is already 0 (it may leave at ratio 0 on an
// a_i of either sign: the point then solves the LCP). Returns the row, or -1
// when none blocks (ray).
static int ratio_test(TsrLemke *lk, int n, const double *a, const double *q, int z0_row) {
  double theta = INFINITY;
  for (int i = 0; i < n; i++) {
    if (!isfinite(a[i])) return -1;  // (NaN or inf data: no pivot means anything)
    if (a[i] > 0.0 || i == z0_row) clear_rounding(lk, n, q, i);
    if (a[i] > 0.0) theta = fmin(theta, fmax(lk->x[i], 0.0) / a[i]);
  }
  if (lk->x[z0_row] == 0.0 && a[z0_row] != 0.0) return z0_row;
  if (theta == INFINITY) return -1;
  int nc = 0;
  for (int i = 0; i < n; i++)
    if (a[i] > 0.0 && ties(fmax(lk->x[i], 0.0), a[i], theta)) lk->cand[nc++] = i;
  for (int c = 0; c < nc; c++)
    if (lk->cand[c] == z0_row) return z0_row;
  for (int k = 0; k < n && nc > 1; k++) {
    double vmin = INFINITY;
    for (int c = 0; c < nc; c++) {
      int i = lk->cand[c];
      vmin = fmin(vmin, lk->Binv[(size_t)i * (size_t)n + (size_t)k] / a[i]);
    }
    int kept = 0;
    for (int c = 0; c < nc; c++) {
      int i = lk->cand[c];
      if (ties(lk->Binv[(size_t)i * (size_t)n + (size_t)k], a[i], vmin)) lk->cand[kept++] = i;
    }
    nc = kept;
  }
  // Still tied after every column (rounding only: the rows of B^-1 are
  // independent): the largest pivot.
  int best = lk->cand[0];
  for (int c = 1; c < nc; c++)
    if (a[lk->cand[c]] > a[best]) best = lk->cand[c];
  return best;
}

// B^-1 and x_B afresh from the basis: start from B = I, x = q and pivot each
// basic z (and z0) in, on the row, among those whose w is not basic in the
// target basis, with the largest |a_i| (partial pivoting). The rows of B^-1
// follow their variables, so the lexicographic order is unchanged. Returns
// 0, or -1 when the basis is numerically singular.
static int reinvert(TsrLemke *lk, int n, const double *M, const double *q) {
  size_t nn = (size_t)n;
  int *target = lk->cand, nt = 0;  // the basic non-w variables
  for (int i = 0; i < n; i++)
    if (lk->basis[i] >= n) target[nt++] = lk->basis[i];
  // w_i stays basic when pos[w_i] >= 0: remember which before resetting.
  for (int i = 0; i < n; i++) lk->r[i] = lk->pos[i] >= 0 ? 1.0 : 0.0;
  memset(lk->Binv, 0, nn * nn * sizeof(double));
  for (int i = 0; i < n; i++) lk->Binv[(size_t)i * nn + (size_t)i] = 1.0, lk->x[i] = q[i];
  for (int v = 0; v < 2 * n + 1; v++) lk->pos[v] = -1;
  for (int i = 0; i < n; i++) lk->basis[i] = i, lk->pos[i] = i;
  for (int t = 0; t < nt; t++) {
    int v = target[t];
    ftran(lk, n, M, v, lk->a);
    int r = -1;
    for (int i = 0; i < n; i++)
      if (lk->basis[i] < n && lk->r[lk->basis[i]] == 0.0 && (r < 0 || fabs(lk->a[i]) > fabs(lk->a[r]))) r = i;
    if (r < 0 || !(fabs(lk->a[r]) > 0.0) || !isfinite(lk->a[r])) return -1;
    pivot(lk, n, r, lk->a);
    set_basic(lk, r, v);
  }
  lk->reinversions++;
  return 0;
}

// x_B += B^-1 (q - B x_B), twice: the basis columns are e_i (w_i), -M_j
// (z_j), -1 (z0).
static void refine(TsrLemke *lk, int n, const double *M, const double *q) {
  double *res = lk->r, *dx = lk->a;
  for (int it = 0; it < 2; it++) {
    memcpy(res, q, (size_t)n * sizeof *res);
    for (int p = 0; p < n; p++) {
      int v = lk->basis[p];
      double xv = lk->x[p];
      if (v < n) {
        res[v] -= xv;
      } else if (v < 2 * n) {
        const double *col = M + (size_t)(v - n) * (size_t)n;
        for (int k = 0; k < n; k++) res[k] += col[k] * xv;
      } else {
        for (int k = 0; k < n; k++) res[k] += xv;
      }
    }
    for (int i = 0; i < n; i++) {
      const double *row = lk->Binv + (size_t)i * (size_t)n;
      double s = 0.0;
      for (int k = 0; k < n; k++) s += row[k] * res[k];
      dx[i] = s;
    }
    for (int i = 0; i < n; i++) lk->x[i] += dx[i];
  }
}

static void extract_z(const TsrLemke *lk, int n, double *z) {
  for (int j = 0; j < n; j++) {
    int p = lk->pos[n + j];
    z[j] = p >= 0 ? fmax(lk->x[p], 0.0) : 0.0;
  }
}

int tsr_lemke_lcp(int n, const double *M, const double *q, int max_pivots, double *z, int *pivots, TsrLemke *lk) {
  *pivots = 0;
  lk->reinversions = 0;
  lk->tableau_n = 0;
  if (n <= 0) {
    snprintf(lk->note, sizeof lk->note, "empty problem");
    return 0;
  }
  int r = 0;
  for (int i = 1; i < n; i++)
    if (q[i] < q[r]) r = i;
  for (int j = 0; j < n; j++) z[j] = 0.0;
  if (q[r] >= 0.0) {
    snprintf(lk->note, sizeof lk->note, "q >= 0: z = 0 solves it");
    return 0;
  }
  // The last of the q_i that tie with the smallest (the pivot makes their
  // x_i exact zeros): the lexicographic start above.
  for (int i = n - 1; i > r; i--)
    if (cancel(q[i], q[r]) == 0.0) {
      r = i;
      break;
    }
  if (reserve_tableau(lk, n)) {
    snprintf(lk->note, sizeof lk->note, "out of memory for the %d x %d tableau", n, n);
    return -1;
  }
  size_t nn = (size_t)n;
  memset(lk->Binv, 0, nn * nn * sizeof(double));
  for (int i = 0; i < n; i++) lk->Binv[(size_t)i * nn + (size_t)i] = 1.0, lk->x[i] = q[i];
  for (int v = 0; v < 2 * n + 1; v++) lk->pos[v] = -1;
  for (int i = 0; i < n; i++) lk->basis[i] = i, lk->pos[i] = i;
  lk->tableau_n = n;
  const int z0 = 2 * n, reinvert_every = n > REINVERT_MIN ? n : REINVERT_MIN;
  ftran(lk, n, M, z0, lk->a);
  pivot(lk, n, r, lk->a);
  int leaving = lk->basis[r];
  set_basic(lk, r, z0);
  *pivots = 1;
  for (;;) {
    if (*pivots >= max_pivots) {
      extract_z(lk, n, z);
      snprintf(lk->note, sizeof lk->note,
               "pivot cap of %d reached with z0 = %.3e still basic (--max-pivots; z0 of the equilibrated problem)",
               max_pivots, lk->x[lk->pos[z0]]);
      return 1;
    }
    int enter = leaving < n ? leaving + n : leaving - n;  // the complement of what left
    ftran(lk, n, M, enter, lk->a);
    r = ratio_test(lk, n, lk->a, q, lk->pos[z0]);
    if (r < 0 && lk->x[lk->pos[z0]] == 0.0) break;  // (z0 = 0 already: the point solves the LCP)
    if (r < 0) {
      extract_z(lk, n, z);
      snprintf(lk->note, sizeof lk->note,
               "ray termination after %d pivots: nothing blocks the entering %s_%d, with the artificial z0 = "
               "%.3e > 0 (of the equilibrated problem); the LCP may have no solution (certainly none when M is "
               "copositive-plus)",
               *pivots, enter < n ? "w" : "z", enter < n ? enter : enter - n, lk->x[lk->pos[z0]]);
      return 1;
    }
    pivot(lk, n, r, lk->a);
    leaving = lk->basis[r];
    set_basic(lk, r, enter);
    ++*pivots;
    if (leaving == z0) break;
    if (*pivots % reinvert_every == 0 && reinvert(lk, n, M, q)) {
      snprintf(lk->note, sizeof lk->note, "the basis became numerically singular after %d pivots", *pivots);
      return -1;
    }
  }
  if (reinvert(lk, n, M, q)) {
    snprintf(lk->note, sizeof lk->note, "the final basis is numerically singular (%d pivots)", *pivots);
    return -1;
  }
  refine(lk, n, M, q);
  extract_z(lk, n, z);
  snprintf(lk->note, sizeof lk->note, "z0 %s after %d pivots", lk->pos[z0] < 0 ? "left the basis" : "reached 0",
           *pivots);
  return 0;
}

int tsr_lemke_check(const TsrMlcp *p, char *err, size_t errlen) {
  if (p->m > TSR_LEMKE_MAX_N) {
    snprintf(err, errlen,
             "lemke keeps a dense %d x %d tableau, refused above %d rows (%.1f GB there, O(n^2) work per "
             "pivot); use direct-bpp",
             p->m, p->m, TSR_LEMKE_MAX_N, 2.0 * TSR_LEMKE_MAX_N * TSR_LEMKE_MAX_N * 8 / 1e9);
    return -1;
  }
  for (int i = 0; i < p->m; i++) {
    int lcp = p->lo[i] == 0.0 && p->hi[i] == INFINITY, free = p->lo[i] == -INFINITY && p->hi[i] == INFINITY;
    if (!lcp && !free) {
      snprintf(err, errlen,
               "lemke takes LCPs only (every row in [0, +inf), free rows eliminated), and row %d has bounds "
               "[%g, %g]; use direct-bpp or pgs for box bounds",
               i, p->lo[i], p->hi[i]);
      return -1;
    }
  }
  return 0;
}

static int reserve_problem(TsrLemke *lk, int m, int nf, int nc) {
  const size_t mm = (size_t)m, nd = mm * mm + 4 * mm;  // doubles, then m ints
  if (tsr_grow_size(&lk->prob, &lk->cap_prob, nd * sizeof(double) + mm * sizeof(int), 1)) return -1;
  lk->M = lk->prob, lk->q = lk->M + mm * mm, lk->z = lk->q + mm, lk->rs = lk->z + mm, lk->cs = lk->rs + mm;
  lk->loc = (int *)(lk->cs + mm);
  return tsr_grow_size((void **)&lk->X, &lk->cap_X, (size_t)nf * (size_t)(nc + 1), sizeof *lk->X);
}

// The LCP of the complementarity rows C once the free rows F are eliminated:
// A_FF z_F = -(b_F + A_FC z_C) gives z_F = -(X_b + X_C z_C), X = A_FF^-1
// [A_FC, b_F], and then M = A_CC - A_CF X_C, q = b_C - A_CF X_b (the Schur
// complement of A_FF). Without free rows, M = A and q = b. loc[i]: row i's
// position in F or in C. Returns 0, -1 out of memory, -2 A_FF singular.
static int reduce(const TsrMlcp *p, const int *is_free, int nf, int nc, TsrLemke *lk) {
  int m = p->m;
  memset(lk->M, 0, (size_t)nc * (size_t)nc * sizeof(double));
  for (int j = 0; j < m; j++) {
    if (is_free[j]) continue;
    for (int t = p->Ap[j]; t < p->Ap[j + 1]; t++)
      if (!is_free[p->Ai[t]]) lk->M[(size_t)lk->loc[j] * (size_t)nc + (size_t)lk->loc[p->Ai[t]]] = p->Ax[t];
    lk->q[lk->loc[j]] = p->b[j];
  }
  if (nf == 0) return 0;
  int *F = malloc((size_t)nf * sizeof(int)), k = 0;
  if (!F) return -1;
  for (int i = 0; i < m; i++)
    if (is_free[i]) F[k++] = i;
  if (!lk->chol && !(lk->chol = tsr_chol_create())) return free(F), -1;
  if (tsr_chol_set_matrix(m, p->Ap, p->Ai, p->Ax, p->symmetric, lk->chol)) return free(F), -1;
  int rc = tsr_chol_factor(F, nf, lk->chol);
  free(F);
  if (rc == -1) return -1;
  if (rc < 0) return -2;
  double *X = lk->X;
  memset(X, 0, (size_t)nf * (size_t)(nc + 1) * sizeof(double));
  for (int j = 0; j < m; j++) {
    double *xc = is_free[j] ? NULL : X + (size_t)lk->loc[j] * (size_t)nf;
    if (xc)
      for (int t = p->Ap[j]; t < p->Ap[j + 1]; t++)
        if (is_free[p->Ai[t]]) xc[lk->loc[p->Ai[t]]] = p->Ax[t];
    if (is_free[j]) X[(size_t)nc * (size_t)nf + (size_t)lk->loc[j]] = p->b[j];
  }
  if (tsr_chol_solve_many(X, nc + 1, lk->chol)) return -2;
  for (int c = 0; c <= nc; c++)
    if (!isfinite(X[(size_t)c * (size_t)nf])) return -2;  // (a pivot of 0 that LAPACK let through)
  // Column f of A_CF, times row f of X, off each column of M (and of q).
  for (int f = 0; f < m; f++) {
    if (!is_free[f]) continue;
    int lf = lk->loc[f];
    for (int t = p->Ap[f]; t < p->Ap[f + 1]; t++) {
      int i = p->Ai[t];
      if (is_free[i]) continue;
      double aif = p->Ax[t];
      for (int c = 0; c < nc; c++) lk->M[(size_t)c * (size_t)nc + (size_t)lk->loc[i]] -= aif * X[(size_t)c * nf + lf];
      lk->q[lk->loc[i]] -= aif * X[(size_t)nc * (size_t)nf + (size_t)lf];
    }
  }
  return 0;
}

// The final basis solved again on the whole problem: with J the free rows
// and the rows whose z is basic, A_JJ lambda_J = -b_J (one refinement step),
// lambda = 0 elsewhere: the block pivoting solvers' equation for the index
// set Lemke found. The Schur complement's rounding (deltasigma_mlcp, 65 free
// rows: 1.4e-4 against |b| 30 through it) does not reach this solve. Kept
// when its Eq. 29 residual is smaller. Returns the residual of lambda.
static double polish(const TsrMlcp *p, const int *is_free, int nc, TsrLemke *lk, double *lambda, double res) {
  int m = p->m, nj = 0;
  int *J = malloc((size_t)m * sizeof *J);
  double *x = malloc((size_t)m * sizeof *x), *r = malloc((size_t)m * sizeof *r),
         *cand = malloc((size_t)m * sizeof *cand);
  int *loc = malloc((size_t)m * sizeof *loc);
  if (!J || !x || !r || !cand || !loc) goto done;
  for (int i = 0; i < m; i++) {
    loc[i] = -1;
    if (is_free[i] || (lk->tableau_n == nc && lk->pos[nc + lk->loc[i]] >= 0)) loc[i] = nj, J[nj++] = i;
  }
  if (nj == 0) goto done;
  if (!lk->chol && !(lk->chol = tsr_chol_create())) goto done;
  if (tsr_chol_set_matrix(m, p->Ap, p->Ai, p->Ax, p->symmetric, lk->chol) || tsr_chol_factor(J, nj, lk->chol))
    goto done;
  for (int k = 0; k < nj; k++) x[k] = -p->b[J[k]];
  if (tsr_chol_solve(x, x, lk->chol)) goto done;
  // r = -b_J - A_JJ x, then x += A_JJ^-1 r.
  for (int k = 0; k < nj; k++) r[k] = -p->b[J[k]];
  for (int k = 0; k < nj; k++)
    for (int t = p->Ap[J[k]]; t < p->Ap[J[k] + 1]; t++)
      if (loc[p->Ai[t]] >= 0) r[loc[p->Ai[t]]] -= p->Ax[t] * x[k];
  if (tsr_chol_solve(r, r, lk->chol)) goto done;
  for (int i = 0; i < m; i++) cand[i] = 0.0;
  for (int k = 0; k < nj; k++) cand[J[k]] = x[k] + r[k];
  double cres = tsr_mlcp_residual(p, cand, NULL);
  if (cres < res) {
    memcpy(lambda, cand, (size_t)m * sizeof *lambda);
    res = cres;
  }
done:
  free(J), free(x), free(r), free(cand), free(loc);
  return res;
}

// 2^k near 1 / sqrt(x), 1 when x is 0 or not finite.
static double pow2_inv_sqrt(double x) { return x > 0.0 && x <= DBL_MAX ? ldexp(1.0, -ilogb(x) / 2) : 1.0; }

// rmax_i = max_j |M_ij| (M column-major n x n).
static void row_maxima(int n, const double *M, double *rmax) {
  for (int i = 0; i < n; i++) rmax[i] = 0.0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) rmax[i] = fmax(rmax[i], fabs(M[(size_t)j * (size_t)n + (size_t)i]));
}

// Scales the LCP (M column-major n x n, q) in place to M' = R M C, q' = R q,
// R = diag(rs) and C = diag(cs) powers of 2 (exact) that bring the largest
// |M'_ij| of every row and column into [0.5, 4) (Ruiz's iteration in the max
// norm, a few sweeps); a zero row of M is scaled by its |q_i|. z = C z' and
// w = R^-1 w' then solve the LCP when z', w' solve the scaled one (positive
// diagonal scalings keep 0 <= z _|_ w >= 0). Why: the covering vector d = 1
// adds z0 to every row at one size, and a row whose terms are 1e-8 of
// another's lost its q_i in the rounding of q_i + z0: a row-scaled 2 x 2
// P-matrix LCP ended "solved" with w_1 = -4e-6 on a row of scale 4e-6.
// rmax [n] is scratch.
static void equilibrate(int n, double *M, double *q, double *rs, double *cs, double *rmax) {
  for (int i = 0; i < n; i++) rs[i] = 1.0, cs[i] = 1.0;
  for (int sweep = 0, changed = 1; sweep < 20 && changed; sweep++) {
    changed = 0;
    row_maxima(n, M, rmax);
    for (int i = 0; i < n; i++) rmax[i] = pow2_inv_sqrt(rmax[i]), changed |= rmax[i] != 1.0;
    for (int j = 0; j < n; j++) {
      double *col = M + (size_t)j * (size_t)n, cmax = 0.0;
      for (int i = 0; i < n; i++) cmax = fmax(cmax, fabs(col[i]));
      double g = pow2_inv_sqrt(cmax);
      changed |= g != 1.0;
      for (int i = 0; i < n; i++) col[i] *= rmax[i] * g;
      cs[j] *= g;
    }
    for (int i = 0; i < n; i++) rs[i] *= rmax[i];
  }
  row_maxima(n, M, rmax);
  for (int i = 0; i < n; i++) {
    if (rmax[i] == 0.0) rs[i] = pow2_inv_sqrt(q[i] * q[i]);
    q[i] *= rs[i];
  }
}

int tsr_lemke_solve(const TsrMlcp *p, const TsrSolverParams *params, double *lambda, TsrSolveStats *stats,
                    TsrLemke *lk) {
  int m = p->m;
  stats->iterations = 0, stats->converged = 0, stats->factorizations = 0;
  lk->reinversions = 0;
  if (tsr_lemke_check(p, lk->note, sizeof lk->note)) return -2;
  if (m == 0) {  // (nothing is allocated for it, and memset's pointer must not be NULL even for 0 bytes)
    snprintf(lk->note, sizeof lk->note, "empty problem");
    stats->converged = 1, stats->residual = 0.0;
    return 0;
  }
  int *is_free = calloc((size_t)(m > 0 ? m : 1), sizeof *is_free), nf = 0;
  if (!is_free) goto oom;
  for (int i = 0; i < m; i++) is_free[i] = p->lo[i] == -INFINITY;
  for (int i = 0; i < m; i++) nf += is_free[i];
  int nc = m - nf;
  if (reserve_problem(lk, m, nf, nc)) goto oom;
  for (int i = 0, kf = 0, kc = 0; i < m; i++) lk->loc[i] = is_free[i] ? kf++ : kc++;
  int rc = reduce(p, is_free, nf, nc, lk);
  if (rc == -1) goto oom;
  if (rc == -2) {
    snprintf(lk->note, sizeof lk->note,
             "the block A_FF of the %d free rows is singular, so they cannot be eliminated: lemke takes LCPs "
             "(every row in [0, +inf)) and MLCPs whose free block is invertible only",
             nf);
    free(is_free);
    return -2;
  }
  stats->factorizations = nf > 0;
  int pivots = 0, cap = params->max_pivots > 0 ? params->max_pivots : TSR_LEMKE_PIVOTS(nc);
  equilibrate(nc, lk->M, lk->q, lk->rs, lk->cs, lk->z);
  rc = tsr_lemke_lcp(nc, lk->M, lk->q, cap, lk->z, &pivots, lk);
  for (int j = 0; j < nc; j++) lk->z[j] *= lk->cs[j];
  stats->iterations = pivots;
  stats->factorizations += lk->reinversions;
  for (int i = 0; i < m; i++) lambda[i] = is_free[i] ? 0.0 : lk->z[lk->loc[i]];
  if (nf > 0 && rc >= 0) {
    // z_F = -(X_b + X_C z_C).
    const double *X = lk->X;
    for (int i = 0; i < m; i++) {
      if (!is_free[i]) continue;
      int lf = lk->loc[i];
      double s = X[(size_t)nc * (size_t)nf + (size_t)lf];
      for (int c = 0; c < nc; c++) s += X[(size_t)c * (size_t)nf + (size_t)lf] * lk->z[c];
      lambda[i] = -s;
    }
  }
  stats->converged = rc == 0;
  stats->residual = tsr_mlcp_residual(p, lambda, NULL);
  if (rc == 0 && nc > 0) stats->residual = polish(p, is_free, nc, lk, lambda, stats->residual);
  free(is_free);
  return rc;
oom:
  free(is_free);
  snprintf(lk->note, sizeof lk->note, "out of memory (%d rows)", m);
  return -1;
}
