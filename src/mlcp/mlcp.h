// SPDX-License-Identifier: MIT
// The mixed linear complementarity problem of one step (seed 000 Eq. 8):
//
//   w = A lambda + b,   lo <= lambda <= hi,
//   w >= 0 where lambda = lo, w = 0 where lo < lambda < hi, w <= 0 where lambda = hi   (Eq. 12)
//
// with A = J M^-1 J^T + C (Eq. 5) and b = J M^-1 p + phi/h - w0, p = M v + h f.
// Rows come from joints and contacts as TsrRow: two 1x6 Jacobian blocks each.
#ifndef TSR_MLCP_H
#define TSR_MLCP_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "math/tsr_math.h"

// Row types, as stored in /constraints/type (OUTPUT.md).
enum {
  TSR_ROW_JOINT = 0,
  TSR_ROW_CONTACT_NORMAL = 1,
  TSR_ROW_CONTACT_FRICTION = 2,
  TSR_ROW_LIMIT = 3,
  TSR_ROW_MOTOR = 4,
};

// Index set of a row (Eq. 12): free, at lower bound, at upper bound.
enum { TSR_INDEX_FREE = 0, TSR_INDEX_LOWER = -1, TSR_INDEX_UPPER = 1 };

typedef struct {
  int body[2];        // body indices; -1 for the world or a fixed body's side that does not move
  double J[2][6];     // d(row velocity)/d(v_body): linear xyz then angular xyz, world frame
  double compliance;  // diagonal entry of C (already in impulse units, see joints/spook.h)
  double rhs;         // phi/h - w0: everything in b except J M^-1 p
  double lo, hi;      // bounds on lambda (-INFINITY / INFINITY for bilateral)
  int8_t type;        // TSR_ROW_*
  int source;         // joint index or contact index
  double violation;   // position-level violation of this row (m or rad), for /stats/joint_error
  double arm[2][3];   // point rows (force through a point): that point minus each body's centre,
                      // world; zero for angular rows. Used for geometric stiffness (sim/world.c).
} TsrRow;

// A growable array of rows (one per step, reused).
typedef struct {
  int count, cap;
  TsrRow *rows;
} TsrRowSet;

void tsr_rowset_clear(TsrRowSet *s);
TsrRow *tsr_rowset_push(TsrRowSet *s);  // zero-initialised row with body = {-1, -1}
void tsr_rowset_free(TsrRowSet *s);

// A in compressed sparse column form with both triangles stored, row indices
// sorted within each column. For the symmetric problems of the simulator,
// column j is also row j. Problems read from files may be nonsymmetric
// (`symmetric` = 0).
typedef struct {
  int m;            // number of rows and columns
  int *Ap;          // [m+1]
  int *Ai;          // [nnz]
  double *Ax;       // [nnz]
  double *b;        // [m]
  double *lo, *hi;  // [m]
  int symmetric;    // 1 when A = A^T (exactly, by construction)
  // Optional: A as a dense column-major m x m array (leading dimension m),
  // the same values as the CSC arrays, or NULL. Set by the owner of a dense
  // problem (S_Gamma of a pile, solvers/schur.c) and not owned here; the
  // loops over A's columns then read it: the same sums in the same order,
  // without the index loads (solvers/bpp.c, solvers/pn.c, linalg/chol.c).
  const double *dense;
  int cap_nnz, cap_m;  // allocated sizes (the struct is reused step to step)
  void *work;          // scratch of tsr_mlcp_assemble, owned (freed by tsr_mlcp_free)
} TsrMlcp;

void tsr_mlcp_init(TsrMlcp *p);
void tsr_mlcp_free(TsrMlcp *p);
// Ensures room for m rows and nnz entries; keeps nothing.
int tsr_mlcp_reserve(TsrMlcp *p, int m, int nnz);

