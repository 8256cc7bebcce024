// SPDX-License-Identifier: MIT
// The MLCP of one step (seed 000 Eqs. 5, 8, 12, 29):
//
//   A = J M^-1 J^T + C,   b = J v_free + rhs,   v_free = v + h M^-1 f,
//   w = A lambda + b,     lo <= lambda <= hi,
//
// where rhs = phi/h - w0 per row (so b = d + J M^-1 p with p = M v + h f).
// M^-1 is block diagonal, body k contributing blockdiag(inv_mass_k I3,
// I_k^-1 (world)), so A_ij = sum over the bodies k shared by rows i and j of
// J_ik M_k^-1 J_jk^T. A is assembled column by column from per-body row lists:
// the work is sum_k d_k^2 (d_k = rows touching body k), never O(m^2).
#include "mlcp/mlcp.h"
#include "util/grow.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------- row sets

void tsr_rowset_clear(TsrRowSet *s) { s->count = 0; }

TsrRow *tsr_rowset_push(TsrRowSet *s) {
  if (s->count == s->cap) {
    int n = s->cap ? 2 * s->cap : 64;
    TsrRow *r = realloc(s->rows, (size_t)n * sizeof *r);
    if (!r) return NULL;
    s->rows = r;
    s->cap = n;
  }
  TsrRow *r = &s->rows[s->count++];
  memset(r, 0, sizeof *r);
  r->body[0] = r->body[1] = -1;
  return r;
}

void tsr_rowset_free(TsrRowSet *s) {
  free(s->rows);
  memset(s, 0, sizeof *s);
}

// ---------------------------------------------------------------- problem

typedef struct {
  int *head;  // [n_bodies + 1] start of each body's entries in list
  int *list;  // row * 2 + side, increasing row within a body
  double *W;  // [12 * m]: M_k^-1 J_ik^T for side 0 then side 1 of each row
  int *next;  // [m] symmetrisation cursor
  int cap_bodies, cap_list, cap_rows, cap_next;
} TsrAssemblyWork;

void tsr_mlcp_init(TsrMlcp *p) { memset(p, 0, sizeof *p); }

void tsr_mlcp_free(TsrMlcp *p) {
  free(p->Ap);
  free(p->Ai);
  free(p->Ax);
  free(p->b);
  free(p->lo);
  free(p->hi);
  TsrAssemblyWork *w = p->work;
  if (w) {
    free(w->head);
    free(w->list);
    free(w->W);
    free(w->next);
    free(w);
  }
  memset(p, 0, sizeof *p);
}

int tsr_mlcp_reserve(TsrMlcp *p, int m, int nnz) {
  if (m < 0 || nnz < 0) return -1;
  if (m > p->cap_m || !p->Ap) {
    int n = m + m / 4 + 8;
    int *ap = realloc(p->Ap, (size_t)(n + 1) * sizeof *ap);
    if (!ap) return -1;
    p->Ap = ap;
    double **v[] = {&p->b, &p->lo, &p->hi};
    for (int k = 0; k < 3; k++) {
      double *d = realloc(*v[k], (size_t)n * sizeof *d);
      if (!d) return -1;
      *v[k] = d;
    }
    p->cap_m = n;
  }
  if (nnz > p->cap_nnz || !p->Ai) {
    int n = nnz + nnz / 4 + 16;
    int *ai = realloc(p->Ai, (size_t)n * sizeof *ai);
    if (!ai) return -1;
    p->Ai = ai;
    double *ax = realloc(p->Ax, (size_t)n * sizeof *ax);
    if (!ax) return -1;
    p->Ax = ax;
    p->cap_nnz = n;
  }
  p->m = m;
  return 0;
}

