// SPDX-License-Identifier: MIT
// The Schur complement substructuring solver, seed 000 Algorithm 1.
//
// With the rows ordered as subsystems 1..N then the interface Gamma (Eq. 15),
//
//   [ A_i   G_i^T ] [lambda_i    ]   [b_i    ]   [w_i    ]
//   [ G_i   A_Gam ] [lambda_Gamma] + [b_Gamma] = [w_Gamma],
//
// G_i is read off A (rows Gamma, columns of subsystem i). For the index sets
// I_i^(k-1) (free F_i, tight T_i at their bounds) the interface MLCP is
// S_Gamma lambda_Gamma + z_Gamma = w_Gamma (Eq. 18) with (Eqs. 24-25)
//
//   S_Gamma = A_Gamma - sum_i G_Fi A_FFi^-1 G_Fi^T,
//   z_Gamma = b_Gamma + sum_i ( G_Ti lambda_Ti - G_Fi A_FFi^-1 (b_Fi + A_FTi lambda_Ti) ).
//
// Each term is formed from a factorisation of A_FF,i = P^T L D L^T P: with
// Y = L^-1 P G_F^T (one forward solve per interface row coupled to i), the
// term is Y^T D^-1 Y (linalg/chol.h, tsr_chol_schur). The factorisation is
// the subsystem BPP's own (tsr_bpp_factor), so when the subsystem solve of the
// previous coupling iteration ended on the set now used for S_Gamma, it is
// reused (§5.2), and the subsystem BPP warm-started from that same set reuses
// the factorisation made for S_Gamma: a bilateral system costs one
// factorisation per subsystem and one of S_Gamma per step.
//
// Coupling iteration k: S_Gamma, z_Gamma from I^(k-1) (parallel blocks,
// summed in subsystem order so the result does not depend on the thread
// count), the interface MLCP by BPP or PGS-SM, the subsystem MLCPs with
// b_i = b_i0 + G_i^T lambda_Gamma by BPP in parallel, I^k from their sets.
// Stop when I^k = I^(k-1) (converged), or at k_max. Every BPP here (the
// interface's and the subsystems') has the restarts of bpp_retry.c: a
// subsystem whose block pivoting stalls (piles: nearly singular A_FF from
// redundant contacts) is solved by projected Newton inside that subsystem.
// Replaying chain_drop's pile-up (steps 360-600, bench/bench_replay.c), the
// whole-system fallback below went from 105 of 240 steps to 57 with them.
//
// When Algorithm 1 ends unconverged (k_max, a cycle, or its best residual
// has not halved for STALL_ITERATIONS iterations), the step is run once more
// on a coarser partition: the subsystems whose index sets were still
// changing in its last two coupling iterations are merged with every
// subsystem they share an interface row with (merged_partition), from the
// best iterate. Replaying
// chain_drop's pile-up (steps 360-600), this took the steps left to the
// whole-system fallback from 62 of 240 to 1, and schur-bpp from 13.7 to 11.6
// ms per step (2 threads). TSR_SCHUR_NO_MERGE=1 turns it off.
//
// Linear subsystems (every row bilateral: a chain's joints away from any
// contact) have I_i all free at every coupling iteration, so their Sblk and
// zblk are formed once per step and lambda_i = -A_ii^-1 (b_i0 + G_i^T
// lambda_Gamma) is linear in lambda_Gamma (Eq. 16 without bounds). Their
// solve is deferred until the coupling loop ends: it is made once, for the
// lambda_Gamma of the iterate returned, instead of once per coupling
// iteration. Inside the loop their part of the interface rows' slack is
// G_i lambda_i = zblk_i - Sblk_i lambda_Gamma (coupled_residual), and their own
// rows' slack is zero. Deferral needs an unshifted factorisation (Sblk exact
// for A_ii); TSR_SCHUR_NO_DEFER=1 turns it off. On chain_wrap (7-8 of 10
// subsystems linear, mean k 2.6) this took schur-bpp from 0.49 to 0.45 ms per
// step on one thread; with two threads the linear subsystems were already
// solved beside the contact ones, and the step time did not change.
//
// Every coupling iterate is checked against the whole system (Eq. 29, formed
// from the subsystems' own residuals and the interface rows: see
// coupled_residual): the solver keeps the best one, returned when the sets
// never repeat, and it also stops when the residual is at round-off level
// (1e-12 max(1, |b|_inf)),
// since degenerate rows (lambda on its bound with w ~ 0, e.g. redundant
// contacts sharing a load) can flip between equivalent sets indefinitely.
// Seen on chain_drop: the load of the link next to an interface joint moves
// between its three collinear capsule contacts from one iteration to the
// next, so the sets cycle with period two at every step; returning the last
// iterate instead of the best one made the run blow up.
//
// A converged iterate is refined through the substructured factors when a
// row is above TSR_BPP_POLISH_ROW of its own terms (refine_interface):
// S_Gamma is a difference of large terms and the subsystems' forward errors
// reach the interface rows, so on bridge (cond(S_Gamma) ~ 1e7) rows were at
// 8.7e-9 where direct-bpp is at 3.7e-16; one step takes them to 1.4e-16.
// A singular subsystem's rows (solved through a shifted factor) are refined
// the same way. TSR_SCHUR_NO_REFINE=1 turns it off.
//
// Cycling (seed 000 §8.2 names it as an open problem): a hash of every I^k
// is kept; when I^k equals an earlier I^j, j < k-1, the sets cycle and more
// coupling iterations cannot help. The solver then makes one last pass with
// pivoting disabled: S_Gamma from I^k, the interface MLCP, and every
// subsystem solved for the fixed set I^k (Eq. 28), so that interface and
// subsystems agree on one index set (w_F = 0 for every free row of the whole
// system; only bound violations remain). TSR_SCHUR_NO_CYCLE_FIX=1 disables it
// (to measure what it does).
//
// Threads: one solve (both attempts, merged re-runs) runs on one team
// (team.h), whose loops over the subsystems and the interface columns do not
// wait for a thread that has not woken yet. Replaying chain_wrap's MLCPs
// (2,400 steps, 2 threads, old and new binaries in turn, 3 runs each),
// schur-bpp went from 1.87-1.98 to 1.61-1.82 times direct-bpp's time; two
// runs at once on the 2 cores, from 0.90-1.08 to 0.53-0.66 ms a step.
#include "solvers/schur.h"
#include "solvers/stop.h"
#include "solvers/team.h"
#include "math/tsr_math.h"
#include "util/clock.h"
#include "util/env.h"
#include "util/grow.h"
#include "util/union_find.h"
#include "util/fnv.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Coupling iterations of the first attempt without halving the best residual
// before it gives way to the merged re-run (tsr_schur_solve). On chain_drop's
// pile-up the remaining iterations rarely converge: stopping after 3 took
// the replayed steps 360-600 from 11.3 to 10.4 ms (2 threads), every step
// still converged. With projected Newton's face step (pn.c) the merged re-run
// needs less of a head start: 2 instead of 3 took those steps from 7.8 to
// 7.5 ms, log_tower's first 200 from 21.5 to 20.5; other scenes unchanged.
#define STALL_ITERATIONS 2

// Interface rows from which S_Gamma's columns are assembled in parallel
// (interface_by_columns).
#define PARALLEL_IFACE_COLUMNS 256

// Refinement steps through the substructured factors at most
// (refine_interface), each kept only when it halves the interface rows'
// largest relative residual.
#define REFINE_STEPS 4

struct TsrSchur {
  TsrSubstructure ss;
  int iface_solver;
  int cycle_fix;
  int merge;   // merged_partition after a failure (TSR_SCHUR_NO_MERGE=1: off)
  int defer;   // linear subsystems solved once per step (TSR_SCHUR_NO_DEFER=1: off)
  int refine;  // refine_interface (TSR_SCHUR_NO_REFINE=1: off)
  int *merge_up, *merge_rows;
  int cap_merge_up, cap_merge_rows, cap_keep_lambda, cap_keep_set;
  // Sticky merges (tsr_schur_solve): the groups of the last merge, as the
  // merged subsystem of each of the sticky_n subsystems of the partition
  // given, used for sticky_left more steps (TSR_SCHUR_NO_STICKY=1: off).
  int sticky;
  int sticky_n, sticky_left;
  uint64_t sticky_hash;  // of the partition's body_subsystem at the merge: the groups name its subsystems
  int *last_gid, cap_last_gid, last_n;  // the groups of the last merge (and its partition's n, hash)
  uint64_t last_hash;
  unsigned hist_merge;  // bit k: whether the solve k solves ago needed a merged re-run
  int *sticky_gid, *sticky_rows, *sticky_cand;
  int cap_sticky_gid, cap_sticky_rows, cap_sticky_cand;
  double *keep_lambda;  // the first attempt's iterate (tsr_schur_solve)
  int8_t *keep_set;
  int trace;
  int measure_cond;
  int unpolished;  // the last solve's rows stayed above SCHUR_UNPOLISHED_ROW through a shifted subsystem
  double *dense;   // scratch of the condition number
  size_t cap_dense;
  int cap_hist;
  uint64_t *hist;
  int cap_best;  // the best coupling iterate (lowest Eq. 29 residual)
  double *best_lambda;
  int8_t *best_set;
  double *row_rho;  // [2 m]: each row's relative residual, then sigma (rows_residual)
  int cap_rho;
};

double tsr_substructure_now(void) { return tsr_now_seconds(); }

static void sub_free(TsrSchurSub *u) {
  free(u->rows), free(u->b0), free(u->Gp), free(u->Gg), free(u->Gl), free(u->Gx), free(u->gam);
  free(u->Sblk), free(u->K), free(u->t), free(u->fpos), free(u->ry), free(u->lambda), free(u->set), free(u->prev_set);
  free(u->blk_set);
  tsr_mlcp_free(&u->mlcp);
  tsr_bpp_free(&u->bpp);
  tsr_bpp_retry_free(&u->retry);
  memset(u, 0, sizeof *u);
}

void tsr_substructure_free(TsrSubstructure *ss) {
  for (int i = 0; i < ss->cap_sub; i++) sub_free(&ss->sub[i]);
  free(ss->sub), free(ss->order), free(ss->sub_of), free(ss->loc), free(ss->gamma), free(ss->w);
  free(ss->lam_g), free(ss->lam_g_old), free(ss->w_def), free(ss->set_g);
  free(ss->ip), free(ss->ii), free(ss->ib), free(ss->mark), free(ss->list), free(ss->spa), free(ss->coff);
  free(ss->dense);
  free(ss->item_max);
  tsr_mlcp_free(&ss->iface);
  tsr_bpp_free(&ss->ibpp);
  tsr_bpp_retry_free(&ss->iretry);
  tsr_pgs_sm_free(&ss->ipgs);
  memset(ss, 0, sizeof *ss);
}

