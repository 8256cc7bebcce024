// SPDX-License-Identifier: MIT
// Block principal pivoting (BPP) for the MLCP of seed 000 Eq. 8,
//
//   w = A lambda + b,  lo <= lambda <= hi,  complementarity of Eq. 12,
//
// after Júdice & Pires (1994) with the cycling guard of seed 000 §5.3.
// Each row is in the free set F or tight (T: at lower or at upper bound). For
// an index set, lambda_T is fixed at its bounds and w_F = 0 gives (Eqs. 27-28)
//
//   A_FF lambda_F = -b_F - A_FT lambda_T,        w_T = A_TF lambda_F + A_TT lambda_T + b_T.
//
// The infeasible set is: free rows outside [lo, hi] and tight rows whose slack
// has the wrong sign (at lower w < 0, at upper w > 0). Block pivoting moves all
// of them at once (a free row to the bound it violates, a tight row to F).
// Cycling guard: a hash of every index set visited goes into a small open-
// addressing table; when a set repeats, BPP makes p = 5 single pivots (seed
// 000 §5.3; Murty's rule: move only the infeasible row with the largest
// index), then goes back to block pivoting. And, as in Júdice-Pires, when the
// infeasible count has not dropped below its best for JP_TRIES block pivots,
// it single-pivots until the count beats its best. It stops when the set is feasible, or after max_pivots solves
// (seed 000 Table 1: 50), returning the iterate of lowest natural residual.
//
// Tolerances. The pivoting test uses tau = params->pivot_tolerance (1e-10),
// fixed per solve from the problem's own scales so that the result does not
// depend on units (impulses may be 1e-6 N s) and cannot grow with a wild
// intermediate iterate:
//   w_scale      = max(||b||_inf, max|A_ij| * max finite |bound|),
//   lambda_scale = w_scale / max|A_ij|.
// A free row violates its bound when beyond it by more than
// tau * max(|bound|, lambda_scale); a tight row's slack has the wrong sign when
// beyond tau * w_scale. Why not eta = 1e-5 (Table 1) here: on long stiff
// chains (3000+ rows) an eta-feasible index set can be wrong with a relative
// residual of 1e-7..1e-5, while tau = 1e-10 finds the exact set in fewer
// pivots (tests/solvers/test_bpp_random.c). eta remains the tolerance of index
// set classification (tsr_mlcp_index_set, the Schur coupling loop).
//
// The tau test is global, so it is loose for rows whose own terms are far
// smaller than w_scale: one motor bound of 5e5 N m on a crane made the
// tolerance 3e-4 for every row, and friction rows of magnitude ~1 kept a
// slack of the wrong sign (tandem_cranes: residual 1e-4, 25 of 120 steps
// above 1e-9). So when the tau-feasible set leaves any row with a residual
// above TSR_BPP_POLISH_ROW (1e-10, bpp.h) of its own scale
// (tsr_mlcp_relative_residual; at round-off it is ~1e-16), up to
// POLISH_STEPS more pivots are made on the rows of largest relative
// residual, keeping the iterate of lowest relative residual. Callers may
// polish further (solvers/bpp_retry.c).
//
// Rows with both bounds infinite (bilateral) are always free; rows with
// lo == hi are fixed at lo and never pivot.
//
// Linear algebra: linalg/chol.h (dense Cholesky, CHOLMOD with one analysis per
// pattern, or dense LU when A_FF is not SPD), plus one step of iterative
// refinement of each solve whose componentwise backward error is above
// round-off (TSR_MLCP_REFINED_BERR; this keeps the residual of Eq. 27 at
// roundoff for condition numbers up to ~1e10).
#include "solvers/bpp.h"
#include "solvers/stop.h"
#include "math/tsr_math.h"
#include "util/fnv.h"

#include <float.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define JP_TRIES 3      // block pivots allowed without progress (Júdice-Pires' p-bar)
#define SINGLE_STEPS 5  // p of seed 000 §5.3
#define POLISH_STEPS 10
#define POLISH_FRACTION 0.01

// The cycling guard's table size at most (1 MiB of hashes: 32,768 pivots at
// load 1/4).
#define TABLE_MAX (1 << 17)

