// SPDX-License-Identifier: MIT
// Factorisation of principal submatrices A_FF (seed 000 Eqs. 27-28); the
// choice of path is explained in chol.h.
#include "linalg/chol.h"
#include "linalg/chol_internal.h"
#include "util/env.h"
#include "util/grow.h"

#include <cholmod.h>
#include <ldl.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// OpenBLAS (pthreads build) starts its worker threads when it is loaded, and
// they spin on sched_yield for ~0.1 s waiting for work; openblas_set_num_threads
// starts them again. Single-threaded BLAS never gives them any: once BLAS is
// set to one thread, they are stopped, so that they no longer take a core
// from the OpenMP threads of the first steps (seen: the first two steps of
// chain_drop at 20 ms instead of 0.4 with 2 threads on 2 cores). Once per
// process (tsr_chol_create may run inside a parallel region).
static void blas_once(void) {
  if (openblas_set_num_threads) openblas_set_num_threads(1);
  if (blas_thread_shutdown_) blas_thread_shutdown_();
}

void tsr_chol_blas_single_thread(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, blas_once);
}

// The cost limit and the refusal (chol.h). The flag is read in every
// solver loop (solvers/stop.h): an atomic, set once by whichever thread
// refuses first; the record under a lock.
static double flops_limit = TSR_CHOL_FLOPS_LIMIT;
static atomic_int refused;
static pthread_mutex_t refusal_lock = PTHREAD_MUTEX_INITIALIZER;
static int refused_nf;
static double refused_flops;

void tsr_chol_set_flops_limit(double flops) { flops_limit = flops; }

int tsr_chol_flops_limit_from_env(char *err, int errlen) {
  double v;
  if (tsr_env_number("TSR_FACTOR_FLOPS", TSR_CHOL_FLOPS_LIMIT, 1e10, 1e300, 0, &v, err, errlen)) return -1;
  flops_limit = v;
  return 0;
}
double tsr_chol_flops_limit(void) { return flops_limit; }
int tsr_chol_refused(void) { return atomic_load_explicit(&refused, memory_order_relaxed); }

void tsr_chol_refusal_clear(void) {
  pthread_mutex_lock(&refusal_lock);
  refused_nf = 0, refused_flops = 0.0;
  atomic_store(&refused, 0);
  pthread_mutex_unlock(&refusal_lock);
}

void tsr_chol_refusal(int *nf, double *flops) {
  pthread_mutex_lock(&refusal_lock);
  *nf = refused_nf, *flops = refused_flops;
  pthread_mutex_unlock(&refusal_lock);
}

void tsr_chol_refusal_text(char *buf, size_t len, int rows) {
  int nf;
  double flops;
  tsr_chol_refusal(&nf, &flops);
  char of[32] = "";
  if (rows >= 0) snprintf(of, sizeof of, " (of %d)", rows);
  snprintf(buf, len,
           "factorising %d coupled rows%s would take about %.2g flops, more than TSR_FACTOR_FLOPS = %.3g allows", nf,
           of, flops, flops_limit);
}

// 0 when a factorisation of nf rows costing flops is within the limit,
// else records the refusal and returns TSR_CHOL_REFUSED.
static int affordable(int nf, double flops) {
  if (!(flops > flops_limit)) return 0;
  pthread_mutex_lock(&refusal_lock);
  if (!atomic_load(&refused)) refused_nf = nf, refused_flops = flops;
  atomic_store(&refused, 1);
  pthread_mutex_unlock(&refusal_lock);
  return TSR_CHOL_REFUSED;
}

TsrChol *tsr_chol_create(void) {
  TsrChol *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  cholmod_start(&c->cc);
  c->cc.print = 0;  // report through return values, never on stdout
  c->cc.nmethods = 1;
  c->cc.method[0].ordering = CHOLMOD_GIVEN;  // the induced AMD order (see chol.h)
  c->cc.postorder = 1;
  c->cc.final_ll = 1;
  c->cc.quick_return_if_not_posdef = 1;
  const char *e = getenv("TSR_CHOL_SPARSE");
  c->force_path = e && !strcmp(e, "ldl") ? 1 : e && !strcmp(e, "cholmod") ? 2 : 0;
  c->no_update = tsr_env_flag("TSR_CHOL_NO_UPDATE");
  c->no_rowmod = tsr_env_flag("TSR_CHOL_NO_ROWMOD");
  tsr_chol_blas_single_thread();
  return c;
}

