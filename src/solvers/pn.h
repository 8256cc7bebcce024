// SPDX-License-Identifier: MIT
// Projected Newton for the symmetric box MLCP (Bertsekas 1982), the fallback
// of the pivoting solvers when block pivoting runs out of pivots. See pn.c.
#ifndef TSR_PN_H
#define TSR_PN_H

#include <stdint.h>

#include "mlcp/mlcp.h"
#include "solvers/solver.h"

typedef struct TsrPn TsrPn;

TsrPn *tsr_pn_create(void);
void tsr_pn_free(TsrPn **pn);

// Solves p (p->symmetric, A positive definite on every principal submatrix
// used; a singular A_FF is regularised) from lambda (in: the start, projected
// onto the bounds; out: the solution). max_iter Newton steps at most (each one
// factorisation of A_FF). index_set [m] out (may be NULL). stats: iterations
// and factorizations are ADDED to; converged and residual are set.
// Returns 0 when the natural residual reached round-off
// (1e-12 max(1, |b|_inf)), 1 at max_iter, when the line search stalls (the
// iterate is still the best found: f decreases monotonically) or when the
// iteration cycles through the same binding sets without progress (pn.c,
// PN_STALL_STEPS), < 0 failure
// (allocation, not symmetric, no factorisation possible).
int tsr_pn_solve(const TsrMlcp *p, int max_iter, double *lambda, int8_t *index_set, TsrSolveStats *stats, TsrPn *pn);

// The face step of pn.c (on by default; TSR_PN_NO_FACE=1 turns it off).
// Process-wide, read at each solve: for benchmarks that drive a trajectory
// with one setting and time candidates with another (bench/bench_replay.c);
// not to be changed while a solve runs.
void tsr_pn_set_face(int on);
int tsr_pn_face(void);

#endif
