// SPDX-License-Identifier: MIT
// Sparse LDL^T of A_FF + shift I that follows the free set F by row updates.
//
// Projected Newton's steps and block pivoting's late pivots factorise A_FF
// for a free set that differs from the last one by a few rows: in chain_drop's
// pile-up (an island of ~1,150 rows) the binding set of a Newton step changed
// by 0-5 rows in most steps, and every one of them paid an ordering of F, a
// symbolic analysis and a numeric factorisation (~0.2 ms each; 36% of a
// direct-bpp run went to them). chol_dense.c follows F by updates for dense
// factors; this does it for the sparse LDL^T path.
//
// The factor kept is of the m x m matrix M(F) that is A_FF + shift I on the
// rows of F and the identity on the others, in the fill-reducing order of
// the whole A (c->perm; its restriction to F is the order the LDL path
// factorises A_FF in, so M(F)'s factor is A_FF's with identity columns
// between). A row leaving F becomes a row of the identity and a row entering
// F takes its column of A: CHOLMOD's rowdel and rowadd (Davis and Hager,
// "Row modifications of a sparse Cholesky factorization", SIAM J. Matrix
// Anal. Appl. 26(3), 2005), each a rank-2 modification along one path of the
// elimination tree. On chain_drop step 578 (1,968 rows): 6-11 us a row against
// 140-210 us for a new factorisation. Solves scatter into and gather from
// M's order. CHOLMOD's Modify module, which this calls, is GPL-2.0+, as is
// its Supernodal module, which chol.c already calls (both in Debian's
// libcholmod that we link).
//
// The first update after a fresh factorisation copies that factor into a
// CHOLMOD simplicial one (O(m + |L|)): the LDL path's directly, CHOLMOD's
// supernodal L L^T (factors too dense for the LDL path: log towers' piles)
// through a simplicial LDL^T copy, whose rows take M's positions in the
// supernodal factor's postorder (copy_factor). The supernodal source
// (d09e2bc -> a5dd4be, 1 thread): log_tower direct-bpp over four gravity
// draws, median 35.8 -> 28.6 ms a step; log_tower_256's first 120 steps
// 30.7 -> 20.7; schur-bpp on log_tower unchanged (62.9, 63.3).
//
// A new factorisation is made instead when A may have changed (every
// tsr_chol_set_matrix), when the order or the shift changed, when more
// rows changed than updates save (ROWMOD_MAX_ROWS), after
// ROWMOD_MAX_OPS rows since the last factorisation (rounding), and when a
// pivot D is not positive after the updates (the new factorisation then
// decides whether A_FF is positive definite). TSR_CHOL_NO_ROWMOD=1 turns
// the updates off (to measure them).
//
// Measured (2 threads, mean solve ms a step over whole runs of six gravity-
// perturbed draws, medians; piles are chaotic, so each draw is its own
// trajectory): chain_drop direct-bpp 5.60 -> 4.63 (per draw 1.20x),
// schur-bpp 4.19 -> 3.98 (1.06x); rock_pile (four draws) direct-bpp 4.93 ->
// 3.98 (1.17x), schur-bpp unchanged (0.98x). chain_drop's MLCPs of steps
// 570-600 solved from a cold start: 790 -> 655 ms in all. Non-converged
// steps over 12 chain_drop draws: 0 with the updates, 1 without.
#include "linalg/chol_internal.h"
#include "util/grow.h"

#include <cholmod.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// Free sets of fewer rows are factorised afresh: their LDL^T is cheap, and
// the factor kept is of all m rows (a subsystem's chain of 60 rows
// factorises in a few microseconds).
#define ROWMOD_MIN_ROWS 128
// Rows changed at most (and at most nf / ROWMOD_FRACTION, at least one).
#define ROWMOD_MAX_ROWS 32
#define ROWMOD_FRACTION 32
// Rows updated since the last full factorisation before a new one.
#define ROWMOD_MAX_OPS 256
// Room left in each column of a copied factor for rows that rowadd brings
// in (CHOLMOD moves a column that outgrows its room).
#define ROWMOD_SLACK 4