void tsr_chol_free(TsrChol **pc) {
  TsrChol *c = pc ? *pc : NULL;
  if (!c) return;
  if (c->L) cholmod_free_factor(&c->L, &c->cc);
  tsr_chol_rowmod_free(c);
  if (c->X) cholmod_free_dense(&c->X, &c->cc);
  if (c->Y) cholmod_free_dense(&c->Y, &c->cc);
  if (c->E) cholmod_free_dense(&c->E, &c->cc);
  cholmod_finish(&c->cc);
  free(c->pat_p);
  free(c->pat_i);
  free(c->perm);
  free(c->cmember);
  free(c->loc);
  free(c->perm_F);
  free(c->ffp), free(c->ffi), free(c->ffx), free(c->sym_F);
  free(c->Lp), free(c->Parent), free(c->Lnz), free(c->Flag), free(c->Pattern), free(c->Li), free(c->Pinv);
  free(c->Lx), free(c->Dd), free(c->Yw), free(c->G);
  free(c->D);
  free(c->ipiv);
  free(c->dord), free(c->dpos), free(c->fperm), free(c->dscr), free(c->dinv);
  free(c);
  *pc = NULL;
}

int tsr_chol_method(const TsrChol *c) { return c->method; }
const TsrCholStats *tsr_chol_stats(const TsrChol *c) { return &c->stats; }

int tsr_chol_set_matrix(int m, const int *Ap, const int *Ai, const double *Ax, int symmetric, TsrChol *c) {
  c->m = m;
  c->Ap = Ap;
  c->Ai = Ai;
  c->Ax = Ax;
  c->Ad = NULL;
  c->symmetric = symmetric;
  c->method = TSR_CHOL_NONE;
  c->gen++;  // the values may have changed: no dense update across this
  if (m > c->cap_m) {
    int n = m + m / 2 + 16;
    int *a = realloc(c->loc, (size_t)n * sizeof *a);
    if (!a) return -1;
    c->loc = a;
    a = realloc(c->perm_F, (size_t)n * sizeof *a);
    if (!a) return -1;
    c->perm_F = a;
    a = realloc(c->perm, (size_t)n * sizeof *a);
    if (!a) return -1;
    c->perm = a;
    c->cap_m = n;
  }
  for (int i = 0; i < m; i++) c->loc[i] = -1;
  c->pattern_checked = 0;  // check_pattern, at the first sparse factorisation
  return 0;
}

// The pattern the ordering and the symbolic analysis were made for is
// compared with the matrix's (and copied when it differs) only when a sparse
// factorisation needs them: a matrix whose factors are all dense (the
// interface matrices of piles) never pays for the O(nnz) copy, which was 10%
// of log_tower's interface solves.
static int check_pattern(TsrChol *c) {
  if (c->pattern_checked) return 0;
  int m = c->m, nnz = m > 0 ? c->Ap[m] : 0;
  int same = c->have_order && c->pat_m == m && c->pat_nnz == nnz &&
             !memcmp(c->pat_p, c->Ap, (size_t)(m + 1) * sizeof *c->Ap) &&
             !memcmp(c->pat_i, c->Ai, (size_t)nnz * sizeof *c->Ai);
  if (!same) {
    c->have_order = 0;
    c->sym_valid = 0;
    if (tsr_grow((void **)&c->pat_p, &c->cap_pat_m, m + 1, sizeof *c->pat_p) ||
        tsr_grow((void **)&c->pat_i, &c->cap_pat_nnz, nnz, sizeof *c->pat_i))
      return -1;
    memcpy(c->pat_p, c->Ap, (size_t)(m + 1) * sizeof *c->Ap);
    if (nnz) memcpy(c->pat_i, c->Ai, (size_t)nnz * sizeof *c->Ai);
    c->pat_m = m;
    c->pat_nnz = nnz;
  }
  c->pattern_checked = 1;
  return 0;
}

int tsr_chol_order_last(int m, const int8_t *last, TsrChol *c) {
  int any = 0, changed = 0;
  for (int i = 0; last && i < m; i++) any |= last[i] != 0;
  if (!any) {
    if (c->use_last) c->have_order = 0, c->sym_valid = 0;
    c->use_last = 0;
    return 0;
  }
  if (tsr_grow((void **)&c->cmember, &c->cap_cmember, m + 1, sizeof *c->cmember)) return -1;
  for (int i = 0; i < m; i++) {
    int v = last[i] != 0;
    changed |= !c->use_last || c->last_m != m || c->cmember[i] != v;
    c->cmember[i] = v;
  }
  c->last_m = m;
  if (changed) c->have_order = 0, c->sym_valid = 0;
  c->use_last = 1;
  return 0;
}