struct TsrBpp {
  TsrChol *chol;
  int cap;
  int8_t *s, *best_s, *prev_s, *tgt, *prev_tgt;  // tgt: the state an infeasible row pivots to
  int *F, *loc, *inf, *prev_inf;
  double *rhs, *x, *r, *w, *best_lambda, *rr;  // rr: per-row residual of Eq. 29
  double *sc;                                  // scratch of tsr_mlcp_relative_residual and the refinement
  uint64_t *table;
  int cap_table;
  // Factorisation reuse (tsr_bpp_enable_reuse): fset is the index set whose
  // A_FF the chol holds (unshifted), valid while A is unchanged.
  int reuse, matrix_set, fset_valid;
  int8_t *fset;
  int stall_exit;   // tsr_bpp_set_stall_exit
  double last_rho;  // tsr_bpp_relative_residual
  int trace;        // TSR_BPP_TRACE: one line per pivot step on stderr
};

void tsr_bpp_set_stall_exit(TsrBpp *b, int on) { b->stall_exit = on; }

double tsr_bpp_relative_residual(const TsrBpp *b) { return b->last_rho; }

TsrBpp *tsr_bpp_create(void) {
  TsrBpp *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->trace = getenv("TSR_BPP_TRACE") != NULL;
  b->chol = tsr_chol_create();
  if (!b->chol) {
    free(b);
    return NULL;
  }
  return b;
}

static void free_arrays(TsrBpp *b) {
  free(b->s), free(b->best_s), free(b->prev_s), free(b->tgt), free(b->prev_tgt);
  free(b->F), free(b->loc), free(b->inf), free(b->prev_inf);
  free(b->rhs), free(b->x), free(b->r), free(b->w), free(b->best_lambda), free(b->rr);
  free(b->sc);
  free(b->fset);
  b->fset = NULL;
  b->fset_valid = 0;
}

void tsr_bpp_free(TsrBpp **pb) {
  TsrBpp *b = pb ? *pb : NULL;
  if (!b) return;
  tsr_chol_free(&b->chol);
  free_arrays(b);
  free(b->table);
  free(b);
  *pb = NULL;
}

TsrChol *tsr_bpp_chol(TsrBpp *b) { return b->chol; }

void tsr_bpp_enable_reuse(TsrBpp *b, int on) {
  b->reuse = on;
  b->matrix_set = b->fset_valid = 0;
}

void tsr_bpp_invalidate(TsrBpp *b) { b->matrix_set = b->fset_valid = 0; }

static int reserve(TsrBpp *b, int m, int max_pivots) {
  if (m > b->cap) {
    free_arrays(b);
    int n = m + m / 4 + 8;
    b->cap = 0;
    b->s = malloc((size_t)n);
    b->best_s = malloc((size_t)n);
    b->prev_s = malloc((size_t)n);
    b->tgt = malloc((size_t)n);
    b->prev_tgt = malloc((size_t)n);
    b->F = malloc((size_t)n * sizeof(int));
    b->loc = malloc((size_t)n * sizeof(int));
    b->inf = malloc((size_t)n * sizeof(int));
    b->prev_inf = malloc((size_t)n * sizeof(int));
    b->rhs = malloc((size_t)n * sizeof(double));
    b->x = malloc((size_t)n * sizeof(double));
    b->r = malloc(2 * (size_t)n * sizeof(double));  // tsr_bpp_refine's r
    b->w = malloc((size_t)n * sizeof(double));
    b->best_lambda = malloc((size_t)n * sizeof(double));
    b->rr = malloc((size_t)n * sizeof(double));
    b->sc = malloc((size_t)n * sizeof(double));
    b->fset = malloc((size_t)n);
    if (!b->fset || !b->s || !b->best_s || !b->prev_s || !b->tgt || !b->prev_tgt || !b->F || !b->loc || !b->inf ||
        !b->prev_inf || !b->rhs || !b->x || !b->r || !b->w || !b->best_lambda || !b->rr || !b->sc)
      return -1;
    b->cap = n;
  }
  // Room for every set of max_pivots + 1 at load 1/4, up to TABLE_MAX: past
  // that, repeats are found until the table fills, then no more (table_seen).
  // A model's max_pivots reaches 1e8, whose 4e8 slots (3.2 GB, cleared every
  // solve) would stop the run, and whose doubling overflowed int.
  int t = 64;
  while (t < TABLE_MAX && (long)t < 4L * ((long)max_pivots + 1)) t *= 2;
  if (t > b->cap_table) {
    free(b->table);
    b->table = malloc((size_t)t * sizeof *b->table);
    if (!b->table) {
      b->cap_table = 0;
      return -1;
    }
    b->cap_table = t;
  }
  memset(b->table, 0, (size_t)b->cap_table * sizeof *b->table);
  return 0;
}