void tsr_chol_rowmod_free(TsrChol *c) {
  if (c->U) cholmod_free_factor(&c->U, &c->cc);
  if (c->uR) cholmod_free_sparse(&c->uR, &c->cc);
  free(c->uin), free(c->uat), free(c->upinv), free(c->upos), free(c->zpos), free(c->uy);
  c->uin = c->uat = NULL, c->upinv = c->upos = c->zpos = NULL, c->uy = NULL;
  c->cap_u = 0;
  c->uvalid = 0;
}

void tsr_chol_rowmod_note_fresh(int kind, double shift, TsrChol *c) {
  c->fresh_kind = kind;
  c->fresh_gen = c->gen;
  c->fresh_order = c->order_gen;
  c->fresh_shift = shift;
  c->uvalid = 0;  // the fresh factor is now the latest
}

static int reserve(TsrChol *c) {
  int m = c->m;
  if (m <= c->cap_u) return 0;
  int cap = m + m / 2 + 16;
  int8_t *a = realloc(c->uin, (size_t)cap);
  if (!a) return -1;
  c->uin = a;
  if (!(a = realloc(c->uat, (size_t)cap))) return -1;
  c->uat = a;
  int **iv[] = {&c->upinv, &c->upos, &c->zpos};
  for (size_t k = 0; k < sizeof iv / sizeof *iv; k++) {
    int *b = realloc(*iv[k], (size_t)cap * sizeof *b);
    if (!b) return -1;
    *iv[k] = b;
  }
  double *y = realloc(c->uy, (size_t)cap * sizeof *y);
  if (!y) return -1;
  c->uy = y;
  c->cap_u = cap;
  return 0;
}

// A simplicial LDL^T of A_{sym_F} (+ shift I), column k its elimination
// step: sym_F[order[k]] is the row eliminated there, D_k its pivot, and its
// column of L holds nz[k] entries from p[k] (rows in elimination steps).
typedef struct {
  const int *order, *p, *nz, *i;
  const double *x, *D;  // D NULL: the pivot is the first entry of each column (CHOLMOD's layout)
} LdlView;