static inline double dot6(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

// Copies the upper triangle onto the lower so that A == A^T bit for bit (the
// two triangles are computed with different summation orders otherwise).
// Requires a structurally symmetric pattern with sorted columns.
static void symmetrise(TsrMlcp *p, int *next) {
  int m = p->m;
  for (int j = 0; j < m; j++) {
    int q = p->Ap[j];
    while (q < p->Ap[j + 1] && p->Ai[q] <= j) q++;
    next[j] = q;  // first entry below the diagonal
  }
  for (int j = 0; j < m; j++)
    for (int q = p->Ap[j]; q < p->Ap[j + 1] && p->Ai[q] < j; q++) {
      int i = p->Ai[q];  // entry (i, j), i < j; its mirror (j, i) is the next below-diagonal entry of column i
      p->Ax[next[i]++] = p->Ax[q];
    }
}

int tsr_mlcp_assemble(const TsrRowSet *rows, int n_bodies, const double *inv_mass, const double *inv_inertia,
                      const double *v_free, TsrMlcp *out) {
  int m = rows->count;
  if (!out->work && !(out->work = calloc(1, sizeof(TsrAssemblyWork)))) return -1;
  TsrAssemblyWork *w = out->work;
  if (tsr_grow((void **)&w->head, &w->cap_bodies, n_bodies + 2, sizeof(int))) return -1;
  if (tsr_grow((void **)&w->W, &w->cap_rows, 12 * m + 1, sizeof(double))) return -1;
  if (tsr_grow((void **)&w->next, &w->cap_next, m + 1, sizeof(int))) return -1;

  // Per-body lists of (row, side): counting sort keeps rows increasing.
  int *head = w->head;
  memset(head, 0, (size_t)(n_bodies + 2) * sizeof *head);
  const TsrRow *R = rows->rows;
#define TSR_MOVING(k) ((k) >= 0 && (k) < n_bodies && inv_mass[(k)] > 0.0)
  int n_entries = 0;
  for (int i = 0; i < m; i++)
    for (int s = 0; s < 2; s++)
      if (TSR_MOVING(R[i].body[s])) {
        head[R[i].body[s] + 2]++;
        n_entries++;
      }
  for (int k = 0; k < n_bodies; k++) head[k + 2] += head[k + 1];
  if (tsr_grow((void **)&w->list, &w->cap_list, n_entries + 1, sizeof(int))) return -1;
  for (int i = 0; i < m; i++)
    for (int s = 0; s < 2; s++)
      if (TSR_MOVING(R[i].body[s])) w->list[head[R[i].body[s] + 1]++] = 2 * i + s;
  // head[k] is now the start of body k, head[k + 1] its end.

  // W_is = M_k^-1 J_is^T, and the bound on nnz.
  long long nnz_bound = 0;
  for (int i = 0; i < m; i++) {
    nnz_bound += 1;
    for (int s = 0; s < 2; s++) {
      double *Wis = &w->W[12 * i + 6 * s];
      int k = R[i].body[s];
      if (!TSR_MOVING(k)) {
        memset(Wis, 0, 6 * sizeof *Wis);
        continue;
      }
      const double *J = R[i].J[s], *I = &inv_inertia[9 * k];
      for (int a = 0; a < 3; a++) Wis[a] = inv_mass[k] * J[a];
      for (int a = 0; a < 3; a++) Wis[3 + a] = I[3 * a] * J[3] + I[3 * a + 1] * J[4] + I[3 * a + 2] * J[5];
      if (s == 1 && R[i].body[1] == R[i].body[0]) continue;  // same list, counted once
      nnz_bound += head[k + 1] - head[k];
    }
  }
  if (nnz_bound > 2000000000LL) return -1;
  if (tsr_mlcp_reserve(out, m, (int)nnz_bound)) return -1;

  int nz = 0;
  for (int j = 0; j < m; j++) {
    out->Ap[j] = nz;
    int b0 = R[j].body[0], b1 = R[j].body[1];
    double Wj[2][6];
    memcpy(Wj, &w->W[12 * j], sizeof Wj);
    const int *La = NULL, *Lb = NULL;
    int na = 0, nb = 0;
    if (TSR_MOVING(b0)) {
      La = &w->list[head[b0]];
      na = head[b0 + 1] - head[b0];
    }
    if (TSR_MOVING(b1)) {
      if (b1 == b0) {
        for (int a = 0; a < 6; a++) Wj[0][a] += Wj[1][a];  // one body on both sides
      } else {
        Lb = &w->list[head[b1]];
        nb = head[b1 + 1] - head[b1];
      }
    }
    int pa = 0, pb = 0, diag = 0;
    // Merge the two sorted lists and the diagonal, summing equal rows.
    for (;;) {
      int ra = pa < na ? La[pa] >> 1 : m, rb = pb < nb ? Lb[pb] >> 1 : m, rd = diag ? m : j;
      int r = ra < rb ? ra : rb;
      if (rd < r) r = rd;
      if (r == m) break;
      // Entries below the diagonal (r > j) are overwritten by symmetrise()
      // with their mirrors; only their positions are needed here.
      double v;
      if (r == ra) {
        int e = La[pa++];
        v = r > j ? 0.0 : dot6(R[e >> 1].J[e & 1], Wj[0]);
      } else if (r == rb) {
        int e = Lb[pb++];
        v = r > j ? 0.0 : dot6(R[e >> 1].J[e & 1], Wj[1]);
      } else {
        diag = 1;
        v = R[j].compliance;
      }
      if (nz > out->Ap[j] && out->Ai[nz - 1] == r) {
        out->Ax[nz - 1] += v;
      } else {
        out->Ai[nz] = r;
        out->Ax[nz] = v;
        nz++;
      }
    }
  }
  out->Ap[m] = nz;
#undef TSR_MOVING
  symmetrise(out, w->next);
  out->symmetric = 1;

  for (int i = 0; i < m; i++) {
    double bi = R[i].rhs;
    for (int s = 0; s < 2; s++) {
      int k = R[i].body[s];
      if (k >= 0 && k < n_bodies) bi += dot6(R[i].J[s], &v_free[6 * k]);  // kinematic bodies move too
    }
    out->b[i] = bi;
    out->lo[i] = R[i].lo;
    out->hi[i] = R[i].hi;
  }
  return 0;
}

int tsr_mlcp_from_dense(int m, const double *A, const double *b, const double *lo, const double *hi, TsrMlcp *out) {
  int nnz = 0;
  for (long long k = 0; k < (long long)m * m; k++) nnz += A[k] != 0.0;
  if (tsr_mlcp_reserve(out, m, nnz + m)) return -1;
  int nz = 0, sym = 1;
  for (int j = 0; j < m; j++) {
    out->Ap[j] = nz;
    for (int i = 0; i < m; i++) {
      double a = A[(size_t)i * m + j];
      if (a != A[(size_t)j * m + i]) sym = 0;
      if (a != 0.0 || i == j) {
        out->Ai[nz] = i;
        out->Ax[nz++] = a;
      }
    }
  }
  out->Ap[m] = nz;
  out->symmetric = sym;
  for (int i = 0; i < m; i++) {
    out->b[i] = b ? b[i] : 0.0;
    out->lo[i] = lo ? lo[i] : 0.0;
    out->hi[i] = hi ? hi[i] : INFINITY;
  }
  return 0;
}

void tsr_mlcp_matvec(const TsrMlcp *p, const double *x, double *y) {
  if (p->m <= 0) return;  // y may be NULL then (memset of NULL is undefined even for 0 bytes)
  memset(y, 0, (size_t)p->m * sizeof *y);
  for (int j = 0; j < p->m; j++)
    if (x[j] != 0.0) tsr_mlcp_add_column(p, j, x[j], y);
}

double tsr_mlcp_relative_residual(const TsrMlcp *p, const double *lambda, const double *w, double *sigma, double *rho) {
  int m = p->m;
  double linf = 0.0, amax = 0.0, mx = 0.0;
  for (int i = 0; i < m; i++) linf = tsr_fmax(linf, fabs(lambda[i]));
  for (int q = 0; q < (m > 0 ? p->Ap[m] : 0); q++) amax = tsr_fmax(amax, fabs(p->Ax[q]));
  double delta = TSR_MLCP_ROW_NOISE * linf;
  for (int i = 0; i < m; i++) sigma[i] = fabs(p->b[i]);
  for (int j = 0; j < m; j++) {
    double a = fabs(lambda[j]) + delta;
    if (a == 0.0) continue;
    for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) sigma[p->Ai[q]] += fabs(p->Ax[q]) * a;
  }
  for (int i = 0; i < m; i++) {
    double r = tsr_mlcp_row_residual_slack(lambda[i], w[i], p->lo[i], p->hi[i], tsr_mlcp_diag(p, i), amax);
    double ri = r > 0.0 ? r / tsr_fmax(sigma[i], DBL_MIN) : 0.0;
    if (rho) rho[i] = ri;
    if (!(ri <= mx)) mx = ri;  // NaN propagates
  }
  return mx;
}