// Assembles A = J M^-1 J^T + C and b = J v_free + rhs from rows, body-wise
// (never forming a dense matrix). inv_mass[k] and inv_inertia[9k..9k+8]
// (world frame, row-major) describe body k; a fixed body has zeros there.
// v_free is the velocity the bodies would have without constraints,
// v + h M^-1 f, six numbers per body (linear, angular).
int tsr_mlcp_assemble(const TsrRowSet *rows, int n_bodies, const double *inv_mass, const double *inv_inertia,
                      const double *v_free, TsrMlcp *out);

// |b|_inf (fmax: a NaN entry is skipped).
static inline double tsr_mlcp_b_inf(const TsrMlcp *p) {
  double bmax = 0.0;
  for (int i = 0; i < p->m; i++) bmax = tsr_fmax(bmax, fabs(p->b[i]));
  return bmax;
}

// max |A_ij| (0 for a zero A; fmax: a NaN entry is skipped).
static inline double tsr_mlcp_a_max(const TsrMlcp *p) {
  double amax = 0.0;
  for (int q = 0; q < (p->m > 0 ? p->Ap[p->m] : 0); q++) amax = tsr_fmax(amax, fabs(p->Ax[q]));
  return amax;
}

// w = A lambda + b.
void tsr_mlcp_slack(const TsrMlcp *p, const double *lambda, double *w);

// Natural residual of Eq. 29, per row into r (may be NULL), and its 2-norm.
// For row i with w_l = max(w_i, 0), w_u = max(-w_i, 0):
//   r_i = max(|min(lambda_i - lo_i, w_l)|, |min(hi_i - lambda_i, w_u)|).
double tsr_mlcp_residual(const TsrMlcp *p, const double *lambda, double *r);

// Eq. 29 for one row with slack w (infinite bounds: a bilateral row gets |w|).
// A lambda that is not finite, or a NaN w, gives 0 here (every comparison
// fails): the whole-problem measures (tsr_mlcp_residual_ws,
// tsr_mlcp_holds_at_data) make such rows infinite. Not here: the test cost
// schur-bpp 5% on chain_drop's pile-up, where block pivoting calls this for
// every row at every pivot.
static inline double tsr_mlcp_row_residual(double lambda, double w, double lo, double hi) {
  double wl = w > 0.0 ? w : 0.0, wu = w < 0.0 ? -w : 0.0;
  double a = lambda - lo < wl ? lambda - lo : wl, b = hi - lambda < wu ? hi - lambda : wu;
  a = a < 0.0 ? -a : a, b = b < 0.0 ? -b : b;
  return a > b ? a : b;
}
// As tsr_mlcp_residual without allocating: w [m] receives the slack A lambda + b.
double tsr_mlcp_residual_ws(const TsrMlcp *p, const double *lambda, double *w, double *r);

// Classifies each row as free / at lower / at upper bound (Eq. 12) with
// tolerance eta relative to the bound's magnitude: tight when within
// eta * max(|bound|, s_i) of it, s_i the largest |lambda_j| of the rows that
// share a body with row i (A_ji != 0, row i included): the second term keeps
// the test scale-free for zero bounds. With the largest impulse of the whole
// system there, a 10 g box resting beside a 2 t one (anywhere in the scene)
// had its loaded contacts (4e-4 N s each) written as at their lower bound.
// Rows with lo == hi are at lower.
void tsr_mlcp_index_set(const TsrMlcp *p, const double *lambda, double eta, int8_t *index_set);

// Reads one problem in the Siconos numerics text format (LCP, MLCP or Relay
// file types; see src/mlcp/siconos_io.c for what is read). Returns 0 on
// success, or -1 with a message in err (size errlen).
int tsr_mlcp_read_siconos(const char *path, TsrMlcp *out, char *err, size_t errlen);

// Writes p as a Siconos box-LCP ("Relay": n, M in storage 2 (a CSparse CSC
// text dump), q, lb, ub; infinite bounds as inf / -inf) that
// tsr_mlcp_read_siconos reads back exactly (values with 17 digits; a file
// whose name starts with "relay" is read as that kind). Returns 0, or -1
// when a write failed (ferror).
int tsr_mlcp_write_relay(const TsrMlcp *p, FILE *f);

