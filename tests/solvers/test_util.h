// SPDX-License-Identifier: MIT
// Shared helpers of the solver tests: a deterministic RNG, random orthogonal
// matrices, planted MLCP solutions.
#ifndef TSR_SOLVER_TEST_UTIL_H
#define TSR_SOLVER_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp/mlcp.h"

typedef struct {
  uint64_t s;
} Rng;

static inline uint64_t rng_next(Rng *r) {  // splitmix64
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static inline double rng_uniform(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }
static inline double rng_range(Rng *r, double a, double b) { return a + (b - a) * rng_uniform(r); }
static inline double rng_normal(Rng *r) {
  double u = rng_uniform(r), v = rng_uniform(r);
  return sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}
static inline int rng_int(Rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }

// Dense SPD A = Q D Q^T (row-major n x n), eigenvalues log-spaced in [1/cond, 1]
// (Q from Gram-Schmidt of a Gaussian matrix, twice for orthogonality).
static inline void random_spd(Rng *r, int n, double cond, double *A) {
  double *Q = malloc((size_t)n * n * sizeof *Q), *d = malloc((size_t)n * sizeof *d);
  for (int k = 0; k < n * n; k++) Q[k] = rng_normal(r);
  for (int pass = 0; pass < 2; pass++)
    for (int j = 0; j < n; j++) {  // columns of Q (column j = Q[i*n + j])
      for (int k = 0; k < j; k++) {
        double dot = 0;
        for (int i = 0; i < n; i++) dot += Q[i * n + j] * Q[i * n + k];
        for (int i = 0; i < n; i++) Q[i * n + j] -= dot * Q[i * n + k];
      }
      double nrm = 0;
      for (int i = 0; i < n; i++) nrm += Q[i * n + j] * Q[i * n + j];
      nrm = sqrt(nrm);
      for (int i = 0; i < n; i++) Q[i * n + j] /= nrm;
    }
  for (int k = 0; k < n; k++) d[k] = n > 1 ? pow(cond, -(double)k / (n - 1)) : 1.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double s = 0;
      for (int k = 0; k < n; k++) s += Q[i * n + k] * d[k] * Q[j * n + k];
      A[i * n + j] = A[j * n + i] = s;
    }
  free(Q);
  free(d);
}

// Plants a solution in p (A, and the bounds chosen here): kinds per row are
// bilateral, [0, inf), [-mu, mu] box and (-inf, hi]; each row's state is drawn
// (at lower / at upper / interior) with margins so the solution is
// non-degenerate: interior rows at least 10% of the box away from the bounds,
// tight rows with |w| in [0.1, 1] * wscale. Writes lambda_star, the planted
// index set, and sets b = w* - A lambda*.
// With keep_bounds, the kinds (and box sizes) come from p's own lo/hi.
static inline void plant_ex(Rng *r, TsrMlcp *p, double wscale, int keep_bounds, double *lambda_star, int8_t *set_star) {
  int m = p->m;
  double *w = malloc((size_t)(m ? m : 1) * sizeof *w);
  for (int i = 0; i < m; i++) {
    int kind = rng_int(r, 4);
    if (keep_bounds)
      kind = !isfinite(p->lo[i]) && !isfinite(p->hi[i]) ? 0 : !isfinite(p->hi[i]) ? 1 : !isfinite(p->lo[i]) ? 3 : 2;
    double lo, hi, l, wi = 0.0;
    int8_t st = TSR_INDEX_FREE;
    if (kind == 0) {
      lo = -INFINITY, hi = INFINITY, l = rng_normal(r);
    } else if (kind == 1) {
      lo = 0.0, hi = INFINITY;
      if (rng_uniform(r) < 0.5) {
        l = 0.0, wi = wscale * rng_range(r, 0.1, 1.0), st = TSR_INDEX_LOWER;
      } else {
        l = rng_range(r, 0.1, 2.0);
      }
    } else if (kind == 2) {
      double mu = keep_bounds ? 0.5 * (p->hi[i] - p->lo[i]) : rng_range(r, 0.5, 1.5);
      lo = -mu, hi = mu;
      double u = rng_uniform(r);
      if (u < 1.0 / 3) {
        l = lo, wi = wscale * rng_range(r, 0.1, 1.0), st = TSR_INDEX_LOWER;
      } else if (u < 2.0 / 3) {
        l = hi, wi = -wscale * rng_range(r, 0.1, 1.0), st = TSR_INDEX_UPPER;
      } else {
        l = rng_range(r, lo + 0.1 * mu, hi - 0.1 * mu);
      }
    } else {
      lo = -INFINITY, hi = rng_range(r, -1.0, 1.0);
      if (rng_uniform(r) < 0.5) {
        l = hi, wi = -wscale * rng_range(r, 0.1, 1.0), st = TSR_INDEX_UPPER;
      } else {
        l = hi - rng_range(r, 0.1, 2.0);
      }
    }
    p->lo[i] = lo, p->hi[i] = hi;
    lambda_star[i] = l;
    set_star[i] = st;
    w[i] = wi;
  }
  double *Al = malloc((size_t)(m ? m : 1) * sizeof *Al);
  tsr_mlcp_matvec(p, lambda_star, Al);
  for (int i = 0; i < m; i++) p->b[i] = w[i] - Al[i];
  free(Al);
  free(w);
}