double tsr_mlcp_relative_residual_of(const TsrMlcp *p, const double *lambda, double *w, double *sigma) {
  tsr_mlcp_slack(p, lambda, w);
  return tsr_mlcp_relative_residual(p, lambda, w, sigma, NULL);
}

int tsr_mlcp_holds_at_data(const TsrMlcp *p, const double *lambda, double tol, double *w, double *t) {
  int m = p->m;
  tsr_mlcp_slack(p, lambda, w);
  // s: the data's scale. The tight impulses are data (their bounds).
  for (int i = 0; i < m; i++) t[i] = fabs(p->b[i]);
  for (int j = 0; j < m; j++) {
    double l = lambda[j];
    if (l == 0.0 || !((l == p->lo[j] || l == p->hi[j]) && isfinite(l))) continue;
    for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) t[p->Ai[q]] += fabs(p->Ax[q] * l);
  }
  double s = 0.0;
  for (int i = 0; i < m; i++) {
    if (!(t[i] <= DBL_MAX)) return 0;  // infinite or NaN data
    s = tsr_fmax(s, t[i]);
  }
  // t_i = (|A| |lambda|)_i: the terms w_i is summed from, for its rounding.
  if (!(tsr_mlcp_abs_matvec(p, lambda, t) <= DBL_MAX)) return 0;  // an impulse of inf or NaN
  for (int i = 0; i < m; i++) {
    if (w[i] != w[i]) return 0;
    double r = tsr_mlcp_row_residual(lambda[i], w[i], p->lo[i], p->hi[i]);
    if (!(r <= tol * s + fmin(TSR_MLCP_ROUNDING * DBL_EPSILON * t[i], TSR_MLCP_ROUNDING_CAP * s))) return 0;
  }
  return 1;
}