// Per-subsystem arrays sized for n rows and nnz_ub entries of A's columns.
static int sub_reserve(TsrSchurSub *u, int n, int nnz_ub) {
  if (!u->bpp) {
    if (!(u->bpp = tsr_bpp_create()) || !(u->retry = tsr_bpp_retry_create())) return -1;
    tsr_bpp_enable_reuse(u->bpp, 1);
    tsr_mlcp_init(&u->mlcp);
  }
  if (n > u->cap_n || !u->rows) {
    int c = n + n / 4 + 8;
    int *r = realloc(u->rows, (size_t)c * sizeof *r), *gp = realloc(u->Gp, (size_t)(c + 1) * sizeof *gp);
    if (r) u->rows = r;
    if (gp) u->Gp = gp;
    double *b0 = realloc(u->b0, (size_t)c * sizeof *b0);
    if (b0) u->b0 = b0;
    double *t = realloc(u->t, (size_t)c * sizeof *t), *l = realloc(u->lambda, (size_t)c * sizeof *l);
    if (t) u->t = t;
    if (l) u->lambda = l;
    int8_t *s = realloc(u->set, (size_t)c), *ps = realloc(u->prev_set, (size_t)c);
    if (s) u->set = s;
    if (ps) u->prev_set = ps;
    int8_t *bs = realloc(u->blk_set, (size_t)c);
    if (bs) u->blk_set = bs;
    int *fp = realloc(u->fpos, (size_t)c * sizeof *fp);
    if (fp) u->fpos = fp;
    double *ry = realloc(u->ry, (size_t)(2 * c) * sizeof *ry);
    if (ry) u->ry = ry;
    if (!bs || !fp || !ry) return -1;
    if (!r || !gp || !b0 || !t || !l || !s || !ps) return -1;
    u->cap_n = c;
  }
  if (nnz_ub > u->cap_g || !u->Gg) {
    int c = nnz_ub + nnz_ub / 4 + 8;
    int *gg = realloc(u->Gg, (size_t)c * sizeof *gg), *gl = realloc(u->Gl, (size_t)c * sizeof *gl);
    if (gg) u->Gg = gg;
    if (gl) u->Gl = gl;
    double *gx = realloc(u->Gx, (size_t)c * sizeof *gx);
    if (gx) u->Gx = gx;
    if (!gg || !gl || !gx) return -1;
    u->cap_g = c;
  }
  if (tsr_mlcp_reserve(&u->mlcp, n, nnz_ub)) return -1;
  return 0;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

// Extracts A_i, b_i0, bounds and G_i^T of subsystem u (rows already listed).
static int sub_extract(const TsrMlcp *p, const int *sub_of, const int *loc, int i, int n_iface, int *seen, int *pos,
                       TsrSchurSub *u) {
  int n = u->n, nnz_ub = 0;
  for (int c = 0; c < n; c++) nnz_ub += p->Ap[u->rows[c] + 1] - p->Ap[u->rows[c]];
  if (sub_reserve(u, n, nnz_ub)) return -1;
  TsrMlcp *A = &u->mlcp;
  A->m = n;
  A->symmetric = p->symmetric;
  int na = 0, ng = 0;
  // Locals: through A and u the compiler reloads every pointer after each
  // store (this loop was three quarters of the extraction).
  const int *restrict pAp = p->Ap, *restrict pAi = p->Ai, *restrict rows = u->rows;
  const double *restrict pAx = p->Ax;
  int *restrict Ap = A->Ap, *restrict Ai = A->Ai, *restrict Gp = u->Gp, *restrict Gg = u->Gg;
  double *restrict Ax = A->Ax, *restrict Gx = u->Gx;
  Ap[0] = Gp[0] = 0;
  for (int c = 0; c < n; c++) {
    int j = rows[c];
    for (int q = pAp[j], end = pAp[j + 1]; q < end; q++) {
      int r = pAi[q], s = sub_of[r];
      if (s == i) {
        Ai[na] = loc[r];
        Ax[na++] = pAx[q];
      } else if (s < 0) {
        Gg[ng] = loc[r];
        Gx[ng++] = pAx[q];
      }
    }
    Ap[c + 1] = na;
    Gp[c + 1] = ng;
    u->b0[c] = p->b[j];
    A->lo[c] = p->lo[j];
    A->hi[c] = p->hi[j];
  }
  // Gamma_i: the distinct interface rows in G_i, increasing; Gl = position.
  // seen / pos (the thread's, [n_iface]) mark each interface
  // row met in this subsystem with i and give its position in gam, in place
  // of a sort of all of G_i's entries (thousands per subsystem on the
  // towers) and a binary search per entry: extraction went from 0.52-0.57 to
  // 0.27-0.34 ms per step on log_tower (2 threads), the same gam and Gl.
  if (tsr_grow((void **)&u->gam, &u->cap_ng, ng + 1, sizeof *u->gam)) return -1;
  int nu = 0;
  for (int q = 0; q < ng; q++) {
    int g = u->Gg[q];
    if (seen[g] != i) seen[g] = i, u->gam[nu++] = g;
  }
  if ((long)nu * 8 > n_iface) {  // dense in Gamma: a scan of the marks is sorted already
    nu = 0;
    for (int g = 0; g < n_iface; g++)
      if (seen[g] == i) u->gam[nu++] = g;
  } else {
    qsort(u->gam, (size_t)nu, sizeof *u->gam, cmp_int);
  }
  u->ng = nu;
  for (int a = 0; a < nu; a++) pos[u->gam[a]] = a;
  for (int q = 0; q < ng; q++) u->Gl[q] = pos[u->Gg[q]];
  // Rows coupled to the interface are ordered last in A_FF's factorisation,
  // so that the Schur block is formed from a trailing block of the factor
  // (linalg/chol.h). prev_set is free scratch here (it is copied from set at
  // the start of every coupling iteration).
  for (int c = 0; c < n; c++) u->prev_set[c] = u->Gp[c + 1] > u->Gp[c];
  if (tsr_chol_order_last(n, u->prev_set, tsr_bpp_chol(u->bpp))) return -1;
  if (tsr_grow_size((void **)&u->Sblk, &u->cap_S, (size_t)nu * (size_t)nu + (size_t)nu + 1, sizeof *u->Sblk)) return -1;
  u->zblk = u->Sblk + (size_t)nu * (size_t)nu;
  tsr_bpp_invalidate(u->bpp);
  u->blk_ok = 0;
  u->linear = 1;
  for (int c = 0; c < n && u->linear; c++) u->linear = !isfinite(A->lo[c]) && !isfinite(A->hi[c]);
  u->deferred = 0;
  return 0;
}

// Room for ss->ng interface columns (ip, coff) and nthr threads' sparse
// accumulators (mark, list, spa: cap_col each), used by S_Gamma's assembly
// and, as marks and positions, by sub_extract.
static int reserve_columns(TsrSubstructure *ss, int nthr) {
  int ng = ss->ng;
  if (ng + 2 <= ss->cap_col && nthr <= ss->cap_spa_threads && ss->ip) return 0;
  int c = ng + 2 + ng / 4 + 16, t = nthr > ss->cap_spa_threads ? nthr : ss->cap_spa_threads;
  if (t < 1) t = 1;
  size_t ct = (size_t)c * (size_t)t;
  int *a = realloc(ss->ip, (size_t)c * sizeof *a), *m = realloc(ss->mark, ct * sizeof *m);
  int *l = realloc(ss->list, ct * sizeof *l), *o = realloc(ss->coff, (size_t)c * sizeof *o);
  double *x = realloc(ss->spa, ct * sizeof *x);
  if (a) ss->ip = a;
  if (m) ss->mark = m;
  if (l) ss->list = l;
  if (x) ss->spa = x;
  if (o) ss->coff = o;
  if (!a || !m || !l || !x || !o) return -1;
  ss->cap_col = c;
  ss->cap_spa_threads = t;
  return 0;
}

// The thread count params ask for (0: every core).
static int param_threads(const TsrSolverParams *params) {
  return params->threads > 0 ? params->threads : omp_get_max_threads();
}

// The team of a loop over the subsystems: no more threads than subsystems.
// A thread without a subsystem would only be woken and joined at each
// parallel region. (On a 16-core machine, chain_wrap's 10 subsystems spent
// 0.67 ms a step in the S_Gamma phase at 16 threads against 0.15 at 6,
// BENCHMARKS_16CORES.md; that machine was noisy, and the cap was not
// measured there.)
static int sub_threads(const TsrSubstructure *ss) {
  return ss->threads < ss->n_sub ? ss->threads : (ss->n_sub > 0 ? ss->n_sub : 1);
}

// Threads whose per-thread scratch a loop of nthr threads needs: inside a
// solve's team (team.h) any of its threads may run an item.
static int scratch_threads(const TsrSubstructure *ss, int nthr) {
  int t = tsr_team_size(ss->team);
  return t > nthr ? t : nthr;
}

// A loop of the solve (tsr_team_for) whose items are timed: the loop's wall
// time beyond its longest item is added to times.slack when more threads
// could split it (split: the loop has several items that this solver runs
// on several threads when it has them), so that the solve time less the
// slack bounds from below what any thread count could take (schur.h). Each
// thread keeps its own longest item (item_max), read after the loop; the
// loop's longest item is also added to *critical when given (the critical
// paths of TsrSchurTimes).
typedef struct {
  TsrTeamItem fn;
  void *ctx;
  double *item_max;
} TimedLoop;

static int timed_item(void *ctx, int item, int thread) {
  TimedLoop *l = ctx;
  double t0 = tsr_now_seconds();
  int rc = l->fn(l->ctx, item, thread);
  double dt = tsr_now_seconds() - t0;
  if (dt > l->item_max[thread]) l->item_max[thread] = dt;
  return rc;
}

static int sub_for(TsrSubstructure *ss, int nthr, int n, int chunk, int split, TsrTeamItem fn, void *ctx,
                   double *critical) {
  // (a loop whose times nothing reads, a small interface's or one item's,
  // is not timed: two clock reads per item of every step's loops)
  if (!critical && !(split && n > 1)) return tsr_team_for(ss->team, nthr, n, chunk, fn, ctx);
  int nt = scratch_threads(ss, nthr);
  if (tsr_grow((void **)&ss->item_max, &ss->cap_item_max, nt, sizeof *ss->item_max)) return -1;
  for (int t = 0; t < nt; t++) ss->item_max[t] = 0.0;
  TimedLoop l = {fn, ctx, ss->item_max};
  double t0 = tsr_now_seconds();
  int rc = tsr_team_for(ss->team, nthr, n, chunk, timed_item, &l);
  double wall = tsr_now_seconds() - t0, longest = 0.0;
  for (int t = 0; t < nt; t++) longest = fmax(longest, ss->item_max[t]);
  if (split && n > 1) ss->times.slack += fmax(0.0, wall - longest);
  if (critical) *critical += longest;
  return rc;
}

// Item o of a loop over the subsystems, largest first.
static TsrSchurSub *sub_at(TsrSubstructure *ss, int o) { return &ss->sub[ss->order[o]]; }

// A loop whose items use the calling thread's row (cc entries) of the
// per-thread scratch (mark, list, spa).
typedef struct {
  const TsrMlcp *p;
  TsrSubstructure *ss;
  size_t cc;
} ScratchLoop;

static int extract_item(void *ctx, int o, int thread) {
  ScratchLoop *e = ctx;
  TsrSubstructure *ss = e->ss;
  size_t t = (size_t)thread * e->cc;
  return sub_extract(e->p, ss->sub_of, ss->loc, ss->order[o], ss->ng, ss->mark + t, ss->list + t,
                     &ss->sub[ss->order[o]]) != 0;
}

int tsr_substructure_setup(const TsrMlcp *p, const TsrPartition *part, const TsrSolverParams *params,
                           TsrSubstructure *ss) {
  int m = p->m;
  int nsub = part && part->n_rows == m ? part->n_subsystems : 1;
  // (a model where nothing moves has no subsystem, which the step reports;
  // the arrays below take at least one)
  ss->n_reported = nsub;
  if (nsub < 1) nsub = 1;
  ss->threads = param_threads(params);
  ss->iface_pattern = 0;  // the partition or the blocks' rows may differ
  if (m + 1 > ss->cap_m || !ss->sub_of) {
    int c = m + 1 + m / 4 + 8;
    int *a = realloc(ss->sub_of, (size_t)c * sizeof *a), *b = realloc(ss->loc, (size_t)c * sizeof *b);
    if (a) ss->sub_of = a;
    if (b) ss->loc = b;
    double *w = realloc(ss->w, (size_t)c * sizeof *w);
    if (w) ss->w = w;
    if (!a || !b || !w) return -1;
    ss->cap_m = c;
  }
  if (nsub > ss->cap_sub) {
    TsrSchurSub *q = realloc(ss->sub, (size_t)nsub * sizeof *q);
    int *o = realloc(ss->order, (size_t)nsub * sizeof *o);
    if (q) ss->sub = q;
    if (o) ss->order = o;
    if (!q || !o) return -1;
    memset(ss->sub + ss->cap_sub, 0, (size_t)(nsub - ss->cap_sub) * sizeof *q);
    ss->cap_sub = nsub;
  }
  ss->n_sub = nsub;
  // Rows of each subsystem and of Gamma, in increasing global order.
  for (int i = 0; i < nsub; i++) ss->sub[i].n = 0;
  int ng = 0;
  for (int r = 0; r < m; r++) {
    int s = part && part->n_rows == m ? part->row_subsystem[r] : 0;
    if (s >= nsub) s = -1;  // cannot happen for a valid partition
    ss->sub_of[r] = s;
    ss->loc[r] = s < 0 ? ng++ : ss->sub[s].n++;
  }
  ss->ng = ng;
  int cg = ss->cap_ng;
  if (tsr_grow((void **)&ss->gamma, &ss->cap_ng, ng + 1, sizeof *ss->gamma)) return -1;
  if (ss->cap_ng != cg || !ss->lam_g) {
    free(ss->lam_g), free(ss->lam_g_old), free(ss->w_def), free(ss->set_g);
    ss->lam_g = malloc((size_t)ss->cap_ng * sizeof(double));
    ss->lam_g_old = malloc((size_t)ss->cap_ng * sizeof(double));
    ss->w_def = malloc((size_t)ss->cap_ng * sizeof(double));
    ss->set_g = malloc((size_t)ss->cap_ng);
    if (!ss->lam_g || !ss->lam_g_old || !ss->w_def || !ss->set_g) return -1;
  }
  for (int i = 0; i < nsub; i++) {
    TsrSchurSub *u = &ss->sub[i];
    if (sub_reserve(u, u->n, 0)) return -1;
    u->n = 0;
  }
  for (int r = 0; r < m; r++) {
    int s = ss->sub_of[r];
    if (s < 0)
      ss->gamma[ss->loc[r]] = r;
    else
      ss->sub[s].rows[ss->sub[s].n++] = r;
  }
  // Schedule: largest first (ties by index), a deterministic order.
  for (int i = 0; i < nsub; i++) ss->order[i] = i;
  for (int a = 1; a < nsub; a++) {
    int v = ss->order[a], b = a - 1;
    while (b >= 0 && ss->sub[ss->order[b]].n < ss->sub[v].n) ss->order[b + 1] = ss->order[b], b--;
    ss->order[b + 1] = v;
  }
  // sub_extract's marks and positions: each thread's mark and list of
  // S_Gamma's assembly (free until then), marks reset to -1.
  int nthr = sub_threads(ss), nscr = scratch_threads(ss, nthr);
  if (reserve_columns(ss, nscr)) return -1;
  size_t cc = (size_t)ss->cap_col;
  for (size_t k = 0; k < cc * (size_t)nscr; k++) ss->mark[k] = -1;
  ScratchLoop e = {p, ss, cc};
  return sub_for(ss, nthr, nsub, 1, 1, extract_item, &e, NULL) ? -1 : 0;
}

// b_i = b_i0 + G_i^T lambda_Gamma.
static void sub_rhs(const double *lam_g, TsrSchurSub *u) {
  for (int c = 0; c < u->n; c++) {
    double v = u->b0[c];
    for (int q = u->Gp[c]; q < u->Gp[c + 1]; q++) v += u->Gx[q] * lam_g[u->Gg[q]];
    u->mlcp.b[c] = v;
  }
}

static uint64_t set_hash(const int8_t *s, int n, uint64_t h) { return tsr_fnv1a(h, s, (size_t)n); }

// Index set made consistent with the bounds (as BPP does).
static int8_t normal_set(int8_t v, double lo, double hi) {
  if (lo == hi) return TSR_INDEX_LOWER;
  if (v == TSR_INDEX_LOWER && isfinite(lo)) return v;
  if (v == TSR_INDEX_UPPER && isfinite(hi)) return v;
  return TSR_INDEX_FREE;
}

void tsr_substructure_start(const TsrMlcp *p, const TsrSolverParams *params, const double *lambda,
                            const int8_t *index_set, TsrSubstructure *ss) {
  int warm = params->warm_start != 0;
  for (int i = 0; i < ss->n_sub; i++) {
    TsrSchurSub *u = &ss->sub[i];
    for (int c = 0; c < u->n; c++) {
      int r = u->rows[c];
      u->set[c] = normal_set(warm && index_set ? index_set[r] : TSR_INDEX_FREE, p->lo[r], p->hi[r]);
      // the restarts' projected Newton starts here (bpp_retry.c)
      u->lambda[c] = warm && isfinite(lambda[r]) ? lambda[r] : 0.0;
    }
  }
  for (int g = 0; g < ss->ng; g++) {
    int r = ss->gamma[g];
    ss->set_g[g] = normal_set(warm && index_set ? index_set[r] : TSR_INDEX_FREE, p->lo[r], p->hi[r]);
    ss->lam_g[g] = warm && isfinite(lambda[r]) ? fmin(fmax(lambda[r], p->lo[r]), p->hi[r]) : 0.0;
  }
}

// SUBSYSTEMSOLVE on the subsystems whose deferred flag equals deferred: in
// the coupling loop (0) every subsystem but the deferred linear ones, whose
// statistics and rc are cleared; after it (1) those alone, the others left
// as their last coupling iteration made them.
typedef struct {
  TsrSubstructure *ss;
  TsrSolverParams sp;
  int deferred;
} SolveLoop;

static int solve_item(void *ctx, int o, int thread) {
  (void)thread;
  SolveLoop *l = ctx;
  TsrSchurSub *u = sub_at(l->ss, o);
  if (u->deferred != l->deferred) {
    if (!l->deferred) memset(&u->st, 0, sizeof u->st), u->rc = 0;
    return 0;
  }
  memset(&u->st, 0, sizeof u->st);
  sub_rhs(l->ss->lam_g, u);
  tsr_bpp_retry_set_skip(u->retry, l->ss->skip_class);
  u->rc = u->n ? tsr_bpp_retry_solve(&u->mlcp, &l->sp, u->lambda, u->set, &u->st, u->bpp, u->retry) : 0;
  return u->rc < 0;
}

static int solve_some(const TsrSolverParams *params, int deferred, TsrSubstructure *ss) {
  SolveLoop l = {ss, *params, deferred};
  l.sp.warm_start = 1;  // from sub->set (I^(k-1)), see Algorithm 1 and §5.2
  int fail = sub_for(ss, sub_threads(ss), ss->n_sub, 1, 1, solve_item, &l, &ss->times.subsystems_longest);
  return fail ? -1 : 0;
}

int tsr_substructure_solve_subsystems(const TsrSolverParams *params, TsrSubstructure *ss) {
  return solve_some(params, 0, ss);
}

void tsr_substructure_gather(const TsrSubstructure *ss, double *lambda, int8_t *index_set) {
  for (int i = 0; i < ss->n_sub; i++) {
    const TsrSchurSub *u = &ss->sub[i];
    for (int c = 0; c < u->n; c++) {
      lambda[u->rows[c]] = u->lambda[c];
      if (index_set) index_set[u->rows[c]] = u->set[c];
    }
  }
  for (int g = 0; g < ss->ng; g++) {
    lambda[ss->gamma[g]] = ss->lam_g[g];
    if (index_set) index_set[ss->gamma[g]] = ss->set_g[g];
  }
}

// Bound of a tight row.
static double tight_value(const TsrMlcp *A, int c, int8_t s) { return s == TSR_INDEX_UPPER ? A->hi[c] : A->lo[c]; }

// SCHURCOMP for one subsystem with its index set u->set: Sblk = G_F A_FF^-1
// G_F^T (symmetrised) and zblk = G_T lambda_T - G_F A_FF^-1 (b_F + A_FT lambda_T).
// With fixed_solve, also solves Eq. 28 for the fixed set into u->lambda (b_i
// already holds b_i0 + G_i^T lambda_Gamma) instead. Returns 0, 1 when A_FF
// was factorised with a shift (tsr_bpp_factor), < 0 on failure.
static int sub_schur(TsrSchurSub *u, double amax_shift, int fixed_solve) {
  const TsrMlcp *A = &u->mlcp;
  int n = u->n, ng = u->ng;
  const int *F;
  int nf;
  memset(u->Sblk, 0, (size_t)ng * (size_t)ng * sizeof *u->Sblk);
  memset(u->zblk, 0, (size_t)ng * sizeof *u->zblk);
  if (n == 0) return 0;
  int rc = tsr_bpp_factor(A, u->set, amax_shift, &F, &nf, u->bpp);
  if (rc < 0) return rc;
  TsrChol *ch = tsr_bpp_chol(u->bpp);
  const double *bsrc = fixed_solve ? A->b : u->b0;
  // t = b_F + A_FT lambda_T (local numbering of F), lambda_T at bounds.
  int *fpos = u->fpos;  // row -> position in F (-1 tight)
  for (int c = 0, k = 0; c < n; c++) {
    if (u->set[c] == TSR_INDEX_FREE) {
      fpos[c] = k;
      u->t[k++] = bsrc[c];
    } else {
      fpos[c] = -1;
    }
  }
  for (int c = 0; c < n; c++) {
    if (u->set[c] == TSR_INDEX_FREE) continue;
    double lt = tight_value(A, c, u->set[c]);
    u->lambda[c] = lt;
    if (lt == 0.0) continue;
    for (int q = A->Ap[c]; q < A->Ap[c + 1]; q++) {
      int k = fpos[A->Ai[q]];
      if (k >= 0) u->t[k] += A->Ax[q] * lt;
    }
    if (!fixed_solve)
      for (int q = u->Gp[c]; q < u->Gp[c + 1]; q++) u->zblk[u->Gl[q]] += u->Gx[q] * lt;
  }
  if (nf == 0) return 0;
  // x = A_FF^-1 t, one step of iterative refinement (ill-conditioned chains)
  // unless x is already backward stable entry by entry (mlcp.h).
  if (tsr_grow_size((void **)&u->K, &u->cap_K, (size_t)nf * (size_t)(ng + 3), sizeof *u->K)) return -1;
  double *x = u->K + (size_t)nf * (size_t)ng;
  double *r = x + nf, *scale = r + nf;
  if (tsr_chol_solve(u->t, x, ch)) return -1;
  if (tsr_mlcp_free_residual(A, F, nf, fpos, x, u->t, r, scale) > TSR_MLCP_REFINED_BERR) {
    if (tsr_chol_solve(r, r, ch)) return -1;
    for (int k = 0; k < nf; k++) x[k] += r[k];
  }
  if (fixed_solve) {
    for (int k = 0; k < nf; k++) u->lambda[F[k]] = -x[k];
    return rc;
  }
  for (int k = 0; k < nf; k++)
    for (int q = u->Gp[F[k]]; q < u->Gp[F[k] + 1]; q++) u->zblk[u->Gl[q]] -= u->Gx[q] * x[k];
  // Sblk = G_F A_FF^-1 G_F^T from the factors (forward solves only, see
  // tsr_chol_schur); K holds G_F^T, column a for interface row gam[a].
  double *K = u->K;
  memset(K, 0, (size_t)nf * (size_t)ng * sizeof *K);
  for (int k = 0; k < nf; k++)
    for (int q = u->Gp[F[k]]; q < u->Gp[F[k] + 1]; q++) K[(size_t)u->Gl[q] * nf + k] = u->Gx[q];
  return tsr_chol_schur(K, ng, u->Sblk, ch) ? -1 : rc;
}

// Threads of S_Gamma's assembly: several from PARALLEL_IFACE_COLUMNS
// interface rows on.
static int iface_threads(const TsrSubstructure *ss) {
  return ss->ng >= PARALLEL_IFACE_COLUMNS && ss->threads > 1 ? ss->threads : 1;
}

// Column g of S_Gamma (or A_Gamma) into its slots from coff[g] with a sparse
// accumulator (mark, list, spa: the calling thread's); Ap[g + 1] gets the
// count until interface_by_columns closes up the slots.
static void interface_column(const TsrMlcp *p, int g, int *mark, int *list, double *spa, TsrSubstructure *ss) {
  const int *ip = ss->ip;
  TsrMlcp *S = &ss->iface;
  int n = 0, j = ss->gamma[g], ng = ss->ng;
  for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) {
    int r = p->Ai[q];
    if (ss->sub_of[r] >= 0) continue;
    int row = ss->loc[r];
    if (mark[row] != g) mark[row] = g, spa[row] = 0.0, list[n++] = row;
    spa[row] += p->Ax[q];
  }
  for (int q = ip[g]; q < ip[g + 1]; q++) {
    const TsrSchurSub *u = &ss->sub[ss->ii[q]];
    const double *col = u->Sblk + (size_t)ss->ib[q] * u->ng;
    for (int a = 0; a < u->ng; a++) {
      int row = u->gam[a];
      if (mark[row] != g) mark[row] = g, spa[row] = 0.0, list[n++] = row;
      spa[row] -= col[a];
    }
  }
  int out = ss->coff[g];
  if ((double)n * (log2((double)n + 1.0) + 1.0) < (double)ng) {
    qsort(list, (size_t)n, sizeof *list, cmp_int);
    for (int k = 0; k < n; k++) {
      S->Ai[out] = list[k];
      S->Ax[out++] = spa[list[k]];
    }
  } else {  // a dense column: a scan of the marks is cheaper than a sort
    for (int row = 0; row < ng; row++)
      if (mark[row] == g) {
        S->Ai[out] = row;
        S->Ax[out++] = spa[row];
      }
  }
  S->Ap[g + 1] = out - ss->coff[g];  // the count, until the slots are closed up
}