// CHOLMOD 5.12 runs some of its loops (clearing its Map array for every
// matrix of more than 128 rows, zeroing large supernodes) in OpenMP teams of
// a compiled-in CHOLMOD_OMP_NUM_THREADS = 4, whatever --threads says. Inside
// our parallel regions OpenMP's default of one active level keeps them
// serial; from a serial caller (direct-bpp, or a subsystem solve in a
// one-thread region, which is not an active level) they started four-thread
// teams: with --threads 1 that was more threads than asked for, and a new
// team for each factorisation (thread creation was 8% of a log_tower step).
// So CHOLMOD is called with no active level left when the caller is the only
// thread running.
int tsr_chol_serial_begin(void) {
  if (omp_in_parallel()) return -1;
  int levels = omp_get_max_active_levels();
  omp_set_max_active_levels(0);
  return levels;
}

void tsr_chol_serial_end(int levels) {
  if (levels >= 0) omp_set_max_active_levels(levels);
}

// AMD order of the whole (symmetric) pattern, once per pattern (CAMD with
// the rows of tsr_chol_order_last last).
static int ensure_order(TsrChol *c) {
  if (c->have_order) return 0;
  cholmod_sparse A = {0};
  A.nrow = A.ncol = (size_t)c->m;
  A.nzmax = (size_t)c->pat_nnz;
  A.p = c->pat_p;
  A.i = c->pat_i;
  A.stype = 1;  // upper part used, lower ignored
  A.itype = CHOLMOD_INT;
  A.xtype = CHOLMOD_PATTERN;
  A.dtype = CHOLMOD_DOUBLE;
  A.sorted = 1;
  A.packed = 1;
  int levels = tsr_chol_serial_begin();
  int ok = c->use_last && c->last_m == c->m ? cholmod_camd(&A, NULL, 0, c->cmember, c->perm, &c->cc)
                                            : cholmod_amd(&A, NULL, 0, c->perm, &c->cc);
  tsr_chol_serial_end(levels);
  if (!ok) return -1;
  c->have_order = 1;
  c->order_gen++;
  c->stats.orderings++;
  return 0;
}

void tsr_chol_set_dense(const double *dense, TsrChol *c) { c->Ad = dense; }

void tsr_chol_gather_dense(const int *F, int nf, double shift, int ld, TsrChol *c) {
  if (c->Ad) {
    for (int col = 0; col < nf; col++) {
      double *dc = c->D + (size_t)col * ld;
      const double *ac = c->Ad + (size_t)F[col] * (size_t)c->m;
      for (int r = 0; r < nf; r++) dc[r] = ac[F[r]];
      dc[col] += shift;
    }
    return;
  }
  for (int col = 0; col < nf; col++) {
    double *dc = c->D + (size_t)col * ld;
    memset(dc, 0, (size_t)nf * sizeof *dc);
    int j = F[col];
    for (int p = c->Ap[j]; p < c->Ap[j + 1]; p++) {
      int r = c->loc[c->Ai[p]];
      if (r >= 0) dc[r] += c->Ax[p];
    }
    dc[col] += shift;
  }
}

static int factor_dense_lu(const int *F, int nf, double shift, TsrChol *c) {
  c->dvalid = 0;  // D is overwritten
  if (tsr_grow_size((void **)&c->D, &c->cap_D, (size_t)nf * (size_t)nf, sizeof *c->D)) return -1;
  tsr_chol_gather_dense(F, nf, shift, nf, c);
  if (tsr_grow((void **)&c->ipiv, &c->cap_ipiv, nf, sizeof *c->ipiv)) return -1;
  int info = 0;
  dgetrf_(&nf, &nf, c->D, &nf, c->ipiv, &info);
  c->stats.factorizations++;
  c->stats.dense_lu++;
  c->method = TSR_CHOL_DENSE_LU;
  if (info != 0) {
    c->method = TSR_CHOL_NONE;
    return -2;  // exactly singular pivot
  }
  return 0;
}