double tsr_mlcp_abs_matvec(const TsrMlcp *p, const double *lambda, double *t) {
  int m = p->m;
  for (int i = 0; i < m; i++) t[i] = 0.0;
  for (int j = 0; j < m; j++) {
    double l = fabs(lambda[j]);
    if (!(l <= DBL_MAX)) return INFINITY;
    if (l == 0.0) continue;
    for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) t[p->Ai[q]] += fabs(p->Ax[q]) * l;
  }
  double mx = 0.0;
  for (int i = 0; i < m; i++) mx = tsr_fmax(mx, t[i]);
  return mx;
}

void tsr_mlcp_slack(const TsrMlcp *p, const double *lambda, double *w) {
  tsr_mlcp_matvec(p, lambda, w);
  for (int i = 0; i < p->m; i++) w[i] += p->b[i];
}

double tsr_mlcp_residual(const TsrMlcp *p, const double *lambda, double *r) {
  double *w = malloc((size_t)(p->m > 0 ? p->m : 1) * sizeof *w);
  if (!w) return NAN;
  double res = tsr_mlcp_residual_ws(p, lambda, w, r);
  free(w);
  return res;
}

double tsr_mlcp_residual_ws(const TsrMlcp *p, const double *lambda, double *w, double *r) {
  int m = p->m;
  tsr_mlcp_slack(p, lambda, w);
  // Scaled 2-norm (no overflow for huge residuals); infinite when a row is
  // (inf / inf would make it NaN).
  double scale = 0.0, ssq = 1.0;
  int infinite = 0;
  for (int i = 0; i < m; i++) {
    // an impulse of inf, or a NaN slack, is no solution (row_residual says 0)
    double ri = !(lambda[i] - lambda[i] == 0.0) || w[i] != w[i]
                    ? INFINITY
                    : tsr_mlcp_row_residual(lambda[i], w[i], p->lo[i], p->hi[i]);
    if (r) r[i] = ri;
    if (!(ri <= DBL_MAX)) {
      infinite = 1;
    } else if (ri != 0.0) {
      double a = fabs(ri);
      if (scale < a) {
        ssq = 1.0 + ssq * (scale / a) * (scale / a);
        scale = a;
      } else {
        ssq += (a / scale) * (a / scale);
      }
    }
  }
  return infinite ? INFINITY : scale * sqrt(ssq);
}