// A_Gamma (with_schur = 0) or S_Gamma = A_Gamma - sum_i Sblk_i (Eq. 24) into
// ss->iface, column by column with a sparse accumulator: each entry sums
// A_Gamma's value first, then the blocks in subsystem order (the order does
// not depend on the thread count). nt bounds the entries. (A triplet list
// sorted twice did this before: 16% of a log_tower step, for interfaces of
// 1,000 rows with 100-row blocks.) Columns are independent: each one is
// formed into its own slots (an upper bound of its entries: A_Gamma's plus
// the heights of its blocks) by the threads, then the slots are closed up.
static int column_item(void *ctx, int g, int thread) {
  ScratchLoop *l = ctx;
  size_t t = (size_t)thread * l->cc;
  interface_column(l->p, g, l->ss->mark + t, l->ss->list + t, l->ss->spa + t, l->ss);
  return 0;
}

static int interface_by_columns(const TsrMlcp *p, int with_schur, int nt, TsrSubstructure *ss) {
  int ng = ss->ng, tot = 0;
  for (int i = 0; i < ss->n_sub; i++) tot += ss->sub[i].ng;
  if (tot + 1 > ss->cap_inv || !ss->ii) {
    int c = tot + tot / 4 + 16;
    int *a = realloc(ss->ii, (size_t)c * sizeof *a), *b = realloc(ss->ib, (size_t)c * sizeof *b);
    if (a) ss->ii = a;
    if (b) ss->ib = b;
    if (!a || !b) return -1;
    ss->cap_inv = c;
  }
  int nthr = iface_threads(ss), nscr = nthr > 1 ? scratch_threads(ss, nthr) : 1;
  if (reserve_columns(ss, nscr)) return -1;
  int *ip = ss->ip;
  memset(ip, 0, (size_t)(ng + 1) * sizeof *ip);
  for (int i = 0; with_schur && i < ss->n_sub; i++)
    for (int b = 0; b < ss->sub[i].ng; b++) ip[ss->sub[i].gam[b] + 1]++;
  for (int g = 0; g < ng; g++) ip[g + 1] += ip[g];
  for (int i = 0; with_schur && i < ss->n_sub; i++)  // subsystem order within each column
    for (int b = 0; b < ss->sub[i].ng; b++) {
      int g = ss->sub[i].gam[b], q = ip[g]++;
      ss->ii[q] = i, ss->ib[q] = b;
    }
  for (int g = ng; g > 0; g--) ip[g] = ip[g - 1];
  ip[0] = 0;
  // Column g's slots: A_Gamma's entries in Gamma plus the heights of its blocks.
  int *coff = ss->coff;
  coff[0] = 0;
  for (int g = 0; g < ng; g++) {
    int j = ss->gamma[g], b = 0;
    for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) b += ss->sub_of[p->Ai[q]] < 0;
    for (int q = ip[g]; q < ip[g + 1]; q++) b += ss->sub[ss->ii[q]].ng;
    coff[g + 1] = coff[g] + b;
  }
  TsrMlcp *S = &ss->iface;
  if (tsr_mlcp_reserve(S, ng, coff[ng] > nt ? coff[ng] : nt)) return -1;
  size_t cc = (size_t)ss->cap_col;
  for (size_t k = 0; k < cc * (size_t)nscr; k++) ss->mark[k] = -1;
  ScratchLoop l = {p, ss, cc};
  if (sub_for(ss, nthr, ng, 16, ng >= PARALLEL_IFACE_COLUMNS, column_item, &l, NULL)) return -1;
  // Close up the slots (moving left: each column starts at or after out).
  int out = 0;
  S->Ap[0] = 0;
  for (int g = 0; g < ng; g++) {
    int n = S->Ap[g + 1];
    if (out != coff[g]) {
      memmove(S->Ai + out, S->Ai + coff[g], (size_t)n * sizeof *S->Ai);
      memmove(S->Ax + out, S->Ax + coff[g], (size_t)n * sizeof *S->Ax);
    }
    out += n;
    S->Ap[g + 1] = out;
  }
  S->m = ng;
  S->symmetric = 1;
  return 0;
}