// A_FF + shift I into ffp/ffi/ffx: both triangles, local numbering; F is
// increasing, so row indices stay sorted. A missing diagonal is inserted when
// shift != 0. Returns nnz or < 0.
static int build_AFF(const int *F, int nf, double shift, TsrChol *c) {
  int cap = nf;
  for (int col = 0; col < nf; col++) cap += c->Ap[F[col] + 1] - c->Ap[F[col]];
  if (tsr_grow((void **)&c->ffp, &c->cap_ffp, nf + 1, sizeof *c->ffp) ||
      tsr_grow((void **)&c->ffi, &c->cap_ffi, cap + 1, sizeof *c->ffi) ||
      tsr_grow((void **)&c->ffx, &c->cap_ffx, cap + 1, sizeof *c->ffx))
    return -1;
  int nz = 0;
  const int *loc = c->loc, *Ai = c->Ai;
  const double *Ax = c->Ax;
  int *ffi = c->ffi;
  double *ffx = c->ffx;
  for (int col = 0; col < nf; col++) {
    int j = F[col], diag = 0, start = nz;
    c->ffp[col] = nz;
    // Without a branch on whether the row is free: every entry is written,
    // and the count moves past it only when it is. A third of a pile's rows
    // are tight, and the branch mispredicted: on chain_drop (direct-bpp, 1
    // thread, perf) this function's own time went from 13.1% to 9.8% of the
    // run, which took 9.5 -> 8.8 ms a step (3 runs each, noisy).
    for (int p = c->Ap[j]; p < c->Ap[j + 1]; p++) {
      int r = loc[Ai[p]];
      ffi[nz] = r;
      ffx[nz] = Ax[p] + (r == col ? shift : 0.0);
      diag |= r == col;
      nz += r >= 0;
    }
    if (diag || shift == 0.0) continue;
    // A shift and no stored diagonal: the column again, the shift in place.
    nz = start;
    for (int p = c->Ap[j]; p < c->Ap[j + 1]; p++) {
      int r = loc[Ai[p]];
      if (r < 0) continue;
      if (r > col && !diag) ffi[nz] = col, ffx[nz++] = shift, diag = 1;
      ffi[nz] = r, ffx[nz++] = Ax[p];
    }
    if (!diag) ffi[nz] = col, ffx[nz++] = shift;
  }
  c->ffp[nf] = nz;
  return nz;
}

// A_FF (ffp/ffi/ffx) as a CHOLMOD matrix header: the upper triangle is used,
// the lower ignored (stype = 1).
static cholmod_sparse aff_view(TsrChol *c, int nf) {
  cholmod_sparse S = {0};
  S.nrow = S.ncol = (size_t)nf;
  S.nzmax = (size_t)c->ffp[nf];
  S.p = c->ffp;
  S.i = c->ffi;
  S.x = c->ffx;
  S.stype = 1;
  S.itype = CHOLMOD_INT;
  S.xtype = CHOLMOD_REAL;
  S.dtype = CHOLMOD_DOUBLE;
  S.sorted = 1;
  S.packed = 1;
  return S;
}

// A sparse factor whose flops (sum over columns of nnz^2) reach this
// fraction of a dense one's (nf^3 / 3) is computed densely instead, and so
// is every later factor of that matrix and of matrices like it (like_filled):
// dpotrf runs BLAS 3 without an ordering or a symbolic analysis, and the
// dense factor follows the pivots' changes of F by row updates
// (chol_dense.c), where the sparse paths order, analyse and factorise again.
// S_Gamma of net_with_truck (700 rows, 10-20% nonzero, a factor nearly full)
// was factorised by CHOLMOD, analysed anew at every pivot: its interface
// solves took 5.6 ms a step, 2.3 with this (120 steps replayed, 2 threads;
// schur-bpp 7.2 -> 4.1 ms a step, log_tower 7.4 -> 6.8, log_tower_256 14.9
// -> 13.8; the chains' banded factors are far below it: a 60-row chain
// subsystem's LDL^T is ~3% of a dense factorisation). 0.05 and 0.2 did as
// well within the machine's noise.
#define FILL_FRACTION 0.1

// A free set of a matrix like the last one whose factor filled in: the
// matrix's order and number of nonzeros, and the free set's size, each within
// a quarter of that one's. S_Gamma's size and pattern change every step as
// contacts come and go, and its free set by a few rows per pivot; ordering
// and analysing it again only to learn that it fills in cost most of what
// the dense path saved. (The free set's size too: a dense block of a large
// sparse matrix fills in where the whole does not.) A like matrix whose
// factor is analysed and does not fill in clears the memory (factor_sparse).
static int like(int now, int then) { return fabs((double)(now - then)) <= 0.25 * (double)then; }