// Problem kinds of the Siconos reader. AUTO picks one from the path: a folder
// named LCP, MLCP or Relay, or a name ending in `_mlcp.dat` / starting `lcp_`.
enum { TSR_SICONOS_AUTO = 0, TSR_SICONOS_LCP, TSR_SICONOS_MLCP, TSR_SICONOS_RELAY };
// As tsr_mlcp_read_siconos with the kind given (TSR_SICONOS_*). On success
// err may hold a warning (an LCP followed by what reads as a relay file's
// bounds: siconos_io.c), else it is empty.
int tsr_mlcp_read_siconos_as(const char *path, int kind, TsrMlcp *out, char *err, size_t errlen);
// Kind tsr_mlcp_read_siconos would use for `path` (TSR_SICONOS_AUTO when unknown).
int tsr_mlcp_siconos_kind(const char *path);

// Builds p from a dense m x m matrix A (ROW-major), dropping exact zeros off
// the diagonal; b, lo, hi are copied (lo/hi NULL: [0, inf)). symmetric is set
// when A == A^T exactly. Returns 0 or -1 (allocation).
int tsr_mlcp_from_dense(int m, const double *A, const double *b, const double *lo, const double *hi, TsrMlcp *out);

// y = A x (any A, column-oriented product).
void tsr_mlcp_matvec(const TsrMlcp *p, const double *x, double *y);

// Eq. 29 row by row, each relative to the row's own scale; returns the
// largest, rho (may be NULL) receives each row's. w = A lambda + b must be
// given (tsr_mlcp_residual_ws leaves it); sigma [m] is scratch. For row i,
//   rho_i = r_i / sigma_i,
//   r_i: Eq. 29 in slack units (its distances to the bounds times A_ii, or
//        times max|A_ij| where A_ii is not positive),
//   sigma_i = |b_i| + sum_j |A_ij| (|lambda_j| + TSR_MLCP_ROW_NOISE ||lambda||_inf):
// the magnitude of the terms that make up w_i, plus the rounding of the
// impulses it couples to (a row whose terms all vanish still carries it).
// A global scale such as ||b||_inf hides rows whose terms are many orders
// below the largest row's (a light body beside a 75 t crane). At round-off
// rho is ~1e-16 whatever the units; over the example scenes, at most
// 2.7e-15 on well-solved steps, against 1e-7..1e-5 where a row was wrong.
#define TSR_MLCP_ROW_NOISE 1e-10
double tsr_mlcp_relative_residual(const TsrMlcp *p, const double *lambda, const double *w, double *sigma, double *rho);

// 1 when lambda solves the MLCP at the scale of its data: every row's Eq. 29
// residual
//   r_i <= tol s + min(TSR_MLCP_ROUNDING eps (|A| |lambda|)_i, TSR_MLCP_ROUNDING_CAP s),
//   s = max_i (|b_i| + sum_{j at a finite bound} |A_ij lambda_j|),
// s the right-hand side of the free rows' equations A_FF lambda_F = -(b_F +
// A_FT lambda_T) and of the tight rows' slacks, and the second term the
// rounding of w_i = sum_j A_ij lambda_j + b_i itself while it stays below a
// thousandth of s. Unlike the row scales above, s leaves out the free
// impulses, so it sees an iterate that ran off along a direction A does not
// feel (A d = 0 with b outside A's range: no solution exists), where every
// row is small beside |A||lambda| but wrong by a large part of b; the cap
// keeps the rounding term from excusing that once |lambda| reaches 1e15
// (3,000 random small MLCPs: 6 such claims with the cap, 187 without it).
// A nonsingular A with cond 1e12 passes (rounding 1e-4 of s), 1e13 does
// not (2e-3). 0 as well for infinite or NaN data or impulses. w [m]
// receives A lambda + b; t [m] is scratch.
#define TSR_MLCP_ROUNDING 16.0
#define TSR_MLCP_ROUNDING_CAP 1e-3
int tsr_mlcp_holds_at_data(const TsrMlcp *p, const double *lambda, double tol, double *w, double *t);