// S_Gamma's values into the pattern of the last assembly (interface_by_columns
// with the same partition: the blocks' interface rows, hence the pattern, do
// not change between coupling iterations). Each entry is summed in the same
// order as there, without the marks, the sort and the closing up, which were
// most of an assembly of log_tower's large interfaces. Only the columns that
// some block formed anew in this coupling iteration holds (blk_new) are
// summed again, into iface and, where the last assembly kept one, the dense
// array: the others' sums have not changed, so every entry is the one a whole
// assembly would give, bit for bit. On log_tower's collapse, a coupling
// iteration after the first re-forms the blocks of 4.2 of its 10.8
// subsystems on average, and this sum was 13% of schur-bpp's time (1
// thread); but a block spans many columns, and 75% of the columns are still
// summed, so the gain is small: 47.6 -> 46.7 ms a step (2 threads, means of
// 3 whole runs each, within this machine's noise). TSR_SCHUR_NO_PARTIAL_SUMS=1
// sums every column (tests compare the two).
static int values_item(void *ctx, int g, int thread) {
  ScratchLoop *l = ctx;
  const TsrMlcp *p = l->p;
  TsrSubstructure *ss = l->ss;
  TsrMlcp *S = &ss->iface;
  int ng = ss->ng;
  double *dense = S->dense ? ss->dense : NULL;  // iface.dense is ss->dense, read-only there
  int fresh = ss->whole_sums;
  for (int q = ss->ip[g]; q < ss->ip[g + 1] && !fresh; q++) fresh = ss->sub[ss->ii[q]].blk_new;
  if (!fresh) return 0;
  double *spa = ss->spa + (size_t)thread * l->cc;
  for (int k = S->Ap[g]; k < S->Ap[g + 1]; k++) spa[S->Ai[k]] = 0.0;
  int j = ss->gamma[g];
  for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++)
    if (ss->sub_of[p->Ai[q]] < 0) spa[ss->loc[p->Ai[q]]] += p->Ax[q];
  for (int q = ss->ip[g]; q < ss->ip[g + 1]; q++) {
    const TsrSchurSub *u = &ss->sub[ss->ii[q]];
    const double *col = u->Sblk + (size_t)ss->ib[q] * u->ng;
    for (int a = 0; a < u->ng; a++) spa[u->gam[a]] -= col[a];
  }
  for (int k = S->Ap[g]; k < S->Ap[g + 1]; k++) S->Ax[k] = spa[S->Ai[k]];
  if (dense)
    for (int k = S->Ap[g]; k < S->Ap[g + 1]; k++) dense[(size_t)g * (size_t)ng + (size_t)S->Ai[k]] = S->Ax[k];
  return 0;
}

static int interface_values(const TsrMlcp *p, TsrSubstructure *ss) {
  // iface_threads as in that assembly: its scratch has room
  ScratchLoop l = {p, ss, (size_t)ss->cap_col};
  return sub_for(ss, iface_threads(ss), ss->ng, 16, ss->ng >= PARALLEL_IFACE_COLUMNS, values_item, &l, NULL) ? -1 : 0;
}

// An interface matrix up to this order with at least a quarter of its
// entries nonzero (S_Gamma of a pile, of log_tower) is also kept as a dense
// array, which the interface solve's loops over columns read instead of the
// CSC arrays (TsrMlcp.dense): the same sums in the same order, without the
// index loads. On log_tower's collapse those loops (block pivoting's
// right-hand sides and refinement, projected Newton's products, gathering
// dense factors) were two thirds of the interface solve, itself 43% of
// schur-bpp's time. Replaying log_tower's steps 200-420 (2 threads), the
// interface solve went from 17.8 to 15.5 ms per step; above 1,024 rows
// filling the array cost what it saved.
#define DENSE_IFACE_MAX 1024