static inline void plant(Rng *r, TsrMlcp *p, double wscale, double *lambda_star, int8_t *set_star) {
  plant_ex(r, p, wscale, 0, lambda_star, set_star);
}

static inline double norm2(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

// A planted dense problem (random_spd with condition number cond, then
// plant), with room for a solver's answer.
typedef struct {
  int n;
  TsrMlcp p;
  double *ls, *lambda;  // planted solution; the solver's
  int8_t *ss, *set;     // planted index set; the solver's
} Planted;

// A planted problem with the given dense n x n matrix A (stored sparse: its
// nonzeros only).
static inline void planted_from_dense(Rng *r, int n, const double *A, Planted *q) {
  q->n = n;
  q->ls = malloc((size_t)n * sizeof *q->ls);
  q->lambda = calloc((size_t)n, sizeof *q->lambda);
  q->ss = malloc((size_t)n);
  q->set = calloc((size_t)n, 1);
  tsr_mlcp_init(&q->p);
  tsr_mlcp_from_dense(n, A, NULL, NULL, NULL, &q->p);
  plant(r, &q->p, 1.0, q->ls, q->ss);
}

static inline void planted_dense(Rng *r, int n, double cond, Planted *q) {
  double *A = malloc((size_t)n * n * sizeof *A);
  random_spd(r, n, cond, A);
  planted_from_dense(r, n, A, q);
  free(A);
}

static inline void planted_free(Planted *q) {
  tsr_mlcp_free(&q->p);
  free(q->ls), free(q->lambda), free(q->ss), free(q->set);
}

// Whether q->lambda / q->set are the planted solution: index sets equal and
// |lambda - lambda*|_inf <= 1e-12 + 1e-13 cond max(1, |lambda*|_inf) (the
// forward error of a backward-stable solve). *err, *tol, *set_diff report.
static inline int planted_exact(const Planted *q, double cond, double *err, double *tol, int *set_diff) {
  double e = 0, lsmax = 0;
  int d = 0;
  for (int i = 0; i < q->n; i++) {
    e = fmax(e, fabs(q->lambda[i] - q->ls[i]));
    lsmax = fmax(lsmax, fabs(q->ls[i]));
    d += q->set[i] != q->ss[i];
  }
  *err = e, *tol = 1e-12 + 1e-13 * cond * fmax(1.0, lsmax), *set_diff = d;
  return e <= *tol && d == 0;
}

#endif