// U := that factor embedded in M's order: the rows of sym_F take the
// positions they hold in the whole A's order (c->perm), in the factor's
// elimination order (the LDL path eliminates them in perm's order already;
// CHOLMOD's supernodal factor in a postorder of it); the other rows keep
// theirs. 0, or 1 when it cannot be made (CHOLMOD out of memory).
static int copy_factor(const LdlView *v, TsrChol *c) {
  int m = c->m, nb = c->sym_nf, *qs = c->zpos;  // zpos: scratch of m (reserve)
  if (m <= 0) return 1;
  for (int q = 0; q < m; q++) c->upinv[c->perm[q]] = q;
  memset(c->uin, 0, (size_t)m);
  for (int k = 0; k < nb; k++) c->uin[c->sym_F[k]] = 1;  // (marks sym_F; rewritten below)
  int n = 0;
  for (int q = 0; q < m; q++)
    if (c->uin[c->perm[q]]) qs[n++] = q;
  for (int k = 0; k < nb; k++) c->upinv[c->sym_F[v->order[k]]] = qs[k];
  int off = v->D ? 0 : 1;  // the pivot's entry first in CHOLMOD's columns
  if (c->U) cholmod_free_factor(&c->U, &c->cc);
  int levels = tsr_chol_serial_begin();
  cholmod_factor *U = cholmod_allocate_factor((size_t)m, &c->cc);
  if (U) {
    int *cnt = U->ColCount;
    for (int q = 0; q < m; q++) cnt[q] = 1;
    for (int k = 0; k < nb; k++) {  // (column q holds at most m - q rows)
      int q = c->upinv[c->sym_F[v->order[k]]], e = 1 + v->nz[k] - off + ROWMOD_SLACK;
      cnt[q] = e < m - q ? e : m - q;
    }
    // Simplicial LDL^T, columns in order, each with its ColCount of room;
    // CHOLMOD makes it the identity.
    if (!cholmod_change_factor(CHOLMOD_REAL, 0, 0, 0, 1, U, &c->cc)) cholmod_free_factor(&U, &c->cc);
  }
  tsr_chol_serial_end(levels);
  if (!U) return 1;
  c->U = U;
  int *Up = U->p, *Ui = U->i, *Unz = U->nz, *cnt = U->ColCount;
  double *Ux = U->x;
  for (int q = 0; q < m; q++) {  // room as asked (columns in order: the next one starts after it)
    size_t end = q + 1 < m ? (size_t)Up[q + 1] : U->nzmax;
    if (end - (size_t)Up[q] < (size_t)cnt[q]) return 1;
  }
  memset(c->uin, 0, (size_t)m);
  memset(c->uat, 0, (size_t)m);
  for (int k = 0; k < nb; k++) {
    int g = c->sym_F[v->order[k]], q = c->upinv[g], p = Up[q], n = 1;
    c->uin[g] = c->uat[q] = 1;
    Ui[p] = q;  // D on the diagonal entry, first in the column
    Ux[p] = v->D ? v->D[k] : v->x[v->p[k]];
    // Column k holds rows of later elimination steps, and the map from step
    // to position in M is increasing (above).
    for (int e = v->p[k] + off; e < v->p[k] + v->nz[k]; e++) {
      Ui[p + n] = c->upinv[c->sym_F[v->order[v->i[e]]]];
      Ux[p + n++] = v->x[e];
    }
    Unz[q] = n;
  }
  c->un = nb;
  c->uops = 0;
  c->ugen = c->gen;
  c->uorder = c->order_gen;
  c->uvalid = 1;
  return 0;
}

// U from the LDL path's factor (c->Lp ..., in the order perm_F).
static int copy_ldl(TsrChol *c) {
  LdlView v = {c->perm_F, c->Lp, c->Lnz, c->Li, c->Lx, c->Dd};
  return copy_factor(&v, c);
}

// U from CHOLMOD's supernodal L L^T (c->L), through a simplicial LDL^T copy
// of it (O(|L|), less than a numeric factorisation: log_tower's piles, whose
// factors are too dense for the LDL path, then follow F by updates too).
static int copy_super(TsrChol *c) {
  int levels = tsr_chol_serial_begin();
  cholmod_factor *L = cholmod_copy_factor(c->L, &c->cc);
  if (L && !cholmod_change_factor(CHOLMOD_REAL, 0, 0, 1, 1, L, &c->cc)) cholmod_free_factor(&L, &c->cc);
  tsr_chol_serial_end(levels);
  if (!L) return 1;
  LdlView v = {L->Perm, L->p, L->nz, L->i, L->x, NULL};
  int rc = copy_factor(&v, c);
  levels = tsr_chol_serial_begin();
  cholmod_free_factor(&L, &c->cc);
  tsr_chol_serial_end(levels);
  return rc;
}

// Row g joins the factor with its column of A + shift I over the rows in it.
static int add_row(int g, double shift, TsrChol *c) {
  cholmod_sparse *R = c->uR;
  int *Ri = R->i, n = 0, diag = 0;
  double *Rx = R->x;
  for (int p = c->Ap[g]; p < c->Ap[g + 1]; p++) {
    int r = c->Ai[p];
    if (r != g && !c->uin[r]) continue;
    int q = c->upinv[r];
    double v = c->Ax[p] + (r == g ? shift : 0.0);
    diag |= r == g;
    // insertion by position (a column of A holds a few dozen entries)
    int k = n++;
    for (; k > 0 && Ri[k - 1] > q; k--) Ri[k] = Ri[k - 1], Rx[k] = Rx[k - 1];
    Ri[k] = q, Rx[k] = v;
  }
  if (!diag) {
    int q = c->upinv[g], k = n++;
    for (; k > 0 && Ri[k - 1] > q; k--) Ri[k] = Ri[k - 1], Rx[k] = Rx[k - 1];
    Ri[k] = q, Rx[k] = shift;
  }
  ((int *)R->p)[0] = 0;
  ((int *)R->p)[1] = n;
  c->uin[g] = c->uat[c->upinv[g]] = 1;
  return cholmod_rowadd((size_t)c->upinv[g], R, c->U, &c->cc) ? 0 : -1;
}