// ss->dense from ss->iface after a whole assembly, and iface.dense set to it
// or, for a sparse or large interface, NULL. The values-only assemblies of
// later coupling iterations (interface_values) keep the pattern, hence the
// zeros outside it, and write their columns into it themselves.
static void iface_dense(TsrSubstructure *ss) {
  TsrMlcp *S = &ss->iface;
  int n = S->m;
  double nnz = n > 0 ? (double)S->Ap[n] : 0.0;
  S->dense = NULL;
  if (n == 0 || n > DENSE_IFACE_MAX || 4.0 * nnz < (double)n * (double)n ||
      tsr_grow_size((void **)&ss->dense, &ss->cap_dense, (size_t)n * (size_t)n, sizeof *ss->dense))
    return;
  memset(ss->dense, 0, (size_t)n * (size_t)n * sizeof *ss->dense);
  for (int g = 0; g < n; g++) {
    double *col = ss->dense + (size_t)g * (size_t)n;
    for (int k = S->Ap[g]; k < S->Ap[g + 1]; k++) col[S->Ai[k]] = S->Ax[k];
  }
  S->dense = ss->dense;
}

// The interface matrix: A_Gamma (with_schur = 0, FBIC) or S_Gamma (Eq. 24),
// the blocks summed in subsystem order. z_Gamma into iface.b when with_schur.
int tsr_substructure_interface(const TsrMlcp *p, int with_schur, TsrSubstructure *ss) {
  int ng = ss->ng, nt = 0;
  if (with_schur && ss->iface_pattern) {
    if (interface_values(p, ss)) return -1;  // iface.dense as the last assembly left it, updated
  } else {
    for (int g = 0; g < ng; g++) {
      int j = ss->gamma[g];
      for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) nt += ss->sub_of[p->Ai[q]] < 0;
    }
    for (int i = 0; with_schur && i < ss->n_sub; i++) nt += ss->sub[i].ng * ss->sub[i].ng;
    if (interface_by_columns(p, with_schur, nt, ss)) return -1;
    ss->iface_pattern = with_schur;
    iface_dense(ss);
  }
  // b_Gamma (+ the z_Gamma terms of Eq. 25), bounds.
  TsrMlcp *S = &ss->iface;
  for (int g = 0; g < ng; g++) {
    int j = ss->gamma[g];
    S->b[g] = p->b[j];
    S->lo[g] = p->lo[j];
    S->hi[g] = p->hi[j];
  }
  if (with_schur)
    for (int i = 0; i < ss->n_sub; i++) {
      const TsrSchurSub *u = &ss->sub[i];
      for (int a = 0; a < u->ng; a++) S->b[u->gam[a]] += u->zblk[a];
    }
  return 0;
}

TsrSchur *tsr_schur_create(int iface_solver) {
  TsrSchur *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->iface_solver = iface_solver;
  s->cycle_fix = !tsr_env_flag("TSR_SCHUR_NO_CYCLE_FIX");
  s->trace = getenv("TSR_SCHUR_TRACE") != NULL;
  s->merge = !tsr_env_flag("TSR_SCHUR_NO_MERGE");
  s->sticky = !tsr_env_flag("TSR_SCHUR_NO_STICKY");
  s->defer = !tsr_env_flag("TSR_SCHUR_NO_DEFER");
  s->refine = !tsr_env_flag("TSR_SCHUR_NO_REFINE");
  s->ss.whole_sums = tsr_env_flag("TSR_SCHUR_NO_PARTIAL_SUMS");
  tsr_mlcp_init(&s->ss.iface);
  s->ss.ibpp = tsr_bpp_create();
  if (s->ss.ibpp) tsr_bpp_enable_reuse(s->ss.ibpp, 1);  // refine_interface reuses its last factor
  s->ss.ipgs = tsr_pgs_sm_create();
  if (!s->ss.ibpp || !s->ss.ipgs) tsr_schur_free(&s);
  tsr_chol_blas_single_thread();
  return s;
}

void tsr_schur_free(TsrSchur **ps) {
  TsrSchur *s = ps ? *ps : NULL;
  if (!s) return;
  tsr_substructure_free(&s->ss);
  free(s->hist);
  free(s->merge_up), free(s->merge_rows), free(s->keep_lambda), free(s->keep_set);
  free(s->sticky_gid), free(s->sticky_rows), free(s->sticky_cand), free(s->last_gid);
  free(s->best_lambda);
  free(s->best_set);
  free(s->row_rho);
  free(s->dense);
  free(s);
  *ps = NULL;
}

int tsr_schur_unpolished(const TsrSchur *s) { return s->unpolished; }

const TsrSchurTimes *tsr_schur_times(const TsrSchur *s) { return &s->ss.times; }

void tsr_schur_measure_cond(TsrSchur *s, int on) { s->measure_cond = on; }

extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w, double *work,
                   const int *lwork, int *info);

// cond_2 of the symmetric interface matrix in ss->iface (eigenvalues by LAPACK).
static void add_cond(TsrSchur *s) {
  const TsrMlcp *S = &s->ss.iface;
  int n = S->m;
  if (n <= 0) return;
  size_t need = (size_t)n * (size_t)n + (size_t)n + 64 * (size_t)n;
  if (tsr_grow_size((void **)&s->dense, &s->cap_dense, need, sizeof *s->dense)) return;
  double *A = s->dense, *w = A + (size_t)n * n, *work = w + n;
  memset(A, 0, (size_t)n * (size_t)n * sizeof *A);
  for (int c = 0; c < n; c++)
    for (int q = S->Ap[c]; q < S->Ap[c + 1]; q++) A[(size_t)c * n + S->Ai[q]] = S->Ax[q];
  int lwork = 64 * n, info = 0;
  dsyev_("N", "U", &n, A, &n, w, work, &lwork, &info);
  if (info) return;
  double lo = INFINITY, hi = 0.0;
  for (int i = 0; i < n; i++) lo = fmin(lo, fabs(w[i])), hi = tsr_maxd(hi, fabs(w[i]));
  s->ss.times.cond_sum += lo > 0.0 ? hi / lo : INFINITY;
  s->ss.times.cond_n++;
}

// Eq. 29 of the whole system from its parts, without a product with all of
// A: the rows of subsystem i are its MLCP's rows with b_i = b_i0 + G_i^T
// lambda_Gamma, whose residual (2-norm) its solve just reported for the
// lambda_i it returned; the interface rows' slack is formed here from their
// columns of A (symmetric). Summed in subsystem order.
//
// A deferred subsystem (not solved yet) has w_i = 0 by construction, and its
// part of the interface rows' slack is G_i lambda_i = zblk_i - Sblk_i
// lambda_Gamma (Eqs. 24-25 with lambda_i = A_ii^-1 (-b_i0 - G_i^T
// lambda_Gamma)), summed first into ss->w_def.
static double coupled_residual(const TsrMlcp *p, TsrSubstructure *ss) {
  double sq = 0.0, *w_def = ss->w_def;
  for (int i = 0; i < ss->n_sub; i++) sq += ss->sub[i].st.residual * ss->sub[i].st.residual;
  for (int g = 0; g < ss->ng; g++) w_def[g] = 0.0;
  for (int i = 0; i < ss->n_sub; i++) {
    const TsrSchurSub *u = &ss->sub[i];
    if (!u->deferred) continue;
    for (int a = 0; a < u->ng; a++) {
      double v = u->zblk[a];
      const double *col = u->Sblk + (size_t)a * u->ng;  // row a (Sblk is symmetric)
      for (int c = 0; c < u->ng; c++) v -= col[c] * ss->lam_g[u->gam[c]];
      w_def[u->gam[a]] += v;
    }
  }
  for (int g = 0; g < ss->ng; g++) {
    int j = ss->gamma[g];
    double w = p->b[j] + w_def[g];
    for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) {
      int r = p->Ai[q], s = ss->sub_of[r];
      if (s < 0)
        w += p->Ax[q] * ss->lam_g[ss->loc[r]];
      else if (!ss->sub[s].deferred)
        w += p->Ax[q] * ss->sub[s].lambda[ss->loc[r]];
    }
    double rr = tsr_mlcp_row_residual(ss->lam_g[g], w, p->lo[j], p->hi[j]);
    sq += rr * rr;
  }
  return sqrt(sq);
}

// Largest residual of an interface row (Eq. 29, slack units) over its own
// terms, as tsr_mlcp_relative_residual measures rows.
static double interface_rows(const TsrMlcp *p, const double *lambda, double amax, const TsrSubstructure *ss) {
  double linf = 0.0, worst = 0.0;
  for (int i = 0; i < p->m; i++) linf = tsr_maxd(linf, fabs(lambda[i]));
  double delta = TSR_MLCP_ROW_NOISE * linf;
  for (int g = 0; g < ss->ng; g++) {
    int j = ss->gamma[g];
    double w, sig = tsr_mlcp_row_scale(p, j, lambda, delta, &w);
    double rho = tsr_mlcp_row_residual_slack(lambda[j], w, p->lo[j], p->hi[j], tsr_mlcp_diag(p, j), amax);
    rho /= fmax(sig, DBL_MIN);
    if (!(rho <= worst)) worst = rho;
  }
  return worst;
}

// Largest residual of a row (Eq. 29, slack units) over its own terms
// (tsr_mlcp_relative_residual), of every row; *iface receives the interface
// rows' largest. NaN when out of memory (a refinement step is then not kept).
static double rows_residual(const TsrMlcp *p, const double *lambda, TsrSchur *s, double *iface) {
  TsrSubstructure *ss = &s->ss;
  *iface = NAN;
  // allocated on the first use: few steps need it
  if (tsr_grow((void **)&s->row_rho, &s->cap_rho, 2 * p->m, sizeof *s->row_rho)) return NAN;
  double *rho = s->row_rho, *sigma = rho + p->m;
  tsr_mlcp_slack(p, lambda, ss->w);
  double all = tsr_mlcp_relative_residual(p, lambda, ss->w, sigma, rho), worst = 0.0;
  for (int g = 0; g < ss->ng; g++)
    if (!(rho[ss->gamma[g]] <= worst)) worst = rho[ss->gamma[g]];  // NaN propagates
  *iface = worst;
  return all;
}

// out = A_FF,i^-1 (r_i - G_Fi^T dg) over subsystem u's free rows (F, as
// tsr_bpp_factor lists them), with r = -w and dg (interface numbering) NULL
// for zero. Returns nf, or < 0 on failure; *shifted is set when A_FF,i was
// factorised with the shift (singular: tsr_bpp_factor).
static int sub_free_solve(TsrSchurSub *u, double shift, const double *w, const double *dg, double *out, int *shifted) {
  const int *F;
  int nf;
  int rc = tsr_bpp_factor(&u->mlcp, u->set, shift, &F, &nf, u->bpp);
  if (rc < 0) return -1;
  if (rc > 0) *shifted = 1;
  for (int k = 0; k < nf; k++) {
    int c = F[k];
    double v = -w[u->rows[c]];
    for (int q = u->Gp[c]; q < u->Gp[c + 1] && dg; q++) v -= u->Gx[q] * dg[u->Gg[q]];
    out[k] = v;
  }
  return nf > 0 && tsr_chol_solve(out, out, tsr_bpp_chol(u->bpp)) ? -1 : nf;
}