// The dense path may be taken for nf rows (the limits of both rules).
static int dense_allowed(int nf, const TsrChol *c) { return !c->force_path && nf <= TSR_CHOL_DENSE_LARGE; }

static int like_filled(int nf, const TsrChol *c) {
  return dense_allowed(nf, c) && c->fill_m > 0 && like(c->m, c->fill_m) &&
         like(c->m > 0 ? c->Ap[c->m] : 0, c->fill_nnz) && like(nf, c->fill_nf);
}

static int fills_in(int nf, const TsrChol *c) {
  return dense_allowed(nf, c) && c->sym_flops >= FILL_FRACTION * (double)nf * (double)nf * (double)nf / 3.0;
}

// Symbolic analysis of A_FF for the induced AMD order, skipped when F is the
// set analysed last (the pattern of A_FF depends on F only). Chooses the
// path: LDL's up-looking factorisation when the factor is sparse (flops per
// entry of L below CHOLMOD's own supernodal switch, 40: chains, trees,
// subsystems), CHOLMOD's supernodal one otherwise (piles). TSR_CHOL_SPARSE =
// ldl | cholmod forces a path (for benchmarks). Returns 0, 2 when the factor
// fills in (fills_in: factorise densely; nothing is kept), < 0 on failure.
static int analyse(const int *F, int nf, TsrChol *c) {
  if (c->sym_valid && c->sym_nf == nf && !memcmp(c->sym_F, F, (size_t)nf * sizeof *F)) return 0;
  c->sym_valid = 0;
  if (c->L) cholmod_free_factor(&c->L, &c->cc);
  int k = 0;
  for (int q = 0; q < c->m; q++) {
    int r = c->loc[c->perm[q]];
    if (r >= 0) c->perm_F[k++] = r;
  }
  if (nf + 1 > c->cap_ln) {  // LDL's per-column arrays, all of one size
    int cap = nf + 1 + (nf + 1) / 2 + 16;
    int **iv[] = {&c->Lp, &c->Parent, &c->Lnz, &c->Flag, &c->Pattern, &c->Pinv};
    double **dv[] = {&c->Dd, &c->Yw};
    for (size_t k = 0; k < sizeof iv / sizeof *iv; k++) {
      int *q = realloc(*iv[k], (size_t)cap * sizeof *q);
      if (!q) return -1;
      *iv[k] = q;
    }
    for (size_t k = 0; k < sizeof dv / sizeof *dv; k++) {
      double *q = realloc(*dv[k], (size_t)cap * sizeof *q);
      if (!q) return -1;
      *dv[k] = q;
    }
    c->cap_ln = cap;
  }
  for (int q = 0; q < nf; q++) c->Pinv[c->perm_F[q]] = q;
  ldl_symbolic(nf, c->ffp, c->ffi, c->Lp, c->Parent, c->Lnz, c->Flag, c->perm_F, c->Pinv);
  double flops = 0.0, lnz = (double)c->Lp[nf] + nf;
  for (int q = 0; q < nf; q++) flops += (double)c->Lnz[q] * (double)c->Lnz[q];
  c->sym_flops = flops;
  if (affordable(nf, flops)) return TSR_CHOL_REFUSED;
  if (fills_in(nf, c)) {  // before CHOLMOD's own analysis, which costs more than LDL's
    c->stats.analyses++;
    return 2;
  }
  c->sym_ldl = c->force_path ? c->force_path == 1 : flops < 40.0 * lnz;
  if (c->sym_ldl) {
    if (tsr_grow((void **)&c->Li, &c->cap_li, c->Lp[nf] + 1, sizeof *c->Li) ||
        tsr_grow((void **)&c->Lx, &c->cap_lx, c->Lp[nf] + 1, sizeof *c->Lx))
      return -1;
  } else {
    cholmod_sparse S = aff_view(c, nf);
    int levels = tsr_chol_serial_begin();
    c->L = cholmod_analyze_p(&S, c->perm_F, NULL, 0, &c->cc);
    tsr_chol_serial_end(levels);
    if (!c->L) return -1;
  }
  c->stats.analyses++;
  if (tsr_grow((void **)&c->sym_F, &c->cap_sym_F, nf + 1, sizeof *c->sym_F)) return -1;
  memcpy(c->sym_F, F, (size_t)nf * sizeof *F);
  c->sym_nf = nf;
  c->sym_valid = 1;
  return 0;
}