int tsr_chol_rowmod(const int *F, int nf, double shift, TsrChol *c) {
  int m = c->m;
  if (c->no_rowmod || !c->symmetric || nf < ROWMOD_MIN_ROWS || c->force_path) return 1;
  int from_u =
      c->uvalid && c->ugen == c->gen && c->uorder == c->order_gen && c->ushift == shift && c->U->n == (size_t)m;
  int from_fresh = !from_u && c->fresh_kind && c->fresh_gen == c->gen && c->fresh_order == c->order_gen &&
                   c->fresh_shift == shift && c->sym_valid &&
                   (c->fresh_kind == TSR_CHOL_SPARSE_LDL || (c->L && c->L->is_super));
  if (!from_u && !from_fresh) return 1;
  // Rows changed: |B \ F| + |F \ B|, B the factor's set (c->loc maps F).
  int nb = from_u ? c->un : c->sym_nf, both = 0;
  if (from_u) {
    for (int k = 0; k < nf; k++) both += c->uin[F[k]];
  } else {
    for (int k = 0; k < nb; k++) both += c->loc[c->sym_F[k]] >= 0;
  }
  int changed = nb - both + nf - both;
  int limit = nf / ROWMOD_FRACTION;
  if (limit > ROWMOD_MAX_ROWS) limit = ROWMOD_MAX_ROWS;
  if (limit < 1) limit = 1;
  if (changed > limit) return 1;
  if (changed == 0 && from_fresh) {  // the fresh factor held is A_FF's
    c->method = c->fresh_kind;
    return 0;
  }
  if ((from_u ? c->uops : 0) + changed > ROWMOD_MAX_OPS) return 1;
  if (reserve(c)) return -1;
  if (c->uR && c->uR->nzmax < (size_t)m) cholmod_free_sparse(&c->uR, &c->cc);
  if (!c->uR) {
    int levels = tsr_chol_serial_begin();
    c->uR = cholmod_allocate_sparse((size_t)c->cap_u, 1, (size_t)c->cap_u, 1, 1, 0, CHOLMOD_REAL, &c->cc);
    tsr_chol_serial_end(levels);
    if (!c->uR) return -1;
  }
  c->uR->nrow = (size_t)m;
  if (from_fresh) {
    if (c->fresh_kind == TSR_CHOL_SPARSE_LDL ? copy_ldl(c) : copy_super(c)) {
      c->uvalid = 0;
      return 1;
    }
    c->ushift = c->fresh_shift;
  }
  c->uvalid = 0;  // until the updates succeed
  int levels = tsr_chol_serial_begin(), fail = 0;
  // Rows leaving F first: the rows entering then see only rows of the new F.
  for (int g = 0; g < m && !fail; g++)
    if (c->uin[g] && c->loc[g] < 0) {
      fail = !cholmod_rowdel((size_t)c->upinv[g], NULL, c->U, &c->cc);
      c->uin[g] = c->uat[c->upinv[g]] = 0;
    }
  for (int k = 0; k < nf && !fail; k++)
    if (!c->uin[F[k]]) fail = add_row(F[k], shift, c) != 0;
  tsr_chol_serial_end(levels);
  if (fail) return 1;
  // Every pivot of A_FF positive (the LDL path's test), or a new
  // factorisation decides.
  const int *Up = c->U->p;
  const double *Ux = c->U->x;
  for (int k = 0; k < nf; k++) {
    int q = c->upos[k] = c->upinv[F[k]];
    double d = Ux[Up[q]];
    if (!(d > 0.0) || !isfinite(d)) return 1;
  }
  c->un = nf;
  c->uops += changed;
  c->uvalid = 1;
  c->method = TSR_CHOL_SPARSE_MOD;
  if (changed > 0) c->stats.factorizations++, c->stats.row_updates++;
  return 0;
}

