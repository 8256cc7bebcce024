// SPDX-License-Identifier: MIT
// Lemke's complementary pivoting method (solvers/lemke.c) for the standalone
// problems of `tessera mlcp solve --solver lemke`: LCPs, 0 <= z _|_ M z + q
// >= 0, which block pivoting may not solve when M is neither symmetric nor a
// P-matrix (lcp_tobenna of the Siconos collection). Not a solver of model
// files or `tessera run`: a simulation step's friction rows are boxed.
//
// Limits: every row must have lo = 0 and hi = +inf, or be free (lo = -inf,
// hi = +inf; eliminated first by a Schur complement when their block A_FF
// factorises, refused when it is singular). Any other bound is refused. The
// tableau is dense: the basis inverse and M take 2 n^2 doubles, and a pivot
// costs O(n^2), so problems above TSR_LEMKE_MAX_N rows are refused.
#ifndef TSR_LEMKE_H
#define TSR_LEMKE_H

#include <stddef.h>

#include "mlcp/mlcp.h"
#include "solvers/solver.h"

// 5,000 rows: 2 x 5000^2 doubles = 400 MB, and 2.5e7 flops per pivot (Lemke
// usually needs O(n) pivots: about a minute of pivoting there). Larger
// problems are the simulator's, which block pivoting solves sparsely.
#define TSR_LEMKE_MAX_N 5000

// The pivot cap when params->max_pivots is 0 (the default): Lemke's path
// visits each almost-complementary basis at most once (lexicographic rule),
// typically O(n) of them; Murty's examples (lcp_exp_murty*) need 2^n - 1.
#define TSR_LEMKE_PIVOTS(n) (1000 + 50 * (n))

typedef struct TsrLemke TsrLemke;

TsrLemke *tsr_lemke_create(void);
void tsr_lemke_free(TsrLemke **lk);

// 0 when lemke takes p; -1 with the reason in err (a box-bounded row, a row
// with one bound other than [0, +inf), more than TSR_LEMKE_MAX_N rows).
int tsr_lemke_check(const TsrMlcp *p, char *err, size_t errlen);

// Solves p (lambda [m] out; its input is not used: Lemke starts from z = 0).
// params->max_pivots caps the pivots (0: TSR_LEMKE_PIVOTS). Sets
// stats->iterations (pivots), converged, residual (Eq. 29), factorizations
// (reinversions of the basis, plus A_FF's). Returns 0 solved (z0 left the
// basis), 1 not solved (pivot cap, or ray termination: the LCP may then have
// no solution), < 0 refused (tsr_lemke_check), a singular A_FF, a basis that
// lost its rank to rounding, or out of memory. tsr_lemke_note says which.
int tsr_lemke_solve(const TsrMlcp *p, const TsrSolverParams *params, double *lambda, TsrSolveStats *stats,
                    TsrLemke *lk);

// The dense method itself: M n x n COLUMN-major, q [n], z [n] out (the
// solution, or the last iterate's z when not solved), *pivots the pivots made.
// Returns as tsr_lemke_solve.
int tsr_lemke_lcp(int n, const double *M, const double *q, int max_pivots, double *z, int *pivots, TsrLemke *lk);

// How the last solve ended, one sentence (never NULL).
const char *tsr_lemke_note(const TsrLemke *lk);

// Reinversions of the basis (from scratch) in the last solve.
int tsr_lemke_reinversions(const TsrLemke *lk);

#endif