// 0 OK, 1 not positive definite, < 0 failure.
static int factor_sparse(const int *F, int nf, double shift, TsrChol *c) {
  if (check_pattern(c) || ensure_order(c)) return -1;
  int rm = tsr_chol_rowmod(F, nf, shift, c);
  if (rm <= 0) return rm;
  c->fresh_kind = 0;  // the factors are rewritten below
  if (build_AFF(F, nf, shift, c) < 0) return -1;
  int an = analyse(F, nf, c);
  if (an < 0) return an == TSR_CHOL_REFUSED ? an : -1;
  if (an == 2) {
    c->fill_m = c->m, c->fill_nnz = c->Ap[c->m], c->fill_nf = nf;
    return tsr_chol_dense_llt(F, nf, shift, c);
  }
  c->fill_m = 0;  // analysed, and sparse: forget the last filled matrix
  c->stats.factorizations++;
  if (c->sym_ldl) {
    int d = ldl_numeric(nf, c->ffp, c->ffi, c->ffx, c->Lp, c->Parent, c->Lnz, c->Li, c->Lx, c->Dd, c->Yw, c->Pattern,
                        c->Flag, c->perm_F, c->Pinv);
    // LDL^T needs no pivoting on an SPD matrix; D <= 0 means A_FF is not
    // positive definite (as a failed Cholesky would say).
    int ok = d == nf;
    for (int q = 0; ok && q < nf; q++) ok = c->Dd[q] > 0.0;
    if (!ok) {
      c->stats.not_posdef++;
      return 1;
    }
    c->method = TSR_CHOL_SPARSE_LDL;
    tsr_chol_rowmod_note_fresh(TSR_CHOL_SPARSE_LDL, shift, c);
    return 0;
  }
  cholmod_sparse S = aff_view(c, nf);
  double beta[2] = {0.0, 0.0};  // the shift is already in ffx
  int levels = tsr_chol_serial_begin();
  int ok = cholmod_factorize_p(&S, beta, NULL, 0, c->L, &c->cc);
  tsr_chol_serial_end(levels);
  if (!ok && c->cc.status != CHOLMOD_NOT_POSDEF) return -1;
  if (c->cc.status == CHOLMOD_NOT_POSDEF || c->L->minor < c->L->n) {
    c->stats.not_posdef++;
    // The numeric values in L are now partial; the symbolic part stays valid.
    return 1;
  }
  c->method = TSR_CHOL_SPARSE;
  tsr_chol_rowmod_note_fresh(TSR_CHOL_SPARSE, shift, c);
  return 0;
}

// A_FF with at least a quarter of its entries nonzero (an interface matrix
// S_Gamma of a pile: overlapping dense blocks) is factorised densely: BLAS-3
// dpotrf needs no ordering or symbolic analysis, which the sparse paths
// redo whenever F changes, i.e. at every pivot.
static int dense_enough(const int *F, int nf, const TsrChol *c) {
  if (nf > TSR_CHOL_DENSE_LARGE || c->force_path) return 0;  // TSR_CHOL_SPARSE forces a sparse path
  long nz = 0, need = (long)nf * nf / 4;
  if ((long)c->Ap[c->m] < need) return 0;  // all of A is too sparse: no scan
  for (int k = 0; k < nf && nz < need; k++)
    for (int p = c->Ap[F[k]]; p < c->Ap[F[k] + 1]; p++) nz += c->loc[c->Ai[p]] >= 0;
  return nz >= need;
}

int tsr_chol_factor(const int *F, int nf, TsrChol *c) { return tsr_chol_factor_shifted(F, nf, 0.0, c); }