// FNV-1a over the index set; 0 is reserved for empty table slots.
static uint64_t set_hash(const int8_t *s, int m) {
  uint64_t h = tsr_fnv1a(TSR_FNV_OFFSET, s, (size_t)m);
  return h ? h : 1;
}

// Inserts h; returns 1 when it was already there.
static int table_seen(uint64_t *t, int cap, uint64_t h) {
  for (int k = (int)(h & (uint64_t)(cap - 1)), n = 0; n < cap; k = (k + 1) & (cap - 1), n++) {
    if (t[k] == h) return 1;
    if (t[k] == 0) {
      t[k] = h;
      return 0;
    }
  }
  return 0;  // full (cannot happen: cap >= 4 * steps)
}

// y_k -= alpha A(F[k], j) over the free rows (loc: row -> k, or -1), from
// A's dense copy when it has one: the same terms in the same order.
static inline void sub_free_column(const TsrMlcp *p, int j, double alpha, const int *restrict F, int nf,
                                   const int *restrict loc, double *restrict y) {
  if (p->dense) {
    const double *restrict col = p->dense + (size_t)j * (size_t)p->m;
    for (int k = 0; k < nf; k++) y[k] -= col[F[k]] * alpha;
    return;
  }
  const int *restrict Ai = p->Ai;
  const double *restrict Ax = p->Ax;
  for (int q = p->Ap[j], end = p->Ap[j + 1]; q < end; q++) {
    int k = loc[Ai[q]];
    if (k >= 0) y[k] -= Ax[q] * alpha;
  }
}

// Solves the index set in b->s: fills lambda (tight at bounds, free from
// Eq. 27/28). Returns 0; 1 when A_FF is singular and Eq. 27 has no solution
// (the shifted solve left a backward error above TSR_SINGULAR_BERR); < 0 when
// A_FF cannot be factorised.
static int solve_set(const TsrMlcp *p, double amax, double *lambda, TsrBpp *b, int *factorizations) {
  int m = p->m, nf = 0;
  // Locals, so that the compiler keeps them in registers in the loops
  // (through b it must reload them after every store).
  int *restrict loc = b->loc, *restrict F = b->F;
  double *restrict rhs = b->rhs;
  for (int i = 0; i < m; i++) {
    if (b->s[i] == TSR_INDEX_FREE) {
      loc[i] = nf;
      F[nf++] = i;
    } else {
      loc[i] = -1;
      lambda[i] = b->s[i] == TSR_INDEX_LOWER ? p->lo[i] : p->hi[i];
    }
  }
  // rhs_F = -b_F - A_FT lambda_T
  for (int k = 0; k < nf; k++) rhs[k] = -p->b[F[k]];
  for (int j = 0; j < m; j++)
    if (loc[j] < 0 && lambda[j] != 0.0) sub_free_column(p, j, lambda[j], F, nf, loc, rhs);
  if (nf == 0) return 0;
  int rc = 0, shifted = 0;
  if (b->reuse && b->fset_valid && !memcmp(b->fset, b->s, (size_t)m)) goto factored;
  b->fset_valid = 0;
  rc = tsr_chol_factor(b->F, nf, b->chol);
  (*factorizations)++;
  if (rc == 0 && b->reuse) {
    memcpy(b->fset, b->s, (size_t)m);
    b->fset_valid = 1;
  }
  if (rc < 0) {
    // A_FF singular (zero diagonals of the Siconos MLCPs, redundant rows with
    // no compliance): factorise A_FF + delta I and refine against A_FF, which
    // converges to a solution of Eq. 27 when one exists (proximal point).
    rc = tsr_chol_factor_shifted(b->F, nf, 1e-10 * amax, b->chol);
    (*factorizations)++;
    if (rc < 0) return rc;
    shifted = 1;
  }
factored:
  if (tsr_chol_solve(b->rhs, b->x, b->chol)) return -1;
  int nosol = tsr_bpp_refine(p, F, nf, loc, rhs, b->x, b->r, b->sc, b->chol, shifted);
  if (nosol < 0) return -1;
  for (int c = 0; c < nf; c++) lambda[b->F[c]] = b->x[c];
  return nosol;  // 1: A_FF singular and the rhs not in its range (see tsr_bpp_solve)
}