void tsr_mlcp_index_set(const TsrMlcp *p, const double *lambda, double eta, int8_t *index_set) {
  // Tolerance eta * max(|bound|, s_i): relative to the bound, or to the size
  // of the impulses on the same bodies when the bound is 0 (impulses may be
  // 1e-6 N s). Column i holds the rows coupled to row i (A's pattern is
  // symmetric for multibody A; otherwise the rows row i's impulse acts on).
  for (int i = 0; i < p->m; i++) {
    double scale = fabs(lambda[i]);
    for (int q = p->Ap[i]; q < p->Ap[i + 1]; q++) scale = tsr_fmax(scale, fabs(lambda[p->Ai[q]]));
    double lo = p->lo[i], hi = p->hi[i], l = lambda[i];
    int8_t s = TSR_INDEX_FREE;
    if (lo == hi)
      s = TSR_INDEX_LOWER;
    else if (isfinite(lo) && l - lo <= eta * tsr_fmax(fabs(lo), scale))
      s = TSR_INDEX_LOWER;
    else if (isfinite(hi) && hi - l <= eta * tsr_fmax(fabs(hi), scale))
      s = TSR_INDEX_UPPER;
    index_set[i] = s;
  }
}

double tsr_mlcp_free_residual(const TsrMlcp *p, const int *F, int nf, const int *loc, const double *x,
                              const double *rhs, double *r, double *scale) {
  for (int k = 0; k < nf; k++) r[k] = rhs[k], scale[k] = fabs(rhs[k]);
  for (int c = 0; c < nf; c++) {
    double xc = x[c];
    if (p->dense) {
      const double *col = p->dense + (size_t)F[c] * (size_t)p->m;
      for (int k = 0; k < nf; k++) {
        double v = col[F[k]] * xc;
        r[k] -= v, scale[k] += fabs(v);
      }
      continue;
    }
    for (int q = p->Ap[F[c]], end = p->Ap[F[c] + 1]; q < end; q++) {
      int k = loc[p->Ai[q]];
      if (k < 0) continue;
      double v = p->Ax[q] * xc;
      r[k] -= v, scale[k] += fabs(v);
    }
  }
  double berr = 0.0;
  for (int k = 0; k < nf; k++) {
    double e = r[k] == 0.0 ? 0.0 : fabs(r[k]) / scale[k];  // r_k != 0 implies scale_k > 0
    if (!(e <= berr)) berr = e;                            // NaN propagates
  }
  return berr;
}