// y := M^-1 y in M's order (unit L, D on the diagonal entry of each column).
static void solve_m(TsrChol *c, double *y) {
  const cholmod_factor *U = c->U;
  const int *Up = U->p, *Ui = U->i, *Unz = U->nz;
  const double *Ux = U->x;
  int m = c->m;
  for (int q = 0; q < m; q++) {
    double v = y[q];
    if (v == 0.0) continue;
    for (int p = Up[q] + 1; p < Up[q] + Unz[q]; p++) y[Ui[p]] -= Ux[p] * v;
  }
  for (int q = 0; q < m; q++) y[q] /= Ux[Up[q]];
  for (int q = m - 1; q >= 0; q--) {
    double v = y[q];
    for (int p = Up[q] + 1; p < Up[q] + Unz[q]; p++) v -= Ux[p] * y[Ui[p]];
    y[q] = v;
  }
}

int tsr_chol_rowmod_solve(const double *rhs, double *x, TsrChol *c) {
  double *y = c->uy;
  memset(y, 0, (size_t)c->m * sizeof *y);
  for (int k = 0; k < c->nf; k++) y[c->upos[k]] = rhs[k];
  solve_m(c, y);
  for (int k = 0; k < c->nf; k++) x[k] = y[c->upos[k]];
  return 0;
}

int tsr_chol_rowmod_schur(double *Gt, int ng, double *S, TsrChol *c) {
  // As the LDL path (chol.c tsr_chol_schur): Z = D^-1/2 L^-1 P G^T from
  // forward solves that start at the first position G reaches, S = Z^T Z;
  // Z's rows are F's positions from there on (nt <= nf of them; with the
  // coupled rows ordered last, about ng).
  const cholmod_factor *U = c->U;
  const int *Up = U->p, *Ui = U->i, *Unz = U->nz;
  const double *Ux = U->x;
  int m = c->m, nf = c->nf, p0 = m, nt = 0;
  double *y = c->uy;
  for (int a = 0; a < ng; a++)
    for (int k = 0; k < nf; k++)
      if (Gt[(size_t)a * nf + k] != 0.0 && c->upos[k] < p0) p0 = c->upos[k];
  if (p0 == m) return 0;  // G_F = 0
  for (int q = p0; q < m; q++)
    if (c->uat[q]) c->zpos[nt++] = q;
  for (int a = 0; a < ng; a++) {
    memset(y + p0, 0, (size_t)(m - p0) * sizeof *y);
    for (int k = 0; k < nf; k++)
      if (c->upos[k] >= p0) y[c->upos[k]] = Gt[(size_t)a * nf + k];
    for (int q = p0; q < m; q++) {
      double v = y[q];
      if (v == 0.0) continue;
      for (int p = Up[q] + 1; p < Up[q] + Unz[q]; p++) y[Ui[p]] -= Ux[p] * v;
    }
    // Column a of Z (ld nt) over the start of G^T: nt <= nf, so column a'
    // > a of G^T, at a' nf >= (a + 1) nt, is not overwritten before it is read.
    double *z = Gt + (size_t)a * nt;
    for (int t = 0; t < nt; t++) z[t] = y[c->zpos[t]] / sqrt(Ux[Up[c->zpos[t]]]);
  }
  tsr_chol_syrk_full(nt, ng, Gt, S);
  return 0;
}