int tsr_chol_factor_shifted(const int *F, int nf, double shift, TsrChol *c) {
  c->method = TSR_CHOL_NONE;
  if (tsr_chol_refused()) return TSR_CHOL_REFUSED;  // the solve is ending (chol.h)
  for (int i = 0; i < c->m; i++) c->loc[i] = -1;
  for (int k = 0; k < nf; k++) c->loc[F[k]] = k;
  c->nf = nf;
  if (nf == 0) {
    c->method = TSR_CHOL_DENSE_LLT;
    return 0;
  }
  if (c->symmetric) {
    int dense = nf <= TSR_CHOL_DENSE_MAX || like_filled(nf, c) || dense_enough(F, nf, c);
    int rc = dense ? tsr_chol_dense_llt(F, nf, shift, c) : factor_sparse(F, nf, shift, c);
    if (rc <= 0) return rc;
    // Not positive definite. Unshifted, that is a multibody A_FF made
    // singular by redundant rows without compliance: report it, and the
    // callers factorise A_FF + delta I and refine (bpp.c solve_set). Dense
    // LU would "succeed" there on pivots of rounding size and return
    // impulses of any size along the null space (a 1,000-link chain with
    // every ball joint doubled diverged in 3 steps), in O(|F|^2) memory and
    // O(|F|^3) time (288 MB and 3 s a step there). LU stays for what a
    // shift does not make positive definite (indefinite symmetric A).
    if (shift == 0.0 && nf > TSR_CHOL_DENSE_MAX) return -2;
  }
  if (nf > TSR_CHOL_LU_MAX) {
    c->stats.lu_refused++;
    return -3;
  }
  if (affordable(nf, 2.0 / 3.0 * (double)nf * (double)nf * (double)nf)) return TSR_CHOL_REFUSED;
  return factor_dense_lu(F, nf, shift, c);
}

int tsr_chol_solve(const double *rhs, double *x, TsrChol *c) {
  int nf = c->nf, one = 1, info = 0;
  if (nf == 0) return 0;
  switch (c->method) {
    case TSR_CHOL_DENSE_LLT:
      return tsr_chol_dense_solve(rhs, x, c);
    case TSR_CHOL_DENSE_LU:
      if (x != rhs) memcpy(x, rhs, (size_t)nf * sizeof *x);
      dgetrs_("N", &nf, &one, c->D, &nf, c->ipiv, x, &nf, &info);
      return info ? -1 : 0;
    case TSR_CHOL_SPARSE_LDL:
      // x = P^T L^-T D^-1 L^-1 P rhs
      ldl_perm(nf, c->Yw, (double *)rhs, c->perm_F);
      ldl_lsolve(nf, c->Yw, c->Lp, c->Li, c->Lx);
      ldl_dsolve(nf, c->Yw, c->Dd);
      ldl_ltsolve(nf, c->Yw, c->Lp, c->Li, c->Lx);
      ldl_permt(nf, x, c->Yw, c->perm_F);
      return 0;
    case TSR_CHOL_SPARSE_MOD:
      return tsr_chol_rowmod_solve(rhs, x, c);
    case TSR_CHOL_SPARSE: {
      cholmod_dense B = {0};
      B.nrow = (size_t)nf;
      B.ncol = 1;
      B.nzmax = (size_t)nf;
      B.d = (size_t)nf;
      B.x = (void *)rhs;
      B.xtype = CHOLMOD_REAL;
      B.dtype = CHOLMOD_DOUBLE;
      int levels = tsr_chol_serial_begin();
      int ok = cholmod_solve2(CHOLMOD_A, c->L, &B, NULL, &c->X, NULL, &c->Y, &c->E, &c->cc);
      tsr_chol_serial_end(levels);
      if (!ok) return -1;
      memcpy(x, c->X->x, (size_t)nf * sizeof *x);
      return 0;
    }
    default:
      return -1;
  }
}

int tsr_chol_solve_many(double *X, int nrhs, TsrChol *c) {
  int nf = c->nf, info = 0;
  if (nf == 0 || nrhs <= 0) return 0;
  switch (c->method) {
    case TSR_CHOL_DENSE_LLT:
      return tsr_chol_dense_solve_many(X, nrhs, c);
    case TSR_CHOL_DENSE_LU:
      dgetrs_("N", &nf, &nrhs, c->D, &nf, c->ipiv, X, &nf, &info);
      return info ? -1 : 0;
    default:
      for (int k = 0; k < nrhs; k++)
        if (tsr_chol_solve(X + (size_t)k * nf, X + (size_t)k * nf, c)) return -1;
      return 0;
  }
}

void tsr_chol_syrk_full(int nf, int ng, const double *Z, double *S) {
  double one = 1.0, zero = 0.0;
  dsyrk_("U", "T", &ng, &nf, &one, Z, &nf, &zero, S, &ng);
  for (int b = 0; b < ng; b++)
    for (int a = 0; a < b; a++) S[b + (size_t)a * ng] = S[a + (size_t)b * ng];
}