// t = |A| |lambda| (t [m]); returns its largest entry, or INFINITY for an
// infinite or NaN impulse.
double tsr_mlcp_abs_matvec(const TsrMlcp *p, const double *lambda, double *t);

// The same for lambda alone: w [m] receives A lambda + b first.
double tsr_mlcp_relative_residual_of(const TsrMlcp *p, const double *lambda, double *w, double *sigma);

// Row i's sigma_i of tsr_mlcp_relative_residual from column i (= row i: A
// symmetric), with delta = TSR_MLCP_ROW_NOISE ||lambda||_inf; *w (may be
// NULL) receives w_i = b_i + sum_j A_ij lambda_j from the same pass. For a
// few rows, where the whole-matrix pass would cost more.
static inline double tsr_mlcp_row_scale(const TsrMlcp *p, int i, const double *lambda, double delta, double *w) {
  double s = fabs(p->b[i]), wi = p->b[i];
  for (int q = p->Ap[i]; q < p->Ap[i + 1]; q++) {
    double l = lambda[p->Ai[q]];
    wi += p->Ax[q] * l;
    s += fabs(p->Ax[q]) * (fabs(l) + delta);
  }
  if (w) *w = wi;
  return s;
}

// Eq. 29 for one row in slack units, as tsr_mlcp_relative_residual measures
// it: the distances to the bounds times A_ii, or times amax (max|A_ij|) where
// A_ii is not positive.
static inline double tsr_mlcp_row_residual_slack(double lambda, double w, double lo, double hi, double aii,
                                                 double amax) {
  double d = aii > 0.0 ? aii : amax;
  return tsr_mlcp_row_residual(d * lambda, w, d * lo, d * hi);
}

// Residual of a solve on the free set F (the linear algebra of Eqs. 27-28):
// r = rhs - A_FF x over positions 0..nf of F, loc[row] = position in F or -1
// (sized m), from p->dense when there is one. Returns the componentwise
// backward error of x (Oettli-Prager), max_k |r_k| / (|rhs_k| + sum_j
// |A_FF,kj| |x_j|), the smallest relative change of A_FF and rhs, entry by
// entry, that makes x exact; scale [nf] is scratch.
double tsr_mlcp_free_residual(const TsrMlcp *p, const int *F, int nf, const int *loc, const double *x,
                              const double *rhs, double *r, double *scale);

// Iterative refinement of a free-set solve stops when the componentwise
// backward error is at this level: x is then the exact solution of a system
// within a few units of round-off of A_FF and rhs in every entry, and a
// refinement step (in working precision, Skeel 1980) cannot make it better.
// Measured (first 300 steps, direct-bpp and schur-bpp): the refinement solve
// is skipped on 69-100% of the BPP solves of chain_wrap, chain_drop,
// hanging_chain and rock_pile, on about 40% of tandem_cranes', and on none of
// net_with_truck's direct-bpp solves (backward errors 1e-14..1e-12), whose
// rows need it to stay at round-off (tests/solvers/test_refinement.c).
#define TSR_MLCP_REFINED_BERR (4.0 * DBL_EPSILON)

// A_ii, or 0 where A has no entry there (binary search: row indices are
// sorted within a column).
static inline double tsr_mlcp_diag(const TsrMlcp *p, int i) {
  int lo = p->Ap[i], hi = p->Ap[i + 1] - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (p->Ai[mid] < i)
      lo = mid + 1;
    else if (p->Ai[mid] > i)
      hi = mid - 1;
    else
      return p->Ax[mid];
  }
  return 0.0;
}

// y += alpha A_j (column j of A), from p->dense when there is one: the same
// terms in the same order (its zero entries add nothing).
static inline void tsr_mlcp_add_column(const TsrMlcp *p, int j, double alpha, double *y) {
  if (p->dense) {
    const double *col = p->dense + (size_t)j * (size_t)p->m;
    for (int r = 0; r < p->m; r++) y[r] += col[r] * alpha;
    return;
  }
  for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) y[p->Ai[q]] += p->Ax[q] * alpha;
}

#endif