// One step of iterative refinement of the whole system's free rows through
// the substructured factors (the index sets fixed): with r = -(A lambda + b)
// on the free rows, y_i = A_FF,i^-1 r_i, S_FF delta_Gamma = r_Gamma - sum_i
// G_Fi y_i (Eqs. 24-25 with r for b), delta_i = A_FF,i^-1 (r_i - G_Fi^T
// delta_Gamma), lambda_F += delta. Fg / nfg: the interface's free rows, whose
// factor ss->ibpp holds. Returns 0, 1 when a subsystem's factor was shifted
// (its rows are then not solved exactly by the correction), < 0 on failure.
typedef struct {
  TsrSubstructure *ss;
  double shift;
  const double *w, *dg;  // dg NULL: the first solve of refine_step
  double *lambda;
} RefineLoop;

// An item's result: REFINE_FAIL and REFINE_SHIFTED (ORed over the loop).
enum { REFINE_FAIL = 1, REFINE_SHIFTED = 2 };

static int refine_item(void *ctx, int o, int thread) {
  (void)thread;
  RefineLoop *l = ctx;
  TsrSchurSub *u = sub_at(l->ss, o);
  int shifted = 0;
  double *out = l->dg ? u->ry + u->n : u->ry;
  int nf = sub_free_solve(u, l->shift, l->w, l->dg, out, &shifted);
  int rc = shifted ? REFINE_SHIFTED : 0;
  if (nf < 0) return rc | REFINE_FAIL;
  for (int c = 0, k = 0; l->dg && c < u->n; c++)
    if (u->set[c] == TSR_INDEX_FREE) l->lambda[u->rows[c]] += out[k++];
  return rc;
}

static int refine_step(const TsrMlcp *p, double *lambda, const int *Fg, int nfg, double shift, TsrSubstructure *ss) {
  double *w = ss->w, *t = ss->w_def, *dg = ss->lam_g_old;  // [m], [ng], [ng]
  tsr_mlcp_slack(p, lambda, w);
  RefineLoop l = {ss, shift, w, NULL, lambda};
  int rc = sub_for(ss, sub_threads(ss), ss->n_sub, 1, 1, refine_item, &l, NULL);
  if (rc & REFINE_FAIL) return -1;
  int shifted = (rc & REFINE_SHIFTED) != 0;
  for (int g = 0; g < ss->ng; g++) t[g] = -w[ss->gamma[g]], dg[g] = 0.0;
  for (int i = 0; i < ss->n_sub; i++) {  // in subsystem order: the same sums for any thread count
    const TsrSchurSub *u = &ss->sub[i];
    for (int c = 0, k = 0; c < u->n; c++) {
      if (u->set[c] != TSR_INDEX_FREE) continue;
      for (int q = u->Gp[c]; q < u->Gp[c + 1]; q++) t[u->Gg[q]] -= u->Gx[q] * u->ry[k];
      k++;
    }
  }
  for (int k = 0; k < nfg; k++) dg[k] = t[Fg[k]];
  if (tsr_chol_solve(dg, dg, tsr_bpp_chol(ss->ibpp))) return -1;
  for (int k = nfg - 1; k >= 0; k--) {  // to interface numbering (Fg increasing: in place from the end)
    double v = dg[k];
    dg[k] = 0.0;
    dg[Fg[k]] = v;
  }
  l.dg = dg;
  rc = sub_for(ss, sub_threads(ss), ss->n_sub, 1, 1, refine_item, &l, NULL);
  if (rc & REFINE_FAIL) return -1;
  shifted |= (rc & REFINE_SHIFTED) != 0;
  for (int k = 0; k < nfg; k++) lambda[ss->gamma[Fg[k]]] += dg[Fg[k]];
  return shifted;
}

// Iterative refinement of a converged iterate. S_Gamma is a difference of
// large terms (Eq. 24), and the subsystems' solves feed the interface rows
// their forward errors, so the whole system is not solved to round-off of
// each row's terms as one factorisation of it would be (bridge, cond(S_Gamma)
// ~ 1e7: interface rows at 8.7e-9 of their own terms). When an interface row
// is above TSR_BPP_POLISH_ROW of its own terms, up to REFINE_STEPS steps of
// refine_step, each kept only when it halves the interface rows' largest
// relative residual.
// A singular subsystem (a rigid closed loop, compliance 0) takes its part of
// a step through its shifted factor, which moves its own rows off round-off:
// on a random chain model, measuring the interface rows alone left Eq. 29 at
// 5.9e-6 N s against direct-bpp's 5.8e-10, with every index set the same.
// From such a step on, every row is measured (two more passes over A), and
// a step is kept when it halves the largest relative residual of all rows,
// or halves the interface rows' without raising that.
// Returns 1 when lambda changed, 0 when not, < 0 on failure.
// A row above this of its own terms after refine_interface, with a shifted
// subsystem, marks the solve unpolished (tsr_schur_unpolished): direct-bpp
// keeps every row below 1e-10.
#define SCHUR_UNPOLISHED_ROW 1e-8

static int refine_interface(const TsrMlcp *p, double *lambda, double amax, TsrSchur *s) {
  TsrSubstructure *ss = &s->ss;
  int m = p->m, changed = 0, every_row = 0;
  double iface = interface_rows(p, lambda, amax, ss), best = iface, first = best;
  if (!(best > TSR_BPP_POLISH_ROW)) return 0;
  const int *Fg;
  int nfg;
  if (tsr_bpp_factor(&ss->iface, ss->set_g, 0.0, &Fg, &nfg, ss->ibpp) != 0) return 0;
  memcpy(s->best_lambda, lambda, (size_t)m * sizeof *lambda);  // free here: the step converged
  for (int it = 0; it < REFINE_STEPS && best > TSR_BPP_POLISH_ROW; it++) {
    int rs = refine_step(p, lambda, Fg, nfg, 1e-10 * amax, ss);
    if (rs < 0) return -1;
    if (rs > 0 && !every_row) {  // the iterate before this step, measured over every row
      every_row = 1;
      best = rows_residual(p, s->best_lambda, s, &iface);
    }
    double iface_k, rho;
    if (every_row)
      rho = rows_residual(p, lambda, s, &iface_k);
    else
      rho = iface_k = interface_rows(p, lambda, amax, ss);
    if (!(rho < 0.5 * best || (iface_k < 0.5 * iface && rho <= best))) break;  // not converging: keep the best
    best = rho, iface = iface_k, changed = 1;
    memcpy(s->best_lambda, lambda, (size_t)m * sizeof *lambda);
  }
  memcpy(lambda, s->best_lambda, (size_t)m * sizeof *lambda);
  s->unpolished = every_row && best > SCHUR_UNPOLISHED_ROW;
  if (s->trace && every_row)
    fprintf(stderr, "schur refine: interface rows %.3e -> %.3e, every row (a shifted subsystem) -> %.3e\n", first,
            iface, best);
  else if (s->trace)
    fprintf(stderr, "schur refine: interface rows %.3e -> %.3e\n", first, iface);
  return changed;
}

typedef struct {
  TsrSubstructure *ss;
  double shift;
  int defer;  // TsrSchur.defer
  int fixed;  // the fixed-set pass after a cycle: Eq. 28 for I^k
} BlockLoop;

// SCHURCOMP's block of one subsystem, or its fixed-set solve.
static int block_item(void *ctx, int o, int thread) {
  (void)thread;
  BlockLoop *l = ctx;
  TsrSchurSub *u = sub_at(l->ss, o);
  if (l->fixed) {
    sub_rhs(l->ss->lam_g, u);
    u->blk_ok = 0;  // the fixed-set solve clears Sblk
    u->deferred = 0;
    return sub_schur(u, l->shift, 1) < 0;
  }
  memcpy(u->prev_set, u->set, (size_t)u->n);
  // Sblk and zblk depend on A_i, b_i0 and I_i only (not on lambda_Gamma):
  // a subsystem whose set has not changed since they were formed keeps
  // them. Seed 000 §8 names recomputing every block at every coupling
  // iteration as what limits the speedup when a few sets keep changing.
  u->blk_new = 0;
  if (u->blk_ok && !memcmp(u->set, u->blk_set, (size_t)u->n)) return 0;
  u->blk_new = 1;
  int rc = sub_schur(u, l->shift, 0);
  u->blk_ok = rc >= 0;
  u->deferred = l->defer && u->linear && rc == 0;
  memcpy(u->blk_set, u->set, (size_t)u->n);
  return rc < 0;
}

