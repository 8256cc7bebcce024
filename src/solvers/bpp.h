// SPDX-License-Identifier: MIT
// Block principal pivoting for the box-bounded MLCP (Júdice & Pires 1994;
// seed 000 §5.1-5.3), the "direct-bpp" baseline and the subsystem / interface
// solver of the substructured methods. See bpp.c for the algorithm.
#ifndef TSR_BPP_H
#define TSR_BPP_H

#include <math.h>
#include <stdint.h>

#include "linalg/chol.h"
#include "mlcp/mlcp.h"
#include "solvers/solver.h"

typedef struct TsrBpp TsrBpp;

TsrBpp *tsr_bpp_create(void);
void tsr_bpp_free(TsrBpp **b);

// Solves p. Uses params->max_pivots, pivot_tolerance, warm_start. lambda [m]
// out (in: ignored, BPP starts from an index set); index_set [m] in/out (in:
// the warm start when params->warm_start, out: the returned iterate's set;
// may be NULL). stats: iterations and factorizations are ADDED to (so a caller
// can sum over subsystem solves), converged and residual are set.
// Returns 0 solved (feasible index set found), 1 max_pivots reached (the
// iterate with the lowest natural residual is returned), < 0 failure
// (allocation, or no index set could be factorised).
int tsr_bpp_solve(const TsrMlcp *p, const TsrSolverParams *params, double *lambda, int8_t *index_set,
                  TsrSolveStats *stats, TsrBpp *ctx);

// A solve is finished when every row's residual is at most this share of
// its own scale (tsr_mlcp_relative_residual): BPP polishes beyond it, and so
// does bpp_retry.c; projected Newton stops at the same level (pn.c PN_ROW).
// At round-off the measure is ~1e-16. It was 1e-9: BPP then accepted
// tau-feasible sets with a tight row's slack of the wrong sign at 4e-10 of
// its own scale (tandem_cranes' direct-bpp) or 9e-10 (a random contact
// model's merged subsystem: 7.6e-8 N s, where direct-bpp reaches 2e-12); at
// 1e-10 both polish to round-off (8.8e-16), for no measurable time.
#define TSR_BPP_POLISH_ROW 1e-10

// A singular A_FF is factorised with a shift delta and the solve refined
// against A_FF (bpp.c solve_set, pgs_sm.c). A consistent system refines to
// round-off. When the rhs is outside A_FF's range, Eq. 27 has no solution for
// that set: x grows like 1 / delta along the null space and the residual r
// stays of the size of the rhs's part outside the range. Either test tells:
// a componentwise backward error above TSR_SINGULAR_BERR (a row of A_FF that
// is zero), or |r|_inf above TSR_SINGULAR_BERR |rhs|_inf (the backward error
// alone is fooled there: |A_FF| |x| ~ 1 / delta makes it small).
#define TSR_SINGULAR_BERR 1e-6

static inline int tsr_singular_no_solution(double berr, double r_inf, const double *rhs, int nf) {
  double rhs_inf = 0.0;
  for (int k = 0; k < nf; k++) rhs_inf = tsr_fmax(rhs_inf, fabs(rhs[k]));
  return !(berr <= TSR_SINGULAR_BERR) || !(r_inf <= TSR_SINGULAR_BERR * rhs_inf);
}

// Iterative refinement of x, solved from A_FF x = rhs by the factor ch of
// A_FF (shifted: of A_FF + delta I): r = rhs - A_FF x, x += ch^-1 r (a step
// that would make an entry non-finite leaves it). Unshifted, one step, none
// when x is already backward stable entry by entry (TSR_MLCP_REFINED_BERR;
// the second solve was 8% of chain_wrap's direct-bpp step). Shifted, until
// then or until |r|_inf stops halving, at most 100 steps; a step that
// raised |r|_inf is undone (x is the best iterate seen). F, loc and scale as
// tsr_mlcp_free_residual; r: room for 2 nf (the residual, and the iterate
// before a shifted step). Returns 1 when shifted and the system
// has no solution (tsr_singular_no_solution on the returned x), 0, or -1
// when a solve failed. Shared by BPP (bpp.c) and PGS-SM's subspace solve.
int tsr_bpp_refine(const TsrMlcp *p, const int *F, int nf, const int *loc, const double *rhs, double *x, double *r,
                   double *scale, TsrChol *ch, int shifted);

// The largest residual of a row relative to its own scale
// (tsr_mlcp_relative_residual) of what the last tsr_bpp_solve returned, when
// it returned 0, or an upper bound of it when that is below
// TSR_BPP_POLISH_ROW (where BPP does not polish); NAN otherwise.
double tsr_bpp_relative_residual(const TsrBpp *b);

// The factorisation of A_FF of the last index set BPP solved with (the
// returned one when tsr_bpp_solve returned 0), for reuse (seed 000 §5.2).
TsrChol *tsr_bpp_chol(TsrBpp *b);

// Factorisation reuse for callers that solve one matrix A several times (the
// substructured solvers, seed 000 §5.2). When on, tsr_bpp_solve and
// tsr_bpp_factor skip the factorisation of A_FF when the chol already holds
// it for the same index set; the caller promises that p (the arrays and the
// values of A) is unchanged between calls until it calls tsr_bpp_invalidate.
// Off by default (direct-bpp).
void tsr_bpp_enable_reuse(TsrBpp *b, int on);
void tsr_bpp_invalidate(TsrBpp *b);
// When on, tsr_bpp_solve gives up (returns 1, best iterate) where it would
// start single pivoting: when the infeasible count has stopped falling or an
// index set repeats. For callers that then switch to a method that
// converges monotonically (bpp_retry.c). Off by default.
void tsr_bpp_set_stall_exit(TsrBpp *b, int on);

// Makes tsr_bpp_chol(b) hold the factorisation of A_FF, F = rows of `set`
// that are TSR_INDEX_FREE (reused when possible). *F, *nf: the free rows,
// valid until the next call on b. Returns 0, 1 when A_FF was not positive
// definite and A_FF + shift I was factorised instead (shift > 0), < 0 failure.
int tsr_bpp_factor(const TsrMlcp *p, const int8_t *set, double shift, const int **F, int *nf, TsrBpp *b);

#endif