int tsr_bpp_refine(const TsrMlcp *p, const int *F, int nf, const int *loc, const double *rhs, double *x, double *r,
                   double *scale, TsrChol *ch, int shifted) {
  double r_prev = INFINITY, berr_prev = INFINITY;
  double *x_prev = r + nf;  // the iterate before the last step (shifted)
  int steps = shifted ? 100 : 1;
  for (int it = 0;; it++) {
    if (it == steps && !shifted) return 0;  // (the last residual is needed only for the shifted verdict)
    double berr = tsr_mlcp_free_residual(p, F, nf, loc, x, rhs, r, scale), r_inf = 0.0;
    for (int c = 0; c < nf; c++) r_inf = tsr_maxd(r_inf, fabs(r[c]));
    if (shifted && it > 0 && !(r_inf <= r_prev)) {  // the last step raised |r|_inf (or made it NaN): undone
      memcpy(x, x_prev, (size_t)nf * sizeof *x);
      return tsr_singular_no_solution(berr_prev, r_prev, rhs, nf);
    }
    if (it == steps || berr <= TSR_MLCP_REFINED_BERR || (shifted && !(r_inf < 0.5 * r_prev)))
      return shifted && tsr_singular_no_solution(berr, r_inf, rhs, nf);
    r_prev = r_inf, berr_prev = berr;
    if (shifted) memcpy(x_prev, x, (size_t)nf * sizeof *x);
    if (tsr_chol_solve(r, r, ch)) return -1;
    for (int c = 0; c < nf; c++) {
      double v = x[c] + r[c];
      if (isfinite(v)) x[c] = v;
    }
  }
}

// Workspace for p's m rows (and max_pivots steps of history), and the
// factorisation context pointed at p's matrix: kept from the last call when
// reuse is on and the workspace did not move (the caller says when the
// matrix changed: tsr_bpp_invalidate).
static int bind_matrix(const TsrMlcp *p, int max_pivots, TsrBpp *b) {
  int cap_before = b->cap;
  if (reserve(b, p->m, max_pivots)) return -1;
  if (b->cap != cap_before) b->matrix_set = b->fset_valid = 0;
  if (!(b->reuse && b->matrix_set)) {
    b->fset_valid = 0;
    if (tsr_chol_set_matrix(p->m, p->Ap, p->Ai, p->Ax, p->symmetric, b->chol)) return -1;
    tsr_chol_set_dense(p->dense, b->chol);
    b->matrix_set = b->reuse;
  }
  return 0;
}

// tsr_mlcp_relative_residual's largest row, or an upper bound of it when
// that is below TSR_BPP_POLISH_ROW, without its two passes over A (made on
// every solve, they cost chain_drop's direct-bpp 50% more time per falling
// step): each row's sigma_i is bounded below by |b_i| + |w_i - b_i| +
// delta |A_ii| (the triangle inequality on its terms), and only a row that
// this bound does not clear gets its exact sigma_i, from column i (= row i,
// A symmetric). Needs b->w.
static double relative_bound(const TsrMlcp *p, const double *lambda, double amax, TsrBpp *b) {
  int m = p->m;
  double linf = 0.0, mx = 0.0;
  for (int i = 0; i < m; i++) linf = tsr_maxd(linf, fabs(lambda[i]));
  double delta = TSR_MLCP_ROW_NOISE * linf;
  for (int i = 0; i < m; i++) {
    double wi = b->w[i], bi = p->b[i], r, aii = 0.0;
    if (isfinite(p->lo[i]) || isfinite(p->hi[i])) {
      aii = tsr_mlcp_diag(p, i);
      r = tsr_mlcp_row_residual_slack(lambda[i], wi, p->lo[i], p->hi[i], aii, amax);
    } else {
      r = fabs(wi);  // a bilateral row
    }
    if (r == 0.0) continue;
    double q = r / fmax(fabs(bi) + fabs(wi - bi) + delta * fabs(aii), DBL_MIN);
    if (q > TSR_BPP_POLISH_ROW && p->symmetric) q = r / fmax(tsr_mlcp_row_scale(p, i, lambda, delta, NULL), DBL_MIN);
    if (!(q <= mx)) mx = q;
  }
  return mx;
}