// Algorithm 1 once on partition part. With may_merge (the first attempt, a
// merged re-run to follow) it also gives up at STALL_ITERATIONS.
static int schur_once(const TsrMlcp *p, const TsrPartition *part, const TsrSolverParams *params, double *lambda,
                      int8_t *index_set, TsrSolveStats *stats, int may_merge, TsrSchur *s) {
  TsrSubstructure *ss = &s->ss;
  double t0 = tsr_substructure_now();
  stats->converged = 0;
  s->unpolished = 0;
  if (tsr_substructure_setup(p, part, params, ss)) return -1;
  int m = p->m, ng = ss->ng, N = ss->n_sub;
  stats->subsystems = ss->n_reported;
  stats->interface_rows = ng;
  double amax = 0.0;
  for (int q = 0; q < (m ? p->Ap[m] : 0); q++) amax = tsr_maxd(amax, fabs(p->Ax[q]));
  if (!(amax > 0.0)) amax = 1.0;
  // I^0: all free, or the previous step's sets.
  tsr_substructure_start(p, params, lambda, index_set, ss);
  for (int i = 0; i < N; i++) ss->sub[i].changed_at = 0;
  int kmax = params->max_coupling_iterations > 0 ? params->max_coupling_iterations : 10, k_cap = kmax;
  if (kmax + 2 > s->cap_hist) {
    uint64_t *h = realloc(s->hist, (size_t)(kmax + 2) * sizeof *h);
    if (!h) return -1;
    s->hist = h;
    s->cap_hist = kmax + 2;
  }
  if (m > s->cap_best) {
    double *bl = realloc(s->best_lambda, (size_t)m * sizeof *bl);
    if (bl) s->best_lambda = bl;
    int8_t *bs = realloc(s->best_set, (size_t)m);
    if (bs) s->best_set = bs;
    if (!bl || !bs) return -1;
    s->cap_best = m;
  }
  double best_res = INFINITY, last_res = NAN;  // Eq. 29 of the best and of the last iterate
  double progress_res = INFINITY;
  // First attempt with the merged re-run to follow: give up when the best
  // residual has not halved for STALL_ITERATIONS coupling iterations.
  int k_progress = 0, stall_k = may_merge && N > 1 ? STALL_ITERATIONS : 0;
  // Stop also when the whole system is solved to the iterative tolerance:
  // rows that are degenerate (lambda on its bound with w ~ 0) can flip
  // between equivalent index sets forever without changing the solution.
  double bmax = 0.0;
  for (int r = 0; r < m; r++) bmax = tsr_maxd(bmax, fabs(p->b[r]));
  double res_tol = 1e-12 * fmax(1.0, bmax);
  uint64_t h0 = TSR_FNV_OFFSET;
  for (int i = 0; i < N; i++) h0 = set_hash(ss->sub[i].set, ss->sub[i].n, h0);
  s->hist[0] = h0;
  double t1 = tsr_substructure_now();
  ss->times.setup += t1 - t0;
  int k = 0, converged = 0, cycled = 0, pivots = 0, factorizations = 0;
  TsrSolverParams ip = *params;
  ip.warm_start = 1;  // the interface starts from the last coupling iteration's set
  while (!converged && k < kmax && !tsr_stop_requested()) {
    k++;
    int final_pass = cycled;
    double ta = tsr_substructure_now();
    // SCHURCOMP (Eqs. 24-25) from I^(k-1), blocks in parallel.
    BlockLoop bl = {ss, 1e-10 * amax, s->defer, 0};
    int fail = sub_for(ss, sub_threads(ss), N, 1, 1, block_item, &bl, &ss->times.schur_longest);
    if (fail || tsr_substructure_interface(p, 1, ss)) return -1;
    if (s->measure_cond) add_cond(s);
    double tb = tsr_substructure_now();
    // INTERFACESOLVE (Eq. 18).
    TsrSolveStats ist = {0};
    int irc = 0;
    if (ng > 0) {
      tsr_bpp_invalidate(ss->ibpp);  // S_Gamma changed (refine_interface factors it after PGS-SM too)
      if (s->iface_solver == TSR_SCHUR_IFACE_PGS_SM) {
        irc = tsr_pgs_sm_solve(&ss->iface, &ip, ss->lam_g, ss->set_g, &ist, ss->ipgs);
      } else {
        if (!ss->iretry) {
          if (!(ss->iretry = tsr_bpp_retry_create())) return -1;
          tsr_bpp_retry_set_skip(ss->iretry, 0);  // see SUBSYSTEMSOLVE below
        }
        irc = tsr_bpp_retry_solve(&ss->iface, &ip, ss->lam_g, ss->set_g, &ist, ss->ibpp, ss->iretry);
      }
    }
    pivots += ist.iterations;
    factorizations += ist.factorizations;
    if (irc < 0) return -1;
    double tc = tsr_substructure_now();
    // SUBSYSTEMSOLVE (Eq. 16) in parallel; or, after a cycle, Eq. 28 for the
    // fixed sets I^k. The subsystems may skip their first block pivoting
    // (bpp_retry.c, SKIP_MIN_ROWS) in the first coupling iteration only,
    // whose solves follow those of the last step's first; later iterations
    // start from the last one's set, where block pivoting mostly succeeds.
    // Skipping in every iteration took schur-bpp on chain_drop's replayed
    // MLCPs from 3.25 to 3.06 ms a step, in the first only to 2.80-2.92 (1
    // thread, before the skips were limited to 2^L - 1). The interface does
    // not skip: on log_tower its block pivoting stalls now and then, and the
    // skipped solves cost more than the stalls.
    ss->skip_class = k == 1;
    if (final_pass) {
      bl.fixed = 1;  // the fixed-set solves: the subsystem phase's critical path
      fail = sub_for(ss, sub_threads(ss), N, 1, 1, block_item, &bl, &ss->times.subsystems_longest);
      if (fail) return -1;
    } else if (tsr_substructure_solve_subsystems(params, ss)) {
      return -1;
    }
    double td = tsr_substructure_now();
    ss->times.schur += tb - ta;
    ss->times.iface += tc - tb;
    ss->times.subsystems += td - tc;
    // Keep the best iterate: the coupling iteration is not monotone, and a
    // step that ends at k_max (or in a cycle) returns the lowest residual
    // seen rather than the last one.
    tsr_substructure_gather(ss, lambda, index_set);
    double res = last_res = final_pass ? tsr_mlcp_residual_ws(p, lambda, ss->w, NULL) : coupled_residual(p, ss);
    if (res < 0.5 * progress_res) progress_res = res, k_progress = k;
    if (res < best_res) {
      best_res = res;
      if (m > 0) {  // no rows (every body free): NULL arrays, and memcpy of NULL is undefined even for 0 bytes
        memcpy(s->best_lambda, lambda, (size_t)m * sizeof *lambda);
        if (index_set) memcpy(s->best_set, index_set, (size_t)m);
      }
    }
    if (final_pass) break;
    // INDEXSETS: stop when I^k = I^(k-1); detect a cycle I^k = I^j, j < k-1.
    uint64_t hk = TSR_FNV_OFFSET;
    int same = 1, solved = irc == 0;  // every BPP of this iteration found its set
    for (int i = 0; i < N; i++) {
      TsrSchurSub *u = &ss->sub[i];
      solved &= u->rc == 0;
      pivots += u->st.iterations;
      factorizations += u->st.factorizations;
      hk = set_hash(u->set, u->n, hk);
      if (memcmp(u->set, u->prev_set, (size_t)u->n)) same = 0, u->changed_at = k;
    }
    s->hist[k] = hk;
    if (s->trace) {  // TSR_SCHUR_TRACE: the rows whose set changed, on stderr
      int nbad = 0, ipiv = ist.iterations;
      for (int i = 0; i < N; i++) nbad += ss->sub[i].rc != 0;
      fprintf(stderr, "schur k=%d res=%.3e same=%d irc=%d ipiv=%d ifact=%d ng=%d subfail=%d cycled=%d\n", k, res, same,
              irc, ipiv, ist.factorizations, ng, nbad, cycled);
      for (int i = 0; i < N; i++) {
        TsrSchurSub *u = &ss->sub[i];
        for (int c = 0; c < u->n; c++)
          if (u->set[c] != u->prev_set[c])
            fprintf(stderr, "  sub %d row %d: %d -> %d  lambda %.6e  lo %.3e hi %.3e\n", i, u->rows[c], u->prev_set[c],
                    u->set[c], u->lambda[c], u->mlcp.lo[c], u->mlcp.hi[c]);
      }
    }
    if ((same && solved) || res <= res_tol) {
      converged = 1;
      break;
    }
    // The same sets again after a BPP ran out of pivots: the next iteration
    // would repeat this one. Not converged (the caller may fall back to the
    // direct solver, solvers/solver.c).
    if (same) break;
    if (stall_k > 0 && k - k_progress >= stall_k) break;
    for (int j = 0; j < k - 1 && s->cycle_fix; j++)
      if (s->hist[j] == hk) cycled = 1;
    if (cycled) kmax++;  // the fixed-set pass is one more coupling iteration
  }
  int restored = 0;
  if (!converged && best_res < INFINITY) {
    memcpy(lambda, s->best_lambda, (size_t)m * sizeof *lambda);
    if (index_set) memcpy(index_set, s->best_set, (size_t)m);
    last_res = best_res;
    restored = 1;
  }
  int nd = 0;
  for (int i = 0; i < N; i++) nd += ss->sub[i].deferred;
  if (nd > 0) {
    // The linear subsystems for the returned iterate's lambda_Gamma.
    double te = tsr_substructure_now();
    for (int g = 0; g < ng; g++) ss->lam_g[g] = lambda[ss->gamma[g]];
    if (solve_some(params, 1, ss)) return -1;
    for (int i = 0; i < N; i++) {
      TsrSchurSub *u = &ss->sub[i];
      if (!u->deferred) continue;
      u->deferred = 0;
      pivots += u->st.iterations;
      factorizations += u->st.factorizations;
      for (int c = 0; c < u->n; c++) lambda[u->rows[c]] = u->lambda[c];
    }
    // Eq. 29 of the returned iterate with every subsystem solved.
    last_res = restored ? tsr_mlcp_residual_ws(p, lambda, ss->w, NULL) : coupled_residual(p, ss);
    ss->times.subsystems += tsr_substructure_now() - te;
  }
  if (converged && !cycled && ng > 0 && s->refine) {
    double te = tsr_substructure_now();
    int rr = refine_interface(p, lambda, amax, s);
    if (rr < 0) return -1;
    if (rr > 0) last_res = NAN;  // measured below
    ss->times.subsystems += tsr_substructure_now() - te;
  }
  ss->times.solves++;
  // (no rows: nothing was iterated; a cycle found at k_max adds its
  // fixed-set pass beyond it, which OUTPUT.md's k, at most k_max, does not
  // count)
  stats->coupling_iterations = !m ? 0 : k < k_cap ? k : k_cap;
  stats->converged = converged;
  stats->iterations = pivots;
  stats->factorizations = factorizations;
  // Eq. 29, whole system: the returned iterate's, computed in the loop.
  stats->residual = isnan(last_res) ? tsr_mlcp_residual_ws(p, lambda, ss->w, NULL) : last_res;
  return converged ? 0 : 1;
}

// The partition whose rows in subsystem sub_of[r] >= 0 go to group
// gid[sub_of[r]] (groups 0..G-1), into rows (m entries; cand: m of
// scratch). An interface row joins group X when every subsystem it couples
// to (in A's pattern) is in X and no interface row it couples to could
// join another group: the groups must stay decoupled except through Gamma.
static void group_rows(const TsrMlcp *p, const int *sub_of, const int *gid, int G, int *rows, int *cand,
                       TsrPartition *out) {
  int m = p->m;
  for (int j = 0; j < m; j++) {
    rows[j] = sub_of[j] >= 0 ? gid[sub_of[j]] : -1;
    if (sub_of[j] >= 0) continue;
    int grp = -2;  // -2 none, -1 several
    for (int q = p->Ap[j]; q < p->Ap[j + 1] && grp != -1; q++) {
      int r = p->Ai[q];
      if (sub_of[r] < 0) continue;
      int id = gid[sub_of[r]];
      grp = grp == -2 || grp == id ? id : -1;
    }
    cand[j] = grp;
  }
  for (int j = 0; j < m; j++) {
    if (sub_of[j] >= 0) continue;
    int grp = cand[j];
    for (int q = p->Ap[j]; q < p->Ap[j + 1] && grp >= 0; q++) {
      int r = p->Ai[q];
      if (sub_of[r] < 0 && cand[r] >= 0 && cand[r] != grp) grp = -1;
    }
    rows[j] = grp >= 0 ? grp : -1;
  }
  memset(out, 0, sizeof *out);
  out->n_rows = m;
  out->n_subsystems = G;
  out->row_subsystem = rows;
}

// After a failed schur_once: the subsystems whose index sets still changed
// in the last two coupling iterations (or whose solve failed) are merged
// with every subsystem they share an interface row with, so that the
// exchange that kept their sets moving happens inside one BPP. Rows of
// merged subsystems, and interface rows all of whose coupled subsystems
// merged, go to the merged subsystem. Returns the number of subsystems of
// the new partition in *out (row_subsystem in s->merge_rows), or 0 when
// nothing merges.
static int merged_partition(const TsrMlcp *p, TsrSchur *s, int k_last, TsrPartition *out) {
  TsrSubstructure *ss = &s->ss;
  int N = ss->n_sub, ng = ss->ng, m = p->m;
  if (tsr_grow((void **)&s->merge_up, &s->cap_merge_up, 2 * N + m + 1, sizeof *s->merge_up) ||
      tsr_grow((void **)&s->merge_rows, &s->cap_merge_rows, m + 1, sizeof *s->merge_rows))
    return 0;
  int *up = s->merge_up, any = 0;
  for (int i = 0; i < N; i++) up[i] = i;
  for (int g = 0; g < ng; g++) {
    int act = 0, first = -1;
    for (int q = ss->ip[g]; q < ss->ip[g + 1]; q++) {
      const TsrSchurSub *u = &ss->sub[ss->ii[q]];
      act |= u->changed_at >= k_last - 1 || u->rc != 0;
    }
    if (!act) continue;
    for (int q = ss->ip[g]; q < ss->ip[g + 1]; q++) {
      int a = tsr_uf_root(up, ss->ii[q]);
      if (first < 0)
        first = a;
      else if (a != first)
        up[a] = first, any = 1;
    }
  }
  if (!any) return 0;
  // Renumber the roots 0..G-1 in subsystem order (deterministic): gid[i]
  // is subsystem i's new subsystem.
  int G = 0, *gid = up + N;
  for (int i = 0; i < N; i++) up[i] = tsr_uf_root(up, i);
  for (int i = 0; i < N; i++)
    if (up[i] == i) gid[i] = G++;
  for (int i = 0; i < N; i++) gid[i] = gid[up[i]];
  group_rows(p, ss->sub_of, gid, G, s->merge_rows, gid + N, out);
  return G;
}