int tsr_chol_schur(double *Gt, int ng, double *S, TsrChol *c) {
  int nf = c->nf;
  if (ng <= 0) return 0;
  memset(S, 0, (size_t)ng * (size_t)ng * sizeof *S);
  if (nf == 0) return 0;
  switch (c->method) {
    case TSR_CHOL_SPARSE_LDL: {
      // Z = D^-1/2 L^-1 P G^T (D > 0, checked when factorising), S = Z^T Z.
      // Rows of P G^T above the first nonzero stay zero in Z (L is lower
      // triangular), so only Z's trailing rows [p0, nf) are formed and
      // multiplied; with the coupled rows ordered last
      // (tsr_chol_order_last) that is a block of about ng rows instead of nf.
      int p0 = nf;
      for (int a = 0; a < ng; a++)
        for (int k = 0; k < nf; k++)
          if (Gt[(size_t)a * nf + k] != 0.0 && c->Pinv[k] < p0) p0 = c->Pinv[k];
      if (p0 == nf) return 0;  // G_F = 0
      int nt = nf - p0;
      double *X = c->Yw;
      for (int a = 0; a < ng; a++) {
        double *y = Gt + (size_t)a * nf;
        ldl_perm(nf, X, y, c->perm_F);
        // Forward solve, skipping the columns of L where the (sparse)
        // solution is zero: only the elimination tree above the coupled rows
        // is reached.
        for (int j = p0; j < nf; j++) {
          double xj = X[j];
          if (xj == 0.0) continue;
          for (int q = c->Lp[j]; q < c->Lp[j + 1]; q++) X[c->Li[q]] -= c->Lx[q] * xj;
        }
        // Column a of Z (ld nt) over the start of G^T: column a' > a of G^T
        // starts at a' nf >= (a + 1) nt, so no unread entry is overwritten.
        double *z = Gt + (size_t)a * nt;
        for (int k = 0; k < nt; k++) z[k] = X[p0 + k] / sqrt(c->Dd[p0 + k]);
      }
      tsr_chol_syrk_full(nt, ng, Gt, S);
      return 0;
    }
    case TSR_CHOL_DENSE_LLT:
      return tsr_chol_dense_schur(Gt, ng, S, c);
    case TSR_CHOL_SPARSE_MOD:
      return tsr_chol_rowmod_schur(Gt, ng, S, c);
    case TSR_CHOL_SPARSE: {
      // CHOLMOD's factor is L L^T (final_ll): Z = L^-1 P G^T for all ng
      // columns in one solve (supernodal: BLAS 3), S = Z^T Z. Solving
      // column by column and forming G K in a triple loop was 44% of a
      // log_tower step (schur-bpp, 1 thread).
      cholmod_dense B = {0};
      B.nrow = (size_t)nf;
      B.ncol = (size_t)ng;
      B.nzmax = (size_t)nf * (size_t)ng;
      B.d = (size_t)nf;
      B.x = Gt;
      B.xtype = CHOLMOD_REAL;
      B.dtype = CHOLMOD_DOUBLE;
      int levels = tsr_chol_serial_begin();
      cholmod_dense *PG = cholmod_solve(CHOLMOD_P, c->L, &B, &c->cc);
      cholmod_dense *Z = PG ? cholmod_solve(CHOLMOD_L, c->L, PG, &c->cc) : NULL;
      tsr_chol_serial_end(levels);
      if (Z) tsr_chol_syrk_full(nf, ng, Z->x, S);
      cholmod_free_dense(&PG, &c->cc);
      int ok = Z != NULL;
      cholmod_free_dense(&Z, &c->cc);
      return ok ? 0 : -1;
    }
    default: {
      // LU: K = A_FF^-1 G^T, S = G K (BLAS dgemm) symmetrised.
      size_t need = (size_t)nf * (size_t)ng;
      if (tsr_grow_size((void **)&c->G, &c->cap_G, need, sizeof *c->G)) return -1;
      double *G = c->G, one = 1.0, zero = 0.0;
      memcpy(G, Gt, need * sizeof *G);
      if (tsr_chol_solve_many(Gt, ng, c)) return -1;
      dgemm_("T", "N", &ng, &ng, &nf, &one, G, &nf, Gt, &nf, &zero, S, &ng);
      for (int a = 0; a < ng; a++)
        for (int b = a + 1; b < ng; b++)
          S[a + (size_t)b * ng] = S[b + (size_t)a * ng] = 0.5 * (S[a + (size_t)b * ng] + S[b + (size_t)a * ng]);
      return 0;
    }
  }
}