int tsr_bpp_solve(const TsrMlcp *p, const TsrSolverParams *params, double *lambda, int8_t *index_set,
                  TsrSolveStats *stats, TsrBpp *b) {
  int m = p->m;
  int max_pivots = params->max_pivots > 0 ? params->max_pivots : 50;
  double eta = params->pivot_tolerance > 0 ? params->pivot_tolerance : 1e-10;  // tau (see the top)
  stats->converged = 0;
  stats->residual = 0.0;
  b->last_rho = m == 0 ? 0.0 : NAN;
  if (m == 0) {
    stats->converged = 1;
    return 0;
  }
  if (bind_matrix(p, max_pivots, b)) return -1;
  const double *lo = p->lo, *hi = p->hi;
  int8_t *s = b->s;

  // Initial index set: the warm start when asked (made consistent with the
  // bounds), else all free.
  for (int i = 0; i < m; i++) {
    int8_t v = params->warm_start && index_set ? index_set[i] : TSR_INDEX_FREE;
    if (v == TSR_INDEX_LOWER && !isfinite(lo[i])) v = TSR_INDEX_FREE;
    if (v == TSR_INDEX_UPPER && !isfinite(hi[i])) v = TSR_INDEX_FREE;
    if (v != TSR_INDEX_LOWER && v != TSR_INDEX_UPPER) v = TSR_INDEX_FREE;
    if (lo[i] == hi[i]) v = TSR_INDEX_LOWER;
    s[i] = v;
  }
  double b_inf = 0.0, amax = 0.0;
  for (int i = 0; i < m; i++) b_inf = tsr_maxd(b_inf, fabs(p->b[i]));
  for (int q = 0; q < p->Ap[m]; q++) amax = tsr_maxd(amax, fabs(p->Ax[q]));
  if (!(amax > 0.0)) amax = 1.0;
  double bnd = 0.0;
  for (int i = 0; i < m; i++) {
    if (isfinite(lo[i])) bnd = tsr_maxd(bnd, fabs(lo[i]));
    if (isfinite(hi[i])) bnd = tsr_maxd(bnd, fabs(hi[i]));
  }
  double w_scale = fmax(b_inf, amax * bnd), lam_scale = w_scale / amax;
  if (!(w_scale > 0.0)) w_scale = lam_scale = DBL_MIN;

  double best_res = INFINITY, best_rho = INFINITY;  // best_rho: while polishing
  int have_best = 0, best_bogus = 0, converged = 0, steps = 0, factorizations = 0;
  int ninf_best = m + 1, tries = JP_TRIES, single_left = 0, murty = 0;
  int have_prev = 0, prev_next = -1;  // for recovery from singular A_FF
  int tried_all_lower = 0, polish = 0, polish_left = 0;
  double final_res = INFINITY;
  const int trace = b->trace;

  while (steps < max_pivots && !tsr_stop_requested()) {
    steps++;
    int rc = solve_set(p, amax, lambda, b, &factorizations);
  singular:
    if (rc < 0) {
      // A_FF singular for this set. Go back to the previous set and pivot the
      // next infeasible row instead (largest index first); from the initial
      // set, restart with every bounded row at a bound.
      if (have_prev && prev_next >= 0) {
        memcpy(s, b->prev_s, (size_t)m);
        s[b->prev_inf[prev_next]] = b->prev_tgt[prev_next];
        prev_next--;
        continue;
      }
      if (!have_prev && !tried_all_lower) {
        tried_all_lower = 1;
        for (int i = 0; i < m; i++)
          s[i] = isfinite(lo[i]) ? TSR_INDEX_LOWER : isfinite(hi[i]) ? TSR_INDEX_UPPER : TSR_INDEX_FREE;
        continue;
      }
      break;
    }
    // w = A lambda + b and the natural residual (Eq. 29).
    double res = tsr_mlcp_residual_ws(p, lambda, b->w, b->rr);
    // Polishing keeps the iterate of lowest relative residual (rho, in b->rr
    // row by row: tsr_mlcp_relative_residual); until then, of lowest Eq. 29
    // residual.
    double rho = polish ? tsr_mlcp_relative_residual(p, lambda, b->w, b->sc, b->rr) : 0.0;
    int better = polish ? rho < best_rho : !have_best || res < best_res;
    // The iterate of a set without a solution (rc == 1, solve_set), whose
    // lambda_F grew like 1 / delta, is kept only while there is no other.
    if (have_best && best_bogus != (rc == 1)) better = best_bogus;
    if (better) {
      best_res = isnan(res) ? INFINITY : res;
      best_rho = rho;
      best_bogus = rc == 1;
      memcpy(b->best_lambda, lambda, (size_t)m * sizeof *lambda);
      memcpy(b->best_s, s, (size_t)m);
      have_best = 1;
    }
    // Infeasible set with scale-relative tolerances (see the top of the file).
    int ninf;
  classify:
    ninf = 0;
    double tol_w = eta * w_scale;
    for (int i = 0; i < m; i++) {
      if (lo[i] == hi[i]) continue;
      int bad;
      if (polish)  // a tight row's slack of the wrong sign, a free row outside its bounds
        bad = b->rr[i] > TSR_BPP_POLISH_ROW && (s[i] != TSR_INDEX_FREE || !(lambda[i] >= lo[i] && lambda[i] <= hi[i]));
      else if (s[i] == TSR_INDEX_FREE)
        bad = lambda[i] < lo[i] - eta * fmax(fabs(lo[i]), lam_scale) ||
              lambda[i] > hi[i] + eta * fmax(fabs(hi[i]), lam_scale) || !isfinite(lambda[i]);
      else if (s[i] == TSR_INDEX_LOWER)
        bad = b->w[i] < -tol_w;
      else
        bad = b->w[i] > tol_w;
      if (bad) {
        b->tgt[ninf] = s[i] != TSR_INDEX_FREE ? TSR_INDEX_FREE : lambda[i] < lo[i] ? TSR_INDEX_LOWER : TSR_INDEX_UPPER;
        b->inf[ninf++] = i;
      }
    }
    if (ninf == 0 && rc == 1) {
      // Feasible, but the free rows' equations do not hold: A_FF is singular
      // and its rhs outside its range, so the shifted solve's lambda_F grew
      // like 1 / delta towards an infinite bound, with w_F of the size of
      // the rhs (A with rows (0 0) and (1 1), b = (-1, -2), set {free,
      // lower}: lambda = (2e10, 0), w = (-1, 2e10), which was returned as
      // solved). No
      // solution has this set: go on as for a set that cannot be factorised.
      // Only here: such a set met on the way, infeasible, is pivoted away
      // from as before (lcp_Pang_isolated_sol's path to its solution passes
      // through one). A consistent singular system (redundant rows without
      // compliance: a door on two coaxial hinges) refines to a backward
      // error near round-off and is not affected.
      rc = -1;  // as when A_FF cannot be factorised
      goto singular;
    }
    if (ninf == 0 && !converged) {
      // Feasible to tau. Rows inside the tau band may still leave a residual
      // well above round-off: near-degenerate rows, and rows whose own scale
      // is far below w_scale (the tolerance is global). Then polish: a few
      // more pivots on the rows whose residual is above TSR_BPP_POLISH_ROW
      // of their own scale (tsr_mlcp_relative_residual), keeping the best
      // iterate.
      converged = 1;
      final_res = res;
      memcpy(b->best_lambda, lambda, (size_t)m * sizeof *lambda);
      memcpy(b->best_s, s, (size_t)m);
      best_res = res;
      best_rho = relative_bound(p, lambda, amax, b);
      if (best_rho > TSR_BPP_POLISH_ROW) best_rho = tsr_mlcp_relative_residual(p, lambda, b->w, b->sc, b->rr);
      if (best_rho > TSR_BPP_POLISH_ROW && steps < max_pivots) {
        polish = 1;
        polish_left = POLISH_STEPS;
        goto classify;
      }
    }
    if (ninf == 0) break;
    if (polish && polish_left-- <= 0) break;
    if (steps >= max_pivots) break;

    if (trace)
      fprintf(stderr, "bpp step %d: residual %.3e, %d infeasible%s\n", steps, res, ninf,
              polish                 ? " (polish)"
              : single_left || murty ? " (single)"
                                     : "");
    if (polish) {
      // Polishing: block-pivot only the rows whose relative residual is
      // within a factor POLISH_FRACTION of the largest: moving rows near the
      // threshold would undo the tau-feasible set for little. The best
      // iterate is kept whatever happens.
      double rmax = 0.0;
      for (int k = 0; k < ninf; k++) rmax = tsr_maxd(rmax, b->rr[b->inf[k]]);
      memcpy(b->prev_s, s, (size_t)m);
      have_prev = 1;
      prev_next = -1;
      for (int k = 0; k < ninf; k++)
        if (b->rr[b->inf[k]] >= POLISH_FRACTION * rmax) s[b->inf[k]] = b->tgt[k];
      continue;
    }
    // Block or single pivot (cycling guard, seed 000 §5.3).
    // Júdice-Pires: block pivots while the infeasible count keeps beating its
    // best within JP_TRIES steps; otherwise single pivots (Murty's rule) until
    // it does, which is finite for P-matrices. A repeated index set (hash
    // table, seed 000 §5.3) forces at least SINGLE_STEPS single pivots.
    int single = 0;
    int repeated = table_seen(b->table, b->cap_table, set_hash(s, m));
    if (ninf < ninf_best) {
      ninf_best = ninf;
      tries = JP_TRIES;
      murty = 0;
    } else if (!murty && tries-- <= 0) {
      murty = 1;
    }
    // The caller has a monotone method to hand over to (bpp_retry.c):
    // single pivots move one row per factorisation, far slower than it.
    if (b->stall_exit && (murty || repeated)) break;
    if (repeated && single_left == 0) single_left = SINGLE_STEPS;
    if (single_left > 0) {
      single = 1;
      single_left--;
    } else if (murty) {
      single = 1;
    }
    memcpy(b->prev_s, s, (size_t)m);
    memcpy(b->prev_inf, b->inf, (size_t)ninf * sizeof *b->inf);
    memcpy(b->prev_tgt, b->tgt, (size_t)ninf);
    have_prev = 1;
    if (single) {
      s[b->inf[ninf - 1]] = b->tgt[ninf - 1];  // Murty: the largest index
      prev_next = ninf - 2;
    } else {
      for (int k = 0; k < ninf; k++) s[b->inf[k]] = b->tgt[k];
      prev_next = ninf - 1;
    }
  }

  stats->iterations += steps;
  stats->factorizations += factorizations;
  if (!have_best) {
    for (int i = 0; i < m; i++) lambda[i] = 0.0;
    stats->residual = NAN;
    return -2;
  }
  if (converged && !polish) best_res = final_res;  // the feasible iterate is the last one
  if (!converged || polish) {
    memcpy(lambda, b->best_lambda, (size_t)m * sizeof *lambda);
    memcpy(s, b->best_s, (size_t)m);
  }
  if (index_set) memcpy(index_set, s, (size_t)m);
  stats->converged = converged;
  stats->residual = best_res;
  if (converged) b->last_rho = best_rho;
  return converged ? 0 : 1;
}

int tsr_bpp_factor(const TsrMlcp *p, const int8_t *set, double shift, const int **F, int *nf, TsrBpp *b) {
  int m = p->m;
  if (bind_matrix(p, 1, b)) return -1;
  int n = 0;
  for (int i = 0; i < m; i++)
    if (set[i] == TSR_INDEX_FREE) b->F[n++] = i;
  *F = b->F;
  *nf = n;
  if (n == 0) return 0;
  if (b->reuse && b->fset_valid && !memcmp(b->fset, set, (size_t)m)) return 0;
  b->fset_valid = 0;
  int rc = tsr_chol_factor(b->F, n, b->chol);
  if (rc == 0) {
    if (b->reuse) {
      memcpy(b->fset, set, (size_t)m);
      b->fset_valid = 1;
    }
    return 0;
  }
  if (!(shift > 0.0)) return rc;
  rc = tsr_chol_factor_shifted(b->F, n, shift, b->chol);
  return rc < 0 ? rc : 1;
}