// The partition given with its subsystems grouped by gid (subsystem i of
// part into group gid[i], groups 0..G-1; group_rows). Returns G, or 0 on
// allocation failure.
static int grouped_partition(const TsrMlcp *p, const TsrPartition *part, const int *gid, TsrSchur *s,
                             TsrPartition *out) {
  int m = p->m, N = part->n_subsystems, G = 0;
  if (tsr_grow((void **)&s->sticky_rows, &s->cap_sticky_rows, m + 1, sizeof *s->sticky_rows) ||
      tsr_grow((void **)&s->sticky_cand, &s->cap_sticky_cand, m + 1, sizeof *s->sticky_cand))
    return 0;
  for (int i = 0; i < N; i++) G = gid[i] + 1 > G ? gid[i] + 1 : G;
  group_rows(p, part->row_subsystem, gid, G, s->sticky_rows, s->sticky_cand, out);
  return G;
}

// Sticky merges (tsr_schur_solve): a merge whose groups repeat the last
// merge's, when STICKY_MERGES of the last STICKY_WINDOW solves (this one
// included) needed one, is kept for the next STICKY_STEPS solves. Replaying
// direct-bpp's MLCPs of whole runs (compare --replay direct-bpp, 2 threads,
// schur-bpp ms per step without / with, two runs each):
//   chain_drop       2.38 / 1.91  (1.30x -> 1.62x direct-bpp's 3.09)
//   chain_wrap       0.167, 0.187 / 0.165, 0.164 (no sticky merge made)
//   rock_pile        4.03, 4.01 / 3.75, 3.94
//   large_rock_pile  3.85, 3.93 / 3.94, 3.96
// Kept 8 solves, chain_drop gave 1.59x; 32, 1.58-1.65x. Made on any merge,
// not only a repeated one in a run of merges, sticky groups took
// large_rock_pile from 3.97x to 2.88x (its merges join 8 subsystems into 2
// or 3, a different 2 or 3 each time), and chain_wrap from 0.158 to 0.170
// ms (its merges come in pairs, once in a while).
#define STICKY_STEPS 16
#define STICKY_WINDOW 4
#define STICKY_MERGES 3

static uint64_t body_partition_hash(const TsrPartition *part) {
  return tsr_fnv1a(TSR_FNV_OFFSET, part->body_subsystem, (size_t)part->n_bodies * sizeof *part->body_subsystem);
}

static int schur_solve(const TsrMlcp *p, const TsrPartition *part, const TsrSolverParams *params, double *lambda,
                       int8_t *index_set, TsrSolveStats *stats, void *solver) {
  TsrSchur *s = solver;
  double t_first = tsr_substructure_now();
  // Sticky merges: in a pile-up, step after step needs the same merged
  // re-run, and the first attempts on the partition given are spent for
  // nothing (on chain_drop, 568 of schur-bpp's 1410 ms of solves, 96
  // merged steps of 600). While a merge sticks (see STICKY_STEPS), the
  // first attempt is made on its groups instead, and may merge further;
  // the partition given is tried again after that. Bit-identical for any
  // thread count: the choice follows the solves' outcomes only.
  // TSR_SCHUR_NO_STICKY=1 turns it off.
  int Nbase = part && part->n_rows == p->m && part->body_subsystem ? part->n_subsystems : 0, sticky = 0;
  // The groups apply only to the same partition of the bodies: a partition
  // made again every step (mindp on a pile) numbers other subsystems alike.
  // (hashed only when a merge sticks or is made, not on every solve)
  uint64_t hash = 0;
  TsrPartition sp;
  const TsrPartition *first = part;
  if (s->sticky && s->merge && s->sticky_left > 0 && Nbase > 1 && Nbase == s->sticky_n &&
      (hash = body_partition_hash(part)) == s->sticky_hash) {
    s->sticky_left--;
    if (grouped_partition(p, part, s->sticky_gid, s, &sp) > 0) first = &sp, sticky = 1;
    if (s->trace && sticky)
      fprintf(stderr, "schur sticky: %d -> %d subsystems, %d more\n", Nbase, sp.n_subsystems, s->sticky_left);
  }
  int rc = schur_once(p, first, params, lambda, index_set, stats, s->merge, s);
  s->hist_merge <<= 1;
  if (sticky) {
    // N and |Gamma| of the partition given (see below).
    int ng = 0;
    for (int r = 0; r < p->m; r++) ng += part->row_subsystem[r] < 0;
    stats->subsystems = Nbase, stats->interface_rows = ng;
  }
  if (rc != 1 || !s->merge || p->m == 0) return rc;
  TsrPartition mp;
  int N = s->ss.n_sub, G = merged_partition(p, s, stats->coupling_iterations, &mp);
  if (G == 0) return rc;
  // The groups, as those of the partition given: gid (in merge_up, after
  // the roots) maps the attempt's subsystems to the merged ones, and a
  // sticky attempt's own subsystems were groups already. They stick when
  // they repeat the last merge's in a run of merges (STICKY_MERGES), or
  // when a sticky attempt had to merge further.
  if (s->sticky && Nbase > 1 && !tsr_grow((void **)&s->last_gid, &s->cap_last_gid, Nbase + 1, sizeof *s->last_gid) &&
      !tsr_grow((void **)&s->sticky_gid, &s->cap_sticky_gid, Nbase + 1, sizeof *s->sticky_gid)) {
    const int *gid = s->merge_up + N;
    if (!hash) hash = body_partition_hash(part);
    s->hist_merge |= 1u;
    int recent = 0;
    for (int k = 0; k < STICKY_WINDOW; k++) recent += (s->hist_merge >> k) & 1u;
    int same = s->last_n == Nbase && s->last_hash == hash && recent >= STICKY_MERGES;
    for (int i = 0; i < Nbase; i++) {
      int g = gid[sticky ? s->sticky_gid[i] : i];
      same &= s->last_gid[i] == g;
      s->last_gid[i] = g;
    }
    s->last_n = Nbase, s->last_hash = hash;
    if (sticky || same) {
      memcpy(s->sticky_gid, s->last_gid, (size_t)Nbase * sizeof *s->sticky_gid);
      s->sticky_n = Nbase, s->sticky_hash = hash, s->sticky_left = STICKY_STEPS;
    }
  }
  // Keep the first attempt's best iterate: the second starts from it and
  // replaces it only with a lower residual.
  int m = p->m;
  if (tsr_grow((void **)&s->keep_lambda, &s->cap_keep_lambda, m + 1, sizeof *s->keep_lambda) ||
      tsr_grow((void **)&s->keep_set, &s->cap_keep_set, m + 1, sizeof *s->keep_set))
    return rc;
  memcpy(s->keep_lambda, lambda, (size_t)m * sizeof *lambda);
  if (index_set) memcpy(s->keep_set, index_set, (size_t)m);
  TsrSolverParams wp = *params;
  wp.warm_start = 1;
  TsrSolveStats st2 = {0};
  double t_merged = tsr_substructure_now();
  int rc2 = schur_once(p, &mp, &wp, lambda, index_set, &st2, 0, s);
  if (rc2 < 0) return rc2;
  double t_end = tsr_substructure_now();
  s->ss.times.merges++;
  s->ss.times.merged += t_end - t_merged;
  if (s->trace)
    fprintf(stderr, "schur merge: %d -> %d subsystems, residual %.3e -> %.3e (%s), k %d + %d, %.2f + %.2f ms\n", N, G,
            stats->residual, st2.residual, rc2 == 0 ? "converged" : "not converged", stats->coupling_iterations,
            st2.coupling_iterations, 1e3 * (t_merged - t_first), 1e3 * (t_end - t_merged));
  // k of Algorithm 1 on the partition given (at most k_max, OUTPUT.md), as
  // N and |Gamma| below: the re-run's iterations showed added to it (k 2 with
  // k_max 1; "20% of steps at k_max" where 4 of 60 had reached it). The
  // re-run's work is in the iterations, factorisations and merged time.
  st2.coupling_iterations = stats->coupling_iterations;
  st2.iterations += stats->iterations;
  st2.factorizations += stats->factorizations;
  if (rc2 != 0 && !(st2.residual < stats->residual)) {  // the first attempt was better
    memcpy(lambda, s->keep_lambda, (size_t)m * sizeof *lambda);
    if (index_set) memcpy(index_set, s->keep_set, (size_t)m);
    st2.residual = stats->residual;
  }
  // N and |Gamma| of the partition given, which the run file's frames hold
  // (/bodies/subsystem, /constraints/subsystem): the merged partition is
  // this solve's own, and its step showed 1 subsystem and no interface
  // beside frames with 3 subsystems and 30 interface rows.
  st2.subsystems = stats->subsystems, st2.interface_rows = stats->interface_rows;
  *stats = st2;
  return rc2;
}

typedef struct {
  TsrSubstructureSolve fn;
  void *solver;
  TsrSubstructure *ss;
  const TsrMlcp *p;
  const TsrPartition *part;
  const TsrSolverParams *params;
  double *lambda;
  int8_t *index_set;
  TsrSolveStats *stats;
} TeamSolve;

static int solve_on_team(void *arg, TsrTeam *team) {
  TeamSolve *a = arg;
  a->ss->team = team;
  int rc = a->fn(a->p, a->part, a->params, a->lambda, a->index_set, a->stats, a->solver);
  a->ss->team = NULL;
  return rc;
}

int tsr_substructure_on_team(TsrSubstructureSolve fn, void *solver, TsrSubstructure *ss, const TsrMlcp *p,
                             const TsrPartition *part, const TsrSolverParams *params, double *lambda, int8_t *index_set,
                             TsrSolveStats *stats) {
  int nsub = part && part->n_rows == p->m ? part->n_subsystems : 1;
  int threads = param_threads(params);
  TeamSolve a = {fn, solver, ss, p, part, params, lambda, index_set, stats};
  return tsr_team_run(threads < nsub ? threads : nsub, solve_on_team, &a);
}

// The whole solve (both attempts, merged re-runs) on one team of threads.
int tsr_schur_solve(const TsrMlcp *p, const TsrPartition *part, const TsrSolverParams *params, double *lambda,
                    int8_t *index_set, TsrSolveStats *stats, TsrSchur *s) {
  return tsr_substructure_on_team(schur_solve, s, &s->ss, p, part, params, lambda, index_set, stats);
}
